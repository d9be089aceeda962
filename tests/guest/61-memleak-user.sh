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
# (/sys/kernel/debug/tracing/uprobe_events cannot show a module's, so the
# module's `version` and a second session that starts are the check).
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
out=$(mktemp) err=$(mktemp) go=$(mktemp -u)
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -z "${lpid:-}" ] || kill "$lpid" 2>/dev/null
	[ -z "${tpid:-}" ] || kill "$tpid" 2>/dev/null
	rm -f "$out" "$err" "$go" "$out.l"
	ms_unload 2>/dev/null
}
trap cleanup EXIT
ms_load
grep -q '^uleak unavailable' $D/version && lacks "$(sed -n 's/^uleak unavailable://p' $D/version)"

"$W/leaker" "$go" > "$out.l" &
lpid=$!
i=0
while [ ! -s "$out.l" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$out.l" ] || fail "leaker did not start"
"$CLI" memleak -p "$lpid" --top 100 > "$out" 2> "$err" &
tpid=$!
i=0
while ! grep -q '^Tracing' "$err" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '^Tracing' "$err" || { cat "$err"; fail "memleak -p did not start tracing"; }
sleep 2		# the tool's first tick loads leaker's unwind tables
touch "$go"
wait "$lpid"
lpid=
wait "$tpid" || { cat "$out" "$err"; fail "memleak -p failed"; }
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
check() {	# check FUNCTION BYTES ALLOCS
	set -- "$1" "$2" "$3" "$(block "$1")"
	expect_eq "$1: bytes allocs callers" "$4" "$2 $3 main"
}
check leak_malloc 10000 10
check leak_calloc 5000 5
check leak_realloc 12000 4
check leak_memalign 6144 3
check leak_aligned 1024 2
check leak_reallocarray 600 2
check leak_mmap 131072 2
grep -q 'churn+0x' "$out" && fail "churn's freed blocks are shown as outstanding"
grep -q '\[leaker\]' "$out" || fail "frames do not name their object"
expect_eq "unknown frees" "$(sed -n 's/.*, \([0-9]*\) frees of memory allocated before tracing began$/\1/p' "$out")" 7

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
	{ cat "$out" "$err"; fail "a second memleak -p did not run"; }
grep -q "Process $lpid: Top 10 stacks with outstanding allocations" "$out" ||
	{ cat "$out"; fail "the second session printed no report"; }
kill "$lpid"
lpid=
