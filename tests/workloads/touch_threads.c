// SPDX-License-Identifier: GPL-2.0
/*
 * touch_threads T N [-l]: T threads each map N fresh anonymous pages (no
 * THP) and touch each once by writing.  Prints
 *   "pid <tgid> threads <T> touched <N> minflt <sum>"
 * where sum is the threads' own getrusage(RUSAGE_THREAD) minor faults over
 * their touch loops, so a test can check per-process rows against both
 * T * N and the kernel's per-thread counters.
 *
 * With -l the process then lives on without its leader: the main thread
 * exits (a zombie until the group is empty) and one more thread waits for
 * end of file on stdin, then ends the process.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static long npages, page;
static pthread_barrier_t start;

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

static void *touch(void *arg)
{
	volatile char *p;
	long i, before;

	p = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (madvise((void *)p, npages * page, MADV_NOHUGEPAGE))
		perror("madvise");
	pthread_barrier_wait(&start);
	before = minflt();
	for (i = 0; i < npages; i++)
		p[i * page] = 1;
	*(long *)arg = minflt() - before;
	return NULL;
}

static void *wait_stdin(void *arg)
{
	(void)arg;
	while (getchar() != EOF)
		;
	exit(0);
}

int main(int argc, char **argv)
{
	long t, i, sum = 0;
	pthread_t *tid, waiter;
	long *flt;
	int leaderless = argc == 4 && !strcmp(argv[3], "-l");

	page = sysconf(_SC_PAGESIZE);
	if ((argc != 3 && !leaderless) || (t = atol(argv[1])) <= 0 ||
	    (npages = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: touch_threads T N [-l]\n");
		return 2;
	}
	tid = calloc(t, sizeof(*tid));
	flt = calloc(t, sizeof(*flt));
	if (!tid || !flt || pthread_barrier_init(&start, NULL, t)) {
		fprintf(stderr, "touch_threads: out of memory\n");
		return 1;
	}
	for (i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, touch, &flt[i])) {
			fprintf(stderr, "touch_threads: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < t; i++) {
		pthread_join(tid[i], NULL);
		sum += flt[i];
	}
	printf("pid %d threads %ld touched %ld minflt %ld\n", getpid(), t, npages, sum);
	fflush(stdout);
	if (!leaderless)
		return 0;
	if (pthread_create(&waiter, NULL, wait_stdin, NULL)) {
		fprintf(stderr, "touch_threads: pthread_create failed\n");
		return 1;
	}
	pthread_exit(NULL);
}
