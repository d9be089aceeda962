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
#   - After a churn of other processes in a small table, an idle process's
#     stacks are kept, or faults --stacks says how many rows it lacks.
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
"$CLI" faults --stacks --kept -p "$pid" > /tmp/t26.exited 2> /tmp/t26.err ||
	fail "memscope faults --stacks after exit: $(cat /tmp/t26.err)"
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

# Churn: stacker idle and its stacks read once, then 1,000 other
# processes' stacks in a table of 256 rows.  faults --stacks still has all
# of stacker's faults, or says how many rows of running processes it
# lacks, and table_reuse counts at least stacker's rows that left.
ms_load table_size=256
echo enable faultstacks > $D/control || fail "enable faultstacks"
run
"$CLI" faults --stacks -p "$pid" > /tmp/t26.before 2> /tmp/t26.err ||
	fail "memscope faults --stacks: $(cat /tmp/t26.err)"
before=$(awk -v p="$pid" '$1 == p' $D/faults_by_stack | wc -l)
expect_eq "stacker's fault_a and fault_b faults before the churn" \
	$(($(chain /tmp/t26.before main\;fault_a\;touch_pages) + $(chain /tmp/t26.before main\;fault_b\;touch_pages))) $((ka + kb))
"$W/forkmany" 1000 2 > /dev/null || fail "forkmany failed"
"$CLI" faults --stacks > /tmp/t26.after 2> /tmp/t26.err ||
	fail "memscope faults --stacks: $(cat /tmp/t26.err)"
after=$(awk -v p="$pid" '$1 == p' $D/faults_by_stack | wc -l)
finish
reused=$(awk '$1 == "faults_by_stack" { print $2 }' $D/table_reuse)
kept=$(($(chain /tmp/t26.after main\;fault_a\;touch_pages) + $(chain /tmp/t26.after main\;fault_b\;touch_pages)))
diag "churn: stacker's rows $before, then $after; table_reuse faults_by_stack: $reused rows; fault_a+fault_b faults shown: $kept of $((ka + kb)); table_reused $(ms_stat table_reused), dropped $(ms_stat dropped)"
expect_ge "rows reused by the churn (table_reused)" "$(ms_stat table_reused)" 1
expect_ge "table_reuse rows, against stacker's rows that left" "$reused" $((before - after))
if [ "$kept" != $((ka + kb)) ]; then
	grep -q "^Warning: faults_by_stack: [0-9]* rows\{0,1\} holding [0-9]* faults w[a-z]* taken over for new ones after an earlier read, though its process was still running" /tmp/t26.err ||
		fail "faults --stacks lost stacker's faults ($kept of $((ka + kb))) without a word: $(cat /tmp/t26.err)"
fi
exit 0
