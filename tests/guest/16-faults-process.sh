#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Rows per process, per cgroup and per file name, against the kernel's own
# counters:
#  - a process of T threads that each touch N new pages has one row under
#    its pid (the tgid) with T*N faults beyond its start-up, and the
#    threads' own getrusage(RUSAGE_THREAD) counts agree; `memscope faults
#    -p PID` shows it;
#  - faults_by_cgroup's row for a cgroup equals that cgroup's memory.stat
#    pgfault, and `memscope faults -c` shows it; the row survives rmdir;
#  - two files of one name in two directories are one row, as ffaults.bt
#    keys by name; a file renamed between a short (inline) and a long
#    (external) name while it faults counts every fault under one of its
#    two names, and no torn name ever appears.
. "$(dirname "$0")/lib.sh"
need_root
T=4 N=3000
CG=/sys/fs/cgroup/memscope-t16
FA=/sys/kernel/debug/fault_around_bytes
DIR=/tmp/memscope-t16
old_fa=''
trap '[ -n "$old_fa" ] && echo "$old_fa" > $FA; rmdir $CG 2>/dev/null; rm -rf $DIR /dev/shm/t16.pin; ms_unload' EXIT
ms_load

# --- threads: one row per process
run() {	# run T N -> "pid minflt"
	"$W/touch_threads" "$1" "$2" | awk '{ print $2, $8 }'
}
# shellcheck disable=SC2046 # split "pid minflt"
set -- $(run $T 1); pid1=$1
# shellcheck disable=SC2046 # split "pid minflt"
set -- $(run $T $N); pidn=$1; minflt=$2
expect_eq "threads' own minflt over their touch loops" "$minflt" $((T * N))
# One row for the process (the fork child's faults before exec are a row
# of its own, under the shell's name).
expect_eq "rows for the process" \
	"$(awk -v p="$pidn" '$1 == p && $2 == "touch_threads"' $D/faults_by_pid | wc -l)" 1
base=$(table_col faults_by_pid "$pid1" 1 touch_threads)
got=$(table_col faults_by_pid "$pidn" 1 touch_threads)
# Start-up (thread stacks, TLS) is measured by the same binary with N=1.
extra=$((got - T * N - (base - T)))
diag "faults for $T x $N: $got; start-up $((base - T)); beyond both: $extra"
{ [ "$extra" -ge -$T ] && [ "$extra" -le $T ]; } ||
	fail "faults $got, want $((T * N)) + $((base - T)) +-$T"
"$CLI" faults -p "$pidn" > /tmp/t16.cli || fail "memscope faults -p failed"
sed 's/^/# /' /tmp/t16.cli
awk -v p="$pidn" -v n="$got" '$1 == p && $2 == "touch_threads" && $3 == n { f = 1 }
	END { exit !f }' /tmp/t16.cli || fail "memscope faults -p $pidn lacks its $got faults"

# --- per cgroup, against memory.stat
# Everything above holds on a kernel without cgroup2's memory controller
# (4.4 has cgroup2 only in development mode); this part needs it.
grep -qsw memory /sys/fs/cgroup/cgroup.controllers || lacks "the cgroup2 memory controller"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir $CG || fail "mkdir $CG"
r0=$(ms_stat faults_retry)
sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/touch_threads $T $N" > /dev/null ||
	fail "workload in $CG failed"
retries=$(($(ms_stat faults_retry) - r0))
# memory.stat is flushed from per-CPU counters at least every 2 s.
sleep 3
pgfault=$(awk '$1 == "pgfault" { print $2 }' $CG/memory.stat)
got=$(awk '$1 == "/memscope-t16" { print $2 }' $D/faults_by_cgroup)
expect_pgfault "faults_by_cgroup /memscope-t16" "$got" "$pgfault" "$retries"
"$CLI" faults -c /memscope-t16 > /tmp/t16.cli || fail "memscope faults -c failed"
sed 's/^/# /' /tmp/t16.cli
grep -q "^/memscope-t16 *$got " /tmp/t16.cli || fail "memscope faults -c lacks the row"
# Then a tmpfs file written from the memcg: its pages, charged there, pin
# the memcg after rmdir, as a service's page cache does on a host.  The
# row must say [deleted:N] still, not the old path: RHEL 8.10's kernfs id
# lookup finds a removed node that is pinned.
sh -c "echo \$\$ > $CG/cgroup.procs && exec head -c 65536 /dev/zero > /dev/shm/t16.pin" ||
	fail "tmpfs write in $CG failed"
got=$(awk '$1 == "/memscope-t16" { print $2 }' $D/faults_by_cgroup)
rmdir $CG || fail "rmdir $CG"
grep '^\[deleted:' $D/faults_by_cgroup | sed 's/^/# after rmdir: /'
awk -v n="$got" '/^\[deleted:/ && $2 == n { f = 1 } END { exit !f }' $D/faults_by_cgroup ||
	fail "the removed cgroup's $got faults are gone: $(tr '\n' ';' < $D/faults_by_cgroup)"

# --- file names
[ -w $FA ] || fail "no $FA"
old_fa=$(cat $FA)
echo 4096 > $FA
mkdir -p $DIR/a $DIR/b
dd if=/dev/zero of=$DIR/a/msame.dat bs=4096 count=300 status=none
dd if=/dev/zero of=$DIR/b/msame.dat bs=4096 count=200 status=none
"$W/touch_file" $DIR/a/msame.dat > /dev/null || fail "touch_file a/msame.dat failed"
"$W/touch_file" $DIR/b/msame.dat > /dev/null || fail "touch_file b/msame.dat failed"
expect_eq "rows named msame.dat" "$(grep -c '^msame\.dat ' $D/faults_by_file)" 1
expect_eq "faults on msame.dat (both directories)" \
	"$(awk '$1 == "msame.dat" { print $2 }' $D/faults_by_file)" 500

S=msrnA
L=msrnB-a-name-longer-than-the-dentry-inline-buffer-xx
M=64 R=60
dd if=/dev/zero of=$DIR/$S bs=4096 count=$M status=none
exec 3< $DIR/$S
"$W/renamer" $DIR/$S $DIR/$L 200000 > /tmp/t16.ren &
ren=$!
# Through the open descriptor: the same dentry whatever its name now.
"$W/touch_file" /proc/self/fd/3 $R | sed 's/^/# /'
kill $ren 2>/dev/null
wait $ren
exec 3<&-
sed 's/^/# /' /tmp/t16.ren
grep '^msrn' $D/faults_by_file | sed 's/^/# row: /'
bad=$(awk -v s=$S -v l=$L '/^msrn/ && $1 != s && $1 != l' $D/faults_by_file)
[ -z "$bad" ] || fail "torn names: $bad"
total=$(awk '/^msrn/ { s += $2 } END { print s + 0 }' $D/faults_by_file)
expect_eq "faults under either name while renamed" "$total" $((M * R))
exit 0
