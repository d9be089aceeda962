/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal test harness in the shape of the kernel's kselftest_harness.h:
 * TEST(name) { ... ASSERT_EQ(a, b); ... }, each test in its own child
 * process, TAP 13 on stdout, exit 0 (all passed), 1 (a failure) or 4 (all
 * skipped).  SKIP(return, "why") ends a test as a skip, never a pass.
 */
#ifndef MS_HARNESS_H
#define MS_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 4

struct ms_test {
	const char *name;
	void (*fn)(void);
	int line;
};

#define MS_MAX_TESTS 64
static struct ms_test ms_tests[MS_MAX_TESTS];
static int ms_ntests;

static inline void ms_test_register(const char *name, void (*fn)(void), int line)
{
	if (ms_ntests < MS_MAX_TESTS)
		ms_tests[ms_ntests++] = (struct ms_test){ name, fn, line };
}

#define TEST(name)							\
	static void name(void);						\
	__attribute__((constructor)) static void name##_register(void)	\
	{ ms_test_register(#name, name, __LINE__); }			\
	static void name(void)

#define TH_LOG(fmt, ...) printf("# " fmt "\n", ##__VA_ARGS__)

#define ASSERT_OP(a, op, b) do {					\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (!(__a op __b)) {						\
		printf("# %s:%d: expected %s (%lld) %s %s (%lld)\n",	\
		       __FILE__, __LINE__, #a, __a, #op, #b, __b);	\
		fflush(stdout);						\
		_exit(KSFT_FAIL);					\
	}								\
} while (0)
#define ASSERT_EQ(a, b) ASSERT_OP(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_OP(a, !=, b)
#define ASSERT_GE(a, b) ASSERT_OP(a, >=, b)
#define ASSERT_GT(a, b) ASSERT_OP(a, >, b)
#define ASSERT_TRUE(a) ASSERT_OP(!!(a), ==, 1)
#define ASSERT_STREQ(a, b) do {						\
	const char *__a = (a), *__b = (b);				\
	if (strcmp(__a, __b)) {						\
		printf("# %s:%d: expected %s == %s:\n# got:  %s\n# want: %s\n", \
		       __FILE__, __LINE__, #a, #b, __a, __b);		\
		fflush(stdout);						\
		_exit(KSFT_FAIL);					\
	}								\
} while (0)
#define SKIP(statement, fmt, ...) do {					\
	printf("# SKIP " fmt "\n", ##__VA_ARGS__);			\
	fflush(stdout);							\
	_exit(KSFT_SKIP);						\
} while (0)

static int ms_test_cmp(const void *a, const void *b)
{
	return ((const struct ms_test *)a)->line - ((const struct ms_test *)b)->line;
}

/* Run every test, or those named in argv, in the order they are written. */
static inline int ms_test_main(int argc, char **argv)
{
	int i, j, n = 0, failed = 0, skipped = 0;

	qsort(ms_tests, ms_ntests, sizeof(ms_tests[0]), ms_test_cmp);
	for (i = 0; i < ms_ntests; i++)
		for (j = 1, ms_tests[i].line = argc < 2 ? 1 : 0; j < argc; j++)
			if (!strcmp(argv[j], ms_tests[i].name))
				ms_tests[i].line = 1;
	for (i = 0; i < ms_ntests; i++)
		n += ms_tests[i].line;
	printf("TAP version 13\n1..%d\n", n);
	for (i = 0, n = 0; i < ms_ntests; i++) {
		int status;
		pid_t pid;

		if (!ms_tests[i].line)
			continue;
		printf("# RUN %s\n", ms_tests[i].name);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			ms_tests[i].fn();
			fflush(stdout);
			_exit(KSFT_PASS);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			status = KSFT_FAIL << 8;
		n++;
		switch (WEXITSTATUS(status)) {
		case KSFT_PASS:
			printf("ok %d %s\n", n, ms_tests[i].name);
			break;
		case KSFT_SKIP:
			printf("ok %d %s # SKIP\n", n, ms_tests[i].name);
			skipped++;
			break;
		default:
			printf("not ok %d %s\n", n, ms_tests[i].name);
			failed++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%d fail:%d skip:%d\n", n - failed - skipped, failed, skipped);
	return failed ? KSFT_FAIL : skipped == n ? KSFT_SKIP : KSFT_PASS;
}

#define TEST_HARNESS_MAIN \
	int main(int argc, char **argv) { return ms_test_main(argc, argv); }

#endif /* MS_HARNESS_H */
