// SPDX-License-Identifier: GPL-2.0
/*
 * readchunks [-o OFFSET] [-s SEED] PATH: read PATH to its end in 1..7-byte
 * pieces (sizes from a PRNG seeded with SEED) and write what was read to
 * stdout.  Without -o, with read(2); with -o, with pread(2) from OFFSET on,
 * so every read is at an odd offset of the caller's choosing.  A test compares
 * that with the file's grammar: seq_file must never hand out a torn line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned int seed = 1;
	long off = 0;
	char buf[8];
	ssize_t n;
	int fd, c;

	while ((c = getopt(argc, argv, "o:s:")) != -1) {
		switch (c) {
		case 'o': off = atol(optarg); break;
		case 's': seed = atoi(optarg); break;
		default: return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: readchunks [-o OFFSET] [-s SEED] PATH\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	srand(seed);
	do {
		n = off ? pread(fd, buf, 1 + rand() % 7, off) : read(fd, buf, 1 + rand() % 7);
		if (n > 0 && write(1, buf, n) != n)
			return 1;
		off += n > 0 && off ? n : 0;
	} while (n > 0);
	if (n < 0) {
		fprintf(stderr, "read %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	return 0;
}
