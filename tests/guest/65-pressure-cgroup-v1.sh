#!/bin/sh
# vm-args: -c 1 -m 384M
# SPDX-License-Identifier: GPL-2.0
# Tables per cgroup on cgroup v1, RHEL 7 and 8's default: a memcg of the
# v1 memory hierarchy has its rows, named by its path there.  Its row in
# pressure_by_cgroup holds the memcg's reclaim (the vmscan tracepoints'
# memcg_reclaim_ns, a stall site on every kernel); in faults_by_cgroup,
# its memory.stat pgfault; in swapins_by_cgroup, the kernel's pswpin.
# Its own boot: the memory controller can
# be mounted on v1 only while no cgroup2 cgroup has it, and once a v1
# memcg held pages it stays there until they are all gone.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
grep -q '^memory' /proc/cgroups || lacks "the memory controller"
# RHEL 7's 3.10 has no task_css() and names its memcg mem_cgroup_subsys_id:
# memscope keeps no rows per cgroup there (docs/pressure.md, Per cgroup).
kver_ge 3 15 || lacks "task_css() and memory_cgrp_id (3.15+): no pressure rows per cgroup"
ms_load
zram_swap 256M || fail "no zram"
V1=/tmp/memscope-v1
mkdir -p $V1
if ! mount -t cgroup -o memory memscope-v1 $V1; then
	# 6.11 made memcg v1 a build option, off in Debian's 6.12.
	kver_ge 6 11 && lacks "cgroup v1's memory controller (CONFIG_MEMCG_V1, optional from 6.11)"
	fail "cannot mount the cgroup v1 memory controller: cgroup2 has it? ($(cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null))"
fi
trap 'rmdir $V1/ms/leaf $V1/ms 2>/dev/null; umount $V1 2>/dev/null; zram_swap_off; ms_unload 2>/dev/null' EXIT
# A memcg under another, as cgroup v1 nests them (use_hierarchy is 1 from 4.x).
{ mkdir $V1/ms && mkdir $V1/ms/leaf && echo 24M > $V1/ms/leaf/memory.limit_in_bytes; } ||
	fail "v1 memcg with a 24M limit"
r0=$(ms_stat memcg_reclaim_ns) f0=$(ms_stat faults_retry)
p0=$(vmstat pswpin) z0=$(vmstat swpin_zero)
sh -c 'echo $$ > "$0"/tasks && exec "$1" 64 2' $V1/ms/leaf "$W/swap_churn" > /dev/null ||
	fail "swap_churn in the v1 memcg failed"
reclaim=$(( ($(ms_stat memcg_reclaim_ns) - r0) / 1000 ))
retries=$(($(ms_stat faults_retry) - f0))
swapped=$(($(vmstat pswpin) - p0 + $(vmstat swpin_zero) - z0))
# The tables per cgroup key a task by its v1 memcg here, not by its v2
# cgroup (the root, for every task on such a host): the leaf's faults
# against its own memory.stat, its swap-ins against the kernel's (nothing
# else swaps: the rest of the guest has room).
sleep 3
expect_pgfault "faults_by_cgroup /ms/leaf, a v1 memcg" \
	"$(awk '$1 == "/ms/leaf" { print $2 }' $D/faults_by_cgroup)" \
	"$(awk '$1 == "pgfault" { print $2 }' $V1/ms/leaf/memory.stat)" "$retries"
expect_ge "pswpin + swpin_zero in the v1 memcg's run" "$swapped" 1000
expect_within "swapins_by_cgroup /ms/leaf, against pswpin + swpin_zero" \
	"$(awk '$1 == "/ms/leaf" { print $2 + 0 }' $D/swapins_by_cgroup)" "$swapped" 1
row() { awk -v p="$1" '!/^#/ && $1 == p { print $2, $3 }' $D/pressure_by_cgroup; }
diag "rows: $(grep -v '^#' $D/pressure_by_cgroup | tr '\n' ';') memcg reclaim $reclaim us"
expect_ge "memcg reclaim timed by the vmscan tracepoints (us)" "$reclaim" 50000
# shellcheck disable=SC2046 # the row's two numbers
set -- $(row /ms/leaf)
[ $# = 2 ] || fail "no row /ms/leaf in pressure_by_cgroup"
expect_ge "v1 memcg /ms/leaf: some against 95% of its reclaim time" "$1" $((reclaim * 19 / 20))
expect_ge "v1 memcg /ms/leaf: full at most some (us left)" $(($1 - $2)) 0
expect_eq "v1 memcg /ms: its parent's row, the same stalls" "$(row /ms)" "$1 $2"
# The CLI, over files and netlink, and export.
"$CLI" pressure -c /ms > /tmp/pc.out || fail "memscope pressure -c /ms failed"
# The cgroup, some's three averages and total, full's: the totals, as
# the averages move every 2 s.
expect_eq "pressure -c /ms: the rows at and under it" \
	"$(awk 'NR > 1 { print $1, $5, $9 }' /tmp/pc.out | tr '\n' ';')" "/ms $1 $2;/ms/leaf $1 $2;"
"$CLI" --netlink pressure -c /ms > /tmp/pcn.out || fail "memscope --netlink pressure -c /ms failed"
expect_eq "pressure -c /ms over netlink, as over files" "$(awk '{ print $1, $5, $9 }' /tmp/pcn.out)" \
	"$(awk '{ print $1, $5, $9 }' /tmp/pc.out)"
"$CLI" export > /tmp/e.prom || fail "memscope export failed"
grep -q '^memscope_pressure_memory_waiting_seconds_total{cgroup="/ms/leaf"} [0-9]' /tmp/e.prom ||
	fail "export: no waiting seconds for /ms/leaf: $(grep 'cgroup=' /tmp/e.prom | head -n 3)"
exit 0
