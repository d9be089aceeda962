#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Degradation: target_override= points one probe at a symbol or tracepoint
# that does not exist, for each kind of probe (kretprobe, kprobe,
# tracepoint, and fprobe where `version` says the faults probe is one).  The module must load, show that probe as unavailable with
# the reason and count nothing for it, leave every other probe in the state
# a plain load gives it, and those probes must still count events: a fault
# workload, drop_caches (shrink_slab), compact_memory (compaction) and an
# OOM kill in a memcg (memcg reclaim, oom_kill, oom_mark_victim).  The CLI
# names the missing probe and its reason.
. "$(dirname "$0")/lib.sh"
need_root
CG=/sys/fs/cgroup/mstest-degrade
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() { rmdir "$CG" 2>/dev/null; ms_unload 2>/dev/null; }
trap cleanup EXIT
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
{ mkdir -p $CG && echo 8M > $CG/memory.max; } 2>/dev/null || lacks "the cgroup2 memory controller"
[ -e $CG/memory.swap.max ] && echo 0 > $CG/memory.swap.max

# What each probe does at a plain load, on this kernel.
ms_load
states=$(awk '!/^#/ { print $1, $3 }' $D/probes)
hook=$(awk '$1 == "fault_hook" { print $2 }' $D/version)
ms_unload
# shellcheck disable=SC2086,SC2116 # echo joins the lines with spaces
diag "plain load: $(echo $states)"
hits() { awk '!/^#/ { print $1, $4 }' $D/probes; }
# The probes the workload below must make count.
counted="faults shrink_slab_start shrink_slab_end compaction_begin compaction_end
	memcg_reclaim_begin memcg_reclaim_end oom_kill oom_mark_victim"

# probe:kind:reason:parameter
cases="faults:kretprobe:symbol_not_found:fault_hook=kretprobe hugetlb:kprobe:symbol_not_found:
	compaction_begin:tracepoint:tracepoint_not_found:"
[ "$hook" = fprobe ] && cases="faults:fprobe:symbol_not_found: $cases"
for case in $cases; do
	IFS=: read -r probe kind reason param <<EOF
$case
EOF
	bogus=memscope_no_such_$kind
	# shellcheck disable=SC2086 # param is empty or one word
	ms_load target_override="$probe=$bogus" $param
	line=$(awk -v p="$probe" '$1 == p' $D/probes)
	expect_eq "$kind $probe overridden" "$line" "$probe $bogus unavailable:$reason 0 0"

	# Every other probe is as a plain load leaves it.
	others=$(awk -v p="$probe" '!/^#/ && $1 != p { print $1, $3 }' $D/probes)
	want=$(printf '%s\n' "$states" | awk -v p="$probe" '$1 != p')
	# shellcheck disable=SC2086,SC2116 # echo joins the lines with spaces
	[ "$others" = "$want" ] || fail "other probes' states: $(echo $others), want $(echo $want)"
	diag "the $(echo "$others" | wc -l) other probes are as at a plain load"

	# ... and they count.
	hits > /tmp/hits0
	"$W/touch_anon" 256 > /dev/null || fail "touch_anon"
	echo 2 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
	sh -c "echo \$\$ > $CG/cgroup.procs && exec $W/memhog 32" > /dev/null 2>&1
	rc=$?
	[ $rc = 137 ] || fail "memhog in an 8M memcg without swap: exit $rc, want 137 (OOM kill)"
	hits > /tmp/hits1
	for p in $counted; do
		[ "$p" = "$probe" ] && continue
		h0=$(awk -v p="$p" '$1 == p { print $2 }' /tmp/hits0)
		h1=$(awk -v p="$p" '$1 == p { print $2 }' /tmp/hits1)
		{ [ -n "$h1" ] && [ "$h1" -gt "$h0" ]; } || fail "$probe overridden: $p did not count ($h0 -> $h1)"
	done
	# shellcheck disable=SC2086,SC2116 # echo joins the probe names with spaces
	diag "$probe overridden, the others counted: $(awk -v l=" $(echo $counted) " -v p="$probe" '
		NR == FNR { h[$1] = $2; next }
		$1 != p && index(l, " " $1 " ") { printf "%s +%d ", $1, $2 - h[$1] }' /tmp/hits0 /tmp/hits1)"
	# The overridden probe itself never ran.
	expect_eq "$probe still counts nothing after the workload" \
		"$(awk -v p="$probe" '$1 == p' $D/probes)" "$probe $bogus unavailable:$reason 0 0"
	case $probe in
	faults) expect_eq "faults counted with the faults probe unavailable" "$(ms_stat faults)" 0 ;;
	compaction_begin) expect_eq "compactions timed without a begin" "$(ms_stat compaction_count)" 0 ;;
	esac

	# The CLI says which probe is missing and why.
	if [ "$probe" = faults ]; then
		$CLI faults > /tmp/cli.out 2>&1
		rc=$?
		expect_eq "memscope faults exit status" $rc 1
		grep -q "probe faults ($bogus) is unavailable on this kernel: $reason" /tmp/cli.out ||
			fail "memscope faults: $(cat /tmp/cli.out)"
	fi
	$CLI status > /tmp/cli.out 2>&1 || fail "memscope status: $(cat /tmp/cli.out)"
	grep -Eq "^$probe +$bogus +unavailable:$reason " /tmp/cli.out ||
		fail "memscope status does not show $probe unavailable: $(grep "^$probe " /tmp/cli.out)"
	ms_unload
done
exit 0
