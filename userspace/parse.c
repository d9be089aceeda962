// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "../module/uapi/memscope_genl.h"

void *ms_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(p, n && size ? n * size : 1);
}

bool ms_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int d;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool ms_parse_i64(const char *s, int64_t *out)
{
	bool neg = false;
	uint64_t v;

	if (!s)
		return false;
	if (*s == '-') {
		neg = true;
		s++;
	}
	if (!ms_parse_u64(s, &v))
		return false;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return false;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)v;
	}
	return true;
}

static bool is_oct(char c)
{
	return c >= '0' && c <= '7';
}

size_t ms_unescape(char *s)
{
	char *r = s, *w = s;
	unsigned int v;

	while (*r) {
		if (r[0] == '\\' && is_oct(r[1]) && is_oct(r[2]) && is_oct(r[3])) {
			v = (unsigned int)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			/* \000 would end the C string early; show it instead. */
			if (v == 0 || v > 0xff)
				v = '?';
			*w++ = (char)v;
			r += 4;
		} else if (r[0] == '\\' && r[1] == '\\') {
			*w++ = '\\';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

void ms_fput_escaped(const char *s, FILE *f)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == '\\' || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			putc(c, f);
	}
}

static void diag_bad(struct ms_diag *d, unsigned int lineno)
{
	if (d->skipped++ == 0)
		d->first_bad = lineno;
}

static void diag_fail(struct ms_diag *d, const char *msg)
{
	snprintf(d->msg, sizeof(d->msg), "%s", msg);
}

/* A private, NUL-terminated copy that lines are cut out of in place. */
struct lines {
	char *store;
	char *p;
	char *end;
	unsigned int lineno;
};

static int lines_init(struct lines *l, const char *data, size_t len)
{
	l->store = malloc(len + 1);
	if (!l->store)
		return -1;
	if (len)
		memcpy(l->store, data, len);
	l->store[len] = '\0';
	l->p = l->store;
	l->end = l->store + len;
	l->lineno = 0;
	return 0;
}

/*
 * Next line, or NULL at the end. *binary is set when the line holds a NUL
 * byte: such a line can't be text from the module and is refused.
 */
static char *lines_next(struct lines *l, bool *binary)
{
	char *s = l->p, *nl;

	if (l->p >= l->end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(l->end - s));
	if (!nl)
		nl = l->end;
	*binary = memchr(s, '\0', (size_t)(nl - s)) != NULL;
	*nl = '\0';
	l->p = nl + 1;
	l->lineno++;
	return s;
}

/* Split on runs of blanks; returns max + 1 when there are more than max. */
static size_t split(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static bool is_name(const char *s, bool allow_dash)
{
	size_t n = 0;

	for (; *s; s++, n++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' ||
		      (allow_dash && (c == '-' || c == '.' || c == ':'))))
			return false;
	}
	return n > 0 && n <= 128;
}

/* ---------------------------------------------------------------- stats */

int ms_parse_stats(const char *data, size_t len, struct ms_counters *st)
{
	struct lines l;
	char *line, *tok[3];
	bool binary;
	size_t n, i, cap = 0;
	uint64_t v;

	memset(st, 0, sizeof(*st));
	if (lines_init(&l, data, len)) {
		diag_fail(&st->diag, "out of memory");
		return -1;
	}
	st->store = l.store;
	while ((line = lines_next(&l, &binary))) {
		if (binary) {
			diag_bad(&st->diag, l.lineno);
			continue;
		}
		n = split(line, tok, 2);
		if (n == 0 || tok[0][0] == '#')
			continue;
		if (n != 2 || !is_name(tok[0], false) || !ms_parse_u64(tok[1], &v) ||
		    st->n >= MS_MAX_STATS) {
			diag_bad(&st->diag, l.lineno);
			continue;
		}
		for (i = 0; i < st->n; i++)
			if (!strcmp(st->v[i].key, tok[0]))
				break;
		if (i < st->n) {
			diag_bad(&st->diag, l.lineno);
			continue;
		}
		if (st->n == cap) {
			struct ms_counter *nv;

			cap = cap ? cap * 2 : 64;
			nv = ms_reallocarray(st->v, cap, sizeof(*nv));
			if (!nv) {
				diag_fail(&st->diag, "out of memory");
				return -1;
			}
			st->v = nv;
		}
		st->v[st->n].key = tok[0];
		st->v[st->n].value = v;
		st->n++;
	}
	if (st->n == 0 && st->diag.skipped) {
		diag_fail(&st->diag, "no valid \"key value\" line");
		return -1;
	}
	return 0;
}

bool ms_stats_get(const struct ms_counters *st, const char *key, uint64_t *val)
{
	size_t i;

	for (i = 0; i < st->n; i++) {
		if (!strcmp(st->v[i].key, key)) {
			*val = st->v[i].value;
			return true;
		}
	}
	return false;
}

uint64_t ms_stats_val(const struct ms_counters *st, const char *key)
{
	uint64_t v = 0;

	ms_stats_get(st, key, &v);
	return v;
}

void ms_stats_free(struct ms_counters *st)
{
	free(st->v);
	free(st->store);
	st->v = NULL;
	st->store = NULL;
	st->n = 0;
}

/* --------------------------------------------------------------- probes */

void ms_probe_set_state(struct ms_probe_line *pr, char *state)
{
	pr->state = state;
	pr->reason = "";
	if (!strcmp(state, "attached")) {
		pr->st = MS_PROBE_ATTACHED;
	} else if (!strcmp(state, "disabled")) {
		pr->st = MS_PROBE_DISABLED;
	} else if (!strncmp(state, "unavailable", 11) &&
		   (state[11] == '\0' || state[11] == ':')) {
		pr->st = MS_PROBE_UNAVAILABLE;
		pr->reason = state[11] ? state + 12 : "";
	} else {
		pr->st = MS_PROBE_UNKNOWN;
	}
}

int ms_parse_probes(const char *data, size_t len, struct ms_probe_lines *p)
{
	struct lines l;
	char *line, *tok[6];
	bool binary;
	size_t n, cap = 0;
	struct ms_probe_line pr;

	memset(p, 0, sizeof(*p));
	if (lines_init(&l, data, len)) {
		diag_fail(&p->diag, "out of memory");
		return -1;
	}
	p->store = l.store;
	while ((line = lines_next(&l, &binary))) {
		if (binary) {
			diag_bad(&p->diag, l.lineno);
			continue;
		}
		n = split(line, tok, 5);
		if (n == 0 || tok[0][0] == '#')
			continue;
		memset(&pr, 0, sizeof(pr));
		if (n != 5 || !is_name(tok[0], true) ||
		    !ms_parse_u64(tok[3], &pr.hits) || !ms_parse_u64(tok[4], &pr.missed) ||
		    p->n >= MS_MAX_STATS) {
			diag_bad(&p->diag, l.lineno);
			continue;
		}
		pr.name = tok[0];
		pr.target = tok[1];
		ms_probe_set_state(&pr, tok[2]);
		if (p->n == cap) {
			struct ms_probe_line *nv;

			cap = cap ? cap * 2 : 16;
			nv = ms_reallocarray(p->v, cap, sizeof(*nv));
			if (!nv) {
				diag_fail(&p->diag, "out of memory");
				return -1;
			}
			p->v = nv;
		}
		p->v[p->n++] = pr;
	}
	return 0;
}

void ms_probes_free(struct ms_probe_lines *p)
{
	free(p->v);
	free(p->store);
	memset(p, 0, sizeof(*p));
}

/* --------------------------------------------------------------- tables */

int ms_table_alloc_typed(struct ms_rows *t, bool stacks)
{
	size_t n = t->nrows * t->ncols;

	t->num = calloc(n ? n : 1, sizeof(*t->num));
	t->is_num = calloc(n ? n : 1, sizeof(*t->is_num));
	if (stacks)
		t->stack = calloc(t->nrows ? t->nrows : 1, sizeof(*t->stack));
	return t->num && t->is_num && (!stacks || t->stack) ? 0 : -1;
}

/*
 * "0x7f...,f3+0x1d2a,..." or "-": the frames, as many as parse.  A user
 * address, or a file's slot and an offset into it (MEMSCOPE_FRAME_FILE).
 */
static size_t parse_frames(const char *s, uint64_t *ip, size_t max)
{
	size_t n = 0;
	char *end;

	while (n < max) {
		uint64_t slot = 0;
		bool file = s[0] == 'f';

		errno = 0;
		if (file) {
			if (s[1] < '0' || s[1] > '9')
				break;
			slot = strtoull(s + 1, &end, 10);
			if (errno || slot > MEMSCOPE_FRAME_SLOT_MAX || end[0] != '+')
				break;
			s = end + 1;
		}
		if (s[0] != '0' || s[1] != 'x')
			break;
		ip[n] = strtoull(s, &end, 16);
		if (errno || end == s + 2 || (*end && *end != ','))
			break;
		if (ip[n] & (file ? ~MEMSCOPE_FRAME_OFF_MASK : MEMSCOPE_FRAME_FILE))
			break;
		if (file)
			ip[n] |= MEMSCOPE_FRAME_FILE | slot << MEMSCOPE_FRAME_SLOT_SHIFT;
		n++;
		if (!*end)
			break;
		s = end + 1;
	}
	return n;
}

void ms_fput_frame(FILE *f, uint64_t v)
{
	if (v & MEMSCOPE_FRAME_FILE)
		fprintf(f, "f%llu+0x%llx",
			(unsigned long long)((v & ~MEMSCOPE_FRAME_FILE) >> MEMSCOPE_FRAME_SLOT_SHIFT),
			(unsigned long long)(v & MEMSCOPE_FRAME_OFF_MASK));
	else
		fprintf(f, "0x%llx", (unsigned long long)v);
}

/* The numbers of a table read from text, and its stacks: parsed once. */
static int type_cells(struct ms_rows *t)
{
	int sc = ms_table_col(t, "stack");
	size_t r, c, total = 0, at = 0;
	const char *s;

	if (ms_table_alloc_typed(t, sc >= 0))
		return -1;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			t->is_num[r * t->ncols + c] =
				ms_parse_u64(t->cells[r * t->ncols + c], &t->num[r * t->ncols + c]);
	if (sc < 0)
		return 0;
	for (r = 0; r < t->nrows; r++)
		for (s = t->cells[r * t->ncols + (size_t)sc]; *s; s++)
			total += *s == ',' || s == t->cells[r * t->ncols + (size_t)sc];
	t->frames = calloc(total ? total : 1, sizeof(*t->frames));
	if (!t->frames)
		return -1;
	for (r = 0; r < t->nrows; r++) {
		t->stack[r].ip = t->frames + at;
		t->stack[r].n = parse_frames(t->cells[r * t->ncols + (size_t)sc],
					     t->frames + at, total - at);
		at += t->stack[r].n;
	}
	return 0;
}

/* The '#' line naming the columns: 0 (none yet if the line is blank), -1. */
static int table_header(struct ms_rows *t, char *line)
{
	char *tok[MS_MAX_FIELDS + 2];
	size_t n, i;

	n = split(line, tok, MS_MAX_FIELDS + 1);
	if (n == 0)
		return 0;
	if (tok[0][0] != '#') {
		diag_fail(&t->diag, "no '#' header line naming the columns");
		return -1;
	}
	/* "# pid comm" and "#pid comm" both name the columns */
	if (tok[0][1] == '\0') {
		memmove(tok, tok + 1, (n - 1) * sizeof(tok[0]));
		n--;
	} else {
		tok[0]++;
	}
	if (n == 0 || n > MS_MAX_FIELDS) {
		diag_fail(&t->diag, "bad '#' header line");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!is_name(tok[i], true)) {
			diag_fail(&t->diag, "bad column name in the '#' header line");
			return -1;
		}
	}
	t->cols = malloc(n * sizeof(char *));
	if (!t->cols) {
		diag_fail(&t->diag, "out of memory");
		return -1;
	}
	memcpy(t->cols, tok, n * sizeof(char *));
	t->ncols = n;
	return 0;
}

int ms_parse_table(const char *data, size_t len, struct ms_rows *t)
{
	struct lines l;
	/* A header's "#", up to MS_MAX_FIELDS names, and one more: too many */
	char *line, *tok[MS_MAX_FIELDS + 2];
	bool binary;
	size_t n, i, cap = 0;

	memset(t, 0, sizeof(*t));
	if (lines_init(&l, data, len)) {
		diag_fail(&t->diag, "out of memory");
		return -1;
	}
	t->store = l.store;
	while ((line = lines_next(&l, &binary))) {
		if (binary) {
			if (!t->ncols) {
				diag_fail(&t->diag, "binary data where the '#' header line should be");
				return -1;
			}
			diag_bad(&t->diag, l.lineno);
			continue;
		}
		if (!t->ncols) {
			if (table_header(t, line))
				return -1;
			continue;
		}
		n = split(line, tok, t->ncols);
		if (n == 0 || tok[0][0] == '#')
			continue;
		if (n != t->ncols || t->nrows >= MS_MAX_ROWS) {
			diag_bad(&t->diag, l.lineno);
			continue;
		}
		if (t->nrows == cap) {
			char **nc;

			cap = cap ? cap * 2 : 64;
			nc = ms_reallocarray(t->cells, cap, t->ncols * sizeof(char *));
			if (!nc) {
				diag_fail(&t->diag, "out of memory");
				return -1;
			}
			t->cells = nc;
		}
		for (i = 0; i < n; i++) {
			ms_unescape(tok[i]);
			t->cells[t->nrows * t->ncols + i] = tok[i];
		}
		t->nrows++;
	}
	if (!t->ncols) {
		diag_fail(&t->diag, len ? "no '#' header line naming the columns" : "empty file");
		return -1;
	}
	if (type_cells(t)) {
		diag_fail(&t->diag, "out of memory");
		return -1;
	}
	return 0;
}

int ms_table_col(const struct ms_rows *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return -1;
}

const char *ms_table_cell(const struct ms_rows *t, size_t row, size_t col)
{
	if (row >= t->nrows || col >= t->ncols)
		return NULL;
	return t->cells[row * t->ncols + col];
}

bool ms_table_u64(const struct ms_rows *t, size_t row, size_t col, uint64_t *v)
{
	size_t i = row * t->ncols + col;

	if (row >= t->nrows || col >= t->ncols || !t->is_num || !t->is_num[i])
		return false;
	*v = t->num[i];
	return true;
}

void ms_table_free(struct ms_rows *t)
{
	free(t->cols);
	free(t->cells);
	free(t->num);
	free(t->is_num);
	free(t->stack);
	free(t->frames);
	free(t->store);
	memset(t, 0, sizeof(*t));
}

/* -------------------------------------------------------------- records */

int ms_parse_record(const char *line, size_t len, bool typed, struct ms_record *r)
{
	char *tok[MS_MAX_FIELDS + 2], *eq;
	size_t n, i, first = 0;

	memset(r, 0, sizeof(*r));
	if (memchr(line, '\0', len))
		return -1;
	r->store = malloc(len + 1);
	if (!r->store)
		return -1;
	memcpy(r->store, line, len);
	r->store[len] = '\0';
	while (len && (r->store[len - 1] == '\n' || r->store[len - 1] == '\r'))
		r->store[--len] = '\0';
	if (memchr(r->store, '\n', len))
		goto bad;
	n = split(r->store, tok, MS_MAX_FIELDS + 1);
	if (n == 0 || n > MS_MAX_FIELDS + 1)
		goto bad;
	if (typed) {
		if (!is_name(tok[0], false))
			goto bad;
		r->type = tok[0];
		first = 1;
	}
	r->f = calloc(n, sizeof(*r->f));
	if (!r->f)
		goto bad;
	for (i = first; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i])
			goto bad;
		*eq = '\0';
		if (!is_name(tok[i], false))
			goto bad;
		ms_unescape(eq + 1);
		r->f[r->n].key = tok[i];
		r->f[r->n].val = eq + 1;
		r->n++;
	}
	if (!typed && r->n == 0)
		goto bad;
	return 0;
bad:
	ms_record_free(r);
	return -1;
}

const char *ms_rec_get(const struct ms_record *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return r->f[i].val;
	return NULL;
}

bool ms_rec_u64(const struct ms_record *r, const char *key, uint64_t *v)
{
	return ms_parse_u64(ms_rec_get(r, key), v);
}

bool ms_rec_i64(const struct ms_record *r, const char *key, int64_t *v)
{
	return ms_parse_i64(ms_rec_get(r, key), v);
}

int ms_record_from_strings(struct ms_record *r, char *store, size_t size)
{
	char *p = store, *end = store + size;
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->store = store;
	if (!store || !size || end[-1] != '\0')
		goto bad;
	r->type = p;
	p += strlen(p) + 1;
	for (; p < end; n++)
		p += strlen(p) + 1;
	if (n % 2)
		goto bad;
	r->f = calloc(n / 2 + 1, sizeof(*r->f));
	if (!r->f)
		goto bad;
	for (p = r->type + strlen(r->type) + 1; p < end; r->n++) {
		r->f[r->n].key = p;
		p += strlen(p) + 1;
		r->f[r->n].val = p;
		p += strlen(p) + 1;
	}
	return 0;
bad:
	ms_record_free(r);
	return -1;
}

void ms_fput_record(const struct ms_record *r, FILE *f)
{
	size_t i;

	if (r->type)
		fputs(r->type, f);
	for (i = 0; i < r->n; i++) {
		if (r->type || i)
			putc(' ', f);
		fprintf(f, "%s=", r->f[i].key);
		ms_fput_escaped(r->f[i].val, f);
	}
}

void ms_record_free(struct ms_record *r)
{
	free(r->f);
	free(r->store);
	memset(r, 0, sizeof(*r));
}

int ms_parse_ring(const char *data, size_t len, struct ms_records *ring)
{
	struct lines l;
	char *line;
	bool binary;
	size_t cap = 0;
	struct ms_record rec;

	memset(ring, 0, sizeof(*ring));
	if (lines_init(&l, data, len)) {
		diag_fail(&ring->diag, "out of memory");
		return -1;
	}
	while ((line = lines_next(&l, &binary))) {
		if (binary) {
			diag_bad(&ring->diag, l.lineno);
			continue;
		}
		if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
			continue;
		if (ring->n >= MS_MAX_ROWS ||
		    ms_parse_record(line, strlen(line), false, &rec)) {
			diag_bad(&ring->diag, l.lineno);
			continue;
		}
		if (ring->n == cap) {
			struct ms_record *nv;

			cap = cap ? cap * 2 : 16;
			nv = ms_reallocarray(ring->v, cap, sizeof(*nv));
			if (!nv) {
				ms_record_free(&rec);
				free(l.store);
				diag_fail(&ring->diag, "out of memory");
				return -1;
			}
			ring->v = nv;
		}
		ring->v[ring->n++] = rec;
	}
	free(l.store);
	return 0;
}

void ms_ring_free(struct ms_records *ring)
{
	size_t i;

	for (i = 0; i < ring->n; i++)
		ms_record_free(&ring->v[i]);
	free(ring->v);
	memset(ring, 0, sizeof(*ring));
}

/* ----------------------------------------------------------- histograms */

/* hist_raw/: "# count N sum S", then "lo hi count" per non-empty bucket. */
int ms_parse_hist(const char *data, size_t len, struct ms_buckets *h)
{
	struct lines l;
	char *line, *tok[4];
	bool binary, seen[MEMSCOPE_HIST_BUCKETS] = { false };
	uint64_t lo, hi, v, total = 0;
	size_t n;
	int slot;

	memset(h, 0, sizeof(*h));
	if (lines_init(&l, data, len)) {
		diag_fail(&h->diag, "out of memory");
		return -1;
	}
	while ((line = lines_next(&l, &binary))) {
		if (binary) {
			diag_bad(&h->diag, l.lineno);
			continue;
		}
		if (line[0] == '#') {
			n = split(line + 1, tok, 4);
			if (n == 4 && !strcmp(tok[0], "count") && !strcmp(tok[2], "sum") &&
			    ms_parse_u64(tok[1], &h->count) && ms_parse_u64(tok[3], &h->sum))
				h->has_totals = true;
			else if (n >= 1 && !strcmp(tok[0], "count"))
				diag_bad(&h->diag, l.lineno);
			continue;
		}
		n = split(line, tok, 4);
		if (n == 0)
			continue;
		if (n != 3 || !ms_parse_u64(tok[0], &lo) || !ms_parse_u64(tok[1], &hi) ||
		    !ms_parse_u64(tok[2], &v) || (slot = memscope_hist_index(lo, hi)) < 0 ||
		    seen[slot]) {
			diag_bad(&h->diag, l.lineno);
			continue;
		}
		seen[slot] = true;
		h->slot[slot] = v;
		total = total + v < total ? UINT64_MAX : total + v;
	}
	free(l.store);
	if (!h->has_totals)
		h->count = total;
	return 0;
}

void ms_hist_delta(const struct ms_buckets *now, const struct ms_buckets *prev,
		   struct ms_buckets *out)
{
	int i;

	*out = *now;
	if (!prev || now->reset_count != prev->reset_count)
		return;		/* reset in between: all of now is since then */
	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
		out->slot[i] = now->slot[i] >= prev->slot[i] ? now->slot[i] - prev->slot[i] : 0;
	out->count = now->count >= prev->count ? now->count - prev->count : 0;
	out->sum = now->sum >= prev->sum ? now->sum - prev->sum : 0;
}

/* --------------------------------------------------------- events_format */

static bool evkind(const char *s, enum ms_evkind *k)
{
	static const char *const names[] = {
		[MS_EVK_UINT] = "uint", [MS_EVK_INT] = "int", [MS_EVK_HEX] = "hex",
		[MS_EVK_BOOL] = "bool", [MS_EVK_STR] = "str",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*k = (enum ms_evkind)i;
			return true;
		}
	return false;
}

/* "name:kind[:attr]"; a kind this CLI does not know is a string. */
static bool evfield(char *tok, struct ms_evfmt_field *f)
{
	char *kind = strchr(tok, ':'), *attr;
	uint64_t a = 0;

	if (!kind)
		return false;
	*kind++ = '\0';
	attr = strchr(kind, ':');
	if (attr) {
		*attr++ = '\0';
		if (!ms_parse_u64(attr, &a) || a == 0 || a > 0xffff)
			return false;
	}
	if (!is_name(tok, false))
		return false;
	f->name = tok;
	if (!evkind(kind, &f->kind))
		f->kind = MS_EVK_STR;
	f->attr = (unsigned int)a;
	return true;
}

int ms_parse_evfmt(const char *data, size_t len, struct ms_evfmt *ef)
{
	char *line, *tok[MS_MAX_FIELDS + 2];
	struct ms_evfmt_type t;
	struct lines l;
	bool binary;
	size_t n, i, cap = 0;

	memset(ef, 0, sizeof(*ef));
	if (lines_init(&l, data, len)) {
		diag_fail(&ef->diag, "out of memory");
		return -1;
	}
	ef->store = l.store;
	while ((line = lines_next(&l, &binary))) {
		if (binary) {
			diag_bad(&ef->diag, l.lineno);
			continue;
		}
		if (line[strspn(line, " \t")] == '\0' || line[0] == '#')
			continue;
		n = split(line, tok, MS_MAX_FIELDS + 1);
		if (n == 0 || n > MS_MAX_FIELDS + 1 || !is_name(tok[0], false) ||
		    ef->n >= MS_MAX_ROWS) {
			diag_bad(&ef->diag, l.lineno);
			continue;
		}
		memset(&t, 0, sizeof(t));
		t.name = tok[0];
		t.f = calloc(n, sizeof(*t.f));
		if (!t.f)
			goto oom;
		for (i = 1; i < n; i++) {
			if (!evfield(tok[i], &t.f[t.n]))
				break;
			t.in_group |= t.f[t.n].attr != 0;
			t.n++;
		}
		if (i < n) {
			free(t.f);
			diag_bad(&ef->diag, l.lineno);
			continue;
		}
		if (ef->n == cap) {
			struct ms_evfmt_type *nt;

			cap = cap ? cap * 2 : 8;
			nt = ms_reallocarray(ef->t, cap, sizeof(*nt));
			if (!nt) {
				free(t.f);
				goto oom;
			}
			ef->t = nt;
		}
		ef->t[ef->n++] = t;
	}
	return 0;
oom:
	ms_evfmt_free(ef);
	diag_fail(&ef->diag, "out of memory");
	return -1;
}

const struct ms_evfmt_type *ms_evfmt_type(const struct ms_evfmt *ef, const char *type)
{
	size_t i;

	for (i = 0; ef && i < ef->n; i++)
		if (!strcmp(ef->t[i].name, type))
			return &ef->t[i];
	return NULL;
}

/* A field's first place; a name in two variants has one kind in both. */
const struct ms_evfmt_field *ms_evfmt_field(const struct ms_evfmt_type *t, const char *name)
{
	size_t i;

	for (i = 0; t && i < t->n; i++)
		if (!strcmp(t->f[i].name, name))
			return &t->f[i];
	return NULL;
}

void ms_evfmt_free(struct ms_evfmt *ef)
{
	size_t i;

	for (i = 0; i < ef->n; i++)
		free(ef->t[i].f);
	free(ef->t);
	free(ef->store);
	ef->t = NULL;
	ef->n = 0;
	ef->store = NULL;
}

/* "name=value" with the name expected, the value a number. */
static bool psi_field(const char *tok, const char *name, double *v)
{
	size_t n = strlen(name);
	char *end;

	if (strncmp(tok, name, n) || tok[n] != '=' || !tok[n + 1])
		return false;
	*v = strtod(tok + n + 1, &end);
	return !*end && *v >= 0;
}

int ms_parse_psi(const char *data, size_t len, struct ms_psi *p)
{
	static const char *const avgs[3] = { "avg10", "avg60", "avg300" };
	struct lines l;
	char *line, *tok[6];
	bool binary;
	int k, w;

	memset(p, 0, sizeof(*p));
	if (lines_init(&l, data, len)) {
		diag_fail(&p->diag, "out of memory");
		return -1;
	}
	while ((line = lines_next(&l, &binary))) {
		double a[3];
		uint64_t total;

		k = binary || split(line, tok, 5) != 5 ? -1 :
		    !strcmp(tok[0], "some") ? 0 : !strcmp(tok[0], "full") ? 1 : -1;
		for (w = 0; k >= 0 && w < 3; w++)
			if (!psi_field(tok[w + 1], avgs[w], &a[w]))
				k = -1;
		if (k < 0 || strncmp(tok[4], "total=", 6) || !ms_parse_u64(tok[4] + 6, &total) ||
		    p->has[k]) {
			diag_bad(&p->diag, l.lineno);
			continue;
		}
		p->has[k] = true;
		memcpy(p->avg[k], a, sizeof(a));
		p->total_us[k] = total;
	}
	free(l.store);
	if (!p->has[0]) {
		diag_fail(&p->diag, "no \"some avg10=... total=...\" line");
		return -1;
	}
	return 0;
}
