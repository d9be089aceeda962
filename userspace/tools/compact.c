// SPDX-License-Identifier: GPL-2.0
/*
 * compact: compactions and their time, recent events and a histogram.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

/* A header every 20 rows, as vmscan's. */
#define HEADER_EVERY 20

struct compact_snap {
	struct ms_counters stats;
	struct ms_buckets hist;
	bool has_hist;
};

struct compact_ctx {
	const struct ms_opts *o;
	unsigned long rows;
};

static void compact_free(void *p)
{
	struct compact_snap *s = p;

	ms_stats_free(&s->stats);
	free(s);
}

static void *compact_snapshot(void *p)
{
	const struct compact_ctx *c = p;
	struct compact_snap *s = calloc(1, sizeof(*s));

	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats))
		goto fail;
	if (c->o->hist) {
		if (ms_load_hist("compaction_ns", &s->hist, false))
			goto fail;
		s->has_hist = true;
	}
	return s;
fail:
	compact_free(s);
	return NULL;
}

static void print_compaction_events(void)
{
	struct ms_records ring;
	char hms[16];
	uint64_t t, lat;
	size_t i;
	const char *comm;

	if (ms_load_ring("compaction", &ring, true))
		return;
	print_fp("\nRecent compactions:\n%-10s %-7s %-16s %10s %s\n",
		 "TIME", "PID", "COMM", "LAT(ms)", "STATUS");
	open_json_array("events");
	for (i = 0; i < ring.n; i++) {
		const struct ms_record *r = &ring.v[i];

		t = lat = 0;
		ms_rec_u64(r, "time_ns", &t);
		ms_rec_u64(r, "latency_ns", &lat);
		ms_fmt_hms_mono_ns(hms, sizeof(hms), t);
		comm = ms_rec_get(r, "comm");
		open_json_object(NULL);
		print_string(PRINT_ANY, "time", "%-10s ", hms);
		print_uint(PRINT_JSON, "time_ns", NULL, t);
		print_num_str(PRINT_ANY, "pid", "%-7s ", ms_rec_get(r, "pid"));
		print_string(PRINT_ANY, "comm", "%-16s ", comm ? comm : "?");
		print_float(PRINT_ANY, "lat_ms", "%10.2f ", (double)lat / 1e6);
		print_uint(PRINT_JSON, "latency_ns", NULL, lat);
		print_num_str(PRINT_ANY, "status", "%s\n", ms_rec_get(r, "status"));
		close_json_object();
	}
	close_json_array();
	if (!ring.n)
		print_fp("(none recorded)\n");
	ms_ring_free(&ring);
}

static int compact_report(void *p, const void *pv, const void *nv, double dt)
{
	struct compact_ctx *c = p;
	const struct compact_snap *prev = pv, *now = nv;
	const struct ms_counters *ps = prev ? &prev->stats : NULL;
	uint64_t n = ms_stat_delta(&now->stats, ps, "compaction_count");
	uint64_t ns = ms_stat_delta(&now->stats, ps, "compaction_ns");
	char hms[16];

	if (c->rows++ % HEADER_EVERY == 0)
		print_fp("%-10s %12s %12s %10s\n", "TIME", "COMPACTIONS", "MS", "AVGms");
	ms_fmt_hms(hms, sizeof(hms), time(NULL));
	print_begin_record();
	print_string(PRINT_ANY, "time", "%-10s", hms);
	if (prev)
		print_float(PRINT_JSON, "interval", NULL, dt);
	print_uint(PRINT_ANY, "compactions", " %12llu", n);
	print_float(PRINT_ANY, "ms", " %12.2f", (double)ns / 1e6);
	print_float(PRINT_ANY, "avg_ms", " %10.2f\n", n ? (double)ns / 1e6 / (double)n : 0.0);
	print_uint(PRINT_JSON, "compaction_ns", NULL, ns);
	if (!prev)
		print_compaction_events();
	print_end_record();
	return 0;
}

static int compact_finish(void *p, const void *fv, const void *lv)
{
	const struct compact_snap *first = fv, *last = lv;
	struct ms_buckets d;

	(void)p;
	if (!last->has_hist)
		return 0;
	ms_hist_delta(&last->hist, first ? &first->hist : NULL, &d);
	print_begin_record();
	print_nl();
	open_json_array("histograms");
	ms_print_hist("compaction_ns", &d);
	close_json_array();
	print_end_record();
	return 0;
}

static const struct ms_interval_ops compact_ops = {
	.snapshot = compact_snapshot,
	.free_snap = compact_free,
	.report = compact_report,
	.finish = compact_finish,
};

static int cmd_compact(const struct ms_opts *o)
{
	static const char *const probes[] = { "compaction*", "mm_compaction_*", NULL };
	struct compact_ctx c = { .o = o };

	if (ms_check_probes("compact", probes))
		return 1;
	return ms_run_interval(o, &compact_ops, &c);
}

MS_TOOL(compact,
	.topic = MS_TOPIC_PRESSURE, .rank = 50,
	.opts = OPT_HIST | OPT_INTERVAL,
	.usage = "compact [--hist] [INTERVAL [COUNT]]",
	.summary = "compactions and their time, recent events, histogram");
