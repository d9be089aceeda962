// SPDX-License-Identifier: GPL-2.0
/*
 * drsnoop: each direct reclaim with its latency and pages, as BCC's.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

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

static int cmd_drsnoop(const struct ms_opts *o)
{
	static const char *const probes[] = {
		"direct_reclaim*", "mm_vmscan_direct_reclaim_*", NULL
	};
	struct drsnoop_ctx c = { .o = o };
	struct ms_records ring;
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

MS_TOOL(drsnoop,
	.topic = MS_TOPIC_PRESSURE, .rank = 20,
	.opts = OPT_PID | OPT_LAST | OPT_MEMCG,
	.usage = "drsnoop [-T] [-p PID] [--memcg] [--last]",
	.summary = "each direct reclaim with its latency and pages (--memcg: memcg reclaims too)");
