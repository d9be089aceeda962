#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# swapin: zram swap under a memcg smaller than the workload, so its pages go
# out and come back.  swapins must move with /proc/vmstat pswpin and belong
# to the workload; with zswap on, the pages it serves must be left out of
# both, also across a reset that lands inside a zswap load (held there by
# the tests/kmod/mshold fixture).
. "$(dirname "$0")/lib.sh"
need_root

MB=64 LIMIT_MB=16 PASSES=2
CG=/sys/fs/cgroup/mstest-swap
HOLD=$TOP/build/$REL/kmod/mshold.ko
PAGE=$(getconf PAGESIZE)

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -e /sys/module/mshold ] && { echo 1 > /sys/module/mshold/parameters/release; rmmod mshold; }
	[ -e /sys/module/zswap/parameters/enabled ] && echo N > /sys/module/zswap/parameters/enabled
	swapoff /dev/zram0 2>/dev/null
	rmdir "$CG" 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT

{ modprobe zram num_devices=1 2>/dev/null && [ -e /sys/block/zram0 ]; } || lacks "zram"
echo 256M > /sys/block/zram0/disksize || fail "zram0 disksize"
{ mkswap /dev/zram0 > /dev/null && swapon /dev/zram0; } || fail "swapon /dev/zram0"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG && echo ${LIMIT_MB}M > $CG/memory.max; } || lacks "the cgroup2 memory controller"
[ -e /sys/module/zswap/parameters/enabled ] && echo N > /sys/module/zswap/parameters/enabled

ms_load
[ "$(probe_state swapin)" = attached ] || fail "swapin probe: $(grep '^swapin ' $D/probes)"
diag "$(grep '^swapin' $D/probes)"

# run_churn: one workload run in the memcg; sets pid, d_swapins, d_pswpin,
# d_zero, row.
run_churn() {
	s0=$(ms_stat swapins) p0=$(vmstat pswpin) z0=$(vmstat swpin_zero)
	out=$(sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/swap_churn $MB $PASSES") ||
		fail "swap_churn failed: $out"
	s1=$(ms_stat swapins) p1=$(vmstat pswpin) z1=$(vmstat swpin_zero)
	diag "$out"
	pid=$(echo "$out" | awk '{ print $2 }')
	d_swapins=$((s1 - s0)) d_pswpin=$((p1 - p0)) d_zero=$((z1 - z0))
	row=$(table_col swapins_by_pid "$pid" 1)
}

run_churn
pages=$((MB * 1024 * 1024 / PAGE)) limit=$((LIMIT_MB * 1024 * 1024 / PAGE))
# At the first read pass at most memory.max is resident: the rest must come
# back from swap, one pswpin per page.
expect_ge "pswpin delta (pages that cannot stay resident)" $d_pswpin $((pages - limit))
# Its data pages are all nonzero, but a page of its stack or of libc's can
# be all zero when it goes out: that one comes back as swpin_zero (6.12's
# zeromap), not pswpin, and swapins counts both (swap.c).
[ $d_zero -le $((pages / 100)) ] || fail "swpin_zero delta $d_zero: zero-filled data pages?"
diag "swpin_zero delta: $d_zero (zero-filled pages other than the workload's data)"
expect_within "swapins delta vs pswpin + swpin_zero delta" $d_swapins $((d_pswpin + d_zero)) 1
expect_ge "workload pid $pid share of swapins, percent" $((row * 100 / d_swapins)) 90
expect_ge "workload pid $pid swapins" "$row" $((pages - limit))

# zswap serves pages from memory: no I/O, no pswpin, and so no swapins.
if [ -e /sys/module/zswap/parameters/enabled ] &&
   echo Y > /sys/module/zswap/parameters/enabled 2>/dev/null; then
	[ "$(probe_state swapin_zswap)" = attached ] ||
		fail "swapin_zswap probe: $(grep '^swapin_zswap ' $D/probes)"
	h0=$(awk '$1 == "swapin_zswap" { print $4 }' $D/probes)
	run_churn
	h1=$(awk '$1 == "swapin_zswap" { print $4 }' $D/probes)
	echo N > /sys/module/zswap/parameters/enabled
	diag "zswap: $((h1 - h0)) loads served from memory, pswpin delta $d_pswpin"
	expect_ge "zswap hits seen" $((h1 - h0)) 1
	expect_within "swapins delta vs pswpin + swpin_zero delta with zswap" $d_swapins $((d_pswpin + d_zero)) 1
	# Resets while zswap serves: a take-back of a swap-in counted before
	# a reset must not wrap swapins below zero (stats.c, swap.c).  Read
	# right after each reset, when a wrap would still show.
	echo Y > /sys/module/zswap/parameters/enabled
	sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/swap_churn $MB $PASSES" > /dev/null &
	churn=$!
	n=0 worst=0
	while kill -0 $churn 2>/dev/null; do
		echo reset > $D/control || fail "reset"
		v=$(ms_stat swapins)
		[ ${#v} -lt 19 ] || fail "swapins read $v right after a reset: it wrapped"
		[ "$v" -le "$worst" ] || worst=$v
		n=$((n + 1))
	done
	wait $churn
	echo N > /sys/module/zswap/parameters/enabled
	diag "$n resets during a zswap churn: swapins right after them at most $worst"
	expect_eq "reset_count" "$(ms_stat reset_count)" $n

	# The same reset, made to land in the window: tests/kmod/mshold holds
	# the workload inside zswap's load, after memscope's entry handler and
	# before its return handler, while this shell resets.  That swap-in
	# was counted before the reset, so its take-back must be skipped.
	# Then zswap goes off and a second run swaps through zram: swapins
	# since the reset must be exactly pswpin + swpin_zero since it (one
	# less, clamped or not, if the take-back went through).
	# The held task spins with preemption off: it and this shell run on
	# CPUs of their own, or the shell could wait behind it.
	[ "$(nproc)" -ge 2 ] || fail "needs two CPUs, has $(nproc)"
	taskset -cp 0 $$ > /dev/null || fail "taskset: cannot pin this shell to CPU 0"
	insmod "$HOLD" || fail "insmod $HOLD"
	P=/sys/module/mshold/parameters
	[ -w /sys/module/zswap/parameters/shrinker_enabled ] &&
		echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo Y > /sys/module/zswap/parameters/enabled
	taskset -c 1 sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/swap_churn $MB 1" > /dev/null &
	churn=$!
	echo $churn > $P/pid
	echo 1 > $P/arm
	# Shell builtins only from here to the release: on 6.1 and 5.10 a fork
	# waited behind the held CPU until mshold gave up after 10 s.
	i=0 h=0
	while [ "$h" != 1 ]; do
		kill -0 $churn 2>/dev/null || fail "swap_churn ended and never loaded a page from zswap"
		i=$((i + 1))
		[ $i -lt 2000000 ] || fail "swap_churn not held in zswap's load"
		read -r h < $P/held
		[ "$h" != 2 ] || fail "mshold gave up after 10 s before this shell saw the hold"
	done
	echo reset > $D/control || fail "reset"
	p0=0 z0=0
	while read -r k v; do
		case $k in pswpin) p0=$v ;; swpin_zero) z0=$v ;; esac
	done < /proc/vmstat
	echo N > /sys/module/zswap/parameters/enabled
	echo 1 > $P/release
	wait $churn
	expect_eq "mshold let the workload go" "$(cat $P/held)" 2
	rmmod mshold
	out=$(sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/swap_churn $MB 1") ||
		fail "swap_churn failed: $out"
	s1=$(ms_stat swapins) p1=$(vmstat pswpin) z1=$(vmstat swpin_zero)
	diag "after a reset inside a zswap load: swapins $s1, pswpin +$((p1 - p0)), swpin_zero +$((z1 - z0))"
	expect_ge "pswpin since that reset (zram, zswap off)" $((p1 - p0)) 1
	expect_eq "swapins since a reset inside a zswap load vs pswpin + swpin_zero" \
		"$s1" $((p1 - p0 + z1 - z0))
else
	diag "zswap not available: the zswap exclusion is not exercised"
fi
exit 0
