#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pmap: a workload (tests/workloads/regions) maps regions in known states:
# a THP, 40 of 64 pages written, 64 untouched, 16 read (the zero page), 32
# written then paged out to zram (MADV_PAGEOUT), 4 MiB of shared anonymous
# memory paged out the same way, 32 identical pages that ksmd merges, and
# 8 of 32 pages of a shared file written.  pmap must show exactly those
# pages, its Rss, Swap, Anon and THP must equal smaps' for every mapping,
# its Swap and Pss must equal smaps' and procps `pmap -X`'s for every
# region, its map of each region must draw it page by page, and as nobody
# it must say what it cannot see.  Needs no module.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
PAGE_KB=$(($(getconf PAGESIZE) / 1024))
THP=/sys/kernel/mm/transparent_hugepage/enabled
KSM=/sys/kernel/mm/ksm
CG=/sys/fs/cgroup/mstest-pmap
pid='' npid='' thp0=''

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	for p in $pid $npid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -e "$KSM/run" ] && echo 2 > "$KSM/run"
	[ -n "$thp0" ] && echo "$thp0" > "$THP"
	zram_swap_off
	rmdir "$CG" 2>/dev/null
	rm -f /tmp/pmap.file /tmp/pmap-nobody.file
}
trap cleanup EXIT

kver_ge 5 4 || lacks "MADV_PAGEOUT (Linux 5.4+)"
[ -e /proc/kpageflags ] || lacks "/proc/kpageflags (CONFIG_PROC_PAGE_MONITOR)"
# PREEMPT_RT kernels have no THP: the thp region's one write faults in
# one small page there.
if [ -e $THP ]; then
	thp_rss=2048 thp_thp=2048 thp_map=T
else
	thp_rss=$PAGE_KB thp_thp=0 thp_map=A
	diag "no transparent huge pages on $REL: the thp region holds one small page"
fi
[ -e $KSM/run ] || lacks "KSM"
zram_swap 64M || lacks "zram"
case $(cat $THP 2>/dev/null) in
*"[never]"*) thp0=never; echo madvise > $THP ;;
esac
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $CG || lacks "cgroup2"

# start_regions FILE [setpriv args]: the workload, in the memcg; sets rpid
# once it printed "ready".
start_regions() {
	f=$1; shift
	sh -c "echo \$\$ > $CG/cgroup.procs && exec $* $W/regions $f" > "$f.out" 2> /tmp/reader.err &
	rpid=$!
	t=0
	until grep -q '^ready' "$f.out"; do
		kill -0 $rpid 2>/dev/null || fail "regions exited: $(cat /tmp/reader.err)"
		t=$((t + 1)); [ $t -le 300 ] || fail "regions not ready in 30 s"
		sleep 0.1
	done
	grep -q '^pageout unsupported' "$f.out" && fail "MADV_PAGEOUT unsupported on $REL"
}

o0=$(vmstat pswpout)
start_regions /tmp/pmap.file
pid=$rpid
o1=$(vmstat pswpout)
# addr NAME: a region's address; pages NAME: its size in pages.
addr() { awk -v n="$1" '$1 == "region" && $2 == n { print $3 }' /tmp/pmap.file.out; }
pages() { awk -v n="$1" '$1 == "region" && $2 == n { print $4 }' /tmp/pmap.file.out; }
expect_ge "pswpout by MADV_PAGEOUT" $((o1 - o0)) "$(pages swapped)"

# ksmd merges the 32 identical pages into one: KSM's own counters say when.
echo 1 > $KSM/run
t=0
until [ "$(cat $KSM/pages_shared)" = 1 ] && [ "$(cat $KSM/pages_sharing)" = 31 ]; do
	t=$((t + 1))
	[ $t -le 600 ] || fail "ksmd did not merge: pages_shared $(cat $KSM/pages_shared), pages_sharing $(cat $KSM/pages_sharing)"
	sleep 0.1
done
diag "ksmd merged the ksm region after $((t / 10)) s"

"$CLI" pmap -p $pid > /tmp/pmap.txt 2> /tmp/pmap.err || fail "pmap: $(cat /tmp/pmap.err)"
[ -s /tmp/pmap.err ] && fail "pmap as root warned: $(cat /tmp/pmap.err)"
# What it printed, the mappings with pages.
awk 'NR <= 2 || $5 + $7 + $13 > 0 { print "# " $0 }' /tmp/pmap.txt
# col FILE ADDRESS NAME: a column of the mapping at ADDRESS.  Compared as
# strings: to busybox awk a hex address such as 3e984000 is a number (in
# exponent form: inf), and a field that looks like one is not equal to it.
col() {
	awk -v a="$2" -v n="$3" 'NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 2 && $1 "" == a "" { print $(c[n]); f = 1 } END { if (!f) print "none" }' "$1"
}
kb() { echo $(($1 * PAGE_KB)); }

# The regions, against what the workload made.
a=$(addr thp)
expect_eq "thp: Rss" "$(col /tmp/pmap.txt "$a" Rss)" $thp_rss
expect_eq "thp: THP" "$(col /tmp/pmap.txt "$a" THP)" $thp_thp
expect_eq "thp: Anon" "$(col /tmp/pmap.txt "$a" Anon)" $thp_rss
a=$(addr touched)
expect_eq "touched: Rss" "$(col /tmp/pmap.txt "$a" Rss)" "$(kb 40)"
expect_eq "touched: Anon" "$(col /tmp/pmap.txt "$a" Anon)" "$(kb 40)"
expect_eq "touched: Dirty" "$(col /tmp/pmap.txt "$a" Dirty)" "$(kb 40)"
expect_eq "touched: THP" "$(col /tmp/pmap.txt "$a" THP)" 0
a=$(addr untouched)
expect_eq "untouched: Rss" "$(col /tmp/pmap.txt "$a" Rss)" 0
expect_eq "untouched: Size" "$(col /tmp/pmap.txt "$a" Size)" "$(kb 64)"
a=$(addr zero)
expect_eq "zero: Zero" "$(col /tmp/pmap.txt "$a" Zero)" "$(kb 16)"
expect_eq "zero: Rss (smaps counts no zero page)" "$(col /tmp/pmap.txt "$a" Rss)" 0
a=$(addr swapped)
expect_eq "swapped: Swap" "$(col /tmp/pmap.txt "$a" Swap)" "$(kb 32)"
expect_eq "swapped: Rss" "$(col /tmp/pmap.txt "$a" Rss)" 0
a=$(addr shared)
expect_eq "shared: Swap (in the shmem file, not the page table)" \
	"$(col /tmp/pmap.txt "$a" Swap)" "$(kb 1024)"
expect_eq "shared: Rss" "$(col /tmp/pmap.txt "$a" Rss)" 0
expect_eq "shared: Pss" "$(col /tmp/pmap.txt "$a" Pss)" 0
a=$(addr ksm)
expect_eq "ksm: KSM" "$(col /tmp/pmap.txt "$a" KSM)" "$(kb 32)"
expect_eq "ksm: Pss (one page that 32 addresses map)" "$(col /tmp/pmap.txt "$a" Pss)" "$(kb 1)"
expect_eq "ksm: Anon" "$(col /tmp/pmap.txt "$a" Anon)" "$(kb 32)"
a=$(addr file)
expect_eq "file: Rss" "$(col /tmp/pmap.txt "$a" Rss)" "$(kb 8)"
expect_eq "file: File" "$(col /tmp/pmap.txt "$a" File)" "$(kb 8)"
expect_eq "file: Dirty" "$(col /tmp/pmap.txt "$a" Dirty)" "$(kb 8)"
expect_eq "file: Anon" "$(col /tmp/pmap.txt "$a" Anon)" 0

# Every mapping against smaps, the kernel's own sums of the same pages.
awk '/^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); a = r[1]; sub(/^0+/, "", a); if (a == "") a = "0" }
	/^(Rss|Swap|Anonymous|AnonHugePages|KSM):/ { print a, $1, $2 }' /proc/$pid/smaps > /tmp/smaps.kv
n=0
while read -r a k v; do
	case $k in
	Rss:) c=Rss ;; Swap:) c=Swap ;; Anonymous:) c=Anon ;; AnonHugePages:) c=THP ;; KSM:) c=KSM ;;
	esac
	got=$(col /tmp/pmap.txt "$a" "$c")
	[ "$got" = "$v" ] || fail "mapping $a: pmap $c $got, smaps $k $v"
	n=$((n + 1))
done < /tmp/smaps.kv
expect_ge "smaps fields equal to pmap's" $n 40
grep -q '^KSM:' /proc/$pid/smaps && diag "smaps has KSM: lines, compared too"

# Each region's Swap and Pss against smaps and procps' pmap -X (/usr/bin's:
# busybox has a pmap without -X).  Pss only for the regions: a library's
# Pss changes with every dynamically linked reader, pmap -X and memscope
# among them.
[ -x /usr/bin/pmap ] || fail "procps pmap not installed"
/usr/bin/pmap -X $pid > /tmp/pmapx.txt || fail "pmap -X $pid"
awk '/^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); a = r[1]; sub(/^0+/, "", a) }
	/^(Swap|Pss):/ { print a, $1, $2 }' /proc/$pid/smaps > /tmp/smaps.kv
# xcol ADDRESS NAME: pmap -X's column NAME (its addresses can have leading zeros).
xcol() {
	awk -v a="$1" -v n="$2" 'NR == 2 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 2 { s = $1; sub(/^0+/, "", s); if (s "" == a "") { print $(c[n]); f = 1 } }
		END { if (!f) print "none" }' /tmp/pmapx.txt
}
for r in thp touched untouched zero swapped shared ksm file; do
	a=$(addr $r)
	for k in Swap Pss; do
		m=$(col /tmp/pmap.txt "$a" $k) x=$(xcol "$a" $k)
		s=$(awk -v a="$a" -v k="$k:" '$1 "" == a "" && $2 == k { print $3 }' /tmp/smaps.kv)
		if [ "$m" != "$s" ] || [ "$m" != "$x" ]; then
			fail "$r: $k: memscope $m, smaps ${s:-none}, pmap -X $x"
		fi
	done
	diag "$r: Swap $(col /tmp/pmap.txt "$a" Swap) Pss $(col /tmp/pmap.txt "$a" Pss), as smaps and pmap -X"
done

# JSON: the same numbers, and the map of each region, a character a page.
"$CLI" -j pmap -p $pid > /tmp/pmap.json || fail "pmap -j"
for r in thp touched zero swapped ksm file; do
	"$CLI" -j pmap -p $pid --map "$(addr $r)" > /tmp/map.$r.json || fail "pmap --map $(addr $r)"
done
expect_eq "JSON and text agree" "$(python3 -c '
import json, sys
d = json.load(open("/tmp/pmap.json"))
bad = 0
for l in open("/tmp/pmap.txt").read().splitlines()[2:]:
    f = l.split()
    m = [x for x in d["mappings"] if x["address"] == f[0]]
    if len(m) == 1 and [m[0][k] for k in ("size_kb", "rss_kb", "pss_kb", "swap_kb", "dirty_kb",
            "anon_kb", "file_kb", "thp_kb", "ksm_kb", "zero_kb")] != [int(x) for x in f[3:13]]:
        bad += 1
print(bad if d["kpageflags"] and d["pid"] == int(sys.argv[1]) else "bad header")' $pid)" 0
expect_eq "maps" "$(python3 -c '
import json, sys
want = {"thp": "T" * 512 if sys.argv[1] == "T" else "A" + "." * 511, "touched": "A" * 40 + "." * 24, "zero": "0" * 16,
        "swapped": "S" * 32, "ksm": "K" * 32, "file": "D" * 8 + "." * 24}
print(" ".join("%s:%s" % (r, "ok" if json.load(open("/tmp/map.%s.json" % r))["map"] == m else
      json.load(open("/tmp/map.%s.json" % r))["map"]) for r, m in sorted(want.items())))' \
	$thp_map)" \
	"file:ok ksm:ok swapped:ok thp:ok touched:ok zero:ok"
"$CLI" pmap -p $pid --map "$(addr touched)" | tail -n 4 | sed 's/^/# /'

# INTERVAL COUNT: COUNT reports.
expect_eq "reports of pmap 1 3" "$(MEMSCOPE_TEST_STEPS=1 "$TOP/build/cli/memscope-test" pmap -p $pid 1 3 | grep -c '^ *Address')" 3

# As nobody: another user's process is refused, with what to do.
command -v setpriv > /dev/null || fail "setpriv not installed (util-linux)"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
$NOBODY "$CLI" pmap -p $pid > /tmp/out 2>&1 && fail "pmap of root's process succeeded as nobody"
grep -q 'run as root or as the process' /tmp/out || fail "as nobody: $(cat /tmp/out)"
diag "nobody, root's process: $(cat /tmp/out)"
# Its own process: pagemap without PFNs, no kpageflags, and pmap says so.
start_regions /tmp/pmap-nobody.file "$NOBODY"
npid=$rpid
$NOBODY "$CLI" pmap -p $npid > /tmp/pmap-nobody.txt 2> /tmp/out || fail "pmap as nobody: $(cat /tmp/out)"
grep -q 'kpageflags.*need root' /tmp/out || fail "as nobody, no word on kpageflags: $(cat /tmp/out)"
diag "nobody, own process: $(cat /tmp/out)"
a=$(awk '$2 == "thp" { print $3 }' /tmp/pmap-nobody.file.out)
expect_eq "nobody: thp Rss" "$(col /tmp/pmap-nobody.txt "$a" Rss)" $thp_rss
expect_eq "nobody: thp THP" "$(col /tmp/pmap-nobody.txt "$a" THP)" -
a=$(awk '$2 == "zero" { print $3 }' /tmp/pmap-nobody.file.out)
expect_eq "nobody: zero-page mappings count in Rss" "$(col /tmp/pmap-nobody.txt "$a" Rss)" "$(kb 16)"

# A process that is gone.
kill $pid; wait $pid 2>/dev/null
"$CLI" pmap -p $pid > /tmp/out 2>&1 && fail "pmap of an exited process succeeded"
grep -q "no process $pid" /tmp/out || fail "exited process: $(cat /tmp/out)"
diag "$(cat /tmp/out)"
pid=
"$CLI" pmap > /tmp/out 2>&1 && fail "pmap without -p succeeded"
diag "$(cat /tmp/out)"
exit 0
