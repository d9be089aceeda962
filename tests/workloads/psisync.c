// SPDX-License-Identifier: GPL-2.0
/*
 * psisync MS FILE...: read each FILE, in order and back to back, every
 * MS milliseconds until killed.  Reading a PSI file, or memscope's,
 * collects its per-CPU times into its totals at that instant, each CPU
 * weighed by its non-idle time since the last collection (PSI's
 * collect_percpu_times()).  A total is those weighted periods' sum, so
 * two accountings whose periods end at different instants differ on a
 * short, bursty stall even when their per-CPU times agree (62-pressure):
 * read together every MS, both end nearly all their periods at the same
 * instants, and the comparison is of what each counted.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	char buf[4096];
	long ms;
	int i;

	if (argc < 3 || (ms = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: psisync MS FILE...\n");
		return 2;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	for (;;) {
		for (i = 2; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY);

			if (fd < 0) {
				perror(argv[i]);
				return 1;
			}
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		nanosleep(&ts, NULL);
	}
}
