/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memscope: memory observability without BPF.
 * Copyright (C) 2026 The memscope authors.
 */
#ifndef _MEMSCOPE_H
#define _MEMSCOPE_H

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <asm/local64.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "uapi/memscope_genl.h"
#include "uapi/memscope_hist.h"

#define MS_NAME_LEN	64	/* file names, as bpftrace's default str() */

/*
 * hash_32() and hash_64() as 4.7 and later compute them where the
 * architecture has no hash of its own (x86_64 and arm64 have none), so
 * the same slots there, and on older kernels too.  Before 4.7 (RHEL 7's
 * 3.10) they multiply by GOLDEN_RATIO_PRIME_*, whose sparse bits keep
 * sequential keys sequential: 3.10's ms_hash_64(key, 32) of a key with the
 * pid in its high word is the pid plus a constant, so the rows of
 * consecutive pids took consecutive slots and pushed each other out of
 * reach, and a page's slab objects fell in one memleak slot.
 */
static __always_inline u32 ms_hash_32(u32 val, unsigned int bits)
{
	return val * 0x61C88647U >> (32 - bits);
}

static __always_inline u32 ms_hash_64(u64 val, unsigned int bits)
{
	return val * 0x61C8864680B583EBULL >> (64 - bits);
}

/*
 * One segment of a table of entries keyed by pointer (memleak's, uleak's):
 * @n entries (a power of two) of @size bytes, each starting with its
 * unsigned long key, 0 for never used and MS_PTR_TOMB for freed.  A
 * pointer lives in one of the @reach slots from its hash's @slot on.  An
 * insert takes the first empty slot or tombstone, so no pointer ever lies
 * past an empty slot in its window, and every search stops at the first
 * empty one.  A removal turns its slot empty when the next one is, and
 * the tombstones before it with it.  The caller holds the segment's lock.
 */
#define MS_PTR_TOMB	1UL	/* ZERO_OR_NULL_PTR, and no allocator's pointer */

static __always_inline unsigned long *ms_ptr_key(void *seg, size_t size, unsigned int i)
{
	return (unsigned long *)((char *)seg + (size_t)i * size);
}

/* Where @ptr goes: its own entry if there (a free not seen), else the first free; NULL if none. */
static __always_inline void *ms_ptr_slot(void *seg, size_t size, unsigned int n,
					 unsigned int slot, unsigned int reach, unsigned long ptr)
{
	void *free = NULL;
	unsigned int i;

	for (i = 0; i < reach; i++) {
		unsigned long *k = ms_ptr_key(seg, size, (slot + i) & (n - 1));

		if (*k == ptr)
			return k;
		if (*k == 0)
			return free ?: k;
		if (*k == MS_PTR_TOMB && !free)
			free = k;
	}
	return free;
}

/* Takes @ptr out: false if it is not there. */
static __always_inline bool ms_ptr_remove(void *seg, size_t size, unsigned int n,
					  unsigned int slot, unsigned int reach, unsigned long ptr)
{
	unsigned int i, j, mask = n - 1;

	for (i = 0; i < reach; i++) {
		unsigned int pos = slot + i;
		unsigned long *k = ms_ptr_key(seg, size, pos & mask);

		if (*k == 0)
			return false;
		if (*k != ptr)
			continue;
		if (*ms_ptr_key(seg, size, (pos + 1) & mask)) {
			*k = MS_PTR_TOMB;
		} else {
			*k = 0;
			for (j = 1; j < reach; j++) {
				unsigned long *t = ms_ptr_key(seg, size, (pos - j) & mask);

				if (*t != MS_PTR_TOMB)
					break;
				*t = 0;
			}
		}
		return true;
	}
	return false;
}

/*
 * The registries (probes, tables, views, stats, histograms, event types,
 * groups) are arrays with a cap fixed when the module is built, filled
 * by the families at load.  Append @item to @arr, of which @n are used:
 * 0, or -ENOSPC when it is full, after an error that names the cap.
 */
#define ms_register(arr, n, item, what, name) ({			\
	int __err = 0;							\
									\
	if ((n) < ARRAY_SIZE(arr)) {					\
		(arr)[(n)++] = (item);					\
	} else {							\
		pr_err("memscope: %s %s: %s holds %zu at most; raise its cap in memscope.h\n", \
		       what, name, #arr, ARRAY_SIZE(arr));		\
		__err = -ENOSPC;					\
	}								\
	__err;								\
})

/* Module parameters (main.c). */
extern unsigned int ms_table_size;
extern unsigned int ms_ustack_depth;
#define MS_USTACK_MAX_DEPTH 127
extern unsigned int ms_ring_size;
extern unsigned int ms_oom_ring_size;


/*
 * Cumulative counters, summed across CPUs at read time.  Each family keeps
 * its own set, defined in its file with MS_STAT_SET() from an X-list of
 * names, and registered from its init (ms_stat_set_add()).  The `stats`
 * file lists the sets in registration order, main.c's order of the
 * families, then the core's; names are the contract (SPEC.md), not the
 * order.
 */
struct ms_stat_set {
	const char *const *names;
	const char *const *help;	/* a sentence each, for stats_format */
	unsigned int n;
	u64 gauges;			/* bit i: names[i] is a state, not a count */
	u64 __percpu *v;		/* [n] on each CPU */
	u64 *base;			/* [n]: the sums at the last reset */
	/* Counts kept elsewhere (a probe's hits), added to the sums before the baseline. */
	void (*raw)(u64 *v);
	/* Values that are not counts, set after the baseline and never reset. */
	void (*now)(u64 *v);
};

#define MS_STAT_ENUM(name, help) MS_##name,
#define MS_STAT_STR(name, help) #name,
#define MS_STAT_HELP(name, help) help,
/*
 * Set @set of the counters LIST(X) describes, X(name, help), for
 * ms_stat_inc(@set, MS_name): a plain per-CPU variable, so a hit costs
 * what it did when all counters were one array.  The arguments after LIST
 * initialise the rest of the struct ms_stat_set (.raw, .now, .gauges).
 */
#define MS_STAT_SET(set, LIST, ...)					\
	enum { LIST(MS_STAT_ENUM) MS_NR_##set##_STATS };		\
	static DEFINE_PER_CPU(u64, ms_stats_##set[MS_NR_##set##_STATS]);	\
	static const char *const ms_##set##_stat_names[] = { LIST(MS_STAT_STR) }; \
	static const char *const ms_##set##_stat_help[] = { LIST(MS_STAT_HELP) }; \
	static u64 ms_##set##_stat_base[MS_NR_##set##_STATS];		\
	static struct ms_stat_set ms_##set##_stats = {			\
		.names = ms_##set##_stat_names,				\
		.help = ms_##set##_stat_help,				\
		.n = MS_NR_##set##_STATS,				\
		.v = &ms_stats_##set[0],				\
		.base = ms_##set##_stat_base,				\
		__VA_ARGS__						\
	}

/* Safe in any context: a single per-CPU add, no lock. */
#define ms_stat_add(set, s, n)	this_cpu_add(ms_stats_##set[s], n)
#define ms_stat_inc(set, s)	this_cpu_inc(ms_stats_##set[s])

/* The core's own counters (stats.c), which every file may count. */
#define MS_CORE_STATS(X)						\
	X(dropped, "Events not recorded because a table was full of live rows.") \
	X(events_lost, "Events a slow reader of the events stream found overwritten, less the OOM kills it got back.") \
	X(unmatched_ends, "End events with no begin on record (reclaim, compaction, shrinker), not timed.") \
	X(table_reused, "Table rows reused for a new key (process gone, or already read).") \
	X(reset_count, "Resets since load; every other counter restarts at a reset.") \
	X(netlink_dropped, "Events the netlink groups did not deliver while someone listened.") \
	X(events_oom_recovered, "OOM kills a reader of the events stream got back from the oom ring.") \
	X(events_oom_lost, "OOM kills a reader of the events stream lost, more than oom_ring_size behind.")
enum { MS_CORE_STATS(MS_STAT_ENUM) MS_NR_core_STATS };
DECLARE_PER_CPU(u64, ms_stats_core[MS_NR_core_STATS]);

/* A generous cap on the sets; more fails the load, with an error that names it. */
#define MS_MAX_STAT_SETS	16
int ms_stat_set_add(struct ms_stat_set *set);

/* The `stats` file's lines, as one read of it sees them; kfree() it. */
struct ms_stats_snap {
	unsigned int n;
	struct {
		const char *name;
		u64 v;
	} e[];
};
struct ms_stats_snap *ms_stats_snapshot(void);
void ms_stats_format_show(struct seq_file *m);
void ms_stats_reset(void);
unsigned long ms_reset_gen(void);
size_t ms_stats_percpu_bytes(void);

/*
 * log2 histograms in bpftrace's layout: [0], [1], [2,4), ... [2^63, 2^64).
 * Each is defined by its family (MS_HIST()) and registered from its init
 * (ms_hist_register()); hist/ and hist_raw/ have a file per histogram.
 */
struct ms_hist_cpu {
	u64 bucket[MEMSCOPE_HIST_BUCKETS];
	u64 sum;
};

struct ms_hist {
	const char *name;
	struct ms_hist_cpu __percpu *cpu;
	struct ms_hist_cpu base;	/* the sums at the last reset */
};

/* Histogram @h, for ms_hist_add(@h, v), in a family's file. */
#define MS_HIST(h)							\
	static DEFINE_PER_CPU(struct ms_hist_cpu, ms_hist_cpu_##h);	\
	static struct ms_hist ms_hist_##h = {				\
		.name = #h, .cpu = &ms_hist_cpu_##h,			\
	}

/* Safe in any context, as ms_stat_add(). */
#define ms_hist_add(h, v) do {						\
	u64 __v = (v);							\
									\
	this_cpu_inc(ms_hist_cpu_##h.bucket[__v ? fls64(__v) : 0]);	\
	this_cpu_add(ms_hist_cpu_##h.sum, __v);				\
} while (0)

/* A generous cap; more fails the load, with an error that names it. */
#define MS_MAX_HISTS	16
extern struct ms_hist *ms_hists[MS_MAX_HISTS];
extern unsigned int ms_nr_hists;
int ms_hist_register(struct ms_hist *h);
struct ms_hist *ms_hist_find(const char *name);
void ms_hist_show(struct seq_file *m, struct ms_hist *h, bool raw);
void ms_hist_read(struct ms_hist *h, struct ms_hist_cpu *out);
void ms_hist_reset(void);

/*
 * Probes.  Each has a stable name (the `probes` file, `control`), a list of
 * candidate targets (the first the kernel has wins) and its handlers.
 */
enum ms_probe_kind {
	MS_KPROBE,
	MS_KRETPROBE,
	MS_TRACEPOINT,
	MS_FPROBE,	/* where MS_HAVE_FPROBE_HOOK; else never registered */
};

struct ms_probe {
	const char *name;
	const char *const *targets;	/* NULL-terminated candidates */
	enum ms_probe_kind kind;
	/* Set when the build cannot support this probe at all. */
	const char *unsupported;
	bool default_off;
	const char *family;		/* "enable FAMILY" covers it too */
	void (*before_attach)(void);	/* run under the probe lock */
	void (*after_attach)(void);	/* the same, once it attached */

	kprobe_pre_handler_t pre_handler;
	kretprobe_handler_t entry_handler;
	kretprobe_handler_t ret_handler;
	size_t data_size;
	int maxactive;
	void *tp_func;
	ms_fentry_t fentry;
	ms_fexit_t fexit;

	/* Runtime state, under ms_probe_lock. */
	const char *target;
	const char *reason;		/* why unavailable, or NULL */
	bool attached;
	unsigned long missed_before;	/* by earlier registrations */
	struct kprobe kp;
	struct kretprobe rp;
	struct tracepoint *tp;
	ms_fprobe_t fp;
	unsigned long __percpu *hits;	/* by ms_probe_add(), freed by ms_probes_release() */
};

/*
 * The probe registry (probe.c): each family adds its probes from its init
 * function, and the `probes` file lists them in that order, main.c's order
 * of the families.  A bounded array, as the tables' (MS_MAX_TABLES): the
 * count is fixed when the module is built, unloading detaches every probe
 * in one batch per kind, and a cap too small fails the load with an error
 * that names it.
 */
#define MS_MAX_PROBES	64

/*
 * A hit on probe @p: its own per-CPU counter, allocated when it was
 * registered, before it could fire.  Any context: one per-CPU increment.
 */
static __always_inline void ms_hit(struct ms_probe *p)
{
	this_cpu_inc(*p->hits);
}

int ms_probe_add(struct ms_probe *p);
int ms_probe_add_all(struct ms_probe *const *p, unsigned int n);
int ms_probes_init(void);
void ms_probes_exit(void);
void ms_probes_release(void);
size_t ms_probes_bytes(void);
int ms_probe_set(const char *name, bool on);
int ms_probe_on(const char *name);
void ms_probes_show(struct seq_file *m);

/* A probe as the `probes` file shows it: the state is state + reason. */
struct ms_probe_state {
	const char *name;
	const char *target;
	const char *state;		/* "attached", "disabled", "unavailable:" */
	const char *reason;		/* what follows "unavailable:", else "" */
	u64 hits;
	u64 missed;
};
int ms_probes_for_each(int (*fn)(const struct ms_probe_state *st, void *arg), void *arg);
unsigned long ms_probe_missed(const struct ms_probe *p);
unsigned long ms_probe_missed_now(const struct ms_probe *p);
u64 ms_probe_hits(const struct ms_probe *p);

/*
 * Bounded tables: open addressing over a fixed array allocated at load.
 * Probe context claims a slot with a cmpxchg on its key and counts into its
 * own CPU's counters (get_cpu(), local64), so a hot row is written by no
 * more than one CPU; readers fold the CPUs.  A full table reuses a row whose
 * process has exited, else one that readers have already seen (counted in
 * table_reuse), and counts `dropped` only when no such row is within reach.
 * See table.c.
 */
#define MS_TABLE_COLS 3

struct ms_row {
	u64 key;			/* 0: free; MS_KEY_BUSY: being reused */
	u64 aux;			/* shrinker: scan_objects; cgroup: id */
	u64 seen;			/* 1 + column 0 at a reader's open; 0: unseen */
	u32 pid;			/* tgid, for the per-process tables */
	u32 ready;			/* name and pid published */
	u32 base;			/* slot * ncols: its counters' index */
	u32 depth;			/* MS_TK_STACK: frames in the row's stack */
	char name[MS_NAME_LEN];
};

enum ms_table_kind {
	MS_TK_TASK,			/* (tgid, process name) */
	MS_TK_NAME,			/* a name; rows with equal names merge */
	MS_TK_CGROUP,			/* a cgroup2 id, shown as its path */
	MS_TK_PTR,			/* a kernel function, shown by name */
	MS_TK_STACK,			/* (tgid, process name, user stack) */
};

struct ms_table {
	const char *file;		/* debugfs name */
	const char *header;		/* "# pid comm faults major" */
	enum ms_table_kind kind;
	unsigned int ncols;
	unsigned int size;		/* power of two */
	struct ms_row *rows;
	local64_t **cnt;		/* [cpu][slot * ncols + col] */
	unsigned long *frames;		/* MS_TK_STACK: [slot * ms_ustack_depth + i] */
	/*
	 * A log2 histogram per row, [slot * MS_ROW_BUCKETS + log2], for a
	 * per-row median printed after the counters.  Not per CPU: only for
	 * rows updated on slow paths (swap I/O).
	 */
	bool row_hist;
	atomic_t *buckets;
	/*
	 * Rows a reader had seen taken over while their key could still
	 * count (a running process's, or any row of a table without
	 * processes), and the events they held: what later reports lack.
	 * The file table_reuse shows them.
	 */
	atomic64_t reused_rows;
	atomic64_t reused_events;
};

#define MS_ROW_BUCKETS 64

/* A generous cap: more fails the load, with an error that names it. */
#define MS_MAX_TABLES	32

/*
 * The tables, each defined and registered (ms_table_add()) by its family,
 * in registration order: ms_for_each_table().
 */
extern struct ms_table *ms_tables[MS_MAX_TABLES];
extern unsigned int ms_nr_tables;
#define ms_for_each_table(t, i)						\
	for ((i) = 0; (i) < ms_nr_tables && ((t) = ms_tables[i], 1); (i)++)
int ms_table_add(struct ms_table *t);
struct ms_table *ms_table_find(const char *file);

struct ms_row *ms_table_get(struct ms_table *t, u64 key);
int ms_table_reuse_show(struct seq_file *m);
void ms_row_publish_task(struct ms_row *row, pid_t tgid, u64 c0, u64 c1);
void ms_row_publish_id(struct ms_row *row, u64 id);

/*
 * The common case inline: the key in its first slot, a row that whoever
 * claimed it publishes.  NULL otherwise: then ms_table_get(), and publish
 * the row's name if it is not ready.
 */
static __always_inline struct ms_row *ms_table_hit(struct ms_table *t, u64 key)
{
	struct ms_row *row = &t->rows[ms_hash_64(key, 32) & (t->size - 1)];

	return likely(READ_ONCE(row->key) == key) ? row : NULL;
}
/*
 * Per-process rows, keyed by (tgid, the process's name): every thread of a
 * process counts in one row, as `ps`, bpftrace's pid and BCC mean it, and
 * a process that execs gets a new row under its new name instead of being
 * shown as the shell that forked it.  The name is the thread group
 * leader's comm, which `ps` shows.  For the running task, in probe context.
 */
static __always_inline struct ms_row *ms_table_get_tc(struct ms_table *t, pid_t tgid,
							const char *comm_bytes)
{
	const u64 *comm = (const u64 *)comm_bytes;
	u64 c0, c1, key;
	struct ms_row *row;

	BUILD_BUG_ON(TASK_COMM_LEN != 2 * sizeof(u64));
	/*
	 * As get_task_comm() without task_lock: a racing rename shows either
	 * name.  The name is read once, in registers: the key and the name
	 * published agree.
	 */
	c0 = READ_ONCE(comm[0]);
	c1 = READ_ONCE(comm[1]);
	key = ((u64)tgid << 32 | 1) ^ (c0 * 0x9e3779b97f4a7c15ULL) ^
	      (c1 * 0xc2b2ae3d27d4eb4fULL);
	key |= 1;	/* never 0, the free marker */
	row = ms_table_hit(t, key);
	if (likely(row))
		return row;
	row = ms_table_get(t, key);
	if (row && !READ_ONCE(row->ready))
		ms_row_publish_task(row, tgid, c0, c1);
	return row;
}

static __always_inline struct ms_row *ms_table_get_task(struct ms_table *t)
{
	struct task_struct *tsk = current;

	/*
	 * The leader outlives every other thread (a zombie until the group is
	 * empty) and changes only in de_thread(), once the others are gone, so
	 * a running task's group_leader needs no RCU.
	 */
	return ms_table_get_tc(t, tsk->tgid, tsk->group_leader->comm);
}

/*
 * Per-cgroup rows, keyed by the running task's cgroup: on the default (v2)
 * hierarchy, or its memory cgroup on a v1 one (ms_task_cgroup_key()).  The path is looked up when a reader opens the
 * file.  In probe context.
 */
static __always_inline struct ms_row *ms_table_get_cgroup(struct ms_table *t)
{
	struct ms_row *row;
	u64 id;

	if (!IS_ENABLED(CONFIG_CGROUPS))
		return NULL;

	/*
	 * A css_set is freed after an RCU grace period, and probe context runs
	 * with preemption disabled, which every RCU flavour waits for (from
	 * 4.20; RHEL 8's 4.18 has no preemptible RCU).  So no rcu_read_lock()
	 * but where an older kernel has preemptible RCU (ms_probe_rcu_lock()):
	 * the fault path pays for nothing it does not need.
	 */
	ms_probe_rcu_lock();
	id = ms_task_cgroup_key(current) ?: 1;
	ms_probe_rcu_unlock();
	row = ms_table_hit(t, id);
	if (likely(row))
		return row;
	row = ms_table_get(t, id);
	if (row && !READ_ONCE(row->ready))
		ms_row_publish_id(row, id);
	return row;
}

/* A snapshot of a table, as a reader sees it (table.c). */
struct ms_snap {
	u64 aux;
	u32 pid;
	u32 depth;			/* MS_TK_STACK: frames at frames[i * ms_ustack_depth] */
	u32 i;
	char name[MS_NAME_LEN];
	s64 v[MS_TABLE_COLS];
};

struct ms_table_iter {
	struct ms_table *t;
	unsigned int n;
	unsigned long *frames;		/* MS_TK_STACK: each row's, by ms_snap.i */
	struct ms_snap snap[];
};

struct ms_table_iter *ms_table_snapshot(struct ms_table *t);
void ms_table_iter_free(struct ms_table_iter *it);

/* A row's first field is its pid. */
static inline bool ms_table_has_pid(const struct ms_table *t)
{
	return t->kind == MS_TK_TASK || t->kind == MS_TK_STACK;
}

/* The numbers after the name: the counters, then a row_hist median. */
static inline unsigned int ms_table_cols(const struct ms_table *t)
{
	return t->ncols + t->row_hist;
}

/* MS_TK_STACK: a snapshot row's user stack, s->depth frames. */
static inline const unsigned long *ms_snap_frames(const struct ms_table_iter *it,
						  const struct ms_snap *s)
{
	return &it->frames[s->i * ms_ustack_depth];
}

int ms_tables_init(void);
void ms_tables_exit(void);
void ms_tables_reset(void);
int ms_table_open(struct file *file, struct ms_table *t);
int ms_table_release(struct inode *inode, struct file *file);
extern const struct seq_operations ms_table_seq_ops;
size_t ms_tables_bytes(void);

/*
 * A plain add to this CPU's copy of a row's counter.  __ms_row_add() is
 * for kprobe and kretprobe handlers, which always run with preemption
 * disabled; ms_row_add() makes sure of it, for tracepoint handlers (which
 * PREEMPT_RT may run with only migration disabled).
 */
static __always_inline void ms_row_add_cpu(struct ms_table *t, int cpu, struct ms_row *row,
					   unsigned int col, s64 n)
{
	local64_add(n, &t->cnt[cpu][row->base + col]);
}

static __always_inline void __ms_row_add(struct ms_table *t, struct ms_row *row,
					 unsigned int col, s64 n)
{
	ms_row_add_cpu(t, smp_processor_id(), row, col, n);
}

static __always_inline void ms_row_add(struct ms_table *t, struct ms_row *row,
				       unsigned int col, s64 n)
{
	preempt_disable_notrace();
	__ms_row_add(t, row, col, n);
	preempt_enable_notrace();
}

/*
 * A record's fields, described once (fields.c): the file's line, the
 * netlink attributes and the events_format file that types both for the
 * CLI are all made from this.  An integer is read from the record by its
 * size and sign; a field the kernel alone can render (gfp flags, a
 * compaction result's name) has a formatter.
 */
enum ms_field_kind {
	MS_FK_UINT,		/* unsigned, in decimal */
	MS_FK_INT,		/* signed, in decimal */
	MS_FK_HEX,		/* unsigned, as %#llx */
	MS_FK_BOOL,		/* 0 or 1; a flag over netlink, absent for 0 */
	MS_FK_STR,		/* a NUL-terminated char array, escaped */
	MS_FK_TEXT,		/* its formatter's words: names, never a space */
};

#define MS_FIELD_UNKNOWN	0x1	/* negative (int) or empty (str): "-", no attribute */
#define MS_FIELD_32		0x2	/* an integer that is 32 bits wide whatever it is stored in */
#define MS_FIELD_NLA64		0x4	/* its attribute is a u64, else a u32 */

struct ms_field_desc {
	const char *name;
	u16 offset;
	u16 size;
	u8 kind;
	u8 flags;
	u8 nla;			/* memscope_genl.h's attribute, 0 for none */
	u8 variants;		/* the variants it is part of (desc->variant), 0 for all */
	int (*format)(char *b, size_t len, const void *rec);
};

struct ms_record_desc {
	const char *name;		/* its ring's file, the stream's word */
	const struct ms_field_desc *fields;
	unsigned int nr_fields;
	/* The record's variant, as a bit for ms_field_desc.variants (shm's calls). */
	unsigned int (*variant)(const void *rec);
};

#define MS_FIELD(rec, n, m, k, ...) {					\
	.name = n, .offset = offsetof(rec, m),				\
	.size = sizeof(((rec *)NULL)->m), .kind = k, __VA_ARGS__ }
#define MS_FIELDS(f) .fields = f, .nr_fields = ARRAY_SIZE(f)

int ms_record_format(char *b, size_t len, const struct ms_record_desc *d, const void *rec);
void ms_record_format_show(struct seq_file *m, const struct ms_record_desc *d);
bool ms_field_present(const struct ms_record_desc *d, const struct ms_field_desc *f,
		      const void *rec);
bool ms_field_int(const struct ms_field_desc *f, const void *rec, u64 *v);
struct ms_flag {
	unsigned long bit;
	const char *name;
};
#define MS_FLAG(p, x) { p##x, #p #x }
int ms_format_flags(char *b, size_t len, unsigned long v, const struct ms_flag *f, size_t nf);

/*
 * Event types.  Each family defines its own, with its record's fields,
 * and registers it from its init (ms_event_type_add()), which allocates
 * its ring of the last N events.  The ring's file, the type's word in the
 * `events` stream, its line in events_format and its netlink group all
 * come from it.  Records are copied in under a raw spinlock (probe
 * context, PREEMPT_RT safe) and formatted only at read time.
 */
#define MS_EVENT_DATA	264	/* the largest record, an OOM kill's */

/*
 * An event as the rings hold it: its record in @data.  oom_seq numbers the
 * OOM kills: a kill's own number, and on any other event in the stream the
 * number the next kill will get.  A reader of the stream that finds it
 * behind has lost kills, which the oom ring still holds (events.c).  32
 * bits; numbers are compared modulo 2^32, and 2^32 kills would take years.
 */
struct ms_event {
	u64 seq;
	u32 type;			/* its ms_event_type's id */
	u32 oom_seq;
	u64 data[MS_EVENT_DATA / sizeof(u64)];
};

struct ms_event_type {
	struct ms_record_desc desc;	/* .name: the ring's file, the stream's word */
	size_t size;			/* the record's, at most MS_EVENT_DATA */
	u8 genl_cmd;			/* its notification; 0 for none */
	const char *genl_group;		/* and its group's name (uapi), with genl_cmd */
	/*
	 * Events that a reader of the stream must not lose: one that fell
	 * behind gets them from the type's ring, of oom_ring_size events (OOM
	 * kills, and only they: one type at most).
	 */
	bool recover;
	/* By ms_event_type_add(). */
	u32 id;
	int group;			/* the netlink group's index */
};

/* ms_event_type.size for records of type @rec: one that does not fit fails the build. */
#define MS_EVENT_SIZE(rec) (sizeof(rec) + BUILD_BUG_ON_ZERO(sizeof(rec) > MS_EVENT_DATA))

/* A field of the record in an ms_event, of type @rec. */
#define MS_EVENT_FIELD(rec, n, m, k, ...) {				\
	.name = n, .offset = offsetof(struct ms_event, data) + offsetof(rec, m), \
	.size = sizeof(((rec *)NULL)->m), .kind = k, __VA_ARGS__ }

/* The record in an ms_event, as a field's formatter gets it. */
static inline const void *ms_event_rec(const void *ev)
{
	return ((const struct ms_event *)ev)->data;
}

/* A generous cap; more fails the load, with an error that names it. */
#define MS_MAX_EVENT_TYPES	16
int ms_event_type_add(struct ms_event_type *t);
extern struct ms_event_type *ms_event_types[MS_MAX_EVENT_TYPES];
extern unsigned int ms_nr_event_types;
const struct ms_event_type *ms_event_type_of(const struct ms_event *ev);
void ms_event_emit(const struct ms_event_type *t, const void *rec);
/* A reader's place in the stream, and the next OOM kill it has to see. */
struct ms_cursor {
	u64 seq;
	u32 oom_seq;
	bool recovered;		/* the last event came from the oom ring */
	u64 lost;		/* skipped, not yet told */
};
bool ms_cursor_next(struct ms_cursor *c, struct ms_event *ev, u64 *lost);
void ms_cursor_start(struct ms_cursor *c);
void ms_events_sync(void);
int ms_events_init(void);
void ms_events_exit(void);
void ms_events_reset(void);
size_t ms_events_bytes(void);
int ms_ring_show(struct seq_file *m, const struct ms_event_type *t);
int ms_event_line(char *b, size_t len, const struct ms_event *ev);
int ms_events_format_show(struct seq_file *m);
int ms_message_add(const struct ms_record_desc *d);
extern const struct file_operations ms_events_fops;
extern const struct ms_proc_ops ms_events_proc_ops;

/*
 * Begin timestamps per task for tracepoint begin/end pairs (pair.c):
 * bounded, lock-free, a fixed table per kind of pair, which its family
 * defines (MS_PAIR()) and registers from its init (ms_pair_add(), for the
 * footprint).  ms_pair_end() gives the latency of the calling task's
 * matching begin, or counts `unmatched_ends` and fails.
 */
#define MS_PAIR_SLOTS		1024	/* per kind, power of two */

struct ms_pair_slot {
	unsigned long owner;
	u64 start;
	u64 aux;		/* the begin's own value, for its end */
};

struct ms_pair {
	struct ms_pair_slot slot[MS_PAIR_SLOTS];
};
#define MS_PAIR(name) static struct ms_pair name

int ms_pair_add(struct ms_pair *p);
u64 ms_pair_now(void);
/* @aux: a value of the begin's that its end needs (a shrinker's objects). */
void ms_pair_begin_aux(struct ms_pair *p, u64 now, bool keep, u64 aux);
bool ms_pair_end_aux(struct ms_pair *p, u64 now, u64 *latency, u64 *aux);
static inline void ms_pair_begin(struct ms_pair *p, u64 now, bool keep)
{
	ms_pair_begin_aux(p, now, keep, 0);
}
static inline bool ms_pair_end(struct ms_pair *p, u64 now, u64 *latency)
{
	return ms_pair_end_aux(p, now, latency, NULL);
}
size_t ms_pairs_bytes(void);

/*
 * Views (view.c): rows a family computes from its own data at each read,
 * where a table's rows are counted in place (memleak's, by site and by
 * allocation).  A family defines its views and registers them from its
 * init (ms_view_add()); each is a file, and a netlink dump as a table's.
 * @snapshot takes what one open (or dump) shows, NULL without memory;
 * @row gives row @i's name and numbers, and returns how many numbers.
 */
#define MS_VIEW_COLS	3
#define MS_MAX_VIEWS	8

struct ms_view {
	const char *file;
	const char *header;		/* "# site allocs bytes oldest_ms" */
	unsigned int arg;		/* the family's, for @snapshot */
	void *(*snapshot)(const struct ms_view *v);
	void (*free)(void *snap);
	unsigned int (*rows)(const void *snap);
	unsigned int (*row)(const void *snap, unsigned int i, char *name, size_t len,
			    u64 v[MS_VIEW_COLS]);
};

extern struct ms_view *ms_views[MS_MAX_VIEWS];
extern unsigned int ms_nr_views;
int ms_view_add(struct ms_view *v);
struct ms_view *ms_view_find(const char *file);
int ms_view_open(struct file *file, const struct ms_view *v);
int ms_view_release(struct inode *inode, struct file *file);

/*
 * Texts: a family's own file of lines, written at each read, where its
 * data is neither a table nor a view (the files user stack frames are
 * in).  Served over netlink by GET_TEXT, as `version` is.
 */
#define MS_MAX_TEXTS	12
struct ms_text {
	const char *file;
	int (*show)(struct seq_file *m);
	/* Optional: readiness for poll(), @m the open file's (debugfs and procfs). */
	__poll_t (*poll)(struct seq_file *m, struct file *file, poll_table *wait);
};

extern const struct ms_text *ms_texts[MS_MAX_TEXTS];
extern unsigned int ms_nr_texts;
int ms_text_add(const struct ms_text *t);

/*
 * Families: each tool family's file exports one descriptor, which main.c's
 * ms_families[] lists in the order of the `probes` file.  @init registers
 * the family's probes, tables, stats, histograms, event types, pairs,
 * views and groups, and allocates what they need, before anything can
 * fire; @exit undoes it (a load that fails later, and unload).  The rest
 * is optional: @reset clears the family's own data at a `reset` (the
 * core clears stats, histograms, tables and rings), @bytes is what it
 * allocated at load (for the footprint), @version writes its lines of
 * the `version` file.  A descriptor whose @init is __init is __refconst:
 * that pointer is only called from memscope_init().
 */
struct ms_family {
	int (*init)(void);
	void (*exit)(void);
	void (*reset)(void);
	size_t (*bytes)(void);
	void (*version)(struct seq_file *m);
};

/*
 * Every family, in the order of the `probes` file, of `version`'s tables,
 * of the table files and of the stats: main.c registers them in this
 * order.  Programs read those by name (docs/debugfs.md), and a new probe,
 * table or stat comes among its family's.  The per-cgroup tables, swap
 * residency and allocstall, which came after the tools listed before
 * them when the order was by age, register after them, though their
 * families came first, so that those lines keep their places.  Family
 * NAME's descriptor is ms_NAME_family, in its own file.
 */
#define MS_FAMILIES(X)							\
	X(faults) X(swapin) X(hugetlb) X(oom) X(vmscan) X(compaction)	\
	X(faults_cgroup) X(swapin_cgroup) X(memleak) X(slabtop)		\
	X(syscalls) X(ustacks) X(swres) X(allocstall) X(ufile) X(unwind)	\
	X(uleak) X(pressure)
/*
 * ufile.c: user stack frames as (file, offset), in probe context.  A
 * stack's walk finds its VMAs through a struct ms_uvma: under the mmap
 * lock, the caller's or one ms_uvma_begin() tries for, or, where that is
 * busy and the kernel has per-VMA locks, each VMA under its own lock in
 * turn.  A VMA (or the whole walk) that could not be had is counted once
 * per stack in ustack_mm_busy, by ms_uvma_end().
 */
struct ms_uvma {
	struct mm_struct *mm;
	struct vm_area_struct *vma;	/* the last one found, or NULL */
	struct vm_area_struct *held;	/* a fault's VMA, locked by the fault */
	u8 mode;			/* MS_UVMA_* */
	bool busy;			/* some VMA's lock could not be had */
};

bool ms_uvma_begin(struct ms_uvma *w, struct mm_struct *mm, bool mm_locked,
		   struct vm_area_struct *held);
struct vm_area_struct *ms_uvma_find(struct ms_uvma *w, unsigned long a);
void ms_uvma_end(struct ms_uvma *w);
unsigned long ms_ufile_frame(const struct vm_area_struct *vma, unsigned long a);
void ms_ufile_frames(struct ms_uvma *w, unsigned long *ip, unsigned int n);
/* A user stack's hash, for the tables keyed by stack. */
static __always_inline u64 ms_ustack_hash(const unsigned long *ip, unsigned int n)
{
	u64 h = 0x84222325cbf29ce4ULL ^ n;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ ip[i]) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 31;
	return h;
}

/* ustack.c: the running task's user stack, as file frames where it can. */
unsigned int ms_ustack_frames(unsigned long *ip, unsigned int max, bool mm_locked,
			      struct vm_area_struct *held);
void ms_seq_frames(struct seq_file *m, const unsigned long *f, unsigned int depth);
/* uleak.c: memleak -p's file, which starts a session and ends it when closed. */
extern const struct file_operations ms_uleak_fops;
extern const struct ms_proc_ops ms_uleak_proc_ops;
/* unwind.c: the walk by unwind tables, under that lock, and their file. */
bool ms_unwind_loaded(void);
bool ms_unwind_has(u32 dev, u64 ino, u32 gen);
unsigned int ms_unwind_walk(struct ms_uvma *w, struct pt_regs *regs, unsigned long *ip,
			    unsigned int max);
extern const struct file_operations ms_unwind_fops;
extern const struct ms_proc_ops ms_unwind_proc_ops;

#define MS_FAMILY_DECL(name) extern const struct ms_family ms_##name##_family;
MS_FAMILIES(MS_FAMILY_DECL)

void ms_families_reset(void);
size_t ms_families_bytes(void);
void ms_families_version(struct seq_file *m);

int ms_self_begin(void);
void ms_self_end(int slot);
/* An allocation of memscope's own that memleak must not see (memleak.c). */
#define ms_self_alloc(expr) ({				\
	int __ms_slot = ms_self_begin();		\
	typeof(expr) __ms_p = (expr);			\
	ms_self_end(__ms_slot);				\
	__ms_p;						\
})

/* Front end: debugfs, or procfs with procfs=1. */
int ms_fs_init(void);
void ms_fs_exit(void);
int ms_file_show(struct seq_file *m, const char *name);

int ms_user_line(char *buf, size_t size, const char __user *ubuf, size_t count);

/* control.c: reset, enable NAME, disable NAME */
void ms_reset_all(void);
struct file;
int ms_control(char *line, struct file *file);
int ms_control_set(const char *name, bool on);
void ms_control_release(struct file *file);

size_t ms_footprint(void);
void ms_seq_escape(struct seq_file *m, const char *s);
size_t ms_escape(char *dst, size_t len, const char *src);
void ms_events_shutdown(void);

/* The generic netlink family (genl.c). */
int ms_genl_init(void);
void ms_genl_exit(void);
void ms_genl_kick(void);
/*
 * A multicast group, by its name (uapi), from a family's init: its index
 * for ms_genl_notify(), or an error.
 */
int ms_genl_group_add(const char *name);
/* A family's own messages, from process context (memleak's reports). */
struct sk_buff;
int ms_genl_notify(int group, u8 cmd, size_t size,
		   int (*fill)(struct sk_buff *skb, void *arg), void *arg);
bool ms_genl_listening(int group);
int ms_genl_put_record(struct sk_buff *skb, const struct ms_record_desc *d, const void *rec);

#endif /* _MEMSCOPE_H */
