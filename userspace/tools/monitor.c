// SPDX-License-Identifier: GPL-2.0
/*
 * monitor: every event as it happens, as `ip monitor` prints, from the
 * netlink groups: the events file's lines in text, one object per event
 * with -j, and every loss said where it happened in the stream; memleak's
 * reports too, a line per site, from the group no events file has.
 * Where the family has no groups (events.c says why, once), and with
 * --dir, from the events file: the same events and the same output, but no
 * memleak reports.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"

/*
 * JSON is typed by events_format, the module's own description of each
 * event's fields, not by what a value looks like: a comm of digits stays a
 * string, and a number the line gives as "-" (not known) or "unknown" is
 * null, so that an event has the same shape over netlink and the file,
 * and from one event to the next.  A hex field (gfp_mask) stays a string,
 * as the line writes it.  Only the events the groups carry (those with
 * attributes) and losses are shown: the events file's others (mmap, shm)
 * are in no group, and monitor leaves them out there too.  A module older
 * than events_format types nothing: every value is a string, and every
 * event is shown.
 */
static void print_field(const struct ms_evfmt_type *t, const char *key, const char *val)
{
	const struct ms_evfmt_field *f = ms_evfmt_field(t, key);
	uint64_t u;
	int64_t i;

	if (!f || f->kind == MS_EVK_STR || f->kind == MS_EVK_HEX)
		print_string(PRINT_JSON, key, NULL, val);
	else if (f->kind != MS_EVK_INT && ms_parse_u64(val, &u))
		print_uint(PRINT_JSON, key, NULL, u);
	else if (f->kind == MS_EVK_INT && ms_parse_i64(val, &i))
		print_int(PRINT_JSON, key, NULL, i);
	else
		print_string(PRINT_JSON, key, NULL, NULL);
}

static void print_event(const struct ms_opts *o, const struct ms_evfmt_type *t,
			const struct ms_record *r)
{
	char *line = NULL;
	size_t size, i;
	FILE *f;

	print_begin_record();
	ms_print_timestamp(o);
	if (!print_is_json()) {
		f = open_memstream(&line, &size);
		if (f) {
			ms_fput_record(r, f);
			if (!fclose(f))
				print_fp("%s\n", line);
		}
		free(line);
	} else {
		print_string(PRINT_JSON, "type", NULL, r->type);
		for (i = 0; i < r->n; i++)
			print_field(t, r->f[i].key, r->f[i].val);
	}
	print_end_record();
	fflush(stdout);
}

static int cmd_monitor(const struct ms_opts *o)
{
	struct ms_stream *s = ms_stream_open("events", o->buffer_size);
	const struct ms_evfmt *ef;
	const struct ms_evfmt_type *t;
	struct ms_record rec;
	int r;

	if (!s)
		return -1;
	if (o->buffer_size && !ms_stream_netlink(s))
		print_note("--buffer-size applies to the netlink socket: the events file has its own ring (the module's ring_size)");
	ef = ms_events_format();
	if (!ef && print_is_json())
		print_warn("the module has no events_format (it is older than this CLI): every value is a string; load the matching module for typed JSON");
	while ((r = ms_stream_next(s, &rec)) > 0) {
		t = ms_evfmt_type(ef, rec.type);
		if (!strcmp(rec.type, "lost") && !print_is_json()) {
			const char *n = ms_rec_get(&rec, "count");

			print_warn("%s events lost: the module could not deliver them, or this reader fell behind",
				   n ? n : "some");
		}
		if (!ef || (t && t->in_group) || !strcmp(rec.type, "lost"))
			print_event(o, t, &rec);
		ms_record_free(&rec);
	}
	ms_stream_close(s);
	return r < 0 ? -1 : 0;
}

MS_TOOL(monitor,
	.topic = MS_TOPIC_VIEWS, .rank = 50,
	.opts = OPT_BUFSIZE,
	.flags = MS_TOOL_NETLINK_FIRST,
	.usage = "monitor [--buffer-size BYTES]",
	.summary = "every OOM kill, direct reclaim and compaction as it happens, and how many were lost, from the netlink groups (the events file where the kernel has none, or with --dir)");
