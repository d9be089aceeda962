#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slabtop against a fixture that makes known kmem_cache calls on its own
# 200-byte cache, msleak_cache (tests/kmod/msleak; its constructor keeps
# the allocator from merging it into another cache): 30
# kmem_cache_alloc() and 10 kmem_cache_free() at load, the other 20 freed
# at unload.  The slab file's msleak_cache row must count exactly those
# calls, with 200 bytes per allocation; it must count none made before the
# probes came on; the CLI must show the same numbers, once and as rates
# over an interval in which a second load makes 40 more; and with the
# probes off, the CLI says how to turn them on.  Where memscope cannot name
# a cache (no name found in struct kmem_cache) every slab probe must say so.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
LEAK=$TOP/build/$REL/kmod/msleak.ko
NONE="kmallocs=0 kfrees=0 pages0=0 pages2=0 pfrees0=0 pfrees2=0 pcpus=0 pcpufrees=0 irqobjs=0"

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { rmmod msleak 2>/dev/null; ms_unload 2>/dev/null; }
trap cleanup EXIT
# The msleak_cache row, as "allocs frees bytes", or nothing.
row() { awk '$1 == "msleak_cache" { print $2, $3, $4 }' $D/slab; }

ms_load
expect_eq "slab_alloc's target" "$(awk '$1 == "slab_alloc" { print $2 }' $D/probes)" kmem_cache_alloc
expect_eq "slab header" "$(head -n 1 $D/slab)" "# cache allocs frees bytes"
for p in slab_alloc slab_free; do
	expect_eq "probe $p at load" "$(probe_state "$p")" disabled
done
if ! has_tp kmem/kmem_cache_alloc_node; then
	# 6.1's kmem_cache_alloc event fires for the _node and _lru calls too.
	expect_eq "slab_alloc_node" "$(probe_state slab_alloc_node)" unavailable:merged_into_slab_alloc
	expect_eq "slab_alloc_lru" "$(probe_state slab_alloc_lru)" unavailable:merged_into_slab_alloc
else
	expect_eq "slab_alloc_node" "$(probe_state slab_alloc_node)" disabled
	if kver_ge 5 18; then
		expect_eq "slab_alloc_lru" "$(probe_state slab_alloc_lru)" disabled
	else
		expect_eq "slab_alloc_lru (before 5.18)" "$(probe_state slab_alloc_lru)" \
			unavailable:no_kmem_cache_alloc_lru
	fi
fi
optin_leases slabtop slabtop slab_alloc 1 1

# Calls made before the probes came on are not counted.
# shellcheck disable=SC2086 # NONE is a list of parameters
insmod "$LEAK" $NONE cache_allocs=7 cache_frees=7 || fail "insmod $LEAK"
rmmod msleak || fail "rmmod msleak"
echo enable slabtop > $D/control || fail "enable slabtop"
expect_eq "probe slab_alloc after enable slabtop" "$(probe_state slab_alloc)" attached
expect_eq "probe slab_free after enable slabtop" "$(probe_state slab_free)" attached
expect_eq "msleak_cache row before msleak loads again" "$(row)" ""

# shellcheck disable=SC2086
insmod "$LEAK" $NONE cache_allocs=30 cache_frees=10 || fail "insmod $LEAK"
expect_eq "msleak_cache: allocs frees bytes after 30 allocations, 10 frees" "$(row)" "30 10 6000"
"$CLI" slabtop > /tmp/t24.cli 2>&1 || fail "memscope slabtop: $(cat /tmp/t24.cli)"
sed 's/^/# cli: /' /tmp/t24.cli | head -n 6
expect_eq "CLI header" "$(head -n 1 /tmp/t24.cli | tr -s ' ')" "CACHE ALLOCS FREES BYTES"
expect_eq "CLI msleak_cache row" "$(awk '$1 == "msleak_cache" { print $2, $3, $4 }' /tmp/t24.cli)" \
	"30 10 6000"
"$CLI" -j slabtop --top 1000 > /tmp/t24.json || fail "memscope -j slabtop"
expect_eq "JSON msleak_cache" "$(python3 -c '
import json, sys
r = json.load(open("/tmp/t24.json"))
c = [x for x in r["caches"] if x["cache"] == "msleak_cache"]
print(len(c), c[0]["allocs"], c[0]["frees"], c[0]["bytes"])')" "1 30 10 6000"
# Most allocations first.
sorted=$(awk 'NR > 1 { print $2 }' /tmp/t24.cli | sort -rn -c 2>&1) ||
	fail "CLI rows are not by allocations, most first: $sorted"

rmmod msleak || fail "rmmod msleak"
expect_eq "msleak_cache after unload frees the other 20" "$(row)" "30 30 6000"

# An interval: its rates are the calls made in it over its length.
"$CLI" -j slabtop 2 1 > /tmp/t24.rate &
cli=$!
sleep 0.5
# shellcheck disable=SC2086
insmod "$LEAK" $NONE cache_allocs=40 cache_frees=40 || fail "insmod $LEAK"
wait $cli || fail "memscope -j slabtop 2 1"
expect_eq "interval: msleak_cache calls and rate x interval" "$(python3 -c '
import json
r = json.load(open("/tmp/t24.rate"))
c = [x for x in r["caches"] if x["cache"] == "msleak_cache"][0]
print(c["allocs"], c["frees"], c["bytes"], round(c["allocs_per_s"] * r["interval"]),
      round(c["bytes_per_s"] * r["interval"]))')" "40 40 8000 40 8000"
rmmod msleak || fail "rmmod msleak"
expect_eq "msleak_cache after a second load" "$(row)" "70 70 14000"
expect_eq "dropped" "$(ms_stat dropped)" 0

echo disable slabtop > $D/control || fail "disable slabtop"
for p in slab_alloc slab_free; do
	expect_eq "probe $p after disable slabtop" "$(probe_state "$p")" disabled
done
dmesg | grep -q "memscope: slabtop unavailable" &&
	fail "slabtop found no cache name: $(dmesg | grep 'slabtop unavailable')"
exit 0
