// SPDX-License-Identifier: GPL-2.0
/*
 * hfaults: hugetlb page faults by process, as the book's hfaults.bt.
 * Copyright (C) 2026 The memscope authors.
 *
 * handle_mm_fault() hands every fault on a hugetlb vma to hugetlb_fault(),
 * once per attempt: a first touch of a huge page is one call.  A retried
 * fault (VM_FAULT_RETRY, e.g. waiting on userfaultfd) is a second call, as
 * it is for hfaults.bt.
 *
 * But for an attempt under the VMA lock alone (FAULT_FLAG_VMA_LOCK, 6.4
 * on), which 6.4 to 6.9 and RHEL 9.6's 5.14 give up at once ("TODO:
 * Handle faults under the VMA lock") for the arch code to call again under
 * the mmap lock: that is one fault, as faults.c counts it.  Only the
 * return tells such an attempt from a fault, so where the flag exists the
 * probe is a kretprobe, which counts on entry and takes back an attempt
 * that gave way; elsewhere a kprobe.  `version` says which
 * (hugetlb_hook).  A call that finds no free kretprobe instance is a
 * miss, as a kprobe's hit inside another handler is: `probes` counts
 * them and the CLI says what they make short.
 */
#include <linux/mm.h>
#include <linux/sched.h>

#include "memscope.h"

#define MS_HUGETLB_STATS(X)						\
	X(hugetlb_faults, "hugetlb_fault calls, less attempts under the VMA lock that gave way.") \
	X(hugetlb_vma_lock_retry, "hugetlb_fault attempts under the VMA lock alone that gave way to the mmap lock: not faults.")
MS_STAT_SET(hugetlb, MS_HUGETLB_STATS);

static struct ms_table ms_table_hugetlb_by_pid = {
	.file = "hugetlb_by_pid", .header = "# pid comm faults",
	.kind = MS_TK_TASK, .ncols = 1,
};

static struct ms_probe ms_hugetlb_probe;

/* The row a call counted in, its key then, and hugetlb_fault()'s flags. */
struct ms_hugetlb_data {
	struct ms_row *row;
	u64 key;
	unsigned int flags;
};

static __always_inline struct ms_row *ms_hugetlb_count(void)
{
	struct ms_row *row;

	ms_hit(&ms_hugetlb_probe);
	ms_stat_inc(hugetlb, MS_hugetlb_faults);
	row = ms_table_get_task(&ms_table_hugetlb_by_pid);
	if (row)
		__ms_row_add(&ms_table_hugetlb_by_pid, row, 0, 1);
	return row;
}

static int ms_hugetlb_pre(struct kprobe *kp, struct pt_regs *regs)
{
	ms_hugetlb_count();
	return 0;
}

static int ms_hugetlb_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_hugetlb_data *d = (struct ms_hugetlb_data *)ri->data;

	d->flags = ms_arg(regs, 3);	/* hugetlb_fault(mm, vma, address, flags) */
	d->row = ms_hugetlb_count();
	d->key = d->row ? READ_ONCE(d->row->key) : 0;
	return 0;
}

static int ms_hugetlb_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_hugetlb_data *d = (struct ms_hugetlb_data *)ri->data;
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);

	if (!((ret & VM_FAULT_RETRY) && (d->flags & MS_FAULT_FLAG_VMA_LOCK)))
		return 0;
	ms_stat_inc(hugetlb, MS_hugetlb_vma_lock_retry);
	ms_stat_add(hugetlb, MS_hugetlb_faults, -1);
	/* Not if the row was reused for another process meanwhile. */
	if (d->row && READ_ONCE(d->row->key) == d->key)
		__ms_row_add(&ms_table_hugetlb_by_pid, d->row, 0, -1);
	return 0;
}

static const char *const ms_hugetlb_targets[] = { "hugetlb_fault", NULL };

static struct ms_probe ms_hugetlb_probe = {
	.name = "hugetlb",
	.targets = ms_hugetlb_targets,
	.kind = MS_FAULT_FLAG_VMA_LOCK ? MS_KRETPROBE : MS_KPROBE,
	.pre_handler = ms_hugetlb_pre,
	.entry_handler = ms_hugetlb_entry,
	.ret_handler = ms_hugetlb_return,
	.data_size = sizeof(struct ms_hugetlb_data),
	/* Without hugetlb pages hugetlb_fault() is a stub that is never called. */
	.unsupported = IS_ENABLED(CONFIG_HUGETLB_PAGE) ? NULL : "config_hugetlb_page_disabled",
};

static void ms_hugetlb_version(struct seq_file *m)
{
	seq_printf(m, "hugetlb_hook %s\n",
		   ms_hugetlb_probe.kind == MS_KRETPROBE ? "kretprobe" : "kprobe");
}

static int ms_hugetlb_init(void)
{
	/* A huge page's fault sleeps (allocation, zeroing): a few per CPU. */
	if (ms_hugetlb_probe.kind == MS_KRETPROBE)
		ms_hugetlb_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	return ms_probe_add(&ms_hugetlb_probe) ?: ms_table_add(&ms_table_hugetlb_by_pid) ?:
	       ms_stat_set_add(&ms_hugetlb_stats);
}

const struct ms_family ms_hugetlb_family = {
	.init = ms_hugetlb_init,
	.version = ms_hugetlb_version,
};
