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

/* One line of the file: PSI's some or full. */
struct psi_line {
	double avg[3];		/* avg10, avg60, avg300: percent */
	uint64_t total_us;
};

struct pressure_snap {
	struct psi_line line[2];	/* some, full */
};

struct pressure_ctx {
	unsigned long rows;
};

static const char *const kinds[2] = { "some", "full" };

/* Exactly /proc/pressure/memory's two lines, or a malformed-file error. */
static int parse_pressure(const char *data, struct pressure_snap *s)
{
	const char *p = data;
	int seen = 0, k;

	while (p && *p) {
		char kind[8];
		struct psi_line l;
		unsigned long long total;

		if (sscanf(p, "%7s avg10=%lf avg60=%lf avg300=%lf total=%llu", kind, &l.avg[0],
			   &l.avg[1], &l.avg[2], &total) != 5)
			break;
		l.total_us = total;
		for (k = 0; k < 2; k++)
			if (!strcmp(kind, kinds[k])) {
				s->line[k] = l;
				seen |= 1 << k;
			}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (seen != 3) {
		ms_fail("the pressure file is not PSI's some and full lines, "
			"use a memscope CLI of the module's version");
		return -1;
	}
	return 0;
}

static void *pressure_snapshot(void *p)
{
	struct pressure_snap *s = calloc(1, sizeof(*s));
	char *data = NULL;
	size_t len;

	(void)p;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_read("pressure", &data, &len) || parse_pressure(data, s)) {
		free(data);
		free(s);
		return NULL;
	}
	free(data);
	return s;
}

/* Cumulative: the two lines, as a table. */
static void print_totals(const struct pressure_snap *s)
{
	int k;

	print_fp("%-6s %7s %7s %7s %16s\n", "", "AVG10", "AVG60", "AVG300", "TOTAL(us)");
	for (k = 0; k < 2; k++) {
		const struct psi_line *l = &s->line[k];

		open_json_object(kinds[k]);
		print_fp("%-6s", kinds[k]);
		print_float(PRINT_ANY, "avg10", " %7.2f", l->avg[0]);
		print_float(PRINT_ANY, "avg60", " %7.2f", l->avg[1]);
		print_float(PRINT_ANY, "avg300", " %7.2f", l->avg[2]);
		print_uint(PRINT_ANY, "total_us", " %16llu\n", l->total_us);
		close_json_object();
	}
}

/* Each interval: the share of it stalled, and PSI's 10 s averages. */
static int pressure_report(void *p, const void *pv, const void *nv, double dt)
{
	struct pressure_ctx *c = p;
	const struct pressure_snap *prev = pv, *now = nv;
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
		uint64_t us = now->line[k].total_us - prev->line[k].total_us;
		char key[16];

		snprintf(key, sizeof(key), "%s_pct", kinds[k]);
		print_float(PRINT_ANY, key, " %7.2f", dt > 0 ? (double)us / 1e4 / dt : 0.0);
		snprintf(key, sizeof(key), "%s_us", kinds[k]);
		print_uint(PRINT_JSON, key, NULL, us);
	}
	print_float(PRINT_ANY, "some_avg10", " %10.2f", now->line[0].avg[0]);
	print_float(PRINT_ANY, "full_avg10", " %10.2f\n", now->line[1].avg[0]);
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
	static const char *const probes[] = { "pressure_enter", "pressure_leave", NULL };
	struct pressure_ctx c = { 0 };

	if (ms_check_probes("pressure", probes))
		return 1;
	return ms_run_interval(o, &pressure_ops, &c);
}

MS_TOOL(pressure,
	.topic = MS_TOPIC_PRESSURE, .rank = 15,
	.opts = OPT_INTERVAL,
	.usage = "pressure [INTERVAL [COUNT]]",
	.summary = "memory stall time as PSI's some and full, where the kernel has no PSI");
