// SPDX-License-Identifier: GPL-2.0
/*
 * regions FILE: map regions whose page states are known, for pmap's ground
 * truth, print them, and wait for SIGTERM.  Each region is a mapping of its
 * own (a PROT_NONE guard page between neighbours keeps the kernel from
 * merging them):
 *
 *   thp       512 pages, 2 MiB aligned, MADV_HUGEPAGE, one write: one THP
 *   touched    64 pages, the first 40 written
 *   untouched  64 pages, never touched
 *   zero       16 pages, PROT_READ, every page read: the shared zero page
 *   swapped    32 pages written (distinct words), then MADV_PAGEOUT
 *   shared   1024 pages (4 MiB) MAP_SHARED|MAP_ANONYMOUS, written, then
 *              MADV_PAGEOUT: their swap is in the shmem file's page cache,
 *              where pagemap cannot see it
 *   ksm        32 pages of identical bytes, MADV_MERGEABLE (ksmd merges
 *              them once the test turns it on)
 *   file       32 pages of FILE, MAP_SHARED, the first 8 written
 *
 * Prints "region NAME ADDRESS PAGES" (ADDRESS in hex, as pmap prints it),
 * "pageout unsupported" if MADV_PAGEOUT is (Linux before 5.4), then "ready".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static long page;
static char *next;

static char *region(const char *name, long pages, int prot, int flags, int fd)
{
	char *p = mmap(next, pages * page, prot, flags | MAP_FIXED, fd, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "regions: mmap %s: %s\n", name, strerror(errno));
		exit(1);
	}
	printf("region %s %lx %ld\n", name, (unsigned long)p, pages);
	next = p + (pages + 1) * page;	/* and a guard page */
	return p;
}

int main(int argc, char **argv)
{
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS, rw = PROT_READ | PROT_WRITE;
	const int shared = MAP_SHARED | MAP_ANONYMOUS;
	volatile char sink = 0;
	char *base, *p;
	long i, total;
	sigset_t set;
	int fd, sig;

	if (argc != 2) {
		fprintf(stderr, "usage: regions FILE\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	/* One reservation, so the regions and their guards sit in a row. */
	total = 2 * 512 + 512 + 64 + 64 + 16 + 32 + 1024 + 32 + 32 + 9;
	base = mmap(NULL, total * page, PROT_NONE, anon | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		perror("regions: mmap");
		return 1;
	}
	next = (char *)(((uintptr_t)base + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));

	p = region("thp", 512, rw, anon, -1);
	if (madvise(p, 512 * page, MADV_HUGEPAGE))
		perror("regions: MADV_HUGEPAGE");
	p[0] = 1;

	p = region("touched", 64, rw, anon, -1);
	if (madvise(p, 64 * page, MADV_NOHUGEPAGE))
		perror("regions: MADV_NOHUGEPAGE");
	for (i = 0; i < 40; i++)
		p[i * page] = 1;

	region("untouched", 64, rw, anon, -1);

	p = region("zero", 16, PROT_READ, anon, -1);
	for (i = 0; i < 16; i++)
		sink += p[i * page];

	p = region("swapped", 32, rw, anon, -1);
	for (i = 0; i < 32; i++)
		*(long *)(p + i * page) = i + 1;
	if (madvise(p, 32 * page, MADV_PAGEOUT)) {
		if (errno != EINVAL) {
			perror("regions: MADV_PAGEOUT");
			return 1;
		}
		printf("pageout unsupported\n");
	}

	p = region("shared", 1024, rw, shared, -1);
	for (i = 0; i < 1024; i++)
		*(long *)(p + i * page) = i + 1;
	if (madvise(p, 1024 * page, MADV_PAGEOUT) && errno != EINVAL) {
		perror("regions: MADV_PAGEOUT of shared");
		return 1;
	}

	p = region("ksm", 32, rw, anon, -1);
	memset(p, 0x5a, 32 * page);
	if (madvise(p, 32 * page, MADV_MERGEABLE))
		perror("regions: MADV_MERGEABLE");

	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 32 * page)) {
		fprintf(stderr, "regions: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	p = region("file", 32, rw, MAP_SHARED, fd);
	for (i = 0; i < 8; i++)
		p[i * page] = 1;

	printf("ready\n");
	fflush(stdout);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
	return sink == 42;
}
