#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-args: -m 256M --append psi=1
# The generic netlink family: genl_test (tests/selftests/memscope) checks
# every read command against its debugfs file, every command against a
# caller without CAP_SYS_ADMIN, and a report on the "memleak" group; then
# the "oom" group must deliver the OOM kill that the oom file and the
# kernel log name, the "reclaim" group the direct reclaims the events
# stream shows (what it missed counted in netlink_dropped), and an unload
# must be clean with a listener joined and with a dump in progress.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
S=$TOP/build/selftests/memscope
for b in genl_test msgenl; do
	[ -x "$S/$b" ] || fail "no $S/$b: make -C tests/selftests/memscope"
done
CG=/sys/fs/cgroup/mstest-genl

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	for p in ${lpid:-} ${hpid:-} ${epid:-}; do kill "$p" 2>/dev/null; done
	rmdir "$CG" 2>/dev/null
	zram_swap_off
	ms_unload 2>/dev/null
}
trap cleanup EXIT

# listen GROUP COUNT SECONDS OUT [GO]: a listener in the background
# ($lpid), once it has joined (with GO, one that reads nothing until GO
# exists: msgenl).
listen() {
	_out=$4
	set -- "$1" "$2" "$3" ${5:+"$5"}
	"$S/msgenl" listen "$@" > "$_out" 2> /tmp/genl-listen.err &
	lpid=$!
	_t=0
	until grep -q '^joined' "$_out" 2>/dev/null; do
		kill -0 $lpid 2>/dev/null || fail "listener on $1: $(cat /tmp/genl-listen.err)"
		_t=$((_t + 1))
		[ $_t -le 100 ] || fail "listener on $1 did not join in 10 s"
		sleep 0.1
	done
}
# ev FILE KEY: KEY's value in the last event line of FILE.
ev() { grep '^cmd=' "$1" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# A memleak report every 500 ms: genl_test waits for one.
ms_load memleak_report_ms=500
# Rows in the tables, enough in faults_by_pid that its dump takes more
# than one message, a stack table's frames, and memleak's sites (kept
# while its probes are off, which costs nothing for the rest).
echo enable fault_stacks > $D/control || fail "enable fault_stacks"
echo enable memleak > $D/control || fail "enable memleak"
"$W/memhog" 16 > /dev/null || fail "memhog"
echo disable memleak > $D/control || fail "disable memleak"
"$W/stacker" 30 20 7 5 < /dev/null > /dev/null || fail "stacker"
"$W/forkmany" 900 2 > /dev/null || fail "forkmany"

# Where the kernel cannot keep multicast groups to CAP_SYS_ADMIN (RHEL 7,
# 4.9, 5.2 to 5.4.y, RHEL 9.0), the module registers none and says so:
# then the commands are tested, and the groups are a "kernel lacks" skip.
nogroups=
dmesg | grep -q 'memscope: this kernel cannot keep netlink groups to CAP_SYS_ADMIN' && nogroups=1

# 1. The commands against the files, and the permission checks.
MEMSCOPE_GENL_NO_GROUPS=${nogroups:-0} "$S/genl_test" > /tmp/genl-test.out 2>&1
rc=$?
sed 's/^/genl_test: /' /tmp/genl-test.out | while IFS= read -r l; do diag "$l"; done
[ $rc -eq 0 ] || fail "genl_test exit $rc"
grep -q '^ok .* # SKIP' /tmp/genl-test.out && fail "genl_test skipped a test"

# 2. An OOM kill in a memcg, heard on "oom".
if [ -z "$nogroups" ]; then
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	{ mkdir -p $CG && echo 32M > $CG/memory.max; } || lacks "the cgroup2 memory controller"
	[ -e $CG/memory.swap.max ] && echo 0 > $CG/memory.swap.max
	listen oom 1 120 /tmp/genl-oom
	sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/oom_hog 0 1024" > /tmp/genl-hog.out 2>&1 &
	hog=$!
	wait $hog
	expect_eq "oom_hog exit status (SIGKILL)" $? 137
	wait $lpid || fail "no oom event on the oom group: $(cat /tmp/genl-oom /tmp/genl-listen.err)"
	lpid=
	rmdir $CG
	printf '# netlink: %s\n' "$(grep '^cmd=' /tmp/genl-oom)"
	rec=$(tail -n 1 $D/oom)
	f() { printf '%s\n' "$rec" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	killed=$(dmesg | grep "Killed process $hog " | tail -n 1)
	[ -n "$killed" ] || fail "no 'Killed process $hog' in the kernel log"
	expect_eq "netlink NAME of the oom group's event" "$(ev /tmp/genl-oom name)" oom
	expect_eq "netlink victim_pid vs the workload" "$(ev /tmp/genl-oom victim_pid)" $hog
	expect_eq "netlink victim_pid vs oom file" "$(ev /tmp/genl-oom victim_pid)" "$(f victim_pid)"
	for k in time_ns trigger_pid victim_comm pages order oom_score_adj memcg; do
		expect_eq "netlink $k vs oom file" "$(ev /tmp/genl-oom $k)" "$(f $k)"
	done
	expect_eq "netlink gfp_mask vs oom file" "$(printf '%#x' "$(ev /tmp/genl-oom gfp_mask)")" "$(f gfp_mask)"

	# 3. Direct reclaims heard on "reclaim": every one the events stream saw,
	# less those netlink_dropped counts.
	# reclaims OUT [GO]: two hogs past memory, with the events stream read and
	# a listener on "reclaim" writing OUT (stalled until GO, if given); both
	# start, and stop, while no reclaim runs.  Sets h1 h2 c0 c1 d0 d1 heard
	# streamed lost.
	reclaims() {
		d0=$(ms_stat netlink_dropped) c0=$(ms_stat direct_reclaim_count)
		cat $D/events > /tmp/genl-events 2> /tmp/reader.err &
		epid=$!
		wait_open $epid $D/events 10 "events"
		listen reclaim 1000000 300 "$@"
		"$W/memhog" 160 > /dev/null & h1=$!
		"$W/memhog" 160 > /dev/null & h2=$!
		wait $h1 || fail "memhog 1"
		wait $h2 || fail "memhog 2"
		c1=$(ms_stat_settled direct_reclaim_count 30) ||
			fail "direct_reclaim_count still moving 30 s after the hogs exited"
		[ $# -lt 2 ] || touch "$2"
		sleep 2
		kill $lpid $epid; wait $lpid $epid 2>/dev/null
		lpid='' epid=''
		d1=$(ms_stat netlink_dropped)
		heard=$(grep -c '^cmd=reclaim' "$1")
		streamed=$(grep -c '^direct_reclaim ' /tmp/genl-events)
		lost=$(awk '$1 == "lost" { sub("count=", "", $2); s += $2 } END { print s + 0 }' /tmp/genl-events)
		diag "direct_reclaim_count $c0 -> $c1; heard $heard, streamed $streamed (+ lost $lost), netlink_dropped $d0 -> $d1"
		expect_ge "direct reclaims" $((c1 - c0)) 1
		expect_eq "reclaim events heard + netlink_dropped vs streamed + lost" \
			$((heard + d1 - d0)) $((streamed + lost))
	}
	zram_swap 512M || lacks "zram"
	reclaims /tmp/genl-reclaim
	for h in $h1 $h2; do
		expect_ge "reclaim events of memhog $h" "$(grep -c "^cmd=reclaim .*name=direct_reclaim .* pid=$h " /tmp/genl-reclaim)" 1
	done
	# The newest one, field by field, against the ring's line of the same time.
	tns=$(ev /tmp/genl-reclaim time_ns)
	rec=$(grep "^time_ns=$tns " $D/direct_reclaim | tail -n 1)
	[ -n "$rec" ] || fail "no direct_reclaim line with time_ns=$tns"
	for k in pid comm latency_ns nr_reclaimed; do
		expect_eq "netlink $k vs direct_reclaim file" "$(ev /tmp/genl-reclaim $k)" "$(f $k)"
	done
	# Again with a listener that lets its socket fill: what it missed must be
	# in netlink_dropped, to the event.
	rm -f /tmp/genl-go
	reclaims /tmp/genl-stall /tmp/genl-go
	drops=$(sed -n 's/^drops //p' /tmp/genl-listen.err)
	diag "stalled listener: $(tr '\n' ' ' < /tmp/genl-listen.err)"
	expect_ge "netlink_dropped delta (a full socket)" $((d1 - d0)) 1
	expect_eq "netlink_dropped delta vs the socket's drops (/proc/net/netlink)" $((d1 - d0)) "$drops"
	zram_swap_off

	# 4. Unload with a listener joined: the family goes, the listener stays.
	listen reclaim 1 60 /tmp/genl-unload
	rmmod memscope || fail "rmmod with a listener joined"
	kill -0 $lpid || fail "the listener died at the unload: $(cat /tmp/genl-listen.err)"
	kill $lpid; wait $lpid 2>/dev/null; lpid=
else
	rmmod memscope || fail "rmmod"
fi

# 5. Unload with a dump in progress: the dump holds the module until its
# socket goes, then the unload succeeds and nothing runs freed code.
ms_load
"$W/memhog" 4 > /dev/null
"$S/msgenl" hold-dump faults_by_pid > /tmp/genl-hold 2>&1 &
hpid=$!
t=0
until grep -q '^held' /tmp/genl-hold; do
	kill -0 $hpid 2>/dev/null || fail "hold-dump: $(cat /tmp/genl-hold)"
	t=$((t + 1)); [ $t -le 100 ] || fail "hold-dump did not start"; sleep 0.1
done
if rmmod memscope 2> /tmp/genl-rmmod.err; then
	fail "rmmod succeeded under a dump in progress: its .done would run freed code"
fi
diag "rmmod under a dump: $(cat /tmp/genl-rmmod.err)"
kill $hpid; wait $hpid 2>/dev/null; hpid=
t=0
until rmmod memscope 2>/dev/null; do
	t=$((t + 1)); [ $t -le 50 ] || fail "rmmod still failing 5 s after the dump's socket closed"
	sleep 0.1
done
ms_loaded && fail "memscope still loaded"
diag "unloaded once the dump's socket closed"
[ -z "$nogroups" ] ||
	lacks "a way to keep netlink groups to CAP_SYS_ADMIN (GENL_MCAST_CAP_SYS_ADMIN, cap_sys_admin or mcast_bind): the commands passed, no groups to test"
exit 0
