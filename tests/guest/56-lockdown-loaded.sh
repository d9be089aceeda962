#!/bin/sh
# vm-args: -c 2
# SPDX-License-Identifier: GPL-2.0
# Lockdown with memscope loaded: what a host whose memscope is signed (DKMS
# and an enrolled MOK key) gets.  The guest cannot trust a key of ours, so
# the module is loaded first and lockdown raised after, which the kernel
# allows at run time (and never lowers: hence a boot of its own, the
# vm-args above differ from the default group's only for that).
# Under integrity and then confidentiality lockdown (integrity alone where
# the kernel has no confidentiality level: RHEL 8):
# - every 0400 debugfs file still reads, and `events` still streams, where
#   the kernel's own 0400 files (kprobes/list) do; RHEL 9.6's debugfs lets
#   only 0444 files be read under lockdown, and refuses its own and ours
#   alike: there every read is EPERM, and the CLI reads /proc/memscope;
# - control (0200) does not open: EPERM (fs/debugfs/file.c);
# - procfs=1 serves the same files, control included;
# - the probes keep counting and the CLI works, over the files and netlink;
# - rmmod works, and loading it again is refused with the lockdown reason.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
need_lockdown
# RHEL 8's backport is a flag set at boot, its file read-only (0444):
# lockdown cannot be raised at run time there.
[ "$(stat -c %a $SEC/lockdown)" = 444 ] &&
	lacks "lockdown raised at run time (the lockdown file is read-only: RHEL 8's backport sets it at boot only)"
# The levels this kernel has: none, integrity and confidentiality
# upstream; RHEL 8's backport has no confidentiality.
levels=$(tr -d '[]' < $SEC/lockdown)
case " $levels " in *" none integrity "*) ;; *) fail "lockdown levels: $(cat $SEC/lockdown)" ;; esac
expect_eq "lockdown at boot" "$(cat $SEC/lockdown)" "$(echo "$levels" | sed 's/^none/[none]/')"

ms_load procfs=1
files=$(cd $D && find . -type f ! -name control ! -name unwind ! -name uleak ! -name events | sed 's,^\./,,' | sort)
for level in ${levels#none }; do
	echo "$level" > $SEC/lockdown || fail "cannot raise lockdown to $level"
	expect_eq "lockdown" "$(cat $SEC/lockdown)" "$(echo "$levels" | sed "s/$level/[$level]/")"
	# The kernel's own 0400 debugfs file: does its lockdown let them read?
	dirs="$D /proc/memscope" cli_dir=$D
	if ! cat /sys/kernel/debug/kprobes/list > /dev/null 2> /tmp/f.err; then
		grep -q 'Operation not permitted' /tmp/f.err || fail "[$level] kprobes/list: $(cat /tmp/f.err)"
		for f in $files; do
			cat "$D/$f" > /dev/null 2> /tmp/f.err && fail "[$level] $D/$f read where the kernel's own 0400 file does not"
			grep -q 'Operation not permitted' /tmp/f.err || fail "[$level] read $D/$f: $(cat /tmp/f.err), want EPERM"
		done
		diag "[$level] this kernel's debugfs refuses 0400 files (its own kprobes/list too): EPERM for all $(echo "$files" | wc -w) of ours"
		dirs=/proc/memscope cli_dir=/proc/memscope
	fi
	for dir in $dirs; do
		for f in $files; do
			cat "$dir/$f" > /dev/null 2> /tmp/f.err || fail "[$level] read $dir/$f: $(cat /tmp/f.err)"
		done
		grep -q '^faults ' "$dir/stats" || fail "[$level] $dir/stats has no faults line"
		timeout 2 cat "$dir/events" > /dev/null 2> /tmp/f.err
		rc=$?
		[ $rc = 124 ] || fail "[$level] $dir/events: exit $rc, want a blocked reader (124): $(cat /tmp/f.err)"
	done
	expect_eq "[$level] debugfs control" "$("$W/writefile" $D/control reset)" "open: EPERM"
	expect_eq "[$level] procfs control" "$("$W/writefile" /proc/memscope/control reset)" "ok 5"
	f0=$(D=$cli_dir ms_stat faults)
	"$W/touch_anon" 256 > /dev/null || fail "touch_anon"
	expect_ge "[$level] faults counted" $(($(D=$cli_dir ms_stat faults) - f0)) 256
	$CLI status > /tmp/cli.out 2>&1 || fail "[$level] memscope status: $(cat /tmp/cli.out)"
	grep -q "^directory $cli_dir\$" /tmp/cli.out || fail "[$level] memscope status: $(head -n 2 /tmp/cli.out)"
	$CLI faults > /tmp/cli.out 2>&1 || fail "[$level] memscope faults: $(cat /tmp/cli.out)"
	# Netlink is no file: lockdown leaves it open, control's commands too.
	$CLI --netlink status > /tmp/cli.out 2>&1 || fail "[$level] memscope --netlink status: $(cat /tmp/cli.out)"
	grep -q '^netlink family memscope$' /tmp/cli.out || fail "[$level] memscope --netlink status: $(head -n 2 /tmp/cli.out)"
	$CLI --netlink faults > /tmp/cli.out 2>&1 || fail "[$level] memscope --netlink faults: $(cat /tmp/cli.out)"
	diag "[$level] $(echo "$files" | wc -w) files read from debugfs and procfs, events blocks, debugfs control EPERM, procfs control works, faults count, memscope status and faults work (--netlink too)"
done

rmmod memscope || fail "rmmod under lockdown"
n0=$(dmesg | wc -l)
if insmod "$KO" 2> /tmp/insmod.err; then
	fail "insmod of an unsigned module succeeded under lockdown"
fi
dmesg | tail -n +$((n0 + 1)) | grep -q "Lockdown: insmod: unsigned module loading is restricted" ||
	fail "no lockdown line in the kernel log for the refused insmod"
$CLI status > /tmp/cli.out 2>&1
expect_eq "memscope status exit status, module refused" $? 1
grep -qF "locked down [$level], which loads only signed modules" /tmp/cli.out ||
	fail "memscope status: $(cat /tmp/cli.out)"
diag "after rmmod: insmod refused (EPERM, lockdown in the kernel log), memscope status explains"
exit 0
