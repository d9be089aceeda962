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
	"oom_score_adj", "order", "gfp_mask", NULL
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

/*
 * BCC oomkill's line, then the rest of the kill's story indented:
 * 08:32:31 Triggered by PID 3456 ("stress"), OOM kill of PID 3457 ("stress"), 262144 pages, loadavg: 0.10 0.20 0.30 1/80 123
 *     anon-rss:1048576kB, file-rss:0kB, shmem-rss:0kB, memcg:/test, oom_score_adj:0, order:0, gfp_mask:0xcc0
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
	print_string(PRINT_ANY, "loadavg", "loadavg: %s\n", field_s(r, "loadavg"));
	print_num_str(PRINT_ANY, "anon_rss_kb", "    anon-rss:%skB, ", field(r, "anon_rss_kb"));
	print_num_str(PRINT_ANY, "file_rss_kb", "file-rss:%skB, ", field(r, "file_rss_kb"));
	print_num_str(PRINT_ANY, "shmem_rss_kb", "shmem-rss:%skB, ", field(r, "shmem_rss_kb"));
	print_string(PRINT_ANY, "memcg", "memcg:%s, ", field_s(r, "memcg"));
	print_num_str(PRINT_ANY, "oom_score_adj", "oom_score_adj:%s, ", field(r, "oom_score_adj"));
	print_num_str(PRINT_ANY, "order", "order:%s, ", field(r, "order"));
	print_string(PRINT_ANY, "gfp_mask", "gfp_mask:%s\n", field_s(r, "gfp_mask"));
	for (i = 0; i < r->n; i++)
		if (!is_shown(r->f[i].key))
			print_num_str(PRINT_JSON, r->f[i].key, NULL, r->f[i].val);
}

static int oom_event(void *ctx, const struct ms_record *r)
{
	(void)ctx;
	print_begin_record();
	ms_print_oom(r);
	print_end_record();
	return 0;
}

static int oom_last(void)
{
	struct ms_ring ring;
	size_t i;

	if (ms_load_ring("oom", &ring, false))
		return 1;
	/* one JSON line per kill, the same shape as the live stream */
	for (i = 0; i < ring.n; i++) {
		print_begin_record();
		ms_print_oom(&ring.v[i]);
		print_end_record();
	}
	if (!ring.n && !print_is_json())
		printf("No OOM kills recorded since the module was loaded.\n");
	ms_ring_free(&ring);
	return 0;
}

int cmd_oomkill(const struct ms_opts *o)
{
	if (ms_check_probes("oomkill", oom_probes))
		return 1;
	if (o->last)
		return oom_last();
	print_fp("Tracing OOM kills... Ctrl-C to stop.\n");
	fflush(stdout);
	return ms_follow_events("oom", oom_event, NULL) ? 1 : 0;
}
