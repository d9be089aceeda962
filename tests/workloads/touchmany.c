// SPDX-License-Identifier: GPL-2.0
/*
 * touchmany DIR N: create N one-page files DIR/f<i> (if missing), then map
 * each read-only and read its page, so every file faults under its own
 * name.  Prints the number of files touched.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i, page = sysconf(_SC_PAGESIZE), done = 0;
	char path[4096], *data;
	unsigned int sum = 0;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: touchmany DIR N\n");
		return 2;
	}
	data = calloc(1, page);
	if (!data)
		return 1;
	for (i = 0; i < n; i++) {
		volatile char *p;
		int fd;

		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		fd = open(path, O_RDWR | O_CREAT, 0600);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		if (lseek(fd, 0, SEEK_END) < page && pwrite(fd, data, page, 0) != page) {
			perror(path);
			return 1;
		}
		p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		sum += p[0];
		munmap((void *)p, page);
		done++;
	}
	printf("%ld\n", done + (sum & 0));
	return 0;
}
