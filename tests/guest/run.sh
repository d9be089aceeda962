#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs guest tests inside a vm-run guest and prints TAP 13 lines for them.
# usage: run.sh TEST...    (paths to tests/guest/*.sh)
rel=$(uname -r)
for t in "$@"; do
	name=$(basename "$t" .sh)
	out=/tmp/$name.out
	timeout 600 sh "$t" > "$out" 2>&1
	rc=$?
	sed 's/^/# /; s/^# # /# /' "$out"
	case $rc in
	0) echo "ok - $name [$rel]" ;;
	4) echo "ok - $name [$rel] # SKIP $(grep '^# SKIP' "$out" | tail -n 1 | sed 's/^# SKIP //')" ;;
	124) echo "not ok - $name [$rel] # timed out" ;;
	*) echo "not ok - $name [$rel] # exit $rc" ;;
	esac
done
lsmod | grep -q '^memscope ' && { echo "# memscope left loaded; unloading"; rmmod memscope; }
exit 0
