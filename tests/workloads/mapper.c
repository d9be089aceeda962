// SPDX-License-Identifier: GPL-2.0
/*
 * mapper FILE: mmap(2) and System V shared memory calls in known numbers,
 * for tests/guest/25-mmapsnoop.sh.  Prints its pid, then makes:
 *   5 anonymous private read-write mappings of 20481 bytes;
 *   3 shared read-only mappings of FILE's first page, at offset 0;
 *   1 mmap of fd -1 without MAP_ANONYMOUS, which fails with EBADF;
 *   1 anonymous mmap of 2 MiB, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
 *     63 << MAP_HUGE_SHIFT, which fails with EINVAL (no 2^63-byte pages);
 *   1 shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600), which gives an id;
 *   1 shmget(0x4d53, 4096, 0), which fails with ENOENT (no such key);
 *   2 shmat of that id, the second SHM_RDONLY, and 2 shmdt;
 *   1 shmctl IPC_STAT and 1 shmctl IPC_RMID;
 *   1 shmget(IPC_PRIVATE, 2 MiB, IPC_CREAT | SHM_HUGETLB | 63 << SHM_HUGE_SHIFT
 *     | 0600), which fails with EINVAL (no 2^63-byte huge pages).
 * Exits non-zero if any call does not do what is listed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#define ANON_SIZE 20481
#ifndef SHM_HUGE_SHIFT
#define SHM_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	struct shmid_ds ds;
	void *p, *a, *b;
	int fd, id, i;

	if (argc != 2) {
		fprintf(stderr, "usage: mapper FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);

	for (i = 0; i < 5; i++)
		if (mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			die("mmap anonymous");
	for (i = 0; i < 3; i++)
		if (mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED)
			die("mmap FILE");
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, -1, 0);
	if (p != MAP_FAILED || errno != EBADF)
		die("mmap of fd -1 did not fail with EBADF");
	p = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (int)(63U << MAP_HUGE_SHIFT), -1, 0);
	if (p != MAP_FAILED || errno != EINVAL)
		die("mmap of 2^63-byte huge pages did not fail with EINVAL");

	id = shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600);
	if (id < 0)
		die("shmget");
	if (shmget(0x4d53, 4096, 0) != -1 || errno != ENOENT)
		die("shmget of key 0x4d53 did not fail with ENOENT");
	a = shmat(id, NULL, 0);
	b = shmat(id, NULL, SHM_RDONLY);
	if (a == (void *)-1 || b == (void *)-1)
		die("shmat");
	if (shmdt(a) || shmdt(b))
		die("shmdt");
	if (shmctl(id, IPC_STAT, &ds) || shmctl(id, IPC_RMID, NULL))
		die("shmctl");
	if (shmget(IPC_PRIVATE, 2 << 20, IPC_CREAT | SHM_HUGETLB | (int)(63U << SHM_HUGE_SHIFT) |
		   0600) != -1 || errno != EINVAL)
		die("shmget of 2^63-byte huge pages did not fail with EINVAL");
	return 0;
}
