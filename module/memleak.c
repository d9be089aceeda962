// SPDX-License-Identifier: GPL-2.0
/*
 * memleak: outstanding slab and page allocations by call site.
 * Copyright (C) 2026 The memscope authors.
 *
 * The kmem tracepoints give every kmalloc and kmem_cache_alloc with its
 * call site and size, every page allocation with its order, the percpu
 * tracepoints every percpu allocation with its size, and every free, in
 * whatever context they run: hardirq, softirq, with or without a BPF
 * program on the CPU.  Each allocation goes into a table keyed by pointer, allocated
 * at load; each free takes its pointer out.  What is left, grouped by call
 * site, is what has been allocated and not freed since memleak was
 * enabled (BPF Performance Tools, 7.3.2).
 *
 * The table is memleak_size slots in 256 segments, each under its own raw
 * spinlock, held with interrupts off for at most MS_LEAK_REACH slots: it
 * never sleeps, never allocates and so never recurses into the allocator,
 * and is correct on PREEMPT_RT.  An allocation that finds no free slot in
 * reach counts in memleak_dropped; a free of a pointer the table does not
 * hold (allocated before memleak was enabled) in memleak_unknown_frees.
 *
 * The probes cost on every allocation, so they are off until "enable
 * memleak" is written to `control` (or memleak=1 at load).  Enabling the
 * free side empties the table: frees missed while it was off would leave
 * stale rows.  Frees attach before allocations, and allocations detach
 * first, so no allocation is seen whose free is not.
 *
 * memleak_sample=N keeps 1 in N allocations, chosen by a hash of the
 * pointer: the free of a pointer not kept is known not to be in the table
 * and costs no lock, and memleak_unknown_frees still means what it says.
 * Rows then hold about 1/N of the allocations and bytes, as BCC's
 * memleak -s shows them: unscaled.
 *
 * Not seen: kmem_cache_alloc_bulk() and kmem_cache_free_bulk() (no
 * per-object event), so kfree_rcu() objects freed in bulk by RCU stay
 * outstanding.
 */
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kmemleak.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "memscope.h"
#include "compat/kmem.h"
#include "uapi/memscope_genl.h"

#define MS_MEMLEAK_STATS(X)						\
	X(memleak_allocs, "Kernel allocations memleak's probes saw.") \
	X(memleak_frees, "Kernel frees memleak's probes saw.")	\
	X(memleak_unknown_frees, "Frees of pointers memleak's table does not hold (allocated before enabling).") \
	X(memleak_dropped, "Allocations that found no free slot in memleak's table.")
MS_STAT_SET(memleak, MS_MEMLEAK_STATS);

/* memleak's two views (view.c): a row per call site, or per allocation. */
enum ms_leak_view { MS_LEAK_BY_SITE, MS_LEAK_EACH };
struct ms_leak_snap;
static struct ms_leak_snap *ms_leak_snapshot(enum ms_leak_view view);
static void ms_leak_snap_free(void *snap);
static unsigned int ms_leak_snap_rows(const void *snap);
static unsigned int ms_leak_snap_row(const void *snap, unsigned int i, char *name, size_t len,
				     u64 v[MS_VIEW_COLS]);

#define MS_LEAK_SEGS	256
#define MS_LEAK_REACH	16

/*
 * A slab allocation's site is its call_site, frames[0].  Page and percpu
 * allocations' tracepoints have none (percpu's, from 6.0, names whichever
 * allocator wrapper the compiler left a frame for): their frames are the
 * return addresses above the tracepoint, and the site is the first one
 * outside that allocator, found by name at read time (ms_frames_site()).
 */
#define MS_LEAK_FRAMES	5

enum ms_leak_kind { MS_LEAK_SLAB, MS_LEAK_PAGE, MS_LEAK_PERCPU };

struct ms_leak {
	unsigned long ptr;		/* 0: a free slot */
	u64 when;			/* jiffies_64 at the allocation */
	u32 bytes;			/* at most KMALLOC_MAX_SIZE, pages, or percpu */
	u32 kind;			/* enum ms_leak_kind */
	unsigned long frames[MS_LEAK_FRAMES];
};

static struct {
	raw_spinlock_t lock;
} ____cacheline_aligned_in_smp ms_leak_segs[MS_LEAK_SEGS];

static struct ms_leak *ms_leaks;
static unsigned int ms_leak_seg_size;	/* slots per segment, a power of two */

static unsigned int memleak_size = 32768;
module_param(memleak_size, uint, 0400);
MODULE_PARM_DESC(memleak_size, "Outstanding allocations memleak can hold (rounded up to a power of two, 4096..4194304)");

static bool memleak;
module_param(memleak, bool, 0400);
MODULE_PARM_DESC(memleak, "Enable the memleak probes at load (they cost on every slab allocation)");

static unsigned int memleak_sample = 1;
module_param(memleak_sample, uint, 0400);
MODULE_PARM_DESC(memleak_sample, "Keep 1 in N allocations, chosen by pointer (1..65536; 1: all)");
static u32 ms_leak_sample __read_mostly = 1;

/*
 * Open addressing within a segment, with tombstones (ms_ptr_slot() and
 * ms_ptr_remove(), memscope.h): in a table that is not crowded, a search
 * stops after a slot or two instead of all MS_LEAK_REACH.
 */

/*
 * The segment is the hash's low 8 bits and the slot the next up to 14.  A
 * sampled pointer is one whose hash, mixed again so that the choice does
 * not fall on a few segments, is 0 modulo the rate.
 */
static __always_inline bool ms_leak_skip(u32 h)
{
	return unlikely(ms_leak_sample > 1) && ((h * GOLDEN_RATIO_32) >> 8) % ms_leak_sample;
}

static __always_inline unsigned int ms_leak_seg(unsigned long ptr, unsigned int *slot,
						bool *skip)
{
	u32 h = ms_hash_64(ptr, 32);

	*skip = ms_leak_skip(h);
	*slot = (h >> 8) & (ms_leak_seg_size - 1);
	return h & (MS_LEAK_SEGS - 1);
}

/*
 * memscope's own buffers, allocated when a file is opened and held until
 * it is closed, are not the system's leaks: the tasks allocating them are
 * named here for the time of the allocation (ms_self_begin()), and their
 * allocations are neither counted nor kept.  Their frees then count as
 * unknown frees.  Before 5.x vmalloc() takes its pages one by one through
 * the page allocator's event, so a table's snapshot was its own leak.
 */
#define MS_SELF_SLOTS 8

static struct task_struct *ms_self_tasks[MS_SELF_SLOTS];
static atomic_t ms_self_active = ATOMIC_INIT(0);

int ms_self_begin(void)
{
	int i;

	atomic_inc(&ms_self_active);
	for (i = 0; i < MS_SELF_SLOTS; i++)
		if (!cmpxchg(&ms_self_tasks[i], NULL, current))
			return i;
	return -1;	/* all taken: this one is seen, as any allocation */
}

void ms_self_end(int slot)
{
	if (slot >= 0)
		WRITE_ONCE(ms_self_tasks[slot], NULL);
	atomic_dec(&ms_self_active);
}

static __always_inline bool ms_leak_self(void)
{
	int i;

	if (likely(!atomic_read(&ms_self_active)))
		return false;
	for (i = 0; i < MS_SELF_SLOTS; i++)
		if (READ_ONCE(ms_self_tasks[i]) == current)
			return true;
	return false;
}

/* Page and percpu handlers: decide before taking a stack they may not keep. */
static __always_inline bool ms_leak_sampled_out(unsigned long ptr)
{
	if (ms_leak_self())
		return true;
	if (!ms_leak_skip(ms_hash_64(ptr, 32)))
		return false;
	ms_stat_inc(memleak, MS_memleak_allocs);
	return true;
}

static void ms_leak_add(unsigned long ptr, const unsigned long *frames,
			unsigned int nframes, u32 bytes, enum ms_leak_kind kind)
{
	struct ms_leak *e;
	unsigned int s, slot;
	unsigned long flags;
	bool skip;

	if (ZERO_OR_NULL_PTR((void *)ptr) || ms_leak_self())
		return;
	ms_stat_inc(memleak, MS_memleak_allocs);
	s = ms_leak_seg(ptr, &slot, &skip);
	if (skip)
		return;
	raw_spin_lock_irqsave(&ms_leak_segs[s].lock, flags);
	/*
	 * The same pointer again: 6.x's large kmalloc reports one allocation
	 * twice, from inside and then for its caller, and the later report
	 * names the caller; or a free was not seen (kfree_bulk(), as
	 * kfree_rcu() batches use it) and the memory is in use again.  Either
	 * way one entry, the latest.
	 */
	e = ms_ptr_slot(ms_leaks + (size_t)s * ms_leak_seg_size, sizeof(*e), ms_leak_seg_size,
			slot, MS_LEAK_REACH, ptr);
	if (e) {
		e->when = get_jiffies_64();
		e->ptr = ptr;
		e->bytes = bytes;
		e->kind = kind;
		memcpy(e->frames, frames, nframes * sizeof(*frames));
		memset(e->frames + nframes, 0, (MS_LEAK_FRAMES - nframes) * sizeof(*frames));
	}
	raw_spin_unlock_irqrestore(&ms_leak_segs[s].lock, flags);
	if (!e)
		ms_stat_inc(memleak, MS_memleak_dropped);
}

static void ms_leak_del(unsigned long ptr)
{
	unsigned int s, slot;
	unsigned long flags;
	bool skip, found;

	if (ZERO_OR_NULL_PTR((void *)ptr))
		return;
	ms_stat_inc(memleak, MS_memleak_frees);
	s = ms_leak_seg(ptr, &slot, &skip);
	if (skip)
		return;
	raw_spin_lock_irqsave(&ms_leak_segs[s].lock, flags);
	found = ms_ptr_remove(ms_leaks + (size_t)s * ms_leak_seg_size, sizeof(struct ms_leak),
			      ms_leak_seg_size, slot, MS_LEAK_REACH, ptr);
	raw_spin_unlock_irqrestore(&ms_leak_segs[s].lock, flags);
	if (!found)
		ms_stat_inc(memleak, MS_memleak_unknown_frees);
}

/* Forget everything: at enable, and on `reset`. */
static void ms_leak_clear(void)
{
	unsigned long flags;
	unsigned int s;

	if (!ms_leaks)
		return;
	for (s = 0; s < MS_LEAK_SEGS; s++) {
		raw_spin_lock_irqsave(&ms_leak_segs[s].lock, flags);
		memset(ms_leaks + (size_t)s * ms_leak_seg_size, 0,
		       ms_leak_seg_size * sizeof(*ms_leaks));
		raw_spin_unlock_irqrestore(&ms_leak_segs[s].lock, flags);
	}
}

/*
 * The tracepoints' prototypes, by kernel (compat/kmem.h, NOTES.md):
 * before 6.1 kmalloc and kmem_cache_alloc share one class, with _node
 * twins, and 5.19/6.0 added the cache to it; 6.1 merged the twins, and
 * kmem_cache_alloc passes the cache instead of sizes.  The size is what
 * the caller asked for: bytes_req for kmalloc, and a cache's object size
 * (bytes_req before 6.1, kmem_cache_size() from 6.1), the same on every
 * kernel and with any slab debugging.  BCC's memleak counts bytes_alloc,
 * the slab's size class, which a module cannot read for a cache from 6.1
 * (struct kmem_cache is private to mm/): the CLI's header says which.
 */
static void ms_kmalloc(MS_KMALLOC_PROTO)
{
	ms_hit(data);	/* the probe it was registered with */
	ms_leak_add((unsigned long)ptr, &call_site, 1, bytes_req, MS_LEAK_SLAB);
}

static void ms_kmalloc_node(MS_KMALLOC_NODE_PROTO)
{
	ms_hit(data);
	ms_leak_add((unsigned long)ptr, &call_site, 1, bytes_req, MS_LEAK_SLAB);
}

static void ms_kmem_cache_alloc(MS_KMEM_CACHE_ALLOC_PROTO)
{
	ms_hit(data);
	ms_leak_add((unsigned long)ptr, &call_site, 1, MS_KMEM_CACHE_ALLOC_BYTES, MS_LEAK_SLAB);
}

static void ms_kmem_cache_alloc_node(MS_KMEM_CACHE_ALLOC_NODE_PROTO)
{
	ms_hit(data);
	ms_leak_add((unsigned long)ptr, &call_site, 1, MS_KMEM_CACHE_ALLOC_BYTES, MS_LEAK_SLAB);
}

static void ms_kfree(void *data, unsigned long call_site, const void *ptr)
{
	ms_hit(data);
	ms_leak_del((unsigned long)ptr);
}

static void ms_kmem_cache_free(MS_KMEM_CACHE_FREE_PROTO)
{
	ms_hit(data);
	ms_leak_del((unsigned long)ptr);
}

/*
 * Pages: keyed by their struct page, which no slab pointer can equal.
 * mm_page_free fires for every page freed, also those freed in batches,
 * which fire mm_page_free_batched as well: only mm_page_free is used, or
 * a batched page would be freed twice.
 */
static void ms_page_alloc(void *data, struct page *page, unsigned int order,
			  gfp_t gfp_flags, int migratetype)
{
	unsigned long frames[MS_LEAK_FRAMES];
	unsigned int n;

	ms_hit(data);
	if (!page || ms_leak_sampled_out((unsigned long)page))
		return;
	/* Skip this handler; the tracepoint's own frame, if any, is skipped by name. */
	n = ms_stack_save(frames, MS_LEAK_FRAMES, 1);
	ms_leak_add((unsigned long)page, frames, n, PAGE_SIZE << order, MS_LEAK_PAGE);
}

static void ms_page_free(void *data, struct page *page, unsigned int order)
{
	ms_hit(data);
	ms_leak_del((unsigned long)page);
}

/*
 * Percpu: keyed by the __percpu pointer, an offset into the percpu area on
 * x86-64 and an address in the kernel image's percpu section on arm64: it
 * equals no slab object or struct page.  The bytes are what the caller
 * asked for on every possible CPU, as 6.0's bytes_alloc counts them.
 */
static void ms_percpu_alloc(MS_PERCPU_ALLOC_PROTO)
{
	unsigned long frames[MS_LEAK_FRAMES];
	unsigned int n;

	ms_hit(data);
	if (ms_leak_sampled_out((__force unsigned long)ptr))
		return;
	n = ms_stack_save(frames, MS_LEAK_FRAMES, 1);
	ms_leak_add((__force unsigned long)ptr, frames, n, size * num_possible_cpus(),
		    MS_LEAK_PERCPU);
}

static void ms_percpu_free(MS_PERCPU_FREE_PROTO)
{
	ms_hit(data);
	ms_leak_del((__force unsigned long)ptr);
}

/* Prototypes checked against the kernel's header; see vmscan.c. */
static void __maybe_unused ms_memleak_check_protos(void)
{
	MS_TP_CHECK(mm_page_alloc, ms_page_alloc);
	MS_TP_CHECK(mm_page_free, ms_page_free);
	MS_TP_CHECK_PERCPU(percpu_alloc_percpu, ms_percpu_alloc);
	MS_TP_CHECK_PERCPU(percpu_free_percpu, ms_percpu_free);
	MS_TP_CHECK(kmalloc, ms_kmalloc);
	MS_TP_CHECK(kmem_cache_alloc, ms_kmem_cache_alloc);
	MS_TP_CHECK_NODE(kmalloc_node, ms_kmalloc_node);
	MS_TP_CHECK_NODE(kmem_cache_alloc_node, ms_kmem_cache_alloc_node);
	MS_TP_CHECK(kfree, ms_kfree);
	MS_TP_CHECK(kmem_cache_free, ms_kmem_cache_free);
}

#define MS_LEAK_PROBE(n, fn)						\
	static const char *const ms_##n##_targets[] = { #n, NULL };	\
	static struct ms_probe ms_##n##_probe = {			\
		.name = #n,						\
		.targets = ms_##n##_targets,				\
		.kind = MS_TRACEPOINT,					\
		.tp_func = fn,						\
		.default_off = true,					\
		.family = "memleak",					\
	}

MS_LEAK_PROBE(kfree, ms_kfree);
MS_LEAK_PROBE(kmem_cache_free, ms_kmem_cache_free);
MS_LEAK_PROBE(mm_page_free, ms_page_free);
MS_LEAK_PROBE(percpu_free_percpu, ms_percpu_free);
MS_LEAK_PROBE(kmalloc, ms_kmalloc);
MS_LEAK_PROBE(kmem_cache_alloc, ms_kmem_cache_alloc);
MS_LEAK_PROBE(kmalloc_node, ms_kmalloc_node);
MS_LEAK_PROBE(kmem_cache_alloc_node, ms_kmem_cache_alloc_node);
MS_LEAK_PROBE(mm_page_alloc, ms_page_alloc);
MS_LEAK_PROBE(percpu_alloc_percpu, ms_percpu_alloc);

/* The probes that record allocations, as against those that see frees. */
static struct ms_probe *const ms_leak_alloc_probes[] = {
	&ms_kmalloc_probe, &ms_kmem_cache_alloc_probe, &ms_kmalloc_node_probe,
	&ms_kmem_cache_alloc_node_probe, &ms_mm_page_alloc_probe,
	&ms_percpu_alloc_percpu_probe,
};

/* Whether any allocation is being recorded: memleak's reports run while so. */
static bool ms_leak_on(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms_leak_alloc_probes); i++)
		if (READ_ONCE(ms_leak_alloc_probes[i]->attached))
			return true;
	return false;
}

/* memleak_sample, clamped: for `version`. */
static unsigned int ms_leak_sample_rate(void)
{
	return ms_leak_sample;
}

/* Slots in memleak's table: memleak_size, clamped, a power of two. */
static unsigned int ms_leak_size(void)
{
	return roundup_pow_of_two(clamp(memleak_size, 4096U, 1U << 22));
}

/* ---- memleak's reports to its netlink group ----------------------------- */

/*
 * As BCC's memleak prints every interval: the sites holding the most, one
 * message each, from one snapshot.  The work runs while memleak's probes
 * are on and requeues itself only then; attaching an allocation probe
 * queues it again (ms_leak_report_kick, its probes' after_attach).  With
 * nobody in the group it takes no snapshot, a wake-up per interval being
 * nothing next to what the probes cost on every allocation.
 */
#define MS_LEAK_REPORT_TOP	10
#define MS_LEAK_REPORT_MIN_MS	100U	/* a snapshot walks the whole table */

static unsigned int memleak_report_ms = 5000;
module_param(memleak_report_ms, uint, 0400);
MODULE_PARM_DESC(memleak_report_ms, "Milliseconds between memleak's reports to the netlink group memleak (0: none; at least 100)");

/* ms_leak_reporting against queueing: nothing queues the work after exit. */
static DEFINE_SPINLOCK(ms_leak_report_lock);
static bool ms_leak_reporting;
static u64 ms_leak_reports;	/* the last report's number */

static void ms_leak_report(struct work_struct *work);
static DECLARE_DELAYED_WORK(ms_leak_report_work, ms_leak_report);

/* The next report in an interval, unless one is queued already. */
static void ms_leak_report_kick(void)
{
	spin_lock(&ms_leak_report_lock);
	if (ms_leak_reporting && memleak_report_ms)
		queue_delayed_work(system_wq, &ms_leak_report_work,
				   msecs_to_jiffies(max(memleak_report_ms, MS_LEAK_REPORT_MIN_MS)));
	spin_unlock(&ms_leak_report_lock);
}

/* One site's message: a row of the memleak file, its rank and its line. */
struct ms_leak_msg {
	u64 report, time_ns;
	unsigned int rank;
	u64 v[MS_VIEW_COLS];
	char site[KSYM_SYMBOL_LEN];
	char line[KSYM_SYMBOL_LEN + 160];
};

#define MS_LEAK_MSG_FIELD(n, m, k, attr) \
	MS_FIELD(struct ms_leak_msg, n, m, k, .nla = attr, .flags = MS_FIELD_NLA64)

static const struct ms_field_desc ms_leak_msg_fields[] = {
	MS_LEAK_MSG_FIELD("time_ns", time_ns, MS_FK_UINT, MEMSCOPE_A_TIME_NS),
	MS_LEAK_MSG_FIELD("report", report, MS_FK_UINT, MEMSCOPE_A_REPORT),
	MS_FIELD(struct ms_leak_msg, "rank", rank, MS_FK_UINT, .nla = MEMSCOPE_A_RANK),
	MS_FIELD(struct ms_leak_msg, "site", site, MS_FK_STR, .nla = MEMSCOPE_A_SITE),
	MS_LEAK_MSG_FIELD("allocs", v[0], MS_FK_UINT, MEMSCOPE_A_ALLOCS),
	MS_LEAK_MSG_FIELD("bytes", v[1], MS_FK_UINT, MEMSCOPE_A_BYTES),
	MS_LEAK_MSG_FIELD("oldest_ms", v[2], MS_FK_UINT, MEMSCOPE_A_OLDEST_MS),
};

/* The group's messages; events_format gives them as "memleak". */
static const struct ms_record_desc ms_leak_report_desc = {
	.name = "memleak",
	MS_FIELDS(ms_leak_msg_fields),
};

static int ms_leak_msg_fill(struct sk_buff *skb, void *arg)
{
	const struct ms_leak_msg *m = arg;

	return nla_put_string(skb, MEMSCOPE_A_LINE, m->line) ||
	       ms_genl_put_record(skb, &ms_leak_report_desc, m) ? -EMSGSIZE : 0;
}

/* memleak's netlink group: its top sites every memleak_report_ms. */
static int ms_leak_group;

/* Row @i of @snap as one message; false if it was lost on the way. */
static bool ms_leak_report_row(const struct ms_leak_snap *snap, unsigned int i,
			       struct ms_leak_msg *m)
{
	int err, n;

	m->rank = i + 1;
	ms_leak_snap_row(snap, i, m->site, sizeof(m->site), m->v);
	/* The line for older CLIs, which read LINE only. */
	n = ms_record_format(m->line, sizeof(m->line), &ms_leak_report_desc, m);
	if (n > 0 && m->line[n - 1] == '\n')
		m->line[n - 1] = '\0';
	/* A few hundred bytes, not a page: up to ten of them wait in each listener. */
	err = ms_genl_notify(ms_leak_group, MEMSCOPE_CMD_EVENT_MEMLEAK,
			     nla_total_size(strlen(m->line) + 1) + nla_total_size(strlen(m->site) + 1) +
			     nla_total_size(strlen(ms_leak_report_desc.name) + 1) +
			     5 * (nla_total_size(sizeof(u64)) + nla_total_size(0)) +
			     nla_total_size(sizeof(u32)),
			     ms_leak_msg_fill, m);
	return !err || err == -ESRCH;
}

static void ms_leak_report(struct work_struct *work)
{
	struct ms_leak_snap *snap;
	struct ms_leak_msg *m;
	unsigned int i, n;

	if (!ms_leak_on())
		return;
	if (!ms_genl_listening(ms_leak_group))
		goto again;
	snap = ms_leak_snapshot(MS_LEAK_BY_SITE);
	if (!snap) {
		ms_stat_inc(core, MS_netlink_dropped);	/* a report, of unknown size */
		goto again;
	}
	n = min(ms_leak_snap_rows(snap), (unsigned int)MS_LEAK_REPORT_TOP);
	if (n) {
		m = ms_self_alloc(kmalloc(sizeof(*m), GFP_KERNEL));
		if (m) {
			m->report = ++ms_leak_reports;
			m->time_ns = ktime_get_ns();
		}
		for (i = 0; i < n; i++)
			if (!m || !ms_leak_report_row(snap, i, m))
				ms_stat_inc(core, MS_netlink_dropped);
		kfree(m);
	}
	ms_leak_snap_free(snap);
again:
	ms_leak_report_kick();
}

static size_t ms_leak_bytes(void)
{
	return (size_t)ms_leak_size() * sizeof(struct ms_leak);
}

/* --- the memleak file: one row per call site, largest first ------------- */

struct ms_leak_site {
	unsigned long site;
	u64 allocs;
	u64 bytes;
	u64 oldest;	/* jiffies_64 of the oldest outstanding allocation */
	u32 kind;
	unsigned long frames[MS_LEAK_FRAMES];	/* page and percpu allocations */
};

struct ms_leak_snap {
	unsigned int n;
	enum ms_leak_view view;
	u64 now;
	struct ms_leak_site s[];
};

static int ms_leak_site_cmp(const void *a, const void *b)
{
	const struct ms_leak_site *x = a, *y = b;

	return x->site < y->site ? -1 : x->site > y->site;
}

static int ms_leak_bytes_cmp(const void *a, const void *b)
{
	const struct ms_leak_site *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->allocs != y->allocs)
		return x->allocs < y->allocs ? 1 : -1;
	return ms_leak_site_cmp(a, b);
}

/* One allocation a row: largest first, then oldest first. */
static int ms_leak_each_cmp(const void *a, const void *b)
{
	const struct ms_leak_site *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->oldest != y->oldest)
		return x->oldest < y->oldest ? -1 : 1;
	return ms_leak_site_cmp(a, b);
}

/* Allocations with frames first, by kind and frames: one lookup per stack. */
static int ms_leak_frames_cmp(const void *a, const void *b)
{
	const struct ms_leak_site *x = a, *y = b;

	if (!!x->site != !!y->site)
		return x->site ? 1 : -1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return memcmp(x->frames, y->frames, sizeof(x->frames));
}

/*
 * The page allocator and its wrappers, across kernels: a page's site is the
 * first frame outside them (and outside the tracepoint's own iterator).
 */
static const char *const ms_page_allocator[] = {
	"__traceiter_", "__alloc_pages", "alloc_pages", "__alloc_frozen_pages",
	"alloc_frozen_pages", "get_page_from_freelist", "__get_free_pages",
	"get_zeroed_page", "alloc_pages_exact", "__folio_alloc", "folio_alloc",
	"__alloc_pages_node", "alloc_pages_mpol", "alloc_pages_vma",
	"vma_alloc_folio", "alloc_pages_current", "alloc_page_interleave",
	"prep_new_page", "post_alloc_hook", "rmqueue", "__rmqueue", "__alloc_pages_bulk",
	"alloc_pages_bulk",
};

/*
 * A large kmalloc takes its pages from the page allocator and reports the
 * allocation itself as kmalloc too: those pages are not shown twice.
 */
static const char *const ms_page_kmalloc[] = {
	"___kmalloc_large", "__kmalloc_large", "kmalloc_large", "kmalloc_order",
};
#define MS_SITE_KMALLOC 1UL	/* no function starts at address 1 */

/* The percpu allocator and its wrappers, _noprof from 6.10. */
static const char *const ms_percpu_allocator[] = {
	"__traceiter_", "pcpu_alloc", "__alloc_percpu", "__alloc_reserved_percpu",
};

static bool ms_name_in(const char *name, const char *const *list, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++)
		if (!strncmp(name, list[j], strlen(list[j])))
			return true;
	return false;
}

static unsigned long ms_frames_site(const unsigned long *frames, enum ms_leak_kind kind)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned int i;

	for (i = 0; i < MS_LEAK_FRAMES && frames[i]; i++) {
		sprint_symbol_no_offset(name, frames[i]);
		/*
		 * The handler's own frame: save_stack_trace() of older
		 * kernels (4.9 and 4.14 here) records the return into its
		 * caller, which the skip of one does not cover.
		 */
		if (strstr(name, "[" KBUILD_MODNAME "]"))
			continue;
		if (kind == MS_LEAK_PERCPU) {
			if (!ms_name_in(name, ms_percpu_allocator, ARRAY_SIZE(ms_percpu_allocator)))
				return frames[i];
			continue;
		}
		if (ms_name_in(name, ms_page_kmalloc, ARRAY_SIZE(ms_page_kmalloc)))
			return MS_SITE_KMALLOC;
		if (!ms_name_in(name, ms_page_allocator, ARRAY_SIZE(ms_page_allocator)))
			return frames[i];
	}
	return 0;	/* shown as [unknown] */
}

/*
 * One snapshot per open or netlink dump, as the tables (table.c): a row per
 * call site (MS_LEAK_BY_SITE, the memleak file), or a row per outstanding
 * allocation with its own age (MS_LEAK_EACH, memleak_allocations), which
 * is what BCC's memleak -o filters: an old leak and the young allocations
 * of the same site that are still in use tell apart only there.
 */
static struct ms_leak_snap *ms_leak_snapshot(enum ms_leak_view view)
{
	unsigned int total = ms_leak_seg_size * MS_LEAK_SEGS, s, i, n = 0, np = 0, out;
	struct ms_leak_snap *snap;
	unsigned long flags;

	snap = ms_self_alloc(kvmalloc(struct_size(snap, s, total), GFP_KERNEL));
	if (!snap)
		return NULL;
	snap->view = view;
	for (s = 0; s < MS_LEAK_SEGS; s++) {
		const struct ms_leak *seg = ms_leaks + (size_t)s * ms_leak_seg_size;

		raw_spin_lock_irqsave(&ms_leak_segs[s].lock, flags);
		for (i = 0; i < ms_leak_seg_size; i++) {
			/* Not this snapshot's own buffer. */
			if (seg[i].ptr <= MS_PTR_TOMB || seg[i].ptr == (unsigned long)snap)
				continue;
			snap->s[n].allocs = 1;
			snap->s[n].bytes = seg[i].bytes;
			snap->s[n].oldest = seg[i].when;
			snap->s[n].kind = seg[i].kind;
			if (seg[i].kind != MS_LEAK_SLAB) {
				np++;
				snap->s[n].site = 0;
				memcpy(snap->s[n].frames, seg[i].frames, sizeof(seg[i].frames));
			} else {
				snap->s[n].site = seg[i].frames[0];
				memset(snap->s[n].frames, 0, sizeof(snap->s[n].frames));
			}
			n++;
		}
		raw_spin_unlock_irqrestore(&ms_leak_segs[s].lock, flags);
		cond_resched();
	}
	snap->now = get_jiffies_64();
	/* Sites by name, outside every lock, once per distinct kind and stack. */
	sort(snap->s, n, sizeof(snap->s[0]), ms_leak_frames_cmp, NULL);
	for (i = 0; i < np; i++) {
		if (i && snap->s[i].kind == snap->s[i - 1].kind &&
		    !memcmp(snap->s[i].frames, snap->s[i - 1].frames, sizeof(snap->s[i].frames)))
			snap->s[i].site = snap->s[i - 1].site;
		else
			snap->s[i].site = ms_frames_site(snap->s[i].frames, snap->s[i].kind);
		if (i && !(i & 1023))
			cond_resched();
	}
	sort(snap->s, n, sizeof(snap->s[0]), ms_leak_site_cmp, NULL);
	/* Sorted by site: add each run of one site into its first entry. */
	for (i = 0, out = 0; i < n; i++) {
		struct ms_leak_site *o = out ? &snap->s[out - 1] : NULL;

		if (snap->s[i].site == MS_SITE_KMALLOC)
			continue;

		if (view == MS_LEAK_BY_SITE && o && o->site == snap->s[i].site) {
			o->allocs++;
			o->bytes += snap->s[i].bytes;
			o->oldest = min(o->oldest, snap->s[i].oldest);
			continue;
		}
		snap->s[out++] = snap->s[i];
	}
	sort(snap->s, out, sizeof(snap->s[0]),
	     view == MS_LEAK_EACH ? ms_leak_each_cmp : ms_leak_bytes_cmp, NULL);
	snap->n = out;
	return snap;
}

/*
 * A call site as one token: "function+0xoff/0xsize" and "[module]" joined
 * without the space %pS puts between them.  Never an address: a site
 * kallsyms cannot name (its module is gone, say) is "[unknown]".
 */
static void ms_leak_site_name(char *buf, size_t len, unsigned long site)
{
	char *sp;

	snprintf(buf, len, "%pS", (void *)site);
	if (!buf[0] || !strncmp(buf, "0x", 2)) {
		strscpy(buf, "[unknown]", len);
		return;
	}
	sp = strchr(buf, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp + 1) + 1);
}

static void ms_leak_snap_free(void *snap)
{
	kvfree(snap);
}

static unsigned int ms_leak_snap_rows(const void *snap)
{
	return ((const struct ms_leak_snap *)snap)->n;
}

/*
 * Row @i as the file shows it: the site's token; then allocs, bytes,
 * oldest_ms (by site) or bytes, age_ms (each).  Returns the columns.
 */
static unsigned int ms_leak_snap_row(const void *p, unsigned int i, char *name, size_t len,
				     u64 v[MS_VIEW_COLS])
{
	const struct ms_leak_snap *snap = p;
	const struct ms_leak_site *s = &snap->s[i];
	u64 age = jiffies_to_msecs(snap->now - s->oldest);

	ms_leak_site_name(name, len, s->site);
	if (snap->view == MS_LEAK_EACH) {
		v[0] = s->bytes;
		v[1] = age;
		return 2;
	}
	v[0] = s->allocs;
	v[1] = s->bytes;
	v[2] = age;
	return 3;
}

static void *ms_leak_view_snapshot(const struct ms_view *v)
{
	return ms_leak_snapshot(v->arg);
}

static struct ms_view ms_leak_by_site_view = {
	.file = "memleak",
	.header = "# site allocs bytes oldest_ms",
	.arg = MS_LEAK_BY_SITE,
	.snapshot = ms_leak_view_snapshot,
	.free = ms_leak_snap_free,
	.rows = ms_leak_snap_rows,
	.row = ms_leak_snap_row,
};

static struct ms_view ms_leak_each_view = {
	.file = "memleak_allocations",
	.header = "# site bytes age_ms",
	.arg = MS_LEAK_EACH,
	.snapshot = ms_leak_view_snapshot,
	.free = ms_leak_snap_free,
	.rows = ms_leak_snap_rows,
	.row = ms_leak_snap_row,
};

/* ---- the family ---------------------------------------------------------- */

static void ms_leak_version(struct seq_file *m)
{
	seq_printf(m, "memleak_size %u memleak_sample %u\n", ms_leak_size(),
		   ms_leak_sample_rate());
}

/* Called after every probe is gone: the report stops, then the table goes. */
static void ms_memleak_exit(void)
{
	spin_lock(&ms_leak_report_lock);
	ms_leak_reporting = false;
	spin_unlock(&ms_leak_report_lock);
	cancel_delayed_work_sync(&ms_leak_report_work);
	vfree(ms_leaks);
	ms_leaks = NULL;
}

static int ms_memleak_init(void)
{
	/* Frees before allocations: attached in this order, detached in reverse. */
	static struct ms_probe *const ms_leak_probes[] = {
		&ms_kfree_probe, &ms_kmem_cache_free_probe, &ms_mm_page_free_probe,
		&ms_percpu_free_percpu_probe, &ms_kmalloc_probe, &ms_kmem_cache_alloc_probe,
		&ms_kmalloc_node_probe, &ms_kmem_cache_alloc_node_probe,
		&ms_mm_page_alloc_probe, &ms_percpu_alloc_percpu_probe,
	};
	unsigned int n = ms_leak_size();
	unsigned int i;
	int s, err;

	/* The README's footprint formula counts 64 bytes a slot. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) && sizeof(struct ms_leak) != 64);

	for (s = 0; s < MS_LEAK_SEGS; s++)
		raw_spin_lock_init(&ms_leak_segs[s].lock);
	ms_leak_seg_size = n / MS_LEAK_SEGS;
	ms_leaks = vzalloc(array_size(n, sizeof(*ms_leaks)));
	if (!ms_leaks)
		return -ENOMEM;
	/*
	 * The table holds a pointer to every allocation it tracks: were
	 * kmemleak to scan it, no tracked allocation would ever look leaked.
	 */
	kmemleak_no_scan(ms_leaks);
	/* Frees first: probes attach in the order they were added. */
	ms_kfree_probe.before_attach = ms_leak_clear;
	if (MS_KMEM_NODE_MERGED) {
		/* 6.1 merged the _node events into kmalloc and kmem_cache_alloc. */
		ms_kmalloc_node_probe.unsupported = "merged_into_kmalloc";
		ms_kmem_cache_alloc_node_probe.unsupported = "merged_into_kmem_cache_alloc";
	}
	ms_leak_sample = clamp(memleak_sample, 1U, 65536U);
	if (!MS_HAVE_PERCPU_EVENTS) {
		ms_percpu_alloc_percpu_probe.unsupported = "no_percpu_tracepoints";
		ms_percpu_free_percpu_probe.unsupported = "no_percpu_tracepoints";
	}
	/* The probes file names them page_alloc, percpu_alloc and so on. */
	ms_mm_page_alloc_probe.name = "page_alloc";
	ms_mm_page_free_probe.name = "page_free";
	ms_percpu_alloc_percpu_probe.name = "percpu_alloc";
	ms_percpu_free_percpu_probe.name = "percpu_free";
	if (memleak) {
		ms_mm_page_alloc_probe.default_off = false;
		ms_mm_page_free_probe.default_off = false;
		ms_percpu_alloc_percpu_probe.default_off = false;
		ms_percpu_free_percpu_probe.default_off = false;
		ms_kfree_probe.default_off = false;
		ms_kmem_cache_free_probe.default_off = false;
		ms_kmalloc_probe.default_off = false;
		ms_kmem_cache_alloc_probe.default_off = false;
		ms_kmalloc_node_probe.default_off = false;
		ms_kmem_cache_alloc_node_probe.default_off = false;
	}
	/* Attaching an allocation probe starts the reports (ms_leak_on()). */
	for (i = 0; i < ARRAY_SIZE(ms_leak_alloc_probes); i++)
		ms_leak_alloc_probes[i]->after_attach = ms_leak_report_kick;
	spin_lock(&ms_leak_report_lock);
	ms_leak_reporting = true;
	spin_unlock(&ms_leak_report_lock);
	ms_leak_group = ms_genl_group_add(MEMSCOPE_MCGRP_MEMLEAK);
	err = ms_leak_group < 0 ? ms_leak_group :
	      ms_probe_add_all(ms_leak_probes, ARRAY_SIZE(ms_leak_probes)) ?:
	      ms_stat_set_add(&ms_memleak_stats) ?: ms_view_add(&ms_leak_by_site_view) ?:
	      ms_view_add(&ms_leak_each_view) ?: ms_message_add(&ms_leak_report_desc);
	if (err)
		ms_memleak_exit();
	return err;
}

const struct ms_family ms_memleak_family = {
	.init = ms_memleak_init,
	.exit = ms_memleak_exit,
	.reset = ms_leak_clear,
	.bytes = ms_leak_bytes,
	.version = ms_leak_version,
};
