// SPDX-License-Identifier: GPL-2.0
/*
 * What a tool's probes missed while it ran, said with its report.
 * Copyright (C) 2026 The memscope authors.
 *
 * A kprobe hit that the kernel could not hand to memscope's handler (it
 * fired while another kprobe handler ran on that CPU: in an interrupt that
 * came in during one, or from inside one) is counted as missed, and the
 * event it stood for is in no counter or table.  The numbers a report
 * shows are then short by up to that many, and `memscope status` is not
 * where a user looks, so the report says it: one warning line naming each
 * probe that missed hits in the span the report covers.
 */
#include <stdio.h>
#include <string.h>

#include "memscope.h"

static const char *const *watched;

/* The probes (names or targets, patterns as ms_check_probes takes) to watch. */
void ms_missed_watch(const char *const *patterns)
{
	watched = patterns;
}

/* The watched probes' missed counts now; none watched or no file: n = 0. */
void ms_missed_snapshot(struct ms_missed *m)
{
	struct ms_probe_lines pr;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (!watched || ms_load_probes(&pr, true))
		return;
	for (i = 0; i < pr.n && m->n < MS_MISSED_MAX; i++) {
		if (!ms_probe_matches(&pr.v[i], watched))
			continue;
		snprintf(m->p[m->n].name, sizeof(m->p[m->n].name), "%s (%s)",
			 pr.v[i].name, pr.v[i].target);
		m->p[m->n].missed = pr.v[i].missed;
		m->n++;
	}
	ms_probes_free(&pr);
}

static uint64_t missed_before(const struct ms_missed *prev, const char *name)
{
	size_t i;

	for (i = 0; prev && i < prev->n; i++)
		if (!strcmp(prev->p[i].name, name))
			return prev->p[i].missed;
	return 0;
}

/*
 * One warning for the misses between prev and now (prev NULL: since the
 * module was loaded, as a cumulative report's counts are); span says
 * which, for the user.
 */
void ms_missed_warn(const struct ms_missed *prev, const struct ms_missed *now, const char *span)
{
	char list[512] = "";
	size_t i, len = 0;
	uint64_t total = 0;

	for (i = 0; i < now->n; i++) {
		uint64_t before = missed_before(prev, now->p[i].name);
		uint64_t d = now->p[i].missed >= before ? now->p[i].missed - before : 0;

		if (!d)
			continue;
		total += d;
		if (len < sizeof(list))
			len += snprintf(list + len, sizeof(list) - len, "%s%s missed %llu",
					len ? ", " : "", now->p[i].name, (unsigned long long)d);
	}
	if (!total)
		return;
	print_warn("%s %s: these counts are short by up to %llu event%s. The kernel skips a probe that fires while another kprobe handler runs on the same CPU (from an interrupt, or from inside that handler); other kprobe users (BCC, bpftrace, perf probe) make it more likely. `memscope status` shows every probe's misses",
		   list, span,
		   (unsigned long long)total, total == 1 ? "" : "s");
}
