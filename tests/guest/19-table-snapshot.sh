#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One open of a table is one snapshot.  faults_by_pid holds 1,500 exited
# processes and, while it is read 1 to 7 bytes at a time (thousands of
# reads, many seq_file buffer refills), new processes keep faulting and
# climb through its sort order.  Each read must still be one consistent
# table: every row once, in the module's order (faults descending, then
# pid), and every one of the exited processes in it.  And the kernel
# counts the snapshots: a kprobe event on ms_table_snapshot() fires once
# per open, not once per seq_file buffer (the table is some 40 KB).
. "$(dirname "$0")/lib.sh"
need_root
N=1500
T=/sys/kernel/tracing
[ -e "$T"/kprobe_events ] || mount -t tracefs nodev $T 2>/dev/null
[ -e "$T"/kprobe_events ] || T=/sys/kernel/debug/tracing
[ -e "$T"/kprobe_events ] || fail "no kprobe_events in tracefs: the kernel needs CONFIG_KPROBE_EVENTS"

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[ -n "${churn:-}" ] && kill "$churn" 2>/dev/null
	echo 0 > "$T"/events/mssnap/enable 2>/dev/null
	echo '-:mssnap/snap' >> "$T"/kprobe_events 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT
ms_load table_size=4096
echo 'p:mssnap/snap ms_table_snapshot' >> "$T"/kprobe_events ||
	fail "cannot put a kprobe event on memscope's ms_table_snapshot"
echo 1 > "$T"/events/mssnap/snap/enable || fail "cannot enable the mssnap/snap event"
"$W/forkmany" $N 2 > /tmp/forkmany.out || fail "forkmany: $(cat /tmp/forkmany.out)"
( while :; do "$W/touch_anon" 3000 > /dev/null; done ) &
churn=$!
sleep 1
for seed in 1 2 3; do
	echo > "$T"/trace
	"$W/readchunks" -s $seed $D/faults_by_pid > /tmp/snap.out || fail "readchunks"
	expect_eq "read $seed: snapshots taken for $(wc -c < /tmp/snap.out) bytes (kprobe event)" \
		"$(grep -c ' snap: ' "$T"/trace)" 1
	rows=$(($(wc -l < /tmp/snap.out) - 1))
	[ "$(head -n 1 /tmp/snap.out)" = "# pid comm faults major" ] || fail "header: $(head -n 1 /tmp/snap.out)"
	dups=$(sed 1d /tmp/snap.out | cut -d' ' -f1,2 | sort | uniq -d | head -n 3 | tr '\n' ';')
	[ -z "$dups" ] || fail "read $seed: rows twice in one read: $dups"
	bad=$(sed 1d /tmp/snap.out | awk 'NR > 1 && ($3 > f || ($3 == f && $1 < p)) { print NR ": " $0; exit }
		{ f = $3; p = $1 }')
	[ -z "$bad" ] || fail "read $seed: out of order at row $bad"
	kids=$(sed 1d /tmp/snap.out | grep -c ' forkmany ')
	expect_ge "read $seed: forkmany rows (its $N children and itself)" "$kids" $((N + 1))
	diag "read $seed: $rows rows in one consistent order"
done
exit 0
