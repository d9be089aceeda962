#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input.  2,000 random writes to control (random bytes, random words,
# near misses and valid commands; tests/workloads/controlfuzz.c holds the
# model): each fails with EINVAL or has its documented effect, and the
# module stays consistent.  Then every file is read with 1..7-byte read()s,
# from offset 0 and from odd offsets (pread), while faults, reclaim and
# compaction change the data underneath: every line read must match the
# file's grammar (a torn or garbage line would not).
. "$(dirname "$0")/lib.sh"
need_root
export LC_ALL=C

ms_load
probes0=$(awk '!/^#/ { print $1, $3 }' $D/probes)
seed=${TEST_SEED:-$$}	# TEST_SEED=N replays a run
"$W/controlfuzz" $D 2000 "$seed" > /tmp/fuzz.out
rc=$?
diag "seed $seed: $(cat /tmp/fuzz.out) ($(date +%s) s)"
[ $rc = 0 ] || fail "control fuzz: $(tail -n 1 /tmp/fuzz.out)"
# shellcheck disable=SC2046 # split controlfuzz's summary into fields
set -- $(cat /tmp/fuzz.out)
expect_ge "writes rejected with EINVAL" "$4" 1000
expect_ge "valid writes whose effect was checked" "${10}" 100

# Consistent afterwards: probes parse, and the same probes attach again.
echo "disable all" > $D/control || fail "disable all"
echo "enable all" > $D/control || fail "enable all"
for p in $(printf '%s\n' "$probes0" | awk '$2 == "disabled" { print $1 }'); do
	echo "disable $p" > $D/control || fail "disable $p"
done
probes1=$(awk '!/^#/ { print $1, $3 }' $D/probes)
[ "$probes1" = "$probes0" ] || fail "probe states changed: $probes1"
diag "probe states after the fuzz and enable all: as at load"

# --- grammar ---------------------------------------------------------------
F='[!-~]+'		# a field: printable, no white space, escaped
N='[0-9]+'
LA="$N\\.[0-9]{2},$N\\.[0-9]{2},$N\\.[0-9]{2},$N/$N,$N"	# /proc/loadavg's 5, joined by commas
GFP='(none|[A-Z_0-9|]+|0x[0-9a-f]+)'	# %pGg
CS='([a-z_]+|-?[0-9]+)'		# a compact_result name, or its number
FR='(0x[0-9a-f]+|f[0-9]+\+0x[0-9a-f]+)'	# a user stack frame: address, or file slot+offset
MM="time_ns=$N pid=$N comm=$F size=$N prot=[-r][-w][-x]\\+? flags=$F off=$N err=-?$N file=$F"
SHM="time_ns=$N pid=$N comm=$F call=(shmget key=0x[0-9a-f]{8} size=$N flags=$F id=-?$N|shmat id=-?$N flags=$F|shmdt|shmctl id=-?$N cmd=$F) err=-?$N"
grammar() {	# grammar FILE: sets $re, the ERE every line of FILE must match
	case $1 in
	version) re="^(memscope [0-9.]+ $F|memory_bytes $N cpus $N table_size $N ring_size $N|format $N|fault_hook (fprobe|kretprobe)|hugetlb_hook (kprobe|kretprobe)|memleak_size $N memleak_sample $N|ustack_depth $N|ustack_files $N|unwind_bytes $N|swap_residency_size $N|kretprobe_instance_bytes $N|oom_ring_size $N|uleak size $N stacks $N|uleak unavailable:[a-z_]+|tables( [a-z_]+)+)\$" ;;
	probes) re="^(# name target state hits missed|[a-z_0-9]+ $F (attached|disabled|unavailable:[a-z_0-9]+) $N $N)\$" ;;
	stats) re="^[a-z_0-9]+ $N\$" ;;
	faults_by_pid) re="^(# pid comm faults major|$N $F $N $N)\$" ;;
	faults_by_file) re="^(# file faults major|$F $N $N)\$" ;;
	swapins_by_pid) re="^(# pid comm swapins|$N $F $N)\$" ;;
	hugetlb_by_pid) re="^(# pid comm faults|$N $F $N)\$" ;;
	shrinkers) re="^(# shrinker count ns freed|$F $N $N $N)\$" ;;
	faults_by_cgroup) re="^(# cgroup faults major|$F $N $N)\$" ;;
	swapins_by_cgroup) re="^(# cgroup swapins|$F $N)\$" ;;
	memleak) re="^(# site allocs bytes oldest_ms|$F $N $N $N)\$" ;;
	memleak_allocations) re="^(# site bytes age_ms|$F $N $N)\$" ;;
	slab) re="^(# cache allocs frees bytes|$F $N $N $N)\$" ;;
	faults_by_stack) re="^(# pid comm faults depth stack|$N $F $N ($N ($FR,)*$FR|0 -))\$" ;;
	brk_by_stack) re="^(# pid comm brk depth stack|$N $F $N ($N ($FR,)*$FR|0 -))\$" ;;
	files) re="^(# slot dev ino gen state build_id loads path|$N - - - pending - - -|$N $N:$N $N $N (named|deleted|truncated) ([0-9a-f]+|-) (-|(0x[0-9a-f]+:0x[0-9a-f]+:0x[0-9a-f]+,?)+) $F)\$" ;;
	uleak_outstanding) re="^(# allocs bytes oldest_ms depth stack|$N $N $N ($N ($FR,)*$FR|0 -))\$" ;;
	unwind_tables) re="^(# dev ino gen seg_offset bytes rows|$N:$N $N $N 0x[0-9a-f]+ $N $N)\$" ;;
	unwind_wanted) re="^(# pid dev ino gen|$N $N:$N $N $N)\$" ;;
	swap_residency_by_pid) re="^(# pid comm swapouts swapins median_ns|$N $F $N $N $N)\$" ;;
	oom) re="^time_ns=$N trigger_pid=$N trigger_comm=$F victim_pid=$N victim_comm=$F pages=$N anon_rss_kb=[-0-9]+ file_rss_kb=[-0-9]+ shmem_rss_kb=[-0-9]+ oom_score_adj=-?$N memcg=$F order=-?$N gfp_mask=0?x?[0-9a-f]+ loadavg=$LA confirmed=[01] gfp_flags=$GFP seq=$N\$" ;;
	direct_reclaim) re="^time_ns=$N pid=$N comm=$F latency_ns=$N nr_reclaimed=$N memcg=[01]\$" ;;
	compaction) re="^time_ns=$N pid=$N comm=$F latency_ns=$N status=$CS\$" ;;
	mmap) re="^$MM\$" ;;
	shm) re="^$SHM\$" ;;
	events) re="^(lost count=$N|oom time_ns=$N( $F)+|direct_reclaim time_ns=$N pid=$N comm=$F latency_ns=$N nr_reclaimed=$N memcg=[01]|compaction time_ns=$N pid=$N comm=$F latency_ns=$N status=$CS|mmap $MM|shm $SHM)\$" ;;
	hist/*) re="^(# count $N sum $N|\\[[0-9]+\\] +$N \\|@* *\\||\\[${N}[KMGTPE]?, ${N}[KMGTPE]?\\) +$N \\|@* *\\|)\$" ;;
	hist_raw/*) re="^(# count $N sum $N|# lo hi count|$N $N $N)\$" ;;
	events_format) re="^[a-z_]+( [a-z_0-9]+:(uint|int|hex|bool|str)(:$N)?)+\$" ;;
	pressure) re="^(some|full) avg10=$N\\.[0-9]{2} avg60=$N\\.[0-9]{2} avg300=$N\\.[0-9]{2} total=$N\$" ;;
	pressure_by_cgroup) re="^(# cgroup some_us full_us|$F $N $N)\$" ;;
	pressure_by_cgroup_avg) re="^(# cgroup some_avg10 some_avg60 some_avg300 full_avg10 full_avg60 full_avg300|$F( $N\\.[0-9]{2}){6})\$" ;;
	table_reuse) re="^(# table rows events|[a-z_]+ $N $N)\$" ;;
	stats_format) re="^[a-z_0-9]+ (counter|gauge) [A-Za-z0-9_/(),.:;' -]+\$" ;;
	*) fail "no grammar for $1" ;;
	esac
}
# in_grammar FILE OUTPUT...: every line of each OUTPUT matches FILE's
# grammar.  One grep for all of them: under TCG a process costs more than
# the reading it checks.
in_grammar() {
	what=$1; grammar "$1"; shift
	# With several files, grep names the one (whole, s1, o7...) in its line.
	if grep -Evn "$re" "$@" > /tmp/bad.out; then
		fail "$what: line not in the grammar: $(head -n 1 /tmp/bad.out | od -c | head -n 3 | tr -s ' ')"
	fi
}
# ends_lines OUTPUT...: each non-empty OUTPUT's last line ends with a
# newline.  Their last bytes, all at once, are all newlines; if not, the
# one that is not is found and named.
ends_lines() {
	[ -n "$(tail -qc 1 "$@" | tr -d '\n')" ] || return 0
	for _o; do
		[ -z "$(tail -c 1 "$_o" | tr -d '\n')" ] || fail "$_o: its last line has no newline"
	done
	fail "a last line has no newline in one of: $*"
}
# check FILE OUTPUT...: both.
check() { in_grammar "$@"; shift; ends_lines "$@"; }

# Data that changes underneath the readers, and content in every file:
# mmapsnoop, shmsnoop, faultstacks and brkstack on, mapper's mmap and shm
# calls and stacker's faults and brk calls.
for f in mmapsnoop shmsnoop faultstacks brkstack; do
	echo enable $f > $D/control || fail "enable $f"
done
echo 51 > /tmp/t51.file
rm -f /tmp/t51.round
( while :; do
	"$W/memhog" 4 > /dev/null
	"$W/mapper" /tmp/t51.file > /dev/null
	"$W/stacker" 20 20 2 2 < /dev/null > /dev/null
	echo 1 > /proc/sys/vm/compact_memory 2>/dev/null
	echo 2 > /proc/sys/vm/drop_caches
	: > /tmp/t51.round
	sleep 0.3
done ) &
churn=$! evr=
trap 'kill $churn $evr 2>/dev/null; ms_unload 2>/dev/null' EXIT
# Every file has its content once the churn has been round once.
t=0
until [ -e /tmp/t51.round ]; do
	kill -0 $churn 2>/dev/null || fail "the churn exited"
	t=$((t + 1))
	[ $t -le 300 ] || fail "the churn's first round took over 30 s"
	sleep 0.1
done

# The events stream is read 1..7 bytes at a time while events arrive: all
# the while the files are read below, beside them.
"$W/readchunks" -s 5 $D/events > /tmp/ev.out &
evr=$!

files=$(cd $D && find . -type f ! -name control ! -name unwind ! -name uleak ! -name events | sed 's,^\./,,' | sort)
n=0
rm -rf /tmp/r51
mkdir /tmp/r51 || fail "mkdir /tmp/r51"
# out FILE: sets $o, where FILE's reads go (/tmp/r51/hist_compaction_ns...),
# without a program.
out() {
	o=$1
	while :; do case $o in */*) o=${o%%/*}_${o#*/} ;; *) break ;; esac; done
	o=/tmp/r51/$o
}
for f in $files; do
	# The file whole, then in 1..7-byte reads, then from odd offsets.
	out "$f"
	cat "$D/$f" > "$o.whole" || fail "read $f"
	size=$(wc -c < "$o.whole")
	for seed in 1 2; do
		"$W/readchunks" -s $seed "$D/$f" > "$o.s$seed" || fail "readchunks $f"
		n=$((n + 1))
	done
	for off in 1 7 $((size / 2 + 1)) $((size - 1)); do
		[ "$off" -gt 0 ] || continue
		"$W/readchunks" -o "$off" -s "$off" "$D/$f" > "$o.o$off" || fail "pread $f at $off"
		n=$((n + 1))
	done
done
# What was read is checked once it is all read: a program for all the
# files where one would do.  An offset read's first line is a tail of one;
# every whole line after it must parse.
sed -i 1d /tmp/r51/*.o*	# -i: each file on its own
lines=$(cat /tmp/r51/*.s1 /tmp/r51/*.s2 | wc -l)
for f in $files; do
	out "$f"
	in_grammar "$f" "$o".*
done
ends_lines /tmp/r51/*
# version does not change: any offset gives exactly the rest of it.
cat $D/version > /tmp/v.out
for off in 1 2 5 9 17 31; do
	"$W/readchunks" -o $off -s $off $D/version > /tmp/off.out
	tail -c +$((off + 1)) /tmp/v.out | cmp -s - /tmp/off.out || fail "version at offset $off differs"
done
diag "$(date +%s) s: $n tiny-buffer reads of $(echo "$files" | wc -w) files: $lines lines, all in their grammar"

# The events stream: once mapper's mmap and shm events are in it (or 8 s
# passed: the checks below say what is missing).
t=0
until grep -q '^mmap ' /tmp/ev.out && grep -q '^shm ' /tmp/ev.out; do
	t=$((t + 1))
	[ $t -le 80 ] || break
	sleep 0.1
done
kill $evr; wait $evr 2>/dev/null
evr=
sleep 0.1
kill $churn; wait $churn 2>/dev/null
churn=
[ -s /tmp/ev.out ] || fail "no events streamed while compacting"
for t in mmap shm; do
	grep -q "^$t " /tmp/ev.out || fail "no $t events streamed while mapper ran"
	grep -q . $D/$t || fail "$D/$t is empty while mapper ran"
done
# A killed reader may stop inside a line: drop a last partial one.
[ "$(tail -c 1 /tmp/ev.out | od -An -c | tr -d ' ')" = '\n' ] || sed -i '$d' /tmp/ev.out
check events /tmp/ev.out
diag "events: $(wc -l < /tmp/ev.out) lines read 1..7 bytes at a time, all in the grammar"

# procfs files give the same lines.
ms_unload
ms_load procfs=1
for f in stats probes version; do
	"$W/readchunks" -s 7 "/proc/memscope/$f" > /tmp/p.out || fail "read /proc/memscope/$f"
	check $f /tmp/p.out
done
got=$("$W/writefile" /proc/memscope/control "reset now")
expect_eq "procfs control 'reset now'" "$got" EINVAL
ms_unload
exit 0
