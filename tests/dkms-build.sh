#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS builds memscope for each kernel from a copy of the tree, in private
# DKMS and source trees so the host's DKMS state is untouched.  TAP lines.
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
echo "1..$#"
command -v dkms > /dev/null || { echo "# Error: dkms not installed; run 'make deps'"; exit 1; }
tmp=$(mktemp -d)
fail=0
trap 'rm -rf "$tmp"' EXIT
"$top/scripts/dkms-tree" "$tmp/src/memscope-$ver"
mkdir -p "$tmp/dkms"
for k in "$@"; do
	if dkms build -m memscope -v "$ver" -k "$k" --sourcetree "$tmp/src" \
		--dkmstree "$tmp/dkms" > "$tmp/log" 2>&1 &&
	   ko=$(find "$tmp/dkms/memscope/$ver/$k" -name 'memscope.ko*' | head -n 1) &&
	   [ -n "$ko" ] && modinfo -F version "$ko" | grep -qx "$ver"; then
		echo "ok - dkms build from a copy of the tree [$k]"
	else
		sed 's/^/# /' "$tmp/log" | tail -n 20
		echo "not ok - dkms build from a copy of the tree [$k]"
		fail=1
	fi
done
exit $fail
