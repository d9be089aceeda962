#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memleak against a fixture that makes known slab allocations from known
# functions (tests/kmod/msleak): 100 kmalloc(256) at msleak_kmalloc_site,
# 40 of them freed, and 30 from its own 200-byte cache at
# msleak_cache_site, 10 freed, and 8 order-0 and 4 order-2 pages at
# msleak_pages_site, 3 and 1 freed.  The memleak file must show exactly 60
# allocations of 15,360 bytes, 20 of 4,000 and 8 of 69,632 at those three
# sites (a page's site is the first caller outside the page allocator),
# largest first, each site one token; once msleak unloads and frees the rest,
# neither is left.  The probes are off at load and the CLI says how to
# turn them on; frees of what was allocated before that count in
# memleak_unknown_frees and leave no row; disable detaches them all.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
LEAK=$TOP/build/$REL/kmod/msleak.ko
PROBES="kfree kmem_cache_free page_free kmalloc kmem_cache_alloc page_alloc"

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { rmmod msleak 2>/dev/null; ms_unload 2>/dev/null; }
trap cleanup EXIT
ms_load
for p in $PROBES; do
	expect_eq "probe $p at load" "$(probe_state "$p")" disabled
done
if kver_ge 6 1; then
	expect_eq "kmalloc_node at load (merged into kmalloc in 6.1)" \
		"$(probe_state kmalloc_node)" unavailable:merged_into_kmalloc
else
	expect_eq "kmalloc_node at load" "$(probe_state kmalloc_node)" disabled
fi
"$CLI" memleak > /tmp/t23.cli 2>&1 && fail "memscope memleak ran with its probes off"
grep -q "memleak is off: .*echo enable memleak > .*/control" /tmp/t23.cli ||
	fail "memscope memleak does not say how to enable it: $(cat /tmp/t23.cli)"

# Allocated before memleak is on: their frees are unknown, not rows.
insmod "$LEAK" kmallocs=50 kfrees=0 cache_allocs=0 cache_frees=0 pages0=0 pages2=0 pfrees0=0 pfrees2=0 ||
	fail "insmod $LEAK"
echo enable memleak > $D/control || fail "enable memleak"
for p in $PROBES; do
	expect_eq "probe $p after enable memleak" "$(probe_state "$p")" attached
done
if kver_ge 6 1; then
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
	pages0=8 pfrees0=3 pages2=4 pfrees2=1 || fail "insmod $LEAK"
cat $D/memleak > /tmp/t23.leak
expect_eq "header" "$(head -n 1 /tmp/t23.leak)" "# site allocs bytes oldest_ms"
row() { awk -v s="$1" 'index($1, s "+") == 1 { print $2, $3 }' /tmp/t23.leak; }
expect_eq "msleak_kmalloc_site: allocations, bytes" "$(row msleak_kmalloc_site)" "60 15360"
expect_eq "msleak_cache_site: allocations, bytes" "$(row msleak_cache_site)" "20 4000"
expect_eq "msleak_pages_site: allocations, bytes (5 x 4 KiB + 3 x 16 KiB)" \
	"$(row msleak_pages_site)" "8 $((5 * 4096 + 3 * 16384))"
site=$(awk 'index($1, "msleak_kmalloc_site+") == 1 { print $1 }' /tmp/t23.leak)
echo "$site" | grep -Eqx 'msleak_kmalloc_site\+0x[0-9a-f]+/0x[0-9a-f]+\[msleak\]' ||
	fail "site is not one name+off/size[module] token: $site"
bad=$(sed 1d /tmp/t23.leak | awk 'NF != 4 || $1 ~ /^0x/ || (NR > 1 && $3 > b) { print NR ": " $0; exit } { b = $3 }')
[ -z "$bad" ] || fail "a row that is malformed, an address or out of order: $bad"
diag "$(sed -n 2,4p /tmp/t23.leak | tr '\n' ';')"

"$CLI" memleak --top 1000 > /tmp/t23.cli || fail "memscope memleak failed: $(cat /tmp/t23.cli)"
grep -q "^	15360 bytes in 60 allocations from msleak_kmalloc_site+.*\[msleak\] (oldest [0-9]* ms)$" /tmp/t23.cli ||
	fail "memscope memleak does not show msleak_kmalloc_site: $(grep msleak /tmp/t23.cli)"
"$CLI" -j memleak --top 1000 > /tmp/t23.json || fail "memscope -j memleak failed"
grep -q '"bytes":4000,"allocs":20,"site":"msleak_cache_site+' /tmp/t23.json ||
	fail "memscope -j memleak does not show msleak_cache_site: $(grep -o '.\{80\}msleak_cache_site.\{40\}' /tmp/t23.json)"

rmmod msleak || fail "rmmod msleak"
expect_eq "msleak rows once it unloaded and freed the rest" "$(grep -c msleak $D/memleak)" 0
expect_eq "memleak_dropped" "$(ms_stat memleak_dropped)" 0
echo disable memleak > $D/control || fail "disable memleak"
for p in $PROBES; do
	expect_eq "probe $p after disable memleak" "$(probe_state "$p")" disabled
done
exit 0
