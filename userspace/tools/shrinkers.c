// SPDX-License-Identifier: GPL-2.0
/*
 * shrinkers: shrink_slab time and objects freed, by shrinker.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

struct shrinkers_ctx {
	const struct ms_opts *o;
};

static void *shrinkers_snapshot(void *p)
{
	static const char *const cols[] = { "count", "ns", "freed" };

	(void)p;
	return ms_keyed_snapshot("shrinkers", "shrinker", NULL, cols, 3);
}

static int shrinkers_report(void *p, const void *pv, const void *nv, double dt)
{
	const struct shrinkers_ctx *c = p;
	struct ms_keyed d;
	char fmt[16];
	size_t i;

	if (ms_keyed_delta(nv, pv, 1, &d))
		return -1;
	ms_keyed_key_fmt(&d, d.n, 8, fmt, sizeof(fmt));
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
	ms_keyed_print_dropped(nv, pv, false);
	if (c->o->has_interval)
		print_nl();
	print_end_record();
	ms_keyed_free(&d);
	return 0;
}

static const struct ms_interval_ops shrinkers_ops = {
	.snapshot = shrinkers_snapshot,
	.free_snap = ms_keyed_snapshot_free,
	.report = shrinkers_report,
};

static int cmd_shrinkers(const struct ms_opts *o)
{
	static const char *const probes[] = { "shrink*", "mm_shrink_slab_*", NULL };
	struct shrinkers_ctx c = { o };

	if (ms_check_probes("shrinkers", probes))
		return 1;
	return ms_run_interval(o, &shrinkers_ops, &c);
}

MS_TOOL(shrinkers,
	.topic = MS_TOPIC_PRESSURE, .rank = 40,
	.opts = OPT_INTERVAL,
	.usage = "shrinkers [INTERVAL [COUNT]]",
	.summary = "shrink_slab time and objects freed by shrinker");
