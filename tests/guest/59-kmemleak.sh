#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmemleak: memscope frees everything it allocated.  Load it (debugfs, then
# procfs=1, then with a probe that fails to attach and one left off), fire
# every probe, read every file whole and in small pieces, open and close
# `events` readers (one blocked across the unload), drive control, unload;
# then scan twice and fail if any unreferenced object was allocated by
# memscope: a backtrace frame in [memscope], or at an address that no
# longer resolves (code that was unloaded; memscope is the module this
# suite loads and unloads).  Leaks from memscope loads earlier in the same
# boot are caught by the baseline scan.  Any other new leak since the
# baseline fails too, listed as not memscope's.  (vm-run does not match
# the kernel's "kmemleak: N new suspected memory leaks" line: the boot's
# own leaks, from before memscope ever loaded, print it at the baseline
# scan and at kmemleak's automatic scans.)
#
# Needs CONFIG_DEBUG_KMEMLEAK (scripts/check-debug's kernel); Debian's
# kernels have none, so there this test is a skip, never a pass.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
KML=/sys/kernel/debug/kmemleak
CG=/sys/fs/cgroup/mstest-kmemleak
CGOOM=/sys/fs/cgroup/mstest-kmemleak-oom
zdev='' evpid='' oldhuge=''

[ -e $KML ] || skip "no $KML: kernel built without CONFIG_DEBUG_KMEMLEAK (make check-debug runs this test)"
# Compiled in but off (kmemleak=off, or turned itself off after an error):
# every command but "clear" fails with EPERM.
echo scan > $KML 2>/dev/null ||
	skip "kmemleak is disabled: $(dmesg | grep -m 1 'kmemleak:' | sed 's/^\[[^]]*\] //')"

cleanup() {
	[ -n "$evpid" ] && kill "$evpid" 2>/dev/null
	ms_unload 2>/dev/null
	[ -n "$oldhuge" ] && echo "$oldhuge" > /proc/sys/vm/nr_hugepages
	rmdir $CG $CGOOM 2>/dev/null
	zram_swap_off
}
trap cleanup EXIT

# implicated REPORT: the records of a kmemleak report allocated by memscope.
implicated() {
	awk '/^unreferenced object/ { if (rec != "" && hit) printf "%s", rec; rec = ""; hit = 0 }
	     { rec = rec $0 "\n" }
	     /\[memscope\]$/ || /^ *\[<[0-9a-f]+>\] 0x[0-9a-f]+$/ { hit = 1 }
	     END { if (rec != "" && hit) printf "%s", rec }' "$1"
}
# show REPORT WHAT: each record's first line and its first backtrace frames.
show() {
	awk -v what="$2" '/^unreferenced object/ { n = 0; print "# " what ": " $0; next }
	     /^ *\[</ && n++ < 6 { print "#   " $0 }' "$1"
}
nrec() { grep -c '^unreferenced object' "$1"; }

# --- baseline -------------------------------------------------------------
# What is unreferenced now: memscope's earlier loads in this boot must not
# be in it; everything else is forgotten ("clear" greys it).
echo scan > $KML
cat $KML > /tmp/kml.before
implicated /tmp/kml.before > /tmp/kml.ms-before
if [ -s /tmp/kml.ms-before ]; then
	show /tmp/kml.ms-before "leak from an earlier memscope load"
	fail "$(nrec /tmp/kml.ms-before) unreferenced objects allocated by memscope earlier in this boot"
fi
diag "baseline: $(nrec /tmp/kml.before) unreferenced objects, none from memscope; cleared"
show /tmp/kml.before "before (not memscope)" | head -n 40
echo clear > $KML

# --- what the probes need -------------------------------------------------
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $CG $CGOOM || fail "no cgroup v2 to make $CG"
echo 16M > $CG/memory.max || fail "no memory controller"
echo 16M > $CGOOM/memory.max
[ -e $CGOOM/memory.swap.max ] && echo 0 > $CGOOM/memory.swap.max
zram_swap 128M || diag "no zram: swap-ins are not exercised"
if [ -w /proc/sys/vm/nr_hugepages ]; then
	oldhuge=$(cat /proc/sys/vm/nr_hugepages)
	echo $((oldhuge + 1)) > /proc/sys/vm/nr_hugepages
fi
FA=/tmp/memscope-kmemleak-$$.dat
dd if=/dev/urandom of=$FA bs=4096 count=64 status=none

# Global reclaim without writing to most of the guest's memory (minutes
# under TCG with KASAN): huge pages take what is free (allocating them
# reclaims and compacts), then anonymous memory past the rest wakes kswapd,
# stalls in direct reclaim and pages out to zram.
global_reclaim() {
	{ [ -n "$zdev" ] && [ -n "$oldhuge" ]; } || { diag "no zram or hugetlb: no global reclaim"; return 0; }
	hp_kb=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	free_kb=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
	n=$(((free_kb - 64 * 1024) / hp_kb))
	[ $n -gt 0 ] && echo $((oldhuge + 1 + n)) > /proc/sys/vm/nr_hugepages
	"$W/memhog" 96 > /dev/null
	echo $((oldhuge + 1)) > /proc/sys/vm/nr_hugepages
}

# exercise DIR [all]: read and drive every file under DIR while faults,
# drop_caches and compaction fire their probes; with "all", every other
# probe too (swap-in, memcg and global reclaim, hugetlb, OOM kill).
exercise() {
	dir=$1 t0=$(date +%s)
	timeout 1800 cat "$dir/events" > /tmp/kml-events.out 2>&1 &
	evpid=$!
	"$W/touch_anon" 256 > /dev/null || fail "touch_anon"
	"$W/touch_file" $FA > /dev/null || fail "touch_file"
	if [ "${2:-}" = all ]; then
		# Swap-ins and memcg reclaim: a memcg smaller than the workload.
		[ -n "$zdev" ] && { sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/swap_churn 32 1" > /dev/null ||
			fail "swap_churn"; }
		[ -n "$oldhuge" ] && "$W/hugetlb_touch" 1 > /dev/null
		# An OOM kill in a memcg without swap.
		sh -c "echo \$\$ > $CGOOM/cgroup.procs && exec $W/oom_hog 0 512" > /dev/null 2>&1
		[ $? = 137 ] || fail "oom_hog was not killed"
		global_reclaim
	fi
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory 2>/dev/null
	# Every file whole and in 1..7-byte reads, plus a second events reader.
	for f in $(cd "$dir" && find . -type f ! -name control ! -name unwind ! -name uleak ! -name events | sed 's,^\./,,'); do
		cat "$dir/$f" > /dev/null || fail "read $dir/$f"
		"$W/readchunks" -s 3 "$dir/$f" > /dev/null || fail "readchunks $dir/$f"
	done
	timeout 1 "$W/readchunks" -s 5 "$dir/events" > /dev/null
	# control: the probes come and go (register/unregister), reset, junk.
	for cmd in "disable all" "enable all" "disable faults" "enable faults" reset; do
		echo "$cmd" > "$dir/control" 2>/dev/null || fail "control '$cmd' on $dir"
	done
	[ "$("$W/writefile" "$dir/control" "garbage")" = EINVAL ] || fail "control garbage on $dir"
	diag "$dir exercised in $(($(date +%s) - t0)) s"
}

# --- debugfs ---------------------------------------------------------------
ms_load
exercise $D all
kill $evpid; wait $evpid 2>/dev/null; evpid=
grep -q . /tmp/kml-events.out || fail "the events reader saw nothing"
diag "debugfs: $(grep -c . /tmp/kml-events.out) events streamed; probes with hits:"
awk '!/^#/ { print "#   " $1, $3, $4 }' $D/probes
ms_unload

# --- procfs=1: the procfs files, unloaded under a blocked events reader ----
ms_load procfs=1
exercise /proc/memscope
cat /proc/memscope/events > /dev/null 2>/tmp/reader.err &
blocked=$!
kill $evpid; wait $evpid 2>/dev/null; evpid=
# The unload must meet the reader blocked in the file, not before it opens.
wait_open $blocked /proc/memscope/events 60 procfs
rmmod memscope || fail "rmmod with a procfs events reader blocked"
# remove_proc_entry() runs the reader down: it must end on its own.
wait_gone $blocked 30 procfs
diag "procfs: unloaded with a blocked events reader, which then returned $?"

# --- a probe that fails to attach and one left off (the error paths) -------
ms_load target_override=faults=memscope_no_such_symbol,swapin=memscope_no_such_symbol disable=oom_kill
expect_eq "overridden probe" "$(probe_state faults)" "unavailable:symbol_not_found"
expect_eq "disabled probe" "$(probe_state oom_kill)" disabled
echo "enable faults" > $D/control 2>/dev/null && fail "enable of a missing target succeeded"
echo "enable oom_kill" > $D/control || fail "enable oom_kill"
cat $D/probes $D/stats > /dev/null
ms_unload
ms_loaded && fail "memscope still loaded"

# --- scan ---------------------------------------------------------------------
# An object is reported once a scan finds it unreferenced and it is at
# least 5 s old; the file then lists what the latest scan still found
# unreferenced.  So scan twice: an object whose only reference was in a
# register or on a stack during the first scan drops out at the second.
t0=$(date +%s)
sleep 6
echo scan > $KML
sleep 1
echo scan > $KML
cat $KML > /tmp/kml.after
diag "two scans in $(($(date +%s) - t0)) s"
implicated /tmp/kml.after > /tmp/kml.ms-after
n=$(nrec /tmp/kml.after)
if [ -s /tmp/kml.ms-after ]; then
	sed 's/^/# /' /tmp/kml.ms-after | head -n 80
	fail "$(nrec /tmp/kml.ms-after) unreferenced objects allocated by memscope"
fi
# Whoever leaked while memscope was loaded, probing and unloaded: a report
# after the baseline fails (the baseline's own are the boot's, before
# memscope ever ran, and earlier memscope loads were checked above).
if [ "$n" -gt 0 ]; then
	show /tmp/kml.after "new leak, not memscope's" | head -n 60
	fail "$n new unreferenced objects since the baseline, none allocated by memscope"
fi
diag "no new unreferenced objects since the baseline"
