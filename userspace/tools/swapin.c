// SPDX-License-Identifier: GPL-2.0
/*
 * swapin: swap-ins by process, as the book's swapin.bt; --residency: how
 * long pages stayed in swap.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

/*
 * swapin --residency: how long pages stay in swap before they are read
 * back (the book's exercise 7.10), per owner and as a histogram.
 */
struct res_snap {
	struct ms_counters stats;
	struct ms_keyed rows;		/* swapouts swapins median_ns */
	struct ms_buckets hist;
};

static void res_free(void *p)
{
	struct res_snap *s = p;

	ms_stats_free(&s->stats);
	ms_keyed_free(&s->rows);
	free(s);
}

static void *res_snapshot(void *p)
{
	static const char *const cols[] = { "swapouts", "swapins", "median_ns" };
	struct res_snap *s = calloc(1, sizeof(*s));

	(void)p;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats) ||
	    ms_keyed_load("swap_residency_by_pid", "pid", "comm", cols, 3, &s->rows) ||
	    ms_load_hist("swap_residency_ns", &s->hist, false)) {
		res_free(s);
		return NULL;
	}
	return s;
}

/* The median's log2 bucket, [lo, 2 lo), from now's row of @r. */
static uint64_t res_median(const struct ms_keyed *now, const struct ms_krow *r)
{
	size_t i;

	for (i = 0; i < now->n; i++)
		if (!strcmp(now->rows[i].key, r->key) && !strcmp(now->rows[i].label, r->label))
			return now->rows[i].v[2];
	return 0;
}

static int res_report(void *p, const void *pv, const void *nv, double dt)
{
	const struct ms_opts *o = p;
	const struct res_snap *prev = pv, *now = nv;
	const struct ms_counters *ps = prev ? &prev->stats : NULL;
	char lo[16], hi[16], range[40];
	struct ms_keyed d;
	size_t i;

	if (ms_keyed_delta(&now->rows, prev ? &prev->rows : NULL, 0, &d))
		return -1;
	print_begin_record();
	ms_print_timestamp(o);
	if (prev)
		print_float(PRINT_JSON, "interval", NULL, dt);
	print_fp("%-7s %-16s %10s %10s  %s\n", "PID", "COMM", "SWAPOUTS", "SWAPINS",
		 "MEDIAN RESIDENCY");
	open_json_array("processes");
	for (i = 0; i < d.n; i++) {
		uint64_t m;

		if (!ms_keyed_pid_match(&d.rows[i], o))
			continue;
		m = res_median(&now->rows, &d.rows[i]);
		open_json_object(NULL);
		print_num_str(PRINT_ANY, "pid", "%-7s ", d.rows[i].key);
		print_string(PRINT_ANY, "comm", "%-16s ", d.rows[i].label);
		print_uint(PRINT_ANY, "swapouts", "%10llu ", d.rows[i].v[0]);
		print_uint(PRINT_ANY, "swapins", "%10llu  ", d.rows[i].v[1]);
		if (m) {
			ms_fmt_ns(lo, sizeof(lo), m);
			ms_fmt_ns(hi, sizeof(hi), 2 * m);
			snprintf(range, sizeof(range), "%s..%s", lo, hi);
		} else {
			snprintf(range, sizeof(range), "-");
		}
		print_string(PRINT_FP, NULL, "%s\n", range);
		print_uint(PRINT_JSON, "median_min_ns", NULL, m);
		print_uint(PRINT_JSON, "median_max_ns", NULL, m ? 2 * m - 1 : 0);
		close_json_object();
	}
	close_json_array();
	print_uint(PRINT_ANY, "swapouts", "TOTAL: %llu pages swapped out, ",
		   ms_stat_delta(&now->stats, ps, "swapouts"));
	print_uint(PRINT_ANY, "swapins_timed", "%llu read back timed, ",
		   now->hist.count - (prev && !ms_reset_between(&now->stats, ps) ? prev->hist.count : 0));
	print_uint(PRINT_ANY, "swapins_untimed", "%llu untimed, ",
		   ms_stat_delta(&now->stats, ps, "swapins_untimed"));
	print_uint(PRINT_ANY, "swap_unread", "%llu freed unread",
		   ms_stat_delta(&now->stats, ps, "swap_unread"));
	print_fp("\n");
	/* A state, not a count: as it is now, never a difference. */
	print_uint(PRINT_ANY, "sample", "SAMPLE: 1 in %llu swap entries timed, ",
		   ms_stats_val(&now->stats, "swap_residency_sample"));
	print_uint(PRINT_ANY, "swapins_unsampled", "%llu swap-ins outside the sample\n",
		   ms_stat_delta(&now->stats, ps, "swapins_unsampled"));
	print_uint(PRINT_JSON, "swap_residency_dropped", NULL,
		   ms_stat_delta(&now->stats, ps, "swap_residency_dropped"));
	if (ms_stat_delta(&now->stats, ps, "swap_residency_dropped"))
		print_warn("%llu swapped-out pages in the sample were let go untimed as the residency table filled and the sample narrowed; load memscope with a larger swap_residency_size to time more",
			   (unsigned long long)ms_stat_delta(&now->stats, ps, "swap_residency_dropped"));
	ms_keyed_print_dropped(&now->rows, prev ? &prev->rows : NULL, o->has_pid);
	if (o->has_interval)
		print_nl();
	print_end_record();
	ms_keyed_free(&d);
	return 0;
}

static int res_finish(void *p, const void *fv, const void *lv)
{
	const struct res_snap *first = fv, *last = lv;
	struct ms_buckets d;

	(void)p;
	ms_hist_delta(&last->hist, first ? &first->hist : NULL, &d);
	print_begin_record();
	open_json_array("histograms");
	ms_print_hist("swap_residency_ns", &d);
	close_json_array();
	print_end_record();
	return 0;
}

static const struct ms_interval_ops res_ops = {
	.snapshot = res_snapshot,
	.free_snap = res_free,
	.report = res_report,
	.finish = res_finish,
};

static int cmd_swap_residency(const struct ms_opts *o)
{
	static const char *const out[] = { "swapout", "__swap_writepage", NULL };
	/* Each missing one costs a part, which its warning names. */
	static const char *const in[] = {
		"swapin", "swapout_owner", "swapfree", "swap_read_folio", "swap_readpage",
		"try_to_unmap_one", "swap_range_free", NULL
	};

	/* The numbers come from both sets: both are watched for misses. */
	static const char *const all[] = {
		"swapout", "__swap_writepage", "swapin", "swapout_owner", "swapfree",
		"swap_read_folio", "swap_readpage", "try_to_unmap_one", "swap_range_free", NULL
	};

	if (ms_check_probes("swapin --residency", out) || ms_check_probes("swapin --residency", in))
		return 1;
	ms_missed_watch(all);
	return ms_run_interval(o, &res_ops, (void *)o);
}

static int cmd_swapin(const struct ms_opts *o)
{
	static const struct ms_proc_table t = { "swapins_by_pid", "swapins", "swapins", true };
	static const char *const probes[] = {
		"swapin*", "swap_read_folio", "swap_readpage", NULL
	};
	if (o->residency)
		return cmd_swap_residency(o);
	if (ms_check_probes("swapin", probes))
		return 1;
	return ms_run_proc_table(o, &t);
}

MS_TOOL(swapin,
	.topic = MS_TOPIC_FAULTS, .rank = 30,
	.opts = OPT_PID | OPT_CGROUP | OPT_RESIDENCY | OPT_INTERVAL,
	.usage = "swapin [-p PID | -c CGROUP] [--residency] [INTERVAL [COUNT]]",
	.summary = "swap-ins (pages) by process; --residency: how long pages stayed in swap, by owner, and a histogram");
