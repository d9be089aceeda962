// SPDX-License-Identifier: GPL-2.0
/*
 * writefile PATH STRING: one write(2) of STRING to PATH.  Prints the errno
 * name on failure and exits with the errno, so a test can tell EINVAL from
 * EPERM (shells report every failed write as "I/O error").
 *
 * writefile -l PATH STRING...: open PATH once and write the STRINGs in
 * turn until a write fails; print "N ERRNAME" (the writes that worked, the
 * error that stopped them) and exit 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int write_loop(const char *path, char **strs, int nstrs)
{
	unsigned long n = 0;
	int fd = open(path, O_WRONLY);

	if (fd < 0) {
		printf("open: %s\n", strerrorname_np(errno));
		return errno;
	}
	for (;; n++) {
		const char *s = strs[n % nstrs];

		if (write(fd, s, strlen(s)) < 0)
			break;
	}
	printf("%lu %s\n", n, strerrorname_np(errno));
	return 0;
}

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc >= 4 && !strcmp(argv[1], "-l"))
		return write_loop(argv[2], argv + 3, argc - 3);
	if (argc != 3) {
		fprintf(stderr, "usage: writefile PATH STRING | -l PATH STRING...\n");
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
