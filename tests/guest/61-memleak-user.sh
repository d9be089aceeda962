#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memleak -p PID (module/uleak.c, userspace/tools/uleak.c) against a
# workload with known outstanding blocks from known call chains
# (tests/workloads/leaker.c: dynamic, no frame pointers, glibc's
# allocator): started before the tracer, it allocates once the tracer is
# ready, then exits, and the tracer's one report must show exactly each
# function's blocks and bytes, with that function as the innermost frame
# and main as its caller, in BCC's layout; the 1000 malloc/free pairs of
# churn() none; the 7 frees of blocks allocated before tracing as
# unknown frees.  Every uprobe is gone once the tool ends
# (a second session starts, on Debian's sleep).  valgrind
# --leak-check=full on the same program finds the same blocks by stack.
# Debian's python3, traced live: 90% of its outstanding bytes are in
# stacks of 5 named frames or more.  memscope unloads (procfs=1) while it
# traces a process that checks every block it uses: the process runs on
# correctly, and the tool fails with its session gone.  vm-run boots with
# panic_on_warn: a warning anywhere fails the run.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
out=$(mktemp) err=$(mktemp) go=$(mktemp -u) stop=$(mktemp -u)
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -z "${lpid:-}" ] || kill "$lpid" 2>/dev/null
	[ -z "${tpid:-}" ] || kill "$tpid" 2>/dev/null
	rm -f "$out" "$err" "$go" "$out.l" "$out.vg" "$out.vgs" "$out.mss" "$stop"
	ms_unload 2>/dev/null
}
trap cleanup EXIT
ms_load
case $(sed -n 's/^uleak unavailable://p' $D/version) in
no_uprobes) lacks "CONFIG_UPROBES (uprobes, which memleak -p registers)" ;;
?*) lacks "a user stack walker for $(uname -m)" ;;
esac

# The session file refuses what it cannot do, each with its own error:
# junk, a probe before "pid", a process that does not exist, a second
# session, a file that is not there, a function it does not know.
bad() {	# bad FD-COMMAND WHAT
	if printf '%s' "$1" >&3 2>/dev/null; then fail "uleak took \"$1\" ($2)"; fi
}
exec 3> $D/uleak
bad "hello" "junk"
bad "probe /bin/true 0x1000 malloc" "a probe before pid"
bad "pid 999999" "no such process"
/usr/bin/sleep 30 3>&- &	# not holding the session's file: it ends when fd 3 closes
spid=$!
printf 'pid %d' "$spid" >&3 || fail "uleak refused pid $spid"
exec 4> $D/uleak
if printf 'pid %d' "$spid" >&4 2>/dev/null; then fail "a second session started beside the first"; fi
exec 4>&-
bad "probe /nonexistent 0x1000 malloc" "no such file"
bad "probe /usr/bin/sleep 0x1000 mallocx" "no such function"
bad "rate 0" "a rate of 0"
exec 3>&-
kill "$spid"
wait "$spid" 2>/dev/null
# What the tool cannot do, it says: no session over netlink, nothing --kept.
"$CLI" --netlink memleak -p $$ 2>&1 | grep -q "run it without --netlink" ||
	fail "memleak -p --netlink does not say it needs the module's files"
"$CLI" memleak -p $$ --kept 2>&1 | grep -q "trace a process only while they run" ||
	fail "memleak -p --kept does not say it keeps nothing"

"$W/leaker" "$go" > "$out.l" &
lpid=$!
i=0
while [ ! -s "$out.l" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$out.l" ] || fail "leaker did not start"
: > "$err"	# the loop below must not see the last run's "Tracing"
"$CLI" memleak -p "$lpid" --top 100 > "$out" 2> "$err" &
tpid=$!
i=0
while ! grep -q '^Tracing' "$err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '^Tracing' "$err" || { sed "s/^/# /" "$err"; fail "memleak -p did not start tracing"; }
sleep 2		# the tool's first tick loads leaker's unwind tables
touch "$go"
wait "$lpid"
lpid=
wait "$tpid" || { sed "s/^/# /" "$out" "$err"; fail "memleak -p failed"; }
tpid=
sed 's/^/#   /' "$out"
sed 's/^/#   /' "$err"
grep -q "^Process [0-9]* exited" "$err" || fail "no word that the process exited"

# block FUNCTION: "bytes allocs callers" summed over the blocks whose first
# frame is FUNCTION's (the compiler unrolls main's loops: one call site,
# so one stack, per iteration), and the names of their second frames.
block() {
	awk -v f="$1" '
		function flush() { if (hit) { b += bb; n += nn; c[caller] = 1 } hit = 0 }
		/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { flush(); bb = $1; nn = $4; fr = 0; next }
		/^\t\t/ { fr++; if (fr == 1) hit = index($1, f "+0x") == 1; if (fr == 2) { split($1, s, "+"); caller = s[1] } next }
		{ flush() }
		END { flush(); cs = ""; for (k in c) cs = cs (cs == "" ? "" : ",") k; print b + 0, n + 0, cs }
	' "$out"
}
check() {	# check FUNCTION BYTES ALLOCS [CALLER]
	set -- "$1" "$2" "$3" "${4:-main}" "$(block "$1")"
	expect_eq "$1: bytes allocs callers" "$5" "$2 $3 $4"
}
check leak_malloc 10000 10
check leak_calloc 5000 5
check leak_realloc 12000 4
check leak_memalign 6144 3
check leak_aligned 1024 2
check leak_reallocarray 600 2
check leak_mmap 131072 2
grep -q 'churn+0x' "$out" && fail "churn's freed blocks are shown as outstanding"

# valgrind, on the same program: its still-reachable and lost blocks from
# the leak_* functions, record by record (each a stack, as memscope's
# blocks are), as "function caller bytes blocks", sorted, are memscope's.
# mmap is no heap block to valgrind: leak_mmap is left out; so is
# leak_prefixed, whose blocks memscope shows under lk_malloc, valgrind
# under malloc.
# valgrind runs the program on its own CPU emulation, so what it reports
# does not depend on the kernel: one run serves every kernel of the suite,
# kept under build/ by the binaries' checksums (the first guest to get
# here runs it; a guest beside it may too, and the rename keeps one).
vg_key=$(cat "$W/leaker" /lib/x86_64-linux-gnu/libc.so.6 "$(command -v valgrind)" | sha256sum)
vg_cache=$TOP/build/test-cache/valgrind-leaker-${vg_key%% *}
if [ -s "$vg_cache" ]; then
	cp "$vg_cache" "$out.vgs"
	diag "valgrind's records from $vg_cache (an earlier kernel's run of the same binaries)"
else
	vg_go=$(mktemp -u)
	touch "$vg_go"
	valgrind --leak-check=full --show-leak-kinds=all "$W/leaker" "$vg_go" > /dev/null 2> "$out.vg" ||
		{ sed "s/^/# /" "$out.vg"; fail "valgrind failed"; }
	rm -f "$vg_go"
	awk '
		/ bytes in [0-9,]+ blocks are (still reachable|definitely lost|indirectly lost|possibly lost) in loss record / {
			b = $2; n = $5; gsub(",", "", b); gsub(",", "", n); f = ""; next }
		/^==[0-9]+==    by 0x[0-9A-F]+: / { if (b == "") next
			if (f != "") { print f, $4, b, n; b = ""; next }
			if ($4 ~ /^leak_/ && $4 != "leak_mmap" && $4 != "leak_prefixed") f = $4; next }
		/^==[0-9]+== *$/ { b = "" }
	' "$out.vg" | sort > "$out.vgs"
	mkdir -p "${vg_cache%/*}" && cp "$out.vgs" "$vg_cache.$$" && mv "$vg_cache.$$" "$vg_cache"
fi
awk '
	/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { b = $1; n = $4; fr = 0; next }
	/^\t\t/ { fr++; split($1, s, "+"); if (fr == 1) f = s[1]; if (fr == 2 && f ~ /^leak_/ && f != "leak_mmap") print f, s[1], b, n; next }
' "$out" | sort > "$out.mss"
expect_eq "valgrind's blocks from the six leak_* functions that use the heap" \
	"$(awk '{ n += $4 } END { print n + 0 }' "$out.vgs")" 26
nlines "$out.vgs"
if ! cmp -s "$out.vgs" "$out.mss"; then
	diff "$out.vgs" "$out.mss" | sed 's/^/#   /'
	fail "memscope's blocks by stack differ from valgrind's (< valgrind, > memscope)"
fi
diag "the same $nlines records (stacks) as valgrind --leak-check=full --show-leak-kinds=all"
grep -q '\[leaker\]' "$out" || fail "frames do not name their object"
expect_eq "unknown frees" "$(sed -n 's/.*, \([0-9]*\) frees of memory allocated before tracing began$/\1/p' "$out")" 7
# Every call followed: glibc's nested and tail calls (reallocarray ->
# realloc -> malloc) are their outer call's, never a lost one.
grep -q "WARNING" "$out" && { sed "s/^/# /" "$out" | grep WARNING; fail "a warning on a workload whose every call is followed"; }
totals() { sed -n 's/^TOTAL: \([0-9]*\) allocations, \([0-9]*\) bytes outstanding, \([0-9]*\) frees.*/\1 \2 \3/p' "$out"; }

# Ctrl-C ends the trace of a process that runs on: the report then shows
# the same blocks by function (and at most one 4096-byte block of the loop
# leaker runs in after them, if the signal came between its malloc and free).
rm -f "$go" "$stop"
"$W/leaker" "$go" "$stop" > "$out.l" &
lpid=$!
i=0
while [ ! -s "$out.l" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
: > "$err"	# the loop below must not see the last run's "Tracing"
"$CLI" memleak -p "$lpid" --top 100 > "$out" 2> "$err" &
tpid=$!
i=0
while ! grep -q '^Tracing' "$err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '^Tracing' "$err" || { sed "s/^/# /" "$err"; fail "memleak -p did not start tracing"; }
touch "$go"
i=0
while ! grep -q '^looping$' "$out.l" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT "$tpid"
wait "$tpid" || { sed "s/^/# /" "$out" "$err"; fail "memleak -p failed on Ctrl-C"; }
tpid=
touch "$stop"
wait "$lpid" || fail "leaker failed"
lpid=
check leak_malloc 10000 10
check leak_calloc 5000 5
check leak_mmap 131072 2
check lk_malloc 2800 4 leak_prefixed
t=$(totals)
case "${t% *}" in
"32 168640" | "33 172736") ;;
*) fail "memleak -p, Ctrl-C: allocations and bytes: got ${t% *}, want 32 168640 (or one loop block more)" ;;
esac

# -c COMMAND: run from its first instruction, so the 7 early blocks are
# traced too, and their frees are no unknown frees; each function's blocks
# are exactly the same.
"$CLI" memleak -c "$W/leaker $go" --top 100 > "$out" 2> "$err" ||
	{ sed "s/^/# /" "$out" "$err"; fail "memleak -c failed"; }
check leak_malloc 10000 10
check leak_realloc 12000 4
check leak_mmap 131072 2
check lk_malloc 2800 4 leak_prefixed
# One block more than leaker's own: stdout's buffer, which printf()
# allocates once, after tracing began this time; its size is the file's.
t=$(awk '/^\t[0-9]+ bytes in 1 allocations from stack$/ { b = $1; getline; if ($1 ~ /^_IO_file_doallocate\+/) { n++; s = b } } END { print n + 0, s + 0 }' "$out")
expect_eq "memleak -c: stdout's buffer" "${t% *}" 1
expect_eq "memleak -c: allocations, bytes, unknown frees" "$(totals)" "33 $((168640 + ${t#* })) 0"

# --prefix lk_: only leaker's own allocator, lk_malloc and lk_free, in
# the executable: the 4 blocks leak_prefixed keeps, nothing of malloc's.
rm -f "$go"
"$W/leaker" "$go" > "$out.l" &
lpid=$!
i=0
while [ ! -s "$out.l" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
: > "$err"	# the loop below must not see the last run's "Tracing"
"$CLI" memleak -p "$lpid" --prefix lk_ > "$out" 2> "$err" &
tpid=$!
i=0
while ! grep -q '^Tracing' "$err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "^Tracing 2 allocator functions of .*/leaker in process $lpid" "$err" ||
	{ sed "s/^/# /" "$err"; fail "memleak --prefix lk_ did not trace lk_malloc and lk_free in leaker"; }
touch "$go"
wait "$lpid"
lpid=
wait "$tpid" || { sed "s/^/# /" "$out" "$err"; fail "memleak --prefix failed"; }
tpid=
check leak_prefixed 2800 4
expect_eq "memleak --prefix lk_: allocations, bytes, unknown frees" "$(totals)" "4 2800 0"

# -s 4: 1 in 4 allocations, by pointer, and the tool says so; what it
# keeps is among the known blocks (and stdout's buffer).
"$CLI" memleak -c "$W/leaker $go" -s 4 --top 100 > "$out" 2> "$err" ||
	{ sed "s/^/# /" "$out" "$err"; fail "memleak -s 4 failed"; }
grep -q "1 in 4 allocations (counts not scaled)" "$err" || { sed "s/^/# /" "$err"; fail "memleak -s 4 does not say it samples"; }
t=$(totals)
kept=${t%% *} t=${t#* }
diag "memleak -s 4: $kept of the 32 blocks kept"
if [ "$kept" -gt 32 ] || [ "${t%% *}" -gt 168640 ]; then
	fail "memleak -s 4 shows blocks that are not leaker's"
fi
awk '/^\t\t/ { if (++fr == 1 && $1 !~ /^(leak_|lk_malloc|_IO_file_doallocate)/) bad = 1; next } { fr = 0 } END { exit bad }' "$out" ||
	{ sed "s/^/# /" "$out"; fail "memleak -s 4 shows a block from outside the leak_ functions"; }

# The session ended with the tool: another one starts, on Debian's own
# sleep (not the guest's busybox: static and stripped, it names no malloc), with an interval: one report, and the tool ends.
/usr/bin/sleep 60 &
lpid=$!
i=0
while [ "$(readlink /proc/$lpid/exe)" != /usr/bin/sleep ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
timeout 30 "$CLI" memleak -p "$lpid" 1 1 > "$out" 2> "$err" ||
	{ sed "s/^/# /" "$out" "$err"; fail "a second memleak -p did not run"; }
grep -q "Process $lpid: Top 10 stacks with outstanding allocations" "$out" ||
	{ sed "s/^/# /" "$out"; fail "the second session printed no report"; }
kill "$lpid"
lpid=

# Debian's own python3, traced live as it builds a list of byte strings
# and exits (os._exit: no finalisation frees them): the stacks that hold
# 90% of its outstanding bytes are 5 frames or more, each in a file (named
# by its function where the file's symbols have one: Debian's python3.11
# is stripped of its static functions, which show as [unknown] [python3.11+0xOFF]).
rm -f "$go"
/usr/bin/python3 -c "
import os, sys, time
while not os.path.exists(sys.argv[1]): time.sleep(0.05)
keep = [bytes(range(256)) * 4 for _ in range(2000)]
os._exit(0)
" "$go" &
lpid=$!
i=0
while [ "$(readlink /proc/$lpid/exe)" != "$(readlink -f /usr/bin/python3)" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
: > "$err"	# the loop below must not see the last run's "Tracing"
"$CLI" memleak -p "$lpid" --top 1000 > "$out" 2> "$err" &
tpid=$!
i=0
while ! grep -q '^Tracing' "$err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '^Tracing' "$err" || { diag "waited $i tenths; tool $(kill -0 $tpid 2>&1 && echo runs); python3 $(kill -0 $lpid 2>&1 && echo runs)"; sed "s/^/# /" "$err"; fail "memleak -p python3 did not start tracing"; }
sleep 2
touch "$go"
wait "$lpid"
lpid=
wait "$tpid" || { sed "s/^/# /" "$out" "$err"; fail "memleak -p python3 failed"; }
tpid=
res=$(awk '
	function flush() { if (b != "") { all += b; if (fr >= 5 && !unk) good += b } b = "" }
	/^\t[0-9]+ bytes in [0-9]+ allocations from stack$/ { flush(); b = $1; fr = 0; unk = 0; next }
	/^\t\t/ { fr++; if ($0 ~ /\[unknown\] \[0x/) unk = 1; next }
	{ flush() }
	END { flush(); printf "%d %d\n", good, all }' "$out")
good=${res% *} all=${res#* }
diag "python3: $good of $all outstanding bytes in named stacks of 5 frames or more"
[ "$all" -ge 2048000 ] || { head -60 "$out"; fail "python3's 2000 blocks of 1 KiB are not all there ($all bytes)"; }
[ $((good * 10)) -ge $((all * 9)) ] || { head -40 "$out"; fail "python3: under 90% of the bytes in deep, named stacks"; }

# Unloading memscope under a traced process: with procfs=1 the session's
# files hold no module reference (debugfs's do), so rmmod runs while the
# tool traces through them.
# The uprobes come off; the process runs on, its blocks intact; the tool
# says its session is gone.
ms_unload
ms_load procfs=1
rm -f "$go" "$stop"
"$W/leaker" "$go" "$stop" > "$out.l" &
lpid=$!
i=0
while [ ! -s "$out.l" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
: > "$err"	# the loop below must not see the last run's "Tracing"
"$CLI" --dir /proc/memscope memleak -p "$lpid" 1 > "$out" 2> "$err" &
tpid=$!
i=0
while ! grep -q '^Tracing' "$err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '^Tracing' "$err" || { sed "s/^/# /" "$err"; fail "memleak -p (procfs) did not start tracing"; }
touch "$go"
sleep 2
rmmod memscope || fail "rmmod while memleak -p traces"
sleep 1
kill -0 "$lpid" 2>/dev/null || fail "the traced process died when memscope unloaded"
touch "$stop"
wait "$lpid" || fail "the traced process failed after memscope unloaded (a block read back wrong)"
lpid_was=$lpid lpid=
diag "leaker ran on: $(tail -1 "$out.l") blocks checked"
i=0
while kill -0 "$tpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$tpid" 2>/dev/null && fail "memleak -p still runs after memscope unloaded"
wait "$tpid" && fail "memleak -p exited 0 after its session vanished"
tpid=
grep -q "memscope was unloaded while memleak -p traced process $lpid_was" "$err" ||
	{ sed "s/^/# /" "$err"; fail "memleak -p did not say memscope was unloaded"; }
