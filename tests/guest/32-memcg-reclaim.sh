#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memcg reclaim: reading more file data than a cgroup's memory.max charges
# page cache past the limit, and the charging task reclaims from its own
# memcg (try_to_free_mem_cgroup_pages), without touching global reclaim.
. "$(dirname "$0")/lib.sh"
need_root
CG=/sys/fs/cgroup/memscope-test
[ -e /sys/fs/cgroup/cgroup.controllers ] || lacks "cgroup v2"
grep -qw memory /sys/fs/cgroup/cgroup.controllers || lacks "the cgroup2 memory controller"
ms_load
for p in memcg_reclaim_begin memcg_reclaim_end; do
	[ "$(probe_state $p)" = attached ] || fail "probe $p is $(probe_state $p)"
done

echo +memory > /sys/fs/cgroup/cgroup.subtree_control || fail "cannot enable the memory controller"
rmdir $CG 2>/dev/null
mkdir $CG || fail "mkdir $CG"
trap 'rmdir $CG 2>/dev/null; ms_unload 2>/dev/null' EXIT
echo 16M > $CG/memory.max

# Drop the host files from the page cache first, so reading them charges.
echo 1 > /proc/sys/vm/drop_caches
c0=$(ms_stat memcg_reclaim_count); d0=$(ms_stat direct_reclaim_count)
p0=$(ms_stat memcg_reclaim_pages)
pid=$(sh -c 'echo $$ > '$CG'/cgroup.procs && echo $$ &&
	find /usr/lib /usr/bin -type f -size +256k 2>/dev/null | head -n 100 |
	xargs cat > /dev/null 2>&1
	exit 0' | head -n 1)
c1=$(ms_stat memcg_reclaim_count); d1=$(ms_stat direct_reclaim_count)
p1=$(ms_stat memcg_reclaim_pages)
max_events=$(awk '$1 == "max" { print $2 }' $CG/memory.events)
peak=$(cat $CG/memory.peak 2>/dev/null || echo -)
diag "memcg_reclaim_count $c0 -> $c1, pages $p0 -> $p1; memory.events max $max_events, peak $peak"
expect_ge "memory.events max" "$max_events" 1
# try_charge() counts a memory.events max event right before each
# try_to_free_mem_cgroup_pages() call it makes for the limit.
expect_within "memcg_reclaim_count delta vs memory.events max" $((c1 - c0)) "$max_events" 5
expect_ge "memcg_reclaim_pages delta" $((p1 - p0)) 1
expect_eq "direct_reclaim_count delta (no global pressure)" $((d1 - d0)) 0

# drsnoop records memcg reclaims too, flagged memcg=1.
n=$(grep ' memcg=1$' $D/direct_reclaim | grep -c '')
expect_ge "direct_reclaim ring memcg=1 lines" "$n" 1
# Only this cgroup has a limit, so every memcg reclaim since the load was
# done by the shell that joined it ($pid) or by its children, forked later.
older=$(awk -v p="$pid" '/ memcg=1$/ { sub("pid=", "", $2); if ($2 + 0 < p + 0) n++ }
	END { print n + 0 }' $D/direct_reclaim)
expect_eq "memcg=1 lines from a task older than the cgroup's shell (pid $pid)" "$older" 0
# The CLI's drsnoop, like BCC's, shows direct reclaim only: none here.
# --memcg adds the ring's memcg reclaims, each marked as such.
"$CLI" drsnoop --last > /tmp/dr.out || fail "memscope drsnoop --last failed"
expect_eq "drsnoop --last rows (no direct reclaim)" "$(grep -vc '^COMM' /tmp/dr.out)" 0
"$CLI" drsnoop --memcg --last > /tmp/dr.out || fail "memscope drsnoop --memcg --last failed"
expect_eq "drsnoop --memcg --last rows marked memcg" "$(grep -c ' memcg$' /tmp/dr.out)" "$n"
hcount=$(awk '/^# count/ { print $3 }' $D/hist/memcg_reclaim_ns)
expect_eq "hist/memcg_reclaim_ns count vs memcg_reclaim_count" "$hcount" "$c1"
exit 0
