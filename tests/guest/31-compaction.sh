#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# compact: a write to /proc/sys/vm/compact_memory compacts every populated
# zone (order -1 skips the suitability check), one begin/end pair each.
. "$(dirname "$0")/lib.sh"
need_root
[ -w /proc/sys/vm/compact_memory ] || lacks "CONFIG_COMPACTION"
ms_load
# Otherwise both probes are attached.
no_compaction_tp && lacks "$COMPACTION_TP"

zones=$(awk '/^Node/ { z = 1 } z && $1 == "present" && $2 > 0 { n++; z = 0 } END { print n + 0 }' /proc/zoneinfo)
# The kernel's own mm_compaction_end events, to compare the status names.
TR=/sys/kernel/tracing
[ -e $TR/events/compaction ] || TR=/sys/kernel/debug/tracing
[ -e $TR/events/compaction/mm_compaction_end/enable ] || fail "no mm_compaction_end in tracefs"
echo > $TR/trace
echo 1 > $TR/events/compaction/mm_compaction_end/enable
c0=$(ms_stat compaction_count)
# The shell's own pid writes, so the events can be told apart from kcompactd.
pid=$(sh -c 'echo $$; echo 1 > /proc/sys/vm/compact_memory')
c1=$(ms_stat compaction_count)
echo 0 > $TR/events/compaction/mm_compaction_end/enable
kst=$(grep -E "^ *[^ ]+-$pid +\[" $TR/trace | sed -n 's/.*mm_compaction_end:.* status=\([a-z_0-9]*\).*/\1/p' | tr '\n' ' ')
mst=$(grep " pid=$pid " $D/compaction | sed -n 's/.* status=\([^ ]*\).*/\1/p' | tr '\n' ' ')
[ -n "$kst" ] || fail "no mm_compaction_end by pid $pid in the trace: $(grep -c mm_compaction_end $TR/trace) others"
expect_eq "status names vs the kernel's mm_compaction_end trace" "$mst" "$kst"
echo > $TR/trace
diag "compaction_count $c0 -> $c1, populated zones $zones, writer pid $pid"
expect_ge "compaction_count delta" $((c1 - c0)) "$zones"

mine=$(grep -c " pid=$pid " $D/compaction)
sed 's/^/# compaction: /' $D/compaction | tail -n 4
expect_eq "compaction events from pid $pid" "$mine" "$zones"
ns=$(ms_stat compaction_ns)
expect_ge "compaction_ns" "$ns" 1
hcount=$(awk '/^# count/ { print $3 }' $D/hist/compaction_ns)
expect_eq "hist/compaction_ns count vs compaction_count" "$hcount" "$c1"

# reset: the ring shows only what came after it (events.c keeps the
# sequence and moves the ring's start): none of the earlier writer's
# events, exactly the next writer's.
echo reset > $D/control || fail "reset"
# kcompactd may compact on its own meanwhile: judge by the writers' pids.
expect_eq "events from pid $pid right after reset" "$(grep -c " pid=$pid " $D/compaction)" 0
pid2=$(sh -c 'echo $$; echo 1 > /proc/sys/vm/compact_memory')
expect_eq "compaction events from pid $pid2 after reset" "$(grep -c " pid=$pid2 " $D/compaction)" "$zones"
expect_eq "events from pid $pid (before the reset) after reset" "$(grep -c " pid=$pid " $D/compaction)" 0
exit 0
