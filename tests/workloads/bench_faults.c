// SPDX-License-Identifier: GPL-2.0
/*
 * bench_faults [anon|hugetlb|swapin] [PAGES [ROUNDS [RUNS]]]: the cost of
 * one page fault.
 *
 * anon: each round maps PAGES fresh anonymous pages (MADV_NOHUGEPAGE, so
 * every touch is one 4K fault), writes one byte per page, and unmaps.
 * hugetlb: the same with MAP_HUGETLB, PAGES 2M pages (vm.nr_hugepages must
 * allow them).  swapin: the pages are written, pushed to swap with
 * MADV_PAGEOUT, then read back: one swap-in fault per page when
 * vm.page-cluster is 0 (no readahead).  Only the touch loop is timed.  A run is ROUNDS rounds; the line printed per run is
 * CLOCK_MONOTONIC ns per fault, and the last line is the median run.
 *
 * Under scripts/vm-run --icount (QEMU -icount shift=0) guest time advances
 * one ns per guest instruction, so these are instructions per fault: the
 * fault itself, the few user instructions of the loop and whatever probes
 * the kernel runs on the way.
 *
 * BENCH_FRAMES=N in the environment: the anon touch loop runs N calls
 * deep, each its own frame (the user stack walks' cost per frame).  The
 * binary has no frame pointers (-O2): only its unwind table reaches main.
 *
 * The minflt delta from getrusage() must equal PAGES * ROUNDS per run, so a
 * kernel that starts using THP or fault-around here shows up as an error
 * instead of a silently cheaper number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

/* Touch one byte of each page, @depth calls down. */
__attribute__((noinline, noclone)) static void touch(volatile char *p, long pages, long page,
						     int depth)
{
	long i;

	if (depth > 0)
		touch(p, pages, page, depth - 1);
	else
		for (i = 0; i < pages; i++)
			p[i * page] = 1;
	/* Not a tail call: each level keeps its frame. */
	asm volatile("" ::: "memory");
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

int main(int argc, char **argv)
{
	const char *mode = "anon";
	long pages, rounds, runs, page = sysconf(_SC_PAGESIZE), i, r, run;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	double *per;
	long sum = 0;
	int swapin, frames = getenv("BENCH_FRAMES") ? atoi(getenv("BENCH_FRAMES")) : 0;

	if (argc > 1 && (!strcmp(argv[1], "anon") || !strcmp(argv[1], "hugetlb") ||
			 !strcmp(argv[1], "swapin"))) {
		mode = argv[1];
		argv++;
		argc--;
	}
	if (!strcmp(mode, "hugetlb")) {
		flags |= MAP_HUGETLB;
		page = 2 << 20;
	}
	pages = argc > 1 ? atol(argv[1]) : 2048;
	rounds = argc > 2 ? atol(argv[2]) : 4;
	runs = argc > 3 ? atol(argv[3]) : 5;
	per = calloc(runs > 0 ? runs : 1, sizeof(*per));
	swapin = !strcmp(mode, "swapin");

	if (pages <= 0 || rounds <= 0 || runs <= 0 || !per) {
		fprintf(stderr, "usage: bench_faults [PAGES [ROUNDS [RUNS]]]\n");
		return 2;
	}
	/* The first calls fault in the vDSO data and stack: not ours to count. */
	now_ns();
	minflt();
	for (run = 0; run < runs; run++) {
		long long ns = 0;
		long flt = 0;

		for (r = 0; r < rounds; r++) {
			volatile char *p;
			long long t0;
			long f0;

			p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
				 flags, -1, 0);
			if (p == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			if (!(flags & MAP_HUGETLB) &&
			    madvise((void *)p, pages * page, MADV_NOHUGEPAGE))
				perror("madvise");
			if (swapin) {
				for (i = 0; i < pages; i++)
					p[i * page] = 1 + i % 251;
				if (madvise((void *)p, pages * page, MADV_PAGEOUT)) {
					perror("madvise(MADV_PAGEOUT)");
					return 1;
				}
			}
			f0 = minflt();
			t0 = now_ns();
			if (swapin) {
					for (i = 0; i < pages; i++)
					sum += p[i * page];
			} else if (frames > 0) {
				touch(p, pages, page, frames - 1);
			} else {
				for (i = 0; i < pages; i++)
					p[i * page] = 1;
			}
			ns += now_ns() - t0;
			flt += minflt() - f0;
			munmap((void *)p, pages * page);
		}
		if (flt != pages * rounds) {
			fprintf(stderr, "bench_faults: %ld faults, want %ld\n",
				flt, pages * rounds);
			return 1;
		}
		per[run] = (double)ns / flt;
		printf("run %ld ns_per_fault %.1f\n", run, per[run]);
	}
	qsort(per, runs, sizeof(*per), cmp_double);
	printf("median ns_per_fault %.1f faults %ld mode %s%s\n", per[runs / 2],
	       pages * rounds, mode, sum == -1 ? " " : "");
	return 0;
}
