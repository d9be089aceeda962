// SPDX-License-Identifier: GPL-2.0
/*
 * analyze: the memory analysis strategy of BPF Performance Tools, section
 * 7.1.3, as one report.  Two snapshots DURATION seconds apart of /proc
 * (vmstat, meminfo, PSI, each process's stat, the kernel log) and, when
 * the module is there, of its stats and tables; then, in the book's order,
 * one section per step, each ending with a one-line finding, and the one
 * or two findings that matter most.  Without the module the /proc parts
 * still run, and the report says what it could not see.
 *
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "memscope.h"
#include "nl.h"

#define AN_TOP		5
#define AN_MAX_PROCS	65536
#define AN_MAX_CG	4096

/* How much a finding matters: the closing lines pick the highest. */
enum { SEV_OK, SEV_NOTE, SEV_WARN, SEV_BAD };

struct an_proc {
	int pid;
	unsigned long long start;	/* starttime: tells a reused pid */
	char comm[32];
	uint64_t faults, rss_kb;
};

struct an_cg {
	char *path;
	uint64_t full_us, some_us;
};

struct an_snap {
	double t;
	struct ms_counters vm;		/* /proc/vmstat */
	uint64_t mem_total_kb, mem_avail_kb, swap_total_kb, swap_free_kb;
	bool psi;
	bool psi_memscope;		/* from memscope's pressure: the kernel has none */
	uint64_t psi_some_us, psi_full_us;
	double psi_some10, psi_full10;
	struct an_proc *procs;
	size_t nprocs;
	struct an_cg *cgs;
	size_t ncgs;
	/* the module's */
	struct ms_counters st;
	struct ms_keyed by_pid, by_file, swapins;
	struct ms_buckets swres;		/* hist_raw/swap_residency_ns */
	bool have_swres;
	struct ms_rows leak;
	bool have_leak;
	bool leak_bad;			/* memleak there but unreadable */
	struct ms_records oom;
};

struct an_finding {
	int sev;
	char text[256];
};

struct an_ctx {
	const struct ms_opts *o;
	double dur;
	bool module;
	const char *no_module;		/* why not */
	struct an_finding f[8];
	int nf;
};

/* ---------------------------------------------------------------- reading */

static int slurp(const char *path, char **data, size_t *len)
{
	FILE *fp = fopen(path, "re");
	size_t cap = 0, n = 0, r;
	char *buf = NULL, *nb;

	if (!fp)
		return -errno;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(fp);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

/* "Name: value kB" from /proc/meminfo */
static uint64_t meminfo(const char *data, const char *key)
{
	size_t n = strlen(key);
	const char *p = data;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* some/full totals (us) and avg10 (%) of a PSI file */
static bool psi_read(const char *path, uint64_t *some, uint64_t *full, double *s10, double *f10)
{
	struct ms_psi p;
	char *data;
	size_t len;
	int ret;

	if (slurp(path, &data, &len))
		return false;
	ret = ms_parse_psi(data, len, &p);
	free(data);
	if (ret)
		return false;
	*some = p.total_us[0];
	*full = p.total_us[1];
	if (s10) {
		*s10 = p.avg[0][0];
		*f10 = p.avg[1][0];
	}
	return true;
}

/*
 * Where the kernel has no PSI (before 4.20, CONFIG_PSI off, psi=0):
 * memscope's own, by PSI's definitions, while its probes are on.
 */
static bool psi_read_memscope(struct an_snap *s)
{
	struct ms_psi p;

	if (ms_load_pressure(&p))
		return false;
	s->psi_some_us = p.total_us[0];
	s->psi_full_us = p.total_us[1];
	s->psi_some10 = p.avg[0][0];
	s->psi_full10 = p.avg[1][0];
	return true;
}

static void read_procs(struct an_snap *s)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t cap = 0;

	if (!d)
		return;
	while ((de = readdir(d)) && s->nprocs < AN_MAX_PROCS) {
		char path[300], buf[1024], *rp;
		unsigned long long minflt, majflt, start;
		long rss;
		struct an_proc *p;
		ssize_t n;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		rp = strrchr(buf, ')');
		if (!rp || !strchr(buf, '('))
			continue;
		/* after "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt */
		if (sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu %*u %ld",
			   &minflt, &majflt, &start, &rss) != 4)
			continue;
		if (s->nprocs == cap) {
			struct an_proc *np;

			cap = cap ? cap * 2 : 256;
			np = realloc(s->procs, cap * sizeof(*np));
			if (!np)
				break;
			s->procs = np;
		}
		p = &s->procs[s->nprocs++];
		p->pid = atoi(de->d_name);
		p->start = start;
		p->faults = minflt + majflt;
		p->rss_kb = rss > 0 ? (uint64_t)rss * page_kb : 0;
		*rp = '\0';
		snprintf(p->comm, sizeof(p->comm), "%s", strchr(buf, '(') + 1);
	}
	closedir(d);
}

/* Every cgroup with a memory.pressure file, down to depth 4. */
static void read_cgroups(struct an_snap *s, const char *dir, int depth)
{
	struct dirent *de;
	char path[4096];
	uint64_t some, full;
	DIR *d;

	if (s->ncgs >= AN_MAX_CG)
		return;
	snprintf(path, sizeof(path), "%s/memory.pressure", dir);
	if (depth > 0 && psi_read(path, &some, &full, NULL, NULL)) {
		struct an_cg *n = realloc(s->cgs, (s->ncgs + 1) * sizeof(*n));

		if (!n)
			return;
		s->cgs = n;
		n[s->ncgs].path = ms_xstrdup(!strncmp(dir, "/sys/fs/cgroup/unified", 22) ?
					     dir + 22 : dir + strlen("/sys/fs/cgroup"));
		n[s->ncgs].some_us = some;
		n[s->ncgs].full_us = full;
		s->ncgs++;
	}
	if (depth >= 4 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		read_cgroups(s, path, depth + 1);
	}
	closedir(d);
}

static int snap_take(struct an_ctx *c, struct an_snap *s)
{
	static const char *const fcols[] = { "faults" };
	static const char *const scols[] = { "swapins" };
	char *data;
	size_t len;
	int leak;

	memset(s, 0, sizeof(*s));
	s->t = ms_now_mono();
	if (slurp("/proc/vmstat", &data, &len)) {
		print_error("cannot read /proc/vmstat: %s", strerror(errno));
		return -1;
	}
	ms_parse_stats(data, len, &s->vm);
	free(data);
	if (!slurp("/proc/meminfo", &data, &len)) {
		s->mem_total_kb = meminfo(data, "MemTotal");
		s->mem_avail_kb = meminfo(data, "MemAvailable");
		s->swap_total_kb = meminfo(data, "SwapTotal");
		s->swap_free_kb = meminfo(data, "SwapFree");
		free(data);
	}
	s->psi = psi_read("/proc/pressure/memory", &s->psi_some_us, &s->psi_full_us,
			  &s->psi_some10, &s->psi_full10);
	read_procs(s);
	/* cgroup2: the root, or /sys/fs/cgroup/unified on a hybrid v1 host. */
	read_cgroups(s, access("/sys/fs/cgroup/cgroup.controllers", F_OK) &&
			!access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK) ?
			"/sys/fs/cgroup/unified" : "/sys/fs/cgroup", 0);
	if (!c->module)
		return 0;
	if (!s->psi)
		s->psi = s->psi_memscope = psi_read_memscope(s);
	if (ms_load_stats(&s->st))
		return -1;
	if (ms_keyed_load("faults_by_pid", "pid", "comm", fcols, 1, &s->by_pid) ||
	    ms_keyed_load("faults_by_file", "file", NULL, fcols, 1, &s->by_file) ||
	    ms_keyed_load("swapins_by_pid", "pid", "comm", scols, 1, &s->swapins))
		return -1;
	s->have_swres = !ms_load_hist("swap_residency_ns", &s->swres, true);
	leak = ms_load_table_optional("memleak", &s->leak);
	s->have_leak = leak == 0;
	s->leak_bad = leak < 0;	/* over netlink; a malformed file is said and left out */
	/* Everything the report prints is read before it starts printing. */
	if (ms_load_ring("oom", &s->oom, true) < 0)
		return -1;
	return 0;
}

static void snap_free(struct an_snap *s)
{
	size_t i;

	ms_stats_free(&s->vm);
	ms_stats_free(&s->st);
	ms_keyed_free(&s->by_pid);
	ms_keyed_free(&s->by_file);
	ms_keyed_free(&s->swapins);
	if (s->have_leak)
		ms_table_free(&s->leak);
	ms_ring_free(&s->oom);
	free(s->procs);
	for (i = 0; i < s->ncgs; i++)
		free(s->cgs[i].path);
	free(s->cgs);
}

/* ------------------------------------------------------------ reporting */

static uint64_t vm_delta(const struct an_snap *a, const struct an_snap *b, const char *key)
{
	uint64_t x = ms_stats_val(&a->vm, key), y = ms_stats_val(&b->vm, key);

	return y > x ? y - x : 0;
}

/* The sum of /proc/vmstat counters starting with prefix. */
static uint64_t vm_sum(const struct an_snap *s, const char *prefix)
{
	uint64_t sum = 0;
	size_t i, n = strlen(prefix);

	for (i = 0; i < s->vm.n; i++)
		if (!strncmp(s->vm.v[i].key, prefix, n))
			sum += s->vm.v[i].value;
	return sum;
}

static uint64_t st_delta(const struct an_snap *a, const struct an_snap *b, const char *key)
{
	return ms_stat_delta(&b->st, &a->st, key);
}

static void section(int n, const char *name, const char *key)
{
	print_fp("\n%d. %s\n", n, name);
	open_json_object(key);
}

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (print_is_json())
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	print_fp("   %s\n", buf);
}

static void finding(struct an_ctx *c, int sev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void finding(struct an_ctx *c, int sev, const char *fmt, ...)
{
	struct an_finding *f = &c->f[c->nf < 8 ? c->nf++ : 7];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	f->sev = sev;
	print_string(PRINT_ANY, "finding", "   => %s\n", f->text);
	print_uint(PRINT_JSON, "severity", NULL, (uint64_t)sev);
	close_json_object();
}

/* The kernel log's OOM lines: how many "Killed process", and the last. */
static int kmsg_ooms(char *last, size_t size, int *err)
{
	char buf[8192];
	int fd, n = 0;
	ssize_t r;

	*last = '\0';
	*err = 0;
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	for (;;) {
		char *msg;

		r = read(fd, buf, sizeof(buf) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (r <= 0)
			break;
		buf[r] = '\0';
		msg = strchr(buf, ';');
		if (!msg)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = '\0';
		if (strstr(msg, "Killed process")) {
			n++;
			snprintf(last, size, "%s", msg);
		}
	}
	close(fd);
	return n;
}

static const char *rec(const struct ms_record *r, const char *key)
{
	const char *v = ms_rec_get(r, key);

	return v ? v : "-";
}

static void sec_oom(struct an_ctx *c, const struct an_snap *a, const struct an_snap *b)
{
	const char *since = "since boot";
	uint64_t total = 0, now = 0, x;
	char klast[512];
	const struct ms_record *r = NULL;
	int kerr, kn;

	section(1, "OOM kills", "oom");
	if (ms_stats_get(&b->vm, "oom_kill", &total)) {
		now = vm_delta(a, b, "oom_kill");
		print_uint(PRINT_ANY, "kills_since_boot", "   since boot: %llu (vmstat oom_kill)", total);
		print_uint(PRINT_ANY, "kills", ", in these seconds: %llu\n", now);
	} else if (c->module) {
		/* Before 4.13 the kernel counts no kills: memscope's count. */
		since = "since memscope was loaded";
		total = ms_stats_val(&b->st, "oom_kills");
		x = ms_stats_val(&a->st, "oom_kills");
		now = total > x ? total - x : 0;
		print_uint(PRINT_ANY, "kills_since_load",
			   "   no vmstat oom_kill (Linux 4.13+); since memscope was loaded: %llu (oom_kills)", total);
		print_uint(PRINT_ANY, "kills", ", in these seconds: %llu\n", now);
	} else {
		since = NULL;
		line("no vmstat oom_kill (Linux 4.13+): kills are counted by the module only");
	}
	if (c->module && b->oom.n) {
		r = &b->oom.v[b->oom.n - 1];
		print_string(PRINT_ANY, "last_victim", "   last (memscope): %s", rec(r, "victim_comm"));
		print_num_str(PRINT_ANY, "last_victim_pid", " (pid %s)", rec(r, "victim_pid"));
		print_string(PRINT_ANY, "last_memcg", " in memcg %s", rec(r, "memcg"));
		print_num_str(PRINT_ANY, "last_anon_rss_kb", ", anon-rss %s kB\n", rec(r, "anon_rss_kb"));
	}
	kn = kmsg_ooms(klast, sizeof(klast), &kerr);
	if (kn < 0) {
		line("kernel log: cannot read /dev/kmsg (%s)%s", strerror(kerr),
		     kerr == EPERM || kerr == EACCES ? ", needs root" : "");
		print_string(PRINT_JSON, "kernel_log_error", NULL, strerror(kerr));
	} else {
		if (kn)
			line("kernel log: %d \"Killed process\" lines; last: %s", kn, klast);
		else
			line("kernel log: no \"Killed process\" line");
		print_uint(PRINT_JSON, "kernel_log_kills", NULL, (uint64_t)kn);
		if (kn)
			print_string(PRINT_JSON, "kernel_log_last", NULL, klast);
	}
	if (!c->module)
		line("victim details need the module (oom file)");
	if (now) {
		if (r)
			finding(c, SEV_BAD, "the OOM killer killed %llu task(s) in %.1f s, last %s (pid %s) in memcg %s: memory exhausted",
				(unsigned long long)now, c->dur, rec(r, "victim_comm"),
				rec(r, "victim_pid"), rec(r, "memcg"));
		else
			finding(c, SEV_BAD, "the OOM killer killed %llu task(s) in %.1f s: memory exhausted",
				(unsigned long long)now, c->dur);
	} else if (total) {
		finding(c, SEV_NOTE, "%llu OOM kill(s) %s, none in these %.1f s",
			(unsigned long long)total, since, c->dur);
	} else if (since) {
		finding(c, SEV_OK, "no OOM kill %s", since);
	} else if (kn > 0) {
		finding(c, SEV_NOTE, "the kernel log has %d OOM kill(s); no counter to place them in time", kn);
	} else {
		finding(c, SEV_OK, "no OOM kill in the kernel log");
	}
}

static void sec_swap(struct an_ctx *c, const struct an_snap *a, const struct an_snap *b)
{
	uint64_t in = vm_delta(a, b, "pswpin"), out = vm_delta(a, b, "pswpout");
	char *data = NULL, *p;
	size_t len, ndev = 0;

	section(2, "Swap", "swap");
	open_json_array("devices");
	if (!slurp("/proc/swaps", &data, &len)) {
		p = strchr(data, '\n');
		while (p && *++p) {
			char name[256], type[32];
			unsigned long long size, used;

			if (sscanf(p, "%255s %31s %llu %llu", name, type, &size, &used) == 4) {
				open_json_object(NULL);
				print_string(PRINT_ANY, "device", "   %s", name);
				print_string(PRINT_ANY, "type", " (%s)", type);
				print_uint(PRINT_ANY, "used_kb", ": %llu", used);
				print_uint(PRINT_ANY, "size_kb", " of %llu kB used\n", size);
				close_json_object();
				ndev++;
			}
			p = strchr(p, '\n');
		}
		free(data);
	}
	close_json_array();
	print_float(PRINT_ANY, "swapin_pages_per_s", "   swap-ins %.1f pages/s", in / c->dur);
	print_float(PRINT_ANY, "swapout_pages_per_s", ", swap-outs %.1f pages/s (pswpin, pswpout)\n", out / c->dur);
	if (c->module && b->swapins.n) {
		struct ms_keyed d;
		size_t i;

		open_json_array("swapins_by_pid");
		if (!ms_keyed_delta(&b->swapins, &a->swapins, 0, &d)) {
			for (i = 0; i < d.n && i < 3; i++) {
				open_json_object(NULL);
				print_string(PRINT_ANY, "comm", "   swap-ins by %s", d.rows[i].label);
				print_num_str(PRINT_ANY, "pid", " (pid %s)", d.rows[i].key);
				print_uint(PRINT_ANY, "swapins", ": %llu\n", d.rows[i].v[0]);
				close_json_object();
			}
			ms_keyed_free(&d);
		}
		close_json_array();
	}
	if (c->module && a->have_swres && b->have_swres) {
		struct ms_buckets d;
		uint64_t lo, hi;
		char l[16], h[16];
		int m;

		ms_hist_delta(&b->swres, &a->swres, &d);
		m = ms_hist_median_slot(&d);
		if (m >= 0) {
			lo = memscope_hist_lo(m);
			hi = memscope_hist_hi(m);
			ms_fmt_ns(l, sizeof(l), lo);
			ms_fmt_ns(h, sizeof(h), hi == UINT64_MAX ? hi : hi + 1);
			print_uint(PRINT_ANY, "swap_residency_count", "   %llu pages read back", d.count);
			print_string(PRINT_FP, NULL, " had been in swap a median %s", l);
			print_string(PRINT_FP, NULL, "..%s (memscope swapin --residency)\n", h);
			print_uint(PRINT_JSON, "swap_residency_median_min_ns", NULL, lo);
			print_uint(PRINT_JSON, "swap_residency_median_max_ns", NULL, hi);
		}
	}
	if (!ndev)
		finding(c, SEV_OK, "no swap device");
	else if (in)
		finding(c, SEV_WARN, "swapping: %.1f pages/s in, %.1f out: tasks wait for swap-ins",
			in / c->dur, out / c->dur);
	else if (out)
		finding(c, SEV_NOTE, "pages going out to swap (%.1f/s), none coming back yet", out / c->dur);
	else
		finding(c, SEV_OK, "no swap activity");
}

static int cg_cmp(const void *x, const void *y)
{
	const struct an_cg *a = x, *b = y;

	return a->full_us < b->full_us ? 1 : a->full_us > b->full_us ? -1 : 0;
}

static void sec_memory(struct an_ctx *c, const struct an_snap *a, const struct an_snap *b)
{
	double avail = b->mem_total_kb ? 100.0 * b->mem_avail_kb / b->mem_total_kb : 0;
	double some = 0, full = 0;
	struct an_cg *d = NULL;
	size_t i, j, nd = 0;

	section(3, "Free memory and pressure", "memory");
	print_uint(PRINT_ANY, "total_kb", "   total %llu kB", b->mem_total_kb);
	print_uint(PRINT_ANY, "available_kb", ", available %llu kB", b->mem_avail_kb);
	print_float(PRINT_ANY, "available_pct", " (%.1f%%)\n", avail);
	print_bool(PRINT_JSON, "psi", NULL, b->psi);
	print_string(PRINT_JSON, "psi_source", NULL,
		     b->psi_memscope ? "memscope" : b->psi ? "kernel" : "none");
	if (b->psi) {
		some = 100.0 * (b->psi_some_us - a->psi_some_us) / 1e6 / c->dur;
		full = 100.0 * (b->psi_full_us - a->psi_full_us) / 1e6 / c->dur;
		print_float(PRINT_ANY, "psi_some_pct", b->psi_memscope ?
			    "   pressure (memscope's, PSI's definitions): some tasks stalled %.1f%%" :
			    "   PSI: some tasks stalled %.1f%%", some);
		print_float(PRINT_ANY, "psi_full_pct", ", all stalled %.1f%% of these seconds", full);
		print_float(PRINT_ANY, "psi_some_avg10", " (avg10 some %.2f", b->psi_some10);
		print_float(PRINT_ANY, "psi_full_avg10", ", full %.2f)\n", b->psi_full10);
		/* Cgroups in both snapshots, by their full stall time in between. */
		d = calloc(b->ncgs ? b->ncgs : 1, sizeof(*d));
		for (i = 0; d && i < b->ncgs; i++)
			for (j = 0; j < a->ncgs; j++)
				if (!strcmp(a->cgs[j].path, b->cgs[i].path)) {
					/* Removed and made again in between: not comparable. */
					if (b->cgs[i].some_us < a->cgs[j].some_us ||
					    b->cgs[i].full_us < a->cgs[j].full_us)
						break;
					d[nd].path = b->cgs[i].path;
					d[nd].full_us = b->cgs[i].full_us - a->cgs[j].full_us;
					d[nd].some_us = b->cgs[i].some_us - a->cgs[j].some_us;
					if (d[nd].some_us)
						nd++;
					break;
				}
		qsort(d, nd, sizeof(*d), cg_cmp);
		open_json_array("cgroups");
		for (i = 0; i < nd && i < 3; i++) {
			open_json_object(NULL);
			print_string(PRINT_ANY, "cgroup", "   cgroup %s:", d[i].path);
			print_float(PRINT_ANY, "some_ms", " some %.0f ms", d[i].some_us / 1e3);
			print_float(PRINT_ANY, "full_ms", ", full %.0f ms stalled\n", d[i].full_us / 1e3);
			close_json_object();
		}
		close_json_array();
	} else {
		line("PSI: no /proc/pressure/memory (Linux 4.20+, CONFIG_PSI, psi=1), "
		     "and memscope's pressure probes are off or unavailable (memscope status)");
	}
	if (!b->mem_total_kb)
		finding(c, SEV_OK, "no MemTotal in /proc/meminfo");
	else if (avail < 5)
		finding(c, SEV_BAD, "%.1f%% of memory available: nearly exhausted", avail);
	else if (full >= 10)
		finding(c, SEV_WARN, "all tasks stalled on memory %.0f%% of the time (PSI full): memory pressure", full);
	else if (some >= 10 || (nd && d[0].full_us >= 100000))
		finding(c, SEV_WARN, "tasks stalled on memory%s%s %.0f%% of the time (PSI some): memory pressure",
			nd ? ", most in cgroup " : "", nd ? d[0].path : "", some);
	else if (avail < 15)
		finding(c, SEV_NOTE, "%.1f%% of memory available", avail);
	else
		finding(c, SEV_OK, "%.0f%% of memory available, %.1f%% stalled on it", avail, some);
	free(d);
}

static int proc_cmp_rss(const void *x, const void *y)
{
	const struct an_proc *a = x, *b = y;

	return a->rss_kb < b->rss_kb ? 1 : a->rss_kb > b->rss_kb ? -1 : 0;
}

static int proc_cmp_faults(const void *x, const void *y)
{
	const struct an_proc *a = x, *b = y;

	return a->faults < b->faults ? 1 : a->faults > b->faults ? -1 : 0;
}

static int proc_cmp_pid(const void *x, const void *y)
{
	const struct an_proc *a = x, *b = y;

	return (a->pid > b->pid) - (a->pid < b->pid);
}

static void sec_procs(struct an_ctx *c, struct an_snap *a, struct an_snap *b)
{
	struct an_proc *d;
	size_t i, nd = 0;

	section(4, "Processes", "processes");
	qsort(b->procs, b->nprocs, sizeof(*b->procs), proc_cmp_rss);
	line("by resident memory:");
	open_json_array("by_rss");
	for (i = 0; i < b->nprocs && i < AN_TOP; i++) {
		open_json_object(NULL);
		print_int(PRINT_ANY, "pid", "   %8lld", b->procs[i].pid);
		print_string(PRINT_ANY, "comm", " %-16s", b->procs[i].comm);
		print_uint(PRINT_ANY, "rss_kb", " rss %llu kB\n", b->procs[i].rss_kb);
		close_json_object();
	}
	close_json_array();
	/* Faults in between: memscope's table counts processes that exited too. */
	line("by page faults in these %.1f s:", c->dur);
	open_json_array("by_faults");
	if (c->module) {
		struct ms_keyed k;

		if (!ms_keyed_delta(&b->by_pid, &a->by_pid, 0, &k)) {
			for (i = 0; i < k.n && i < AN_TOP; i++) {
				open_json_object(NULL);
				print_num_str(PRINT_ANY, "pid", "   %8s", k.rows[i].key);
				print_string(PRINT_ANY, "comm", " %-16s", k.rows[i].label);
				print_float(PRINT_ANY, "faults_per_s", " %.0f faults/s\n", k.rows[i].v[0] / c->dur);
				close_json_object();
			}
			ms_keyed_free(&k);
		}
	} else {
		d = calloc(b->nprocs ? b->nprocs : 1, sizeof(*d));
		qsort(a->procs, a->nprocs, sizeof(*a->procs), proc_cmp_pid);
		for (i = 0; d && i < b->nprocs; i++) {
			const struct an_proc *was = bsearch(&b->procs[i], a->procs, a->nprocs,
							    sizeof(*a->procs), proc_cmp_pid);

			/* The same process: a reused pid has another start time. */
			if (!was || was->start != b->procs[i].start || b->procs[i].faults <= was->faults)
				continue;
			d[nd] = b->procs[i];
			d[nd++].faults -= was->faults;
		}
		qsort(d, nd, sizeof(*d), proc_cmp_faults);
		for (i = 0; i < nd && i < AN_TOP; i++) {
			open_json_object(NULL);
			print_int(PRINT_ANY, "pid", "   %8lld", d[i].pid);
			print_string(PRINT_ANY, "comm", " %-16s", d[i].comm);
			print_float(PRINT_ANY, "faults_per_s", " %.0f faults/s\n", d[i].faults / c->dur);
			close_json_object();
		}
		free(d);
		line("(from /proc/PID/stat: processes that exited in between are not seen; the module sees them)");
	}
	close_json_array();
	if (b->nprocs && b->mem_total_kb && b->procs[0].rss_kb * 2 > b->mem_total_kb)
		finding(c, SEV_NOTE, "%s (pid %d) holds %.0f%% of memory", b->procs[0].comm,
			b->procs[0].pid, 100.0 * b->procs[0].rss_kb / b->mem_total_kb);
	else if (b->nprocs)
		finding(c, SEV_OK, "largest process %s (pid %d), %llu kB resident", b->procs[0].comm,
			b->procs[0].pid, (unsigned long long)b->procs[0].rss_kb);
	else
		finding(c, SEV_OK, "no process readable in /proc");
}

static void sec_files(struct an_ctx *c, const struct an_snap *a, const struct an_snap *b)
{
	const struct ms_krow *top = NULL;
	struct ms_keyed k;
	size_t i, shown = 0;

	section(5, "Files by page faults", "files");
	if (!c->module) {
		line("needs the module (faults_by_file): %s", c->no_module);
		finding(c, SEV_OK, "not seen without the module");
		return;
	}
	if (ms_keyed_delta(&b->by_file, &a->by_file, 0, &k)) {
		finding(c, SEV_OK, "faults_by_file unreadable");
		return;
	}
	/* Anonymous memory has a row of its own ("[anon]"): not a file. */
	open_json_array("top");
	for (i = 0; i < k.n && shown < AN_TOP; i++) {
		if (k.rows[i].key[0] == '[') {
			line("(%s: %llu faults)", k.rows[i].key, (unsigned long long)k.rows[i].v[0]);
			continue;
		}
		if (!top)
			top = &k.rows[i];
		open_json_object(NULL);
		print_string(PRINT_ANY, "file", "   %-32s", k.rows[i].key);
		print_uint(PRINT_ANY, "faults", " %llu faults\n", k.rows[i].v[0]);
		close_json_object();
		shown++;
	}
	close_json_array();
	if (top)
		finding(c, SEV_OK, "most file faults: %s, %.0f/s", top->key, top->v[0] / c->dur);
	else
		finding(c, SEV_OK, "no file page faults");
	ms_keyed_free(&k);
}

static void sec_stalls(struct an_ctx *c, const struct an_snap *a, const struct an_snap *b)
{
	uint64_t sa = vm_sum(a, "allocstall"), sb = vm_sum(b, "allocstall");
	uint64_t stalls = sb > sa ? sb - sa : 0;
	uint64_t cstalls = vm_delta(a, b, "compact_stall");
	double dr_s = 0, mr_s = 0, co_s = 0;

	section(6, "Reclaim and compaction stalls", "stalls");
	print_uint(PRINT_ANY, "allocstalls", "   direct reclaims %llu (allocstall)", stalls);
	print_uint(PRINT_ANY, "compact_stalls", ", compaction stalls %llu (compact_stall)\n", cstalls);
	if (c->module) {
		dr_s = st_delta(a, b, "direct_reclaim_ns") / 1e9;
		mr_s = st_delta(a, b, "memcg_reclaim_ns") / 1e9;
		co_s = st_delta(a, b, "compaction_ns") / 1e9;
		print_float(PRINT_ANY, "direct_reclaim_s", "   time in direct reclaim %.3f s", dr_s);
		print_float(PRINT_ANY, "memcg_reclaim_s", ", in memcg reclaim %.3f s", mr_s);
		print_float(PRINT_ANY, "compaction_s", ", in compaction %.3f s\n", co_s);
	} else {
		line("their time needs the module: %s", c->no_module);
	}
	if (dr_s + mr_s >= 0.1)
		finding(c, SEV_WARN, "reclaim stalled tasks for %.1f s in %.1f s (%.1f s direct, %.1f s memcg): memory pressure",
			dr_s + mr_s, c->dur, dr_s, mr_s);
	else if (co_s >= 0.1)
		finding(c, SEV_WARN, "compaction stalled tasks for %.1f s in %.1f s: fragmentation", co_s, c->dur);
	else if (stalls || cstalls)
		finding(c, SEV_NOTE, "%llu direct reclaim(s) and %llu compaction stall(s)",
			(unsigned long long)stalls, (unsigned long long)cstalls);
	else
		finding(c, SEV_OK, "no reclaim or compaction stall");
}

/* The page allocations of the slab allocator itself (SLUB, and SLAB's). */
static bool slab_pages(const char *site)
{
	static const char *const fns[] = {
		"allocate_slab+", "new_slab+", "alloc_slab_page+", "kmem_getpages+",
		"cache_grow_begin+",
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strncmp(site, fns[i], strlen(fns[i])))
			return true;
	return false;
}

static void sec_memleak(struct an_ctx *c, const struct an_snap *a, const struct an_snap *b)
{
	int cs, cb, co, ca;
	size_t i, best = 0;
	uint64_t best_bytes = 0;
	bool found = false;

	(void)a;
	section(7, "Outstanding allocations (memleak)", "memleak");
	if (!c->module) {
		line("needs the module: %s", c->no_module);
		finding(c, SEV_OK, "not seen without the module");
		return;
	}
	if (b->leak_bad) {
		line("the memleak file did not parse: see `memscope memleak`");
		finding(c, SEV_OK, "memleak file unreadable");
		return;
	}
	if (ms_stats_val(&b->st, "memleak_allocs") == 0 || !b->have_leak) {
		line("memleak is off: `echo enable memleak > %s/control` turns it on", ms_dir());
		finding(c, SEV_OK, "memleak off");
		return;
	}
	cs = ms_table_col(&b->leak, "site");
	ca = ms_table_col(&b->leak, "allocs");
	cb = ms_table_col(&b->leak, "bytes");
	co = ms_table_col(&b->leak, "oldest_ms");
	if (cs < 0 || ca < 0 || cb < 0 || co < 0) {
		finding(c, SEV_OK, "memleak file without its columns");
		return;
	}
	/*
	 * A leak is memory that stays: of the sites whose oldest allocation
	 * is older than these seconds, the one holding the most bytes.  Pages
	 * the slab allocator took for its caches are listed at its own site
	 * too, but hold the objects counted at theirs: never a leak of their own.
	 */
	open_json_array("top");
	for (i = 0; i < b->leak.nrows; i++) {
		uint64_t bytes = 0, oldest = 0, allocs = 0;

		ms_table_u64(&b->leak, i, cb, &bytes);
		ms_table_u64(&b->leak, i, co, &oldest);
		ms_table_u64(&b->leak, i, ca, &allocs);
		if (i < AN_TOP) {
			open_json_object(NULL);
			print_string(PRINT_ANY, "site", "   %-48s", ms_table_cell(&b->leak, i, cs));
			print_uint(PRINT_ANY, "allocs", " %8llu allocs", allocs);
			print_uint(PRINT_ANY, "bytes", " %10llu bytes", bytes);
			print_uint(PRINT_ANY, "oldest_ms", " oldest %llu ms\n", oldest);
			close_json_object();
		}
		if (oldest >= c->dur * 1000 && bytes > best_bytes &&
		    !slab_pages(ms_table_cell(&b->leak, i, cs))) {
			best = i;
			best_bytes = bytes;
			found = true;
		}
	}
	close_json_array();
	if (found && best_bytes >= (1u << 20))
		finding(c, SEV_WARN, "%s holds %s allocations, %llu bytes, older than %.1f s: a leak?",
			ms_table_cell(&b->leak, best, cs), ms_table_cell(&b->leak, best, ca),
			(unsigned long long)best_bytes, c->dur);
	else if (found)
		finding(c, SEV_NOTE, "most held for longer than %.1f s: %s, %llu bytes",
			c->dur, ms_table_cell(&b->leak, best, cs), (unsigned long long)best_bytes);
	else
		finding(c, SEV_OK, "no allocation outstanding for longer than %.1f s", c->dur);
}

static void closing(struct an_ctx *c)
{
	int order[8], i, j, n = 0, shown = 0;

	for (i = 0; i < c->nf; i++)
		order[n++] = i;
	/* Stable: by severity, then in the book's order. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && c->f[order[j]].sev > c->f[order[j - 1]].sev; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	print_fp("\nFindings:\n");
	open_json_array("findings");
	for (i = 0; i < n && shown < 2; i++) {
		if (c->f[order[i]].sev == SEV_OK)
			break;
		print_string(PRINT_ANY, NULL, "   %s\n", c->f[order[i]].text);
		shown++;
	}
	close_json_array();
	if (!shown)
		print_fp("   nothing points at memory in these %.1f s\n", c->dur);
	if (!c->module)
		print_fp("   (without the module: %s; not seen: per-file faults, reclaim and compaction time, OOM victims' details, outstanding allocations)\n",
			 c->no_module);
}

/*
 * Find the module, which is optional: c->module, or c->no_module saying
 * why not.  -1 only where it is there but unusable (another format).
 */
static int find_module(struct an_ctx *c, const char *dir)
{
	char path[4096];
	int e1 = 0, e2 = 0;

	if (ms_nl_on()) {
		c->no_module = ms_nl_absent();
		if (!c->no_module && ms_check_format())
			return -1;
		c->module = !c->no_module;
		return 0;
	}
	if (dir || getenv("MEMSCOPE_DIR")) {
		if (ms_locate_dir(dir) || ms_check_format())
			return -1;
		c->module = true;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/stats", MS_DEBUGFS_DIR);
	if (access(path, R_OK))
		e1 = errno;
	snprintf(path, sizeof(path), "%s/stats", MS_PROCFS_DIR);
	if (e1 && access(path, R_OK))
		e2 = errno;
	if (e1 && e2) {
		/* Loaded but closed to us, or not loaded at all. */
		c->no_module = !access("/sys/module/memscope", F_OK) ||
			       e1 == EACCES || e1 == EPERM || e2 == EACCES || e2 == EPERM ?
			       "its files need root" : "memscope module not loaded";
		return 0;
	}
	if (ms_locate_dir(NULL) || ms_check_format())
		return -1;
	c->module = true;
	return 0;
}

/* The report's first line: the kernel, the duration, where the data came from. */
static void report_head(const struct an_ctx *c)
{
	struct utsname u;

	uname(&u);
	ms_print_timestamp(c->o);
	print_string(PRINT_ANY, "kernel", "memscope analyze: kernel %s", u.release);
	print_float(PRINT_ANY, "duration_s", ", %.1f s", c->dur);
	print_bool(PRINT_JSON, "module", NULL, c->module);
	if (c->module)
		print_string(PRINT_FP, NULL, ", memscope module in %s\n",
			     ms_nl_on() ? ms_nl_where() : ms_dir());
	else
		print_string(PRINT_ANY, "no_module", ", without the module (%s): /proc only\n",
			     c->no_module);
}

static int cmd_analyze(const struct ms_opts *o)
{
	struct an_ctx c = { .o = o, .dur = o->has_interval ? o->interval : 10.0 };
	struct an_snap a, b;
	int ret = 1;

	if (o->count) {
		print_error("analyze takes one DURATION in seconds, usage: memscope analyze [DURATION]");
		return 1;
	}
	if (find_module(&c, o->dir))
		return 1;
	if (snap_take(&c, &a))
		goto out;
	if (!print_is_json())
		fprintf(stderr, "memscope analyze: sampling for %.1f s...\n", c.dur);
	ms_interval_start();
	/* Ctrl-C: report over the seconds there were. */
	ms_interval_wait(c.dur);
	if (snap_take(&c, &b)) {
		snap_free(&b);
		goto out;
	}
	if (!ms_test_steps() && b.t > a.t)
		c.dur = b.t - a.t;
	print_begin_record();
	report_head(&c);
	sec_oom(&c, &a, &b);
	sec_swap(&c, &a, &b);
	sec_memory(&c, &a, &b);
	sec_procs(&c, &a, &b);
	sec_files(&c, &a, &b);
	sec_stalls(&c, &a, &b);
	sec_memleak(&c, &a, &b);
	closing(&c);
	print_end_record();
	ret = 0;
	snap_free(&b);
out:
	snap_free(&a);
	return ret;
}

MS_TOOL(analyze,
	.topic = MS_TOPIC_VIEWS, .rank = 30,
	.opts = OPT_INTERVAL,
	.flags = MS_TOOL_MODULE_OPTIONAL,
	.usage = "analyze [DURATION]",
	.summary = "the book's memory analysis (7.1.3) over DURATION seconds (default 10): OOM kills, swap, free memory and PSI, processes, files, stalls, leaks, with findings");
