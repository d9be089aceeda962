#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full table never goes stale (table_size=64, the smallest):
#  A. after 2,000 short-lived processes, with no reader in between, the
#     next new process still appears with its exact count: rows of exited
#     processes are reused;
#  A2. a process whose main thread exited but whose other threads run
#     keeps its unseen row through the same churn;
#  B. a table full of live, idle processes drops a new one and counts it
#     in `dropped`; once a reader has opened the table, the rows whose
#     counts it saw and that have not moved since are reused, and the next
#     new process appears with its exact count; table_reuse names every
#     running process's row so reused, and memscope faults says so;
#  C. under resets, reads and a churn of processes of two names, no row
#     ever pairs a pid with another process's name.
. "$(dirname "$0")/lib.sh"
need_root
N=3000
S=/tmp/memscope-t17
mkdir -p $S
trap 'kill $(cat $S/pids 2>/dev/null) 2>/dev/null; rm -rf $S; ms_unload' EXIT

# await PATTERN FILE WHAT: wait up to a minute for a line of FILE that
# starts with PATTERN, or fail saying WHAT did not happen.
await() {
	n=0
	until grep -q "^$1" "$2"; do
		n=$((n + 1))
		[ $n -lt 600 ] || fail "$3: $(cat "$2")"
		sleep 0.1
	done
}
# live PAGES: touch_anon touches PAGES and waits; while it lives (a live
# row is not reused: an exited one may be, by the reader's own start-up),
# print "pid faults" from its row.
live() {
	rm -f $S/fifo $S/out
	mkfifo $S/fifo
	"$W/touch_anon" "$1" -w < $S/fifo > $S/out &
	exec 4> $S/fifo
	await pid $S/out "touch_anon $1 did not finish"
	p=$(awk '{ print $2 }' $S/out)
	echo "$p $(table_col faults_by_pid "$p" 1 touch_anon)"
	echo >&4
	exec 4>&-
	wait $!
}
# exact_row WHAT: a new process touching N pages gets a row of its own
# from its first fault: no fault of it is dropped, and its row shows N
# faults beyond its start-up, that of `touch_anon 1` run just before.  A
# static binary's start-up faults move by a few from run to run (fault-
# around maps only what is cached and unlocked, a fault that finds its page
# locked is retried): 6.1-rt once measured 33 at load and 30 after 2,000
# processes, 6.12-rt 33 and then 36 for the next run.  A process that lost
# its row for a while would lose at least its start-up (~30), so +-4 still
# tells the two apart, and `dropped` must not move at all.
exact_row() {
	what=$1
	d0=$(ms_stat dropped)
	# shellcheck disable=SC2046 # split "pid faults"
	set -- $(live 1)
	base=$(($2 - 1))
	[ "$base" -gt 0 ] || fail "$what: touch_anon 1 has no row"
	# shellcheck disable=SC2046 # split "pid faults"
	set -- $(live $N)
	diag "$what: faults for N=$N: $2, start-up $base"
	expect_eq "$what: faults dropped" $(($(ms_stat dropped) - d0)) 0
	extra=$(($2 - N - base))
	{ [ "$extra" -ge -4 ] && [ "$extra" -le 4 ]; } ||
		fail "$what: faults $2, want $N + $base +-4"
}

ms_load
# shellcheck disable=SC2046 # split "pid faults"
set -- $(live 1)
base=$(($2 - 1))
[ "$base" -gt 0 ] || fail "touch_anon 1 has no row in an empty table"

# --- A: exited processes
t0=$(date +%s)
ms_load table_size=64
"$W/forkmany" 2000 2 > /dev/null || fail "forkmany failed"
reused=$(ms_stat table_reused)
diag "rows reused after 2000 processes: $reused, dropped: $(ms_stat dropped)"
expect_ge "rows reused" "$reused" 1900
exact_row "after 2000 exited processes"

diag "part A: $(($(date +%s) - t0)) s"

# --- A2: a process whose main thread exited before its other threads
# still runs (its leader is a zombie until they end).  Unseen, its row
# stays through 500 exited processes, with at least the faults its
# threads counted themselves.  (A zombie leader once made it "exited".)
t0=$(date +%s)
ms_load table_size=64
rm -f $S/fifo $S/out
mkfifo $S/fifo
"$W/touch_threads" 2 100 -l < $S/fifo > $S/out &
exec 4> $S/fifo
await pid $S/out "touch_threads 2 100 -l did not finish"
read -r _ p _ _ _ _ _ want < $S/out
n=0
until [ "$(awk '$1 == "State:" { print $2 }' "/proc/$p/status")" = Z ]; do
	n=$((n + 1))
	[ $n -lt 100 ] || fail "touch_threads -l: its main thread did not exit"
	sleep 0.1
done
"$W/forkmany" 500 2 > /dev/null || fail "forkmany failed"
kill -0 "$p" || fail "touch_threads -l ended early"
got=$(table_col faults_by_pid "$p" 1 touch_threads)
exec 4>&-
wait $!
diag "leaderless process: row $got faults, its threads counted $want; table_reused $(ms_stat table_reused)"
expect_ge "table_reused by 500 exited processes" "$(ms_stat table_reused)" 400
expect_ge "faults of a running process whose leader exited, after the churn" "$got" "$want"
diag "part A2: $(($(date +%s) - t0)) s"

# --- B: live, idle processes, then a reader
t0=$(date +%s)
ms_load table_size=64
: > $S/pids
d0=$(ms_stat dropped)
# Rows of processes that exited or exec'd (the loader's helpers, the
# shell's fork that became forkmany) may be reused: each child that starts
# once the table is full takes the first such row within its reach
# (MS_TABLE_REACH, half of these 64 rows).  The children never exec or
# exit, so they make no such row themselves, and 140 of them, the last 76
# or more with a full table, leave none: one stays only if no later
# child's reach held it, 1 in 2^76.  The test's own short-lived processes
# after that find none, take no row and leave none.  (sleep 1000 & here
# once let a stale row through on 6.12-rt: each sleep is a fork, as sh,
# that execs, which frees a row anew every time.)  So the test starts no
# process of its own while the children fill the table: it reads
# forkmany's "ready" from a fifo with the shell's own read, where await's
# grep and sleep, forked every 0.1 s, could take a row while there was
# room and free it after the last child (4.9.337 once, 6.1-rt once).
rm -f $S/hold $S/held
mkfifo $S/hold $S/held
"$W/forkmany" -w 140 1 < $S/hold > $S/held &
echo $! >> $S/pids
exec 5> $S/hold
exec 6< $S/held
read -r l <&6 || l=
[ "$l" = ready ] || fail "forkmany -w 140 did not start its children: '$l'"
# Nothing has read the table: 140 live processes left some out.
expect_ge "dropped with 140 live processes in 64 rows" $(($(ms_stat dropped) - d0)) 1
d0=$(ms_stat dropped)
# shellcheck disable=SC2046 # split "pid faults"
set -- $(live $N)
d1=$(ms_stat dropped)
expect_eq "faults of a new process in a table full of live, unread rows" "$2" 0
expect_ge "dropped for it" $((d1 - d0)) $N
# That read saw every row: the idle ones may now be reused.
expect_eq "rows in the table" "$(grep -vc '^#' $D/faults_by_pid)" 64
# The table and table_reuse as they are, read by the shell itself: a
# forked reader would be a new process, and take a row.
snap() {
	while IFS= read -r l; do echo "$l"; done < $D/faults_by_pid > "$S/rows.$1"
	while IFS= read -r l; do echo "$l"; done < $D/table_reuse > "$S/reuse.$1"
}
snap 0
exact_row "after a reader saw the full table"
snap 1
# Every idle child whose seen row made room is named in table_reuse, with
# the faults it held; the new processes' own rows, seen and reused while
# they ran, may add to that.  memscope faults says what its total lacks.
gone=$(awk 'NR == FNR { if ($1 ~ /^[0-9]+$/) after[$1] = 1; next }
	$1 ~ /^[0-9]+$/ && !after[$1] { print $1, $3 }' $S/rows.1 $S/rows.0 |
	while read -r p f; do kill -0 "$p" 2>/dev/null && echo "$p $f"; done)
ngone=$(echo "$gone" | grep -c .)
fgone=$(echo "$gone" | awk '{ s += $2 } END { print s + 0 }')
reuse() { awk -v f="$1" '$1 == "faults_by_pid" { print $f }' "$2"; }
drows=$(($(reuse 2 $S/reuse.1) - $(reuse 2 $S/reuse.0)))
devents=$(($(reuse 3 $S/reuse.1) - $(reuse 3 $S/reuse.0)))
diag "running children whose rows were reused: $ngone, holding $fgone faults; table_reuse: +$drows rows, +$devents faults"
expect_ge "running children whose rows made room" "$ngone" 1
expect_ge "table_reuse rows, against those children's" "$drows" "$ngone"
expect_ge "table_reuse events, against the faults they held" "$devents" "$fgone"
"$CLI" faults > /tmp/out 2> /tmp/err || fail "memscope faults: $(cat /tmp/err)"
r=$(sed -n 's/^Warning: faults_by_pid: \([0-9]*\) rows\{0,1\} holding [0-9]* events w[a-z]* taken over for new ones after an earlier read, though its process was still running.*/\1/p' /tmp/err)
[ -n "$r" ] || fail "memscope faults does not say that reused rows are missing: $(cat /tmp/err)"
expect_ge "rows memscope faults says are missing" "$r" "$(reuse 2 $S/reuse.1)"
exec 5>&-
wait "$(tail -n 1 $S/pids)" || fail "forkmany -w 140: $(cat <&6)"
exec 6<&-
diag "part B: $(($(date +%s) - t0)) s"

# --- C: resets and reads under a churn of two names
t0=$(date +%s)
ms_load table_size=64
# Resets come in bursts of 200, each followed by a quiet 0.3 s: a reset
# every few microseconds races every insert and read, and the quiet lets
# a row live long enough for a reader to see it.  (One tight loop with no
# pause once left no touch_* row in 226 reads on 6.1, and the check below
# that the readers saw any would then prove nothing.)
( while :; do
	j=0
	while [ $j -lt 200 ]; do echo reset > $D/control; j=$((j + 1)); done
	sleep 0.3
done ) &
echo $! >> $S/pids
( while :; do cat $D/faults_by_pid >> $S/reads; done ) &
echo $! >> $S/pids
i=0
echo dummy > $S/f
# Only the workloads start in the loop (each prints "pid PID ..."): under
# TCG, beside the two busy loops, every process costs about a quarter of
# a second.
while [ $i -lt 40 ]; do
	"$W/touch_anon" 8 >> $S/anon.out
	"$W/touch_file" $S/f >> $S/file.out
	i=$((i + 1))
done
# shellcheck disable=SC2046 # a list of pids
kill $(cat $S/pids) 2>/dev/null
wait 2>/dev/null
diag "part C: $(($(date +%s) - t0)) s"
{ awk '{ print $2, "touch_anon" }' $S/anon.out; awk '{ print $2, "touch_file" }' $S/file.out; } > $S/spawned
nreads=$(grep -c '^# pid comm' $S/reads)
diag "reads under resets: $nreads; processes spawned: $(wc -l < $S/spawned)"
expect_ge "reads" "$nreads" 10
# Every touch_* row read is a (pid, name) pair that really existed, and a
# spawned pid shows only its own name (or "sh", the fork before exec).
bad=$(awk 'NR == FNR { ok[$1 " " $2] = 1; pid[$1] = 1; next }
	/^#/ { next }
	($2 ~ /^touch_/ || pid[$1]) && !ok[$1 " " $2] && !(pid[$1] && $2 == "sh") { print; n++ }
	END { exit n > 0 }' $S/spawned $S/reads) || fail "rows with another process's name: $bad"
seen=$(awk 'NR == FNR { ok[$1 " " $2] = 1; next } ok[$1 " " $2]' $S/spawned $S/reads | wc -l)
expect_ge "touch_* rows seen by the readers" "$seen" 1
exit 0
