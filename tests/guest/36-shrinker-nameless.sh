#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A shrinker whose scan_objects kallsyms cannot name (tests/kmod/msshrink,
# stripped) shows as "[unknown]", never as an address, and its row counts
# exactly what the fixture counted: the do_shrink_slab() calls that found
# objects, and the objects its scans freed.
. "$(dirname "$0")/lib.sh"
need_root
KMOD=$TOP/build/$REL/kmod/msshrink.ko
[ -e "$KMOD" ] || fail "no $KMOD: run make test-modules KVER=$REL"

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	rmmod msshrink 2>/dev/null
	ms_unload 2>/dev/null
}
trap cleanup EXIT
# The fixture first.  When a module's init text is freed, ftrace keeps its
# init functions' names for old trace lines (ftrace_mod_address_lookup()),
# and kallsyms falls back on them for an address no module names: a
# module loaded later where that text was gets the other's names (seen
# on 6.12: "memscope_init [memscope]").
# run_fixture: load the fixture and memscope, drop the caches, unload the
# fixture; sets log to its kernel-log lines.
run_fixture() {
	dmesg -C
	insmod "$KMOD" || fail "insmod $KMOD"
	ms_load
	for p in shrink_slab_start shrink_slab_end; do
		[ "$(probe_state $p)" = attached ] || fail "probe $p is $(probe_state $p)"
	done
	# drop_slab() runs every shrinker until its objects are gone.
	echo 2 > /proc/sys/vm/drop_caches
	rmmod msshrink || fail "rmmod msshrink"
	log=$(dmesg | grep 'msshrink: ')
	printf '%s\n' "$log" | sed 's/^/# kernel: /'
}
run_fixture
# Named after another module's freed init function (seen on 6.1: "loop_init
# [loop]", 29-swap-residency's loop module): ftrace keeps those names until
# that module goes (ftrace_release_mod()).  Unload it and run once more.
other=$(printf '%s\n' "$log" | sed -n 's/.*kallsyms names scan_objects: [^ ]*_init \[\([^]]*\)\].*/\1/p')
if [ -n "$other" ] && [ "$other" != msshrink ]; then
	diag "the fixture's text was $other's freed init text: unloading $other, once more"
	ms_unload
	rmmod "$other" || fail "rmmod $other, whose init text the fixture landed in"
	run_fixture
fi
printf '%s\n' "$log" | grep -q 'kallsyms cannot name scan_objects' ||
	fail "the fixture is broken: kallsyms names its scan_objects, so this proves nothing"
counted=$(printf '%s\n' "$log" | sed -n 's/.*msshrink: counted \([0-9]*\) freed.*/\1/p')
freed=$(printf '%s\n' "$log" | sed -n 's/.*msshrink: counted [0-9]* freed \([0-9]*\).*/\1/p')
[ -n "$counted" ] || fail "no counts from msshrink at unload"

cat $D/shrinkers > /tmp/shrinkers.out
if grep -n '0x' /tmp/shrinkers.out; then
	fail "an address in shrinkers"
fi
row=$(grep '^\[unknown\] ' /tmp/shrinkers.out)
[ -n "$row" ] || fail "no [unknown] row: $(tr '\n' ';' < /tmp/shrinkers.out)"
diag "row: $row"
expect_eq "[unknown] count vs the fixture's counts that found objects" "$(echo "$row" | cut -d' ' -f2)" "$counted"
expect_eq "[unknown] freed vs what the fixture's scans freed" "$(echo "$row" | cut -d' ' -f4)" "$freed"
expect_eq "freed: the fixture's whole pool" "$freed" 1000
"$CLI" shrinkers > /tmp/cli.out || fail "memscope shrinkers: $(cat /tmp/cli.out)"
grep -q '^\[unknown\] ' /tmp/cli.out || fail "CLI: no [unknown] row"
! grep -q '0x' /tmp/cli.out || fail "CLI: an address: $(grep 0x /tmp/cli.out)"
exit 0
