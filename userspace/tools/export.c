// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memscope.h"
#include "nl.h"

/*
 * Prometheus text exposition format (version 0.0.4), for node_exporter's
 * textfile collector: counters as memscope_<key>_total (nanoseconds become
 * _seconds_total), each hist_raw/<name> as a histogram with cumulative le
 * buckets, and gauges for probes and table sizes.
 */

#define PROM_SLOTS 41	/* le up to 2^40 - 1 ns (18 min); the rest is +Inf */


/*
 * stats_format: each stat's type and a sentence on it, from the module,
 * which describes every stat where it counts it.  A module older than the
 * file gives neither: then the stat's name serves as its help, and the one
 * state among its stats, frozen here, is a gauge.
 */
struct stat_fmt {
	char *data;		/* the file, its lines cut into the fields */
	size_t n;
	struct {
		const char *key;
		const char *help;
		bool gauge;
	} *v;
};

static void stat_fmt_load(struct stat_fmt *f)
{
	char *line, *next, *kind, *help;
	size_t len, cap = 0;
	void *nv;

	memset(f, 0, sizeof(*f));
	if (ms_read_optional("stats_format", &f->data, &len))
		return;
	for (line = f->data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		kind = strchr(line, ' ');
		help = kind ? strchr(kind + 1, ' ') : NULL;
		if (!help)
			continue;	/* not "name kind help": ignored */
		*kind++ = '\0';
		*help++ = '\0';
		if (f->n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = ms_reallocarray(f->v, cap, sizeof(*f->v));
			if (!nv)
				return;
			f->v = nv;
		}
		f->v[f->n].key = line;
		f->v[f->n].help = help;
		f->v[f->n++].gauge = !strcmp(kind, "gauge");
	}
}

static void stat_fmt_free(struct stat_fmt *f)
{
	free(f->v);
	free(f->data);
}

/* @key's entry, for its help and type, or -1. */
static ssize_t stat_fmt_find(const struct stat_fmt *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].key, key))
			return (ssize_t)i;
	return -1;
}

static bool ends_with(const char *s, const char *sfx)
{
	size_t n = strlen(s), m = strlen(sfx);

	return n > m && !strcmp(s + n - m, sfx);
}

/* A metric name part: [a-zA-Z0-9_] only. */
static void metric_part(char *dst, size_t size, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < size; i++) {
		char c = src[i];

		dst[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9')) ? c : '_';
	}
	dst[i] = '\0';
}

/* The length of a well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) || (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/*
 * A label value: escaped as the text format wants, and UTF-8, which it
 * requires: a byte that is not (a process may name itself anything) is
 * U+FFFD, as a terminal shows it.
 */
static void label_value(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', fp);
	while (*s) {
		n = utf8_len(s);
		if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '"')
			fputs("\\\"", fp);
		else if (*s == '\n')
			fputs("\\n", fp);
		else if (n)
			fwrite(s, 1, n, fp);
		else
			fputs("\xef\xbf\xbd", fp);
		s += n ? n : 1;
	}
	fputc('"', fp);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names under hist_raw/ (or the family's GET_HISTS), sorted; the count or -1. */
static int list_hists(char ***names)
{
	struct dirent *de;
	char *path;
	DIR *d;
	int n = 0, cap = 0;
	char **v = NULL, **nv;

	*names = NULL;
	if (ms_nl_on()) {
		n = ms_nl_list_hists(&v);
		if (n > 0)
			qsort(v, (size_t)n, sizeof(*v), cmp_str);
		*names = v;
		return n;
	}
	path = ms_path("hist_raw");
	if (!path) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	d = opendir(path);
	free(path);
	if (!d)
		return 0;	/* no histograms */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (v[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_str);
	*names = v;
	return n;
}

static void free_names(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void prom_hist(FILE *fp, const char *name, const struct ms_buckets *h)
{
	char metric[256];
	bool ns = ends_with(name, "_ns");
	double scale = ns ? 1e9 : 1.0;
	uint64_t cum = 0, count;
	int i;

	metric_part(metric, sizeof(metric) - 16, name, ns ? strlen(name) - 3 : strlen(name));
	if (ns)
		strcat(metric, "_seconds");
	fprintf(fp, "# HELP memscope_%s Distribution of %s (log2 buckets from hist_raw/%s).\n",
		metric, ns ? "latency in seconds" : "values", name);
	fprintf(fp, "# TYPE memscope_%s histogram\n", metric);
	for (i = 0; i < PROM_SLOTS; i++) {
		cum += h->slot[i];
		fprintf(fp, "memscope_%s_bucket{le=\"%.12g\"} %llu\n", metric,
			(double)memscope_hist_hi(i) / scale, (unsigned long long)cum);
	}
	for (; i < MEMSCOPE_HIST_BUCKETS; i++)
		cum += h->slot[i];
	/* +Inf must equal _count and never fall below the last bucket */
	count = h->count > cum ? h->count : cum;
	fprintf(fp, "memscope_%s_bucket{le=\"+Inf\"} %llu\n", metric, (unsigned long long)count);
	if (ns)
		fprintf(fp, "memscope_%s_sum %.9f\n", metric, (double)h->sum / 1e9);
	else
		fprintf(fp, "memscope_%s_sum %llu\n", metric, (unsigned long long)h->sum);
	fprintf(fp, "memscope_%s_count %llu\n", metric, (unsigned long long)count);
}

/* A table's key columns become labels; the others are its values. */
static bool is_label_col(const char *col)
{
	/* A stack table's depth and stack name its row, as pid and comm do. */
	static const char *const labels[] = {
		"pid", "comm", "file", "cgroup", "shrinker", "cache", "depth", "stack",
	};
	size_t i;

	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(col, labels[i]))
			return true;
	return false;
}

/*
 * A value column's metric: memscope_<table>_<col>_total, nanoseconds as
 * _seconds_total; a median is a gauge, not a counter.
 */
static bool value_metric(char *dst, size_t size, const char *table, const char *col,
			 bool *seconds)
{
	bool ns = ends_with(col, "_ns") || !strcmp(col, "ns");
	bool gauge = !strncmp(col, "median", 6);
	char t[128], c[128];

	metric_part(t, sizeof(t), table, strlen(table));
	metric_part(c, sizeof(c), col, ns && strcmp(col, "ns") ? strlen(col) - 3 : strlen(col));
	if (!strcmp(col, "ns"))
		snprintf(dst, size, "memscope_%s_seconds_total", t);
	else
		snprintf(dst, size, "memscope_%s_%s%s%s", t, c, ns ? "_seconds" : "",
			 gauge ? "" : "_total");
	*seconds = ns;
	return gauge;
}

static void prom_value(FILE *fp, uint64_t v, bool seconds)
{
	if (seconds)
		fprintf(fp, "%.9f\n", (double)v / 1e9);
	else
		fprintf(fp, "%llu\n", (unsigned long long)v);
}

/* A row's value in column c, 0 if it is not a number. */
static uint64_t cell_u64(const struct ms_rows *t, size_t row, size_t c)
{
	uint64_t v;

	return ms_table_u64(t, row, c, &v) ? v : 0;
}

static const struct ms_rows *sort_table;
static size_t sort_col;

static int cmp_rows_desc(const void *a, const void *b)
{
	uint64_t x = cell_u64(sort_table, *(const size_t *)a, sort_col);
	uint64_t y = cell_u64(sort_table, *(const size_t *)b, sort_col);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* @t's row numbers, by column @col, largest first; NULL has been said. */
static size_t *prom_order(const struct ms_rows *t, size_t col)
{
	size_t k, *order = calloc(t->nrows ? t->nrows : 1, sizeof(*order));

	if (!order) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	for (k = 0; k < t->nrows; k++)
		order[k] = k;
	sort_table = t;
	sort_col = col;
	qsort(order, t->nrows, sizeof(*order), cmp_rows_desc);
	return order;
}

/*
 * One table's rows as metrics, the top rows only (by its first value
 * column): a fleet's series stay bounded however many processes or files
 * a host has.  Each value column's rows beyond the top are summed in
 * memscope_<table>_<col>_rest, so totals still add up.
 */
static int prom_table(FILE *fp, const char *name, const struct ms_rows *t, uint64_t top)
{
	char metric[300], rest[300];
	size_t c, l, k, n, first = t->ncols, *order;
	const char *sep;
	bool seconds, gauge;
	uint64_t sum;

	for (c = 0; c < t->ncols && first == t->ncols; c++)
		if (!is_label_col(t->cols[c]))
			first = c;
	if (first == t->ncols || !t->nrows)
		return 0;
	order = prom_order(t, first);
	if (!order)
		return -1;
	n = t->nrows < top ? t->nrows : top;
	for (c = 0; c < t->ncols; c++) {
		if (is_label_col(t->cols[c]))
			continue;
		gauge = value_metric(metric, sizeof(metric), name, t->cols[c], &seconds);
		fprintf(fp, "# HELP %s Column \"%s\" of memscope's %s table, its top %llu rows by %s.\n",
			metric, t->cols[c], name, (unsigned long long)top, t->cols[first]);
		fprintf(fp, "# TYPE %s %s\n", metric, gauge ? "gauge" : "counter");
		for (k = 0; k < n; k++) {
			fprintf(fp, "%s{", metric);
			/* Every label column, after the values too (a stack's). */
			for (l = 0, sep = ""; l < t->ncols; l++) {
				if (!is_label_col(t->cols[l]))
					continue;
				fprintf(fp, "%s%s=", sep, t->cols[l]);
				label_value(fp, t->cells[order[k] * t->ncols + l]);
				sep = ",";
			}
			fputs("} ", fp);
			prom_value(fp, cell_u64(t, order[k], c), seconds);
		}
		if (gauge)
			continue;
		for (sum = 0, k = n; k < t->nrows; k++)
			sum += cell_u64(t, order[k], c);
		value_metric(rest, sizeof(rest), name, t->cols[c], &seconds);
		snprintf(metric, sizeof(metric), "%.*s_rest", (int)(strlen(rest) - strlen("_total")), rest);
		fprintf(fp, "# HELP %s Column \"%s\" of memscope's %s table, summed over the rows beyond the top %llu.\n",
			metric, t->cols[c], name, (unsigned long long)top);
		fprintf(fp, "# TYPE %s gauge\n%s ", metric, metric);
		prom_value(fp, sum, seconds);
	}
	free(order);
	return 0;
}

/*
 * Every table's top rows, then how many rows each one has: the tables the
 * module lists in its version file, so a new one is exported as it comes.
 */
static int prom_tables(FILE *fp, uint64_t top)
{
	size_t i, n, *rows;
	struct ms_rows t;
	char **tables;
	bool *have;
	int r, ret = -1;

	r = ms_module_tables(&tables);
	if (r < 0)
		return -1;
	if (r > 0) {
		fprintf(stderr, "Warning: %s/version lists no tables (a module older than this CLI): no table is exported; install the module of this CLI's release\n",
			ms_dir());
		return 0;
	}
	for (n = 0; tables[n]; n++)
		;
	rows = ms_xcalloc(n, sizeof(*rows));
	have = ms_xcalloc(n, sizeof(*have));
	for (i = 0; i < n; i++) {
		r = ms_load_table_optional(tables[i], &t);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		have[i] = true;
		rows[i] = t.nrows;
		r = prom_table(fp, tables[i], &t, top);
		ms_table_free(&t);
		if (r)
			goto out;
	}
	fputs("# HELP memscope_table_rows Rows in a memscope top-N table.\n"
	      "# TYPE memscope_table_rows gauge\n", fp);
	for (i = 0; i < n; i++)
		if (have[i])
			fprintf(fp, "memscope_table_rows{table=\"%s\"} %zu\n", tables[i], rows[i]);
	ret = 0;
out:
	free(rows);
	free(have);
	ms_free_names(tables);
	return ret;
}

static int write_stdout(const char *data, size_t len)
{
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
		ms_fail("cannot write the metrics to standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * --textfile DIR: DIR/memscope.prom, written whole to a temporary name in
 * the same directory and renamed over it, so node_exporter's textfile
 * collector never reads half a file (it reads only names ending .prom).
 */
static int write_textfile(const char *dir, const char *data, size_t len)
{
	char *tmp = NULL, *dst = NULL;
	int fd = -1, ret = 1;

	if (asprintf(&tmp, "%s/memscope.prom.%d.tmp", dir, (int)getpid()) < 0 ||
	    asprintf(&dst, "%s/memscope.prom", dir) < 0) {
		ms_fail("out of memory, free some memory");
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ms_fail("cannot create %s: %s, give --textfile the directory node_exporter's textfile collector reads (--collector.textfile.directory), which must exist and be writable",
			tmp, strerror(errno));
		goto out;
	}
	if (write(fd, data, len) != (ssize_t)len || fsync(fd)) {
		ms_fail("cannot write %s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (close(fd)) {
		fd = -1;
		ms_fail("cannot write %s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, dst)) {
		ms_fail("cannot rename %s to %s: %s", tmp, dst, strerror(errno));
		goto out_unlink;
	}
	ret = 0;
	goto out;
out_unlink:
	if (fd >= 0)
		close(fd);
	fd = -1;
	unlink(tmp);
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(dst);
	return ret;
}

/* The stats file: a counter (or gauge) per line, as stats_format types it. */
static void prom_stats(FILE *fp, const struct ms_counters *st)
{
	struct stat_fmt fmt;
	char metric[256];
	size_t i;

	stat_fmt_load(&fmt);
	for (i = 0; i < st->n; i++) {
		const char *key = st->v[i].key;
		ssize_t f = stat_fmt_find(&fmt, key);
		bool ns = ends_with(key, "_ns");
		bool gauge = f >= 0 ? fmt.v[f].gauge :
			     !fmt.data && !strcmp(key, "swap_residency_sample");

		metric_part(metric, sizeof(metric) - 24, key, ns ? strlen(key) - 3 : strlen(key));
		if (!gauge)
			strcat(metric, ns ? "_seconds_total" : "_total");
		if (f >= 0)
			fprintf(fp, "# HELP memscope_%s %s\n", metric, fmt.v[f].help);
		else
			fprintf(fp, "# HELP memscope_%s The \"%s\" %s of memscope's stats file.\n",
				metric, key, gauge ? "value" : "counter");
		fprintf(fp, "# TYPE memscope_%s %s\n", metric, gauge ? "gauge" : "counter");
		if (ns)
			fprintf(fp, "memscope_%s %.9f\n", metric, (double)st->v[i].value / 1e9);
		else
			fprintf(fp, "memscope_%s %llu\n", metric, (unsigned long long)st->v[i].value);
	}
	stat_fmt_free(&fmt);
}

/* Every histogram the module has. */
static int prom_hists(FILE *fp)
{
	struct ms_buckets h;
	char **names;
	int n, k, r = 0;

	n = list_hists(&names);
	if (n < 0)
		return -1;
	for (k = 0; k < n && r >= 0; k++) {
		r = ms_load_hist(names[k], &h, true);
		if (r == 0)
			prom_hist(fp, names[k], &h);
	}
	free_names(names, n);
	return r < 0 ? -1 : 0;
}

/* One probe metric: a line per probe, labelled by its name. */
static void prom_probe_metric(FILE *fp, const struct ms_probe_lines *pr, const char *metric,
			      const char *help, bool missed)
{
	size_t i;

	fprintf(fp, "# HELP memscope_%s %s\n# TYPE memscope_%s counter\n", metric, help, metric);
	for (i = 0; i < pr->n; i++) {
		fprintf(fp, "memscope_%s{probe=", metric);
		label_value(fp, pr->v[i].name);
		fprintf(fp, "} %llu\n",
			(unsigned long long)(missed ? pr->v[i].missed : pr->v[i].hits));
	}
}

/* The probes file: whether each is attached, its hits and its misses. */
static void prom_probes(FILE *fp, const struct ms_probe_lines *pr)
{
	size_t i;

	if (!pr->n)
		return;
	fputs("# HELP memscope_probe_up Whether a memscope probe is attached (1) or not (0).\n"
	      "# TYPE memscope_probe_up gauge\n", fp);
	for (i = 0; i < pr->n; i++) {
		fputs("memscope_probe_up{probe=", fp);
		label_value(fp, pr->v[i].name);
		fputs(",target=", fp);
		label_value(fp, pr->v[i].target);
		fputs(",state=", fp);
		label_value(fp, pr->v[i].state);
		fprintf(fp, "} %d\n", pr->v[i].st == MS_PROBE_ATTACHED);
	}
	prom_probe_metric(fp, pr, "probe_hits_total", "Times a memscope probe fired.", false);
	prom_probe_metric(fp, pr, "probe_missed_total", "Times a memscope probe missed an event.",
			  true);
}

/*
 * PSI's totals as node_exporter names them (memscope_ in front), and with
 * --node-names under node_exporter's own names too, so that dashboards
 * and alerts built on them work unchanged: only where the kernel has no
 * /proc/pressure/memory, so that no series is exported twice.
 */
static void prom_pressure(FILE *fp, bool node_names, uint64_t top)
{
	static const char *const names[2] = { "pressure_memory_waiting_seconds_total",
					      "pressure_memory_stalled_seconds_total" };
	static const char *const help[2] = {
		"Total time in seconds that processes have waited for memory (PSI's some), measured by memscope.",
		"Total time in seconds no process could make progress due to memory congestion (PSI's full), measured by memscope.",
	};
	bool node = node_names && access("/proc/pressure/memory", R_OK) != 0;
	struct ms_rows cg;
	struct ms_psi psi;
	size_t *order = NULL, r, i;
	int k, n;

	if (ms_load_pressure(&psi))
		return;
	/* The memory cgroups' too, under memscope's names: the top by some. */
	if (ms_load_pressure_by_cgroup(&cg))
		memset(&cg, 0, sizeof(cg));
	else if (cg.nrows)
		order = prom_order(&cg, 1);
	for (n = 0; n < 1 + node; n++)
		for (k = 0; k < 2; k++) {
			const char *prefix = n ? "node" : "memscope";

			fprintf(fp, "# HELP %s_%s %s\n# TYPE %s_%s counter\n%s_%s %.6f\n", prefix,
				names[k], help[k], prefix, names[k], prefix, names[k],
				(double)psi.total_us[k] / 1e6);
			for (i = 0; !n && order && i < cg.nrows && i < top; i++) {
				uint64_t us;

				r = order[i];
				if (!ms_table_u64(&cg, r, (size_t)k + 1, &us))
					continue;
				fprintf(fp, "%s_%s{cgroup=", prefix, names[k]);
				label_value(fp, ms_table_cell(&cg, r, 0));
				fprintf(fp, "} %.6f\n", (double)us / 1e6);
			}
		}
	free(order);
	ms_table_free(&cg);
}

static int export_prometheus(uint64_t top, const char *textfile, bool node_names)
{
	struct ms_counters st;
	struct ms_probe_lines pr;
	char *data = NULL;
	size_t len;
	int r = 1;
	FILE *fp;

	if (ms_load_stats(&st))
		return 1;
	if (ms_load_probes(&pr, true) < 0) {
		ms_stats_free(&st);
		return 1;
	}
	/* build it all first: a failure must not leave a half-written file */
	fp = open_memstream(&data, &len);
	if (!fp) {
		ms_fail("out of memory, free some memory");
		goto out;
	}
	prom_stats(fp, &st);
	if (!prom_hists(fp)) {
		prom_probes(fp, &pr);
		prom_pressure(fp, node_names, top);
		if (!prom_tables(fp, top)) {
			fclose(fp);
			fp = NULL;
			r = textfile ? write_textfile(textfile, data, len) : write_stdout(data, len);
		}
	}
	if (fp)
		fclose(fp);
	free(data);
out:
	ms_stats_free(&st);
	ms_probes_free(&pr);
	return r;
}

/* -j: the same data as one JSON object */
static int export_json(void)
{
	struct ms_counters st;
	struct ms_probe_lines pr;
	struct ms_buckets h;
	char **names;
	struct ms_psi psi;
	size_t i;
	int n, k, r;

	if (ms_load_stats(&st))
		return 1;
	if (ms_load_probes(&pr, true) < 0) {
		ms_stats_free(&st);
		return 1;
	}
	print_begin_record();
	open_json_object("stats");
	for (i = 0; i < st.n; i++)
		print_uint(PRINT_JSON, st.v[i].key, NULL, st.v[i].value);
	close_json_object();
	open_json_array("histograms");
	n = list_hists(&names);
	if (n < 0)
		goto fail;
	for (k = 0; k < n; k++) {
		r = ms_load_hist(names[k], &h, true);
		if (r < 0) {
			free_names(names, n);
			goto fail;
		}
		if (r == 0)
			ms_print_hist(names[k], &h);
	}
	free_names(names, n > 0 ? n : 0);
	close_json_array();
	open_json_array("probes");
	for (i = 0; i < pr.n; i++) {
		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, pr.v[i].name);
		print_string(PRINT_JSON, "target", NULL, pr.v[i].target);
		print_string(PRINT_JSON, "state", NULL, pr.v[i].state);
		print_uint(PRINT_JSON, "hits", NULL, pr.v[i].hits);
		print_uint(PRINT_JSON, "missed", NULL, pr.v[i].missed);
		close_json_object();
	}
	close_json_array();
	if (!ms_load_pressure(&psi)) {
		open_json_object("pressure");
		print_uint(PRINT_JSON, "some_us", NULL, psi.total_us[0]);
		print_uint(PRINT_JSON, "full_us", NULL, psi.total_us[1]);
		close_json_object();
	}
	print_end_record();
	ms_stats_free(&st);
	ms_probes_free(&pr);
	return 0;
fail:
	ms_stats_free(&st);
	ms_probes_free(&pr);
	return 1;
}

/* Rows per table by default: a fleet's series stay bounded. */
#define EXPORT_TOP 20

static int cmd_export(const struct ms_opts *o)
{
	if (o->json && o->textfile) {
		ms_fail("--textfile writes Prometheus text, not JSON: drop -j");
		return 1;
	}
	if (o->json && o->node_names) {
		ms_fail("--node-names names Prometheus series, not JSON: drop -j");
		return 1;
	}
	if (o->json)
		return export_json();
	return export_prometheus(o->has_top ? o->top : EXPORT_TOP, o->textfile, o->node_names);
}

MS_TOOL(export,
	.topic = MS_TOPIC_VIEWS, .rank = 40,
	.opts = OPT_PROM | OPT_TOP | OPT_TEXTFILE | OPT_NODE_NAMES,
	.usage = "export [--prometheus] [--top N] [--textfile DIR] [--node-names]",
	.summary = "every counter, histogram and table (top N rows, default 20) in Prometheus text format; --textfile: into DIR/memscope.prom, atomically; --node-names: node_exporter's pressure series too, where the kernel has no PSI");
