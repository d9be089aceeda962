// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

#define JSON_MAX_DEPTH 32

static bool json;
static FILE *out;		/* final destination, stdout by default */
static FILE *rec;		/* the JSON record being built */
static char *rec_buf;
static size_t rec_len;
static int depth;
static bool first[JSON_MAX_DEPTH];
static bool in_array[JSON_MAX_DEPTH];

static FILE *dst(void)
{
	if (!out)
		out = stdout;
	return json && rec ? rec : out;
}

void print_set_json(bool on)
{
	json = on;
}

bool print_is_json(void)
{
	return json;
}

void print_set_output(FILE *fp)
{
	out = fp;
}

/* Length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	size_t need, k;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1; cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2; cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3; cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* a NUL ends the loop early: it is never a continuation byte */
	for (k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

static void utf8_escape_char(FILE *fp, const unsigned char *s, size_t *i)
{
	unsigned char c = s[*i];
	size_t n;

	if (c < 0x80) {
		switch (c) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\t': fputs("\\t", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\b': fputs("\\b", fp); break;
		case '\f': fputs("\\f", fp); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(fp, "\\u%04x", c);
			else
				fputc(c, fp);
		}
		(*i)++;
		return;
	}
	/* Kernel strings are bytes; only well-formed UTF-8 may pass through. */
	n = utf8_seq(s + *i);
	if (n) {
		fwrite(s + *i, 1, n, fp);
		*i += n;
	} else {
		fputs("\\ufffd", fp);
		(*i)++;
	}
}

void json_escape(FILE *fp, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	fputc('"', fp);
	while (u[i])
		utf8_escape_char(fp, u, &i);
	fputc('"', fp);
}

void print_begin_record(void)
{
	if (!json)
		return;
	if (!rec) {
		rec = open_memstream(&rec_buf, &rec_len);
		if (!rec) {
			perror("open_memstream");
			exit(1);
		}
	}
	depth = 0;
	open_json_object(NULL);
}

void print_discard_record(void)
{
	if (!rec)
		return;
	fclose(rec);
	free(rec_buf);
	rec = NULL;
	rec_buf = NULL;
	depth = 0;
}

void print_end_record(void)
{
	if (!json) {
		fflush(dst());
		return;
	}
	while (depth > 0) {
		if (in_array[depth - 1])
			close_json_array();
		else
			close_json_object();
	}
	if (rec) {
		fclose(rec);
		rec = NULL;
		if (!out)
			out = stdout;
		fwrite(rec_buf, 1, rec_len, out);
		fputc('\n', out);
		free(rec_buf);
		rec_buf = NULL;
	}
	fflush(out);
}

/* Separator and key for the next JSON value. */
static void json_key(const char *key)
{
	FILE *fp = dst();

	if (depth > 0) {
		if (!first[depth - 1])
			fputc(',', fp);
		first[depth - 1] = false;
		if (!in_array[depth - 1]) {
			json_escape(fp, key ? key : "");
			fputc(':', fp);
		}
	}
}

static void json_push(const char *key, bool array)
{
	json_key(key);
	fputc(array ? '[' : '{', dst());
	if (depth < JSON_MAX_DEPTH) {
		first[depth] = true;
		in_array[depth] = array;
	}
	depth++;
}

static void json_pop(bool array)
{
	if (depth == 0)
		return;
	depth--;
	fputc(array ? ']' : '}', dst());
}

void open_json_object(const char *key)
{
	if (json)
		json_push(key, false);
}

void close_json_object(void)
{
	if (json)
		json_pop(false);
}

void open_json_array(const char *key)
{
	if (json)
		json_push(key, true);
}

void close_json_array(void)
{
	if (json)
		json_pop(true);
}

static bool want(enum output_type t)
{
	return json ? (t & PRINT_JSON) : (t & PRINT_FP);
}

void print_uint(enum output_type t, const char *key, const char *fmt, uint64_t v)
{
	if (!want(t))
		return;
	if (json) {
		json_key(key);
		fprintf(dst(), "%llu", (unsigned long long)v);
	} else if (fmt) {
		fprintf(dst(), fmt, (unsigned long long)v);
	}
}

void print_int(enum output_type t, const char *key, const char *fmt, int64_t v)
{
	if (!want(t))
		return;
	if (json) {
		json_key(key);
		fprintf(dst(), "%lld", (long long)v);
	} else if (fmt) {
		fprintf(dst(), fmt, (long long)v);
	}
}

void print_float(enum output_type t, const char *key, const char *fmt, double v)
{
	if (!want(t))
		return;
	if (json) {
		json_key(key);
		if (isfinite(v))
			fprintf(dst(), "%.10g", v);
		else
			fputs("null", dst());
	} else if (fmt) {
		fprintf(dst(), fmt, v);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt, bool v)
{
	if (!want(t))
		return;
	if (json) {
		json_key(key);
		fputs(v ? "true" : "false", dst());
	} else if (fmt) {
		fprintf(dst(), fmt, v ? "true" : "false");
	}
}

/* Text output never carries control characters from the kernel to a tty. */
static char *sanitize(const char *s)
{
	char *c = strdup(s ? s : "");
	char *p;

	if (!c) {
		perror("strdup");
		exit(1);
	}
	for (p = c; *p;) {
		size_t n = utf8_seq((const unsigned char *)p);

		if (n == 0 || (unsigned char)*p < 0x20 || *p == 0x7f) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
	return c;
}

void print_string(enum output_type t, const char *key, const char *fmt, const char *s)
{
	char *c;

	if (!want(t))
		return;
	if (json) {
		json_key(key);
		if (s)
			json_escape(dst(), s);
		else
			fputs("null", dst());
	} else if (fmt) {
		c = sanitize(s);
		fprintf(dst(), fmt, c);
		free(c);
	}
}

/* Is s exactly a JSON integer literal that fits 64 bits? */
static bool json_int_literal(const char *s)
{
	const char *p = s;
	size_t n;

	if (*p == '-')
		p++;
	n = strspn(p, "0123456789");
	if (n == 0 || p[n] != '\0' || n > 19)
		return false;
	return !(n > 1 && p[0] == '0');
}

void print_num_str(enum output_type t, const char *key, const char *fmt, const char *s)
{
	if (!want(t))
		return;
	if (json && s && json_int_literal(s)) {
		json_key(key);
		fputs(s, dst());
		return;
	}
	print_string(t, key, fmt, s ? s : (json ? NULL : "?"));
}

void print_fp(const char *fmt, ...)
{
	va_list ap;

	if (json)
		return;
	va_start(ap, fmt);
	vfprintf(dst(), fmt, ap);
	va_end(ap);
}

void print_nl(void)
{
	if (!json)
		fputc('\n', dst());
}

void print_verror(const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (json) {
		/* Drop any half-built report: the stream stays valid JSON. */
		print_discard_record();
		if (!out)
			out = stdout;
		fputs("{\"error\":", out);
		json_escape(out, msg);
		fputs("}\n", out);
		fflush(out);
	} else {
		fflush(stdout);
		fprintf(stderr, "Error: %s\n", msg);
	}
}

void print_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_verror(fmt, ap);
	va_end(ap);
}

static void print_stderr(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void print_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_stderr("Warning: ", fmt, ap);
	va_end(ap);
}

void print_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_stderr("Note: ", fmt, ap);
	va_end(ap);
}
