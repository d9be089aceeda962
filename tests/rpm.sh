#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The RPM packages (make rpm): what each contains, its scriptlets and its
# dkms.conf, against the tree they come from; the source rpm rebuilds,
# and the module source in memscope-dkms builds against an installed
# kernel's headers.  TAP 13, plan first.  usage: tests/rpm.sh [KERNEL]
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
ver=$(cat VERSION)
out=build/rpm
x=$out/extract
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
# unpack RPM DIR
unpack() { rm -rf "$2"; mkdir -p "$2"; rpm2cpio "$1" | (cd "$2" && cpio -idm --quiet); }

echo "TAP version 13"
echo "1..7"
cli=$out/memscope-$ver-1.$(uname -m).rpm
dkms=$out/memscope-dkms-$ver-1.noarch.rpm
if scripts/rpm > $out.log 2>&1 && [ -f "$cli" ] && [ -f "$dkms" ] && [ -f "$out/memscope-$ver-1.src.rpm" ]; then
	ok "make rpm builds memscope, memscope-dkms and the source rpm"
else
	notok "make rpm builds memscope, memscope-dkms and the source rpm" "$(tail -n 5 $out.log 2>/dev/null)"
	exit 0
fi

# memscope: the CLI, its man page and completion, and nothing else.
got=$(rpm -qpl "$cli" | grep -v '^/usr/lib/\.build-id' | sort | tr '\n' ' ')
want="/usr/lib/systemd/system/memscope-export.service /usr/lib/systemd/system/memscope-export.timer /usr/sbin/memscope /usr/share/bash-completion/completions/memscope /usr/share/man/man8/memscope.8 "
unpack "$cli" $x/cli
if [ "$got" = "$want" ] && "$x/cli/usr/sbin/memscope" -V | grep -qx "memscope $ver"; then
	ok "memscope holds the CLI (memscope -V says $ver), its man page and completion"
else
	notok "memscope holds the CLI, its man page and completion" "files: $got" "want: $want" \
		"-V: $("$x/cli/usr/sbin/memscope" -V 2>&1)"
fi

# memscope-dkms: exactly what scripts/dkms-tree lays out, noarch, needs dkms.
scripts/dkms-tree $x/tree > /dev/null
unpack "$dkms" $x/dkms
src=$x/dkms/usr/src/memscope-$ver
d=$(diff -r $x/tree "$src" 2>&1)
if [ -z "$d" ] && [ "$(rpm -qp --qf '%{ARCH}' "$dkms")" = noarch ] &&
   rpm -qpR "$dkms" | grep -qx dkms; then
	ok "memscope-dkms holds the DKMS tree at /usr/src/memscope-$ver, noarch, requires dkms"
else
	notok "memscope-dkms holds the DKMS tree" "$(echo "$d" | head -n 5)" \
		"arch: $(rpm -qp --qf '%{ARCH}' "$dkms"), requires: $(rpm -qpR "$dkms" | tr '\n' ' ')"
fi

# Its dkms.conf is the tree's, and names this version.
if cmp -s dkms.conf "$src/dkms.conf" && grep -qx "PACKAGE_VERSION=\"$ver\"" "$src/dkms.conf" &&
   grep -qx 'PACKAGE_NAME="memscope"' "$src/dkms.conf"; then
	ok "memscope-dkms's dkms.conf is the tree's, PACKAGE_VERSION $ver"
else
	notok "memscope-dkms's dkms.conf is the tree's" "$(diff dkms.conf "$src/dkms.conf" | head -n 5)"
fi

# Scriptlets: add, build and install on install; remove every kernel's
# build on erase, in a way an upgrade survives.
s=$(rpm -qp --scripts "$dkms")
post=$(echo "$s" | sed -n '/^postinstall/,/^[a-z]* scriptlet/p')
preun=$(echo "$s" | sed -n '/^preuninstall/,$p')
if echo "$post" | grep -q "^dkms add -m memscope -v $ver .*--rpm_safe_upgrade" &&
   echo "$post" | grep -q "^dkms build -m memscope -v $ver" &&
   echo "$post" | grep -q "^dkms install -m memscope -v $ver" &&
   echo "$preun" | grep -q "^dkms remove -m memscope -v $ver .*--all.*--rpm_safe_upgrade" &&
   ! rpm -qp --scripts "$cli" | grep -q .; then
	ok "memscope-dkms's scriptlets: dkms add, build, install; dkms remove --all (rpm-safe)"
else
	notok "memscope-dkms's scriptlets" "$(echo "$s" | head -n 12)"
fi

# The source rpm is self-contained: it rebuilds both.
rm -rf $x/rebuild
if rpmbuild --rebuild --nodeps --define "_topdir $top/$x/rebuild" "$out/memscope-$ver-1.src.rpm" \
	> $x/rebuild.log 2>&1 && ls "$x/rebuild/RPMS/"*/"memscope-dkms-$ver-1.noarch.rpm" > /dev/null 2>&1; then
	ok "the source rpm rebuilds (rpmbuild --rebuild)"
else
	notok "the source rpm rebuilds" "$(tail -n 5 $x/rebuild.log)"
fi

# The packaged module source builds, W=1, against a kernel's headers.
k=${1:-$(make -s kernels | head -n 1)}
if [ -n "$k" ] && make -C "/lib/modules/$k/build" M="$top/$src" W=1 modules > $x/kbuild.log 2>&1 &&
   ! grep -qE 'warning:|error:' $x/kbuild.log && [ -f "$src/memscope.ko" ]; then
	ok "memscope-dkms's source builds warning-free with W=1 [$k]"
else
	notok "memscope-dkms's source builds warning-free with W=1 [${k:-no kernel}]" \
		"$(grep -E 'warning:|error:' $x/kbuild.log 2>/dev/null | head -n 5)"
fi
exit 0
