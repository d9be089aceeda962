#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A process that touches exactly N new anonymous pages shows N faults in
# faults_by_pid, beyond its own start-up faults.  The start-up cost is
# measured, not assumed: the same static binary run with N=1.
. "$(dirname "$0")/lib.sh"
need_root
N=3000
ms_load

run() {	# run PAGES -> "pid minflt" (minflt from the process's own getrusage)
	"$W/touch_anon" "$1" | awk '{ print $2, $6 }'
}
# shellcheck disable=SC2046 # split "pid minflt" into $1 and $2
set -- $(run 1); pid1=$1
a0=$(ms_stat faults_anon)
r0=$(ms_stat faults_retry)
# shellcheck disable=SC2046 # split "pid minflt" into $1 and $2
set -- $(run $N); pidn=$1; minflt=$2
retries=$(($(ms_stat faults_retry) - r0))
a1=$(ms_stat faults_anon)
# The fork child faults as "sh" before it execs; count the exec'd image.
base=$(table_col faults_by_pid "$pid1" 1 touch_anon)
got=$(table_col faults_by_pid "$pidn" 1 touch_anon)
expect_ge "rows for touch_anon's pid" "$(awk -v p="$pidn" '$1 == p' $D/faults_by_pid | wc -l)" 1
expect_eq "getrusage minflt over the touch loop" "$minflt" $N
diag "start-up faults (N=1 run, minus its one page): $((base - 1))"
# The start-up path of a static binary is the same run to run, but page
# cache and stack placement can shift it by a page or two: allow 2.
# A fault that returns VM_FAULT_RETRY (lock contention, more of it on
# PREEMPT_RT) is two handle_mm_fault() calls and one minflt: allow the
# retries the system saw meanwhile on top.
extra=$((got - N - (base - 1)))
diag "faults for N=$N: $got; beyond N + start-up: $extra; retries meanwhile: $retries"
{ [ "$extra" -ge -2 ] && [ "$extra" -le $((2 + retries)) ]; } ||
	fail "faults $got, want $N + $((base - 1)) +-2 (+ up to $retries retries)"
# The touches are anonymous: the class counter moved by at least N.
expect_ge "faults_anon delta" $((a1 - a0)) $N
exit 0
