// SPDX-License-Identifier: GPL-2.0
/*
 * hfaults: hugetlb faults by process, as the book's hfaults.bt.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include "memscope.h"

static int cmd_hfaults(const struct ms_opts *o)
{
	static const struct ms_proc_table t = { "hugetlb_by_pid", "faults", "hugetlb_faults", false };
	static const char *const probes[] = { "hugetlb*", "hugetlb_fault", NULL };

	if (ms_check_probes("hfaults", probes))
		return 1;
	return ms_run_proc_table(o, &t);
}

MS_TOOL(hfaults,
	.topic = MS_TOPIC_FAULTS, .rank = 40,
	.opts = OPT_PID | OPT_INTERVAL,
	.usage = "hfaults [-p PID] [INTERVAL [COUNT]]",
	.summary = "hugetlb faults by process");
