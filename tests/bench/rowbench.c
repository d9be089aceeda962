// SPDX-License-Identifier: GPL-2.0
/*
 * rowbench: the cost of a table row update when two CPUs update one row,
 * before and after memscope sharded its counters per CPU (issue 17).
 *
 *   shared   every thread adds to the row's one counter with a locked add,
 *            as ms_row_add() did with atomic64_add(): the `[anon]` row, or
 *            a process's row that all its threads hit;
 *   sharded  every thread adds to its own CPU's copy of the counter with a
 *            plain add, as ms_row_add() does now with local64_add() on
 *            x86 (one `add` to memory, no lock prefix), each CPU's copies
 *            in their own allocation as table.c allocates them.
 *
 * Two threads, pinned to CPUs 0 and 1, do ITERATIONS updates each.  Prints
 * the nanoseconds per update for each way and their ratio.  It measures
 * only the cache line's behaviour, on this host; the instruction count per
 * fault is `make bench`'s job.
 *
 * usage: rowbench [ITERATIONS]    (default 100000000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NCOLS 2

/* The kernel's x86 local64_add() and atomic64_add(), byte for byte. */
static inline void local64_add(long i, long *l)
{
	asm volatile("addq %1,%0" : "+m" (*l) : "ir" (i));
}

static inline void atomic64_add(long i, long *v)
{
	asm volatile("lock addq %1,%0" : "+m" (*v) : "er" (i) : "memory");
}

static long iterations = 100000000;
static long shared_row[NCOLS] __attribute__((aligned(64)));
static long *percpu[2];
static pthread_barrier_t go;

struct arg {
	int cpu;
	int sharded;
};

static void *worker(void *p)
{
	const struct arg *a = p;
	cpu_set_t set;
	long i;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "rowbench: cannot pin to CPU %d; numbers are less telling\n", a->cpu);
	pthread_barrier_wait(&go);
	if (a->sharded) {
		long *row = percpu[a->cpu];

		for (i = 0; i < iterations; i++)
			local64_add(1, &row[0]);
	} else {
		for (i = 0; i < iterations; i++)
			atomic64_add(1, &shared_row[0]);
	}
	return NULL;
}

static double run(int sharded)
{
	struct arg a[2] = { { 0, sharded }, { 1, sharded } };
	pthread_t t[2];
	struct timespec s, e;
	int i;

	pthread_barrier_init(&go, NULL, 3);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &a[i])) {
			fprintf(stderr, "rowbench: pthread_create failed\n");
			exit(1);
		}
	pthread_barrier_wait(&go);
	clock_gettime(CLOCK_MONOTONIC, &s);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &e);
	pthread_barrier_destroy(&go);
	return ((e.tv_sec - s.tv_sec) * 1e9 + (e.tv_nsec - s.tv_nsec)) / iterations;
}

int main(int argc, char **argv)
{
	double sh, sd;
	long total;
	int c;

	if (argc > 1 && (iterations = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: rowbench [ITERATIONS]\n");
		return 2;
	}
	for (c = 0; c < 2; c++) {
		/* Each CPU's counters in their own allocation, as vzalloc_node(). */
		if (posix_memalign((void **)&percpu[c], 4096, 4096)) {
			fprintf(stderr, "rowbench: out of memory\n");
			return 1;
		}
		percpu[c][0] = 0;
	}
	sh = run(0);
	sd = run(1);
	total = percpu[0][0] + percpu[1][0];
	if (shared_row[0] != 2 * iterations || total != 2 * iterations) {
		fprintf(stderr, "rowbench: lost updates (shared %ld, sharded %ld, want %ld)\n",
			shared_row[0], total, 2 * iterations);
		return 1;
	}
	printf("rowbench: 2 threads on CPUs 0 and 1, %ld updates each\n", iterations);
	printf("  shared row, locked add:     %6.2f ns per update\n", sh);
	printf("  sharded per CPU, plain add: %6.2f ns per update\n", sd);
	printf("  shared / sharded:           %6.1fx\n", sh / sd);
	return 0;
}
