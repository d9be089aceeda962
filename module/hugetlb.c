// SPDX-License-Identifier: GPL-2.0
/*
 * hfaults: hugetlb page faults by process, as the book's hfaults.bt.
 * Copyright (C) 2026 The memscope authors.
 *
 * handle_mm_fault() hands every fault on a hugetlb vma to hugetlb_fault(),
 * once per attempt: a first touch of a huge page is one call.  A retried
 * fault (VM_FAULT_RETRY, e.g. waiting on userfaultfd) is a second call, as
 * it is for hfaults.bt.
 */
#include <linux/sched.h>

#include "memscope.h"

#define MS_HUGETLB_STATS(X) X(hugetlb_faults, "hugetlb_fault calls.")
MS_STAT_SET(hugetlb, MS_HUGETLB_STATS);

static struct ms_table ms_table_hugetlb_by_pid = {
	.file = "hugetlb_by_pid", .header = "# pid comm faults",
	.kind = MS_TK_TASK, .ncols = 1,
};

static int ms_hugetlb_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ms_row *row;

	ms_hit(container_of(kp, struct ms_probe, kp));
	ms_stat_inc(hugetlb, MS_hugetlb_faults);
	row = ms_table_get_task(&ms_table_hugetlb_by_pid);
	if (row)
		__ms_row_add(&ms_table_hugetlb_by_pid, row, 0, 1);
	return 0;
}

static const char *const ms_hugetlb_targets[] = { "hugetlb_fault", NULL };

static struct ms_probe ms_hugetlb_probe = {
	.name = "hugetlb",
	.targets = ms_hugetlb_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_hugetlb_pre,
	/* Without hugetlb pages hugetlb_fault() is a stub that is never called. */
	.unsupported = IS_ENABLED(CONFIG_HUGETLB_PAGE) ? NULL : "config_hugetlb_page_disabled",
};

static int ms_hugetlb_init(void)
{
	return ms_probe_add(&ms_hugetlb_probe) ?: ms_table_add(&ms_table_hugetlb_by_pid) ?:
	       ms_stat_set_add(&ms_hugetlb_stats);
}

const struct ms_family ms_hugetlb_family = {
	.init = ms_hugetlb_init,
};
