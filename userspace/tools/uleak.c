// SPDX-License-Identifier: GPL-2.0
/*
 * memleak -p PID: one process's outstanding user-space allocations by
 * user stack, as BCC's memleak -p prints them (BPF Performance Tools,
 * 7.3.2), through the module's uprobes (module/uleak.c).
 * Copyright (C) 2026 The memscope authors.
 *
 * The allocator is the first file the process maps that defines malloc
 * (the executable itself if it is linked statically, else its C
 * library); each of its entry points is probed at the file offset its
 * symbol table gives, through /proc/PID/map_files (the very file mapped,
 * in any mount namespace).  The session is the open `uleak` file: it
 * ends, and every uprobe comes off, when this tool ends however it ends.
 * The report comes at each INTERVAL, or once when the process exits or
 * Ctrl-C ends the trace: the allocations still outstanding, by stack,
 * the most bytes first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memscope.h"
#include "parse.h"
#include "symbols.h"

/* module/uleak.c's MS_ULEAK_FUNCS; their arguments are the C library's. */
static const char *const ufuncs[] = {
	"malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign",
	"aligned_alloc", "memalign", "valloc", "pvalloc", "mmap", "munmap",
};
#define NFUNCS (sizeof(ufuncs) / sizeof(ufuncs[0]))

struct allocator {
	char path[4096];	/* as the maps name it */
	char open[128];		/* /proc/PID/map_files/START-END */
	char *names[NFUNCS];	/* --prefix's, else ufuncs' */
	uint64_t off[NFUNCS];	/* 0: not defined there, or not probed */
};

/*
 * Where PID's dynamic linker is mapped (AT_BASE), 0 if none: glibc's
 * before 2.32 exports a malloc of its own, which the program never calls
 * once its C library is loaded.
 */
static unsigned long long interp_base(int64_t pid)
{
	unsigned long long base = 0;
	unsigned long v[2];
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/auxv", pid);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	while (fread(v, sizeof(v), 1, fp) == 1 && v[0])
		if (v[0] == 7)	/* AT_BASE */
			base = v[1];
	fclose(fp);
	return base;
}

/*
 * The first file PID maps that defines NAMES[0] (malloc), and its entry
 * points; 1, quietly, if none does.
 */
static int find_allocator(int64_t pid, struct allocator *a)
{
	char maps[64], line[4352], last[4096] = "";
	unsigned long long interp = interp_base(pid);
	FILE *fp;
	int found = 0;

	snprintf(maps, sizeof(maps), "/proc/%" PRId64 "/maps", pid);
	fp = fopen(maps, "re");
	if (!fp) {
		ms_fail("cannot read %s: %s; is process %" PRId64 " running?", maps, strerror(errno),
			pid);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), fp)) {
		unsigned long long start, end, off, ino;
		char path[4096] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %llu %4095[^\n]", &start, &end, &off, &ino,
			   path) < 4 || !ino || path[0] != '/' || !strcmp(path, last))
			continue;
		snprintf(last, sizeof(last), "%s", path);
		if (start == interp)
			continue;
		snprintf(a->open, sizeof(a->open), "/proc/%" PRId64 "/map_files/%llx-%llx", pid, start,
			 end);
		if (ms_symbols_find(a->open, (const char *const *)a->names, NFUNCS, a->off) < 0) {
			if (errno == ENOTSUP) {
				ms_fail("this memscope was built without libelf (elfutils), and memleak -p finds the allocator by its symbols; install libelf-dev and rebuild");
				fclose(fp);
				return -1;
			}
			continue;
		}
		if (a->off[0]) {
			snprintf(a->path, sizeof(a->path), "%s", path);
			found = 1;
		}
	}
	fclose(fp);
	return found ? 0 : 1;
}

/*
 * -c COMMAND: the command, split at spaces, run stopped at its exec()
 * (ptrace), so that its first allocation is traced: its pid, or -1.
 */
static int64_t start_command(const char *command)
{
	char *copy = ms_xstrdup(command), *argv[64], *save = NULL, *w;
	size_t n = 0;
	int st;
	pid_t pid;

	for (w = strtok_r(copy, " \t", &save); w && n < 63; w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	argv[n] = NULL;
	if (!n) {
		ms_fail("-c needs a command to run");
		free(copy);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		ms_fail("cannot start %s: fork: %s", argv[0], strerror(errno));
		free(copy);
		return -1;
	}
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
			execvp(argv[0], argv);
		fprintf(stderr, "Error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(copy);
	st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFSTOPPED(st)) {
		ms_fail("%s did not start (see its error above)", command);
		if (!WIFEXITED(st) && !WIFSIGNALED(st)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	return pid;
}

/* What a write to the session file failed with, said for a user. */
static void session_error(const char *what, int err, int64_t pid)
{
	switch (err) {
	case EBUSY:
		ms_fail("%s: another memleak -p is tracing a process; memscope traces one at a time, end that one first", what);
		break;
	case ESRCH:
		ms_fail("%s: process %" PRId64 " is gone (or is a kernel thread)", what, pid);
		break;
	case EOPNOTSUPP:
		ms_fail("%s: this kernel cannot run memleak -p (built without CONFIG_UPROBES, or no user stack walker for its architecture: see `memscope status`)", what);
		break;
	default:
		ms_fail("%s: %s", what, strerror(err));
	}
}

static int say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(int fd, const char *fmt, ...)
{
	char buf[4352];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return write(fd, buf, (size_t)n) == n ? 0 : -1;
}

/* The process exited (or is a zombie, its memory gone): its report is final. */
static bool process_gone(int64_t pid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	bool gone = true;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	fp = fopen(path, "re");
	if (!fp)
		return true;
	if (fgets(buf, sizeof(buf), fp) && (p = strrchr(buf, ')')) && p[1] == ' ')
		gone = p[2] == 'Z' || p[2] == 'X';
	fclose(fp);
	return gone;
}

/* The module's uleak_* counters, since load: a report shows the session's. */
static const char *const ustats[] = {
	"uleak_unknown_frees", "uleak_dropped", "uleak_stacks_full", "uleak_threads_full",
	"uleak_lost_calls",
};
#define NUSTATS (sizeof(ustats) / sizeof(ustats[0]))
static uint64_t ubase[NUSTATS];

static uint64_t ustat(const struct ms_counters *st, size_t i)
{
	uint64_t v = ms_stats_val(st, ustats[i]);

	/* Below its start: a `reset` since, which counts from 0 again. */
	return v >= ubase[i] ? v - ubase[i] : v;
}

/* Whether memscope is gone, with the session: said once. */
static bool unloaded(const char *path, int64_t pid)
{
	static bool said;

	if (!access(path, F_OK))
		return false;
	if (!said)
		ms_fail("memscope was unloaded while memleak -p traced process %" PRId64 ": its uprobes and counts went with it; load memscope and run memleak -p again",
			pid);
	said = true;
	return true;
}

/* The device and inode of PID's executable: exec() changes them. */
static bool exe_id(int64_t pid, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/exe", pid);
	if (stat(path, &st))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/* One report, in BCC's layout, the most bytes first. */
static int report(const struct ms_opts *o, int64_t pid, bool final)
{
	uint64_t top = o->has_top ? o->top : 10, shown = 0, total = 0, bytes = 0;
	int callocs, cbytes, coldest, cdepth;
	struct ms_counters st;
	struct ms_rows t;
	struct timeval tv;
	char hms[16], *data;
	size_t len, r, i;

	if (ms_load_stats(&st))
		return 1;
	if (ms_read("uleak_outstanding", &data, &len)) {
		ms_stats_free(&st);
		return 1;
	}
	if (ms_parse_table(data, len, &t)) {
		free(data);
		ms_stats_free(&st);
		ms_fail("%s/uleak_outstanding is malformed, check that the module version matches this CLI (`memscope status`)",
			ms_dir());
		return 1;
	}
	free(data);
	ms_warn_diag("uleak_outstanding", &t.diag);
	callocs = ms_table_col(&t, "allocs");
	cbytes = ms_table_col(&t, "bytes");
	coldest = ms_table_col(&t, "oldest_ms");
	cdepth = ms_table_col(&t, "depth");
	if (callocs < 0 || cbytes < 0 || coldest < 0 || cdepth < 0 || !t.stack) {
		ms_fail("%s/uleak_outstanding has no allocs, bytes, oldest_ms, depth and stack columns, check that the module version matches this CLI (`memscope status`)",
			ms_dir());
		ms_table_free(&t);
		ms_stats_free(&st);
		return 1;
	}
	ms_ustack_files_wait(&t);
	gettimeofday(&tv, NULL);
	ms_fmt_hms(hms, sizeof(hms), tv.tv_sec);
	print_begin_record();
	print_string(PRINT_ANY, "time", "[%s]", hms);
	print_int(PRINT_ANY, "pid", " Process %d:", (int)pid);
	print_uint(PRINT_ANY, "top", " Top %llu stacks with outstanding allocations", top);
	if (o->has_min_age)
		print_uint(PRINT_ANY, "min_age_ms", " (at least %llu ms old)", o->min_age_ms);
	print_bool(PRINT_JSON, "exited", NULL, final);
	print_fp(":\n");
	open_json_array("stacks");
	for (r = 0; r < t.nrows; r++) {
		uint64_t n, b, age, depth;

		if (!ms_table_u64(&t, r, (size_t)callocs, &n) ||
		    !ms_table_u64(&t, r, (size_t)cbytes, &b) ||
		    !ms_table_u64(&t, r, (size_t)coldest, &age) ||
		    !ms_table_u64(&t, r, (size_t)cdepth, &depth))
			continue;
		total += n;
		bytes += b;
		if (shown >= top)
			continue;
		shown++;
		open_json_object(NULL);
		print_uint(PRINT_ANY, "bytes", "\t%llu bytes", b);
		print_uint(PRINT_ANY, "allocs", " in %llu allocations from stack\n", n);
		print_uint(PRINT_JSON, "oldest_ms", NULL, age);
		open_json_array("frames");
		if (!t.stack[r].n)
			print_string(PRINT_ANY, NULL, "\t\t%s\n",
				     "[no stack: memscope's uleak_stacks were all taken]");
		for (i = 0; i < t.stack[r].n; i++) {
			char *line = ms_ustack_frame_line(pid, t.stack[r].ip[i], true);

			print_string(PRINT_ANY, NULL, "\t\t%s\n", line);
			free(line);
		}
		close_json_array();
		close_json_object();
	}
	close_json_array();
	print_uint(PRINT_ANY, "outstanding_allocs", "TOTAL: %llu allocations", total);
	print_uint(PRINT_ANY, "outstanding_bytes", ", %llu bytes outstanding", bytes);
	print_uint(PRINT_ANY, "unknown_frees", ", %llu frees of memory allocated before tracing began\n",
		   ustat(&st, 0));
	{
		uint64_t dropped = ustat(&st, 1), nostack = ustat(&st, 2);
		uint64_t lost = ustat(&st, 3) + ustat(&st, 4);

		print_uint(PRINT_JSON, "dropped", NULL, dropped);
		print_uint(PRINT_JSON, "no_stack", NULL, nostack);
		print_uint(PRINT_JSON, "calls_not_followed", NULL, lost);
		if (dropped)
			print_fp("WARNING: %llu allocation%s not tracked: the outstanding table had no room. Load memscope with a larger uleak_size\n",
				 (unsigned long long)dropped, dropped == 1 ? " was" : "s were");
		if (nostack)
			print_fp("WARNING: %llu allocation%s kept without a stack: the stacks table was full. Load memscope with a larger uleak_stacks\n",
				 (unsigned long long)nostack, nostack == 1 ? " was" : "s were");
		if (lost)
			print_fp("WARNING: %llu allocator call%s not followed (too many threads in the allocator at once, or calls nested too deep): their allocations are missing\n",
				 (unsigned long long)lost, lost == 1 ? " was" : "s were");
	}
	if (o->has_interval)
		print_nl();
	print_end_record();
	ms_table_free(&t);
	ms_stats_free(&st);
	return 0;
}

int ms_memleak_process(const struct ms_opts *o)
{
	struct allocator *a = ms_xcalloc(1, sizeof(*a));
	char *path = NULL;
	int fd = -1, ret = 1, nprobes = 0;
	uint64_t reports = 0;
	int64_t pid = -1, child = 0;
	dev_t exe_dev = 0, dev;
	ino_t exe_ino = 0, ino;
	double next;
	int r = 1;
	void *pre = NULL;
	size_t i, j, k;
	bool gone = false;

	if (o->netlink) {
		ms_fail("memleak -p holds the module's uleak file open for as long as it traces, which netlink does not carry: run it without --netlink");
		goto out;
	}
	if (o->kept) {
		ms_fail("--kept shows what the kernel's memleak kept; memleak -p and -c trace a process only while they run");
		goto out;
	}
	for (i = 0; i < NFUNCS; i++)
		a->names[i] = ms_xasprintf("%s%s", o->prefix ? o->prefix : "", ufuncs[i]);
	if (o->command) {
		if (o->prefix) {
			ms_fail("--prefix and -c: the allocator a prefix names is mapped only once the program runs; start it, then memleak -p PID --prefix %s",
				o->prefix);
			goto out;
		}
		pid = start_command(o->command);
		if (pid < 0)
			goto out;
		/* Static, its own; else the C library, not mapped yet: this one's. */
		r = find_allocator(pid, a);
		if (r > 0)
			r = find_allocator(getpid(), a);
	} else {
		if (o->pid <= 0) {
			ms_fail("-p takes a process ID, not %" PRId64, o->pid);
			goto out;
		}
		pid = o->pid;
		r = find_allocator(pid, a);
	}
	if (r > 0)
		ms_fail("process %" PRId64 " maps no file whose symbol table defines %s: it may have exited, be a static executable stripped of its symbols, or use an allocator memleak -p does not know (--prefix names another)",
			pid, a->names[0]);
	if (r)
		goto out;
	if (o->prefix) {
		/* mmap and munmap stay the C library's: not the prefixed allocator's. */
		a->off[10] = a->off[11] = 0;
	}
	path = ms_path("uleak");
	fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		if (errno == ENOENT)
			ms_fail("%s/uleak is missing: this memscope module predates memleak -p; load one built from this CLI's sources",
				ms_dir());
		else
			ms_fail("cannot open %s: %s", path ? path : "uleak", strerror(errno));
		goto out;
	}
	/* Its files' unwind tables first: the first allocations' stacks need them. */
	pre = ms_ustack_preload_start();
	{
		struct ms_counters st;

		if (ms_load_stats(&st))
			goto out;
		for (i = 0; i < NUSTATS; i++)
			ubase[i] = ms_stats_val(&st, ustats[i]);
		ms_stats_free(&st);
	}
	if (say(fd, "pid %" PRId64, pid)) {
		session_error("cannot start tracing", errno, pid);
		goto out;
	}
	if (o->has_min_age && say(fd, "age %" PRIu64, o->min_age_ms)) {
		session_error("cannot set -o", errno, pid);
		goto out;
	}
	if (o->sample_rate > 1 && say(fd, "rate %" PRIu64, o->sample_rate)) {
		session_error("cannot set -s", errno, pid);
		goto out;
	}
	/*
	 * Frees first, then realloc, then the allocators: each registration
	 * stops the process a moment, and a block allocated under a probe
	 * whose free is not probed yet would be a leak that is not one.
	 */
	for (k = 0; k < NFUNCS; k++) {
		static const unsigned char order[NFUNCS] = { 4, 11, 2, 3, 0, 1, 5, 6, 7, 8, 9, 10 };

		i = order[k];
		if (!a->off[i])
			continue;
		/* One function under two names (glibc's memalign and aligned_alloc): probed once. */
		for (j = 0; j < i && a->off[j] != a->off[i]; j++)
			;
		if (j < i)
			continue;
		if (say(fd, "probe %s %#" PRIx64 " %s", a->open, a->off[i], ufuncs[i])) {
			int err = errno;
			char *what = ms_xasprintf("cannot probe %s in %s", a->names[i], a->path);

			session_error(what, err, pid);
			free(what);
			goto out;
		}
		nprobes++;
	}
	if (!o->json && o->sample_rate > 1)
		fprintf(stderr, "Tracing %d allocator functions of %s in process %" PRId64 ", 1 in %" PRIu64 " allocations (counts not scaled). Hit Ctrl-C to end.\n",
			nprobes, a->path, pid, o->sample_rate);
	else if (!o->json)
		fprintf(stderr, "Tracing %d allocator functions of %s in process %" PRId64 ". Hit Ctrl-C to end.\n",
			nprobes, a->path, pid);
	exe_id(pid, &exe_dev, &exe_ino);
	/* -c: the program runs from here, its C library's breakpoints set as it is mapped. */
	if (o->command && ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL)) {
		ms_fail("cannot let %s run: ptrace: %s", o->command, strerror(errno));
		goto out;
	}
	child = o->command ? pid : 0;
	next = ms_now_mono() + (o->has_interval ? o->interval : 0);
	while (!ms_stop) {
		nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
		if (ms_stop)
			break;
		if (unloaded(path, pid))
			goto out;
		ms_ustack_preload_tick(pre);
		gone = child ? waitpid((pid_t)child, NULL, WNOHANG) == child : process_gone(pid);
		if (gone)
			break;
		if (!exe_id(pid, &dev, &ino)) {
			gone = !child || waitpid((pid_t)child, NULL, 0) == child;
			break;
		}
		if (dev != exe_dev || ino != exe_ino) {
			/* Its new image has a new address space, which no breakpoint names. */
			print_warn("process %" PRId64 " ran exec(): what it allocates now is not traced; the report below is its old image's",
				   pid);
			break;
		}
		if (o->has_interval && ms_now_mono() >= next) {
			if (unloaded(path, pid) || report(o, pid, false)) {
				unloaded(path, pid);
				goto out;
			}
			next += o->interval;
			if (o->count && ++reports >= o->count) {
				ret = 0;
				goto out;
			}
		}
	}
	ret = unloaded(path, pid) || report(o, pid, gone);
	if (ret)
		unloaded(path, pid);
	if (!ret && gone && !o->json)
		fprintf(stderr, "Process %" PRId64 " exited: the allocations above were never freed.\n",
			pid);
out:
	if (pid > 0 && o->command && !child) {
		/* Set up failed before it ran: it never will. */
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, 0);
	}
	for (i = 0; i < NFUNCS; i++)
		free(a->names[i]);
	if (pre)
		ms_ustack_preload_end(pre);
	if (fd >= 0)
		close(fd);
	free(path);
	free(a);
	return ret;
}
