#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Security.  Every file, in debugfs and in the procfs fallback, is owned by
# root and root-only: 0400, control 0200; the procfs directories are 0500
# and no directory is writable by group or others.  An unprivileged user
# can neither read nor write any of them.  (No file prints a kernel
# address: 34-no-addresses.)  The CLI, run through every tool under strace,
# opens nothing for writing and creates, renames or removes nothing, so it
# drops nothing into world-writable places.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
command -v strace > /dev/null || fail "strace not installed (make deps installs it)"
command -v setpriv > /dev/null || fail "setpriv not installed (util-linux)"

ms_load procfs=1
for dir in $D /proc/memscope; do
	n=0
	for f in $(find "$dir" -type f | sort); do
		n=$((n + 1))
		case $f in */control|*/unwind|*/uleak) want="200 0 0" ;; *) want="400 0 0" ;; esac
		got=$(stat -c '%a %u %g' "$f")
		[ "$got" = "$want" ] || fail "$f: mode, uid, gid $got, want $want"
	done
	# version probes stats, 5 tables, 3 rings, events, control, 5 histograms
	expect_ge "root-only files in $dir" $n 18
	bad=$(find "$dir" -type d -perm /022)
	[ -z "$bad" ] || fail "directory writable by group or others: $bad"
done
for d in /proc/memscope /proc/memscope/hist; do
	expect_eq "mode of $d" "$(stat -c '%a %u' $d)" "500 0"
done
diag "debugfs mount point: $(stat -c '%a %U' /sys/kernel/debug)"

# As nobody: every open fails, for reading and for writing, in both trees.
files=$(find $D /proc/memscope -type f | sort)
# shellcheck disable=SC2016,SC2086 # the inner sh expands $@ and $f; $files is a list of paths
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '
	for f in "$@"; do
		(exec 3< "$f") 2>/dev/null && echo "opened $f for reading"
		(exec 3>> "$f") 2>/dev/null && echo "opened $f for writing"
	done
	exit 0' sh $files > /tmp/nobody.out 2>&1 || fail "setpriv: $(cat /tmp/nobody.out)"
[ ! -s /tmp/nobody.out ] || fail "as nobody: $(head -n 3 /tmp/nobody.out)"
diag "as nobody: none of the $(echo "$files" | wc -w) files opens, for reading or writing"

# The CLI writes nothing anywhere.
touch_cmds="status
-j status
faults 1 1
-j faults 1 1
ffaults 1 1
swapin 1 1
hfaults 1 1
oomkill --last
drsnoop --last
vmscan 1 1
shrinkers 1 1
compact --hist 1 1
top 1 1
export --prometheus"
# Without compaction's tracepoints compact only says it has no data: that
# invocation is left out, and the test a "kernel lacks" skip at its end.
nocompact=
if no_compaction_tp; then
	nocompact=1
	touch_cmds=$(printf '%s\n' "$touch_cmds" | grep -v '^compact ')
fi
n=0
printf '%s\n' "$touch_cmds" | while read -r args; do
	# shellcheck disable=SC2086
	strace -f -qq -o /tmp/cli.strace -e trace=%file,%desc $CLI $args > /dev/null 2>/tmp/cli.err ||
		fail "memscope $args: $(cat /tmp/cli.err)"
	if grep -E 'O_(WRONLY|RDWR|CREAT|TRUNC)|^[0-9]+ +(creat|mkdir|mkdirat|rename|renameat2?|link|linkat|symlink|symlinkat|unlink|unlinkat|rmdir|truncate|mknod|mknodat|chmod|fchmodat|chown|fchownat)\(' \
		/tmp/cli.strace > /tmp/cli.bad; then
		fail "memscope $args changed the filesystem: $(head -n 3 /tmp/cli.bad)"
	fi
	grep -q 'openat(.*memscope/' /tmp/cli.strace || fail "memscope $args: strace saw no open of the module's files"
done || exit 1
diag "memscope: $(printf '%s\n' "$touch_cmds" | wc -l) invocations under strace, no file opened for writing, nothing created or removed"
ms_unload
[ -z "$nocompact" ] || lacks "$COMPACTION_TP: memscope compact left out, every other check passed"
exit 0
