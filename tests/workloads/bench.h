/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bench_* workloads share: the clock they time themselves with
 * (guest instructions under -icount) and the median's sort.
 */
#ifndef MEMSCOPE_WORKLOADS_BENCH_H
#define MEMSCOPE_WORKLOADS_BENCH_H

#include <stdio.h>
#include <stdlib.h>
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

/*
 * RUNS runs of OPS calls of op(arg), each printed as "run N ns_per_op X",
 * then "median ns_per_op X ops OPS".  Returns 0, or 1 when op() failed
 * (it says why).
 */
static inline int bench_ops(long ops, long runs, int (*op)(void *), void *arg)
{
	double *per = calloc(runs, sizeof(*per));
	long run, i;

	if (!per) {
		perror("calloc");
		return 1;
	}
	for (run = 0; run < runs; run++) {
		long long t0 = now_ns();

		for (i = 0; i < ops; i++)
			if (op(arg))
				return 1;
		per[run] = (double)(now_ns() - t0) / ops;
		printf("run %ld ns_per_op %.1f\n", run, per[run]);
	}
	qsort(per, runs, sizeof(*per), cmp_double);
	printf("median ns_per_op %.1f ops %ld\n", per[runs / 2], ops);
	free(per);
	return 0;
}

#endif
