/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for memscope's tests: no libnl, so the tests check
 * the wire format itself.  Functions return 0 or -errno.
 */
#ifndef MS_NL_H
#define MS_NL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../../module/uapi/memscope_genl.h"
#include "../../../module/uapi/memscope_hist.h"

#define NL_BUF (64 * 1024)

#ifndef __unused
#define __unused __attribute__((unused))
#endif

struct nl {
	int fd;
	uint32_t seq;
	uint16_t family;
	uint32_t version;
	uint32_t maxattr;
	int groups[4];		/* oom, reclaim, compaction, memleak: id or -1 */
	char buf[NL_BUF];
};

static const char *const nl_group_names[4] = {
	MEMSCOPE_MCGRP_OOM, MEMSCOPE_MCGRP_RECLAIM, MEMSCOPE_MCGRP_COMPACTION,
	MEMSCOPE_MCGRP_MEMLEAK,
};

#define nla_for_each(a, head, len)					\
	for (a = (struct nlattr *)(head);				\
	     (len) - ((char *)a - (char *)(head)) >= (long)sizeof(*a) && \
	     a->nla_len >= sizeof(*a) &&				\
	     a->nla_len <= (len) - ((char *)a - (char *)(head));	\
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))

static inline int nla_type_of(const struct nlattr *a) { return a->nla_type & NLA_TYPE_MASK; }
static inline void *nla_payload(const struct nlattr *a) { return (char *)a + NLA_HDRLEN; }
static inline int nla_payload_len(const struct nlattr *a) { return a->nla_len - NLA_HDRLEN; }

static inline uint64_t nla_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (nla_payload_len(a) == 8)
		memcpy(&v, nla_payload(a), 8);
	else if (nla_payload_len(a) == 4)
		v = *(uint32_t *)nla_payload(a);
	return v;
}

static inline uint32_t nla_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	memcpy(&v, nla_payload(a), nla_payload_len(a) < 4 ? nla_payload_len(a) : 4);
	return v;
}

static inline const char *nla_str(const struct nlattr *a)
{
	return nla_payload_len(a) > 0 ? (const char *)nla_payload(a) : "";
}

static inline int nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(nl->groups, -1, sizeof(nl->groups));
	nl->seq = 1;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

static inline void nl_close(struct nl *nl)
{
	close(nl->fd);
}

/* Append an attribute at the end of message @h. */
static inline void nl_put(struct nlmsghdr *h, int type, const void *data, int len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(nla_payload(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static inline int nl_send(struct nl *nl, uint16_t type, uint16_t flags, uint8_t cmd,
			  int attr, const char *str)
{
	char req[512];
	struct nlmsghdr *h = (struct nlmsghdr *)req;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(req, 0, sizeof(req));
	h->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = ++nl->seq;
	g->cmd = cmd;
	g->version = 1;
	if (str)
		nl_put(h, attr, str, strlen(str) + 1);
	if (sendto(nl->fd, req, h->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/*
 * Receive the replies to the last request until its ack, NLMSG_DONE or
 * error; @fn sees each data message's attributes.  A dump's error may come
 * as an NLMSG_ERROR or in NLMSG_DONE's payload, depending on the kernel.
 */
typedef int (*nl_fn)(const struct genlmsghdr *g, struct nlattr *attrs, int len, void *arg);

static inline int nl_recv(struct nl *nl, nl_fn fn, void *arg)
{
	for (;;) {
		ssize_t n = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(h), sizeof(int));
				return err < 0 ? err : 0;
			}
			if (fn) {
				struct genlmsghdr *g = NLMSG_DATA(h);
				int err = fn(g, (struct nlattr *)((char *)g + GENL_HDRLEN),
					     h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), arg);

				if (err)
					return err;
			}
		}
	}
}

static int nl_family_fn(const struct genlmsghdr *g __unused, struct nlattr *attrs, int len, void *arg)
{
	struct nl *nl = arg;
	struct nlattr *a, *grp, *f;

	nla_for_each(a, attrs, len) {
		switch (nla_type_of(a)) {
		case CTRL_ATTR_FAMILY_ID:
			nl->family = *(uint16_t *)nla_payload(a);
			break;
		case CTRL_ATTR_VERSION:
			nl->version = nla_u32(a);
			break;
		case CTRL_ATTR_MAXATTR:
			nl->maxattr = nla_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			nla_for_each(grp, nla_payload(a), nla_payload_len(a)) {
				const char *name = NULL;
				int id = -1, i;

				nla_for_each(f, nla_payload(grp), nla_payload_len(grp)) {
					if (nla_type_of(f) == CTRL_ATTR_MCAST_GRP_NAME)
						name = nla_str(f);
					if (nla_type_of(f) == CTRL_ATTR_MCAST_GRP_ID)
						id = nla_u32(f);
				}
				for (i = 0; name && i < 4; i++)
					if (!strcmp(name, nl_group_names[i]))
						nl->groups[i] = id;
			}
			break;
		}
	}
	return 0;
}

/* The family's id, version, maxattr and groups, as any user may ask. */
static inline int nl_resolve(struct nl *nl)
{
	int err = nl_send(nl, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY,
			  CTRL_ATTR_FAMILY_NAME, MEMSCOPE_GENL_NAME);

	nl->family = 0;
	if (!err)
		err = nl_recv(nl, nl_family_fn, nl);
	return err ?: nl->family ? 0 : -ENOENT;
}

/* One command, with an optional MEMSCOPE_A_NAME; a dump if @dump. */
static inline int nl_call(struct nl *nl, uint8_t cmd, const char *name, int dump,
			  nl_fn fn, void *arg)
{
	int err = nl_send(nl, nl->family, dump ? NLM_F_DUMP : NLM_F_ACK, cmd,
			  MEMSCOPE_A_NAME, name);

	return err ?: nl_recv(nl, fn, arg);
}

static inline int nl_join(struct nl *nl, int group)
{
	if (group < 0)
		return -ENOENT;
	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0)
		return -errno;
	return 0;
}

#endif /* MS_NL_H */
