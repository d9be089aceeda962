#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# events: one open file, eight reads in flight through io_uring.  io_uring
# takes no f_pos_lock: each read that blocks goes to its own io-wq worker,
# so the module's read runs on one struct file from several threads at
# once, as it can for any program that shares an fd.  Every event must
# reach exactly one read, whole: as many lines as the kernel's compaction
# count moved, the writer's own exactly, none twice, none torn.
. "$(dirname "$0")/lib.sh"
need_root
[ -w /proc/sys/vm/compact_memory ] || lacks "CONFIG_COMPACTION"
WRITES=400

# RHEL 9 builds io_uring in but turns it off (kernel.io_uring_disabled=2,
# the sysctl 6.6 added): on for this test, as root may, and back after.
IUD=/proc/sys/kernel/io_uring_disabled
iud=$(cat "$IUD" 2>/dev/null)

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -n "${rpid:-}" ] && kill "$rpid" 2>/dev/null
	[ -n "$iud" ] && echo "$iud" > "$IUD"
	ms_unload 2>/dev/null
}
trap cleanup EXIT
if [ -n "$iud" ] && [ "$iud" != 0 ]; then
	echo 0 > "$IUD" || fail "cannot set $IUD to 0 (it was $iud)"
	diag "kernel.io_uring_disabled was $iud: 0 for this test"
fi
# A ring that holds every event the writes make (400 x up to 4 zones):
# the test is about concurrent readers, not about a reader that falls a
# ring behind, which a busy TCG host can make the default 256 do.
ms_load ring_size=4096
no_compaction_tp && lacks "$COMPACTION_TP, this test's events"
zones=$(awk '/^Node/ { z = 1 } z && $1 == "present" && $2 > 0 { n++; z = 0 } END { print n + 0 }' /proc/zoneinfo)

rm -f /tmp/ev.ready /tmp/ev.want
"$W/evshare" $D/events /tmp/ev.ready /tmp/ev.want > /tmp/ev.out 2> /tmp/ev.err &
rpid=$!
i=0
while [ ! -e /tmp/ev.ready ]; do
	kill -0 $rpid 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
	[ $i -lt 300 ] || fail "evshare did not start: $(cat /tmp/ev.err)"
done
c0=$(ms_stat compaction_count)
# One shell writes every time, so its events are told apart by its pid.
wpid=$(sh -c 'echo $$; i=0; while [ $i -lt '$WRITES' ]; do
	echo 1 > /proc/sys/vm/compact_memory; i=$((i + 1)); done')
c1=$(ms_stat compaction_count)
echo $((c1 - c0)) > /tmp/ev.want
wait $rpid
rc=$?
rpid=
diag "$(cat /tmp/ev.err)"
[ $rc != 3 ] || lacks "io_uring (Linux 5.1+): $(cat /tmp/ev.err)"
expect_eq "evshare: read exactly the compaction_count delta" $rc 0
expect_eq "event lines read vs compaction_count delta" "$(grep -c . /tmp/ev.out)" $((c1 - c0))
expect_eq "the writer's events (pid $wpid: $WRITES writes x $zones zones)" \
	"$(grep -c "^compaction time_ns=[0-9]* pid=$wpid " /tmp/ev.out)" $((WRITES * zones))
expect_eq "lines lost" "$(grep -c '^lost ' /tmp/ev.out)" 0
expect_eq "lines read twice" "$(sort /tmp/ev.out | uniq -d | wc -l)" 0
bad=$(grep -Evc '^compaction time_ns=[0-9]+ pid=[0-9]+ comm=[!-~]+ latency_ns=[0-9]+ status=([a-z_]+|-?[0-9]+)$' /tmp/ev.out)
[ "$bad" = 0 ] || fail "$bad torn or foreign lines, first: $(grep -Ev '^compaction time_ns=[0-9]+ pid=[0-9]+ comm=[!-~]+ latency_ns=[0-9]+ status=([a-z_]+|-?[0-9]+)$' /tmp/ev.out | head -n 1)"
diag "$(grep -c . /tmp/ev.out) lines, all whole, each once"
exit 0
