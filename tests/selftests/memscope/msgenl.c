// SPDX-License-Identifier: GPL-2.0
/*
 * A memscope netlink client for shell tests, for what a TEST() cannot do
 * alone: wait for events that a script provokes, and hold a dump open
 * across an rmmod.
 *
 *   msgenl listen GROUP COUNT SECONDS [GO]
 *                                      join GROUP, print "joined", then one
 *                                      line per event: cmd=... key=value...;
 *                                      exit 0 after COUNT, 1 on timeout.
 *                                      With GO, a file: shrink the socket's
 *                                      buffer and read nothing until GO
 *                                      exists, so that messages are lost,
 *                                      and ask (NETLINK_BROADCAST_ERROR)
 *                                      that the sender learn of each.
 *                                      On SIGTERM or at the end, print the
 *                                      socket's drops (/proc/net/netlink)
 *                                      to stderr as "drops N"
 *   msgenl hold-dump TABLE             start a dump of TABLE, print "held",
 *                                      and read nothing until killed
 */
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>

#include "nl.h"

static void print_event(const struct genlmsghdr *g, struct nlattr *attrs, int len)
{
	static const char *const names[__MEMSCOPE_A_MAX] = {
		[MEMSCOPE_A_NAME] = "name",
		[MEMSCOPE_A_SEQ] = "seq", [MEMSCOPE_A_TIME_NS] = "time_ns",
		[MEMSCOPE_A_PID] = "pid", [MEMSCOPE_A_COMM] = "comm",
		[MEMSCOPE_A_TRIGGER_PID] = "trigger_pid", [MEMSCOPE_A_TRIGGER_COMM] = "trigger_comm",
		[MEMSCOPE_A_VICTIM_PID] = "victim_pid", [MEMSCOPE_A_VICTIM_COMM] = "victim_comm",
		[MEMSCOPE_A_PAGES] = "pages", [MEMSCOPE_A_ANON_RSS_KB] = "anon_rss_kb",
		[MEMSCOPE_A_FILE_RSS_KB] = "file_rss_kb", [MEMSCOPE_A_SHMEM_RSS_KB] = "shmem_rss_kb",
		[MEMSCOPE_A_OOM_SCORE_ADJ] = "oom_score_adj", [MEMSCOPE_A_MEMCG] = "memcg",
		[MEMSCOPE_A_ORDER] = "order", [MEMSCOPE_A_GFP_MASK] = "gfp_mask",
		[MEMSCOPE_A_CONFIRMED] = "confirmed", [MEMSCOPE_A_LATENCY_NS] = "latency_ns",
		[MEMSCOPE_A_NR_RECLAIMED] = "nr_reclaimed",
		[MEMSCOPE_A_MEMCG_RECLAIM] = "memcg_reclaim", [MEMSCOPE_A_STATUS] = "status",
	};
	static const char *const cmds[] = {
		[MEMSCOPE_CMD_EVENT_OOM] = "oom", [MEMSCOPE_CMD_EVENT_RECLAIM] = "reclaim",
		[MEMSCOPE_CMD_EVENT_COMPACTION] = "compaction",
	};
	struct nlattr *a;

	printf("cmd=%s", g->cmd < sizeof(cmds) / sizeof(cmds[0]) && cmds[g->cmd] ?
	       cmds[g->cmd] : "?");
	nla_for_each(a, attrs, len) {
		int t = nla_type_of(a);

		if (t >= __MEMSCOPE_A_MAX || !names[t])
			continue;
		switch (t) {
		case MEMSCOPE_A_NAME:
		case MEMSCOPE_A_COMM: case MEMSCOPE_A_TRIGGER_COMM: case MEMSCOPE_A_VICTIM_COMM:
		case MEMSCOPE_A_MEMCG: case MEMSCOPE_A_STATUS:
			printf(" %s=%s", names[t], nla_str(a));
			break;
		case MEMSCOPE_A_CONFIRMED: case MEMSCOPE_A_MEMCG_RECLAIM:
			printf(" %s=1", names[t]);
			break;
		case MEMSCOPE_A_OOM_SCORE_ADJ: case MEMSCOPE_A_ORDER:
			printf(" %s=%d", names[t], (int)nla_u32(a));
			break;
		default:
			printf(" %s=%llu", names[t], (unsigned long long)nla_u64(a));
		}
	}
	printf("\n");
	fflush(stdout);
}

static volatile sig_atomic_t stop;

static void on_term(int sig __unused)
{
	stop = 1;
}

/* The kernel's count of messages our socket had no room for. */
static long socket_drops(int fd)
{
	struct stat st;
	char line[512];
	long ret = -1;
	FILE *f;

	if (fstat(fd, &st) || !(f = fopen("/proc/net/netlink", "r")))
		return -1;
	/* ... Drops Inode: the last two fields, padded with spaces. */
	while (fgets(line, sizeof(line), f)) {
		char *tok, *prev = NULL, *last = NULL;

		for (tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
			prev = last;
			last = tok;
		}
		if (prev && strtoul(last, NULL, 10) == st.st_ino)
			ret = strtol(prev, NULL, 10);
	}
	fclose(f);
	return ret;
}

static int listen_group(struct nl *nl, const char *group, int count, int seconds,
			const char *go)
{
	time_t end = time(NULL) + seconds;
	int i, err, small = 1, on = 1;
	struct sigaction sa = { .sa_handler = on_term };

	for (i = 0; i < 4 && strcmp(group, nl_group_names[i]); i++)
		;
	if (i == 4) {
		fprintf(stderr, "msgenl: no group %s\n", group);
		return 2;
	}
	err = nl_join(nl, nl->groups[i]);
	if (err) {
		fprintf(stderr, "msgenl: join %s: %s\n", group, strerror(-err));
		return 2;
	}
	if (go && (setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) < 0 ||
		   setsockopt(nl->fd, SOL_NETLINK, NETLINK_BROADCAST_ERROR, &on, sizeof(on)) < 0)) {
		fprintf(stderr, "msgenl: setsockopt: %s\n", strerror(errno));
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	printf("joined\n");
	fflush(stdout);
	while (go && access(go, F_OK) && time(NULL) < end && !stop)
		usleep(100 * 1000);
	while (count > 0 && time(NULL) < end && !stop) {
		struct pollfd p = { .fd = nl->fd, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		/* Our socket overran: the module counted it in netlink_dropped. */
		if (n < 0 && errno == ENOBUFS) {
			fprintf(stderr, "msgenl: overrun\n");
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "msgenl: recv: %s\n", strerror(errno));
			return 1;
		}
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct genlmsghdr *g = NLMSG_DATA(h);

			if (h->nlmsg_type != nl->family)
				continue;
			print_event(g, (struct nlattr *)((char *)g + GENL_HDRLEN),
				    h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			count--;
		}
	}
	fprintf(stderr, "drops %ld\n", socket_drops(nl->fd));
	return count > 0;
}

int main(int argc, char **argv)
{
	static struct nl nl;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: msgenl listen GROUP COUNT SECONDS | hold-dump TABLE\n");
		return 2;
	}
	err = nl_open(&nl) ?: nl_resolve(&nl);
	if (err) {
		fprintf(stderr, "msgenl: family %s: %s\n", MEMSCOPE_GENL_NAME, strerror(-err));
		return 2;
	}
	if (!strcmp(argv[1], "listen") && (argc == 5 || argc == 6))
		return listen_group(&nl, argv[2], atoi(argv[3]), atoi(argv[4]),
				    argc == 6 ? argv[5] : NULL);
	if (!strcmp(argv[1], "hold-dump")) {
		err = nl_send(&nl, nl.family, NLM_F_DUMP, MEMSCOPE_CMD_GET_TABLE,
			      MEMSCOPE_A_NAME, argv[2]);
		if (err) {
			fprintf(stderr, "msgenl: dump: %s\n", strerror(-err));
			return 1;
		}
		printf("held\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	fprintf(stderr, "msgenl: bad arguments\n");
	return 2;
}
