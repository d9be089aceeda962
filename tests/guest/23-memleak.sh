#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memleak against a fixture that makes known slab allocations from known
# functions (tests/kmod/msleak): 100 kmalloc(256) at msleak_kmalloc_site,
# 40 of them freed, and 30 from its own 200-byte cache at
# msleak_cache_site, 10 freed, and 8 order-0 and 4 order-2 pages at
# msleak_pages_site, 3 and 1 freed.  The memleak file must show exactly 60
# allocations of 15,360 bytes, 20 of 4,000 and 8 of 69,632 at those three
# sites (a page's site is the first caller outside the page allocator),
# largest first, each site one token; and 4 alloc_percpu() of 64 bytes
# (6 made, 2 freed) at msleak_percpu_site, 64 bytes on each possible CPU
# in /sys/devices/system/cpu/possible.  50 kmalloc(128) at msleak_irq_site
# show until an hrtimer frees them in hard-irq context (softirq on
# PREEMPT_RT, where the slab allocator's locks sleep); then none do.  Once
# msleak unloads and frees the rest, none is left.  The probes are off at
# load and the CLI says how to turn them on; frees of what was allocated
# before that count in memleak_unknown_frees and leave no row; disable
# detaches them all.  The CLI shows every row of a snapshot as the file
# has it.  10 kmalloc(100) show as 1,000 bytes, the bytes
# requested of the kernel's kmem:kmalloc events, and the CLI's header says
# so (BCC's memleak counts bytes_alloc, 1,280).  25 more at
# msleak_kmalloc_site 8 s later are left out of `memleak -o 4000` one by
# one, as BCC's -o does, and memleak_allocations shows each of the 85 with
# its own age.  With memleak_sample=8, 4,000 kmallocs show as about
# 500 (a binomial draw: within 5 standard deviations, 395..605), at 256
# bytes each, and the CLI says it samples.  Where the kernel has kmemleak
# (make check-debug), 20 kmalloc(96) at msleak_lost_site whose pointers
# msleak keeps only disguised are leaks to kmemleak: memscope and kmemleak
# both show exactly 20 there, with memleak on (its table, which holds
# every tracked pointer, must not count as a reference to them).  With
# memleak_report_ms=500, `memscope monitor` shows memleak's reports from
# its netlink group: msleak_kmalloc_site with the 60 allocations of 15,360
# bytes the file shows, in -j and in text, no address anywhere; none
# arrives once memleak is disabled, they come back when it is enabled,
# and the module unloads cleanly while they run.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
LEAK=$TOP/build/$REL/kmod/msleak.ko
PROBES="kfree kmem_cache_free page_free kmalloc kmem_cache_alloc page_alloc"
# The percpu events came in 4.13; tracefs says whether this kernel has them.
pcpu=1
for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d $t/events ] || continue
	[ -d $t/events/percpu ] || pcpu=
	break
done
if [ -n "$pcpu" ]; then
	PROBES="$PROBES percpu_free percpu_alloc"
fi

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { [ -z "${mpid:-}" ] || kill "$mpid" 2>/dev/null; rmmod msleak 2>/dev/null; ms_unload 2>/dev/null; }
trap cleanup EXIT
ms_load
for p in $PROBES; do
	expect_eq "probe $p at load" "$(probe_state "$p")" disabled
done
if [ -z "$pcpu" ]; then
	for p in percpu_free percpu_alloc; do
		expect_eq "probe $p at load (no percpu events before 4.13)" \
			"$(probe_state "$p")" unavailable:no_percpu_tracepoints
	done
fi
if ! has_tp kmem/kmalloc_node; then
	expect_eq "kmalloc_node at load (merged into kmalloc in 6.1)" \
		"$(probe_state kmalloc_node)" unavailable:merged_into_kmalloc
else
	expect_eq "kmalloc_node at load" "$(probe_state kmalloc_node)" disabled
fi
optin_leases memleak memleak kmalloc 1 1

# Allocated before memleak is on: their frees are unknown, not rows.
insmod "$LEAK" kmallocs=50 kfrees=0 cache_allocs=0 cache_frees=0 pages0=0 pages2=0 pfrees0=0 pfrees2=0 \
	pcpus=0 pcpufrees=0 irqobjs=0 ||
	fail "insmod $LEAK"
echo enable memleak > $D/control || fail "enable memleak"
for p in $PROBES; do
	expect_eq "probe $p after enable memleak" "$(probe_state "$p")" attached
done
if ! has_tp kmem/kmalloc_node; then
	expect_eq "kmalloc_node (merged into kmalloc in 6.1)" "$(probe_state kmalloc_node)" \
		unavailable:merged_into_kmalloc
else
	expect_eq "kmalloc_node" "$(probe_state kmalloc_node)" attached
	expect_eq "kmem_cache_alloc_node" "$(probe_state kmem_cache_alloc_node)" attached
fi
u0=$(ms_stat memleak_unknown_frees)
rmmod msleak || fail "rmmod msleak"
expect_ge "unknown frees: msleak's 50 objects from before enable" \
	$(($(ms_stat memleak_unknown_frees) - u0)) 50

insmod "$LEAK" kmallocs=100 kfrees=40 cache_allocs=30 cache_frees=10 \
	pages0=8 pfrees0=3 pages2=4 pfrees2=1 pcpus=6 pcpufrees=2 irqobjs=50 || fail "insmod $LEAK"
cat $D/memleak > /tmp/t23.leak
expect_eq "header" "$(head -n 1 /tmp/t23.leak)" "# site allocs bytes oldest_ms"
expect_eq "header lines" "$(grep -c '^#' /tmp/t23.leak)" 1
row() { awk -v s="$1" 'index($1, s "+") == 1 { print $2, $3 }' /tmp/t23.leak; }
expect_eq "msleak_kmalloc_site: allocations, bytes" "$(row msleak_kmalloc_site)" "60 15360"
expect_eq "msleak_cache_site: allocations, bytes" "$(row msleak_cache_site)" "20 4000"
expect_eq "msleak_pages_site: allocations, bytes (5 x 4 KiB + 3 x 16 KiB)" \
	"$(row msleak_pages_site)" "8 $((5 * 4096 + 3 * 16384))"
# "0-1", "0", "0-3,5": count the CPUs the kernel could ever bring up.
ncpu=$(tr ',' '\n' < /sys/devices/system/cpu/possible |
	awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
if [ -n "$pcpu" ]; then
	expect_eq "msleak_percpu_site: allocations, bytes (4 x 64 x $ncpu possible CPUs)" \
		"$(row msleak_percpu_site)" "4 $((4 * 64 * ncpu))"
else
	expect_eq "msleak_percpu_site (no percpu events): allocations, bytes" "$(row msleak_percpu_site)" ""
fi
expect_eq "msleak_irq_site before its timer: allocations, bytes" "$(row msleak_irq_site)" "50 6400"
site=$(awk 'index($1, "msleak_kmalloc_site+") == 1 { print $1 }' /tmp/t23.leak)
echo "$site" | grep -Eqx 'msleak_kmalloc_site\+0x[0-9a-f]+/0x[0-9a-f]+\[msleak\]' ||
	fail "site is not one name+off/size[module] token: $site"
bad=$(sed 1d /tmp/t23.leak | awk 'NF != 4 || $1 ~ /^0x/ || (NR > 1 && $3 > b) { print NR ": " $0; exit } { b = $3 }')
[ -z "$bad" ] || fail "a row that is malformed, an address or out of order: $bad"
diag "$(sed -n 2,4p /tmp/t23.leak | tr '\n' ';')"

"$CLI" memleak --top 1000 > /tmp/t23.cli || fail "memscope memleak failed: $(cat /tmp/t23.cli)"
grep -q "^	15360 bytes in 60 allocations from msleak_kmalloc_site+.*\[msleak\] (oldest [0-9]* ms)$" /tmp/t23.cli ||
	fail "memscope memleak does not show msleak_kmalloc_site: $(grep msleak /tmp/t23.cli)"
# The CLI shows the file's rows as they are, none merged or dropped: a
# frozen copy of one snapshot, read with --dir, row for row.  (A live cat
# and a live CLI differ at file sites, __alloc_file and
# security_file_alloc: each snapshot holds its reader's own open and
# mapped files, and coreutils' cat under LANG=C.UTF-8 maps 13 locale files.)
mkdir -p /tmp/t23.dir
for f in version stats probes memleak; do cat $D/$f > /tmp/t23.dir/$f; done
"$CLI" --dir /tmp/t23.dir memleak --top 100000 > /tmp/t23.cli || fail "memscope --dir memleak: $(cat /tmp/t23.cli)"
awk 'NR > 1 { print $1, $2, $3 }' /tmp/t23.dir/memleak | sort > /tmp/t23.a
sed -n 's/^	\([0-9]*\) bytes in \([0-9]*\) allocations from \([^ ]*\) (oldest.*/\3 \2 \1/p' /tmp/t23.cli |
	sort > /tmp/t23.b
nlines /tmp/t23.a
cmp -s /tmp/t23.a /tmp/t23.b ||
	fail "the CLI's rows are not the file's: $(diff /tmp/t23.a /tmp/t23.b | head -n 5 | tr '\n' ';')"
diag "the CLI shows all $nlines rows of one snapshot as the file has them"
"$CLI" -j memleak --top 1000 > /tmp/t23.json || fail "memscope -j memleak failed"
grep -q '"bytes":4000,"allocs":20,"site":"msleak_cache_site+' /tmp/t23.json ||
	fail "memscope -j memleak does not show msleak_cache_site: $(grep -o '.\{80\}msleak_cache_site.\{40\}' /tmp/t23.json)"

# The hard-irq frees.
want_ctx=1 ctxname=hardirq
[ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] && want_ctx=2 ctxname=softirq
f0=$(ms_stat memleak_frees)
echo 1 > /sys/module/msleak/parameters/irqfree || fail "arm msleak's timer"
i=0
while [ "$(cat /sys/module/msleak/parameters/irqfreed)" != 50 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
expect_eq "objects msleak's timer freed" "$(cat /sys/module/msleak/parameters/irqfreed)" 50
expect_eq "context of those frees (1 hardirq, 2 softirq)" \
	"$(cat /sys/module/msleak/parameters/irqctx)" "$want_ctx"
expect_ge "memleak_frees: the timer's $ctxname frees seen" $(($(ms_stat memleak_frees) - f0)) 50
cat $D/memleak > /tmp/t23.leak
expect_eq "msleak_irq_site after the $ctxname frees" "$(row msleak_irq_site)" ""
expect_eq "msleak_kmalloc_site untouched by them" "$(row msleak_kmalloc_site)" "60 15360"

# -o MIN_AGE counts each allocation by its own age, as BCC's memleak -o:
# 25 more at the same site, 8 s after the first 60, are left out of
# -o 4000 on their own, while the site's oldest is 8 s old.
sleep 8
up0=$(cut -d' ' -f1 /proc/uptime)
echo 25 > /sys/module/msleak/parameters/more || fail "msleak: 25 more"
"$CLI" memleak -o 4000 --top 1000 > /tmp/t23.old || fail "memscope memleak -o 4000: $(cat /tmp/t23.old)"
cat $D/memleak_allocations > /tmp/t23.each
up1=$(cut -d' ' -f1 /proc/uptime)
"$CLI" memleak --top 1000 > /tmp/t23.cli || fail "memscope memleak: $(cat /tmp/t23.cli)"
diag "-o 4000 and memleak_allocations read $(echo "$up0 $up1" | awk '{ printf "%.1f", $2 - $1 }') s after the 25"
awk -v a="$up0" -v b="$up1" 'BEGIN { exit !(b - a < 4) }' ||
	fail "the reads took 4 s or more after the second batch: its 25 are no longer younger than 4000 ms"
cli_site() {
	sed -n 's/^	\([0-9]*\) bytes in \([0-9]*\) allocations from msleak_kmalloc_site+.*/\2 \1/p' "$1"
}
expect_eq "memleak: msleak_kmalloc_site, both batches" "$(cli_site /tmp/t23.cli)" "85 21760"
expect_eq "memleak -o 4000: msleak_kmalloc_site, the first batch only" \
	"$(cli_site /tmp/t23.old)" "60 15360"
head -n 1 /tmp/t23.old | grep -q "(allocations at least 4000 ms old)" ||
	fail "memleak -o 4000's header does not say what it filters: $(head -n 1 /tmp/t23.old)"
expect_eq "memleak_allocations header" "$(head -n 1 /tmp/t23.each)" "# site bytes age_ms"
expect_eq "memleak_allocations: msleak_kmalloc_site rows 4000 ms old or more" \
	"$(awk 'index($1, "msleak_kmalloc_site+") == 1 && $2 == 256 && $3 >= 4000 { n++ } END { print n + 0 }' /tmp/t23.each)" 60
expect_eq "memleak_allocations: msleak_kmalloc_site rows in all" \
	"$(awk 'index($1, "msleak_kmalloc_site+") == 1 { n++ } END { print n + 0 }' /tmp/t23.each)" 85
bad=$(sed 1d /tmp/t23.each | awk 'NF != 3 || $1 ~ /^0x/ || (NR > 1 && $2 > b) { print NR ": " $0; exit } { b = $2 }')
[ -z "$bad" ] || fail "memleak_allocations: a row that is malformed, an address or out of order: $bad"

rmmod msleak || fail "rmmod msleak"
expect_eq "msleak rows once it unloaded and freed the rest" "$(grep -c msleak $D/memleak)" 0
expect_eq "memleak_dropped" "$(ms_stat memleak_dropped)" 0

# Bytes requested, as the CLI's header says, not the size class the slab
# gives (what BCC's memleak counts): 10 kmalloc(100), from kmalloc-128,
# against the kernel's kmem:kmalloc events of the same calls.
TR=/sys/kernel/tracing
[ -e $TR/events/kmem/kmalloc/enable ] || TR=/sys/kernel/debug/tracing
echo > $TR/trace
echo 1 > $TR/events/kmem/kmalloc/enable || fail "enable the kmem:kmalloc event"
insmod "$LEAK" kmallocs=10 kfrees=0 kmalloc_size=100 cache_allocs=0 cache_frees=0 pages0=0 \
	pages2=0 pfrees0=0 pfrees2=0 pcpus=0 pcpufrees=0 irqobjs=0 || fail "insmod $LEAK kmalloc_size=100"
echo 0 > $TR/events/kmem/kmalloc/enable
# The event names its call site from 5.6; before, it prints the address,
# which is the site's if it lies between the site's symbol and the next
# one in its module (kallsyms and the event print the same 16 hex digits,
# so they compare as strings).
if grep -q 'call_site=msleak_kmalloc_site' $TR/trace; then
	grep 'call_site=msleak_kmalloc_site' $TR/trace > /tmp/t23.kmalloc
else
	lo=$(awk '$3 == "msleak_kmalloc_site" { print $1 }' /proc/kallsyms)
	hi=$(awk '$4 == "[msleak]" { print $1 }' /proc/kallsyms | sort | awk -v lo="$lo" '$1 > lo { print; exit }')
	if [ -z "$lo" ] || [ -z "$hi" ]; then
		fail "msleak_kmalloc_site's address range is not in /proc/kallsyms"
	fi
	sed -n 's/.*call_site=\([0-9a-f]*\) .*/\1 &/p' $TR/trace |
		awk -v lo="$lo" -v hi="$hi" '$1 >= lo && $1 < hi' > /tmp/t23.kmalloc
fi
sizes=$(sed -n 's/.* bytes_req=\([0-9]*\) bytes_alloc=\([0-9]*\).*/\1 \2/p' /tmp/t23.kmalloc |
	awk '{ n++; r += $1; a += $2 } END { print n + 0, r + 0, a + 0 }')
echo > $TR/trace
diag "kmem:kmalloc at msleak_kmalloc_site: calls, bytes_req, bytes_alloc: $sizes"
expect_eq "kmalloc events: 10 of 100 bytes requested" "${sizes% *}" "10 1000"
cat $D/memleak > /tmp/t23.leak
expect_eq "memleak file: msleak_kmalloc_site, bytes requested" "$(row msleak_kmalloc_site)" "10 1000"
"$CLI" memleak --top 1000 > /tmp/t23.cli || fail "memscope memleak failed: $(cat /tmp/t23.cli)"
head -n 1 /tmp/t23.cli | grep -q ', bytes requested:$' ||
	fail "memscope memleak's header does not say its bytes are requested, not allocated ($sizes): $(head -n 1 /tmp/t23.cli)"
grep -q "^	1000 bytes in 10 allocations from msleak_kmalloc_site+" /tmp/t23.cli ||
	fail "memscope memleak: $(grep msleak /tmp/t23.cli)"
rmmod msleak || fail "rmmod msleak"

KML=/sys/kernel/debug/kmemleak
if [ -e $KML ] && echo scan > $KML 2>/dev/null; then
	echo clear > $KML
	insmod "$LEAK" kmallocs=0 kfrees=0 cache_allocs=0 cache_frees=0 pages0=0 pages2=0 pfrees0=0 \
		pfrees2=0 pcpus=0 pcpufrees=0 irqobjs=0 lost=20 || fail "insmod $LEAK lost=20"
	sleep 6		# kmemleak reports only objects older than 5 s
	# The first scan sees new objects as modified and greys them: two.
	echo scan > $KML
	echo scan > $KML
	cat $KML > /tmp/t23.kml
	cat $D/memleak > /tmp/t23.leak
	k=$(awk '/^unreferenced object/ { if (hit) n++; hit = 0 }
		 /msleak_lost_site\+/ { hit = 1 } END { if (hit) n++; print n + 0 }' /tmp/t23.kml)
	other=$(awk '/^unreferenced object/ { if (ms && !site) n++; ms = site = 0 }
		     /\[msleak\]$/ { ms = 1 } /msleak_lost_site\+/ { site = 1 }
		     END { if (ms && !site) n++; print n + 0 }' /tmp/t23.kml)
	diag "kmemleak: $k of msleak's 20 disguised objects reported at msleak_lost_site"
	expect_eq "memscope: msleak_lost_site" "$(row msleak_lost_site)" "20 1920"
	expect_eq "kmemleak: objects reported at msleak_lost_site" "$k" 20
	expect_eq "kmemleak: msleak objects reported at any other site" "$other" 0
	echo clear > $KML
	rmmod msleak || fail "rmmod msleak"
	expect_eq "msleak_lost_site once msleak freed them" "$(grep -c msleak $D/memleak)" 0
else
	diag "no kmemleak in this kernel: its agreement with memscope is checked by make check-debug"
fi
echo disable memleak > $D/control || fail "disable memleak"
for p in $PROBES; do
	expect_eq "probe $p after disable memleak" "$(probe_state "$p")" disabled
done

# Sampling: 1 in 8, by pointer.
ms_unload
ms_load memleak=1 memleak_sample=8
expect_eq "version: memleak_sample" "$(awk '$3 == "memleak_sample" { print $4 }' $D/version)" 8
insmod "$LEAK" kmallocs=4000 kfrees=0 cache_allocs=0 cache_frees=0 pages0=0 pages2=0 pfrees0=0 \
	pfrees2=0 pcpus=0 pcpufrees=0 irqobjs=0 || fail "insmod $LEAK kmallocs=4000"
cat $D/memleak > /tmp/t23.leak
r=$(row msleak_kmalloc_site)
n=${r% *} b=${r#* }
diag "sampled 1 in 8 of 4000: ${r:-none}"
{ [ -n "$r" ] && [ "$n" -ge 395 ] && [ "$n" -le 605 ]; } ||
	fail "msleak_kmalloc_site with memleak_sample=8: ${r:-no row} (allocations bytes), want 395..605 of 4000"
expect_eq "sampled bytes: 256 per allocation kept" "$b" $((n * 256))
"$CLI" memleak > /tmp/t23.cli || fail "memscope memleak failed: $(cat /tmp/t23.cli)"
grep -q "(sampled: 1 in 8 allocations, counts not scaled):$" /tmp/t23.cli ||
	fail "memscope memleak does not say it samples: $(head -n 1 /tmp/t23.cli)"
rmmod msleak || fail "rmmod msleak"
expect_eq "sampled msleak rows once it unloaded" "$(grep -c msleak $D/memleak)" 0

# memleak's reports on its netlink group, slab allocations only: the page
# cache and page tables of a few seconds outrank msleak's 15 KB among the
# top 10 sites, and a load right before msleak's leaves little else.
ms_unload
ms_load memleak_report_ms=500
if dmesg | grep -q 'memscope: this kernel cannot keep netlink groups to CAP_SYS_ADMIN'; then
	diag "no netlink groups on this kernel: memleak's reports not tested"
	exit 0
fi
slab="kfree kmem_cache_free kmalloc kmem_cache_alloc"
has_tp kmem/kmalloc_node && slab="$slab kmalloc_node kmem_cache_alloc_node"
for p in $slab; do
	echo enable "$p" > $D/control || fail "enable $p"
done
insmod "$LEAK" kmallocs=100 kfrees=40 cache_allocs=30 cache_frees=10 pages0=8 pfrees0=3 \
	pages2=4 pfrees2=1 pcpus=0 pcpufrees=0 irqobjs=0 || fail "insmod $LEAK"
d0=$(ms_stat netlink_dropped)
"$CLI" -j monitor > /tmp/t23.mon 2> /tmp/t23.mon.err &
mpid=$!
mon_site() {
	sed -n 's/.*"site":"msleak_kmalloc_site+[^"]*","allocs":\([0-9]*\),"bytes":\([0-9]*\),.*/\1 \2/p' \
		/tmp/t23.mon | tail -n 1
}
t=0
until [ -n "$(mon_site)" ]; do
	kill -0 $mpid 2>/dev/null || fail "monitor exited: $(cat /tmp/t23.mon.err)"
	t=$((t + 1))
	[ $t -le 100 ] || fail "no memleak report of msleak_kmalloc_site in 10 s: $(head -c 1500 /tmp/t23.mon) $(cat /tmp/t23.mon.err)"
	sleep 0.1
done
cat $D/memleak > /tmp/t23.leak
diag "memleak file: $(grep -n msleak_kmalloc_site /tmp/t23.leak) (line 1 the header); first rows: $(sed -n 2,4p /tmp/t23.leak | tr '\n' ';')"
diag "monitor: $(grep -m 1 msleak_kmalloc_site /tmp/t23.mon)"
expect_eq "monitor -j: msleak_kmalloc_site allocs, bytes" "$(mon_site)" "60 15360"
expect_eq "memleak file at the same time: msleak_kmalloc_site" "$(row msleak_kmalloc_site)" "60 15360"
bad=$(grep '"type":"memleak"' /tmp/t23.mon | grep -v '^{"type":"memleak","time_ns":[0-9]*,"report":[0-9]*,"rank":[0-9]*,"site":"[^" ]*","allocs":[0-9]*,"bytes":[0-9]*,"oldest_ms":[0-9]*}$' | head -n 1)
[ -z "$bad" ] || fail "monitor -j: a memleak report not of the expected fields: $bad"
grep -Eq '"site":"(0x|[^"]*0x[0-9a-f]{9})' /tmp/t23.mon &&
	fail "monitor -j: a raw address: $(grep -Em 1 '"site":"(0x|[^"]*0x[0-9a-f]{9})' /tmp/t23.mon)"
ranks=$(sed -n 's/.*"report":\([0-9]*\),"rank":\([0-9]*\),.*/\1 \2/p' /tmp/t23.mon |
	awk 'NR == 1 { first = $1 } $1 == first { next }
	     { n[$1]++; if ($2 != n[$1] || $2 > 10) bad = bad " " $0 } END { print bad }')
[ -z "$ranks" ] || fail "monitor -j: ranks not 1, 2, ... up to 10 within a report:$ranks"
# Text: the line, as the events file's lines are.
timeout -s INT 3 "$CLI" monitor > /tmp/t23.mont 2>&1
grep -Eq '^memleak time_ns=[0-9]+ report=[0-9]+ rank=[0-9]+ site=msleak_kmalloc_site\+0x[0-9a-f]+/0x[0-9a-f]+\[msleak\] allocs=60 bytes=15360 oldest_ms=[0-9]+$' /tmp/t23.mont ||
	fail "monitor (text) has no memleak line of msleak_kmalloc_site: $(head -n 3 /tmp/t23.mont)"
diag "monitor (text): $(grep -m 1 ' site=msleak_kmalloc_site+' /tmp/t23.mont)"

# Disabled: whatever was under way arrives within two intervals, then nothing.
echo disable memleak > $D/control || fail "disable memleak"
sleep 1
n1=$(grep -c '"type":"memleak"' /tmp/t23.mon)
sleep 1.6
expect_eq "memleak reports in 1.6 s once memleak is disabled (500 ms interval)" \
	$(($(grep -c '"type":"memleak"' /tmp/t23.mon) - n1)) 0
# Enabled again (the table starts empty): the reports come back.
echo enable memleak > $D/control || fail "enable memleak"
r1=$(sed -n 's/.*"report":\([0-9]*\),.*/\1/p' /tmp/t23.mon | tail -n 1)
t=0
while [ "$(sed -n 's/.*"report":\([0-9]*\),.*/\1/p' /tmp/t23.mon | tail -n 1)" = "$r1" ]; do
	t=$((t + 1))
	[ $t -le 50 ] || fail "no memleak report in 5 s after enable memleak"
	sleep 0.1
done
diag "reports again after enable; netlink_dropped $d0 -> $(ms_stat netlink_dropped)"
# Unload while the reports run and monitor listens.
rmmod msleak || fail "rmmod msleak"
ms_unload || fail "rmmod memscope with memleak's reports running"
kill $mpid 2>/dev/null; wait $mpid 2>/dev/null; mpid=
exit 0
