// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "memscope.h"

static const char *const oom_probes[] = {
	"oom*", "oom_kill_process", "mark_victim", NULL
};

/* Fields the two text lines show; the rest reach JSON as they are. */
static const char *const shown[] = {
	"trigger_pid", "trigger_comm", "victim_pid", "victim_comm", "pages",
	"loadavg", "anon_rss_kb", "file_rss_kb", "shmem_rss_kb", "memcg",
	"oom_score_adj", "order", "gfp_mask", "gfp_flags", NULL
};

static bool is_shown(const char *key)
{
	const char *const *p;

	for (p = shown; *p; p++)
		if (!strcmp(*p, key))
			return true;
	return false;
}

static const char *field(const struct ms_record *r, const char *key)
{
	return ms_rec_get(r, key);
}

static const char *field_s(const struct ms_record *r, const char *key)
{
	const char *v = ms_rec_get(r, key);

	return v ? v : "?";
}

/* The file's "1.00,0.50,0.20,2/90,600" as /proc/loadavg and BCC print it. */
static void print_loadavg(const struct ms_record *r)
{
	char buf[96], *p;

	snprintf(buf, sizeof(buf), "%s", field_s(r, "loadavg"));
	for (p = buf; (p = strchr(p, ',')); )
		*p = ' ';
	print_string(PRINT_ANY, "loadavg", "loadavg: %s\n", buf);
}

/*
 * An RSS the kernel cannot give (mark_victim before 6.9) is "-" in the
 * file: text says "unknown", JSON null.
 */
static void print_rss(const struct ms_record *r, const char *key, const char *label,
		      const char *sep)
{
	const char *v = field(r, key);
	char fmt[48];

	if (v && !strcmp(v, "-")) {
		print_fp("%s:unknown%s", label, sep);
		print_string(PRINT_JSON, key, NULL, NULL);
		return;
	}
	snprintf(fmt, sizeof(fmt), "%s:%%skB%s", label, sep);
	print_num_str(PRINT_ANY, key, fmt, v);
}

/*
 * BCC oomkill's line, then the rest of the kill's story indented:
 * 08:32:31 Triggered by PID 3456 ("stress"), OOM kill of PID 3457 ("stress"), 262144 pages, loadavg: 0.10 0.20 0.30 1/80 123
 *     anon-rss:1048576kB, file-rss:0kB, shmem-rss:0kB, memcg:/test, oom_score_adj:0, order:0, gfp_mask:0xcc0(GFP_KERNEL)
 */
void ms_print_oom(const struct ms_record *r)
{
	char hms[16];
	uint64_t t = 0;
	size_t i;

	ms_rec_u64(r, "time_ns", &t);
	ms_fmt_hms_mono_ns(hms, sizeof(hms), t);
	print_string(PRINT_ANY, "time", "%s ", hms);
	print_num_str(PRINT_ANY, "trigger_pid", "Triggered by PID %s ", field(r, "trigger_pid"));
	print_string(PRINT_ANY, "trigger_comm", "(\"%s\"), ", field_s(r, "trigger_comm"));
	print_num_str(PRINT_ANY, "victim_pid", "OOM kill of PID %s ", field(r, "victim_pid"));
	print_string(PRINT_ANY, "victim_comm", "(\"%s\"), ", field_s(r, "victim_comm"));
	print_num_str(PRINT_ANY, "pages", "%s pages, ", field(r, "pages"));
	print_loadavg(r);
	print_fp("    ");
	print_rss(r, "anon_rss_kb", "anon-rss", ", ");
	print_rss(r, "file_rss_kb", "file-rss", ", ");
	print_rss(r, "shmem_rss_kb", "shmem-rss", ", ");
	print_string(PRINT_ANY, "memcg", "memcg:%s, ", field_s(r, "memcg"));
	print_num_str(PRINT_ANY, "oom_score_adj", "oom_score_adj:%s, ", field(r, "oom_score_adj"));
	print_num_str(PRINT_ANY, "order", "order:%s, ", field(r, "order"));
	/* as the kernel's own report: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP) */
	print_string(PRINT_ANY, "gfp_mask", "gfp_mask:%s", field_s(r, "gfp_mask"));
	print_string(PRINT_ANY, "gfp_flags", "(%s)\n", field_s(r, "gfp_flags"));
	for (i = 0; i < r->n; i++)
		if (!is_shown(r->f[i].key))
			print_num_str(PRINT_JSON, r->f[i].key, NULL, r->f[i].val);
}

/*
 * Each kill once.  The module numbers kills (seq=, the same in the oom
 * ring and the stream) and gives a reader of the stream the kills it lost
 * behind other events; a kill the stream could still lose on the way (a
 * netlink socket that overran, the moment between reading the ring and
 * opening the stream) is looked for in the oom ring after every loss.
 */
struct oom_follow {
	bool have_last;		/* a kill at or before last was printed or seen */
	uint32_t last;		/* the module's seq is 32 bits, compared so */
};

static void print_kill(const struct ms_record *r)
{
	print_begin_record();
	ms_print_oom(r);
	print_end_record();
}

/* True if r is a kill not printed yet, and from now on the last one. */
static bool oom_is_new(struct oom_follow *f, const struct ms_record *r)
{
	uint64_t seq;

	if (!ms_rec_u64(r, "seq", &seq))
		return true;		/* a module without numbers: as it comes */
	if (f->have_last && (int32_t)((uint32_t)seq - f->last) <= 0)
		return false;
	f->have_last = true;
	f->last = (uint32_t)seq;
	return true;
}

static int oom_event(void *ctx, const struct ms_record *r)
{
	if (oom_is_new(ctx, r))
		print_kill(r);
	fflush(stdout);
	return 0;
}

/* Kills in the oom ring after the last one printed, in their order. */
static int oom_recover(void *ctx)
{
	struct oom_follow *f = ctx;
	struct ms_records ring;
	uint64_t seq;
	size_t i;

	if (ms_load_ring("oom", &ring, false))
		return 1;
	for (i = 0; i < ring.n; i++)
		if (ms_rec_u64(&ring.v[i], "seq", &seq) && oom_is_new(f, &ring.v[i]))
			print_kill(&ring.v[i]);
	ms_ring_free(&ring);
	fflush(stdout);
	return 0;
}

/*
 * Where following starts: after the last kill the ring holds now.  No
 * ring (a recording without one) is no kill.
 */
static int oom_baseline(struct oom_follow *f)
{
	struct ms_records ring;
	uint64_t seq;
	size_t i;
	int ret;

	ret = ms_load_ring("oom", &ring, true);
	if (ret)
		return ret < 0;
	for (i = 0; i < ring.n; i++)
		if (ms_rec_u64(&ring.v[i], "seq", &seq))
			oom_is_new(f, &ring.v[i]);
	ms_ring_free(&ring);
	return 0;
}

static int oom_last(void)
{
	struct ms_records ring;
	size_t i;

	if (ms_load_ring("oom", &ring, false))
		return 1;
	/* one JSON line per kill, the same shape as the live stream */
	for (i = 0; i < ring.n; i++)
		print_kill(&ring.v[i]);
	if (!ring.n && !print_is_json())
		printf("No OOM kills recorded since the module was loaded.\n");
	ms_ring_free(&ring);
	return 0;
}

static int cmd_oomkill(const struct ms_opts *o)
{
	struct oom_follow f = { 0 };

	if (ms_check_probes("oomkill", oom_probes))
		return 1;
	if (o->last)
		return oom_last();
	if (oom_baseline(&f))
		return 1;
	print_fp("Tracing OOM kills... Ctrl-C to stop.\n");
	fflush(stdout);
	return ms_follow_events_recover("oom", oom_event, oom_recover, &f) ? 1 : 0;
}

MS_TOOL(oomkill,
	.topic = MS_TOPIC_PRESSURE, .rank = 10,
	.opts = OPT_LAST,
	.usage = "oomkill [--last]",
	.summary = "OOM kills as they happen (--last: the recent ones)");
