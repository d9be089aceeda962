#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memscope's faults_by_file against the book's ffaults.bt, run side by side
# on the same workload: the counts for the test file must agree.
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftrace > /dev/null || skip "bpftrace not installed"
[ -e /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF for bpftrace"
M=500
F=/tmp/memscope-bt-$$.dat
FA=/sys/kernel/debug/fault_around_bytes
old=$(cat $FA)
echo 4096 > $FA
btpid=
trap '[ -n "$btpid" ] && kill -9 $btpid 2>/dev/null; echo $old > $FA; rm -f $F; ms_unload' EXIT
dd if=/dev/zero of=$F bs=4096 count=$M status=none
ms_load
# ffaults.bt from BPF Performance Tools, ch. 7.
# bpftrace prints its own "Attaching N probes..." before it attaches, so
# wait for a marker only BEGIN can print, line-buffered into the file.
bpftrace -B line -e '
#include <linux/mm.h>
kprobe:handle_mm_fault
{
	$vma = (struct vm_area_struct *)arg0;
	$file = $vma->vm_file->f_path.dentry->d_name.name;
	@[str($file)] = count();
}
BEGIN { printf("memscope-bt-ready\n"); }' > /tmp/bt.out 2>&1 &
btpid=$!
i=0
until grep -qx memscope-bt-ready /tmp/bt.out; do
	sleep 1; i=$((i + 1))
	[ $i -lt 240 ] || { cat /tmp/bt.out; fail "bpftrace did not start"; }
	kill -0 $btpid 2>/dev/null || { sed 's/^/# /' /tmp/bt.out; fail "bpftrace exited"; }
done
diag "bpftrace ready after $i s"
$W/touch_file $F | sed 's/^/# /'
# bpftrace prints its maps and exits on SIGINT; say so if it does not.
kill -INT $btpid
i=0
while kill -0 $btpid 2>/dev/null; do
	sleep 1; i=$((i + 1))
	[ $i -lt 240 ] || { sed 's/^/# bpftrace: /' /tmp/bt.out | tail -n 20; fail "bpftrace still running 240 s after SIGINT"; }
done
wait $btpid
diag "bpftrace exited $i s after SIGINT"
name=${F##*/}
bt=$(awk -v f="@[$name]:" '$1 == f { print $2 }' /tmp/bt.out)
ms=$(awk -v f="$name" '$1 == f { print $2 }' $D/faults_by_file)
diag "ffaults.bt: ${bt:-none}, memscope: ${ms:-none}"
[ -n "$bt" ] || { sed 's/^/# bpftrace: /' /tmp/bt.out | tail -n 20; }
expect_eq "memscope vs ffaults.bt for $name" "${ms:-0}" "${bt:-missing}"
expect_eq "memscope for $name" "$ms" $M
exit 0
