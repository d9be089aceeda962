// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks without frame pointers: the unwind tables the CLI builds
 * from each object's call-frame information (uapi/memscope_unwind.h,
 * userspace/unwind.c), loaded here and followed in probe context.
 * Copyright (C) 2026 The memscope authors.
 *
 * Loading, in process context: the CLI writes { fd, size } and a table to
 * the `unwind` file.  The table is checked in full (every check the uapi
 * header lists: a walk in probe context cannot afford to), copied into
 * memory allocated in that write against the unwind_bytes budget, and
 * keyed by the identity of the file open as fd: its filesystem's device,
 * inode number and generation, the triple NFS file handles use.  No
 * reference is held: a reference to the inode alone (without the mount)
 * let the filesystem be unmounted under it, and the kernel then found a
 * busy inode at the superblock's shutdown ("VFS: Busy inodes after
 * unmount", a WARN), to be put by this module after the superblock was
 * freed.  By identity, a file replaced by a rename (a package upgrade)
 * does not match, a deleted but still mapped one does, an inode evicted
 * and read again still does, and an inode number reused for another
 * file matches only with the same generation (which ext4, xfs, btrfs and
 * tmpfs draw anew).  A table of a file gone stays, unused, until unload,
 * within the budget.  Tables are only
 * added while the module runs: each is published into an RCU hash list,
 * and all are freed at unload, after the probes are gone and a grace
 * period.  vmalloc, not kvmalloc: it is in every kernel memscope builds
 * for, and a table is 10 KiB to a few MiB.
 *
 * Walking, in probe context (never sleeps, never faults, never
 * allocates), with the mmap lock that ufile.c takes (a trylock) held for
 * the whole stack: from the saved user registers, each frame's VMA, its
 * file's table for the segment that holds the offset, the row (page
 * index, then a binary search), and the rule, which gives the caller's
 * stack pointer, frame pointer and return address, each read with the
 * no-fault user copy.  A frame in a file without a table (or in anonymous
 * memory: JIT code) takes the frame-pointer step instead.  x86-64 and
 * arm64 (compat.h's MS_UNWIND_MACHINE); elsewhere no table loads and the
 * frame-pointer walk is the only one.  On arm64 the first frame's return
 * address can still be in the link register (a leaf, or a prologue that
 * has not saved it yet: the rule's ra SAME), and after a frame-pointer
 * step the caller's sp is unknown, so a rule based on it takes the
 * frame-pointer step too.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "memscope.h"
#include "uapi/memscope_unwind.h"

static unsigned long unwind_bytes = 16UL << 20;
module_param(unwind_bytes, ulong, 0400);
MODULE_PARM_DESC(unwind_bytes, "Bytes of unwind tables the CLI may load, for user stacks without frame pointers (0: none)");

#define MS_UNWIND_HASH_BITS	6

struct ms_unwind_tab {
	struct hlist_node node;		/* ms_unwind_hash[hash of ino] */
	struct list_head all;		/* ms_unwind_list, for unload and the text */
	u64 ino;			/* the file: no reference held */
	u32 dev, gen;
	size_t bytes;			/* the blob's */
	const struct memscope_unwind_header *h;	/* the blob */
	const struct memscope_unwind_rule *rules;
	const struct memscope_unwind_row *rows;
	const u32 *pages;
};

static struct hlist_head ms_unwind_hash[1 << MS_UNWIND_HASH_BITS];
static LIST_HEAD(ms_unwind_list);
static DEFINE_MUTEX(ms_unwind_lock);	/* writers: the list, the hash, the bytes */
static size_t ms_unwind_used;		/* blob and descriptor bytes, at most unwind_bytes */
static unsigned int ms_unwind_nr;	/* tables published: the walk runs when nonzero */

#define MS_UNWIND_STATS(X)						\
	X(unwind_frames, "User stack frames found by an unwind table.")	\
	X(unwind_no_table, "User stack frames in a file without an unwind table (or anonymous memory), found by the frame-pointer step instead.") \
	X(unwind_stop, "User stack walks ended by an unwind table's STOP rule (no CFI, or a rule the format cannot say).") \
	X(unwind_bad_frame, "User stack walks ended by a frame an unwind table could not follow: an unreadable or zero return address, a CFA that did not climb, an rbp the rule needs but lost.")
MS_STAT_SET(unwind, MS_UNWIND_STATS);

/*
 * The uapi header's checks (memscope_unwind_check(), the CLI's too); @t's
 * part pointers set on success.
 */
static const char *ms_unwind_check(struct ms_unwind_tab *t, size_t size)
{
	const struct memscope_unwind_header *h = t->h;
	const char *why = memscope_unwind_check(h, size, MS_UNWIND_MACHINE);

	if (why)
		return why;
	t->rules = (const void *)((const char *)h + h->header_size);
	t->rows = (const void *)(t->rules + h->nr_rules);
	t->pages = (const void *)(t->rows + h->nr_rows);
	return NULL;
}

static bool ms_unwind_same(const struct ms_unwind_tab *a, const struct ms_unwind_tab *b)
{
	return a->ino == b->ino && a->dev == b->dev && a->gen == b->gen &&
	       a->h->seg_offset == b->h->seg_offset;
}

/* Under ms_unwind_lock: publish @t, or -EEXIST if its segment has one. */
static int ms_unwind_publish(struct ms_unwind_tab *t)
{
	struct ms_unwind_tab *o;

	list_for_each_entry(o, &ms_unwind_list, all)
		if (ms_unwind_same(o, t))
			return -EEXIST;
	list_add_tail(&t->all, &ms_unwind_list);
	hlist_add_head_rcu(&t->node, &ms_unwind_hash[hash_64(t->ino, MS_UNWIND_HASH_BITS)]);
	WRITE_ONCE(ms_unwind_nr, ms_unwind_nr + 1);
	return 0;
}

/* A table for the file open as @fd, which a blob of @size bytes at @ubuf holds. */
static int ms_unwind_load(int fd, const char __user *ubuf, size_t size)
{
	size_t cost = size + sizeof(struct ms_unwind_tab);
	struct ms_unwind_tab *t;
	struct inode *inode;
	const char *why;
	struct file *f;
	void *blob;
	int err;

	mutex_lock(&ms_unwind_lock);
	err = cost > unwind_bytes - ms_unwind_used || size > unwind_bytes ? -E2BIG : 0;
	if (!err)
		ms_unwind_used += cost;		/* reserved: given back below on error */
	mutex_unlock(&ms_unwind_lock);
	if (err)
		return err;
	t = ms_self_alloc(kzalloc(sizeof(*t), GFP_KERNEL));
	blob = ms_self_alloc(vmalloc(size));
	err = -ENOMEM;
	if (!t || !blob)
		goto err_free;
	err = -EFAULT;
	if (copy_from_user(blob, ubuf, size))
		goto err_free;
	t->h = blob;
	t->bytes = size;
	why = ms_unwind_check(t, size);
	err = -EINVAL;
	if (why) {
		pr_warn_ratelimited("memscope: unwind table refused: %s\n", why);
		goto err_free;
	}
	err = -EBADF;
	f = fget(fd);
	if (!f)
		goto err_free;
	err = -EINVAL;
	/*
	 * Keyed as the VMAs that map it name it: an overlay's file by the
	 * layer's inode under it (the CLI may open the overlay's path).
	 */
	inode = ms_real_inode(f->f_path.dentry);
	if (inode && S_ISREG(inode->i_mode)) {
		t->ino = inode->i_ino;
		t->dev = inode->i_sb->s_dev;
		t->gen = inode->i_generation;
		err = 0;
	}
	fput(f);
	if (err)
		goto err_free;
	mutex_lock(&ms_unwind_lock);
	err = ms_unwind_publish(t);
	mutex_unlock(&ms_unwind_lock);
	if (!err)
		return 0;
err_free:
	vfree(blob);
	kfree(t);
	mutex_lock(&ms_unwind_lock);
	ms_unwind_used -= cost;
	mutex_unlock(&ms_unwind_lock);
	return err;
}

static ssize_t ms_unwind_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct memscope_unwind_load hdr;
	int err;

	if (!MS_UNWIND_MACHINE)
		return -EOPNOTSUPP;
	if (count < sizeof(hdr) || copy_from_user(&hdr, ubuf, sizeof(hdr)))
		return -EINVAL;
	if (hdr.size != count - sizeof(hdr) ||
	    hdr.size < sizeof(struct memscope_unwind_header))
		return -EINVAL;
	err = ms_unwind_load(hdr.fd, ubuf + sizeof(hdr), hdr.size);
	return err ?: count;
}

const struct file_operations ms_unwind_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.write = ms_unwind_write,
	.llseek = noop_llseek,
};

const struct ms_proc_ops ms_unwind_proc_ops = {
	.MS_PROC(open) = nonseekable_open,
	.MS_PROC(write) = ms_unwind_write,
	.MS_PROC_LSEEK = noop_llseek,
};

/* `unwind_tables`: each table, "dev ino gen seg_offset bytes rows". */
static int ms_unwind_tables_show(struct seq_file *m)
{
	struct ms_unwind_tab *t;

	seq_puts(m, "# dev ino gen seg_offset bytes rows\n");
	mutex_lock(&ms_unwind_lock);
	list_for_each_entry(t, &ms_unwind_list, all)
		seq_printf(m, "%u:%u %llu %u 0x%llx %zu %u\n", MAJOR(t->dev), MINOR(t->dev),
			   (unsigned long long)t->ino, t->gen,
			   (unsigned long long)t->h->seg_offset, t->bytes, t->h->nr_rows);
	mutex_unlock(&ms_unwind_lock);
	return 0;
}

static const struct ms_text ms_unwind_tables_text = {
	.file = "unwind_tables",
	.show = ms_unwind_tables_show,
};

/* Whether the file (@dev, @ino, @gen) has a table, for any segment. */
bool ms_unwind_has(u32 dev, u64 ino, u32 gen)
{
	const struct ms_unwind_tab *t;
	bool has = false;

	mutex_lock(&ms_unwind_lock);
	list_for_each_entry(t, &ms_unwind_list, all)
		if (t->ino == ino && t->dev == dev && t->gen == gen) {
			has = true;
			break;
		}
	mutex_unlock(&ms_unwind_lock);
	return has;
}

/* Whether any table is loaded: the walk is worth its cost only then. */
bool ms_unwind_loaded(void)
{
	return READ_ONCE(ms_unwind_nr) != 0;
}

/*
 * The table of @inode whose segment holds file offset @off; under
 * rcu_read_lock().
 */
static const struct ms_unwind_tab *ms_unwind_find(const struct inode *inode, u64 off)
{
	const struct ms_unwind_tab *t;

	hlist_for_each_entry_rcu(t, &ms_unwind_hash[hash_64(inode->i_ino, MS_UNWIND_HASH_BITS)], node)
		if (t->ino == inode->i_ino && t->dev == inode->i_sb->s_dev &&
		    t->gen == inode->i_generation && off - t->h->seg_offset < t->h->seg_filesz)
			return t;
	return NULL;
}

/* The rule for ELF address @a of @t's segment, or NULL outside it. */
static const struct memscope_unwind_rule *ms_unwind_rule(const struct ms_unwind_tab *t, u64 a)
{
	u64 rel = a - t->h->base;
	u32 p, lo, hi;

	if (rel >= t->h->size)
		return NULL;
	p = rel >> MEMSCOPE_UNWIND_PAGE_SHIFT;
	lo = t->pages[p];
	hi = p + 1 < t->h->nr_pages ? t->pages[p + 1] : t->h->nr_rows - 1;
	while (lo < hi) {	/* the last row in [lo, hi] that starts at or below rel */
		u32 mid = lo + (hi - lo + 1) / 2;

		if (t->rows[mid].addr <= rel)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &t->rules[t->rows[lo].rule];
}

/* A frame's registers: its pc, sp, frame pointer and link register. */
struct ms_uregs {
	unsigned long pc, sp, fp, lr;
	bool sp_ok;		/* sp known: not after an arm64 frame-pointer step */
	bool fp_ok;		/* the frame pointer known */
	bool lr_ok;		/* the link register known: the first frame's, on arm64 */
	bool exact;		/* pc is not a return address: look it up as is */
};

static bool ms_unwind_read(unsigned long *v, unsigned long addr)
{
	return !ms_copy_from_user_nofault(v, (const void __user *)addr, sizeof(*v));
}

/* The frame-pointer step, for a frame no table covers; false ends the walk. */
static bool ms_unwind_fp_step(struct ms_uregs *r)
{
	unsigned long frame[2];

	/* A frame record is on the stack, above the stack pointer. */
	if (!r->fp_ok || r->fp & (sizeof(long) - 1) || r->fp < r->sp ||
	    ms_copy_from_user_nofault(frame, (const void __user *)r->fp, sizeof(frame)) ||
	    !frame[1])
		return false;
	r->sp = r->fp + 2 * sizeof(long);
	r->sp_ok = MS_UNWIND_FP_STEP_SP;
	r->fp_ok = frame[0] > r->fp;	/* a chain climbs: else no further fp step */
	r->fp = frame[0];
	r->pc = ms_unwind_strip_pac(frame[1]);
	r->lr_ok = false;
	r->exact = false;
	return true;
}

/* A signal frame: the interrupted registers, from the sigcontext at rsp. */
static bool ms_unwind_signal(struct ms_uregs *r)
{
	unsigned long sc = r->sp + MS_UNWIND_SIGCONTEXT, fp, sp, pc;

	if (!MS_UNWIND_SIGCONTEXT || !r->sp_ok ||
	    !ms_unwind_read(&fp, sc + MS_UNWIND_SIG_FP) ||
	    !ms_unwind_read(&sp, sc + MS_UNWIND_SIG_SP) ||
	    !ms_unwind_read(&pc, sc + MS_UNWIND_SIG_PC) || sp <= r->sp || !pc)
		return false;
	*r = (struct ms_uregs){ .pc = pc, .sp = sp, .fp = fp, .sp_ok = true, .fp_ok = true,
				.exact = true };
	return true;
}

/* Follow @rule from @r's frame to its caller's; false ends the walk. */
static bool ms_unwind_follow(struct ms_uregs *r, const struct memscope_unwind_rule *rule)
{
	unsigned long cfa, ra, fp = r->fp;

	if (rule->kind == MEMSCOPE_UNWIND_PLT)
		cfa = r->sp + rule->cfa_off + ((r->pc & 15) >= 11 ? 8 : 0);
	else if (rule->cfa_base == MEMSCOPE_UNWIND_REG_SP)
		cfa = r->sp + rule->cfa_off;
	else if (r->fp_ok)
		cfa = r->fp + rule->cfa_off;
	else
		return false;
	/*
	 * The CFA is the caller's sp: it climbs, or this is not a stack.  Only
	 * an arm64 leaf's frame, whose return address is in the link
	 * register, may have none (CFA = sp).
	 */
	if (cfa < r->sp)
		return false;
	if (rule->ra_rule == MEMSCOPE_UNWIND_AT_CFA) {
		if (cfa == r->sp || !ms_unwind_read(&ra, cfa + rule->ra_off))
			return false;
	} else if (rule->ra_rule == MEMSCOPE_UNWIND_SAME && r->lr_ok) {
		ra = r->lr;
	} else {
		return false;
	}
	ra = ms_unwind_strip_pac(ra);
	if (!ra)
		return false;
	if (rule->fp_rule == MEMSCOPE_UNWIND_AT_CFA && !ms_unwind_read(&fp, cfa + rule->fp_off))
		return false;
	r->fp_ok = r->fp_ok || rule->fp_rule == MEMSCOPE_UNWIND_AT_CFA;
	if (rule->fp_rule == MEMSCOPE_UNWIND_UNDEFINED)
		r->fp_ok = false;
	r->fp = fp;
	r->sp = cfa;
	r->pc = ra;
	/* The caller's link register is this return address: no use to it. */
	r->lr_ok = false;
	r->exact = false;
	return true;
}

/*
 * One step from @r's frame, in @vma (NULL: none maps its pc) of the
 * running task; false ends the walk.  Under rcu_read_lock() and the mmap
 * lock, page faults disabled.
 */
static bool ms_unwind_step(const struct vm_area_struct *vma, struct ms_uregs *r)
{
	const struct memscope_unwind_rule *rule;
	const struct ms_unwind_tab *t = NULL;
	u64 off = 0;

	if (!vma)
		return false;
	if (vma->vm_file) {
		off = r->pc - vma->vm_start + ((u64)vma->vm_pgoff << PAGE_SHIFT);
		t = ms_unwind_find(file_inode(vma->vm_file), off);
	}
	if (!t) {
		ms_stat_inc(unwind, MS_unwind_no_table);
		return ms_unwind_fp_step(r);
	}
	/* A return address can be the next function's first byte: its call's is pc - 1. */
	rule = ms_unwind_rule(t, off - t->h->seg_offset + t->h->seg_vaddr - !r->exact);
	if (!rule || rule->kind == MEMSCOPE_UNWIND_STOP) {
		ms_stat_inc(unwind, MS_unwind_stop);
		return false;
	}
	/* No sp to base the CFA on (arm64, after a frame-pointer step). */
	if (!r->sp_ok && rule->kind != MEMSCOPE_UNWIND_SIGNAL &&
	    rule->cfa_base == MEMSCOPE_UNWIND_REG_SP)
		return ms_unwind_fp_step(r);
	if (rule->kind == MEMSCOPE_UNWIND_SIGNAL ? !ms_unwind_signal(r) :
	    !ms_unwind_follow(r, rule)) {
		ms_stat_inc(unwind, MS_unwind_bad_frame);
		return false;
	}
	ms_stat_inc(unwind, MS_unwind_frames);
	return true;
}

/*
 * The running task's user stack from @regs, up to @max pcs at @ip, by
 * the tables and, between them, frame pointers; each frame in a file
 * mapping already a file frame (ms_ufile_frame()).  Probe context, with
 * preemption off, the VMAs found through @w (ufile.c): never sleeps,
 * never faults.
 */
unsigned int ms_unwind_walk(struct ms_uvma *w, struct pt_regs *regs, unsigned long *ip,
			    unsigned int max)
{
	struct ms_uregs r = {
		.pc = instruction_pointer(regs), .sp = ms_user_sp(regs),
		.fp = ms_user_fp(regs), .lr = ms_user_lr(regs), .sp_ok = true,
		.fp_ok = true, .lr_ok = MS_UNWIND_HAVE_LR, .exact = true,
	};
	struct vm_area_struct *vma;
	unsigned int n = 0;

	rcu_read_lock();
	pagefault_disable();
	while (n < max) {
		vma = ms_uvma_find(w, r.pc);
		/* The frame as (file, offset) now, with the VMA in hand. */
		ip[n++] = ms_ufile_frame(vma, r.pc);
		if (n == max || !ms_unwind_step(vma, &r))
			break;
	}
	pagefault_enable();
	rcu_read_unlock();
	return n;
}

static void ms_unwind_exit(void)
{
	struct ms_unwind_tab *t, *tmp;

	/* No probe runs and the file is gone; a reader may still be leaving. */
	synchronize_rcu();
	list_for_each_entry_safe(t, tmp, &ms_unwind_list, all) {
		list_del(&t->all);
		vfree(t->h);
		kfree(t);
	}
	ms_unwind_used = 0;
	ms_unwind_nr = 0;
}

/* The budget, as loaded (tables count in memory_bytes as they load). */
static void ms_unwind_version(struct seq_file *m)
{
	seq_printf(m, "unwind_bytes %lu\n", MS_UNWIND_MACHINE ? unwind_bytes : 0);
}

static size_t ms_unwind_bytes(void)
{
	return READ_ONCE(ms_unwind_used);
}

static int __init ms_unwind_init(void)
{
	return ms_stat_set_add(&ms_unwind_stats) ?: ms_text_add(&ms_unwind_tables_text);
}

const struct ms_family ms_unwind_family __refconst = {
	.init = ms_unwind_init,
	.exit = ms_unwind_exit,
	.bytes = ms_unwind_bytes,
	.version = ms_unwind_version,
};
