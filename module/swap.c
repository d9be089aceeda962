// SPDX-License-Identifier: GPL-2.0
/*
 * swapin: pages read back from swap, by process, counted as pswpin is.
 * Copyright (C) 2026 The memscope authors.
 *
 * The book's swapin.bt counts calls to swap_readpage().  That function
 * became swap_read_folio() in 6.8, and since then it reads a whole folio,
 * so memscope counts pages: swapins is meant to move with /proc/vmstat
 * pswpin.  What the kernel counts in pswpin (mm/page_io.c):
 *
 *   6.1  swap_readpage(page, synchronous, plug): one per call, except when
 *        frontswap (zswap) holds the page: __frontswap_load() returns 0
 *        and no I/O is done.
 *   6.12 swap_read_folio(folio, plug): folio_nr_pages() per call, except
 *        when zswap_load() returns true, and except slots recorded as all
 *        zero at swap-out (the zeromap, counted as swpin_zero instead).
 *
 * So the swapin probe counts on entry, and a second probe takes back the
 * pages zswap served, in the same task, right after.  A reader that comes
 * between the two sees at most one folio per in-flight zswap hit too many.
 * A reset between them would take back what the baseline already holds:
 * the take-back is skipped when a reset came after zswap_load() began, and
 * the counters clamp at 0 for the rest of that window (stats.c).
 * Zero-filled slots cannot be told apart from outside (the test is inlined
 * into swap_read_folio), so on kernels with a zeromap:
 *
 *	swapins = pswpin + swpin_zero
 *
 * and on older kernels swapins = pswpin.  Reads through a filesystem's
 * swap_rw (swap files on NFS) count in pswpin only when they succeed; a
 * failed one still counts here.
 *
 * Swap residency (BPF Performance Tools, ch. 7, exercise 10): how long a
 * page stays in swap before it is read back.  __swap_writepage() is where
 * every page written to a swap device passes, and nothing else: zswap
 * and the zeromap have already taken theirs, and zswap's writeback comes
 * through it too, so the pages it sees are the ones pswpout counts.  It
 * notes the time against the swap entry, the head page's private on every
 * version (6.6's folio->swap aliases it), one entry per page of a large
 * folio.  The swap-in probe above sees the same entries, takes them out
 * and adds the difference to hist/swap_residency_ns.
 *
 * The process whose page it was: reclaim writes pages from whatever task
 * reclaims, so the owner is taken just before, when try_to_unmap_one()
 * unmaps the page from a process (the entry is allocated by then:
 * add_to_swap() comes first), as mm->owner, which needs CONFIG_MEMCG.  A
 * page mapped by several processes goes to the last one unmapped; shmem
 * pages have none.  swap_residency_by_pid counts, per owner, the pages
 * written and the pages read back with a swap-out on record, with the
 * median of their residency.
 *
 * The entries live in a table of swap_residency_size slots allocated at
 * load, in 64 segments under raw spinlocks (probe context, PREEMPT_RT):
 * a slot is found among 16 in its segment.
 *
 * A host that swaps has far more pages in swap than any such table holds,
 * and a table that keeps the newest entries times only the pages read
 * back soonest: with 80 MB in swap and 16,384 slots, 98.7% of the reads
 * found their entry gone, and the few timed were the shortest stays.  So
 * the table keeps a sample of the swap entries, chosen by a hash of the
 * entry (independent of the slot's), which the write and the read agree
 * on whatever happens between them: 1 in swap_residency_sample, a power
 * of two.  It starts at 1 (or at the parameter) and doubles each time a
 * sampled entry finds its 16 slots all held by sampled entries: the
 * oldest is let go, counted in swap_residency_dropped, and from then on
 * the entries out of the new sample are let go first, uncounted, to make
 * room.  The sample never widens again until the module is reloaded (a
 * reset keeps it, as it keeps the entries).  A read of an entry out of
 * the sample counts in swapins_unsampled, one in it with no time on
 * record in swapins_untimed, so that
 *
 *	swapins = timed + swapins_untimed + swapins_unsampled
 *
 * (with the zswap take-back's caveat above), and the residencies timed
 * are a sample of all of them without bias: which entries are kept does
 * not depend on when they were written or read.  Only a read
 * or a free takes an entry out: a slot freed without being read (its
 * process exited, or the page came back from the swap cache and let its
 * slot go) counts in swap_unread when swap_range_free() returns it to the
 * pool; where that function is not probed (inlined), the entry stays
 * until its slot is written again, and counts then, or until it is the
 * oldest of a full segment.  The owner is kept with the entry from
 * the unmap (reclaim may write the folio later, on another CPU); an entry
 * that only has an owner, unmapped and never written, is let go first and
 * uncounted.  Caveats, each counted rather than
 * guessed:
 *   - pages zswap keeps are never written (nor in pswpout): their
 *     swap-ins, and any other read with no swap-out on record, count in
 *     swapins_untimed (a time still held for a slot zswap stores again is
 *     let go first, in swap_unread);
 *   - a swap-in served from the swap cache reads nothing and ends no
 *     residency: that entry's next write counts in swap_unread;
 *   - swap readahead reads neighbours early: the residency ends at the
 *     read, not at the fault that uses the page;
 *   - a clean page evicted again from the swap cache is not written
 *     again: its next read is untimed;
 *   - 6.12's zeromap: an all-zero page is not written either, so a slot
 *     freed unread and reused for one still holds the old write's time,
 *     and the zero page's read is timed from it.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/rmap.h>
#include <linux/sched.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "memscope.h"

#define MS_SWAPIN_STATS(X) X(swapins, "Pages swapped in (as /proc/vmstat pswpin).")
MS_STAT_SET(swapin, MS_SWAPIN_STATS);

#define MS_SWRES_STATS(X)						\
	X(swapouts, "Pages written to swap (as /proc/vmstat pswpout), each timed until read back.") \
	X(swapins_untimed, "Swap-ins with no swap-out on record (zswap, before load, or let go).") \
	X(swap_unread, "Swap-outs never read back: the slot was freed, or written again, unread.") \
	X(swap_residency_dropped, "Swapped-out sampled pages the full residency table let go, oldest first, as the sample narrowed.") \
	X(swapins_unsampled, "Swap-ins of swap entries out of the residency sample (not timed, by design).") \
	X(swap_residency_sample, "Swap residency times 1 in this many swap entries, chosen by a hash of the entry.")
static void ms_swres_stats_now(u64 *v);
MS_STAT_SET(swres, MS_SWRES_STATS, .now = ms_swres_stats_now,
	    .gauges = BIT_ULL(MS_swap_residency_sample));
MS_HIST(swap_residency_ns);
static struct ms_table ms_table_swapins_by_pid = {
	.file = "swapins_by_pid", .header = "# pid comm swapins",
	.kind = MS_TK_TASK, .ncols = 1,
};

static struct ms_table ms_table_swapins_by_cgroup = {
	.file = "swapins_by_cgroup", .header = "# cgroup swapins",
	.kind = MS_TK_CGROUP, .ncols = 1,
};

static struct ms_table ms_table_swap_residency_by_pid = {
	.file = "swap_residency_by_pid",
	.header = "# pid comm swapouts swapins median_ns",
	.kind = MS_TK_TASK, .ncols = 2, .row_hist = true,
};

/* Newest first: the first one the kernel has is attached. */
static const char *const ms_swapin_targets[] = {
	"swap_read_folio",	/* 6.8: (struct folio *, struct swap_iocb **) */
	"swap_readpage",	/* (struct page *, bool, struct swap_iocb **) */
	NULL,
};

static const char *const ms_zswap_targets[] = {
	"zswap_load",		/* 6.5: bool (struct folio *), true: served */
	"__frontswap_load",	/* int (struct page *), 0: served */
	NULL,
};

static struct ms_probe ms_swapin_probe;
static struct ms_probe ms_zswap_probe;
static struct ms_probe ms_swapfree_probe;

static const char *const ms_swapout_targets[] = {
	"__swap_writepage",	/* (struct page * | struct folio *, ...) */
	NULL,
};

/* Before the device write: zswap may keep the page instead. */
static const char *const ms_swapout_zswap_targets[] = {
	"zswap_store",		/* 6.5: bool (struct folio *) */
	"__frontswap_store",	/* int (struct page *) */
	NULL,
};

/*
 * Slots back to the free pool, read or not.  swap_range_free() from 4.13,
 * which every free passes through, is inlined by some builds (Debian's
 * 6.12); its callers from 6.11 take the range as a swap entry instead of
 * an offset, with the cluster before it from 6.13.  Newest last: the first
 * the kernel has is the one to probe.
 */
static const char *const ms_swapfree_targets[] = {
	"swap_range_free",	/* (si, unsigned long offset, unsigned int nr) */
	"swap_entry_range_free", /* (si, [ci,] swp_entry_t entry, unsigned int nr) */
	"swap_entries_free",	/* (si, ci, swp_entry_t entry, unsigned int nr) */
	/*
	 * (swp_entry_t *entries, int n): where swap_range_free() is inlined
	 * and its callers take no entry (Debian's 6.1-rt).  Every free of a
	 * single slot, through the slot caches, comes here; a THP's whole
	 * cluster (swap_free_cluster(), THP_SWAP) does not, and is missed.
	 */
	"swapcache_free_entries",
	NULL,
};

static const char *const ms_swapout_owner_targets[] = {
	"try_to_unmap_one",	/* (struct page * | struct folio *, vma, address, arg) */
	NULL,
};

#define MS_SWRES_SEGS	64
#define MS_SWRES_REACH	16
#define MS_SWRES_SAMPLE_MAX 31	/* 1 in 2^31: nothing is left to time */
#define MS_SWRES_NOROW	U32_MAX
#define MS_SWAPFREE_MAX	8192	/* SWAPFILE_CLUSTER: a PMD of 64 KiB pages at most */

struct ms_swres {
	unsigned long entry;		/* swp_entry_t.val; 0: a free slot */
	u64 out_ns;			/* when it was written; 0: not yet (owner only) */
	u64 row_key;			/* the owner's row, if its key still is this */
	u32 row;			/* or MS_SWRES_NOROW */
	u32 pad;
};

static struct {
	raw_spinlock_t lock;
} ____cacheline_aligned_in_smp ms_swres_segs[MS_SWRES_SEGS];

static struct ms_swres *ms_swres;
static unsigned int ms_swres_seg_size;

static unsigned int swap_residency_size = 16384;
module_param(swap_residency_size, uint, 0400);
MODULE_PARM_DESC(swap_residency_size, "Pages in swap whose swap-out time is kept (rounded up to a power of two, 1024..4194304)");

static unsigned int swap_residency_sample;
module_param(swap_residency_sample, uint, 0444);
MODULE_PARM_DESC(swap_residency_sample, "Time 1 in N swap entries, chosen by a hash (rounded up to a power of two; 0 or 1: all of them, until the table fills; it doubles whenever the table is full)");

/* log2 of the sample: an entry is timed when its hash's top bits are 0. */
static unsigned int ms_swres_shift;

static __always_inline bool ms_swres_sampled(unsigned long entry, unsigned int shift)
{
	u32 h = ms_hash_32((u32)entry ^ (u32)((u64)entry >> 32), 32);

	return !shift || !(h >> (32 - shift));
}

static unsigned int ms_swres_sample(void)
{
	return 1U << READ_ONCE(ms_swres_shift);
}

/* swap_residency_sample is the sample now, not a count. */
static void ms_swres_stats_now(u64 *v)
{
	v[MS_swap_residency_sample] = ms_swres_sample();
}

static unsigned int ms_swres_size(void)
{
	return roundup_pow_of_two(clamp(swap_residency_size, 1024U, 1U << 22));
}

static size_t ms_swres_bytes(void)
{
	return (size_t)ms_swres_size() * sizeof(struct ms_swres);
}

static __always_inline struct ms_swres *ms_swres_seg(unsigned long entry, unsigned int *seg,
						      unsigned int *slot)
{
	u32 h = ms_hash_64(entry, 32);

	*seg = h & (MS_SWRES_SEGS - 1);
	*slot = (h >> 6) & (ms_swres_seg_size - 1);
	return ms_swres + (size_t)*seg * ms_swres_seg_size;
}

/*
 * The slot that holds @entry, else a free one, else the oldest, which the
 * caller takes over.  Under the segment's lock.
 */
static struct ms_swres *ms_swres_find(struct ms_swres *seg, unsigned int slot,
				      unsigned long entry, bool *found)
{
	struct ms_swres *free = NULL, *oldest = NULL;
	unsigned int i, shift = READ_ONCE(ms_swres_shift);

	for (i = 0; i < MS_SWRES_REACH; i++) {
		struct ms_swres *e = &seg[(slot + i) & (ms_swres_seg_size - 1)];

		if (e->entry == entry) {
			*found = true;
			return e;
		}
		/* Out of the sample since it narrowed: as good as free. */
		if (!e->entry || !ms_swres_sampled(e->entry, shift)) {
			if (!free)
				free = e;
		} else if (!oldest || e->out_ns < oldest->out_ns) {
			oldest = e;
		}
	}
	*found = false;
	return free ?: oldest;
}

/*
 * The sample narrows: @e, a sampled entry's time, is about to be let go
 * for another sampled entry.  Halve the sample, once for the sample this
 * writer saw (a writer on another CPU may have halved it already).
 */
static void ms_swres_narrow(unsigned int shift)
{
	if (shift < MS_SWRES_SAMPLE_MAX)
		cmpxchg(&ms_swres_shift, shift, shift + 1);
}

/* The owner's row, if it is still that owner's. */
static struct ms_row *ms_swres_row(u32 row, u64 key)
{
	struct ms_table *t = &ms_table_swap_residency_by_pid;

	if (row == MS_SWRES_NOROW || READ_ONCE(t->rows[row].key) != key)
		return NULL;
	return &t->rows[row];
}

/*
 * Take the slot @e that ms_swres_find() gave for @entry: a slot that held
 * another entry's time is a time lost, and counted; one that held only an
 * owner, a page unmapped and never written (it went back from the swap
 * cache clean, or stayed), is not.
 */
static void ms_swres_take(struct ms_swres *e, unsigned long entry)
{
	unsigned int shift = READ_ONCE(ms_swres_shift);

	if (e->entry && ms_swres_sampled(e->entry, shift)) {
		ms_swres_narrow(shift);
		if (e->out_ns)
			ms_stat_inc(swres, MS_swap_residency_dropped);
	}
	e->entry = entry;
	e->out_ns = 0;
	e->row = MS_SWRES_NOROW;
}

/*
 * try_to_unmap_one(): whose pages these are, for the write that follows,
 * kept with the entry.  Reclaim may write the folio later than it unmaps
 * it, and on another CPU.
 */
static int ms_swapout_owner_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)ms_arg(regs, 0);
	struct vm_area_struct *vma = (struct vm_area_struct *)ms_arg(regs, 1);
	struct ms_table *t = &ms_table_swap_residency_by_pid;
	unsigned long entry, nr, i, flags;
	struct task_struct *owner;
	unsigned int s, slot;
	struct ms_row *row;
	u64 key;

	if (!PageAnon(page) || !ms_page_swapcache(page))
		return 0;
	ms_hit(container_of(kp, struct ms_probe, kp));
	/*
	 * A task_struct is freed after an RCU grace period, which kprobe
	 * context (preemption off) holds off; mm->owner moves on before its
	 * task goes (ms_probe_rcu_lock(): before 4.20 with preemptible RCU).
	 */
	ms_probe_rcu_lock();
	owner = ms_mm_owner(vma->vm_mm);
	row = owner ? ms_table_get_tc(t, READ_ONCE(owner->tgid), owner->comm) : NULL;
	ms_probe_rcu_unlock();
	if (!row)
		return 0;
	key = READ_ONCE(row->key);
	entry = page_private(page);
	nr = 1UL << compound_order(page);
	for (i = 0; i < nr; i++) {
		struct ms_swres *seg = ms_swres_seg(entry + i, &s, &slot), *e;
		bool found;

		if (!ms_swres_sampled(entry + i, READ_ONCE(ms_swres_shift)))
			continue;
		raw_spin_lock_irqsave(&ms_swres_segs[s].lock, flags);
		e = ms_swres_find(seg, slot, entry + i, &found);
		if (!found)
			ms_swres_take(e, entry + i);
		e->row = row - t->rows;
		e->row_key = key;
		raw_spin_unlock_irqrestore(&ms_swres_segs[s].lock, flags);
	}
	return 0;
}

static int ms_swapout_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)ms_arg(regs, 0);
	unsigned long entry = page_private(page), nr = 1UL << compound_order(page), i, flags;
	struct ms_table *t = &ms_table_swap_residency_by_pid;
	u64 now = ktime_get_ns();
	unsigned int s, slot;

	ms_hit(container_of(kp, struct ms_probe, kp));
	ms_stat_add(swres, MS_swapouts, nr);
	for (i = 0; i < nr; i++) {
		struct ms_swres *seg = ms_swres_seg(entry + i, &s, &slot), *e;
		struct ms_row *r;
		bool found;

		raw_spin_lock_irqsave(&ms_swres_segs[s].lock, flags);
		e = ms_swres_find(seg, slot, entry + i, &found);
		if (found && e->out_ns)
			ms_stat_inc(swres, MS_swap_unread);	/* written again, never read */
		if (!ms_swres_sampled(entry + i, READ_ONCE(ms_swres_shift))) {
			/* Kept from a wider sample: let it go, the write is not timed. */
			if (found)
				e->entry = 0;
			raw_spin_unlock_irqrestore(&ms_swres_segs[s].lock, flags);
			continue;
		}
		if (!found)
			ms_swres_take(e, entry + i);
		e->out_ns = now;
		r = ms_swres_row(e->row, e->row_key);
		raw_spin_unlock_irqrestore(&ms_swres_segs[s].lock, flags);
		if (r)
			__ms_row_add(t, r, 0, 1);
	}
	return 0;
}

/*
 * zswap_store() / __frontswap_store(): the slot is written again, to zswap
 * or (if zswap declines) to the device next.  A time still held for it is
 * of an earlier write nobody read: let it go, so that a load zswap serves
 * is not timed from that write.
 */
static int ms_swapout_zswap_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page = (struct page *)ms_arg(regs, 0);
	unsigned long entry = page_private(page), nr = 1UL << compound_order(page), i, flags;
	unsigned int s, slot;

	ms_hit(container_of(kp, struct ms_probe, kp));
	for (i = 0; i < nr; i++) {
		struct ms_swres *seg = ms_swres_seg(entry + i, &s, &slot), *e;
		bool found;

		raw_spin_lock_irqsave(&ms_swres_segs[s].lock, flags);
		e = ms_swres_find(seg, slot, entry + i, &found);
		if (found && e->out_ns) {
			e->out_ns = 0;		/* the owner stays, for the write */
			ms_stat_inc(swres, MS_swap_unread);
		}
		raw_spin_unlock_irqrestore(&ms_swres_segs[s].lock, flags);
	}
	return 0;
}

/*
 * swap_range_free(): the slots go back to the free pool.  A time still
 * held for one was never read: count it in swap_unread, and free the
 * table's slot, so that entries of exited processes do not wait for their
 * slot's next write.  Where this probe is unavailable they do, and count
 * then.
 */
/* One slot freed: a time still held for it was never read. */
static void ms_swres_free(unsigned long entry)
{
	struct ms_swres *seg, *e;
	unsigned int s, slot;
	unsigned long flags;
	bool found;

	seg = ms_swres_seg(entry, &s, &slot);
	raw_spin_lock_irqsave(&ms_swres_segs[s].lock, flags);
	e = ms_swres_find(seg, slot, entry, &found);
	if (found) {
		if (e->out_ns)
			ms_stat_inc(swres, MS_swap_unread);
		e->entry = 0;
	}
	raw_spin_unlock_irqrestore(&ms_swres_segs[s].lock, flags);
}

static void ms_swapfree_entries(const swp_entry_t *entries, int n)
{
	int i;

	for (i = 0; i < n && i < MS_SWAPFREE_MAX; i++)
		ms_swres_free(entries[i].val);
}

static int ms_swapfree_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct swap_info_struct *si;
	unsigned long type, first, nr, i;

	ms_hit(container_of(kp, struct ms_probe, kp));
	if (READ_ONCE(ms_swapfree_probe.target) == ms_swapfree_targets[3]) {
		ms_swapfree_entries((const swp_entry_t *)ms_arg(regs, 0), (int)ms_arg(regs, 1));
		return 0;
	}
	si = (struct swap_info_struct *)ms_arg(regs, 0);
	type = (unsigned char)READ_ONCE(si->type);
	if (READ_ONCE(ms_swapfree_probe.target) == ms_swapfree_targets[0]) {
		first = swp_entry(type, ms_arg(regs, 1)).val;
		nr = (unsigned int)ms_arg(regs, 2);
	} else {
		/*
		 * An entry of this device in the second argument, else (6.13:
		 * the cluster is there) in the third.  Decided by the values,
		 * not by a version: a wrong guess reads a pointer as a count.
		 */
		first = ms_arg(regs, 1);
		nr = (unsigned int)ms_arg(regs, 2);
		if (swp_type((swp_entry_t){ first }) != type) {
			first = ms_arg(regs, 2);
			nr = (unsigned int)ms_arg(regs, 3);
		}
		if (swp_type((swp_entry_t){ first }) != type)
			return 0;
	}
	/* At most a cluster at a time; anything else is not a range we know. */
	if (nr > MS_SWAPFREE_MAX)
		return 0;
	for (i = 0; i < nr; i++)
		ms_swres_free(first + i);
	return 0;
}

/* The swap-in probe, for the @nr entries from @entry read back now. */
static void ms_swres_in(unsigned long entry, unsigned long nr)
{
	struct ms_table *t = &ms_table_swap_residency_by_pid;
	u64 now = ktime_get_ns();
	unsigned long i, flags;
	unsigned int s, slot;

	for (i = 0; i < nr; i++) {
		struct ms_swres *seg = ms_swres_seg(entry + i, &s, &slot), *e;
		u64 out_ns = 0, key = 0;
		u32 row = MS_SWRES_NOROW;
		struct ms_row *r;
		bool found;

		bool sampled = ms_swres_sampled(entry + i, READ_ONCE(ms_swres_shift));

		raw_spin_lock_irqsave(&ms_swres_segs[s].lock, flags);
		e = ms_swres_find(seg, slot, entry + i, &found);
		if (found) {
			out_ns = e->out_ns;
			row = e->row;
			key = e->row_key;
			e->entry = 0;
		}
		raw_spin_unlock_irqrestore(&ms_swres_segs[s].lock, flags);
		/*
		 * Only entries in the sample as it is now are timed: one kept
		 * from a wider sample survived the entries let go to make room,
		 * and timing it would favour short stays.
		 */
		if (!sampled) {
			ms_stat_inc(swres, MS_swapins_unsampled);
			continue;
		}
		if (!out_ns) {
			ms_stat_inc(swres, MS_swapins_untimed);
			continue;
		}
		/* Written on another CPU a moment ago: ktime is monotonic, but say 0. */
		out_ns = min(out_ns, now);
		ms_hist_add(swap_residency_ns, now - out_ns);
		r = ms_swres_row(row, key);
		if (r) {
			__ms_row_add(t, r, 1, 1);
			atomic_inc(&t->buckets[(size_t)row * MS_ROW_BUCKETS +
					       min(fls64(now - out_ns), MS_ROW_BUCKETS - 1)]);
		}
	}
}

static void ms_swapin_account(s64 pages)
{
	struct ms_row *row;

	ms_stat_add(swapin, MS_swapins, pages);
	row = ms_table_get_task(&ms_table_swapins_by_pid);
	if (row)
		__ms_row_add(&ms_table_swapins_by_pid, row, 0, pages);
	row = ms_table_get_cgroup(&ms_table_swapins_by_cgroup);
	if (row)
		__ms_row_add(&ms_table_swapins_by_cgroup, row, 0, pages);
}

static int ms_swapin_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct page *page;
	long pages = 1;

	ms_hit(container_of(kp, struct ms_probe, kp));
	/*
	 * swap_readpage() counts pswpin once per call whatever the page;
	 * swap_read_folio() counts the folio's pages.  The folio is locked by
	 * the caller for the whole read, so it cannot split under us.
	 */
	if (READ_ONCE(ms_swapin_probe.target) == ms_swapin_targets[0])
		pages = folio_nr_pages((struct folio *)ms_arg(regs, 0));
	ms_swapin_account(pages);
	/* The entries, as for a swap-out: 1 << order pages from private. */
	page = (struct page *)ms_arg(regs, 0);
	ms_swres_in(page_private(page), 1UL << compound_order(page));
	return 0;
}

struct ms_zswap_data {
	long pages;
	unsigned long reset_gen;
};

static int ms_zswap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_zswap_data *d = (struct ms_zswap_data *)ri->data;

	d->pages = 1;
	d->reset_gen = ms_reset_gen();
	if (READ_ONCE(ms_zswap_probe.target) == ms_zswap_targets[0])
		d->pages = folio_nr_pages((struct folio *)ms_arg(regs, 0));
	return 0;
}

static int ms_zswap_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_zswap_data *d = (struct ms_zswap_data *)ri->data;
	unsigned long ret = regs_return_value(regs);
	bool served;

	if (READ_ONCE(ms_zswap_probe.target) == ms_zswap_targets[0])
		served = (bool)ret;
	else
		served = (int)ret == 0;
	if (!served)
		return 0;
	ms_hit(&ms_zswap_probe);
	/* Served from memory: no I/O, not in pswpin.  Take it back. */
	if (READ_ONCE(ms_swapin_probe.attached) && ms_reset_gen() == d->reset_gen)
		ms_swapin_account(-d->pages);
	return 0;
}

static struct ms_probe ms_swapin_probe = {
	.name = "swapin",
	.targets = ms_swapin_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_swapin_pre,
};

static struct ms_probe ms_zswap_probe = {
	.name = "swapin_zswap",
	.targets = ms_zswap_targets,
	.kind = MS_KRETPROBE,
	.entry_handler = ms_zswap_entry,
	.ret_handler = ms_zswap_return,
	.data_size = sizeof(struct ms_zswap_data),
};

static struct ms_probe ms_swapout_probe = {
	.name = "swapout",
	.targets = ms_swapout_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_swapout_pre,
};

static struct ms_probe ms_swapout_zswap_probe = {
	.name = "swapout_zswap",
	.targets = ms_swapout_zswap_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_swapout_zswap_pre,
};

static struct ms_probe ms_swapfree_probe = {
	.name = "swapfree",
	.targets = ms_swapfree_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_swapfree_pre,
};

static struct ms_probe ms_swapout_owner_probe = {
	.name = "swapout_owner",
	.targets = ms_swapout_owner_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_swapout_owner_pre,
};

/* swapin: swap-ins by process, and those served by zswap taken back. */
static int ms_swapin_init(void)
{
	/* zswap_load() sleeps on the compressor's mutex: room for sleepers. */
	ms_zswap_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	if (!IS_ENABLED(CONFIG_SWAP)) {
		/* No swap-in path at all: say so, not just symbol_not_found. */
		ms_swapin_probe.unsupported = "config_swap_disabled";
		ms_zswap_probe.unsupported = "config_swap_disabled";
	}
	return ms_probe_add(&ms_swapin_probe) ?: ms_probe_add(&ms_zswap_probe) ?:
	       ms_table_add(&ms_table_swapins_by_pid) ?: ms_stat_set_add(&ms_swapin_stats);
}

const struct ms_family ms_swapin_family = {
	.init = ms_swapin_init,
};

/* The per-cgroup table came after the other tools' tables: main.c lists it later. */
static int ms_swapin_cgroup_init(void)
{
	return ms_table_add(&ms_table_swapins_by_cgroup);
}

const struct ms_family ms_swapin_cgroup_family = {
	.init = ms_swapin_cgroup_init,
};

static void ms_swres_exit(void);

/* swapin --residency: every swap-out's entry, until it is read or freed. */
static int ms_swres_init(void)
{
	static struct ms_probe *const probes[] = {
		&ms_swapout_probe, &ms_swapout_zswap_probe, &ms_swapout_owner_probe,
		&ms_swapfree_probe,
	};
	unsigned int n = ms_swres_size(), s;
	int err;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) && sizeof(struct ms_swres) != 32);
	for (s = 0; s < MS_SWRES_SEGS; s++)
		raw_spin_lock_init(&ms_swres_segs[s].lock);
	ms_swres_seg_size = n / MS_SWRES_SEGS;
	ms_swres_shift = swap_residency_sample > 1 ?
		min(order_base_2(swap_residency_sample), MS_SWRES_SAMPLE_MAX) : 0;
	ms_swres = vzalloc(array_size(n, sizeof(*ms_swres)));
	if (!ms_swres) {
		pr_err("memscope: no memory for swap_residency_size=%u (%zu bytes); load with a smaller one\n",
		       n, ms_swres_bytes());
		return -ENOMEM;
	}

	if (!IS_ENABLED(CONFIG_SWAP)) {
		ms_swapout_probe.unsupported = "config_swap_disabled";
		ms_swapout_zswap_probe.unsupported = "config_swap_disabled";
		ms_swapfree_probe.unsupported = "config_swap_disabled";
		ms_swapout_owner_probe.unsupported = "config_swap_disabled";
	} else if (!IS_ENABLED(CONFIG_MEMCG)) {
		/* No mm->owner: swap-outs are timed, but have no process. */
		ms_swapout_owner_probe.unsupported = "config_memcg_disabled";
	}
	err = ms_probe_add_all(probes, ARRAY_SIZE(probes)) ?:
	      ms_table_add(&ms_table_swap_residency_by_pid) ?: ms_stat_set_add(&ms_swres_stats) ?:
	      ms_hist_register(&ms_hist_swap_residency_ns);
	if (err)
		ms_swres_exit();
	return err;
}

static void ms_swres_exit(void)
{
	vfree(ms_swres);
	ms_swres = NULL;
}

static void ms_swres_version(struct seq_file *m)
{
	seq_printf(m, "swap_residency_size %u\n", ms_swres_size());
}

const struct ms_family ms_swres_family = {
	.init = ms_swres_init,
	.exit = ms_swres_exit,
	.bytes = ms_swres_bytes,
	.version = ms_swres_version,
};
