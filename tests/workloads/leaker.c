// SPDX-License-Identifier: GPL-2.0
/*
 * leaker GO_FILE [STOP_FILE]: known outstanding allocations from known call chains,
 * for memleak -p (tests/guest/61-memleak-user.sh).  Prints its pid, and
 * allocates 7 blocks; then waits for GO_FILE to exist (the tracer is
 * ready), frees those 7 (frees of memory allocated before tracing began),
 * and makes, each from its own function called by main():
 *   leak_malloc        10 x malloc(1000)                  10000 bytes
 *   leak_calloc         5 x calloc(10, 100)                5000
 *   leak_realloc        4 x realloc(malloc(100), 3000)    12000
 *   leak_memalign       3 x posix_memalign(64, 2048)       6144
 *   leak_aligned        2 x aligned_alloc(256, 512)        1024
 *   leak_reallocarray   2 x reallocarray(NULL, 3, 100)      600
 *   leak_mmap           3 x mmap(65536) anonymous, 1 unmapped  131072
 *   leak_prefixed       6 x lk_malloc(700), 2 lk_free()d    2800
 *                       (its own allocator: malloc and free by other names)
 * and 1000 malloc(64)/free pairs (churn), none of them outstanding; then
 * exits.  With STOP_FILE, it then prints "looping" and fills, checks and
 * frees a block in a loop until STOP_FILE exists, and fails if a block ever reads back wrong
 * (the program must run on correctly while memscope unloads under it).
 * Dynamic, without frame pointers, as distribution programs are.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static void *volatile keep[64];
static unsigned int nkeep;

/* Stored after the call: never a tail call, so each function keeps its frame. */
static void hold(void *p)
{
	if (!p) {
		perror("leaker: allocation failed");
		exit(1);
	}
	keep[nkeep++ % 64] = p;
}

NOINLINE void leak_malloc(void)
{
	hold(malloc(1000));
}

NOINLINE void leak_calloc(void)
{
	hold(calloc(10, 100));
}

NOINLINE void leak_realloc(void)
{
	void *p = malloc(100);

	hold(realloc(p, 3000));
}

NOINLINE void leak_memalign(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, 2048))
		p = NULL;
	hold(p);
}

NOINLINE void leak_aligned(void)
{
	hold(aligned_alloc(256, 512));
}

NOINLINE void leak_reallocarray(void)
{
	hold(reallocarray(NULL, 3, 100));
}

NOINLINE void *leak_mmap(void)
{
	void *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	hold(p == MAP_FAILED ? NULL : p);
	return p;
}

/* Blocks filled, checked and freed until @stop exists: 0, or 1 if one read back wrong. */
NOINLINE int loop(const char *stop)
{
	unsigned long n;

	printf("looping\n");
	fflush(stdout);
	for (n = 0;; n++) {
		unsigned char *p = malloc(4096);
		int i;

		if (!p)
			return 1;
		memset(p, (int)(n & 0xff), 4096);
		for (i = 0; i < 4096; i++)
			if (p[i] != (n & 0xff))
				return 1;
		free(p);
		if (n % 1000 == 0 && !access(stop, F_OK))
			break;
	}
	printf("%lu\n", n);
	return 0;
}

/* An allocator of its own, for memleak --prefix lk_: malloc and free by other names. */
NOINLINE void *lk_malloc(size_t size)
{
	void *p = malloc(size);

	asm volatile("" ::: "memory");
	return p;
}

NOINLINE void lk_free(void *p)
{
	free(p);
	asm volatile("" ::: "memory");
}

NOINLINE void leak_prefixed(void)
{
	void *p[6];
	int i;

	for (i = 0; i < 6; i++)
		p[i] = lk_malloc(700);
	lk_free(p[0]);
	lk_free(p[1]);
	for (i = 2; i < 6; i++)
		hold(p[i]);
}

NOINLINE void churn(void)
{
	int i;

	for (i = 0; i < 1000; i++) {
		char *volatile p = malloc(64);

		free(p);
	}
}

int main(int argc, char **argv)
{
	void *early[7];
	int i;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: leaker GO_FILE [STOP_FILE]\n");
		return 2;
	}
	for (i = 0; i < 7; i++)
		early[i] = malloc(50);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(10000);
	for (i = 0; i < 7; i++)
		free(early[i]);
	for (i = 0; i < 10; i++)
		leak_malloc();
	for (i = 0; i < 5; i++)
		leak_calloc();
	for (i = 0; i < 4; i++)
		leak_realloc();
	for (i = 0; i < 3; i++)
		leak_memalign();
	for (i = 0; i < 2; i++)
		leak_aligned();
	for (i = 0; i < 2; i++)
		leak_reallocarray();
	for (i = 0; i < 2; i++)
		leak_mmap();
	munmap(leak_mmap(), 65536);
	leak_prefixed();
	churn();
	return argc == 3 ? loop(argv[2]) : 0;
}
