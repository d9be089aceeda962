// SPDX-License-Identifier: GPL-2.0
/*
 * pressure: memory stall time as PSI defines it, from the module's
 * pressure file, where the kernel's own PSI is off.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

#define HEADER_EVERY 20

struct pressure_ctx {
	unsigned long rows;
};

static const char *const kinds[2] = { "some", "full" };

static void *pressure_snapshot(void *p)
{
	struct ms_psi *s = calloc(1, sizeof(*s));
	char *data = NULL;
	size_t len;
	int ret;

	(void)p;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_read("pressure", &data, &len)) {
		free(s);
		return NULL;
	}
	ret = ms_parse_psi(data, len, s);
	free(data);
	if (ret || !s->has[1]) {
		ms_fail("the pressure file is not PSI's some and full lines (%s), "
			"use a memscope CLI of the module's version", ret ? s->diag.msg : "no full line");
		free(s);
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
	const struct ms_psi *prev = pv, *now = nv;
	char hms[16];
	int k;

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
	.free_snap = free,
	.report = pressure_report,
};

static int cmd_pressure(const struct ms_opts *o)
{
	struct pressure_ctx c = { 0 };

	if (ms_check_probes("pressure", ms_pressure_probes))
		return 1;
	return ms_run_interval(o, &pressure_ops, &c);
}

MS_TOOL(pressure,
	.topic = MS_TOPIC_PRESSURE, .rank = 15,
	.opts = OPT_INTERVAL,
	.usage = "pressure [INTERVAL [COUNT]]",
	.summary = "memory stall time as PSI's some and full, where the kernel has no PSI");
