#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Major faults agree with the kernel's pgmajfault.  After drop_caches, a
# host file read through an mmap over the 9p root has to be fetched: each
# page is a major fault, counted by the kernel in /proc/vmstat pgmajfault
# and returned as VM_FAULT_MAJOR to handle_mm_fault().
. "$(dirname "$0")/lib.sh"
need_root
FA=/sys/kernel/debug/fault_around_bytes
F=/boot/vmlinuz-$REL
[ -r "$F" ] || skip "no $F to read"
old=$(cat $FA)
echo 4096 > $FA
trap 'echo $old > $FA; ms_unload' EXIT
ms_load
sync; echo 3 > /proc/sys/vm/drop_caches
m0=$(ms_stat faults_major); v0=$(vmstat pgmajfault)
"$W/touch_file" "$F" | sed 's/^/# /'
m1=$(ms_stat faults_major); v1=$(vmstat pgmajfault)
dm=$((m1 - m0)); dv=$((v1 - v0))
expect_ge "pgmajfault delta" $dv 500
expect_within "faults_major delta vs pgmajfault delta" $dm $dv 2
exit 0
