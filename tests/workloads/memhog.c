// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB: map MIB MiB of private anonymous memory, write one byte of
 * every page (no THP, so reclaim and swap-out work page by page), print
 * "pid <pid> touched <pages>" and exit.  Past free memory this stalls the
 * task in direct reclaim.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mib, page = sysconf(_SC_PAGESIZE), n, i;
	volatile char *p;

	if (argc != 2 || (mib = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: memhog MIB\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
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
	printf("touched %ld\n", n);
	return 0;
}
