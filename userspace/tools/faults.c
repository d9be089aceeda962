// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "memscope.h"

/* The faults probe, by name: fault_stacks hooks handle_mm_fault too, for another tool. */
static const char *const fault_probes[] = { "faults*", NULL };

struct faults_snap {
	struct ms_counters stats;
	struct ms_keyed rows;
	struct ms_buckets hist;
	bool has_hist;
};

struct faults_ctx {
	const struct ms_opts *o;
	bool by_file;
};

static void faults_free(void *p)
{
	struct faults_snap *s = p;

	ms_stats_free(&s->stats);
	ms_keyed_free(&s->rows);
	free(s);
}

static void *faults_snapshot(void *p)
{
	static const char *const pid_cols[] = { "faults", "major" };
	struct faults_ctx *c = p;
	struct faults_snap *s = calloc(1, sizeof(*s));
	int r;

	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (c->by_file) {
		if (ms_keyed_load("faults_by_file", "file", NULL, pid_cols, 2, &s->rows))
			goto fail;
	} else {
		if (ms_load_stats(&s->stats) ||
		    (c->o->cgroup ?
		     ms_keyed_load("faults_by_cgroup", "cgroup", NULL, pid_cols, 2, &s->rows) :
		     ms_keyed_load("faults_by_pid", "pid", "comm", pid_cols, 2, &s->rows)))
			goto fail;
		if (c->o->hist) {
			r = ms_load_hist("fault_latency_ns", &s->hist, false);
			if (r)
				goto fail;
			s->has_hist = true;
		}
	}
	return s;
fail:
	faults_free(s);
	return NULL;
}

/*
 * The totals, then each faults_* class the module counts, in its stats
 * file's order: a class the module adds shows without a change here.
 */
static void print_totals(const struct faults_ctx *c, const struct ms_counters *now,
			 const struct ms_counters *prev)
{
	uint64_t faults = ms_stat_delta(now, prev, "faults");
	uint64_t major = ms_stat_delta(now, prev, "faults_major");
	size_t i;

	open_json_object("totals");
	print_fp("%s", c->o->has_pid ? "TOTAL (all processes):" :
		 c->o->cgroup ? "TOTAL (all cgroups):" : "TOTAL:");
	print_uint(PRINT_ANY, "faults", " faults %llu", faults);
	print_uint(PRINT_ANY, "major", " major %llu", major);
	print_uint(PRINT_ANY, "minor", " minor %llu", faults >= major ? faults - major : 0);
	for (i = 0; i < now->n; i++) {
		const char *key = now->v[i].key, *name = key + strlen("faults_");
		char fmt[64];

		if (strncmp(key, "faults_", strlen("faults_")) || !strcmp(key, "faults_major"))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%llu", name);
		print_uint(PRINT_ANY, name, fmt, ms_stat_delta(now, prev, key));
	}
	print_nl();
	close_json_object();
}

static size_t file_width(const struct ms_keyed *k)
{
	size_t i, w = 4;

	for (i = 0; i < k->n; i++)
		if (strlen(k->rows[i].key) > w)
			w = strlen(k->rows[i].key);
	return w > 48 ? 48 : w;
}

static int faults_report(void *p, const void *pv, const void *nv, double dt)
{
	const struct faults_ctx *c = p;
	const struct faults_snap *prev = pv, *now = nv;
	struct ms_keyed d;
	char fmt[16];
	size_t i, w;

	if (ms_keyed_delta(&now->rows, prev ? &prev->rows : NULL, 0, &d))
		return -1;
	print_begin_record();
	ms_print_timestamp(c->o);
	if (prev)
		print_float(PRINT_JSON, "interval", NULL, dt);
	if (c->by_file) {
		w = file_width(&d);
		snprintf(fmt, sizeof(fmt), "%%-%zus ", w);
		print_fp(fmt, "FILE");
		print_fp("%10s %8s\n", "FAULTS", "MAJOR");
		open_json_array("files");
		for (i = 0; i < d.n; i++) {
			open_json_object(NULL);
			print_string(PRINT_ANY, "file", fmt, d.rows[i].key);
			print_uint(PRINT_ANY, "faults", "%10llu", d.rows[i].v[0]);
			print_uint(PRINT_ANY, "major", " %8llu\n", d.rows[i].v[1]);
			close_json_object();
		}
		close_json_array();
	} else if (c->o->cgroup) {
		print_fp("%-40s %10s %8s\n", "CGROUP", "FAULTS", "MAJOR");
		open_json_array("cgroups");
		for (i = 0; i < d.n; i++) {
			if (!ms_keyed_cgroup_match(&d.rows[i], c->o))
				continue;
			open_json_object(NULL);
			print_string(PRINT_ANY, "cgroup", "%-40s ", d.rows[i].key);
			print_uint(PRINT_ANY, "faults", "%10llu", d.rows[i].v[0]);
			print_uint(PRINT_ANY, "major", " %8llu\n", d.rows[i].v[1]);
			close_json_object();
		}
		close_json_array();
		print_totals(c, &now->stats, prev ? &prev->stats : NULL);
	} else {
		print_fp("%-7s %-16s %10s %8s\n", "PID", "COMM", "FAULTS", "MAJOR");
		open_json_array("processes");
		for (i = 0; i < d.n; i++) {
			if (!ms_keyed_pid_match(&d.rows[i], c->o))
				continue;
			open_json_object(NULL);
			print_num_str(PRINT_ANY, "pid", "%-7s ", d.rows[i].key);
			print_string(PRINT_ANY, "comm", "%-16s ", d.rows[i].label);
			print_uint(PRINT_ANY, "faults", "%10llu", d.rows[i].v[0]);
			print_uint(PRINT_ANY, "major", " %8llu\n", d.rows[i].v[1]);
			close_json_object();
		}
		close_json_array();
		print_totals(c, &now->stats, prev ? &prev->stats : NULL);
	}
	ms_keyed_print_dropped(&now->rows, prev ? &prev->rows : NULL, c->o->has_pid);
	if (c->o->has_interval)
		print_nl();
	print_end_record();
	ms_keyed_free(&d);
	return 0;
}

static int faults_finish(void *p, const void *fv, const void *lv)
{
	const struct faults_ctx *c = p;
	const struct faults_snap *first = fv, *last = lv;
	struct ms_buckets d;

	if (c->by_file || !c->o->hist || !last->has_hist)
		return 0;
	ms_hist_delta(&last->hist, first ? &first->hist : NULL, &d);
	print_begin_record();
	open_json_array("histograms");
	ms_print_hist("fault_latency_ns", &d);
	close_json_array();
	print_end_record();
	return 0;
}

static const struct ms_interval_ops faults_ops = {
	.snapshot = faults_snapshot,
	.free_snap = faults_free,
	.report = faults_report,
	.finish = faults_finish,
};

static int cmd_faults(const struct ms_opts *o)
{
	struct faults_ctx c = { .o = o, .by_file = false };

	if (o->stacks)
		return cmd_fault_stacks(o);
	if (ms_check_probes("faults", fault_probes))
		return 1;
	return ms_run_interval(o, &faults_ops, &c);
}

static int cmd_ffaults(const struct ms_opts *o)
{
	struct faults_ctx c = { .o = o, .by_file = true };

	if (ms_check_probes("ffaults", fault_probes))
		return 1;
	return ms_run_interval(o, &faults_ops, &c);
}

MS_TOOL(faults,
	.topic = MS_TOPIC_FAULTS, .rank = 10,
	.opts = OPT_PID | OPT_CGROUP | OPT_HIST | OPT_STACKS | OPT_KEPT | OPT_DEBUG_DIR |
		OPT_INTERVAL,
	.usage = "faults [-p PID | -c CGROUP] [--hist | --stacks [--kept] [--debug-dir DIR]] [INTERVAL [COUNT]]",
	.summary = "page faults by process (-c: by cgroup), totals by class, latency histogram; --stacks: by user stack, folded (turns faultstacks on while it runs)");

MS_TOOL(ffaults,
	.topic = MS_TOPIC_FAULTS, .rank = 20,
	.opts = OPT_INTERVAL,
	.usage = "ffaults [INTERVAL [COUNT]]",
	.summary = "page faults by file name");
