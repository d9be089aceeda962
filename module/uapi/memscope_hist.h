/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memscope's log2 histograms: what a bucket index means, and its label.
 * One definition for the module (the hist/ files) and the CLI (its
 * histograms), so both draw the same labels.  The includer provides
 * snprintf(): linux/kernel.h in the module, stdio.h in the CLI.
 * Copyright (C) 2026 The memscope authors.
 *
 * Buckets: [0], [1], then [2^(i-1), 2^i) for i = 2..64.  hist_raw/ gives
 * a bucket by its inclusive bounds, netlink by its index (MEMSCOPE_A_SLOT).
 */
#ifndef _UAPI_MEMSCOPE_HIST_H
#define _UAPI_MEMSCOPE_HIST_H

#include <linux/types.h>

#define MEMSCOPE_HIST_BUCKETS	65

/* Bucket @i's inclusive bounds. */
static inline __u64 memscope_hist_lo(int i)
{
	return i < 2 ? (__u64)(i < 0 ? 0 : i) : 1ULL << (i - 1);
}

static inline __u64 memscope_hist_hi(int i)
{
	return i < 2 ? memscope_hist_lo(i) : i >= 64 ? ~0ULL : (1ULL << i) - 1;
}

/* The bucket whose inclusive bounds are exactly [@lo, @hi], or -1. */
static inline int memscope_hist_index(__u64 lo, __u64 hi)
{
	int i = 0;

	while (i < 63 && lo >> i > 1)
		i++;
	i = lo < 2 ? (int)lo : i + 1;	/* lo = 2^i: bucket i + 1 */
	return memscope_hist_lo(i) == lo && memscope_hist_hi(i) == hi ? i : -1;
}

/* 2^@k as bpftrace writes a bound: powers of 1024 get K, M, G, T, P, E. */
static inline void memscope_hist_pow2(char *buf, __kernel_size_t len, unsigned int k)
{
	static const char sfx[] = " KMGTPE";
	unsigned int s = k / 10 > 6 ? 6 : k / 10;

	if (k >= 64)		/* 2^64 has no u64: 16E */
		snprintf(buf, len, "16E");
	else if (s)
		snprintf(buf, len, "%llu%c", 1ULL << (k - 10 * s), sfx[s]);
	else
		snprintf(buf, len, "%llu", 1ULL << k);
}

/* Bucket @i's label in bpftrace's layout: "[0]", "[1]", "[256, 512)", "[1K, 2K)". */
static inline void memscope_hist_label(char *buf, __kernel_size_t len, int i)
{
	char lo[24], hi[24];

	if (i < 2) {
		snprintf(buf, len, "[%d]", i < 0 ? 0 : i);
		return;
	}
	memscope_hist_pow2(lo, sizeof(lo), (unsigned int)i - 1);
	memscope_hist_pow2(hi, sizeof(hi), (unsigned int)i);
	snprintf(buf, len, "[%.7s, %.7s)", lo, hi);	/* each at most "512K" */
}

#endif /* _UAPI_MEMSCOPE_HIST_H */
