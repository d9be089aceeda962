#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faults stays exact when the kretprobe runs out of instances.  Loaded
# with fault_maxactive=1, two vCPUs faulting at once leave many faults
# without an instance: no handler runs for them.  They still count in
# `faults` (the probe's misses), as `faults_unclassified`, so:
#  - faults agrees with /proc/vmstat pgfault as in 14-faults-system;
#  - the classes and user/kernel, plus faults_unclassified, sum to faults;
#  - the latency histogram has one sample per classified fault;
#  - the CLI's totals show the unclassified ones.
# With each hook the kernel offers: an fprobe where memscope can use one
# (6.5 to 6.13, or a backport, built with CONFIG_FPROBE, as the kernel's
# own config in /boot says), and a kretprobe (fault_hook=kretprobe, and the default
# elsewhere).  `version` names the hook; ftrace's enabled_functions must
# show that hook's handler on handle_mm_fault.  A bad fault_hook fails the
# load with a message that says what to write.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
T=/sys/kernel/tracing
[ -e "$T"/enabled_functions ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -e "$T"/enabled_functions ] || T=/sys/kernel/debug/tracing
cfg=/boot/config-$(uname -r)
[ -r "$cfg" ] || fail "no $cfg: the kernel's config tells which hook to expect"
hooks=kretprobe default=kretprobe
# The fprobe memscope uses is 6.5's to 6.13's, or a backport of it: RHEL
# 9.6's 5.14, whose own fprobe.h (in the tree it was built from) says so.
fph=/lib/modules/$(uname -r)/build/source/include/linux/fprobe.h
if grep -qx CONFIG_FPROBE=y "$cfg" && { { kver_ge 6 5 && ! kver_ge 6 14; } ||
	grep -qs 'unsigned long ret_ip, struct pt_regs \*regs,' "$fph"; }; then
	hooks="fprobe kretprobe" default=fprobe
fi
diag "CONFIG_FPROBE: $(grep '^CONFIG_FPROBE=' "$cfg" || echo unset); hooks: $hooks"

ms_load
expect_eq "the default hook (version)" "$(awk '$1 == "fault_hook" { print $2 }' $D/version)" $default
ms_unload
insmod "$KO" fault_hook=bogus 2> /dev/null && fail "insmod fault_hook=bogus loaded"
dmesg | tail -n 5 | grep -q 'memscope: fault_hook=bogus: use fault_hook=fprobe or fault_hook=kretprobe' ||
	fail "no message for fault_hook=bogus: $(dmesg | tail -n 2)"
if [ $default = kretprobe ]; then
	insmod "$KO" fault_hook=fprobe 2> /dev/null && fail "insmod fault_hook=fprobe loaded without fprobe"
	dmesg | tail -n 5 | grep -q 'memscope: fault_hook=fprobe: this build has no fprobe' ||
		fail "no message for fault_hook=fprobe: $(dmesg | tail -n 2)"
fi

for hook in $hooks; do
	diag "--- fault_hook=$hook"
	ms_load fault_maxactive=1 fault_hook="$hook"
	expect_eq "hook (version)" "$(awk '$1 == "fault_hook" { print $2 }' $D/version)" "$hook"
	case $hook in fprobe) h=fprobe_handler ;; *) h=kprobe_ftrace_handler ;; esac
	line=$(grep '^handle_mm_fault ' "$T"/enabled_functions)
	diag "enabled_functions: $line"
	got=$(echo "$line" | grep -o "$h" | head -n 1)
	# 4.4 shows kprobes' ftrace ops, which save regs (R) and modify the ip
	# (I), behind the recursion-guard wrapper, not by its handler's name.
	if [ -z "$got" ] && [ "$hook" = kretprobe ] &&
	   echo "$line" | grep -q '^handle_mm_fault ([0-9]*) R I.*ftrace_ops_recurs_func'; then
		diag "kprobes' ftrace ops (R I) behind ftrace_ops_recurs_func"
		got=$h
	fi
	# 3.10 (RHEL 7) names no handler, only how many ftrace ops trace the
	# function and their flags: there kprobes' is the one ops that saves
	# regs (R) and does not modify the ip (I: a live patch).  One such ops,
	# gone once memscope unloads (below).
	noname=
	if [ -z "$got" ] && [ "$hook" = kretprobe ] &&
	   echo "$line" | grep -qE '^handle_mm_fault \(1\) R *$'; then
		diag "one ftrace ops that saves regs (R), kprobes': this kernel names no handler"
		got=$h noname=1
	fi
	expect_eq "ftrace's handler on handle_mm_fault" "$got" $h
	snap /tmp/s0
	# shellcheck disable=SC2034 # i only counts the rounds
	for i in 1 2 3; do
		"$W/touch_threads" 2 3000 > /dev/null &
		"$W/touch_anon" 3000 > /dev/null &
		ls -R /usr/share/doc > /dev/null 2>&1 &
		wait
	done
	cat $D/stats $D/hist/fault_latency_ns /proc/vmstat > /tmp/s1
	d() { echo $(( $(snap_get /tmp/s1 "$1") - $(snap_get /tmp/s0 "$1") )); }
	df=$(d faults); dr=$(d faults_retry); dv=$(d pgfault); du=$(d faults_unclassified)
	diag "faults $df, unclassified $du, retries $dr, pgfault $dv"
	expect_ge "faults without a probe instance" "$du" 1
	# The probes file, read later, has these misses and the readers' own.
	expect_ge "the faults probe's misses (read after stats)" \
		"$(awk '$1 == "faults" { print $5 }' $D/probes)" "$(snap_get /tmp/s1 faults_unclassified)"
	if pgfault_skips_retries; then
		# pgfault leaves out calls that return VM_FAULT_RETRY; the retries of
		# unclassified faults are not known, so faults is an upper bound.
		expect_within "faults - faults_retry vs pgfault (>= 6.4)" $((df - dr)) "$dv" 1
		expect_ge "faults vs pgfault (>= 6.4)" "$df" "$dv"
	else
		expect_within "faults vs pgfault (< 6.4)" "$df" "$dv" 0.1
	fi
	F=$(snap_get /tmp/s1 faults) U=$(snap_get /tmp/s1 faults_unclassified)
	sum=$U
	for k in faults_anon faults_file faults_shmem faults_hugetlb; do
		sum=$((sum + $(snap_get /tmp/s1 $k)))
	done
	expect_eq "anon+file+shmem+hugetlb+unclassified" "$sum" "$F"
	expect_eq "user+kernel+unclassified" \
		$(( $(snap_get /tmp/s1 faults_user) + $(snap_get /tmp/s1 faults_kernel) + U )) "$F"
	hc=$(awk '$1 == "#" && $2 == "count" { print $3 }' /tmp/s1)
	expect_within "latency samples vs classified faults" "$hc" $((F - U)) 0.1
	"$CLI" faults > /tmp/t18.cli || fail "memscope faults failed"
	grep '^TOTAL' /tmp/t18.cli | sed 's/^/# /'
	grep -q "^TOTAL: faults [0-9]* .* unclassified [1-9][0-9]*$" /tmp/t18.cli ||
		fail "memscope faults does not show the unclassified faults"
	ms_unload
	if [ -n "$noname" ] && grep -q '^handle_mm_fault ' "$T"/enabled_functions; then
		fail "after memscope unloaded, enabled_functions has $(grep '^handle_mm_fault ' "$T"/enabled_functions)"
	fi
done
exit 0
