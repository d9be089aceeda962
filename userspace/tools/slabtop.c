// SPDX-License-Identifier: GPL-2.0
/*
 * slabtop: kmem_cache allocations and frees by cache, as the book's
 * slabratetop shows them: once, the totals since the probes came on; with
 * an INTERVAL, the rates over each.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "memscope.h"
#include "parse.h"

static void *slab_snapshot(void *ctx)
{
	static const char *const cols[] = { "allocs", "frees", "bytes" };

	(void)ctx;
	return ms_keyed_snapshot("slab", "cache", NULL, cols, 3);
}

static int slab_report(void *ctx, const void *pv, const void *nv, double dt)
{
	const struct ms_opts *o = ctx;
	struct ms_keyed d;
	char fmt[16];
	size_t i, n;

	if (ms_keyed_delta(nv, pv, 0, &d))
		return -1;
	n = o->has_top && o->top < d.n ? o->top : d.n;
	ms_keyed_key_fmt(&d, n, 12, fmt, sizeof(fmt));
	print_begin_record();
	ms_print_timestamp(o);
	if (pv) {
		print_float(PRINT_JSON, "interval", NULL, dt);
		print_fp(fmt, "CACHE");
		print_fp(" %12s %12s %14s\n", "ALLOCS/s", "FREES/s", "BYTES/s");
	} else {
		print_fp(fmt, "CACHE");
		print_fp(" %12s %12s %14s\n", "ALLOCS", "FREES", "BYTES");
	}
	open_json_array("caches");
	for (i = 0; i < n; i++) {
		const struct ms_krow *r = &d.rows[i];

		open_json_object(NULL);
		print_string(PRINT_ANY, "cache", fmt, r->key);
		if (pv && dt > 0) {
			print_float(PRINT_FP, NULL, " %12.1f", (double)r->v[0] / dt);
			print_float(PRINT_FP, NULL, " %12.1f", (double)r->v[1] / dt);
			print_float(PRINT_FP, NULL, " %14.1f\n", (double)r->v[2] / dt);
			print_float(PRINT_JSON, "allocs_per_s", NULL, (double)r->v[0] / dt);
			print_float(PRINT_JSON, "frees_per_s", NULL, (double)r->v[1] / dt);
			print_float(PRINT_JSON, "bytes_per_s", NULL, (double)r->v[2] / dt);
		} else {
			print_uint(PRINT_FP, NULL, " %12llu", r->v[0]);
			print_uint(PRINT_FP, NULL, " %12llu", r->v[1]);
			print_uint(PRINT_FP, NULL, " %14llu\n", r->v[2]);
		}
		print_uint(PRINT_JSON, "allocs", NULL, r->v[0]);
		print_uint(PRINT_JSON, "frees", NULL, r->v[1]);
		print_uint(PRINT_JSON, "bytes", NULL, r->v[2]);
		close_json_object();
	}
	close_json_array();
	ms_keyed_print_dropped(nv, pv, false);
	if (o->has_interval)
		print_nl();
	print_end_record();
	ms_keyed_free(&d);
	return 0;
}

static const struct ms_interval_ops slab_ops = {
	.snapshot = slab_snapshot,
	.free_snap = ms_keyed_snapshot_free,
	.report = slab_report,
};

static int cmd_slabtop(const struct ms_opts *o)
{
	static const char *const probes[] = { "slab_*", NULL };

	/* slab_alloc says for the family: off, or unavailable and why. */
	if (ms_check_optin("slabtop", "slabtop", "slab_alloc",
			   "its probes cost on every kmem_cache allocation and free", o->kept) < 0)
		return 1;
	ms_missed_watch(probes);
	return ms_run_interval(o, &slab_ops, (void *)o);
}

MS_TOOL(slabtop,
	.topic = MS_TOPIC_ALLOC, .rank = 20,
	.opts = OPT_TOP | OPT_KEPT | OPT_INTERVAL,
	.usage = "slabtop [--top N] [--kept] [INTERVAL [COUNT]]",
	.summary = "kmem_cache allocations and frees by cache, most allocations first (turns slabtop on while it runs)");
