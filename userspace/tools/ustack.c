// SPDX-License-Identifier: GPL-2.0
/*
 * faults --stacks and brkstack: counts by user stack, printed as folded
 * stacks, "comm;outermost;...;innermost count", one per line, which
 * flamegraph.pl, inferno and speedscope read as they are.
 * Copyright (C) 2026 The memscope authors.
 *
 * The module keeps each frame as a mapped file and an offset in it (a
 * slot of its `files` text, which holds the file's path, identity and
 * build-id), so frames are named after their process exited; symbols.c
 * names the offset.  The frames of a file deleted or replaced since say
 * so.  A frame the
 * module could not tie to a file (its address space was busy, its table
 * of files full, a module before format 3) is a raw address: the
 * process's /proc/PID/maps turns it into a file and an offset, at the
 * first snapshot that sees the stack, if the process still runs.
 * Built without libdw, names come from each file's own symbol table only;
 * without libelf, frames are raw addresses; the tool says which.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "memscope.h"
#include "symbols.h"
#include "unwind.h"

#define MAX_FRAMES	127

struct vma {
	uint64_t start, end, off;
	char *path;		/* NULL: anonymous */
	bool file;		/* an inode's: a file to name frames from */
};

/* A process's maps, as read the first time one of its stacks was named. */
struct proc_maps {
	int64_t pid;
	struct vma *v;
	size_t n;
	bool read;		/* maps read, or tried */
};

static struct proc_maps *procs;
static size_t nprocs;

/* A slot of the module's `files`: what a file frame names. */
struct ufile {
	char *path;		/* NULL: not named (yet) */
	char *build_id;		/* hexadecimal, or NULL */
	unsigned int major, minor;
	uint64_t ino;
	bool deleted;
	bool pending;		/* the module has not named it yet */
	bool resolved;
	char *src;		/* what its names are read from, or NULL */
	bool debuginfo;		/* src is its debuginfo: named by ELF address */
	const char *mark;	/* NULL, "deleted", "replaced", "not mounted here" */
	size_t nloads;		/* its executable segments: offset to ELF address */
	struct { uint64_t off, vaddr, filesz; } load[4];
};

static struct ufile *ufiles;
static size_t nufiles;

struct srow {
	int64_t pid;
	uint64_t count;
	unsigned int depth;
	char *folded;		/* "comm;outer;...;inner" */
	char *key;		/* "pid comm depth stack": one row of the table */
};

struct ssnap {
	struct srow *rows;
	size_t n;
	struct ms_counters stats;
	struct ms_reuse reuse;
};

struct preload;
struct stacks_ctx {
	const struct ms_opts *o;
	const char *file;	/* faults_by_stack, brk_by_stack */
	const char *what;	/* faults, brk */
	struct preload *pre;	/* loading unwind tables, or NULL */
};

static void read_maps(struct proc_maps *pm)
{
	char path[64], *line = NULL;
	size_t cap = 0, alloc = 0;
	FILE *f;

	pm->read = true;
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/maps", pm->pid);
	f = fopen(path, "re");
	if (!f)
		return;		/* exited: its frames stay unnamed */
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off, ino;
		char file[4096];
		struct vma *v;
		int n;

		file[0] = '\0';
		n = sscanf(line, "%llx-%llx %*s %llx %*s %llu %4095[^\n]", &start, &end, &off,
			   &ino, file);
		if (n < 4)
			continue;
		if (pm->n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			v = realloc(pm->v, alloc * sizeof(*v));
			if (!v)
				break;
			pm->v = v;
		}
		v = &pm->v[pm->n++];
		v->start = start;
		v->end = end;
		v->off = off;
		{
			const char *p = file;

			while (*p == ' ')
				p++;
			v->path = *p ? ms_xstrdup(p) : NULL;
		}
		v->file = ino != 0;
	}
	free(line);
	fclose(f);
}

static struct proc_maps *get_maps(int64_t pid)
{
	struct proc_maps *pm;
	size_t i;

	for (i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	pm = realloc(procs, (nprocs + 1) * sizeof(*procs));
	if (!pm)
		return NULL;
	procs = pm;
	pm = &procs[nprocs++];
	memset(pm, 0, sizeof(*pm));
	pm->pid = pid;
	read_maps(pm);
	return pm;
}

static const struct vma *find_vma(const struct proc_maps *pm, uint64_t ip)
{
	size_t i;

	for (i = 0; i < pm->n; i++)
		if (ip >= pm->v[i].start && ip < pm->v[i].end)
			return &pm->v[i];
	return NULL;
}


static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void ufile_clear(struct ufile *u)
{
	free(u->path);
	free(u->build_id);
	free(u->src);
	memset(u, 0, sizeof(*u));
}

/* "0x1000:0x401000:0x78831,...": each executable segment's offset, address, size. */
static void parse_loads(struct ufile *u, const char *s)
{
	while (u->nloads < sizeof(u->load) / sizeof(u->load[0])) {
		unsigned long long off, vaddr, size;
		int n = 0;

		if (sscanf(s, "0x%llx:0x%llx:0x%llx%n", &off, &vaddr, &size, &n) != 3 || !n)
			return;
		u->load[u->nloads].off = off;
		u->load[u->nloads].vaddr = vaddr;
		u->load[u->nloads++].filesz = size;
		s += n;
		if (*s++ != ',')
			return;
	}
}

/*
 * Read the module's `files`; a slot named before keeps what it resolved
 * to, unless the module now names another file there (a reload).
 * Returns how many slots are still pending.
 */
static size_t load_files(void)
{
	int cslot, cdev, cino, cstate, cbid, cloads, cpath;
	size_t len, r, pending = 0;
	struct ms_rows t;
	char *data;

	if (ms_read_optional("files", &data, &len) || !data)
		return 0;	/* a module before format 3 */
	if (ms_parse_table(data, len, &t)) {
		free(data);
		return 0;
	}
	free(data);
	ms_warn_diag("files", &t.diag);
	cslot = ms_table_col(&t, "slot");
	cdev = ms_table_col(&t, "dev");
	cino = ms_table_col(&t, "ino");
	cstate = ms_table_col(&t, "state");
	cbid = ms_table_col(&t, "build_id");
	cloads = ms_table_col(&t, "loads");
	cpath = ms_table_col(&t, "path");
	for (r = 0; cslot >= 0 && cdev >= 0 && cino >= 0 && cstate >= 0 && cbid >= 0 &&
		    cpath >= 0 && r < t.nrows; r++) {
		char **cell = &t.cells[r * t.ncols];
		unsigned long long slot, ino;
		unsigned int maj, min;
		struct ufile *u;

		if (sscanf(cell[cslot], "%llu", &slot) != 1 || slot > MEMSCOPE_FRAME_SLOT_MAX)
			continue;
		if (slot >= nufiles) {
			u = realloc(ufiles, (slot + 1) * sizeof(*u));
			if (!u) {
				ms_fail("out of memory, free some memory");
				exit(1);
			}
			memset(u + nufiles, 0, (slot + 1 - nufiles) * sizeof(*u));
			ufiles = u;
			nufiles = slot + 1;
		}
		u = &ufiles[slot];
		u->pending = !strcmp(cell[cstate], "pending");
		if (u->pending) {
			pending++;
			continue;
		}
		/* Named with no path (none could be had): its frames stay offsets. */
		if (sscanf(cell[cdev], "%u:%u", &maj, &min) != 2 ||
		    sscanf(cell[cino], "%llu", &ino) != 1 || !strcmp(cell[cpath], "-"))
			continue;
		if (u->path && u->ino == ino && !strcmp(u->path, cell[cpath]))
			continue;
		ufile_clear(u);
		u->path = ms_xstrdup(cell[cpath]);
		u->build_id = strcmp(cell[cbid], "-") ? ms_xstrdup(cell[cbid]) : NULL;
		u->major = maj;
		u->minor = min;
		u->ino = ino;
		u->deleted = !strcmp(cell[cstate], "deleted");
		parse_loads(u, cloads >= 0 ? cell[cloads] : "-");
	}
	ms_table_free(&t);
	return pending;
}

/* /proc/self/mountinfo: where each filesystem's directories are seen here. */
struct mnt {
	unsigned int major, minor;
	char *root;		/* the directory of the filesystem mounted */
	char *point;		/* where */
};

static struct mnt *mnts;
static size_t nmnts;

static void read_mounts(void)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && getline(&line, &cap, f) > 0) {
		char root[4096], point[4096];
		unsigned int maj, min;
		struct mnt *m;

		if (sscanf(line, "%*d %*d %u:%u %4095s %4095s", &maj, &min, root, point) != 4)
			continue;
		m = realloc(mnts, (nmnts + 1) * sizeof(*m));
		if (!m)
			break;
		mnts = m;
		ms_unescape(root);
		ms_unescape(point);
		mnts[nmnts++] = (struct mnt){ maj, min, ms_xstrdup(root), ms_xstrdup(point) };
	}
	free(line);
	if (f)
		fclose(f);
}

/*
 * Where a file frame's names come from.  The module gives the file's path
 * within its filesystem and its device: a mount of that device here whose
 * directory holds the path gives the file as this process sees it, if it
 * is still the same file (device and inode).  Else the frame's file was
 * deleted, replaced, or is not mounted here, and its frames say so; its
 * debuginfo by build-id names them, by the ELF address of the offset (a
 * .debug file's segments have no file offsets: the module gave them).
 */
static void ufile_resolve(struct ufile *u)
{
	bool seen = false, exists = false;
	char buf[8300];
	struct stat st;
	size_t i;

	u->resolved = true;
	if (!mnts)
		read_mounts();
	for (i = 0; !u->deleted && i < nmnts; i++) {
		const struct mnt *m = &mnts[i];
		size_t rl = strlen(m->root);
		const char *rest;

		if (m->major != u->major || m->minor != u->minor)
			continue;
		if (!strcmp(m->root, "/"))
			rest = u->path;
		else if (!strncmp(u->path, m->root, rl) && u->path[rl] == '/')
			rest = u->path + rl;
		else
			continue;
		seen = true;
		snprintf(buf, sizeof(buf), "%s%s", strcmp(m->point, "/") ? m->point : "", rest);
		if (stat(buf, &st) || !S_ISREG(st.st_mode))
			continue;
		exists = true;
		if (major(st.st_dev) == u->major && minor(st.st_dev) == u->minor &&
		    (uint64_t)st.st_ino == u->ino) {
			free(u->path);
			u->path = ms_xstrdup(buf);
			u->src = ms_xstrdup(buf);
			return;
		}
	}
	u->mark = u->deleted || (seen && !exists) ? "deleted" : seen ? "replaced" : "not mounted here";
	if (u->build_id && u->nloads && ms_symbols_by_build_id(u->build_id, buf, sizeof(buf))) {
		u->src = ms_xstrdup(buf);
		u->debuginfo = true;
	}
}

/* The ELF address of byte OFF of the file, from the segments the module read. */
static bool ufile_vaddr(const struct ufile *u, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < u->nloads; i++)
		if (off >= u->load[i].off && off - u->load[i].off < u->load[i].filesz) {
			*vaddr = off - u->load[i].off + u->load[i].vaddr;
			return true;
		}
	return false;
}

/* Whether a snapshot's frames name a slot the module has not named yet. */
static bool frames_pending(const struct ms_rows *t)
{
	size_t r, i;

	for (r = 0; t->stack && r < t->nrows; r++)
		for (i = 0; i < t->stack[r].n; i++) {
			uint64_t ip = t->stack[r].ip[i], slot;

			if (!(ip & MEMSCOPE_FRAME_FILE))
				continue;
			slot = (ip & ~MEMSCOPE_FRAME_FILE) >> MEMSCOPE_FRAME_SLOT_SHIFT;
			if (slot < nufiles && ufiles[slot].pending)
				return true;
		}
	return false;
}

/* Folded stacks split frames on ';' and the count on the last space. */
static void append_frame(char **out, size_t *len, size_t *cap, const char *name)
{
	size_t n = strlen(name), i;

	if (*len + n + 2 > *cap) {
		*cap = (*len + n + 2) * 2;
		*out = realloc(*out, *cap);
		if (!*out) {
			ms_fail("out of memory, free some memory");
			exit(1);
		}
	}
	(*out)[(*len)++] = ';';
	for (i = 0; i < n; i++)
		(*out)[(*len)++] = name[i] == ';' ? ':' : name[i];
	(*out)[*len] = '\0';
}

/*
 * One frame's names: the function and those inlined into it there,
 * outermost first, each a frame of its own as perf shows them; else
 * "[file]" or the mapping's own name ("[vdso]", "[heap]"), else
 * "[unknown]".  A return address is named by its call, one byte before
 * it.  The file is read through map_files (deleted, other namespaces),
 * else its path.
 */
static void add_file_frames(uint64_t ip, bool ret, char **out, size_t *len, size_t *cap)
{
	uint64_t slot = (ip & ~MEMSCOPE_FRAME_FILE) >> MEMSCOPE_FRAME_SLOT_SHIFT;
	uint64_t off = ip & MEMSCOPE_FRAME_OFF_MASK, at, vaddr;
	struct ufile *u = slot < nufiles && ufiles[slot].path ? &ufiles[slot] : NULL;
	const char *names[1 + MS_SYM_MAX_INLINE];
	char buf[512];
	size_t n = 0, i;

	if (!u) {
		snprintf(buf, sizeof(buf), "[file %" PRIu64 " not named yet]", slot);
		append_frame(out, len, cap, buf);
		return;
	}
	if (!u->resolved)
		ufile_resolve(u);
	/* A return address is named by its call, one byte before it. */
	at = ret && off ? off - 1 : off;
	if (u->src && ms_symbols_source() != MS_SYM_NONE && !u->debuginfo)
		n = ms_symbolize(u->path, u->src, at, names, sizeof(names) / sizeof(names[0]));
	else if (u->src && ms_symbols_source() != MS_SYM_NONE && ufile_vaddr(u, at, &vaddr))
		n = ms_symbolize_vaddr(u->path, u->src, vaddr, names,
				       sizeof(names) / sizeof(names[0]));
	for (i = 0; i < n; i++) {
		/* A frame of a file gone since says so, named from its debuginfo. */
		if (u->mark) {
			snprintf(buf, sizeof(buf), "%s (%s)", names[i], u->mark);
			append_frame(out, len, cap, buf);
		} else {
			append_frame(out, len, cap, names[i]);
		}
	}
	if (n)
		return;
	if (ms_symbols_source() == MS_SYM_NONE)
		snprintf(buf, sizeof(buf), "[%s+0x%" PRIx64 "%s%s]", base_name(u->path), off,
			 u->mark ? " " : "", u->mark ? u->mark : "");
	else if (u->mark)
		snprintf(buf, sizeof(buf), "[%s (%s)]", base_name(u->path), u->mark);
	else
		snprintf(buf, sizeof(buf), "[%s]", base_name(u->path));
	append_frame(out, len, cap, buf);
}

static void add_frames(struct proc_maps *pm, uint64_t ip, bool ret, char **out, size_t *len,
		       size_t *cap)
{
	const struct vma *v;
	const char *names[1 + MS_SYM_MAX_INLINE];
	char buf[512];
	size_t n = 0, i;

	if (ip & MEMSCOPE_FRAME_FILE) {
		add_file_frames(ip, ret, out, len, cap);
		return;
	}
	v = pm ? find_vma(pm, ip) : NULL;

	if (ms_symbols_source() == MS_SYM_NONE) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, ip);
		append_frame(out, len, cap, buf);
		return;
	}
	if (v && v->file && v->path && v->path[0] != '[') {
		char mapped[128];

		snprintf(mapped, sizeof(mapped), "/proc/%" PRId64 "/map_files/%" PRIx64 "-%" PRIx64,
			 pm->pid, v->start, v->end);
		n = ms_symbolize(v->path, mapped, ip - v->start + v->off - (ret ? 1 : 0), names,
				 sizeof(names) / sizeof(names[0]));
	}
	for (i = 0; i < n; i++)
		append_frame(out, len, cap, names[i]);
	if (n)
		return;
	if (!v)
		snprintf(buf, sizeof(buf), "[unknown]");
	else if (!v->path)
		snprintf(buf, sizeof(buf), "[anon]");
	else if (v->path[0] == '[')
		snprintf(buf, sizeof(buf), "%s", v->path);
	else
		snprintf(buf, sizeof(buf), "[%s]", base_name(v->path));
	append_frame(out, len, cap, buf);
}

static char *fold(int64_t pid, const char *comm, const struct ms_frames *stack, size_t depth)
{
	const uint64_t *ip = stack ? stack->ip : NULL;
	size_t n = stack ? stack->n : 0, len = 0, cap = 0, i;
	struct proc_maps *pm = get_maps(pid);
	char *out = NULL;

	if (n > depth)
		n = depth;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	/* The process's name, then the frames from the outermost in. */
	cap = strlen(comm) + 64;
	out = ms_xcalloc(cap, 1);
	len = snprintf(out, cap, "%s", comm);
	for (i = 0; i < len; i++)
		if (out[i] == ';' || out[i] == ' ')
			out[i] = '_';
	if (!n)
		append_frame(&out, &len, &cap, "[no user stack]");
	for (i = n; i-- > 0;)
		add_frames(pm, ip[i], i > 0, &out, &len, &cap);
	return out;
}

static void snap_free(void *p)
{
	struct ssnap *s = p;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->rows[i].folded);
		free(s->rows[i].key);
	}
	free(s->rows);
	ms_stats_free(&s->stats);
	free(s);
}

/* Each new stack is named now, while its process still runs. */
static void *snap_take(void *p)
{
	struct stacks_ctx *c = p;
	struct ssnap *s = ms_xcalloc(1, sizeof(*s));
	int cpid, ccomm, ccount, cdepth, cstack;
	struct ms_rows t;
	size_t i;

	if (ms_load_stats(&s->stats) || ms_load_reuse(c->file, &s->reuse) ||
	    ms_load_table(c->file, &t)) {
		snap_free(s);
		return NULL;
	}
	/* The module names a file just after its first frame: wait up to a second. */
	for (i = 0; load_files() && frames_pending(&t) && i < 50; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	cpid = ms_table_col(&t, "pid");
	ccomm = ms_table_col(&t, "comm");
	ccount = ms_table_col(&t, c->what);
	cdepth = ms_table_col(&t, "depth");
	cstack = ms_table_col(&t, "stack");
	if (cpid < 0 || ccomm < 0 || ccount < 0 || cdepth < 0 || cstack < 0) {
		ms_fail("%s/%s has no pid, comm, %s, depth and stack columns, check that the module version matches this CLI (`memscope status`)",
			ms_dir(), c->file, c->what);
		ms_table_free(&t);
		snap_free(s);
		return NULL;
	}
	s->rows = ms_xcalloc(t.nrows, sizeof(*s->rows));
	for (i = 0; i < t.nrows; i++) {
		char **cell = &t.cells[i * t.ncols];
		struct srow *r = &s->rows[s->n];
		uint64_t pid, depth;
		char *key;

		if (!ms_table_u64(&t, i, (size_t)cpid, &pid) ||
		    !ms_table_u64(&t, i, (size_t)ccount, &r->count) ||
		    !ms_table_u64(&t, i, (size_t)cdepth, &depth))
			continue;
		if (c->o->has_pid && (int64_t)pid != c->o->pid)
			continue;
		if (asprintf(&key, "%s %s %s %s", cell[cpid], cell[ccomm], cell[cdepth],
			     cell[cstack]) < 0) {
			ms_fail("out of memory, free some memory");
			exit(1);
		}
		r->key = key;
		r->pid = pid;
		r->depth = depth;
		r->folded = fold(pid, cell[ccomm], t.stack ? &t.stack[i] : NULL, depth);
		s->n++;
	}
	ms_table_free(&t);
	return s;
}

static const struct srow *snap_find(const struct ssnap *s, const char *key)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (!strcmp(s->rows[i].key, key))
			return &s->rows[i];
	return NULL;
}

struct folded {
	const char *stack;
	uint64_t count;
	unsigned int depth;
};

static int folded_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

static int folded_name_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

static int snap_report(void *p, const void *pv, const void *nv, double dt)
{
	struct stacks_ctx *c = p;
	const struct ssnap *prev = pv, *now = nv;
	bool reset = prev && ms_reset_between(&now->stats, &prev->stats);
	struct folded *f = ms_xcalloc(now->n, sizeof(*f));
	uint64_t full, busy, nofile;
	size_t i, n = 0, out = 0;

	for (i = 0; i < now->n; i++) {
		const struct srow *r = &now->rows[i], *o = reset ? NULL : snap_find(prev, r->key);
		uint64_t d = o && o->count <= r->count ? r->count - o->count : r->count;

		if (d)
			f[n++] = (struct folded){ r->folded, d, r->depth };
	}
	/* One line per folded stack: rows of one name and stack in many processes add up. */
	qsort(f, n, sizeof(*f), folded_name_cmp);
	for (i = 0; i < n; i++) {
		if (out && !strcmp(f[out - 1].stack, f[i].stack)) {
			f[out - 1].count += f[i].count;
			continue;
		}
		f[out++] = f[i];
	}
	qsort(f, out, sizeof(*f), folded_cmp);

	print_begin_record();
	ms_print_timestamp(c->o);
	if (prev)
		print_float(PRINT_JSON, "interval", NULL, dt);
	open_json_array("stacks");
	for (i = 0; i < out; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "stack", "%s", f[i].stack);
		print_uint(PRINT_ANY, c->what, " %llu\n", f[i].count);
		print_uint(PRINT_JSON, "depth", NULL, f[i].depth);
		close_json_object();
	}
	close_json_array();
	full = ms_stat_delta(&now->stats, prev ? &prev->stats : NULL, "dropped");
	busy = ms_stat_delta(&now->stats, prev ? &prev->stats : NULL, "ustack_mm_busy");
	nofile = ms_stat_delta(&now->stats, prev ? &prev->stats : NULL, "ustack_files_full");
	print_uint(PRINT_JSON, "dropped", NULL, full);
	print_uint(PRINT_JSON, "ustack_mm_busy", NULL, busy);
	print_uint(PRINT_JSON, "ustack_files_full", NULL, nofile);
	/* Frames the walk took by a table, and by the frame-pointer step for want of one. */
	print_uint(PRINT_JSON, "unwind_frames", NULL,
		   ms_stat_delta(&now->stats, prev ? &prev->stats : NULL, "unwind_frames"));
	print_uint(PRINT_JSON, "unwind_no_table", NULL,
		   ms_stat_delta(&now->stats, prev ? &prev->stats : NULL, "unwind_no_table"));
	ms_warn_reuse(c->file, strcmp(c->what, "brk") ? c->what : "brk calls", true, c->o->has_pid,
		      &now->reuse, prev ? &prev->reuse : NULL);
	print_end_record();
	fflush(stdout);
	/* Warnings to stderr: stdout stays folded stacks a flame graph reads. */
	if (full)
		print_warn("%llu event%s not counted: a table was full of processes and stacks that are still running and unread (stats: dropped). Read more often, or load memscope with a larger table_size",
			   (unsigned long long)full, full == 1 ? " was" : "s were");
	/* Counted for every process and both tools: -p does not narrow them. */
	if (busy)
		print_warn("%llu user stack%s kept as addresses, recorded while %s process changed its memory map (stats: ustack_mm_busy%s): a stack's frames are named from /proc/PID/maps while its process runs, else show as [unknown]. Read with an INTERVAL to name them before their processes exit",
			   (unsigned long long)busy, busy == 1 ? " was" : "s were",
			   busy == 1 ? "its" : "their", c->o->has_pid ? ", every process's" : "");
	if (nofile)
		print_warn("%llu user stack frame%s kept as addresses: the module's table of files was full (stats: ustack_files_full%s): a frame is named from /proc/PID/maps while its process runs, else shows as [unknown]. Load memscope with a larger ustack_files",
			   (unsigned long long)nofile, nofile == 1 ? " was" : "s were",
			   c->o->has_pid ? ", every process's" : "");
	free(f);
	return 0;
}

static void snap_tick(void *ctx);
static int snap_wake_fds(void *ctx, int *fds, int max);
static void snap_wake(void *ctx);

static const struct ms_interval_ops stacks_ops = {
	.snapshot = snap_take,
	.free_snap = snap_free,
	.report = snap_report,
	.tick = snap_tick,
	.wake_fds = snap_wake_fds,
	.wake = snap_wake,
};

/*
 * A set of keys, hashed: every process's maps are read again as the tool
 * runs, and a host has thousands of mapped files.  {0, 0} is no key: a
 * file's inode and a pid are never 0.
 */
struct kkey {
	uint64_t a, b;
};

struct kset {
	struct kkey *v;
	size_t n, cap;		/* cap: 0 or a power of two */
};

static size_t kset_slot(const struct kset *s, const struct kkey *k)
{
	uint64_t h = (k->a * 0x9e3779b97f4a7c15ULL) ^ (k->b * 0xc2b2ae3d27d4eb4fULL);
	size_t i = (size_t)(h >> 17) & (s->cap - 1);

	while ((s->v[i].a || s->v[i].b) && (s->v[i].a != k->a || s->v[i].b != k->b))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static bool kset_has(const struct kset *s, const struct kkey *k)
{
	size_t i;

	if (!s->cap)
		return false;
	i = kset_slot(s, k);
	return s->v[i].a || s->v[i].b;
}

/* Out of memory, the key is not kept: it is tried again, which is harmless. */
static void kset_add(struct kset *s, const struct kkey *k)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct kset g = { .cap = s->cap ? 2 * s->cap : 256 };

		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.v)
			return;
		for (i = 0; i < s->cap; i++)
			if (s->v[i].a || s->v[i].b)
				g.v[kset_slot(&g, &s->v[i])] = s->v[i];
		g.n = s->n;
		free(s->v);
		*s = g;
	}
	i = kset_slot(s, k);
	if (!s->v[i].a && !s->v[i].b) {
		s->v[i] = *k;
		s->n++;
	}
}

static void kset_clear(struct kset *s)
{
	free(s->v);
	*s = (struct kset){ 0 };
}

/* A file's identity, as /proc/PID/maps and the module's unwind_tables give it. */
static struct kkey fid(unsigned int major, unsigned int minor, uint64_t ino)
{
	return (struct kkey){ ino, (uint64_t)major << 32 | minor };
}

/* And with its generation: dev_t's 12 + 20 bits beside the 32. */
static struct kkey fid_gen(unsigned int major, unsigned int minor, uint64_t ino, uint32_t gen)
{
	return (struct kkey){ ino, (uint64_t)(major & 0xfff) << 52 |
				   (uint64_t)(minor & 0xfffff) << 32 | gen };
}

/*
 * Unwind tables for the executable file mappings of running processes
 * that have none yet, so that the module walks their stacks without
 * frame pointers (docs/unwind.md): all of them when the tool starts, then
 * each second those of processes started (or exec()ed) since, again the
 * second after (their libraries may not have been mapped yet), and every
 * ten seconds every process's again (a library opened with dlopen()).
 * Where the kernel's process events can be had (procev.c), a program's
 * the moment it exec()s, so that one that lives under a second has its
 * tables too; its libraries at the next scan.  Quiet where the module
 * takes none (an older one, a --dir copy, not root): the frame-pointer
 * walk.
 */
struct preload {
	int wfd;		/* the module's unwind file; -1: no loading */
	int cn;			/* exec events (procev.c); -1: none */
	int wanted;		/* the module's unwind_wanted; -1: none */
	struct kset tried;	/* files tried in this run: dev, ino */
	struct kset loaded;	/* files with tables when it started: dev, ino */
	struct kset loaded_gen;	/* the same with their generation */
	struct kset pids;	/* processes (pid, executable) read since the last full pass */
	struct kset young;	/* of which first read by the last scan */
	struct kset fresh;	/* of which first read by this one */
	double last_full;
	bool full, said_full;
};

/* The files the module has unwind tables for: "dev ino gen seg_offset bytes rows". */
static void preload_loaded(struct preload *p)
{
	char *path = ms_path("unwind_tables"), line[256];
	FILE *fp = path ? fopen(path, "re") : NULL;
	unsigned int major, minor, gen;
	uint64_t ino;
	struct kkey k;

	free(path);
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%u:%u %" SCNu64 " %u", &major, &minor, &ino, &gen) == 4) {
			k = fid(major, minor, ino);
			kset_add(&p->loaded, &k);
			k = fid_gen(major, minor, ino, gen);
			kset_add(&p->loaded_gen, &k);
		}
	if (fp)
		fclose(fp);
}

/*
 * Whether the module has a table for the file at @path, (@major:@minor,
 * @ino), from before this run: the module keeps tables of files gone
 * since, and an inode number can be another file's by now.  Their
 * generation tells them apart where the filesystem says it
 * (FS_IOC_GETVERSION); where it does not, the table is taken to be this
 * file's.
 */
static bool preload_has(struct preload *p, const char *path, unsigned int major,
			unsigned int minor, uint64_t ino)
{
	struct kkey k = fid(major, minor, ino);
	int fd, gen = 0;
	bool known;

	if (!kset_has(&p->loaded, &k))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	known = fd >= 0 && !ioctl(fd, FS_IOC_GETVERSION, &gen);
	if (fd >= 0)
		close(fd);
	if (!known)
		return true;
	k = fid_gen(major, minor, ino, (uint32_t)gen);
	return kset_has(&p->loaded_gen, &k);
}

/*
 * One line of process @pid's maps: load its file's tables if it is new
 * and executable.  The file is opened as /proc/PID/map_files/START-END,
 * the very file mapped there: the maps' path is relative to the process's
 * root (a container's, a chroot's), may name another file by now (a
 * package upgrade) or none (deleted), and on overlayfs names the overlay's
 * file where the mapping is of the file under it.  Where map_files cannot
 * be opened (no CAP_SYS_ADMIN), the path, if it still names the mapped
 * file.
 */
static void preload_line(struct preload *p, const char *pid, const char *line)
{
	char perms[8], mf[320], err[512];
	unsigned int major, minor;
	uint64_t start, end, ino;
	const char *path;
	struct stat st;
	struct kkey k;
	int at = 0, r;

	if (p->wfd < 0 ||
	    sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*x %x:%x %" SCNu64 " %n", &start, &end,
		   perms, &major, &minor, &ino, &at) != 6 || !at || perms[2] != 'x' || !ino)
		return;
	k = fid(major, minor, ino);
	if (kset_has(&p->tried, &k))
		return;
	kset_add(&p->tried, &k);
	/* Named without the maps' leading zeros: 400000-41f000, not 00400000-... */
	snprintf(mf, sizeof(mf), "/proc/%s/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	path = mf;
	/*
	 * Not checked against the maps' inode: an overlay's file, which
	 * map_files names where the layer's is mapped, may show another
	 * (xino), and the module keys it by the layer's.
	 */
	if (stat(path, &st)) {
		path = line + at;
		if (*path != '/' || strstr(path, " (deleted)") || stat(path, &st) ||
		    st.st_ino != ino || major(st.st_dev) != major || minor(st.st_dev) != minor)
			return;
	}
	if (preload_has(p, path, major, minor, ino))
		return;
	r = ms_unwind_load(p->wfd, path, NULL, err, sizeof(err));
	if (r == MS_UNWIND_FULL)
		p->full = true;
	/* A module that follows none: no table is worth building. */
	if (r == MS_UNWIND_UNSUPPORTED) {
		close(p->wfd);
		p->wfd = -1;
	}
	/* r < 0: no CFI, another machine: its frames take the frame-pointer step. */
}

/*
 * A process as the pid and the program it runs: a process that exec()s
 * another after its maps were read is read again.
 */
static struct kkey proc_key(const char *pid)
{
	char exe[300];
	struct stat st;

	snprintf(exe, sizeof(exe), "/proc/%s/exe", pid);
	if (stat(exe, &st))
		st.st_ino = 0, st.st_dev = 0;	/* a kernel thread: no maps */
	return (struct kkey){ strtoull(pid, NULL, 10),
			      (uint64_t)st.st_dev << 32 ^ (uint64_t)st.st_ino };
}

/* The maps of the processes not read yet, or (@all) of every process. */
/* Each line of process @pid's maps, into preload_line(); false if it has none to read. */
static bool preload_maps(struct preload *p, const char *pid)
{
	char maps[300], *line = NULL;
	size_t cap = 0;
	FILE *fp;

	snprintf(maps, sizeof(maps), "/proc/%s/maps", pid);
	fp = fopen(maps, "re");
	while (fp && !p->full && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		preload_line(p, pid, line);
	}
	if (fp)
		fclose(fp);
	free(line);
	return fp != NULL;
}

/*
 * Process @pid's maps, read now if not yet read as its current program,
 * and once more at the next scan, for the libraries a program maps after
 * its exec().
 */
static void preload_pid(struct preload *p, const char *pid)
{
	struct kkey k = proc_key(pid);

	if (kset_has(&p->pids, &k))
		return;
	kset_add(&p->pids, &k);
	kset_add(&p->young, &k);
	preload_maps(p, pid);
}

/*
 * The files in stacks that have no table, as the module's unwind_wanted
 * lists them ("pid dev ino gen"): each one's process's maps, read again
 * (a library it dlopen()ed since they were), if the file was not tried.
 * Only when the file is readable to poll(): the module's worker named
 * new files since the last read.
 */
static void preload_wanted(struct preload *p)
{
	struct pollfd pfd = { .fd = p->wanted, .events = POLLIN };
	unsigned int major, minor;
	char line[128], spid[16];
	uint64_t ino;
	struct kkey k;
	FILE *fp;
	int fd, pid;

	if (p->wanted < 0 || p->wfd < 0 || p->full || poll(&pfd, 1, 0) <= 0 ||
	    lseek(p->wanted, 0, SEEK_SET) < 0)
		return;
	/* A read from the start shows the list anew and notes it read. */
	fd = dup(p->wanted);
	fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while (!p->full && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%d %u:%u %" SCNu64, &pid, &major, &minor, &ino) != 4 || pid <= 0)
			continue;
		k = fid(major, minor, ino);
		if (kset_has(&p->tried, &k))
			continue;
		snprintf(spid, sizeof(spid), "%d", pid);
		/*
		 * Tried once its process's maps were read; where that process
		 * is gone, another that maps the file is read at its exec() or
		 * a scan, and the file's next mention here is tried again.
		 */
		if (preload_maps(p, spid))
			kset_add(&p->tried, &k);
	}
	fclose(fp);
}

/* An exec event: the new program's tables, now. */
static void preload_exec(void *ctx, int tgid)
{
	struct preload *p = ctx;
	char pid[16];

	if (p->wfd < 0 || p->full || tgid <= 0)
		return;
	snprintf(pid, sizeof(pid), "%d", tgid);
	preload_pid(p, pid);
}

static void preload_scan(struct preload *p, bool all)
{
	struct kset before = { 0 };
	struct dirent *e;
	struct kkey k;
	DIR *d;

	if (p->wfd < 0 || p->full)
		return;
	d = opendir("/proc");
	if (!d)
		return;
	if (all) {			/* bounded by the processes that run */
		before = p->pids;
		p->pids = (struct kset){ 0 };
	}
	while (!p->full && !ms_stop && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		/*
		 * Once more the scan after the first: a process read just
		 * after its exec() may not have mapped its libraries yet.
		 */
		k = proc_key(e->d_name);
		if (!kset_has(&p->pids, &k)) {
			kset_add(&p->pids, &k);
			if (!kset_has(&before, &k))
				kset_add(&p->fresh, &k);
		} else if (!kset_has(&p->young, &k)) {
			continue;
		}
		preload_maps(p, e->d_name);
	}
	closedir(d);
	kset_clear(&before);
	kset_clear(&p->young);
	p->young = p->fresh;
	p->fresh = (struct kset){ 0 };
	if (p->full && !p->said_full) {
		p->said_full = true;
		print_note("the module's budget for unwind tables (its unwind_bytes parameter) is full: stacks through files without one are walked by frame pointers and can end early; load memscope with a larger unwind_bytes for more");
	}
}

static void preload_start(struct preload *p)
{
	char *path = ms_path("unwind");

	p->cn = p->wanted = -1;
	p->wfd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	free(path);
	if (p->wfd < 0)
		return;
	/* Listening first: a program that starts during the scan is not missed. */
	p->cn = ms_procev_open();
	/* A module before unwind_wanted: dlopen()s wait for the full scans. */
	path = ms_path("unwind_wanted");
	p->wanted = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	preload_loaded(p);
	p->last_full = ms_now_mono();
	preload_scan(p, true);
}

/* Each second: new processes; every ten seconds, all of them. */
static void preload_tick(struct preload *p)
{
	bool all = ms_now_mono() - p->last_full >= 10;

	if (all)
		p->last_full = ms_now_mono();
	preload_scan(p, all);
	preload_wanted(p);
}

static void preload_end(struct preload *p)
{
	kset_clear(&p->tried);
	kset_clear(&p->loaded);
	kset_clear(&p->loaded_gen);
	kset_clear(&p->pids);
	kset_clear(&p->young);
	kset_clear(&p->fresh);
	if (p->wfd >= 0)
		close(p->wfd);
	if (p->cn >= 0)
		close(p->cn);
	if (p->wanted >= 0)
		close(p->wanted);
	p->wfd = p->cn = p->wanted = -1;
}

static void snap_tick(void *ctx)
{
	struct stacks_ctx *c = ctx;

	if (c->pre)
		preload_tick(c->pre);
}

static int snap_wake_fds(void *ctx, int *fds, int max)
{
	struct stacks_ctx *c = ctx;
	int n = 0;

	if (c->pre && c->pre->cn >= 0 && n < max)
		fds[n++] = c->pre->cn;
	if (c->pre && c->pre->wanted >= 0 && c->pre->wfd >= 0 && !c->pre->full && n < max)
		fds[n++] = c->pre->wanted;
	return n;
}

static void snap_wake(void *ctx)
{
	struct stacks_ctx *c = ctx;

	if (c->pre->cn >= 0)
		ms_procev_read(c->pre->cn, preload_exec, c->pre);
	preload_wanted(c->pre);
}

int cmd_unwind_load(int argc, char **argv)
{
	char *path, err[512];
	int wfd, i, r, bad = 0;
	size_t bytes;

	if (argc < 1) {
		print_error("usage: memscope __unwind-load FILE...");
		return 1;
	}
	if (ms_locate_dir(NULL))
		return 1;
	path = ms_path("unwind");
	wfd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	if (wfd < 0) {
		print_error("cannot open %s: %s, load a memscope that takes unwind tables", path ? path : "unwind",
			    strerror(errno));
		free(path);
		return 1;
	}
	free(path);
	for (i = 0; i < argc; i++) {
		r = ms_unwind_load(wfd, argv[i], &bytes, err, sizeof(err));
		if (r == MS_UNWIND_FULL) {
			print_error("%s: the module's unwind_bytes budget is full, load it with a larger one", argv[i]);
			bad = 1;
		} else if (r < 0) {
			print_error("%s", err);
			bad = 1;
		} else {
			printf("%s %d %zu\n", argv[i], r, bytes);
		}
	}
	close(wfd);
	return bad;
}

/*
 * For memleak -p (tools/uleak.c): the unwind tables of the processes that
 * run, loaded as faults --stacks loads them, while it traces.
 */
void *ms_ustack_preload_start(void)
{
	struct preload *p = ms_xcalloc(1, sizeof(*p));

	p->wfd = -1;
	preload_start(p);
	return p;
}

void ms_ustack_preload_tick(void *p)
{
	struct preload *pre = p;

	/* memleak -p's loop wakes each second: the programs exec()ed meanwhile. */
	if (pre->cn >= 0)
		ms_procev_read(pre->cn, preload_exec, pre);
	preload_tick(p);
}

void ms_ustack_preload_end(void *p)
{
	preload_end(p);
	free(p);
}

/* Reads the module's `files`, waiting up to a second for the slots T's frames name. */
void ms_ustack_files_wait(const struct ms_rows *t)
{
	size_t i;

	for (i = 0; load_files() && frames_pending(t) && i < 50; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
}

/*
 * One frame as BCC's memleak prints it, "function+0xoff [object]": the
 * offset of the address itself (a return address: the instruction after
 * the call), the object the file's name.  "[unknown] [object]" where the
 * file has no symbol there, "[unknown]" where no file is known.
 */
char *ms_ustack_frame_line(int64_t pid, uint64_t ip, bool ret)
{
	const char *names[1 + MS_SYM_MAX_INLINE], *obj = NULL, *mark = NULL;
	size_t n = 0;
	uint64_t off, at, vaddr;
	char *line;

	if (ip & MEMSCOPE_FRAME_FILE) {
		uint64_t slot = (ip & ~MEMSCOPE_FRAME_FILE) >> MEMSCOPE_FRAME_SLOT_SHIFT;
		struct ufile *u = slot < nufiles && ufiles[slot].path ? &ufiles[slot] : NULL;

		off = ip & MEMSCOPE_FRAME_OFF_MASK;
		at = ret && off ? off - 1 : off;
		if (u) {
			if (!u->resolved)
				ufile_resolve(u);
			obj = base_name(u->path);
			mark = u->mark;
			if (u->src && !u->debuginfo)
				n = ms_symbolize(u->path, u->src, at, names, 1 + MS_SYM_MAX_INLINE);
			else if (u->src && ufile_vaddr(u, at, &vaddr))
				n = ms_symbolize_vaddr(u->path, u->src, vaddr, names,
						       1 + MS_SYM_MAX_INLINE);
		}
	} else {
		struct proc_maps *pm = get_maps(pid);
		const struct vma *v = find_vma(pm, ip);

		off = v ? ip - v->start + v->off : ip;
		at = ret && off ? off - 1 : off;
		if (v && v->file && v->path && v->path[0] != '[') {
			char mapped[128];

			snprintf(mapped, sizeof(mapped), "/proc/%" PRId64 "/map_files/%" PRIx64 "-%" PRIx64,
				 pm->pid, v->start, v->end);
			n = ms_symbolize(v->path, mapped, at, names, 1 + MS_SYM_MAX_INLINE);
		}
		if (v && v->path)
			obj = v->path[0] == '[' ? v->path : base_name(v->path);
	}
	if (n && obj)
		line = ms_xasprintf("%s+0x%" PRIx64 " [%s%s%s]", names[0],
				    ms_symbol_offset() + (off - at), obj, mark ? " " : "",
				    mark ? mark : "");
	else if (obj)
		line = ms_xasprintf("[unknown] [%s+0x%" PRIx64 "%s%s]", obj, off, mark ? " " : "",
				    mark ? mark : "");
	else
		line = ms_xasprintf("[unknown] [0x%" PRIx64 "]", ip);
	return line;
}

static int run_stacks(struct stacks_ctx *c, const char *tool, const char *family,
		      const char *probe, const char *cost)
{
	struct preload pre = { .wfd = -1 };
	int r;

	if (ms_check_optin(tool, family, probe, cost, c->o->kept) < 0)
		return 1;
	if (!c->o->kept) {
		preload_start(&pre);
		c->pre = &pre;
	}
	if (c->o->debug_dir)
		ms_symbols_debug_dir(c->o->debug_dir);
	if (ms_symbols_source() == MS_SYM_NONE)
		print_warn("this memscope was built without libelf (elfutils): frames are raw addresses; install libelf-dev and rebuild for function names");
	else if (ms_symbols_source() == MS_SYM_LIBELF)
		print_warn("this memscope was built without libdw (elfutils): frames are named from each file's own .symtab or .dynsym only, not from separate debuginfo (build-id, .gnu_debuglink), MiniDebugInfo or inlined functions; install libdw-dev and rebuild for them");
	if (!c->o->json && !c->o->has_interval && !ms_leased())
		print_note("Folded stacks, \"comm;outermost;...;innermost count\", since %s was enabled or memscope reset; a stack ends early in code that has neither frame pointers nor an unwind table loaded (memscope loads the tables of the files processes map as it runs: a second after a process starts, ten after a dlopen(), none once its budget is full).",
			   family);
	r = ms_run_interval(c->o, &stacks_ops, c);
	preload_end(&pre);
	return r;
}

int cmd_fault_stacks(const struct ms_opts *o)
{
	struct stacks_ctx c = { .o = o, .file = "faults_by_stack", .what = "faults" };

	return run_stacks(&c, "faults --stacks", "faultstacks", "fault_stacks",
			  "its probe walks the user stack on every page fault");
}

static int cmd_brkstack(const struct ms_opts *o)
{
	struct stacks_ctx c = { .o = o, .file = "brk_by_stack", .what = "brk" };

	return run_stacks(&c, "brkstack", "brkstack", "brk",
			  "its probe puts every system call on the slow exit path");
}

MS_TOOL(brkstack,
	.topic = MS_TOPIC_CALLS, .rank = 30,
	.opts = OPT_PID | OPT_KEPT | OPT_DEBUG_DIR | OPT_INTERVAL,
	.usage = "brkstack [-p PID] [--kept] [--debug-dir DIR] [INTERVAL [COUNT]]",
	.summary = "brk() calls by user stack, folded for flame graphs (turns brkstack on while it runs)");
