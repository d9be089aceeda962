#!/bin/sh
# vm-args: --append lockdown=integrity
# SPDX-License-Identifier: GPL-2.0
# Kernel lockdown from boot (lockdown=integrity, what Secure Boot gives).
# What happens to memscope, proved rather than assumed:
# - The kernel refuses the module: it is not signed with a key the kernel
#   trusts, and under lockdown that is fatal (kernel/module/signing.c:
#   security_locked_down(LOCKDOWN_MODULE_SIGNATURE)).  insmod fails with
#   EPERM and the kernel log names lockdown.  Debian's own (signed)
#   modules still load.
# - debugfs under lockdown opens a file only if its mode has no bits
#   beyond 0444 and it is opened read-only, without ioctl or mmap
#   (fs/debugfs/file.c: debugfs_locked_down()).  Shown on the kernel's own
#   files: a 0444 file reads, a 0644 one does not even open for reading.
#   So a signed memscope's 0400 files stay readable and control (0200)
#   does not: 56-lockdown-loaded shows that with the module itself.
# - `memscope status` says the kernel is locked down and how to sign the
#   module (DKMS's MOK key, docs/install.md).
. "$(dirname "$0")/lib.sh"
need_root
PATH=$PATH:/usr/sbin:/sbin
need_lockdown
# Lockdown refuses an unsigned module only where the kernel checks module
# signatures (CONFIG_MODULE_SIG; make check-old's kernels are built
# without, their configuration installed as /boot/config-RELEASE).
cfg=/boot/config-$(uname -r)
[ -r "$cfg" ] || fail "no $cfg: cannot tell whether the kernel checks module signatures"
grep -q '^CONFIG_MODULE_SIG=y' "$cfg" ||
	lacks "module signing (CONFIG_MODULE_SIG), which lockdown's refusal of unsigned modules is part of"
mode=$(cat $SEC/lockdown)
# The levels this kernel has: none, integrity and confidentiality
# upstream; RHEL 8's backport has no confidentiality.
levels=$(echo "$mode" | tr -d '[]')
case " $levels " in *" none integrity "*) ;; *) fail "lockdown levels: $mode" ;; esac
expect_eq "lockdown (booted with lockdown=integrity)" "$mode" "$(echo "$levels" | sed 's/integrity/[integrity]/')"

# The module is refused, and the kernel says why.
n0=$(dmesg | wc -l)
if insmod "$KO" 2> /tmp/insmod.err; then
	rmmod memscope
	fail "insmod of an unsigned module succeeded under lockdown=integrity"
fi
diag "insmod: $(cat /tmp/insmod.err)"
grep -q "Operation not permitted" /tmp/insmod.err || fail "insmod did not fail with EPERM"
dmesg | tail -n +$((n0 + 1)) > /tmp/dmesg.new
grep -q "Lockdown: insmod: unsigned module loading is restricted" /tmp/dmesg.new ||
	fail "no lockdown line in the kernel log: $(tail -n 3 /tmp/dmesg.new)"
diag "kernel: $(grep 'Lockdown: insmod' /tmp/dmesg.new | tail -n 1 | sed 's/^\[[^]]*\] //')"
[ -e /sys/module/memscope ] && fail "memscope is loaded"
# A module signed by Debian loads: the refusal is about the signature.
lsmod | grep -q '^zram ' && fail "zram already loaded: pick another module"
modprobe zram || fail "modprobe zram (signed by Debian) failed under lockdown"
rmmod zram
diag "modprobe zram (signed by Debian): loaded"

# debugfs under lockdown: read-only files open, the others do not.
ro=/sys/kernel/debug/extfrag/unusable_index rw=/sys/kernel/debug/fault_around_bytes
expect_eq "mode of $ro" "$(stat -c %a $ro)" 444
expect_eq "mode of $rw" "$(stat -c %a $rw)" 644
cat $ro > /dev/null || fail "cannot read $ro (0444) under lockdown"
if cat $rw > /dev/null 2> /tmp/cat.err; then
	fail "read $rw (0644) under lockdown"
fi
grep -q "Operation not permitted" /tmp/cat.err || fail "reading $rw: $(cat /tmp/cat.err)"
diag "debugfs: a 0444 file reads, a 0644 file gives EPERM even read-only"

# The CLI explains.
$CLI status > /tmp/cli.out 2>&1
rc=$?
diag "memscope status: $(cat /tmp/cli.out)"
expect_eq "memscope status exit status" $rc 1
for want in "memscope module not loaded" "locked down [integrity]" "signed modules" \
	    "MOK" "mokutil --import /var/lib/dkms/mok.pub" "docs/install.md"; do
	grep -qF "$want" /tmp/cli.out || fail "memscope status does not say '$want'"
done
exit 0
