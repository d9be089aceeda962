// SPDX-License-Identifier: GPL-2.0
/*
 * touch_file PATH: map PATH read-only and read one byte of each page, so
 * each page of the file faults once (with fault_around_bytes = 4096).
 * Prints the number of pages touched and this process's minor and major
 * fault deltas from getrusage().
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), i, n;
	struct rusage a, b;
	volatile char *p;
	unsigned int sum = 0;
	struct stat st;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: touch_file PATH\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	n = (st.st_size + page - 1) / page;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* Readahead would bring pages in without faults: ask for none. */
	madvise((void *)p, st.st_size, MADV_RANDOM);
	getrusage(RUSAGE_SELF, &a);
	for (i = 0; i < n; i++)
		sum += p[i * page];
	getrusage(RUSAGE_SELF, &b);
	printf("pid %d pages %ld minflt %ld majflt %ld sum %u\n", getpid(), n,
	       b.ru_minflt - a.ru_minflt, b.ru_majflt - a.ru_majflt, sum);
	return 0;
}
