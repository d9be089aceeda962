#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No file prints a kernel address: symbols go through %ps, never %p/%px.
# Every table, ring and histogram gets content first; the debugfs files and
# their procfs copies are both checked, for raw addresses (ffff..., long
# 0x...) and for %p's hashed form (16 hex digits, the upper 8 zero).
. "$(dirname "$0")/lib.sh"
need_root
ms_load procfs=1
# The events stream is read from before the workload, so that its events
# (the compaction's) are checked too.
cat $D/events > /tmp/events.out 2> /tmp/reader.err &
ev=$!
trap 'kill $ev 2>/dev/null; ms_unload 2>/dev/null' EXIT
wait_open $ev $D/events 10 "events"
# Dentries and inodes for drop_caches to free (the shrinkers' rows): a few
# thousand are enough: -maxdepth 3 looked up 33,000 over 9p, 3 s of a
# quiet host's time.
find /usr/share -maxdepth 2 > /dev/null 2>&1
echo 2 > /proc/sys/vm/drop_caches
[ -w /proc/sys/vm/compact_memory ] && echo 1 > /proc/sys/vm/compact_memory
[ -x "$W/touch_anon" ] && "$W/touch_anon" 256 > /dev/null
# Until the stream has given something, for up to 2 s.
t=0
until [ -s /tmp/events.out ] || [ $t -ge 20 ]; do
	t=$((t + 1))
	sleep 0.1
done
kill $ev; wait $ev 2>/dev/null
nlines /tmp/events.out
diag "events stream: $nlines lines"

addr='ffff[0-9a-f]{8,}|0x[0-9a-f]{12,}|(^|[^0-9a-fx])0{8}[0-9a-f]{8}([^0-9a-f]|$)'
bad=0 n=0
for f in $(find $D /proc/memscope -type f ! -name control ! -name unwind ! -name uleak ! -name events) /tmp/events.out; do
	n=$((n + 1))
	if grep -Ei "$addr" "$f" > /tmp/addr.out; then
		diag "$f: $(head -n 2 /tmp/addr.out)"
		bad=$((bad + 1))
	fi
done
expect_ge "files checked" $n 33
expect_eq "files printing something like a kernel address" $bad 0
exit 0
