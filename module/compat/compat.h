/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, in one place, so the rest of memscope reads like
 * current mainline.  Feature probes from Kbuild (MS_HAVE_*, probe.sh) win
 * over version checks because distributions backport; each shim names the
 * half-open range [first, last) of mainline releases that need it, and the
 * closing #endif repeats its condition.  NOTES.md has the prototypes.
 * Copyright (C) 2026 The memscope authors.
 */
#ifndef _MEMSCOPE_COMPAT_H
#define _MEMSCOPE_COMPAT_H

#include <linux/version.h>

/*
 * 4.4 and later, and RHEL 7's 3.10 (RHEL_MAJOR), which carries much that
 * mainline 3.x lacks.  Checked first, before headers an older kernel
 * would trip over.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 4, 0) && \
	!(defined(RHEL_MAJOR) && LINUX_VERSION_CODE >= KERNEL_VERSION(3, 10, 0))
#error "memscope needs Linux 4.4 or later, or RHEL 7's 3.10"
#endif /* < 4.4 && !RHEL 7 */
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/poll.h>
#include <linux/shm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/ptrace.h>

/*
 * A tracepoint of the core kernel, found by name.  From 3.15 the struct
 * tracepoint is looked up (for_each_kernel_tracepoint()) and registered;
 * before (RHEL 7's 3.10) registration takes the name itself, and would
 * wait for a module to bring a name it does not know: every event probed
 * here is the core kernel's and declared by the header its handler was
 * checked against, so it exists.
 */
#ifdef MS_HAVE_FOR_EACH_KERNEL_TRACEPOINT
#include <linux/tracepoint.h>

struct ms_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static inline void ms_tp_match(struct tracepoint *tp, void *priv)
{
	struct ms_tp_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

static inline int ms_tracepoint_register(struct tracepoint **tp, const char *name,
					 void *func, void *data)
{
	struct ms_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(ms_tp_match, &l);
	*tp = l.tp;
	return l.tp ? tracepoint_probe_register(l.tp, func, data) : -ENOENT;
}

static inline void ms_tracepoint_unregister(struct tracepoint *tp, const char *name,
					    void *func, void *data)
{
	tracepoint_probe_unregister(tp, func, data);
}
#else
#include <linux/tracepoint.h>

static inline int ms_tracepoint_register(struct tracepoint **tp, const char *name,
					 void *func, void *data)
{
	*tp = NULL;
	return tracepoint_probe_register(name, func, data);
}

static inline void ms_tracepoint_unregister(struct tracepoint *tp, const char *name,
					    void *func, void *data)
{
	tracepoint_probe_unregister(name, func, data);
}
#endif /* MS_HAVE_FOR_EACH_KERNEL_TRACEPOINT */

/*
 * The function that names a shrinker's cache: scan_objects from 3.12;
 * before (RHEL 7's 3.10 included), the single shrink callback.
 */
#ifdef MS_HAVE_SHRINKER_SCAN_OBJECTS
#define ms_shrinker_fn(shr) ((shr)->scan_objects)
#else
#define ms_shrinker_fn(shr) ((shr)->shrink)
#endif /* MS_HAVE_SHRINKER_SCAN_OBJECTS */

/*
 * The id of a task's cgroup in the default (v2) hierarchy, as cgroup_id()
 * numbers it.  [3.10, 3.16): there is none (RHEL 7): 0.  Under RCU or
 * ms_probe_rcu_lock().
 */
#if defined(MS_HAVE_CSS_SET_DFL_CGRP) && defined(CONFIG_CGROUPS)
#define ms_task_dfl_cgroup_id(t) cgroup_id(rcu_dereference_raw((t)->cgroups)->dfl_cgrp)
#else
#define ms_task_dfl_cgroup_id(t) ((u64)0)
#endif /* MS_HAVE_CSS_SET_DFL_CGRP && CONFIG_CGROUPS */

/* [3.10, 4.7): linux/hash.h's 32-bit multiplier. */
#include <linux/hash.h>
#ifndef GOLDEN_RATIO_32
#define GOLDEN_RATIO_32 0x61C88647
#endif

/*
 * handle_mm_fault()'s arguments, for the kprobe on it: (mm, vma, address,
 * flags) before 4.6, (vma, address, flags) from 4.6 (and a fourth, regs,
 * from 5.9).  The header decides: RHEL 7's 3.10 has the later form.
 */
#ifdef MS_HAVE_HANDLE_MM_FAULT_MM
#define MS_FAULT_ARG_VMA 1
#else
#define MS_FAULT_ARG_VMA 0
#endif /* MS_HAVE_HANDLE_MM_FAULT_MM */
#define MS_FAULT_ARG_FLAGS (MS_FAULT_ARG_VMA + 2)

/*
 * [6.4, ...): a fault may be handled under its VMA's lock alone
 * (FAULT_FLAG_VMA_LOCK); before, handle_mm_fault() always runs with the
 * mmap lock held.
 */
#ifdef MS_HAVE_FAULT_FLAG_VMA_LOCK
#define MS_FAULT_FLAG_VMA_LOCK FAULT_FLAG_VMA_LOCK
#else
#define MS_FAULT_FLAG_VMA_LOCK 0
#endif /* MS_HAVE_FAULT_FLAG_VMA_LOCK */

/*
 * [6.4, 6.15) and RHEL 9.6, with CONFIG_PER_VMA_LOCK: the VMA of @mm that
 * holds @addr, read-locked by its own lock, as lock_vma_under_rcu() (not
 * exported) takes it: looked up under RCU (VMAs are freed after a grace
 * period there), then a trylock that fails while a writer has or waits
 * for it, then checked that it was not detached or moved meanwhile.
 * ERR_PTR(-EBUSY) if it could not be had, NULL if no VMA holds @addr.
 * Never sleeps: probe context.  Unlock with ms_vma_read_unlock().
 */
#if defined(MS_HAVE_VMA_START_READ) && defined(CONFIG_PER_VMA_LOCK)
#define MS_HAVE_VMA_READ_LOCK 1
static inline struct vm_area_struct *ms_vma_read_trylock(struct mm_struct *mm,
							 unsigned long addr)
{
	unsigned long index = addr;
	struct vm_area_struct *vma;

	rcu_read_lock();
	vma = mt_find(&mm->mm_mt, &index, addr);
	if (vma) {
		if (!vma_start_read(vma)) {
			vma = ERR_PTR(-EBUSY);
		} else if (vma->detached || addr < vma->vm_start || addr >= vma->vm_end) {
			vma_end_read(vma);
			vma = ERR_PTR(-EBUSY);
		}
	}
	rcu_read_unlock();
	return vma;
}

static inline void ms_vma_read_unlock(struct vm_area_struct *vma)
{
	vma_end_read(vma);
}
#else
#define MS_HAVE_VMA_READ_LOCK 0
static inline struct vm_area_struct *ms_vma_read_trylock(struct mm_struct *mm,
							 unsigned long addr)
{
	return ERR_PTR(-EBUSY);
}

static inline void ms_vma_read_unlock(struct vm_area_struct *vma)
{
}
#endif /* MS_HAVE_VMA_START_READ && CONFIG_PER_VMA_LOCK */

/*
 * [4.4, 4.5): shmem pages counted as file pages (no MM_SHMEMPAGES): the
 * shmem RSS is unknown, -1, as the kernel's "Killed process" line then
 * leaves it out.
 */
#ifdef MS_HAVE_MM_SHMEMPAGES
#define ms_mm_shmem_kb(mm) (get_mm_counter(mm, MM_SHMEMPAGES) << (PAGE_SHIFT - 10))
#else
#define ms_mm_shmem_kb(mm) (-1L)
#endif /* MS_HAVE_MM_SHMEMPAGES */

/*
 * [4.4, 4.6): is_compat_task() before in_compat_syscall().
 */
#ifndef MS_HAVE_IN_COMPAT_SYSCALL
#include <linux/compat.h>
#define in_compat_syscall() is_compat_task()
#endif /* !MS_HAVE_IN_COMPAT_SYSCALL */

/*
 * [4.9, 4.16): poll handlers returned unsigned int of POLL* bits.
 */
#ifndef MS_HAVE_POLL_T
typedef unsigned int __poll_t;
#define EPOLLIN POLLIN
#define EPOLLRDNORM POLLRDNORM
#endif /* !MS_HAVE_POLL_T */

/*
 * [4.9, 4.17): uapi flags newer than the kernel, for naming them in a
 * newer userspace's calls; the values are ABI.
 */
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03	/* 4.15 */
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000		/* 4.15 */
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000	/* 4.17 */
#endif
#ifndef SHM_STAT_ANY
#define SHM_STAT_ANY 15			/* 4.17 */
#endif

/*
 * [4.9, 4.17): fault handlers returned a plain int of VM_FAULT_* bits.
 */
#ifndef MS_HAVE_VM_FAULT_T
typedef int vm_fault_t;
#endif /* !MS_HAVE_VM_FAULT_T */

/*
 * [4.9, 4.18): no linux/overflow.h size helpers.  The same contract:
 * saturate at SIZE_MAX, which no allocator satisfies, instead of wrapping.
 */
#ifdef MS_HAVE_ARRAY_SIZE
#include <linux/overflow.h>
#else
static inline size_t ms_size_mul(size_t a, size_t b)
{
	return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static inline size_t ms_size_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

#define array_size(a, b) ms_size_mul(a, b)
#define array3_size(a, b, c) ms_size_mul(ms_size_mul(a, b), c)
#define struct_size(p, member, n) \
	ms_size_add(sizeof(*(p)), ms_size_mul(n, sizeof(*(p)->member)))
#endif /* !MS_HAVE_ARRAY_SIZE */

/*
 * [4.9, 4.12): no kvmalloc().  What it does from 4.12 for GFP_KERNEL: a
 * kmalloc() that neither warns nor retries hard, then vmalloc.  kvfree()
 * frees either (3.15).
 */
#ifndef MS_HAVE_KVMALLOC
static inline void *ms_kvmalloc(size_t size, gfp_t flags)
{
	void *p = NULL;

	if (size <= PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER)
		p = kmalloc(size, flags | __GFP_NOWARN | __GFP_NORETRY);
	return p ?: __vmalloc(size, flags | __GFP_HIGHMEM, PAGE_KERNEL);
}
#define kvmalloc(size, flags) ms_kvmalloc(size, flags)
#endif /* !MS_HAVE_KVMALLOC */

/*
 * [4.18, 5.17): PDE_DATA() before it was renamed pde_data().
 */
#ifndef MS_HAVE_PDE_DATA
#define pde_data(inode) PDE_DATA(inode)
#endif /* !MS_HAVE_PDE_DATA */

/*
 * [4.18, 5.6): procfs takes a struct file_operations, not a struct
 * proc_ops, and its fields have no proc_ prefix (and lseek is llseek).
 * The procfs front end declares struct ms_proc_ops and names each field
 * MS_PROC(open) and so on, or MS_PROC_LSEEK: either struct.  Before 5.6
 * procfs ignores .owner as well: removal waits for running operations
 * (proc_reg_*), as it does after.
 */
#ifdef MS_HAVE_PROC_OPS
#define ms_proc_ops proc_ops
#define MS_PROC(field) proc_##field
#define MS_PROC_LSEEK proc_lseek
#else
#define ms_proc_ops file_operations
#define MS_PROC(field) field
#define MS_PROC_LSEEK llseek
#endif /* MS_HAVE_PROC_OPS */

/*
 * [6.5, 6.14): fprobe, with handlers that take pt_regs, a return address
 * and per-call data, where the kernel is built with it (Debian's 6.12 is;
 * its 6.1 is not).  memscope hooks the fault path with it there and with a
 * kretprobe elsewhere (faults.c).
 */
struct fprobe;
typedef int (*ms_fentry_t)(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   struct pt_regs *regs, void *data);
typedef void (*ms_fexit_t)(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   struct pt_regs *regs, void *data);
#if defined(MS_HAVE_FPROBE_PT_REGS) && IS_ENABLED(CONFIG_FPROBE)
#include <linux/fprobe.h>
#define MS_HAVE_FPROBE_HOOK true
typedef struct fprobe ms_fprobe_t;

static inline int ms_fprobe_register(struct fprobe *fp, const char *sym, ms_fentry_t entry,
				     ms_fexit_t exit, size_t data_size, int maxactive)
{
	memset(fp, 0, sizeof(*fp));
	fp->entry_handler = entry;
	fp->exit_handler = exit;
	fp->entry_data_size = data_size;
	fp->nr_maxactive = maxactive;
	return register_fprobe_syms(fp, &sym, 1);
}

/* Also waits until no handler runs (ftrace_shutdown's RCU tasks grace periods). */
#define ms_fprobe_unregister(fp) unregister_fprobe(fp)
#define ms_fprobe_nmissed(fp) READ_ONCE((fp)->nmissed)
/* What one of maxactive costs: fprobe.c's fprobe_rethook_node, a rethook_node and two ips. */
#define MS_FPROBE_NODE_BYTES (sizeof(struct rethook_node) + 2 * sizeof(unsigned long))
#else
#define MS_HAVE_FPROBE_HOOK false
typedef struct { unsigned long nmissed; } ms_fprobe_t;

static inline int ms_fprobe_register(ms_fprobe_t *fp, const char *sym, ms_fentry_t entry,
				     ms_fexit_t exit, size_t data_size, int maxactive)
{
	return -EOPNOTSUPP;
}

#define ms_fprobe_unregister(fp) do { } while (0)
#define ms_fprobe_nmissed(fp) 0UL
#define MS_FPROBE_NODE_BYTES 0
#endif /* MS_HAVE_FPROBE_PT_REGS && CONFIG_FPROBE */

/*
 * [6.12, ...): no_llseek() is gone; a NULL llseek means "not seekable".
 * Debian's 6.1 and mainline 6.8 .. 6.11 already define no_llseek as NULL.
 */
#ifdef MS_HAVE_NO_LLSEEK
#define ms_no_llseek no_llseek
#else
#define ms_no_llseek NULL
#endif /* MS_HAVE_NO_LLSEEK */

/*
 * [4.18, 5.8): probe_kernel_read() before it was renamed.  Same contract:
 * 0 or -EFAULT, never faults, safe in atomic context.  RHEL 8.6 and later
 * define the new name as a macro for the old function: theirs then.
 */
#if !defined(MS_HAVE_COPY_FROM_KERNEL_NOFAULT) && !defined(copy_from_kernel_nofault)
static inline long ms_copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	return probe_kernel_read(dst, src, size);
}
#define copy_from_kernel_nofault ms_copy_from_kernel_nofault
#endif /* !MS_HAVE_COPY_FROM_KERNEL_NOFAULT && !copy_from_kernel_nofault */

/*
 * [4.18, 5.8): no copy_from_user_nofault().  What it does, from 5.8: a
 * range check, then an atomic copy that fails where it would fault.  For
 * probe context, on the running task's own user memory.
 */
#ifdef MS_HAVE_COPY_FROM_USER_NOFAULT
#define ms_copy_from_user_nofault copy_from_user_nofault
#else
static inline long ms_copy_from_user_nofault(void *dst, const void __user *src, size_t size)
{
	unsigned long a = (unsigned long)src;
	long ret = -EFAULT;

	if (a < TASK_SIZE && size <= TASK_SIZE - a) {
		pagefault_disable();
		ret = __copy_from_user_inatomic(dst, src, size) ? -EFAULT : 0;
		pagefault_enable();
	}
	return ret;
}
#endif /* MS_HAVE_COPY_FROM_USER_NOFAULT */

/*
 * The file behind a path, as the VMAs that map it name it: overlayfs's
 * layer file, where /proc/PID/map_files resolves to the overlay's (6.1
 * opens the layer's file with the overlay's path, a fake one; from 6.8
 * it names the overlay's too).  trace_uprobe.c and bpf's uprobe_multi
 * take d_real_inode() too.  d_real_inode() came in 4.7.
 */
#ifdef MS_HAVE_D_REAL_INODE
#define ms_real_inode(dentry) d_real_inode(dentry)
#else
#define ms_real_inode(dentry) d_inode(dentry)
#endif /* MS_HAVE_D_REAL_INODE */

/*
 * The dentry of the file a VMA maps, in the filesystem that has it: an
 * overlay's layer file opened with the overlay's path (4.19 to 6.5) has
 * the overlay's in f_path; file_dentry() (4.6 on) gives the layer's.
 */
#ifdef MS_HAVE_FILE_DENTRY
#define ms_file_dentry(f) file_dentry(f)
#else
#define ms_file_dentry(f) ((f)->f_path.dentry)
#endif /* MS_HAVE_FILE_DENTRY */

/*
 * [3.10, 5.8): mm->mmap_sem, before the mmap_lock wrappers.  A trylock only:
 * the callers are in probe context.
 */
#ifdef MS_HAVE_MMAP_LOCK
#include <linux/mmap_lock.h>
#define ms_mmap_read_trylock mmap_read_trylock
#define ms_mmap_read_unlock mmap_read_unlock
#else
static inline bool ms_mmap_read_trylock(struct mm_struct *mm)
{
	return down_read_trylock(&mm->mmap_sem);
}

static inline void ms_mmap_read_unlock(struct mm_struct *mm)
{
	up_read(&mm->mmap_sem);
}
#endif /* MS_HAVE_MMAP_LOCK */

/* [3.10, 4.14): kernel_read(file, offset, buf, count). */
static inline ssize_t ms_kernel_read(struct file *file, void *buf, size_t count, loff_t pos)
{
#ifdef MS_HAVE_KERNEL_READ_POS
	return kernel_read(file, buf, count, &pos);
#else
	return kernel_read(file, pos, buf, count);
#endif
}

/*
 * [4.18, 5.16): no folios.  Only probes on folio functions (swap_read_folio
 * 6.8, zswap_load 6.5) ask for a folio's size, and those functions do not
 * exist on such kernels, so this is never reached; it keeps swap.c free of
 * #ifdefs.
 */
#ifndef MS_HAVE_FOLIO_NR_PAGES
struct folio;
static inline long folio_nr_pages(const struct folio *folio)
{
	return 1;
}
#endif /* !MS_HAVE_FOLIO_NR_PAGES */

/*
 * The n-th argument of a probed function, from its entry registers.
 * [4.18, 4.20) on x86-64 (RHEL 8 included): no regs_get_kernel_argument(),
 * so the SysV order by hand.  handle_mm_fault() gained a fourth argument
 * (regs) in 5.9; the first three stay in the same registers.
 */
#if defined(CONFIG_X86_64) && !defined(MS_HAVE_REGS_GET_KERNEL_ARGUMENT)
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
#endif /* CONFIG_X86_64 && !MS_HAVE_REGS_GET_KERNEL_ARGUMENT */

/*
 * [6.15, ...): kernfs_node.parent became the RCU pointer __parent.  Every
 * node pins its parent, so a plain read of either is a stable pointer for
 * as long as the child is pinned.
 */
#ifdef MS_HAVE_KERNFS_RCU_PARENT
#define ms_kernfs_parent(kn) rcu_dereference_raw((kn)->__parent)
#else
#define ms_kernfs_parent(kn) ((kn)->parent)
#endif /* MS_HAVE_KERNFS_RCU_PARENT */

/*
 * [4.18, 5.5): no cgroup_id(); cgroup_ino() is the same number on 64-bit,
 * the cgroup directory's inode number.  A function-like macro, so only a
 * call is renamed.
 */
#ifndef MS_HAVE_CGROUP_ID
#define cgroup_id(cgrp) ((u64)cgroup_ino(cgrp))
#endif /* !MS_HAVE_CGROUP_ID */

/*
 * The key of a task's cgroup in the tables per cgroup.  Where the memory
 * controller is on the default hierarchy, or bound to none, the task's
 * cgroup there; where it is on a v1 hierarchy (RHEL 7 and 8 boot so, and
 * then every task is in the v2 root), the task's memory cgroup in that
 * hierarchy, with MS_CGROUP_V1 set: cgroup ids count per hierarchy.  From
 * 3.16, with css_set's dfl_cgrp; before, the v2 key, 0.  Under RCU or
 * ms_probe_rcu_lock().
 */
#define MS_CGROUP_V1	(1ULL << 63)
#if defined(MS_HAVE_CSS_SET_DFL_CGRP) && defined(MS_HAVE_PRESSURE_GROUPS) && \
	defined(CONFIG_MEMCG)
#define MS_HAVE_CGROUP_V1_KEYS
#include <linux/cgroup.h>

static __always_inline u64 ms_task_cgroup_key(struct task_struct *t)
{
	struct css_set *cset = rcu_dereference_raw(t->cgroups);
	struct cgroup_subsys_state *css = cset->subsys[memory_cgrp_id];

	if (css && css->cgroup->root != cset->dfl_cgrp->root)
		return cgroup_id(css->cgroup) | MS_CGROUP_V1;
	return cgroup_id(cset->dfl_cgrp);
}
#else
#define ms_task_cgroup_key(t) ms_task_dfl_cgroup_id(t)
#endif /* MS_HAVE_CSS_SET_DFL_CGRP && MS_HAVE_PRESSURE_GROUPS && CONFIG_MEMCG */

/*
 * The css after @pos in a pre-order walk of @root's subtree, or NULL: the
 * walks below, which find a cgroup by its id.  Under rcu_read_lock().
 */
#if defined(CONFIG_CGROUPS) && defined(MS_HAVE_CSS_SET_DFL_CGRP)
#include <linux/cgroup.h>
#include <linux/rculist.h>

static inline struct cgroup_subsys_state *
ms_css_next_pre(struct cgroup_subsys_state *pos, struct cgroup_subsys_state *root)
{
	struct cgroup_subsys_state *next;

	next = list_first_or_null_rcu(&pos->children, struct cgroup_subsys_state, sibling);
	if (next)
		return next;
	for (; pos != root; pos = pos->parent) {
		next = list_next_or_null_rcu(&pos->parent->children, &pos->sibling,
					     struct cgroup_subsys_state, sibling);
		if (next)
			return next;
	}
	return NULL;
}

/*
 * The online cgroup of @id in @root's subtree, referenced, or
 * ERR_PTR(-ENOENT).  Online only, as the id lookup from 5.15 (rmdir
 * removes the kernfs node): a removed cgroup lingers in its parent's
 * children until its last reference goes, and is "deleted".  Under
 * rcu_read_lock().
 */
static inline struct cgroup *ms_css_find_id(struct cgroup_subsys_state *root, u64 id)
{
	struct cgroup_subsys_state *pos;

	for (pos = root; pos; pos = ms_css_next_pre(pos, root)) {
		if (cgroup_id(pos->cgroup) != id)
			continue;
		if (css_tryget_online(&pos->cgroup->self))
			return pos->cgroup;
		break;
	}
	return ERR_PTR(-ENOENT);
}
#endif /* CONFIG_CGROUPS && MS_HAVE_CSS_SET_DFL_CGRP */

/*
 * [4.18, 5.15): no cgroup_get_from_id().  Walk the cgroup2 hierarchy from
 * its root (cgroup_get_from_path("/"), exported throughout) for the cgroup
 * whose id matches: the cgroup directory's inode number (from 5.5 also
 * what bpftrace's cgroup builtin gives; before, that adds a generation).  css_next_descendant_pre() is not exported by
 * RHEL 8's 4.18, so the walk follows the css children and sibling lists
 * itself, in one RCU read-side section: a css removed meanwhile keeps its
 * list pointers and its memory until a grace period has passed, which is
 * what list_*_rcu iteration relies on.  Process context only;
 * O(cgroups) per call, once per row at a table's open.  Returns a
 * referenced cgroup, or ERR_PTR(-ENOENT) for a removed one, as 6.1's
 * cgroup_get_from_id() does.
 */
#if defined(MS_HAVE_CGROUP_GET_FROM_ID)
#include <linux/cgroup.h>

/*
 * Online only, as the walk below: until 6.0 the kernfs id lookup checks
 * KERNFS_ACTIVATED, not that the node is still active, so a removed
 * cgroup that its memcg's pages still pin is found, by its old path.
 * RHEL 8.10's backported cgroup_get_from_id() does that (16-faults-
 * process named a removed cgroup by its path); 6.1's does not.
 */
static inline struct cgroup *ms_cgroup_get_from_id(u64 id)
{
	struct cgroup *cgrp = cgroup_get_from_id(id);

	if (!IS_ERR_OR_NULL(cgrp) && !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE)) {
		cgroup_put(cgrp);
		return ERR_PTR(-ENOENT);
	}
	return cgrp;
}
#elif !defined(MS_HAVE_CGROUP_GET_FROM_PATH)
/*
 * [4.4, 4.6): no cgroup_get_from_path() either, nor a cgroup2 hierarchy
 * outside development mode: rows keep the id, "[id:N]".
 */
static inline int ms_cgroup_id_path(u64 id, char *buf, size_t len)
{
	return -EOPNOTSUPP;
}
#define MS_CGROUP_ID_PATH_DONE
#else
#ifdef CONFIG_CGROUPS
#include <linux/cgroup.h>
#include <linux/rculist.h>

static inline struct cgroup *ms_cgroup_get_from_id(u64 id)
{
	struct cgroup *root, *found;

	root = cgroup_get_from_path("/");
	if (IS_ERR(root))
		return root;
	rcu_read_lock();
	found = ms_css_find_id(&root->self, id);
	rcu_read_unlock();
	cgroup_put(root);
	return found;
}
#endif /* CONFIG_CGROUPS */
#endif /* MS_HAVE_CGROUP_GET_FROM_ID, !MS_HAVE_CGROUP_GET_FROM_PATH */

/*
 * A cgroup's path from its id, for a table row at read time: 0, -ENOENT
 * for a removed cgroup, or another error when it cannot be named.
 */
#if defined(CONFIG_CGROUPS) && !defined(MS_CGROUP_ID_PATH_DONE)
#include <linux/cgroup.h>

#ifdef MS_HAVE_CGROUP_PATH_CHAR
/*
 * [3.14, 4.8): cgroup_path() builds the path at the end of buf and returns
 * its start, or NULL if it does not fit; the int form's 0 or error here.
 */
static inline int ms_cgroup_path(struct cgroup *cgrp, char *buf, size_t len)
{
	char *p = cgroup_path(cgrp, buf, len);

	if (!p)
		return -ENAMETOOLONG;
	if (p != buf)
		memmove(buf, p, strlen(p) + 1);
	return 0;
}
#else
#define ms_cgroup_path(cgrp, buf, len) cgroup_path(cgrp, buf, len)
#endif /* MS_HAVE_CGROUP_PATH_CHAR */

#ifdef MS_HAVE_CGROUP_V1_KEYS
/*
 * A memory cgroup of the v1 hierarchy by its id (ms_task_cgroup_key()):
 * a walk of the hierarchy that the reader's own memory cgroup is in, as
 * the v2 walk above.  None once the memory controller has left v1: a v2
 * cgroup of the same id is another cgroup.  Process context.
 */
static inline struct cgroup *ms_cgroup_v1_get_from_id(u64 id)
{
	struct cgroup *found = ERR_PTR(-ENOENT);
	struct cgroup *memroot;
	struct css_set *cset;

	rcu_read_lock();
	cset = task_css_set(current);
	memroot = &cset->subsys[memory_cgrp_id]->cgroup->root->cgrp;
	if (memroot->root != cset->dfl_cgrp->root)
		found = ms_css_find_id(&memroot->self, id);
	rcu_read_unlock();
	return found;
}
#else
#define ms_cgroup_v1_get_from_id(id) ((void)(id), ERR_PTR(-ENOENT))
#endif /* MS_HAVE_CGROUP_V1_KEYS */

static inline int ms_cgroup_id_path(u64 id, char *buf, size_t len)
{
	struct cgroup *cgrp = id & MS_CGROUP_V1 ?
			      ms_cgroup_v1_get_from_id(id & ~MS_CGROUP_V1) :
			      ms_cgroup_get_from_id(id);
	int ret;

	if (IS_ERR_OR_NULL(cgrp))
		return -ENOENT;
	ret = ms_cgroup_path(cgrp, buf, len);
	cgroup_put(cgrp);
	return ret < 0 ? ret : 0;
}
#elif !defined(MS_CGROUP_ID_PATH_DONE)
/* Without cgroups no row is keyed by one. */
static inline int ms_cgroup_id_path(u64 id, char *buf, size_t len)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_CGROUPS && !MS_CGROUP_ID_PATH_DONE */

/*
 * A task's memory cgroup, a css's parent and whether it is online, for
 * pressure's rows per cgroup.  Callers hold the RCU read side a probe
 * has (ms_probe_rcu_lock()), which task_css_check() cannot see.  Without
 * them (RHEL 7's 3.10, or no memcg) there is no such row.
 */
#if defined(MS_HAVE_PRESSURE_GROUPS) && defined(CONFIG_MEMCG)
#define ms_task_memcg_css(t) task_css_check(t, memory_cgrp_id, true)
#define ms_css_parent(css) ((css)->parent)
#define ms_css_online(css) (READ_ONCE((css)->flags) & CSS_ONLINE)
#define ms_css_tryget(css) css_tryget(css)
#define ms_css_put(css) css_put(css)
#define ms_css_path(css, buf, len) ms_cgroup_path((css)->cgroup, buf, len)
#define ms_css_id(css) cgroup_id((css)->cgroup)
#else
struct cgroup_subsys_state;
#define ms_task_memcg_css(t) ((void)(t), (struct cgroup_subsys_state *)NULL)
#define ms_css_parent(css) ((void)(css), (struct cgroup_subsys_state *)NULL)
#define ms_css_online(css) ((void)(css), true)
#define ms_css_tryget(css) ((void)(css), false)
#define ms_css_put(css) ((void)(css))
#define ms_css_path(css, buf, len) ((void)(css), (void)(buf), (void)(len), -EOPNOTSUPP)
#define ms_css_id(css) ((void)(css), (u64)0)
#endif /* MS_HAVE_PRESSURE_GROUPS && CONFIG_MEMCG */

/*
 * Whether task @p is on a CPU now (the pressure family's wakeups of a
 * running task, which PSI's enqueue leaves alone): task_struct's on_cpu
 * is there with CONFIG_SMP only.
 */
#ifdef CONFIG_SMP
#define ms_task_on_cpu(p)	READ_ONCE((p)->on_cpu)
#else
#define ms_task_on_cpu(p)	((p) == current)
#endif /* CONFIG_SMP */

/*
 * [4.18, 5.14): task_is_running() is missing (and ->__state was ->state).
 * It is a macro where it exists.
 */
#ifndef task_is_running
#define task_is_running(t) (READ_ONCE((t)->state) == TASK_RUNNING)
#endif

/*
 * The last pid allocated in a namespace, as /proc/loadavg's 5th field.
 * [.., 4.15): the pidmap allocator kept it in last_pid.
 */
#ifdef MS_HAVE_PID_NS_IDR
#define ms_last_pid(ns) ((pid_t)idr_get_cursor(&(ns)->idr) - 1)
#else
#define ms_last_pid(ns) ((pid_t)READ_ONCE((ns)->last_pid))
#endif /* MS_HAVE_PID_NS_IDR */

/*
 * [4.18, 5.1): syscall_get_arguments() took a window, (i, n), of the six
 * arguments; from 5.1 it always gives all six.  For syscalls.c, which
 * includes asm/syscall.h.
 */
#ifdef MS_HAVE_SYSCALL_GET_ARGUMENTS_IN
#define ms_syscall_get_arguments(regs, args) \
	syscall_get_arguments(current, regs, 0, 6, args)
#else
#define ms_syscall_get_arguments(regs, args) \
	syscall_get_arguments(current, regs, args)
#endif /* MS_HAVE_SYSCALL_GET_ARGUMENTS_IN */

/*
 * [5.16, ...): a page's swap cache bit is the folio's; PageSwapCache() is
 * gone from 6.12.  For the head page of a folio.
 */
#ifdef MS_HAVE_FOLIO_TEST_SWAPCACHE
#define ms_page_swapcache(page) folio_test_swapcache(page_folio(page))
#else
#define ms_page_swapcache(page) PageSwapCache(page)
#endif /* MS_HAVE_FOLIO_TEST_SWAPCACHE */

/*
 * Probe handlers run with preemption off.  From 4.20 (one RCU) that is a
 * read-side critical section for every call_rcu(); before, only for the
 * sched flavour, and a kernel with preemptible RCU (PREEMPT, RT) frees
 * css_sets and tasks after grace periods that do not wait for it: there,
 * a real rcu_read_lock().  A distribution that backported the merge pays
 * for a lock it does not need, never the other way round.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 20, 0) && defined(CONFIG_PREEMPT_RCU)
#define ms_probe_rcu_lock() rcu_read_lock()
#define ms_probe_rcu_unlock() rcu_read_unlock()
#else
#define ms_probe_rcu_lock() do { } while (0)
#define ms_probe_rcu_unlock() do { } while (0)
#endif /* < 4.20 && CONFIG_PREEMPT_RCU */

/*
 * The task an mm is charged to, its owner (a thread group leader, until it
 * exits first), kept only with CONFIG_MEMCG.  RCU-protected: callers run
 * with preemption off.  NULL without it: swap.c then knows no owner.
 */
#ifdef CONFIG_MEMCG
#define ms_mm_owner(mm) rcu_dereference_raw((mm)->owner)
#else
#define ms_mm_owner(mm) ((struct task_struct *)NULL)
#endif /* CONFIG_MEMCG */

#include "tracepoints.h"
#include "genl.h"

/*
 * The user stack walk (ustack.c): the frame pointer of the saved user
 * registers, and whether they are the native (64-bit) mode, on the
 * architectures it walks; elsewhere the walk finds nothing and its probes
 * say so.
 */
#if defined(CONFIG_X86_64)
#define MS_HAVE_USTACK_WALK true
#define ms_user_fp(regs)	((regs)->bp)
#define ms_user_native(regs)	user_64bit_mode(regs)
#elif defined(CONFIG_ARM64)
#define MS_HAVE_USTACK_WALK true
#define ms_user_fp(regs)	((regs)->regs[29])
#define ms_user_native(regs)	(!compat_user_mode(regs))
#else
#define MS_HAVE_USTACK_WALK false
#define ms_user_fp(regs)	0UL
#define ms_user_native(regs)	false
#endif /* CONFIG_X86_64, CONFIG_ARM64 */

/*
 * The walk by unwind tables (unwind.c), on the machines whose rules it
 * follows: the ELF machine its tables are for (0: none, loads fail), the
 * saved user stack pointer and link register, what is left of a return
 * address without its pointer authentication code, and where a signal
 * frame keeps the interrupted frame pointer, stack pointer and pc.
 *
 * x86-64: after the handler's ret popped pretcode, rsp points at the
 * rt_sigframe's struct ucontext, whose uc_mcontext (struct sigcontext)
 * is at 40 (uc_flags, uc_link, the 24-byte uc_stack); in the sigcontext,
 * r8..r15, rdi, rsi come first, so rbp is at 80, then rbx, rdx, rax,
 * rcx, rsp at 120 and rip at 128 (arch/x86/include/uapi/asm/sigcontext.h,
 * struct sigcontext_64).  No link register: the return address is always
 * on the stack.  A frame record { rbp, ra } is at the top of its frame,
 * so the caller's rsp is the record's address + 16.
 *
 * arm64: the return address is in x30 until a prologue saves it, and a
 * user one may carry a PAC in the bits above the user VA range, which
 * TASK_SIZE_64 (a power of two) ends.  A frame record { x29, x30 } is at
 * the bottom of its frame, so a frame-pointer step tells nothing of the
 * caller's sp.  Signal frames are not followed (the builder makes them
 * STOP: arm64's sigreturn trampoline is in the vDSO).
 */
#if defined(CONFIG_X86_64)
#define MS_UNWIND_MACHINE	62	/* EM_X86_64 */
#define ms_user_sp(regs)	((regs)->sp)
#define ms_user_lr(regs)	0UL
#define MS_UNWIND_HAVE_LR	false
#define ms_unwind_strip_pac(pc)	(pc)
#define MS_UNWIND_FP_STEP_SP	true
#define MS_UNWIND_SIGCONTEXT	40
#define MS_UNWIND_SIG_FP	80
#define MS_UNWIND_SIG_SP	120
#define MS_UNWIND_SIG_PC	128
#elif defined(CONFIG_ARM64)
#define MS_UNWIND_MACHINE	183	/* EM_AARCH64 */
#define ms_user_sp(regs)	((regs)->sp)
#define ms_user_lr(regs)	((regs)->regs[30])
#define MS_UNWIND_HAVE_LR	true
#define ms_unwind_strip_pac(pc)	((pc) & (TASK_SIZE_64 - 1))
#define MS_UNWIND_FP_STEP_SP	false
#define MS_UNWIND_SIGCONTEXT	0
#define MS_UNWIND_SIG_FP	0
#define MS_UNWIND_SIG_SP	0
#define MS_UNWIND_SIG_PC	0
#else
#define MS_UNWIND_MACHINE	0
#define ms_user_sp(regs)	0UL
#define ms_user_lr(regs)	0UL
#define MS_UNWIND_HAVE_LR	false
#define ms_unwind_strip_pac(pc)	(pc)
#define MS_UNWIND_FP_STEP_SP	false
#define MS_UNWIND_SIGCONTEXT	0
#define MS_UNWIND_SIG_FP	0
#define MS_UNWIND_SIG_SP	0
#define MS_UNWIND_SIG_PC	0
#endif /* CONFIG_X86_64, CONFIG_ARM64 */

/*
 * The bytes of a module's per-CPU section, per CPU: the loader reserves the
 * whole .data..percpu section, alignment padding included.  Without SMP
 * there is no such section (nor the field): the variables are in .data.
 */
#ifdef CONFIG_SMP
#define ms_module_percpu_size(mod) ((size_t)(mod)->percpu_size)
#else
#define ms_module_percpu_size(mod) ((size_t)0)
#endif /* CONFIG_SMP */

#endif /* _MEMSCOPE_COMPAT_H */
