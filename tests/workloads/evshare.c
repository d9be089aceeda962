// SPDX-License-Identifier: GPL-2.0
/*
 * evshare EVENTS READY WANT: many reads of one open `events` file at once.
 *
 * read(2) on a shared fd holds the file's f_pos_lock, so it never runs two
 * reads of one file at a time.  io_uring does not take that lock: a read
 * that would block is handed to an io-wq worker, and with NREQ of them in
 * flight the workers run the module's read concurrently on one struct file.
 * Small buffers (one line each) make every line its own read.
 *
 * Opens EVENTS, creates READY, and reads until the file WANT exists and
 * holds a number N, and N event lines ("lost count=K" counts K) have been
 * read; or 120 s pass.  Prints every line read, in completion order.
 * Exits 0 when exactly N were read, 3 when the kernel has no io_uring.
 * Raw syscalls: no liburing on the guests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NREQ	8
#define BUFSZ	256

static struct {
	unsigned int *head, *tail, *mask, *array;
	struct io_uring_sqe *sqes;
} sq;
static struct {
	unsigned int *head, *tail, *mask;
	struct io_uring_cqe *cqes;
} cq;
static int ring;
static char bufs[NREQ][BUFSZ];

static void die(const char *what)
{
	fprintf(stderr, "evshare: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void setup(void)
{
	struct io_uring_params p;
	size_t sqsz, cqsz;
	char *s, *c;

	memset(&p, 0, sizeof(p));
	ring = (int)syscall(__NR_io_uring_setup, NREQ * 2, &p);
	if (ring < 0 && (errno == ENOSYS || errno == EPERM)) {
		fprintf(stderr, "evshare: io_uring_setup: %s\n", strerror(errno));
		exit(3);	/* no io_uring here (kernel.io_uring_disabled?) */
	}
	if (ring < 0)
		die("io_uring_setup");
	sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	s = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 ring, IORING_OFF_SQ_RING);
	c = mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 ring, IORING_OFF_CQ_RING);
	sq.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring,
		       IORING_OFF_SQES);
	if (s == MAP_FAILED || c == MAP_FAILED || sq.sqes == MAP_FAILED)
		die("mmap io_uring");
	sq.head = (unsigned int *)(s + p.sq_off.head);
	sq.tail = (unsigned int *)(s + p.sq_off.tail);
	sq.mask = (unsigned int *)(s + p.sq_off.ring_mask);
	sq.array = (unsigned int *)(s + p.sq_off.array);
	cq.head = (unsigned int *)(c + p.cq_off.head);
	cq.tail = (unsigned int *)(c + p.cq_off.tail);
	cq.mask = (unsigned int *)(c + p.cq_off.ring_mask);
	cq.cqes = (struct io_uring_cqe *)(c + p.cq_off.cqes);
}

static void queue_read(int fd, unsigned int i)
{
	unsigned int tail = *sq.tail, idx = tail & *sq.mask;
	struct io_uring_sqe *e = &sq.sqes[idx];

	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_READ;
	e->fd = fd;
	e->addr = (uintptr_t)bufs[i];
	e->len = BUFSZ;
	e->off = (uint64_t)-1;		/* the file's position, as read(2) */
	e->user_data = i;
	sq.array[idx] = idx;
	__atomic_store_n(sq.tail, tail + 1, __ATOMIC_RELEASE);
}

static long want_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* Event lines in a completed buffer: "lost count=K" stands for K. */
static long count_lines(const char *b, size_t len)
{
	long n = 0;
	const char *p = b, *end = b + len, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (!strncmp(p, "lost count=", 11))
			n += strtol(p + 11, NULL, 10);
		else
			n++;
		p = nl + 1;
	}
	return n;
}

int main(int argc, char **argv)
{
	long got = 0, want = -1;
	unsigned int i;
	time_t start = time(NULL);
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: evshare EVENTS READY WANT\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	setup();
	memset(bufs, 0, sizeof(bufs));
	for (i = 0; i < NREQ; i++)
		queue_read(fd, i);
	if (syscall(__NR_io_uring_enter, ring, NREQ, 0, 0, NULL, 0) < 0)
		die("io_uring_enter");
	if (close(open(argv[2], O_WRONLY | O_CREAT, 0600)) < 0)
		die(argv[2]);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (want < 0 || got < want) {
		unsigned int head, tail, submit = 0;

		if (time(NULL) - start > 120) {
			fprintf(stderr, "evshare: timed out with %ld of %ld lines\n", got, want);
			break;
		}
		head = *cq.head;
		tail = __atomic_load_n(cq.tail, __ATOMIC_ACQUIRE);
		for (; head != tail; head++) {
			struct io_uring_cqe *e = &cq.cqes[head & *cq.mask];

			i = (unsigned int)e->user_data;
			if (e->res < 0) {
				errno = -e->res;
				die("read");
			}
			fwrite(bufs[i], 1, (size_t)e->res, stdout);
			got += count_lines(bufs[i], (size_t)e->res);
			memset(bufs[i], 0, BUFSZ);
			queue_read(fd, i);
			submit++;
		}
		__atomic_store_n(cq.head, head, __ATOMIC_RELEASE);
		if (submit && syscall(__NR_io_uring_enter, ring, submit, 0, 0, NULL, 0) < 0)
			die("io_uring_enter submit");
		if (!submit)
			usleep(20000);	/* then look at WANT again */
		if (want < 0)
			want = want_lines(argv[3]);
	}
	fflush(stdout);
	fprintf(stderr, "evshare: %ld event lines in %d reads at once\n", got, NREQ);
	return got == want ? 0 : 1;
}
