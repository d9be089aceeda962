// SPDX-License-Identifier: GPL-2.0
/*
 * bench_malloc [OPS [RUNS]]: the cost of a malloc(64) and its free(), for
 * what memleak -p costs the traced program in scripts/bench, against BCC's
 * memleak -p and a bpftrace uprobe script doing the same pairing.
 * Dynamic: glibc's own malloc and free, where those tools probe them.
 * Each run times OPS pairs and prints CLOCK_MONOTONIC ns per pair; the
 * last line is the median run (guest instructions per pair under
 * scripts/vm-run --icount).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

static int pair_op(void *arg)
{
	char *volatile p = malloc(64);

	(void)arg;
	if (!p) {
		perror("malloc");
		return 1;
	}
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	long ops = argc > 1 ? atol(argv[1]) : 20000, runs = argc > 2 ? atol(argv[2]) : 5;

	if (ops < 1 || runs < 1) {
		fprintf(stderr, "usage: bench_malloc [OPS [RUNS]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return bench_ops(ops, runs, pair_op, NULL);
}
