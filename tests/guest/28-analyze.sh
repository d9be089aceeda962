#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# analyze: three staged situations, each while `memscope -j analyze` samples,
# and each must be what its closing findings name:
#   an OOM kill (oom_hog in a 32 MiB memcg without swap; /proc/vmstat
#     oom_kill moves by one, the kernel log says "Killed process PID
#     (oom_hog)"): the first finding names the kill, the victim and its memcg;
#   heavy swapping (swap_churn, 64 MiB in a 16 MiB memcg over zram swap;
#     pswpin moves): a finding says "swapping";
#   a leak (memleak on, tests/kmod/msleak makes 4096 kmalloc(256) and frees
#     none, before the sampling starts): a finding names msleak_kmalloc_site
#     with its 4096 allocations of 1 MiB.
# And without the module, analyze still runs from /proc and says what it
# could not see.
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
CG=/sys/fs/cgroup/mstest-analyze
LEAK=$TOP/build/$REL/kmod/msleak.ko

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	grep -q '^msleak ' /proc/modules && rmmod msleak
	zram_swap_off
	rmdir "$CG" 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT

echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $CG || lacks "the cgroup2 memory controller"
{ modprobe zram 2>/dev/null && [ -e /sys/class/zram-control/hot_add ]; } || lacks "zram"
[ -e /sys/module/zswap/parameters/enabled ] && echo N > /sys/module/zswap/parameters/enabled

# findings FILE: the closing findings of an analyze -j report, one a line.
findings() {
	python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["findings"]))' "$1"
}
# analyze SECONDS OUT: start a report in the background.
analyze() {
	"$CLI" -j analyze "$1" > "$2" 2> /tmp/analyze.err &
	apid=$!
}

ms_load

# 1. An OOM kill inside the window.
echo 32M > $CG/memory.max
[ -e $CG/memory.swap.max ] && echo 0 > $CG/memory.swap.max
v0=$(oom_kills_truth)
analyze 10 /tmp/an-oom.json
sleep 1		# for its first snapshot
sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/oom_hog 500 1024" > /tmp/oom-hog.out 2>&1
rc=$?
wait $apid || fail "analyze (oom): $(cat /tmp/analyze.err)"
v1=$(oom_kills_truth)
hog=$(awk '{ print $2; exit }' /tmp/oom-hog.out)
expect_eq "oom_hog exit status (SIGKILL)" $rc 137
expect_eq "$OOM_TRUTH delta" $((v1 - v0)) 1
dmesg | grep -q "Killed process $hog (oom_hog)" || fail "no 'Killed process $hog (oom_hog)' in the kernel log"
findings /tmp/an-oom.json > /tmp/f.txt || fail "analyze (oom) JSON: $(head -c 300 /tmp/an-oom.json)"
while read -r l; do diag "oom: $l"; done < /tmp/f.txt
head -n 1 /tmp/f.txt | grep -q "OOM killer killed 1 task(s) in .* last oom_hog (pid $hog) in memcg /mstest-analyze" ||
	fail "first finding does not name the OOM kill of oom_hog ($hog) in /mstest-analyze"

# 2. Heavy swapping in the memcg, to zram.
zram_swap 256M || fail "zram: $(modprobe zram 2>&1)"
echo 16M > $CG/memory.max
[ -e $CG/memory.swap.max ] && echo max > $CG/memory.swap.max
p0=$(vmstat pswpin)
analyze 8 /tmp/an-swap.json
sleep 1
out=$(sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/swap_churn 64 2") || fail "swap_churn: $out"
wait $apid || fail "analyze (swap): $(cat /tmp/analyze.err)"
p1=$(vmstat pswpin)
expect_ge "pswpin delta" $((p1 - p0)) 1
findings /tmp/an-swap.json > /tmp/f.txt || fail "analyze (swap) JSON: $(head -c 300 /tmp/an-swap.json)"
while read -r l; do diag "swap: $l"; done < /tmp/f.txt
grep -q '^swapping: [0-9.]* pages/s in' /tmp/f.txt || fail "no 'swapping' in the closing findings"
# The swap section times the swap-ins with the module's residency table.
res=$(python3 -c 'import json, sys
def find(o, k):
    if isinstance(o, dict):
        if k in o: return o[k]
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            r = find(v, k)
            if r is not None: return r
    return None
d = json.load(open(sys.argv[1]))
print(find(d, "swap_residency_count"), find(d, "swap_residency_median_min_ns"))' /tmp/an-swap.json)
diag "swap: residency of the pages read back: $res (count, median lower bound in ns)"
expect_ge "swap: pages read back with a residency" "${res%% *}" 1
zram_swap_off

# 3. A leak: memleak on, then 4096 kmalloc(256) nobody frees.
echo "enable memleak" > $D/control || fail "enable memleak"
insmod "$LEAK" kmallocs=4096 kfrees=0 || fail "insmod msleak"
analyze 3 /tmp/an-leak.json
wait $apid || fail "analyze (leak): $(cat /tmp/analyze.err)"
findings /tmp/an-leak.json > /tmp/f.txt || fail "analyze (leak) JSON: $(head -c 300 /tmp/an-leak.json)"
while read -r l; do diag "leak: $l"; done < /tmp/f.txt
grep -q '^msleak_kmalloc_site+0x[0-9a-f]*/0x[0-9a-f]*\[msleak\] holds 4096 allocations, 1048576 bytes' /tmp/f.txt ||
	fail "no msleak_kmalloc_site leak of 4096 allocations, 1048576 bytes in the closing findings"
rmmod msleak

# Without the module: /proc only, and what it could not see.
ms_unload
"$CLI" analyze 1 > /tmp/an-none.txt 2> /tmp/analyze.err || fail "analyze without the module: $(cat /tmp/analyze.err)"
grep -q 'without the module (memscope module not loaded): /proc only' /tmp/an-none.txt ||
	fail "no word that the module is missing: $(head -n 3 /tmp/an-none.txt)"
grep -q 'not seen: per-file faults' /tmp/an-none.txt || fail "no word on what was not seen"
for s in "1. OOM kills" "2. Swap" "3. Free memory and pressure" "4. Processes"; do
	grep -qx "$s" /tmp/an-none.txt || fail "without the module, no section '$s'"
done
if grep -q '^oom_kill ' /proc/vmstat; then
	grep -q "[0-9]* OOM kill(s) since boot" /tmp/an-none.txt ||
		fail "without the module, the OOM kill is not counted"
else
	grep -q "the kernel log has [1-9][0-9]* OOM kill(s); no counter" /tmp/an-none.txt ||
		fail "without the module or vmstat oom_kill, the kernel log's kills are not counted"
fi
diag "without the module: $(grep -c '^   =>' /tmp/an-none.txt) findings, $(tail -n 1 /tmp/an-none.txt)"
exit 0
