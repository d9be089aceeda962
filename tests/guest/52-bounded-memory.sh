#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bounded memory.  The footprint that `version` prints must equal the
# formula in docs/testing.md (Memory bounded), computed here from the possible
# CPUs, the table_size and ring_size parameters and the per-CPU section of
# the .ko (what the module loader reserves per CPU), and the kernel's own
# /proc/vmallocinfo must show exactly the pages the tables and rings need.
# Then thousands of distinct short-lived pids (forkmany) and thousands of
# distinct files (touchmany) go through the faults probe: memory does not
# move (footprint, vmalloc pages, module size), each table holds exactly
# table_size rows, and `dropped` is exactly the events the tables could not
# record.  Every fault updates a row of faults_by_pid, faults_by_file and
# faults_by_cgroup, or counts in dropped.  An exited child's row is reused
# by the next (table_reused), so faults_by_pid drops nothing; nothing reads
# the tables during the flood, so no file row is reused, and every fault is
# in the one cgroup.  With every other probe detached:
#   dropped = faults - sum(faults_by_file).
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
NPIDS=${TEST_BOUNDED_PIDS:-2000}
NFILES=${TEST_BOUNDED_FILES:-2000}
T=256			# table_size for the flood: filled many times over
MANY=/tmp/bounded-files

# The formula, as docs/testing.md writes it ("560 T + ... + 99552"),
# over T, R, C (possible CPUs), P (the .ko's .data..percpu size), N (the
# probes, each with a hit counter per CPU: the lines of `probes`), H
# (1 when the fault hook is an fprobe), V (1 when the hugetlb hook is a
# kretprobe), L (memleak's table slots), D
# (frames per user stack), S (swap residency entries), O (oom_ring_size)
# and Q (1 where the pressure family hooks its sites).
formula=$(sed -n 's/^ *memory_bytes = //p' "$TOP/docs/testing.md")
[ -n "$formula" ] || fail "no 'memory_bytes = ...' formula in docs/testing.md"
diag "docs/testing.md: memory_bytes = $formula"
expr=$(echo "$formula" | sed -E ':a; s/([0-9A-Z]) ([A-Z])/\1*\2/; ta; s/([0-9A-Z)]) max/\1*max/g')
PCPU=$(printf '%d' "0x$(readelf -SW "$KO" | sed -n 's/.*\] \.data\.\.percpu  *[A-Z]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')") ||
	fail "no .data..percpu section in $KO"
CPUS=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, a, "-");
	c += n == 2 ? a[2] - a[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/possible)
# Its R term is five rings of events: the size of one event.
EV=$(($(echo "$formula" | sed -n 's/.* \([0-9]*\) R .*/\1/p') / 5))
[ "$EV" -gt 0 ] || fail "no 'N R' term in the formula"
footprint() {	# footprint TABLE_SIZE RING_SIZE
	awk -v T="$1" -v R="$2" -v O="$OR" -v C="$CPUS" -v P="$PCPU" -v N="$NPROBES" -v H="$H" -v L="$L" -v D="$UD" -v S="$SW" -v U="$UF" -v K="$K" -v Q="$Q" -v V="$V" \
		"function max(a, b) { return a > b ? a : b } BEGIN { printf \"%d\", $expr }"
}
pages() { echo $((($1 + 4095) / 4096)); }
# vpages BYTES: the pages vmalloc() takes for BYTES: its own, and above 512
# of them the array of page pointers, vmalloc()ed too ("vpages" in
# /proc/vmallocinfo, under the same caller).
vpages() { _n=$(pages "$1"); [ $((_n * 8)) -le 4096 ] || _n=$((_n + $(pages $((_n * 8))))); echo "$_n"; }
vmalloc_pages_once() {
	awk '/\[memscope\]/ { for (i = 1; i <= NF; i++) if ($i ~ /^pages=/) {
		sub("pages=", "", $i); n += $i } } END { print n + 0 }' /proc/vmallocinfo
}
# The kernel's count of pages vmalloc()ed by memscope.  /proc/vmallocinfo
# comes a page of text per read(), each read walking the list of areas
# again to its position: an area allocated or freed in between (a fork's
# stack, a lazy purge) shifts the rest, and an area is skipped or shown
# twice (a 6.1 run read 3744 pages for 3826).  Two equal reads in a row.
vmalloc_pages() {
	_v=$(vmalloc_pages_once) _k=0
	while [ $_k -lt 10 ]; do
		_w=$(vmalloc_pages_once)
		[ "$_w" = "$_v" ] && break
		_v=$_w _k=$((_k + 1))
	done
	echo "$_v"
}
pow2() { p=1; while [ $p -lt "$1" ]; do p=$((p * 2)); done; echo $p; }
diag "possible cpus $CPUS, per-CPU section $PCPU bytes"

# The last also with the pressure family's site hooks, as kernels
# without memstall functions have them (their kretprobes' instances).
for tr in "1024 256 32768 32 16384 64 0" "16 16 4096 1 1024 16 0" "3000 1000 5000 127 3000 1000 1"; do
	# shellcheck disable=SC2086 # split "TABLE_SIZE RING_SIZE MEMLEAK_SIZE USTACK_DEPTH SWAP_RESIDENCY_SIZE OOM_RING_SIZE PRESSURE_HOOKS"
	set -- $tr
	ms_load table_size="$1" ring_size="$2" memleak_size="$3" ustack_depth="$4" swap_residency_size="$5" oom_ring_size="$6" pressure_hooks="$7"
	OR=$6
	Q=0; grep -q '^pressure_kswapd_wake ' $D/probes && Q=1
	[ "$7" = 0 ] || expect_eq "pressure_hooks=1: its probes listed" $Q 1
	expect_eq "version: oom_ring_size" "$(sed -n 's/^oom_ring_size //p' $D/version)" "$OR"
	H=0; grep -qx 'fault_hook fprobe' $D/version && H=1
	V=0; grep -qx 'hugetlb_hook kretprobe' $D/version && V=1
	NPROBES=$(grep -vc '^#' $D/probes)
	K=$(sed -n 's/^kretprobe_instance_bytes //p' $D/version)
	L=$(pow2 "$3") UD=$4 SW=$(pow2 "$5") UF=$(sed -n 's/^ustack_files //p' $D/version)
	expect_eq "version: ustack_files (default)" "$UF" 1024
	expect_eq "version: swap_residency_size" "$(sed -n 's/^swap_residency_size //p' $D/version)" "$SW"
	expect_eq "version: ustack_depth" "$(sed -n 's/^ustack_depth //p' $D/version)" "$UD"
	# The two stack tables' frames, D per row.
	stacks=$((2 * $(vpages $(($(pow2 "$1") * UD * 8)))))
	expect_eq "version: memleak_size (memleak_size=$3)" "$(awk '$1 == "memleak_size" { print $2 }' $D/version)" "$L"
	t=$(pow2 "$1")
	# shellcheck disable=SC2046 # split the version line into fields
	set -- "$1" "$2" $(sed -n 2p $D/version)
	expect_eq "version line 2 (table_size=$1 ring_size=$2)" "$3 $5 $6 $7 $8 $9 ${10}" \
		"memory_bytes cpus $CPUS table_size $t ring_size $2"
	expect_eq "memory_bytes (table_size=$1 ring_size=$2)" "$4" "$(footprint "$t" "$2")"
	rows=$(pages $((104 * t))) oom=$(pages $((EV * OR))) ring=$(pages $((EV * $2)))
	cnt=0
	for nc in 2 2 1 1 3 2 1 3 1 1 2; do	# each table's columns, one array per CPU
		cnt=$((cnt + CPUS * $(pages $((nc * 8 * t)))))
	done
	# swap_residency_by_pid's row histograms, and the residency entries.
	swres=$(($(vpages $((256 * t))) + $(vpages $((32 * SW)))))
	expect_eq "vmalloc pages: 11 tables and their per-CPU counters, stack frames and row histograms, the oom ring, 5 rings, memleak's, swap residency's and the stack files' tables" \
		"$(vmalloc_pages)" $((11 * rows + cnt + oom + 5 * ring + $(vpages $((64 * L))) + stacks + swres + $(vpages $((512 * UF)))))
	ms_unload
done

# --- the flood ----------------------------------------------------------
ms_load table_size=$T
version0=$(tr "\n" " " < $D/version) vm0=$(vmalloc_pages)
mod0=$(awk '$1 == "memscope" { print $2 }' /proc/modules)
echo "disable all" > $D/control || fail "disable all"
echo reset > $D/control || fail "reset"
echo "enable faults" > $D/control || fail "enable faults"
expect_eq "faults probe" "$(probe_state faults)" attached

got=$("$W/forkmany" "$NPIDS" 2) || fail "forkmany: $got"
expect_eq "short-lived children reaped" "$got" "$NPIDS"
mkdir -p $MANY
got=$("$W/touchmany" $MANY "$NFILES") || fail "touchmany: $got"
expect_eq "distinct files mapped and read" "$got" "$NFILES"
echo "disable faults" > $D/control || fail "disable faults"

# Nothing counts from here on: stats and tables are frozen.
cat $D/stats $D/faults_by_pid $D/faults_by_file $D/faults_by_cgroup > /tmp/flood.out
# shellcheck disable=SC2126 # grep -c would exit 1 on no rows; wc -l does not
rows() { grep -v '^#' "$D/$1" | wc -l; }
sum() { awk -v c="$2" '!/^#/ { s += $c } END { print s + 0 }' "$D/$1"; }
F=$(ms_stat faults) dropped=$(ms_stat dropped)
pid_rows=$(rows faults_by_pid) file_rows=$(rows faults_by_file)
pid_sum=$(sum faults_by_pid 3) file_sum=$(sum faults_by_file 2)
diag "faults $F dropped $dropped; faults_by_pid $pid_rows rows, $pid_sum faults; faults_by_file $file_rows rows, $file_sum faults"
expect_eq "faults_by_pid rows" "$pid_rows" $T
expect_eq "faults_by_file rows" "$file_rows" $T
expect_eq "faults_by_cgroup: every fault in one row" "$(sum faults_by_cgroup 2)" "$F"
expect_eq "dropped = faults - sum(faults_by_file)" "$dropped" $((F - file_sum))
# At most T files have a row; each of the rest dropped its own fault at
# the least.  The children's rows were reused, one per child beyond T.
expect_ge "dropped faults_by_file events" "$dropped" $((NFILES - T))
expect_ge "faults_by_pid rows reused" "$(ms_stat table_reused)" $((NPIDS - T))

expect_eq "version after the flood" "$(tr "\n" " " < $D/version)" "$version0"
expect_eq "vmalloc pages after the flood" "$(vmalloc_pages)" "$vm0"
expect_eq "module size after the flood" "$(awk '$1 == "memscope" { print $2 }' /proc/modules)" "$mod0"

# reset frees the rows: new keys get rows again, nothing is dropped.
echo reset > $D/control || fail "reset"
echo "enable faults" > $D/control || fail "enable faults"
got=$("$W/forkmany" 20 2) || fail "forkmany: $got"
echo "disable faults" > $D/control || fail "disable faults"
F=$(ms_stat faults)
expect_eq "dropped after reset" "$(ms_stat dropped)" 0
expect_eq "faults_by_pid sum after reset" "$(sum faults_by_pid 3)" "$F"
expect_ge "faults_by_pid rows after reset" "$(rows faults_by_pid)" 21
rm -rf $MANY
ms_unload
exit 0
