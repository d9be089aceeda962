// SPDX-License-Identifier: GPL-2.0
/*
 * procev: the kernel's process events connector (CONFIG_PROC_EVENTS, in
 * every distribution kernel since 2.6.15), for the exec()s of new
 * programs as they happen.  The stack tools load a program's unwind
 * tables when it starts, not at their next once-a-second scan, so that a
 * program that lives under a second is walked by them too.  Listening
 * needs CAP_NET_ADMIN in the initial namespaces; without it the tools
 * keep their scans alone.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "memscope.h"

/* A socket that receives exec events, nonblocking; -1 where none can be had. */
int ms_procev_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	union {
		char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))];
		struct nlmsghdr align;
	} u;
	struct nlmsghdr *nl = &u.align;
	struct cn_msg *cn = NLMSG_DATA(nl);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int fd;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	memset(&u, 0, sizeof(u));
	nl->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nl->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, nl, nl->nlmsg_len, 0) != (ssize_t)nl->nlmsg_len)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * Each exec event waiting on @fd: @fn(@ctx, the process's tgid).  Events
 * lost to a full socket buffer (ENOBUFS) are left to the scans.
 */
void ms_procev_read(int fd, void (*fn)(void *ctx, int tgid), void *ctx)
{
	union {
		char buf[8192];
		struct nlmsghdr align;
	} u;
	ssize_t n;

	while ((n = recv(fd, u.buf, sizeof(u.buf), 0)) > 0 || (n < 0 && errno == ENOBUFS)) {
		struct nlmsghdr *nl;
		size_t len = n > 0 ? (size_t)n : 0;

		for (nl = &u.align; NLMSG_OK(nl, len); nl = NLMSG_NEXT(nl, len)) {
			const struct cn_msg *cn = NLMSG_DATA(nl);
			struct proc_event ev;

			if (nl->nlmsg_type != NLMSG_DONE || cn->id.idx != CN_IDX_PROC ||
			    cn->id.val != CN_VAL_PROC || cn->len < offsetof(struct proc_event, event_data) +
			    sizeof(ev.event_data.exec))
				continue;
			memcpy(&ev, cn->data, sizeof(ev) < cn->len ? sizeof(ev) : cn->len);
			if (ev.what == PROC_EVENT_EXEC)
				fn(ctx, (int)ev.event_data.exec.process_tgid);
		}
	}
}
