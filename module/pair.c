// SPDX-License-Identifier: GPL-2.0
/*
 * Begin/end pairing: the latency of an operation that starts and ends in
 * the same task, which may sleep and migrate in between (reclaim, a
 * shrinker call, kswapd awake, compaction), and the clock events are
 * stamped with.
 * Copyright (C) 2026 The memscope authors.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "memscope.h"

/*
 * Begin timestamps, keyed by task pointer: a fixed table per pair kind
 * (struct ms_pair, each family's), searched by open addressing over
 * MS_PAIR_REACH slots.
 *
 * A slot's owner word is 0 (free), the owning task, or the task with
 * MS_PAIR_BUSY set while that task writes the start time.  Only cmpxchg
 * moves it out of 0 or to BUSY, so each slot has one writer at a time and
 * no lock is needed, in any preemption model.  The owner frees its slot at
 * the end event.
 *
 * A begin whose end never comes (the end probe detached in between, a task
 * that was mid-reclaim when the begin probe went away) leaves its slot
 * owned.  The same task's next begin reuses it; otherwise a begin that
 * finds no free slot takes over one older than MS_PAIR_STALE_NS.  So the
 * table never fills up for good, and a begin that finds nothing at all is
 * counted in `dropped`.  An end with no begin (the module was loaded
 * mid-reclaim) is counted in `unmatched_ends` and not timed.
 *
 * The clock is ktime_get_mono_fast_ns(): CLOCK_MONOTONIC, so the begin and
 * end may be read on different CPUs (local_clock() is only guaranteed
 * monotonic per CPU where sched_clock is unstable), safe in any context,
 * without the seqcount retry loop or the timekeeping_suspended WARN of
 * ktime_get_ns().  Event time_ns is the same clock.
 */
#define MS_PAIR_REACH		16
#define MS_PAIR_STALE_NS	(30ULL * NSEC_PER_SEC)	/* a long overflows on 32-bit */
#define MS_PAIR_BUSY		1UL	/* task_struct is at least word aligned */

/* The families' tables, only for their bytes. */
#define MS_MAX_PAIRS 16
static unsigned int ms_nr_pairs;

int ms_pair_add(struct ms_pair *p)
{
	if (ms_nr_pairs == MS_MAX_PAIRS) {
		pr_err("memscope: more than MS_MAX_PAIRS (%d) begin/end pairs; raise it\n",
		       MS_MAX_PAIRS);
		return -ENOSPC;
	}
	ms_nr_pairs++;
	return 0;
}

u64 ms_pair_now(void)
{
	return ktime_get_mono_fast_ns();
}

size_t ms_pairs_bytes(void)
{
	BUILD_BUG_ON(!is_power_of_2(MS_PAIR_SLOTS));
	return ms_nr_pairs * sizeof(struct ms_pair);
}

static unsigned int ms_pair_hash(unsigned long me)
{
	return ms_hash_64(me, ilog2(MS_PAIR_SLOTS));
}

/* The slot is ours with BUSY set: write the start, then publish. */
static void ms_pair_set(struct ms_pair_slot *s, unsigned long me, u64 now, u64 aux)
{
	WRITE_ONCE(s->start, now);
	WRITE_ONCE(s->aux, aux);
	smp_store_release(&s->owner, me);
}

void ms_pair_begin_aux(struct ms_pair *p, u64 now, bool keep, u64 aux)
{
	struct ms_pair_slot *tbl = p->slot;
	struct ms_pair_slot *free = NULL, *stale = NULL;
	unsigned long me = (unsigned long)current, stale_owner = 0;
	unsigned int i = ms_pair_hash(me), n;

	for (n = 0; n < MS_PAIR_REACH; n++, i = (i + 1) & (MS_PAIR_SLOTS - 1)) {
		struct ms_pair_slot *s = &tbl[i];
		unsigned long o = smp_load_acquire(&s->owner);

		if (o == me) {
			/* Our earlier begin lost its end, or kswapd woke again. */
			if (keep)
				return;
			if (cmpxchg(&s->owner, me, me | MS_PAIR_BUSY) == me)
				ms_pair_set(s, me, now, aux);
			return;
		}
		if (!o) {
			if (!free)
				free = s;
		} else if (!(o & MS_PAIR_BUSY) && !stale &&
			   (s64)(now - READ_ONCE(s->start)) > (s64)MS_PAIR_STALE_NS) {
			stale = s;
			stale_owner = o;
		}
	}
	if (free && !cmpxchg(&free->owner, 0, me | MS_PAIR_BUSY)) {
		ms_pair_set(free, me, now, aux);
		return;
	}
	/*
	 * If the stale owner ended and began again between our look and the
	 * cmpxchg, we take a live slot and its end counts as unmatched: rare
	 * (it needs a 30 s old orphan) and harmless.
	 */
	if (stale && cmpxchg(&stale->owner, stale_owner, me | MS_PAIR_BUSY) == stale_owner) {
		ms_pair_set(stale, me, now, aux);
		return;
	}
	ms_stat_inc(core, MS_dropped);
}

bool ms_pair_end_aux(struct ms_pair *p, u64 now, u64 *latency, u64 *aux)
{
	struct ms_pair_slot *tbl = p->slot;
	unsigned long me = (unsigned long)current;
	unsigned int i = ms_pair_hash(me), n;

	for (n = 0; n < MS_PAIR_REACH; n++, i = (i + 1) & (MS_PAIR_SLOTS - 1)) {
		struct ms_pair_slot *s = &tbl[i];
		u64 start;

		if (READ_ONCE(s->owner) != me)
			continue;
		start = READ_ONCE(s->start);
		if (aux)
			*aux = READ_ONCE(s->aux);
		/*
		 * A successful cmpxchg is fully ordered, so start was read
		 * while the slot was still ours; if it fails, a stale-slot
		 * takeover won and our begin is lost.
		 */
		if (cmpxchg(&s->owner, me, 0) != me)
			break;
		*latency = (s64)(now - start) > 0 ? now - start : 0;
		return true;
	}
	ms_stat_inc(core, MS_unmatched_ends);
	return false;
}
