// SPDX-License-Identifier: GPL-2.0
/*
 * forkmany N PAGES: fork N short-lived children one after another; each
 * writes PAGES fresh anonymous pages (so it page-faults under its own pid)
 * and exits.  Prints the number of children reaped.
 *
 * forkmany -w N PAGES: the same N children, but each stays alive once it
 * has written its pages.  When every child has, prints "ready" and waits
 * for end of file on stdin; then the children exit and the count of those
 * reaped is printed.  The children never exec, so no row of theirs ever
 * becomes one of an exec'd process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(long pages)
{
	long page = sysconf(_SC_PAGESIZE), j;
	volatile char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(1);
	for (j = 0; j < pages; j++)
		p[j * page] = 1;
}

int main(int argc, char **argv)
{
	int hold = argc > 1 && !strcmp(argv[1], "-w");
	long n, pages, i, reaped = 0;
	int ready[2], release[2];
	char c;

	argv += hold;
	argc -= hold;
	if (argc != 3 || (n = atol(argv[1])) <= 0 || (pages = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: forkmany [-w] N PAGES\n");
		return 2;
	}
	if (hold && (pipe(ready) || pipe(release))) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			touch(pages);
			if (!hold)
				_exit(0);
			close(release[1]);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			/* Alive until the parent closes its end. */
			_exit(read(release[0], &c, 1) == 0 ? 0 : 1);
		}
		if (!hold) {
			if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st))
				reaped++;
			continue;
		}
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "forkmany: child %ld died before it was ready\n", i);
			return 1;
		}
	}
	if (hold) {
		int st;

		printf("ready\n");
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		close(release[1]);
		while (wait(&st) > 0)
			if (WIFEXITED(st) && !WEXITSTATUS(st))
				reaped++;
	}
	printf("%ld\n", reaped);
	return reaped == n ? 0 : 1;
}
