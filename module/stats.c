// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters and log2 histograms.
 * Copyright (C) 2026 The memscope authors.
 *
 * Writers only ever add to their own CPU's copy.  A reset does not touch the
 * per-CPU data (that would race with writers on other CPUs); it records the
 * current sums as a baseline that readers subtract.
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
static u64 ms_stats_base[MS_NR_STATS];
static struct ms_hist_cpu ms_hist_base[MS_NR_HISTS];

static void ms_stats_raw(u64 *out)
{
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
	for_each_possible_cpu(cpu)
		out[MS_faults] += READ_ONCE(per_cpu_ptr(&ms_probe_hits, cpu)->hits[MS_P_faults]);
	out[MS_faults_unclassified] = ms_probe_missed_id(MS_P_faults);
	out[MS_faults] += out[MS_faults_unclassified];
}

void ms_stats_sum(u64 *out)
{
	int i;

	mutex_lock(&ms_baseline_lock);
	ms_stats_raw(out);
	for (i = 0; i < MS_NR_STATS; i++)
		out[i] -= ms_stats_base[i];
	mutex_unlock(&ms_baseline_lock);
}

void ms_stats_reset(void)
{
	mutex_lock(&ms_baseline_lock);
	ms_stats_raw(ms_stats_base);
	mutex_unlock(&ms_baseline_lock);
}

static void ms_hist_raw(enum ms_hist h, struct ms_hist_cpu *out)
{
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct ms_hist_cpu *c = per_cpu_ptr(&ms_hists[h], cpu);

		for (i = 0; i < MS_HIST_BUCKETS; i++)
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

/* bpftrace's bucket labels: powers of 1024 get K, M, G, T, P, E suffixes. */
static void ms_hist_label(char *buf, size_t len, u64 v)
{
	static const char suffix[] = " KMGTPE";
	int i = 0;

	while (v >= 1024 && !(v & 1023) && i < 6) {
		v >>= 10;
		i++;
	}
	if (i)
		snprintf(buf, len, "%llu%c", v, suffix[i]);
	else
		snprintf(buf, len, "%llu", v);
}

#define MS_BAR_WIDTH 52

void ms_hist_show(struct seq_file *m, enum ms_hist h)
{
	struct ms_hist_cpu *cur;
	u64 count = 0, max = 0;
	int i, first = -1, last = -1;

	cur = kmalloc(sizeof(*cur), GFP_KERNEL);
	if (!cur) {
		seq_puts(m, "# error: out of memory\n");
		return;
	}
	mutex_lock(&ms_baseline_lock);
	ms_hist_raw(h, cur);
	for (i = 0; i < MS_HIST_BUCKETS; i++)
		cur->bucket[i] -= ms_hist_base[h].bucket[i];
	cur->sum -= ms_hist_base[h].sum;
	mutex_unlock(&ms_baseline_lock);

	for (i = 0; i < MS_HIST_BUCKETS; i++) {
		count += cur->bucket[i];
		if (cur->bucket[i]) {
			if (first < 0)
				first = i;
			last = i;
			max = max(max, cur->bucket[i]);
		}
	}
	seq_printf(m, "# count %llu sum %llu\n", count, cur->sum);
	for (i = first; first >= 0 && i <= last; i++) {
		char lo[24], hi[24], label[sizeof(lo) + sizeof(hi) + 4];
		u64 n = cur->bucket[i];
		unsigned int bar = max ? div64_u64(n * MS_BAR_WIDTH, max) : 0;

		if (i < 2) {
			snprintf(label, sizeof(label), "[%d]", i);
		} else {
			ms_hist_label(lo, sizeof(lo), 1ULL << (i - 1));
			if (i == 64)
				strscpy(hi, "...", sizeof(hi));
			else
				ms_hist_label(hi, sizeof(hi), 1ULL << i);
			snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
		}
		seq_printf(m, "%-20s%8llu |%.*s%*s|\n", label, n, bar,
			   "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
			   MS_BAR_WIDTH - bar, "");
	}
	kfree(cur);
}
