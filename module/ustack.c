// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks: page faults by user stack (the book's faults, 7.3.6, for
 * flame graphs) and brk(2) calls by user stack (brkstack, 7.3.3).
 * Copyright (C) 2026 The memscope authors.
 *
 * stack_trace_save_user() is not exported to modules, so the walk is done
 * here, as perf's x86 and arm64 user callchains do: the instruction
 * pointer in the task's saved user registers, then the frame-pointer
 * chain from its frame pointer, each frame record { next fp, return
 * address } read without faulting.  handle_mm_fault() runs with mmap_lock
 * held, so a read that would fault must fail instead: pagefault_disable()
 * throughout.  The chain must climb the stack, so a loop or garbage ends
 * it.  Code built without frame pointers (glibc, most distribution
 * libraries) ends or skips frames: the depth is shown with every stack.
 * Where the CLI loaded unwind tables (unwind.c), the stack is walked by
 * them instead, on x86-64 and arm64, with the frame-pointer step only for
 * frames in files without one.
 *
 * The counts are two tables (table.c), keyed by (process, name, stack
 * hash): faults_by_stack and brk_by_stack.  Each row keeps its stack's
 * frames, up to ustack_depth, in its own slot beside it, written by the
 * writer that claims the row before it publishes the row: a stack lives
 * and is reused with its row, so a full table behaves as every other
 * (stale rows reused, the rest counted in `dropped`).  A row shows its
 * frames innermost first, as hexadecimal user addresses; `memscope` names
 * them.
 *
 * Both probes cost on every fault or system call, so both are off until
 * enabled: faultstacks (a kprobe on handle_mm_fault beside the faults
 * probe, a kretprobe where faults run under per-VMA locks) and brkstack (the raw sys_exit tracepoint, as syscalls.c).
 * Only x86-64 and arm64 are walked, and only native 64-bit tasks; a
 * fault in a task without user registers (a kernel thread that borrowed
 * an mm) counts with an empty stack.
 */
#include <linux/compat.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/unistd.h>
#include <asm/syscall.h>

#include "memscope.h"

static struct ms_table ms_table_faults_by_stack = {
	.file = "faults_by_stack", .header = "# pid comm faults depth stack",
	.kind = MS_TK_STACK, .ncols = 1,
};

static struct ms_table ms_table_brk_by_stack = {
	.file = "brk_by_stack", .header = "# pid comm brk depth stack",
	.kind = MS_TK_STACK, .ncols = 1,
};

static bool faultstacks;
module_param(faultstacks, bool, 0400);
MODULE_PARM_DESC(faultstacks, "Enable the fault_stacks probe at load (it walks the user stack on every fault)");

static bool brkstack;
module_param(brkstack, bool, 0400);
MODULE_PARM_DESC(brkstack, "Enable the brk probe at load (it puts every system call on the slow exit path)");

/* Where a stack is walked: preemption is off, and walks never nest. */
static DEFINE_PER_CPU(unsigned long [MS_USTACK_MAX_DEPTH], ms_ustack_buf);

/*
 * The running task's saved user registers, if its stack can be walked:
 * a user task, in user mode, native 64-bit.
 */
static struct pt_regs *ms_ustack_regs(void)
{
	struct pt_regs *regs;

	if (!MS_HAVE_USTACK_WALK || current->flags & PF_KTHREAD)
		return NULL;
	regs = task_pt_regs(current);
	if (!user_mode(regs) || !ms_user_native(regs))
		return NULL;
	return regs;
}

/*
 * The frame-pointer walk.  In probe context: never sleeps, never faults.
 * The registers' frame pointer is compat.h's, for the architectures it
 * walks.
 */
static unsigned int ms_ustack_walk(struct pt_regs *regs, unsigned long *ip, unsigned int max)
{
	unsigned long fp, frame[2] = { 0 };
	unsigned int n = 0;

	ip[n++] = instruction_pointer(regs);
	fp = ms_user_fp(regs);
	pagefault_disable();
	while (n < max) {
		if (!fp || fp & (sizeof(long) - 1) ||
		    ms_copy_from_user_nofault(frame, (const void __user *)fp, sizeof(frame)))
			break;
		if (!frame[1])
			break;
		ip[n++] = frame[1];
		/* Frames climb the stack: anything else is not a chain. */
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	pagefault_enable();
	return n;
}

/*
 * The stack, as (file, offset) frames where its VMAs can be had
 * (ms_uvma_begin()): @mm_locked, the current task holds its mmap lock
 * already (a fault's), and @held, a VMA it holds locked.  Then by the
 * unwind tables when any are loaded (unwind.c).  Without the VMAs, by
 * frame pointers, as raw addresses.  Probe context, preemption off
 * (uleak.c's return probes too).
 */
unsigned int ms_ustack_frames(unsigned long *ip, unsigned int max, bool mm_locked,
			      struct vm_area_struct *held)
{
	struct pt_regs *regs = ms_ustack_regs();
	struct ms_uvma w;
	unsigned int n;

	if (!regs)
		return 0;
	if (!ms_uvma_begin(&w, current->mm, mm_locked, held))
		return ms_ustack_walk(regs, ip, max);
	if (ms_unwind_loaded()) {
		n = ms_unwind_walk(&w, regs, ip, max);	/* file frames already */
	} else {
		n = ms_ustack_walk(regs, ip, max);
		ms_ufile_frames(&w, ip, n);
	}
	ms_uvma_end(&w);
	return n;
}

/*
 * Count one event for the running task's process, under its stack: its
 * row, whose key is put at @key, or NULL.  The row's key mixes tgid,
 * process name (as ms_table_get_task()) and stack.  In probe context,
 * preemption disabled.  A walk never nests in another on its CPU: its
 * reads cannot fault, so no fault_stacks probe runs inside it, and
 * neither probe runs in interrupt context.
 */
static struct ms_row *ms_ustack_count(struct ms_table *t, bool mm_locked,
				      struct vm_area_struct *held, u64 *key)
{
	unsigned long *ip = *this_cpu_ptr(&ms_ustack_buf);
	struct task_struct *tsk = current;
	const u64 *comm = (const u64 *)tsk->group_leader->comm;
	/* Frames as (file, offset): named after the process exits (ufile.c). */
	unsigned int n = ms_ustack_frames(ip, ms_ustack_depth, mm_locked, held);
	u64 c0 = READ_ONCE(comm[0]), c1 = READ_ONCE(comm[1]);
	struct ms_row *row;

	/*
	 * Two stacks of one process with one hash share a row, which shows the
	 * first one's frames: about one chance in 2^40 at 2^12 rows.
	 */
	*key = ((u64)tsk->tgid << 32) ^ (c0 * 0x9e3779b97f4a7c15ULL) ^
	       (c1 * 0xc2b2ae3d27d4eb4fULL) ^ (ms_ustack_hash(ip, n) * 0x165667b19e3779f9ULL);
	*key |= 1;
	row = ms_table_hit(t, *key) ?: ms_table_get(t, *key);
	if (!row)
		return NULL;
	if (!READ_ONCE(row->ready)) {
		/* Writers of one key write the same frames; the release publishes them. */
		memcpy(&t->frames[(row - t->rows) * ms_ustack_depth], ip, n * sizeof(*ip));
		WRITE_ONCE(row->depth, n);
		ms_row_publish_task(row, tsk->tgid, c0, c1);
	}
	__ms_row_add(t, row, 0, 1);
	return row;
}

/* A fault's row, held from its entry to its return (per-VMA locks only). */
struct ms_fault_stack_data {
	struct ms_row *row;
	u64 key;
};

static struct ms_probe ms_fault_stack_probe;

/*
 * Every fault, user or kernel mode, of a task with user registers, at its
 * entry.  One in the task's own mm runs with its mmap lock held, unless
 * under the VMA's lock alone: then its walk takes that lock, or each
 * VMA's own (ms_uvma_begin()), and the faulting VMA is already locked.
 * 1 (no return wanted) but for such an attempt: it may give way to the
 * mmap lock, and then the retry is the fault (faults.c).
 */
static int ms_fault_stack_enter(struct pt_regs *regs, struct ms_fault_stack_data *d)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)ms_arg(regs, MS_FAULT_ARG_VMA);
	unsigned int flags = ms_arg(regs, MS_FAULT_ARG_FLAGS);
	bool own = vma && vma->vm_mm == current->mm;
	bool vma_lock = flags & MS_FAULT_FLAG_VMA_LOCK;

	ms_hit(&ms_fault_stack_probe);
	d->row = ms_ustack_count(&ms_table_faults_by_stack, own && !vma_lock,
				 own && vma_lock ? vma : NULL, &d->key);
	return !(vma_lock && d->row);
}

static int ms_fault_stack(struct kprobe *kp, struct pt_regs *regs)
{
	struct ms_fault_stack_data d;

	ms_fault_stack_enter(regs, &d);
	return 0;
}

static int ms_fault_stack_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return ms_fault_stack_enter(regs, (struct ms_fault_stack_data *)ri->data);
}

/*
 * An attempt under the VMA lock alone that gave way: the retry under the
 * mmap lock counts the fault, as pgfault does, so this one is taken back
 * (as faults.c does), unless its row was reused meanwhile.
 */
static int ms_fault_stack_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_fault_stack_data *d = (struct ms_fault_stack_data *)ri->data;
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);

	if ((ret & VM_FAULT_RETRY) && READ_ONCE(d->row->key) == d->key)
		__ms_row_add(&ms_table_faults_by_stack, d->row, 0, -1);
	return 0;
}

static void ms_brk_exit(void *data, struct pt_regs *regs, long ret)
{
	u64 key;

	if (likely(syscall_get_nr(current, regs) != __NR_brk) || in_compat_syscall())
		return;
	ms_hit(data);	/* the probe it was registered with */
	/* A tracepoint handler: PREEMPT_RT runs it with only migration disabled. */
	preempt_disable_notrace();
	ms_ustack_count(&ms_table_brk_by_stack, false, NULL, &key);
	preempt_enable_notrace();
}

static const char *const ms_fault_stack_targets[] = { "handle_mm_fault", NULL };
static const char *const ms_brk_targets[] = { "sys_exit", NULL };

/*
 * A kprobe, but where faults can run under the VMA lock alone: there a
 * kretprobe, whose return takes back an attempt that gave way.  Only
 * such attempts keep an instance to their return.
 */
static struct ms_probe ms_fault_stack_probe = {
	.name = "fault_stacks", .targets = ms_fault_stack_targets,
	.kind = MS_FAULT_FLAG_VMA_LOCK ? MS_KRETPROBE : MS_KPROBE,
	.pre_handler = ms_fault_stack,
	.entry_handler = ms_fault_stack_entry, .ret_handler = ms_fault_stack_return,
	.data_size = sizeof(struct ms_fault_stack_data), .family = "faultstacks",
};

static struct ms_probe ms_brk_probe = {
	.name = "brk", .targets = ms_brk_targets, .kind = MS_TRACEPOINT,
	.tp_func = ms_brk_exit, .family = "brkstack",
};

/* Frames kept per stack, the ustack_depth parameter (main.c). */
static void ms_ustacks_version(struct seq_file *m)
{
	seq_printf(m, "ustack_depth %u\n", ms_ustack_depth);
}

static int __init ms_ustacks_init(void)
{
	if (!MS_HAVE_USTACK_WALK) {
		ms_fault_stack_probe.unsupported = "no user stack walker for this architecture";
		ms_brk_probe.unsupported = ms_fault_stack_probe.unsupported;
	}
	ms_fault_stack_probe.default_off = !faultstacks;
	/* As faults.c's: a fault may sleep, and many may at once per CPU. */
	if (ms_fault_stack_probe.kind == MS_KRETPROBE)
		ms_fault_stack_probe.maxactive = max_t(int, 512, 16 * num_possible_cpus());
	ms_brk_probe.default_off = !brkstack;
	return ms_probe_add(&ms_fault_stack_probe) ?: ms_probe_add(&ms_brk_probe) ?:
	       ms_table_add(&ms_table_faults_by_stack) ?: ms_table_add(&ms_table_brk_by_stack);
}

const struct ms_family ms_ustacks_family __refconst = {
	.init = ms_ustacks_init,
	.version = ms_ustacks_version,
};
