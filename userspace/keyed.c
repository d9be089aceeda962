// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "memscope.h"

bool ms_reset_between(const struct ms_counters *now, const struct ms_counters *prev)
{
	return prev && ms_stats_val(now, "reset_count") != ms_stats_val(prev, "reset_count");
}

uint64_t ms_stat_delta(const struct ms_counters *now, const struct ms_counters *prev,
		       const char *key)
{
	uint64_t n = ms_stats_val(now, key), p = prev ? ms_stats_val(prev, key) : 0;

	if (ms_reset_between(now, prev))
		return n;
	return n >= p ? n - p : 0;
}

void ms_keyed_free(struct ms_keyed *k)
{
	size_t i;

	if (!k->borrowed) {
		for (i = 0; i < k->n; i++) {
			free(k->rows[i].key);
			free(k->rows[i].label);
		}
	}
	free(k->rows);
	memset(k, 0, sizeof(*k));
}

static int sortcol;

/* A row is identified by its key and label: a pid keeps its rows per comm. */
static int cmp_row_id(const struct ms_krow *x, const struct ms_krow *y)
{
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->label, y->label);
}

static int cmp_key(const void *a, const void *b)
{
	return cmp_row_id(*(const struct ms_krow *const *)a, *(const struct ms_krow *const *)b);
}

static int cmp_row_qsort(const void *a, const void *b)
{
	return cmp_row_id(a, b);
}

/*
 * Rows that print the same (two files both named "memscope", a pid seen
 * twice) can't be told apart between snapshots: count them as one.
 */
static void merge_duplicates(struct ms_keyed *k)
{
	size_t i, w = 0;
	int j;

	if (k->n < 2)
		return;
	qsort(k->rows, k->n, sizeof(*k->rows), cmp_row_qsort);
	for (i = 1; i < k->n; i++) {
		struct ms_krow *dst = &k->rows[w], *src = &k->rows[i];

		if (!cmp_row_id(dst, src)) {
			for (j = 0; j < k->nvals; j++)
				dst->v[j] = dst->v[j] + src->v[j] < dst->v[j] ?
					    UINT64_MAX : dst->v[j] + src->v[j];
			free(src->key);
			free(src->label);
		} else {
			k->rows[++w] = *src;
		}
	}
	k->n = w + 1;
}

int ms_keyed_load(const char *file, const char *keycol, const char *labelcol,
		  const char *const *valcols, int nvals, struct ms_keyed *k)
{
	struct ms_rows t;
	int kc, lc = -1, vc[MS_KEYED_VALS], j;
	unsigned int bad = 0;
	size_t r;

	memset(k, 0, sizeof(*k));
	k->nvals = nvals;
	k->file = file;
	k->by_pid = !strcmp(keycol, "pid");
	if (ms_load_reset_count(&k->reset_count, &k->dropped) ||
	    ms_load_reuse(file, &k->reuse) || ms_load_table(file, &t))
		return -1;
	kc = ms_table_col(&t, keycol);
	if (labelcol)
		lc = ms_table_col(&t, labelcol);
	for (j = 0; j < nvals; j++)
		vc[j] = ms_table_col(&t, valcols[j]);
	for (j = -2; j < nvals; j++) {
		const char *name = j == -2 ? keycol : j == -1 ? labelcol : valcols[j];
		int c = j == -2 ? kc : j == -1 ? lc : vc[j];

		if (name && c < 0) {
			ms_fail("%s/%s has no column \"%s\", check that the module version matches this CLI (`memscope status`)",
				ms_dir(), file, name);
			ms_table_free(&t);
			return -1;
		}
	}
	k->rows = calloc(t.nrows ? t.nrows : 1, sizeof(*k->rows));
	if (!k->rows)
		goto nomem;
	for (r = 0; r < t.nrows; r++) {
		struct ms_krow *row = &k->rows[k->n];

		for (j = 0; j < nvals; j++)
			if (!ms_table_u64(&t, r, (size_t)vc[j], &row->v[j]))
				break;
		if (j < nvals) {
			bad++;
			continue;
		}
		row->key = strdup(ms_table_cell(&t, r, (size_t)kc));
		row->label = strdup(lc >= 0 ? ms_table_cell(&t, r, (size_t)lc) : "");
		if (!row->key || !row->label) {
			free(row->key);
			free(row->label);
			goto nomem;
		}
		k->n++;
	}
	merge_duplicates(k);
	if (bad)
		print_warn("%s/%s: skipped %u row%s with a non-numeric count",
			   ms_dir(), file, bad, bad == 1 ? "" : "s");
	ms_table_free(&t);
	return 0;
nomem:
	ms_table_free(&t);
	ms_keyed_free(k);
	ms_fail("out of memory, free some memory");
	return -1;
}

static int cmp_val(const void *a, const void *b)
{
	const struct ms_krow *x = a, *y = b;

	if (x->v[sortcol] != y->v[sortcol])
		return x->v[sortcol] < y->v[sortcol] ? 1 : -1;
	return cmp_row_id(x, y);
}

void ms_keyed_print_dropped(const struct ms_keyed *now, const struct ms_keyed *prev,
			    bool one_process)
{
	uint64_t n = now->dropped;

	if (prev && prev->reset_count == now->reset_count)
		n = n >= prev->dropped ? n - prev->dropped : 0;
	print_uint(PRINT_JSON, "dropped", NULL, n);
	if (n)
		print_fp("WARNING: %llu event%s not counted: a table was full of processes that are still running and unread. Read more often, or load memscope with a larger table_size (the version file shows the current one)\n",
			 (unsigned long long)n, n == 1 ? " was" : "s were");
	if (now->file)
		ms_warn_reuse(now->file, "events", now->by_pid, one_process, &now->reuse,
			      prev ? &prev->reuse : NULL);
}

int ms_keyed_delta(const struct ms_keyed *now, const struct ms_keyed *prev,
		   int col, struct ms_keyed *out)
{
	const struct ms_krow **idx = NULL, *key, **hit;
	struct ms_krow tmp;
	size_t i;
	int j;
	bool any, reset, all_reset = prev && now->reset_count != prev->reset_count;

	memset(out, 0, sizeof(*out));
	out->nvals = now->nvals;
	out->borrowed = true;
	out->rows = calloc(now->n ? now->n : 1, sizeof(*out->rows));
	if (!out->rows)
		goto nomem;
	if (prev && prev->n) {
		idx = malloc(prev->n * sizeof(*idx));
		if (!idx)
			goto nomem;
		for (i = 0; i < prev->n; i++)
			idx[i] = &prev->rows[i];
		qsort(idx, prev->n, sizeof(*idx), cmp_key);
	}
	for (i = 0; i < now->n; i++) {
		tmp = now->rows[i];
		hit = NULL;
		if (idx) {
			key = &now->rows[i];
			hit = bsearch(&key, idx, prev->n, sizeof(*idx), cmp_key);
		}
		if (hit && !all_reset) {
			/*
			 * Without a reset, a count that went down is a row the
			 * module reused for a new process with the same key:
			 * the whole row counts from zero.
			 */
			reset = false;
			for (j = 0; j < now->nvals; j++)
				if (tmp.v[j] < (*hit)->v[j])
					reset = true;
			if (!reset)
				for (j = 0; j < now->nvals; j++)
					tmp.v[j] -= (*hit)->v[j];
		}
		any = false;
		for (j = 0; j < now->nvals; j++)
			any |= tmp.v[j] != 0;
		if (any)
			out->rows[out->n++] = tmp;
	}
	free(idx);
	sortcol = col;
	qsort(out->rows, out->n, sizeof(*out->rows), cmp_val);
	return 0;
nomem:
	free(idx);
	free(out->rows);
	memset(out, 0, sizeof(*out));
	ms_fail("out of memory, free some memory");
	return -1;
}

bool ms_keyed_pid_match(const struct ms_krow *r, const struct ms_opts *o)
{
	int64_t pid;

	if (!o->has_pid)
		return true;
	return ms_parse_i64(r->key, &pid) && pid == o->pid;
}

/* -c /a matches /a and /a/b, not /ab; -c / matches every cgroup. */
bool ms_keyed_cgroup_match(const struct ms_krow *r, const struct ms_opts *o)
{
	size_t n = strlen(o->cgroup);

	while (n > 1 && o->cgroup[n - 1] == '/')
		n--;
	if (n == 1 && o->cgroup[0] == '/')
		return r->key[0] == '/';
	return !strncmp(r->key, o->cgroup, n) && (r->key[n] == '\0' || r->key[n] == '/');
}

/* One table as a heap snapshot, for the interval loop; NULL has been said. */
struct ms_keyed *ms_keyed_snapshot(const char *file, const char *keycol, const char *labelcol,
				   const char *const *cols, int ncols)
{
	struct ms_keyed *k = calloc(1, sizeof(*k));

	if (!k) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_keyed_load(file, keycol, labelcol, cols, ncols, k)) {
		free(k);
		return NULL;
	}
	return k;
}

void ms_keyed_snapshot_free(void *p)
{
	ms_keyed_free(p);
	free(p);
}

void ms_keyed_key_fmt(const struct ms_keyed *d, size_t n, size_t min, char *fmt, size_t len)
{
	size_t i, w = min;

	for (i = 0; i < n && i < d->n; i++)
		if (strlen(d->rows[i].key) > w)
			w = strlen(d->rows[i].key);
	if (w > 40)
		w = 40;
	snprintf(fmt, len, "%%-%zus", w);
}
