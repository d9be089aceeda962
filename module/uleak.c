// SPDX-License-Identifier: GPL-2.0
/*
 * uleak: one process's outstanding user-space allocations by user stack,
 * the book's `memleak -p PID` (7.3.2), through uprobes on its allocator.
 * Copyright (C) 2026 The memscope authors.
 *
 * A session belongs to the file that started it: the CLI opens `uleak`,
 * writes "pid PID", then one "probe PATH OFFSET FUNCTION" for each entry
 * point of the allocator it found in the process's C library (malloc,
 * calloc, realloc, free, ...: PATH names the mapped file, best through
 * /proc/PID/map_files), and reads `uleak_outstanding`.  Closing the file
 * (the tool ends, or is killed) unregisters every uprobe and frees the
 * session; so does unloading the module.  One session at a time.
 *
 * Each uprobe's filter names the traced process's address space, so only
 * its pages get breakpoints; a process that inherited one through fork()
 * loses it at its first hit (UPROBE_HANDLER_REMOVE).  An allocator's
 * entry handler keeps its arguments for its return handler, per thread,
 * in a stack of MS_ULEAK_NEST calls (realloc(NULL, n) calls malloc); the
 * return handler walks the user stack as faults --stacks does (the
 * caller at the return address, as BCC's memleak takes it there) and
 * puts the pointer in the outstanding table; free() takes it out.
 *
 * Bounded and allocated when the session starts: uleak_size outstanding
 * allocations in MS_ULEAK_SEGS segments, each under a raw spinlock, as
 * memleak's table; uleak_stacks distinct stacks, claimed once and never
 * reused within a session; MS_ULEAK_THREADS threads with calls in
 * flight.  What does not fit is counted (uleak_dropped,
 * uleak_stacks_full, uleak_threads_full), as is a free of a pointer the
 * table does not hold (uleak_unknown_frees: allocated before tracing
 * began), which is never matched to another allocation.
 *
 * uprobe handlers run in the traced task's context, from its breakpoint
 * or its return trampoline, and may be preempted: the stack walk disables
 * preemption for its per-CPU buffer; nothing here sleeps or allocates.
 */
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "memscope.h"
#include "compat/uprobes.h"

#define MS_ULEAK_STATS(X)						\
	X(uleak_allocs, "User allocations memleak -p's probes saw return a pointer.") \
	X(uleak_frees, "User frees memleak -p's probes saw.")		\
	X(uleak_unknown_frees, "User frees of pointers memleak -p's table does not hold (allocated before tracing).") \
	X(uleak_dropped, "User allocations that found no free slot in memleak -p's table.") \
	X(uleak_stacks_full, "User allocations kept without a stack: memleak -p's stacks were all taken.") \
	X(uleak_threads_full, "Allocator calls not followed: no slot for their thread, or nested too deep.") \
	X(uleak_lost_calls, "Allocator calls whose return did not match their entry, and were dropped.")
MS_STAT_SET(uleak, MS_ULEAK_STATS);

static unsigned int uleak_size = 65536;
module_param(uleak_size, uint, 0400);
MODULE_PARM_DESC(uleak_size, "Outstanding user allocations memleak -p can hold (rounded up to a power of two, 4096..4194304)");

static unsigned int uleak_stacks = 4096;
module_param(uleak_stacks, uint, 0400);
MODULE_PARM_DESC(uleak_stacks, "Distinct user stacks memleak -p can hold (rounded up to a power of two, 256..65536)");

/* The entry points a session can probe: their names are the contract with the CLI. */
#define MS_ULEAK_FUNCS(X)						\
	X(malloc) X(calloc) X(realloc) X(reallocarray) X(free)		\
	X(posix_memalign) X(aligned_alloc) X(memalign) X(valloc)	\
	X(pvalloc) X(mmap) X(munmap)
#define MS_ULEAK_ENUM(f) MS_UF_##f,
#define MS_ULEAK_NAME(f) #f,
enum ms_ufunc { MS_ULEAK_FUNCS(MS_ULEAK_ENUM) MS_NR_UFUNCS };
static const char *const ms_ufunc_names[] = { MS_ULEAK_FUNCS(MS_ULEAK_NAME) };

#define MS_ULEAK_PROBES		48	/* prefixes and a static executable: a few dozen */
#define MS_ULEAK_SEGS		64
#define MS_ULEAK_REACH		16
#define MS_ULEAK_THREADS	1024	/* power of two */
#define MS_ULEAK_NO_STACK	U32_MAX

struct ms_uprobe {
	struct uprobe_consumer uc;
	struct ms_uprobe_reg reg;
	/* The file and its mount, held until unregistered (from 4.19 uprobes do not igrab()). */
	struct path path;
	enum ms_ufunc fn;
};

/* An outstanding allocation. */
struct ms_ualloc {
	unsigned long ptr;		/* 0: free; MS_PTR_TOMB: freed (first: memscope.h's key) */
	u64 bytes;
	u64 when;			/* jiffies_64 */
	u32 stack;			/* a slot of the stacks, or MS_ULEAK_NO_STACK */
};

/*
 * A thread's allocator call between its entry and its return, with the
 * user stack pointer at the entry: a return is the call's when the stack
 * pointer is back where the call left it (MS_URET_SP_DELTA).  A call whose
 * return was never seen (a longjmp() out of a signal handler, a uretprobe
 * the kernel could not set) is found deeper than the stack pointer of a
 * later entry or return, and dropped, counted.  Calls made inside another
 * (glibc's realloc calls malloc and free, its large mallocs mmap) or
 * tail-called from it are the outer call's, and not followed.
 */
struct ms_uthread {
	pid_t tid;			/* 0: free; written last, released */
	bool open;
	u8 fn;
	bool had_old;			/* realloc's old block, taken out at entry */
	unsigned long sp;
	unsigned long bytes;
	unsigned long arg;		/* posix_memalign's memptr */
	struct ms_ualloc old;
};

/* A stack: hash 0 is a free slot, and depth is published last. */
struct ms_ustk {
	u64 hash;
	u32 depth;
	u32 ready;
};

/* The session, under ms_uleak_lock; the handlers read it between start and stop. */
static DEFINE_MUTEX(ms_uleak_lock);
static struct {
	struct file *owner;		/* NULL: no session */
	struct mm_struct *mm;		/* the traced process's, mmgrab()ed */
	pid_t pid;
	unsigned int nprobes;
	struct ms_uprobe probe[MS_ULEAK_PROBES];
	struct ms_ualloc *allocs;	/* [MS_ULEAK_SEGS * seg_size] */
	unsigned int seg_size;		/* power of two */
	struct ms_ustk *stk;		/* [nstacks] */
	unsigned long *frames;		/* [nstacks * ms_ustack_depth] */
	unsigned int nstacks;		/* power of two */
	struct ms_uthread *threads;	/* [MS_ULEAK_THREADS] */
	size_t bytes;
	unsigned int min_age_ms;	/* the report's: "age MS" */
	u32 rate;			/* "rate N": 1 in N allocations kept, by pointer */
} ms_ul;

static struct {
	raw_spinlock_t lock;
} ____cacheline_aligned_in_smp ms_ul_segs[MS_ULEAK_SEGS];

static DEFINE_PER_CPU(unsigned long [MS_USTACK_MAX_DEPTH], ms_uleak_buf);

/* Only the traced address space gets breakpoints, at registration and at each mmap. */
static bool ms_uleak_filter(MS_UPROBE_FILTER_ARGS(self, mm))
{
	return mm == READ_ONCE(ms_ul.mm);
}

static __always_inline bool ms_uleak_ours(void)
{
	return current->mm == READ_ONCE(ms_ul.mm);
}

/* The calling thread's slot: its own, else one claimed if @take; NULL if none. */
static struct ms_uthread *ms_uthread(bool take)
{
	pid_t tid = current->pid;
	u32 h = ms_hash_32(tid, ilog2(MS_ULEAK_THREADS));
	unsigned int i;

	for (i = 0; i < MS_ULEAK_REACH; i++) {
		struct ms_uthread *t = &ms_ul.threads[(h + i) & (MS_ULEAK_THREADS - 1)];

		if (smp_load_acquire(&t->tid) == tid)
			return t;
	}
	for (i = 0; take && i < MS_ULEAK_REACH; i++) {
		struct ms_uthread *t = &ms_ul.threads[(h + i) & (MS_ULEAK_THREADS - 1)];

		if (!READ_ONCE(t->tid) && cmpxchg(&t->tid, 0, tid) == 0)
			return t;
	}
	return NULL;
}

/* The thread's slot goes back once no call is open: the release orders its last reads. */
static __always_inline void ms_uthread_put(struct ms_uthread *t)
{
	if (t && !t->open)
		smp_store_release(&t->tid, 0);
}

static __always_inline unsigned int ms_ul_seg(unsigned long ptr, unsigned int *slot)
{
	u32 h = ms_hash_64(ptr, 32);

	*slot = (h >> 6) & (ms_ul.seg_size - 1);
	return h & (MS_ULEAK_SEGS - 1);
}

/*
 * memleak -s N keeps 1 in N allocations, chosen by a hash of the pointer,
 * as memleak.c's memleak_sample: the free of a pointer not kept is known
 * not to be in the table, and costs no lock.
 */
static __always_inline bool ms_ul_skip(unsigned long ptr)
{
	u32 rate = READ_ONCE(ms_ul.rate);

	/* Not the hash's bits that pick the segment and slot: a kept pointer may go anywhere. */
	return rate > 1 && (u32)((ptr * 0xff51afd7ed558ccdULL) >> 32) % rate;
}

/* Open addressing within a segment, as memleak.c's (memscope.h). */
static void ms_ul_put(const struct ms_ualloc *a)
{
	struct ms_ualloc *e;
	unsigned int s, slot;
	unsigned long flags;

	s = ms_ul_seg(a->ptr, &slot);
	raw_spin_lock_irqsave(&ms_ul_segs[s].lock, flags);
	e = ms_ptr_slot(ms_ul.allocs + (size_t)s * ms_ul.seg_size, sizeof(*e), ms_ul.seg_size,
			slot, MS_ULEAK_REACH, a->ptr);
	if (e)
		*e = *a;
	raw_spin_unlock_irqrestore(&ms_ul_segs[s].lock, flags);
	if (!e)
		ms_stat_inc(uleak, MS_uleak_dropped);
}

/*
 * Takes @ptr out, into @out if not NULL: false if it is not there.
 * @unknown: a miss is a free of memory allocated before tracing (free,
 * realloc), not an munmap's (files, memory mapped before).
 */
static bool ms_ul_take(unsigned long ptr, bool unknown, struct ms_ualloc *out)
{
	struct ms_ualloc *seg;
	unsigned int s, slot, i;
	unsigned long flags;
	bool found;

	if (ptr <= MS_PTR_TOMB)
		return false;
	ms_stat_inc(uleak, MS_uleak_frees);
	if (ms_ul_skip(ptr))
		return false;
	s = ms_ul_seg(ptr, &slot);
	seg = ms_ul.allocs + (size_t)s * ms_ul.seg_size;
	raw_spin_lock_irqsave(&ms_ul_segs[s].lock, flags);
	if (out) {
		for (i = 0; i < MS_ULEAK_REACH; i++) {
			const struct ms_ualloc *e = &seg[(slot + i) & (ms_ul.seg_size - 1)];

			if (!e->ptr || e->ptr == ptr) {
				*out = *e;
				break;
			}
		}
	}
	found = ms_ptr_remove(seg, sizeof(*seg), ms_ul.seg_size, slot, MS_ULEAK_REACH, ptr);
	raw_spin_unlock_irqrestore(&ms_ul_segs[s].lock, flags);
	if (!found && unknown)
		ms_stat_inc(uleak, MS_uleak_unknown_frees);
	return found;
}

/*
 * The calling thread's user stack, at an allocator's return: its slot
 * among the stacks, claimed for it if new, or MS_ULEAK_NO_STACK.
 */
static u32 ms_ul_stack(void)
{
	unsigned int n, i, mask = ms_ul.nstacks - 1;
	unsigned long *ip;
	u32 found = MS_ULEAK_NO_STACK;
	u64 h;

	preempt_disable();
	ip = *this_cpu_ptr(&ms_uleak_buf);
	n = ms_ustack_frames(ip, ms_ustack_depth, false, NULL);
	h = ms_ustack_hash(ip, n) | 1;	/* 0: a free slot */
	for (i = 0; i < MS_ULEAK_REACH; i++) {
		u32 s = (h + i) & mask;
		struct ms_ustk *k = &ms_ul.stk[s];
		u64 old = READ_ONCE(k->hash);

		if (old == h) {
			found = s;
			break;
		}
		if (old || cmpxchg(&k->hash, 0, h) != 0)
			continue;
		memcpy(&ms_ul.frames[(size_t)s * ms_ustack_depth], ip, n * sizeof(*ip));
		k->depth = n;
		smp_store_release(&k->ready, 1);
		found = s;
		break;
	}
	preempt_enable();
	if (found == MS_ULEAK_NO_STACK)
		ms_stat_inc(uleak, MS_uleak_stacks_full);
	return found;
}

static int ms_uleak_entry(MS_UPROBE_HANDLER_ARGS(uc, regs))
{
	struct ms_uprobe *p = container_of(uc, struct ms_uprobe, uc);
	unsigned long a0 = ms_uarg(regs, 0), a1 = ms_uarg(regs, 1), bytes, arg = 0;
	unsigned long sp = user_stack_pointer(regs);
	struct ms_uthread *t;
	bool realloc = false;

	if (!ms_uleak_ours())
		return UPROBE_HANDLER_REMOVE;
	t = ms_uthread(false);
	if (t && t->open) {
		/*
		 * Inside the open call, or tail-called from it (glibc's
		 * reallocarray jumps to realloc, realloc(NULL, n) to malloc: the
		 * same frame): the open call's.  Deeper than here: its return
		 * was lost.
		 */
		if (t->sp >= sp)
			return 0;
		t->open = false;
		ms_stat_inc(uleak, MS_uleak_lost_calls);
	}
	switch (p->fn) {
	case MS_UF_free:
		ms_ul_take(a0, true, NULL);
		goto out;
	case MS_UF_munmap:
		ms_ul_take(a0, false, NULL);
		goto out;
	case MS_UF_malloc:
	case MS_UF_valloc:
		bytes = a0;
		break;
	case MS_UF_pvalloc:
		bytes = PAGE_ALIGN(a0);
		break;
	case MS_UF_calloc:
		if (check_mul_overflow(a0, a1, &bytes))
			goto out;	/* fails, allocating nothing */
		break;
	case MS_UF_realloc:
		bytes = a1;
		arg = a0;
		realloc = true;
		break;
	case MS_UF_reallocarray:
		if (check_mul_overflow(a1, ms_uarg(regs, 2), &bytes))
			goto out;	/* fails, leaving its block as it was */
		arg = a0;
		realloc = true;
		break;
	case MS_UF_memalign:
	case MS_UF_aligned_alloc:
		bytes = a1;
		break;
	case MS_UF_posix_memalign:
		bytes = ms_uarg(regs, 2);
		arg = a0;
		break;
	case MS_UF_mmap:
		/* Anonymous private or shared memory only, as BCC's memleak. */
		if (!(ms_uarg(regs, 3) & MAP_ANONYMOUS))
			goto out;
		bytes = a1;
		break;
	default:
		goto out;
	}
	if (!t)
		t = ms_uthread(true);
	if (!t) {
		ms_stat_inc(uleak, MS_uleak_threads_full);
		return 0;
	}
	t->fn = p->fn;
	t->sp = sp;
	t->bytes = bytes;
	t->arg = arg;
	/*
	 * realloc's old block comes out now, before another thread can be
	 * given its address, and goes back if the call fails.
	 */
	t->had_old = realloc && ms_ul_take(arg, true, &t->old);
	t->open = true;
out:
	ms_uthread_put(t);
	return 0;
}

static int ms_uleak_return(MS_URETPROBE_HANDLER_ARGS(uc, func, regs))
{
	struct ms_uprobe *p = container_of(uc, struct ms_uprobe, uc);
	unsigned long ret = regs_return_value(regs), ptr = ret;
	unsigned long sp = user_stack_pointer(regs);
	struct ms_uthread *t;

	if (!ms_uleak_ours())
		return 0;
	t = ms_uthread(false);
	if (!t || !t->open)
		return 0;	/* no call open: its entry was not followed */
	if (t->sp + MS_URET_SP_DELTA > sp)
		return 0;	/* a return from inside the open call: not followed */
	/*
	 * The calls it tail-called return with it, innermost first (their
	 * uretprobes chain on one return address): the open call's own
	 * return is the last.
	 */
	if (t->sp + MS_URET_SP_DELTA == sp && t->fn != p->fn)
		return 0;
	t->open = false;
	if (t->sp + MS_URET_SP_DELTA < sp) {
		/* The open call's return was lost: this one is another's. */
		ms_stat_inc(uleak, MS_uleak_lost_calls);
		goto out;
	}
	switch (p->fn) {
	case MS_UF_posix_memalign:
		/* 0 and the pointer in *memptr, or an error number. */
		if (ret || ms_copy_from_user_nofault(&ptr, (const void __user *)t->arg, sizeof(ptr)))
			goto out;
		break;
	case MS_UF_mmap:
		if (IS_ERR_VALUE(ret))
			goto out;
		break;
	case MS_UF_realloc:
	case MS_UF_reallocarray:
		/* A failure leaves the old block as it was; realloc(p, 0) frees it. */
		if (!ret && t->bytes && t->had_old)
			ms_ul_put(&t->old);
		break;
	default:
		break;
	}
	if (ptr > MS_PTR_TOMB) {
		ms_stat_inc(uleak, MS_uleak_allocs);
		if (!ms_ul_skip(ptr)) {
			struct ms_ualloc a = {
				.ptr = ptr, .bytes = t->bytes, .when = get_jiffies_64(),
				.stack = ms_ul_stack(),
			};

			ms_ul_put(&a);
		}
	}
out:
	ms_uthread_put(t);
	return 0;
}

/* The session's memory: its tables, and the stacks' frames. */
static size_t ms_ul_sizes(size_t *allocs, size_t *stk, size_t *frames)
{
	*allocs = (size_t)MS_ULEAK_SEGS * ms_ul.seg_size * sizeof(struct ms_ualloc);
	*stk = (size_t)ms_ul.nstacks * sizeof(struct ms_ustk);
	*frames = (size_t)ms_ul.nstacks * ms_ustack_depth * sizeof(unsigned long);
	return *allocs + *stk + *frames + MS_ULEAK_THREADS * sizeof(struct ms_uthread);
}

static void ms_ul_free_tables(void)
{
	vfree(ms_ul.allocs);
	vfree(ms_ul.stk);
	vfree(ms_ul.frames);
	vfree(ms_ul.threads);
	ms_ul.allocs = NULL;
	ms_ul.stk = NULL;
	ms_ul.frames = NULL;
	ms_ul.threads = NULL;
	ms_ul.bytes = 0;
}

/* Ends the session: every uprobe off, then its memory.  Under ms_uleak_lock. */
static void ms_uleak_stop(void)
{
	unsigned int i;

	lockdep_assert_held(&ms_uleak_lock);
	if (!ms_ul.owner)
		return;
	for (i = 0; i < ms_ul.nprobes; i++)
		ms_uprobe_unregister(&ms_ul.probe[i].reg, &ms_ul.probe[i].uc);
	ms_uprobe_unregister_sync();
	for (i = 0; i < ms_ul.nprobes; i++)
		path_put(&ms_ul.probe[i].path);
	ms_ul.nprobes = 0;
	mmdrop(ms_ul.mm);
	WRITE_ONCE(ms_ul.mm, NULL);
	ms_ul_free_tables();
	ms_ul.owner = NULL;
	ms_ul.pid = 0;
}

/* "pid PID": the session starts, for that process, owned by @file. */
static int ms_uleak_start(struct file *file, pid_t nr)
{
	size_t a, s, f;
	struct task_struct *task;
	struct mm_struct *mm;

	if (!MS_HAVE_UPROBES)
		return -EOPNOTSUPP;
	if (!MS_HAVE_USTACK_WALK)
		return -EOPNOTSUPP;
	if (ms_ul.owner)
		return -EBUSY;
	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return -ESRCH;		/* a kernel thread, or exiting */
	ms_ul.seg_size = roundup_pow_of_two(clamp(uleak_size, 4096U, 4194304U)) / MS_ULEAK_SEGS;
	ms_ul.nstacks = roundup_pow_of_two(clamp(uleak_stacks, 256U, 65536U));
	ms_ul.bytes = ms_ul_sizes(&a, &s, &f);
	ms_ul.allocs = ms_self_alloc(vzalloc(a));
	ms_ul.stk = ms_self_alloc(vzalloc(s));
	ms_ul.frames = ms_self_alloc(vzalloc(f));
	ms_ul.threads = ms_self_alloc(vzalloc(MS_ULEAK_THREADS * sizeof(struct ms_uthread)));
	if (!ms_ul.allocs || !ms_ul.stk || !ms_ul.frames || !ms_ul.threads) {
		ms_ul_free_tables();
		mmput(mm);
		return -ENOMEM;
	}
	mmgrab(mm);
	mmput(mm);
	ms_ul.pid = nr;
	ms_ul.min_age_ms = 0;
	ms_ul.rate = 1;
	ms_ul.owner = file;
	WRITE_ONCE(ms_ul.mm, mm);
	return 0;
}

/* "probe PATH OFFSET FUNCTION": a uprobe on FUNCTION's first instruction in PATH. */
static int ms_uleak_probe(char *args)
{
	char *path = strsep(&args, " "), *off = strsep(&args, " "), *fn = args;
	struct ms_uprobe *p;
	struct path kp;
	struct inode *inode;
	unsigned long long o;
	int f, err;

	if (!path || !off || !fn || kstrtoull(off, 0, &o))
		return -EINVAL;
	for (f = 0; f < MS_NR_UFUNCS && strcmp(fn, ms_ufunc_names[f]); f++)
		;
	if (f == MS_NR_UFUNCS)
		return -EINVAL;
	if (ms_ul.nprobes == MS_ULEAK_PROBES)
		return -ENOSPC;
	err = kern_path(path, LOOKUP_FOLLOW, &kp);
	if (err)
		return err;
	inode = ms_real_inode(kp.dentry);
	/* A uprobe past the end of the file, or on anything but a file, is a mistake. */
	if (!S_ISREG(inode->i_mode) || o >= i_size_read(inode)) {
		path_put(&kp);
		return -EINVAL;
	}
	p = &ms_ul.probe[ms_ul.nprobes];
	memset(p, 0, sizeof(*p));
	p->fn = f;
	p->path = kp;
	p->reg.inode = inode;
	p->reg.offset = o;
	p->uc.handler = ms_uleak_entry;
	p->uc.filter = ms_uleak_filter;
	/* free() and munmap() need no return. */
	if (f != MS_UF_free && f != MS_UF_munmap)
		p->uc.ret_handler = ms_uleak_return;
	err = ms_uprobe_register(&p->reg, &p->uc);
	if (err) {
		path_put(&p->path);
		return err;
	}
	ms_ul.nprobes++;
	return 0;
}

#define MS_ULEAK_LINE	512

static ssize_t ms_uleak_write(struct file *file, const char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	char buf[MS_ULEAK_LINE], *cmd, *arg;
	unsigned int v;
	int err = ms_user_line(buf, sizeof(buf), ubuf, count);

	if (err)
		return err;
	err = -EINVAL;
	cmd = strim(buf);
	arg = strchr(cmd, ' ');
	if (arg)
		*arg++ = '\0';
	mutex_lock(&ms_uleak_lock);
	if (!strcmp(cmd, "pid") && arg && !kstrtouint(arg, 10, &v)) {
		err = ms_uleak_start(file, v);
	} else if (ms_ul.owner != file) {
		err = ms_ul.owner ? -EBUSY : -ENOENT;	/* not this file's session */
	} else if (!strcmp(cmd, "probe") && arg) {
		err = ms_uleak_probe(arg);
	} else if (!strcmp(cmd, "age") && arg && !kstrtouint(arg, 10, &v)) {
		ms_ul.min_age_ms = v;
		err = 0;
	} else if (!strcmp(cmd, "rate") && arg && !kstrtouint(arg, 10, &v) && v >= 1 &&
		   v <= 65536 && !ms_ul.nprobes) {
		WRITE_ONCE(ms_ul.rate, v);	/* before the probes: never changes under them */
		err = 0;
	}
	mutex_unlock(&ms_uleak_lock);
	return err ?: count;
}

static int ms_uleak_release(struct inode *inode, struct file *file)
{
	mutex_lock(&ms_uleak_lock);
	if (ms_ul.owner == file)
		ms_uleak_stop();
	mutex_unlock(&ms_uleak_lock);
	return 0;
}

const struct file_operations ms_uleak_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.write = ms_uleak_write,
	.release = ms_uleak_release,
	.llseek = noop_llseek,
};

const struct ms_proc_ops ms_uleak_proc_ops = {
	.MS_PROC(open) = nonseekable_open,
	.MS_PROC(write) = ms_uleak_write,
	.MS_PROC(release) = ms_uleak_release,
	.MS_PROC_LSEEK = noop_llseek,
};

/* A stack's outstanding allocations, for the report. */
struct ms_ul_sum {
	u64 allocs, bytes, oldest;
	u32 stack;
};

static int ms_ul_sum_cmp(const void *a, const void *b)
{
	const struct ms_ul_sum *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/*
 * `uleak_outstanding`: the session's process's outstanding allocations at least "age MS" old, by stack, the most bytes first:
 * "allocs bytes oldest_ms depth stack", the stack as faults_by_stack's.
 * Allocations kept without a stack come last, with depth 0.
 */
static int ms_uleak_show(struct seq_file *m)
{
	unsigned int seg, i, n = 0, nsum;
	struct ms_ul_sum *sum;
	u64 now = get_jiffies_64(), min_age;
	unsigned long flags;

	mutex_lock(&ms_uleak_lock);
	if (!ms_ul.owner) {
		mutex_unlock(&ms_uleak_lock);
		seq_puts(m, "# allocs bytes oldest_ms depth stack\n");
		return 0;
	}
	nsum = ms_ul.nstacks + 1;	/* the last: no stack */
	sum = ms_self_alloc(vzalloc(array_size(nsum, sizeof(*sum))));
	if (!sum) {
		mutex_unlock(&ms_uleak_lock);
		return -ENOMEM;
	}
	min_age = msecs_to_jiffies(ms_ul.min_age_ms);
	for (seg = 0; seg < MS_ULEAK_SEGS; seg++) {
		struct ms_ualloc *e = ms_ul.allocs + (size_t)seg * ms_ul.seg_size;

		raw_spin_lock_irqsave(&ms_ul_segs[seg].lock, flags);
		for (i = 0; i < ms_ul.seg_size; i++) {
			struct ms_ul_sum *s;
			u64 age;

			if (e[i].ptr <= MS_PTR_TOMB)
				continue;
			age = now - e[i].when;
			if (age < min_age)
				continue;
			s = &sum[e[i].stack == MS_ULEAK_NO_STACK ? nsum - 1 : e[i].stack];
			s->allocs++;
			s->bytes += e[i].bytes;
			s->oldest = max(s->oldest, age);
		}
		raw_spin_unlock_irqrestore(&ms_ul_segs[seg].lock, flags);
		if (!(seg & 7))
			cond_resched();
	}
	/* Compact the stacks that hold any, then sort them. */
	for (i = 0; i < nsum; i++) {
		if (!sum[i].allocs)
			continue;
		sum[n] = sum[i];
		sum[n++].stack = i;
	}
	sort(sum, n, sizeof(*sum), ms_ul_sum_cmp, NULL);
	seq_puts(m, "# allocs bytes oldest_ms depth stack\n");
	for (i = 0; i < n; i++) {
		u32 s = sum[i].stack;
		bool stk = s < ms_ul.nstacks && smp_load_acquire(&ms_ul.stk[s].ready);

		seq_printf(m, "%llu %llu %u", sum[i].allocs, sum[i].bytes,
			   jiffies_to_msecs(sum[i].oldest));
		ms_seq_frames(m, stk ? &ms_ul.frames[(size_t)s * ms_ustack_depth] : NULL,
			      stk ? ms_ul.stk[s].depth : 0);
		seq_putc(m, '\n');
	}
	mutex_unlock(&ms_uleak_lock);
	vfree(sum);
	return 0;
}

static const struct ms_text ms_uleak_text = {
	.file = "uleak_outstanding",
	.show = ms_uleak_show,
};

static size_t ms_uleak_bytes(void)
{
	return READ_ONCE(ms_ul.bytes);
}

static void ms_uleak_version(struct seq_file *m)
{
	if (!MS_HAVE_UPROBES)
		seq_puts(m, "uleak unavailable:no_uprobes\n");	/* CONFIG_UPROBES off */
	else if (!MS_HAVE_USTACK_WALK)
		seq_puts(m, "uleak unavailable:no_user_stack_walker\n");
	else
		seq_printf(m, "uleak size %u stacks %u\n",
			   (unsigned int)roundup_pow_of_two(clamp(uleak_size, 4096U, 4194304U)),
			   (unsigned int)roundup_pow_of_two(clamp(uleak_stacks, 256U, 65536U)));
}

static int __init ms_uleak_init(void)
{
	unsigned int i;

	for (i = 0; i < MS_ULEAK_SEGS; i++)
		raw_spin_lock_init(&ms_ul_segs[i].lock);
	return ms_stat_set_add(&ms_uleak_stats) ?: ms_text_add(&ms_uleak_text);
}

/* Unloading ends a session still open (procfs files hold no module reference). */
static void ms_uleak_exit(void)
{
	mutex_lock(&ms_uleak_lock);
	ms_uleak_stop();
	mutex_unlock(&ms_uleak_lock);
}

const struct ms_family ms_uleak_family __refconst = {
	.init = ms_uleak_init,
	.exit = ms_uleak_exit,
	.bytes = ms_uleak_bytes,
	.version = ms_uleak_version,
};
