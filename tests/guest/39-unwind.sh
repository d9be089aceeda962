#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# User stacks without frame pointers: the module walks by the unwind
# tables the CLI builds and loads (docs/unwind.md).
#   - The `unwind` file takes a table for an open file, refuses a broken
#     one (EINVAL), one over the unwind_bytes budget (E2BIG) and a second
#     one for the same file (EEXIST quietly); unwind_tables lists each.
#   - a table holds no reference to its file: its filesystem unmounts
#     cleanly;
#   - faults --stacks loads the tables of running processes' executable
#     mappings: a python3 waiting on a pipe gets python3.11's and libc's.
#   - Debian's python3 (no frame pointers, nor has glibc), run after that
#     and read with --kept after it exited: at least 90% of its faults
#     are in stacks of 5 frames or more, every frame named.
#     -j counts the frames walked by tables and by frame pointers as stats
#     does.
#   - brkstack of sbrker (frame pointers, its heap grown through glibc's
#     sbrk): sbrk's caller grow_heap and its caller grow are in the stack,
#     which the frame-pointer walk skips.
#   - A python3 started after faults --stacks: the tool loads its files'
#     tables as it runs, and the faults it takes once they are in (the
#     difference of two --kept reads) are again 90% in named stacks of 5
#     frames or more.  It runs from an overlay filesystem, as in a
#     container: its VMA maps the layer's file, not the overlay's, and the
#     table must be that file's, the frames named from it.
#   - Three programs that live 0.3 s each, started after the tool: each
#     gets its table, from the exec event.
#   - A library dlopen()ed after the tool read its program's maps gets
#     its table as soon as a stack has it (unwind_wanted): 90% of its
#     faults are in stacks that reach main() through it.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are followed on x86-64 only"
PY=/usr/bin/python3.11
[ -x $PY ] || skip "no $PY"
FIFO=/tmp/t39.fifo
OVL=/tmp/t39.ovl
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "${tool:-}" ] && kill -INT "$tool" 2>/dev/null && wait "$tool"
	ms_unload 2>/dev/null
	rm -f "$FIFO"
	umount "$OVL" "$OVL.up" "$OVL.low" 2>/dev/null
}
trap cleanup EXIT
libc=$(ldd $PY | awk '$1 ~ /^libc\.so/ { print $3 }')
# named_deep FOLDED: sets all, the faults of FOLDED's stacks, and good,
# those in stacks of 5 frames or more, every one named.  A stack's frames
# are the fields between the first ';' and the count; named: none is
# [unknown] or a bare address.  A function of python3.11's own that only
# its (absent) debuginfo names is [python3.11]: its file, which is what
# the walk needs.
named_deep() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";") - 1; ok = k >= 5
		for (i = 2; i <= k + 1; i++) if (f[i] ~ /^\[unknown|^0x/) ok = 0
		all += n; if (ok) good += n }
		END { printf "%d %d\n", good, all }' "$1" > /tmp/t39.frac
	read -r good all < /tmp/t39.frac
}
[ -n "$libc" ] || fail "ldd finds no libc for $PY"

# A budget of 64 KiB takes no libc (227 KiB): E2BIG, said as such.
ms_load unwind_bytes=65536
expect_eq "version's unwind_bytes" "$(awk '$1 == "unwind_bytes" { print $2 }' $D/version)" 65536
"$CLI" __unwind-load "$libc" > /dev/null 2> /tmp/t39.err && fail "libc loaded within 64 KiB"
grep -q "unwind_bytes budget is full" /tmp/t39.err || fail "over budget: $(cat /tmp/t39.err)"
# Broken loads: EINVAL.
python3 - "$D/unwind" /bin/true << 'EOF' || fail "see above"
import errno, os, struct, sys
# The checks themselves are the host test's (tests/host/unwind_check.c);
# here, that the file refuses what fails them, and writes that are not
# one whole load.
fd = os.open(sys.argv[2], os.O_RDONLY)
w = os.open(sys.argv[1], os.O_WRONLY)
for name, blob in (("bad magic", b"\0" * 72), ("short", b"")):
    try:
        os.write(w, struct.pack("=iI", fd, len(blob)) + blob)
        sys.exit("# FAIL: %s: the module took it" % name)
    except OSError as e:
        if e.errno != errno.EINVAL:
            sys.exit("# FAIL: %s: %s, want EINVAL" % (name, e))
try:
    os.write(w, struct.pack("=iI", fd, 8) + b"\0" * 4)
    sys.exit("# FAIL: a write shorter than its size: the module took it")
except OSError as e:
    if e.errno != errno.EINVAL:
        sys.exit("# FAIL: a write shorter than its size: %s" % e)
print("# bad tables: EINVAL")
EOF
expect_eq "tables after refusals" "$(grep -vc '^#' $D/unwind_tables)" 0

ms_load
echo enable faultstacks > $D/control || fail "enable faultstacks"
echo enable brkstack > $D/control || fail "enable brkstack"
# A python3 waiting on a pipe: faults --stacks loads its files' tables.
{ rm -f $FIFO && mkfifo $FIFO; } || fail "mkfifo"
$PY -c 'import sys; print("up", flush=True); sys.stdin.read()' < $FIFO > /tmp/t39.up &
exec 3> $FIFO
_t=0
until grep -q up /tmp/t39.up 2>/dev/null; do
	_t=$((_t + 1))
	[ $_t -le 300 ] || fail "python3 did not start"
	sleep 0.1
done
"$CLI" faults --stacks -p $$ > /dev/null 2> /tmp/t39.err || fail "faults --stacks: $(cat /tmp/t39.err)"
exec 3>&-
wait
ino() { stat -L -c %i "$1"; }
diag "unwind_tables: $(grep -vc '^#' $D/unwind_tables) tables, $(awk '!/^#/ { b += $5 } END { print b + 0 }' $D/unwind_tables) bytes"
for f in $PY "$libc"; do
	awk -v i="$(ino "$f")" '$2 == i { f = 1 } END { exit !f }' $D/unwind_tables ||
		fail "faults --stacks loaded no table for $f: $(cat $D/unwind_tables)"
done
# Loaded again: nothing new, no error.
"$CLI" __unwind-load $PY > /tmp/t39.load 2> /tmp/t39.err || fail "__unwind-load again: $(cat /tmp/t39.err)"
expect_eq "tables loaded again" "$(cut -d' ' -f2 /tmp/t39.load)" 0

# A table holds no reference to its file: the file's filesystem
# unmounts, and its superblock shuts down with no busy inode.  When the
# module held the inode, the kernel warned "VFS: Busy inodes after
# unmount" (a panic here: panic_on_warn), and its iput at unload came
# after the superblock was freed.
M=/tmp/t39.mnt
{ mkdir -p $M && mount -t tmpfs none $M && cp /bin/true $M/; } || fail "tmpfs for a table's file"
"$CLI" __unwind-load $M/true > /tmp/t39.load 2> /tmp/t39.err || fail "__unwind-load $M/true: $(cat /tmp/t39.err)"
expect_eq "tables loaded for $M/true" "$(cut -d' ' -f2 /tmp/t39.load)" 1
umount $M || fail "umount of a filesystem with a loaded table"
dmesg | grep -q 'Busy inodes' && fail "the kernel found busy inodes: $(dmesg | grep 'Busy inodes')"
diag "a filesystem with a loaded table unmounted, no busy inode"

# Debian's python3, allocating; its stacks read after it exited.
t0=$(date +%s)
python3 -c '
import os
print(os.getpid(), flush=True)
a = [bytearray(4096 * (i % 7 + 1)) for i in range(300)]
d = {str(i): [i] * 8 for i in range(20000)}
' > /tmp/t39.pid || fail "python3 failed"
pid=$(cat /tmp/t39.pid)
diag "python3 and sbrker ran in $(($(date +%s) - t0)) s"
"$W/sbrker" 9 < /dev/null > /tmp/t39.sbrk || fail "sbrker failed"
spid=$(sed -n 's/^pid=//p' /tmp/t39.sbrk)
echo disable faultstacks > $D/control || fail "disable faultstacks"
echo disable brkstack > $D/control || fail "disable brkstack"
"$CLI" faults --stacks --kept -p "$pid" > /tmp/t39.faults 2> /tmp/t39.err ||
	fail "faults --stacks --kept: $(cat /tmp/t39.err)"
"$CLI" brkstack --kept -p "$spid" > /tmp/t39.brk 2> /tmp/t39.err ||
	fail "brkstack --kept: $(cat /tmp/t39.err)"
grep -E '^unwind_' $D/stats | tr '\n' ' ' | sed 's/^/# /'
echo
# -j: the frames walked by table and by frame pointers, as stats has them
# (the probes are off: it holds still).
"$CLI" -j faults --stacks --kept -p "$pid" > /tmp/t39.json 2> /tmp/t39.err ||
	fail "-j faults --stacks --kept: $(cat /tmp/t39.err)"
for k in unwind_frames unwind_no_table; do
	expect_eq "-j $k" "$(sed -n "s/.*\"$k\":\([0-9]*\).*/\1/p" /tmp/t39.json)" "$(ms_stat $k)"
done
expect_ge "frames walked by unwind tables (unwind_frames)" "$(ms_stat unwind_frames)" 1
named_deep /tmp/t39.faults
diag "python3 pid $pid: $good of $all faults in named stacks of 5 frames or more"
awk '{ print $NF, $0 }' /tmp/t39.faults | sort -rn | head -n 5 | cut -c1-300 | sed 's/^/# /'
expect_ge "python3's faults" "$all" 200
expect_ge "python3's faults in named stacks of >= 5 frames, per cent" $((good * 100 / all)) 90
sed 's/^/# brk: /' /tmp/t39.brk
# glibc's sbrk is __sbrk in its symbol table; brk's system call is in __brk
# (named brk, an alias of it, where sbrk inlined it).
expect_eq "brk calls of sbrker from main;grow;grow_heap;sbrk" \
	"$(awk '/;main;grow;grow_heap;(__)?sbrk;/ { t += $NF } END { print t + 0 }' /tmp/t39.brk)" 9

# The tool first, python3 after it: no table for python3.11 until the tool
# sees the new process and loads one.  Its python3.11 is a copy on an
# overlay's lower layer (a tmpfs), run from the overlay with the system's
# library: the VMA maps the layer's file, whose inode is not the one
# open() of the overlay's path gives, so the table must be found through
# the mapping, and the frames named by the layer's file.
{ mkdir -p $OVL $OVL.low $OVL.up && mount -t tmpfs none $OVL.low && mount -t tmpfs none $OVL.up &&
	mkdir $OVL.up/u $OVL.up/w && cp $PY $OVL.low/ &&
	mount -t overlay overlay -o lowerdir=$OVL.low,upperdir=$OVL.up/u,workdir=$OVL.up/w $OVL; } ||
	fail "an overlay with python3.11 on its lower layer"
PY=$OVL.low/python3.11
# Rows for every stack of the tool's own (it builds tables as it runs,
# through libdw's many paths) beside those of the programs it serves.
ms_load table_size=4096
# Its report (of this shell only: -p) is not the point, what it loads is.
"$CLI" faults --stacks -p $$ > /dev/null 2> /tmp/t39.tool &
tool=$!
_t=0
until grep -q '^Tracing' /tmp/t39.tool; do
	_t=$((_t + 1))
	[ $_t -le 300 ] || fail "faults --stacks did not start: $(cat /tmp/t39.tool)"
	sleep 0.1
done
has_table() { awk -v i="$(ino "$1")" '$2 == i { f = 1 } END { exit !f }' $D/unwind_tables; }
has_table $PY && fail "a table for $PY before any python3 ran"
# Programs that live under a second, started after the tool: three copies
# of sleep (three files), 0.3 s each.  The tool hears of each exec() from
# the kernel's process events and loads its table then; its once-a-second
# scan alone would see each only if a scan fell in its 0.3 s (all three:
# about one run in 40).
# The tool says Tracing before its first snapshot, which under TCG can
# take longer than 0.3 s (CI once found no table for sleep1 on 5.10, the
# exec events read after it): first a copy that lives until its table is
# in, which shows the tool in its loop.
mkdir -p $OVL.up/bin || fail "mkdir $OVL.up/bin"
for i in 0 1 2 3; do cp /bin/sleep $OVL.up/bin/sleep$i || fail "cp sleep"; done
$OVL.up/bin/sleep0 60 &
s0=$!
_t=0
until has_table $OVL.up/bin/sleep0; do
	_t=$((_t + 1))
	[ $_t -le 300 ] || fail "no table for sleep0 30 s after it started: $(cat $D/unwind_tables)"
	sleep 0.1
done
kill $s0; wait $s0 2>/dev/null
for i in 1 2 3; do $OVL.up/bin/sleep$i 0.3 || fail "sleep$i"; done
for i in 1 2 3; do
	has_table $OVL.up/bin/sleep$i ||
		fail "no table for sleep$i, which ran 0.3 s after the tool started: $(cat $D/unwind_tables)"
done
diag "three programs of 0.3 s, started after the tool: a table for each"
# A library dlopen()ed 2 s after its program started, when the tool has
# read the program's maps twice (at its exec() and at the next scan), and
# faulted in from there for 3 s.  Program, library and glibc have no
# frame pointers: a fault's stack reaches main() only by the library's
# table.  The tool loads it when the module names the file in a stack
# (unwind_wanted, which it polls), not at its next full scan, up to ten
# seconds on (then: in about one run of three, a table in time for 90%).
# Read while it lives: a full table takes the rows of processes that
# exited first (CI once found none of its 3,000 faults after it exited,
# the table full of the tool's own stacks as it built tables).
{ rm -f $FIFO && mkfifo $FIFO; } || fail "mkfifo"
"$W/dlopener" "$W/libmsdl.so" 2000 3000 < $FIFO > /tmp/t39.dl &
dl=$!
exec 3> $FIFO
_t=0
until grep -q '^touched=' /tmp/t39.dl; do
	_t=$((_t + 1))
	[ $_t -le 600 ] || fail "dlopener did not finish in 60 s: $(cat /tmp/t39.dl)"
	sleep 0.1
done
dpid=$(sed -n 's/^pid=//p' /tmp/t39.dl)
expect_eq "pages dlopener's library touched" "$(sed -n 's/^touched=//p' /tmp/t39.dl)" 3000
"$CLI" faults --stacks --kept -p "$dpid" > /tmp/t39.dlf 2> /tmp/t39.err ||
	fail "faults --stacks --kept, dlopener: $(cat /tmp/t39.err)"
exec 3>&-
wait $dl || fail "dlopener failed"
grep -E '^(dropped|table_reused) ' $D/stats | tr '\n' ' ' | sed 's/^/# /'
echo
sed 's/^/# dlopener: /' /tmp/t39.err
awk '{ print $NF, $0 }' /tmp/t39.dlf | sort -rn | head -n 4 | cut -c1-300 | sed 's/^/# dlopen: /'
# Its faults in the library: the stacks whose last frame is msdl_touch.
awk '/;msdl_touch [0-9]+$/ { all += $NF; if (/;main;run_lib;msdl_run;msdl_a;msdl_b;msdl_touch /) good += $NF }
	END { printf "%d %d\n", good, all }' /tmp/t39.dlf > /tmp/t39.frac
read -r good all < /tmp/t39.frac
diag "dlopener pid $dpid: $good of $all faults in its library in stacks from main"
expect_ge "dlopener's faults in its library" "$all" 2700
expect_ge "of which in stacks from main, through the library's table, per cent" $((good * 100 / all)) 90

{ rm -f $FIFO && mkfifo $FIFO; } || fail "mkfifo"
PYTHONHOME=/usr $OVL/python3.11 -c '
import os, sys
print(os.getpid(), flush=True)
sys.stdin.read()
a = [bytearray(4096 * (i % 7 + 1)) for i in range(300)]
d = {str(i): [i] * 8 for i in range(20000)}
' < $FIFO > /tmp/t39.pid &
py=$!
exec 3> $FIFO
_t=0
until has_table $PY; do
	_t=$((_t + 1))
	[ $_t -le 150 ] || fail "no table for $PY 15 s after it started: $(cat $D/unwind_tables)"
	sleep 0.1
done
diag "$PY's table loaded $((_t / 10)).$((_t % 10)) s after python3 started"
# The table can come before python3 has written its pid.
until [ -s /tmp/t39.pid ]; do
	_t=$((_t + 1))
	[ $_t -le 300 ] || fail "python3 wrote no pid"
	sleep 0.1
done
pid=$(cat /tmp/t39.pid)
"$CLI" faults --stacks --kept -p "$pid" > /tmp/t39.before 2> /tmp/t39.err ||
	fail "faults --stacks --kept, before: $(cat /tmp/t39.err)"
cp $D/stats /tmp/t39.stats0
cp /proc/vmstat /tmp/t39.vm0
grep -v ' ---p ' /proc/"$pid"/maps > /tmp/t39.maps
exec 3>&-
wait $py || fail "python3 failed"
"$CLI" faults --stacks --kept -p "$pid" > /tmp/t39.after 2> /tmp/t39.err ||
	fail "faults --stacks --kept, after: $(cat /tmp/t39.err)"
kill -INT $tool
wait $tool || fail "faults --stacks exit status on SIGINT: $? ($(cat /tmp/t39.tool))"
# Each stack's count after, less its count before.
awk 'FNR == NR { n = $NF; $NF = ""; b[$0] = n; next }
	{ n = $NF; $NF = ""; n -= b[$0]; if (n > 0) print $0 n }' /tmp/t39.before /tmp/t39.after > /tmp/t39.late
named_deep /tmp/t39.late
diag "python3 started after the tool, pid $pid: $good of $all faults after its table was in, in named stacks of 5 frames or more"
awk '{ print $NF, $0 }' /tmp/t39.late | sort -rn | head -n 8 | cut -c1-300 | sed 's/^/# late: /'
# What moved in the module while it ran, and what it mapped.
awk 'FNR == NR { b[$1] = $2; next } $2 != b[$1] { print "# moved:", $1, $2 - b[$1] }' /tmp/t39.stats0 $D/stats
awk 'FNR == NR { b[$1] = $2; next } $2 != b[$1] && /thp|compact|pswp|numa/ { print "# vmstat:", $1, $2 - b[$1] }' /tmp/t39.vm0 /proc/vmstat
sed 's/^/# maps: /' /tmp/t39.maps
sed 's/^/# tables: /' $D/unwind_tables
expect_ge "faults of the late python3 after its table was in" "$all" 200
# CI saw 86, 76 and 33 here on 5.10 and 6.1 before a fault's walk used
# the mmap lock the fault holds: its own trylock failed while a writer
# waited (ustack_mm_busy 1,802 of 2,381 faults once), and those stacks
# were one or two [unknown] frames after exit.  26-ustacks' mmwriter
# checks that case itself.  Frame pointers alone name none of these.
expect_ge "of which in named stacks of >= 5 frames, per cent" $((good * 100 / all)) 90
exit 0
