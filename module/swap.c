// SPDX-License-Identifier: GPL-2.0
/*
 * swapin: pages read back from swap, by process, counted as pswpin is.
 * Copyright (C) 2026 The memscope authors.
 *
 * The book's swapin.bt counts calls to swap_readpage().  That function
 * became swap_read_folio() in 6.8, and since then it reads a whole folio,
 * so memscope counts pages: swapins is meant to move with /proc/vmstat
 * pswpin.  What the kernel counts in pswpin (mm/page_io.c):
 *
 *   6.1  swap_readpage(page, synchronous, plug): one per call, except when
 *        frontswap (zswap) holds the page: __frontswap_load() returns 0
 *        and no I/O is done.
 *   6.12 swap_read_folio(folio, plug): folio_nr_pages() per call, except
 *        when zswap_load() returns true, and except slots recorded as all
 *        zero at swap-out (the zeromap, counted as swpin_zero instead).
 *
 * So the swapin probe counts on entry, and a second probe takes back the
 * pages zswap served, in the same task, right after.  A reader that comes
 * between the two sees at most one folio per in-flight zswap hit too many.
 * A reset between them would take back what the baseline already holds:
 * the take-back is skipped when a reset came after zswap_load() began, and
 * the counters clamp at 0 for the rest of that window (stats.c).
 * Zero-filled slots cannot be told apart from outside (the test is inlined
 * into swap_read_folio), so on kernels with a zeromap:
 *
 *	swapins = pswpin + swpin_zero
 *
 * and on older kernels swapins = pswpin.  Reads through a filesystem's
 * swap_rw (swap files on NFS) count in pswpin only when they succeed; a
 * failed one still counts here.
 */
#include <linux/mm.h>
#include <linux/sched.h>

#include "memscope.h"

/* Newest first: the first one the kernel has is attached. */
static const char *const ms_swapin_targets[] = {
	"swap_read_folio",	/* 6.8: (struct folio *, struct swap_iocb **) */
	"swap_readpage",	/* (struct page *, bool, struct swap_iocb **) */
	NULL,
};

static const char *const ms_zswap_targets[] = {
	"zswap_load",		/* 6.5: bool (struct folio *), true: served */
	"__frontswap_load",	/* int (struct page *), 0: served */
	NULL,
};

static struct ms_probe ms_swapin_probe;
static struct ms_probe ms_zswap_probe;

static void ms_swapin_account(s64 pages)
{
	struct ms_row *row;

	ms_stat_add(MS_swapins, pages);
	row = ms_table_get_task(&ms_tables[MS_T_SWAPINS_BY_PID]);
	if (row)
		__ms_row_add(&ms_tables[MS_T_SWAPINS_BY_PID], row, 0, pages);
	row = ms_table_get_cgroup(&ms_tables[MS_T_SWAPINS_BY_CGROUP]);
	if (row)
		__ms_row_add(&ms_tables[MS_T_SWAPINS_BY_CGROUP], row, 0, pages);
}

static int ms_swapin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	long pages = 1;

	ms_hit(MS_P_swapin);
	/*
	 * swap_readpage() counts pswpin once per call whatever the page;
	 * swap_read_folio() counts the folio's pages.  The folio is locked by
	 * the caller for the whole read, so it cannot split under us.
	 */
	if (READ_ONCE(ms_swapin_probe.target) == ms_swapin_targets[0])
		pages = folio_nr_pages((struct folio *)ms_arg(regs, 0));
	ms_swapin_account(pages);
	return 0;
}

struct ms_zswap_data {
	long pages;
	unsigned long reset_gen;
};

static int ms_zswap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_zswap_data *d = (struct ms_zswap_data *)ri->data;

	d->pages = 1;
	d->reset_gen = ms_reset_gen();
	if (READ_ONCE(ms_zswap_probe.target) == ms_zswap_targets[0])
		d->pages = folio_nr_pages((struct folio *)ms_arg(regs, 0));
	return 0;
}

static int ms_zswap_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_zswap_data *d = (struct ms_zswap_data *)ri->data;
	unsigned long ret = regs_return_value(regs);
	bool served;

	if (READ_ONCE(ms_zswap_probe.target) == ms_zswap_targets[0])
		served = (bool)ret;
	else
		served = (int)ret == 0;
	if (!served)
		return 0;
	ms_hit(MS_P_swapin_zswap);
	/* Served from memory: no I/O, not in pswpin.  Take it back. */
	if (READ_ONCE(ms_swapin_probe.attached) && ms_reset_gen() == d->reset_gen)
		ms_swapin_account(-d->pages);
	return 0;
}

static struct ms_probe ms_swapin_probe = {
	.name = "swapin",
	.targets = ms_swapin_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_swapin_pre,
};

static struct ms_probe ms_zswap_probe = {
	.name = "swapin_zswap",
	.targets = ms_zswap_targets,
	.kind = MS_KRETPROBE,
	.entry_handler = ms_zswap_entry,
	.ret_handler = ms_zswap_return,
	.data_size = sizeof(struct ms_zswap_data),
};

int ms_swap_init(void)
{
	/* zswap_load() sleeps on the compressor's mutex: room for sleepers. */
	ms_zswap_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	if (!IS_ENABLED(CONFIG_SWAP)) {
		/* No swap-in path at all: say so, not just symbol_not_found. */
		ms_swapin_probe.unsupported = "config_swap_disabled";
		ms_zswap_probe.unsupported = "config_swap_disabled";
	}
	ms_probe_add(&ms_swapin_probe, MS_P_swapin);
	ms_probe_add(&ms_zswap_probe, MS_P_swapin_zswap);
	return 0;
}
