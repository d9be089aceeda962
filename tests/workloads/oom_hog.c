// SPDX-License-Identifier: GPL-2.0
/*
 * oom_hog ADJ MAX_MB: set our oom_score_adj to ADJ, then write to fresh
 * anonymous memory (no THP) 1 MB at a time until killed.  Run in a memcg
 * with memory.max well below MAX_MB and no swap, it is the OOM victim.
 * Prints "pid <pid>" first.  Exits 3 if it reached MAX_MB alive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long adj, max, page = sysconf(_SC_PAGESIZE), mb, i;
	FILE *f;

	if (argc != 3 || (max = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: oom_hog ADJ MAX_MB\n");
		return 2;
	}
	adj = atol(argv[1]);
	f = fopen("/proc/self/oom_score_adj", "w");
	if (!f || fprintf(f, "%ld\n", adj) < 0 || fclose(f)) {
		perror("oom_score_adj");
		return 1;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	for (mb = 0; mb < max; mb++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		madvise(p, 1 << 20, MADV_NOHUGEPAGE);
		for (i = 0; i < (1 << 20) / page; i++)
			p[i * page] = 1;
	}
	fprintf(stderr, "oom_hog: %ld MB and still alive\n", max);
	return 3;
}
