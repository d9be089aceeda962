// SPDX-License-Identifier: GPL-2.0
/*
 * memscope's generic netlink family against its own files: every read
 * command must give what the debugfs file gives, to the byte once
 * rendered as the file renders it, and no command may answer a caller
 * without CAP_SYS_ADMIN.  The probes are detached while it runs, so that
 * nothing moves between a command and the file read after it.
 *
 * Needs root, memscope loaded and debugfs mounted; run a workload first so
 * the tables and histograms have rows (tests/guest/60-genl.sh does).
 */
#include <linux/capability.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>

#include "harness.h"
#include "nl.h"

static const char *dir = "/sys/kernel/debug/memscope";

static const char *const tables[] = {
	"faults_by_pid", "faults_by_file", "swapins_by_pid", "hugetlb_by_pid", "shrinkers",
	"faults_by_cgroup", "swapins_by_cgroup", "slab", "faults_by_stack", "brk_by_stack",
	"swap_residency_by_pid", "memleak",
};

static const char *const hists[] = {
	"fault_latency_ns", "direct_reclaim_ns", "memcg_reclaim_ns", "shrink_slab_ns",
	"compaction_ns", "swap_residency_ns",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A growing string: what a command renders, to compare with a file. */
struct text {
	char *s;
	size_t len, cap;
	long rows;
	long msgs;
};

static void tprintf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (t->s && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + n + 4096;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	t->len += n;
}

static char *read_file(const char *name)
{
	struct text t = { 0 };
	char path[256], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		TH_LOG("%s: %s", path, strerror(errno));
		return NULL;
	}
	tprintf(&t, "%s", "");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		tprintf(&t, "%.*s", (int)n, buf);
	fclose(f);
	return t.s;
}

/* As the module's ms_escape(): octal for what would split a field. */
static void tescape(struct text *t, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c == '\\' || c >= 0x7f)
			tprintf(t, "\\%03o", c);
		else
			tprintf(t, "%c", c);
	}
}

static int stats_fn(const struct genlmsghdr *g __unused, struct nlattr *attrs, int len, void *arg)
{
	struct nlattr *a, *f;

	nla_for_each(a, attrs, len) {
		const char *name = "?";
		uint64_t v = 0;

		if (nla_type_of(a) != MEMSCOPE_A_STAT)
			continue;
		nla_for_each(f, nla_payload(a), nla_payload_len(a)) {
			if (nla_type_of(f) == MEMSCOPE_A_NAME)
				name = nla_str(f);
			else if (nla_type_of(f) == MEMSCOPE_A_VALUE)
				v = nla_u64(f);
		}
		tprintf(arg, "%s %llu\n", name, (unsigned long long)v);
	}
	return 0;
}

static int probes_fn(const struct genlmsghdr *g __unused, struct nlattr *attrs, int len, void *arg)
{
	struct nlattr *a, *f;

	nla_for_each(a, attrs, len) {
		const char *name = "?", *target = "?", *state = "?";
		uint64_t hits = 0, missed = 0;

		if (nla_type_of(a) != MEMSCOPE_A_PROBE)
			continue;
		nla_for_each(f, nla_payload(a), nla_payload_len(a)) {
			switch (nla_type_of(f)) {
			case MEMSCOPE_A_NAME: name = nla_str(f); break;
			case MEMSCOPE_A_TARGET: target = nla_str(f); break;
			case MEMSCOPE_A_STATE: state = nla_str(f); break;
			case MEMSCOPE_A_HITS: hits = nla_u64(f); break;
			case MEMSCOPE_A_MISSED: missed = nla_u64(f); break;
			}
		}
		tprintf(arg, "%s %s %s %llu %llu\n", name, target, state,
			(unsigned long long)hits, (unsigned long long)missed);
	}
	return 0;
}

/* A row as table.c's seq show prints it. */
static void render_row(struct text *t, struct nlattr *row)
{
	struct nlattr *f, *c;
	const char *name = "";
	uint32_t depth = 0;
	int has_pid = 0, has_depth = 0;
	uint32_t pid = 0;
	struct nlattr *cols = NULL, *frames = NULL;

	nla_for_each(f, nla_payload(row), nla_payload_len(row)) {
		switch (nla_type_of(f)) {
		case MEMSCOPE_A_PID: pid = nla_u32(f); has_pid = 1; break;
		case MEMSCOPE_A_NAME: name = nla_str(f); break;
		case MEMSCOPE_A_COLUMNS: cols = f; break;
		case MEMSCOPE_A_DEPTH: depth = nla_u32(f); has_depth = 1; break;
		case MEMSCOPE_A_FRAMES: frames = f; break;
		}
	}
	if (has_pid)
		tprintf(t, "%u ", pid);
	tescape(t, name);
	if (cols) {
		int want = 1;

		nla_for_each(c, nla_payload(cols), nla_payload_len(cols)) {
			if (nla_type_of(c) != want++)
				tprintf(t, " <column %d out of order>", nla_type_of(c));
			tprintf(t, " %lld", (long long)nla_u64(c));
		}
	}
	if (has_depth) {
		uint32_t i;

		tprintf(t, " %u %s", depth, depth ? "" : "-");
		for (i = 0; frames && i < depth &&
			    (i + 1) * 8 <= (uint32_t)nla_payload_len(frames); i++) {
			uint64_t v;

			memcpy(&v, (char *)nla_payload(frames) + i * 8, 8);
			if (v & MEMSCOPE_FRAME_FILE)
				tprintf(t, "%sf%llu+0x%llx", i ? "," : "",
					(unsigned long long)((v & ~MEMSCOPE_FRAME_FILE) >>
							     MEMSCOPE_FRAME_SLOT_SHIFT),
					(unsigned long long)(v & MEMSCOPE_FRAME_OFF_MASK));
			else
				tprintf(t, "%s0x%llx", i ? "," : "", (unsigned long long)v);
		}
	}
	tprintf(t, "\n");
}

static int table_fn(const struct genlmsghdr *g __unused, struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	struct nlattr *a;

	t->msgs++;
	nla_for_each(a, attrs, len) {
		if (nla_type_of(a) == MEMSCOPE_A_HEADER && !t->len)
			tprintf(t, "%s\n", nla_str(a));
		if (nla_type_of(a) == MEMSCOPE_A_ROW) {
			render_row(t, a);
			t->rows++;
		}
	}
	return 0;
}

static int hist_fn(const struct genlmsghdr *g __unused, struct nlattr *attrs, int len, void *arg)
{
	struct text *t = arg;
	uint64_t count = 0, sum = 0;
	struct nlattr *a, *f;

	t->msgs++;
	nla_for_each(a, attrs, len) {
		if (nla_type_of(a) == MEMSCOPE_A_COUNT)
			count = nla_u64(a);
		if (nla_type_of(a) == MEMSCOPE_A_SUM)
			sum = nla_u64(a);
	}
	tprintf(t, "# count %llu sum %llu\n# lo hi count\n", (unsigned long long)count,
		(unsigned long long)sum);
	nla_for_each(a, attrs, len) {
		uint64_t lo = 0, hi = 0, n = 0;
		int slot = -1;

		if (nla_type_of(a) != MEMSCOPE_A_BUCKET)
			continue;
		nla_for_each(f, nla_payload(a), nla_payload_len(a)) {
			if (nla_type_of(f) == MEMSCOPE_A_LO)
				lo = nla_u64(f);
			if (nla_type_of(f) == MEMSCOPE_A_HI)
				hi = nla_u64(f);
			if (nla_type_of(f) == MEMSCOPE_A_COUNT)
				n = nla_u64(f);
			if (nla_type_of(f) == MEMSCOPE_A_SLOT)
				slot = (int)nla_u32(f);
		}
		/*
		 * The line from SLOT's bounds, as the file's: it matches only
		 * if SLOT is the bucket whose bounds LO and HI give.
		 */
		if (slot < 0 || slot >= MEMSCOPE_HIST_BUCKETS || memscope_hist_lo(slot) != lo ||
		    memscope_hist_hi(slot) != hi)
			tprintf(t, "bad SLOT %d for %llu %llu\n", slot, (unsigned long long)lo,
				(unsigned long long)hi);
		tprintf(t, "%llu %llu %llu\n", (unsigned long long)memscope_hist_lo(slot),
			(unsigned long long)memscope_hist_hi(slot), (unsigned long long)n);
		t->rows++;
	}
	return 0;
}

static struct nl *open_family(void)
{
	static struct nl nl;

	ASSERT_EQ(nl_open(&nl), 0);
	ASSERT_EQ(nl_resolve(&nl), 0);
	return &nl;
}

/*
 * A kernel that cannot keep multicast groups to CAP_SYS_ADMIN gets none
 * (the module says so in the kernel log): MEMSCOPE_GENL_NO_GROUPS=1, set by
 * whoever read that, expects none, and anything else expects all four.
 */
static bool expect_groups(void)
{
	const char *e = getenv("MEMSCOPE_GENL_NO_GROUPS");

	return !(e && !strcmp(e, "1"));
}

TEST(family_resolves)
{
	struct nl *nl = open_family();
	int i;

	ASSERT_EQ(nl->version, MEMSCOPE_GENL_VERSION);
	ASSERT_EQ(nl->maxattr, MEMSCOPE_A_MAX);
	for (i = 0; i < 4; i++) {
		TH_LOG("group %s: %d", nl_group_names[i], nl->groups[i]);
		if (expect_groups())
			ASSERT_GE(nl->groups[i], 0);
		else
			ASSERT_EQ(nl->groups[i], -1);
	}
}

TEST(stats_match_file)
{
	struct nl *nl = open_family();
	struct text t = { 0 };
	char *file;

	tprintf(&t, "%s", "");
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_STATS, NULL, 0, stats_fn, &t), 0);
	file = read_file("stats");
	ASSERT_TRUE(file);
	ASSERT_STREQ(t.s, file);
	ASSERT_TRUE(strstr(t.s, "\nnetlink_dropped "));
}

TEST(probes_match_file)
{
	struct nl *nl = open_family();
	struct text t = { 0 };
	char *file;

	tprintf(&t, "# name target state hits missed\n");
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_PROBES, NULL, 0, probes_fn, &t), 0);
	file = read_file("probes");
	ASSERT_TRUE(file);
	ASSERT_STREQ(t.s, file);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * @got and @want line by line, every field equal but a line's last, an
 * age in ms (memleak's oldest_ms), which may have grown by up to @slack
 * from the first read to the second.  Fails the test at a difference.
 */
static void match_ages(char *got, char *want, long slack)
{
	char *g, *w, *gs, *ws;

	for (g = strtok_r(got, "\n", &gs), w = strtok_r(want, "\n", &ws); g && w;
	     g = strtok_r(NULL, "\n", &gs), w = strtok_r(NULL, "\n", &ws)) {
		char *ga = strrchr(g, ' '), *wa = strrchr(w, ' ');

		if (*g == '#' || !ga || !wa) {
			ASSERT_STREQ(g, w);
			continue;
		}
		*ga++ = *wa++ = '\0';
		ASSERT_STREQ(g, w);
		ASSERT_GE(atol(wa), atol(ga));
		ASSERT_GE(atol(ga) + slack, atol(wa));
	}
	ASSERT_TRUE(!g && !w);
}

/*
 * Command @cmd for each of @names, rendered by @fn, against the file
 * @prefix<name>: the rows they had, and the most messages one answer took.
 */
static long match_files(uint8_t cmd, const char *const *names, size_t n, int dump,
			nl_fn fn, const char *prefix, long *msgs)
{
	struct nl *nl = open_family();
	long rows = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct text t = { 0 };
		char name[128], *file;

		long start = now_ms();

		tprintf(&t, "%s", "");
		ASSERT_EQ(nl_call(nl, cmd, names[i], dump, fn, &t), 0);
		snprintf(name, sizeof(name), "%s%s", prefix, names[i]);
		file = read_file(name);
		ASSERT_TRUE(file);
		TH_LOG("%s: %ld rows, %ld messages", names[i], t.rows, t.msgs);
		/* Ages are in jiffies: a tick more than the time between reads. */
		if (!strcmp(names[i], "memleak"))
			match_ages(t.s, file, now_ms() - start + 10);
		else
			ASSERT_STREQ(t.s, file);
		rows += t.rows;
		if (t.msgs > *msgs)
			*msgs = t.msgs;
		free(t.s);
		free(file);
	}
	return rows;
}

TEST(tables_match_files)
{
	long msgs = 0;

	/* Equal and empty proves nothing: the caller ran workloads. */
	ASSERT_GT(match_files(MEMSCOPE_CMD_GET_TABLE, tables, N(tables), 1, table_fn, "", &msgs), 0);
	/* ... and one table big enough that the dump had to resume. */
	ASSERT_GT(msgs, 1);
}

TEST(hists_match_files)
{
	long msgs = 0;

	ASSERT_GT(match_files(MEMSCOPE_CMD_GET_HIST, hists, N(hists), 0, hist_fn, "hist_raw/",
			      &msgs), 0);
}

TEST(bad_requests)
{
	struct nl *nl = open_family();

	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_TABLE, "no_such_table", 1, NULL, NULL), -ENOENT);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_TABLE, NULL, 1, NULL, NULL), -EINVAL);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_HIST, "no_such_hist", 0, NULL, NULL), -ENOENT);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_HIST, NULL, 0, NULL, NULL), -EINVAL);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_ENABLE, "no_such_probe", 0, NULL, NULL), -EINVAL);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_DISABLE, NULL, 0, NULL, NULL), -EINVAL);
}

/* The state column of the probes file for probe @name. */
static void probe_state(const char *name, char *state, size_t len)
{
	char *file = read_file("probes"), *line;
	size_t n = strlen(name);

	ASSERT_TRUE(file);
	snprintf(state, len, "missing");
	for (line = strtok(file, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, name, n) && line[n] == ' ')
			sscanf(line, "%*s %*s %63s", state);
	free(file);
}

TEST(enable_disable)
{
	struct nl *nl = open_family();
	char state[64];

	probe_state("faults", state, sizeof(state));
	ASSERT_STREQ(state, "disabled");
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_ENABLE, "faults", 0, NULL, NULL), 0);
	probe_state("faults", state, sizeof(state));
	ASSERT_STREQ(state, "attached");
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_DISABLE, "faults", 0, NULL, NULL), 0);
	probe_state("faults", state, sizeof(state));
	ASSERT_STREQ(state, "disabled");
}

/* ---- memleak's reports on the memleak group ------------------------- */

/* Every attribute an EVENT_MEMLEAK carries. */
static const int leak_attrs[] = {
	MEMSCOPE_A_TIME_NS, MEMSCOPE_A_LINE, MEMSCOPE_A_REPORT, MEMSCOPE_A_RANK,
	MEMSCOPE_A_SITE, MEMSCOPE_A_ALLOCS, MEMSCOPE_A_BYTES, MEMSCOPE_A_OLDEST_MS,
};
#define LEAK_BIT(t) (1u << ((t) - MEMSCOPE_A_TIME_NS))

struct leak_msg {
	const char *name, *line, *site;
	uint64_t report, allocs, bytes, oldest_ms, time_ns;
	uint32_t rank;
	unsigned int seen;	/* a bit per attribute type found */
};

static void leak_msg_parse(struct nlattr *attrs, int len, struct leak_msg *m)
{
	struct nlattr *a;

	nla_for_each(a, attrs, len) {
		int t = nla_type_of(a);

		switch (t) {
		case MEMSCOPE_A_NAME: m->name = nla_str(a); continue;
		case MEMSCOPE_A_LINE: m->line = nla_str(a); break;
		case MEMSCOPE_A_SITE: m->site = nla_str(a); break;
		case MEMSCOPE_A_REPORT: m->report = nla_u64(a); break;
		case MEMSCOPE_A_RANK: m->rank = nla_u32(a); break;
		case MEMSCOPE_A_ALLOCS: m->allocs = nla_u64(a); break;
		case MEMSCOPE_A_BYTES: m->bytes = nla_u64(a); break;
		case MEMSCOPE_A_OLDEST_MS: m->oldest_ms = nla_u64(a); break;
		case MEMSCOPE_A_TIME_NS: m->time_ns = nla_u64(a); break;
		default: continue;
		}
		m->seen |= LEAK_BIT(t);
	}
}

/*
 * With memleak on, a listener on "memleak" gets a report within an
 * interval or two (memleak_report_ms): one message per site, each with
 * its typed fields and the line that repeats them.
 */
TEST(memleak_report)
{
	static struct nl ev;
	struct nl *nl = open_family();
	struct leak_msg m = { 0 };
	unsigned int all = 0;
	char want[1024];
	long ms, deadline;
	FILE *f;
	int keep;

	if (!expect_groups()) {
		TH_LOG("no groups on this kernel: no reports to hear");
		return;
	}
	f = fopen("/sys/module/memscope/parameters/memleak_report_ms", "r");
	ASSERT_TRUE(f);
	ASSERT_EQ(fscanf(f, "%ld", &ms), 1);
	fclose(f);
	if (!ms) {
		TH_LOG("memleak_report_ms=0: no reports");
		return;
	}
	ASSERT_EQ(nl_open(&ev), 0);
	ASSERT_EQ(nl_resolve(&ev), 0);
	ASSERT_EQ(nl_join(&ev, ev.groups[3]), 0);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_ENABLE, "memleak", 0, NULL, NULL), 0);
	/* A socket is a slab object held while it is open: a site to report. */
	keep = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	ASSERT_GE(keep, 0);
	deadline = now_ms() + 3 * (ms < 100 ? 100 : ms) + 2000;
	while (!m.seen && now_ms() < deadline) {
		struct pollfd p = { .fd = ev.fd, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(ev.fd, ev.buf, sizeof(ev.buf), 0);
		ASSERT_GT(n, 0);
		for (h = (struct nlmsghdr *)ev.buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct genlmsghdr *g = NLMSG_DATA(h);

			if (h->nlmsg_type != ev.family || g->cmd != MEMSCOPE_CMD_EVENT_MEMLEAK)
				continue;
			leak_msg_parse((struct nlattr *)((char *)g + GENL_HDRLEN),
				       h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), &m);
			break;
		}
	}
	close(keep);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_DISABLE, "memleak", 0, NULL, NULL), 0);
	ASSERT_TRUE(m.seen);
	TH_LOG("report: %s", m.line ? m.line : "(no LINE)");
	for (keep = 0; keep < (int)(sizeof(leak_attrs) / sizeof(leak_attrs[0])); keep++)
		all |= LEAK_BIT(leak_attrs[keep]);
	ASSERT_EQ(m.seen, all);
	ASSERT_TRUE(m.name && !strcmp(m.name, "memleak"));
	ASSERT_TRUE(m.line && m.site);
	ASSERT_GE(m.report, 1);
	ASSERT_GE(m.rank, 1);
	ASSERT_GE(10, m.rank);
	ASSERT_GE(m.allocs, 1);
	ASSERT_TRUE(m.site[0] && strncmp(m.site, "0x", 2) && !strchr(m.site, ' '));
	snprintf(want, sizeof(want),
		 "time_ns=%llu report=%llu rank=%u site=%s allocs=%llu bytes=%llu oldest_ms=%llu",
		 (unsigned long long)m.time_ns, (unsigned long long)m.report, m.rank, m.site,
		 (unsigned long long)m.allocs, (unsigned long long)m.bytes,
		 (unsigned long long)m.oldest_ms);
	ASSERT_STREQ(m.line, want);
	nl_close(&ev);
}

/* Keep only the capabilities in @keep (a mask of CAP_* bits below 32). */
static void drop_caps(uint32_t keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	d[0].effective = d[0].permitted = keep;
	ASSERT_EQ(syscall(SYS_capset, &h, d), 0);
}

static void expect_eperm(void)
{
	struct nl *nl = open_family();
	int i;

	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_STATS, NULL, 0, NULL, NULL), -EPERM);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_PROBES, NULL, 0, NULL, NULL), -EPERM);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_TABLE, "faults_by_pid", 1, NULL, NULL), -EPERM);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_HIST, "fault_latency_ns", 0, NULL, NULL), -EPERM);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_RESET, NULL, 0, NULL, NULL), -EPERM);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_ENABLE, "faults", 0, NULL, NULL), -EPERM);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_DISABLE, "faults", 0, NULL, NULL), -EPERM);
	for (i = 0; i < 4; i++)
		if (nl->groups[i] >= 0)
			ASSERT_EQ(nl_join(nl, nl->groups[i]), -EPERM);
}

TEST(eperm_without_any_capability)
{
	drop_caps(0);
	expect_eperm();
}

/* CAP_NET_ADMIN passes the core's GENL_ADMIN_PERM: the module must refuse. */
TEST(eperm_without_cap_sys_admin)
{
	drop_caps(1u << CAP_NET_ADMIN);
	expect_eperm();
}

/* Last: it clears what the other tests compare. */
TEST(reset_clears)
{
	struct nl *nl = open_family();
	struct text t = { 0 }, tab = { 0 };
	char *file, *line;
	long before = -1, after = -1;

	file = read_file("stats");
	ASSERT_TRUE(file);
	line = strstr(file, "\nreset_count ");
	ASSERT_TRUE(line);
	before = atol(line + 13);
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_RESET, NULL, 0, NULL, NULL), 0);
	free(file);
	file = read_file("stats");
	line = strstr(file, "\nreset_count ");
	after = atol(line + 13);
	ASSERT_EQ(after, before + 1);
	tprintf(&t, "%s", "");
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_STATS, NULL, 0, stats_fn, &t), 0);
	ASSERT_STREQ(t.s, file);
	tprintf(&tab, "%s", "");
	ASSERT_EQ(nl_call(nl, MEMSCOPE_CMD_GET_TABLE, "faults_by_pid", 1, table_fn, &tab), 0);
	ASSERT_EQ(tab.rows, 0);
	ASSERT_STREQ(tab.s, "# pid comm faults major\n");
}

/* ---- the probes are detached for the run, and put back after -------- */

static char attached[4096];

static int attached_fn(const struct genlmsghdr *g __unused, struct nlattr *attrs, int len,
		       void *arg __unused)
{
	struct nlattr *a, *f;

	nla_for_each(a, attrs, len) {
		const char *name = NULL, *state = "";

		if (nla_type_of(a) != MEMSCOPE_A_PROBE)
			continue;
		nla_for_each(f, nla_payload(a), nla_payload_len(a)) {
			if (nla_type_of(f) == MEMSCOPE_A_NAME)
				name = nla_str(f);
			if (nla_type_of(f) == MEMSCOPE_A_STATE)
				state = nla_str(f);
		}
		if (name && !strcmp(state, "attached") &&
		    strlen(attached) + strlen(name) + 2 < sizeof(attached)) {
			strcat(attached, name);
			strcat(attached, " ");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct nl nl;
	char *name;
	int ret;

	if (getenv("MEMSCOPE_DIR"))
		dir = getenv("MEMSCOPE_DIR");
	if (geteuid()) {
		printf("TAP version 13\n1..0 # SKIP needs root\n");
		return KSFT_SKIP;
	}
	if (nl_open(&nl) || nl_resolve(&nl)) {
		printf("TAP version 13\n1..0 # SKIP no memscope family: module not loaded\n");
		return KSFT_SKIP;
	}
	if (nl_call(&nl, MEMSCOPE_CMD_GET_PROBES, NULL, 0, attached_fn, NULL) ||
	    nl_call(&nl, MEMSCOPE_CMD_DISABLE, "all", 0, NULL, NULL)) {
		printf("TAP version 13\n1..0 # cannot detach the probes\n");
		return KSFT_FAIL;
	}
	ret = ms_test_main(argc, argv);
	for (name = strtok(attached, " "); name; name = strtok(NULL, " "))
		if (nl_call(&nl, MEMSCOPE_CMD_ENABLE, name, 0, NULL, NULL))
			printf("# could not attach %s again\n", name);
	return ret;
}
