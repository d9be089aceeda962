// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan: reclaim time per interval, as the book's vmscan.bt, then the
 * latency histograms.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

#define HEADER_EVERY 20

static const char *const reclaim_hists[] = {
	"direct_reclaim_ns", "memcg_reclaim_ns", "shrink_slab_ns",
};
#define NRECLAIM_HISTS 3

struct vmscan_snap {
	struct ms_counters stats;
	struct ms_buckets hist[NRECLAIM_HISTS];
	bool has_hist[NRECLAIM_HISTS];
};

struct vmscan_ctx {
	const struct ms_opts *o;
	unsigned long rows;
};

static void vmscan_free(void *p)
{
	struct vmscan_snap *s = p;

	ms_stats_free(&s->stats);
	free(s);
}

static void *vmscan_snapshot(void *p)
{
	struct vmscan_snap *s = calloc(1, sizeof(*s));
	int i, r;

	(void)p;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats))
		goto fail;
	for (i = 0; i < NRECLAIM_HISTS; i++) {
		r = ms_load_hist(reclaim_hists[i], &s->hist[i], true);
		if (r < 0)
			goto fail;
		s->has_hist[i] = r == 0;
	}
	return s;
fail:
	vmscan_free(s);
	return NULL;
}

static int vmscan_report(void *p, const void *pv, const void *nv, double dt)
{
	struct vmscan_ctx *c = p;
	const struct vmscan_snap *prev = pv, *now = nv;
	const struct ms_counters *ps = prev ? &prev->stats : NULL;
	char hms[16];

	/* the book's vmscan.bt table; the header repeats every 20 rows */
	if (c->rows++ % HEADER_EVERY == 0)
		print_fp("%-10s %10s %12s %12s %6s %9s\n", "TIME", "S-SLABms",
			 "D-RECLAIMms", "M-RECLAIMms", "KSWAPD", "WRITEPAGE");
	ms_fmt_hms(hms, sizeof(hms), time(NULL));
	print_begin_record();
	print_string(PRINT_ANY, "time", "%-10s", hms);
	if (c->o->timestamp)
		print_uint(PRINT_JSON, "timestamp", NULL, (uint64_t)time(NULL));
	if (prev)
		print_float(PRINT_JSON, "interval", NULL, dt);
	print_float(PRINT_ANY, "s_slab_ms", " %10.2f",
		    (double)ms_stat_delta(&now->stats, ps, "shrink_slab_ns") / 1e6);
	print_float(PRINT_ANY, "d_reclaim_ms", " %12.2f",
		    (double)ms_stat_delta(&now->stats, ps, "direct_reclaim_ns") / 1e6);
	print_float(PRINT_ANY, "m_reclaim_ms", " %12.2f",
		    (double)ms_stat_delta(&now->stats, ps, "memcg_reclaim_ns") / 1e6);
	print_uint(PRINT_ANY, "kswapd", " %6llu", ms_stat_delta(&now->stats, ps, "kswapd_wakeups"));
	print_uint(PRINT_ANY, "writepage", " %9llu\n", ms_stat_delta(&now->stats, ps, "writepage"));
	print_uint(PRINT_JSON, "direct_reclaim_count", NULL,
		   ms_stat_delta(&now->stats, ps, "direct_reclaim_count"));
	print_uint(PRINT_JSON, "direct_reclaim_pages", NULL,
		   ms_stat_delta(&now->stats, ps, "direct_reclaim_pages"));
	print_uint(PRINT_JSON, "memcg_reclaim_count", NULL,
		   ms_stat_delta(&now->stats, ps, "memcg_reclaim_count"));
	print_uint(PRINT_JSON, "shrink_slab_freed", NULL,
		   ms_stat_delta(&now->stats, ps, "shrink_slab_freed"));
	print_end_record();
	return 0;
}

static int vmscan_finish(void *p, const void *fv, const void *lv)
{
	const struct vmscan_snap *first = fv, *last = lv;
	struct ms_buckets d;
	int i;

	(void)p;
	print_begin_record();
	print_nl();
	open_json_array("histograms");
	for (i = 0; i < NRECLAIM_HISTS; i++) {
		if (!last->has_hist[i])
			continue;
		ms_hist_delta(&last->hist[i], first && first->has_hist[i] ?
			      &first->hist[i] : NULL, &d);
		ms_print_hist(reclaim_hists[i], &d);
	}
	close_json_array();
	print_end_record();
	return 0;
}

static const struct ms_interval_ops vmscan_ops = {
	.snapshot = vmscan_snapshot,
	.free_snap = vmscan_free,
	.report = vmscan_report,
	.finish = vmscan_finish,
};

static int cmd_vmscan(const struct ms_opts *o)
{
	static const char *const probes[] = {
		"vmscan*", "direct_reclaim*", "memcg_reclaim*", "shrink*", "kswapd*",
		"writepage*", "mm_vmscan_*", "mm_shrink_slab_*", NULL
	};
	struct vmscan_ctx c = { .o = o };

	if (ms_check_probes("vmscan", probes))
		return 1;
	return ms_run_interval(o, &vmscan_ops, &c);
}

MS_TOOL(vmscan,
	.topic = MS_TOPIC_PRESSURE, .rank = 30,
	.opts = OPT_INTERVAL,
	.usage = "vmscan [INTERVAL [COUNT]]",
	.summary = "reclaim time per interval, then latency histograms");
