#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS builds memscope for each kernel from the source scripts/dkms-tree
# lays out (what the packages install), and for the first kernel from the
# whole tree copied as a user would to /usr/src/memscope-<version> and
# added with "dkms add /usr/src/memscope-<version>".  Private DKMS and source trees, so the host's DKMS
# state is untouched.  TAP lines.
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
echo "1..$(($# + 1))"
command -v dkms > /dev/null || { echo "# Error: dkms not installed; run 'make deps'"; exit 1; }
tmp=$(mktemp -d)
fail=0
trap 'rm -rf "$tmp"' EXIT
"$top/scripts/dkms-tree" "$tmp/src/memscope-$ver"
# built SRCTREE DKMSTREE KERNEL: dkms build works, and the module it
# made carries VERSION.  Its output is appended to $tmp/log.
built() {
	dkms build -m memscope -v "$ver" -k "$3" --sourcetree "$1" \
		--dkmstree "$2" >> "$tmp/log" 2>&1 &&
	ko=$(find "$2/memscope/$ver/$3" -name 'memscope.ko*' | head -n 1) &&
	[ -n "$ko" ] && modinfo -F version "$ko" | grep -qx "$ver"
}
# result STATUS NAME: one TAP line; a failure shows the log's end first.
result() {
	if [ "$1" = 0 ]; then
		echo "ok - $2"
	else
		sed 's/^/# /' "$tmp/log" | tail -n 20
		echo "not ok - $2"
		fail=1
	fi
}
mkdir -p "$tmp/dkms"
for k in "$@"; do
	: > "$tmp/log"
	built "$tmp/src" "$tmp/dkms" "$k"
	result $? "dkms build from a copy of the tree [$k]"
done
# A user's copy: the whole checkout (without build/ and .git), as it is.
user=$tmp/user-src/memscope-$ver
mkdir -p "$user" "$tmp/user-dkms"
tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$user"
# "dkms add DIR" takes the version from dkms.conf, so it must be written out.
dkms add "$user" --sourcetree "$tmp/user-src" --dkmstree "$tmp/user-dkms" > "$tmp/log" 2>&1 &&
	[ -d "$tmp/user-dkms/memscope/$ver" ] &&
	built "$tmp/user-src" "$tmp/user-dkms" "$1"
result $? "dkms add and build of the tree copied to /usr/src/memscope-$ver [$1]"
exit $fail
