// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "memscope.h"
#include "nl.h"

static char *base_dir;

/*
 * The test build can point the system paths at a fake tree holding
 * proc/mounts, sys/kernel/security/lockdown and the memscope directories,
 * to drive the diagnosis below without a kernel (tests/cli/seams.c).  In
 * the product every path is the real one.
 */
static const char *sys_path(const char *path)
{
	static char buf[4][4096];
	static unsigned int next;
	const char *root = ms_test_sysroot();
	char *b;

	if (!root)
		return path;
	b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%s%s", root, path);
	return b;
}

const char *ms_dir(void)
{
	return base_dir ? base_dir : MS_DEBUGFS_DIR;
}

void ms_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_verror(fmt, ap);
	va_end(ap);
}

/* For tools that cannot go on without the memory: say so and exit. */
void *ms_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		ms_fail("out of memory, free some memory");
		exit(1);
	}
	return p;
}

char *ms_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		ms_fail("out of memory, free some memory");
		exit(1);
	}
	return p;
}

char *ms_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (r < 0) {
		ms_fail("out of memory, free some memory");
		exit(1);
	}
	return p;
}

static bool path_exists(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0;
}

static int open_dir(const char *p)
{
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The lockdown mode in force ("integrity", "confidentiality"), or NULL. */
static const char *lockdown_mode(void)
{
	static char mode[32];
	char buf[128], *o, *c;
	FILE *f = fopen(sys_path("/sys/kernel/security/lockdown"), "re");

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	o = strchr(buf, '[');
	c = o ? strchr(o, ']') : NULL;
	if (!o || !c || c - o - 1 >= (long)sizeof(mode))
		return NULL;
	memcpy(mode, o + 1, (size_t)(c - o - 1));
	mode[c - o - 1] = '\0';
	return strcmp(mode, "none") ? mode : NULL;
}

static bool debugfs_mounted(void)
{
	char line[4096], dev[256], mnt[1024], type[64];
	FILE *f = fopen(sys_path("/proc/mounts"), "re");
	bool found = false;

	if (!f)
		return true;	/* can't tell: don't send the user astray */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %1023s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "debugfs") && !strcmp(mnt, "/sys/kernel/debug")) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/* memscope is loaded: /sys/module/memscope exists, whatever else is closed. */
bool ms_module_loaded(void)
{
	return path_exists(sys_path("/sys/module/memscope"));
}

/*
 * Under lockdown (integrity or confidentiality) the kernel refuses a
 * module it cannot verify, so `modprobe memscope` alone fails with EPERM:
 * say so, and how to sign it.  Only for the default places: --dir and
 * MEMSCOPE_DIR name directories that have nothing to do with the module.
 */
static void fail_not_loaded(const char *dir, bool default_dir)
{
	const char *mode = default_dir ? lockdown_mode() : NULL;

	if (mode)
		ms_fail("memscope module not loaded (%s does not exist) and the kernel is locked down [%s], which loads only signed modules: install memscope with DKMS, which signs it with its MOK key, enrol the key once (`mokutil --import /var/lib/dkms/mok.pub`, then reboot) and `modprobe memscope`, see docs/install.md",
			dir, mode);
	else
		ms_fail("memscope module not loaded (%s does not exist), load it with `modprobe memscope`, or run `make demo` to try it in a VM",
			dir);
}

static void fail_permission(const char *path, int err)
{
	const char *mode = lockdown_mode();

	if (geteuid() != 0)
		ms_fail("cannot read %s: %s, run as root (sudo memscope ...)",
			path, strerror(err));
	else if (mode)
		ms_fail("cannot read %s: the kernel is locked down [%s], load the module with `modprobe memscope procfs=1` and memscope reads %s instead",
			path, mode, MS_PROCFS_DIR);
	else
		ms_fail("cannot read %s: %s, check its mode and the LSM policy (memscope needs root)",
			path, strerror(err));
}

int ms_locate_dir(const char *cli_dir)
{
	const char *dir = cli_dir;
	char debugfs_dir[4096], procfs_dir[4096];
	const char *mode;
	char *stats;
	int err, fd;

	/* Copies: sys_path() reuses its buffers, and more calls follow. */
	snprintf(debugfs_dir, sizeof(debugfs_dir), "%s", sys_path(MS_DEBUGFS_DIR));
	snprintf(procfs_dir, sizeof(procfs_dir), "%s", sys_path(MS_PROCFS_DIR));

	if (!dir || !*dir)
		dir = getenv("MEMSCOPE_DIR");
	if (dir && *dir) {
		err = open_dir(dir);
		if (err == -ENOENT || err == -ENOTDIR) {
			fail_not_loaded(dir, false);
			return -1;
		}
		if (err == -EACCES || err == -EPERM) {
			fail_permission(dir, -err);
			return -1;
		}
		base_dir = strdup(dir);
		return base_dir ? 0 : -1;
	}

	err = open_dir(debugfs_dir);
	if (err == 0) {
		/* Lockdown can leave the directory listable but its files closed. */
		if (asprintf(&stats, "%s/stats", debugfs_dir) < 0)
			return -1;
		fd = open(stats, O_RDONLY | O_CLOEXEC);
		err = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
		free(stats);
		if ((err == -EPERM || err == -EACCES) && open_dir(procfs_dir) == 0) {
			base_dir = strdup(procfs_dir);
			return base_dir ? 0 : -1;
		}
		base_dir = strdup(debugfs_dir);
		return base_dir ? 0 : -1;
	}
	if (open_dir(procfs_dir) == 0) {
		base_dir = strdup(procfs_dir);
		return base_dir ? 0 : -1;
	}
	if (err == -EACCES || err == -EPERM) {
		fail_permission(debugfs_dir, -err);
		return -1;
	}
	if (!debugfs_mounted()) {
		mode = lockdown_mode();
		if (mode && !ms_module_loaded()) {
			fail_not_loaded(debugfs_dir, true);
			return -1;
		}
		if (mode)
			ms_fail("debugfs is not mounted and the kernel is locked down [%s], load the module with `modprobe memscope procfs=1` and memscope reads %s instead",
				mode, MS_PROCFS_DIR);
		else
			ms_fail("debugfs is not mounted, mount it with `mount -t debugfs none /sys/kernel/debug`");
		return -1;
	}
	if (ms_module_loaded()) {
		ms_fail("the memscope module is loaded but %s is missing, reload it with `rmmod memscope && modprobe memscope`",
			debugfs_dir);
		return -1;
	}
	fail_not_loaded(debugfs_dir, true);
	return -1;
}

/*
 * The test build replays a sequence of snapshots (tests/cli/seams.c):
 * read number k of a file comes from DIR/k/, the last one that exists.
 */
char *ms_path(const char *name)
{
	char *p = NULL;
	unsigned int k;

	if (ms_test_steps()) {
		for (k = ms_step();; k--) {
			if (asprintf(&p, "%s/%u", ms_dir(), k) < 0)
				return NULL;
			if (path_exists(p) || k == 0)
				break;
			free(p);
		}
		free(p);
		if (asprintf(&p, "%s/%u/%s", ms_dir(), k, name) < 0)
			return NULL;
		return p;
	}
	if (asprintf(&p, "%s/%s", ms_dir(), name) < 0)
		return NULL;
	return p;
}

static int read_path(const char *path, char **data, size_t *len, bool optional)
{
	size_t cap = 4096, n = 0;
	char *buf, *nb;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT && optional)
			return 1;
		if (err == ENOENT)
			ms_fail("%s is missing, check that the module version matches this CLI (`memscope status`)",
				path);
		else if (err == EACCES || err == EPERM)
			fail_permission(path, err);
		else
			ms_fail("cannot open %s: %s, check that the module is still loaded",
				path, strerror(err));
		return -1;
	}
	buf = malloc(cap + 1);
	if (!buf)
		goto nomem;
	for (;;) {
		if (n == cap) {
			if (cap >= MS_MAX_FILE) {
				ms_fail("%s is larger than %u MiB, this is not a memscope file",
					path, MS_MAX_FILE >> 20);
				free(buf);
				close(fd);
				return -1;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				goto nomem;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = errno;

			if (err == EACCES || err == EPERM)
				fail_permission(path, err);
			else
				ms_fail("cannot read %s: %s, check that the module is still loaded",
					path, strerror(err));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
nomem:
	close(fd);
	ms_fail("out of memory reading %s, free some memory", path);
	return -1;
}

static int read_name(const char *name, char **data, size_t *len, bool optional)
{
	char *path;
	int ret;

	if (ms_nl_on())
		return ms_nl_read(name, data, len, optional);
	path = ms_path(name);
	if (!path) {
		ms_fail("out of memory, free some memory");
		return -1;
	}
	ret = read_path(path, data, len, optional);
	free(path);
	return ret;
}

int ms_read(const char *name, char **data, size_t *len)
{
	return read_name(name, data, len, false);
}

int ms_read_optional(const char *name, char **data, size_t *len)
{
	return read_name(name, data, len, true);
}

void ms_warn_diag(const char *name, const struct ms_diag *d)
{
	static char *warned[64];
	static size_t nwarned;
	size_t i;

	if (!d->skipped)
		return;
	for (i = 0; i < nwarned; i++)
		if (!strcmp(warned[i], name))
			return;
	if (nwarned < 64)
		warned[nwarned++] = strdup(name);
	print_warn("%s/%s: skipped %u malformed line%s (first at line %u)",
		   ms_dir(), name, d->skipped, d->skipped == 1 ? "" : "s", d->first_bad);
}

static void fail_malformed(const char *name, const char *why)
{
	ms_fail("%s/%s is malformed (%s), check that the module version matches this CLI (`memscope status`)",
		ms_dir(), name, why);
}

int ms_load_stats(struct ms_counters *st)
{
	char *data;
	size_t len;
	int ret;

	memset(st, 0, sizeof(*st));
	if (ms_nl_on())
		return ms_nl_load_stats(st);
	if (ms_read("stats", &data, &len))
		return -1;
	ret = ms_parse_stats(data, len, st);
	free(data);
	if (ret) {
		fail_malformed("stats", st->diag.msg);
		ms_stats_free(st);
		return -1;
	}
	ms_warn_diag("stats", &st->diag);
	return 0;
}

int ms_load_reset_count(uint64_t *reset_count, uint64_t *dropped)
{
	struct ms_counters st;

	if (ms_load_stats(&st))
		return -1;
	*reset_count = ms_stats_val(&st, "reset_count");
	if (dropped)
		*dropped = ms_stats_val(&st, "dropped");
	ms_stats_free(&st);
	return 0;
}

static int load_table(const char *name, struct ms_rows *t, bool optional)
{
	char *data;
	size_t len;
	int ret;

	memset(t, 0, sizeof(*t));
	if (ms_nl_on())
		return ms_nl_load_table(name, t, optional);
	ret = read_name(name, &data, &len, optional);
	if (ret)
		return ret;
	ret = ms_parse_table(data, len, t);
	free(data);
	if (ret && optional) {
		print_warn("%s/%s is malformed (%s): left out; check that the module version matches this CLI (`memscope status`)",
			   ms_dir(), name, t->diag.msg);
		ms_table_free(t);
		return 1;
	}
	if (ret) {
		fail_malformed(name, t->diag.msg);
		ms_table_free(t);
		return -1;
	}
	ms_warn_diag(name, &t->diag);
	return 0;
}

int ms_load_table(const char *name, struct ms_rows *t)
{
	return load_table(name, t, false);
}

int ms_load_table_optional(const char *name, struct ms_rows *t)
{
	return load_table(name, t, true);
}

int ms_load_reuse(const char *table, struct ms_reuse *r)
{
	struct ms_rows t;
	int ct, cr, ce, ret;
	char *data;
	size_t len, i;

	memset(r, 0, sizeof(*r));
	ret = ms_read_optional("table_reuse", &data, &len);
	if (ret)
		return ret > 0 ? 0 : -1;
	ret = ms_parse_table(data, len, &t);
	free(data);
	if (ret) {
		fail_malformed("table_reuse", t.diag.msg);
		ms_table_free(&t);
		return -1;
	}
	ct = ms_table_col(&t, "table");
	cr = ms_table_col(&t, "rows");
	ce = ms_table_col(&t, "events");
	for (i = 0; ct >= 0 && cr >= 0 && ce >= 0 && i < t.nrows; i++)
		if (!strcmp(ms_table_cell(&t, i, (size_t)ct), table) &&
		    (!ms_table_u64(&t, i, (size_t)cr, &r->rows) ||
		     !ms_table_u64(&t, i, (size_t)ce, &r->events)))
			memset(r, 0, sizeof(*r));
	ms_table_free(&t);
	return 0;
}

void ms_warn_reuse(const char *table, const char *what, bool by_process, bool one_process,
		   const struct ms_reuse *now, const struct ms_reuse *prev)
{
	print_uint(PRINT_JSON, "reused_rows", NULL, now->rows);
	print_uint(PRINT_JSON, "reused_events", NULL, now->events);
	if (prev || !now->rows)
		return;
	print_warn("%s: %llu row%s holding %llu %s %s taken over for new ones after an earlier read, though %s: this total lacks them (table_reuse)%s. Read with an INTERVAL, whose counts are whole, or load memscope with a larger table_size",
		   table, (unsigned long long)now->rows, now->rows == 1 ? "" : "s",
		   (unsigned long long)now->events, what, now->rows == 1 ? "was" : "were",
		   by_process ? "its process was still running" : "its key could still count",
		   one_process ? ", if they were this process's: the module counts what the whole table lost, not what each process did" : "");
}

int ms_load_ring(const char *name, struct ms_records *r, bool optional)
{
	char *data;
	size_t len;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = optional ? ms_read_optional(name, &data, &len) : ms_read(name, &data, &len);
	if (ret)
		return ret;
	ret = ms_parse_ring(data, len, r);
	free(data);
	if (ret) {
		fail_malformed(name, r->diag.msg);
		ms_ring_free(r);
		return -1;
	}
	ms_warn_diag(name, &r->diag);
	return 0;
}

int ms_load_hist(const char *name, struct ms_buckets *h, bool optional)
{
	uint64_t reset_count;
	char *data, *file;
	size_t len;
	int ret;

	memset(h, 0, sizeof(*h));
	if (ms_load_reset_count(&reset_count, NULL))
		return -1;
	if (asprintf(&file, "hist_raw/%s", name) < 0)
		return -1;
	if (ms_nl_on()) {
		ret = ms_nl_load_hist(name, h, optional);
		h->reset_count = reset_count;
		free(file);
		return ret;
	}
	ret = optional ? ms_read_optional(file, &data, &len) : ms_read(file, &data, &len);
	if (ret) {
		free(file);
		return ret;
	}
	ret = ms_parse_hist(data, len, h);
	h->reset_count = reset_count;
	free(data);
	if (ret)
		fail_malformed(file, h->diag.msg);
	else
		ms_warn_diag(file, &h->diag);
	free(file);
	return ret;
}

/*
 * The module's pressure file, while it counts: every pressure probe the
 * kernel can have is attached (the memstall functions', or the sites'
 * own hooks where the kernel has none).  1 where one is off (no stall can
 * be seen to end then, the module counts nothing, and zeros would say
 * none happened) or the module has no such file.
 */
const char *const ms_pressure_probes[] = { "pressure_*", NULL };

int ms_load_pressure(struct ms_psi *p)
{
	struct ms_probe_lines pr;
	size_t i, on = 0, off = 0, len;
	char *data;
	int ret;

	memset(p, 0, sizeof(*p));
	if (ms_load_probes(&pr, true))
		return 1;
	for (i = 0; i < pr.n; i++) {
		if (!ms_probe_matches(&pr.v[i], ms_pressure_probes))
			continue;
		on += pr.v[i].st == MS_PROBE_ATTACHED;
		off += pr.v[i].st == MS_PROBE_DISABLED;
	}
	ms_probes_free(&pr);
	if (!on || off)
		return 1;
	ret = ms_read_optional("pressure", &data, &len);
	if (ret)
		return ret;
	ret = ms_parse_psi(data, len, p);
	free(data);
	if (ret || !p->has[1]) {
		fail_malformed("pressure", ret ? p->diag.msg : "no \"full\" line");
		return -1;
	}
	ms_warn_diag("pressure", &p->diag);
	return 0;
}

/*
 * The module's pressure_by_cgroup, a table of "cgroup some_us full_us",
 * while the pressure file counts (ms_load_pressure()); 1 where it does
 * not, or the module has no such file.
 */
int ms_load_pressure_by_cgroup(struct ms_rows *t)
{
	struct ms_psi psi;
	char *data;
	size_t len;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = ms_load_pressure(&psi);
	if (ret)
		return ret;
	ret = ms_read_optional("pressure_by_cgroup", &data, &len);
	if (ret)
		return ret;
	ret = ms_parse_table(data, len, t);
	free(data);
	if (!ret && (ms_table_col(t, "cgroup") != 0 || ms_table_col(t, "some_us") != 1 ||
		     ms_table_col(t, "full_us") != 2)) {
		ms_table_free(t);
		memset(t, 0, sizeof(*t));
		ret = -1;
		snprintf(t->diag.msg, sizeof(t->diag.msg), "not the columns cgroup some_us full_us");
	}
	if (ret) {
		fail_malformed("pressure_by_cgroup", t->diag.msg);
		ms_table_free(t);
		return -1;
	}
	ms_warn_diag("pressure_by_cgroup", &t->diag);
	return 0;
}

/*
 * The module's pressure_by_cgroup_avg, "cgroup" and the six averages; 1
 * where the module has no such file (before it had one).
 */
int ms_load_pressure_by_cgroup_avg(struct ms_rows *t)
{
	static const char *const cols[] = { "cgroup", "some_avg10", "some_avg60", "some_avg300",
					     "full_avg10", "full_avg60", "full_avg300" };
	char *data;
	size_t len, i;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = ms_read_optional("pressure_by_cgroup_avg", &data, &len);
	if (ret)
		return ret;
	ret = ms_parse_table(data, len, t);
	free(data);
	for (i = 0; !ret && i < sizeof(cols) / sizeof(cols[0]); i++)
		if (ms_table_col(t, cols[i]) != (int)i) {
			ms_table_free(t);
			memset(t, 0, sizeof(*t));
			ret = -1;
			snprintf(t->diag.msg, sizeof(t->diag.msg),
				 "not the columns cgroup some_avg10 ... full_avg300");
		}
	if (ret) {
		fail_malformed("pressure_by_cgroup_avg", t->diag.msg);
		ms_table_free(t);
		return -1;
	}
	ms_warn_diag("pressure_by_cgroup_avg", &t->diag);
	return 0;
}

int ms_load_probes(struct ms_probe_lines *p, bool optional)
{
	char *data;
	size_t len;
	int ret;

	memset(p, 0, sizeof(*p));
	if (ms_nl_on())
		return ms_nl_load_probes(p, optional);
	ret = optional ? ms_read_optional("probes", &data, &len) : ms_read("probes", &data, &len);
	if (ret)
		return ret;
	ret = ms_parse_probes(data, len, p);
	free(data);
	if (ret) {
		fail_malformed("probes", p->diag.msg);
		ms_probes_free(p);
		return -1;
	}
	ms_warn_diag("probes", &p->diag);
	return 0;
}

bool ms_probe_matches(const struct ms_probe_line *p, const char *const *patterns)
{
	const char *target, *colon;

	/* a target may be spelled "kretprobe:handle_mm_fault" */
	colon = strrchr(p->target, ':');
	target = colon ? colon + 1 : p->target;
	for (; *patterns; patterns++)
		if (!fnmatch(*patterns, p->name, 0) || !fnmatch(*patterns, target, 0))
			return true;
	return false;
}

static void describe_probe(char *buf, size_t size, const struct ms_probe_line *p)
{
	if (p->st == MS_PROBE_DISABLED)
		snprintf(buf, size, "probe %s (%s) is disabled, enable it with `echo enable %s > %s/control`",
			 p->name, p->target, p->name, ms_dir());
	else if (p->st == MS_PROBE_UNAVAILABLE)
		snprintf(buf, size, "probe %s (%s) is unavailable on this kernel: %s, see `memscope status`",
			 p->name, p->target, *p->reason ? p->reason : "no reason given");
	else
		snprintf(buf, size, "probe %s (%s) is in state %s, see `memscope status`",
			 p->name, p->target, p->state);
}

#define MS_DEBUGFS_MAGIC 0x64626720
#define MS_PROC_MAGIC 0x9fa0

static const char *leased;	/* the family this run turned on, or NULL */

const char *ms_leased(void)
{
	return leased;
}

/*
 * Lease @family: the module turns it on for as long as this process holds
 * its control file open, and off when the file closes, which the kernel
 * does when the process ends however it ends (SIGKILL included).  Only in
 * the module's own directory, never a copy given with --dir.  True if the
 * module took the lease.
 */
static bool lease(const char *family)
{
	static int fd = -1;
	struct statfs sfs;
	char cmd[128];
	char *path;
	int n;

	if (statfs(ms_dir(), &sfs) ||
	    ((unsigned long)sfs.f_type != MS_DEBUGFS_MAGIC && (unsigned long)sfs.f_type != MS_PROC_MAGIC))
		return false;
	if (fd < 0) {
		path = ms_path("control");
		fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
		free(path);
		if (fd < 0)
			return false;
	}
	n = snprintf(cmd, sizeof(cmd), "lease %s", family);
	/* EINVAL: a module older than leases; the tool says how to enable. */
	return n > 0 && (size_t)n < sizeof(cmd) && write(fd, cmd, (size_t)n) == n;
}

/* Whether @probe is attached now. */
static bool probe_attached(const char *probe)
{
	struct ms_probe_lines pr;
	bool on = false;
	size_t i;

	if (ms_load_probes(&pr, true))
		return false;
	for (i = 0; i < pr.n; i++)
		if (!strcmp(pr.v[i].name, probe))
			on = pr.v[i].st == MS_PROBE_ATTACHED;
	ms_probes_free(&pr);
	return on;
}

/*
 * A tool whose probes are off until enabled (family and module parameter
 * named as the tool): probe says whether the family is on, or why it
 * cannot be.  cost is what its probes cost, as "<cost>, so it is off
 * until enabled".  Off, the tool leases the family for as long as it runs
 * and gets 1 (ms_leased() names it); on already, it leases it too (it
 * stays on when the tool ends) and gets 0.  With @kept (--kept) nothing
 * is leased: the tool shows what the family kept, as below.  Where no
 * lease can be had (a --dir copy, an older module): off after it ran (its
 * probe has hits), the tool shows what it kept; else -1, and how to
 * enable it is said.
 */
int ms_check_optin(const char *tool, const char *family, const char *probe, const char *cost,
		   bool kept)
{
	static const char *watch[2];
	struct ms_probe_lines pr;
	int ret = 0;
	size_t i;

	/* A family of several probes names them all with ms_missed_watch(). */
	watch[0] = probe;
	ms_missed_watch(watch);
	if (ms_load_probes(&pr, true))
		return 0;	/* no probes file: the data files will tell */
	for (i = 0; i < pr.n; i++) {
		const struct ms_probe_line *p = &pr.v[i];

		if (strcmp(p->name, probe))
			continue;
		/*
		 * On: held on while this tool runs, so that another tool's
		 * lease ending cannot turn it off under this one.  Off: on
		 * for as long as this tool runs, as BCC's attach.
		 */
		if (p->st == MS_PROBE_ATTACHED && !kept)
			lease(family);
		else if (p->st == MS_PROBE_DISABLED && !kept && lease(family) &&
			 probe_attached(probe)) {
			leased = family;
			ret = 1;
		} else if (p->st == MS_PROBE_DISABLED && p->hits) {
			print_warn("%s is off: showing what it recorded while it was on; `echo enable %s > %s/control` turns it on again",
				   family, family, ms_dir());
		} else if (p->st == MS_PROBE_DISABLED) {
			ms_fail("%s is off: %s, so it is off until enabled; run `echo enable %s > %s/control` (or load memscope with %s=1), then run memscope %s again",
				family, cost, family, ms_dir(), family, tool);
			ret = -1;
		} else if (p->st != MS_PROBE_ATTACHED) {
			ms_fail("%s has no data: probe %s (%s) is %s on this kernel: %s, see `memscope status`",
				tool, p->name, p->target,
				p->st == MS_PROBE_UNAVAILABLE ? "unavailable" : p->state,
				*p->reason ? p->reason : "no reason given");
			ret = -1;
		}
		break;
	}
	ms_probes_free(&pr);
	return ret;
}

/*
 * A tool's probes: if none of them is attached, the tool has nothing to
 * show, unless they were disabled after they ran (they have hits): then
 * it shows what they kept, and says they are off.  Probes off among
 * others that work are warnings.
 */
int ms_check_probes(const char *tool, const char *const *patterns)
{
	struct ms_probe_lines pr;
	size_t i, matched = 0, usable = 0, ran = 0;
	char msg[512], first[512] = "";

	ms_missed_watch(patterns);
	if (ms_load_probes(&pr, true))
		return 0;	/* no probes file: the data files will tell */
	for (i = 0; i < pr.n; i++) {
		if (!ms_probe_matches(&pr.v[i], patterns))
			continue;
		matched++;
		if (pr.v[i].st == MS_PROBE_ATTACHED) {
			usable++;
			continue;
		}
		if (pr.v[i].st == MS_PROBE_DISABLED && pr.v[i].hits)
			ran++;
		describe_probe(msg, sizeof(msg), &pr.v[i]);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", msg);
	}
	if (matched && !usable && ran) {
		print_warn("%s: its probes are off, it shows what they recorded while they were on", tool);
	} else if (matched && !usable) {
		ms_fail("%s has no data: %s", tool, first);
		ms_probes_free(&pr);
		return -1;
	}
	for (i = 0; i < pr.n; i++) {
		if (!ms_probe_matches(&pr.v[i], patterns) || pr.v[i].st == MS_PROBE_ATTACHED)
			continue;
		describe_probe(msg, sizeof(msg), &pr.v[i]);
		print_warn("%s", msg);
	}
	ms_probes_free(&pr);
	return 0;
}
