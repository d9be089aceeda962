# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (sourced).  Each tests/guest/*.sh is one kselftest
# style test: it prints diagnostics as "# ..." lines and exits 0 (pass),
# 1 (fail) or 4 (skip, with the reason as its last "# SKIP ..." line).
# tests/guest/run.sh runs them inside a vm-run guest and reports TAP.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
REL=$(uname -r)
KO=$TOP/build/$REL/memscope.ko
D=/sys/kernel/debug/memscope
# shellcheck disable=SC2034 # used by the tests that source this file
W=$TOP/build/workloads
# shellcheck disable=SC2034 # used by the tests that source this file
CLI=$TOP/userspace/memscope

# printf, not echo: dash's echo would expand the \040 escapes in fields.
diag() { printf '# %s\n' "$*"; }
fail() { printf '# FAIL: %s\n' "$*"; exit 1; }
skip() { printf '# SKIP %s\n' "$*"; exit 4; }

# ms_loaded: memscope is in /proc/modules (no program run: under TCG each
# one costs tens of milliseconds, and the unload tests ask every cycle).
ms_loaded() {
	while read -r _m _; do
		[ "$_m" = memscope ] && return 0
	done < /proc/modules
	return 1
}
# ms_load [params...]: load the module built for this kernel.
# shellcheck disable=SC2120 # the parameters are optional
ms_load() {
	ms_loaded && rmmod memscope
	insmod "$KO" "$@" || fail "insmod $KO $* failed"
}
ms_unload() { ms_loaded && rmmod memscope; }
# nlines FILE: sets $nlines to FILE's number of lines, without a program.
nlines() {
	nlines=0
	while IFS= read -r _l; do nlines=$((nlines + 1)); done < "$1"
}
# ms_stat KEY: a counter from the stats file.
ms_stat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) exit 1 }' $D/stats; }
# ms_stat_settled KEY SECONDS: KEY's value once it has not moved for a
# second; fails (returns 1) if it is still moving after SECONDS.
ms_stat_settled() {
	_v=$(ms_stat "$1") _t=0
	while sleep 1; _c=$(ms_stat "$1"); [ "$_c" != "$_v" ]; do
		_v=$_c _t=$((_t + 1))
		[ $_t -lt "$2" ] || return 1
	done
	echo "$_v"
}
# vmstat KEY: a counter from /proc/vmstat (0 if absent).
vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
# oom_kills_truth: the kernel's own count of OOM kills, /proc/vmstat
# oom_kill; before 4.13, which has none, its log's "Killed process" lines.
# OOM_TRUTH names which.
# shellcheck disable=SC2034 # for the tests that source this
if grep -q '^oom_kill ' /proc/vmstat; then
	oom_kills_truth() { vmstat oom_kill; }
	OOM_TRUTH="vmstat oom_kill"
else
	oom_kills_truth() { dmesg | grep -c 'Killed process'; }
	OOM_TRUTH="the kernel log's 'Killed process' lines (no vmstat oom_kill before 4.13)"
fi
# vmstat_sum PREFIX: the sum of /proc/vmstat counters starting with PREFIX.
vmstat_sum() { awk -v p="$1" 'index($1, p) == 1 { s += $2 } END { print s + 0 }' /proc/vmstat; }
# snap FILE: the module's stats and /proc/vmstat read by one process, so
# that no reader's own page faults fall between the two.
snap() { cat $D/stats /proc/vmstat > "$1"; }
# snap_get FILE KEY
snap_get() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# kver_ge MAJOR MINOR: the running kernel is at least MAJOR.MINOR.
kver_ge() {
	# shellcheck disable=SC2046 # split the release into its numbers
	set -- "$1" "$2" $(uname -r | tr '.-' '  ')
	[ "$3" -gt "$1" ] || { [ "$3" -eq "$1" ] && [ "$4" -ge "$2" ]; }
}
# probe_state NAME: the state column of the probes file.
probe_state() { awk -v n="$1" '$1 == n { print $3 }' $D/probes; }
# sb_shrinker: the function that names the superblock shrinker (every
# superblock's dentries and inodes) in the shrinkers table: its
# scan_objects, super_cache_scan, from 3.12; before (RHEL 7's 3.10) its
# single shrink callback, prune_super.
sb_shrinker() {
	if grep -q ' super_cache_scan$' /proc/kallsyms; then
		echo super_cache_scan
	elif grep -q ' prune_super$' /proc/kallsyms; then
		echo prune_super
	else
		fail "neither super_cache_scan nor prune_super in /proc/kallsyms"
	fi
}
# no_compaction_tp: true when the kernel has no mm_compaction_begin/end
# tracepoints (3.16 added them; RHEL 7's 3.10 has none), false when both
# compaction probes are attached; any other state fails.  Without the
# tracepoints both probes must say unavailable:no_compaction_tracepoints,
# and tracefs must have no mm_compaction_end either.  The module loaded.
# shellcheck disable=SC2034 # used by the tests that source this file
COMPACTION_TP="the mm_compaction_begin/end tracepoints (Linux 3.16+)"
no_compaction_tp() {
	_cb=$(probe_state compaction_begin) _ce=$(probe_state compaction_end)
	[ "$_cb $_ce" = "attached attached" ] && return 1
	[ "$_cb $_ce" = "unavailable:no_compaction_tracepoints unavailable:no_compaction_tracepoints" ] ||
		fail "compaction probes: compaction_begin $_cb, compaction_end $_ce"
	for _tr in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ ! -e $_tr/events/compaction/mm_compaction_end ] ||
			fail "compaction probes $_ce, but $_tr has mm_compaction_end"
	done
	return 0
}
# has_tp CATEGORY/EVENT: the kernel has that tracepoint (tracefs, mounted
# where the kernel puts it).  For the probes whose place depends on what
# the kernel has, not on its version: RHEL 9.6's 5.14 has 6.1's slab
# events.
has_tp() {
	[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e "/sys/kernel/tracing/events/$1" ] || [ -e "/sys/kernel/debug/tracing/events/$1" ]
}
# compact_refused OUT: memscope compact's output OUT, on a kernel without
# those tracepoints, says why it has nothing to show.
compact_refused() {
	grep -qF 'compact has no data: probe compaction_begin (mm_compaction_begin) is unavailable on this kernel: no_compaction_tracepoints' "$1"
}
# optin_leases TOOL FAMILY PROBE ARGS...: with FAMILY off, `memscope TOOL
# ARGS` (ARGS that end it by themselves) turns FAMILY on for its run and
# off again once it ends; from a copy of the files, where nothing can be
# leased, it says how to turn FAMILY on instead, and fails.
optin_leases() {
	_tool=$1 _family=$2 _probe=$3
	shift 3
	expect_eq "probe $_probe before memscope $_tool" "$(probe_state "$_probe")" disabled
	# shellcheck disable=SC2086 # TOOL may be "faults --stacks"
	"$CLI" $_tool "$@" > /tmp/optin.out 2>&1 ||
		fail "memscope $_tool $* with $_family off: $(cat /tmp/optin.out)"
	expect_eq "probe $_probe after memscope $_tool $* ended" "$(probe_state "$_probe")" disabled
	rm -rf /tmp/optin.dir
	mkdir /tmp/optin.dir || fail "mkdir /tmp/optin.dir"
	cp $D/version $D/probes $D/stats /tmp/optin.dir/ || fail "copy $D"
	# shellcheck disable=SC2086
	"$CLI" --dir /tmp/optin.dir $_tool "$@" > /tmp/optin.out 2>&1 &&
		fail "memscope --dir COPY $_tool ran with $_family off"
	grep -q "$_family is off: .*echo enable $_family > /tmp/optin.dir/control" /tmp/optin.out ||
		fail "memscope --dir COPY $_tool does not say how to enable $_family: $(cat /tmp/optin.out)"
}
# table_col FILE PID COL [COMM]: column COL (1-based, after pid and comm)
# of FILE's rows for PID (and COMM: a process that execs has a row per name).
table_col() {
	awk -v p="$2" -v c="$3" -v n="${4:-}" '!/^#/ && $1 == p && (n == "" || $2 == n) {
		s += $(2 + c) } END { print s + 0 }' "$D/$1"
}
# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got $2, want $3"
	diag "$1: $2 (want $3)"
}
# pgfault_skips_retries: /proc/vmstat pgfault leaves out the calls that
# return VM_FAULT_RETRY (53156443a30b, 6.4, with per-VMA locks; RHEL 9.6's
# 5.14 has both, so the version cannot tell).
pgfault_skips_retries() {
	kver_ge 6 4 || grep -q ' lock_vma_under_rcu$' /proc/kallsyms
}
# expect_pgfault WHAT GOT PGFAULT RETRIES: a faults_by_cgroup row (GOT)
# against its memcg's memory.stat pgfault, v2's or v1's (read 3 s after
# the faults: memory.stat is flushed from per-CPU counters every 2 s);
# RETRIES, faults_retry's move meanwhile.
expect_pgfault() {
	if pgfault_skips_retries; then
		# From 6.4 a call that returns VM_FAULT_RETRY is not counted in
		# pgfault (mm_account_fault()); its retry is.  faults counts calls
		# (but attempts under the VMA lock alone).
		diag "$1: ${2:-0}, memory.stat pgfault $3, retries (all) $4"
		{ [ "${2:-0}" -ge "$3" ] && [ "${2:-0}" -le $(($3 + $4)) ]; } ||
			fail "$1: ${2:-0}, want pgfault $3 + at most $4 retries"
	elif kver_ge 5 13; then
		expect_eq "$1 (memory.stat pgfault)" "${2:-0}" "$3"
	else
		# Before 5.13 (rstat, 2d146aa3aa84), memory.stat shows only what
		# each CPU has passed up in batches of MEMCG_CHARGE_BATCH (32)
		# events: up to 32 per CPU less than happened, and never more.
		_lag=$((32 * $(nproc)))
		diag "$1: ${2:-0}, memory.stat pgfault $3 (lags by at most $_lag)"
		{ [ "${2:-0}" -ge "$3" ] && [ "${2:-0}" -le $(($3 + _lag)) ]; } ||
			fail "$1: ${2:-0}, want pgfault $3 + at most $_lag in per-CPU batches"
	fi
}
# expect_within WHAT GOT WANT PERCENT: |got - want| <= want * percent / 100
expect_within() {
	awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN {
		d = g - w; if (d < 0) d = -d
		exit !(d <= w * p / 100) }' ||
		fail "$1: got $2, want $3 within $4%"
	diag "$1: $2 (want $3 +-$4%)"
}
# expect_ge WHAT GOT MIN
expect_ge() {
	[ "$2" -ge "$3" ] || fail "$1: got $2, want >= $3"
	diag "$1: $2 (want >= $3)"
}
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
# lacks FEATURE: skip, naming a kernel feature this kernel does not have.
# make check allows no such skip (Debian's kernels have them all); make
# check-old, on kernels built from older sources, allows exactly these.
lacks() { skip "kernel lacks $*"; }
# need_lockdown: securityfs mounted at $SEC with the lockdown LSM's file,
# a "kernel lacks" skip before 5.4 (no lockdown LSM), a failure after.
SEC=/sys/kernel/security
need_lockdown() {
	[ -d $SEC ] || kver_ge 5 4 || lacks "the lockdown LSM (Linux 5.4+) and securityfs"
	# systemd mounts securityfs on a real host; the guest's init does not.
	[ -e $SEC/lockdown ] || mount -t securityfs securityfs $SEC || fail "cannot mount securityfs"
	[ -e $SEC/lockdown ] || { kver_ge 5 4 && fail "no $SEC/lockdown: kernel without the lockdown LSM"; }
	[ -e $SEC/lockdown ] || lacks "the lockdown LSM (Linux 5.4+)"
}
# zram_swap SIZE: swap on a zram device of this test's own (hot_add, so
# that an earlier test's zram0 does not matter); sets $zdev.  Returns 1
# when the kernel has no zram (the caller says what that means for it).
zdev=''
zram_swap() {
	{ modprobe zram 2>/dev/null && [ -e /sys/class/zram-control/hot_add ]; } || return 1
	zdev=zram$(cat /sys/class/zram-control/hot_add)
	{ echo "$1" > "/sys/block/$zdev/disksize" && mkswap "/dev/$zdev" > /dev/null &&
		swapon "/dev/$zdev"; } || fail "zram swap on $zdev"
}
# zram_swap_off: undo zram_swap, if it ran (for EXIT traps).
zram_swap_off() {
	[ -n "$zdev" ] || return 0
	swapoff "/dev/$zdev" 2>/dev/null
	echo "${zdev#zram}" > /sys/class/zram-control/hot_remove 2>/dev/null
	zdev=
}
# has_open PID PATH: one of process PID's descriptors is PATH (same device
# and inode: test's -ef follows /proc/PID/fd's links), without a program.
has_open() {
	for _f in "/proc/$1/fd/"*; do
		# shellcheck disable=SC3013 # dash, the guest's sh, has -ef
		[ "$_f" -ef "$2" ] && return 0
	done
	return 1
}
# wait_open PID PATH SECONDS WHAT: until process PID has PATH open, so that
# what a test does next meets it there.  Fails, naming WHAT, if PID exits
# first (with /tmp/reader.err, its stderr by convention) or after SECONDS.
wait_open() {
	_t=0
	until has_open "$1" "$2"; do
		kill -0 "$1" 2>/dev/null ||
			fail "$4: reader of $2 exited before opening it: $(cat /tmp/reader.err 2>/dev/null)"
		_t=$((_t + 1))
		[ $_t -le $(($3 * 10)) ] || fail "$4: reader did not open $2 in $3 s"
		sleep 0.1
	done
}
# wait_gone PID SECONDS WHAT: until process PID has exited (a blocked
# reader the unload must run down), then reaps it.  Fails after SECONDS.
wait_gone() {
	_t=0
	while kill -0 "$1" 2>/dev/null; do
		_t=$((_t + 1))
		[ $_t -le $(($2 * 10)) ] || fail "$3: reader $1 still blocked $2 s after the unload"
		sleep 0.1
	done
	wait "$1"
}
# nl_groups_absent: the kernel cannot keep netlink groups to CAP_SYS_ADMIN
# (4.9.337, RHEL 7, 5.2 to 5.4 before the backport, RHEL 9.0), so the
# module registered none, as it says in the kernel log at each load; monitor
# reads the events file there.
nl_groups_absent() {
	dmesg | grep -q 'memscope: this kernel cannot keep netlink groups to CAP_SYS_ADMIN'
}
# monitor_start [ARG...]: `memscope monitor -j ARG...` into /tmp/mon.out ($mpid, stderr in
# /tmp/mon.err), once it has joined the groups (or opened the events file):
# when a compaction we cause reaches it (without compaction events, once it
# has the events file open).  Without groups it must say, in
# one note, that it reads the events file; with them, nothing.
monitor_start() {
	"$CLI" monitor -j "$@" > /tmp/mon.out 2> /tmp/mon.err &
	mpid=$!
	_t=0
	if no_compaction_tp; then
		# No compaction to cause (RHEL 7's 3.10): such kernels have no
		# netlink groups either, and monitor, which reads the events
		# file instead, is ready once it has that file open.
		nl_groups_absent || fail "no compaction events, and netlink groups: cannot tell when monitor joined them"
		wait_open "$mpid" $D/events 10 "monitor"
	else
		until grep -q '"type":"compaction"' /tmp/mon.out; do
			kill -0 "$mpid" 2>/dev/null || fail "monitor exited: $(cat /tmp/mon.err)"
			_t=$((_t + 1))
			[ $_t -le 50 ] || fail "monitor showed no compaction in 10 s: $(cat /tmp/mon.err)"
			echo 1 > /proc/sys/vm/compact_memory
			sleep 0.2
		done
	fi
	nlines /tmp/mon.err
	if nl_groups_absent; then
		{ [ "$nlines" = 1 ] && grep -q '^Note: the netlink family memscope has no event groups on this kernel .* events come from /sys/kernel/debug/memscope/events instead' /tmp/mon.err; } ||
			fail "monitor without netlink groups: want one note that it reads the events file, got: $(cat /tmp/mon.err)"
		diag "no netlink groups on this kernel: $(cat /tmp/mon.err)"
	else
		[ "$nlines" = 0 ] || fail "monitor's stderr: $(cat /tmp/mon.err)"
	fi
}
# monitor_count [PID]: monitor's events so far, as "reclaims lost
# reclaims_by_PID oom_victims...".  A loss of "unknown" size fails.
monitor_count() {
	python3 -c 'import json, sys
rec = lost = mine = 0
victims = []
for line in open("/tmp/mon.out"):
    e = json.loads(line)
    if e["type"] == "direct_reclaim":
        rec += 1
        mine += e["pid"] == int(sys.argv[1])
    elif e["type"] == "lost":
        lost += int(e["count"])
    elif e["type"] == "oom":
        victims.append(str(e["victim_pid"]))
print(rec, lost, mine, " ".join(victims))' "${1:-0}"
}
# monitor_stop WANT WORDS [PID]: once monitor has shown or lost WANT
# reclaims and monitor_count says WORDS words (4: an OOM victim too), or
# 10 s passed, SIGINT; it must exit 0.  The module sends from a work item:
# it may lag a little.
monitor_stop() {
	_want=$1 _words=$2 _t=0
	# shellcheck disable=SC2046 # monitor_count's words
	while set -- $(monitor_count "${3:-0}"); [ $(($1 + $2)) -lt "$_want" ] || [ $# -lt "$_words" ]; do
		_t=$((_t + 1))
		[ $_t -le 50 ] || break
		sleep 0.2
	done
	kill -INT "$mpid"
	wait "$mpid"
	expect_eq "monitor exit status on SIGINT" $? 0
	mpid=
}
trap 'ms_unload 2>/dev/null' EXIT
