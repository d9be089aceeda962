// SPDX-License-Identifier: GPL-2.0
/*
 * bench_syscall getppid|mmap|shm|brk|pingpong [OPS [RUNS]]: the cost of a system call,
 * for what mmapsnoop, shmsnoop and brkstack cost in scripts/bench.
 *
 * getppid: a call neither tool records.  While either probe is on, every
 * task takes the slow system call exit path (the sys_exit tracepoint), so
 * this is the tax every process pays.  mmap: one 4 KiB anonymous mmap()
 * and its munmap(), the call mmapsnoop records.  shm: shmget() of a new
 * private 4 KiB segment and its shmctl(IPC_RMID), two calls shmsnoop
 * records.  brk: the heap grown by a
 * page and shrunk back, two brk() calls, which brkstack records with their
 * user stacks.  pingpong: a byte to a child process and back through two
 * pipes, two context switches on one CPU: the scheduler path that the
 * kernel's PSI and memscope's pressure family hook.  Each run times OPS ops
 * and prints CLOCK_MONOTONIC ns per op; the last line is the median run
 * (guest instructions per op under scripts/vm-run --icount).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static int getppid_op(void *arg)
{
	(void)arg;
	/* syscall(): glibc must not answer from a cache. */
	syscall(SYS_getppid);
	return 0;
}

static int mmap_op(void *arg)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (p == MAP_FAILED || munmap(p, 4096)) {
		perror("mmap");
		return 1;
	}
	return 0;
}

static int shm_op(void *arg)
{
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);

	(void)arg;
	if (id < 0 || shmctl(id, IPC_RMID, NULL)) {
		perror("shm");
		return 1;
	}
	return 0;
}

static int brk_op(void *arg)
{
	(void)arg;
	if (sbrk(4096) == (void *)-1 || sbrk(-4096) == (void *)-1) {
		perror("sbrk");
		return 1;
	}
	return 0;
}

static int pingpong_fd[2] = { -1, -1 };	/* to the child, from it */

static int pingpong_op(void *arg)
{
	char c = 0;

	(void)arg;
	if (write(pingpong_fd[0], &c, 1) != 1 || read(pingpong_fd[1], &c, 1) != 1) {
		perror("pingpong");
		return 1;
	}
	return 0;
}

/* The child echoes each byte back until its parent closes the pipe. */
static int pingpong_start(void)
{
	int to[2], from[2];
	char c;

	if (pipe(to) || pipe(from)) {
		perror("pipe");
		return 1;
	}
	switch (fork()) {
	case -1:
		perror("fork");
		return 1;
	case 0:
		close(to[1]);
		close(from[0]);
		while (read(to[0], &c, 1) == 1)
			if (write(from[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	pingpong_fd[0] = to[1];
	pingpong_fd[1] = from[0];
	return 0;
}

int main(int argc, char **argv)
{
	long ops = argc > 2 ? atol(argv[2]) : 20000;
	long runs = argc > 3 ? atol(argv[3]) : 5;

	int (*op)(void *) = NULL;

	if (argc >= 2)
		op = !strcmp(argv[1], "getppid") ? getppid_op :
		     !strcmp(argv[1], "mmap") ? mmap_op : !strcmp(argv[1], "shm") ? shm_op :
		     !strcmp(argv[1], "brk") ? brk_op :
		     !strcmp(argv[1], "pingpong") ? pingpong_op : NULL;
	if (!op || ops < 1 || runs < 1 || runs > 1000) {
		fprintf(stderr, "usage: bench_syscall getppid|mmap|shm|brk|pingpong [OPS [RUNS]]\n");
		return 2;
	}
	/* glibc's first sbrk() sets its break up: not in the timed loop. */
	if (op == brk_op && brk_op(NULL))
		return 1;
	if (op == pingpong_op && pingpong_start())
		return 1;
	return bench_ops(ops, runs, op, NULL);
}
