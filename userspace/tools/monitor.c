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
#include <stdio.h>
#include <string.h>

#include "memscope.h"

/*
 * The events the groups carry, and which of their fields are numbers, as
 * module/events.c and genl.c print them.  JSON is typed from this, not
 * from what a value looks like: a comm of digits stays a string, and a
 * number the line gives as "-" (unknown) or "unknown" is null, so that
 * an event has the same shape over netlink and the file, and from one
 * event to the next.  A field not named here (a newer module's) is a
 * string.  The events file's other events (mmap, shm) are in no group:
 * monitor leaves them out there too.
 */
static const struct monitor_event {
	const char *type;
	const char *const numbers[12];
} monitor_events[] = {
	{ "oom", { "time_ns", "trigger_pid", "victim_pid", "pages", "anon_rss_kb",
		   "file_rss_kb", "shmem_rss_kb", "oom_score_adj", "order", "confirmed" } },
	{ "direct_reclaim", { "time_ns", "pid", "latency_ns", "nr_reclaimed", "memcg" } },
	{ "compaction", { "time_ns", "pid", "latency_ns" } },
	{ "memleak", { "time_ns", "report", "rank", "allocs", "bytes", "oldest_ms" } },
	/* netlink may know only that some were lost: "count=unknown" */
	{ "lost", { "count" } },
};

static const struct monitor_event *monitor_event(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(monitor_events) / sizeof(monitor_events[0]); i++)
		if (!strcmp(monitor_events[i].type, type))
			return &monitor_events[i];
	return NULL;
}

static bool is_number(const struct monitor_event *e, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(e->numbers) / sizeof(e->numbers[0]) && e->numbers[i]; i++)
		if (!strcmp(e->numbers[i], key))
			return true;
	return false;
}

static void print_field(const struct monitor_event *e, const char *key, const char *val)
{
	uint64_t u;
	int64_t i;

	if (!is_number(e, key))
		print_string(PRINT_JSON, key, NULL, val);
	else if (val[0] != '-' && ms_parse_u64(val, &u))
		print_uint(PRINT_JSON, key, NULL, u);
	else if (ms_parse_i64(val, &i))
		print_int(PRINT_JSON, key, NULL, i);
	else
		print_string(PRINT_JSON, key, NULL, NULL);
}

static void print_event(const struct ms_opts *o, const struct monitor_event *e,
			const struct ms_record *r, const char *line)
{
	size_t i;

	print_begin_record();
	ms_print_timestamp(o);
	if (!print_is_json()) {
		print_fp("%s\n", line);
	} else {
		print_string(PRINT_JSON, "type", NULL, r->type);
		for (i = 0; i < r->n; i++)
			print_field(e, r->f[i].key, r->f[i].val);
	}
	print_end_record();
	fflush(stdout);
}

int cmd_monitor(const struct ms_opts *o)
{
	struct ms_stream *s = ms_stream_open("events");
	const struct monitor_event *e;
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
		e = monitor_event(rec.type);
		if (e && !strcmp(rec.type, "lost") && !print_is_json()) {
			const char *n = ms_rec_get(&rec, "count");

			print_warn("%s events lost: the module could not deliver them, or this reader fell behind",
				   n ? n : "some");
		}
		if (e)
			print_event(o, e, &rec, line);
		ms_record_free(&rec);
	}
	ms_stream_close(s);
	return r < 0 ? -1 : 0;
}
