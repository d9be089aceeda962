#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# oomkill: a workload in a memcg without swap grows until the OOM killer
# kills it.  The record must name it, the test cgroup and the numbers the
# kernel itself logged, and oom_kills must move with /proc/vmstat oom_kill
# (before 4.13, which has none, with the kernel log's "Killed process").
. "$(dirname "$0")/lib.sh"
need_root

LIMIT_MB=32 ADJ=500
CG=/sys/fs/cgroup/mstest-oom
PAGE=$(getconf PAGESIZE)

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -n "${evpid:-}" ] && kill "$evpid" 2>/dev/null
	[ -n "${lapid:-}" ] && kill "$lapid" 2>/dev/null
	rmdir "$CG" 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT

echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG && echo ${LIMIT_MB}M > $CG/memory.max; } || lacks "the cgroup2 memory controller"
# No swap for the memcg: memory.swap.max 0, where any swap is on.  Not
# written without swap: RHEL 8.10's 4.18 keeps swap's and memsw's
# counters in one union but its mem_cgroup_get_max() still reads
# memsw.max, so memory.swap.max 0 makes its own OOM totalpages 1, which
# memscope reports as the kernel has it (module/compat/NOTES.md).
[ -e $CG/memory.swap.max ] && [ "$(wc -l < /proc/swaps)" -gt 1 ] && echo 0 > $CG/memory.swap.max

ms_load
for p in oom_kill oom_mark_victim; do
	[ "$(probe_state $p)" = attached ] || fail "$p probe: $(grep "^$p " $D/probes)"
done

mono_ns() { awk '/^now at/ { print $3; exit }' /proc/timer_list; }
k0=$(ms_stat oom_kills) v0=$(oom_kills_truth)
# The load average changes every 5 s, and a TCG guest on a busy host can
# take longer than that from here to the end: sample it all along.
while :; do cat /proc/loadavg; sleep 0.2; done > /tmp/oom-loadavg &
lapid=$!
la0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(mono_ns)
cat $D/events > /tmp/oom-events &
evpid=$!
sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/oom_hog $ADJ 1024" > /tmp/oom-hog.out 2>&1 &
hog=$!
wait $hog
rc=$?
t1=$(mono_ns)
la1=$(cut -d' ' -f1-3 /proc/loadavg)
lastpid1=$(cut -d' ' -f5 /proc/loadavg)
kill $lapid; wait $lapid 2>/dev/null; lapid=
k1=$(ms_stat oom_kills) v1=$(oom_kills_truth)
sleep 1
kill $evpid; evpid=
sed 's/^/oom_hog: /' /tmp/oom-hog.out | while read -r l; do diag "$l"; done
expect_eq "oom_hog exit status (SIGKILL)" $rc 137
expect_eq "oom_hog pid as it printed it" "$(awk '{ print $2; exit }' /tmp/oom-hog.out)" $hog

expect_eq "oom_kills delta vs $OOM_TRUTH delta" $((k1 - k0)) $((v1 - v0))
expect_eq "oom_kills delta (one workload, killed once)" $((k1 - k0)) 1
expect_eq "records in oom" "$(grep -c . $D/oom)" 1
rec=$(tail -n 1 $D/oom)
# dash's echo would expand the \040 escapes: printf.
printf '# oom: %s\n' "$rec"
f() { printf '%s\n' "$rec" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# What the kernel logged about this kill.
klog=$(dmesg)
killed=$(echo "$klog" | grep "Killed process $hog " | tail -n 1)
[ -n "$killed" ] || fail "no 'Killed process $hog' in the kernel log"
diag "kernel: ${killed#*\] }"
kv() { echo "$killed" | sed -n "s/.*[ ,]$1:\([0-9-]*\).*/\1/p"; }
invoked=$(echo "$klog" | grep "invoked oom-killer:" | tail -n 1)
diag "kernel: ${invoked#*\] }"
kcomm=$(echo "$invoked" | sed -n 's/^\[[^]]*\] *\(.*\) invoked oom-killer:.*/\1/p')
kgfp=$(echo "$invoked" | sed -n 's/.*gfp_mask=\(0x[0-9a-f]*\).*/\1/p')
kgfpnames=$(echo "$invoked" | sed -n 's/.*gfp_mask=0x[0-9a-f]*(\([^)]*\)).*/\1/p')
korder=$(echo "$invoked" | sed -n 's/.*order=\([0-9-]*\).*/\1/p')
# The dump's "CPU: N PID: P Comm: ..." line follows "invoked oom-killer:",
# next to it, or (4.19) after a "cpuset=... mems_allowed=..." line.
kpid=$(echo "$klog" | grep -A2 "invoked oom-killer:" | sed -n 's/.* PID: \([0-9]*\) .*/\1/p' | tail -n 1)
# The memcg whose limit was hit: "oom-kill:constraint=...,oom_memcg=M,..."
# from 4.20; before, "Task in T killed as a result of limit of M".
kmemcg=$(echo "$klog" | grep "oom-kill:constraint=" | tail -n 1 | sed -n 's/.*oom_memcg=\([^,]*\).*/\1/p')
[ -n "$kmemcg" ] || kver_ge 4 20 ||
	kmemcg=$(echo "$klog" | grep "killed as a result of limit of" | tail -n 1 | sed -n 's/.* limit of \(.*\)$/\1/p')

expect_eq "victim_pid" "$(f victim_pid)" $hog
expect_eq "victim_pid vs kernel log" "$(f victim_pid)" "$(echo "$killed" | sed -n 's/.*Killed process \([0-9]*\) .*/\1/p')"
expect_eq "victim_comm" "$(f victim_comm)" oom_hog
expect_eq "trigger_pid vs kernel log" "$(f trigger_pid)" "$kpid"
expect_eq "trigger_comm vs kernel log" "$(f trigger_comm)" "$kcomm"
expect_eq "memcg" "$(f memcg)" /mstest-oom
expect_eq "memcg vs kernel log" "$(f memcg)" "$kmemcg"
expect_eq "pages (memory.max, no swap)" "$(f pages)" $((LIMIT_MB * 1024 * 1024 / PAGE))
expect_eq "order vs kernel log" "$(f order)" "$korder"
expect_eq "gfp_mask vs kernel log" "$(f gfp_mask)" "$kgfp"
expect_eq "gfp_flags vs kernel log" "$(f gfp_flags)" "$kgfpnames"
# The RSS comes from the mark_victim tracepoint that passes the task (6.9,
# and backports such as Debian's 6.1): its format lists anon_rss.  Before
# that (5.10, RHEL 8) no probe can reach the victim's mm safely, and the
# fields must say "-" (unknown), never a guess.
fmt=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -r $d/events/oom/mark_victim/format ] && { fmt=$d/events/oom/mark_victim/format; break; }
done
# Before 4.13 there is no such event: the probe is a kprobe on
# mark_oom_victim(task), which knows the task.
target=$(awk '$1 == "oom_mark_victim" { print $2 }' $D/probes)
[ -n "$fmt" ] || [ "$target" = mark_oom_victim ] || fail "no oom/mark_victim format in tracefs"
if [ "$target" = mark_oom_victim ] || grep -q anon_rss "$fmt"; then
	expect_eq "anon_rss_kb vs kernel log" "$(f anon_rss_kb)" "$(kv anon-rss)"
	expect_eq "file_rss_kb vs kernel log" "$(f file_rss_kb)" "$(kv file-rss)"
	expect_eq "shmem_rss_kb vs kernel log" "$(f shmem_rss_kb)" "$(kv shmem-rss)"
	# The victim's memory is what filled the memcg: most of memory.max is anon.
	expect_ge "anon_rss_kb (most of memory.max)" "$(f anon_rss_kb)" $((LIMIT_MB * 1024 / 2))
else
	diag "mark_victim(pid) on this kernel: the RSS is not known"
	for k in anon_rss_kb file_rss_kb shmem_rss_kb; do
		expect_eq "$k (unknown)" "$(f $k)" -
	done
fi
expect_eq "oom_score_adj (set by oom_hog)" "$(f oom_score_adj)" $ADJ
kadj=$(kv oom_score_adj)
# Older kernels' (4.19's) "Killed process" line has no oom_score_adj; the
# dump's task table has it, next to last in the victim's row.
[ -n "$kadj" ] || kver_ge 5 10 ||
	kadj=$(echo "$klog" | grep -E "\[ *$hog\] " | awk '$NF == "oom_hog" { v = $(NF - 1) } END { print v }')
expect_eq "oom_score_adj vs kernel log" "$(f oom_score_adj)" "$kadj"
expect_eq "confirmed by mark_victim" "$(f confirmed)" 1
tns=$(f time_ns)
expect_ge "time_ns after start" "$tns" "$t0"
expect_ge "time_ns before end" "$t1" "$tns"
# loadavg: /proc/loadavg's five fields at the kill, joined by commas.
la=$(f loadavg)
printf '%s\n' "$la" | grep -Eqx '[0-9]+\.[0-9]{2}(,[0-9]+\.[0-9]{2}){2},[0-9]+/[0-9]+,[0-9]+' ||
	fail "loadavg: '$la' is not 5 comma-separated fields"
avg=$(printf '%s\n' "$la" | cut -d, -f1-3 | tr , ' ')
[ "$avg" = "$la0" ] || [ "$avg" = "$la1" ] || cut -d' ' -f1-3 /tmp/oom-loadavg | grep -qxF "$avg" ||
	fail "loadavg: got '$avg', want one of /proc/loadavg's: $(cut -d' ' -f1-3 /tmp/oom-loadavg | uniq | tr '\n' ',')"
# running/threads: within what /proc/loadavg showed around the kill (the
# sampler's own cat and sleep come and go), and last_pid between the
# victim's fork and the first read after the kill.
running=$(printf '%s\n' "$la" | cut -d, -f4 | cut -d/ -f1)
threads=$(printf '%s\n' "$la" | cut -d, -f4 | cut -d/ -f2)
lastpid=$(printf '%s\n' "$la" | cut -d, -f5)
tmin=$(cut -d' ' -f4 /tmp/oom-loadavg | cut -d/ -f2 | sort -n | head -n 1)
tmax=$(cut -d' ' -f4 /tmp/oom-loadavg | cut -d/ -f2 | sort -n | tail -n 1)
expect_ge "loadavg threads (/proc/loadavg's least, less the sampler's 3)" "$threads" $((tmin - 3))
expect_ge "loadavg threads (/proc/loadavg's most, with the sampler's 3)" $((tmax + 3)) "$threads"
expect_ge "loadavg running (the trigger runs)" "$running" 1
expect_ge "loadavg running <= threads" "$threads" "$running"
expect_ge "loadavg last_pid (the victim was forked before)" "$lastpid" $hog
expect_ge "loadavg last_pid (no later than after the kill)" "$lastpid1" "$lastpid"
diag "loadavg: $la (/proc/loadavg: threads $tmin..$tmax, last_pid after $lastpid1)"
[ "$(grep '^oom ' /tmp/oom-events)" = "oom $rec" ] ||
	fail "events stream: $(grep -c '^oom ' /tmp/oom-events) oom lines, not the record"
diag "events stream: the same record"
exit 0
