// SPDX-License-Identifier: GPL-2.0
/*
 * sbrker N: grows its heap N pages through glibc's sbrk(3), from
 * grow_heap() called by grow() called by main(), for the brkstack check
 * of tests/guest/26-ustacks.sh.  Built dynamically (glibc's sbrk is then
 * libc.so.6's, which has no frame pointers) and with frame pointers
 * itself (Makefile).  The frame-pointer walk, from brk's system call in
 * libc, skips sbrk and grow_heap: rbp still holds grow_heap's frame, whose
 * record returns into grow.  Walked by unwind tables, the stack is
 * __brk (or brk), sbrk, grow_heap, grow, main.  Prints its pid, then
 * "done", and waits for a line (or EOF) on stdin before it exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

NOINLINE void grow_heap(int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (sbrk(4096) == (void *)-1) {
			perror("sbrk");
			exit(1);
		}
}

NOINLINE void grow(int n)
{
	grow_heap(n);
	/* Not a tail call: grow stays on the stack (-fno-optimize-sibling-calls too). */
	asm volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	char line[16];

	if (argc != 2)
		return 2;
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	grow(atoi(argv[1]));
	printf("done\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}
