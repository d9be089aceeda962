#!/bin/sh
# vm-args: -c 2 -m 1G
# SPDX-License-Identifier: GPL-2.0
# Unload against control writes: /proc/memscope/control holds no module
# reference, so while rmmod runs, a writer with the file open keeps
# writing "enable all" and "disable all".  The unload must win: no probe
# may be attached again once the probes came off, or a handler would run
# from freed module text at the next page fault (an oops: vm-run boots
# with panic_on_warn=1 oops=panic).  30 load/unload cycles, each with a
# fresh writer that holds the file open until its writes fail, six in each
# of the five delays before the rmmod.  Without the closing state in
# probe.c, 10 cycles were enough to panic 6.1: 30 keep three times that
# (50 did, until the suite needed the minute for 44-ustacks-perf).
# Two vCPUs, under single-threaded TCG for the reason 50-stress gives:
# the writer runs on CPU 1 while rmmod runs on CPU 0.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
CYCLES=${TEST_UNLOAD_CYCLES:-30}
expect_eq "panic_on_warn" "$(cat /proc/sys/kernel/panic_on_warn)" 1
[ "$(nproc)" -ge 2 ] || fail "needs two CPUs (vm-args), has $(nproc)"
taskset -cp 0 $$ > /dev/null || fail "taskset: cannot pin this shell to CPU 0"
KPL=/sys/kernel/debug/kprobes/list
[ -r $KPL ] || fail "no $KPL"
nlines $KPL
kprobes0=$nlines

i=0 writes=0 refused=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	insmod "$KO" procfs=1 || fail "cycle $i: insmod procfs=1"
	# The writer opens control once and writes until a write fails: EIO
	# once the file is gone, ENODEV from a module that is unloading.
	taskset -c 1 "$W"/writefile -l /proc/memscope/control "enable all" "enable all" "enable all" "disable all" \
		> /tmp/writer.out 2> /tmp/reader.err &
	writer=$!
	wait_open $writer /proc/memscope/control 30 "cycle $i"
	# Let some writes through, then unload in the middle of them.
	sleep 0.$((i % 5))
	rmmod memscope || fail "cycle $i: rmmod: the writer must not pin the module"
	wait_gone $writer 30 "cycle $i: writer"
	read -r n err < /tmp/writer.out || fail "cycle $i: the writer did not run: $(cat /tmp/reader.err)"
	case $err in
	ENODEV) refused=$((refused + 1)) ;;
	EIO) ;;
	*) fail "cycle $i: the writer stopped with $err after $n writes, want ENODEV or EIO" ;;
	esac
	writes=$((writes + n))
	# Nothing of memscope is left attached: the kernel lists no more
	# kprobes than before the first load, and page faults, shrink_slab and
	# compaction (tracepoints memscope hooks) run no handler of ours, which
	# would oops from freed text.
	nlines $KPL
	[ "$nlines" = "$kprobes0" ] ||
		fail "cycle $i: the unload left kprobes behind: $(cat $KPL)"
	echo 2 > /proc/sys/vm/drop_caches
	[ $((i % 10)) != 0 ] || echo 1 > /proc/sys/vm/compact_memory
	ms_loaded && fail "cycle $i: memscope still loaded"
done
diag "$CYCLES cycles; $writes control writes; $refused writers stopped by ENODEV (closing), the rest by EIO (file gone)"
expect_eq "cycles" $i "$CYCLES"
expect_ge "control writes" $writes "$CYCLES"
# The race was run: some writes arrived while the module was closing.
expect_ge "writers refused while the module was closing" $refused 1
exit 0
