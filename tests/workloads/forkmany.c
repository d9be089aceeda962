// SPDX-License-Identifier: GPL-2.0
/*
 * forkmany N PAGES: fork N short-lived children one after another; each
 * writes PAGES fresh anonymous pages (so it page-faults under its own pid)
 * and exits.  Prints the number of children reaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, pages, page = sysconf(_SC_PAGESIZE), i, j, reaped = 0;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (pages = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: forkmany N PAGES\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			volatile char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				_exit(1);
			for (j = 0; j < pages; j++)
				p[j * page] = 1;
			_exit(0);
		}
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st))
			reaped++;
	}
	printf("%ld\n", reaped);
	return reaped == n ? 0 : 1;
}
