#!/bin/sh
# vm-args: -c 1 --append psi=0
# SPDX-License-Identifier: GPL-2.0
# pressure where the kernel builds PSI in but boots with it off (psi=0
# here; RHEL 8's default, CONFIG_PSI_DEFAULT_DISABLED): the kernel shows
# no /proc/pressure/memory, and memscope's pressure is all there is.  The
# kernel still calls its memstall functions, which return at once, and
# memscope counts from them.  On kernels without PSI at all (4.9 and
# 4.19 in make check-old, which ignore psi=0) the same, from the hooks on
# the sites.  Without the kernel's PSI to compare with,
# the ground truth is the workload's: an idle guest stalls for nothing; a
# memcg thrashing through zram stalls at least as long as the memcg
# reclaim the vmscan tracepoints timed for it, and no longer than it ran;
# the 10 s average rises with it and decays after.  Then the tools:
# memscope pressure, export (--node-names: node_exporter's names, which
# the kernel does not give here) and analyze.  One vCPU: PSI's system
# figure weighs each CPU's stalls by its busy time, so with two the
# thrash's stall could count for anything from half to all of itself
# (CI's 6.12 run: 67% of the memcg reclaim time, the other CPU busy);
# with one it is the stall itself, and the memcg reclaim is part of it.
. "$(dirname "$0")/lib.sh"
need_root
grep -qw 'psi=0' /proc/cmdline || fail "not booted with psi=0 (vm-args)"
[ -e /proc/pressure/memory ] && fail "psi=0, yet the kernel shows /proc/pressure/memory"
[ -e /sys/fs/cgroup/cgroup.controllers ] || lacks "cgroup v2"
ms_load
# Kernels without memstall functions (before 4.20: make check-old) have
# the sites' own hooks instead, of which reclaim's must be there; the
# kretprobes on static functions a build may have inlined.
if [ -n "$(probe_state pressure_enter)" ]; then
	probes="pressure_enter pressure_leave pressure_switch"
else
	probes="pressure_switch pressure_direct_reclaim_begin pressure_direct_reclaim_end
		pressure_memcg_reclaim_begin pressure_memcg_reclaim_end"
	grep -E '^pressure_(kswapd|direct_compact|kcompactd) ' $D/probes | while read -r l; do diag "$l"; done
fi
for p in $probes; do
	[ "$(probe_state "$p")" = attached ] || fail "probe $p is $(probe_state "$p")"
done
zram_swap 256M || fail "no zram"

CG=/sys/fs/cgroup/memscope-nopsi
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || fail "cannot enable the memory controller"
rmdir $CG 2>/dev/null
mkdir $CG || fail "mkdir $CG"
trap 'rmdir $CG 2>/dev/null; zram_swap_off; ms_unload 2>/dev/null' EXIT

# field KIND NAME: a value of the pressure file's some or full line.
field() { awk -v k="$1" -v f="$2" '$1 == k { for (i = 2; i <= NF; i++) {
	split($i, kv, "="); if (kv[1] == f) print kv[2] } }' $D/pressure; }
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# Idle: three seconds in which nothing should stall.
s0=$(field some total)
sleep 3
expect_ge "idle 3 s: some stayed under 10 ms (us left of 10000)" $((10000 - ($(field some total) - s0))) 0

# cg KIND: memscope's some_us or full_us of the test's memcg.
cg() { awk -v p="${CG#/sys/fs/cgroup}" -v k="$1" '!/^#/ && $1 == p { v = k == "some" ? $2 : $3 }
	END { print v + 0 }' $D/pressure_by_cgroup; }
# A memcg thrashing through zram swap.
echo 24M > $CG/memory.max
s0=$(field some total) f0=$(field full total) r0=$(ms_stat memcg_reclaim_ns) t0=$(now_ms)
cs0=$(cg some) cf0=$(cg full)
sh -c 'echo $$ > "$0"/cgroup.procs && exec "$1" 64 3' $CG "$W/swap_churn" > /dev/null ||
	fail "swap_churn failed"
t1=$(now_ms)
some=$(( $(field some total) - s0 )) full=$(( $(field full total) - f0 ))
reclaim=$(( ($(ms_stat memcg_reclaim_ns) - r0) / 1000 ))
csome=$(( $(cg some) - cs0 )) cfull=$(( $(cg full) - cf0 ))
diag "thrash: ran $((t1 - t0)) ms, some ${some} us, full ${full} us, memcg reclaim ${reclaim} us; its memcg's some ${csome} us, full ${cfull} us"
expect_ge "memcg reclaim timed by the vmscan tracepoints (us)" "$reclaim" 100000
# The memcg reclaim is a stall site: some holds it whole (less 5% for the
# reads of the two clocks at either end), the system's and the memcg's.
expect_ge "some against 95% of the memcg reclaim time" "$some" $((reclaim * 19 / 20))
expect_ge "some at most the time it ran (us left)" $(( (t1 - t0 + 20) * 1000 - some )) 0
expect_ge "full at most some (us left)" $((some - full)) 0
expect_ge "full (us)" "$full" 1
expect_ge "the memcg's some against 95% of the memcg reclaim time" "$csome" $((reclaim * 19 / 20))
expect_ge "the memcg's some at most the time it ran (us left)" $(( (t1 - t0 + 20) * 1000 - csome )) 0
expect_ge "the memcg's full at most its some (us left)" $((csome - cfull)) 0
# avg10 is a percentage with two decimals: compare in hundredths.  As
# PSI's, it takes in a stall at the end of each 2 s period (and a
# period's worth at most, the rest carried into the next): it peaks a
# period or two after the stall, then decays by 1677/2048 a period.
# The memcg's, in pressure_by_cgroup_avg, the same.
cg_avg10() { awk -v p="${CG#/sys/fs/cgroup}" '$1 == p { v = $2; sub("\\.", "", v); print v + 0 }' \
	$D/pressure_by_cgroup_avg; }
sleep 3
a1=$(field some avg10 | tr -d .) c1=$(cg_avg10)
expect_ge "some avg10 3 s after the thrash, in hundredths of a percent" "$a1" 1
expect_ge "the memcg's some avg10 3 s after the thrash, in hundredths of a percent" "$c1" 1
sleep 6
a2=$(field some avg10 | tr -d .) c2=$(cg_avg10)
[ "$a2" -lt "$a1" ] || fail "some avg10 did not decay in 6 idle seconds: $a1 -> $a2 (hundredths)"
[ "$c2" -lt "$c1" ] || fail "the memcg's some avg10 did not decay in 6 idle seconds: $c1 -> $c2 (hundredths)"
diag "some avg10 decayed in 6 idle seconds: $a1 -> $a2, the memcg's $c1 -> $c2 (hundredths of a percent)"

# memscope pressure: the file's totals, as a table and as JSON.
"$CLI" pressure > /tmp/p.out || fail "memscope pressure failed"
expect_eq "pressure: its rows" "$(awk 'NR > 1 { print $1 }' /tmp/p.out | tr '\n' ' ')" "some full "
st=$(awk '$1 == "some" { print $5 }' /tmp/p.out)
expect_ge "pressure's some total against the file's before it" "$st" "$(( s0 + some ))"
"$CLI" -j pressure > /tmp/p.json || fail "memscope -j pressure failed"
grep -q '"some":{"avg10":[0-9.]*,"avg60":[0-9.]*,"avg300":[0-9.]*,"total_us":[0-9]*}' /tmp/p.json ||
	fail "memscope -j pressure: $(cat /tmp/p.json)"
# Over the netlink family, the same totals (nothing stalls now).
"$CLI" --netlink pressure > /tmp/pn.out || fail "memscope --netlink pressure failed"
"$CLI" pressure > /tmp/p.out || fail "memscope pressure failed"
expect_eq "memscope --netlink pressure: the totals, as the file's" \
	"$(awk 'NR > 1 { print $1, $5 }' /tmp/pn.out | tr '\n' ' ')" \
	"$(awk 'NR > 1 { print $1, $5 }' /tmp/p.out | tr '\n' ' ')"
# pressure -c: the memcg's row, over files and over netlink alike.
"$CLI" pressure -c "${CG#/sys/fs/cgroup}" > /tmp/pc.out || fail "memscope pressure -c failed"
# Its columns: the cgroup, some's three averages and total, full's.  The
# averages move every 2 s as they decay: the totals are compared.
expect_eq "pressure -c: the memcg's row, as the file's" \
	"$(awk 'NR > 1 { print $1, $5, $9 }' /tmp/pc.out)" \
	"${CG#/sys/fs/cgroup} $(cg some) $(cg full)"
grep -Eq "^${CG#/sys/fs/cgroup} +([0-9]+\.[0-9]{2} +){3}[0-9]+ +([0-9]+\.[0-9]{2} +){3}[0-9]+\$" /tmp/pc.out ||
	fail "pressure -c: not the memcg's averages and totals: $(cat /tmp/pc.out)"
"$CLI" --netlink pressure -c "${CG#/sys/fs/cgroup}" > /tmp/pcn.out || fail "memscope --netlink pressure -c failed"
expect_eq "pressure -c over netlink, as over files" "$(awk '{ print $1, $5, $9 }' /tmp/pcn.out)" \
	"$(awk '{ print $1, $5, $9 }' /tmp/pc.out)"
# Interval mode, beside a thrash: its share of the interval stalled.
sh -c 'echo $$ > "$0"/cgroup.procs && exec "$1" 64 4' $CG "$W/swap_churn" > /dev/null &
churn=$!
"$CLI" pressure 1 2 > /tmp/pi.out || fail "memscope pressure 1 2 failed"
wait $churn || fail "swap_churn failed"
expect_eq "pressure 1 2: rows" "$(grep -c '^[0-9][0-9]:' /tmp/pi.out)" 2
expect_ge "pressure 1 2: the largest SOME% of the two, in hundredths" \
	"$(awk '/^[0-9][0-9]:/ { v = $2 * 100; if (v > m) m = v } END { printf "%d\n", m }' /tmp/pi.out)" 1

# export: memscope's names, and node_exporter's with --node-names, here
# where the kernel has no PSI for node_exporter to export.
"$CLI" export --node-names > /tmp/e.prom || fail "memscope export --node-names failed"
for m in memscope_pressure_memory_waiting_seconds_total memscope_pressure_memory_stalled_seconds_total \
	 node_pressure_memory_waiting_seconds_total node_pressure_memory_stalled_seconds_total; do
	grep -q "^$m [0-9]" /tmp/e.prom || fail "export --node-names: no $m"
done
grep -q "^memscope_pressure_memory_waiting_seconds_total{cgroup=\"${CG#/sys/fs/cgroup}\"} [0-9]" /tmp/e.prom ||
	fail "export: no waiting seconds for the memcg: $(grep cgroup= /tmp/e.prom | head -n 3)"
expect_eq "node_ and memscope_ waiting seconds agree" \
	"$(awk '$1 == "node_pressure_memory_waiting_seconds_total" { print $2 }' /tmp/e.prom)" \
	"$(awk '$1 == "memscope_pressure_memory_waiting_seconds_total" { print $2 }' /tmp/e.prom)"
w=$(awk '$1 == "memscope_pressure_memory_waiting_seconds_total" { printf "%d\n", $2 * 1e6 }' /tmp/e.prom)
expect_ge "waiting seconds, in us, against the file's some before" "$w" "$st"
# analyze's pressure step reads memscope's, and says whose it is.
"$CLI" analyze 1 > /tmp/a.out 2>&1 || fail "memscope analyze failed: $(cat /tmp/a.out)"
grep -q "pressure (memscope's, PSI's definitions): some tasks stalled" /tmp/a.out ||
	fail "analyze does not show memscope's pressure: $(grep -i -e psi -e pressure /tmp/a.out)"
"$CLI" -j analyze 1 > /tmp/a.json 2>&1 || fail "memscope -j analyze failed"
grep -q '"psi_source":"memscope"' /tmp/a.json || fail "analyze -j: no psi_source memscope"
echo max > $CG/memory.max
exit 0
