// SPDX-License-Identifier: GPL-2.0
/*
 * stacker A B NA NB: page faults and brk(2) calls from known function
 * chains, for tests/guest/26-ustacks.sh.  Built with frame pointers and
 * without inlining, cloning or tail calls (Makefile), so each chain is
 * the one written here.  Prints its pid, then:
 *   touch_pages() from fault_a() writes A fresh anonymous pages, and from
 *     fault_b() B more: one fault a page (MADV_NOHUGEPAGE);
 *   heap_base() makes 1 brk call, grow_heap() from brk_a() NA, and from
 *     brk_b() NB, each growing the heap a page.
 * The brk calls are raw system call instructions in heap_base() and
 * grow_heap() themselves: through libc, the innermost frame would be
 * libc's wrapper, and the chain above it depends on how libc was built.
 * It prints the kernel's own count of its minor faults (getrusage) over
 * each fault phase.  Then it prints "done" and waits for a line (or EOF) on stdin, so that
 * its maps can still be read, and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096
#define NOINLINE __attribute__((noinline, noclone))

static inline __attribute__((always_inline)) long raw_brk(unsigned long addr)
{
#if defined(__x86_64__)
	long ret;

	asm volatile("syscall" : "=a"(ret) : "0"((long)SYS_brk), "D"(addr)
		     : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 asm("x8") = SYS_brk;
	register long x0 asm("x0") = addr;

	asm volatile("svc #0" : "+r"(x0) : "r"(x8) : "memory");
	return x0;
#else
#error "stacker: raw brk for x86-64 and arm64 only"
#endif
}

static unsigned long heap_top;

/*
 * gcc (12 at least) gives a leaf function no frame, -fno-omit-frame-pointer
 * and -mno-omit-leaf-frame-pointer or not: its caller would then be missing
 * from the chain.  So the functions that fault or call brk call this too.
 */
NOINLINE void not_a_leaf(void)
{
	asm volatile("" ::: "memory");
}

NOINLINE void touch_pages(char *p, long n)
{
	long i;

	for (i = 0; i < n; i++)
		((volatile char *)p)[i * PAGE] = 1;
	not_a_leaf();
}

NOINLINE void fault_a(char *p, long n)
{
	touch_pages(p, n);
	asm volatile("" ::: "memory");	/* no tail call */
}

NOINLINE void fault_b(char *p, long n)
{
	touch_pages(p, n);
	asm volatile("" ::: "memory");
}

NOINLINE void heap_base(void)
{
	heap_top = raw_brk(0);
	not_a_leaf();
}

NOINLINE void grow_heap(void)
{
	unsigned long want = heap_top + PAGE;

	if ((unsigned long)raw_brk(want) != want) {
		fprintf(stderr, "stacker: brk(%#lx) failed\n", want);
		exit(1);
	}
	heap_top = want;
	not_a_leaf();
}

NOINLINE void brk_a(long n)
{
	while (n-- > 0)
		grow_heap();
	asm volatile("" ::: "memory");
}

NOINLINE void brk_b(long n)
{
	while (n-- > 0)
		grow_heap();
	asm volatile("" ::: "memory");
}

/* Fault in the stack the chains use, so none of their faults is the stack's. */
NOINLINE void warm_stack(void)
{
	volatile char pad[64 << 10];

	memset((char *)pad, 0, sizeof(pad));
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	long a, b, na, nb, f0, f1, f2;
	char *p, line[16];

	if (argc != 5) {
		fprintf(stderr, "usage: stacker A B NA NB\n");
		return 2;
	}
	a = atol(argv[1]);
	b = atol(argv[2]);
	na = atol(argv[3]);
	nb = atol(argv[4]);
	p = mmap(NULL, (a + b + 1) * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(p, (a + b + 1) * PAGE, MADV_NOHUGEPAGE);
	warm_stack();
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);

	f0 = minflt();
	fault_a(p, a);
	f1 = minflt();
	fault_b(p + a * PAGE, b);
	f2 = minflt();
	heap_base();
	brk_a(na);
	brk_b(nb);

	printf("minflt_a=%ld minflt_b=%ld\n", f1 - f0, f2 - f1);
	printf("done\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}
