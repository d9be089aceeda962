// SPDX-License-Identifier: GPL-2.0
/*
 * pmap: what one process has in memory, mapping by mapping and page by
 * page, in the shape of `pmap -X` and with pagemon's map of one mapping.
 * Needs no module: /proc/PID/smaps names the mappings and gives Pss, Swap
 * and the dirty bytes, /proc/PID/pagemap tells each page present or
 * swapped (in a private mapping: see c_smaps[]), anonymous
 * or file, and /proc/kpageflags (root) what a present page is: THP, KSM,
 * the shared zero page (with /proc/kpagecount where kpageflags' KSM bit
 * cannot be trusted, see pm_check_pfns()).
 *
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memscope.h"

#include "pmap.h"

static const char *const c_keys[C_NR] = {
	"rss_kb", "pss_kb", "swap_kb", "dirty_kb", "anon_kb", "file_kb", "thp_kb", "ksm_kb",
	"zero_kb",
};
static const char *const c_heads[C_NR] = {
	"Rss", "Pss", "Swap", "Dirty", "Anon", "File", "THP", "KSM", "Zero",
};
/* Columns that need /proc/kpageflags: without it, "-". */
static const bool c_kpf[C_NR] = { [C_THP] = true, [C_KSM] = true, [C_ZERO] = true };
/*
 * Columns smaps sums and pagemap cannot: Pss needs every page's map count,
 * Dirty the page flags of another process's pages, and Swap, in a shared
 * (shmem) mapping, lives in the shmem file's page cache, not the page
 * table, so pagemap shows a swapped-out shared page as not present.
 */
static const bool c_smaps[C_NR] = { [C_PSS] = true, [C_SWAP] = true, [C_DIRTY] = true };

void pm_free_maps(struct pm_proc *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->maps[i].name);
	free(p->maps);
	p->maps = NULL;
	p->n = 0;
}

/*
 * What to do when /proc/PID/{mem,pagemap,smaps} is refused: they take
 * ptrace's read access.  An owner is refused too where Yama's ptrace_scope
 * is 1 or more (its kernel default; Debian's patch makes it 0, RHEL's
 * sysctl.d sets 0, a bare RHEL kernel keeps 1): say so, not "be the owner".
 */
const char *pm_access_advice(int64_t pid, char *buf, size_t len)
{
	char path[64];
	struct stat st;
	int scope = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRId64, pid);
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope > 0 && geteuid() != 0 && !stat(path, &st) && st.st_uid == geteuid())
		snprintf(buf, len, "Yama's kernel.yama.ptrace_scope is %d, which lets only %s read another process's memory: run as root%s",
			 scope, scope == 1 ? "its ancestors and root" : "root",
			 scope == 1 ? ", or set kernel.yama.ptrace_scope=0" : "");
	else
		snprintf(buf, len, "run as root or as the process's owner");
	return buf;
}

static int pm_open_err(const char *path, int64_t pid)
{
	char advice[160];

	if (errno == ENOENT || errno == ESRCH)
		print_error("no process %" PRId64 " (%s is gone), check the PID with ps -e", pid, path);
	else if (errno == EACCES || errno == EPERM) {
		const char *why = strerror(errno);

		print_error("cannot read %s: %s, %s", path, why,
			    pm_access_advice(pid, advice, sizeof(advice)));
	}
	else
		print_error("cannot read %s: %s", path, strerror(errno));
	return -1;
}

/* The mappings and their smaps fields, in address order. */
int pm_read_smaps(struct pm_proc *p)
{
	char path[64], *line = NULL, key[64];
	size_t cap = 0, alloc = 0;
	struct pm_map *m = NULL;
	unsigned long long v;
	FILE *fp;
	int len;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/smaps", p->pid);
	fp = fopen(path, "re");
	if (!fp)
		return pm_open_err(path, p->pid);
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long s, e, off;
		char perm[5];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %4s %llx %*s %*u %n", &s, &e, perm, &off, &name_at) >= 4 &&
		    name_at) {
			if (p->n == alloc) {
				struct pm_map *nm;

				alloc = alloc ? alloc * 2 : 64;
				nm = realloc(p->maps, alloc * sizeof(*nm));
				if (!nm) {
					ms_fail("out of memory, free some memory");
					goto fail;
				}
				p->maps = nm;
			}
			m = &p->maps[p->n++];
			memset(m, 0, sizeof(*m));
			m->start = s;
			m->end = e;
			m->offset = off;
			memcpy(m->perm, perm, sizeof(m->perm));
			line[strcspn(line, "\n")] = '\0';
			m->name = ms_xstrdup(line + name_at);
			continue;
		}
		if (!m)
			continue;
		if (!strncmp(line, "VmFlags:", 8)) {
			m->pfnmap = strstr(line, " pf") != NULL;
			m->mergeable = strstr(line, " mg") != NULL;
			continue;
		}
		if (sscanf(line, "%63[^:]: %llu kB%n", key, &v, &len) < 2)
			continue;
		if (!strcmp(key, "Rss"))
			m->smaps_rss_kb = v;
		else if (!strcmp(key, "Pss"))
			m->smaps_kb[C_PSS] = v;
		else if (!strcmp(key, "Swap"))
			m->smaps_kb[C_SWAP] = v;
		else if (!strcmp(key, "Private_Dirty") || !strcmp(key, "Shared_Dirty"))
			m->smaps_kb[C_DIRTY] += v;
	}
	if (ferror(fp)) {
		pm_open_err(path, p->pid);
		goto fail;
	}
	free(line);
	fclose(fp);
	return 0;
fail:
	free(line);
	fclose(fp);
	return -1;
}

uint64_t pm_kpageflags(struct pm_proc *p, uint64_t pfn)
{
	uint64_t f;

	if (pread(p->kpf_fd, &f, sizeof(f), (off_t)(pfn * sizeof(f))) != (ssize_t)sizeof(f))
		return 0;
	return f;
}

uint64_t pm_kpagecount(struct pm_proc *p, uint64_t pfn)
{
	uint64_t n;

	if (pread(p->kpc_fd, &n, sizeof(n), (off_t)(pfn * sizeof(n))) != (ssize_t)sizeof(n))
		return 0;
	return n;
}

/*
 * One page's map character: '.' not present, 'S' swapped, '0' the zero
 * page, 'K' KSM, 'T' THP, 'A' anonymous, 'F' file and 'D' file dirty.
 */
static char pm_page(struct pm_proc *p, const struct pm_map *m, uint64_t e, uint64_t *pages)
{
	uint64_t f = 0;
	bool anon;

	if (!(e & PM_PRESENT)) {
		if (!(e & PM_SWAP))
			return '.';
		pages[C_SWAP]++;
		return 'S';
	}
	/* A PFN map's pages are nobody's memory: smaps counts no Rss. */
	if (m->pfnmap)
		return '.';
	if (p->kpf) {
		f = pm_kpageflags(p, e & PM_PFN_MASK);
		if (f & (1ULL << KPF_ZERO_PAGE)) {
			pages[C_ZERO]++;
			return '0';
		}
		anon = f & (1ULL << KPF_ANON);
	} else {
		anon = !(e & PM_FILE);
	}
	pages[C_RSS]++;
	pages[anon ? C_ANON : C_FILE]++;
	/*
	 * Where KPF_KSM is set on every anonymous page, a KSM page is one
	 * that more than one address maps (a stable page KSM merged into).
	 * An anonymous page a fork() shares is mapped twice too: in a
	 * mergeable mapping on such a kernel, it shows as KSM.
	 */
	if ((f & (1ULL << KPF_KSM)) && m->mergeable &&
	    (!p->ksm_flag_broken || pm_kpagecount(p, e & PM_PFN_MASK) > 1)) {
		pages[C_KSM]++;
		return 'K';
	}
	if (f & (1ULL << KPF_THP)) {
		pages[C_THP]++;
		return 'T';
	}
	if (anon)
		return 'A';
	return f & (1ULL << KPF_DIRTY) ? 'D' : 'F';
}

/*
 * smaps' Rss and Swap count every page but the zero page, which only a
 * readable private mapping can map.  A mapping with neither, and no
 * read access or a size no zero page is worth walking (a reservation of
 * many GiB, ASan's shadow), has nothing pagemap would show.
 */
bool pm_worth_walking(const struct pm_map *m)
{
	if (m->smaps_rss_kb || m->smaps_kb[C_SWAP])
		return true;
	return m->perm[0] == 'r' && m->perm[3] == 'p' && !m->pfnmap &&
	       m->end - m->start <= (64ULL << 30);
}

/* Walk a mapping's pagemap entries; with @map, also its characters. */
int pm_walk(struct pm_proc *p, struct pm_map *m, char *map)
{
	uint64_t buf[PM_BATCH], va, n, i, got;
	ssize_t r;

	for (va = m->start; va < m->end; va += n * p->page) {
		n = (m->end - va) / p->page;
		if (n > PM_BATCH)
			n = PM_BATCH;
		r = pread(p->pagemap_fd, buf, n * sizeof(buf[0]),
			  (off_t)(va / p->page * sizeof(buf[0])));
		if (r < 0) {
			print_error("cannot read /proc/%" PRId64 "/pagemap: %s", p->pid, strerror(errno));
			return -1;
		}
		got = (uint64_t)r / sizeof(buf[0]);
		if (got == 0)
			break;		/* the mapping went away under us */
		for (i = 0; i < got; i++) {
			char c = pm_page(p, m, buf[i], m->pages);

			if (map)
				map[(va - m->start) / p->page + i] = c;
		}
		n = got;
	}
	return 0;
}

int pm_open(struct pm_proc *p, int64_t pid)
{
	char path[64];
	FILE *fp;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->page = sysconf(_SC_PAGESIZE);
	p->pagemap_fd = -1;
	p->kpf_fd = -1;
	p->kpc_fd = -1;
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/comm", pid);
	fp = fopen(path, "re");
	if (!fp)
		return pm_open_err(path, pid);
	if (!fgets(p->comm, sizeof(p->comm), fp))
		p->comm[0] = '\0';
	p->comm[strcspn(p->comm, "\n")] = '\0';
	fclose(fp);
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/pagemap", pid);
	p->pagemap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->pagemap_fd < 0) {
		if (errno == ESRCH)
			print_error("process %" PRId64 " (%s) has no user memory (a kernel thread, or a zombie): pmap shows a process's user mappings",
				    pid, p->comm);
		else if (errno == ENOENT && access("/proc/self/pagemap", F_OK))
			print_error("this kernel has no /proc/PID/pagemap (CONFIG_PROC_PAGE_MONITOR is off), pmap cannot run here");
		else
			pm_open_err(path, pid);
		return -1;
	}
	p->kpf_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	p->kpc_fd = open("/proc/kpagecount", O_RDONLY | O_CLOEXEC);
	p->kpf = p->kpf_fd >= 0 && p->kpc_fd >= 0;
	return 0;
}

void pm_close(struct pm_proc *p)
{
	pm_free_maps(p);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	if (p->kpf_fd >= 0)
		close(p->kpf_fd);
	if (p->kpc_fd >= 0)
		close(p->kpc_fd);
}

/*
 * Without CAP_SYS_ADMIN, pagemap reads every PFN as zero (Linux 4.2+), and
 * kpageflags is root's alone: say once what that costs.
 *
 * And from Linux 6.10 ("proc: rewrite stable_page_flags()") until its fix,
 * kpageflags sets KPF_KSM on every anonymous page (it tests mapping &
 * PAGE_MAPPING_KSM, which the anon bit alone satisfies).  KSM only merges
 * in VM_MERGEABLE ("mg") mappings, so one anonymous page outside them
 * with KPF_KSM tells such a kernel.
 */
void pm_check_pfns(struct pm_proc *p)
{
	static bool warned;
	bool pfn_known = false, ksm_known = false;
	size_t i;

	for (i = 0; p->kpf && i < p->n && !(pfn_known && ksm_known); i++) {
		struct pm_map *m = &p->maps[i];
		uint64_t va, ent, f;

		if (!m->smaps_rss_kb || m->pfnmap || (pfn_known && m->mergeable))
			continue;
		for (va = m->start; va < m->end; va += p->page) {
			if (pread(p->pagemap_fd, &ent, sizeof(ent),
				  (off_t)(va / p->page * sizeof(ent))) != sizeof(ent))
				break;
			if (!(ent & PM_PRESENT))
				continue;
			/* A real PFN is never 0 here. */
			if (!(ent & PM_PFN_MASK)) {
				p->kpf = false;
				break;
			}
			pfn_known = true;
			if (m->mergeable)
				break;
			f = pm_kpageflags(p, ent & PM_PFN_MASK);
			if (!(f & (1ULL << KPF_ANON)))
				break;		/* a file page: try the next mapping */
			p->ksm_flag_broken = f & (1ULL << KPF_KSM);
			ksm_known = true;
			break;
		}
	}
	if (p->kpf || warned)
		return;
	warned = true;
	print_warn("/proc/kpageflags and page frame numbers need root (CAP_SYS_ADMIN): "
		   "THP, KSM and Zero show \"-\", Rss counts zero-page mappings, and "
		   "Anon/File come from pagemap alone; run as root for all of them");
}

/* A mapping's KiB in column @c: smaps' sum, or its pages pagemap counted. */
static uint64_t pm_kb(const struct pm_map *m, int c, long page)
{
	return c_smaps[c] ? m->smaps_kb[c] : m->pages[c] * (uint64_t)page / 1024;
}

static void pm_print_counts(const uint64_t *kb, bool kpf)
{
	int c;

	for (c = 0; c < C_NR; c++) {
		if (c_kpf[c] && !kpf) {
			print_fp(" %8s", "-");
			if (print_is_json())
				print_string(PRINT_JSON, c_keys[c], NULL, NULL);
			continue;
		}
		print_uint(PRINT_ANY, c_keys[c], " %8llu", kb[c]);
	}
}

const struct pm_map *pm_find(const struct pm_proc *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

static void pm_print_map(const struct pm_map *m, const char *map, long page)
{
	uint64_t n = (m->end - m->start) / page, i;
	const int width = 64;

	if (print_is_json()) {
		char addr[24];

		snprintf(addr, sizeof(addr), "%" PRIx64, m->start);
		print_string(PRINT_JSON, "map_address", NULL, addr);
		print_string(PRINT_JSON, "map", NULL, map);
		return;
	}
	print_fp("\n%" PRIx64 "-%" PRIx64 " %s %s, one character per %ld KiB page:\n",
		 m->start, m->end, m->perm, *m->name ? m->name : "[ anon ]", page / 1024);
	for (i = 0; i < n; i += width)
		print_fp("%16" PRIx64 " %.*s\n", m->start + i * page,
			 (int)(n - i < (uint64_t)width ? n - i : (uint64_t)width), map + i);
	print_fp("legend: " PM_LEGEND1 "\n        " PM_LEGEND2 "\n");
}

/* pmap -X's table: a line per mapping, then the totals. */
static void pm_print_maps(const struct pm_proc *p)
{
	uint64_t total[C_NR] = { 0 }, kb[C_NR], size_kb = 0;
	size_t i;
	int c;

	print_int(PRINT_ANY, "pid", "%lld:", p->pid);
	print_string(PRINT_ANY, "comm", "   %s\n", p->comm);
	print_bool(PRINT_JSON, "kpageflags", NULL, p->kpf);
	print_fp("%16s %4s %8s %8s", "Address", "Perm", "Offset", "Size");
	for (c = 0; c < C_NR; c++)
		print_fp(" %8s", c_heads[c]);
	print_fp(" Mapping\n");
	open_json_array("mappings");
	for (i = 0; i < p->n; i++) {
		const struct pm_map *m = &p->maps[i];
		char addr[24];

		snprintf(addr, sizeof(addr), "%" PRIx64, m->start);
		open_json_object(NULL);
		print_string(PRINT_ANY, "address", "%16s", addr);
		print_string(PRINT_ANY, "perm", " %4s", m->perm);
		print_uint(PRINT_FP, NULL, " %08llx", m->offset);
		print_uint(PRINT_JSON, "offset", NULL, m->offset);
		print_uint(PRINT_ANY, "size_kb", " %8llu", (m->end - m->start) / 1024);
		for (c = 0; c < C_NR; c++) {
			kb[c] = pm_kb(m, c, p->page);
			total[c] += kb[c];
		}
		pm_print_counts(kb, p->kpf);
		print_string(PRINT_ANY, "mapping", " %s\n", m->name);
		close_json_object();
		size_kb += (m->end - m->start) / 1024;
	}
	close_json_array();
	print_fp("%16s %4s %8s %8s", "", "", "", "========");
	for (c = 0; c < C_NR; c++)
		print_fp(" %8s", "========");
	print_fp("\n");
	open_json_object("total");
	print_fp("%16s %4s %8s", "", "", "");
	print_uint(PRINT_ANY, "size_kb", " %8llu", size_kb);
	pm_print_counts(total, p->kpf);
	print_fp(" KB\n");
	close_json_object();
}

static int pm_report(const struct ms_opts *o, uint64_t map_addr, bool want_map)
{
	struct pm_proc p;
	const struct pm_map *mm = NULL;
	char *map = NULL;
	size_t i;
	int ret = -1;

	if (pm_open(&p, o->pid))
		return -1;
	if (pm_read_smaps(&p))
		goto out;
	pm_check_pfns(&p);
	if (want_map) {
		mm = pm_find(&p, map_addr);
		if (!mm) {
			print_error("no mapping of process %" PRId64 " holds address %" PRIx64
				    ", pick an Address from `memscope pmap -p %" PRId64 "`",
				    o->pid, map_addr, o->pid);
			goto out;
		}
		/* A character a page: a reservation of TiB (ASan's shadow) is not drawable. */
		if ((mm->end - mm->start) / p.page > PM_MAP_MAX) {
			print_error("the mapping at %" PRIx64 " is %" PRIu64 " MiB, too large to draw a character a page (at most %u MiB); pick a smaller one",
				    mm->start, (mm->end - mm->start) >> 20,
				    (unsigned int)(PM_MAP_MAX * (uint64_t)p.page >> 20));
			goto out;
		}
		map = ms_xcalloc((mm->end - mm->start) / p.page + 1, 1);
		memset(map, '.', (mm->end - mm->start) / p.page);
	}
	for (i = 0; i < p.n; i++) {
		struct pm_map *m = &p.maps[i];

		if (m != mm && !pm_worth_walking(m))
			continue;
		if (pm_walk(&p, m, m == mm ? map : NULL))
			goto out;
	}

	print_begin_record();
	ms_print_timestamp(o);
	pm_print_maps(&p);
	if (mm)
		pm_print_map(mm, map, p.page);
	print_end_record();
	ret = 0;
out:
	free(map);
	pm_close(&p);
	return ret;
}

static int cmd_pmap(const struct ms_opts *o)
{
	uint64_t map_addr = 0;
	double every = o->has_interval ? o->interval : o->delay;
	bool repeat = o->has_interval || o->has_delay;
	bool tty = repeat && !o->json && isatty(STDOUT_FILENO) && !ms_test_steps();
	uint64_t i;

	if (!o->has_pid) {
		print_error("pmap needs a process: memscope pmap -p PID");
		return -1;
	}
	if (o->map) {
		const char *s = o->map;
		char *end;

		if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
			s += 2;
		errno = 0;
		map_addr = strtoull(s, &end, 16);
		if (!isxdigit((unsigned char)*s) || *end || errno) {
			print_error("bad --map \"%s\", give an address from pmap's Address column, e.g. --map 7f3a1c000000",
				    o->map);
			return -1;
		}
	}
	if (o->interactive && (o->has_interval || o->json)) {
		print_error("pmap -i draws on the terminal every -d SECONDS: it takes no %s, usage: memscope pmap -i -p PID [--map ADDRESS] [-d SECONDS]",
			    o->json ? "-j" : "INTERVAL or COUNT");
		return -1;
	}
	if (o->interactive)
		return pm_interactive(o, map_addr, o->map != NULL);
	if (!repeat)
		return pm_report(o, map_addr, o->map != NULL);
	ms_interval_start();
	for (i = 0; o->count == 0 || i < o->count; i++) {
		if (i && !ms_interval_wait(every))
			break;
		if (tty)
			fputs("\033[H\033[2J", stdout);
		if (pm_report(o, map_addr, o->map != NULL))
			return -1;
		fflush(stdout);
	}
	return 0;
}

MS_TOOL(pmap,
	.topic = MS_TOPIC_VIEWS, .rank = 20,
	.opts = OPT_PID | OPT_MAP | OPT_DELAY | OPT_INTERVAL | OPT_INTERACTIVE,
	.flags = MS_TOOL_NO_MODULE,
	.usage = "pmap -p PID [--map ADDRESS] [-i] [-d SECONDS | INTERVAL [COUNT]]",
	.summary = "per mapping: resident, swapped, dirty, anonymous, file, THP, KSM and zero-page KiB; --map: one mapping page by page (root for THP, KSM, zero page); -i: the page map on the terminal, cursor, zoom and each page's detail and bytes");
