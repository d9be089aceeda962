#!/bin/sh
# vm-args: -c 2 -m 1G
# test-timeout: 1800
# SPDX-License-Identifier: GPL-2.0
# Stress: 30 load/unload cycles while a fault workload, reclaim and
# compaction pressure (drop_caches, compact_memory, a memcg over its
# memory.max swapping to zram) and readers of every file run.  Readers loop
# open/read/close; a blocked `events` reader pins the module in debugfs
# cycles (rmmod must fail with EBUSY until it is killed) and is run down by
# the unload in procfs=1 cycles.  vm-run boots every guest with
# panic_on_warn=1 oops=panic (checked below), so an oops or WARN fails the
# run; a hang fails the timeouts below.  At the end no module reference is
# left: refcount 0, rmmod works, and memscope is gone from /proc/modules.
#
# The load is paced, not flat out: under TCG on a shared host a guest that
# never idles misses its own watchdog, and the cycles are what is tested.
#
# Two vCPUs (vm-args above; -m 1G is vm-run's default, there only to keep
# this test and 57 in a boot apart from 56-lockdown-loaded's, after which
# no module loads), so that the unload meets handlers running on
# the other CPU: this shell, and so every insmod and rmmod, runs on CPU 0;
# the fault and reclaim loads run on CPU 1.  Every third cycle also turns
# memleak on (memleak=1), whose kmalloc, kfree and page handlers run on
# both CPUs all the time, and every third other one mmapsnoop, shmsnoop and
# brkstack, whose sys_exit handlers run at the end of every system call,
# and faultstacks, which walks the user stack at every fault.  The boots run under single-threaded TCG
# (run-all exports VM_ACCEL=tcg,thread=single): under QEMU's default
# multi-threaded TCG, 2-vCPU runs of this test twice ended in "Oops: int3"
# where the kernel had just patched its text (a tracepoint's static branch
# in do_shrink_slab on 6.12, memscope's kprobe at handle_mm_fault+0x5 on
# 6.12-rt), and the same oops hit a 6.12 boot with no module loaded at
# all: TCG's handling of cross-modifying code across vCPU threads, not the
# kernel.  One thread interleaves the two vCPUs and keeps the patching and
# the execution in order; the CPUs still preempt, interrupt and race each
# other at every instruction boundary QEMU switches at.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
CYCLES=${TEST_STRESS_CYCLES:-30}
PARAMS=${TEST_STRESS_PARAMS:-}	# extra insmod parameters, e.g. disable=all
CG=/sys/fs/cgroup/memscope-stress
pids=''

# The guarantee "no WARN" rests on this: a WARN must panic the guest.
expect_eq "panic_on_warn" "$(cat /proc/sys/kernel/panic_on_warn)" 1
[ "$(nproc)" -ge 2 ] || fail "needs two CPUs (vm-args), has $(nproc)"
taskset -cp 0 $$ > /dev/null || fail "taskset: cannot pin this shell to CPU 0"
# Under TCG on a loaded host this load can stall a vCPU for 20-40 s in
# clear_page_erms: QEMU takes its slow path for every byte stored to a page
# it has translated code from (QEMU's vCPU threads sit in that path during
# the stalls).  The soft-lockup detector (20 s,
# softlockup_panic=1) would call that a lockup; 2 minutes still panics, and
# the timeouts below catch any hang of ours.
# A kernel without the lockup detector (check-debug's) has no such knob.
WD=/proc/sys/kernel/watchdog_thresh wd0=
if [ -e $WD ]; then
	wd0=$(cat $WD)
	echo 60 > $WD || fail "cannot set watchdog_thresh"
else
	diag "no $WD: this kernel has no soft-lockup detector"
fi

# Each load loop runs in a session of its own (bg), so that stopping it
# stops the memhog, cat or readchunks it is running too: one left behind
# could pin the cgroup, or open a file of the final load below.
stop_load() {
	[ -n "$pids" ] || return 0
	for p in $pids; do kill -- -"$p" 2>/dev/null; done
	wait 2>/dev/null
	t=0
	# shellcheck disable=SC2086 # echo joins the pids with single spaces
	while pgrep -s "$(echo $pids | tr ' ' ,)" > /dev/null; do
		t=$((t + 1))
		[ $t -le 300 ] || { pids=; fail "load processes still running 30 s after SIGTERM"; }
		sleep 0.1
	done
	pids=
}
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -n "$wd0" ] && echo "$wd0" > "$WD"
	stop_load
	zram_swap_off
	rmdir "$CG" 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT
bg() { setsid "$@" & pids="$pids $!"; }

# zram swap: a device of our own (hot_add), so earlier tests' zram0 does
# not matter.
zram_swap 128M || fail "no zram"
diag "swap on /dev/$zdev"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG && echo 8M > $CG/memory.max; } 2>/dev/null || lacks "the cgroup2 memory controller"

# The load: faults, a memcg over its limit (reclaim, swap-out to zram),
# drop_caches and compaction.
# drop_caches=3 frees the page cache of every program that runs here, and
# TCG is slow to zero pages it has run code from: every 20 s is enough.
bg taskset -c 1 sh -c "while :; do $W/memhog 4 > /dev/null; sleep 1; done"
bg taskset -c 1 sh -c "echo \$\$ > $CG/cgroup.procs; while :; do $W/memhog 16 > /dev/null; sleep 3; done"
bg sh -c 'while :; do echo 3 > /proc/sys/vm/drop_caches;
	echo 1 > /proc/sys/vm/compact_memory 2>/dev/null; sleep 20; done'
# Readers of every file, debugfs and procfs, opening and closing in a loop
# (one cat opens, reads and closes each file in turn); each also holds
# `events` open for a moment.
files="version probes stats faults_by_pid faults_by_file swapins_by_pid
	hugetlb_by_pid shrinkers oom direct_reclaim compaction mmap shm
	hist/fault_latency_ns hist/direct_reclaim_ns hist/memcg_reclaim_ns
	hist/shrink_slab_ns hist/compaction_ns"
#
# The debugfs readers read under a shared flock of $UL, and the unload
# takes it exclusively: the kernel WARNs (and vm-run's panic_on_warn
# panics) when a debugfs open meets a module between try_stop_module()'s
# last reference and its MODULE_STATE_GOING ("debugfs file owner did not
# clean up at exit", full_proxy_open()), a race of the kernel's own that
# any module with debugfs files has.  4.19 met it in the first cycles,
# 6.1-rt once; procfs opens have no such window and need no lock.
UL=/tmp/ms-stress.unload.lock
for dir in $D /proc/memscope; do
	paths=$(for f in $files; do printf '%s/%s ' "$dir" "$f"; done)
	lk=; [ "$dir" = "$D" ] && lk="flock -s $UL"
	bg sh -c "while :; do $lk cat $paths > /dev/null 2>&1;
		$lk timeout 0.2 cat $dir/events > /dev/null 2>&1; sleep 1; done"
done
bg sh -c "while :; do flock -s $UL $W/readchunks -s 3 $D/stats > /dev/null 2>&1; sleep 2; done"

# now: sets $now to the seconds since boot, from /proc/uptime: no program
# (under TCG each date costs a tenth of a second, and each cycle asked the
# time three times).
now() { read -r now _ < /proc/uptime; now=${now%%.*}; }
# until_unloaded SECONDS: retry rmmod while readers come and go.
# Bounded by the clock: a wait for the lock counts as well as a refusal.
# 180 s, not less: under TCG this guest can crawl for minutes after a
# drop_caches, every store to a freed page QEMU had translated code from
# taking its slow path (6.12: one cycle's readers held the lock, crawling,
# for 90 s; 6.1: one rmmod spent 210 s in clear_page); a hang of ours
# still fails here, and the soft-lockup detector panics at 120 s.
until_unloaded() {
	now; t=0 u0=$now
	while ! flock -x -w 5 $UL rmmod memscope 2>/dev/null; do
		t=$((t + 1))
		now; [ $((now - u0)) -le "$1" ] || fail "cycle $i: rmmod still failing after $1 s: $(rmmod memscope 2>&1)"
		sleep 0.05
	done
	tries=$((tries + t))
}
now; start=$now tries=0 busy=0 rundown=0 slowest=0 times=
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	now; c0=$now
	if [ $((i % 3)) = 0 ]; then
		# shellcheck disable=SC2086 # $PARAMS: a list of insmod parameters, maybe none
		insmod "$KO" procfs=1 $PARAMS || fail "cycle $i: insmod procfs=1"
		cat /proc/memscope/events > /dev/null 2>/tmp/reader.err &
		blocked=$!
		# Up to 30 s, so that the unload meets the reader in the file.
		wait_open $blocked /proc/memscope/events 30 "cycle $i"
		until_unloaded 180
		# remove_proc_entry() ran the blocked reader down.
		wait_gone $blocked 10 "cycle $i"
		rundown=$((rundown + 1))
	else
		leak=
		[ $((i % 3)) = 1 ] && leak=memleak=1
		# sys_exit's handlers, on every system call of both CPUs.
		[ $((i % 3)) = 2 ] && leak="mmapsnoop=1 shmsnoop=1 brkstack=1 faultstacks=1"
		# shellcheck disable=SC2086 # $PARAMS: a list of insmod parameters, maybe none
		insmod "$KO" $leak $PARAMS || fail "cycle $i: insmod $leak"
		cat $D/events > /dev/null 2>/tmp/reader.err &
		blocked=$!
		# Up to 30 s, so that the refusal below is the reader's doing.
		wait_open $blocked $D/events 30 "cycle $i"
		# The blocked reader holds a module reference: rmmod must refuse.
		if rmmod memscope 2>/tmp/rmmod.err; then
			fail "cycle $i: rmmod succeeded under a blocked events reader"
		fi
		grep -qi 'in use\|busy' /tmp/rmmod.err || fail "cycle $i: rmmod: $(cat /tmp/rmmod.err)"
		busy=$((busy + 1))
		# Meanwhile the module counts faults (at the least, those of the
		# next reader of stats, as it starts), unless PARAMS detached the
		# faults probe: read again until they move, for up to 2 s.
		f0=$(ms_stat faults) || fail "cycle $i: stats unreadable"
		t=0
		while f1=$(ms_stat faults); ! [ "$f1" -gt "$f0" ]; do
			[ -n "$PARAMS" ] && [ "$(probe_state faults)" != attached ] && break
			t=$((t + 1))
			[ $t -le 20 ] || fail "cycle $i: faults did not move in 2 s ($f0 -> $f1)"
			sleep 0.1
		done
		kill $blocked; wait $blocked 2>/dev/null
		until_unloaded 180
	fi
	now; c=$((now - c0))
	[ $c -le $slowest ] || slowest=$c
	times="$times $c"
done
now; elapsed=$((now - start))
diag "$CYCLES cycles in ${elapsed}s (slowest ${slowest}s): $busy refused under a blocked debugfs reader, $rundown ran a procfs reader down, $tries rmmod retries"
diag "seconds per cycle:$times"
diag "memcg: $(grep -E '^(max|oom_kill) ' $CG/memory.events | tr '\n' ' ')swap: $(awk 'NR > 1 { print $1, $4 }' /proc/swaps | tr '\n' ' ')"
expect_eq "cycles" $i "$CYCLES"
expect_eq "cycles refused under a blocked debugfs reader" $busy $((CYCLES - CYCLES / 3))
expect_eq "cycles that ran a procfs reader down" $rundown $((CYCLES / 3))
expect_ge "memcg limit hits" "$(awk '$1 == "max" { print $2 }' $CG/memory.events)" 1

stop_load
# No leaked reference: a fresh load has refcount 0, and unloads at once.
insmod "$KO" || fail "final insmod"
ref=$(awk '$1 == "memscope" { print $3 }' /proc/modules)
expect_eq "module refcount with no reader" "$ref" 0
rmmod memscope || fail "final rmmod"
grep -q '^memscope ' /proc/modules && fail "memscope still in /proc/modules"
[ -e $D ] && fail "$D left behind"
[ -e /proc/memscope ] && fail "/proc/memscope left behind"
diag "final: refcount 0, unloaded, nothing left in /proc/modules, debugfs or procfs"
exit 0
