// SPDX-License-Identifier: GPL-2.0
/*
 * mallocer N: N rounds of a 64 KiB block (from the heap: glibc grows it
 * with sbrk) and a 256 KiB one (its own mmap, past the mmap threshold),
 * each filled with memset: page faults in glibc's memset and malloc,
 * called from fill_block() from fill() from main().  Dynamic, and without
 * frame pointers, as distribution programs are built: only unwind tables
 * reach main (tests/guest/44-ustacks-perf.sh).  Prints its pid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static char *volatile keep;

NOINLINE void fill_block(size_t size, int c)
{
	char *p = malloc(size);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	memset(p, c, size);
	keep = p;
}

NOINLINE void fill(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		fill_block(64 << 10, i);
		fill_block(256 << 10, i);
	}
	/* Not a tail call: fill stays on the stack. */
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	fill(atoi(argv[1]));
	return 0;
}
