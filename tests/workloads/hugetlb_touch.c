// SPDX-License-Identifier: GPL-2.0
/*
 * hugetlb_touch N: map N huge pages with MAP_HUGETLB and write one byte in
 * each, which is exactly N hugetlb faults.  Reads HugePages_Free before
 * and after so a test can see the kernel's own account of the N pages.
 * Prints "pid <pid> touched <n> free_before <f0> free_after <f1>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long meminfo(const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = atol(line + strlen(key) + 1);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long n, i, hpage, before, after;
	volatile char *p;

	if (argc != 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: hugetlb_touch N\n");
		return 2;
	}
	hpage = meminfo("Hugepagesize") * 1024;
	if (hpage <= 0) {
		fprintf(stderr, "hugetlb_touch: no Hugepagesize\n");
		return 1;
	}
	p = mmap(NULL, n * hpage, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap MAP_HUGETLB");
		return 1;
	}
	before = meminfo("HugePages_Free");
	for (i = 0; i < n; i++)
		p[i * hpage] = 1;
	after = meminfo("HugePages_Free");
	printf("pid %d touched %ld free_before %ld free_after %ld\n",
	       getpid(), n, before, after);
	return 0;
}
