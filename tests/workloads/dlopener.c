// SPDX-License-Identifier: GPL-2.0
/*
 * dlopener LIB WAIT_MS PAGES: print "pid=N", wait WAIT_MS milliseconds,
 * then dlopen() LIB (libmsdl.so) and call its msdl_run(PAGES): a page
 * fault a millisecond, each in msdl_touch(), called through msdl_a() and
 * msdl_b() from msdl_run(), called from run_lib() and main().  Then print
 * "touched=N" and wait for the end of standard input, so that its stacks
 * can be read while it lives.  Built without frame pointers, as LIB and
 * glibc are: only unwind tables reach main() from a fault in LIB
 * (39-unwind).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static __attribute__((noinline)) long run_lib(long (*run)(long), long pages)
{
	long r = run(pages);

	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return r;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	long (*run)(long);
	void *h;
	long ms;

	if (argc != 4) {
		fprintf(stderr, "usage: dlopener LIB WAIT_MS PAGES\n");
		return 2;
	}
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	ms = atol(argv[2]);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&ts, NULL);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	run = (long (*)(long))dlsym(h, "msdl_run");
	if (!run) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	printf("touched=%ld\n", run_lib(run, atol(argv[3])));
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
