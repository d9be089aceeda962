// SPDX-License-Identifier: GPL-2.0
/*
 * libmsdl.so, which dlopener dlopen()s: msdl_run(PAGES) maps PAGES pages
 * and touches one a millisecond, each in msdl_touch(), called through
 * msdl_b() and msdl_a(), each its own fault (no transparent huge
 * pages).  Built without frame pointers, every function its own frame;
 * returns the pages touched.
 */
#include <sys/mman.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

NOINLINE long msdl_touch(char *p)
{
	*(volatile char *)p = 1;
	__asm__ volatile("" ::: "memory");
	return 1;
}

NOINLINE long msdl_b(char *p)
{
	long r = msdl_touch(p);

	__asm__ volatile("" ::: "memory");
	return r;
}

NOINLINE long msdl_a(char *p)
{
	long r = msdl_b(p);

	__asm__ volatile("" ::: "memory");
	return r;
}

long msdl_run(long pages)
{
	struct timespec ms = { 0, 1000000L };
	long i, n = 0;
	char *p;

	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	/* EINVAL without transparent huge pages (the RT flavours): none to avoid. */
	madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++) {
		n += msdl_a(p + i * 4096);
		nanosleep(&ms, NULL);
	}
	munmap(p, pages * 4096);
	return n;
}
