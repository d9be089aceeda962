// SPDX-License-Identifier: GPL-2.0
/*
 * mmapsnoop and shmsnoop: one line per mmap(2), and per System V shared
 * memory call, as they happen (--last: the ones the module still holds).
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"

#define SYSCALL_COST "its probe puts every system call on the slow exit path"

struct snoop_ctx {
	const struct ms_opts *o;
	uint64_t first_ns;
	bool have_first;
};

static void snoop_time(struct snoop_ctx *c, const struct ms_record *r)
{
	uint64_t t = 0;

	ms_rec_u64(r, "time_ns", &t);
	if (!c->have_first) {
		c->first_ns = t;
		c->have_first = true;
	}
	if (c->o->timestamp)
		print_float(PRINT_ANY, "time_s", "%-14.9f",
			    t >= c->first_ns ? (double)(t - c->first_ns) / 1e9 : 0.0);
	print_uint(PRINT_JSON, "time_ns", NULL, t);
}

/* The record's pid, or -1; false when -p asks for another process. */
static bool snoop_wanted(const struct snoop_ctx *c, const struct ms_record *r)
{
	int64_t pid = -1;

	ms_rec_i64(r, "pid", &pid);
	return !c->o->has_pid || pid == c->o->pid;
}

static const char *rec_str(const struct ms_record *r, const char *key)
{
	const char *v = ms_rec_get(r, key);

	return v ? v : "?";
}

/* Stream the events of type, after the header, or print what ring holds. */
static int snoop_run(struct snoop_ctx *c, const char *type, const char *what,
		     void (*header)(const struct ms_opts *o), ms_event_fn fn)
{
	struct ms_records ring;
	size_t i;
	int ret = 0;

	if (c->o->last) {
		if (ms_load_ring(type, &ring, false))
			return 1;
		header(c->o);
		for (i = 0; i < ring.n && !ret; i++)
			ret = fn(c, &ring.v[i]);
		ms_ring_free(&ring);
		return ret ? 1 : 0;
	}
	print_fp("Tracing %s... Hit Ctrl-C to end.\n", what);
	header(c->o);
	fflush(stdout);
	return ms_follow_events(type, fn, c) ? 1 : 0;
}

/* -------------------------------------------------------------- mmapsnoop */

static void mmapsnoop_header(const struct ms_opts *o)
{
	/* The book's mmapsnoop columns, with the result and all the flags */
	if (o->timestamp)
		print_fp("%-14s", "TIME(s)");
	print_fp("%-7s %-16s %-4s %9s %9s %5s %-24s %s\n", "PID", "COMM", "PROT",
		 "OFFS(KB)", "SIZE(KB)", "ERR", "FILE", "FLAGS");
}

static int mmapsnoop_event(void *p, const struct ms_record *r)
{
	struct snoop_ctx *c = p;
	uint64_t size = 0, off = 0;
	int64_t err = 0;

	if (!snoop_wanted(c, r))
		return 0;
	ms_rec_u64(r, "size", &size);
	ms_rec_u64(r, "off", &off);
	ms_rec_i64(r, "err", &err);
	print_begin_record();
	snoop_time(c, r);
	print_num_str(PRINT_ANY, "pid", "%-7s ", rec_str(r, "pid"));
	print_string(PRINT_ANY, "comm", "%-16.16s ", rec_str(r, "comm"));
	print_string(PRINT_ANY, "prot", "%-4s ", rec_str(r, "prot"));
	print_uint(PRINT_FP, NULL, "%9llu ", off / 1024);
	print_uint(PRINT_FP, NULL, "%9llu ", (size + 1023) / 1024);
	print_int(PRINT_ANY, "err", "%5lld ", err);
	print_string(PRINT_ANY, "file", "%-24s ", rec_str(r, "file"));
	print_string(PRINT_ANY, "flags", "%s", rec_str(r, "flags"));
	print_fp("\n");
	print_uint(PRINT_JSON, "size", NULL, size);
	print_uint(PRINT_JSON, "off", NULL, off);
	print_end_record();
	return 0;
}

static int cmd_mmapsnoop(const struct ms_opts *o)
{
	struct snoop_ctx c = { .o = o };

	if (ms_check_optin("mmapsnoop", "mmapsnoop", "mmap", SYSCALL_COST, o->kept) < 0)
		return 1;
	return snoop_run(&c, "mmap", "mmap() calls", mmapsnoop_header, mmapsnoop_event);
}

/* --------------------------------------------------------------- shmsnoop */

static void shmsnoop_header(const struct ms_opts *o)
{
	/* BCC shmsnoop's columns */
	if (o->timestamp)
		print_fp("%-14s", "TIME(s)");
	print_fp("%-7s %-16s %-7s %5s %s\n", "PID", "COMM", "SYS", "RET", "ARGs");
}

static int shmsnoop_event(void *p, const struct ms_record *r)
{
	static const char *const args[] = { "key", "size", "id", "flags", "cmd" };
	struct snoop_ctx *c = p;
	const char *call = rec_str(r, "call"), *v;
	int64_t err = 0, id = -1;
	size_t i;

	if (!snoop_wanted(c, r))
		return 0;
	ms_rec_i64(r, "err", &err);
	print_begin_record();
	snoop_time(c, r);
	print_num_str(PRINT_ANY, "pid", "%-7s ", rec_str(r, "pid"));
	print_string(PRINT_ANY, "comm", "%-16.16s ", rec_str(r, "comm"));
	print_string(PRINT_ANY, "call", "%-7s ", call);
	/* As BCC: shmget's RET is the id it returned, the others' 0 or -errno */
	if (!strcmp(call, "shmget") && !err && ms_rec_i64(r, "id", &id))
		print_int(PRINT_FP, NULL, "%5lld", id);
	else
		print_int(PRINT_FP, NULL, "%5lld", err);
	print_int(PRINT_JSON, "err", NULL, err);
	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		v = ms_rec_get(r, args[i]);
		if (!v)
			continue;
		/* shmget's id is its result, shown as RET */
		if (!strcmp(args[i], "id") && !strcmp(call, "shmget")) {
			if (!err)
				print_num_str(PRINT_JSON, "id", NULL, v);
			continue;
		}
		print_fp(" %s=%s", args[i], v);
		if (!strcmp(args[i], "size") || !strcmp(args[i], "id"))
			print_num_str(PRINT_JSON, args[i], NULL, v);
		else
			print_string(PRINT_JSON, args[i], NULL, v);
	}
	print_fp("\n");
	print_end_record();
	return 0;
}

static int cmd_shmsnoop(const struct ms_opts *o)
{
	struct snoop_ctx c = { .o = o };

	if (ms_check_optin("shmsnoop", "shmsnoop", "shm", SYSCALL_COST, o->kept) < 0)
		return 1;
	return snoop_run(&c, "shm", "System V shared memory calls", shmsnoop_header,
			 shmsnoop_event);
}

MS_TOOL(mmapsnoop,
	.topic = MS_TOPIC_CALLS, .rank = 10,
	.opts = OPT_PID | OPT_LAST | OPT_KEPT,
	.usage = "mmapsnoop [-T] [-p PID] [--last] [--kept]",
	.summary = "each mmap() with its size, protection, flags and file (turns mmapsnoop on while it runs)");

MS_TOOL(shmsnoop,
	.topic = MS_TOPIC_CALLS, .rank = 20,
	.opts = OPT_PID | OPT_LAST | OPT_KEPT,
	.usage = "shmsnoop [-T] [-p PID] [--last] [--kept]",
	.summary = "each shmget, shmat, shmdt and shmctl call (turns shmsnoop on while it runs)");
