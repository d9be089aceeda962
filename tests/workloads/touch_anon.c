// SPDX-License-Identifier: GPL-2.0
/*
 * touch_anon N: map N fresh anonymous pages (no THP), touch each once by
 * writing, then report and wait for a line on stdin (or exit with -x).
 *
 * Writes "ready <pid> <baseline minflt>" after mapping and "done <minflt>"
 * after touching, from getrusage(), so a test can check the module against
 * the kernel's own per-task counter as well as against N.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	long n, page = sysconf(_SC_PAGESIZE), before, after, i;
	volatile char *p;
	char line[16];

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: touch_anon N [-x]\n");
		return 2;
	}
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (madvise((void *)p, n * page, MADV_NOHUGEPAGE))
		perror("madvise");
	before = minflt();
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	after = minflt();
	printf("pid %d touched %ld minflt %ld\n", getpid(), n, after - before);
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "-w"))
		if (!fgets(line, sizeof(line), stdin))
			return 0;
	return 0;
}
