/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MEMSCOPE_PRINT_H
#define MEMSCOPE_PRINT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * One printing layer, after iproute2's json_print.h: every value goes through
 * print_*(type, key, fmt, value), which writes "fmt" in text mode and
 * "key": value in JSON mode, so -j never needs a second code path.
 *
 * In JSON mode a report (one interval, one event) is one JSON object on one
 * line: print_begin_record() ... print_end_record(). The record is built in
 * memory and written only when complete, so an error in the middle of a
 * report replaces it with {"error": "..."} instead of leaving broken JSON.
 */
enum output_type {
	PRINT_FP = 1,	/* text only */
	PRINT_JSON = 2,	/* JSON only */
	PRINT_ANY = 3,	/* both */
};

void print_set_json(bool json);
bool print_is_json(void);
void print_set_output(FILE *fp);

void print_begin_record(void);
void print_end_record(void);
void print_discard_record(void);

void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t v);
void print_int(enum output_type t, const char *key, const char *fmt, int64_t v);
void print_float(enum output_type t, const char *key, const char *fmt, double v);
void print_string(enum output_type t, const char *key, const char *fmt, const char *s);
void print_bool(enum output_type t, const char *key, const char *fmt, bool v);
/* A number that arrives as text: a JSON number when it is one, else a string. */
void print_num_str(enum output_type t, const char *key, const char *fmt, const char *s);

void print_fp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_nl(void);

/* Error and warning lines: "Error: <what>, <what to do>". */
void print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_verror(const char *fmt, va_list ap);
void print_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * What a tool's output is, for a reader at a terminal: to stderr, so that
 * stdout stays data, as "Note: ...", not "Warning:", since nothing is wrong.
 */
void print_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* JSON string escaping with UTF-8 validation, exposed for the fuzzer. */
void json_escape(FILE *fp, const char *s);

#endif /* MEMSCOPE_PRINT_H */
