/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Uprobes from a module, for uleak.c.  uprobe_register() and
 * uprobe_unregister() are exported from 3.5, with return probes from
 * 3.10; 6.12 changed both (compat/probe.sh, NOTES.md).  Without
 * CONFIG_UPROBES, MS_HAVE_UPROBES is false and uleak refuses to start.
 */
#ifndef _MEMSCOPE_COMPAT_UPROBES_H
#define _MEMSCOPE_COMPAT_UPROBES_H

#include <linux/dcache.h>
#include <linux/sched.h>
#include <linux/uprobes.h>
#ifdef MS_HAVE_MMGRAB
#include <linux/sched/mm.h>
#endif

#ifdef CONFIG_UPROBES
#define MS_HAVE_UPROBES true
#else
#define MS_HAVE_UPROBES false
#endif

/*
 * A registration's handle: the uprobe from 6.12, which unregistering
 * takes; before, unregistering names the inode and offset again.
 */
struct ms_uprobe_reg {
	struct inode *inode;
	loff_t offset;
	struct uprobe *uprobe;
};

/* [6.12, ...): register returns the uprobe, unregistering is two steps. */
#ifdef MS_HAVE_UPROBE_REGISTER_PTR
static inline int ms_uprobe_register(struct ms_uprobe_reg *r, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(r->inode, r->offset, 0, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	r->uprobe = u;
	return 0;
}

static inline void ms_uprobe_unregister(struct ms_uprobe_reg *r, struct uprobe_consumer *uc)
{
	uprobe_unregister_nosync(r->uprobe, uc);
}

static inline void ms_uprobe_unregister_sync(void)
{
	uprobe_unregister_sync();
}
#else
static inline int ms_uprobe_register(struct ms_uprobe_reg *r, struct uprobe_consumer *uc)
{
	return uprobe_register(r->inode, r->offset, uc);
}

/* Returns once no handler of @uc runs (the uprobe's register_rwsem). */
static inline void ms_uprobe_unregister(struct ms_uprobe_reg *r, struct uprobe_consumer *uc)
{
	uprobe_unregister(r->inode, r->offset, uc);
}

static inline void ms_uprobe_unregister_sync(void)
{
}
#endif /* MS_HAVE_UPROBE_REGISTER_PTR */

/* [6.12, ...): the filter has no uprobe_filter_ctx. */
#ifdef MS_HAVE_UPROBE_FILTER_MM
#define MS_UPROBE_FILTER_ARGS(self, mm) struct uprobe_consumer *self, struct mm_struct *mm
#else
#define MS_UPROBE_FILTER_ARGS(self, mm) \
	struct uprobe_consumer *self, enum uprobe_filter_ctx ctx, struct mm_struct *mm
#endif /* MS_HAVE_UPROBE_FILTER_MM */

/* [6.13, ...): handlers take a per-call cookie, which uleak does not use. */
#ifdef MS_HAVE_UPROBE_HANDLER_DATA
#define MS_UPROBE_HANDLER_ARGS(self, regs) \
	struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data
#define MS_URETPROBE_HANDLER_ARGS(self, func, regs) \
	struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs, __u64 *data
#else
#define MS_UPROBE_HANDLER_ARGS(self, regs) struct uprobe_consumer *self, struct pt_regs *regs
#define MS_URETPROBE_HANDLER_ARGS(self, func, regs) \
	struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs
#endif /* MS_HAVE_UPROBE_HANDLER_DATA */

/* [3.10, 4.11): no mmgrab(); the same reference, on mm_count. */
#ifndef MS_HAVE_MMGRAB
static inline void ms_mmgrab(struct mm_struct *mm)
{
	atomic_inc(&mm->mm_count);
}
#define mmgrab ms_mmgrab
#endif /* !MS_HAVE_MMGRAB */

/*
 * How far a function's return moves the user stack pointer from where it
 * was at the function's first instruction: x86-64's ret pops the return
 * address; arm64's returns through the link register.
 */
#if defined(CONFIG_X86_64)
#define MS_URET_SP_DELTA	8
#else
#define MS_URET_SP_DELTA	0
#endif

/*
 * The integer arguments of a user function, at its first instruction, and
 * what it returns, by the architecture's C calling convention: only where
 * the user stack is walked (compat.h), as uleak needs its stacks.
 */
#if defined(CONFIG_X86_64)
static inline unsigned long ms_uarg(const struct pt_regs *regs, unsigned int n)
{
	switch (n) {
	case 0: return regs->di;
	case 1: return regs->si;
	case 2: return regs->dx;
	case 3: return regs->cx;
	}
	return 0;
}
#elif defined(CONFIG_ARM64)
static inline unsigned long ms_uarg(const struct pt_regs *regs, unsigned int n)
{
	return n < 8 ? regs->regs[n] : 0;
}
#else
static inline unsigned long ms_uarg(const struct pt_regs *regs, unsigned int n)
{
	return 0;
}
#endif

#endif /* _MEMSCOPE_COMPAT_UPROBES_H */
