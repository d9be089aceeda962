#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-args: -m 256M --append psi=1
# Global direct reclaim: in a small guest, page cache plus two anonymous
# hogs larger than RAM (swapping to zram) stall allocators in
# try_to_free_pages().  do_try_to_free_pages() counts allocstall_<zone>
# (before 4.10 one allocstall, which the same prefix sums) at the top of
# each pass over the zones, and one reclaim (a direct_reclaim_begin/end
# pair) makes a second pass when the first reclaimed nothing: the
# module's own allocstall, counted at the same place, must equal the
# kernel's, and direct_reclaim_count can only be lower, by the retries;
# drsnoop must show the hogs.  The hogs run again
# until there have been 1,000 reclaims: `memscope monitor` must show every
# one of them (the events file's reader too), or say how many it lost.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin

modprobe zram num_devices=1 2>/dev/null || lacks "zram"
Z=/dev/zram0
[ -b $Z ] || lacks "zram ($Z)"
echo 512M > /sys/block/zram0/disksize || fail "zram disksize"
mkswap $Z > /dev/null || fail "mkswap $Z"
swapon $Z || fail "swapon $Z"
[ -x "$CLI" ] || fail "no CLI at $CLI (make cli)"
command -v python3 > /dev/null || skip "python3 needed to read monitor's JSON"
ms_load
CG=/sys/fs/cgroup/mstest-low
trap 'kill $reader $mpid 2>/dev/null; rmdir $CG 2>/dev/null; ms_unload 2>/dev/null; swapoff '$Z' 2>/dev/null' EXIT
for p in direct_reclaim_begin direct_reclaim_end; do
	[ "$(probe_state $p)" = attached ] || fail "probe $p is $(probe_state $p)"
done
diag "$(grep -E '^(MemTotal|MemFree|MemAvailable)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"

# The events stream sees every reclaim, not only the ring's last N.
cat $D/events > /tmp/events.out &
reader=$!
# The hogs keep the guest's CPUs busy and its memory short, monitor
# included, which can sleep for seconds: a 1 MiB socket buffer overran
# then (179 of 1,254 lost on 6.12).  Its default, 16 MiB past
# net.core.rmem_max (it runs with CAP_NET_ADMIN), holds the whole run.
# shellcheck disable=SC2119 # no arguments: the default buffer
monitor_start
a0=$(vmstat_sum allocstall); c0=$(ms_stat direct_reclaim_count)
s0=$(ms_stat allocstall)
m0=$(ms_stat memcg_reclaim_count)
# Page cache first, then anonymous memory well past what is left, until
# 1,000 reclaims; h1 and h2 are the first round's hogs.
find /usr/lib /usr/bin -type f -size +256k 2>/dev/null | head -n 60 | xargs cat > /dev/null 2>&1
round=0 h1=
while [ $(($(vmstat_sum allocstall) - a0)) -lt 1000 ]; do
	round=$((round + 1))
	[ $round -le 20 ] || fail "only $(($(vmstat_sum allocstall) - a0)) direct reclaims after 20 rounds of hogs"
	"$W/memhog" 160 > /tmp/hog1.out &
	h=$!
	"$W/memhog" 160 > /tmp/hog2.out &
	[ -n "$h1" ] || { h1=$h; h2=$!; }
	wait $h || fail "memhog 1 failed: $(cat /tmp/hog1.out)"
	wait $! || fail "memhog 2 failed: $(cat /tmp/hog2.out)"
done
# Reclaim can still end after the hogs exit (once it was the events
# reader's own, on 6.12-rt: one event more than the count read here):
# read the counts once they have stopped moving.
c1=$(ms_stat_settled direct_reclaim_count 30) ||
	fail "direct_reclaim_count still moving 30 s after the hogs exited"
a1=$(vmstat_sum allocstall)
s1=$(ms_stat allocstall)
m1=$(ms_stat memcg_reclaim_count)
kill $reader; wait $reader 2>/dev/null
reader=

diag "$round rounds of hogs: allocstall $a0 -> $a1, direct_reclaim_count $c0 -> $c1, pswpout $(vmstat pswpout), writepage $(ms_stat writepage)"
expect_ge "allocstall delta" $((a1 - a0)) 1000
diag "allocstall $((a1 - a0)), memscope's allocstall $((s1 - s0)), direct reclaims $((c1 - c0)): $((s1 - s0 - c1 + c0)) retried"
expect_eq "memscope allocstall delta vs /proc/vmstat allocstall delta" $((s1 - s0)) $((a1 - a0))
expect_ge "allocstall delta vs direct_reclaim_count delta (retries)" $((a1 - a0)) $((c1 - c0))
[ "$(probe_state allocstall)" = attached ] || fail "probe allocstall is $(probe_state allocstall)"
expect_eq "unmatched_ends" "$(ms_stat unmatched_ends)" 0
expect_ge "direct_reclaim_pages" "$(ms_stat direct_reclaim_pages)" 1
expect_ge "writepage (swap-out by reclaim)" "$(ms_stat writepage)" 1

grep '^direct_reclaim ' /tmp/events.out | tail -n 3 | sed 's/^/# events: /'
lost=$(awk '$1 == "lost" { sub("count=", "", $2); s += $2 } END { print s + 0 }' /tmp/events.out)
seen=$(grep -c '^direct_reclaim .* memcg=0$' /tmp/events.out)
expect_eq "direct reclaim events streamed (+ lost $lost)" $((seen + lost)) $((c1 - c0))
for h in $h1 $h2; do
	n=$(grep -c "^direct_reclaim .* pid=$h " /tmp/events.out)
	expect_ge "direct reclaims of memhog pid $h" "$n" 1
done
n=$(awk '!/memcg=0$/' $D/direct_reclaim | grep -c '')
expect_eq "direct_reclaim ring lines without memcg=0" "$n" 0
# monitor: every reclaim (memcg ones too, should any happen), none lost.
monitor_stop $((c1 - c0 + m1 - m0)) 3
# shellcheck disable=SC2046 # monitor_count's words
set -- $(monitor_count)
[ $# -ge 3 ] || fail "monitor's output does not parse: $(tail -n 3 /tmp/mon.out) $(cat /tmp/mon.err)"
diag "monitor: $1 reclaims shown, $2 lost, of $((c1 - c0 + m1 - m0)); stderr: $(head -n 1 /tmp/mon.err)"
expect_eq "reclaims lost by monitor" "$2" 0
expect_eq "reclaims shown by monitor vs the module's reclaim counts' delta" "$1" $((c1 - c0 + m1 - m0))
hcount=$(awk '/^# count/ { print $3 }' $D/hist/direct_reclaim_ns)
expect_eq "hist/direct_reclaim_ns count vs direct_reclaim_count" "$hcount" "$c1"

# Retries.  With the hogs' memory protected by memory.low, a reclaim's
# first pass finds next to nothing it may take, and do_try_to_free_pages()
# goes round again with the protection lifted (memcg_low_skipped; before
# 4.16 may_thrash): allocstall counts both passes, direct_reclaim_count the
# one reclaim.  memscope's allocstall must still equal the kernel's, and
# be higher than direct_reclaim_count by the retries.  The multi-gen LRU
# (on by default in Debian's 6.12) does not skip a protected memcg in
# global reclaim (shrink_one() reclaims it once it is at the tail), so it
# never makes that retry: the phase runs with the classic LRU.
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
if mkdir -p $CG 2>/dev/null && [ -e $CG/memory.low ]; then
	echo max > $CG/memory.low || fail "memory.low"
	LRU_GEN=/sys/kernel/mm/lru_gen/enabled lru_gen=
	if [ -e $LRU_GEN ]; then
		lru_gen=$(cat $LRU_GEN)
		echo n > $LRU_GEN || fail "cannot turn the multi-gen LRU off"
		diag "multi-gen LRU was $lru_gen, off for this phase"
	fi
	a0=$(vmstat_sum allocstall) c0=$(ms_stat direct_reclaim_count) s0=$(ms_stat allocstall)
	for i in 1 2; do
		sh -c "echo \$\$ > $CG/cgroup.procs && exec '$W/memhog' 160" > /tmp/lowhog$i.out &
	done
	wait $! || fail "protected memhog failed: $(cat /tmp/lowhog2.out)"
	wait
	c1=$(ms_stat_settled direct_reclaim_count 30) ||
		fail "direct_reclaim_count still moving 30 s after the protected hogs exited"
	a1=$(vmstat_sum allocstall) s1=$(ms_stat allocstall)
	diag "protected: allocstall $((a1 - a0)), memscope's $((s1 - s0)), direct reclaims $((c1 - c0)): $((s1 - s0 - c1 + c0)) retried"
	expect_eq "protected: memscope allocstall delta vs /proc/vmstat allocstall delta" $((s1 - s0)) $((a1 - a0))
	expect_ge "protected: retries (allocstall - direct_reclaim_count)" $((a1 - a0 - c1 + c0)) 1
	[ -z "$lru_gen" ] || echo "$lru_gen" > $LRU_GEN
	rmdir $CG
else
	diag "no cgroup2 memory controller with memory.low: the retry phase did not run"
fi
exit 0
