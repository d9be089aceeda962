// SPDX-License-Identifier: GPL-2.0
/*
 * touch_file PATH [R]: map PATH read-only and read one byte of each page, so
 * each page of the file faults once (with fault_around_bytes = 4096); R
 * times over (default once), a fresh mapping each time.  Prints the number
 * of pages touched and this process's minor and major fault deltas from
 * getrusage().
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), i, n, r, rounds = 1;
	struct rusage a, b;
	volatile char *p;
	unsigned int sum = 0;
	struct stat st;
	int fd;

	if ((argc != 2 && argc != 3) || (argc == 3 && (rounds = atol(argv[2])) <= 0)) {
		fprintf(stderr, "usage: touch_file PATH [ROUNDS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	n = (st.st_size + page - 1) / page;
	getrusage(RUSAGE_SELF, &a);
	for (r = 0; r < rounds; r++) {
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		/* Readahead would bring pages in without faults: ask for none. */
		madvise((void *)p, st.st_size, MADV_RANDOM);
		for (i = 0; i < n; i++)
			sum += p[i * page];
		munmap((void *)p, st.st_size);
	}
	getrusage(RUSAGE_SELF, &b);
	printf("pid %d pages %ld minflt %ld majflt %ld sum %u\n", getpid(), n * rounds,
	       b.ru_minflt - a.ru_minflt, b.ru_majflt - a.ru_majflt, sum);
	return 0;
}
