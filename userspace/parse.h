/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MEMSCOPE_PARSE_H
#define MEMSCOPE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../module/uapi/memscope_hist.h"

/*
 * The only parser of the formats in docs/debugfs.md. Every function takes
 * (data, len), which may hold anything: NUL bytes, no final newline, lines
 * of any length. A line that does not match its format is skipped and
 * counted in the diag; a file that cannot be used at all returns -1 with a
 * message in diag.msg. Nothing here prints.
 */

#define MS_MAX_STATS	4096
#define MS_MAX_ROWS	(1u << 20)
#define MS_MAX_FIELDS	64

struct ms_diag {
	unsigned int skipped;		/* malformed lines ignored */
	unsigned int first_bad;		/* line number of the first one */
	char msg[160];			/* why the whole file was refused */
};

struct ms_counter {
	char *key;
	uint64_t value;
};

struct ms_counters {
	struct ms_counter *v;
	size_t n;
	char *store;
	struct ms_diag diag;
};

enum ms_attach_state {
	MS_PROBE_ATTACHED,
	MS_PROBE_DISABLED,
	MS_PROBE_UNAVAILABLE,
	MS_PROBE_UNKNOWN,
};

struct ms_probe_line {
	char *name;
	char *target;
	char *state;		/* as printed: attached, disabled, unavailable:x */
	const char *reason;	/* the part after "unavailable:", or "" */
	enum ms_attach_state st;
	uint64_t hits;
	uint64_t missed;
};

struct ms_probe_lines {
	struct ms_probe_line *v;
	size_t n;
	char *store;
	struct ms_diag diag;
};

/* A row's user stack: its frames, innermost first. */
/* A stack frame as the module's files write it: "0x7f..." or "f3+0x1d2a". */
void ms_fput_frame(FILE *f, uint64_t v);

struct ms_frames {
	const uint64_t *ip;
	size_t n;
};

/*
 * A '#' header naming the columns, then rows of exactly that many fields.
 * Each cell is there as text and, where it is an unsigned number, as that
 * number; a stack table's `stack` column is there as frames too.  Both
 * doors fill these: the file's text is parsed once, here; netlink's
 * attributes are taken as they are (nl.c).
 */
struct ms_rows {
	char **cols;
	size_t ncols;
	char **cells;		/* nrows * ncols, unescaped */
	uint64_t *num;		/* nrows * ncols: the cell's value, where is_num */
	bool *is_num;
	struct ms_frames *stack;	/* nrows, or NULL: no stack column */
	uint64_t *frames;	/* what stack[] points into */
	size_t nrows;
	char *store;
	struct ms_diag diag;
};

struct ms_field {
	char *key;
	char *val;		/* unescaped */
};

/* One key=value line of a ring, or a typed line of the events stream. */
struct ms_record {
	char *type;		/* first word for typed lines, else NULL */
	struct ms_field *f;
	size_t n;
	char *store;
};

struct ms_records {
	struct ms_record *v;
	size_t n;
	struct ms_diag diag;
};

struct ms_buckets {
	uint64_t slot[MEMSCOPE_HIST_BUCKETS];
	bool has_totals;	/* a "# count N sum S" line was present */
	uint64_t count;		/* from that line, else the sum of the slots */
	uint64_t sum;
	uint64_t reset_count;	/* set by the loader: stats' reset_count */
	struct ms_diag diag;
};

/*
 * events_format: each event type's fields, in the order its lines give
 * them, each with its kind and, where a netlink group carries it, its
 * attribute.  JSON types come from the kind; netlink events are rendered
 * from their attributes by it.
 */
enum ms_evkind { MS_EVK_UINT, MS_EVK_INT, MS_EVK_HEX, MS_EVK_BOOL, MS_EVK_STR };

struct ms_evfmt_field {
	const char *name;
	enum ms_evkind kind;
	unsigned int attr;	/* 0: in no netlink message */
};

struct ms_evfmt_type {
	const char *name;
	struct ms_evfmt_field *f;
	size_t n;
	bool in_group;		/* some field has an attribute */
};

struct ms_evfmt {
	struct ms_evfmt_type *t;
	size_t n;
	char *store;
	struct ms_diag diag;
};

int ms_parse_evfmt(const char *data, size_t len, struct ms_evfmt *ef);
const struct ms_evfmt_type *ms_evfmt_type(const struct ms_evfmt *ef, const char *type);
const struct ms_evfmt_field *ms_evfmt_field(const struct ms_evfmt_type *t, const char *name);
void ms_evfmt_free(struct ms_evfmt *ef);

/* realloc() of n elements of size, NULL if that overflows. */
void *ms_reallocarray(void *p, size_t n, size_t size);
bool ms_parse_u64(const char *s, uint64_t *out);
bool ms_parse_i64(const char *s, int64_t *out);
/* In-place seq_escape octal unescape; returns the new length. */
size_t ms_unescape(char *s);
/* @s escaped as the module escapes a field: its inverse. */
void ms_fput_escaped(const char *s, FILE *f);

int ms_parse_stats(const char *data, size_t len, struct ms_counters *st);
bool ms_stats_get(const struct ms_counters *st, const char *key, uint64_t *val);
uint64_t ms_stats_val(const struct ms_counters *st, const char *key);
void ms_stats_free(struct ms_counters *st);

int ms_parse_probes(const char *data, size_t len, struct ms_probe_lines *p);
/* A probe's state as the probes file writes it: st and reason from it. */
void ms_probe_set_state(struct ms_probe_line *pr, char *state);
void ms_probes_free(struct ms_probe_lines *p);

int ms_parse_table(const char *data, size_t len, struct ms_rows *t);
int ms_table_col(const struct ms_rows *t, const char *name);
const char *ms_table_cell(const struct ms_rows *t, size_t row, size_t col);
/* A cell's value: false if it is not an unsigned number. */
bool ms_table_u64(const struct ms_rows *t, size_t row, size_t col, uint64_t *v);
/* Room for the typed cells of nrows * ncols, and the stacks if @stacks. */
int ms_table_alloc_typed(struct ms_rows *t, bool stacks);
void ms_table_free(struct ms_rows *t);

int ms_parse_record(const char *line, size_t len, bool typed, struct ms_record *r);
const char *ms_rec_get(const struct ms_record *r, const char *key);
bool ms_rec_u64(const struct ms_record *r, const char *key, uint64_t *v);
bool ms_rec_i64(const struct ms_record *r, const char *key, int64_t *v);
void ms_record_free(struct ms_record *r);
/*
 * A typed record from @n NUL-terminated strings in @store (type, then key
 * and value by turns), which it takes over, freed or not.
 */
int ms_record_from_strings(struct ms_record *r, char *store, size_t size);
/* A typed record as the events file gives it: "type key=value ...". */
void ms_fput_record(const struct ms_record *r, FILE *f);

int ms_parse_ring(const char *data, size_t len, struct ms_records *ring);
void ms_ring_free(struct ms_records *ring);

int ms_parse_hist(const char *data, size_t len, struct ms_buckets *h);

/*
 * PSI's text: /proc/pressure/memory, a cgroup's memory.pressure, and the
 * module's pressure file.  -1 unless it has a some line.
 */
struct ms_psi {
	bool has[2];			/* some, full */
	double avg[2][3];		/* avg10, avg60, avg300: percent */
	uint64_t total_us[2];
	struct ms_diag diag;
};
int ms_parse_psi(const char *data, size_t len, struct ms_psi *p);
/* now - prev, slot by slot, or all of now when reset_count moved between. */
void ms_hist_delta(const struct ms_buckets *now, const struct ms_buckets *prev,
		   struct ms_buckets *out);

#endif /* MEMSCOPE_PARSE_H */
