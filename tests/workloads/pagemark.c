// SPDX-License-Identifier: GPL-2.0
/*
 * pagemark [pageout]: 16 anonymous pages (no THP) in a known state, for
 * pmap -i.  Pages 0, 2, 3 and 7 are written, the others untouched; page 7
 * holds "MEMSCOPE-PAGE-07" at offset 0x100 and "END-OF-PAGE-07!!" at
 * 0xff0.  With "pageout", pages 12 and 13 are written and then paged out
 * (MADV_PAGEOUT, Linux 5.4+: swap must be on), or it prints "pageout
 * unsupported".  Prints "region ADDRESS 16" and "ready"; on SIGUSR1 it
 * writes pages 10 and 11 and prints "touched".  Runs until killed.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGES 16

static volatile sig_atomic_t more;

static void on_usr1(int sig)
{
	(void)sig;
	more = 1;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	char *p;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	p = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(p, PAGES * page, MADV_NOHUGEPAGE);
	p[0 * page] = 1;
	p[2 * page] = 1;
	p[3 * page] = 1;
	memcpy(p + 7 * page + 0x100, "MEMSCOPE-PAGE-07", 16);
	memcpy(p + 7 * page + 0xff0, "END-OF-PAGE-07!!", 16);
	if (argc > 1 && !strcmp(argv[1], "pageout")) {
		p[12 * page] = 1;
		p[13 * page] = 1;
		if (madvise(p + 12 * page, 2 * page, MADV_PAGEOUT))
			printf("pageout unsupported\n");
	}
	printf("region %lx %d\nready\n", (unsigned long)p, PAGES);
	fflush(stdout);
	for (;;) {
		pause();
		if (more) {
			more = 0;
			p[10 * page] = 1;
			p[11 * page] = 1;
			printf("touched\n");
			fflush(stdout);
		}
	}
}
