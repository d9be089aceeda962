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

static struct ms_table ms_table_shrinkers = {
	.file = "shrinkers", .header = "# shrinker count ns freed",
	.kind = MS_TK_PTR, .ncols = 3,
};

/* Direct and memcg reclaim: counted, timed, and recorded for drsnoop. */
static void ms_reclaim_end(enum ms_pair kind, unsigned long nr_reclaimed)
{
	bool memcg = kind == MS_PAIR_MEMCG_RECLAIM;
	u64 now = ms_pair_now(), lat;
	struct ms_event ev = { .type = MS_EV_DIRECT_RECLAIM };

	if (!ms_pair_end(kind, now, &lat))
		return;
	ms_stat_inc(memcg ? MS_memcg_reclaim_count : MS_direct_reclaim_count);
	ms_stat_add(memcg ? MS_memcg_reclaim_ns : MS_direct_reclaim_ns, lat);
	ms_stat_add(memcg ? MS_memcg_reclaim_pages : MS_direct_reclaim_pages, nr_reclaimed);
	ms_hist_add(memcg ? MS_H_memcg_reclaim_ns : MS_H_direct_reclaim_ns, lat);

	/*
	 * drsnoop.  BCC's traces global direct reclaim only; memcg reclaim
	 * stalls the allocating task just the same and is what containers
	 * hit, so it is recorded too, flagged memcg=1 for readers to filter.
	 */
	ev.reclaim.time_ns = now;
	ev.reclaim.latency_ns = lat;
	ev.reclaim.nr_reclaimed = nr_reclaimed;
	ev.reclaim.pid = current->pid;
	ev.reclaim.memcg = memcg;
	memcpy(ev.reclaim.comm, current->comm, sizeof(ev.reclaim.comm));
	ev.reclaim.comm[sizeof(ev.reclaim.comm) - 1] = '\0';
	ms_event_emit(&ev);
}

/* drsnoop's events; memcg is a flag over netlink. */
static const struct ms_field_desc ms_reclaim_fields[] = {
	MS_EVENT_FIELD("time_ns", reclaim.time_ns, MS_FK_UINT,
		       .nla = MEMSCOPE_A_TIME_NS, .flags = MS_FIELD_NLA64),
	MS_EVENT_FIELD("pid", reclaim.pid, MS_FK_INT, .nla = MEMSCOPE_A_PID),
	MS_EVENT_FIELD("comm", reclaim.comm, MS_FK_STR, .nla = MEMSCOPE_A_COMM),
	MS_EVENT_FIELD("latency_ns", reclaim.latency_ns, MS_FK_UINT,
		       .nla = MEMSCOPE_A_LATENCY_NS, .flags = MS_FIELD_NLA64),
	MS_EVENT_FIELD("nr_reclaimed", reclaim.nr_reclaimed, MS_FK_UINT,
		       .nla = MEMSCOPE_A_NR_RECLAIMED, .flags = MS_FIELD_NLA64),
	MS_EVENT_FIELD("memcg", reclaim.memcg, MS_FK_BOOL, .nla = MEMSCOPE_A_MEMCG_RECLAIM),
};

const struct ms_record_desc ms_event_direct_reclaim = {
	.name = "direct_reclaim",
	MS_FIELDS(ms_reclaim_fields),
	.genl_cmd = MEMSCOPE_CMD_EVENT_RECLAIM,
	.genl_group = MS_GENL_RECLAIM,
};

static void ms_direct_reclaim_begin(MS_RECLAIM_BEGIN_PROTO)
{
	ms_hit(data);	/* the probe it was registered with */
	ms_pair_begin(MS_PAIR_DIRECT_RECLAIM, ms_pair_now(), false);
}

static void ms_direct_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	ms_hit(data);
	ms_reclaim_end(MS_PAIR_DIRECT_RECLAIM, nr_reclaimed);
}

static void ms_memcg_reclaim_begin(MS_RECLAIM_BEGIN_PROTO)
{
	ms_hit(data);
	ms_pair_begin(MS_PAIR_MEMCG_RECLAIM, ms_pair_now(), false);
}

static void ms_memcg_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	ms_hit(data);
	ms_reclaim_end(MS_PAIR_MEMCG_RECLAIM, nr_reclaimed);
}

/*
 * One shrinker call (do_shrink_slab): start and end in the same task, never
 * nested (reclaim runs with PF_MEMALLOC), but inside direct reclaim or
 * kswapd, hence pairs of their own.
 */
static void ms_shrink_slab_start(MS_SHRINK_SLAB_START_PROTO)
{
	ms_hit(data);
	ms_pair_begin_aux(MS_PAIR_SHRINK_SLAB, ms_pair_now(), false,
			  ms_shrink_start_aux(shr, cache_items, total_scan));
}

static void ms_shrink_slab_end(MS_SHRINK_SLAB_END_PROTO)
{
	struct ms_table *t = &ms_table_shrinkers;
	unsigned long fn, freed;
	struct ms_row *row;
	u64 lat, aux;

	ms_hit(data);
	if (!ms_pair_end_aux(MS_PAIR_SHRINK_SLAB, ms_pair_now(), &lat, &aux))
		return;
	/* The sum of scan_objects() returns, SHRINK_STOP excluded (compat). */
	freed = ms_shrink_freed(aux, shrinker_retval);
	ms_stat_inc(MS_shrink_slab_count);
	ms_stat_add(MS_shrink_slab_ns, lat);
	ms_stat_add(MS_shrink_slab_freed, freed);
	ms_hist_add(MS_H_shrink_slab_ns, lat);

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
	ms_stat_inc(MS_kswapd_wakeups);
}

/*
 * kswapd's awake periods, from the first kswapd_wake to kswapd_sleep:
 * kswapd may balance several times (several wake events) before it finds
 * the node balanced and sleeps, so a repeated wake keeps the first start.
 */
static void ms_kswapd_wake(MS_KSWAPD_WAKE_PROTO)
{
	ms_hit(data);
	ms_pair_begin(MS_PAIR_KSWAPD, ms_pair_now(), true);
}

static void ms_kswapd_sleep(void *data, int nid)
{
	u64 lat;

	ms_hit(data);
	if (!ms_pair_end(MS_PAIR_KSWAPD, ms_pair_now(), &lat))
		return;
	ms_stat_inc(MS_kswapd_wake_count);
	ms_stat_add(MS_kswapd_wake_ns, lat);
}

/* Pages reclaim wrote out itself (pageout()), vmscan.bt's WRITEPAGE. */
static void ms_writepage(MS_WRITEPAGE_PROTO)
{
	ms_hit(data);
	ms_stat_inc(MS_writepage);
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
		ms_stat_inc(MS_allocstall);
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

int ms_vmscan_init(void)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(ms_vmscan_probes) && !err; i++)
		err = ms_probe_add(&ms_vmscan_probes[i]);
	return err ?: ms_table_add(&ms_table_shrinkers);
}

/* allocstall came after the other tools: its probe is listed after theirs. */
int ms_allocstall_init(void)
{
	return ms_probe_add(&ms_allocstall_probe);
}
