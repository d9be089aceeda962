// SPDX-License-Identifier: GPL-2.0
/*
 * monitor: every event as it happens, as `ip monitor` prints, from the
 * netlink groups: the events file's lines in text, one object per event
 * with -j, and every loss said where it happened in the stream; memleak's
 * reports too, a line per site, from the group no events file has.
 * Copyright (C) 2026 The memscope authors.
 */
#include <stdio.h>
#include <string.h>

#include "memscope.h"

static void print_event(const struct ms_opts *o, const struct ms_record *r, const char *line)
{
	size_t i;

	print_begin_record();
	ms_print_timestamp(o);
	if (!print_is_json()) {
		print_fp("%s\n", line);
	} else if (!strcmp(r->type, "lost")) {
		/* netlink tells that a socket overran, not always how much */
		print_string(PRINT_JSON, "type", NULL, "lost");
		print_num_str(PRINT_JSON, "count", NULL, ms_rec_get(r, "count"));
	} else {
		print_string(PRINT_JSON, "type", NULL, r->type);
		for (i = 0; i < r->n; i++)
			print_num_str(PRINT_JSON, r->f[i].key, NULL, r->f[i].val);
	}
	print_end_record();
	fflush(stdout);
}

int cmd_monitor(const struct ms_opts *o)
{
	struct ms_stream *s = ms_stream_open("events");
	struct ms_record rec;
	unsigned int bad = 0;
	char *line;
	size_t len;
	int r;

	if (!s)
		return -1;
	while ((r = ms_stream_next(s, &line, &len)) > 0) {
		if (len == 0)
			continue;
		if (ms_parse_record(line, len, true, &rec)) {
			if (bad++ == 0)
				print_warn("skipping malformed events: \"%.80s\"", line);
			continue;
		}
		if (!strcmp(rec.type, "lost") && !print_is_json()) {
			const char *n = ms_rec_get(&rec, "count");

			print_warn("%s events lost: the module could not deliver them, or this reader fell behind",
				   n ? n : "some");
		}
		print_event(o, &rec, line);
		ms_record_free(&rec);
	}
	ms_stream_close(s);
	return r < 0 ? -1 : 0;
}
