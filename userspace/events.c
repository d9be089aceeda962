// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "memscope.h"
#include "nl.h"

#define DEBUGFS_MAGIC	0x64626720
#define TRACEFS_MAGIC	0x74726163
#define PROC_MAGIC	0x9fa0
#define MAX_LINE	(64u << 10)

struct ms_stream {
	int fd;
	bool live;		/* a kernel stream: EOF means "nothing yet" */
	bool eof;
	bool skipping;		/* inside an over-long line */
	char *buf;
	size_t len;		/* bytes in buf */
	size_t off;		/* start of the unconsumed part */
	char *path;
	struct ms_nl_stream *nl;	/* --netlink: the groups, not the file */
	unsigned int bad;		/* malformed lines skipped */
};

/*
 * Where the family has no groups (a kernel that cannot keep them to
 * CAP_SYS_ADMIN: RHEL 7, 4.9.337, 5.2 to 5.4 before the stable backport,
 * 5.15.135, RHEL 9.0; module/compat/genl.h), the events file carries the
 * same events: read it, and say so once.  The directory is found as
 * without --netlink.
 */
static int nl_fallback(const char *name)
{
	static bool noted;

	if (ms_locate_dir(NULL))
		return -1;
	if (!noted)
		print_note("the %s has no event groups on this kernel (it cannot keep them to CAP_SYS_ADMIN), so events come from %s/%s instead: the same events, but no memleak reports",
			   ms_nl_where(), ms_dir(), name);
	noted = true;
	return 0;
}

const struct ms_evfmt *ms_events_format(void)
{
	static struct ms_evfmt ef;
	static int state;	/* 0: not read yet, 1: read, -1: none */
	char *data;
	size_t len;

	if (state)
		return state > 0 ? &ef : NULL;
	state = -1;
	if (ms_read_optional("events_format", &data, &len))
		return NULL;
	if (ms_parse_evfmt(data, len, &ef) == 0) {
		state = 1;
		ms_warn_diag("events_format", &ef.diag);
	}
	free(data);
	return state > 0 ? &ef : NULL;
}

bool ms_stream_netlink(const struct ms_stream *s)
{
	return s->nl != NULL;
}

struct ms_stream *ms_stream_open(const char *name, uint64_t rcvbuf)
{
	struct ms_stream *s = calloc(1, sizeof(*s));
	struct statfs sfs;
	bool fallback = false;
	int err, r;

	if (!s)
		return NULL;
	s->fd = -1;
	if (ms_nl_on() && !strcmp(name, "events")) {
		r = ms_nl_stream_open(&s->nl, rcvbuf);
		if (r == 0)
			return s;
		if (r < 0 || nl_fallback(name))
			goto fail;
		fallback = true;
	}
	s->path = ms_path(name);
	s->buf = malloc(MAX_LINE + 1);
	if (!s->path || !s->buf)
		goto fail;
	s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		err = errno;
		free(s->buf);
		s->buf = NULL;
		/* let the common reader say why, with the same wording */
		if (fallback || ms_read(name, &s->buf, &s->len) == 0)
			ms_fail("cannot open %s: %s, check that the module is still loaded",
				s->path, strerror(err));
		goto fail;
	}
	/*
	 * debugfs and procfs files are the module's blocking stream; anything
	 * else (a copy, a fixture) is a recording that ends at EOF.
	 */
	if (fstatfs(s->fd, &sfs) == 0)
		s->live = sfs.f_type == DEBUGFS_MAGIC || sfs.f_type == PROC_MAGIC ||
			  sfs.f_type == TRACEFS_MAGIC;
	return s;
fail:
	free(s->buf);
	free(s->path);
	free(s);
	return NULL;
}

void ms_stream_close(struct ms_stream *s)
{
	if (!s)
		return;
	ms_nl_stream_close(s->nl);
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->path);
	free(s);
}

static int fill(struct ms_stream *s)
{
	struct pollfd pfd;
	ssize_t r;

	if (s->off) {
		memmove(s->buf, s->buf + s->off, s->len - s->off);
		s->len -= s->off;
		s->off = 0;
	}
	for (;;) {
		if (ms_stop)
			return 0;
		r = read(s->fd, s->buf + s->len, MAX_LINE - s->len);
		if (r > 0) {
			s->len += (size_t)r;
			return 1;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			r = 0;
		if (r < 0) {
			ms_fail("cannot read %s: %s, check that the module is still loaded",
				s->path, strerror(errno));
			return -1;
		}
		if (!s->live) {
			s->eof = true;
			return 0;
		}
		/* an empty live stream: wait for data rather than spin */
		pfd.fd = s->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 250) < 0 && errno != EINTR) {
			usleep(250000);
		}
	}
}

static int stream_line(struct ms_stream *s, char **line, size_t *len)
{
	char *start, *nl;
	int r;

	for (;;) {
		start = s->buf + s->off;
		nl = memchr(start, '\n', s->len - s->off);
		if (nl) {
			s->off = (size_t)(nl - s->buf) + 1;
			if (s->skipping) {
				s->skipping = false;
				continue;
			}
			*nl = '\0';
			*line = start;
			*len = (size_t)(nl - start);
			return 1;
		}
		if (s->eof) {
			/* a last line without a newline still counts */
			if (s->off < s->len && !s->skipping) {
				start[s->len - s->off] = '\0';
				*line = start;
				*len = s->len - s->off;
				s->off = s->len;
				return 1;
			}
			return 0;
		}
		if (s->len - s->off == MAX_LINE) {
			print_warn("%s: skipping a line longer than %u bytes", s->path, MAX_LINE);
			s->skipping = true;
			s->len = s->off = 0;
		}
		r = fill(s);
		if (r <= 0 && !s->eof)
			return r;
	}
}

/*
 * The next event, typed: from the groups, decoded from its attributes; from
 * the file, parsed from its line.  A malformed line is skipped, and said
 * once.
 */
int ms_stream_next(struct ms_stream *s, struct ms_record *rec)
{
	char *line;
	size_t len;
	int r;

	if (s->nl)
		return ms_nl_stream_next(s->nl, rec);
	while ((r = stream_line(s, &line, &len)) > 0) {
		if (len == 0)
			continue;
		if (!ms_parse_record(line, len, true, rec))
			return 1;
		if (s->bad++ == 0)
			print_warn("%s: skipping malformed events: \"%.80s\"", s->path, line);
	}
	return r;
}

/*
 * Follow the events stream and hand each line of the given type to fn.
 * Other types are skipped; "lost count=N" becomes a warning.  A live
 * stream calls recover, if given, once it is open and after each loss:
 * the tool can then look for what it missed where the module keeps it.
 */
int ms_follow_events_recover(const char *type, ms_event_fn fn, ms_recover_fn recover,
			     void *ctx)
{
	struct ms_missed m0, m1;
	struct ms_stream *s;
	struct ms_record rec;
	uint64_t lost;
	int r = 0, ret = 0;

	s = ms_stream_open("events", 0);
	if (!s)
		return -1;
	ms_missed_snapshot(&m0);
	if (!s->nl && !s->live)
		recover = NULL;		/* a recording: nothing to look in */
	if (recover)
		ret = recover(ctx);
	while (!ret && (r = ms_stream_next(s, &rec)) > 0) {
		if (!strcmp(rec.type, "lost")) {
			if (ms_rec_u64(&rec, "count", &lost))
				print_warn("%llu events lost (reader too slow)",
					   (unsigned long long)lost);
			else
				print_warn("events lost (reader too slow), how many is unknown");
			if (recover)
				ret = recover(ctx);
		} else if (!strcmp(rec.type, type)) {
			ret = fn(ctx, &rec);
		}
		ms_record_free(&rec);
	}
	ms_stream_close(s);
	if (r < 0)
		return -1;
	/* What the stream could not carry, because no probe saw it. */
	ms_missed_snapshot(&m1);
	ms_missed_warn(&m0, &m1, "while tracing");
	return ret;
}

int ms_follow_events(const char *type, ms_event_fn fn, void *ctx)
{
	return ms_follow_events_recover(type, fn, NULL, ctx);
}
