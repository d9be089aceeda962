// SPDX-License-Identifier: GPL-2.0
/*
 * memleak: outstanding slab allocations by call site, as BCC's memleak
 * prints them: at each interval (or once), the sites holding the most;
 * but in bytes requested, where BCC's are bytes allocated.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "memscope.h"
#include "parse.h"

struct leak_row {
	const char *site;
	uint64_t allocs, bytes, oldest_ms;
};

struct leak_snap {
	uint64_t sample;	/* 1 in this many allocations tracked */
	struct ms_rows t;
	struct ms_counters st;
	struct leak_row *rows;
	size_t n;
};

static void leak_free(void *p)
{
	struct leak_snap *s = p;

	ms_table_free(&s->t);
	ms_stats_free(&s->st);
	free(s->rows);
	free(s);
}

static int leak_site_cmp(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	return strcmp(x->site, y->site);
}

/* As module/memleak.c sorts the memleak file: bytes, allocations, site. */
static int leak_bytes_cmp(const void *a, const void *b)
{
	const struct leak_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->allocs != y->allocs)
		return x->allocs < y->allocs ? 1 : -1;
	return leak_site_cmp(a, b);
}

/*
 * -o MIN_AGE, as BCC's memleak -o: each allocation younger than MIN_AGE is
 * left out on its own, so a site shows only its allocations that are at
 * least that old.  memleak_allocations has a row per allocation and its
 * age; sum those old enough by site.
 */
static size_t leak_by_age(struct leak_row *rows, size_t n, uint64_t min_age_ms)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (rows[i].oldest_ms >= min_age_ms)
			rows[out++] = rows[i];
	n = out;
	qsort(rows, n, sizeof(*rows), leak_site_cmp);
	for (i = 0, out = 0; i < n; i++) {
		struct leak_row *o = out ? &rows[out - 1] : NULL;

		if (o && !strcmp(o->site, rows[i].site)) {
			o->allocs++;
			o->bytes += rows[i].bytes;
			if (rows[i].oldest_ms > o->oldest_ms)
				o->oldest_ms = rows[i].oldest_ms;
			continue;
		}
		rows[out++] = rows[i];
	}
	qsort(rows, out, sizeof(*rows), leak_bytes_cmp);
	return out;
}

static void *leak_snapshot(void *ctx)
{
	static const char *const by_site[] = { "site", "allocs", "bytes", "oldest_ms" };
	static const char *const each[] = { "site", "bytes", "age_ms" };
	const struct ms_opts *o = ctx;
	const char *file = o->has_min_age ? "memleak_allocations" : "memleak";
	const char *const *names = o->has_min_age ? each : by_site;
	int ncols = o->has_min_age ? 3 : 4;
	struct leak_snap *s = calloc(1, sizeof(*s));
	int c[4], j;
	size_t r;

	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	s->sample = ms_memleak_sample();
	if (ms_load_stats(&s->st)) {
		free(s);
		return NULL;
	}
	if (ms_load_table(file, &s->t)) {
		ms_stats_free(&s->st);
		free(s);
		return NULL;
	}
	for (j = 0; j < ncols; j++) {
		c[j] = ms_table_col(&s->t, names[j]);
		if (c[j] < 0) {
			ms_fail("%s/%s has no column \"%s\", check that the module version matches this CLI (`memscope status`)",
				ms_dir(), file, names[j]);
			goto fail;
		}
	}
	s->rows = calloc(s->t.nrows ? s->t.nrows : 1, sizeof(*s->rows));
	if (!s->rows) {
		ms_fail("out of memory, free some memory");
		goto fail;
	}
	for (r = 0; r < s->t.nrows; r++) {
		struct leak_row *row = &s->rows[s->n];
		int ok;

		row->site = ms_table_cell(&s->t, r, (size_t)c[0]);
		if (o->has_min_age) {
			row->allocs = 1;
			ok = ms_table_u64(&s->t, r, (size_t)c[1], &row->bytes) &&
			     ms_table_u64(&s->t, r, (size_t)c[2], &row->oldest_ms);
		} else {
			ok = ms_table_u64(&s->t, r, (size_t)c[1], &row->allocs) &&
			     ms_table_u64(&s->t, r, (size_t)c[2], &row->bytes) &&
			     ms_table_u64(&s->t, r, (size_t)c[3], &row->oldest_ms);
		}
		if (ok)		/* else a malformed row: parse.c's diag counts it */
			s->n++;
	}
	if (o->has_min_age)
		s->n = leak_by_age(s->rows, s->n, o->min_age_ms);
	return s;
fail:
	leak_free(s);
	return NULL;
}

static int leak_report(void *ctx, const void *prev, const void *now, double dt)
{
	const struct ms_opts *o = ctx;
	const struct leak_snap *s = now;
	uint64_t dropped = ms_stats_val(&s->st, "memleak_dropped");
	uint64_t unknown = ms_stats_val(&s->st, "memleak_unknown_frees");
	uint64_t top = o->has_top ? o->top : 10, shown = 0, total = 0, bytes = 0;
	struct timeval tv;
	char hms[16];
	size_t i;

	(void)prev;
	(void)dt;
	gettimeofday(&tv, NULL);
	ms_fmt_hms(hms, sizeof(hms), tv.tv_sec);
	print_begin_record();
	print_string(PRINT_ANY, "time", "[%s]", hms);
	print_uint(PRINT_ANY, "top", " Top %llu call sites with outstanding allocations", top);
	/*
	 * The module counts the bytes the callers asked for (kmalloc's
	 * bytes_req); BCC's memleak counts what the slab gave (bytes_alloc,
	 * the size class: 32 for a 24-byte request).  Say which.
	 */
	print_fp(", bytes requested");
	print_string(PRINT_JSON, "bytes_counted", NULL, "requested");
	if (o->has_min_age)
		print_uint(PRINT_ANY, "min_age_ms", " (allocations at least %llu ms old)", o->min_age_ms);
	print_uint(PRINT_JSON, "sample", NULL, s->sample);
	if (s->sample > 1)
		print_fp(" (sampled: 1 in %llu allocations, counts not scaled)",
			 (unsigned long long)s->sample);
	print_fp(":\n");
	open_json_array("sites");
	for (i = 0; i < s->n; i++) {
		const struct leak_row *r = &s->rows[i];

		total += r->allocs;
		bytes += r->bytes;
		if (shown >= top)
			continue;
		shown++;
		open_json_object(NULL);
		print_uint(PRINT_ANY, "bytes", "\t%llu bytes", r->bytes);
		print_uint(PRINT_ANY, "allocs", " in %llu allocations", r->allocs);
		print_string(PRINT_ANY, "site", " from %s", r->site);
		print_uint(PRINT_ANY, "oldest_ms", " (oldest %llu ms)\n", r->oldest_ms);
		close_json_object();
	}
	close_json_array();
	print_uint(PRINT_ANY, "outstanding_allocs", "TOTAL: %llu allocations", total);
	print_uint(PRINT_ANY, "outstanding_bytes", ", %llu bytes outstanding", bytes);
	print_uint(PRINT_ANY, "unknown_frees", ", %llu frees of memory allocated before memleak was enabled\n",
		   unknown);
	print_uint(PRINT_JSON, "dropped", NULL, dropped);
	if (dropped)
		print_fp("WARNING: %llu allocation%s not tracked: memleak's table had no room. Load memscope with a larger memleak_size (the version file shows the footprint)\n",
			 (unsigned long long)dropped, dropped == 1 ? " was" : "s were");
	if (o->has_interval)
		print_nl();
	print_end_record();
	return 0;
}

static const struct ms_interval_ops leak_ops = {
	.snapshot = leak_snapshot,
	.free_snap = leak_free,
	.report = leak_report,
};

static int cmd_memleak(const struct ms_opts *o)
{
	static const char *const probes[] = {
		"kmalloc*", "kmem_cache_*", "kfree", "page_alloc", "page_free", "percpu_*", NULL
	};

	if (o->has_pid && o->command) {
		ms_fail("memleak takes -p PID or -c COMMAND, not both");
		return 1;
	}
	if (o->has_pid || o->command)
		return ms_memleak_process(o);
	if (o->sample_rate || o->prefix) {
		ms_fail("%s is for a process's allocations (-p PID or -c COMMAND); the kernel's are sampled with memscope.ko memleak_sample=N",
			o->prefix ? "--prefix" : "-s");
		return 1;
	}
	if (ms_check_optin("memleak", "memleak", "kmalloc", "its probes cost on every slab allocation", o->kept) < 0)
		return 1;
	ms_missed_watch(probes);
	return ms_run_interval(o, &leak_ops, (void *)o);
}

MS_TOOL(memleak,
	.topic = MS_TOPIC_ALLOC, .rank = 10,
	.opts = OPT_PID | OPT_COMMAND | OPT_SAMPLE | OPT_PREFIX | OPT_TOP | OPT_MIN_AGE | OPT_KEPT |
		OPT_INTERVAL,
	.usage = "memleak [-p PID | -c COMMAND] [-s RATE] [--prefix PREFIX] [-o MIN_AGE_MS] [--top N] [--kept] [INTERVAL [COUNT]]",
	.summary = "outstanding kernel allocations by call site, or with -p a process's by user stack (turns its probes on while it runs)");
