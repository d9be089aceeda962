// SPDX-License-Identifier: GPL-2.0
/*
 * compact: time in memory compaction, per event and as a histogram.
 * Copyright (C) 2026 The memscope authors.
 *
 * mm_compaction_begin/end bracket one compact_zone() run, whoever asked
 * for it: an allocation (direct compaction), kcompactd, or a write to
 * /proc/sys/vm/compact_memory.  The run may sleep and migrate, so begins
 * are kept per task (pair.c).
 */
#include <linux/sched.h>
#include <linux/string.h>

#include "compat/compaction.h"

#include "memscope.h"

#define MS_COMPACTION_STATS(X)						\
	X(compaction_count, "Memory compactions.")			\
	X(compaction_ns, "Time spent in memory compaction.")
MS_STAT_SET(compaction, MS_COMPACTION_STATS);
MS_HIST(compaction_ns);
MS_PAIR(ms_compaction_pair);
#include "uapi/memscope_genl.h"

/*
 * The kernel's own names for enum compact_result, from the list its
 * tracepoints print (trace/events/mmflags.h, included by the header
 * above).  A status it does not name is printed as a number.
 */
#undef EM
#undef EMe
#define EM(a, b)	[a] = b,
#define EMe(a, b)	[a] = b
static const char *const ms_compaction_status[] = { MS_COMPACTION_STATUS };
#undef EM
#undef EMe

struct ms_compaction_event {
	u64 time_ns;
	u64 latency_ns;
	pid_t pid;
	int status;
	char comm[TASK_COMM_LEN];
};

/* A compaction's result by name, or by number where the kernel names none. */
static int ms_compaction_status_format(char *b, size_t len, const void *rec)
{
	const struct ms_compaction_event *e = ms_event_rec(rec);
	int status = e->status;

	if (status >= 0 && status < ARRAY_SIZE(ms_compaction_status) &&
	    ms_compaction_status[status])
		return scnprintf(b, len, "%s", ms_compaction_status[status]);
	return scnprintf(b, len, "%d", status);
}

#define MS_COMPACTION_FIELD(n, m, k, ...) \
	MS_EVENT_FIELD(struct ms_compaction_event, n, m, k, __VA_ARGS__)

static const struct ms_field_desc ms_compaction_fields[] = {
	MS_COMPACTION_FIELD("time_ns", time_ns, MS_FK_UINT,
			    .nla = MEMSCOPE_A_TIME_NS, .flags = MS_FIELD_NLA64),
	MS_COMPACTION_FIELD("pid", pid, MS_FK_INT, .nla = MEMSCOPE_A_PID),
	MS_COMPACTION_FIELD("comm", comm, MS_FK_STR, .nla = MEMSCOPE_A_COMM),
	MS_COMPACTION_FIELD("latency_ns", latency_ns, MS_FK_UINT,
			    .nla = MEMSCOPE_A_LATENCY_NS, .flags = MS_FIELD_NLA64),
	MS_COMPACTION_FIELD("status", status, MS_FK_TEXT, .nla = MEMSCOPE_A_STATUS,
			    .format = ms_compaction_status_format),
};

static struct ms_event_type ms_compaction_events = {
	.desc = { .name = "compaction", MS_FIELDS(ms_compaction_fields) },
	.size = MS_EVENT_SIZE(struct ms_compaction_event),
	.genl_cmd = MEMSCOPE_CMD_EVENT_COMPACTION,
	.genl_group = MEMSCOPE_MCGRP_COMPACTION,
};

static void ms_compaction_done(int status)
{
	u64 now = ms_pair_now(), lat;
	struct ms_compaction_event ev;

	if (!ms_pair_end(&ms_compaction_pair, now, &lat))
		return;
	ms_stat_inc(compaction, MS_compaction_count);
	ms_stat_add(compaction, MS_compaction_ns, lat);
	ms_hist_add(compaction_ns, lat);

	ev = (struct ms_compaction_event){
		.time_ns = now,
		.latency_ns = lat,
		.pid = current->pid,
		.status = status,	/* enum compact_result */
	};
	memcpy(ev.comm, current->comm, sizeof(ev.comm));
	ev.comm[sizeof(ev.comm) - 1] = '\0';
	ms_event_emit(&ms_compaction_events, &ev);
}

/*
 * The events' arguments changed in 5.18/5.19 (compat/tracepoints.h); only
 * the status is used either way.
 */
static void __maybe_unused ms_compaction_begin(MS_COMPACTION_BEGIN_PROTO)
{
	ms_hit(data);	/* the probe it was registered with */
	ms_pair_begin(&ms_compaction_pair, ms_pair_now(), false);
}

static void __maybe_unused ms_compaction_end(MS_COMPACTION_END_PROTO)
{
	ms_hit(data);
	ms_compaction_done(status);
}

/* Prototypes checked against the kernel's header; see vmscan.c. */
static void __maybe_unused ms_compaction_check_protos(void)
{
	(void)sizeof(ms_register_trace_compaction_begin(ms_compaction_begin, NULL));
	(void)sizeof(ms_register_trace_compaction_end(ms_compaction_end, NULL));
}

static const char *const ms_compaction_begin_targets[] = { "mm_compaction_begin", NULL };
static const char *const ms_compaction_end_targets[] = { "mm_compaction_end", NULL };

static struct ms_probe ms_compaction_begin_probe = {
	.name = "compaction_begin",
	.targets = ms_compaction_begin_targets,
	.kind = MS_TRACEPOINT,
	.tp_func = ms_compaction_begin,
};

static struct ms_probe ms_compaction_end_probe = {
	.name = "compaction_end",
	.targets = ms_compaction_end_targets,
	.kind = MS_TRACEPOINT,
	.tp_func = ms_compaction_end,
};

static int ms_compaction_init(void)
{
	if (!IS_ENABLED(CONFIG_COMPACTION)) {
		ms_compaction_begin_probe.unsupported = "config_compaction_disabled";
		ms_compaction_end_probe.unsupported = "config_compaction_disabled";
	} else if (!IS_ENABLED(MS_HAVE_TP_COMPACTION_BEGIN)) {
		/* [3.10, 3.16): compaction had no begin and end events. */
		ms_compaction_begin_probe.unsupported = "no_compaction_tracepoints";
		ms_compaction_end_probe.unsupported = "no_compaction_tracepoints";
	}
	return ms_probe_add(&ms_compaction_begin_probe) ?:
	       ms_probe_add(&ms_compaction_end_probe) ?: ms_stat_set_add(&ms_compaction_stats) ?:
	       ms_event_type_add(&ms_compaction_events) ?: ms_pair_add(&ms_compaction_pair) ?:
	       ms_hist_register(&ms_hist_compaction_ns);
}

const struct ms_family ms_compaction_family = {
	.init = ms_compaction_init,
};
