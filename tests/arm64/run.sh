#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/arm64/run.sh ABI: the arm64 guest test (tests/arm64/unwind.sh) on
# Debian's arm64 kernel ABI (6.1.0-56: linux-image-6.1.0-56-arm64).
# Cross-builds what it runs with aarch64-linux-gnu-gcc, against the arm64
# sysroot scripts/deps unpacks (glibc, libelf, libdw): the CLI, and the
# workloads mallocer (and mallocer-pac, built with pointer
# authentication) and sbrker.  The module is build/ABI-arm64's, which
# tests/run-all's arm64 build makes (this builds it where it is missing).
# Then boots the guest (scripts/vm-run-arm64) and prints its TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
TOP=$(pwd)
[ $# = 1 ] || { echo "usage: tests/arm64/run.sh ABI" >&2; exit 2; }
abi=$1
ARM64_ROOT=${ARM64_ROOT:-/usr/local/lib/memscope/arm64}
SYS=$ARM64_ROOT/sysroot
OUT=$TOP/build/arm64-user
CROSS=aarch64-linux-gnu-
die() { echo "# $*"; echo "not ok 1 - arm64 unwind: $* [$abi-arm64]"; echo "1..1"; exit 1; }

[ -d "$SYS/usr/lib/aarch64-linux-gnu" ] || die "no arm64 sysroot at $SYS; run 'make deps'"
command -v ${CROSS}gcc > /dev/null || die "no ${CROSS}gcc; run 'make deps'"
ko=$TOP/build/$abi-arm64/memscope.ko
if [ ! -s "$ko" ]; then
	kd=$ARM64_ROOT/usr/src/linux-headers-$abi-arm64
	[ -d "$kd" ] || die "no arm64 headers at $kd; run 'make deps'"
	make -s KVER="$abi-arm64" KDIR="$kd" ARCH=arm64 CROSS_COMPILE=$CROSS module ||
		die "the module does not cross-build for $abi-arm64"
fi

# The CLI, in its own copy of userspace/ (the host's objects stay), against
# the sysroot's libelf and libdw through pkg-config; no libnl, no ncurses.
# One build for every ABI: the first run makes it, under a lock, and
# the next ones use it while no source is newer.
# libelf.pc's Requires.private (zlib, liblzma, libzstd, libbz2) are for a
# static link only, and their -dev packages are not in the sysroot:
# empty .pc files stand for them.
mkdir -p "$OUT/pc"
for p in zlib liblzma libzstd libbz2; do
	printf 'Name: %s\nDescription: a private requirement, none for a dynamic link\nVersion: 0\n' \
		"$p" > "$OUT/pc/$p.pc"
done
pc="env PKG_CONFIG_SYSROOT_DIR=$SYS PKG_CONFIG_LIBDIR=$SYS/usr/lib/aarch64-linux-gnu/pkgconfig:$OUT/pc pkg-config"
{
	flock 9
	stamp=$OUT/.built
	if [ ! -e "$stamp" ] || [ -n "$(find userspace module/uapi tests/workloads VERSION -newer "$stamp" -print -quit)" ]; then
		src=$OUT/userspace
		rm -f "$stamp"
		rm -rf "$src" && cp -r userspace "$src" && rm -f "$src"/*.o "$src"/tools/*.o "$src/memscope" &&
		mkdir -p "$OUT/module" && rm -rf "$OUT/module/uapi" && cp -r module/uapi "$OUT/module/" &&
		cp VERSION "$OUT/" &&
		make -s -C "$src" CC=${CROSS}gcc PKG_CONFIG="$pc" LIBNL=0 NCURSES=0 LIBELF=1 LIBDW=1 \
			LDFLAGS="-Wl,-rpath-link,$SYS/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,$SYS/lib/aarch64-linux-gnu" \
			memscope > "$OUT/cli.log" 2>&1 || { cat "$OUT/cli.log"; exit 1; }
		# Dynamic, as the host's: its glibc is the guest's (the same 2.36).
		make -s -C tests/workloads OUT="$OUT/workloads" CC=${CROSS}gcc \
			"$OUT/workloads/mallocer" "$OUT/workloads/sbrker" > "$OUT/workloads.log" 2>&1 ||
			{ cat "$OUT/workloads.log"; exit 1; }
		# The same with pointer authentication: return addresses saved
		# signed (paciasp), which the walk strips.
		${CROSS}gcc -O2 -Wall -Wextra -Werror -fomit-frame-pointer -fno-optimize-sibling-calls \
			-mbranch-protection=standard -o "$OUT/workloads/mallocer-pac" \
			tests/workloads/mallocer.c >> "$OUT/workloads.log" 2>&1 ||
			{ cat "$OUT/workloads.log"; exit 1; }
		touch "$stamp"
	fi
} 9> "$OUT/.lock" || die "the CLI or the workloads do not cross-build for arm64 (above)"
if grep -E 'warning:|error:' "$OUT/cli.log"; then
	die "the CLI's arm64 build has warnings (above)"
fi

exec scripts/vm-run-arm64 -k "$abi" --timeout "${ARM64_TIMEOUT:-900}" \
	--keep-log "$TOP/build/test-logs/arm64-$abi.console" -- tests/arm64/unwind.sh \
	"$ko" "$OUT/userspace/memscope" "$OUT/workloads/mallocer" "$OUT/workloads/mallocer-pac" "$OUT/workloads/sbrker"
