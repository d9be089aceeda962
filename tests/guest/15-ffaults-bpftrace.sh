#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memscope's faults_by_file against the book's ffaults.bt, run side by side
# on the same workload: the counts for the test file must agree.
. "$(dirname "$0")/lib.sh"
need_root
command -v bpftrace > /dev/null || skip "bpftrace not installed"
[ -e /sys/kernel/btf/vmlinux ] || lacks "BTF (/sys/kernel/btf/vmlinux, Linux 5.4+) for bpftrace"
M=500
F=/tmp/memscope-bt-$$.dat
FA=/sys/kernel/debug/fault_around_bytes
old=$(cat $FA)
echo 4096 > $FA
btpid=''
inc=''
trap '[ -n "$btpid" ] && kill -9 $btpid 2>/dev/null; echo $old > $FA; rm -f $F; ms_unload' EXIT
dd if=/dev/zero of=$F bs=4096 count=$M status=none
ms_load
# ffaults.bt from BPF Performance Tools, ch. 7, plus two lines of our own.
# bpftrace prints its own "Attaching N probes..." before it attaches, so
# wait for a marker only BEGIN can print, line-buffered into the file.  And
# the script ends itself, printing its map, when the workload exits: on 6.1
# bpftrace sometimes did not act on SIGINT for minutes, so a signal is
# only the fallback.
# start_bt PRELUDE: run it with PRELUDE as its first line.
start_bt() {
	# shellcheck disable=SC2016 # $vma and $file are bpftrace variables
	bpftrace -B line -e "$1"'
kprobe:handle_mm_fault
{
	$vma = (struct vm_area_struct *)arg0;
	$file = $vma->vm_file->f_path.dentry->d_name.name;
	@[str($file)] = count();
}
BEGIN { printf("memscope-bt-ready\n"); }
tracepoint:sched:sched_process_exit /comm == "touch_file"/ { exit(); }' > /tmp/bt.out 2>&1 &
	btpid=$!
}
# running PID: PID has not exited (a zombie not yet waited for has).
running() {
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ]
}
# bt_state: what bpftrace's threads are doing, for the log.
bt_state() {
	grep -E '^(State|SigBlk|SigIgn|SigCgt):' /proc/$btpid/status 2>/dev/null | tr '\t' ' ' | sed 's/^/#   /'
	for t in "/proc/$btpid"/task/*; do
		echo "#   thread ${t##*/}: $(cut -d' ' -f3 "$t/stat" 2>/dev/null) in $(cat "$t/wchan" 2>/dev/null)"
	done
}
# First without the book's "#include <linux/mm.h>": bpftrace then takes
# struct vm_area_struct from the kernel's BTF and runs no clang over the
# kernel headers, which took 25-55 of the test's 60 s under TCG.  Where
# bookworm's bpftrace 0.17 finds no such struct in the BTF (Debian 11's
# 5.10), again with the include, as the book has it.
start_bt ''
i=0
until grep -qx memscope-bt-ready /tmp/bt.out; do
	sleep 1; i=$((i + 1))
	[ $i -lt 240 ] || { cat /tmp/bt.out; fail "bpftrace did not start"; }
	running $btpid && continue
	if grep -q "Unknown struct/union: 'struct vm_area_struct'" /tmp/bt.out && [ -z "$inc" ]; then
		diag "bpftrace found no struct vm_area_struct in BTF: with #include <linux/mm.h>"
		wait $btpid
		inc=1
		start_bt '#include <linux/mm.h>'
		continue
	fi
	sed 's/^/# /' /tmp/bt.out; fail "bpftrace exited"
done
diag "bpftrace ready after $i s"
"$W/touch_file" $F | sed 's/^/# /'
# wait_bt SECONDS: until bpftrace has exited, at most SECONDS.
wait_bt() {
	i=0
	while running $btpid; do
		[ $i -lt "$1" ] || return 1
		sleep 1; i=$((i + 1))
	done
}
how="by itself when touch_file exited"
if ! wait_bt 120; then
	diag "bpftrace still running 120 s after touch_file exited:"; bt_state
	kill -INT $btpid; how="on SIGINT"
	if ! wait_bt 60; then
		diag "bpftrace still running 60 s after SIGINT:"; bt_state
		kill -TERM $btpid; how="on SIGTERM"
		wait_bt 60 || { sed 's/^/# bpftrace: /' /tmp/bt.out | tail -n 20; bt_state
			fail "bpftrace still running 60 s after SIGTERM"; }
	fi
fi
wait $btpid
btpid=
diag "bpftrace exited $how, $i s later"
name=${F##*/}
bt=$(awk -v f="@[$name]:" '$1 == f { print $2 }' /tmp/bt.out)
ms=$(awk -v f="$name" '$1 == f { print $2 }' $D/faults_by_file)
diag "ffaults.bt: ${bt:-none}, memscope: ${ms:-none}"
[ -n "$bt" ] || { sed 's/^/# bpftrace: /' /tmp/bt.out | tail -n 20; }
expect_eq "memscope vs ffaults.bt for $name" "${ms:-0}" "${bt:-missing}"
expect_eq "memscope for $name" "$ms" $M
exit 0
