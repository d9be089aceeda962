// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink backend: the module's generic netlink family read as if it
 * were the files.  Each read renders the text the file holds, from the
 * typed attributes and in the kernel's formats (module/fs.c, probe.c,
 * table.c, memleak.c, stats.c), so the parsers and tools do not know which
 * door the data came through.  The events stream is the multicast groups.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"
#include "nl.h"

#ifndef MS_HAVE_LIBNL

int ms_nl_use(void)
{
	ms_fail("this memscope was built without libnl-genl-3, so it has no netlink backend and no monitor: install libnl-genl-3-dev (libnl3-devel) and rebuild it, or read the files (drop --netlink, unset MEMSCOPE_NETLINK)");
	return -1;
}

bool ms_nl_on(void)
{
	return false;
}

const char *ms_nl_where(void)
{
	return "";
}

const char *ms_nl_absent(void)
{
	return "built without libnl-genl-3";
}

int ms_nl_read(const char *name, char **data, size_t *len, bool optional)
{
	(void)name, (void)data, (void)len, (void)optional;
	return ms_nl_use();
}

int ms_nl_load_table(const char *name, struct ms_rows *t, bool optional)
{
	(void)name, (void)t, (void)optional;
	return ms_nl_use();
}

int ms_nl_load_stats(struct ms_counters *st)
{
	(void)st;
	return ms_nl_use();
}

int ms_nl_load_probes(struct ms_probe_lines *p, bool optional)
{
	(void)p, (void)optional;
	return ms_nl_use();
}

int ms_nl_load_hist(const char *name, struct ms_buckets *h, bool optional)
{
	(void)name, (void)h, (void)optional;
	return ms_nl_use();
}

int ms_nl_list_hists(char ***names)
{
	*names = NULL;
	return ms_nl_use();
}

int ms_nl_stream_open(struct ms_nl_stream **s, uint64_t rcvbuf)
{
	(void)rcvbuf;
	*s = NULL;
	return ms_nl_use();
}

int ms_nl_stream_next(struct ms_nl_stream *s, struct ms_record *rec)
{
	(void)s, (void)rec;
	return -1;
}

void ms_nl_stream_close(struct ms_nl_stream *s)
{
	(void)s;
}

#else /* MS_HAVE_LIBNL */

#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "../module/uapi/memscope_genl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define WHERE "netlink family " MEMSCOPE_GENL_NAME

static bool nl_on;
static struct nl_sock *cmd_sock;
static int family = -1;

bool ms_nl_on(void)
{
	return nl_on;
}

const char *ms_nl_where(void)
{
	return WHERE;
}

int ms_nl_use(void)
{
	nl_on = true;
	return 0;
}

static const char *cmd_name(uint8_t cmd)
{
	switch (cmd) {
	case MEMSCOPE_CMD_GET_STATS: return "GET_STATS";
	case MEMSCOPE_CMD_GET_PROBES: return "GET_PROBES";
	case MEMSCOPE_CMD_GET_TABLE: return "GET_TABLE";
	case MEMSCOPE_CMD_GET_HIST: return "GET_HIST";
	case MEMSCOPE_CMD_GET_TEXT: return "GET_TEXT";
	case MEMSCOPE_CMD_GET_HISTS: return "GET_HISTS";
	default: return "a command";
	}
}

static void fail_perm(const char *what)
{
	ms_fail("the " WHERE " refused %s: permission denied, memscope needs CAP_SYS_ADMIN (and CAP_NET_ADMIN) for every command and group: run it as root (sudo memscope ...)",
		what);
}

/* A socket to the family: the id found, or an error said and NULL. */
static struct nl_sock *family_connect(int *id)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	err = genl_connect(sk);
	if (err < 0) {
		ms_fail("cannot open a generic netlink socket: %s, check the seccomp or LSM policy that confines memscope",
			nl_geterror(err));
		goto fail;
	}
	/* Replies outgrow a page (GET_PROBES is about 5 KiB): peek for the size. */
	nl_socket_enable_msg_peek(sk);
	*id = genl_ctrl_resolve(sk, MEMSCOPE_GENL_NAME);
	/* The family lives in the initial network namespace only: a container has its own. */
	if (*id == -NLE_OBJ_NOTFOUND && ms_module_loaded()) {
		ms_fail("the memscope module is loaded, but its " WHERE " is not in this network namespace: the family lives in the initial one only, so run memscope there (`nsenter --net=/proc/1/ns/net memscope ...` from the host, or a container with the host's network), or the module predates the family (`cat /sys/module/memscope/version`)");
		goto fail;
	}
	if (*id == -NLE_OBJ_NOTFOUND) {
		ms_fail("the " WHERE " is not registered: the memscope module is not loaded, or too old to have it (`memscope status` without --netlink tells), load it with `modprobe memscope`");
		goto fail;
	}
	if (*id < 0) {
		ms_fail("cannot look up the " WHERE ": %s, check that the module is still loaded",
			nl_geterror(*id));
		goto fail;
	}
	return sk;
fail:
	nl_socket_free(sk);
	return NULL;
}

static int nl_init(void)
{
	if (cmd_sock)
		return 0;
	cmd_sock = family_connect(&family);
	return cmd_sock ? 0 : -1;
}

/* Called per message with the attributes after the genl header. */
typedef int (*nl_msg_fn)(struct nlattr *attrs, int len, void *arg);

struct nl_call {
	nl_msg_fn fn;
	void *arg;
	int kerr;		/* the kernel's errno, negative, or 0 */
	int ret;		/* fn's failure */
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nl_call *c = arg;
	struct genlmsghdr *g = genlmsg_hdr(nlmsg_hdr(msg));

	if (c->ret)
		return NL_SKIP;
	c->ret = c->fn(genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), c->arg);
	return NL_OK;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nl_call *c = arg;

	(void)nla;
	c->kerr = e->error;
	c->done = true;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct nl_call *c = arg;

	(void)msg;
	c->done = true;
	return NL_STOP;
}

/* A dump's end; newer kernels put the dump's error in its payload. */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nl_call *c = arg;
	int err;

	if (nlmsg_datalen(h) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(h), sizeof(err));
		if (err < 0)
			c->kerr = err;
	}
	c->done = true;
	return NL_STOP;
}

/*
 * One request, its replies handed to fn.  Returns 0, the kernel's errno
 * (negative) for the caller to judge, or 1: failed here, the error said.
 */
static int nl_request(uint8_t cmd, const char *name, bool dump, nl_msg_fn fn, void *arg)
{
	struct nl_call c = { .fn = fn, .arg = arg };
	struct nl_msg *msg = NULL;
	struct nl_cb *cb = NULL;
	int err, ret = 1;

	if (nl_init())
		return 1;
	msg = nlmsg_alloc();
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !cb) {
		ms_fail("out of memory, free some memory");
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, dump ? NLM_F_DUMP : 0,
			 cmd, MEMSCOPE_GENL_VERSION) ||
	    (name && nla_put_string(msg, MEMSCOPE_A_NAME, name) < 0)) {
		ms_fail("cannot build a netlink request for %s", name ? name : cmd_name(cmd));
		goto out;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &c);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &c);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &c);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &c);
	err = nl_send_auto(cmd_sock, msg);
	while (err >= 0 && !c.done)
		err = nl_recvmsgs(cmd_sock, cb);
	if (c.kerr) {
		ret = c.kerr;
	} else if (err < 0 && !c.done) {
		ms_fail("netlink %s for %s failed: %s, check that the module is still loaded",
			cmd_name(cmd), name ? name : "the module", nl_geterror(err));
	} else {
		ret = c.ret ? 1 : 0;
	}
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

/*
 * A request, its failure explained: 0, 1 (ENOENT and @optional: no such
 * thing, said by no one) or -1 (the error said).
 */
static int nl_get(uint8_t cmd, const char *name, bool dump, nl_msg_fn fn, void *arg,
		  bool optional)
{
	int r = nl_request(cmd, name, dump, fn, arg);
	char what[128];

	if (r >= 0)
		return r ? -1 : 0;
	snprintf(what, sizeof(what), "%s%s%s", cmd_name(cmd), name ? " " : "", name ? name : "");
	if (r == -EPERM || r == -EACCES) {
		fail_perm(what);
	} else if (r == -ENOENT && optional) {
		return 1;
	} else if (r == -ENOENT || r == -EOPNOTSUPP || r == -EINVAL) {
		ms_fail("the " WHERE " does not serve %s (%s), check that the module version matches this CLI (`memscope status`)",
			what, strerror(-r));
	} else {
		ms_fail("the " WHERE " failed %s: %s, check that the module is still loaded",
			what, strerror(-r));
	}
	return -1;
}

static int ignore_reply(struct nlattr *attrs, int len, void *arg)
{
	(void)attrs, (void)len, (void)arg;
	return 0;
}

const char *ms_nl_absent(void)
{
	struct nl_sock *sk;
	int id, r;

	if (!cmd_sock) {
		sk = nl_socket_alloc();
		if (!sk)
			return "out of memory";
		id = genl_connect(sk) < 0 ? -NLE_FAILURE : genl_ctrl_resolve(sk, MEMSCOPE_GENL_NAME);
		nl_socket_free(sk);
		if (id == -NLE_OBJ_NOTFOUND && ms_module_loaded())
			return "its netlink family is not in this network namespace";
		if (id == -NLE_OBJ_NOTFOUND)
			return "memscope module not loaded";
		if (id < 0)
			return "its netlink family does not answer";
	}
	r = nl_request(MEMSCOPE_CMD_GET_STATS, NULL, false, ignore_reply, NULL);
	if (r == -EPERM || r == -EACCES)
		return "its netlink family needs CAP_SYS_ADMIN";
	return r ? "its netlink family does not answer" : NULL;
}

/* ---- rendering the files ------------------------------------------------ */

struct text {
	FILE *fp;
	char *buf;
	size_t len;
	bool header;		/* a table's header line is out */
	bool stack;		/* faults_by_stack, brk_by_stack: DEPTH and FRAMES */
	bool leak;		/* memleak: its own show function */
	bool bad;		/* an attribute not as the protocol says */
};

static int text_open(struct text *t)
{
	memset(t, 0, sizeof(*t));
	t->fp = open_memstream(&t->buf, &t->len);
	if (!t->fp) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	return 0;
}

/* 0 with the text in *data, or -1 (the error said). */
static int text_close(struct text *t, const char *name, int r, char **data, size_t *len)
{
	if (fclose(t->fp) && !r) {
		ms_fail("out of memory, free some memory");
		r = -1;
	}
	if (!r && t->bad) {
		ms_fail("the " WHERE " sent %s in a form this CLI does not know, check that the module version matches this CLI (`memscope status`)",
			name);
		r = -1;
	}
	if (r) {
		free(t->buf);
		return r;
	}
	*data = t->buf;
	*len = t->len;
	return 0;
}

/* A nest's attribute of @type, or NULL. */
static struct nlattr *nest_get(struct nlattr *nest, int type)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == type)
			return a;
	return NULL;
}

static const char *nest_str(struct text *t, struct nlattr *nest, int type)
{
	struct nlattr *a = nest_get(nest, type);

	if (!a || nla_len(a) < 1 || ((char *)nla_data(a))[nla_len(a) - 1]) {
		t->bad = true;
		return "";
	}
	return nla_get_string(a);
}

static uint64_t nest_u64(struct text *t, struct nlattr *nest, int type)
{
	struct nlattr *a = nest_get(nest, type);

	if (!a || nla_len(a) != sizeof(uint64_t)) {
		t->bad = true;
		return 0;
	}
	return nla_get_u64(a);
}

static uint32_t nest_u32(struct text *t, struct nlattr *nest, int type)
{
	struct nlattr *a = nest_get(nest, type);

	if (!a || nla_len(a) != sizeof(uint32_t)) {
		t->bad = true;
		return 0;
	}
	return nla_get_u32(a);
}

/* stats: "NAME VALUE" per STAT, as module/fs.c. */
static int render_stats(struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != MEMSCOPE_A_STAT)
			continue;
		fprintf(t->fp, "%s %" PRIu64 "\n", nest_str(t, a, MEMSCOPE_A_NAME),
			nest_u64(t, a, MEMSCOPE_A_VALUE));
	}
	return 0;
}

/* probes: module/probe.c's header, then a line per PROBE. */
static int render_probes(struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	struct nlattr *a;
	int rem;

	fputs("# name target state hits missed\n", t->fp);
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != MEMSCOPE_A_PROBE)
			continue;
		fprintf(t->fp, "%s %s %s %" PRIu64 " %" PRIu64 "\n",
			nest_str(t, a, MEMSCOPE_A_NAME), nest_str(t, a, MEMSCOPE_A_TARGET),
			nest_str(t, a, MEMSCOPE_A_STATE), nest_u64(t, a, MEMSCOPE_A_HITS),
			nest_u64(t, a, MEMSCOPE_A_MISSED));
	}
	return 0;
}

/*
 * A table: HEADER once, then per ROW "[PID ]NAME N..." and, for stacks,
 * " DEPTH 0xa,0xb" or " 0 -", as module/table.c's show; memleak's rows as
 * module/memleak.c's, its site unescaped and its numbers unsigned.
 */
static void render_row(struct text *t, struct nlattr *row)
{
	struct nlattr *pid = nest_get(row, MEMSCOPE_A_PID);
	struct nlattr *cols = nest_get(row, MEMSCOPE_A_COLUMNS);
	struct nlattr *frames, *c;
	uint32_t depth, i;
	int rem, n = 0;

	if (pid)
		fprintf(t->fp, "%" PRIu32 " ", nest_u32(t, row, MEMSCOPE_A_PID));
	if (t->leak)
		fputs(nest_str(t, row, MEMSCOPE_A_NAME), t->fp);
	else
		ms_fput_escaped(nest_str(t, row, MEMSCOPE_A_NAME), t->fp);
	if (!cols) {
		t->bad = true;
		return;
	}
	nla_for_each_nested(c, cols, rem) {
		if (nla_type(c) != ++n || nla_len(c) != sizeof(uint64_t)) {
			t->bad = true;
			return;
		}
		if (t->leak)
			fprintf(t->fp, " %" PRIu64, nla_get_u64(c));
		else
			fprintf(t->fp, " %" PRId64, (int64_t)nla_get_u64(c));
	}
	if (nest_get(row, MEMSCOPE_A_DEPTH)) {
		depth = nest_u32(t, row, MEMSCOPE_A_DEPTH);
		frames = nest_get(row, MEMSCOPE_A_FRAMES);
		if (!frames || (size_t)nla_len(frames) != depth * sizeof(uint64_t)) {
			t->bad = true;
			return;
		}
		fprintf(t->fp, " %" PRIu32 " %s", depth, depth ? "" : "-");
		for (i = 0; i < depth; i++) {
			uint64_t f;

			memcpy(&f, (char *)nla_data(frames) + i * sizeof(f), sizeof(f));
			if (i)
				fputc(',', t->fp);
			ms_fput_frame(t->fp, f);
		}
	} else if (t->stack) {
		t->bad = true;
	}
	fputc('\n', t->fp);
}

static int render_table(struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		switch (nla_type(a)) {
		case MEMSCOPE_A_HEADER:
			/* Every message repeats it; the file has it once. */
			if (!t->header)
				fprintf(t->fp, "%s\n", nla_get_string(a));
			t->header = true;
			break;
		case MEMSCOPE_A_ROW:
			if (!t->header)
				t->bad = true;
			render_row(t, a);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* hist_raw/NAME: "# count N sum S", "# lo hi count", then "LO HI COUNT". */
static int render_hist(struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	uint64_t count = 0, sum = 0;
	bool has_count = false, has_sum = false;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) == MEMSCOPE_A_COUNT && nla_len(a) == sizeof(uint64_t)) {
			count = nla_get_u64(a);
			has_count = true;
		} else if (nla_type(a) == MEMSCOPE_A_SUM && nla_len(a) == sizeof(uint64_t)) {
			sum = nla_get_u64(a);
			has_sum = true;
		}
	}
	if (!has_count || !has_sum)
		t->bad = true;
	fprintf(t->fp, "# count %" PRIu64 " sum %" PRIu64 "\n# lo hi count\n", count, sum);
	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != MEMSCOPE_A_BUCKET)
			continue;
		fprintf(t->fp, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			nest_u64(t, a, MEMSCOPE_A_LO), nest_u64(t, a, MEMSCOPE_A_HI),
			nest_u64(t, a, MEMSCOPE_A_COUNT));
	}
	return 0;
}

/* version and the event rings: the file's lines, as the kernel wrote them. */
static int render_lines(struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, attrs, len, rem)
		if (nla_type(a) == MEMSCOPE_A_LINE)
			fprintf(t->fp, "%s\n", nla_get_string(a));
	return 0;
}

int ms_nl_read(const char *name, char **data, size_t *len, bool optional)
{
	struct text t;
	int r;

	if (text_open(&t))
		return -1;
	if (!strcmp(name, "stats")) {
		r = nl_get(MEMSCOPE_CMD_GET_STATS, NULL, false, render_stats, &t, optional);
	} else if (!strcmp(name, "probes")) {
		r = nl_get(MEMSCOPE_CMD_GET_PROBES, NULL, false, render_probes, &t, optional);
	} else if (!strncmp(name, "hist_raw/", 9)) {
		r = nl_get(MEMSCOPE_CMD_GET_HIST, name + 9, false, render_hist, &t, optional);
	} else {
		/*
		 * A table, or else a file the family serves as text (version,
		 * the event rings): the module says which, by ENOENT, so no
		 * list of either is kept here.
		 */
		t.leak = !strncmp(name, "memleak", 7);	/* and memleak_allocations */
		t.stack = strstr(name, "_by_stack") != NULL;
		r = nl_get(MEMSCOPE_CMD_GET_TABLE, name, true, render_table, &t, true);
		if (r > 0)
			r = nl_get(MEMSCOPE_CMD_GET_TEXT, name, true, render_lines, &t, optional);
		else if (!r && !t.header)
			t.bad = true;
	}
	if (r > 0) {
		fclose(t.fp);
		free(t.buf);
		return 1;
	}
	return text_close(&t, name, r, data, len);
}

/* ---- typed reads: the parsers' structs, straight from the attributes ---- */

/*
 * The strings of one struct, in one buffer that becomes its store: each
 * string's offset while it grows, pointers once it is whole.
 */
struct pool {
	FILE *fp;
	char *buf;
	size_t len;
	size_t *off;
	size_t n, cap;
	bool bad;		/* out of memory, or an attribute not as the protocol says */
};

static int pool_open(struct pool *p)
{
	memset(p, 0, sizeof(*p));
	p->fp = open_memstream(&p->buf, &p->len);
	if (!p->fp) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	return 0;
}

static void pool_add(struct pool *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pool_vadd(struct pool *p, const char *fmt, va_list ap)
{
	size_t *no;
	long at = ftell(p->fp);

	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		no = realloc(p->off, p->cap * sizeof(*no));
		if (!no) {
			p->bad = true;
			return;
		}
		p->off = no;
	}
	if (at < 0) {
		p->bad = true;
		return;
	}
	vfprintf(p->fp, fmt, ap);
	putc('\0', p->fp);
	p->off[p->n++] = (size_t)at;
}

static void pool_add(struct pool *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pool_vadd(p, fmt, ap);
	va_end(ap);
}

/* The strings' pointers (the caller owns p->buf as its store), or NULL. */
static char **pool_close(struct pool *p)
{
	char **v = NULL;
	size_t i;

	if (fclose(p->fp))
		p->bad = true;
	if (!p->bad)
		v = calloc(p->n ? p->n : 1, sizeof(*v));
	for (i = 0; v && i < p->n; i++)
		v[i] = p->buf + p->off[i];
	free(p->off);
	if (!v) {
		free(p->buf);
		p->buf = NULL;
	}
	return v;
}

/*
 * A table: HEADER's names, then per ROW its cells as the file gives them,
 * for printing, and the numbers and frames as the attributes give them:
 * nothing is parsed back from the text.
 */
struct table_read {
	struct pool p;
	size_t ncols, nrows;
	bool leak;		/* memleak's: unsigned columns */
	struct cellv {
		uint64_t v;
		bool is_num;
	} *cv;			/* a row's cells, in the pool's order */
	size_t ncv, cvcap;
	uint64_t *ip;		/* the rows' frames, one after another */
	size_t nip, ipcap;
	size_t *depth;		/* per row; SIZE_MAX: no stack column */
	size_t depthcap;
};

/* A row's next cell: its text in the pool, and its number if it is one. */
static void table_cell(struct table_read *r, bool is_num, uint64_t v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void table_cell(struct table_read *r, bool is_num, uint64_t v, const char *fmt, ...)
{
	struct cellv *n;
	va_list ap;

	if (r->ncv == r->cvcap) {
		r->cvcap = r->cvcap ? r->cvcap * 2 : 256;
		n = ms_reallocarray(r->cv, r->cvcap, sizeof(*n));
		if (!n) {
			r->p.bad = true;
			return;
		}
		r->cv = n;
	}
	r->cv[r->ncv].v = v;
	r->cv[r->ncv++].is_num = is_num;
	va_start(ap, fmt);
	pool_vadd(&r->p, fmt, ap);
	va_end(ap);
}

static int grow_frames(struct table_read *r, size_t d)
{
	uint64_t *n;

	if (r->nip + d <= r->ipcap)
		return 0;
	r->ipcap = (r->nip + d) * 2;
	n = ms_reallocarray(r->ip, r->ipcap, sizeof(*n));
	if (!n)
		return -1;
	r->ip = n;
	return 0;
}

static int grow_depth(struct table_read *r)
{
	size_t *n;

	if (r->nrows < r->depthcap)
		return 0;
	r->depthcap = r->depthcap ? r->depthcap * 2 : 64;
	n = ms_reallocarray(r->depth, r->depthcap, sizeof(*n));
	if (!n)
		return -1;
	r->depth = n;
	return 0;
}

static void table_row(struct table_read *r, struct nlattr *row)
{
	struct nlattr *pid = nest_get(row, MEMSCOPE_A_PID), *name = nest_get(row, MEMSCOPE_A_NAME);
	struct nlattr *cols = nest_get(row, MEMSCOPE_A_COLUMNS), *depth, *frames, *c;
	size_t first = r->p.n, i, d;
	char *stack = NULL;
	size_t slen = 0;
	FILE *sf;
	int rem, n = 0;

	if (pid && nla_len(pid) == sizeof(uint32_t))
		table_cell(r, true, nla_get_u32(pid), "%" PRIu32, nla_get_u32(pid));
	if (name && nla_len(name) > 0 && !((char *)nla_data(name))[nla_len(name) - 1])
		table_cell(r, false, 0, "%s", (char *)nla_data(name));
	else
		r->p.bad = true;
	if (!cols) {
		r->p.bad = true;
		return;
	}
	nla_for_each_nested(c, cols, rem) {
		if (nla_type(c) != ++n || nla_len(c) != sizeof(uint64_t)) {
			r->p.bad = true;
			return;
		}
		if (r->leak || (int64_t)nla_get_u64(c) >= 0)
			table_cell(r, true, nla_get_u64(c), "%" PRIu64, nla_get_u64(c));
		else
			table_cell(r, false, 0, "%" PRId64, (int64_t)nla_get_u64(c));
	}
	depth = nest_get(row, MEMSCOPE_A_DEPTH);
	if (depth) {
		frames = nest_get(row, MEMSCOPE_A_FRAMES);
		d = nla_len(depth) == sizeof(uint32_t) ? nla_get_u32(depth) : SIZE_MAX;
		if (!frames || (size_t)nla_len(frames) != d * sizeof(uint64_t)) {
			r->p.bad = true;
			return;
		}
		table_cell(r, true, d, "%zu", d);
		sf = open_memstream(&stack, &slen);
		if (!sf || grow_frames(r, d)) {
			if (sf)
				fclose(sf);
			free(stack);
			r->p.bad = true;
			return;
		}
		memcpy(r->ip + r->nip, nla_data(frames), d * sizeof(uint64_t));
		for (i = 0; i < d; i++) {
			if (i)
				fputc(',', sf);
			ms_fput_frame(sf, r->ip[r->nip + i]);
		}
		r->nip += d;
		if (fclose(sf))
			r->p.bad = true;
		table_cell(r, false, 0, "%s", d && stack ? stack : "-");
		free(stack);
	}
	if (r->p.n - first != r->ncols || grow_depth(r)) {
		r->p.bad = true;
		return;
	}
	r->depth[r->nrows++] = depth ? d : SIZE_MAX;
}

static int read_table(struct nlattr *attrs, int len, void *arg)
{
	struct table_read *r = arg;
	struct nlattr *a;
	char *h, *tok, *save = NULL;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) == MEMSCOPE_A_HEADER && !r->ncols) {
			/* "# pid comm faults major": the column names, once. */
			if (nla_len(a) < 1 || ((char *)nla_data(a))[nla_len(a) - 1] ||
			    !(h = strdup(nla_data(a)))) {
				r->p.bad = true;
				continue;
			}
			for (tok = strtok_r(h, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
				if (strcmp(tok, "#")) {
					pool_add(&r->p, "%s", tok[0] == '#' ? tok + 1 : tok);
					r->ncols++;
				}
			free(h);
		} else if (nla_type(a) == MEMSCOPE_A_ROW) {
			if (!r->ncols)
				r->p.bad = true;
			else
				table_row(r, a);
		}
	}
	return 0;
}

int ms_nl_load_table(const char *name, struct ms_rows *t, bool optional)
{
	struct table_read r = { .leak = !strncmp(name, "memleak", 7) };
	size_t i, at = 0;
	char **v;
	int ret;

	memset(t, 0, sizeof(*t));
	if (pool_open(&r.p))
		return -1;
	ret = nl_get(MEMSCOPE_CMD_GET_TABLE, name, true, read_table, &r, optional);
	if (!ret && !r.ncols)
		r.p.bad = true;
	v = pool_close(&r.p);
	if (!ret && r.ncv != r.nrows * r.ncols)
		r.p.bad = true;
	if (ret || !v || r.p.bad) {
		free(v);
		free(r.p.buf);
		free(r.cv);
		free(r.ip);
		free(r.depth);
		if (!ret)
			ms_fail("the " WHERE " sent %s in a form this CLI does not know, check that the module version matches this CLI (`memscope status`)",
				name);
		return ret > 0 ? 1 : -1;
	}
	t->ncols = r.ncols;
	t->nrows = r.nrows;
	t->cols = malloc(r.ncols * sizeof(*t->cols));
	t->cells = malloc((r.nrows && r.ncols ? r.nrows * r.ncols : 1) * sizeof(*t->cells));
	t->store = r.p.buf;
	t->frames = r.ip;
	if (!t->cols || !t->cells || ms_table_alloc_typed(t, r.nrows && r.depth[0] != SIZE_MAX)) {
		free(v);
		free(r.cv);
		free(r.depth);
		ms_table_free(t);
		ms_fail("out of memory, free some memory");
		return -1;
	}
	memcpy(t->cols, v, r.ncols * sizeof(*v));
	memcpy(t->cells, v + r.ncols, r.nrows * r.ncols * sizeof(*v));
	for (i = 0; i < r.ncv; i++) {
		t->num[i] = r.cv[i].v;
		t->is_num[i] = r.cv[i].is_num;
	}
	for (i = 0; t->stack && i < r.nrows; i++) {
		t->stack[i].ip = r.ip + at;
		t->stack[i].n = r.depth[i] == SIZE_MAX ? 0 : r.depth[i];
		at += t->stack[i].n;
	}
	free(v);
	free(r.cv);
	free(r.depth);
	return 0;
}

/* stats: a counter per STAT. */
struct stats_read {
	struct pool p;
	uint64_t *vals;
	size_t n, cap;
};

static int read_stats(struct nlattr *attrs, int len, void *arg)
{
	struct stats_read *r = arg;
	struct nlattr *a, *name, *val;
	uint64_t *nv;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != MEMSCOPE_A_STAT)
			continue;
		name = nest_get(a, MEMSCOPE_A_NAME);
		val = nest_get(a, MEMSCOPE_A_VALUE);
		if (!name || nla_len(name) < 1 || ((char *)nla_data(name))[nla_len(name) - 1] ||
		    !val || nla_len(val) != sizeof(uint64_t)) {
			r->p.bad = true;
			continue;
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 64;
			nv = realloc(r->vals, r->cap * sizeof(*nv));
			if (!nv) {
				r->p.bad = true;
				return -1;
			}
			r->vals = nv;
		}
		pool_add(&r->p, "%s", (char *)nla_data(name));
		r->vals[r->n++] = nla_get_u64(val);
	}
	return 0;
}

int ms_nl_load_stats(struct ms_counters *st)
{
	struct stats_read r = { .n = 0 };
	char **v;
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	if (pool_open(&r.p))
		return -1;
	ret = nl_get(MEMSCOPE_CMD_GET_STATS, NULL, false, read_stats, &r, false);
	v = pool_close(&r.p);
	if (!ret && v)
		st->v = calloc(r.n ? r.n : 1, sizeof(*st->v));
	if (ret || !v || !st->v) {
		free(v);
		free(r.vals);
		free(r.p.buf);
		if (!ret)
			ms_fail("the " WHERE " sent stats in a form this CLI does not know, check that the module version matches this CLI (`memscope status`)");
		return -1;
	}
	for (i = 0; i < r.n; i++) {
		st->v[i].key = v[i];
		st->v[i].value = r.vals[i];
	}
	st->n = r.n;
	st->store = r.p.buf;
	free(v);
	free(r.vals);
	return 0;
}

/* probes: NAME, TARGET, STATE, HITS, MISSED per PROBE. */
struct probes_read {
	struct pool p;
	uint64_t *hm;		/* hits, missed per probe */
	size_t n, cap;
};

static int read_probes(struct nlattr *attrs, int len, void *arg)
{
	static const int strs[] = { MEMSCOPE_A_NAME, MEMSCOPE_A_TARGET, MEMSCOPE_A_STATE };
	struct probes_read *r = arg;
	struct nlattr *a, *x, *hits, *missed;
	uint64_t *nv;
	size_t i;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != MEMSCOPE_A_PROBE)
			continue;
		hits = nest_get(a, MEMSCOPE_A_HITS);
		missed = nest_get(a, MEMSCOPE_A_MISSED);
		if (!hits || nla_len(hits) != sizeof(uint64_t) || !missed ||
		    nla_len(missed) != sizeof(uint64_t)) {
			r->p.bad = true;
			continue;
		}
		for (i = 0; i < 3; i++) {
			x = nest_get(a, strs[i]);
			if (!x || nla_len(x) < 1 || ((char *)nla_data(x))[nla_len(x) - 1])
				break;
		}
		if (i < 3) {
			r->p.bad = true;
			continue;
		}
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 64;
			nv = realloc(r->hm, r->cap * 2 * sizeof(*nv));
			if (!nv) {
				r->p.bad = true;
				return -1;
			}
			r->hm = nv;
		}
		for (i = 0; i < 3; i++)
			pool_add(&r->p, "%s", (char *)nla_data(nest_get(a, strs[i])));
		r->hm[2 * r->n] = nla_get_u64(hits);
		r->hm[2 * r->n + 1] = nla_get_u64(missed);
		r->n++;
	}
	return 0;
}

int ms_nl_load_probes(struct ms_probe_lines *p, bool optional)
{
	struct probes_read r = { .n = 0 };
	char **v;
	size_t i;
	int ret;

	memset(p, 0, sizeof(*p));
	if (pool_open(&r.p))
		return -1;
	ret = nl_get(MEMSCOPE_CMD_GET_PROBES, NULL, false, read_probes, &r, optional);
	v = pool_close(&r.p);
	if (!ret && v)
		p->v = calloc(r.n ? r.n : 1, sizeof(*p->v));
	if (ret || !v || !p->v) {
		free(v);
		free(r.hm);
		free(r.p.buf);
		if (!ret)
			ms_fail("the " WHERE " sent probes in a form this CLI does not know, check that the module version matches this CLI (`memscope status`)");
		return ret > 0 ? 1 : -1;
	}
	for (i = 0; i < r.n; i++) {
		p->v[i].name = v[3 * i];
		p->v[i].target = v[3 * i + 1];
		ms_probe_set_state(&p->v[i], v[3 * i + 2]);
		p->v[i].hits = r.hm[2 * i];
		p->v[i].missed = r.hm[2 * i + 1];
	}
	p->n = r.n;
	p->store = r.p.buf;
	free(v);
	free(r.hm);
	return 0;
}

/*
 * hist_raw/NAME: COUNT and SUM, and per BUCKET its SLOT; a module older
 * than SLOT gives only the bounds, which name one slot exactly.
 */
static int read_hist(struct nlattr *attrs, int len, void *arg)
{
	struct ms_buckets *h = arg;
	bool count = false, sum = false;
	struct nlattr *a;
	int rem, slot;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) == MEMSCOPE_A_COUNT && nla_len(a) == sizeof(uint64_t)) {
			h->count = nla_get_u64(a);
			count = true;
		} else if (nla_type(a) == MEMSCOPE_A_SUM && nla_len(a) == sizeof(uint64_t)) {
			h->sum = nla_get_u64(a);
			sum = true;
		} else if (nla_type(a) == MEMSCOPE_A_BUCKET) {
			struct nlattr *lo = nest_get(a, MEMSCOPE_A_LO), *hi = nest_get(a, MEMSCOPE_A_HI);
			struct nlattr *n = nest_get(a, MEMSCOPE_A_COUNT), *s = nest_get(a, MEMSCOPE_A_SLOT);

			slot = -1;
			if (s && nla_len(s) == 4 && nla_get_u32(s) < MEMSCOPE_HIST_BUCKETS)
				slot = (int)nla_get_u32(s);
			else if (!s && lo && hi && nla_len(lo) == 8 && nla_len(hi) == 8)
				slot = memscope_hist_index(nla_get_u64(lo), nla_get_u64(hi));
			if (slot < 0 || !n || nla_len(n) != 8 || h->slot[slot]) {
				snprintf(h->diag.msg, sizeof(h->diag.msg), "a bucket not as the protocol says");
				continue;
			}
			h->slot[slot] = nla_get_u64(n);
		}
	}
	h->has_totals = count && sum;
	if (!h->has_totals)
		snprintf(h->diag.msg, sizeof(h->diag.msg), "no count and sum");
	return 0;
}

int ms_nl_load_hist(const char *name, struct ms_buckets *h, bool optional)
{
	int ret;

	memset(h, 0, sizeof(*h));
	ret = nl_get(MEMSCOPE_CMD_GET_HIST, name, false, read_hist, h, optional);
	if (!ret && h->diag.msg[0]) {
		ms_fail("the " WHERE " sent histogram %s in a form this CLI does not know (%s), check that the module version matches this CLI (`memscope status`)",
			name, h->diag.msg);
		return -1;
	}
	return ret > 0 ? 1 : ret;
}

struct hist_names {
	char **v;
	int n;
	bool nomem;
};

static int collect_hists(struct nlattr *attrs, int len, void *arg)
{
	struct hist_names *h = arg;
	struct nlattr *a;
	char **nv;
	int rem;

	nla_for_each_attr(a, attrs, len, rem) {
		if (nla_type(a) != MEMSCOPE_A_NAME)
			continue;
		nv = realloc(h->v, (size_t)(h->n + 1) * sizeof(*nv));
		if (!nv || !(nv[h->n] = strdup(nla_get_string(a)))) {
			h->v = nv ? nv : h->v;
			h->nomem = true;
			return -1;
		}
		h->v = nv;
		h->n++;
	}
	return 0;
}

int ms_nl_list_hists(char ***names)
{
	struct hist_names h = { 0 };
	int r = nl_get(MEMSCOPE_CMD_GET_HISTS, NULL, false, collect_hists, &h, false);

	if (r || h.nomem) {
		if (h.nomem)
			ms_fail("out of memory, free some memory");
		while (h.n--)
			free(h.v[h.n]);
		free(h.v);
		*names = NULL;
		return -1;
	}
	*names = h.v;
	return h.n;
}

/* ---- the events stream --------------------------------------------------- */

/*
 * Lines as the events file gives them: "TYPE FIELDS" per event (and per
 * site of memleak's reports, which no file has), and
 * "lost count=N" before the next event when some were lost.  netlink says
 * only that a socket overran (ENOBUFS), not how much; the module counts
 * what its listeners missed in netlink_dropped (this socket's overruns
 * too, as it sets NETLINK_BROADCAST_ERROR), so a loss is that counter's
 * growth, looked at when the socket overran or the sequence skipped.
 */
struct ms_nl_stream {
	struct nl_sock *sk;
	int fd;
	int family;
	char *buf;
	size_t cap;
	size_t len, off;	/* the datagram in buf, and the next message */
	uint64_t dropped;	/* netlink_dropped when last looked at */
	uint64_t next_seq;	/* the sequence number expected next */
	bool have_seq;
	bool overrun;		/* ENOBUFS not yet matched by netlink_dropped */
	int overrun_tries;
	bool closing;		/* stopped: the counter looked at once more */
	const struct ms_evfmt *format;	/* how to render events; NULL: use LINE */
};

/*
 * A message's event type is its NAME.  Modules from before NAME was sent
 * with each event name it by the command alone, as these four, which are
 * all they have: a new group needs no line here.
 */
static const struct {
	uint8_t cmd;
	const char *type;
} ms_unnamed_events[] = {
	{ MEMSCOPE_CMD_EVENT_OOM, "oom" },
	{ MEMSCOPE_CMD_EVENT_RECLAIM, "direct_reclaim" },
	{ MEMSCOPE_CMD_EVENT_COMPACTION, "compaction" },
	{ MEMSCOPE_CMD_EVENT_MEMLEAK, "memleak" },
};

/* The family's multicast groups, as the controller lists them. */
struct groups {
	int id[32];
	char name[32][GENL_NAMSIZ];
	size_t n;
	bool bad;
};

static int read_groups(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *g = genlmsg_hdr(nlmsg_hdr(msg));
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *grp, *ga[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct groups *gs = arg;
	int rem;

	if (nla_parse(tb, CTRL_ATTR_MAX, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), NULL))
		return NL_SKIP;
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return NL_SKIP;
	nla_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS], rem) {
		if (nla_parse_nested(ga, CTRL_ATTR_MCAST_GRP_MAX, grp, NULL) ||
		    !ga[CTRL_ATTR_MCAST_GRP_ID] || !ga[CTRL_ATTR_MCAST_GRP_NAME] ||
		    gs->n == sizeof(gs->id) / sizeof(gs->id[0])) {
			gs->bad = true;
			continue;
		}
		gs->id[gs->n] = (int)nla_get_u32(ga[CTRL_ATTR_MCAST_GRP_ID]);
		nla_strlcpy(gs->name[gs->n], ga[CTRL_ATTR_MCAST_GRP_NAME], GENL_NAMSIZ);
		gs->n++;
	}
	return NL_OK;
}

static int family_groups(struct groups *gs)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *msg = nlmsg_alloc();
	int err = -NLE_NOMEM;

	memset(gs, 0, sizeof(*gs));
	if (!sk || !msg)
		goto out;
	err = genl_connect(sk);
	if (err < 0)
		goto out;
	nl_socket_enable_msg_peek(sk);
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
			 CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, MEMSCOPE_GENL_NAME) < 0) {
		err = -NLE_NOMEM;
		goto out;
	}
	err = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, read_groups, gs);
	if (err >= 0)
		err = nl_send_auto(sk, msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	if (err >= 0)
		err = nl_wait_for_ack(sk);
out:
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (err < 0)
		ms_fail("cannot list the " WHERE "'s groups: %s, check that the module is still loaded",
			nl_geterror(err));
	else if (gs->bad)
		ms_fail("the " WHERE "'s groups are not as this CLI knows them, check that the module version matches this CLI (`memscope status`)");
	return err < 0 || gs->bad ? -1 : 0;
}

static int load_dropped(uint64_t *v)
{
	struct ms_counters st;

	if (ms_load_stats(&st))
		return -1;
	*v = ms_stats_val(&st, "netlink_dropped");
	ms_stats_free(&st);
	return 0;
}

/*
 * Room for the events of a burst while this reader is not running: the
 * hosts it watches are short of memory and CPU, and their reclaims come
 * in hundreds a second, each a message of its own.  SO_RCVBUFFORCE, as
 * udevadm monitor does, goes past net.core.rmem_max with CAP_NET_ADMIN;
 * the groups ask only CAP_SYS_ADMIN, so without it, SO_RCVBUF, which
 * rmem_max caps, and a warning.  The buffer costs only what waits in it.
 */
static void stream_rcvbuf(int fd, uint64_t want, bool asked)
{
	int v = want > INT_MAX / 2 ? INT_MAX / 2 : (int)want, got = 0;
	socklen_t len = sizeof(got);

	if (!setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	/* The kernel doubles the size asked, for its bookkeeping. */
	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) && got / 2 < v)
		print_warn("the netlink socket's buffer holds %d bytes, not the %d %s: net.core.rmem_max caps it without CAP_NET_ADMIN, and a burst of events can overrun it (said as lost); raise it (sysctl -w net.core.rmem_max=%d) or run monitor with CAP_NET_ADMIN",
			   got / 2, v, asked ? "asked" : "monitor asks for", v);
}

int ms_nl_stream_open(struct ms_nl_stream **out, uint64_t rcvbuf)
{
	struct ms_nl_stream *s = calloc(1, sizeof(*s));
	int one = 1, ret = -1;
	struct groups gs;
	size_t i;

	*out = NULL;
	if (!s) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	s->cap = 64 << 10;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		ms_fail("out of memory, free some memory");
		goto fail;
	}
	s->sk = family_connect(&s->family);
	if (!s->sk)
		goto fail;
	nl_socket_disable_seq_check(s->sk);
	s->fd = nl_socket_get_fd(s->sk);
	if (family_groups(&gs))
		goto fail;
	/*
	 * None at all: this kernel cannot keep groups to CAP_SYS_ADMIN, so
	 * the module registers none (docs/netlink.md).  The caller reads the
	 * events file; a command tells first whether this caller may read the
	 * family at all, so that a refusal is said in netlink's words, as
	 * where the groups exist.
	 */
	if (!gs.n) {
		if (nl_get(MEMSCOPE_CMD_GET_STATS, NULL, false, ignore_reply, NULL, false))
			goto fail;
		ret = 1;
		goto fail;
	}
	/* Every group: each event says its type (NAME), events_format the rest. */
	for (i = 0; i < gs.n; i++) {
		if (setsockopt(s->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &gs.id[i],
			       sizeof(gs.id[i]))) {
			if (errno == EPERM || errno == EACCES) {
				char what[64];

				snprintf(what, sizeof(what), "joining group \"%s\"", gs.name[i]);
				fail_perm(what);
			} else {
				ms_fail("cannot join the " WHERE "'s group \"%s\": %s",
					gs.name[i], strerror(errno));
			}
			goto fail;
		}
	}
	/* Overruns counted in netlink_dropped, and room so there are few. */
	setsockopt(s->fd, SOL_NETLINK, NETLINK_BROADCAST_ERROR, &one, sizeof(one));
	stream_rcvbuf(s->fd, rcvbuf ? rcvbuf : MS_NL_RCVBUF, rcvbuf != 0);
	if (load_dropped(&s->dropped))
		goto fail;
	s->format = ms_events_format();
	*out = s;
	return 0;
fail:
	ms_nl_stream_close(s);
	return ret;
}

void ms_nl_stream_close(struct ms_nl_stream *s)
{
	if (!s)
		return;
	if (s->sk)
		nl_socket_free(s->sk);
	free(s->buf);
	free(s);
}

/* The next datagram into buf: 1, 0 (stop or nothing within the wait), -1. */
static int receive(struct ms_nl_stream *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	ssize_t r;
	char *nb;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	/* An overrun is told once, to whichever call comes first: the peek. */
	r = recv(s->fd, s->buf, s->cap, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	if (r > 0 && (size_t)r > s->cap) {
		nb = realloc(s->buf, (size_t)r);
		if (!nb) {
			ms_fail("out of memory, free some memory");
			return -1;
		}
		s->buf = nb;
		s->cap = (size_t)r;
	}
	if (r >= 0)
		r = recv(s->fd, s->buf, s->cap, MSG_DONTWAIT);
	if (r < 0) {
		if (errno == ENOBUFS) {
			s->overrun = true;
			s->overrun_tries = 0;
			return 0;
		}
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		ms_fail("cannot receive from the " WHERE ": %s, check that the module is still loaded",
			strerror(errno));
		return -1;
	}
	s->len = (size_t)r;
	s->off = 0;
	return 1;
}

/*
 * An event from its attributes, typed by events_format: each field the
 * format gives an attribute, in the format's order; one without its
 * attribute is "-" (not known), a bool without its flag 0.  Into @out as
 * ms_record_from_strings() takes them.
 */
static void event_fields(const struct ms_evfmt_type *t, struct nlattr *attrs, int attrlen,
			 FILE *out)
{
	struct nlattr *by[256] = { NULL }, *a;
	const struct ms_evfmt_field *f;
	uint64_t v;
	size_t i;
	int rem;

	nla_for_each_attr(a, attrs, attrlen, rem)
		if (nla_type(a) < 256)
			by[nla_type(a)] = a;
	for (i = 0; i < t->n; i++) {
		f = &t->f[i];
		if (!f->attr)
			continue;
		a = f->attr < 256 ? by[f->attr] : NULL;
		fprintf(out, "%s%c", f->name, 0);
		if (f->kind == MS_EVK_BOOL) {
			fputs(a ? "1" : "0", out);
		} else if (f->kind == MS_EVK_STR) {
			if (a && nla_len(a) > 0 && !((char *)nla_data(a))[nla_len(a) - 1])
				fputs(nla_data(a), out);
			else
				fputs("-", out);
		} else if (a && (nla_len(a) == 4 || nla_len(a) == 8)) {
			if (nla_len(a) == 4)
				v = f->kind == MS_EVK_INT ? (uint64_t)(int64_t)(int32_t)nla_get_u32(a) :
					nla_get_u32(a);
			else
				v = nla_get_u64(a);
			if (f->kind == MS_EVK_INT)
				fprintf(out, "%" PRId64, (int64_t)v);
			else if (f->kind == MS_EVK_HEX && v)
				fprintf(out, "%#" PRIx64, v);
			else
				fprintf(out, "%" PRIu64, v);
		} else {
			fputs("-", out);
		}
		putc(0, out);
	}
}

/* A record from strings written by @fill (type first): 0 or -1. */
static int record_of(struct ms_record *rec, const char *type,
		     void (*fill)(FILE *out, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t size;
	FILE *out = open_memstream(&buf, &size);

	if (!out) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	fprintf(out, "%s%c", type, 0);
	fill(out, arg);
	if (fclose(out) || ms_record_from_strings(rec, buf, size)) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	return 0;
}

struct event_msg {
	const struct ms_evfmt_type *t;
	struct genlmsghdr *g;
};

static void fill_event(FILE *out, const void *arg)
{
	const struct event_msg *m = arg;

	event_fields(m->t, genlmsg_attrdata(m->g, 0), genlmsg_attrlen(m->g, 0), out);
}

static void fill_lost(FILE *out, const void *arg)
{
	fprintf(out, "count%c%s%c", 0, (const char *)arg, 0);
}

/* A "lost" record with @count. */
static int lost_record(struct ms_record *rec, const char *count)
{
	return record_of(rec, "lost", fill_lost, count) ? -1 : 1;
}

/* "lost count=N" if netlink_dropped grew; 1 if it did, 0 if not, -1. */
static int check_lost(struct ms_nl_stream *s, struct ms_record *rec)
{
	char count[24];
	uint64_t now;

	if (load_dropped(&now))
		return -1;
	if (now <= s->dropped)
		return 0;
	snprintf(count, sizeof(count), "%" PRIu64, now - s->dropped);
	s->dropped = now;
	s->overrun = false;
	return lost_record(rec, count);
}

/*
 * The event a message carries, into *rec: 1, 0 for a message that is no
 * event (or one this CLI cannot read, said once), -1.
 */
static int event_record(struct ms_nl_stream *s, struct nlmsghdr *h, uint64_t *seq,
			bool *has_seq, struct ms_record *rec)
{
	struct event_msg m = { NULL, NULL };
	struct nlattr *a;
	const char *type = NULL, *fields = NULL;
	char *line;
	size_t i;
	int rem, r;

	if (h->nlmsg_type != s->family || !genlmsg_valid_hdr(h, 0))
		return 0;
	m.g = genlmsg_hdr(h);
	*has_seq = false;
	nla_for_each_attr(a, genlmsg_attrdata(m.g, 0), genlmsg_attrlen(m.g, 0), rem) {
		if (nla_type(a) == MEMSCOPE_A_LINE && nla_len(a) > 0 &&
		    !((char *)nla_data(a))[nla_len(a) - 1])
			fields = nla_data(a);
		else if (nla_type(a) == MEMSCOPE_A_NAME && nla_len(a) > 0 &&
			 !((char *)nla_data(a))[nla_len(a) - 1])
			type = nla_data(a);
		else if (nla_type(a) == MEMSCOPE_A_SEQ && nla_len(a) == sizeof(uint64_t)) {
			*seq = nla_get_u64(a);
			*has_seq = true;
		}
	}
	for (i = 0; !type && i < sizeof(ms_unnamed_events) / sizeof(ms_unnamed_events[0]); i++)
		if (ms_unnamed_events[i].cmd == m.g->cmd)
			type = ms_unnamed_events[i].type;
	if (!type)
		return 0;
	m.t = ms_evfmt_type(s->format, type);
	if (m.t)
		return record_of(rec, type, fill_event, &m) ? -1 : 1;
	/* A module older than events_format: its LINE, as the file's. */
	if (!fields) {
		static bool warned;

		if (!warned)
			print_warn("%s events from the " WHERE " are in neither events_format nor a LINE: the module does not match this CLI (`memscope status`), they are skipped",
				   type);
		warned = true;
		return 0;
	}
	if (asprintf(&line, "%s %s", type, fields) < 0) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	r = ms_parse_record(line, strlen(line), true, rec);
	free(line);
	return r ? 0 : 1;
}

/* The stream's number an event message carries, if it carries one. */
static bool msg_seq(struct ms_nl_stream *s, struct nlmsghdr *h, uint64_t *seq)
{
	struct nlattr *a;

	if (h->nlmsg_type != s->family || !genlmsg_valid_hdr(h, 0))
		return false;
	a = nla_find(genlmsg_attrdata(genlmsg_hdr(h), 0), genlmsg_attrlen(genlmsg_hdr(h), 0),
		     MEMSCOPE_A_SEQ);
	if (!a || nla_len(a) != sizeof(uint64_t))
		return false;
	*seq = nla_get_u64(a);
	return true;
}

int ms_nl_stream_next(struct ms_nl_stream *s, struct ms_record *rec)
{
	struct nlmsghdr *h;
	uint64_t seq = 0;
	bool has_seq;
	int r;

	for (;;) {
		/*
		 * Losses that no later event revealed (the last ones before
		 * the stop) are told before the end.
		 */
		if (ms_stop && !s->closing) {
			s->closing = true;
			r = check_lost(s, rec);
			if (r)
				return r;
		}
		if (ms_stop)
			return 0;
		while (s->off < s->len) {
			h = (struct nlmsghdr *)(s->buf + s->off);
			if (!nlmsg_ok(h, (int)(s->len - s->off))) {
				s->off = s->len;
				break;
			}
			/*
			 * A skipped number is an event some reader lost, or one
			 * no group carries (mmap, shm): the counter tells, and
			 * this event comes at the next call, after the loss.
			 */
			if (s->have_seq && msg_seq(s, h, &seq) && seq != s->next_seq) {
				s->next_seq = seq;
				r = check_lost(s, rec);
				if (r)
					return r;
			}
			s->off += NLMSG_ALIGN(h->nlmsg_len);
			r = event_record(s, h, &seq, &has_seq, rec);
			if (r < 0)
				return -1;
			if (r == 0)
				continue;
			if (has_seq) {
				s->next_seq = seq + 1;
				s->have_seq = true;
			}
			return 1;
		}
		/*
		 * An overrun: the module counts the message it could not
		 * queue right after netlink refuses it; give it a moment.
		 */
		if (s->overrun) {
			r = check_lost(s, rec);
			if (r)
				return r;
			if (++s->overrun_tries >= 20) {
				s->overrun = false;
				return lost_record(rec, "unknown");
			}
		}
		r = receive(s, s->overrun ? 50 : 250);
		if (r < 0)
			return -1;
	}
}

#endif /* MS_HAVE_LIBNL */
