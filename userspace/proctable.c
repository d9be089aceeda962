// SPDX-License-Identifier: GPL-2.0
/*
 * A per-process counter table and its total stat, by interval: swapin
 * and hfaults.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memscope.h"

struct proc_ctx {
	const struct ms_opts *o;
	const struct ms_proc_table *t;
};

struct proc_snap {
	struct ms_counters stats;
	struct ms_keyed rows;
};

static void proc_free(void *p)
{
	struct proc_snap *s = p;

	ms_stats_free(&s->stats);
	ms_keyed_free(&s->rows);
	free(s);
}

static void *proc_snapshot(void *p)
{
	struct proc_ctx *c = p;
	struct proc_snap *s = calloc(1, sizeof(*s));
	const char *cols[1] = { c->t->valcol };

	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats) ||
	    (c->o->cgroup ? ms_keyed_load("swapins_by_cgroup", "cgroup", NULL, cols, 1, &s->rows) :
	     ms_keyed_load(c->t->table, "pid", "comm", cols, 1, &s->rows))) {
		proc_free(s);
		return NULL;
	}
	return s;
}

static int proc_report(void *p, const void *pv, const void *nv, double dt)
{
	const struct proc_ctx *c = p;
	const struct proc_snap *prev = pv, *now = nv;
	struct ms_keyed d;
	char hms[16];
	size_t i;
	uint64_t total;

	if (ms_keyed_delta(&now->rows, prev ? &prev->rows : NULL, 0, &d))
		return -1;
	total = ms_stat_delta(&now->stats, prev ? &prev->stats : NULL, c->t->stat);
	print_begin_record();
	if (c->t->swapin_layout) {
		ms_fmt_hms(hms, sizeof(hms), time(NULL));
		print_string(PRINT_ANY, "time", "%s\n", hms);
		if (c->o->timestamp)
			print_uint(PRINT_JSON, "timestamp", NULL, (uint64_t)time(NULL));
	} else {
		ms_print_timestamp(c->o);
	}
	if (prev)
		print_float(PRINT_JSON, "interval", NULL, dt);
	if (c->o->cgroup) {
		print_fp("%-40s %10s\n", "CGROUP", "COUNT");
		open_json_array("cgroups");
		for (i = 0; i < d.n; i++) {
			if (!ms_keyed_cgroup_match(&d.rows[i], c->o))
				continue;
			open_json_object(NULL);
			print_string(PRINT_ANY, "cgroup", "%-40s ", d.rows[i].key);
			print_uint(PRINT_ANY, "count", "%10llu\n", d.rows[i].v[0]);
			close_json_object();
		}
		close_json_array();
		goto total;
	}
	if (c->t->swapin_layout)
		print_fp("%-16s %-7s %10s\n", "COMM", "PID", "COUNT");
	else
		print_fp("%-7s %-16s %10s\n", "PID", "COMM", "FAULTS");
	open_json_array("processes");
	for (i = 0; i < d.n; i++) {
		if (!ms_keyed_pid_match(&d.rows[i], c->o))
			continue;
		open_json_object(NULL);
		if (c->t->swapin_layout) {
			print_string(PRINT_ANY, "comm", "%-16s ", d.rows[i].label);
			print_num_str(PRINT_ANY, "pid", "%-7s ", d.rows[i].key);
			print_uint(PRINT_ANY, "count", "%10llu\n", d.rows[i].v[0]);
		} else {
			print_num_str(PRINT_ANY, "pid", "%-7s ", d.rows[i].key);
			print_string(PRINT_ANY, "comm", "%-16s ", d.rows[i].label);
			print_uint(PRINT_ANY, "faults", "%10llu\n", d.rows[i].v[0]);
		}
		close_json_object();
	}
	close_json_array();
total:
	print_uint(PRINT_ANY, c->t->stat, c->t->swapin_layout ?
		   "TOTAL: %llu pages swapped in\n" : "TOTAL: %llu hugetlb faults\n", total);
	ms_keyed_print_dropped(&now->rows, prev ? &prev->rows : NULL, c->o->has_pid);
	if (c->o->has_interval)
		print_nl();
	print_end_record();
	ms_keyed_free(&d);
	return 0;
}

static const struct ms_interval_ops proc_ops = {
	.snapshot = proc_snapshot,
	.free_snap = proc_free,
	.report = proc_report,
};

int ms_run_proc_table(const struct ms_opts *o, const struct ms_proc_table *t)
{
	struct proc_ctx c = { o, t };

	return ms_run_interval(o, &proc_ops, &c);
}
