#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The CLI against the live module: every tool answers in text and in JSON
# (each line must parse), the numbers it prints come from the module, the
# Prometheus export passes promtool, and each error path says what to do.
. "$(dirname "$0")/lib.sh"
need_root
[ -x "$CLI" ] || fail "no CLI at $CLI (make cli)"
command -v python3 > /dev/null || skip "python3 needed to validate JSON"

# Module not loaded: a clear error and a nonzero exit.
ms_unload
if $CLI status > /tmp/out 2>&1; then fail "status succeeded without the module"; fi
grep -q 'modprobe memscope' /tmp/out || fail "no modprobe hint: $(cat /tmp/out)"
diag "not loaded: $(head -n 1 /tmp/out)"

ms_load
# Not root: as nobody, the directory cannot be read.
if command -v setpriv > /dev/null; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$CLI" status > /tmp/out 2>&1; then
		fail "status succeeded as nobody"
	fi
	grep -qi 'root' /tmp/out || fail "no 'root' hint as nobody: $(cat /tmp/out)"
	diag "as nobody: $(head -n 1 /tmp/out)"
fi

"$W/touch_anon" 2000 > /tmp/anon.out
pid=$(awk '{ print $2 }' /tmp/anon.out)
# Unused dentries and inodes of the 9p root for the superblock shrinker,
# as in 30-shrinkers: before 3.12 it counts fewer than 100 as none
# (prune_super), and shrink_slab() passes it by.
find /usr/share /usr/lib -maxdepth 3 > /dev/null 2>&1
echo 2 > /proc/sys/vm/drop_caches
echo 1 > /proc/sys/vm/compact_memory

jsonl() {	# every line of stdin is one JSON value; at least $1 lines
	python3 -c 'import json, sys
n = 0
for line in sys.stdin:
    if line.strip():
        json.loads(line); n += 1
sys.exit(0 if n >= int(sys.argv[1]) else 1)' "$1"
}
# Without compaction's tracepoints compact has nothing to show: it must
# say why and fail, and the test is then a "kernel lacks" skip, once every
# other check has passed.
nocompact=
no_compaction_tp && nocompact=1
ntools=0
for tool in status faults "faults --hist" ffaults swapin hfaults "oomkill --last" \
	    "drsnoop --last" vmscan shrinkers compact "compact --hist" export; do
	case $tool in compact*) if [ -n "$nocompact" ]; then
		for j in "" -j; do
			# shellcheck disable=SC2086
			$CLI $j $tool > /tmp/text 2>&1 && fail "memscope $j $tool succeeded without compaction probes"
			compact_refused /tmp/text || fail "memscope $j $tool without compaction probes: $(cat /tmp/text)"
		done
		diag "memscope $tool: $(cat /tmp/text)"
		continue
	fi ;; esac
	ntools=$((ntools + 1))
	# shellcheck disable=SC2086
	$CLI $tool > /tmp/text 2>&1 || fail "memscope $tool failed: $(cat /tmp/text)"
	# shellcheck disable=SC2086
	$CLI -j $tool > /tmp/json 2>/tmp/err || fail "memscope -j $tool failed: $(cat /tmp/err)"
	# The event rings may be empty: no OOM kill or direct reclaim happened.
	case $tool in *--last) min=0 ;; *) min=1 ;; esac
	jsonl $min < /tmp/json || fail "memscope -j $tool printed invalid JSON: $(head -c 300 /tmp/json)"
done
diag "$ntools tools printed text and valid JSON lines"

# Numbers come from the module: touch_anon's row in `faults -p`.
"$CLI" faults -p "$pid" > /tmp/out
got=$(awk -v p="$pid" '$1 == p && $2 == "touch_anon" { print $3 }' /tmp/out)
want=$(table_col faults_by_pid "$pid" 1 touch_anon)
expect_eq "memscope faults -p $pid" "$got" "$want"
expect_ge "touch_anon faults" "$got" 2000
sb=$(sb_shrinker)
grep -q "$sb" <<EOF2 || fail "shrinkers does not list $sb"
$($CLI shrinkers)
EOF2

# Intervals: vmscan 1 2 prints the book's header and two rows.
$CLI vmscan 1 2 > /tmp/out || fail "vmscan 1 2"
grep -q 'S-SLABms *D-RECLAIMms *M-RECLAIMms *KSWAPD *WRITEPAGE' /tmp/out ||
	fail "vmscan header: $(head -n 2 /tmp/out)"
rows=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' /tmp/out)
expect_eq "vmscan rows for 1 2" "$rows" 2

# Each stat's HELP and TYPE come from the module's stats_format.
$CLI export --prometheus > /tmp/metrics || fail "export --prometheus"
grep -qx '# HELP memscope_faults_total Page faults (handle_mm_fault calls, as /proc/vmstat pgfault).' \
	/tmp/metrics || fail "faults HELP: $(grep 'HELP memscope_faults_total' /tmp/metrics)"
grep -qx '# TYPE memscope_swap_residency_sample gauge' /tmp/metrics ||
	fail "swap_residency_sample TYPE: $(grep 'TYPE memscope_swap_residency_sample' /tmp/metrics)"
help=$(sed -n 's/^# HELP memscope_allocstall_total //p' /tmp/metrics)
expect_eq "allocstall HELP, stats_format's" "$help" \
	"$(sed -n 's/^allocstall counter //p' $D/stats_format)"
if command -v promtool > /dev/null; then
	promtool check metrics < /tmp/metrics > /tmp/prom 2>&1 ||
		fail "promtool: $(head -n 5 /tmp/prom)"
	grep -q '^memscope_faults_total ' /tmp/metrics || fail "no memscope_faults_total"
	diag "promtool accepts $(grep -c '^memscope_' /tmp/metrics) samples"
else
	diag "promtool not installed: export checked for JSON only"
fi
[ -z "$nocompact" ] || lacks "$COMPACTION_TP: memscope compact says so, every other check passed"
exit 0
