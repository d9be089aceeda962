// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
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

/* ---------------------------------------------------------------- drsnoop */

struct drsnoop_ctx {
	const struct ms_opts *o;
	uint64_t first_ns;
	bool have_first;
};

static void drsnoop_header(const struct ms_opts *o)
{
	/* BCC drsnoop's columns, and with --memcg which reclaim it was */
	if (o->timestamp)
		print_fp("%-14s", "TIME(s)");
	print_fp("%-14s %-6s %8s %5s%s\n", "COMM", "PID", "LAT(ms)", "PAGES",
		 o->memcg ? " TYPE" : "");
}

static int drsnoop_event(void *p, const struct ms_record *r)
{
	struct drsnoop_ctx *c = p;
	uint64_t t = 0, lat = 0, pages = 0;
	const char *comm = ms_rec_get(r, "comm"), *memcg;
	bool is_memcg;
	int64_t pid = -1;

	ms_rec_i64(r, "pid", &pid);
	if (c->o->has_pid && pid != c->o->pid)
		return 0;
	/*
	 * The ring and the stream carry memcg reclaims too (memcg=1); like
	 * the book's and BCC's drsnoop, show direct reclaim unless asked.
	 */
	memcg = ms_rec_get(r, "memcg");
	is_memcg = memcg && !strcmp(memcg, "1");
	if (is_memcg && !c->o->memcg)
		return 0;
	ms_rec_u64(r, "time_ns", &t);
	ms_rec_u64(r, "latency_ns", &lat);
	ms_rec_u64(r, "nr_reclaimed", &pages);
	if (!c->have_first) {
		c->first_ns = t;
		c->have_first = true;
	}
	print_begin_record();
	if (c->o->timestamp)
		print_float(PRINT_ANY, "time_s", "%-14.9f",
			    t >= c->first_ns ? (double)(t - c->first_ns) / 1e9 : 0.0);
	print_string(PRINT_ANY, "comm", "%-14.14s ", comm ? comm : "?");
	print_num_str(PRINT_ANY, "pid", "%-6s ", ms_rec_get(r, "pid"));
	print_float(PRINT_ANY, "lat_ms", "%8.2f ", (double)lat / 1e6);
	print_uint(PRINT_ANY, "pages", "%5llu", pages);
	if (c->o->memcg)
		print_string(PRINT_FP, NULL, " %s", is_memcg ? "memcg" : "direct");
	print_fp("\n");
	print_uint(PRINT_JSON, "latency_ns", NULL, lat);
	print_uint(PRINT_JSON, "time_ns", NULL, t);
	if (memcg)
		print_num_str(PRINT_JSON, "memcg", NULL, memcg);
	print_end_record();
	return 0;
}

int cmd_drsnoop(const struct ms_opts *o)
{
	static const char *const probes[] = {
		"direct_reclaim*", "mm_vmscan_direct_reclaim_*", NULL
	};
	struct drsnoop_ctx c = { .o = o };
	struct ms_ring ring;
	size_t i;
	int ret = 0;

	if (ms_check_probes("drsnoop", probes))
		return 1;
	if (o->last) {
		if (ms_load_ring("direct_reclaim", &ring, false))
			return 1;
		drsnoop_header(o);
		for (i = 0; i < ring.n && !ret; i++)
			ret = drsnoop_event(&c, &ring.v[i]);
		ms_ring_free(&ring);
		return ret ? 1 : 0;
	}
	print_fp("Tracing direct reclaim%s events... Hit Ctrl-C to end.\n",
		 o->memcg ? " and memcg reclaim" : "");
	drsnoop_header(o);
	fflush(stdout);
	return ms_follow_events("direct_reclaim", drsnoop_event, &c) ? 1 : 0;
}

/* ----------------------------------------------------------------- vmscan */

struct vmscan_snap {
	struct ms_stats stats;
	struct ms_hist hist[NRECLAIM_HISTS];
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
	const struct ms_stats *ps = prev ? &prev->stats : NULL;
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
	struct ms_hist d;
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

int cmd_vmscan(const struct ms_opts *o)
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

/* -------------------------------------------------------------- shrinkers */

struct shrinkers_ctx {
	const struct ms_opts *o;
};

static void keyed_snap_free(void *p)
{
	ms_keyed_free(p);
	free(p);
}

static void *shrinkers_snapshot(void *p)
{
	static const char *const cols[] = { "count", "ns", "freed" };
	struct ms_keyed *k = calloc(1, sizeof(*k));

	(void)p;
	if (!k) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_keyed_load("shrinkers", "shrinker", NULL, cols, 3, k)) {
		free(k);
		return NULL;
	}
	return k;
}

static int shrinkers_report(void *p, const void *pv, const void *nv, double dt)
{
	const struct shrinkers_ctx *c = p;
	struct ms_keyed d;
	char fmt[16];
	size_t i, w = 8;

	if (ms_keyed_delta(nv, pv, 1, &d))
		return -1;
	for (i = 0; i < d.n; i++)
		if (strlen(d.rows[i].key) > w)
			w = strlen(d.rows[i].key);
	if (w > 40)
		w = 40;
	snprintf(fmt, sizeof(fmt), "%%-%zus", w);
	print_begin_record();
	ms_print_timestamp(c->o);
	if (pv)
		print_float(PRINT_JSON, "interval", NULL, dt);
	print_fp(fmt, "SHRINKER");
	print_fp(" %10s %12s %12s\n", "COUNT", "MS", "FREED");
	open_json_array("shrinkers");
	for (i = 0; i < d.n; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "shrinker", fmt, d.rows[i].key);
		print_uint(PRINT_ANY, "count", " %10llu", d.rows[i].v[0]);
		print_float(PRINT_ANY, "ms", " %12.2f", (double)d.rows[i].v[1] / 1e6);
		print_uint(PRINT_ANY, "freed", " %12llu\n", d.rows[i].v[2]);
		print_uint(PRINT_JSON, "ns", NULL, d.rows[i].v[1]);
		close_json_object();
	}
	close_json_array();
	ms_keyed_print_dropped(nv, pv);
	if (c->o->has_interval)
		print_nl();
	print_end_record();
	ms_keyed_free(&d);
	return 0;
}

static const struct ms_interval_ops shrinkers_ops = {
	.snapshot = shrinkers_snapshot,
	.free_snap = keyed_snap_free,
	.report = shrinkers_report,
};

int cmd_shrinkers(const struct ms_opts *o)
{
	static const char *const probes[] = { "shrink*", "mm_shrink_slab_*", NULL };
	struct shrinkers_ctx c = { o };

	if (ms_check_probes("shrinkers", probes))
		return 1;
	return ms_run_interval(o, &shrinkers_ops, &c);
}

/* ---------------------------------------------------------------- compact */

struct compact_snap {
	struct ms_stats stats;
	struct ms_hist hist;
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
	struct ms_ring ring;
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
	const struct ms_stats *ps = prev ? &prev->stats : NULL;
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
	struct ms_hist d;

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

int cmd_compact(const struct ms_opts *o)
{
	static const char *const probes[] = { "compaction*", "mm_compaction_*", NULL };
	struct compact_ctx c = { .o = o };

	if (ms_check_probes("compact", probes))
		return 1;
	return ms_run_interval(o, &compact_ops, &c);
}
