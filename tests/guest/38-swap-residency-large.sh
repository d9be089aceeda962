#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Swap residency at real swap sizes: far more pages in swap than the
# residency table's 16,384 slots.  A table that kept the newest entries
# timed 1.3% of the swap-ins with 80 MB in swap, and only the shortest
# stays.  The table keeps a sample of the swap entries by a hash of the
# entry, which narrows (1 in 2, 4, ...) as the table fills.  With 80 MB,
# then 1 GiB, in zram swap, written by tests/workloads/swapres "big" (16
# MiB at a time out, a sleep, 16 MiB at a time back in the same order),
# against the kernel's pswpout/pswpin and the workload's own clock:
#  - every swap-in is timed, untimed or outside the sample:
#    timed + swapins_untimed + swapins_unsampled = pswpin delta;
#  - the untimed (in the sample, but let go) are at most 5% of pswpin;
#  - the sample covers its share: timed + untimed = pswpin / sample, within
#    10% (the hash spreads the entries evenly; the share is exact only in
#    expectation);
#  - the median of hist/swap_residency_ns is within one log2 bucket of
#    the median residency the workload measured;
#  - memscope swapin --residency says the sample rate;
#  - the module's memory is what it was at load: the table does not grow.
. "$(dirname "$0")/lib.sh"
need_root
S=/tmp/memscope-t38
ZSW=/sys/module/zswap/parameters/enabled
mkdir -p $S

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	zram_swap_off
	ms_unload 2>/dev/null
	rm -rf "$S"
}
trap cleanup EXIT

kver_ge 5 4 || lacks "MADV_PAGEOUT (Linux 5.4+)"
[ -e $ZSW ] && echo N > $ZSW
zram_swap 1200M || lacks "zram"
ms_load
for p in swapout swapout_owner swapfree swapin; do
	[ "$(probe_state $p)" = attached ] || fail "$p probe: $(grep "^$p " $D/probes)"
done
size=$(awk '$1 == "swap_residency_size" { print $2 }' $D/version)
mem0=$(awk '$1 == "memory_bytes" { print $2 }' $D/version)
expect_eq "swap_residency_size (the default)" "$size" 16384
expect_eq "swap_residency_sample at load" "$(ms_stat swap_residency_sample)" 1

delta() { echo $(($(snap_get $S/b "$1") - $(snap_get $S/a "$1"))); }

# log2 of N (N >= 1), as the histogram's buckets count.
log2() { awk -v n="$1" 'BEGIN { b = 0; while (n >= 2) { n /= 2; b++ } print b }'; }

for pages in 20480 262144; do
	what="$((pages / 256)) MiB"
	echo reset > $D/control || fail "reset"
	snap $S/a
	"$W/swapres" $pages 2000 big > $S/out || fail "swapres $pages 2000 big: $(cat $S/out)"
	snap $S/b
	diag "$what: swapres: $(tr '\n' ' ' < $S/out)"
	out=$(awk '$1 == "pid" { print $4 }' $S/out)
	res_ms=$(awk '$1 == "residency_ms" { print $2 }' $S/out)
	d_pswpin=$(delta pswpin)
	untimed=$(delta swapins_untimed) unsampled=$(delta swapins_unsampled)
	sample=$(snap_get $S/b swap_residency_sample)
	timed=$(awk '!/^#/ { t += $3 } END { print t + 0 }' $D/hist_raw/swap_residency_ns)
	diag "$what: pswpout $(delta pswpout) pswpin $d_pswpin; timed $timed, untimed $untimed, unsampled $unsampled; sample 1 in $sample; dropped $(delta swap_residency_dropped)"
	expect_eq "$what: pages in swap (pagemap)" "$out" $pages
	expect_eq "$what: pswpout delta" "$(delta pswpout)" $pages
	expect_eq "$what: swapouts vs pswpout delta" "$(delta swapouts)" $pages
	expect_eq "$what: pswpin delta" "$d_pswpin" $pages
	expect_eq "$what: timed + untimed + unsampled vs pswpin delta" \
		$((timed + untimed + unsampled)) "$d_pswpin"
	[ $((untimed * 20)) -le "$d_pswpin" ] ||
		fail "$what: $untimed untimed swap-ins in the sample, more than 5% of $d_pswpin"
	expect_ge "$what: the sample narrowed below 1 in 1 (more entries than slots)" "$sample" 2
	share=$((d_pswpin / sample))
	expect_within "$what: swap-ins in the sample (timed + untimed) vs pswpin / $sample" \
		$((timed + untimed)) "$share" 10
	# The median's bucket, and the workload's median residency's.
	med=$(awk '!/^#/ { lo[NR] = $1; c[NR] = $3; t += $3 }
		END { h = int((t + 1) / 2)
		for (i = 1; i <= NR; i++) { s += c[i]; if (s >= h) { print lo[i]; exit } } }' \
		$D/hist_raw/swap_residency_ns)
	diag "$what: hist_raw/swap_residency_ns: $(grep -v '^#' $D/hist_raw/swap_residency_ns | tr '\n' ';')"
	b_hist=$(log2 "$med") b_work=$(log2 $((res_ms * 1000000)))
	diag "$what: median bucket [$med, $((2 * med))) ns (2^$b_hist); the workload's median $res_ms ms (2^$b_work ns)"
	d=$((b_hist - b_work))
	[ "${d#-}" -le 1 ] ||
		fail "$what: median in bucket 2^$b_hist ns, the workload's $res_ms ms is in 2^$b_work: more than one bucket apart"
	"$CLI" swapin --residency > $S/cli 2>&1 || fail "memscope swapin --residency: $(cat $S/cli)"
	diag "$what: memscope swapin --residency: $(tr '\n' ';' < $S/cli)"
	grep -q "^SAMPLE: 1 in $sample swap entries timed, $unsampled swap-ins outside the sample\$" $S/cli ||
		fail "$what: CLI sample line: $(grep SAMPLE $S/cli)"
done
expect_eq "module memory after 1 GiB of swap vs at load" \
	"$(awk '$1 == "memory_bytes" { print $2 }' $D/version)" "$mem0"
exit 0
