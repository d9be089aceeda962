// SPDX-License-Identifier: GPL-2.0
/*
 * pressure: memory stall time as PSI defines it, from the module's
 * pressure file, where the kernel's own PSI is off.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

#define HEADER_EVERY 20

struct pressure_ctx {
	const struct ms_opts *o;
	unsigned long rows;
};

/* The pressure file, and the stats that say what it could not count. */
struct psi_snap {
	struct ms_psi psi;
	struct ms_counters stats;
};

/*
 * With -c: the cgroups at and under CGROUP, from pressure_by_cgroup, and
 * their averages from pressure_by_cgroup_avg where the module has it.
 */
struct cg_snap {
	struct ms_rows t;
	struct ms_rows avg;
	bool has_avg;
	struct ms_counters stats;
};

static const char *const avg_cols[2][3] = {
	{ "some_avg10", "some_avg60", "some_avg300" },
	{ "full_avg10", "full_avg60", "full_avg300" },
};

static const char *const kinds[2] = { "some", "full" };

/*
 * Stalls that the module could not count between @prev (NULL: since it
 * was loaded or reset) and @now: said, as the tables say a full table.
 */
static void warn_uncounted(const struct ms_counters *now, const struct ms_counters *prev,
			   bool cgroups)
{
	uint64_t n;

	if (prev && ms_reset_between(now, prev))
		prev = NULL;
	n = ms_stat_delta(now, prev, "pressure_tasks_full");
	if (n)
		print_warn("%llu memory stall%s not counted: more tasks stalled at once than the module's table holds (stats: pressure_tasks_full); the figures are short by their time",
			   (unsigned long long)n, n == 1 ? "" : "s");
	n = cgroups ? ms_stat_delta(now, prev, "pressure_cgroups_full") : 0;
	if (n)
		print_warn("%llu memory stall%s not counted for a cgroup: more cgroups with stalls than pressure_by_cgroup's 64 rows (stats: pressure_cgroups_full); a removed cgroup's row is let go once no stall names it",
			   (unsigned long long)n, n == 1 ? "" : "s");
	n = cgroups ? ms_stat_delta(now, prev, "pressure_waits_full") : 0;
	if (n)
		print_warn("%llu wait%s of cgroups' tasks to run or on I/O not followed: more waiting at once than the module's table holds (stats: pressure_waits_full); those cgroups' CPUs are weighed without them",
			   (unsigned long long)n, n == 1 ? "" : "s");
}

static void psi_free(void *p)
{
	struct psi_snap *s = p;

	if (s)
		ms_stats_free(&s->stats);
	free(s);
}

static void *pressure_snapshot(void *p)
{
	struct psi_snap *s = calloc(1, sizeof(*s));
	char *data = NULL;
	size_t len;
	int ret;

	(void)p;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats) || ms_read("pressure", &data, &len)) {
		psi_free(s);
		return NULL;
	}
	ret = ms_parse_psi(data, len, &s->psi);
	free(data);
	if (ret || !s->psi.has[1]) {
		ms_fail("the pressure file is not PSI's some and full lines (%s), "
			"use a memscope CLI of the module's version",
			ret ? s->psi.diag.msg : "no full line");
		psi_free(s);
		return NULL;
	}
	return s;
}

/* Cumulative: the two lines, as a table. */
static void print_totals(const struct ms_psi *s)
{
	int k;

	print_fp("%-6s %7s %7s %7s %16s\n", "", "AVG10", "AVG60", "AVG300", "TOTAL(us)");
	for (k = 0; k < 2; k++) {
		open_json_object(kinds[k]);
		print_fp("%-6s", kinds[k]);
		print_float(PRINT_ANY, "avg10", " %7.2f", s->avg[k][0]);
		print_float(PRINT_ANY, "avg60", " %7.2f", s->avg[k][1]);
		print_float(PRINT_ANY, "avg300", " %7.2f", s->avg[k][2]);
		print_uint(PRINT_ANY, "total_us", " %16llu\n", s->total_us[k]);
		close_json_object();
	}
}

/* Each interval: the share of it stalled, and PSI's 10 s averages. */
static int pressure_report(void *p, const void *pv, const void *nv, double dt)
{
	struct pressure_ctx *c = p;
	const struct psi_snap *ps = pv, *ns = nv;
	const struct ms_psi *prev = ps ? &ps->psi : NULL, *now = &ns->psi;
	char hms[16];
	int k;

	warn_uncounted(&ns->stats, ps ? &ps->stats : NULL, false);
	print_begin_record();
	if (!prev) {
		print_totals(now);
		print_end_record();
		return 0;
	}
	if (c->rows++ % HEADER_EVERY == 0)
		print_fp("%-10s %7s %7s %10s %10s\n", "TIME", "SOME%", "FULL%", "SOME_AVG10",
			 "FULL_AVG10");
	ms_fmt_hms(hms, sizeof(hms), time(NULL));
	print_string(PRINT_ANY, "time", "%-10s", hms);
	print_float(PRINT_JSON, "interval", NULL, dt);
	for (k = 0; k < 2; k++) {
		uint64_t us = now->total_us[k] - prev->total_us[k];
		char key[16];

		snprintf(key, sizeof(key), "%s_pct", kinds[k]);
		print_float(PRINT_ANY, key, " %7.2f", dt > 0 ? (double)us / 1e4 / dt : 0.0);
		snprintf(key, sizeof(key), "%s_us", kinds[k]);
		print_uint(PRINT_JSON, key, NULL, us);
	}
	print_float(PRINT_ANY, "some_avg10", " %10.2f", now->avg[0][0]);
	print_float(PRINT_ANY, "full_avg10", " %10.2f\n", now->avg[1][0]);
	print_end_record();
	return 0;
}

static const struct ms_interval_ops pressure_ops = {
	.snapshot = pressure_snapshot,
	.free_snap = psi_free,
	.report = pressure_report,
};

static void cg_free(void *p)
{
	struct cg_snap *s = p;

	if (s) {
		ms_table_free(&s->t);
		ms_table_free(&s->avg);
		ms_stats_free(&s->stats);
	}
	free(s);
}

static void *cg_snapshot(void *p)
{
	struct cg_snap *s = calloc(1, sizeof(*s));
	int ret;

	(void)p;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats)) {
		free(s);
		return NULL;
	}
	ret = ms_load_pressure_by_cgroup(&s->t);
	if (ret) {
		if (ret > 0)
			ms_fail("the module counts no pressure per cgroup: its pressure probes are not all attached, or it has no pressure_by_cgroup file (`memscope status`)");
		ms_stats_free(&s->stats);
		free(s);
		return NULL;
	}
	ret = ms_load_pressure_by_cgroup_avg(&s->avg);
	if (ret < 0) {
		cg_free(s);
		return NULL;
	}
	s->has_avg = !ret;
	return s;
}


/* A row's some_us and full_us; false if its numbers do not parse. */
static bool cg_row(const struct ms_rows *t, size_t r, uint64_t v[2])
{
	return ms_table_u64(t, r, 1, &v[0]) && ms_table_u64(t, r, 2, &v[1]);
}

/*
 * Cgroup @name's averages in @s, [some, full][avg10, avg60, avg300];
 * false where the module has none for it.
 */
static bool cg_avg(const struct cg_snap *s, const char *name, double a[2][3])
{
	size_t r;
	int k, w;

	for (r = 0; s->has_avg && r < s->avg.nrows; r++) {
		if (strcmp(ms_table_cell(&s->avg, r, 0), name))
			continue;
		for (k = 0; k < 2; k++)
			for (w = 0; w < 3; w++) {
				char *end;

				a[k][w] = strtod(ms_table_cell(&s->avg, r, 1 + 3 * k + w), &end);
				if (*end)
					return false;
			}
		return true;
	}
	return false;
}

/* The totals a previous snapshot had for cgroup @name (0 before its first stall). */
static void cg_prev(const struct cg_snap *prev, const char *name, uint64_t v[2])
{
	size_t r;

	v[0] = v[1] = 0;
	for (r = 0; prev && r < prev->t.nrows; r++)
		if (!strcmp(ms_table_cell(&prev->t, r, 0), name)) {
			cg_row(&prev->t, r, v);
			return;
		}
}

static const struct ms_rows *sort_rows;

static int by_path(const void *a, const void *b)
{
	return strcmp(ms_table_cell(sort_rows, *(const size_t *)a, 0),
		      ms_table_cell(sort_rows, *(const size_t *)b, 0));
}

/*
 * Each cgroup at or under -c's, by path: its totals (cumulative), or per
 * interval the share of it its tasks stalled.
 */
static int cg_report(void *p, const void *pv, const void *nv, double dt)
{
	struct pressure_ctx *c = p;
	const struct cg_snap *prev = pv, *now = nv;
	struct ms_krow key = { 0 };
	size_t i, r, shown = 0, *order;
	double avg[2][3];
	bool has_avg;
	char hms[16];

	order = calloc(now->t.nrows ? now->t.nrows : 1, sizeof(*order));
	if (!order) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	for (r = 0; r < now->t.nrows; r++)
		order[r] = r;
	sort_rows = &now->t;
	qsort(order, now->t.nrows, sizeof(*order), by_path);
	warn_uncounted(&now->stats, prev ? &prev->stats : NULL, true);

	print_begin_record();
	if (prev) {
		ms_fmt_hms(hms, sizeof(hms), time(NULL));
		print_string(PRINT_ANY, "time", "%s\n", hms);
		print_float(PRINT_JSON, "interval", NULL, dt);
		print_fp("%-40s %7s %7s %10s %10s\n", "CGROUP", "SOME%", "FULL%", "SOME_AVG10",
			 "FULL_AVG10");
	} else {
		print_fp("%-40s %7s %7s %7s %16s %7s %7s %7s %16s\n", "CGROUP", "SOME10", "SOME60",
			 "SOME300", "SOME(us)", "FULL10", "FULL60", "FULL300", "FULL(us)");
	}
	open_json_array("cgroups");
	for (i = 0; i < now->t.nrows; i++) {
		uint64_t v[2], was[2];
		int k;

		r = order[i];
		key.key = (char *)ms_table_cell(&now->t, r, 0);
		if (!ms_keyed_cgroup_match(&key, c->o) || !cg_row(&now->t, r, v))
			continue;
		shown++;
		has_avg = cg_avg(now, key.key, avg);
		open_json_object(NULL);
		print_string(PRINT_ANY, "cgroup", "%-40s", key.key);
		if (!prev) {
			for (k = 0; k < 2; k++) {
				int w;

				for (w = 0; w < 3; w++)
					if (has_avg)
						print_float(PRINT_ANY, avg_cols[k][w], " %7.2f", avg[k][w]);
					else
						print_fp(" %7s", "-");
				print_uint(PRINT_ANY, k ? "full_us" : "some_us",
					   k ? " %16llu\n" : " %16llu", v[k]);
			}
		} else {
			cg_prev(prev, key.key, was);
			for (k = 0; k < 2; k++) {
				uint64_t us = v[k] - was[k];
				char name[16];

				snprintf(name, sizeof(name), "%s_pct", kinds[k]);
				print_float(PRINT_ANY, name, " %7.2f", dt > 0 ? (double)us / 1e4 / dt : 0.0);
				snprintf(name, sizeof(name), "%s_us", kinds[k]);
				print_uint(PRINT_JSON, name, NULL, us);
			}
			for (k = 0; k < 2; k++)
				if (has_avg)
					print_float(PRINT_ANY, avg_cols[k][0], " %10.2f", avg[k][0]);
				else
					print_fp(" %10s", "-");
			print_fp("\n");
		}
		close_json_object();
	}
	close_json_array();
	if (!shown)
		print_fp("(no memory stall on record in %s or under it: a cgroup has a row from its tasks' first stall)\n",
			 c->o->cgroup);
	print_end_record();
	free(order);
	return 0;
}

static const struct ms_interval_ops cg_ops = {
	.snapshot = cg_snapshot,
	.free_snap = cg_free,
	.report = cg_report,
};

static int cmd_pressure(const struct ms_opts *o)
{
	struct pressure_ctx c = { .o = o };

	if (ms_check_probes("pressure", ms_pressure_probes))
		return 1;
	return ms_run_interval(o, o->cgroup ? &cg_ops : &pressure_ops, &c);
}

MS_TOOL(pressure,
	.topic = MS_TOPIC_PRESSURE, .rank = 15,
	.opts = OPT_INTERVAL | OPT_CGROUP,
	.usage = "pressure [-c CGROUP] [INTERVAL [COUNT]]",
	.summary = "memory stall time as PSI's some and full, where the kernel has no PSI; -c: per memory cgroup, at and under CGROUP");
