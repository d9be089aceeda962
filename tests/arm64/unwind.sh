#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# User stacks by unwind tables on arm64, in an arm64 guest: the module's
# arm64 step (the link register of a leaf, the return address saved at
# [CFA + off], PAC bits stripped) over tables the CLI builds from arm64
# CFI.  Run by tests/arm64/run.sh through scripts/vm-run-arm64, which puts
# this script and its files in /work of an initramfs holding busybox,
# Debian's arm64 glibc, libdw and gzip.  TAP on stdout.
#   - faults --stacks loads the tables of a running process's files: a
#     Debian gzip waiting on a pipe gets gzip's, libc's and ld.so's.
#   - Debian's gzip (no frame pointers, nor has glibc), run after that and
#     read with --kept after it exited: at least 90% of its faults after
#     ld.so's start-up (the stacks whose outermost frame is not in ld.so)
#     are in stacks that reach __libc_start_main, every frame named.
#     39-unwind's bound for python3 on x86-64, 90% of all its faults in
#     named stacks of 5 frames or more, is printed, not held: gzip takes
#     about 100 faults, of which ld.so's start-up, whose stacks are 1 to 4
#     frames deep (_dl_start and what it calls), is 5 to 15%.
#   - mallocer (no frame pointers; its faults in glibc's memset, a leaf
#     whose return address stays in x30): at least 90% of the 20 rounds'
#     1,600 pages are in stacks through main;fill;fill_block.
#   - mallocer-pac, the same built with -mbranch-protection=standard: its
#     saved return addresses carry a pointer authentication code (the
#     guest's CPU, QEMU's max, has PAuth, which Debian's kernel enables
#     for every process), which the walk strips: the same bound.
#   - brkstack of sbrker (frame pointers, its heap grown through glibc's
#     sbrk, which has none): all 9 calls in main;grow;grow_heap;sbrk.
# Usage (in the guest): unwind.sh; files: memscope.ko memscope mallocer
# mallocer-pac sbrker
set -u
D=/sys/kernel/debug/memscope
CLI=/work/memscope
FIFO=/tmp/a64.fifo
REL=$(uname -r)
n=0 failed=0

diag() { printf '# %s\n' "$*"; }
ok() { n=$((n + 1)); echo "ok $n - arm64 unwind: $* [$REL]"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - arm64 unwind: $* [$REL]"; }
finish() { echo "1..$n"; exit $failed; }
# bail WHAT: a step the rest needs failed.
bail() { not_ok "$*"; finish; }
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 is $3"; else not_ok "$1: $2, want $3"; fi; }
expect_ge() { if [ "$2" -ge "$3" ]; then ok "$1: $2 >= $3"; else not_ok "$1: $2, want >= $3"; fi; }
ms_stat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' $D/stats; }
ino() { stat -L -c %i "$1"; }
has_table() { awk -v i="$(ino "$1")" '$2 == i { f = 1 } END { exit !f }' $D/unwind_tables; }
# named_deep FOLDED COMM: good and all, as 39-unwind, of COMM's stacks
# (not those of the shell that forked it, before its exec): the faults of
# FOLDED's stacks, and those in stacks of 5 frames or more, every one
# named.  main_good and main_all: the same for the stacks whose outermost
# frame is not in ld.so, and those of them that reach __libc_start_main,
# every frame named; the others to /tmp/a64.short.
named_deep() {
	awk -v c="$2" 'index($0, c ";") != 1 { next }
		{ line = $0; n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";") - 1; ok = k >= 5
		named = 1; start = 0
		for (i = 2; i <= k + 1; i++) {
			if (f[i] ~ /^\[unknown|^0x/) named = 0
			if (f[i] == "__libc_start_main") start = 1
		}
		all += n; if (ok && named) good += n
		if (f[2] ~ /^\[ld-linux/) next
		mall += n; if (start && named) mgood += n; else print line > "/tmp/a64.short" }
		END { printf "%d %d %d %d\n", good + 0, all + 0, mgood + 0, mall + 0 }' "$1" > /tmp/a64.frac
	read -r good all main_good main_all < /tmp/a64.frac
}
top() { awk '{ print $NF, $0 }' "$1" | sort -rn | head -n "$2" | cut -c1-300 | sed "s/^/# $3: /"; }

[ "$(uname -m)" = aarch64 ] || bail "not an arm64 guest: $(uname -m)"
libc=/lib/aarch64-linux-gnu/libc.so.6
for f in /work/memscope.ko $CLI /work/mallocer /work/mallocer-pac /work/sbrker /bin/gzip $libc; do
	[ -e "$f" ] || bail "no $f in the guest"
done
# Rows for every stack of the run: a full table reuses the rows of
# processes that exited, and these are read after they exit.
insmod /work/memscope.ko table_size=8192 || bail "insmod memscope.ko"
ok "memscope loads"
expect_eq "version's unwind_bytes" "$(awk '$1 == "unwind_bytes" { print $2 }' $D/version)" 16777216
# Every page its own fault: THP would make mallocer's growing mappings
# a few huge pages.
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -w $thp ] && { echo never > $thp || bail "THP off"; }
echo enable faultstacks > $D/control || bail "enable faultstacks"
echo enable brkstack > $D/control || bail "enable brkstack"

# Tables from the tool, for a running process's files.
{ rm -f $FIFO && mkfifo $FIFO; } || bail "mkfifo"
gzip -c < $FIFO > /dev/null &
gz=$!
exec 3> $FIFO
"$CLI" faults --stacks -p $$ > /dev/null 2> /tmp/a64.err || not_ok "faults --stacks: $(cat /tmp/a64.err)"
exec 3>&-
wait $gz
diag "unwind_tables: $(grep -vc '^#' $D/unwind_tables) tables, $(awk '!/^#/ { b += $5 } END { print b + 0 }' $D/unwind_tables) bytes"
for f in /bin/gzip $libc /lib/ld-linux-aarch64.so.1; do
	if has_table "$f"; then ok "faults --stacks loaded a table for $f"
	else not_ok "faults --stacks loaded no table for $f: $(cat $D/unwind_tables)"; fi
done
for f in /work/mallocer /work/mallocer-pac /work/sbrker; do
	"$CLI" __unwind-load $f > /dev/null 2> /tmp/a64.err || not_ok "__unwind-load $f: $(cat /tmp/a64.err)"
done

# Each program is read as soon as it exited.  Debian's gzip first.
cat /work/memscope.ko $CLI > /tmp/a64.in || not_ok "gzip's input"
sh -c 'echo $$ > /tmp/a64.pid; exec gzip -c /tmp/a64.in' > /dev/null || not_ok "gzip failed"
gpid=$(cat /tmp/a64.pid)
"$CLI" faults --stacks --kept -p "$gpid" > /tmp/a64.gz 2> /tmp/a64.err ||
	not_ok "faults --stacks --kept -p gzip: $(cat /tmp/a64.err)"
sed 's/^/# gzip, stderr: /' /tmp/a64.err
: > /tmp/a64.short
named_deep /tmp/a64.gz gzip
diag "gzip pid $gpid: $good of $all faults in named stacks of 5 frames or more"
diag "gzip: $main_good of its $main_all faults after ld.so's start-up in named stacks that reach __libc_start_main"
top /tmp/a64.gz 5 gzip
top /tmp/a64.short 6 "gzip, not from __libc_start_main"
expect_ge "gzip's faults after ld.so's start-up" "$main_all" 50
[ "$main_all" -gt 0 ] || main_all=1
expect_ge "of which in named stacks from __libc_start_main, per cent" $((main_good * 100 / main_all)) 90

# fill_path NAME: run NAME 20, then its faults through main;fill;fill_block.
fill_path() {
	"./$1" 20 > /tmp/a64.mal || not_ok "$1 failed"
	_pid=$(sed -n 's/^pid=//p' /tmp/a64.mal)
	"$CLI" faults --stacks --kept -p "$_pid" > /tmp/a64.m 2> /tmp/a64.err ||
		not_ok "faults --stacks --kept -p $1: $(cat /tmp/a64.err)"
	sed "s/^/# $1, stderr: /" /tmp/a64.err
	top /tmp/a64.m 4 "$1"
	awk '{ all += $NF } /;main;fill;fill_block;/ { good += $NF }
		END { printf "%d %d\n", good + 0, all + 0 }' /tmp/a64.m > /tmp/a64.frac
	read -r good all < /tmp/a64.frac
	diag "$1 pid $_pid: $good of $all faults in stacks through main;fill;fill_block"
	expect_ge "$1's faults" "$all" 1600
	expect_ge "$1's faults through main;fill;fill_block (20 x 80 pages, less 10%)" "$good" 1440
}
fill_path mallocer
if grep -qw paca /proc/cpuinfo; then
	ok "the guest's CPU has pointer authentication (paca)"
else
	not_ok "the guest's CPU has no pointer authentication: QEMU's -cpu max has it"
fi
fill_path mallocer-pac

./sbrker 9 < /dev/null > /tmp/a64.sbrk || not_ok "sbrker failed"
spid=$(sed -n 's/^pid=//p' /tmp/a64.sbrk)
"$CLI" brkstack --kept -p "$spid" > /tmp/a64.brk 2> /tmp/a64.err ||
	not_ok "brkstack --kept -p sbrker: $(cat /tmp/a64.err)"
sed 's/^/# brk: /' /tmp/a64.brk
expect_eq "brk calls of sbrker from main;grow;grow_heap;sbrk" \
	"$(awk '/;main;grow;grow_heap;(__)?sbrk;/ { t += $NF } END { print t + 0 }' /tmp/a64.brk)" 9

echo disable faultstacks > $D/control
echo disable brkstack > $D/control
grep -E '^(unwind_|dropped |table_reused )' $D/stats | tr '\n' ' ' | sed 's/^/# /'
echo
expect_ge "frames walked by unwind tables (unwind_frames)" "$(ms_stat unwind_frames)" 1

if rmmod memscope; then ok "memscope unloads"; else not_ok "rmmod memscope"; fi
finish
