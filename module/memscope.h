/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memscope: memory observability without BPF.
 * Copyright (C) 2026 The memscope authors.
 */
#ifndef _MEMSCOPE_H
#define _MEMSCOPE_H

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#define MS_NAME_LEN	64	/* file names, as bpftrace's default str() */

/*
 * Cumulative counters, summed across CPUs at read time.  The order is the
 * order of the `stats` file; names are the contract (SPEC.md), append only.
 */
#define MS_STATS(X)							\
	X(faults) X(faults_major) X(faults_retry) X(faults_error)	\
	X(faults_user) X(faults_kernel) X(faults_anon) X(faults_file)	\
	X(faults_shmem) X(faults_hugetlb) X(faults_write)		\
	X(swapins) X(hugetlb_faults) X(oom_kills)			\
	X(direct_reclaim_count) X(direct_reclaim_ns) X(direct_reclaim_pages) \
	X(memcg_reclaim_count) X(memcg_reclaim_ns) X(memcg_reclaim_pages) \
	X(shrink_slab_count) X(shrink_slab_ns) X(shrink_slab_freed)	\
	X(kswapd_wakeups) X(kswapd_wake_count) X(kswapd_wake_ns)	\
	X(writepage) X(compaction_count) X(compaction_ns)		\
	X(dropped) X(events_lost) X(unmatched_ends)

#define MS_ENUM(name) MS_##name,
enum ms_stat { MS_STATS(MS_ENUM) MS_NR_STATS };

struct ms_stats {
	u64 v[MS_NR_STATS];
};
DECLARE_PER_CPU(struct ms_stats, ms_stats);

/* Safe in any context: a single per-CPU add, no lock. */
static __always_inline void ms_stat_add(enum ms_stat s, u64 n)
{
	this_cpu_add(ms_stats.v[s], n);
}

static __always_inline void ms_stat_inc(enum ms_stat s)
{
	this_cpu_inc(ms_stats.v[s]);
}

/* log2 histograms in bpftrace's layout: [0], [1], [2,4), ... [2^63, 2^64) */
#define MS_HISTS(X)							\
	X(fault_latency_ns) X(direct_reclaim_ns) X(memcg_reclaim_ns)	\
	X(shrink_slab_ns) X(compaction_ns)

#define MS_HIST_ENUM(name) MS_H_##name,
enum ms_hist { MS_HISTS(MS_HIST_ENUM) MS_NR_HISTS };

#define MS_HIST_BUCKETS 65

struct ms_hist_cpu {
	u64 bucket[MS_HIST_BUCKETS];
	u64 sum;
};
DECLARE_PER_CPU(struct ms_hist_cpu, ms_hists[MS_NR_HISTS]);

static __always_inline void ms_hist_add(enum ms_hist h, u64 v)
{
	this_cpu_inc(ms_hists[h].bucket[v ? fls64(v) : 0]);
	this_cpu_add(ms_hists[h].sum, v);
}

void ms_stats_sum(u64 *out);
void ms_stats_reset(void);
void ms_hist_show(struct seq_file *m, enum ms_hist h);
void ms_hist_reset(void);
extern const char *const ms_stat_names[];
extern const char *const ms_hist_names[];

/*
 * Probes.  Each has a stable name (the `probes` file, `control`), a list of
 * candidate targets (the first the kernel has wins) and its handlers.
 */
enum ms_probe_kind {
	MS_KPROBE,
	MS_KRETPROBE,
	MS_TRACEPOINT,
};

struct ms_probe {
	const char *name;
	const char *const *targets;	/* NULL-terminated candidates */
	enum ms_probe_kind kind;
	/* Set when the build cannot support this probe at all. */
	const char *unsupported;
	bool default_off;

	kprobe_pre_handler_t pre_handler;
	kretprobe_handler_t entry_handler;
	kretprobe_handler_t ret_handler;
	size_t data_size;
	int maxactive;
	void *tp_func;

	/* Runtime state, under ms_probe_lock. */
	const char *target;
	const char *reason;		/* why unavailable, or NULL */
	bool attached;
	struct kprobe kp;
	struct kretprobe rp;
	struct tracepoint *tp;
	unsigned int id;
};

/*
 * Probe ids index the per-CPU hit counters.  Families register their probes
 * in this order; see probe.c.
 */
#define MS_PROBES(X)							\
	X(faults) X(swapin) X(swapin_zswap) X(hugetlb)			\
	X(oom_kill) X(oom_mark_victim)					\
	X(direct_reclaim_begin) X(direct_reclaim_end)			\
	X(memcg_reclaim_begin) X(memcg_reclaim_end)			\
	X(shrink_slab_start) X(shrink_slab_end)			\
	X(wakeup_kswapd) X(kswapd_wake) X(kswapd_sleep)		\
	X(writepage) X(compaction_begin) X(compaction_end)

#define MS_PROBE_ENUM(name) MS_P_##name,
enum ms_probe_id { MS_PROBES(MS_PROBE_ENUM) MS_NR_PROBES };

struct ms_probe_cpu {
	unsigned long hits[MS_NR_PROBES];
};
DECLARE_PER_CPU(struct ms_probe_cpu, ms_probe_hits);

static __always_inline void ms_hit(enum ms_probe_id id)
{
	this_cpu_inc(ms_probe_hits.hits[id]);
}

extern struct ms_probe *ms_probes[MS_NR_PROBES];
void ms_probe_add(struct ms_probe *p, enum ms_probe_id id);
int ms_probes_init(void);
void ms_probes_exit(void);
int ms_probe_set(const char *name, bool on);
void ms_probes_show(struct seq_file *m);
unsigned long ms_probe_missed(const struct ms_probe *p);

/*
 * Bounded tables: open addressing over a fixed array allocated at load.
 * Updates are lock-free (a cmpxchg claims a slot, counters are atomic);
 * a full table counts `dropped` instead of allocating.
 */
#define MS_TABLE_COLS 3

struct ms_row {
	u64 key;			/* 0: free */
	unsigned long ptr;		/* shrinker: scan_objects, shown with %ps */
	u32 pid;
	u32 ready;			/* name and pid published */
	char name[MS_NAME_LEN];
	atomic64_t v[MS_TABLE_COLS];
};

struct ms_table {
	const char *file;		/* debugfs name */
	const char *header;		/* "# pid comm faults major" */
	unsigned int ncols;
	bool show_pid;			/* rows start with the pid */
	bool show_ptr;			/* name is %ps of ptr */
	unsigned int size;		/* power of two */
	struct ms_row *rows;
};

enum ms_table_id {
	MS_T_FAULTS_BY_PID,
	MS_T_FAULTS_BY_FILE,
	MS_T_SWAPINS_BY_PID,
	MS_T_HUGETLB_BY_PID,
	MS_T_SHRINKERS,
	MS_NR_TABLES,
};
extern struct ms_table ms_tables[MS_NR_TABLES];

struct ms_row *ms_table_get(struct ms_table *t, u64 key);
struct ms_row *ms_table_get_task(struct ms_table *t, struct task_struct *tsk);
int ms_tables_init(void);
void ms_tables_exit(void);
void ms_tables_reset(void);
int ms_table_show(struct seq_file *m, struct ms_table *t);
size_t ms_tables_bytes(void);

static __always_inline void ms_row_add(struct ms_row *row, unsigned int col, s64 n)
{
	atomic64_add(n, &row->v[col]);
}

/*
 * Event records: a bounded ring per kind (last N events, `oom`,
 * `direct_reclaim`, `compaction`) plus the `events` stream.  Records are
 * copied in under a raw spinlock (probe context, PREEMPT_RT safe) and
 * formatted only at read time.
 */
enum ms_event_type {
	MS_EV_OOM,
	MS_EV_DIRECT_RECLAIM,
	MS_EV_COMPACTION,
	MS_NR_EVENT_TYPES,
};

struct ms_oom_event {
	u64 time_ns;
	pid_t trigger_pid;
	pid_t victim_pid;
	char trigger_comm[TASK_COMM_LEN];
	char victim_comm[TASK_COMM_LEN];
	unsigned long pages;		/* oc->totalpages */
	long anon_rss_kb;		/* -1: not known on this kernel */
	long file_rss_kb;
	long shmem_rss_kb;
	int oom_score_adj;
	int order;
	unsigned int gfp_mask;
	unsigned long avenrun[3];
	bool confirmed;			/* oom:mark_victim seen for the victim */
	char memcg[MS_NAME_LEN * 2];
};

struct ms_reclaim_event {
	u64 time_ns;
	u64 latency_ns;
	unsigned long nr_reclaimed;
	pid_t pid;
	bool memcg;
	char comm[TASK_COMM_LEN];
};

struct ms_compaction_event {
	u64 time_ns;
	u64 latency_ns;
	pid_t pid;
	int status;
	char comm[TASK_COMM_LEN];
};

struct ms_event {
	u64 seq;
	enum ms_event_type type;
	union {
		struct ms_oom_event oom;
		struct ms_reclaim_event reclaim;
		struct ms_compaction_event compaction;
	};
};

void ms_event_emit(const struct ms_event *ev);
int ms_events_init(void);
void ms_events_exit(void);
void ms_events_reset(void);
size_t ms_events_bytes(void);
int ms_ring_show(struct seq_file *m, enum ms_event_type type);
extern const struct file_operations ms_events_fops;
#ifdef MS_HAVE_PROC_OPS
extern const struct proc_ops ms_events_proc_ops;
#endif

/*
 * Begin timestamps per task for tracepoint begin/end pairs (vmscan.c):
 * bounded, preallocated, lock-free.  ms_pair_end() gives the latency of the
 * calling task's matching begin, or counts `unmatched_ends` and fails.
 */
enum ms_pair {
	MS_PAIR_DIRECT_RECLAIM,
	MS_PAIR_MEMCG_RECLAIM,
	MS_PAIR_SHRINK_SLAB,
	MS_PAIR_KSWAPD,
	MS_PAIR_COMPACTION,
	MS_NR_PAIRS,
};
u64 ms_pair_now(void);
void ms_pair_begin(enum ms_pair kind, u64 now, bool keep);
bool ms_pair_end(enum ms_pair kind, u64 now, u64 *latency);
size_t ms_pairs_bytes(void);

/* Families. */
int ms_faults_init(void);
int ms_swap_init(void);
int ms_hugetlb_init(void);
int ms_oom_init(void);
int ms_vmscan_init(void);
int ms_compaction_init(void);

/* Front end: debugfs, or procfs with procfs=1. */
int ms_fs_init(void);
void ms_fs_exit(void);
void ms_reset_all(void);
size_t ms_footprint(void);
void ms_seq_escape(struct seq_file *m, const char *s);
size_t ms_escape(char *dst, size_t len, const char *src);
void ms_events_shutdown(void);

extern unsigned int ms_table_size;
extern unsigned int ms_ring_size;

#endif /* _MEMSCOPE_H */
