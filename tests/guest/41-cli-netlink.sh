#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The CLI over the netlink family (--netlink, MEMSCOPE_NETLINK=1): without
# the module it says to load it; with every probe disabled after a workload
# (nothing can move between two reads, and each tool shows what it kept),
# every tool prints, in text and in JSON, byte for byte what it prints
# from the files (40-cli checks those), succeeds where 40-cli wants it to,
# and its JSON parses; an interval report reads the family each time;
# monitor shows every reclaim and the OOM
# kill the module counted, or says how many it lost (through the events
# file, and says so, where the kernel has no groups); a caller without
# CAP_SYS_ADMIN is told what it lacks, and so is one in another network
# namespace; status works without debugfs.
. "$(dirname "$0")/lib.sh"
need_root
[ -x "$CLI" ] || fail "no CLI at $CLI (make cli)"
command -v python3 > /dev/null || skip "python3 needed to read monitor's JSON"
CG=/sys/fs/cgroup/mstest-monitor

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -n "${mpid:-}" ] && kill -CONT "$mpid" 2>/dev/null && kill "$mpid" 2>/dev/null
	[ -n "${tpid:-}" ] && kill "$tpid" 2>/dev/null
	[ -n "${fpid:-}" ] && kill "$fpid" 2>/dev/null
	[ -n "${proact:-}" ] && echo "$proact" > /proc/sys/vm/compaction_proactiveness
	rmdir "$CG" 2>/dev/null
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	ms_unload 2>/dev/null
}
trap cleanup EXIT

ms_unload
$CLI --netlink status > /tmp/out 2>&1
rc=$?
grep -q 'built without libnl' /tmp/out &&
	fail "$CLI was built without libnl-genl-3: apt-get install libnl-genl-3-dev (make deps), then make cli"
[ $rc != 0 ] || fail "--netlink status succeeded without the module: $(cat /tmp/out)"
grep -q 'modprobe memscope' /tmp/out || fail "--netlink status without the module, no modprobe hint: $(cat /tmp/out)"
diag "not loaded: $(head -n 1 /tmp/out)"

# analyze needs no module: without the family it says so, /proc only.
$CLI --netlink analyze 1 > /tmp/out 2>&1 || fail "analyze --netlink without the module: $(cat /tmp/out)"
grep -q 'without the module (memscope module not loaded): /proc only' /tmp/out ||
	fail "analyze --netlink without the module: $(head -n 3 /tmp/out)"

# monitor: a memcg OOM, its reclaims before it; the ring holds them all.
ms_load ring_size=4096
# Without compaction's tracepoints compact says so over both doors, and
# this test is a "kernel lacks" skip at its end.
nocompact=
no_compaction_tp && nocompact=1
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG && echo 32M > $CG/memory.max; } || lacks "the cgroup2 memory controller"
[ -e $CG/memory.swap.max ] && echo 0 > $CG/memory.swap.max
# Two more monitors, each through the other door: text from the groups,
# JSON from the events file.  The hog is named 123: a comm of digits.
cp "$W/oom_hog" /tmp/123
"$CLI" monitor > /tmp/mont.out 2> /tmp/mont.err &
tpid=$!
"$CLI" --dir "$D" -j monitor > /tmp/monf.out 2> /tmp/monf.err &
fpid=$!
monitor_start
_t=0
if no_compaction_tp; then
	wait_open "$tpid" $D/events 10 "the text monitor"
	wait_open "$fpid" $D/events 10 "the file monitor"
else
	until grep -q '^compaction ' /tmp/mont.out && grep -q '"type":"compaction"' /tmp/monf.out; do
		_t=$((_t + 1))
		[ $_t -le 50 ] || fail "the text and file monitors showed no compaction in 10 s: $(cat /tmp/mont.err /tmp/monf.err)"
		echo 1 > /proc/sys/vm/compact_memory
		sleep 0.2
	done
fi
reclaims() { echo $(($(ms_stat direct_reclaim_count) + $(ms_stat memcg_reclaim_count))); }
r0=$(reclaims) k0=$(ms_stat oom_kills)
sh -c "echo \$\$ > $CG/cgroup.procs && exec /tmp/123 0 1024" > /tmp/hog.out 2>&1 &
hog=$!
wait $hog
expect_eq "oom_hog exit status (SIGKILL)" $? 137
ms_stat_settled memcg_reclaim_count 30 > /dev/null || fail "memcg reclaims still going 30 s after the OOM kill"
r1=$(reclaims) k1=$(ms_stat oom_kills)
expect_eq "oom_kills delta" $((k1 - k0)) 1

monitor_stop $((r1 - r0)) 4 "$hog"
# shellcheck disable=SC2046 # monitor_count's words
set -- $(monitor_count "$hog")
[ $# -ge 3 ] || fail "monitor's output does not parse: $(tail -n 3 /tmp/mon.out) $(cat /tmp/mon.err)"
ring=$(grep -c " pid=$hog " $D/direct_reclaim)
diag "monitor: $1 reclaims ($3 by oom_hog), $2 lost, OOM victims ${4:-none}; the ring has $ring of oom_hog's"
expect_eq "reclaims shown + lost vs the module's reclaim counts' delta" $(($1 + $2)) $((r1 - r0))
[ -n "${proact:-}" ] && echo "$proact" > "$P"
[ "$2" = 0 ] && expect_eq "oom_hog's reclaims shown vs its direct_reclaim ring lines" "$3" "$ring"
expect_eq "OOM kills shown: the victim's pid" "${4:-none} ${5:-}" "$hog "
dmesg | grep -q "Killed process $hog " || fail "no 'Killed process $hog' in the kernel log"
diag "kernel log: Killed process $hog"

# The kill and oom_hog's reclaims, from the groups' attributes as text, are
# the ring files' lines byte for byte (events_format decodes them); as JSON
# from the groups and from the file, the same objects, the victim's comm
# "123" a string in both.  Each has all of them once it has the kill, the
# last of them; after 10 s without, the checks below say what is missing.
_t=0
until grep -q "^oom .* victim_pid=$hog " /tmp/mont.out && grep -q "\"victim_pid\":${hog}[,}]" /tmp/monf.out; do
	_t=$((_t + 1))
	[ $_t -le 50 ] || break
	sleep 0.2
done
kill -INT "$tpid" "$fpid"
wait "$tpid"
expect_eq "text monitor exit status on SIGINT" $? 0
wait "$fpid"
expect_eq "file monitor exit status on SIGINT" $? 0
tpid='' fpid=''
grep " victim_pid=$hog " "$D/oom" | sed 's/^/oom /' > /tmp/oom.ring
grep "^oom .* victim_pid=$hog " /tmp/mont.out > /tmp/oom.mon
[ -s /tmp/oom.ring ] || fail "no kill of $hog in $D/oom: $(cat "$D/oom")"
cmp -s /tmp/oom.ring /tmp/oom.mon ||
	fail "the kill from the groups is not the oom file's line: $(cat /tmp/oom.mon) vs $(cat /tmp/oom.ring)"
grep " pid=$hog " "$D/direct_reclaim" | sed 's/^/direct_reclaim /' > /tmp/rec.ring
grep "^direct_reclaim .* pid=$hog " /tmp/mont.out > /tmp/rec.mon
nlines /tmp/rec.mon
[ "$nlines" -gt 0 ] || fail "the text monitor showed none of oom_hog's reclaims: $(tail -n 3 /tmp/mont.out) $(cat /tmp/mont.err)"
missing=$(grep -c -v -x -F -f /tmp/rec.ring /tmp/rec.mon)
expect_eq "oom_hog's reclaims from the groups that are not the direct_reclaim file's lines (of $nlines)" "$missing" 0
python3 - "$hog" /tmp/mon.out /tmp/monf.out <<'PY' || fail "monitor -j: the kill's JSON differs between the doors, or its comm is not a string"
import json, sys
hog = int(sys.argv[1])
kills = []
for path in sys.argv[2:]:
    k = [e for e in map(json.loads, open(path)) if e["type"] == "oom" and e["victim_pid"] == hog]
    assert len(k) == 1, (path, k)
    kills.append(k[0])
a, b = kills
assert a == b, (a, b)
assert a["victim_comm"] == "123" and a["trigger_comm"] == "123", a
assert isinstance(a["victim_pid"], int) and isinstance(a["pages"], int), a
print("# monitor -j: the kill is the same object from the groups and the file; victim_comm", json.dumps(a["victim_comm"]))
PY
diag "the kill and $nlines of oom_hog's reclaims from the groups are the files' lines"

# Losses: a monitor whose socket holds a message or two, stopped while a
# memcg's page cache is reclaimed, must say how many it lost, exactly.
# The module counts every loss in one counter: no proactive compaction
# meanwhile, and our own compactions delivered before the stop.  Without
# groups there is no socket to fill: the events file's losses are checked
# at the end instead (a smaller ring needs a reload).
if nl_groups_absent; then
	diag "no netlink groups on this kernel: monitor's losses through the events file, at the end"
else
P=/proc/sys/vm/compaction_proactiveness
[ -e $P ] && proact=$(cat $P) && echo 0 > $P
monitor_start --buffer-size 4096
sleep 1
kill -STOP $mpid
echo 16M > $CG/memory.max
r0=$(reclaims)
# About 25 MB of page cache into 16M: 40 files of 256 KiB to 1 MiB from
# /usr/bin, whose 1,500 entries find walks over 9p in a second (/usr/lib's
# 10,000 before the first 40 such files took 9 s).
sh -c "echo \$\$ > $CG/cgroup.procs && find /usr/bin -type f -size +256k -size -1024k |
	head -n 40 | xargs cat > /dev/null 2>&1; exit 0"
ms_stat_settled memcg_reclaim_count 30 > /dev/null || fail "memcg reclaims still going 30 s after the reader"
r1=$(reclaims)
kill -CONT $mpid
monitor_stop $((r1 - r0)) 3
# shellcheck disable=SC2046 # monitor_count's words
set -- $(monitor_count "$hog")
[ $# -ge 3 ] || fail "monitor's output does not parse: $(tail -n 3 /tmp/mon.out) $(cat /tmp/mon.err)"
diag "stopped monitor: $1 reclaims shown, $2 lost, of $((r1 - r0)); stderr: $(head -n 1 /tmp/mon.err)"
expect_ge "reclaims lost (a full socket)" "$2" 1
expect_eq "reclaims shown + lost vs the module's reclaim counts' delta" $(($1 + $2)) $((r1 - r0))
fi

# Byte for byte, with nothing moving: every probe off, its data kept.
# First what the parsers get: each file the CLI reads, as netlink renders it.
for f in memleak slabtop mmapsnoop shmsnoop brkstack faultstacks; do
	echo "enable $f" > $D/control || fail "enable $f"
done
"$W/touch_anon" 500 > /tmp/anon.out
apid=$(awk '{ print $2 }' /tmp/anon.out)
"$W/mapper" "$W/mapper" > /dev/null || fail "mapper failed"
$CLI status > /dev/null
echo "disable all" > $D/control || fail "disable all"
MSREAD=$TOP/build/cli/msread
[ -x "$MSREAD" ] || fail "no $MSREAD (make cli)"
# pressure's averages, and its cgroups', decay every 2 s with every probe
# off: compared apart.
files=$(cd $D && find . -type f ! -name control ! -name unwind ! -name uleak ! -name events \
	! -name pressure ! -name pressure_by_cgroup_avg ! -path './hist/*' | sed 's,^\./,,' | sort)
# read3 FILE...: the files (cat: debugfs says its files are empty, and cmp
# would believe it), msread's text of them and msread --netlink's.
read3() {
	(cd $D && cat "$@") > /tmp/file.out || fail "cat $*"
	"$MSREAD" "$@" > /tmp/files.out || fail "msread $*"
	"$MSREAD" --netlink "$@" > /tmp/nl.out 2> /tmp/nl.err || fail "msread --netlink $*: $(cat /tmp/nl.err)"
}
same3() {
	cmp -s /tmp/file.out /tmp/files.out && cmp -s /tmp/files.out /tmp/nl.out
}
# All at once; one by one only to name the one that differs.
others=$(echo "$files" | grep -vx -e memleak -e memleak_allocations)
# shellcheck disable=SC2086 # names without spaces
read3 $others
if ! same3; then
	for f in $others; do
		read3 "$f"
		same3 || fail "$f: file, msread, msread --netlink: $(diff /tmp/file.out /tmp/files.out | head -n 4) $(diff /tmp/files.out /tmp/nl.out | head -n 8)"
	done
	fail "the files differ read together, not one by one"
fi
# pressure: its totals do not move with its probes off; its averages may.
read3 pressure
for o in file files nl; do
	sed 's/ avg10=.* total=/ total=/' /tmp/$o.out > /tmp/$o.tmp && mv /tmp/$o.tmp /tmp/$o.out
done
same3 || fail "pressure's totals: file, msread, msread --netlink: $(cat /tmp/file.out /tmp/nl.out)"
# pressure_by_cgroup_avg: its header and its rows' cgroups.
read3 pressure_by_cgroup_avg
for o in file files nl; do
	awk '{ print $1 }' /tmp/$o.out > /tmp/$o.tmp && mv /tmp/$o.tmp /tmp/$o.out
done
same3 || fail "pressure_by_cgroup_avg's rows: file, msread, msread --netlink: $(cat /tmp/file.out /tmp/nl.out)"
# memleak's oldest_ms is an age, it grows between two reads: the rest must not.
read3 memleak
for o in file files nl; do
	awk '{ $NF = ""; print }' /tmp/$o.out > /tmp/$o.tmp && mv /tmp/$o.tmp /tmp/$o.out
done
same3 || fail "memleak: file, msread, msread --netlink: $(diff /tmp/file.out /tmp/files.out | head -n 4) $(diff /tmp/files.out /tmp/nl.out | head -n 8)"
# memleak_allocations has a row per allocation, its reader's own among
# them: each read keeps the rows born before the middle of a quiet two
# seconds (its /proc/uptime just before it, less the row's age), without
# their ages.  Nothing that outlives its process is allocated while the
# shell sleeps.
up() { cut -d' ' -f1 /proc/uptime; }
quiet=$(up)
sleep 2
u1=$(up); cat $D/memleak_allocations > /tmp/file.out
u2=$(up); "$MSREAD" memleak_allocations > /tmp/files.out || fail "msread memleak_allocations"
u3=$(up); "$MSREAD" --netlink memleak_allocations > /tmp/nl.out 2> /tmp/nl.err ||
	fail "msread --netlink memleak_allocations: $(cat /tmp/nl.err)"
born_before_quiet() {	# born_before_quiet NAME UPTIME
	awk -v q="$quiet" -v u="$2" 'NR == 1 || u * 1000 - $NF < (q + 1) * 1000 { $NF = ""; print }' \
		"/tmp/$1.out" > "/tmp/$1.tmp" && mv "/tmp/$1.tmp" "/tmp/$1.out"
}
born_before_quiet file "$u1"
born_before_quiet files "$u2"
born_before_quiet nl "$u3"
same3 || fail "memleak_allocations born before $quiet s + 1: file, msread, msread --netlink: $(diff /tmp/file.out /tmp/files.out | head -n 4) $(diff /tmp/files.out /tmp/nl.out | head -n 8)"
diag "memleak_allocations: $(($(wc -l < /tmp/nl.out) - 1)) rows born before the quiet second read the same three ways"
diag "$(echo "$files" | wc -w) files read the same over netlink (memleak and memleak_allocations without their ages)"
rows="faults_by_pid faults_by_stack memleak slab oom direct_reclaim mmap hist_raw/fault_latency_ns shrinkers"
[ -n "$nocompact" ] || rows="$rows compaction"
for f in $rows; do
	[ "$(grep -vc '^#' "$D/$f")" -ge 1 ] || fail "$f has no rows: compared empty"
done

# Then every tool, in text and JSON.  The probes that stay quiet here are
# on again; the others ran before they were turned off, so their tools
# show what they kept (and say they are off), which must read the same.
while read -r p _; do
	case $p in oom*|direct_reclaim*|memcg_reclaim*|swapin*|swapout*|hugetlb*|shrink*|kswapd*|writepage*)
		echo "enable $p" > $D/control ;;
	esac
done < $D/probes
# status names its source: the one line that differs, by design; and a
# report's time of day may tick between the two runs, as memleak's ages do.
# nosource FILE...: takes those out, in place, of every FILE at once.
nosource() { sed -i -E -e '/^directory \//d; /^netlink family memscope$/d' \
		 -e 's/"dir":"[^"]*",//; s/"netlink":"memscope",//' \
		 -e 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/g' \
		 -e 's/\(oldest [0-9]+ ms\)/(oldest N ms)/g; s/"oldest_ms":[0-9]+/"oldest_ms":N/g' "$@"; }
n=0 off=
# Run N's output and errors over files go to /tmp/t41f/N.out and N.err,
# over netlink to /tmp/t41n/N.*; /tmp/t41.runs names each run, and
# /tmp/t41.json those whose JSON is parsed.  They are compared after the
# last run, all at once: under TCG a process costs more than a comparison.
{ rm -rf /tmp/t41f /tmp/t41n && mkdir /tmp/t41f /tmp/t41n; } || fail "mkdir /tmp/t41f /tmp/t41n"
: > /tmp/t41.runs
: > /tmp/t41.json
# The opt-in tools with --kept: without it they would turn their family
# on again (and memleak's comes on with an empty table) and trace.
for tool in status faults "faults --hist" "faults --stacks --kept" ffaults swapin \
	    "swapin --residency" hfaults "oomkill --last" "drsnoop --last" \
	    "drsnoop --memcg --last" vmscan shrinkers compact "compact --hist" \
	    "memleak --kept" "slabtop --kept" "mmapsnoop --last --kept" \
	    "shmsnoop --last --kept" "brkstack --kept" export "export --prometheus"; do
	for j in "" -j; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		$CLI $j $tool > /tmp/t41f/$n.out 2> /tmp/t41f/$n.err
		rf=$?
		# shellcheck disable=SC2086
		$CLI --netlink $j $tool > /tmp/t41n/$n.out 2> /tmp/t41n/$n.err
		rn=$?
		[ "$rn" = "$rf" ] ||
			fail "memscope $j $tool: exit status $rn over netlink, $rf over files: $(head -c 300 /tmp/t41n/$n.err)"
		echo "$n ${j:--} $tool" >> /tmp/t41.runs
		[ "$rf" = 0 ] || [ -n "$j" ] || off="$off, $tool: $(grep -m 1 Error /tmp/t41f/$n.err)"
		case $tool in compact*) if [ -n "$nocompact" ]; then
			cat /tmp/t41n/$n.out /tmp/t41n/$n.err > /tmp/nl.all
			compact_refused /tmp/nl.all || fail "memscope $j $tool over netlink without compaction probes: $(cat /tmp/nl.all)"
			continue
		fi ;; esac
		# A tool that ran on kept data: compared with that data in it;
		# and every tool 40-cli runs must succeed, as it does there.
		case $tool in status|faults*|ffaults|swapin|hfaults|"oomkill --last"|"drsnoop --last"|vmscan|shrinkers|\
			      compact*|memleak*|slabtop*|mmapsnoop*|shmsnoop*|brkstack*|export*)
			[ "$rf" = 0 ] || fail "memscope $j $tool failed, so it was compared without data: $(head -c 300 /tmp/t41f/$n.err)" ;;
		esac
		# JSON, read all at once below.
		[ -z "$j" ] || [ "$rf" != 0 ] || echo "$n $tool" >> /tmp/t41.json
		[ "$tool" != "export --prometheus" ] || [ -n "$j" ] || cp /tmp/t41n/$n.out /tmp/metrics
	done
done
# Each line of a -j run that succeeded parses; at least one, but where
# only the rings' last events are asked for (they may have none).
python3 - /tmp/t41.json << 'PY' || fail "see above"
import json, sys
runs = 0
for run in open(sys.argv[1]):
    n, tool = run.rstrip("\n").split(" ", 1)
    out = [l for l in open("/tmp/t41n/%s.out" % n).read().splitlines() if l.strip()]
    try:
        for l in out:
            json.loads(l)
    except ValueError as e:
        sys.exit("# FAIL: memscope --netlink -j %s printed invalid JSON (%s): %.300s" % (tool, e, l))
    if not out and "--last" not in tool.split():
        sys.exit("# FAIL: memscope --netlink -j %s printed nothing" % tool)
    runs += 1
print("# %d -j runs over netlink printed valid JSON lines" % runs)
PY
# Every run's output and errors, the same over files and netlink; if not,
# the first run that differs is named.
nosource /tmp/t41f/* /tmp/t41n/*
if ! diff -r /tmp/t41f /tmp/t41n > /dev/null; then
	while read -r n j tool; do
		[ "$j" != - ] || j=
		for o in out err; do
			cmp -s "/tmp/t41f/$n.$o" "/tmp/t41n/$n.$o" ||
				fail "memscope $j $tool differs over netlink (std$o): $(diff "/tmp/t41f/$n.$o" "/tmp/t41n/$n.$o" | head -n 8)"
		done
	done < /tmp/t41.runs
	fail "diff -r /tmp/t41f /tmp/t41n: $(diff -r /tmp/t41f /tmp/t41n | head -n 8)"
fi
diag "$n tool runs print the same over files and netlink; of those that failed, each the same way: ${off#, }"
if command -v promtool > /dev/null; then
	promtool check metrics < /tmp/metrics > /tmp/prom 2>&1 || fail "promtool, export --prometheus over netlink: $(head -n 5 /tmp/prom)"
fi
# The numbers: touch_anon's row of faults -p, the file's row.
got=$($CLI --netlink faults -p "$apid" 2> /dev/null | awk -v p="$apid" '$1 == p && $2 == "touch_anon" { print $3 }')
expect_eq "memscope --netlink faults -p $apid (touch_anon)" "$got" "$(table_col faults_by_pid "$apid" 1 touch_anon)"
expect_ge "touch_anon faults" "$got" 500
# Intervals: each report reads the family again.
$CLI --netlink vmscan 0.2 2 > /tmp/out 2> /tmp/err || fail "--netlink vmscan 0.2 2: $(cat /tmp/err)"
grep -q 'S-SLABms *D-RECLAIMms *M-RECLAIMms *KSWAPD *WRITEPAGE' /tmp/out ||
	fail "--netlink vmscan header: $(head -n 2 /tmp/out)"
expect_eq "--netlink vmscan rows for 0.2 2" "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' /tmp/out)" 2
for tool in faults ffaults compact "memleak --kept" "slabtop --kept" "mmapsnoop --last --kept" \
	    "shmsnoop --last --kept" "brkstack --kept"; do
	[ "$tool" = compact ] && [ -n "$nocompact" ] && continue
	# shellcheck disable=SC2086
	$CLI $tool > /tmp/out 2>&1
	grep -qE '(is|are) off' /tmp/out || fail "memscope $tool did not say its probes are off: $(head -n 3 /tmp/out)"
	[ "$(grep -vc -e '^Warning' -e '^Note: ' -e '^\[' -e '^ *$' -e '^[A-Z ]*[A-Z]$' /tmp/out)" -ge 1 ] ||
		fail "memscope $tool showed no data: $(head -n 5 /tmp/out)"
done
$CLI drsnoop --memcg --last > /tmp/out
expect_ge "drsnoop --memcg --last rows compared" "$(grep -c ' memcg$' /tmp/out)" 1
$CLI oomkill --last > /tmp/out
grep -q "$hog" /tmp/out || fail "oomkill --last compared without the OOM kill: $(cat /tmp/out)"

$CLI --netlink analyze 1 > /tmp/out 2>&1 || fail "analyze --netlink: $(cat /tmp/out)"
grep -q ', memscope module in netlink family memscope$' /tmp/out || fail "analyze --netlink: $(head -n 3 /tmp/out)"
diag "analyze over netlink: with the module, and without it (/proc only)"

# Without CAP_SYS_ADMIN: refused, and told why.
if setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$CLI" --netlink faults > /tmp/out 2>&1; then
	fail "memscope --netlink faults succeeded as nobody"
fi
grep -q 'needs CAP_SYS_ADMIN' /tmp/out || fail "as nobody: $(cat /tmp/out)"
diag "as nobody: $(cat /tmp/out)"
if setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$CLI" monitor > /tmp/out 2>&1; then
	fail "memscope monitor succeeded as nobody"
fi
grep -q 'needs CAP_SYS_ADMIN' /tmp/out || fail "monitor as nobody: $(cat /tmp/out)"

# Another network namespace (a container's): the family is not there, and
# the CLI says why rather than that the module is not loaded.
command -v unshare > /dev/null || fail "unshare (util-linux) needed"
if unshare -n "$CLI" --netlink status > /tmp/out 2>&1; then
	fail "memscope --netlink status found the family in a new network namespace"
fi
grep -q 'module is loaded, but its netlink family memscope is not in this network namespace' /tmp/out ||
	fail "--netlink status in a new network namespace: $(cat /tmp/out)"
unshare -n "$CLI" --netlink analyze 1 > /tmp/out 2>&1 || fail "analyze --netlink in a new network namespace: $(cat /tmp/out)"
grep -q 'without the module (its netlink family is not in this network namespace)' /tmp/out ||
	fail "analyze --netlink in a new network namespace: $(head -n 3 /tmp/out)"
diag "in a new network namespace: $(unshare -n "$CLI" --netlink faults 2>&1 | head -c 120)..."

# No debugfs (a locked-down host may not mount it): the files are gone,
# netlink is not.
umount /sys/kernel/debug || fail "umount debugfs"
if $CLI status > /tmp/out 2>&1; then fail "status read files with debugfs unmounted"; fi
$CLI --netlink status > /tmp/out 2>&1 || fail "memscope --netlink status without debugfs: $(cat /tmp/out)"
grep -q '^netlink family memscope$' /tmp/out || fail "--netlink status: $(cat /tmp/out)"
mount -t debugfs none /sys/kernel/debug || fail "mount debugfs"
diag "debugfs unmounted: status fails over files, works over netlink"

# Without groups, monitor reads the events file: stopped while more
# reclaims than its ring holds go by, it must say it lost some.  The file
# counts what the reader missed of every kind (a compaction too), so shown
# and lost reclaims are at least the module's count.
if nl_groups_absent; then
	ms_load ring_size=16
	monitor_start
	kill -STOP $mpid
	echo 8M > $CG/memory.max
	r0=$(reclaims)
	sh -c "echo \$\$ > $CG/cgroup.procs && find /usr/lib /usr/bin -type f -size +256k |
		sed -n 41,100p | xargs cat > /dev/null 2>&1; exit 0"
	ms_stat_settled memcg_reclaim_count 30 > /dev/null || fail "memcg reclaims still going 30 s after the reader"
	r1=$(reclaims)
	kill -CONT $mpid
	monitor_stop $((r1 - r0)) 3
	# shellcheck disable=SC2046 # monitor_count's words
	set -- $(monitor_count)
	[ $# -ge 3 ] || fail "monitor's output does not parse: $(tail -n 3 /tmp/mon.out) $(cat /tmp/mon.err)"
	diag "stopped monitor on the events file (ring_size=16): $1 reclaims shown, $2 lost, of $((r1 - r0))"
	expect_ge "reclaims in the meantime (more than the ring holds)" $((r1 - r0)) 17
	expect_ge "events lost (the ring went round)" "$2" 1
	expect_ge "reclaims shown + events lost vs the module's reclaim counts' delta" $(($1 + $2)) $((r1 - r0))
fi
[ -z "$nocompact" ] || lacks "$COMPACTION_TP: memscope compact over netlink says so, every other check passed"
exit 0
