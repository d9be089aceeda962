// SPDX-License-Identifier: GPL-2.0
/*
 * renamer A B COUNT: rename A to B and back, COUNT times, as fast as it
 * can, so that a concurrent reader of the dentry's name sees it change
 * (with A and B of different lengths, one inline and one external name).
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n, i;

	if (argc != 4 || (n = atol(argv[3])) <= 0) {
		fprintf(stderr, "usage: renamer A B COUNT\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (rename(argv[1], argv[2]) || rename(argv[2], argv[1])) {
			perror("rename");
			return 1;
		}
	printf("renames %ld\n", 2 * n);
	return 0;
}
