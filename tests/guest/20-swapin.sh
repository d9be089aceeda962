#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# swapin: zram swap under a memcg smaller than the workload, so its pages go
# out and come back.  swapins must move with /proc/vmstat pswpin and belong
# to the workload; with zswap on, the pages it serves must be left out of
# both.
. "$(dirname "$0")/lib.sh"
need_root

MB=64 LIMIT_MB=16 PASSES=2
CG=/sys/fs/cgroup/mstest-swap
PAGE=$(getconf PAGESIZE)

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -e /sys/module/zswap/parameters/enabled ] && echo N > /sys/module/zswap/parameters/enabled
	swapoff /dev/zram0 2>/dev/null
	rmdir "$CG" 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT

{ modprobe zram num_devices=1 2>/dev/null && [ -e /sys/block/zram0 ]; } || skip "no zram"
echo 256M > /sys/block/zram0/disksize || fail "zram0 disksize"
{ mkswap /dev/zram0 > /dev/null && swapon /dev/zram0; } || fail "swapon /dev/zram0"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG && echo ${LIMIT_MB}M > $CG/memory.max; } || skip "no memory controller"
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
else
	diag "zswap not available: the zswap exclusion is not exercised"
fi
exit 0
