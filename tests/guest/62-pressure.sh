#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-args: -m 256M --append psi=1
# (psi=1: RHEL 8 builds PSI off by default, CONFIG_PSI_DEFAULT_DISABLED;
# elsewhere it changes nothing.  33, 60 and 64 share this boot.)
# pressure: memscope's memory stall time against the kernel's own PSI,
# /proc/pressure/memory, on the same run: anonymous memory thrashing
# through zram swap in a small memcg, page-cache thrashing (refaults)
# in a small memcg, and global direct reclaim.  PSI counts
# what memscope counts, from the same sites; the two differ in how each
# learns what runs on a CPU (docs/pressure.md), and the tolerances say by
# how much.  The memcg workloads run in a memcg under another:
# pressure_by_cgroup's rows of both against their own memory.pressure.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /proc/pressure/memory ] || lacks "PSI (/proc/pressure/memory), the ground truth here"
# PRESSURE_HOOKS=1 (64-pressure-hooks): the same, from the hooks on the
# sites that kernels without memstall functions get (before 4.20, or
# CONFIG_PSI off), in place of psi_memstall_enter/leave.
if [ "${PRESSURE_HOOKS:-0}" = 1 ]; then
	ms_load pressure_hooks=1
	probes="pressure_switch pressure_wakeup pressure_direct_reclaim_begin pressure_direct_reclaim_end
		pressure_memcg_reclaim_begin pressure_memcg_reclaim_end pressure_kswapd_wake
		pressure_kswapd_balanced pressure_direct_compact pressure_kcompactd"
	[ -z "$(probe_state pressure_enter)" ] || fail "pressure_enter is there with pressure_hooks=1"
else
	ms_load
	probes="pressure_enter pressure_leave pressure_switch pressure_wakeup"
fi
for p in $probes; do
	[ "$(probe_state "$p")" = attached ] || fail "probe $p is $(probe_state "$p")"
done
# The workloads run in a memcg under another: each has its own row in
# pressure_by_cgroup, to compare with its own memory.pressure.
PCG=/sys/fs/cgroup/memscope-pressure
CG=$PCG/work
[ -e /sys/fs/cgroup/cgroup.controllers ] || lacks "cgroup v2"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || fail "cannot enable the memory controller"
rmdir $CG $PCG 2>/dev/null
{ mkdir $PCG && echo +memory > $PCG/cgroup.subtree_control && mkdir $CG; } || fail "mkdir $CG"
trap 'rmdir $CG $PCG 2>/dev/null; zram_swap_off; ms_unload 2>/dev/null' EXIT

# The file is /proc/pressure/memory's, line for line.
awk 'NR == 1 && /^some avg10=[0-9]+\.[0-9][0-9] avg60=[0-9]+\.[0-9][0-9] avg300=[0-9]+\.[0-9][0-9] total=[0-9]+$/ { n++ }
     NR == 2 && /^full avg10=[0-9]+\.[0-9][0-9] avg60=[0-9]+\.[0-9][0-9] avg300=[0-9]+\.[0-9][0-9] total=[0-9]+$/ { n++ }
     END { exit !(n == 2 && NR == 2) }' $D/pressure || fail "pressure is not PSI's two lines: $(cat $D/pressure)"

# total KIND FILE: the total= of the some or full line.
total() { awk -v k="$1" '$1 == k { sub("total=", "", $5); print $5 }' "$2"; }
# The tolerances.  A total is a sum over periods, each CPU's stall time
# weighed by its non-idle time in each; the kernel's periods end at each
# read of its file and on its own 2 s clock, memscope's at each read and
# on its clock.  measure() reads both every 100 ms (psisync), so that
# nearly all their periods end at the same instants; then what is
# compared is what each counted, and the issue's bounds hold: some within
# 15%, full within 25%, system-wide and for the workload's memcg and its
# parent, on 5.10, 6.1, 6.12 and the RT flavours.  Measured so, the
# first runs agreed within 4% but for:
# - before 5.13, full: the kernel's samples a running stalled task at
#   each tick (docs/pressure.md); 5.10's was 10% to 17% under;
# - a cgroup's CPUs, which PSI weighs by its tasks' non-idle time there,
#   memscope by their time stalled or running there (not waiting to run
#   or on I/O): 6.12's compaction memcg 5% under.
# Without psisync, periods apart, the same runs had differed by up to
# 57% (6.12's compaction) and 60% (6.1-rt's file thrashing).
# With the hooks, memscope sees a subset of the kernel's sites: not the
# waits on refaults and swap-ins.  It was 14% to 18% under on anonymous
# and file thrashing: from 60% of the kernel's figure to 30% over it.
# Compaction's rounds evict and swap out the shell's and awk's pages,
# whose waits to come back the hooks do not see (most likely; not
# measured): 6.1's system figure was once 48% under (165 ms against
# 316 ms), 6.12-rt's memcg's 51% under, the others 13% to 25%: from 25%
# there.  Before 5.13 their full is 5.13's definition, which counts a
# running stalled task throughout, not at ticks: at least the kernel's.
# Still a failure for a memscope that counts nothing, or double.
full_ge=0 tol_some=15 tol_full=25
hooks=${PRESSURE_HOOKS:-0}
if [ "$hooks" = 1 ]; then
	kver_ge 5 13 || full_ge=1
fi
cg_tol_some=$tol_some cg_tol_full=$tol_full
# cg_total KIND DIR FILE: memscope's some_us or full_us of the cgroup at
# DIR, from a copy of pressure_by_cgroup (0 before its first stall).
cg_total() {
	awk -v p="${2#/sys/fs/cgroup}" -v k="$1" '!/^#/ && $1 == p { v = k == "some" ? $2 : $3 }
		END { print v + 0 }' "$3"
}
# compare NAME KIND MEMSCOPE_US KERNEL_US TOL_SOME TOL_FULL: within them.
compare() {
	if [ "$2" = full ] && [ $full_ge = 1 ]; then
		expect_ge "$1: full, memscope's us (5.13's definition) against the kernel's" "$3" "$4"
	elif [ "$hooks" = 1 ]; then
		expect_ge "$1: $2, memscope's us (the hooks) against ${HOOKS_FLOOR:-60}% of the kernel's" \
			"$3" $(($4 * ${HOOKS_FLOOR:-60} / 100))
		expect_ge "$1: $2, 130% of the kernel's us against memscope's (the hooks)" $(($4 * 13 / 10)) "$3"
	else
		expect_within "$1: $2, memscope's us against the kernel's" "$3" "$4" \
			"$([ "$2" = some ] && echo "$5" || echo "$6")"
	fi
}
# measure NAME MIN_US CMD...: run CMD; the kernel's some total must move
# by MIN_US at least (the workload stalled), and memscope's some and full
# by the kernel's, within the tolerances: the system's, and with
# CG_TOO=1 those of the workload's memcg and of its parent.
measure() {
	_name=$1 _min=$2; shift 2
	# Both collect at each read, on their own 2 s clocks besides: read
	# together every 100 ms, their periods end at the same instants but
	# for one in twenty (tests/workloads/psisync.c).
	"$W/psisync" 100 /proc/pressure/memory $D/pressure $CG/memory.pressure \
		$PCG/memory.pressure $D/pressure_by_cgroup &
	_sync=$!
	cat /proc/pressure/memory > /tmp/k0; cat $D/pressure > /tmp/m0
	cat $CG/memory.pressure > /tmp/kc0; cat $PCG/memory.pressure > /tmp/kp0
	cat $D/pressure_by_cgroup > /tmp/mc0
	"$@" > /dev/null || fail "$_name: $* failed"
	cat /proc/pressure/memory > /tmp/k1; cat $D/pressure > /tmp/m1
	cat $CG/memory.pressure > /tmp/kc1; cat $PCG/memory.pressure > /tmp/kp1
	cat $D/pressure_by_cgroup > /tmp/mc1
	kill $_sync; wait $_sync 2>/dev/null
	for _k in some full; do
		_kd=$(( $(total $_k /tmp/k1) - $(total $_k /tmp/k0) ))
		_md=$(( $(total $_k /tmp/m1) - $(total $_k /tmp/m0) ))
		[ $_k = some ] && expect_ge "$_name: the kernel's some (us)" $_kd "$_min"
		compare "$_name" $_k $_md $_kd "$tol_some" "$tol_full"
		[ "${CG_TOO:-0}" = 1 ] || continue
		for _c in "$CG kc" "$PCG kp"; do
			_dir=${_c% *} _f=${_c#* }
			_kd=$(( $(total $_k "/tmp/${_f}1") - $(total $_k "/tmp/${_f}0") ))
			_md=$(( $(cg_total $_k "$_dir" /tmp/mc1) - $(cg_total $_k "$_dir" /tmp/mc0) ))
			compare "$_name, ${_dir#/sys/fs/cgroup}" $_k $_md $_kd \
				"$cg_tol_some" "$cg_tol_full"
		done
	done
}
# in_cg CMD...: CMD in the test's memcg.
# shellcheck disable=SC2317 # called through measure
in_cg() { sh -c 'echo $$ > "$0"/cgroup.procs && exec "$@"' "$CG" "$@"; }

zram_swap 256M || fail "no zram"

# Anonymous memory thrashing through zram swap in a small memcg: reclaim
# and swap-in, on the CPU, with nothing else to run.
echo 24M > $CG/memory.max
CG_TOO=1 measure "anon thrash" 200000 in_cg "$W/swap_churn" 64 3

# The same beside a CPU hog on the same CPU: some stays, full is only
# the time the stalled task itself runs (PSI's 5.13 definition: nothing
# productive may run for the CPU to count as full).  Not with the hooks:
# what runs beside a stall is the same code however the stall was seen.
if [ "$hooks" != 1 ]; then
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	# shellcheck disable=SC2016 # the inner shell expands them
	CG_TOO=1 measure "anon thrash beside a CPU hog" 200000 taskset -c 0 sh -c 'echo $$ > "$0"/cgroup.procs && exec "$1" 64 3' "$CG" "$W/swap_churn"
	kill $hog; wait $hog 2>/dev/null
fi

# Page-cache thrashing in a small memcg, on ext4 on a zram disk: each
# pass reads back pages the last evicted (refaults, waits on their reads).
fdev=zram$(cat /sys/class/zram-control/hot_add)
echo 128M > "/sys/block/$fdev/disksize"
modprobe ext4 2>/dev/null
mkfs.ext4 -q "/dev/$fdev" || fail "mkfs.ext4 /dev/$fdev"
mkdir -p /tmp/pfs
mount "/dev/$fdev" /tmp/pfs || fail "mount /dev/$fdev"
trap 'umount /tmp/pfs; echo ${fdev#zram} > /sys/class/zram-control/hot_remove; rmdir $CG $PCG 2>/dev/null; zram_swap_off; ms_unload 2>/dev/null' EXIT
dd if=/dev/urandom of=/tmp/pfs/data bs=1M count=48 2>/dev/null || fail "dd"
sync; echo 3 > /proc/sys/vm/drop_caches
echo 16M > $CG/memory.max
# These stalls are short (0.1 s to 0.3 s in all, in waits of a few ms)
# and spread over both CPUs (cat runs on one and waits on another): the
# workload on which periods ending apart made the most difference (38%
# under to 60% over before psisync).
CG_TOO=1 measure "file thrash" 20000 in_cg sh -c 'for i in 1 2 3 4 5 6 7 8; do cat /tmp/pfs/data; done'
echo max > $CG/memory.max

# Global direct reclaim: more anonymous memory than the guest has.
measure "global reclaim" 50000 "$W/memhog" 300

# Direct compaction, in the workload's memcg (no limit): fragger fills
# the free memory, gives back every other page, and asks for hugetlb
# pages, which only compaction can make of the holes (no THP needed: the
# RT flavours have none).  A round stalls for 9 to 100 ms (6.12 and 5.10
# the least), so rounds run until the kernel's some has moved by 150 ms,
# fifteen at most, and it must have moved by 50 ms; the kernel's
# compact_stall must move, or the workload did not compact.  The
# memcg's is the smaller share (kswapd and kcompactd stall for the system
# beside it), and its tasks run, and wait to run, on both CPUs: its CPUs'
# weights need those waits, as PSI counts them (docs/pressure.md).
if [ -w /proc/sys/vm/nr_hugepages ]; then
	echo max > $CG/memory.max
	sync; echo 3 > /proc/sys/vm/drop_caches
	cs0=$(awk '$1 == "compact_stall" { print $2 }' /proc/vmstat)
	# shellcheck disable=SC2016 # the inner shell expands them
	HOOKS_FLOOR=25 CG_TOO=1 measure "compaction" 50000 in_cg sh -c 'some() { awk "\$1 == \"some\" { sub(\"total=\", \"\", \$5); print \$5 }" /proc/pressure/memory; }
		s0=$(some) i=0
		while [ $i -lt 15 ] && [ $(($(some) - s0)) -lt 150000 ]; do
			free=$(awk "/^MemFree:/ { print int(\$2 / 1024) }" /proc/meminfo)
			"$0" $((free - 8)) $((free / 8)) || exit 1
			i=$((i + 1))
		done' "$W/fragger"
	expect_ge "compaction: the kernel's compact_stall" \
		$(($(awk '$1 == "compact_stall" { print $2 }' /proc/vmstat) - cs0)) 1
else
	diag "compaction: no /proc/sys/vm/nr_hugepages (no hugetlbfs), not run"
fi

# The averages, in hundredths of a percent: the system's avg10 against
# /proc/pressure/memory's, the memcg's (pressure_by_cgroup_avg) against
# its memory.pressure's.  Both are PSI's calc_avgs(), but each on its own
# 2 s clock: read 4 s after the last workload, when both have taken in
# every stall, they can differ by one period's decay (18%) besides the
# totals' own difference, and psisync cannot align those clocks (a read
# averages only once a period is due).  The system's was 2% to 23% under
# the kernel's (6.12), the memcg's within 11%: 40%.  Not avg60 and avg300: the kernel's hold the
# stalls of the tests before this one in its boot, memscope's only those
# since it was loaded.  Not with the hooks: the averages are the same
# code on the same totals, which 64 compares.
if [ "$hooks" != 1 ]; then
	sleep 4
	cat /proc/pressure/memory > /tmp/k1; cat $D/pressure > /tmp/m1
	cat $CG/memory.pressure > /tmp/kc1; cat $D/pressure_by_cgroup_avg > /tmp/ma1
	# avg KIND WINDOW FILE: a PSI file's avgWINDOW of KIND, in hundredths.
	avg() { awk -v k="$1" -v w="avg$2=" '$1 == k { for (i = 2; i <= NF; i++) if (index($i, w) == 1) {
		v = substr($i, length(w) + 1); sub("\\.", "", v); print v + 0 } }' "$3"; }
	# cg_avg KIND WINDOW: memscope's of the test's memcg, the same.
	cg_avg() { awk -v p="${CG#/sys/fs/cgroup}" -v k="$1" -v w="$2" '$1 == p {
		v = $((k == "full") * 3 + (w == 10 ? 2 : w == 60 ? 3 : 4)); sub("\\.", "", v); print v + 0 }' /tmp/ma1; }
	for _k in some full; do
		expect_ge "the kernel's $_k avg10 (hundredths)" "$(avg $_k 10 /tmp/k1)" 100
		expect_within "$_k avg10, memscope's against the kernel's (hundredths)" \
			"$(avg $_k 10 /tmp/m1)" "$(avg $_k 10 /tmp/k1)" 40
		# A memcg's can be under 1%, where 40% is a few hundredths: within
		# 40%, or 0.50 points (5.10's full: 0.50 against 0.84 once).
		_kc=$(avg $_k 10 /tmp/kc1)
		_tc=$((_kc > 125 ? 40 : 5000 / (_kc + 1)))
		expect_within "${CG#/sys/fs/cgroup}'s $_k avg10, memscope's against memory.pressure's (hundredths)" \
			"$(cg_avg $_k 10)" "$_kc" "$_tc"
	done
fi

# export names memscope's series, and never node_exporter's where the
# kernel exports its own PSI (node_exporter does, from the same file).
"$CLI" export --node-names > /tmp/e.prom || fail "memscope export --node-names failed"
grep -q '^memscope_pressure_memory_waiting_seconds_total [0-9]' /tmp/e.prom ||
	fail "export: no memscope_pressure_memory_waiting_seconds_total"
grep -q '^node_pressure' /tmp/e.prom &&
	fail "export --node-names gave node_exporter's names where the kernel has PSI"
diag "export --node-names: memscope's pressure series, and no node_ duplicate of the kernel's"
grep pressure $D/stats | while read -r l; do diag "$l"; done
expect_eq "stalls not counted for a full task table" "$(ms_stat pressure_tasks_full)" 0
exit 0
