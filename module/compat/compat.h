/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, in one place, so the rest of memscope reads like
 * current mainline.  Feature probes from Kbuild (MS_HAVE_*) win over version
 * checks because distributions backport; each range is half-open and the
 * closing #endif repeats its condition.
 * Copyright (C) 2026 The memscope authors.
 */
#ifndef _MEMSCOPE_COMPAT_H
#define _MEMSCOPE_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/proc_fs.h>

/* proc_ops replaced file_operations for procfs in 5.6. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 6, 0)
#define MS_HAVE_PROC_OPS 1
#endif /* LINUX_VERSION_CODE >= KERNEL_VERSION(5, 6, 0) */

/* pde_data() was PDE_DATA() before 5.17. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define pde_data(inode) PDE_DATA(inode)
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0) */

/* no_llseek() went away in 6.12: a NULL llseek means "not seekable". */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ms_no_llseek NULL
#else
#define ms_no_llseek no_llseek
#endif /* LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0) */

/*
 * The n-th argument of a probed function, from its entry registers.
 * regs_get_kernel_argument() exists on x86 from 4.20 (and the RHEL 8 4.18
 * backport); the fallback is the x86-64 SysV order.
 */
#include <asm/ptrace.h>
#if defined(CONFIG_X86_64) && LINUX_VERSION_CODE < KERNEL_VERSION(4, 20, 0) && \
	!defined(MS_HAVE_REGS_GET_KERNEL_ARGUMENT)
static inline unsigned long ms_arg(struct pt_regs *regs, unsigned int n)
{
	switch (n) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	case 3: return regs->cx;
	case 4: return regs->r8;
	case 5: return regs->r9;
	}
	return 0;
}
#else
#define ms_arg(regs, n) regs_get_kernel_argument(regs, n)
#endif /* CONFIG_X86_64 && < 4.20 */

#endif /* _MEMSCOPE_COMPAT_H */
