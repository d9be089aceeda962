// SPDX-License-Identifier: GPL-2.0
/*
 * Fields: a record described once, as a table of its fields, and the text
 * made from it.  An event's line in its ring's file and in the `events`
 * stream, its netlink attributes (genl.c) and the events_format file that
 * types both for a reader all come from its family's table
 * (struct ms_record_desc), so they cannot disagree.  Also the escaping
 * that every file's names go through, and named flag bits.
 * Copyright (C) 2026 The memscope authors.
 */
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "memscope.h"

/* Octal-escape what would split a field: space, tab, newline, backslash. */
static size_t ms_escape_n(char *dst, size_t len, const char *src, size_t max)
{
	size_t n = 0;

	for (; max && *src && n + 5 < len; src++, max--) {
		unsigned char c = *src;

		if (c <= ' ' || c == '\\' || c >= 0x7f)
			n += snprintf(dst + n, len - n, "\\%03o", c);
		else
			dst[n++] = c;
	}
	dst[n] = '\0';
	return n;
}

size_t ms_escape(char *dst, size_t len, const char *src)
{
	return ms_escape_n(dst, len, src, SIZE_MAX);
}

void ms_seq_escape(struct seq_file *m, const char *s)
{
	char buf[MS_NAME_LEN * 8 + 1];

	ms_escape(buf, sizeof(buf), s);
	seq_puts(m, buf);
}

/* Named flag bits, then what is left in hex: "MAP_PRIVATE|MAP_ANONYMOUS". */
int ms_format_flags(char *b, size_t len, unsigned long v, const struct ms_flag *f, size_t nf)
{
	int n = 0;
	size_t i;

	for (i = 0; i < nf; i++) {
		if (!f[i].bit || (v & f[i].bit) != f[i].bit)
			continue;
		n += scnprintf(b + n, len - n, "%s%s", n ? "|" : "", f[i].name);
		v &= ~f[i].bit;
	}
	if (v)
		n += scnprintf(b + n, len - n, "%s%#lx", n ? "|" : "", v);
	else if (!n)
		n += scnprintf(b + n, len - n, "0");
	return n;
}

/*
 * An integer field's value, widened to 64 bits by its sign; false when it
 * is negative and that means "not known" (MS_FIELD_UNKNOWN).
 */
bool ms_field_int(const struct ms_field_desc *f, const void *rec, u64 *v)
{
	const void *p = (const char *)rec + f->offset;
	bool sign = f->kind == MS_FK_INT;
	s64 s;

	switch (f->size) {
	case 1:
		s = sign ? *(const s8 *)p : *(const u8 *)p;
		break;
	case 2:
		s = sign ? *(const s16 *)p : *(const u16 *)p;
		break;
	case 4:
		s = sign ? *(const s32 *)p : *(const u32 *)p;
		break;
	default:
		s = *(const s64 *)p;
		break;
	}
	if (f->flags & MS_FIELD_32)
		s = sign ? (s32)s : (u32)s;
	*v = s;
	return !(sign && (f->flags & MS_FIELD_UNKNOWN) && s < 0);
}

bool ms_field_present(const struct ms_record_desc *d, const struct ms_field_desc *f,
		      const void *rec)
{
	return !f->variants || !d->variant || (f->variants & d->variant(rec));
}

static int ms_field_format(char *b, size_t len, const struct ms_field_desc *f, const void *rec)
{
	const char *s;
	u64 v;

	switch (f->kind) {
	case MS_FK_STR:
		s = (const char *)rec + f->offset;
		if ((f->flags & MS_FIELD_UNKNOWN) && !*s)
			return scnprintf(b, len, "-");
		return ms_escape_n(b, len, s, f->size);
	case MS_FK_TEXT:
		return f->format(b, len, rec);
	default:
		if (!ms_field_int(f, rec, &v))
			return scnprintf(b, len, "-");
		if (f->kind == MS_FK_INT)
			return scnprintf(b, len, "%lld", (s64)v);
		if (f->kind == MS_FK_HEX)
			return scnprintf(b, len, "%#llx", v);
		if (f->kind == MS_FK_BOOL)
			return scnprintf(b, len, "%d", !!v);
		return scnprintf(b, len, "%llu", v);
	}
}

/* A record's line, "name=value ...\n", its strings escaped; its length. */
int ms_record_format(char *b, size_t len, const struct ms_record_desc *d, const void *rec)
{
	const struct ms_field_desc *f;
	int n = 0;

	for (f = d->fields; f < d->fields + d->nr_fields; f++) {
		if (!ms_field_present(d, f, rec))
			continue;
		n += scnprintf(b + n, len - n, "%s%s=", n ? " " : "", f->name);
		if (n < len)
			n += ms_field_format(b + n, len - n, f, rec);
	}
	return n + scnprintf(b + n, len - n, "\n");
}

static const char *const ms_field_kinds[] = {
	[MS_FK_UINT] = "uint", [MS_FK_INT] = "int", [MS_FK_HEX] = "hex",
	[MS_FK_BOOL] = "bool", [MS_FK_STR] = "str", [MS_FK_TEXT] = "str",
};

/*
 * The record's line in events_format: its name, then each field as
 * name:kind[:attribute], in the order the lines give them.  A field in
 * some variants only is listed where it comes; a name may come twice.
 */
void ms_record_format_show(struct seq_file *m, const struct ms_record_desc *d)
{
	const struct ms_field_desc *f;

	seq_puts(m, d->name);
	for (f = d->fields; f < d->fields + d->nr_fields; f++) {
		seq_printf(m, " %s:%s", f->name, ms_field_kinds[f->kind]);
		if (f->nla)
			seq_printf(m, ":%u", f->nla);
	}
	seq_putc(m, '\n');
}
