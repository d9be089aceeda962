// SPDX-License-Identifier: GPL-2.0
/*
 * fragger MIB HUGEPAGES: fill MIB MiB with private anonymous memory (no
 * THP), give back every other page, so that the free memory is in
 * order-0 holes, and keep the rest; then ask for HUGEPAGES hugetlb pages
 * (/proc/sys/vm/nr_hugepages), which the kernel can only make by direct
 * compaction, in this task (a memstall site, as PSI counts it); print
 * "hugepages <made>" and give them back.  Needs root; THP is not needed,
 * so the RT flavours, which have none, do it too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NR_HUGEPAGES "/proc/sys/vm/nr_hugepages"

static int set_hugepages(long n)
{
	char buf[32];
	int fd = open(NR_HUGEPAGES, O_WRONLY);
	int len = snprintf(buf, sizeof(buf), "%ld\n", n);

	if (fd < 0 || write(fd, buf, len) != len) {
		perror(NR_HUGEPAGES);
		return -1;
	}
	return close(fd);
}

static long get_hugepages(void)
{
	FILE *f = fopen(NR_HUGEPAGES, "r");
	long n = -1;

	if (!f || fscanf(f, "%ld", &n) != 1)
		perror(NR_HUGEPAGES);
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long mib, want, page = sysconf(_SC_PAGESIZE), n, i, made;
	volatile char *p;

	if (argc != 3 || (mib = atol(argv[1])) <= 0 || (want = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: fragger MIB HUGEPAGES\n");
		return 2;
	}
	n = mib * (1024 * 1024 / page);
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* EINVAL: a kernel without THP (the RT flavours), pages already small. */
	if (madvise((void *)p, n * page, MADV_NOHUGEPAGE) && errno != EINVAL)
		perror("madvise");
	for (i = 0; i < n; i++)
		p[i * page] = (char)(i | 1);
	for (i = 0; i < n; i += 2)
		if (madvise((void *)(p + i * page), page, MADV_DONTNEED)) {
			perror("madvise(MADV_DONTNEED)");
			return 1;
		}
	if (set_hugepages(want))
		return 1;
	made = get_hugepages();
	printf("hugepages %ld\n", made);
	fflush(stdout);
	if (set_hugepages(0) || made < 0)
		return 1;
	munmap((void *)p, n * page);
	return 0;
}
