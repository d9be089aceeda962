/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bench_* workloads share: the clock they time themselves with
 * (guest instructions under -icount) and the median's sort.
 */
#ifndef MEMSCOPE_WORKLOADS_BENCH_H
#define MEMSCOPE_WORKLOADS_BENCH_H

#include <time.h>

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
