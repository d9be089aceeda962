#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-args: -m 256M
# Global direct reclaim: in a small guest, page cache plus two anonymous
# hogs larger than RAM (swapping to zram) stall allocators in
# try_to_free_pages().  That function counts allocstall_<zone> (before 4.10
# one allocstall, which the same prefix sums) once per
# do_try_to_free_pages() between the direct_reclaim_begin/end events, so
# the counts must agree; drsnoop must show the hogs.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin

modprobe zram num_devices=1 2>/dev/null || lacks "zram"
Z=/dev/zram0
[ -b $Z ] || lacks "zram ($Z)"
echo 512M > /sys/block/zram0/disksize || fail "zram disksize"
mkswap $Z > /dev/null || fail "mkswap $Z"
swapon $Z || fail "swapon $Z"
ms_load
trap 'kill $reader 2>/dev/null; ms_unload 2>/dev/null; swapoff '$Z' 2>/dev/null' EXIT
for p in direct_reclaim_begin direct_reclaim_end; do
	[ "$(probe_state $p)" = attached ] || fail "probe $p is $(probe_state $p)"
done
diag "$(grep -E '^(MemTotal|MemFree|MemAvailable)' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"

# The events stream sees every reclaim, not only the ring's last N.
cat $D/events > /tmp/events.out &
reader=$!
a0=$(vmstat_sum allocstall); c0=$(ms_stat direct_reclaim_count)
# Page cache first, then anonymous memory well past what is left.
find /usr/lib /usr/bin -type f -size +256k 2>/dev/null | head -n 60 | xargs cat > /dev/null 2>&1
"$W/memhog" 160 > /tmp/hog1.out &
h1=$!
"$W/memhog" 160 > /tmp/hog2.out &
h2=$!
wait $h1 || fail "memhog 1 failed: $(cat /tmp/hog1.out)"
wait $h2 || fail "memhog 2 failed: $(cat /tmp/hog2.out)"
# Reclaim can still end after the hogs exit (once it was the events
# reader's own, on 6.12-rt: one event more than the count read here):
# read the counts once they have stopped moving.
c1=$(ms_stat_settled direct_reclaim_count 30) ||
	fail "direct_reclaim_count still moving 30 s after the hogs exited"
a1=$(vmstat_sum allocstall)
kill $reader; wait $reader 2>/dev/null
reader=

diag "allocstall $a0 -> $a1, direct_reclaim_count $c0 -> $c1, pswpout $(vmstat pswpout), writepage $(ms_stat writepage)"
expect_ge "allocstall delta" $((a1 - a0)) 10
expect_within "direct_reclaim_count delta vs allocstall delta" $((c1 - c0)) $((a1 - a0)) 5
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
hcount=$(awk '/^# count/ { print $3 }' $D/hist/direct_reclaim_ns)
expect_eq "hist/direct_reclaim_ns count vs direct_reclaim_count" "$hcount" "$c1"
exit 0
