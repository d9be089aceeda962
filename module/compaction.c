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

/* A compaction's result by name, or by number where the kernel names none. */
static int ms_compaction_status_format(char *b, size_t len, const void *rec)
{
	int status = ((const struct ms_event *)rec)->compaction.status;

	if (status >= 0 && status < ARRAY_SIZE(ms_compaction_status) &&
	    ms_compaction_status[status])
		return scnprintf(b, len, "%s", ms_compaction_status[status]);
	return scnprintf(b, len, "%d", status);
}

static const struct ms_field_desc ms_compaction_fields[] = {
	MS_EVENT_FIELD("time_ns", compaction.time_ns, MS_FK_UINT,
		       .nla = MEMSCOPE_A_TIME_NS, .flags = MS_FIELD_NLA64),
	MS_EVENT_FIELD("pid", compaction.pid, MS_FK_INT, .nla = MEMSCOPE_A_PID),
	MS_EVENT_FIELD("comm", compaction.comm, MS_FK_STR, .nla = MEMSCOPE_A_COMM),
	MS_EVENT_FIELD("latency_ns", compaction.latency_ns, MS_FK_UINT,
		       .nla = MEMSCOPE_A_LATENCY_NS, .flags = MS_FIELD_NLA64),
	MS_EVENT_FIELD("status", compaction.status, MS_FK_TEXT, .nla = MEMSCOPE_A_STATUS,
		       .format = ms_compaction_status_format),
};

const struct ms_record_desc ms_event_compaction = {
	.name = "compaction",
	MS_FIELDS(ms_compaction_fields),
	.genl_cmd = MEMSCOPE_CMD_EVENT_COMPACTION,
	.genl_group = MS_GENL_COMPACTION,
};

static void ms_compaction_done(int status)
{
	u64 now = ms_pair_now(), lat;
	struct ms_event ev = { .type = MS_EV_COMPACTION };

	if (!ms_pair_end(MS_PAIR_COMPACTION, now, &lat))
		return;
	ms_stat_inc(MS_compaction_count);
	ms_stat_add(MS_compaction_ns, lat);
	ms_hist_add(MS_H_compaction_ns, lat);

	ev.compaction.time_ns = now;
	ev.compaction.latency_ns = lat;
	ev.compaction.pid = current->pid;
	ev.compaction.status = status;	/* enum compact_result */
	memcpy(ev.compaction.comm, current->comm, sizeof(ev.compaction.comm));
	ev.compaction.comm[sizeof(ev.compaction.comm) - 1] = '\0';
	ms_event_emit(&ev);
}

/*
 * The events' arguments changed in 5.18/5.19 (compat/tracepoints.h); only
 * the status is used either way.
 */
static void __maybe_unused ms_compaction_begin(MS_COMPACTION_BEGIN_PROTO)
{
	ms_hit(data);	/* the probe it was registered with */
	ms_pair_begin(MS_PAIR_COMPACTION, ms_pair_now(), false);
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

int ms_compaction_init(void)
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
	       ms_probe_add(&ms_compaction_end_probe);
}
