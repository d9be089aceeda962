#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shrinkers: dropping the slab caches runs every shrinker with objects to
# free; the superblock shrinker (super_cache_scan, or before 3.12
# prune_super) must be timed and named.
. "$(dirname "$0")/lib.sh"
need_root
ms_load
for p in shrink_slab_start shrink_slab_end; do
	[ "$(probe_state $p)" = attached ] || fail "probe $p is $(probe_state $p)"
done

# Unused dentries and inodes of the 9p root land on its superblock's LRU,
# so the superblock shrinker has something to scan.
find /usr/share /usr/lib -maxdepth 3 > /dev/null 2>&1
sync
c0=$(ms_stat shrink_slab_count); f0=$(ms_stat shrink_slab_freed)
echo 2 > /proc/sys/vm/drop_caches
c1=$(ms_stat shrink_slab_count); f1=$(ms_stat shrink_slab_freed)
diag "shrink_slab_count $c0 -> $c1, shrink_slab_freed $f0 -> $f1"
expect_ge "shrink_slab_count delta" $((c1 - c0)) 1
expect_ge "shrink_slab_freed delta" $((f1 - f0)) 1

sed 's/^/# shrinkers: /' $D/shrinkers | head -n 12
sb=$(sb_shrinker)
row=$(awk -v f="$sb" '$1 == f' $D/shrinkers)
[ -n "$row" ] || fail "shrinkers does not name $sb"
# shellcheck disable=SC2086 # split the row into its columns
set -- $row
expect_ge "$sb count" "$2" 1
expect_ge "$sb ns" "$3" 1
expect_ge "$sb freed" "$4" 1

# The table, the counter and the histogram tell the same story.
total=$(awk '!/^#/ { s += $2 } END { print s + 0 }' $D/shrinkers)
count=$(ms_stat shrink_slab_count)
hcount=$(awk '/^# count/ { print $3 }' $D/hist/shrink_slab_ns)
dropped=$(ms_stat dropped)
expect_eq "shrinkers rows total vs shrink_slab_count" "$total" "$count"
expect_eq "hist/shrink_slab_ns count vs shrink_slab_count" "$hcount" "$count"
expect_eq "dropped" "$dropped" 0
exit 0
