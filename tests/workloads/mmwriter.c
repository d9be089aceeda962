// SPDX-License-Identifier: GPL-2.0
/*
 * mmwriter ROUNDS PAGES: page faults while another thread keeps wanting
 * the process's mmap lock for writing, for tests/guest/26-ustacks.sh.
 * The main thread, from fault_loop() through touch_round(), maps PAGES
 * fresh anonymous pages ROUNDS times and writes each once (one fault a
 * page: MADV_NOHUGEPAGE); a second thread maps and unmaps one page over
 * and over until it is done, so a writer often waits on the lock while a
 * fault holds it for reading.  Built with frame pointers and without
 * inlining (Makefile), so the fault's chain is main;fault_loop;
 * touch_round.  Prints "faults N mmaps M": the kernel's own count of the
 * main thread's minor faults over its loop (getrusage), and the other
 * thread's map and unmap pairs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#define PAGE 4096
#define NOINLINE __attribute__((noinline, noclone))

static volatile int done;

/* A leaf gets no frame from gcc: see stacker.c. */
NOINLINE void not_a_leaf(void)
{
	asm volatile("" ::: "memory");
}

NOINLINE void touch_round(long pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * PAGE] = 1;
	not_a_leaf();
	munmap(p, pages * PAGE);
}

NOINLINE void fault_loop(long rounds, long pages)
{
	long r;

	for (r = 0; r < rounds; r++)
		touch_round(pages);
	not_a_leaf();
}

static void *writer(void *arg)
{
	long *n = arg;

	while (!done) {
		void *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, PAGE);
		(*n)++;
	}
	return NULL;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	long rounds, pages, f0, mmaps = 0;
	pthread_t t;

	if (argc != 3 || (rounds = atol(argv[1])) <= 0 || (pages = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: mmwriter ROUNDS PAGES\n");
		return 2;
	}
	if (pthread_create(&t, NULL, writer, &mmaps)) {
		fprintf(stderr, "mmwriter: pthread_create failed\n");
		return 1;
	}
	f0 = minflt();
	fault_loop(rounds, pages);
	f0 = minflt() - f0;
	done = 1;
	pthread_join(t, NULL);
	printf("faults %ld mmaps %ld\n", f0, mmaps);
	return 0;
}
