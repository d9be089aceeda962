#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the memscope CLI against fixture directories (no kernel
# module needed). TAP 13 on stdout; exit 0 when all pass, 1 when any fails.
#
#   tests/host/run.sh    the parser fuzzer replays its corpus and mutates for
#                        FUZZ_SECONDS (default 5; FUZZ_SECONDS=120 for a long
#                        run) or FUZZ_ITERATIONS (default 200000), whichever
#                        ends first
#
# A skipped test (missing tool, not root) is reported as "# SKIP" and is
# never counted as passed.

# Each test is "A && B && ... || { show; return 1; }": whichever check
# fails, show the output.  Expected messages quote commands in backticks.
# shellcheck disable=SC2015,SC2016
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FX=$ROOT/tests/fixtures
T=$(mktemp -d /tmp/memscope-host.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
unset MEMSCOPE_DIR MEMSCOPE_TEST_STEPS MEMSCOPE_TEST_SYSROOT
export LC_ALL=C

n=0 passed=0 failed=0 skipped=0

echo "TAP version 13"

ok() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n $1"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n $1 # SKIP $2"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"
	if [ -s "$T/diag" ]; then sed -n '1,40s/^/# /p' "$T/diag"; fi
}

# t NAME CMD...: CMD decides; whatever it writes to $T/diag explains a failure.
t() {
	local name=$1; shift
	: > "$T/diag"
	if "$@" >> "$T/diag" 2>&1; then ok "$name"; else not_ok "$name"; fi
}

# ms ARGS...: run the CLI, output in $T/out, errors in $T/err, status in $rc
M=$ROOT/userspace/memscope
ms() { "$M" "$@" > "$T/out" 2> "$T/err"; rc=$?; }
# mst ARGS...: the test build (make cli), replaying numbered snapshots of
# --dir without sleeping; the product binary has no such seam.
MT=$ROOT/build/cli/memscope-test
mst() { MEMSCOPE_TEST_STEPS=1 "$MT" "$@" > "$T/out" 2> "$T/err"; rc=$?; }
show() { echo "--- stdout (rc=$rc)"; cat "$T/out"; echo "--- stderr"; cat "$T/err"; }

has() { grep -qF -- "$1" "$T/out" || { echo "stdout lacks: $1"; show; return 1; }; }
has_err() { grep -qF -- "$1" "$T/err" || { echo "stderr lacks: $1"; show; return 1; }; }
has_re() { grep -qE -- "$1" "$T/out" || { echo "stdout lacks /$1/"; show; return 1; }; }
lacks() { ! grep -qF -- "$1" "$T/out" || { echo "stdout has: $1"; show; return 1; }; }
rc_is() { [ "$rc" -eq "$1" ] || { echo "exit status $rc, want $1"; show; return 1; }; }
count_is() { # count_is N FIXED-STRING
	local c; c=$(grep -cF -- "$2" "$T/out")
	[ "$c" -eq "$1" ] || { echo "'$2' appears $c times, want $1"; show; return 1; }
}
line_is() { # line_is N TEXT: line N of stdout is exactly TEXT
	local l; l=$(sed -n "${1}p" "$T/out")
	[ "$l" = "$2" ] || { echo "line $1 is '$l'"; echo "want       '$2'"; show; return 1; }
}

# Every line of stdout is a JSON object, and there is at least one.
json_lines() {
	python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]).read().split("\n") if l]
if not lines:
    sys.exit("no output")
for l in lines:
    if not isinstance(json.loads(l), dict):
        sys.exit("not an object: " + l)
' "$T/out" || { show; return 1; }
}

B=(--dir "$FX/basic")
S=(--dir "$FX/steps")

# ------------------------------------------------------------------ build
build_gcc() {
	make -s -C "$ROOT/userspace" clean >/dev/null &&
	make -C "$ROOT/userspace" CC=gcc > "$T/build" 2>&1 || { cat "$T/build"; return 1; }
	! grep -i 'warning' "$T/build" || return 1
	[ -x "$M" ]
}
t "build with gcc -Wall -Wextra, no warnings" build_gcc
[ -x "$M" ] || { echo "Bail out! no userspace/memscope binary"; exit 1; }

# cli_copy DIR: the CLI's sources, to build elsewhere (DIR/../module/uapi
# must hold the netlink header).
cli_copy() {
	mkdir -p "$1/tools" && cp "$ROOT"/userspace/*.[ch] "$ROOT/userspace/Makefile" "$1/" &&
	cp "$ROOT"/userspace/tools/*.[ch] "$1/tools/"
}
build_clang() {
	mkdir -p "$T/clang/userspace" &&
	cli_copy "$T/clang/userspace" &&
	mkdir -p "$T/clang/module/uapi" && cp "$ROOT"/module/uapi/memscope_*.h "$T/clang/module/uapi/" &&
	cp "$ROOT/VERSION" "$T/clang/" &&
	make -C "$T/clang/userspace" CC=clang > "$T/build" 2>&1 || { cat "$T/build"; return 1; }
	! grep -i 'warning' "$T/build"
}
if command -v clang >/dev/null; then
	t "build with clang -Wall -Wextra, no warnings" build_clang
else
	skip "build with clang" "clang not installed"
fi

# ------------------------------------------------------- usage and dispatch
t_version() { ms --version; rc_is 0 && has "memscope $(cat "$ROOT/VERSION")"; }
t "--version prints the VERSION file" t_version
# The tools are the ones that describe themselves (MS_TOOL()): whatever
# `memscope __complete` lists, each once.
t_help() {
	local tools dups
	tools=$("$M" __complete) && [ -n "$tools" ] || { echo "__complete lists no tools"; return 1; }
	dups=$(sort <<< "$tools" | uniq -d)
	[ -z "$dups" ] || { echo "tools described twice: $dups"; return 1; }
	ms help; rc_is 0 && has "Usage: memscope [OPTIONS] TOOL [ARGS] [INTERVAL [COUNT]]" &&
	for tool in $tools; do
		has "  $tool" || return 1
	done; }
t "help lists every tool in grammar style, each once" t_help
t_tool_help() { ms faults -h; rc_is 0 && has "Usage: memscope [OPTIONS] faults [-p PID | -c CGROUP] [--hist | --stacks [--kept] [--debug-dir DIR]] [INTERVAL [COUNT]]"; }
t "TOOL -h prints that tool's usage" t_tool_help
t_prefix() { ms "${B[@]}" vm; rc_is 0 && has "TIME         S-SLABms  D-RECLAIMms  M-RECLAIMms KSWAPD WRITEPAGE"; }
t "a prefix selects a tool (vm -> vmscan)" t_prefix
t_unknown() { ms "${B[@]}" frobnicate; rc_is 1 && has_err 'Error: unknown tool "frobnicate"'; }
t "unknown tool is an error" t_unknown
t_badopt() { ms "${B[@]}" ffaults -p 1; rc_is 1 && has_err "Error: ffaults does not take -p"; }
t "an option a tool does not take is an error" t_badopt
t_badint() { ms "${B[@]}" faults 0; rc_is 1 && has_err 'Error: bad INTERVAL "0"' &&
	ms "${B[@]}" faults 1 x; rc_is 1 && has_err 'Error: bad COUNT "x"' &&
	ms "${B[@]}" status 1; rc_is 1 && has_err "status takes no INTERVAL"; }
t "bad INTERVAL and COUNT are errors" t_badint

# ---------------------------------------------------------------- netlink
t_nl_opts() { ms help; has "--netlink" && has "  monitor" &&
	ms --netlink --dir "$FX/basic" status; rc_is 1 && has_err "Error: --netlink and --dir name two sources" &&
	MEMSCOPE_NETLINK=1 ms "${B[@]}" status; rc_is 0 && has "memscope 0.1.0 (cli"; }
t "--netlink: not with --dir; --dir beats MEMSCOPE_NETLINK; help names it and monitor" t_nl_opts
# monitor --dir: the events file, as where the kernel has no groups.  JSON
# typed by each field's meaning: a comm of digits is a string, an unknown
# number ("-", "unknown") is null; the events no group carries are left out.
t_monitor_file() { ms --dir "$FX/monitor" -j monitor && rc_is 0 && json_lines &&
	line_is 1 '{"type":"direct_reclaim","time_ns":1500000000,"pid":1234,"comm":"1234","latency_ns":1720000,"nr_reclaimed":57,"memcg":0}' &&
	line_is 2 '{"type":"compaction","time_ns":1700000000,"pid":42,"comm":"kcompactd0","latency_ns":2500000,"status":"7"}' &&
	line_is 3 '{"type":"lost","count":3}' &&
	line_is 4 '{"type":"oom","time_ns":2000000000,"trigger_pid":500,"trigger_comm":"memhog","victim_pid":501,"victim_comm":"42","pages":65536,"anon_rss_kb":null,"file_rss_kb":null,"shmem_rss_kb":null,"oom_score_adj":-100,"memcg":"-","order":0,"gfp_mask":"0","loadavg":"1.50,1.20,1.00,2/90,600","confirmed":0,"gfp_flags":"none"}' &&
	line_is 5 '{"type":"memleak","time_ns":2100000000,"report":1,"rank":1,"site":"msleak_kmalloc_site+0x2a/0x90[msleak]","allocs":60,"bytes":15360,"oldest_ms":1234}' &&
	line_is 6 '{"type":"lost","count":null}' && count_is 6 '"type"' && [ ! -s "$T/err" ] &&
	ms --dir "$FX/monitor" monitor && rc_is 0 && count_is 4 ' time_ns=' && count_is 2 'lost count=' &&
	lacks "mmap " && lacks "shm " &&
	line_is 2 "compaction time_ns=1700000000 pid=42 comm=kcompactd0 latency_ns=2500000 status=7" &&
	has_err "Warning: 3 events lost" && ! grep -q '^Note' "$T/err"; }
t "monitor --dir: the events file, JSON typed by field, mmap and shm left out" t_monitor_file
# A module older than events_format: nothing to type by, so every value is
# a string and every event is shown, and -j says why, once.
t_monitor_noformat() { mkdir -p "$T/oldmod" && cp "$FX/monitor/events" "$FX/monitor/version" "$T/oldmod/" &&
	ms --dir "$T/oldmod" -j monitor && rc_is 0 && json_lines &&
	line_is 1 '{"type":"direct_reclaim","time_ns":"1500000000","pid":"1234","comm":"1234","latency_ns":"1720000","nr_reclaimed":"57","memcg":"0"}' &&
	count_is 8 '"type"' && has_err "no events_format" && [ "$(grep -c . "$T/err")" = 1 ]; }
t "monitor, a module without events_format: strings, every event, one warning" t_monitor_noformat
t_nl_without() {
	mkdir -p "$T/nolibnl/userspace" &&
	cli_copy "$T/nolibnl/userspace" &&
	cp "$ROOT/VERSION" "$T/nolibnl/" && mkdir -p "$T/nolibnl/module/uapi" &&
	cp "$ROOT"/module/uapi/memscope_*.h "$T/nolibnl/module/uapi/" &&
	make -C "$T/nolibnl/userspace" LIBNL=0 > "$T/build" 2>&1 || { cat "$T/build"; return 1; }
	! grep -i 'warning' "$T/build" || return 1
	! ldd "$T/nolibnl/userspace/memscope" | grep -q libnl || { echo "LIBNL=0 links libnl"; return 1; }
	local want="this memscope was built without libnl-genl-3"
	M=$T/nolibnl/userspace/memscope ms --netlink status; rc_is 1 && has_err "Error: $want" &&
	M=$T/nolibnl/userspace/memscope ms monitor; rc_is 1 && has_err "Error: $want" &&
	MEMSCOPE_NETLINK=1 M=$T/nolibnl/userspace/memscope ms faults; rc_is 1 && has_err "Error: $want" &&
	M=$T/nolibnl/userspace/memscope ms -j monitor; rc_is 1 && has "{\"error\":\"$want" &&
	M=$T/nolibnl/userspace/memscope ms --dir "$FX/monitor" monitor && rc_is 0 && count_is 4 ' time_ns=' &&
	M=$T/nolibnl/userspace/memscope ms "${B[@]}" status; rc_is 0
}
t "built without libnl (LIBNL=0): --netlink and monitor say so, monitor --dir and files still read, no warnings" t_nl_without
if pkg-config --exists libnl-genl-3.0; then
	t_nl_nofamily() { ms --netlink status; rc_is 1 &&
		has_err "Error: the netlink family memscope is not registered" && has_err "modprobe memscope"; }
	# The host runs no memscope module: the family is not there.
	if [ -e /sys/module/memscope ]; then
		skip "--netlink without the family" "a memscope module is loaded here"
	else
		t "--netlink without the module: the family is not registered, load it" t_nl_nofamily
	fi
else
	skip "--netlink without the family" "libnl-genl-3-dev not installed"
fi

# ------------------------------------------------------------ text output
t_status() { ms "${B[@]}" status; rc_is 0 && has "memscope 0.1.0 (cli" && has "kernel 6.1.0-56-amd64" &&
	has_re '^PROBE +TARGET +STATE +HITS +MISSED$' &&
	has_re '^faults +handle_mm_fault +attached +12345 +0$'; }
t "status: version, kernel, probes" t_status

t_faults() { ms "${B[@]}" faults; rc_is 0 &&
	line_is 1 "PID     COMM                 FAULTS    MAJOR" &&
	line_is 2 "1234    workload               4096        0" &&
	line_is 3 "987     Web Content            2000       12" &&
	has "TOTAL: faults 12345 major 45 minor 12300 retry 7 error 1 user 12000 kernel 345 anon 10000 file 2200 shmem 100 hugetlb 45 write 6000 unclassified 0"; }
t "faults: per-process table and totals by class" t_faults
# table_reuse: rows of running processes taken over after a read are
# missing from a total since enable, and the tool says so (and not when
# there are none, as in the fixture above).
t_faults_reuse() { mkdir -p "$T/reuse" && cp -r "$FX/basic/." "$T/reuse/" &&
	printf '# table rows events\nfaults_by_pid 3 1270\nfaults_by_stack 0 0\n' > "$T/reuse/table_reuse" &&
	ms --dir "$T/reuse" faults && rc_is 0 && line_is 2 "1234    workload               4096        0" &&
	has_err "Warning: faults_by_pid: 3 rows holding 1270 events were taken over for new ones after an earlier read, though its process was still running: this total lacks them (table_reuse)" &&
	! grep -q "if they were this process's" "$T/err" &&
	ms --dir "$T/reuse" -p 1234 faults && rc_is 0 &&
	has_err "this total lacks them (table_reuse), if they were this process's: the module counts what the whole table lost, not what each process did" &&
	ms --dir "$T/reuse" -j faults && rc_is 0 && has '"reused_rows":3,"reused_events":1270' &&
	ms "${B[@]}" faults && rc_is 0 && ! grep -q table_reuse "$T/err"; }
t "faults: rows of running processes reused after a read are said to be missing, with -p as maybe another process's" t_faults_reuse
t_faults_pid() { ms "${B[@]}" -p 987 faults; rc_is 0 && has "987     Web Content" && lacks "workload" &&
	has "TOTAL (all processes):"; }
t "faults -p PID filters" t_faults_pid
t_faults_cgroup() { ms "${B[@]}" faults -c /system.slice/app.service/; rc_is 0 &&
	line_is 1 "CGROUP                                       FAULTS    MAJOR" &&
	line_is 2 "/system.slice/app.service                      3000        2" &&
	line_is 3 "/system.slice/app.service/worker                500        0" &&
	lacks "appx" && has "TOTAL (all cgroups):" &&
	ms "${B[@]}" faults -c /; rc_is 0 && has "appx" && has_re '^/ +20 +1$' &&
	ms "${B[@]}" -j swapin -c /system.slice; rc_is 0 &&
	has '"cgroups":[{"cgroup":"/system.slice/app.service","count":9}]'; }
t "faults/swapin -c CGROUP: that cgroup's subtree" t_faults_cgroup
t_cgroup_bad() { ms "${B[@]}" faults -c system.slice; rc_is 1 && has_err 'bad cgroup "system.slice"' &&
	ms "${B[@]}" faults -c / -p 1; rc_is 1 && has_err "not both" &&
	ms "${B[@]}" hfaults -c /; rc_is 1 && has_err "hfaults does not take -c"; }
t "-c needs a path, not with -p, only where the tool has it" t_cgroup_bad
t_faults_hist() { ms "${B[@]}" faults --hist; rc_is 0 && has "@fault_latency_ns:" &&
	has "[512, 1K)           8000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|" &&
	has "[4K, 8K)               0 |                                                    |"; }
t "faults --hist: bpftrace histogram layout" t_faults_hist
t_faults_T() { ms "${B[@]}" -T faults; rc_is 0 && [[ $(head -1 "$T/out") =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] || { show; return 1; }; }
t "-T prefixes a timestamp" t_faults_T
t_ffaults() { ms "${B[@]}" ffaults; rc_is 0 && has_re '^FILE +FAULTS +MAJOR$' &&
	has_re '^\[anon\] +10000 +0$' && has_re '^my data\.bin +64 +64$'; }
t "ffaults: file table, escapes decoded" t_ffaults
t_swapin() { ms "${B[@]}" swapin; rc_is 0 && [[ $(head -1 "$T/out") =~ ^[0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] &&
	line_is 2 "COMM             PID          COUNT" && line_is 3 "workload         1234           280" &&
	has "TOTAL: 300 pages swapped in"; }
t "swapin: swapin.bt block (time, COMM PID COUNT)" t_swapin
t_residency() { ms "${B[@]}" swapin --residency; rc_is 0 &&
	has_re '^PID +COMM +SWAPOUTS +SWAPINS +MEDIAN RESIDENCY$' &&
	has_re '^1234 +workload +380 +280 +537ms\.\.1\.07s$' && has_re '^77 +idle app +20 +0 +-$' &&
	has "TOTAL: 400 pages swapped out, 280 read back timed, 20 untimed, 7 freed unread" &&
	has "@swap_residency_ns:" && has_re '^\[2G, 4G\) +80 \|' &&
	ms -j "${B[@]}" swapin --residency -p 1234; rc_is 0 &&
	has '{"pid":1234,"comm":"workload","swapouts":380,"swapins":280,"median_min_ns":536870912,"median_max_ns":1073741823}' &&
	lacks '"pid":77' && has '"swapins_timed":280' &&
	ms "${B[@]}" swapin --residency -c /; rc_is 1 && has_err "--residency counts by the process whose pages went to swap: it takes -p PID, not -c" &&
	ms "${B[@]}" hfaults --residency; rc_is 1 && has_err "hfaults does not take --residency"; }
t "swapin --residency: owners, median range, totals, histogram, JSON" t_residency
t_hfaults() { ms "${B[@]}" hfaults; rc_is 0 && line_is 1 "PID     COMM                 FAULTS" &&
	line_is 2 "777     hugeuser                  8"; }
t "hfaults: PID COMM FAULTS" t_hfaults

OOM1='^[0-9]{2}:[0-9]{2}:[0-9]{2} Triggered by PID 3456 \("stress"\), OOM kill of PID 3457 \("stress"\), 262144 pages, loadavg: 0\.10 0\.20 0\.30 1/80 123$'
OOM1B='    anon-rss:1048576kB, file-rss:0kB, shmem-rss:0kB, memcg:global, oom_score_adj:0, order:0, gfp_mask:0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP)'
OOM2='^[0-9]{2}:[0-9]{2}:[0-9]{2} Triggered by PID 500 \("memhog"\), OOM kill of PID 501 \("Web Content"\), 65536 pages, loadavg: 1\.50 1\.20 1\.00 2/90 600$'
t_oomkill() { ms "${B[@]}" oomkill; rc_is 0 && has_re "$OOM1" && has "$OOM1B" && has_re "$OOM2" &&
	count_is 2 "Triggered by" && lacks "direct_reclaim" && has_err "3 events lost"; }
t "oomkill: BCC line format, other events skipped" t_oomkill
t_oomlast() { ms "${B[@]}" oomkill --last; rc_is 0 && has_re "$OOM1" && has_re "$OOM2" && count_is 2 "Triggered by"; }
t "oomkill --last: the oom ring" t_oomlast
# Before 6.9 mark_victim gives no way to the victim's RSS: the ring has "-".
t_oom_norss() { rm -rf "$T/norss" && mkdir -p "$T/norss" && cp -r "$FX/basic/." "$T/norss/" &&
	sed -i 's/_rss_kb=[0-9]*/_rss_kb=-/g' "$T/norss/oom" && ms --dir "$T/norss" oomkill --last; rc_is 0 &&
	has "    anon-rss:unknown, file-rss:unknown, shmem-rss:unknown, memcg:global," && lacks "kB" &&
	ms -j --dir "$T/norss" oomkill --last; rc_is 0 && has '"anon_rss_kb":null' &&
	has '"loadavg":"0.10 0.20 0.30 1/80 123"' && has '"gfp_flags":"GFP_KERNEL"'; }
t "oomkill: an RSS the kernel cannot give reads unknown, JSON null" t_oom_norss

# The fixture has a direct reclaim (workload) and a memcg one (Web Content):
# like BCC's drsnoop, only the direct one shows unless --memcg asks.
t_drsnoop() { ms "${B[@]}" drsnoop; rc_is 0 &&
	has "COMM           PID     LAT(ms) PAGES" &&
	has "workload       1234       1.72    57" && lacks "Web Content"; }
t "drsnoop: BCC columns COMM PID LAT(ms) PAGES, direct reclaim only" t_drsnoop
t_drsnoop_memcg() { ms "${B[@]}" drsnoop --memcg; rc_is 0 &&
	has "COMM           PID     LAT(ms) PAGES TYPE" &&
	has "workload       1234       1.72    57 direct" &&
	has "Web Content    987       12.35    32 memcg"; }
t "drsnoop --memcg: memcg reclaims too, in a TYPE column" t_drsnoop_memcg
t_drsnoop_T() { ms "${B[@]}" drsnoop -T --memcg; rc_is 0 &&
	has "TIME(s)       COMM           PID     LAT(ms) PAGES TYPE" &&
	has "0.000000000   workload       1234       1.72    57 direct" &&
	has "0.100000000   Web Content    987       12.35    32 memcg"; }
t "drsnoop -T: TIME(s) since the first event" t_drsnoop_T
t_drsnoop_p() { ms "${B[@]}" drsnoop -p 987 --memcg --last; rc_is 0 && has "Web Content    987" &&
	lacks "workload" && { ms "${B[@]}" drsnoop -p 987 --last; rc_is 0 && lacks "Web Content"; }; }
t "drsnoop -p PID --last" t_drsnoop_p
t_drsnoop_opt() { ms "${B[@]}" faults --memcg; rc_is 1 && has_err "faults does not take --memcg"; }
t "--memcg is drsnoop's alone" t_drsnoop_opt

VMHDR="TIME         S-SLABms  D-RECLAIMms  M-RECLAIMms KSWAPD WRITEPAGE"
t_vmscan() { ms "${B[@]}" vmscan; rc_is 0 && line_is 1 "$VMHDR" &&
	has_re '^[0-9]{2}:[0-9]{2}:[0-9]{2} +98\.70 +123\.46 +45\.60 +9 +5$' &&
	has "@direct_reclaim_ns:" && has "@memcg_reclaim_ns:" && has "@shrink_slab_ns:"; }
t "vmscan: the book's header and row, then histograms" t_vmscan
t_shrinkers() { ms "${B[@]}" shrinkers; rc_is 0 && has_re '^SHRINKER +COUNT +MS +FREED$' &&
	has_re '^super_cache_scan +1200 +80\.00 +70000$'; }
t "shrinkers: SHRINKER COUNT MS FREED" t_shrinkers
t_compact() { ms "${B[@]}" compact --hist; rc_is 0 && has_re '^TIME +COMPACTIONS +MS +AVGms$' &&
	has_re ' +3 +7\.50 +2\.50$' && has_re '^[0-9:]+ +1234 +workload +5\.00 partial_skipped$' &&
	has "@compaction_ns:"; }
t "compact --hist: totals, recent events, histogram" t_compact
t_pressure() { ms "${B[@]}" pressure; rc_is 0 && line_is 1 "         AVG10   AVG60  AVG300        TOTAL(us)" &&
	has_re '^some +12\.34 +5\.60 +1\.02 +3456789$' && has_re '^full +10\.00 +4\.50 +0\.98 +3000000$' &&
	ms "${B[@]}" -j pressure && rc_is 0 &&
	has '"some":{"avg10":12.34,"avg60":5.6,"avg300":1.02,"total_us":3456789}'; }
t "pressure: PSI's two lines as a table, and as JSON" t_pressure
t_pressure_bad() { mkdir -p "$T/psi" && cp -r "$FX/basic/." "$T/psi/" &&
	echo 'some avg10=1.00 avg60=1.00 avg300=1.00 total=5' > "$T/psi/pressure" &&
	ms --dir "$T/psi" pressure; rc_is 1 && has_err "pressure file is not PSI's some and full lines"; }
t "pressure: a file without its full line is an error that says what to do" t_pressure_bad
# A module whose pressure probes are attached, with two memcgs' rows.
t_pressure_cg_fx() { mkdir -p "$T/pcg" && cp -r "$FX/basic/." "$T/pcg/" &&
	printf '%s\n' 'pressure_switch sched_switch attached 10 0' \
		'pressure_leave psi_memstall_leave attached 5 0' \
		'pressure_enter psi_memstall_enter attached 5 0' >> "$T/pcg/probes" &&
	printf '%s\n' '# cgroup some_us full_us' '/work 2500000 2400000' '/work/a 2000000 1900000' \
		'/other 7 0' > "$T/pcg/pressure_by_cgroup" &&
	printf '%s\n' '# cgroup some_avg10 some_avg60 some_avg300 full_avg10 full_avg60 full_avg300' \
		'/work 12.50 3.10 0.70 12.00 3.00 0.68' '/work/a 10.00 2.50 0.55 9.50 2.40 0.53' \
		'/other 0.00 0.00 0.00 0.00 0.00 0.00' > "$T/pcg/pressure_by_cgroup_avg"; }
t_pressure_cg() { t_pressure_cg_fx && ms --dir "$T/pcg" pressure -c /work; rc_is 0 &&
	line_is 1 "CGROUP                                    SOME10  SOME60 SOME300         SOME(us)  FULL10  FULL60 FULL300         FULL(us)" &&
	has_re '^/work +12\.50 +3\.10 +0\.70 +2500000 +12\.00 +3\.00 +0\.68 +2400000$' &&
	has_re '^/work/a +10\.00 +2\.50 +0\.55 +2000000 +9\.50 +2\.40 +0\.53 +1900000$' && ! has '/other' &&
	ms --dir "$T/pcg" -j pressure -c /work/a && rc_is 0 &&
	has '"cgroups":[{"cgroup":"/work/a","some_avg10":10,"some_avg60":2.5,"some_avg300":0.55,"some_us":2000000,"full_avg10":9.5,"full_avg60":2.4,"full_avg300":0.53,"full_us":1900000}]' &&
	ms --dir "$T/pcg" pressure -c /nothing; rc_is 0 && has "no memory stall on record in /nothing"; }
t "pressure -c: the rows at and under the cgroup, with their averages, as a table and as JSON" t_pressure_cg
# A module from before pressure_by_cgroup_avg: the totals, and "-" for the averages.
t_pressure_cg_noavg() { t_pressure_cg_fx && rm "$T/pcg/pressure_by_cgroup_avg" &&
	ms --dir "$T/pcg" pressure -c /work/a; rc_is 0 &&
	has_re '^/work/a +- +- +- +2000000 +- +- +- +1900000$'; }
t "pressure -c: without the averages file, the totals and '-'" t_pressure_cg_noavg
t_pressure_cg_badavg() { t_pressure_cg_fx && sed -i '1s/.*/# cgroup avg10/' "$T/pcg/pressure_by_cgroup_avg" &&
	ms --dir "$T/pcg" pressure -c /work; rc_is 1 && has_err "pressure_by_cgroup_avg"; }
t "pressure -c: an averages file of other columns is an error that names it" t_pressure_cg_badavg
t_pressure_cg_off() { t_pressure_cg_fx && sed -i 's/^pressure_leave psi_memstall_leave attached/pressure_leave psi_memstall_leave disabled/' "$T/pcg/probes" &&
	ms --dir "$T/pcg" pressure -c /work; rc_is 1 && has_err "counts no pressure per cgroup"; }
t "pressure -c: with an end probe off, an error that says why" t_pressure_cg_off
# Stalls the module could not count are said, not silently short.
t_pressure_full() { t_pressure_cg_fx && printf '%s\n' 'pressure_tasks_full 3' 'pressure_cgroups_full 1' 'pressure_waits_full 2' >> "$T/pcg/stats" &&
	ms --dir "$T/pcg" pressure; rc_is 0 && has_err "3 memory stalls not counted: more tasks stalled at once" &&
	! has_err "not counted for a cgroup" && ! has_err "not followed" &&
	ms --dir "$T/pcg" pressure -c /work; rc_is 0 && has_err "1 memory stall not counted for a cgroup" &&
	has_err "2 waits of cgroups' tasks to run or on I/O not followed" &&
	has_re '^/work +12\.50 +3\.10 +0\.70 +2500000 +12\.00 +3\.00 +0\.68 +2400000$'; }
t "pressure, pressure -c: stalls not counted for a full table are said" t_pressure_full
t_export_pressure_cg() { t_pressure_cg_fx && ms --dir "$T/pcg" export --top 1; rc_is 0 &&
	has 'memscope_pressure_memory_waiting_seconds_total{cgroup="/work"} 2.500000' &&
	has 'memscope_pressure_memory_stalled_seconds_total{cgroup="/work"} 2.400000' && ! has 'cgroup="/work/a"'; }
t "export: each memcg's pressure, its top N by some" t_export_pressure_cg
L=(--dir "$FX/leak")
t_memleak() { ms "${L[@]}" memleak; rc_is 0 &&
	has_re '^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\] Top 10 call sites with outstanding allocations, bytes requested:$' &&
	line_is 2 "$(printf '\t16128 bytes in 28 allocations from radix_tree_node_alloc.constprop.0+0x87/0xd0 (oldest 6800 ms)')" &&
	line_is 3 "$(printf '\t15360 bytes in 60 allocations from msleak_kmalloc_site+0x1f/0x40[msleak] (oldest 148 ms)')" &&
	has "TOTAL: 91 allocations, 31584 bytes outstanding, 7 frees of memory allocated before memleak was enabled" &&
	has "WARNING: 2 allocations were not tracked: memleak's table had no room"; }
t "memleak: BCC's shape, largest first, totals and a full-table warning" t_memleak
t_memleak_top() { ms "${L[@]}" memleak --top 1; rc_is 0 && has "Top 1 call sites" &&
	has "radix_tree_node_alloc" && lacks "msleak_kmalloc_site"; }
t "memleak --top N shows N sites" t_memleak_top
# memleak_allocations: radix_tree_node_alloc's 28 are 10 of about 6.8 s
# and 18 of under 0.5 s; -o 1000 counts the 10 alone, as BCC's -o.
t_memleak_age() { ms "${L[@]}" memleak -o 1000; rc_is 0 && has "(allocations at least 1000 ms old)" &&
	has "	5760 bytes in 10 allocations from radix_tree_node_alloc.constprop.0+0x87/0xd0 (oldest 6799 ms)" &&
	lacks "msleak_kmalloc_site" && lacks "[unknown]" &&
	has "TOTAL: 10 allocations, 5760 bytes outstanding" &&
	ms "${L[@]}" memleak -o 0; rc_is 0 &&
	has "	16128 bytes in 28 allocations from radix_tree_node_alloc.constprop.0+0x87/0xd0 (oldest 6799 ms)" &&
	has "	15360 bytes in 60 allocations from msleak_kmalloc_site+0x1f/0x40[msleak] (oldest 148 ms)" &&
	has "TOTAL: 91 allocations, 31584 bytes outstanding"; }
t "memleak -o MS: each allocation by its own age, as BCC's -o" t_memleak_age
t_memleak_json() { ms -j "${L[@]}" memleak; rc_is 0 && json_lines &&
	has '"bytes":15360,"allocs":60,"site":"msleak_kmalloc_site+0x1f/0x40[msleak]","oldest_ms":148' &&
	has '"dropped":2'; }
t "memleak -j: one JSON object with the sites" t_memleak_json
t_memleak_off() { ms --dir "$FX/leakoff" memleak; rc_is 1 &&
	has_err "memleak is off: its probes cost on every slab allocation" &&
	has_err "echo enable memleak > $FX/leakoff/control"; }
t "memleak with its probes off says how to enable them" t_memleak_off
t_memleak_ran() { mkdir -p "$T/leakran" && cp -r "$FX/leak/." "$T/leakran/" &&
	sed -i 's/^kmalloc kmalloc attached 1000 0$/kmalloc kmalloc disabled 1000 0/' "$T/leakran/probes" &&
	ms --dir "$T/leakran" memleak; rc_is 0 &&
	has_err "Warning: memleak is off: showing what it recorded while it was on; \`echo enable memleak > $T/leakran/control\` turns it on again" &&
	has "msleak_kmalloc_site+0x1f/0x40[msleak]"; }
t "memleak off after it ran: what it kept, and a warning" t_memleak_ran
t_memleak_sample() { ms --dir "$FX/leaksample" memleak; rc_is 0 &&
	has_re '^\[[0-9:]+\] Top 10 call sites with outstanding allocations, bytes requested \(sampled: 1 in 8 allocations, counts not scaled\):$' &&
	ms -j --dir "$FX/leaksample" memleak && rc_is 0 && has '"sample":8' &&
	ms --dir "$FX/leak" memleak && rc_is 0 && lacks "sampled"; }
t "memleak says when memscope samples (memleak_sample=N), and not otherwise" t_memleak_sample
t_slabtop() { ms --dir "$FX/slab" slabtop; rc_is 0 &&
	[ "$(awk '{ print $1 }' "$T/out" | tr '\n' ' ')" = "CACHE maple_node vm_area_struct msleak_cache " ] &&
	has "msleak_cache             30           10           6000"; }
t "slabtop: totals by cache, most allocations first" t_slabtop
t_slabtop_top() { ms --dir "$FX/slab" slabtop --top 1; rc_is 0 && has maple_node && lacks vm_area_struct; }
t "slabtop --top N shows N caches" t_slabtop_top
t_slabtop_json() { ms -j --dir "$FX/slab" slabtop; rc_is 0 && json_lines &&
	has '{"cache":"msleak_cache","allocs":30,"frees":10,"bytes":6000}'; }
t "slabtop -j: one JSON object with the caches" t_slabtop_json
t_slabtop_rate() { mst -j --dir "$FX/steps" slabtop 1 1; rc_is 0 &&
	has '"cache":"msleak_cache","allocs_per_s":40,"frees_per_s":20,"bytes_per_s":8000,"allocs":40,"frees":20,"bytes":8000' &&
	lacks vm_area_struct &&
	mst --dir "$FX/steps" slabtop 1 1; rc_is 0 && has "ALLOCS/s" &&
	has "msleak_cache         40.0         20.0         8000.0"; }
t "slabtop INTERVAL: rates per second over each interval, idle caches left out" t_slabtop_rate
t_slabtop_off() { ms --dir "$FX/slaboff" slabtop; rc_is 1 &&
	has_err "slabtop is off: its probes cost on every kmem_cache allocation and free" &&
	has_err "echo enable slabtop > $FX/slaboff/control"; }
t "slabtop with its probes off says how to enable them" t_slabtop_off
t_memleak_bad() { ms "${L[@]}" memleak --top 0; rc_is 1 && has_err 'bad --top "0"' &&
	ms "${L[@]}" memleak -o soon; rc_is 1 && has_err 'bad -o "soon"' &&
	ms "${L[@]}" faults --top 3; rc_is 1 && has_err "faults does not take --top"; }
t "memleak: bad --top and -o values, and --top elsewhere, are errors" t_memleak_bad
t_top() { mst "${S[@]}" top 1 2; rc_is 0 && count_is 2 "memscope top - " &&
	has_re '^Faults +1030\.0/s +major 0\.97% \(10\.0/s\)$' && has_re '^Swap-ins +64\.0/s$' &&
	has_re '^Reclaim +2\.25 ms/s direct' && has "Last OOM kill:" && has_re '^5555 +newproc +30\.0 +0\.0$'; }
t "top INTERVAL COUNT: plain blocks when not a tty" t_top

if command -v script >/dev/null; then
	t_top_tty() { (sleep 1; printf q) | timeout 20 script -qc "'$M' --dir '$FX/basic' top 0.2" /dev/null > "$T/out" 2>&1
		rc=$?; rc_is 0 && grep -q $'\033\\[H\033\\[2J' "$T/out" && has "memscope top - " &&
		[ "$(tail -c 6 "$T/out" | od -An -c | tr -d ' ')" = '033[?25h' ] || { show; return 1; }; }
	t "top on a tty: ANSI redraw, q quits and restores the terminal" t_top_tty
else
	skip "top on a tty" "script(1) not installed"
fi

# --------------------------------------------------- interval deltas
st() { mst "${S[@]}" "$@"; }
t_delta_faults() { st faults 1 3; rc_is 0 &&
	has_re '^1 +systemd +500 +5$' && has_re '^5555 +newproc +30 +0$' && lacks "Web Content" &&
	has "TOTAL: faults 1030 major 10 minor 1020" && has "TOTAL: faults 1 major 0 minor 1" &&
	has "TOTAL: faults 5 major 0 minor 5" && has_re '^1234 +workload +5 +0$'; }
t "faults INTERVAL COUNT: per-interval deltas, counter reset" t_delta_faults
t_delta_vmscan() { st vmscan 1 2; rc_is 0 &&
	has_re '^[0-9:]+ +1\.50 +2\.25 +0\.00 +3 +1$' && has_re '^[0-9:]+ +0\.01 +0\.00 +0\.00 +0 +7$' &&
	has "[1M, 2M)               2 |" && count_is 1 "$VMHDR"; }
t "vmscan INTERVAL COUNT: deltas and the run's histograms" t_delta_vmscan
t_vmscan_hdr() { st vmscan 1 25; rc_is 0 && count_is 2 "$VMHDR" &&
	[ "$(grep -nF "$VMHDR" "$T/out" | sed -n 2p | cut -d: -f1)" = 22 ] || { show; return 1; }; }
t "vmscan header repeats every 20 rows" t_vmscan_hdr
t_delta_swapin() { st swapin 1 2; rc_is 0 && has_re '^workload +1234 +64$' && lacks kswapd0 &&
	count_is 2 "COMM             PID          COUNT"; }
t "swapin INTERVAL COUNT: deltas per block" t_delta_swapin
# reset_count, not a smaller value, says the counters restarted: swapins
# one lower without it is the zswap take-back (0 pages), with it a reset.
t_takeback() { rm -rf "$T/tb" && mkdir -p "$T/tb" && cp -r "$FX/steps/0" "$FX/steps/1" "$T/tb/" &&
	sed -i 's/^swapins .*/swapins 299/' "$T/tb/1/stats" &&
	mst --dir "$T/tb" swapin 1 1; rc_is 0 &&
	has "TOTAL: 0 pages swapped in" && lacks "TOTAL: 299" &&
	sed -i 's/^reset_count .*/reset_count 1/' "$T/tb/1/stats" &&
	mst --dir "$T/tb" swapin 1 1; rc_is 0 && has "TOTAL: 299 pages swapped in"; }
t "a counter lower without a reset_count change is no reset" t_takeback
FULL="events were not counted: a table was full of processes that are still running and unread"
t_full() { rm -rf "$T/full" && mkdir -p "$T/full" && cp -r "$FX/basic/." "$T/full/" &&
	ms --dir "$T/full" faults; rc_is 0 && lacks "WARNING" &&
	sed -i 's/^dropped .*/dropped 17/' "$T/full/stats" &&
	for tool in faults ffaults swapin hfaults shrinkers; do
		ms --dir "$T/full" $tool; rc_is 0 && has "WARNING: 17 $FULL" || return 1
	done &&
	rm -rf "$T/full2" && mkdir -p "$T/full2" && cp -r "$FX/steps/0" "$FX/steps/1" "$T/full2/" &&
	sed -i 's/^dropped .*/dropped 17/' "$T/full2/0/stats" "$T/full2/1/stats" &&
	mst --dir "$T/full2" faults 1 1; rc_is 0 && lacks "WARNING" &&
	sed -i 's/^dropped .*/dropped 20/' "$T/full2/1/stats" &&
	mst --dir "$T/full2" faults 1 1; rc_is 0 && has "WARNING: 3 $FULL"; }
t "a full table: one line with the events dropped and what to do" t_full
t_format() { rm -rf "$T/fmt" && mkdir -p "$T/fmt" && cp -r "$FX/basic/." "$T/fmt/" &&
	sed -i '/^format /d' "$T/fmt/version" && ms --dir "$T/fmt" faults; rc_is 1 &&
	has_err "is older than file format 3, which this CLI" &&
	echo "format 4" >> "$T/fmt/version" && ms --dir "$T/fmt" faults; rc_is 1 &&
	has_err "writes file format 4 and this CLI" && ms --dir "$T/fmt" status; rc_is 0 &&
	has "note: the module's file format is newer" &&
	ms --dir "$FX/basic" status; rc_is 0 && has ", file format 3" && has ", faults hooked by kretprobe" && lacks "note: the module's file format"; }
t "a module of another file format: commands refuse, status says why" t_format
t_delta_ffaults() { st ffaults 1 1; rc_is 0 && has_re '^\[anon\] +1000 +0$' && has_re '^libc\.so\.6 +30 +10$' && lacks "my data"; }
t "ffaults INTERVAL COUNT: deltas" t_delta_ffaults
t_delta_shrinkers() { st shrinkers 1 2; rc_is 0 && has_re '^super_cache_scan +10 +1\.50 +100$' &&
	has_re '^super_cache_scan +1 +0\.01 +1$' && lacks deferred_split_scan; }
t "shrinkers INTERVAL COUNT: deltas" t_delta_shrinkers
t_delta_compact() { st compact --hist 1 2; rc_is 0 && has_re ' +1 +4\.00 +4\.00$' && has "[2M, 4M)               1 |"; }
t "compact INTERVAL COUNT: deltas and histogram" t_delta_compact
t_delta_hfaults() { st -p 777 hfaults 1 1; rc_is 0 && has_re '^777 +hugeuser +2$'; }
t "hfaults -p PID INTERVAL COUNT: deltas" t_delta_hfaults

t_dups() { mkdir -p "$T/dups" && cp -r "$FX/basic/." "$T/dups/" &&
	printf '# file faults major\nmemscope 10 1\nlibc.so.6 3 0\nmemscope 5 0\n' > "$T/dups/faults_by_file" &&
	printf '# pid comm faults major\n177 memscope 80 4\n177 sh 24 0\n' > "$T/dups/faults_by_pid" &&
	ms --dir "$T/dups" ffaults; rc_is 0 && count_is 1 "memscope" && has_re '^memscope +15 +1$' &&
	ms --dir "$T/dups" faults; rc_is 0 && has_re '^177 +memscope +80 +4$' && has_re '^177 +sh +24 +0$'; }
t "rows that print alike are merged; a pid keeps one row per comm" t_dups

# ------------------------------------------------------------- JSON
jt() { local name=$1; shift; t "JSON lines: $name" jcheck "$@"; }
jcheck() { "$@"; rc_is 0 && json_lines; }
jt "status" ms -j "${B[@]}" status
jt "faults" ms -j "${B[@]}" faults
jt "faults --hist" ms -j "${B[@]}" faults --hist
jt "faults 1 3 (steps)" st -j faults --hist 1 3
jt "ffaults" ms -j "${B[@]}" ffaults
jt "swapin" ms -j "${B[@]}" swapin
jt "hfaults" ms -j "${B[@]}" hfaults
jt "oomkill" ms -j "${B[@]}" oomkill
jt "oomkill --last" ms -j "${B[@]}" oomkill --last
jt "drsnoop -T" ms -j "${B[@]}" drsnoop -T
jt "drsnoop --last" ms -j "${B[@]}" drsnoop --last
jt "drsnoop --memcg --last" ms -j "${B[@]}" drsnoop --memcg --last
jt "vmscan" ms -j "${B[@]}" vmscan
jt "vmscan 1 3 (steps)" st -j vmscan 1 3
jt "shrinkers" ms -j "${B[@]}" shrinkers
jt "compact --hist" ms -j "${B[@]}" compact --hist
jt "top 1 2 (steps)" st -j top 1 2
jt "export" ms -j "${B[@]}" export
jt "malformed oom ring" ms -j --dir "$FX/malformed" oomkill --last
t_json_values() { ms -j "${B[@]}" oomkill --last; rc_is 0 && python3 -c '
import json, sys
k = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(k) == 2, k
assert k[0]["victim_pid"] == 3457 and k[0]["loadavg"] == "0.10 0.20 0.30 1/80 123", k[0]
assert k[1]["victim_comm"] == "Web Content" and k[1]["oom_score_adj"] == -100, k[1]
' "$T/out" || { show; return 1; }; }
t "JSON: typed values and decoded strings" t_json_values
# An event's time of day is its CLOCK_MONOTONIC stamp moved to the wall
# clock and rounded down once: each "time" must be the second computed
# here, from "time_ns" of the same record, in the run's bracket.
t_event_time() { mkdir -p "$T/times" && cp -r "$FX/basic/." "$T/times/" &&
	# 50 stamps 20 ms apart: unless the wall clock is in the last 20 ms of
	# its second, some fall where rounding twice would be a second off.
	for k in $(seq 0 49); do
		echo "time_ns=$((5000000000 + k * 20000000)) pid=42 comm=kcompactd0 latency_ns=2500000 status=complete"
	done > "$T/times/compaction" && python3 - "$M" "$T/times" <<'PY'
import json, subprocess, sys, time
def hms(t_ns):
    off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    return time.strftime("%H:%M:%S", time.localtime((t_ns + off) // 10**9))
checked = 0
for args in (["compact"], ["oomkill", "--last"]):
    for attempt in range(5):
        out = subprocess.run([sys.argv[1], "-j", "--dir", sys.argv[2]] + args,
                             capture_output=True, text=True, check=True).stdout
        recs = [json.loads(l) for l in out.splitlines() if l.strip()]
        evs = recs[0].get("events", []) if args[0] == "compact" else recs
        before = [hms(e["time_ns"]) for e in evs]
        after = [hms(e["time_ns"]) for e in evs]
        if before != after:
            continue    # a second boundary fell in the run: try again
        for e, want in zip(evs, before):
            assert e["time"] == want, (args, e["time_ns"], e["time"], want)
            checked += 1
        break
assert checked >= 52, checked
PY
}
t "an event's time of day: its stamp on the wall clock, rounded once" t_event_time
t_json_error() { ms -j --dir "$T/nonexistent" status; rc_is 1 && json_lines &&
	python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert "modprobe memscope" in e, e' "$T/out" ||
	{ show; return 1; }; }
t "JSON: errors are JSON objects on stdout, nonzero exit" t_json_error

# ----------------------------------------------------------- Prometheus
t_prom_names() { ms "${B[@]}" export; rc_is 0 && has "memscope_faults_total 12345" &&
	has "memscope_direct_reclaim_seconds_total 0.123456789" &&
	has "# TYPE memscope_direct_reclaim_seconds histogram" &&
	has 'memscope_direct_reclaim_seconds_bucket{le="0.002097151"} 15' &&
	has 'memscope_direct_reclaim_seconds_bucket{le="+Inf"} 40' &&
	has "memscope_direct_reclaim_seconds_sum 0.123456789" &&
	has "memscope_direct_reclaim_seconds_count 40" &&
	has 'memscope_probe_up{probe="faults",target="handle_mm_fault",state="attached"} 1'; }
t "export: counter, seconds and histogram names" t_prom_names
# HELP and TYPE as the module's stats_format says (the fixture's is a 6.1
# guest's); a module older than the file gets the key as help, and its one
# state, swap_residency_sample, as a gauge.
t_prom_stats_format() {
	rm -rf "$T/sf" && cp -r "$FX/basic" "$T/sf" && echo "swap_residency_sample 4" >> "$T/sf/stats" &&
	sed -i 's/^faults_write counter .*/faults_write gauge Made up: typed by this line./' "$T/sf/stats_format" &&
	ms --dir "$T/sf" export && rc_is 0 &&
	has "# HELP memscope_faults_total $(sed -n 's/^faults counter //p' "$FX/basic/stats_format")" &&
	has "# TYPE memscope_faults_total counter" &&
	has "# HELP memscope_faults_write Made up: typed by this line." &&
	has "# TYPE memscope_faults_write gauge" && has "memscope_faults_write 6000" &&
	has "# TYPE memscope_swap_residency_sample gauge" &&
	rm "$T/sf/stats_format" && ms --dir "$T/sf" export && rc_is 0 &&
	has '# HELP memscope_faults_total The "faults" counter of memscope'"'"'s stats file.' &&
	has "# TYPE memscope_faults_write_total counter" &&
	has "# TYPE memscope_swap_residency_sample gauge"
}
t "export: HELP and TYPE from stats_format, the key without it" t_prom_stats_format
if command -v promtool >/dev/null; then
	t_promtool() {
		for d in basic steps/2 unavailable malformed; do
			"$M" --dir "$FX/$d" export > "$T/prom" 2>/dev/null || { echo "export failed for $d"; return 1; }
			promtool check metrics < "$T/prom" || { echo "promtool rejects $d"; return 1; }
		done
	}
	t "export passes promtool check metrics" t_promtool
t_export_top() { ms --dir "$FX/basic" export --top 1; rc_is 0 &&
	[ "$(grep -c '^memscope_faults_by_pid_faults_total{' "$T/out")" = 1 ] &&
	has 'memscope_faults_by_pid_faults_total{pid="1234",comm="workload"} 4096' &&
	has "memscope_faults_by_pid_faults_rest $(awk 'NR > 2 { s += $3 } END { print s }' "$FX/basic/faults_by_pid")" &&
	has 'memscope_shrinkers_seconds_total{shrinker="super_cache_scan"} 0.080000000' &&
	ms --dir "$FX/basic" export --top 0; rc_is 1 && has_err 'bad --top "0"'; }
t "export --top N: N rows per table, the rest summed" t_export_top
# The tables are the module's own list (version's "tables" line): a stack
# table comes with its depth and stack as labels; a module without the
# line gets a warning and no table, not a silent gap.
t_export_tables() { mkdir -p "$T/stacks" && cp -r "$FX/basic/." "$T/stacks/" &&
	printf '# pid comm faults depth stack\n1234 workload 7 2 0x401000,0x401100\n' > "$T/stacks/faults_by_stack" &&
	ms --dir "$T/stacks" export; rc_is 0 &&
	has 'memscope_faults_by_stack_faults_total{pid="1234",comm="workload",depth="2",stack="0x401000,0x401100"} 7' &&
	has 'memscope_table_rows{table="faults_by_stack"} 1' &&
	mkdir -p "$T/notables" && cp -r "$FX/basic/." "$T/notables/" &&
	sed -i '/^tables /d' "$T/notables/version" &&
	ms --dir "$T/notables" export; rc_is 0 && lacks "memscope_table_rows" &&
	has "memscope_faults_total 12345" &&
	has_err "Warning: $T/notables/version lists no tables (a module older than this CLI): no table is exported"; }
t "export: the module's own table list, and a warning without one" t_export_tables
# --textfile: written whole and renamed, as node_exporter's textfile
# collector wants; Debian's node_exporter on loopback then scrapes every
# memscope metric with no scrape error.
t_textfile() {
	local tf=$T/textfile port=$((20000 + $$ % 20000)) ne
	mkdir -p "$tf" && ms --dir "$FX/basic" export --textfile "$tf"; rc_is 0 &&
	[ "$(ls "$tf")" = memscope.prom ] || { ls -la "$tf"; return 1; }
	ms --dir "$FX/basic" export --textfile "$tf/missing"; rc_is 1 &&
		has_err "cannot create $tf/missing/memscope.prom" && has_err "textfile collector" || return 1
	ms -j --dir "$FX/basic" export --textfile "$tf"; rc_is 1 || return 1
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$tf" > "$T/ne.log" 2>&1 &
	ne=$!
	python3 - "$port" > "$T/scrape" <<'PY'
import sys, time, urllib.request
for _ in range(300):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())
        break
    except OSError:
        time.sleep(0.1)
PY
	kill "$ne"; wait "$ne" 2>/dev/null
	grep -qx 'node_textfile_scrape_error 0' "$T/scrape" || { echo "scrape:"; grep textfile "$T/scrape"; cat "$T/ne.log"; return 1; }
	local want got
	want=$(awk '/^memscope_/ { sub(/[{ ].*/, ""); print }' "$tf/memscope.prom" | sort -u)
	got=$(awk '/^memscope_/ { sub(/[{ ].*/, ""); print }' "$T/scrape" | sort -u)
	[ -n "$want" ] && [ "$want" = "$got" ] || { echo "metrics differ:"; diff <(echo "$want") <(echo "$got"); return 1; }
	promtool check metrics < "$tf/memscope.prom"
}
if command -v prometheus-node-exporter > /dev/null && command -v promtool > /dev/null &&
	command -v python3 > /dev/null; then
	t "export --textfile: written atomically, node_exporter scrapes every metric" t_textfile
else
	skip "export --textfile with node_exporter" "prometheus-node-exporter, promtool or python3 not installed (make deps)"
fi
else
	skip "export passes promtool check metrics" "promtool not installed (apt-get install prometheus)"
fi

# ---------------------------------------------------------- error paths
t_missing() { ms --dir "$T/nonexistent" faults; rc_is 1 &&
	has_err "Error: memscope module not loaded" && has_err "modprobe memscope" && has_err "make demo"; }
t "missing directory: module not loaded, modprobe or make demo" t_missing
t_env_dir() { MEMSCOPE_DIR=$FX/basic ms hfaults; rc_is 0 && has "hugeuser"; }
t "MEMSCOPE_DIR selects the directory" t_env_dir

sysroot() { # sysroot NAME: a fake / for the directory diagnosis
	local r=$T/root-$1
	mkdir -p "$r/proc" "$r/sys/kernel/debug" "$r/sys/kernel/security" "$r/sys/module"
	echo "none [none] integrity confidentiality" > "$r/sys/kernel/security/lockdown"
	echo "debugfs /sys/kernel/debug debugfs rw,relatime 0 0" > "$r/proc/mounts"
	echo "$r"
}
sr() { local r=$1; shift; MEMSCOPE_TEST_SYSROOT=$r "$MT" "$@" > "$T/out" 2> "$T/err"; rc=$?; }
t_noseams() { local r; r=$(sysroot noseams); cp -r "$FX/basic" "$r/proc/memscope"
	! grep -q MEMSCOPE_TEST_ "$M" || { echo "$M reads MEMSCOPE_TEST_ variables"; return 1; }
	MEMSCOPE_TEST_SYSROOT=$r ms status; ! grep -qF "$r" "$T/out" "$T/err" || { show; return 1; }
	sr "$r" status; rc_is 0 && has "directory $r/proc/memscope"; }
t "the test seams are in the test build only" t_noseams
t_notloaded() { local r; r=$(sysroot notloaded); sr "$r" status; rc_is 1 &&
	has_err "Error: memscope module not loaded" && has_err '`modprobe memscope`'; }
t "default dir absent: module not loaded" t_notloaded
t_nodebugfs() { local r; r=$(sysroot nodebugfs); : > "$r/proc/mounts"; sr "$r" status; rc_is 1 &&
	has_err 'Error: debugfs is not mounted, mount it with `mount -t debugfs none /sys/kernel/debug`'; }
t "debugfs not mounted: the mount command" t_nodebugfs
t_lockdown() { local r; r=$(sysroot lockdown); : > "$r/proc/mounts"; mkdir -p "$r/sys/module/memscope"
	echo "none [integrity] confidentiality" > "$r/sys/kernel/security/lockdown"; sr "$r" status; rc_is 1 &&
	has_err "locked down [integrity]" && has_err '`modprobe memscope procfs=1`' && has_err "/proc/memscope"; }
t "kernel lockdown, module loaded, no debugfs: suggests procfs=1" t_lockdown
# Lockdown refuses an unsigned module: "modprobe memscope" alone would fail.
lockdown_unsigned() { has_err "memscope module not loaded ($1/sys/kernel/debug/memscope does not exist)" &&
	has_err "locked down [$2], which loads only signed modules" &&
	has_err "mokutil --import /var/lib/dkms/mok.pub" && has_err "docs/install.md"; }
t_lockdown_notloaded() { local r; r=$(sysroot lockdown-notloaded)
	echo "none [integrity] confidentiality" > "$r/sys/kernel/security/lockdown"; sr "$r" status; rc_is 1 &&
	lockdown_unsigned "$r" integrity; }
t "kernel lockdown, module not loaded: sign it with the DKMS MOK key" t_lockdown_notloaded
t_lockdown_notloaded_nodebugfs() { local r; r=$(sysroot lockdown-nodebugfs); : > "$r/proc/mounts"
	echo "none integrity [confidentiality]" > "$r/sys/kernel/security/lockdown"; sr "$r" faults; rc_is 1 &&
	lockdown_unsigned "$r" confidentiality; }
t "kernel lockdown, no module, no debugfs: signing first" t_lockdown_notloaded_nodebugfs
t_lockdown_json() { local r; r=$(sysroot lockdown-json)
	echo "none [integrity] confidentiality" > "$r/sys/kernel/security/lockdown"; sr "$r" -j status; rc_is 1 &&
	json_lines && has "locked down [integrity]"; }
t "kernel lockdown, module not loaded, -j: the error is JSON" t_lockdown_json
t_lockdown_dir() { local r; r=$(sysroot lockdown-dir)
	echo "none [integrity] confidentiality" > "$r/sys/kernel/security/lockdown"; sr "$r" --dir "$T/nonexistent" status
	rc_is 1 && has_err "memscope module not loaded ($T/nonexistent does not exist), load it with" &&
	! grep -q "locked down" "$T/err"; }
t "kernel lockdown and a missing --dir: no signing advice" t_lockdown_dir
t_procfs() { local r; r=$(sysroot procfs); cp -r "$FX/basic" "$r/proc/memscope"; sr "$r" status; rc_is 0 &&
	has "directory $r/proc/memscope"; }
t "falls back to /proc/memscope" t_procfs

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir -p "$T/bin" && cp "$M" "$T/bin/memscope" && cp "$MT" "$T/bin/memscope-test" &&
		chmod 755 "$T/bin/memscope" "$T/bin/memscope-test"
	nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/bin/memscope" "$@" > "$T/out" 2> "$T/err"; rc=$?; }
	t_nobody_dir() { cp -r "$FX/basic" "$T/private" && chmod 700 "$T/private" &&
		nobody --dir "$T/private" status; rc_is 1 && has_err "Error: cannot read $T/private" &&
		has_err "run as root"; }
	t "as nobody, an unreadable --dir: run as root" t_nobody_dir
	t_nobody_debugfs() { local r; r=$(sysroot nobody); mkdir -p "$r/sys/kernel/debug/memscope"
		chmod 700 "$r/sys/kernel/debug"; chmod -R a+rX "$r/proc" "$r/sys/kernel/security"
		MEMSCOPE_TEST_SYSROOT=$r setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$T/bin/memscope-test" faults > "$T/out" 2> "$T/err"; rc=$?
		rc_is 1 && has_err "run as root"; }
	t "as nobody, debugfs (mode 0700): run as root" t_nobody_debugfs
	t_nobody_json() { nobody -j --dir "$T/private" faults; rc_is 1 && json_lines && has "run as root"; }
	t "as nobody with -j: the error is JSON" t_nobody_json
else
	skip "as nobody: run as root" "needs root and setpriv"
fi

t_unavail() { ms --dir "$FX/unavailable" hfaults; rc_is 1 &&
	has_err "Error: hfaults has no data: probe hugetlb (hugetlb_fault) is unavailable on this kernel: symbol_not_found"; }
t "unavailable probe: named with its reason, error when nothing is left" t_unavail
t_unavail_warn() { ms --dir "$FX/unavailable" swapin; rc_is 0 &&
	has_err "Warning: probe swapin (swap_read_folio) is unavailable on this kernel: symbol_not_found" && has workload; }
t "unavailable probe with an alternative: warning, output continues" t_unavail_warn
t_disabled() { ms --dir "$FX/unavailable" compact; rc_is 1 && has_err "probe compaction (mm_compaction_begin) is disabled" &&
	has_err "echo enable compaction >"; }
t "disabled probe: says how to enable it" t_disabled
t_disabled_ran() { mkdir -p "$T/ran" && cp -r "$FX/unavailable/." "$T/ran/" &&
	sed -i 's/^compaction mm_compaction_begin disabled 0 0$/compaction mm_compaction_begin disabled 7 0/' "$T/ran/probes" &&
	ms --dir "$T/ran" compact; rc_is 0 && has_err "Warning: compact: its probes are off, it shows what they recorded while they were on" &&
	has_err "echo enable compaction >" && [ -s "$T/out" ] && ! grep -q '^Error' "$T/err" || { show; return 1; }; }
t "disabled probe that ran: its data, and a warning that it is off" t_disabled_ran

# ------------------------------------------------------ malformed input
t_bad_stats() { ms --dir "$FX/malformed" vmscan; rc_is 0 && has_err "stats: skipped 6 malformed lines (first at line 3)"; }
t "malformed stats lines are skipped with a warning" t_bad_stats
t_bad_table() { ms --dir "$FX/malformed" faults; rc_is 1 && has_err "faults_by_pid is malformed (no '#' header line"; }
t "a table without its header is a clear error" t_bad_table
t_bad_rows() { ms --dir "$FX/malformed" ffaults; rc_is 0 && has_re '^\[anon\] +10000' &&
	has_err "skipped 1 row with a non-numeric count" && ! grep -q $'\xff' "$T/out" || { show; return 1; }; }
t "bad table rows are skipped, invalid UTF-8 never reaches the terminal" t_bad_rows
t_bad_hist() { mkdir -p "$T/badhist" && cp -r "$FX/basic/." "$T/badhist/" &&
	cp "$FX/malformed/hist_raw/fault_latency_ns" "$T/badhist/hist_raw/" &&
	ms --dir "$T/badhist" faults --hist; rc_is 0 && has "[0]                    1 |" &&
	has "[1K, 2K)               4 |" && has "[8E, 16E)              1 |" && has_err "skipped 3 malformed lines"; }
t "malformed histogram lines are skipped" t_bad_hist
t_huge() { mkdir -p "$T/huge" && cp -r "$FX/basic/." "$T/huge/" && truncate -s 65M "$T/huge/stats" &&
	ms --dir "$T/huge" vmscan; rc_is 1 && has_err "is larger than 64 MiB"; }
t "a huge file is refused" t_huge
t_binary() { mkdir -p "$T/bin2" && cp -r "$FX/basic/." "$T/bin2/" && head -c 4096 /dev/urandom > "$T/bin2/probes" &&
	head -c 4096 /dev/urandom > "$T/bin2/hist_raw/fault_latency_ns" && ms --dir "$T/bin2" faults --hist; [ "$rc" -le 1 ] &&
	ms --dir "$T/bin2" status; [ "$rc" -le 1 ]; }
t "random binary files do not crash the CLI" t_binary

# --------------------------------------------- streams and Ctrl-C
t_sigint_vmscan() { "$M" "${B[@]}" vmscan 1 > "$T/out" 2> "$T/err" & local pid=$!
	sleep 1.5; kill -INT $pid; wait $pid; rc=$?
	rc_is 0 && line_is 1 "$VMHDR" && has "@direct_reclaim_ns:"; }
t "Ctrl-C ends vmscan INTERVAL, prints histograms, exit 0" t_sigint_vmscan
t_sigint_stream() { mkdir -p "$T/live" && cp -r "$FX/basic/." "$T/live/" && rm "$T/live/events" &&
	mkfifo "$T/live/events" || return 1
	(cat "$FX/basic/events"; exec sleep 30) > "$T/live/events" & local writer=$!
	"$M" --dir "$T/live" oomkill > "$T/out" 2> "$T/err" & local pid=$!
	sleep 1.5; kill -INT $pid; wait $pid; rc=$?; kill $writer 2>/dev/null; wait $writer 2>/dev/null
	rc_is 0 && count_is 2 "Triggered by"; }
t "oomkill blocks on the stream, Ctrl-C exits 0" t_sigint_stream

# ------------------------------------------------------------ fuzzing
t_fuzz() {
	gcc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -DFUZZ_STANDALONE \
		-I"$ROOT/userspace" -o "$T/fuzz" "$ROOT/tests/host/fuzz_parse.c" \
		"$ROOT/userspace/parse.c" "$ROOT/userspace/print.c" -lm || return 1
	mkdir -p "$T/crashes"
	ASAN_OPTIONS=detect_leaks=1 "$T/fuzz" -n "${FUZZ_ITERATIONS:-200000}" -t "${FUZZ_SECONDS:-5}" \
		-o "$T/crashes" "$FX/basic" "$FX/steps/1" "$FX/malformed" "$FX/unavailable" \
		"$FX/fuzz-regressions" || { ls "$T/crashes"; for f in "$T"/crashes/*; do
			[ -f "$f" ] && echo "keep it: cp $f tests/fixtures/fuzz-regressions/"; done; return 1; }
}
t "parser fuzz (ASan+UBSan, regressions then mutations)" t_fuzz
if command -v clang >/dev/null && clang -fsanitize=fuzzer -x c /dev/null -o /dev/null 2>&1 | grep -q 'LLVMFuzzerTestOneInput\|undefined'; then
	t_libfuzzer() {
		clang -g -O1 -std=c11 -I"$ROOT/userspace" -fsanitize=fuzzer,address,undefined \
			-o "$T/libfuzz" "$ROOT/tests/host/fuzz_parse.c" "$ROOT/userspace/parse.c" \
			"$ROOT/userspace/print.c" -lm || return 1
		mkdir -p "$T/corpus" && cp "$FX"/basic/[a-z]* "$FX"/basic/hist_raw/* "$T/corpus/" 2>/dev/null
		"$T/libfuzz" -runs="${LIBFUZZER_RUNS:-20000}" -max_len=8192 "$T/corpus" "$FX/fuzz-regressions" > "$T/lf" 2>&1 ||
			{ tail -30 "$T/lf"; return 1; }
	}
	t "libFuzzer smoke run" t_libfuzzer
else
	skip "libFuzzer smoke run" "clang with -fsanitize=fuzzer not installed"
fi

# ------------------------------------------------- install, man, completion
t_install() { make -s -C "$ROOT/userspace" install DESTDIR="$T/inst" PREFIX=/usr > /dev/null &&
	[ -x "$T/inst/usr/sbin/memscope" ] && [ -f "$T/inst/usr/share/man/man8/memscope.8" ] &&
	[ -f "$T/inst/usr/share/bash-completion/completions/memscope" ] &&
	make -s -C "$ROOT/userspace" uninstall DESTDIR="$T/inst" PREFIX=/usr > /dev/null &&
	[ ! -e "$T/inst/usr/sbin/memscope" ] && [ ! -e "$T/inst/usr/share/man/man8/memscope.8" ]; }
t "make install and uninstall (DESTDIR, PREFIX)" t_install
# faults --stacks and brkstack name a live process's frames from its maps
# and symbol table: a fixture table with frames inside stacker's own
# functions (a static executable, so nm gives their addresses), folded
# outermost first, rows of one stack added up, -p honoured, a stack with
# no frames and a frame outside every mapping named, and a note on the
# format that is no warning (nothing is wrong; a build without libdw warns
# that it names less).  Built without libelf
# (LIBELF=0), the same rows come out as raw addresses, with a warning.
t_stacks_run() { # t_stacks_run CLI: fixture dir $T/stk, stacker's pid $spid
	"$1" --dir "$T/stk" brkstack -p "$spid" > "$T/out" 2> "$T/err"; rc=$?
}
t_stacks() {
	local W=$T/wl/stacker d=$T/stk g b m
	make -s -C "$ROOT/tests/workloads" OUT="$T/wl" "$W" > "$T/build" 2>&1 || { cat "$T/build"; return 1; }
	cli_copy "$T/nolibelf" &&
	mkdir -p "$T/module/uapi" && cp "$ROOT"/module/uapi/memscope_*.h "$T/module/uapi/" &&
		make -s -C "$T/nolibelf" LIBELF=0 > "$T/build" 2>&1 || { cat "$T/build"; return 1; }
	rm -rf "$d" && cp -r "$FX/basic" "$d" && rm -f "$T/stk.in" && mkfifo "$T/stk.in" || return 1
	"$W" 0 0 0 0 < "$T/stk.in" > "$T/stk.out" &
	exec 4> "$T/stk.in"
	for _ in $(seq 50); do grep -q '^done' "$T/stk.out" && break; sleep 0.1; done
	spid=$(sed -n 's/^pid=//p' "$T/stk.out")
	sym() { printf '0x%x' $((0x$(nm "$W" | awk -v s="$1" '$3 == s { print $1 }') + 8)); }
	g=$(sym grow_heap) b=$(sym brk_a) m=$(sym main)
	printf '# pid comm brk depth stack\n%s\n' \
		"$spid stacker 4 3 $g,$b,$m" "$spid stacker 3 3 $g,$b,$m" "$spid stacker 2 0 -" \
		"$spid stacker 1 2 $g,0x10" "1 init 9 1 $g" > "$d/brk_by_stack"
	t_stacks_run "$M"
	echo >&4; exec 4>&-; wait
	rc_is 0 && line_is 1 "stacker;main;brk_a;grow_heap 7" && line_is 2 "stacker;[no user stack] 2" &&
		line_is 3 "stacker;[unknown];grow_heap 1" && lacks init &&
		has_err "Folded stacks" && ! grep -v "built without libdw" "$T/err" | grep -q -e libelf -e Warning ||
		return 1
	t_stacks_run "$T/nolibelf/memscope"
	rc_is 0 && line_is 1 "stacker;$m;$b;$g 7" && has_err "built without libelf"
}
t "faults --stacks, brkstack: frames named from maps and symbols, folded; raw without libelf" t_stacks
# Frames left as addresses are said on stderr, each cause with its stats
# counter and what to do, and only when its count moved; -j gives the
# counts, and those of frames walked by table and by frame pointers.
t_stacks_raw() {
	local d=$T/stkraw
	rm -rf "$d" && cp -r "$FX/basic" "$d" || return 1
	printf '# pid comm brk depth stack\n1 init 9 1 0x401000\n' > "$d/brk_by_stack"
	printf '%s\n' "ustack_mm_busy 3" "ustack_files_full 1" "unwind_frames 40" "unwind_no_table 2" >> "$d/stats"
	ms --dir "$d" brkstack
	rc_is 0 && has_err "3 user stacks were kept as addresses, recorded while their process changed its memory map (stats: ustack_mm_busy)" &&
		has_err "1 user stack frame was kept as addresses: the module's table of files was full (stats: ustack_files_full)" &&
		has_err "Load memscope with a larger ustack_files" || return 1
	ms --dir "$d" -j brkstack -p 1
	rc_is 0 && has '"ustack_mm_busy":3,"ustack_files_full":1,"unwind_frames":40,"unwind_no_table":2' &&
		has_err "(stats: ustack_mm_busy, every process's)" || return 1
	sed -i 's/^ustack_mm_busy 3$/ustack_mm_busy 0/' "$d/stats" && ms --dir "$d" brkstack
	rc_is 0 && ! grep -q ustack_mm_busy "$T/err" || { echo "a warning for ustack_mm_busy 0"; show; return 1; }
}
t "faults --stacks, brkstack: frames left as addresses are warned of; -j counts frames by table and frame pointer" t_stacks_raw

# Symbols as distributions ship them.  symsrc (tests/host/symsrc.c, -g
# -O2 -rdynamic) has main() and exported_entry() in .dynsym, static_work()
# in .symtab only, and inlined_step() inlined into it.  Copies of it are
# stripped to .dynsym alone, then given what each distribution adds: debug
# files by build-id under --debug-dir's .build-id/, a .gnu_debuglink to
# the copy's .debug/ or to --debug-dir/<its directory>, and MiniDebugInfo
# (Fedora's recipe).  A live copy of each, and a fixture stack from inside
# inlined_step() up to main(), must come out as binutils' addr2line -f -i
# names those addresses in the unstripped file: every frame, inlined ones
# as frames of their own where DWARF is there, and the functions alone
# where it is not.  Built without libdw (LIBDW=0), each file's own symbol
# table, warning-free and with a warning that says what is missing.
sym_fns() { # sym_fns ADDR: the functions at ADDR of symsrc, outermost first
	addr2line -f -i -e "$T/sym/full" "$(printf '0x%x' "$1")" | sed -n 'p;n' | tac
}
sym_addr() { printf '%d' "0x$(nm "$T/sym/full" | awk -v s="$1" '$3 == s { print $1 }')"; }
sym_start() { # sym_start NAME PATH: run PATH as comm NAME, its fixture row in $T/sym/rows
	local o=$T/sym/$1.out main
	rm -f "$T/sym/$1.in" && mkfifo "$T/sym/$1.in" || return 1
	"$2" < "$T/sym/$1.in" > "$o" &
	exec {sym_fd}> "$T/sym/$1.in"; sym_fds="$sym_fds $sym_fd"
	for _ in $(seq 50); do grep -q '^done' "$o" && break; sleep 0.1; done
	main=$(sed -n 's/^main=//p' "$o") && [ -n "$main" ] || return 1
	local bias=$((main - $(sym_addr main)))
	printf '%s %s 1 3 0x%x,0x%x,0x%x\n' "$(sed -n 's/^pid=//p' "$o")" "$1" \
		$((sym_ip0 + bias)) $((sym_ip1 + bias)) $((sym_ip2 + bias)) >> "$T/sym/rows"
}
sym_run() { # sym_run CLI DEBUG_DIR: brkstack over every copy's row
	{ echo '# pid comm brk depth stack'; cat "$T/sym/rows"; } > "$T/sym/stk/brk_by_stack"
	env -u DEBUGINFOD_URLS "$1" --dir "$T/sym/stk" brkstack --debug-dir "$2" > "$T/out" 2> "$T/err"; rc=$?
}
has_line() { grep -qxF -- "$1" "$T/out" || { echo "stdout lacks the line: $1"; show; return 1; }; }
t_symbols() {
	local d=$T/sym bad="" dyn all outer bid a s z inl=()
	rm -rf "$d" && mkdir -p "$d/empty" "$d/stripped" "$d/dl/.debug" "$d/dlroot" "$d/mini" "$d/nolibdw" &&
	cp -r "$FX/basic" "$d/stk" && : > "$d/rows" || return 1
	gcc -g -O2 -rdynamic -Wall -Wextra -o "$d/full" "$ROOT/tests/host/symsrc.c" || return 1
	# (a) .dynsym alone; (b) by build-id; (c) by debuglink, twice; (d) MiniDebugInfo
	cp "$d/full" "$d/stripped/symsrc" && strip --strip-all "$d/stripped/symsrc" || return 1
	bid=$(readelf -n "$d/full" | sed -n 's/.*Build ID: //p')
	mkdir -p "$d/dbg/.build-id/${bid:0:2}" &&
	objcopy --only-keep-debug "$d/full" "$d/dbg/.build-id/${bid:0:2}/${bid:2}.debug" || return 1
	objcopy --only-keep-debug "$d/full" "$d/dl/.debug/symsrc.debug" &&
	(cd "$d/dl/.debug" && objcopy --add-gnu-debuglink=symsrc.debug "$d/stripped/symsrc" ../symsrc) || return 1
	mkdir -p "$d/root$d/dlroot" && objcopy --only-keep-debug "$d/full" "$d/root$d/dlroot/symsrc.debug" &&
	(cd "$d/root$d/dlroot" && objcopy --add-gnu-debuglink=symsrc.debug "$d/stripped/symsrc" "$d/dlroot/symsrc") ||
		return 1
	nm -D "$d/full" --format=posix --defined-only | awk '{ print $1 }' | sort > "$d/dynsyms" &&
	nm "$d/full" --format=posix --defined-only |
		awk '$2 == "T" || $2 == "t" || $2 == "D" { print $1 }' | sort > "$d/funcsyms" &&
	comm -13 "$d/dynsyms" "$d/funcsyms" > "$d/keep" &&
	objcopy --only-keep-debug "$d/full" "$d/mini.debug" &&
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$d/keep" \
		"$d/mini.debug" "$d/minidebuginfo" && xz -f "$d/minidebuginfo" &&
	objcopy --add-section .gnu_debugdata="$d/minidebuginfo.xz" "$d/stripped/symsrc" "$d/mini/symsrc" ||
		return 1
	# The innermost frame: the middle of the addresses addr2line puts in
	# inlined_step(); the callers' return addresses 8 bytes into them.
	s=$(sym_addr static_work) z=$((0x$(nm -S "$d/full" | awk '$4 == "static_work" { print $2 }')))
	for ((a = s; a < s + z; a++)); do [ "$(sym_fns $a | wc -l)" -ge 2 ] && inl+=("$a"); done
	[ ${#inl[@]} -gt 0 ] || { echo "addr2line finds nothing inlined in static_work"; return 1; }
	sym_ip0=${inl[${#inl[@]} / 2]} sym_ip1=$(($(sym_addr exported_entry) + 8)) sym_ip2=$(($(sym_addr main) + 8))
	all=$(for a in $sym_ip2 $((sym_ip1 - 1)) $sym_ip0; do sym_fns "$a"; done | paste -sd ';')
	outer=$(for a in $sym_ip2 $((sym_ip1 - 1)) $sym_ip0; do sym_fns "$a" | head -1; done | paste -sd ';')
	dyn=$(for a in $sym_ip2 $((sym_ip1 - 1)); do sym_fns "$a" | head -1; done | paste -sd ';')
	[[ $all == *\;static_work\;inlined_step ]] || { echo "addr2line: $all"; return 1; }
	cli_copy "$d/nolibdw/userspace" && mkdir -p "$d/nolibdw/module/uapi" &&
	cp "$ROOT"/module/uapi/memscope_*.h "$d/nolibdw/module/uapi/" &&
	make -C "$d/nolibdw/userspace" LIBDW=0 > "$T/build" 2>&1 || { cat "$T/build"; return 1; }
	! grep -i warning "$T/build" || return 1
	sym_fds=""
	sym_start full "$d/full" && sym_start dynsym "$d/stripped/symsrc" &&
		sym_start debuglink "$d/dl/symsrc" && sym_start dlroot "$d/dlroot/symsrc" &&
		sym_start minidebug "$d/mini/symsrc" || { echo "a copy of symsrc did not start"; bad=1; }
	[ -z "$bad" ] && sym_run "$M" "$d/empty" &&
	{ rc_is 0 && has_line "full;$all 1" && has_line "dynsym;$dyn;[symsrc] 1" &&
		has_line "debuglink;$all 1" && has_line "dlroot;$dyn;[symsrc] 1" &&
		has_line "minidebug;$outer 1" && ! grep -q Warning "$T/err"; } || bad=1
	[ -z "$bad" ] && sym_run "$M" "$d/dbg" &&
		{ rc_is 0 && has_line "dynsym;$all 1" && has_line "minidebug;$all 1"; } || bad=1
	[ -z "$bad" ] && sym_run "$M" "$d/root" && { rc_is 0 && has_line "dlroot;$all 1"; } || bad=1
	[ -z "$bad" ] && sym_run "$d/nolibdw/userspace/memscope" "$d/dbg" &&
		{ rc_is 0 && has_line "full;$outer 1" && has_line "dynsym;$dyn;[symsrc] 1" &&
		has_line "minidebug;$dyn;[symsrc] 1" && has_err "built without libdw"; } || bad=1
	for a in $sym_fds; do exec {a}>&-; done
	wait
	[ -z "$bad" ]
}
if command -v addr2line > /dev/null && command -v xz > /dev/null &&
	pkg-config --exists libdw 2> /dev/null; then
	t "stack frames named from .symtab, .dynsym, build-id and debuglink debuginfo, MiniDebugInfo, inlines as addr2line -i" t_symbols
else
	skip "stack frames named from every symbol source" "needs binutils, xz and a memscope built with libdw (libdw-dev)"
fi

# Unwind tables (userspace/unwind.c, format module/uapi/memscope_unwind.h)
# against binutils: for Debian's own libc, python3.11, gzip and sort, node
# where it is installed (three executable segments, a table each), Debian's
# arm64 libc and ld.so (libc6-arm64-cross, which make deps installs with
# the cross compiler: aarch64 CFI, x30 the return address), and
# symsrc built without .eh_frame for its own functions (their CFI then is
# in .debug_frame), every row of `memscope __unwind FILE` must be the rule
# readelf -wF gives over the same addresses, STOP where no FDE covers them
# (tests/host/unwind_readelf.py says how each readelf row maps to a rule).
# The comparison is shown to fail on a dump with one rule changed, and the
# table's checks to refuse a blob with any one thing broken
# (tests/host/unwind_check.c).  The tables' sizes are printed.  Built
# without libdw: a clear error.
unwind_cmp() { # unwind_cmp FILE: build, compare, sizes into $T/unwind.sizes
	local dump=$T/unwind.${1##*/}
	"$M" __unwind "$1" > "$dump" 2> "$T/err" || { echo "__unwind $1 failed:"; cat "$T/err"; return 1; }
	python3 "$ROOT/tests/host/unwind_readelf.py" "$1" "$dump" || return 1
	sed -n "s|^# rules |${1#"$T"/}: rules |p" "$dump" >> "$T/unwind.sizes"
}
t_unwind() {
	local f files=() bad="" mid
	for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11 /usr/bin/gzip /usr/bin/sort \
		/usr/bin/node /usr/aarch64-linux-gnu/lib/libc.so.6 \
		/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || { echo "none of the objects is here"; return 1; }
	gcc -g -O2 -fno-asynchronous-unwind-tables -o "$T/dbgframe" "$ROOT/tests/host/symsrc.c" &&
		readelf -S "$T/dbgframe" | grep -q '\.debug_frame' || { echo "no .debug_frame in symsrc"; return 1; }
	: > "$T/unwind.sizes"
	for f in "${files[@]}" "$T/dbgframe"; do
		unwind_cmp "$f" || bad=1
	done
	[ -z "$bad" ] || return 1
	f=$T/unwind.gzip
	mid=$(awk '/^0x/ && / rule cfa=rsp/ { n++ } n == 500 { print NR; exit }' "$f")
	sed "${mid}s/cfa=rsp+\([0-9]*\)/cfa=rsp+1\1/" "$f" > "$T/unwind.bad"
	! python3 "$ROOT/tests/host/unwind_readelf.py" /usr/bin/gzip "$T/unwind.bad" > "$T/out" ||
		{ echo "a changed rule compares equal: line $mid"; return 1; }
	grep -q "1 addresses differ" "$T/out" || { cat "$T/out"; return 1; }
	# shellcheck disable=SC2046
	gcc -std=c11 -Wall -Wextra -Werror -O2 -DMS_HAVE_LIBDW -I"$ROOT/userspace" -o "$T/unwind_check" \
		"$ROOT/tests/host/unwind_check.c" "$ROOT/userspace/unwind.c" "$ROOT/userspace/print.c" \
		$(pkg-config --cflags --libs libdw) -lm && "$T/unwind_check" /usr/bin/gzip || return 1
	ms __unwind /nonexistent; rc_is 1 && has_err "Error: cannot open /nonexistent" &&
	{ ms __unwind "$ROOT/README.md"; rc_is 1; } && has_err "not an ELF object" || return 1
	if [ -x "$T/sym/nolibdw/userspace/memscope" ]; then
		"$T/sym/nolibdw/userspace/memscope" __unwind /usr/bin/gzip > "$T/out" 2> "$T/err"; rc=$?
		rc_is 1 && has_err "built without libdw: no unwind tables" || return 1
	fi
}
if command -v readelf > /dev/null && [ -x /usr/bin/gzip ] && pkg-config --exists libdw 2> /dev/null; then
	t "unwind tables: every row as readelf -wF has it, for libc, python3, gzip, sort, node, arm64's libc and ld.so, and .debug_frame" t_unwind
	[ -s "$T/unwind.sizes" ] && sed 's/^/# /' "$T/unwind.sizes"
else
	skip "unwind tables against readelf -wF" "needs binutils, gzip and a memscope built with libdw (libdw-dev)"
fi

# flamegraph: folded stacks to a well-formed SVG that names every frame
# with its count; malformed lines are skipped with a warning; no stacks at
# all is an error that says what input it wants.
t_flamegraph() {
	printf 'w;main;fault_a;touch_pages 300\nw;main;fault_b;touch_pages 200\nw;a<b>&"c" 1\nnot folded\n' |
		"$M" flamegraph --title 'Page faults' > "$T/out" 2> "$T/err"; rc=$?
	rc_is 0 && has_err "skipped 1 of 4 lines" &&
		python3 -c '
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
root = E.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter(ns + "title")]
want = ["all (501, 100.00%)", "w (501, 100.00%)", "main (500, 99.80%)", "fault_a (300, 59.88%)",
        "fault_b (200, 39.92%)", "touch_pages (300, 59.88%)", "touch_pages (200, 39.92%)",
        "a<b>&\"c\" (1, 0.20%)"]
missing = [w for w in want if w not in titles]
if missing or len(titles) != len(want):
    sys.exit("titles %r, missing %r" % (titles, missing))
' "$T/out" || { show; return 1; }
	printf 'nothing here\n' | "$M" flamegraph > "$T/out" 2> "$T/err"; rc=$?
	rc_is 1 && has_err "no folded stacks in the input" &&
		{ "$M" flamegraph /nonexistent > "$T/out" 2> "$T/err"; rc=$?; rc_is 1; } &&
		has_err "cannot open /nonexistent"
}
t "flamegraph: folded stacks to a well-formed SVG; clear errors" t_flamegraph

# pmap reads /proc, not the module: its errors, and a report of this
# shell (the kernel's ground truth is tests/guest/27-pmap.sh).
t_pmap_errors() {
	ms pmap; rc_is 1 && has_err "pmap needs a process: memscope pmap -p PID" &&
	{ ms pmap -p 2147483647; rc_is 1; } && has_err "no process 2147483647" &&
	{ ms pmap -p $$ --map zz; rc_is 1; } && has_err 'bad --map "zz"' &&
	{ ms pmap -p $$ --map 1; rc_is 1; } && has_err "no mapping of process $$ holds address 1" &&
	{ ms faults --map 1; rc_is 1; } && has_err "faults does not take --map"
}
t "pmap: no -p, no process, a bad or unmapped --map address: clear errors" t_pmap_errors
t_pmap_self() {
	[ -r /proc/self/pagemap ] || { echo "no /proc/self/pagemap"; return 1; }
	ms pmap -p $$; rc_is 0 && has_re "^ *Address Perm +Offset +Size +Rss +Pss +Swap +Dirty +Anon +File +THP +KSM +Zero Mapping$" &&
		has "[stack]" &&
		{ ms -j pmap -p $$; rc_is 0; } && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["mappings"] if x["mapping"] == "[stack]"]
assert d["pid"] == int(sys.argv[2]) and len(m) == 1 and m[0]["rss_kb"] > 0, d
assert sum(x["rss_kb"] for x in d["mappings"]) == d["total"]["rss_kb"], d["total"]
' "$T/out" $$ || { show; return 1; }
}
t "pmap -p PID: pmap -X shaped lines and JSON with totals" t_pmap_self
# pmap -i needs a terminal, and refreshes every -d SECONDS: its errors
# come before it takes the screen (tests/guest/43-pmap-interactive.sh
# drives it in tmux).
t_pmap_interactive_errors() {
	ms pmap -i -p $$ < /dev/null; rc_is 1 &&
		has_err "Error: pmap -i needs a terminal, and standard input is not one; run it in a terminal, or without -i for the text map" &&
	{ ms pmap -i -p $$ 1 3; rc_is 1; } &&
		has_err "Error: pmap -i draws on the terminal every -d SECONDS: it takes no INTERVAL or COUNT, usage: memscope pmap -i -p PID [--map ADDRESS] [-d SECONDS]" &&
	{ ms -j pmap -i -p $$; rc_is 1; } && has "it takes no -j" &&
	{ ms faults -i; rc_is 1; } && has_err "faults does not take -i" &&
	{ ms pmap -h; rc_is 0; } && has "pmap -p PID [--map ADDRESS] [-i] [-d SECONDS | INTERVAL [COUNT]]" &&
		has "| -i }"
}
t "pmap -i: not a terminal, INTERVAL, -j, another tool: clear errors; help names -i" t_pmap_interactive_errors

# analyze: every section and the closing findings, from a module's files,
# or from /proc alone (this host has no module), and JSON of the same.
t_analyze() {
	local s
	ms --dir "$FX/basic" analyze 0.1; rc_is 0 || return 1
	for s in "1. OOM kills" "2. Swap" "3. Free memory and pressure" "4. Processes" \
		"5. Files by page faults" "6. Reclaim and compaction stalls" "7. Outstanding allocations (memleak)" \
		"Findings:"; do
		has "$s" || return 1
	done
	count_is 7 "   => " && has "memscope module in $FX/basic" &&
	has "last (memscope): Web Content (pid 501) in memcg /test" &&
	{ ms -j --dir "$FX/basic" analyze 0.1; rc_is 0; } && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("oom", "swap", "memory", "processes", "files", "stalls", "memleak"):
    assert "finding" in d[k] and d[k]["severity"] in (0, 1, 2, 3), k
assert d["module"] is True and isinstance(d["findings"], list), d
' "$T/out" || { show; return 1; }
	ms analyze 0.1; rc_is 0 && has "without the module (memscope module not loaded): /proc only" &&
		has "not seen: per-file faults" &&
	{ ms analyze 1 2; rc_is 1; } && has_err "analyze takes one DURATION"
}
t "analyze: seven sections with findings, JSON, /proc alone without the module" t_analyze

t_man() {
	local man=$ROOT/userspace/memscope.8 w
	if command -v groff >/dev/null; then
		w=$(groff -man -ww -z "$man" 2>&1); [ -z "$w" ] || { echo "$w"; return 1; }
	fi
	for word in kpageflags \\-\\-map \\-\\-interactive kpagecount PSI \\-\\-stacks faults_by_stack brk_by_stack \\-\\-residency swap_residency_by_pid swap_residency_ns \
		S\\-SLABms D\\-RECLAIMms M\\-RECLAIMms KSWAPD WRITEPAGE "LAT(ms)" PAGES FREED \
		faults_by_pid faults_by_file swapins_by_pid hugetlb_by_pid probes stats events control \
		fault_latency_ns compaction_ns MEMSCOPE_DIR; do
		grep -qF -- "$word" "$man" || { echo "memscope.8 does not mention $word"; return 1; }
	done
}
t "man page renders cleanly and names every column and file" t_man
t_completion() { PATH=$ROOT/userspace:$PATH bash -c 'source "$1"
	COMP_WORDS=(memscope vm); COMP_CWORD=1; _memscope; echo "${COMPREPLY[@]}"
	COMP_WORDS=(memscope -j faults --h); COMP_CWORD=3; _memscope; echo "${COMPREPLY[@]}"
	COMP_WORDS=(memscope --dir /tmp pmap -p 1 --m); COMP_CWORD=6; _memscope; echo "${COMPREPLY[@]}"
	COMP_WORDS=(memscope ffaults --); COMP_CWORD=2; _memscope; echo "${COMPREPLY[@]}"
	COMP_WORDS=(memscope --v); COMP_CWORD=1; _memscope; echo "${COMPREPLY[@]}"' _ \
	"$ROOT/userspace/memscope.bash-completion" > "$T/out" 2>&1 &&
	line_is 1 "vmscan" && line_is 2 "--hist" && line_is 3 "--map" &&
	line_is 4 "--json --timestamp --dir --netlink" && line_is 5 "--version" || { show; return 1; }; }
t "bash completion completes tools and options" t_completion
# The man page's tool list and its TOOLS section name exactly the tools
# `memscope __complete` lists from their own descriptions (help aside);
# the list in the order a prefix picks in, as the page says.
t_man_tools() {
	local man=$ROOT/userspace/memscope.8 want syn sec
	want=$("$M" __complete | grep -vx help)
	syn=$(sed -n '/^\.IR TOOL " := { "/,/}"$/p' "$man" | sed 's/^\.BR //; s/"[^"]*"//g' |
		tr ' ' '\n' | grep -E '^[a-z]+$')
	sec=$(sed -n '/^\.SH TOOLS/,/^\.SH /{/^\.TP/{n;p}}' "$man" | awk '$1 == ".B" { print $2 }' | sort -u)
	[ "$syn" = "$want" ] || { echo "SYNOPSIS TOOL list:"; diff <(echo "$want") <(echo "$syn"); return 1; }
	[ "$sec" = "$(sort <<< "$want")" ] ||
		{ echo "TOOLS section:"; diff <(sort <<< "$want") <(echo "$sec"); return 1; }
}
t "man page lists exactly the CLI's tools, in its order" t_man_tools
# The README's Layout names every file of the product.
t_layout() {
	local lay f miss=
	lay=$(sed -n '/^## Layout/,$p' "$ROOT/README.md")
	for f in $(git -C "$ROOT" ls-files module userspace scripts docs packaging 2>/dev/null); do
		case $lay in *"\`$f\`"*|*"\`${f#*/}\`"*|*"\`${f##*/}\`"*) ;; *) miss="$miss $f" ;; esac
	done
	[ -z "$miss" ] || { echo "README's Layout does not name:$miss"; return 1; }
}
if git -C "$ROOT" rev-parse --git-dir > /dev/null 2>&1; then
	t "README's Layout names every file" t_layout
else
	skip "README's Layout names every file" "not a git checkout"
fi

# dkms.conf's BUILD_EXCLUSIVE_KERNEL (DKMS matches it with bash's =~)
# against the release strings of the kernels memscope supports, as each
# distribution spells them, and of ones it does not.
t_dkms_kernels() {
	local re r bad=
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$ROOT/dkms.conf")
	[ -n "$re" ] || { echo "no BUILD_EXCLUSIVE_KERNEL in dkms.conf"; return 1; }
	for r in 3.10.0-1160.el7.x86_64 3.10.0-1160.119.1.el7.x86_64 3.10.0-957.27.2.el7.x86_64 \
		4.18.0-553.el8_10.x86_64 4.18.0-553.66.1.el8_10.x86_64 4.18.0-147.5.1.el8_1.x86_64 \
		5.14.0-570.12.1.el9_6.x86_64 5.14.0-70.30.1.el9_0.x86_64 \
		4.14.355-275.570.amzn2.x86_64 5.10.236-227.928.amzn2.x86_64 6.1.132-147.221.amzn2023.x86_64 \
		4.12.14-122.231-default 5.14.21-150500.55.100-default 6.4.0-150600.23.42-default \
		4.4.0-210-generic 4.15.0-213-generic 5.4.0-216-generic 5.15.0-140-generic 6.8.0-60-generic \
		4.9.0-19-amd64 4.19.0-27-amd64 5.10.0-32-amd64 6.1.0-56-amd64 6.12.117+deb12-amd64 \
		6.12.117+deb12-rt-amd64 4.4.178-memscope-old 10.0.0; do
		[[ $r =~ $re ]] || bad="$bad $r"
	done
	[ -z "$bad" ] || { echo "BUILD_EXCLUSIVE_KERNEL refuses:$bad"; return 1; }
	for r in 2.6.32-754.35.1.el6.x86_64 3.10.108 3.16.0-11-amd64 4.3.6 3.10.0-1160.el6.x86_64; do
		[[ $r =~ $re ]] && bad="$bad $r"
	done
	[ -z "$bad" ] || { echo "BUILD_EXCLUSIVE_KERNEL accepts:$bad"; return 1; }
}
t "dkms.conf accepts RHEL, Amazon Linux, SLES, Ubuntu and Debian releases, and refuses older ones" t_dkms_kernels

# ----------------------------------------------------------- module sources
# Kernel differences live in module/compat/ (its README): a tool file that
# grows an #if for one is a compat wrapper in the wrong place.
t_no_if() {
	! grep -nE '^[[:space:]]*#[[:space:]]*(if|elif|ifdef|ifndef)' "$ROOT"/module/*.c ||
		{ echo "move these into module/compat/"; return 1; }
	[ "$(grep -cE '^[[:space:]]*#[[:space:]]*(if|elif|ifdef|ifndef)' "$ROOT/module/memscope.h")" = 1 ] ||
		{ echo "module/memscope.h: only its include guard may be an #if"; return 1; }
}
t "module tool files keep no #if: kernel differences are in module/compat/" t_no_if

echo "1..$n"
if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
