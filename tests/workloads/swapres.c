// SPDX-License-Identifier: GPL-2.0
/*
 * swapres PAGES SLEEP_MS [noread | mthp | pressure | hog]: a known swap
 * residency.
 *
 * Maps PAGES anonymous pages and writes each (a distinct nonzero word, so
 * that no page is all zero: 6.12's zeromap would keep it out of swap),
 * pushes them all out with MADV_PAGEOUT (the reclaim path: rmap unmap, then
 * the swap write), checks in /proc/self/pagemap that each one is in swap,
 * sleeps SLEEP_MS, and reads every page back in order, checking its word.
 * So each page stays in swap SLEEP_MS plus the time the page-out and the
 * reads take.
 *
 *   noread  exit after the page-out without reading anything back: the
 *           slots are freed unread.
 *   mthp    THP-aligned mapping with MADV_HUGEPAGE instead of
 *           MADV_NOHUGEPAGE: with multi-size THP on, the pages come as
 *           large folios and go out whole.
 *   pressure  no MADV_PAGEOUT: print "pid PID filled" and sleep, while
 *           another process pushes the pages out (a hog in the same
 *           memcg); count what is in swap after the sleep.
 *   hog     lock everything (mlockall), map and fault in PAGES locked
 *           pages, print "hog PID" and exit: in a memcg, reclaim must take
 *           what it needs from the other processes there.
 *   big     more swap than memory: write and page out 4096 pages (16 MiB)
 *           at a time, sleep, then read back 4096 at a time, in the same
 *           order, letting each chunk go (MADV_DONTNEED) once read.  Also
 *           prints "residency_ms MEDIAN": the median over the pages of
 *           the time from their chunk's page-out to its read, each taken
 *           at the chunk's midpoint, as this process measured it.
 *
 * Prints "pid PID out N" once N pages are in swap (N < PAGES: the kernel
 * kept some, which the test reports), then "in N majflt M" after reading
 * back: M major faults while reading (swap readahead reads more pages
 * than it faults on).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PM_SWAP (1ULL << 62)

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

static int hog(long pages, long page)
{
	char *p;

	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("swapres: mlockall");
		return 1;
	}
	p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		perror("swapres: hog mmap");
		return 1;
	}
	printf("hog %d\n", getpid());
	return 0;
}

static long swapped(const char *p, long pages, long page)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	long i, j, k, n = 0;
	uint64_t e[512];

	if (fd < 0) {
		perror("swapres: /proc/self/pagemap");
		exit(1);
	}
	for (i = 0; i < pages; i += k) {
		off_t off = (off_t)((uintptr_t)(p + i * page) / page) * sizeof(e[0]);

		k = pages - i < 512 ? pages - i : 512;
		if (pread(fd, e, k * sizeof(e[0]), off) != (ssize_t)(k * sizeof(e[0]))) {
			perror("swapres: pagemap read");
			exit(1);
		}
		for (j = 0; j < k; j++)
			n += !!(e[j] & PM_SWAP);
	}
	close(fd);
	return n;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define BIG_CHUNK 4096L

/* The "big" mode: PAGES in chunks, never more than one chunk resident. */
static int big(char *p, long pages, long page, const struct timespec *sleep)
{
	long chunks = (pages + BIG_CHUNK - 1) / BIG_CHUNK, c, i, out = 0, flt;
	double *t_out = calloc(chunks, sizeof(double)), *res = calloc(chunks, sizeof(double));
	struct timespec ts = *sleep;

	cpu_set_t cpus;
	int cpu = sched_getcpu();

	if (!t_out || !res) {
		perror("swapres: calloc");
		return 1;
	}
	/*
	 * A page just faulted in waits in its CPU's LRU batch, where
	 * MADV_PAGEOUT cannot take it; madvise drains only the batch of the
	 * CPU it runs on.  Stay on one CPU (seen on 6.1-rt: 10 pages of
	 * 20,480 left behind after a migration).
	 */
	CPU_ZERO(&cpus);
	CPU_SET(cpu < 0 ? 0 : cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("swapres: sched_setaffinity");
		return 1;
	}
	for (c = 0; c < chunks; c++) {
		long first = c * BIG_CHUNK, n = pages - first < BIG_CHUNK ? pages - first : BIG_CHUNK;
		double t0;

		for (i = first; i < first + n; i++)
			memset(p + i * page, (int)(i % 255) + 1, page);
		t0 = now_ms();
		if (madvise(p + first * page, n * page, MADV_PAGEOUT)) {
			perror("swapres: MADV_PAGEOUT (Linux 5.4+, with swap on)");
			return 1;
		}
		t_out[c] = (t0 + now_ms()) / 2;
		out += swapped(p + first * page, n, page);
	}
	printf("pid %d out %ld\n", getpid(), out);
	fflush(stdout);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	flt = majflt();
	for (c = 0; c < chunks; c++) {
		long first = c * BIG_CHUNK, n = pages - first < BIG_CHUNK ? pages - first : BIG_CHUNK;
		double t0 = now_ms();

		for (i = first; i < first + n; i++) {
			const unsigned char *q = (const unsigned char *)p + i * page;

			if (q[0] != i % 255 + 1 || q[page - 1] != i % 255 + 1) {
				fprintf(stderr, "swapres: page %ld read back wrong\n", i);
				return 1;
			}
		}
		res[c] = (t0 + now_ms()) / 2 - t_out[c];
		if (madvise(p + first * page, n * page, MADV_DONTNEED)) {
			perror("swapres: MADV_DONTNEED");
			return 1;
		}
	}
	flt = majflt() - flt;
	/* Chunks are the same size but the last: the median chunk is near enough. */
	qsort(res, chunks, sizeof(res[0]), cmp_double);
	printf("in %ld majflt %ld\n", pages, flt);
	printf("residency_ms %.0f\n", res[chunks / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), pages, ms, i, n, flt, align = 2L << 20;
	int noread = argc > 3 && !strcmp(argv[3], "noread");
	int mthp = argc > 3 && !strcmp(argv[3], "mthp");
	int pressure = argc > 3 && !strcmp(argv[3], "pressure");
	int bigmode = argc > 3 && !strcmp(argv[3], "big");
	struct timespec ts;
	char *p;

	if (argc < 3 || (pages = atol(argv[1])) <= 0 || (ms = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: swapres PAGES SLEEP_MS [noread | mthp | pressure | hog | big]\n");
		return 2;
	}
	if (argc > 3 && !strcmp(argv[3], "hog"))
		return hog(pages, page);
	p = mmap(NULL, pages * page + align, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("swapres: mmap");
		return 1;
	}
	p = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (madvise(p, pages * page, mthp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) && errno != EINVAL) {
		perror("swapres: madvise");
		return 1;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	if (bigmode)
		return big(p, pages, page, &ts);
	for (i = 0; i < pages; i++)
		memset(p + i * page, (int)(i % 255) + 1, page);
	if (pressure) {
		printf("pid %d filled\n", getpid());
		fflush(stdout);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	} else if (madvise(p, pages * page, MADV_PAGEOUT)) {
		perror("swapres: MADV_PAGEOUT (Linux 5.4+, with swap on)");
		return 1;
	}
	n = swapped(p, pages, page);
	printf("pid %d out %ld\n", getpid(), n);
	fflush(stdout);
	if (noread)
		return 0;
	while (!pressure && nanosleep(&ts, &ts) && errno == EINTR)
		;
	flt = majflt();
	for (i = 0; i < pages; i++) {
		const unsigned char *q = (const unsigned char *)p + i * page;

		if (q[0] != i % 255 + 1 || q[page - 1] != i % 255 + 1) {
			fprintf(stderr, "swapres: page %ld read back wrong\n", i);
			return 1;
		}
	}
	flt = majflt() - flt;
	printf("in %ld majflt %ld\n", pages - swapped(p, pages, page), flt);
	return 0;
}
