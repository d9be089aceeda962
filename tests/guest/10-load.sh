#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module loads, lists its probes, rejects garbage on control, survives
# an unload attempt while a reader holds a file open (debugfs pins the
# module; procfs runs the reader down), and unloads cleanly.
. "$(dirname "$0")/lib.sh"
need_root

ms_load
read -r name ver rel < $D/version
expect_eq "version name" "$name" memscope
expect_eq "version release" "$rel" "$REL"
expect_eq "version" "$ver" "$(cat "$TOP/VERSION")"
grep -q '^memory_bytes [0-9]* cpus [0-9]' $D/version || fail "no footprint line in version"

for f in version probes stats control events faults_by_pid faults_by_file \
	 swapins_by_pid hugetlb_by_pid shrinkers oom direct_reclaim compaction \
	 hist/fault_latency_ns; do
	[ -e "$D/$f" ] || fail "missing $D/$f"
done
# Modes are part of the contract: root-only.
bad=$(find $D -type f ! -name control ! -name unwind ! -name uleak -perm /0277 | head -n 1)
[ -z "$bad" ] || fail "$bad is not 0400"
[ "$(stat -c %a $D/control)" = 200 ] || fail "control is not 0200"

# Every probe line has five fields and a known state.
awk '!/^#/ { if (NF != 5 || $3 !~ /^(attached|disabled|unavailable:[a-z_0-9]+)$/ ||
		 $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/) { print "bad line: " $0; exit 1 } }' \
	$D/probes || fail "malformed probes file"
# The kernel has handle_mm_fault: the faults probe must attach.
expect_eq "faults probe" "$(probe_state faults)" attached
attached=$(awk '!/^#/ && $3 == "attached"' $D/probes | wc -l)
diag "probes:"; sed 's/^/#   /' $D/probes

# stats_format types and explains every stat of stats, in its order, with
# the words of the family that counts it: "name counter|gauge help".
awk '{ print $1 }' $D/stats > /tmp/stat-names
awk '{ print $1 }' $D/stats_format > /tmp/fmt-names
cmp -s /tmp/stat-names /tmp/fmt-names ||
	fail "stats_format's names are not stats': $(diff /tmp/stat-names /tmp/fmt-names | head -n 4)"
awk 'NF < 3 || ($2 != "counter" && $2 != "gauge") { print "bad line: " $0; exit 1 }' \
	$D/stats_format || fail "malformed stats_format"
# The one stat that is a state, not a count (docs/debugfs.md).
expect_eq "stats_format gauges" "$(awk '$2 == "gauge" { print $1 }' $D/stats_format)" \
	swap_residency_sample
diag "stats_format describes all $(wc -l < $D/stats) stats"

# control: each garbage command fails with EINVAL and changes nothing.
# The hit counts move on their own, so compare name, target and state.
probe_states() { awk '!/^#/ { print $1, $2, $3 }' $D/probes | md5sum | cut -c1-8; }
before=$(probe_states)
for cmd in garbage "enable" "enable nosuchprobe" "disable" "reset now" \
	   "enable faults extra" " " "RESET" "reset;reset"; do
	got=$("$W/writefile" $D/control "$cmd")
	[ "$got" = EINVAL ] || fail "control '$cmd' gave '$got', want EINVAL"
done
expect_eq "probes after malformed commands" "$(probe_states)" "$before"
diag "control rejected 9 malformed commands with EINVAL"
echo "disable faults" > $D/control || fail "disable faults"
expect_eq "after disable" "$(probe_state faults)" disabled
echo "enable faults" > $D/control || fail "enable faults"
expect_eq "after enable" "$(probe_state faults)" attached
expect_eq "probes after disable and enable faults" "$(probe_states)" "$before"
echo reset > $D/control || fail "reset rejected"
[ "$(ms_stat faults)" -lt 1000 ] || fail "reset did not clear faults"

# debugfs: an open reader pins the module; rmmod refuses, nothing breaks.
exec 3< $D/stats
if rmmod memscope 2>/tmp/err; then
	fail "rmmod succeeded while $D/stats was open"
fi
grep -qi 'in use' /tmp/err || fail "rmmod error: $(cat /tmp/err)"
grep -q '^faults ' <&3 || fail "reader lost its data"
exec 3<&-
rmmod memscope || fail "rmmod after the reader closed"
diag "debugfs: rmmod refused while a reader held stats, then unloaded"

# procfs: unload proceeds under an open reader and a blocked events reader.
ms_load procfs=1
[ -r /proc/memscope/stats ] || fail "procfs=1 made no /proc/memscope/stats"
[ "$(stat -c %a /proc/memscope)" = 500 ] || fail "/proc/memscope is not 0500"
exec 3< /proc/memscope/stats
cat /proc/memscope/events > /tmp/events.out 2>/tmp/reader.err &
catpid=$!
wait_open $catpid /proc/memscope/events 30 "procfs events reader"
rmmod memscope || fail "rmmod with procfs readers open"
# The unload wakes the blocked reader, which sees end of file: cat exits 0.
wait_gone $catpid 10 "procfs events reader"
expect_eq "blocked events reader's exit status after unload" $? 0
# The open stats reader never read: its file is gone, and procfs says EIO.
if cat <&3 > /tmp/late.out 2>&1; then
	fail "a read of the removed /proc/memscope/stats succeeded: $(head -c 80 /tmp/late.out)"
fi
grep -q 'Input/output error' /tmp/late.out || fail "late read of /proc/memscope/stats: $(cat /tmp/late.out)"
exec 3<&-
ms_loaded && fail "module still loaded"

# Degradation: a probe pointed at a symbol that does not exist is
# unavailable, and every other probe still attaches.
ms_load target_override=faults=memscope_no_such_symbol
expect_eq "overridden probe" "$(probe_state faults)" "unavailable:symbol_not_found"
others=$(awk '!/^#/ && $1 != "faults" && $3 == "attached"' $D/probes | wc -l)
expect_eq "other probes attached" "$others" $((attached - 1))
ms_unload
exit 0
