#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hfaults: a workload touches exactly N huge pages through MAP_HUGETLB; its
# hugetlb_by_pid row and the hugetlb_faults stat must show exactly N.
. "$(dirname "$0")/lib.sh"
need_root

N=4
[ -e /proc/sys/vm/nr_hugepages ] || lacks "hugetlb"
old=$(cat /proc/sys/vm/nr_hugepages)
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { echo "$old" > /proc/sys/vm/nr_hugepages; ms_unload 2>/dev/null; }
trap cleanup EXIT
echo $((N + 1)) > /proc/sys/vm/nr_hugepages
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
[ "$free" -ge $N ] || skip "could reserve only $free huge pages"

ms_load
[ "$(probe_state hugetlb)" = attached ] || fail "hugetlb probe: $(grep '^hugetlb ' $D/probes)"
h0=$(ms_stat hugetlb_faults)
out=$("$W/hugetlb_touch" $N) || fail "hugetlb_touch failed: $out"
h1=$(ms_stat hugetlb_faults)
diag "$out"
# shellcheck disable=SC2086 # split the workload's output into fields
set -- $out
pid=$2 before=$6 after=$8
expect_eq "HugePages_Free used by the workload" $((before - after)) $N
expect_eq "hugetlb_by_pid row for pid $pid" "$(table_col hugetlb_by_pid "$pid" 1)" $N
expect_eq "hugetlb_faults delta" $((h1 - h0)) $N
exit 0
