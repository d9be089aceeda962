/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint prototypes that changed, for the handlers in vmscan.c and
 * compaction.c: each MS_*_PROTO is the handler's parameter list on the
 * target kernel, as compat/probe.sh found it in the kernel's own
 * trace/events headers, and the handlers are checked against those same
 * headers at build time (ms_*_check_protos()).  Ranges are mainline's.
 * Included by compat.h.
 */
#ifndef _MEMSCOPE_COMPAT_TRACEPOINTS_H
#define _MEMSCOPE_COMPAT_TRACEPOINTS_H

/*
 * A handler against the kernel's own prototype: a mismatch is an
 * incompatible-pointer-types error.  sizeof does not evaluate the call, so
 * no unexported __tracepoint_* symbol is referenced.
 */
#define MS_TP_CHECK(event, fn) ((void)sizeof(register_trace_##event(fn, NULL)))

/* The memcg reclaim events exist where memcg is built in. */
#ifdef CONFIG_MEMCG
#define MS_TP_CHECK_MEMCG(event, fn) MS_TP_CHECK(event, fn)
#else
#define MS_TP_CHECK_MEMCG(event, fn) ((void)(fn))
#endif /* CONFIG_MEMCG */

/*
 * Before 5.2 the reclaim begin events also carried may_writepage, and
 * from 4.8 classzone_idx.
 */
#if defined(MS_HAVE_TP_RECLAIM_BEGIN_WRITEPAGE) && defined(MS_HAVE_TP_RECLAIM_BEGIN_CLASSZONE)
#define MS_RECLAIM_BEGIN_PROTO \
	void *data, int order, int may_writepage, gfp_t gfp_flags, int classzone_idx
#elif defined(MS_HAVE_TP_RECLAIM_BEGIN_WRITEPAGE)
#define MS_RECLAIM_BEGIN_PROTO void *data, int order, int may_writepage, gfp_t gfp_flags
#else
#define MS_RECLAIM_BEGIN_PROTO void *data, int order, gfp_t gfp_flags
#endif /* MS_HAVE_TP_RECLAIM_BEGIN_WRITEPAGE */

/*
 * Before 4.16 shrink_slab_start carried the LRU scan (pgs_scanned,
 * lru_pgs) where it now carries the reclaim priority.
 */
#ifdef MS_HAVE_TP_SHRINK_SLAB_PGS_SCANNED
#define MS_SHRINK_SLAB_START_PROTO \
	void *data, struct shrinker *shr, struct shrink_control *sc, \
	long nr_objects_to_shrink, unsigned long pgs_scanned, \
	unsigned long lru_pgs, unsigned long cache_items, \
	unsigned long long delta, unsigned long total_scan
#else
#define MS_SHRINK_SLAB_START_PROTO \
	void *data, struct shrinker *shr, struct shrink_control *sc, \
	long nr_objects_to_shrink, unsigned long cache_items, \
	unsigned long long delta, unsigned long total_scan, int priority
#endif /* MS_HAVE_TP_SHRINK_SLAB_PGS_SCANNED */

/* Before 3.12 (RHEL 7) shrink_slab_end had no nid and no total_scan. */
#ifdef MS_HAVE_TP_SHRINK_SLAB_END_NID
#define MS_SHRINK_SLAB_END_PROTO \
	void *data, struct shrinker *shr, int nid, int shrinker_retval, \
	long unused_scan_cnt, long new_scan_cnt, long total_scan
/* shrinker_retval is what the shrinker's scan_objects() calls freed. */
#define ms_shrink_start_aux(shr, cache_items, total_scan) 0
#define ms_shrink_freed(aux, retval) ((unsigned long)max((retval), 0))
#else
#define MS_SHRINK_SLAB_END_PROTO \
	void *data, struct shrinker *shr, int shrinker_retval, \
	long unused_scan_cnt, long new_scan_cnt
/*
 * And its shrinker_retval is what the last batch's shrink() call
 * returned: the objects left, not those freed.  shrink_slab() freed the
 * sum over its batches of what each began with less what it left, which
 * with nothing added meanwhile is the objects at the start (cache_items,
 * what shrink() counted then) less those left at the end; none when no
 * batch ran (total_scan under the batch size).  The start keeps
 * cache_items + 1 for the end, 0 for no batch.
 */
static inline u64 ms_shrink_start_aux(struct shrinker *shr, unsigned long cache_items,
				      unsigned long total_scan)
{
	return total_scan >= (shr->batch ? shr->batch : 128) ? (u64)cache_items + 1 : 0;
}

static inline unsigned long ms_shrink_freed(u64 aux, int retval)
{
	return aux && retval >= 0 && aux - 1 > (u64)retval ? aux - 1 - retval : 0;
}
#endif /* MS_HAVE_TP_SHRINK_SLAB_END_NID */

/* mm_vmscan_wakeup_kswapd gained gfp_flags in 4.17. */
#ifdef MS_HAVE_TP_WAKEUP_KSWAPD_GFP
#define MS_WAKEUP_KSWAPD_PROTO void *data, int nid, int zid, int order, gfp_t gfp_flags
#else
#define MS_WAKEUP_KSWAPD_PROTO void *data, int nid, int zid, int order
#endif /* MS_HAVE_TP_WAKEUP_KSWAPD_GFP */

/* mm_vmscan_kswapd_wake gained zid in 4.8. */
#ifdef MS_HAVE_TP_KSWAPD_WAKE_ZID
#define MS_KSWAPD_WAKE_PROTO void *data, int nid, int zid, int order
#else
#define MS_KSWAPD_WAKE_PROTO void *data, int nid, int order
#endif /* MS_HAVE_TP_KSWAPD_WAKE_ZID */

/* sched_switch: (prev, next) before 4.4, preempt first since, prev_state from 5.18. */
#if defined(MS_HAVE_TP_SCHED_SWITCH_PREV_STATE)
#define MS_SCHED_SWITCH_PROTO \
	void *data, bool preempt, struct task_struct *prev, struct task_struct *next, \
	unsigned int prev_state
#elif defined(MS_HAVE_TP_SCHED_SWITCH_PREEMPT)
#define MS_SCHED_SWITCH_PROTO \
	void *data, bool preempt, struct task_struct *prev, struct task_struct *next
#else
#define MS_SCHED_SWITCH_PROTO void *data, struct task_struct *prev, struct task_struct *next
#endif /* MS_HAVE_TP_SCHED_SWITCH_PREV_STATE */

/*
 * Within a sched_switch probe: whether prev stays queued, runnable (it
 * was preempted, or yielded).  A task whose state is not TASK_RUNNING at
 * the switch sleeps; from 6.12 it may stay on the runqueue, a dequeue
 * delayed, which PSI counts as a sleep too.  Its state, not 5.18's
 * prev_state argument: that was read before a pending signal put the
 * task back to TASK_RUNNING.  Before 4.4 a preempted task that had set
 * its state to sleep reads as sleeping.
 */
#if defined(MS_HAVE_TP_SCHED_SWITCH_PREV_STATE) || defined(MS_HAVE_TP_SCHED_SWITCH_PREEMPT)
#define ms_switch_prev_runnable() (preempt || task_is_running(prev))
#else
#define ms_switch_prev_runnable() task_is_running(prev)
#endif /* MS_HAVE_TP_SCHED_SWITCH_PREV_STATE || MS_HAVE_TP_SCHED_SWITCH_PREEMPT */

/* sched_wakeup: (p, success) before 4.3, (p) since. */
#ifdef MS_HAVE_TP_SCHED_WAKEUP_SUCCESS
#define MS_SCHED_WAKEUP_PROTO void *data, struct task_struct *p, int success
#else
#define MS_SCHED_WAKEUP_PROTO void *data, struct task_struct *p
#endif /* MS_HAVE_TP_SCHED_WAKEUP_SUCCESS */

/*
 * Pages reclaim wrote itself: mm_vmscan_writepage(page, reclaim_flags)
 * before 4.8, (page) until 5.18, then mm_vmscan_write_folio(folio).
 * Only the event whose prototype was checked is probed: the other name is
 * the same event on another kernel, with another argument type.
 */
#if defined(MS_HAVE_TP_WRITE_FOLIO)
#define MS_WRITEPAGE_PROTO void *data, struct folio *folio
#define MS_TP_WRITEPAGE "mm_vmscan_write_folio"
#define ms_register_trace_writepage register_trace_mm_vmscan_write_folio
#elif defined(MS_HAVE_TP_WRITEPAGE_FLAGS)
#define MS_WRITEPAGE_PROTO void *data, struct page *page, int reclaim_flags
#define MS_TP_WRITEPAGE "mm_vmscan_writepage"
#define ms_register_trace_writepage register_trace_mm_vmscan_writepage
#else
#define MS_WRITEPAGE_PROTO void *data, struct page *page
#define MS_TP_WRITEPAGE "mm_vmscan_writepage"
#define ms_register_trace_writepage register_trace_mm_vmscan_writepage
#endif /* MS_HAVE_TP_WRITE_FOLIO, MS_HAVE_TP_WRITEPAGE_FLAGS */

/*
 * mm_compaction_begin/end: the pfns themselves until struct
 * compact_control replaced them (5.18/5.19); no such events before 3.16
 * (RHEL 7), where the check has nothing to check and the probes are
 * unavailable (compaction.c).
 */
#ifdef MS_HAVE_TP_COMPACTION_CC
#define MS_COMPACTION_BEGIN_PROTO \
	void *data, struct compact_control *cc, unsigned long zone_start, \
	unsigned long zone_end, bool sync
#define MS_COMPACTION_END_PROTO \
	void *data, struct compact_control *cc, unsigned long zone_start, \
	unsigned long zone_end, bool sync, int status
#else
#define MS_COMPACTION_BEGIN_PROTO \
	void *data, unsigned long zone_start, unsigned long migrate_pfn, \
	unsigned long free_pfn, unsigned long zone_end, bool sync
#define MS_COMPACTION_END_PROTO \
	void *data, unsigned long zone_start, unsigned long migrate_pfn, \
	unsigned long free_pfn, unsigned long zone_end, bool sync, int status
#endif /* MS_HAVE_TP_COMPACTION_CC */
#if defined(CONFIG_COMPACTION) && defined(MS_HAVE_TP_COMPACTION_BEGIN)
#define ms_register_trace_compaction_begin register_trace_mm_compaction_begin
#define ms_register_trace_compaction_end register_trace_mm_compaction_end
#else
#define ms_register_trace_compaction_begin(fn, data) 0
#define ms_register_trace_compaction_end(fn, data) 0
#endif /* CONFIG_COMPACTION && MS_HAVE_TP_COMPACTION_BEGIN */

#endif /* _MEMSCOPE_COMPAT_TRACEPOINTS_H */
