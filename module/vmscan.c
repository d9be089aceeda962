// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan, drsnoop and shrinkers: reclaim timed from the vmscan tracepoints.
 * Copyright (C) 2026 The memscope authors.
 *
 * Every timed quantity here is a begin/end tracepoint pair in the same
 * task: direct and memcg reclaim, one shrinker call, a kswapd awake period.
 * The task may sleep and migrate in between, so begins are remembered per
 * task (pair.c).
 */
#include <linux/mmzone.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/string.h>
#include <trace/events/vmscan.h>

#include "memscope.h"
#include "uapi/memscope_genl.h"

#define MS_VMSCAN_STATS(X)						\
	X(direct_reclaim_count, "Direct reclaims.")			\
	X(direct_reclaim_ns, "Time spent in direct reclaim.")		\
	X(direct_reclaim_pages, "Pages freed by direct reclaim.")	\
	X(memcg_reclaim_count, "Memory cgroup reclaims.")		\
	X(memcg_reclaim_ns, "Time spent in memory cgroup reclaim.")	\
	X(memcg_reclaim_pages, "Pages freed by memory cgroup reclaim.")	\
	X(shrink_slab_count, "shrink_slab calls.")			\
	X(shrink_slab_ns, "Time spent in shrink_slab.")			\
	X(shrink_slab_freed, "Objects freed by shrinkers.")		\
	X(kswapd_wakeups, "kswapd wakeup requests.")			\
	X(kswapd_wake_count, "kswapd wake periods.")			\
	X(kswapd_wake_ns, "Time kswapd spent awake.")			\
	X(writepage, "Pages written back by reclaim.")			\
	X(allocstall, "Global direct reclaim passes, as /proc/vmstat allocstall.")
MS_STAT_SET(vmscan, MS_VMSCAN_STATS);
MS_HIST(direct_reclaim_ns);
MS_HIST(memcg_reclaim_ns);
MS_HIST(shrink_slab_ns);
MS_PAIR(ms_direct_reclaim_pair);
MS_PAIR(ms_memcg_reclaim_pair);
MS_PAIR(ms_shrink_slab_pair);
MS_PAIR(ms_kswapd_pair);

static struct ms_table ms_table_shrinkers = {
	.file = "shrinkers", .header = "# shrinker count ns freed",
	.kind = MS_TK_PTR, .ncols = 3,
};

/* drsnoop's events; memcg is a flag over netlink. */
struct ms_reclaim_event {
	u64 time_ns;
	u64 latency_ns;
	unsigned long nr_reclaimed;
	pid_t pid;
	bool memcg;
	char comm[TASK_COMM_LEN];
};

#define MS_RECLAIM_FIELD(n, m, k, ...) \
	MS_EVENT_FIELD(struct ms_reclaim_event, n, m, k, __VA_ARGS__)

static const struct ms_field_desc ms_reclaim_fields[] = {
	MS_RECLAIM_FIELD("time_ns", time_ns, MS_FK_UINT,
			 .nla = MEMSCOPE_A_TIME_NS, .flags = MS_FIELD_NLA64),
	MS_RECLAIM_FIELD("pid", pid, MS_FK_INT, .nla = MEMSCOPE_A_PID),
	MS_RECLAIM_FIELD("comm", comm, MS_FK_STR, .nla = MEMSCOPE_A_COMM),
	MS_RECLAIM_FIELD("latency_ns", latency_ns, MS_FK_UINT,
			 .nla = MEMSCOPE_A_LATENCY_NS, .flags = MS_FIELD_NLA64),
	MS_RECLAIM_FIELD("nr_reclaimed", nr_reclaimed, MS_FK_UINT,
			 .nla = MEMSCOPE_A_NR_RECLAIMED, .flags = MS_FIELD_NLA64),
	MS_RECLAIM_FIELD("memcg", memcg, MS_FK_BOOL, .nla = MEMSCOPE_A_MEMCG_RECLAIM),
};

static struct ms_event_type ms_reclaim_events = {
	.desc = { .name = "direct_reclaim", MS_FIELDS(ms_reclaim_fields) },
	.size = MS_EVENT_SIZE(struct ms_reclaim_event),
	.genl_cmd = MEMSCOPE_CMD_EVENT_RECLAIM,
	.genl_group = MEMSCOPE_MCGRP_RECLAIM,
};

/* Direct and memcg reclaim: counted, timed, and recorded for drsnoop. */
static void ms_reclaim_end(struct ms_pair *pair, unsigned long nr_reclaimed)
{
	bool memcg = pair == &ms_memcg_reclaim_pair;
	u64 now = ms_pair_now(), lat;
	struct ms_reclaim_event ev;

	if (!ms_pair_end(pair, now, &lat))
		return;
	ms_stat_inc(vmscan, memcg ? MS_memcg_reclaim_count : MS_direct_reclaim_count);
	ms_stat_add(vmscan, memcg ? MS_memcg_reclaim_ns : MS_direct_reclaim_ns, lat);
	ms_stat_add(vmscan, memcg ? MS_memcg_reclaim_pages : MS_direct_reclaim_pages, nr_reclaimed);
	if (memcg)
		ms_hist_add(memcg_reclaim_ns, lat);
	else
		ms_hist_add(direct_reclaim_ns, lat);

	/*
	 * drsnoop.  BCC's traces global direct reclaim only; memcg reclaim
	 * stalls the allocating task just the same and is what containers
	 * hit, so it is recorded too, flagged memcg=1 for readers to filter.
	 */
	ev = (struct ms_reclaim_event){
		.time_ns = now,
		.latency_ns = lat,
		.nr_reclaimed = nr_reclaimed,
		.pid = current->pid,
		.memcg = memcg,
	};
	memcpy(ev.comm, current->comm, sizeof(ev.comm));
	ev.comm[sizeof(ev.comm) - 1] = '\0';
	ms_event_emit(&ms_reclaim_events, &ev);
}

static void ms_direct_reclaim_begin(MS_RECLAIM_BEGIN_PROTO)
{
	ms_hit(data);	/* the probe it was registered with */
	ms_pair_begin(&ms_direct_reclaim_pair, ms_pair_now(), false);
}

static void ms_direct_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	ms_hit(data);
	ms_reclaim_end(&ms_direct_reclaim_pair, nr_reclaimed);
}

static void ms_memcg_reclaim_begin(MS_RECLAIM_BEGIN_PROTO)
{
	ms_hit(data);
	ms_pair_begin(&ms_memcg_reclaim_pair, ms_pair_now(), false);
}

static void ms_memcg_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	ms_hit(data);
	ms_reclaim_end(&ms_memcg_reclaim_pair, nr_reclaimed);
}

/*
 * One shrinker call (do_shrink_slab): start and end in the same task, never
 * nested (reclaim runs with PF_MEMALLOC), but inside direct reclaim or
 * kswapd, hence pairs of their own.
 */
static void ms_shrink_slab_start(MS_SHRINK_SLAB_START_PROTO)
{
	ms_hit(data);
	ms_pair_begin_aux(&ms_shrink_slab_pair, ms_pair_now(), false,
			  ms_shrink_start_aux(shr, cache_items, total_scan));
}

static void ms_shrink_slab_end(MS_SHRINK_SLAB_END_PROTO)
{
	struct ms_table *t = &ms_table_shrinkers;
	unsigned long fn, freed;
	struct ms_row *row;
	u64 lat, aux;

	ms_hit(data);
	if (!ms_pair_end_aux(&ms_shrink_slab_pair, ms_pair_now(), &lat, &aux))
		return;
	/* The sum of scan_objects() returns, SHRINK_STOP excluded (compat). */
	freed = ms_shrink_freed(aux, shrinker_retval);
	ms_stat_inc(vmscan, MS_shrink_slab_count);
	ms_stat_add(vmscan, MS_shrink_slab_ns, lat);
	ms_stat_add(vmscan, MS_shrink_slab_freed, freed);
	ms_hist_add(shrink_slab_ns, lat);

	/*
	 * By scan_objects, which names the cache (super_cache_scan for every
	 * superblock's dentries and inodes), as the book's exercise asks.
	 * do_shrink_slab() holds the shrinker while we run.
	 */
	fn = (unsigned long)ms_shrinker_fn(shr);
	row = fn ? ms_table_get(t, fn) : NULL;
	if (!row)
		return;
	if (!READ_ONCE(row->ready)) {
		/*
		 * Also the name while the function is certainly loaded: %ps of
		 * the pointer after its module is gone would print the address.
		 */
		snprintf(row->name, sizeof(row->name), "%ps", (void *)fn);
		smp_store_release(&row->ready, 1);
	}
	ms_row_add(t, row, 0, 1);
	ms_row_add(t, row, 1, lat);
	ms_row_add(t, row, 2, freed);
}

/* vmscan.bt's KSWAPD column: wake-up requests from allocators. */
static void ms_wakeup_kswapd(MS_WAKEUP_KSWAPD_PROTO)
{
	ms_hit(data);
	ms_stat_inc(vmscan, MS_kswapd_wakeups);
}

/*
 * kswapd's awake periods, from the first kswapd_wake to kswapd_sleep:
 * kswapd may balance several times (several wake events) before it finds
 * the node balanced and sleeps, so a repeated wake keeps the first start.
 */
static void ms_kswapd_wake(MS_KSWAPD_WAKE_PROTO)
{
	ms_hit(data);
	ms_pair_begin(&ms_kswapd_pair, ms_pair_now(), true);
}

static void ms_kswapd_sleep(void *data, int nid)
{
	u64 lat;

	ms_hit(data);
	if (!ms_pair_end(&ms_kswapd_pair, ms_pair_now(), &lat))
		return;
	ms_stat_inc(vmscan, MS_kswapd_wake_count);
	ms_stat_add(vmscan, MS_kswapd_wake_ns, lat);
}

/* Pages reclaim wrote out itself (pageout()), vmscan.bt's WRITEPAGE. */
static void ms_writepage(MS_WRITEPAGE_PROTO)
{
	ms_hit(data);
	ms_stat_inc(vmscan, MS_writepage);
}

/*
 * allocstall, counted where the kernel counts it.  do_try_to_free_pages()
 * counts ALLOCSTALL for global reclaim at the top of each pass over the
 * zones, and a direct reclaim (one begin/end pair) can make more than one
 * pass: with nothing reclaimed it goes back with skipped_deactivate (5.8+),
 * memcg_low_skipped (4.16+), may_thrash (4.6-4.15) or memcg_full_walk
 * (6.10+).  Each pass then calls vmpressure_prio() first, with no target
 * memcg and the initial priority (DEF_PRIORITY for both callers,
 * try_to_free_pages() and hibernation's shrink_all_memory()); later calls
 * in the same pass have lower priorities.  memcg_full_walk's retry did not
 * reset the priority until a later fix, so there the pass starts at -1,
 * which no other call sees.  So each call with no memcg at DEF_PRIORITY
 * or below 0 is one allocstall, and allocstall minus direct_reclaim_count
 * is the number of retries.
 */
static int ms_allocstall_pre(struct kprobe *kp, struct pt_regs *regs)
{
	int prio = (int)ms_arg(regs, 2);

	ms_hit(container_of(kp, struct ms_probe, kp));
	if (!ms_arg(regs, 1) && (prio == DEF_PRIORITY || prio < 0))
		ms_stat_inc(vmscan, MS_allocstall);
	return 0;
}

/* Each handler against the kernel's own prototype (MS_TP_CHECK()). */
static void __maybe_unused ms_vmscan_check_protos(void)
{
	MS_TP_CHECK(mm_vmscan_direct_reclaim_begin, ms_direct_reclaim_begin);
	MS_TP_CHECK(mm_vmscan_direct_reclaim_end, ms_direct_reclaim_end);
	MS_TP_CHECK_MEMCG(mm_vmscan_memcg_reclaim_begin, ms_memcg_reclaim_begin);
	MS_TP_CHECK_MEMCG(mm_vmscan_memcg_reclaim_end, ms_memcg_reclaim_end);
	MS_TP_CHECK(mm_shrink_slab_start, ms_shrink_slab_start);
	MS_TP_CHECK(mm_shrink_slab_end, ms_shrink_slab_end);
	MS_TP_CHECK(mm_vmscan_wakeup_kswapd, ms_wakeup_kswapd);
	MS_TP_CHECK(mm_vmscan_kswapd_wake, ms_kswapd_wake);
	MS_TP_CHECK(mm_vmscan_kswapd_sleep, ms_kswapd_sleep);
	(void)sizeof(ms_register_trace_writepage(ms_writepage, NULL));
}

#define MS_TP_TARGETS(tp) ((const char *const[]){ tp, NULL })

#define MS_TP_PROBE(pname, tp, fn, ...) {		\
	.name = #pname,					\
	.targets = MS_TP_TARGETS(tp),			\
	.kind = MS_TRACEPOINT,				\
	.tp_func = fn,					\
	__VA_ARGS__					\
}

#define MS_NEEDS_MEMCG .unsupported = IS_ENABLED(CONFIG_MEMCG) ? NULL : "config_memcg_disabled"

static struct ms_probe ms_vmscan_probes[] = {
	MS_TP_PROBE(direct_reclaim_begin, "mm_vmscan_direct_reclaim_begin", ms_direct_reclaim_begin),
	MS_TP_PROBE(direct_reclaim_end, "mm_vmscan_direct_reclaim_end", ms_direct_reclaim_end),
	MS_TP_PROBE(memcg_reclaim_begin, "mm_vmscan_memcg_reclaim_begin", ms_memcg_reclaim_begin,
		    MS_NEEDS_MEMCG),
	MS_TP_PROBE(memcg_reclaim_end, "mm_vmscan_memcg_reclaim_end", ms_memcg_reclaim_end,
		    MS_NEEDS_MEMCG),
	MS_TP_PROBE(shrink_slab_start, "mm_shrink_slab_start", ms_shrink_slab_start),
	MS_TP_PROBE(shrink_slab_end, "mm_shrink_slab_end", ms_shrink_slab_end),
	MS_TP_PROBE(wakeup_kswapd, "mm_vmscan_wakeup_kswapd", ms_wakeup_kswapd),
	MS_TP_PROBE(kswapd_wake, "mm_vmscan_kswapd_wake", ms_kswapd_wake),
	MS_TP_PROBE(kswapd_sleep, "mm_vmscan_kswapd_sleep", ms_kswapd_sleep),
	/*
	 * Only the event whose prototype was checked above: the other name
	 * is the same event on another kernel, with another argument type.
	 */
	MS_TP_PROBE(writepage, MS_TP_WRITEPAGE, ms_writepage),
};

static struct ms_probe ms_allocstall_probe = {
	.name = "allocstall",
	.targets = (const char *const[]){ "vmpressure_prio", NULL },
	.kind = MS_KPROBE,
	.pre_handler = ms_allocstall_pre,
	/* vmpressure.c is built with MEMCG; without it the call is a stub. */
	MS_NEEDS_MEMCG,
};

static int ms_vmscan_init(void)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(ms_vmscan_probes) && !err; i++)
		err = ms_probe_add(&ms_vmscan_probes[i]);
	return err ?: ms_table_add(&ms_table_shrinkers) ?: ms_stat_set_add(&ms_vmscan_stats) ?:
	       ms_event_type_add(&ms_reclaim_events) ?: ms_pair_add(&ms_direct_reclaim_pair) ?:
	       ms_pair_add(&ms_memcg_reclaim_pair) ?: ms_pair_add(&ms_shrink_slab_pair) ?:
	       ms_pair_add(&ms_kswapd_pair) ?:
	       ms_hist_register(&ms_hist_direct_reclaim_ns) ?:
	       ms_hist_register(&ms_hist_memcg_reclaim_ns) ?:
	       ms_hist_register(&ms_hist_shrink_slab_ns);
}

const struct ms_family ms_vmscan_family = {
	.init = ms_vmscan_init,
};

/* allocstall came after the other tools: its probe is listed after theirs. */
static int ms_allocstall_init(void)
{
	return ms_probe_add(&ms_allocstall_probe);
}

const struct ms_family ms_allocstall_family = {
	.init = ms_allocstall_init,
};
