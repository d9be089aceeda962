// SPDX-License-Identifier: GPL-2.0
/*
 * bench_alloc [OPS [RUNS]]: the cost of a system call that allocates and
 * frees kernel memory, for memleak's cost in scripts/bench.
 *
 * One op is pipe2() and two close()s: the kernel allocates two struct
 * files (filp cache), an inode and its pipe_inode_info, the pipe's buffer
 * array (kmalloc) and security blobs where an LSM wants them, and frees
 * them all again, some from RCU callbacks.  Each run times OPS ops and
 * prints CLOCK_MONOTONIC ns per op; the last line is the median run.
 *
 * Under scripts/vm-run --icount (QEMU -icount shift=0) guest time advances
 * one ns per guest instruction, so these are instructions per op: the
 * system calls, the allocator, and whatever probes run on the way.  RCU
 * frees that fall outside the timed loop are not counted; every
 * configuration runs the same loop, so they are left out alike.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int pipe_op(void *arg)
{
	int fd[2];

	(void)arg;
	if (pipe2(fd, O_CLOEXEC)) {
		perror("pipe2");
		return 1;
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

int main(int argc, char **argv)
{
	long ops = argc > 1 ? atol(argv[1]) : 20000;
	long runs = argc > 2 ? atol(argv[2]) : 5;

	if (ops < 1 || runs < 1 || runs > 1000) {
		fprintf(stderr, "usage: bench_alloc [OPS [RUNS]]\n");
		return 2;
	}
	return bench_ops(ops, runs, pipe_op, NULL);
}
