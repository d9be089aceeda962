#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Feature probes: grep the target kernel's headers and print -DMS_HAVE_*
# flags.  Distributions backport interfaces, so a probe beats a version
# number wherever a header shows the difference.
# usage: probe.sh SRCTREE OBJTREE
src=$1
has() { grep -qsE "$2" "$src/$1"; }

has arch/x86/include/asm/ptrace.h 'regs_get_kernel_argument' && echo -DMS_HAVE_REGS_GET_KERNEL_ARGUMENT
exit 0
