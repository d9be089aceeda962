#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# oomkill in a storm: memcg OOM kills one after another while a second
# memcg's reclaims flood the events stream that the kills share.  A
# `memscope oomkill` that falls behind (stopped for the first half, as a
# busy reader is) must still print every kill the kernel logged ("Killed
# process PID"), each once, and the oom ring, sized by oom_ring_size, must
# hold them all.  Before the fix the reclaims overwrote the stream's 256
# entries and the kills with them: the stream said "lost", and the oom
# ring, fixed at 64, had no way back to them.
. "$(dirname "$0")/lib.sh"
need_root
st=$(date +%s)
[ -x "$CLI" ] || fail "no CLI at $CLI (make cli)"
KILLS=16 LIMIT_MB=8 ORING=32
CG=/sys/fs/cgroup/mstest-storm-oom
RCG=/sys/fs/cgroup/mstest-storm-reclaim

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	for p in ${okpid:-} ${nkpid:-}; do
		kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null
	done
	[ -n "${flood:-}" ] && kill "$flood" 2>/dev/null
	[ -n "${kmsg:-}" ] && kill "$kmsg" 2>/dev/null
	[ -n "${printk:-}" ] && echo "$printk" > /proc/sys/kernel/printk
	[ -n "${dump:-}" ] && echo "$dump" > /proc/sys/vm/oom_dump_tasks
	sleep 0.2
	rmdir "$CG" "$RCG" 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT

echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG $RCG && echo ${LIMIT_MB}M > $CG/memory.max && echo 2M > $RCG/memory.max; } ||
	lacks "the cgroup2 memory controller"
[ -e $CG/memory.swap.max ] && echo 0 > $CG/memory.swap.max

ms_load oom_ring_size=$ORING
expect_eq "version: oom_ring_size" "$(sed -n 's/^oom_ring_size //p' $D/version)" $ORING
for p in oom_kill oom_mark_victim memcg_reclaim_begin memcg_reclaim_end; do
	[ "$(probe_state $p)" = attached ] || fail "$p probe: $(grep "^$p " $D/probes)"
done
readers=
nl=
"$CLI" --netlink status > /tmp/storm-nl.out 2>&1 && nl=1
[ -n "$nl" ] || diag "no netlink (skipping oomkill --netlink): $(head -n 1 /tmp/storm-nl.out)"

# Each kill's report, on a serial console under TCG, would take longer
# than the kill: the log keeps it, the console does not show it.  The log
# is read as it comes (dmesg -w), so no report pushes an older one out.
printk=$(cut -f1 < /proc/sys/kernel/printk)
dump=$(cat /proc/sys/vm/oom_dump_tasks)
echo 1 > /proc/sys/kernel/printk
echo 0 > /proc/sys/vm/oom_dump_tasks
dmesg -w > /tmp/storm-kmsg 2>&1 &
kmsg=$!
sleep 0.5
s_kmsg=$(date +%s)
skip0=$(grep -c 'Killed process' /tmp/storm-kmsg)

# The flood: the module's file (megabytes, with its debug information)
# read again and again through 2 MB of page cache.
sh -c "echo \$\$ > $RCG/cgroup.procs && while :; do cat $KO > /dev/null; done" &
flood=$!
m0=$(ms_stat memcg_reclaim_count) k0=$(ms_stat oom_kills) v0=$(oom_kills_truth)
l0=$(ms_stat events_lost)

"$CLI" oomkill > /tmp/storm-oomkill.out 2> /tmp/reader.err &
okpid=$!
wait_open $okpid $D/events 20 "memscope oomkill"
s_open=$(date +%s)
if [ -n "$nl" ]; then
	"$CLI" --netlink oomkill > /tmp/storm-nloomkill.out 2> /tmp/storm-nloomkill.err &
	nkpid=$!
	# Joined once it printed its banner, after it read the oom ring.
	t=0
	until grep -q Tracing /tmp/storm-nloomkill.out; do
		t=$((t + 1)); [ $t -le 200 ] || fail "oomkill --netlink did not start: $(cat /tmp/storm-nloomkill.err)"
		sleep 0.1
	done
fi
readers="$okpid ${nkpid:-}"
# shellcheck disable=SC2086 # one or two pids
kill -STOP $readers

: > /tmp/storm-hogs
s0=$(date +%s)
i=0
while [ $i -lt $KILLS ]; do
	# shellcheck disable=SC2086 # one or two pids
	[ $i = $((KILLS / 2)) ] && kill -CONT $readers
	sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/oom_hog 0 1024" >> /tmp/storm-hogs 2> /dev/null
	rc=$?
	[ $rc = 137 ] || fail "oom_hog $((i + 1)): exit status $rc, not 137 (SIGKILL)"
	i=$((i + 1))
done
m1=$(ms_stat memcg_reclaim_count)
s1=$(date +%s)
kill "$flood"; wait "$flood" 2>/dev/null; flood=

# Until oomkill printed every kill, or 20 s.
t=0
while [ "$(grep -c 'OOM kill of PID' /tmp/storm-oomkill.out)" -lt $KILLS ] ||
      { [ -n "$nl" ] && [ "$(grep -c 'OOM kill of PID' /tmp/storm-nloomkill.out)" -lt $KILLS ]; }; do
	t=$((t + 1)); [ $t -le 100 ] || break
	sleep 0.2
done
s2=$(date +%s)
# shellcheck disable=SC2086 # one or two pids
kill -INT $readers
wait $okpid; rc=$?; okpid=
expect_eq "memscope oomkill exit status (SIGINT)" $rc 0
if [ -n "$nl" ]; then
	wait "$nkpid"; rc=$?; nkpid=
	expect_eq "memscope --netlink oomkill exit status (SIGINT)" $rc 0
fi
sleep 0.5
kill "$kmsg"; wait "$kmsg" 2>/dev/null; kmsg=
echo "$printk" > /proc/sys/kernel/printk; printk=
echo "$dump" > /proc/sys/vm/oom_dump_tasks; dump=

k1=$(ms_stat oom_kills) v1=$(oom_kills_truth) l1=$(ms_stat events_lost)
diag "set up in $((s0 - st)) s (log followed at $((s_kmsg - st)), oomkill open at $((s_open - st))), $KILLS kills in $((s1 - s0)) s, printed $((s2 - s1)) s later; memcg reclaims $((m1 - m0)) meanwhile; events_lost $l0 -> $l1;" \
	"events_oom_recovered $(ms_stat events_oom_recovered) events_oom_lost $(ms_stat events_oom_lost)"
diag "oomkill: $(sort -u /tmp/reader.err | tr '\n' ' ')"
[ -n "$nl" ] && diag "oomkill --netlink: $(sort -u /tmp/storm-nloomkill.err | tr '\n' ' ')" &&
	diag "netlink_dropped $(ms_stat netlink_dropped)"
# The storm must have overrun the stream, or this tested nothing.
expect_ge "events_lost delta (the flood overran the stream)" $((l1 - l0)) 1
expect_eq "oom_kills delta vs $OOM_TRUTH delta" $((k1 - k0)) $((v1 - v0))
expect_eq "oom_kills delta" $((k1 - k0)) $KILLS

# Ground truth: the victims the kernel logged, against the hogs that ran.
grep 'Killed process' /tmp/storm-kmsg | tail -n +$((skip0 + 1)) |
	sed -n 's/.*Killed process \([0-9]*\) .*/\1/p' | sort > /tmp/storm-truth
awk '{ print $2 }' /tmp/storm-hogs | sort > /tmp/storm-want
expect_eq "victims in the kernel log" "$(grep -c . /tmp/storm-truth)" $KILLS
expect_eq "victims in the kernel log are the hogs" "$(tr '\n' ' ' < /tmp/storm-truth)" \
	"$(tr '\n' ' ' < /tmp/storm-want)"

check_printed() {	# check_printed FILE WHAT
	sed -n 's/.*OOM kill of PID \([0-9]*\) .*/\1/p' "$1" | sort > /tmp/storm-got
	missed=$(comm -23 /tmp/storm-truth /tmp/storm-got | tr '\n' ' ')
	twice=$(uniq -d /tmp/storm-got | tr '\n' ' ')
	diag "$2 printed $(grep -c . /tmp/storm-got) kills; missed: ${missed:-none}; twice: ${twice:-none}"
	expect_eq "$2: the kernel log's victims, each once" "$(tr '\n' ' ' < /tmp/storm-got)" \
		"$(tr '\n' ' ' < /tmp/storm-truth)"
}
check_printed /tmp/storm-oomkill.out "memscope oomkill"
[ -n "$nl" ] && check_printed /tmp/storm-nloomkill.out "memscope --netlink oomkill"

# The oom ring holds them all, numbered one after another.
sed -n 's/.* victim_pid=\([0-9]*\) .*/\1/p' $D/oom | sort > /tmp/storm-ring
expect_eq "oom ring: the kernel log's victims" "$(tr '\n' ' ' < /tmp/storm-ring)" \
	"$(tr '\n' ' ' < /tmp/storm-truth)"
seqs=$(sed -n 's/.* seq=\([0-9]*\)$/\1/p' $D/oom | tr '\n' ' ')
expect_eq "oom ring: seq 0..$((KILLS - 1))" "$seqs" "$(seq 0 $((KILLS - 1)) | tr '\n' ' ')"
expect_eq "events_oom_lost" "$(ms_stat events_oom_lost)" 0
exit 0
