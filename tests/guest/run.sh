#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs guest tests inside a vm-run guest and prints TAP 13 lines for them,
# each after a "# NAME: N s" line with its wall time in the guest.
# usage: run.sh TEST...    (paths to tests/guest/*.sh)
# Each test gets TEST_TIMEOUT seconds (default 600; vm-run passes TEST_*),
# or the more its "# test-timeout:" line asks for.
rel=$(uname -r)
# Under TCG, starting a dynamically linked program costs 35-120 ms of guest
# time (ld.so, libc, locale), one of busybox's static applets 7-20 ms:
# measured on 6.1, grep 120 ms against 10, awk 63 against 7, sleep 77
# against 19.  The tests run these thousands of times, so they get
# busybox's.  Only applets that take the options the tests use the same
# way; timeout, taskset, flock, stat and the like stay Debian's.
if [ -x /bin/busybox ]; then
	mkdir -p /tmp/guest-bin
	for a in awk cat cut grep head sed sleep sort tail tr uniq wc; do
		ln -sf /bin/busybox /tmp/guest-bin/$a
	done
	PATH=/tmp/guest-bin:$PATH
fi
echo "1..$#"
for t in "$@"; do
	name=$(basename "$t" .sh)
	out=/tmp/$name.out
	start=$(date +%s)
	# A test may ask for more with a "# test-timeout: SECONDS" line.
	lim=${TEST_TIMEOUT:-600}
	want=$(sed -n 's/^# test-timeout: *\([0-9]*\).*/\1/p' "$t" | head -n 1)
	[ -n "$want" ] && [ "$want" -gt "$lim" ] && lim=$want
	timeout "$lim" sh "$t" > "$out" 2>&1
	rc=$?
	sed 's/^/# /; s/^# # /# /' "$out"
	echo "# $name: $(($(date +%s) - start)) s"
	case $rc in
	0) echo "ok - $name [$rel]" ;;
	4) echo "ok - $name [$rel] # SKIP $(grep '^# SKIP' "$out" | tail -n 1 | sed 's/^# SKIP //')" ;;
	124) echo "not ok - $name [$rel] # timed out" ;;
	*) echo "not ok - $name [$rel] # exit $rc" ;;
	esac
done
grep -q '^memscope ' /proc/modules && { echo "# memscope left loaded; unloading"; rmmod memscope; }
exit 0
