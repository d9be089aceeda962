// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters and log2 histograms.
 * Copyright (C) 2026 The memscope authors.
 *
 * Writers only ever add to their own CPU's copy.  A reset does not touch the
 * per-CPU data (that would race with writers on other CPUs); it records the
 * current sums as a baseline that readers subtract.
 *
 * Every counter only grows, except swapins, which the zswap probe takes
 * back right after the swapin probe added it.  A reset between the two
 * would leave the take-back below the baseline, so a reader clamps at 0
 * rather than show 2^64 - 1.  reset_count is the number of resets since
 * load, never itself reset: a reader that sees it move knows the counters
 * started again, and a reader that sees it still knows a smaller value is
 * such a take-back, not a reset.
 */
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "memscope.h"

DEFINE_PER_CPU(u64, ms_stats_core[MS_NR_core_STATS]);
static const char *const ms_core_stat_names[] = { MS_CORE_STATS(MS_STAT_STR) };
static const char *const ms_core_stat_help[] = { MS_CORE_STATS(MS_STAT_HELP) };
static u64 ms_core_stat_base[MS_NR_core_STATS];

static DEFINE_MUTEX(ms_baseline_lock);
static atomic_long_t ms_resets = ATOMIC_LONG_INIT(0);

/* reset_count is the number of resets, not a count since the last. */
static void ms_core_stats_now(u64 *v)
{
	v[MS_reset_count] = atomic_long_read(&ms_resets);
}

static struct ms_stat_set ms_core_stats = {
	.names = ms_core_stat_names,
	.help = ms_core_stat_help,
	.n = MS_NR_core_STATS,
	.v = &ms_stats_core[0],
	.base = ms_core_stat_base,
	.now = ms_core_stats_now,
};

/* The families' sets, in registration order; the core's is shown last. */
static struct ms_stat_set *ms_stat_sets[MS_MAX_STAT_SETS];
static unsigned int ms_nr_stat_sets;

int ms_stat_set_add(struct ms_stat_set *set)
{
	return ms_register(ms_stat_sets, ms_nr_stat_sets, set, "stat set", set->names[0]);
}

/* Every set, the core's last: @i counts from 0. */
static struct ms_stat_set *ms_stat_set(unsigned int i)
{
	if (i < ms_nr_stat_sets)
		return ms_stat_sets[i];
	return i == ms_nr_stat_sets ? &ms_core_stats : NULL;
}

#define ms_for_each_stat_set(set, i)					\
	for ((i) = 0; ((set) = ms_stat_set(i)); (i)++)

static void ms_stats_raw(const struct ms_stat_set *set, u64 *out)
{
	int cpu, i;

	memset(out, 0, sizeof(u64) * set->n);
	for_each_possible_cpu(cpu) {
		const u64 *v = per_cpu_ptr(set->v, cpu);

		for (i = 0; i < set->n; i++)
			out[i] += READ_ONCE(v[i]);
	}
	if (set->raw)
		set->raw(out);
}

struct ms_stats_snap *ms_stats_snapshot(void)
{
	struct ms_stats_snap *snap;
	struct ms_stat_set *set;
	unsigned int i, j, n = 0;
	u64 *v;

	ms_for_each_stat_set(set, i)
		n += set->n;
	snap = ms_self_alloc(kmalloc(struct_size(snap, e, n), GFP_KERNEL));
	v = ms_self_alloc(kmalloc_array(n, sizeof(*v), GFP_KERNEL));
	if (!snap || !v) {
		kfree(snap);
		kfree(v);
		return NULL;
	}
	snap->n = 0;
	mutex_lock(&ms_baseline_lock);
	ms_for_each_stat_set(set, i) {
		ms_stats_raw(set, v);
		for (j = 0; j < set->n; j++) {
			s64 d = v[j] - set->base[j];

			v[j] = d > 0 ? d : 0;
		}
		if (set->now)
			set->now(v);
		for (j = 0; j < set->n; j++) {
			snap->e[snap->n].name = set->names[j];
			snap->e[snap->n++].v = v[j];
		}
	}
	mutex_unlock(&ms_baseline_lock);
	kfree(v);
	return snap;
}

/*
 * stats_format: each stat of the stats file, in its order, as
 * "name counter|gauge help": what a program such as `memscope export`
 * needs to type and explain the stats without a list of its own.
 */
void ms_stats_format_show(struct seq_file *m)
{
	struct ms_stat_set *set;
	unsigned int i, j;

	ms_for_each_stat_set(set, i)
		for (j = 0; j < set->n; j++)
			seq_printf(m, "%s %s %s\n", set->names[j],
				   set->gauges & BIT_ULL(j) ? "gauge" : "counter", set->help[j]);
}

unsigned long ms_reset_gen(void)
{
	return atomic_long_read(&ms_resets);
}

void ms_stats_reset(void)
{
	struct ms_stat_set *set;
	unsigned int i;

	mutex_lock(&ms_baseline_lock);
	/* Before the baseline: a take-back that sees the old count is older. */
	atomic_long_inc(&ms_resets);
	smp_mb__after_atomic();
	ms_for_each_stat_set(set, i)
		ms_stats_raw(set, set->base);
	mutex_unlock(&ms_baseline_lock);
}

/* What the sets and histograms take per CPU, for a kernel without SMP. */
size_t ms_stats_percpu_bytes(void)
{
	struct ms_stat_set *set;
	unsigned int i;
	size_t bytes = sizeof(struct ms_hist_cpu) * ms_nr_hists;

	ms_for_each_stat_set(set, i)
		bytes += sizeof(u64) * set->n;
	return bytes;
}

struct ms_hist *ms_hists[MS_MAX_HISTS];
unsigned int ms_nr_hists;

int ms_hist_register(struct ms_hist *h)
{
	return ms_register(ms_hists, ms_nr_hists, h, "histogram", h->name);
}

struct ms_hist *ms_hist_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ms_nr_hists; i++)
		if (!strcmp(ms_hists[i]->name, name))
			return ms_hists[i];
	return NULL;
}

static void ms_hist_raw(const struct ms_hist *h, struct ms_hist_cpu *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct ms_hist_cpu *c = per_cpu_ptr(h->cpu, cpu);

		for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
			out->bucket[i] += READ_ONCE(c->bucket[i]);
		out->sum += READ_ONCE(c->sum);
	}
}

void ms_hist_reset(void)
{
	unsigned int i;

	mutex_lock(&ms_baseline_lock);
	for (i = 0; i < ms_nr_hists; i++)
		ms_hist_raw(ms_hists[i], &ms_hists[i]->base);
	mutex_unlock(&ms_baseline_lock);
}

/* Histogram @h since the last reset; for both the files and netlink. */
void ms_hist_read(struct ms_hist *h, struct ms_hist_cpu *out)
{
	int i;

	mutex_lock(&ms_baseline_lock);
	ms_hist_raw(h, out);
	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
		out->bucket[i] -= h->base.bucket[i];
	out->sum -= h->base.sum;
	mutex_unlock(&ms_baseline_lock);
}

#define MS_BAR_WIDTH 52

/* bpftrace's layout: "[lo, hi)" labels, a count and a bar. */
static void ms_hist_show_bars(struct seq_file *m, const struct ms_hist_cpu *cur,
			      int first, int last, u64 max)
{
	int i;

	for (i = first; first >= 0 && i <= last; i++) {
		char label[56];
		u64 n = cur->bucket[i];
		unsigned int bar = max ? div64_u64(n * MS_BAR_WIDTH, max) : 0;

		memscope_hist_label(label, sizeof(label), i);
		seq_printf(m, "%-20s%8llu |%.*s%*s|\n", label, n, bar,
			   "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
			   MS_BAR_WIDTH - bar, "");
	}
}

/*
 * For programs: the non-empty buckets as "lo hi count", with inclusive
 * bounds in plain decimal, so that no label needs parsing and the last
 * bucket's bound fits a u64.
 */
static void ms_hist_show_raw(struct seq_file *m, const struct ms_hist_cpu *cur)
{
	int i;

	seq_puts(m, "# lo hi count\n");
	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++) {
		if (cur->bucket[i])
			seq_printf(m, "%llu %llu %llu\n", memscope_hist_lo(i),
				   memscope_hist_hi(i), cur->bucket[i]);
	}
}

void ms_hist_show(struct seq_file *m, struct ms_hist *h, bool raw)
{
	struct ms_hist_cpu *cur;
	u64 count = 0, max = 0;
	int i, first = -1, last = -1;

	cur = ms_self_alloc(kmalloc(sizeof(*cur), GFP_KERNEL));
	if (!cur) {
		seq_puts(m, "# error: out of memory\n");
		return;
	}
	ms_hist_read(h, cur);
	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++) {
		count += cur->bucket[i];
		if (cur->bucket[i]) {
			if (first < 0)
				first = i;
			last = i;
			max = max(max, cur->bucket[i]);
		}
	}
	seq_printf(m, "# count %llu sum %llu\n", count, cur->sum);
	if (raw)
		ms_hist_show_raw(m, cur);
	else
		ms_hist_show_bars(m, cur, first, last, max);
	kfree(cur);
}
