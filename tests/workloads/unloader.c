// SPDX-License-Identifier: GPL-2.0
/*
 * unloader NAME SECONDS: delete_module(NAME, O_NONBLOCK) until it succeeds,
 * retrying every millisecond while the module is in use (EBUSY, EAGAIN:
 * an open file of the module pins it), for at most SECONDS.  Prints the
 * number of refused attempts and exits 0 once NAME is unloaded; otherwise
 * prints the errno name of the last attempt and exits 1.
 *
 * This is rmmod in a loop without an exec per attempt.  Under TCG an exec
 * of rmmod costs a tenth of a second, about as long as a reader looping
 * open/read/close keeps the module free, so a shell loop of rmmod could
 * miss every gap for a minute (50-stress saw 40-150 s unloads).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const struct timespec ms = { 0, 1000000 };
	unsigned long refused = 0;
	double end;

	if (argc != 3 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: unloader NAME SECONDS\n");
		return 255;
	}
	end = now() + atoi(argv[2]);
	for (;;) {
		if (!syscall(SYS_delete_module, argv[1], O_NONBLOCK)) {
			printf("%lu\n", refused);
			return 0;
		}
		if ((errno != EBUSY && errno != EAGAIN) || now() > end)
			break;
		refused++;
		nanosleep(&ms, NULL);
	}
	printf("%s after %lu refusals\n", strerrorname_np(errno), refused);
	return 1;
}
