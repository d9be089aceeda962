// SPDX-License-Identifier: GPL-2.0
/*
 * symsrc: code for tests/host/run.sh to name from each place symbols come
 * from (its .symtab, .dynsym, debuginfo by build-id or .gnu_debuglink,
 * MiniDebugInfo).  Built -g -O2 -rdynamic: main() and exported_entry()
 * are in .dynsym, static_work() only in .symtab, and inlined_step() is
 * inlined into it, so only DWARF names it.  Prints its pid and where
 * main() was loaded, then "done", and waits for a line (or EOF) on stdin
 * so that its maps can be read.
 * Copyright (C) 2026 The memscope authors.
 */
#include <stdio.h>
#include <unistd.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long inlined_step(unsigned long x)
{
	sink += x * 2654435761u;
	return sink ^ (x >> 3);
}

static __attribute__((noinline, noclone)) unsigned long static_work(unsigned long n)
{
	unsigned long acc = 0, i;

	for (i = 0; i < n; i++)
		acc += inlined_step(i + acc);
	return acc;
}

__attribute__((noinline)) unsigned long exported_entry(unsigned long n)
{
	return static_work(n) + 1;
}

int main(int argc, char **argv)
{
	char line[16];

	(void)argv;
	printf("pid=%d\nmain=%p\nsum=%lu\ndone\n", (int)getpid(), (void *)main,
	       exported_entry((unsigned long)argc * 1000));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}
