#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# faults --stacks and brkstack: counts by user stack, against a workload of
# known chains (tests/workloads/stacker, built with frame pointers), the
# kernel's own fault count (getrusage) and strace.
#   - Both probes are off at load, and each tool says how to turn it on.
#   - The folded output holds the workload's chains, named from its symbol
#     table, with exact counts: 300 faults from main;fault_a;touch_pages,
#     200 from main;fault_b;touch_pages (what getrusage counted for each),
#     1 brk from main;heap_base, 7 from main;brk_a;grow_heap, 5 from
#     main;brk_b;grow_heap.
#   - Read after the process exited, its stacks are named the same, from
#     the files the module recorded (their build-ids as readelf reads
#     them); once its file is deleted, its frames say so, and its
#     debuginfo, found by that build-id, names them again.
#   - Run under strace, memscope counts as many brk calls for the process,
#     whatever their stacks (libc's own included), as strace does.
#   - A stack's depth is reported, and -p keeps other processes out.
#   - memscope flamegraph turns the folded faults into a well-formed SVG
#     that names fault_a and fault_b with their counts.
#   - After a churn of short-lived processes (ls and python3 among them),
#     an idle process's stacks are all kept, row for row, in the default
#     table; in a small one, faults --stacks names any it lost.
#   - Faults while another thread waits to write the mmap lock: each is
#     named after exit (its walk is under the lock the fault holds); with
#     per-VMA locks (6.4 on), named or counted in ustack_mm_busy.
#   - With a table of one file (ustack_files=1), the frames of every other
#     file stay addresses: faults --stacks warns with the count stats has
#     (ustack_files_full), and of ustack_mm_busy exactly when it is not 0;
#     -j gives those counts and unwind_frames and unwind_no_table as
#     stats has them.
. "$(dirname "$0")/lib.sh"
need_root
command -v strace > /dev/null || fail "strace is not installed (make deps installs it)"
FIFO=/tmp/t26.fifo
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { exec 3>&-; ms_unload 2>/dev/null; rm -f "$FIFO"; }
trap cleanup EXIT

ms_load
expect_eq "probe fault_stacks at load" "$(probe_state fault_stacks)" disabled
expect_eq "probe brk at load" "$(probe_state brk)" disabled
optin_leases brkstack brkstack brk 1 1
optin_leases "faults --stacks" faultstacks fault_stacks 1 1

echo enable faultstacks > $D/control || fail "enable faultstacks"
echo enable brkstack > $D/control || fail "enable brkstack"
expect_eq "probe fault_stacks after enable" "$(probe_state fault_stacks)" attached
expect_eq "probe brk after enable" "$(probe_state brk)" attached

# run [strace args]: start stacker 300 200 7 5 (under strace when asked),
# wait for it to finish its work, and leave it waiting on fd 3.
run() {
	rm -f $FIFO /tmp/t26.out
	mkfifo $FIFO || fail "mkfifo"
	"$@" "${STACKER:-$W/stacker}" 300 200 7 5 < $FIFO > /tmp/t26.out &
	exec 3> $FIFO
	_t=0
	until grep -q '^done' /tmp/t26.out 2>/dev/null; do
		_t=$((_t + 1))
		[ $_t -le 600 ] || fail "stacker did not finish: $(cat /tmp/t26.out)"
		sleep 0.1
	done
	pid=$(sed -n 's/^pid=//p' /tmp/t26.out)
}
finish() { echo >&3; exec 3>&-; wait; }

run
"$CLI" faults --stacks -p "$pid" > /tmp/t26.faults 2> /tmp/t26.err ||
	fail "memscope faults --stacks: $(cat /tmp/t26.err)"
"$CLI" brkstack -p "$pid" > /tmp/t26.brk 2> /tmp/t26.err ||
	fail "memscope brkstack: $(cat /tmp/t26.err)"
"$CLI" -j brkstack -p "$pid" > /tmp/t26.brk.json 2> /tmp/t26.err ||
	fail "memscope -j brkstack: $(cat /tmp/t26.err)"
"$CLI" brkstack > /tmp/t26.brk.all 2> /tmp/t26.err || fail "memscope brkstack (all)"
cp $D/brk_by_stack /tmp/t26.raw
finish
diag "stacker: $(tr '\n' ' ' < /tmp/t26.out)"
grep -E 'fault_|brk_|heap_' /tmp/t26.faults /tmp/t26.brk | sed 's/^/# /'

# chain FILE SUFFIX: the count of folded lines of stacker that end in SUFFIX.
chain() {
	awk -v s=";$2" '{ n = $NF; $NF = ""; sub(/ $/, "")
		if (index($0, "stacker;") == 1 && substr($0, length($0) - length(s) + 1) == s) t += n
	} END { print t + 0 }' "$1"
}
ka=$(sed -n 's/.*minflt_a=\([0-9]*\).*/\1/p' /tmp/t26.out)
kb=$(sed -n 's/.*minflt_b=\([0-9]*\).*/\1/p' /tmp/t26.out)
expect_eq "getrusage faults of fault_a" "$ka" 300
expect_eq "getrusage faults of fault_b" "$kb" 200
expect_eq "faults from main;fault_a;touch_pages" "$(chain /tmp/t26.faults main\;fault_a\;touch_pages)" "$ka"
expect_eq "faults from main;fault_b;touch_pages" "$(chain /tmp/t26.faults main\;fault_b\;touch_pages)" "$kb"
expect_eq "brk from main;heap_base" "$(chain /tmp/t26.brk main\;heap_base)" 1
expect_eq "brk from main;brk_a;grow_heap" "$(chain /tmp/t26.brk main\;brk_a\;grow_heap)" 7
expect_eq "brk from main;brk_b;grow_heap" "$(chain /tmp/t26.brk main\;brk_b\;grow_heap)" 5
# The flame graph of the faults: well-formed, the chains' frames named with their counts.
"$CLI" flamegraph --title "stacker faults" /tmp/t26.faults > /tmp/t26.svg 2> /tmp/t26.err ||
	fail "memscope flamegraph: $(cat /tmp/t26.err)"
python3 -c '
import sys, xml.etree.ElementTree as E
titles = [t.text for t in E.parse("/tmp/t26.svg").getroot().iter("{http://www.w3.org/2000/svg}title")]
for w in ("fault_a (%s," % sys.argv[1], "fault_b (%s," % sys.argv[2], "stacker ("):
    if not any(t.startswith(w) for t in titles):
        sys.exit("# FAIL: the SVG has no frame %r: %r" % (w, titles[:20]))
print("# SVG: %d frames, fault_a, fault_b and stacker among them" % len(titles))
' "$ka" "$kb" || fail "flame graph"
# Folded: every line "frames count", nothing else on stdout.
awk '!/^[^ ]+( [^ ]+)* [0-9]+$/ { print "# bad line: " $0; bad = 1 } END { exit bad }' \
	/tmp/t26.faults /tmp/t26.brk || fail "output is not folded stacks"
expect_eq "-p: only stacker" "$(cut -d';' -f1 /tmp/t26.brk | sort -u)" stacker
grep -q '^stacker;' /tmp/t26.brk.all || fail "brkstack without -p misses stacker"
# The table itself: frames as file slot and offset, a depth for each stack.
python3 - "$pid" << 'EOF' || fail "see above"
import json, re, sys
pid = int(sys.argv[1])
bad = 0
rows = [l.split() for l in open("/tmp/t26.raw") if not l.startswith("#")]
mine = [r for r in rows if int(r[0]) == pid]
for r in mine:
    depth, frames = int(r[3]), r[4].split(",") if r[4] != "-" else []
    if len(frames) != depth or any(not re.fullmatch(r"f[0-9]+\+0x[0-9a-f]+", f) for f in frames):
        print("# FAIL: row %r: depth %d, %d frames, each must be a file's slot+offset" % (r, depth, len(frames)))
        bad = 1
rec = json.loads(open("/tmp/t26.brk.json").read())
grow = [s for s in rec["stacks"] if s["stack"].endswith(";main;brk_a;grow_heap")]
if len(grow) != 1 or grow[0]["brk"] != 7 or grow[0]["depth"] < 3:
    print("# FAIL: -j: main;brk_a;grow_heap: %r" % grow)
    bad = 1
if sum(s["brk"] for s in rec["stacks"]) != sum(int(r[2]) for r in mine):
    print("# FAIL: -j total brk differs from the table's")
    bad = 1
print("# %d stacks of pid %d in brk_by_stack, %d brk calls" % (len(mine), pid, sum(int(r[2]) for r in mine)))
sys.exit(bad)
EOF

# After exit: a copy of stacker runs and exits, then its stacks are read.
X=/tmp/t26x
{ rm -rf $X && mkdir -p $X && cp "$W/stacker" $X/stacker; } || fail "cannot copy stacker to $X"
STACKER=$X/stacker
run
finish
STACKER=
# Off while readelf and objcopy run, so that no row of the exited stacker
# is taken over for theirs; --kept reads what it recorded.
echo disable faultstacks > $D/control || fail "disable faultstacks"
# The files' worker names a new slot in process context; the CLI waits a
# second for it.  Under CI's load give it ten, so that a slow worker is
# told apart from a stack that lost its files.
_t=0
while grep -q ' pending ' $D/files && [ $_t -lt 100 ]; do
	_t=$((_t + 1))
	sleep 0.1
done
"$CLI" faults --stacks --kept -p "$pid" > /tmp/t26.exited 2> /tmp/t26.err ||
	fail "memscope faults --stacks after exit: $(cat /tmp/t26.err)"
if [ "$(chain /tmp/t26.exited main\;fault_a\;touch_pages)" != "$ka" ]; then
	# What the next failure needs: the stacks, the files, what moved.
	sed 's/^/# exited: /' /tmp/t26.exited | cut -c1-300 | head -n 12
	grep -v ' named ' $D/files | sed 's/^/# files: /' | head -n 8
	grep -E '^(ustack_|unwind_|faults_vma|faults_retry)' $D/stats | sed 's/^/# stats: /'
	sed 's/^/# err: /' /tmp/t26.err
fi
expect_eq "after exit: faults from main;fault_a;touch_pages" "$(chain /tmp/t26.exited main\;fault_a\;touch_pages)" "$ka"
expect_eq "after exit: faults from main;fault_b;touch_pages" "$(chain /tmp/t26.exited main\;fault_b\;touch_pages)" "$kb"
# Frames of main's chains are all in files: each is named.  (Before main,
# glibc's code without frame pointers ends walks in garbage: [unknown].)
grep -q 'not named yet' /tmp/t26.exited && fail "after exit, files not named: $(grep -m 3 'not named' /tmp/t26.exited)"
grep '^stacker;.*;main;' /tmp/t26.exited | grep -q '\[' &&
	fail "after exit, unnamed frames: $(grep '^stacker;.*;main;' /tmp/t26.exited | grep -m 3 '\[')"
bid=$(readelf -n $X/stacker | sed -n 's/^ *Build ID: *//p')
[ -n "$bid" ] || fail "readelf finds no build-id in stacker"
grep -q "^[0-9]* [0-9:]* [0-9]* [0-9]* named $bid 0x[0-9a-f:x,]* /.*t26x/stacker\$" $D/files ||
	fail "files has no line with stacker's build-id $bid: $(grep stacker $D/files)"
# Deleted: its frames say so; its debuginfo by build-id names them again.
dbg=$X/dbg/.build-id/$(echo "$bid" | cut -c1-2)
{ mkdir -p "$dbg" && objcopy --only-keep-debug $X/stacker "$dbg/$(echo "$bid" | cut -c3-).debug" &&
	rm $X/stacker; } || fail "cannot make stacker's debuginfo"
"$CLI" faults --stacks --kept -p "$pid" > /tmp/t26.deleted 2> /tmp/t26.err ||
	fail "memscope faults --stacks, file deleted: $(cat /tmp/t26.err)"
sed -n '/^stacker;/s/^/# deleted: /p' /tmp/t26.deleted | head -n 4
# main's chains, 3 frames or more in stacker, each shown as [stacker (deleted)].
expect_ge "deleted: faults in stacks of 3 frames or more shown as [stacker (deleted)]" \
	"$(awk '{ n = $NF; if (gsub(/\[stacker \(deleted\)\]/, "") >= 3) t += n } END { print t + 0 }' /tmp/t26.deleted)" \
	$((ka + kb))
"$CLI" faults --stacks --kept -p "$pid" --debug-dir $X/dbg > /tmp/t26.dbg 2> /tmp/t26.err ||
	fail "memscope faults --stacks --debug-dir: $(cat /tmp/t26.err)"
expect_eq "deleted, named by build-id: main;fault_a;touch_pages" \
	"$(chain /tmp/t26.dbg 'main (deleted);fault_a (deleted);touch_pages (deleted)')" "$ka"
rm -rf $X
echo enable faultstacks > $D/control || fail "enable faultstacks"

# Under strace: the same number of brk calls for the process.
run strace -f -qq -c -o /tmp/t26.strace -e trace=brk
"$CLI" brkstack -p "$pid" > /tmp/t26.brk 2> /tmp/t26.err || fail "memscope brkstack: $(cat /tmp/t26.err)"
finish
st=$(awk '$NF == "brk" { print $4 }' /tmp/t26.strace)
ms=$(awk '{ s += $NF } END { print s + 0 }' /tmp/t26.brk)
expect_ge "strace's brk calls" "${st:-0}" 13
expect_eq "brk calls of the strace'd stacker, memscope against strace" "$ms" "$st"
expect_eq "brk from main;brk_b;grow_heap under strace" "$(chain /tmp/t26.brk main\;brk_b\;grow_heap)" 5

echo disable faultstacks > $D/control || fail "disable faultstacks"
echo disable brkstack > $D/control || fail "disable brkstack"
expect_eq "probe fault_stacks after disable" "$(probe_state fault_stacks)" disabled

# Churn, issue 37's scenario: stacker idle and its stacks read once (so
# every row of the table is seen), then 1,000 short-lived processes, and
# ls -R and python3 twice.  A new stack takes the row of an exited process
# before any seen row of a running one.  So in a table of the default
# 1,024 rows, which python3's own stacks do not fill, stacker keeps every
# row, with its count and frames.  In 256 rows, python3's stacks fill the
# table while it runs: stacker's rows may go, but table_reuse counts them
# and faults --stacks says so.
# churn SIZE: the scenario in a table of SIZE rows; sets $kept (faults
# still shown) and $same (1: stacker's rows unchanged).
churn() {
	ms_load table_size="$1"
	echo enable faultstacks > $D/control || fail "enable faultstacks"
	run
	"$CLI" faults --stacks -p "$pid" > /tmp/t26.before 2> /tmp/t26.err ||
		fail "memscope faults --stacks: $(cat /tmp/t26.err)"
	awk -v p="$pid" '$1 == p { print $2, $3, $5 }' $D/faults_by_stack | sort > /tmp/t26.rows0
	expect_eq "$1 rows: stacker's fault_a and fault_b faults before the churn" \
		$(($(chain /tmp/t26.before main\;fault_a\;touch_pages) + $(chain /tmp/t26.before main\;fault_b\;touch_pages))) $((ka + kb))
	"$W/forkmany" 1000 2 > /dev/null || fail "forkmany failed"
	for _ in 1 2; do
		ls -R /usr/lib/python3 > /dev/null 2>&1
		python3 -c 'import json, os; print(len(os.listdir("/")))' > /dev/null || fail "python3"
	done
	"$CLI" faults --stacks -p "$pid" > /tmp/t26.after 2> /tmp/t26.err ||
		fail "memscope faults --stacks: $(cat /tmp/t26.err)"
	awk -v p="$pid" '$1 == p { print $2, $3, $5 }' $D/faults_by_stack | sort > /tmp/t26.rows1
	finish
	same=0
	cmp -s /tmp/t26.rows0 /tmp/t26.rows1 && same=1
	nlines /tmp/t26.rows0; _b=$nlines
	nlines /tmp/t26.rows1
	kept=$(($(chain /tmp/t26.after main\;fault_a\;touch_pages) + $(chain /tmp/t26.after main\;fault_b\;touch_pages)))
	diag "$1 rows: stacker's rows $_b, then $nlines; fault_a+fault_b faults shown: $kept of $((ka + kb)); table_reuse faults_by_stack: $(awk '$1 == "faults_by_stack" { print $2 " rows, " $3 " faults" }' $D/table_reuse); table_reused $(ms_stat table_reused), dropped $(ms_stat dropped)"
	expect_ge "$1 rows: rows reused by the churn (table_reused)" "$(ms_stat table_reused)" 1000
	[ "$kept" = $((ka + kb)) ] ||
		grep -q "^Warning: faults_by_stack: [0-9]* rows\{0,1\} holding [0-9]* faults w[a-z]* taken over for new ones after an earlier read, though its process was still running" /tmp/t26.err ||
		fail "$1 rows: faults --stacks lost stacker's faults ($kept of $((ka + kb))) without a word: $(cat /tmp/t26.err)"
}
churn 1024
[ $same = 1 ] ||
	fail "stacker's rows changed while it was idle: $(diff /tmp/t26.rows0 /tmp/t26.rows1 | head -5 | tr '\n' ' ')"
expect_eq "1024 rows: stacker's fault_a and fault_b faults after the churn" "$kept" $((ka + kb))
churn 256

# One slot of files: the first file's frames take it, every other file's
# stay addresses.  Read with the probe off, so that stats holds still.
# Faults while a writer waits on the process's mmap lock (mmwriter: its
# main thread faults 10,240 pages from main;fault_loop;touch_round, its
# other thread maps and unmaps a page meanwhile).  A fault holds the lock
# for reading, so its stack is walked under that lock, never found busy
# (a trylock of its own failed whenever a writer waited), and named after
# the process exited.  Under a VMA lock alone (per-VMA locks, 6.4 on) the
# walk finds the mmap lock busy and takes each VMA's own lock instead:
# the writer changes none of the VMAs the stack is in (before, 1,279 of
# these stacks stayed addresses on 6.12).  And an attempt under the VMA
# lock that gave way to the mmap lock (a fresh region's first fault, with
# no anon_vma yet) is taken back: its retry is the fault, as for
# getrusage, so the two agree exactly.
ms_load
echo enable faultstacks > $D/control || fail "enable faultstacks"
b0=$(ms_stat ustack_mm_busy)
"$W/mmwriter" 40 256 > /tmp/t26.mmw || fail "mmwriter failed"
echo disable faultstacks > $D/control || fail "disable faultstacks"
busy=$(($(ms_stat ustack_mm_busy) - b0))
"$CLI" faults --stacks --kept > /tmp/t26.mmw.folded 2> /tmp/t26.err ||
	fail "faults --stacks --kept after mmwriter: $(cat /tmp/t26.err)"
kf=$(awk '{ print $2 }' /tmp/t26.mmw)
named=$(awk -v s=";main;fault_loop;touch_round" '{ n = $NF; $NF = ""; sub(/ $/, "")
	if (index($0, "mmwriter;") == 1 && substr($0, length($0) - length(s) + 1) == s) t += n
	} END { print t + 0 }' /tmp/t26.mmw.folded)
diag "mmwriter: $(cat /tmp/t26.mmw); named from main;fault_loop;touch_round $named, ustack_mm_busy $busy"
expect_eq "getrusage faults of mmwriter's fault loop" "$kf" 10240
expect_eq "stacks found busy while a writer waited on the mmap lock" "$busy" 0
expect_eq "mmwriter's faults from main;fault_loop;touch_round, after it exited" "$named" "$kf"

ms_load ustack_files=1
echo enable faultstacks > $D/control || fail "enable faultstacks"
run
finish
echo disable faultstacks > $D/control || fail "disable faultstacks"
"$CLI" faults --stacks --kept > /dev/null 2> /tmp/t26.err ||
	fail "memscope faults --stacks, ustack_files=1: $(cat /tmp/t26.err)"
"$CLI" -j faults --stacks --kept > /tmp/t26.small.json 2> /dev/null ||
	fail "memscope -j faults --stacks, ustack_files=1"
full=$(ms_stat ustack_files_full) busy=$(ms_stat ustack_mm_busy)
expect_ge "ustack_files=1: frames kept as addresses (ustack_files_full)" "$full" 1
grep -q "^Warning: $full user stack frames\{0,1\} w[a-z]* kept as addresses: the module's table of files was full (stats: ustack_files_full).* Load memscope with a larger ustack_files\$" /tmp/t26.err ||
	fail "ustack_files_full is $full, faults --stacks said: $(cat /tmp/t26.err)"
if [ "$busy" = 0 ]; then
	grep -q ustack_mm_busy /tmp/t26.err && fail "ustack_mm_busy is 0, faults --stacks said: $(cat /tmp/t26.err)"
else
	grep -q "^Warning: $busy user stacks\{0,1\} w[a-z]* kept as addresses, .*(stats: ustack_mm_busy)" /tmp/t26.err ||
		fail "ustack_mm_busy is $busy, faults --stacks said: $(cat /tmp/t26.err)"
fi
diag "ustack_files=1: ustack_files_full $full, ustack_mm_busy $busy, both said as such"
python3 - $D/stats << 'EOF' || fail "see above"
import json, sys
stats = dict(l.split()[:2] for l in open(sys.argv[1]) if len(l.split()) >= 2)
rec = json.loads(open("/tmp/t26.small.json").read())
for k in ("ustack_files_full", "ustack_mm_busy", "unwind_frames", "unwind_no_table"):
    if rec.get(k) != int(stats.get(k, 0)):
        sys.exit("# FAIL: -j %s is %r, stats has %s" % (k, rec.get(k), stats.get(k)))
print("# -j: ustack_files_full, ustack_mm_busy, unwind_frames, unwind_no_table as stats has them")
EOF
exit 0
