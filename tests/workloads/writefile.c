// SPDX-License-Identifier: GPL-2.0
/*
 * writefile PATH STRING: one write(2) of STRING to PATH.  Prints the errno
 * name on failure and exits with the errno, so a test can tell EINVAL from
 * EPERM (shells report every failed write as "I/O error").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: writefile PATH STRING\n");
		return 255;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		return errno;
	}
	n = write(fd, argv[2], strlen(argv[2]));
	if (n < 0) {
		printf("%s\n", strerrorname_np(errno));
		return errno;
	}
	printf("ok %zd\n", n);
	return 0;
}
