// SPDX-License-Identifier: GPL-2.0
/*
 * bench_read DIR [RUNS]: the cost of reading every file of a memscope
 * directory (all but `control` and the blocking `events`), subdirectories
 * included.  Prints "file NAME ns BYTES" for each file of the median run
 * and "total ns N files N bytes N".
 *
 * bench_read -x RUNS CMD [ARGS...]: the cost of running CMD once (fork,
 * exec, its work, exit), its stdout to /dev/null: "exec ns N cpu_ns N", the
 * medians of elapsed time and of the child's CPU time (user + system from
 * wait4(), which the kernel scales to its precise runtime).  CPU time leaves
 * out the child's sleeps, e.g. `memscope top 1 1` waiting its interval.
 *
 * Under scripts/vm-run --icount, ns are guest instructions.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 64

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static char names[MAX_FILES][128];
static int nfiles;

static void list(const char *dir, const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d)) && nfiles < MAX_FILES) {
		char path[4096];

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "control") ||
		    !strcmp(e->d_name, "events"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			char sub[128];

			if (snprintf(sub, sizeof(sub), "%s%s/", prefix, e->d_name) >= (int)sizeof(sub))
				continue;
			list(path, sub);
			continue;
		}
		if (snprintf(names[nfiles], sizeof(names[0]), "%s%s", prefix, e->d_name) < (int)sizeof(names[0]))
			nfiles++;
	}
	closedir(d);
}

static long long read_one(const char *dir, const char *name, long *bytes)
{
	static char buf[1 << 16];
	char path[4096];
	long long t0 = now_ns();
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY);
	*bytes = 0;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*bytes += n;
	close(fd);
	return now_ns() - t0;
}

static int run_exec(int runs, char **argv)
{
	long long t[16], cpu[16];
	int i;

	runs = runs < 1 ? 1 : runs > 16 ? 16 : runs;
	for (i = 0; i < runs; i++) {
		long long t0 = now_ns();
		struct rusage ru;
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			execvp(argv[0], argv);
			_exit(127);
		}
		wait4(pid, &status, 0, &ru);
		t[i] = now_ns() - t0;
		cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "bench_read: %s failed\n", argv[0]);
			return 1;
		}
	}
	qsort(t, runs, sizeof(t[0]), cmp_ll);
	qsort(cpu, runs, sizeof(cpu[0]), cmp_ll);
	printf("exec ns %lld cpu_ns %lld\n", t[runs / 2], cpu[runs / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	static long long ns[MAX_FILES][16];
	long long tot[16], sorted[16];
	long bytes[MAX_FILES], all = 0;
	int runs, r, i, med = 0;
	const char *dir;

	if (argc > 3 && !strcmp(argv[1], "-x"))
		return run_exec(atoi(argv[2]), argv + 3);
	if (argc < 2) {
		fprintf(stderr, "usage: bench_read DIR [RUNS] | -x RUNS CMD [ARGS...]\n");
		return 2;
	}
	dir = argv[1];
	runs = argc > 2 ? atoi(argv[2]) : 5;
	runs = runs < 1 ? 1 : runs > 16 ? 16 : runs;
	list(dir, "");
	if (!nfiles) {
		fprintf(stderr, "bench_read: nothing to read in %s\n", dir);
		return 1;
	}
	for (r = 0; r < runs; r++) {
		tot[r] = 0;
		for (i = 0; i < nfiles; i++) {
			ns[i][r] = read_one(dir, names[i], &bytes[i]);
			tot[r] += ns[i][r];
		}
	}
	memcpy(sorted, tot, sizeof(tot));
	qsort(sorted, runs, sizeof(sorted[0]), cmp_ll);
	for (r = 0; r < runs; r++)
		if (tot[r] == sorted[runs / 2])
			med = r;
	for (i = 0; i < nfiles; i++) {
		printf("file %s ns %lld bytes %ld\n", names[i], ns[i][med], bytes[i]);
		all += bytes[i];
	}
	printf("total ns %lld files %d bytes %ld\n", tot[med], nfiles, all);
	return 0;
}
