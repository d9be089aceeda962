#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# System-wide, `faults` counts handle_mm_fault() calls, the events the
# kernel counts as pgfault.  Up to 6.3 the kernel counts every call; from
# 6.4 mm_account_fault() leaves a call that returns VM_FAULT_RETRY to be
# counted when it is retried.  So pgfault must equal faults (<6.4) or
# faults - faults_retry (>=6.4) to within 0.1%, and faults must be within
# 1% on every kernel.
. "$(dirname "$0")/lib.sh"
need_root
ms_load
snap /tmp/s0
# A busy mix: anonymous, file-backed, exec, fork.
# shellcheck disable=SC2034 # i only counts the rounds
for i in 1 2 3 4; do
	"$W/touch_anon" 5000 > /dev/null &
	ls -R /usr/share/doc > /dev/null 2>&1 &
	wait
done
snap /tmp/s1
d() { echo $(( $(snap_get /tmp/s1 "$1") - $(snap_get /tmp/s0 "$1") )); }
missed=$(awk '$1 == "faults" { print $5 }' $D/probes)
expect_eq "faults probe misses" "$missed" 0
df=$(d faults); dr=$(d faults_retry); dv=$(d pgfault)
diag "faults $df, retries $dr, pgfault $dv"
expect_ge "pgfault delta" "$dv" 20000
if pgfault_skips_retries; then
	expect_within "faults - faults_retry vs pgfault (>= 6.4)" $((df - dr)) "$dv" 0.1
else
	expect_within "faults vs pgfault (< 6.4)" "$df" "$dv" 0.1
fi
expect_within "faults vs pgfault" "$df" "$dv" 1
# Classes partition the faults, in one consistent snapshot.
sum=0
for k in faults_anon faults_file faults_shmem faults_hugetlb; do
	sum=$((sum + $(snap_get /tmp/s1 $k)))
done
expect_eq "anon+file+shmem+hugetlb" $sum "$(snap_get /tmp/s1 faults)"
expect_eq "user+kernel" $(( $(snap_get /tmp/s1 faults_user) + $(snap_get /tmp/s1 faults_kernel) )) \
	"$(snap_get /tmp/s1 faults)"
exit 0
