// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family `memscope`: a second door to the data the
 * files show, and the events stream as multicast groups.
 * Copyright (C) 2026 The memscope authors.
 *
 * Commands read through the same code as the files (ms_stats_snapshot(),
 * ms_probes_for_each(), ms_table_snapshot(), ms_hist_read()) and change
 * state through the same calls as `control`.  Every command and every group
 * needs CAP_SYS_ADMIN: the files are root's alone, and so is this door.
 *
 * Events reach the groups from process context only.  Probe context does
 * what it did before, a copy into the stream ring and an irq_work; that
 * irq_work kicks a work item, which reads the ring from its own cursor,
 * builds the messages and multicasts them.  What it could not send (the
 * ring overwritten first, no memory, the full socket of a listener that
 * set NETLINK_BROADCAST_ERROR: netlink tells no one else's) is counted in
 * netlink_dropped; no listener at all is no loss.  OOM kills overwritten in
 * the stream come from the oom ring, as for any reader (events.c).
 *
 * memleak keeps no events: its group gets a report, the top sites of one
 * snapshot, every memleak_report_ms, from a delayed work of its own.
 */
#include <linux/capability.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "memscope.h"
#include "uapi/memscope_genl.h"

/* Replies grow to this before a command gives up with -EMSGSIZE. */
#define MS_GENL_REPLY_MAX (64 * 1024)
/* An event's line, as the events file's reader holds one. */
#define MS_GENL_LINE_MAX 1024
/* A MS_FK_TEXT field's words, at most, with their NUL. */
#define MS_GENL_FIELD_TEXT_MAX 256

static const struct nla_policy ms_genl_policy[MEMSCOPE_A_MAX + 1] = {
	[MEMSCOPE_A_NAME] = { .type = NLA_NUL_STRING, .len = MS_NAME_LEN - 1 },
};

/*
 * The multicast groups, each added by the family that sends to it, as it
 * starts (ms_genl_group_add()): its event type's, memleak's reports.
 */
#define MS_GENL_MAX_GROUPS 8
static struct genl_multicast_group ms_genl_groups[MS_GENL_MAX_GROUPS];
static unsigned int ms_genl_nr_groups;

int ms_genl_group_add(const char *name)
{
	struct genl_multicast_group *g;

	if (ms_genl_nr_groups == ARRAY_SIZE(ms_genl_groups)) {
		pr_err("memscope: netlink group %s: more than MS_GENL_MAX_GROUPS (%zu); raise it\n",
		       name, ARRAY_SIZE(ms_genl_groups));
		return -ENOSPC;
	}
	g = &ms_genl_groups[ms_genl_nr_groups];
	*g = (struct genl_multicast_group){ MS_GENL_MCGRP_ADMIN };
	strscpy(g->name, name, sizeof(g->name));
	return ms_genl_nr_groups++;
}

static struct genl_family ms_genl_family;

/*
 * GENL_ADMIN_PERM lets the core refuse a caller without CAP_NET_ADMIN;
 * what the module itself asks for is CAP_SYS_ADMIN, of the socket's opener.
 */
static bool ms_genl_allowed(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

/*
 * A reply built by @fill, in a buffer that doubles until it fits: a
 * reply's size depends on names the module learns at run time.
 */
static int ms_genl_reply(struct genl_info *info, u8 cmd,
			 int (*fill)(struct sk_buff *skb, void *arg), void *arg)
{
	size_t size = NLMSG_GOODSIZE;
	struct sk_buff *skb;
	void *hdr;
	int err;

	for (;;) {
		skb = genlmsg_new(size, GFP_KERNEL);
		if (!skb)
			return -ENOMEM;
		hdr = genlmsg_put_reply(skb, info, &ms_genl_family, 0, cmd);
		err = hdr ? fill(skb, arg) : -EMSGSIZE;
		if (!err) {
			genlmsg_end(skb, hdr);
			return genlmsg_reply(skb, info);
		}
		nlmsg_free(skb);
		if (err != -EMSGSIZE || size >= MS_GENL_REPLY_MAX)
			return err;
		size *= 2;
	}
}

/* The request's name, or NULL; the policy made it a bounded C string. */
static const char *ms_genl_name(struct genl_info *info)
{
	const struct nlattr *a = info->attrs[MEMSCOPE_A_NAME];

	return a ? nla_data(a) : NULL;
}

static int ms_genl_fill_stats(struct sk_buff *skb, void *arg)
{
	const struct ms_stats_snap *stats = arg;
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < stats->n; i++) {
		nest = nla_nest_start(skb, MEMSCOPE_A_STAT);
		if (!nest || nla_put_string(skb, MEMSCOPE_A_NAME, stats->e[i].name) ||
		    ms_nla_put_u64(skb, MEMSCOPE_A_VALUE, stats->e[i].v, MEMSCOPE_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int ms_genl_get_stats(struct sk_buff *skb, struct genl_info *info)
{
	struct ms_stats_snap *stats;
	int err;

	if (!ms_genl_allowed(skb))
		return -EPERM;
	stats = ms_stats_snapshot();
	if (!stats)
		return -ENOMEM;
	err = ms_genl_reply(info, MEMSCOPE_CMD_GET_STATS, ms_genl_fill_stats, stats);
	kfree(stats);
	return err;
}

/* A string attribute of two parts, "unavailable:" and its reason. */
static int ms_nla_put_string2(struct sk_buff *skb, int type, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	struct nlattr *attr = nla_reserve(skb, type, la + lb + 1);

	if (!attr)
		return -EMSGSIZE;
	memcpy(nla_data(attr), a, la);
	memcpy((char *)nla_data(attr) + la, b, lb + 1);
	return 0;
}

static int ms_genl_put_probe(const struct ms_probe_state *st, void *arg)
{
	struct sk_buff *skb = arg;
	struct nlattr *nest = nla_nest_start(skb, MEMSCOPE_A_PROBE);

	if (!nest || nla_put_string(skb, MEMSCOPE_A_NAME, st->name) ||
	    nla_put_string(skb, MEMSCOPE_A_TARGET, st->target) ||
	    ms_nla_put_string2(skb, MEMSCOPE_A_STATE, st->state, st->reason) ||
	    ms_nla_put_u64(skb, MEMSCOPE_A_HITS, st->hits, MEMSCOPE_A_PAD) ||
	    ms_nla_put_u64(skb, MEMSCOPE_A_MISSED, st->missed, MEMSCOPE_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int ms_genl_fill_probes(struct sk_buff *skb, void *arg)
{
	return ms_probes_for_each(ms_genl_put_probe, skb);
}

static int ms_genl_get_probes(struct sk_buff *skb, struct genl_info *info)
{
	if (!ms_genl_allowed(skb))
		return -EPERM;
	return ms_genl_reply(info, MEMSCOPE_CMD_GET_PROBES, ms_genl_fill_probes, NULL);
}

struct ms_genl_hist {
	struct ms_hist *h;
	struct ms_hist_cpu cur;
};

static int ms_genl_fill_hist(struct sk_buff *skb, void *arg)
{
	const struct ms_genl_hist *gh = arg;
	struct nlattr *nest;
	u64 count = 0;
	int i;

	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
		count += gh->cur.bucket[i];
	if (nla_put_string(skb, MEMSCOPE_A_NAME, gh->h->name) ||
	    ms_nla_put_u64(skb, MEMSCOPE_A_COUNT, count, MEMSCOPE_A_PAD) ||
	    ms_nla_put_u64(skb, MEMSCOPE_A_SUM, gh->cur.sum, MEMSCOPE_A_PAD))
		return -EMSGSIZE;
	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++) {
		if (!gh->cur.bucket[i])
			continue;
		nest = nla_nest_start(skb, MEMSCOPE_A_BUCKET);
		if (!nest ||
		    ms_nla_put_u64(skb, MEMSCOPE_A_LO, memscope_hist_lo(i), MEMSCOPE_A_PAD) ||
		    ms_nla_put_u64(skb, MEMSCOPE_A_HI, memscope_hist_hi(i), MEMSCOPE_A_PAD) ||
		    ms_nla_put_u64(skb, MEMSCOPE_A_COUNT, gh->cur.bucket[i], MEMSCOPE_A_PAD) ||
		    nla_put_u32(skb, MEMSCOPE_A_SLOT, i))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int ms_genl_get_hist(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = ms_genl_name(info);
	struct ms_genl_hist *gh;
	struct ms_hist *h;
	int err;

	if (!ms_genl_allowed(skb))
		return -EPERM;
	if (!name)
		return -EINVAL;
	h = ms_hist_find(name);
	if (!h)
		return -ENOENT;
	gh = ms_self_alloc(kmalloc(sizeof(*gh), GFP_KERNEL));
	if (!gh)
		return -ENOMEM;
	gh->h = h;
	ms_hist_read(h, &gh->cur);
	err = ms_genl_reply(info, MEMSCOPE_CMD_GET_HIST, ms_genl_fill_hist, gh);
	kfree(gh);
	return err;
}

/*
 * A dump's MEMSCOPE_A_NAME, a NUL-terminated string of at most
 * MS_NAME_LEN bytes, or NULL: before 5.2 the core does not validate a
 * dump's attributes.
 */
static const char *ms_genl_dump_name(const struct netlink_callback *cb)
{
	const struct nlattr *a = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, MEMSCOPE_A_NAME);

	if (!a || !nla_len(a) || nla_len(a) > MS_NAME_LEN ||
	    !memchr(nla_data(a), '\0', nla_len(a)))
		return NULL;
	return nla_data(a);
}

/*
 * A dump message that took items [cb->args[1], @next) of @n: ended, with
 * the dump's place kept in cb->args[1] and [2] set, or cancelled when not
 * even one item fits an empty message (it never will).
 */
static int ms_genl_dump_end(struct sk_buff *skb, struct netlink_callback *cb, void *hdr,
			    unsigned long next, unsigned long n)
{
	if (next == cb->args[1] && next < n) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	cb->args[1] = next;
	cb->args[2] = 1;
	return skb->len;
}

/*
 * GET_TABLE, a dump of a table or a view: one snapshot at the first call,
 * as one open of the file takes, kept until .done.  cb->args[0] is the
 * snapshot, [1] the next row, [2] set once a message went out, [3] the
 * view, or 0 for a table.  Each message holds as many rows as fit.
 */

static int ms_genl_table_begin(struct netlink_callback *cb)
{
	const struct ms_view *v;
	struct ms_table *t;
	const char *name;

	if (!ms_genl_allowed(cb->skb))
		return -EPERM;
	name = ms_genl_dump_name(cb);
	if (!name)
		return -EINVAL;
	v = ms_view_find(name);
	if (v) {
		cb->args[3] = (long)v;
		cb->args[0] = (long)v->snapshot(v);
		return cb->args[0] ? 0 : -ENOMEM;
	}
	t = ms_table_find(name);
	if (!t)
		return -ENOENT;
	cb->args[3] = 0;
	cb->args[0] = (long)ms_table_snapshot(t);
	return cb->args[0] ? 0 : -ENOMEM;
}

/* A row's nest, open, with its pid (if @has_pid), name and columns. */
static struct nlattr *ms_genl_row_start(struct sk_buff *skb, bool has_pid, u32 pid,
					const char *name, const u64 *v, unsigned int n)
{
	struct nlattr *row, *cols;
	unsigned int c;

	row = nla_nest_start(skb, MEMSCOPE_A_ROW);
	if (!row || (has_pid && nla_put_u32(skb, MEMSCOPE_A_PID, pid)) ||
	    nla_put_string(skb, MEMSCOPE_A_NAME, name))
		return NULL;
	cols = nla_nest_start(skb, MEMSCOPE_A_COLUMNS);
	if (!cols)
		return NULL;
	for (c = 0; c < n; c++)
		if (ms_nla_put_u64(skb, c + 1, v[c], MEMSCOPE_A_PAD))
			return NULL;
	nla_nest_end(skb, cols);
	return row;
}

static int ms_genl_put_row(struct sk_buff *skb, const struct ms_table_iter *it,
			   unsigned int i)
{
	const struct ms_snap *s = &it->snap[i];
	const struct ms_table *t = it->t;
	u64 v[MS_TABLE_COLS];
	struct nlattr *row;
	unsigned int c;

	for (c = 0; c < ms_table_cols(t); c++)
		v[c] = s->v[c];
	row = ms_genl_row_start(skb, ms_table_has_pid(t), s->pid, s->name, v, c);
	if (!row)
		return -EMSGSIZE;
	if (t->kind == MS_TK_STACK) {
		const unsigned long *f = ms_snap_frames(it, s);
		struct nlattr *a;
		u64 *frames;

		if (nla_put_u32(skb, MEMSCOPE_A_DEPTH, s->depth))
			return -EMSGSIZE;
		/* User addresses only, as in the file; u64 whatever the kernel's word. */
		a = nla_reserve(skb, MEMSCOPE_A_FRAMES, s->depth * sizeof(u64));
		if (!a)
			return -EMSGSIZE;
		frames = nla_data(a);
		for (c = 0; c < s->depth; c++)
			frames[c] = f[c];
	}
	nla_nest_end(skb, row);
	return 0;
}

static int ms_genl_put_view_row(struct sk_buff *skb, const struct ms_view *view,
				const void *snap, unsigned int i)
{
	char name[KSYM_SYMBOL_LEN];
	u64 v[MS_VIEW_COLS];
	struct nlattr *row;
	unsigned int n;

	n = view->row(snap, i, name, sizeof(name), v);
	row = ms_genl_row_start(skb, false, 0, name, v, n);
	if (!row)
		return -EMSGSIZE;
	nla_nest_end(skb, row);
	return 0;
}

static int ms_genl_get_table(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct ms_view *view;
	const struct ms_table_iter *it = NULL;
	const char *name, *header;
	unsigned long i;
	unsigned int n;
	void *hdr;
	int err;

	if (!cb->args[0]) {
		err = ms_genl_table_begin(cb);
		if (err)
			return err;
	}
	view = (const struct ms_view *)cb->args[3];
	if (view) {
		n = view->rows((const void *)cb->args[0]);
		header = view->header;
		name = view->file;
	} else {
		it = (const struct ms_table_iter *)cb->args[0];
		n = it->n;
		name = it->t->file;
		header = it->t->header;
	}
	i = cb->args[1];
	if (i >= n && cb->args[2])
		return 0;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ms_genl_family, NLM_F_MULTI, MEMSCOPE_CMD_GET_TABLE);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, MEMSCOPE_A_NAME, name) ||
	    nla_put_string(skb, MEMSCOPE_A_HEADER, header)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	for (; i < n; i++) {
		struct nlattr *mark = (struct nlattr *)skb_tail_pointer(skb);

		err = view ? ms_genl_put_view_row(skb, view, (const void *)cb->args[0], i) :
			     ms_genl_put_row(skb, it, i);
		if (err) {
			nlmsg_trim(skb, mark);
			break;
		}
	}
	return ms_genl_dump_end(skb, cb, hdr, i, n);
}

static int ms_genl_table_done(struct netlink_callback *cb)
{
	const struct ms_view *view = (const struct ms_view *)cb->args[3];

	if (view)
		view->free((void *)cb->args[0]);
	else
		ms_table_iter_free((struct ms_table_iter *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

static int ms_genl_reset(struct sk_buff *skb, struct genl_info *info)
{
	if (!ms_genl_allowed(skb))
		return -EPERM;
	ms_reset_all();
	return 0;
}

static int ms_genl_set_probe(struct sk_buff *skb, struct genl_info *info, bool on)
{
	const char *name = ms_genl_name(info);

	if (!ms_genl_allowed(skb))
		return -EPERM;
	return name ? ms_control_set(name, on) : -EINVAL;
}

static int ms_genl_enable(struct sk_buff *skb, struct genl_info *info)
{
	return ms_genl_set_probe(skb, info, true);
}

static int ms_genl_disable(struct sk_buff *skb, struct genl_info *info)
{
	return ms_genl_set_probe(skb, info, false);
}

static int ms_genl_fill_hists(struct sk_buff *skb, void *arg)
{
	unsigned int h;

	for (h = 0; h < ms_nr_hists; h++)
		if (nla_put_string(skb, MEMSCOPE_A_NAME, ms_hists[h]->name))
			return -EMSGSIZE;
	return 0;
}

static int ms_genl_get_hists(struct sk_buff *skb, struct genl_info *info)
{
	if (!ms_genl_allowed(skb))
		return -EPERM;
	return ms_genl_reply(info, MEMSCOPE_CMD_GET_HISTS, ms_genl_fill_hists, NULL);
}

/*
 * GET_TEXT, a dump of a file's lines: the whole text is rendered at the
 * first call, as one read of the file renders it, into a buffer that
 * doubles until it fits.  cb->args[0] is the text, [1] the offset of the
 * next line, [2] set once a message went out.
 */
#define MS_GENL_TEXT_MAX (64 << 20)

struct ms_genl_text {
	size_t len;
	char name[MS_NAME_LEN];
	char *buf;
};

static void ms_genl_text_free(struct ms_genl_text *t)
{
	if (t) {
		kvfree(t->buf);
		kfree(t);
	}
}

static int ms_genl_text_begin(struct netlink_callback *cb)
{
	struct ms_genl_text *t;
	struct seq_file m;
	const char *name;
	size_t size = PAGE_SIZE;
	int err;

	if (!ms_genl_allowed(cb->skb))
		return -EPERM;
	name = ms_genl_dump_name(cb);
	if (!name)
		return -EINVAL;
	t = ms_self_alloc(kzalloc(sizeof(*t), GFP_KERNEL));
	if (!t)
		return -ENOMEM;
	strscpy(t->name, name, sizeof(t->name));
	for (;;) {
		memset(&m, 0, sizeof(m));
		m.size = size;
		m.buf = ms_self_alloc(kvmalloc(size, GFP_KERNEL));
		if (!m.buf) {
			err = -ENOMEM;
			break;
		}
		err = ms_file_show(&m, t->name);
		if (!err && !seq_has_overflowed(&m)) {
			t->buf = m.buf;
			t->len = m.count;
			cb->args[0] = (long)t;
			return 0;
		}
		kvfree(m.buf);
		if (err)
			break;
		if (size >= MS_GENL_TEXT_MAX) {
			err = -EFBIG;
			break;
		}
		size *= 2;
	}
	kfree(t);
	return err;
}

static int ms_genl_get_text(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct ms_genl_text *t;
	size_t off;
	void *hdr;
	int err;

	if (!cb->args[0]) {
		err = ms_genl_text_begin(cb);
		if (err)
			return err;
	}
	t = (const struct ms_genl_text *)cb->args[0];
	off = cb->args[1];
	if (off >= t->len && cb->args[2])
		return 0;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &ms_genl_family, NLM_F_MULTI, MEMSCOPE_CMD_GET_TEXT);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, MEMSCOPE_A_NAME, t->name)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	while (off < t->len) {
		const char *line = t->buf + off;
		const char *nl = memchr(line, '\n', t->len - off);
		size_t n = nl ? nl - line : t->len - off;
		struct nlattr *a = nla_reserve(skb, MEMSCOPE_A_LINE, n + 1);

		if (!a)
			break;
		memcpy(nla_data(a), line, n);
		((char *)nla_data(a))[n] = '\0';
		off += n + (nl ? 1 : 0);
	}
	return ms_genl_dump_end(skb, cb, hdr, off, t->len);
}

static int ms_genl_text_done(struct netlink_callback *cb)
{
	ms_genl_text_free((struct ms_genl_text *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

#define MS_GENL_OP(c, ...) {						\
	.cmd = MEMSCOPE_CMD_##c, .flags = GENL_ADMIN_PERM,		\
	MS_GENL_OP_POLICY(ms_genl_policy) __VA_ARGS__ }

static const struct genl_ops ms_genl_ops[] = {
	MS_GENL_OP(GET_STATS, .doit = ms_genl_get_stats),
	MS_GENL_OP(GET_PROBES, .doit = ms_genl_get_probes),
	MS_GENL_OP(GET_TABLE, .dumpit = ms_genl_get_table, .done = ms_genl_table_done),
	MS_GENL_OP(GET_HIST, .doit = ms_genl_get_hist),
	MS_GENL_OP(RESET, .doit = ms_genl_reset),
	MS_GENL_OP(ENABLE, .doit = ms_genl_enable),
	MS_GENL_OP(DISABLE, .doit = ms_genl_disable),
	MS_GENL_OP(GET_TEXT, .dumpit = ms_genl_get_text, .done = ms_genl_text_done),
	MS_GENL_OP(GET_HISTS, .doit = ms_genl_get_hists),
};

static struct genl_family ms_genl_family = {
	.name = MEMSCOPE_GENL_NAME,
	.version = MEMSCOPE_GENL_VERSION,
	.maxattr = MEMSCOPE_A_MAX,
	MS_GENL_FAMILY_POLICY(ms_genl_policy)
	MS_GENL_FAMILY_MCAST_ADMIN
	.module = THIS_MODULE,
	/*
	 * No genl_mutex around the ops: they share nothing it would guard
	 * (the files reach the same code with no such lock).  And a dump's
	 * .done may run in softirq: where netlink_release() drops the socket
	 * in an RCU callback and netlink_sock_destruct() calls .done there,
	 * not from a worker (RHEL 7's 3.10.0-1160, without upstream 4.13's
	 * 707693c8a498), genl's locked wrapper took genl_mutex in softirq,
	 * "scheduling while atomic", when a dump's socket closed mid-dump.
	 */
	.parallel_ops = true,
	.ops = ms_genl_ops,
	.n_ops = ARRAY_SIZE(ms_genl_ops),
	.mcgrps = ms_genl_groups,	/* .n_mcgrps: ms_genl_init() */
};

/* ---- events ------------------------------------------------------------ */

static bool ms_genl_registered;
static bool ms_genl_live;		/* the sender may run */
static struct ms_cursor ms_genl_cursor;	/* the sender's place in the stream */

/*
 * A record as attributes, from its description (fields.c): NAME, its
 * type's name (events_format's), then its fields: an
 * integer as a u32 or a u64, a bool as a flag, absent for 0, a name as a
 * string; a value that is not known (its line's "-") has no attribute.
 */
int ms_genl_put_record(struct sk_buff *skb, const struct ms_record_desc *d, const void *rec)
{
	const struct ms_field_desc *f;
	char text[MS_GENL_FIELD_TEXT_MAX];
	u64 v;
	int err;

	if (nla_put_string(skb, MEMSCOPE_A_NAME, d->name))
		return -EMSGSIZE;
	for (f = d->fields; f < d->fields + d->nr_fields; f++) {
		if (!f->nla || !ms_field_present(d, f, rec))
			continue;
		switch (f->kind) {
		case MS_FK_STR:
			if ((f->flags & MS_FIELD_UNKNOWN) && !*((const char *)rec + f->offset))
				continue;
			err = nla_put_string(skb, f->nla, (const char *)rec + f->offset);
			break;
		case MS_FK_TEXT:
			f->format(text, sizeof(text), rec);
			err = nla_put_string(skb, f->nla, text);
			break;
		default:
			if (!ms_field_int(f, rec, &v))
				continue;
			if (f->kind == MS_FK_BOOL)
				err = v ? nla_put_flag(skb, f->nla) : 0;
			else if (f->flags & MS_FIELD_NLA64)
				err = ms_nla_put_u64(skb, f->nla, v, MEMSCOPE_A_PAD);
			else
				err = nla_put_u32(skb, f->nla, (u32)v);
			break;
		}
		if (err)
			return -EMSGSIZE;
	}
	return 0;
}

/* A u64 attribute and the pad that may come before it, at most. */
#define MS_NLA_U64_MAX (nla_total_size(sizeof(u64)) + nla_total_size(0))

/*
 * The most ms_genl_put_record() can put for @d: its name, then each
 * field at its largest (a STR field's array holds its NUL).
 */
static size_t ms_genl_record_size(const struct ms_record_desc *d)
{
	const struct ms_field_desc *f;
	size_t size = nla_total_size(strlen(d->name) + 1);

	for (f = d->fields; f < d->fields + d->nr_fields; f++) {
		if (!f->nla)
			continue;
		switch (f->kind) {
		case MS_FK_STR:
			size += nla_total_size(f->size);
			break;
		case MS_FK_TEXT:
			size += nla_total_size(MS_GENL_FIELD_TEXT_MAX);
			break;
		case MS_FK_BOOL:
			size += nla_total_size(0);
			break;
		default:
			size += f->flags & MS_FIELD_NLA64 ? MS_NLA_U64_MAX :
				nla_total_size(sizeof(u32));
			break;
		}
	}
	return size;
}

/*
 * One event to its group: false if it was lost on the way.  @line is a
 * buffer for the ring file's line, which LINE carries as it is.
 *
 * The message is allocated at its own size, not NLMSG_GOODSIZE: under the
 * reclaim it reports, each of those was an order-1 allocation (8 KiB, for
 * a message of a few hundred bytes) that stalled this worker in reclaim
 * while the ring filled behind it, and it took 8 KiB of the listener's
 * receive buffer.
 */
static bool ms_genl_send_event(const struct ms_event *ev, char *line)
{
	const struct ms_event_type *t = ms_event_type_of(ev);
	struct sk_buff *skb;
	void *hdr;
	int n, err;

	ms_event_line(line, MS_GENL_LINE_MAX, ev);
	n = strlen(line);
	if (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	skb = genlmsg_new(MS_NLA_U64_MAX + nla_total_size(n + 1) +
			  ms_genl_record_size(&t->desc), GFP_KERNEL);
	if (!skb)
		return false;
	hdr = genlmsg_put(skb, 0, 0, &ms_genl_family, 0, t->genl_cmd);
	if (!hdr)
		goto fail;
	/* A kill from the oom ring has no place in the stream: no SEQ. */
	if (!ms_genl_cursor.recovered &&
	    ms_nla_put_u64(skb, MEMSCOPE_A_SEQ, ev->seq, MEMSCOPE_A_PAD))
		goto fail;
	if (nla_put_string(skb, MEMSCOPE_A_LINE, line))
		goto fail;
	if (ms_genl_put_record(skb, &t->desc, ev))
		goto fail;
	genlmsg_end(skb, hdr);
	err = genlmsg_multicast(&ms_genl_family, skb, 0, t->group, GFP_KERNEL);
	/*
	 * -ENOBUFS: a listener that asked with NETLINK_BROADCAST_ERROR had no
	 * room.  -ESRCH: the last listener left meanwhile, which is no loss.
	 */
	return !err || err == -ESRCH;
fail:
	nlmsg_free(skb);
	return false;
}

static bool ms_genl_listened(void)
{
	int g;

	for (g = 0; g < ms_genl_family.n_mcgrps; g++)
		if (genl_has_listeners(&ms_genl_family, &init_net, g))
			return true;
	return false;
}

static void ms_genl_send(struct work_struct *work)
{
	const struct ms_event_type *t;
	struct ms_event ev;
	char *line;
	u64 lost;

	/* No buffer: every event still waiting is lost to the listeners. */
	line = ms_self_alloc(kmalloc(MS_GENL_LINE_MAX, GFP_KERNEL));
	while (READ_ONCE(ms_genl_live) && ms_cursor_next(&ms_genl_cursor, &ev, &lost)) {
		if (lost && ms_genl_listened())
			ms_stat_add(core, MS_netlink_dropped, lost);
		t = ms_event_type_of(&ev);
		if (t->genl_cmd && genl_has_listeners(&ms_genl_family, &init_net, t->group) &&
		    (!line || !ms_genl_send_event(&ev, line)))
			ms_stat_inc(core, MS_netlink_dropped);
		cond_resched();
	}
	kfree(line);
}
static DECLARE_WORK(ms_genl_work, ms_genl_send);

/*
 * From the events irq_work: never from probe context itself.  The ring
 * holds ring_size events behind this worker, and the events that come in
 * bursts (direct reclaim, OOM kills) come when the CPUs are busiest:
 * a high-priority worker is not queued behind the tasks that cause them.
 */
void ms_genl_kick(void)
{
	if (READ_ONCE(ms_genl_live))
		queue_work(system_highpri_wq, &ms_genl_work);
}

/* ---- notifications from process context -------------------------------- */

/*
 * A family's own messages to its group (memleak's reports): @fill puts the
 * attributes into a message of @size bytes of payload.  Senders hold the
 * mutex from the check of ms_genl_live to the multicast, so once
 * ms_genl_exit() has taken it none is sending or will send.  Returns 0,
 * -ESRCH if nobody listens (no loss), or another error: a lost message.
 */
static DEFINE_MUTEX(ms_genl_notify_lock);

int ms_genl_notify(int group, u8 cmd, size_t size,
		   int (*fill)(struct sk_buff *skb, void *arg), void *arg)
{
	struct sk_buff *skb;
	void *hdr;
	int err = -ESRCH;

	mutex_lock(&ms_genl_notify_lock);
	if (!READ_ONCE(ms_genl_live) || !genl_has_listeners(&ms_genl_family, &init_net, group))
		goto out;
	err = -ENOMEM;
	skb = genlmsg_new(size, GFP_KERNEL);
	if (!skb)
		goto out;
	hdr = genlmsg_put(skb, 0, 0, &ms_genl_family, 0, cmd);
	if (!hdr || fill(skb, arg)) {
		nlmsg_free(skb);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(skb, hdr);
	/* As ms_genl_send_event(): -ESRCH, the last listener left, is no loss. */
	err = genlmsg_multicast(&ms_genl_family, skb, 0, group, GFP_KERNEL);
out:
	mutex_unlock(&ms_genl_notify_lock);
	return err;
}

/* Whether anyone listens to @group: a sender's reason to do its work. */
bool ms_genl_listening(int group)
{
	bool on;

	mutex_lock(&ms_genl_notify_lock);
	on = READ_ONCE(ms_genl_live) && genl_has_listeners(&ms_genl_family, &init_net, group);
	mutex_unlock(&ms_genl_notify_lock);
	return on;
}

/*
 * Not fatal: the files are the first door.  After the probes are up, so a
 * command never finds them half set up; events emitted before are not sent.
 */
int ms_genl_init(void)
{
	int err;

	/* No groups where the kernel cannot keep them to CAP_SYS_ADMIN. */
	ms_genl_family.n_mcgrps = MS_GENL_MCAST_ADMIN_ONLY ? ms_genl_nr_groups : 0;
	err = ms_genl_register_family(&ms_genl_family);

	if (err) {
		pr_warn("memscope: no generic netlink family (%d); the files still work\n", err);
		return err;
	}
	ms_genl_registered = true;
	ms_cursor_start(&ms_genl_cursor);
	if (!ms_genl_family.n_mcgrps)
		pr_info("memscope: this kernel cannot keep netlink groups to CAP_SYS_ADMIN: no event groups\n");
	mutex_lock(&ms_genl_notify_lock);
	WRITE_ONCE(ms_genl_live, ms_genl_family.n_mcgrps != 0);
	mutex_unlock(&ms_genl_notify_lock);
	return 0;
}

/*
 * First at unload, while everything the commands read still exists.  The
 * senders stop before the family goes: no kick runs after ms_events_sync(),
 * and none after it queues the work again; ms_genl_notify()'s senders find
 * it not live once the mutex is taken here.  genl_unregister_family()
 * waits for running commands; a dump in progress holds a module reference.
 */
void ms_genl_exit(void)
{
	if (!ms_genl_registered)
		return;
	mutex_lock(&ms_genl_notify_lock);
	WRITE_ONCE(ms_genl_live, false);
	mutex_unlock(&ms_genl_notify_lock);
	smp_mb();	/* live before the sync: a later kick sees it false */
	ms_events_sync();
	cancel_work_sync(&ms_genl_work);
	genl_unregister_family(&ms_genl_family);
	ms_genl_registered = false;
}
