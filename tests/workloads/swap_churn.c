// SPDX-License-Identifier: GPL-2.0
/*
 * swap_churn MB PASSES: fill MB of anonymous memory (no THP), one distinct
 * nonzero word per page so no page is zero-filled or same-filled, then
 * read every page PASSES times.  Run in a memcg whose memory.max is below
 * MB: each read of a page that was pushed out is a swap-in by this pid.
 * Prints "pid <pid> pages <n> passes <k> sum <checksum>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mb, passes, page = sysconf(_SC_PAGESIZE), n, i, k;
	unsigned long sum = 0;
	char *p;

	if (argc != 3 || (mb = atol(argv[1])) <= 0 || (passes = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: swap_churn MB PASSES\n");
		return 2;
	}
	n = mb * 1024 * 1024 / page;
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (madvise(p, n * page, MADV_NOHUGEPAGE))
		perror("madvise");
	for (i = 0; i < n; i++)
		*(volatile long *)(p + i * page) = i + 1;
	for (k = 0; k < passes; k++)
		for (i = 0; i < n; i++)
			sum += *(volatile long *)(p + i * page);
	if (sum != (unsigned long)passes * n * (n + 1) / 2) {
		fprintf(stderr, "swap_churn: bad checksum %lu\n", sum);
		return 1;
	}
	printf("pid %d pages %ld passes %ld sum %lu\n", getpid(), n, passes, sum);
	return 0;
}
