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

DEFINE_PER_CPU(struct ms_stats, ms_stats);
DEFINE_PER_CPU(struct ms_hist_cpu, ms_hists[MS_NR_HISTS]);

#define MS_STR(name) #name,
const char *const ms_stat_names[] = { MS_STATS(MS_STR) };
const char *const ms_hist_names[] = { MS_HISTS(MS_STR) };

static DEFINE_MUTEX(ms_baseline_lock);
static atomic_long_t ms_resets = ATOMIC_LONG_INIT(0);
static u64 ms_stats_base[MS_NR_STATS];
static struct ms_hist_cpu ms_hist_base[MS_NR_HISTS];

static void ms_stats_raw(u64 *out)
{
	u64 hits;
	int cpu, i;

	memset(out, 0, sizeof(u64) * MS_NR_STATS);
	for_each_possible_cpu(cpu) {
		const struct ms_stats *s = per_cpu_ptr(&ms_stats, cpu);

		for (i = 0; i < MS_NR_STATS; i++)
			out[i] += READ_ONCE(s->v[i]);
	}
	/*
	 * faults is the faults probe's hits (the fault path counts once, not
	 * twice), plus the faults the kretprobe had no instance for (or hit
	 * recursively): those ran no handler, and are not classified.
	 */
	ms_faults_counts(&hits, &out[MS_faults_unclassified]);
	out[MS_faults] += hits + out[MS_faults_unclassified];
}

void ms_stats_sum(u64 *out)
{
	int i;

	mutex_lock(&ms_baseline_lock);
	ms_stats_raw(out);
	for (i = 0; i < MS_NR_STATS; i++) {
		s64 d = out[i] - ms_stats_base[i];

		out[i] = d > 0 ? d : 0;
	}
	out[MS_reset_count] = atomic_long_read(&ms_resets);
	out[MS_swap_residency_sample] = ms_swres_sample();	/* not a count */
	mutex_unlock(&ms_baseline_lock);
}

unsigned long ms_reset_gen(void)
{
	return atomic_long_read(&ms_resets);
}

void ms_stats_reset(void)
{
	mutex_lock(&ms_baseline_lock);
	/* Before the baseline: a take-back that sees the old count is older. */
	atomic_long_inc(&ms_resets);
	smp_mb__after_atomic();
	ms_stats_raw(ms_stats_base);
	mutex_unlock(&ms_baseline_lock);
}

static void ms_hist_raw(enum ms_hist h, struct ms_hist_cpu *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct ms_hist_cpu *c = per_cpu_ptr(&ms_hists[h], cpu);

		for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
			out->bucket[i] += READ_ONCE(c->bucket[i]);
		out->sum += READ_ONCE(c->sum);
	}
}

void ms_hist_reset(void)
{
	int h;

	mutex_lock(&ms_baseline_lock);
	for (h = 0; h < MS_NR_HISTS; h++)
		ms_hist_raw(h, &ms_hist_base[h]);
	mutex_unlock(&ms_baseline_lock);
}

/* Histogram @h since the last reset; for both the files and netlink. */
void ms_hist_read(enum ms_hist h, struct ms_hist_cpu *out)
{
	int i;

	mutex_lock(&ms_baseline_lock);
	ms_hist_raw(h, out);
	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
		out->bucket[i] -= ms_hist_base[h].bucket[i];
	out->sum -= ms_hist_base[h].sum;
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

void ms_hist_show(struct seq_file *m, enum ms_hist h, bool raw)
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
