/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MEMSCOPE_NL_H
#define MEMSCOPE_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The netlink backend (nl.c): the module's generic netlink family serves
 * the reads dir.c and events.c make of the files.  Stats, probes, tables,
 * histograms and events are decoded from their attributes into the structs
 * the files' parsers fill; the files with no typed command (version, the
 * rings, events_format, table_reuse), and a raw read (msread), as the
 * files' text.  Built only with
 * libnl-genl-3; without it, ms_nl_use() says so and fails.
 */

/* Turn the backend on (--netlink, MEMSCOPE_NETLINK=1): 0, or -1 with an error. */
int ms_nl_use(void);
bool ms_nl_on(void);
/* Where the data comes from, for messages: "netlink family memscope". */
const char *ms_nl_where(void);

/*
 * Why the family cannot be read (module not loaded, no CAP_SYS_ADMIN), or
 * NULL if it can; said to no one: for analyze, whose module is optional.
 */
const char *ms_nl_absent(void);
/* As dir.c's read of a file NAME: 0, 1 (missing and optional) or -1. */
int ms_nl_read(const char *name, char **data, size_t *len, bool optional);
/*
 * The parsers' structs straight from the attributes, with no text between:
 * 0, 1 (missing and optional) or -1 (said).
 */
struct ms_rows;
struct ms_counters;
struct ms_probe_lines;
struct ms_buckets;
int ms_nl_load_table(const char *name, struct ms_rows *t, bool optional);
int ms_nl_load_stats(struct ms_counters *st);
int ms_nl_load_probes(struct ms_probe_lines *p, bool optional);
int ms_nl_load_hist(const char *name, struct ms_buckets *h, bool optional);
/* The histograms' names, as a listing of hist_raw/: a count, or -1. */
int ms_nl_list_hists(char ***names);

/*
 * The events stream as the multicast groups: the lines of the events file.
 * 0 and *s set; 1 when the family has no groups (a kernel that cannot keep
 * them to CAP_SYS_ADMIN, where the module registers none: the events file
 * carries the same events), said to no one; -1 with the error said.
 * @rcvbuf: the socket's receive buffer in bytes, 0 for MS_NL_RCVBUF.
 */
#define MS_NL_RCVBUF (16ULL << 20)
struct ms_nl_stream;
int ms_nl_stream_open(struct ms_nl_stream **s, uint64_t rcvbuf);
/* 1: a line; 0: stop; -1: error */
struct ms_record;
/* The next event, typed (rec->type): 1, 0 (stop, nothing yet) or -1. */
int ms_nl_stream_next(struct ms_nl_stream *s, struct ms_record *rec);
void ms_nl_stream_close(struct ms_nl_stream *s);

#endif /* MEMSCOPE_NL_H */
