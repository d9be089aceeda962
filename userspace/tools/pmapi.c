// SPDX-License-Identifier: GPL-2.0
/*
 * pmap -i: pagemon's interactive view of one process's pages.  The map is
 * pmap --map's, a character a page from pm_walk(), over every mapping (or
 * one, with --map), redrawn every -d SECONDS with the process's memory
 * from /proc/PID/status.  Enter shows the page under the cursor: its
 * pagemap entry, PFN, kpageflags and kpagecount, and its bytes read through
 * /proc/PID/mem.
 *
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memscope.h"
#include "pmap.h"

#ifdef MS_HAVE_NCURSES
#include <curses.h>

#define PI_ZOOM_MAX	4096		/* pages a cell can stand for */
#define PI_PAGES_MAX	(4ULL * PM_MAP_MAX)	/* pages the whole-process map holds */
#define PI_ADDR_W	17		/* a row's address and a space */

/*
 * A cell of several pages shows the strongest of their characters, in
 * this order, strongest first: what is rare and telling (KSM, THP) before
 * plain memory, memory before swap, and anything before nothing.
 */
static const char pi_strength[] = "KTADFS0.";

/* One mapping the map draws: its pages' characters are chars[base...]. */
struct pi_seg {
	uint64_t start, end, base, npages;
	size_t map;		/* its index in pm_proc's maps, while loading */
	size_t first_row;
	char perm[5];
	char name[80];
};

/* One screen row: cells of zoom pages from page first of segment seg. */
struct pi_row {
	size_t seg;
	uint64_t first;
	unsigned int cells;
};

struct pi_view {
	int64_t pid;
	char comm[64];
	bool want_map;
	uint64_t map_addr;
	double every;
	long page;
	bool kpf;		/* PFNs and kpageflags readable */
	bool ksm_flag_broken;	/* KPF_KSM on every anonymous page (pm_check_pfns) */
	struct pi_seg *segs;
	size_t nsegs, skipped;
	char *chars;
	struct pi_row *rows;
	size_t nrows, top, row;
	unsigned int col, zoom, width;
	uint64_t anchor;	/* the page under the cursor */
	char status[256];	/* the process's memory, or why the map is old */
	bool exited;
};

static bool pi_curses;
static int pi_saved_stderr = -1;
static FILE *pi_errors;

/* Undo what pi_start() did; atexit() too, for an ms_fail() exit. */
static void pi_restore(void)
{
	if (pi_curses) {
		endwin();
		pi_curses = false;
	}
	if (pi_saved_stderr >= 0) {
		dup2(pi_saved_stderr, STDERR_FILENO);
		close(pi_saved_stderr);
		pi_saved_stderr = -1;
	}
}

/* The last line pmap's readers printed to stderr (a tmpfile under curses). */
static void pi_last_error(char *buf, size_t len)
{
	char line[512];

	buf[0] = '\0';
	if (!pi_errors)
		return;
	rewind(pi_errors);
	while (fgets(line, sizeof(line), pi_errors))
		if (line[0] != '\n')
			snprintf(buf, len, "%.*s", (int)strcspn(line, "\n"), line);
	rewind(pi_errors);
	if (ftruncate(fileno(pi_errors), 0) != 0)
		return;
}

/* A process that is gone, or a zombie, has no memory to show any more. */
static bool pi_alive(int64_t pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && errno != ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* The status line: what /proc/PID/status says the process holds. */
static void pi_read_status(struct pi_view *v)
{
	static const char *const keys[] = { "VmRSS", "RssAnon", "RssFile", "RssShmem", "VmSwap" };
	char path[64], line[256];
	size_t i, at = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/status", v->pid);
	fp = fopen(path, "re");
	if (!fp)
		return;
	v->status[0] = '\0';
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long kb;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i]);

			if (strncmp(line, keys[i], n) || line[n] != ':' ||
			    sscanf(line + n + 1, "%llu", &kb) != 1 || at >= sizeof(v->status))
				continue;
			at += (size_t)snprintf(v->status + at, sizeof(v->status) - at, "%s%s %llu kB",
					       at ? "  " : "", keys[i], kb);
		}
	}
	fclose(fp);
	if (at < sizeof(v->status))
		snprintf(v->status + at, sizeof(v->status) - at, "  (every %g s)", v->every);
}

static bool pi_drawn(const struct pm_map *m, long page)
{
	return (m->end - m->start) / (uint64_t)page <= PM_MAP_MAX;
}

/*
 * Read the process's mappings and pages again.  On success the view
 * holds the new map; on failure the old one, and -1.
 */
static int pi_load(struct pi_view *v)
{
	struct pi_seg *segs = NULL;
	const struct pm_map *want = NULL;
	uint64_t total = 0;
	size_t i, k, n = 0, skipped = 0;
	struct pm_proc p;
	char *chars = NULL;
	int ret = -1;

	if (pm_open(&p, v->pid))
		return -1;
	if (pm_read_smaps(&p))
		goto out;
	pm_check_pfns(&p);
	if (v->want_map) {
		want = pm_find(&p, v->map_addr);
		if (!want) {
			print_error("no mapping of process %" PRId64 " holds address %" PRIx64
				    ", pick an Address from `memscope pmap -p %" PRId64 "`",
				    v->pid, v->map_addr, v->pid);
			goto out;
		}
		if (!pi_drawn(want, p.page)) {
			print_error("the mapping at %" PRIx64 " is %" PRIu64 " MiB, too large to draw (at most %u MiB); pick a smaller one",
				    want->start, (want->end - want->start) >> 20,
				    (unsigned int)(PM_MAP_MAX * (uint64_t)p.page >> 20));
			goto out;
		}
	}
	segs = ms_xcalloc(p.n ? p.n : 1, sizeof(*segs));
	for (i = 0; i < p.n; i++) {
		const struct pm_map *m = &p.maps[i];
		uint64_t pages = (m->end - m->start) / (uint64_t)p.page;

		if ((want && m != want) || (!want && (!pi_drawn(m, p.page) || total + pages > PI_PAGES_MAX))) {
			skipped += !want;
			continue;
		}
		segs[n].map = i;
		segs[n].start = m->start;
		segs[n].end = m->end;
		segs[n].base = total;
		segs[n].npages = pages;
		memcpy(segs[n].perm, m->perm, sizeof(segs[n].perm));
		snprintf(segs[n].name, sizeof(segs[n].name), "%s", *m->name ? m->name : "[ anon ]");
		total += pages;
		n++;
	}
	chars = ms_xcalloc(total + 1, 1);
	memset(chars, '.', total);
	for (k = 0; k < n; k++) {
		struct pm_map *m = &p.maps[segs[k].map];

		if ((m == want || pm_worth_walking(m)) && pm_walk(&p, m, chars + segs[k].base))
			goto out;
	}
	free(v->segs);
	free(v->chars);
	v->segs = segs;
	v->chars = chars;
	v->nsegs = n;
	v->skipped = skipped;
	v->kpf = p.kpf;
	v->ksm_flag_broken = p.ksm_flag_broken;
	snprintf(v->comm, sizeof(v->comm), "%s", p.comm);
	segs = NULL;
	chars = NULL;
	ret = 0;
out:
	free(segs);
	free(chars);
	pm_close(&p);
	return ret;
}

static char pi_stronger(char a, char b)
{
	const char *pa = strchr(pi_strength, a), *pb = strchr(pi_strength, b);

	if (!pa)
		return b;
	return pb && pb < pa ? b : a;
}

/* The character of a cell: the strongest of its pages'. */
static char pi_cell(const struct pi_view *v, const struct pi_row *r, unsigned int col)
{
	const struct pi_seg *s = &v->segs[r->seg];
	uint64_t first = r->first + (uint64_t)col * v->zoom, i, end = first + v->zoom;
	char c = '.';

	if (end > s->npages)
		end = s->npages;
	for (i = first; i < end; i++)
		c = pi_stronger(c, v->chars[s->base + i]);
	return c;
}

/* Rows for the screen's width and the zoom: each mapping starts a row. */
static void pi_layout(struct pi_view *v)
{
	size_t i, n = 0;
	uint64_t cells, c;

	v->width = COLS > PI_ADDR_W + 8 ? (unsigned int)(COLS - PI_ADDR_W) / 8 * 8 : 8;
	for (i = 0; i < v->nsegs; i++)
		n += (v->segs[i].npages + v->zoom * (uint64_t)v->width - 1) / (v->zoom * (uint64_t)v->width);
	free(v->rows);
	v->rows = ms_xcalloc(n ? n : 1, sizeof(*v->rows));
	v->nrows = 0;
	for (i = 0; i < v->nsegs; i++) {
		cells = (v->segs[i].npages + v->zoom - 1) / v->zoom;
		v->segs[i].first_row = v->nrows;
		for (c = 0; c < cells; c += v->width) {
			struct pi_row *r = &v->rows[v->nrows++];

			r->seg = i;
			r->first = c * v->zoom;
			r->cells = (unsigned int)(cells - c < v->width ? cells - c : v->width);
		}
	}
}

/* Put the cursor on the cell that holds the anchor page (or the nearest). */
static void pi_locate(struct pi_view *v)
{
	const struct pi_seg *s = NULL;
	uint64_t cell;
	size_t i;

	v->row = 0;
	v->col = 0;
	if (!v->nrows)
		return;
	for (i = 0; i < v->nsegs && !s; i++)
		if (v->anchor < v->segs[i].end)
			s = &v->segs[i];
	if (!s) {
		s = &v->segs[v->nsegs - 1];
		v->anchor = s->end - (uint64_t)v->page;
	} else if (v->anchor < s->start) {
		v->anchor = s->start;
	}
	cell = (v->anchor - s->start) / (uint64_t)v->page / v->zoom;
	v->row = s->first_row + cell / v->width;
	v->col = (unsigned int)(cell % v->width);
}

/* The first page of the cursor's cell: where a move leaves the anchor. */
static void pi_anchor(struct pi_view *v)
{
	const struct pi_row *r = &v->rows[v->row];

	if (v->col >= r->cells)
		v->col = r->cells - 1;
	v->anchor = v->segs[r->seg].start + (r->first + (uint64_t)v->col * v->zoom) * (uint64_t)v->page;
}

static int pi_map_height(void)
{
	return LINES - 6 > 1 ? LINES - 6 : 1;
}

static void pi_draw(struct pi_view *v)
{
	int h = pi_map_height(), y;
	size_t r;
	unsigned int c;

	erase();
	if (v->row < v->top)
		v->top = v->row;
	if (v->row >= v->top + (size_t)h)
		v->top = v->row - (size_t)h + 1;
	attron(A_BOLD);
	if (v->want_map && v->nsegs)
		mvprintw(0, 0, "memscope pmap -i: PID %" PRId64 " (%s), mapping %" PRIx64 "-%" PRIx64 ", %u page%s per cell",
			 v->pid, v->comm, v->segs[0].start, v->segs[0].end, v->zoom, v->zoom > 1 ? "s" : "");
	else
		mvprintw(0, 0, "memscope pmap -i: PID %" PRId64 " (%s), whole process, %u page%s per cell",
			 v->pid, v->comm, v->zoom, v->zoom > 1 ? "s" : "");
	if (v->skipped)
		printw(" (%zu mappings too large, not drawn)", v->skipped);
	attroff(A_BOLD);
	if (v->exited)
		attron(A_REVERSE);
	mvprintw(1, 0, "%s", v->status);
	attroff(A_REVERSE);
	for (y = 0, r = v->top; y < h && r < v->nrows; y++, r++) {
		const struct pi_row *row = &v->rows[r];

		mvprintw(2 + y, 0, "%16" PRIx64 " ",
			 v->segs[row->seg].start + row->first * (uint64_t)v->page);
		for (c = 0; c < row->cells; c++) {
			char ch = pi_cell(v, row, c);

			if (r == v->row && c == v->col)
				addch((chtype)(unsigned char)ch | A_REVERSE);
			else
				addch((chtype)(unsigned char)ch);
		}
	}
	if (v->nrows) {
		const struct pi_seg *s = &v->segs[v->rows[v->row].seg];

		mvprintw(LINES - 4, 0, "cursor %" PRIx64 " '%c' in %" PRIx64 "-%" PRIx64 " %s %s",
			 v->anchor, v->chars[s->base + (v->anchor - s->start) / (uint64_t)v->page],
			 s->start, s->end, s->perm, s->name);
	} else {
		mvprintw(LINES - 4, 0, "no mappings");
	}
	mvprintw(LINES - 3, 0, "legend: " PM_LEGEND1);
	mvprintw(LINES - 2, 0, "        " PM_LEGEND2);
	mvprintw(LINES - 1, 0, "keys: arrows PgUp PgDn Home End move, + - pages per cell, Enter page, q quit");
	if (v->nrows)
		move(2 + (int)(v->row - v->top), PI_ADDR_W + (int)v->col);
	refresh();
}

static void pi_key_move(struct pi_view *v, int key)
{
	size_t h = (size_t)pi_map_height();

	if (!v->nrows)
		return;
	switch (key) {
	case KEY_LEFT:
		if (v->col > 0)
			v->col--;
		else if (v->row > 0)
			v->col = v->rows[--v->row].cells - 1;
		break;
	case KEY_RIGHT:
		if (v->col + 1 < v->rows[v->row].cells)
			v->col++;
		else if (v->row + 1 < v->nrows)
			v->row++, v->col = 0;
		break;
	case KEY_UP:
		if (v->row > 0)
			v->row--;
		break;
	case KEY_DOWN:
		if (v->row + 1 < v->nrows)
			v->row++;
		break;
	case KEY_PPAGE:
		v->row = v->row > h ? v->row - h : 0;
		break;
	case KEY_NPAGE:
		v->row = v->row + h < v->nrows ? v->row + h : v->nrows - 1;
		break;
	case KEY_HOME:
		v->row = 0, v->col = 0;
		break;
	case KEY_END:
		v->row = v->nrows - 1, v->col = v->rows[v->row].cells - 1;
		break;
	}
	pi_anchor(v);
}

/* kpageflags' bits, include/uapi/linux/kernel-page-flags.h and fs/proc/page.c */
static const char *const pi_kpf_names[] = {
	"locked", "error", "referenced", "uptodate", "dirty", "lru", "active", "slab",
	"writeback", "reclaim", "buddy", "mmap", "anon", "swapcache", "swapbacked",
	"compound_head", "compound_tail", "huge", "unevictable", "hwpoison", "nopage", "ksm",
	"thp", "offline", "zero_page", "idle", "pgtable",
	[32] = "reserved", "mlocked", "mappedtodisk", "private", "private_2", "owner_private",
	"arch", "uncached", "softdirty", "arch_2", "arch_3",
};

#define PI_DETAIL_HEAD	7
#define PI_HEX_LINES	256		/* 16 bytes a line */

struct pi_detail {
	char head[PI_DETAIL_HEAD][256];
	unsigned char bytes[4096];
	bool have_bytes;
	char why[256];			/* why there are no bytes */
};

static uint64_t pi_pread_u64(const char *path, uint64_t index, bool *ok)
{
	uint64_t v = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*ok = fd >= 0 && pread(fd, &v, sizeof(v), (off_t)(index * sizeof(v))) == (ssize_t)sizeof(v);
	if (fd >= 0)
		close(fd);
	return v;
}

static void pi_flag_names(uint64_t f, char *buf, size_t len)
{
	size_t at = 0, b;

	buf[0] = '\0';
	for (b = 0; b < 64 && at < len; b++) {
		if (!(f & (1ULL << b)))
			continue;
		if (b < sizeof(pi_kpf_names) / sizeof(pi_kpf_names[0]) && pi_kpf_names[b])
			at += (size_t)snprintf(buf + at, len - at, " %s", pi_kpf_names[b]);
		else
			at += (size_t)snprintf(buf + at, len - at, " bit%zu", b);
	}
}

/* What the kernel says of the page at addr, read once, when Enter is pressed. */
static void pi_read_detail(const struct pi_view *v, uint64_t addr, struct pi_detail *d)
{
	const struct pi_seg *s = &v->segs[v->rows[v->row].seg];
	char path[64], names[200];
	uint64_t e, pfn, f;
	bool ok, present;
	int fd;

	memset(d, 0, sizeof(*d));
	snprintf(d->head[0], sizeof(d->head[0]), "page %" PRIx64 " of %" PRIx64 "-%" PRIx64 " %s %s",
		 addr, s->start, s->end, s->perm, s->name);
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/pagemap", v->pid);
	e = pi_pread_u64(path, addr / (uint64_t)v->page, &ok);
	present = ok && (e & PM_PRESENT);
	pfn = e & PM_PFN_MASK;
	if (!ok) {
		snprintf(d->head[1], sizeof(d->head[1]), "pagemap: cannot read %s: %s", path,
			 v->exited ? "the process exited" : strerror(errno));
	} else if (present) {
		if (pfn)
			snprintf(d->head[1], sizeof(d->head[1]),
				 "pagemap %016" PRIx64 ": present, PFN 0x%" PRIx64 " (%" PRIu64 ")%s%s%s",
				 e, pfn, pfn, e & PM_FILE ? ", file or shared" : ", anonymous",
				 e & (1ULL << 56) ? ", exclusive" : "", e & (1ULL << 55) ? ", soft-dirty" : "");
		else
			snprintf(d->head[1], sizeof(d->head[1]),
				 "pagemap %016" PRIx64 ": present, PFN hidden: it needs root (CAP_SYS_ADMIN)",
				 e);
	} else if (e & PM_SWAP) {
		snprintf(d->head[1], sizeof(d->head[1]),
			 "pagemap %016" PRIx64 ": swapped, swap type %" PRIu64 ", offset 0x%" PRIx64 "%s",
			 e, pfn & 0x1f, pfn >> 5, pfn ? "" : " (offsets need root: CAP_SYS_ADMIN)");
	} else {
		snprintf(d->head[1], sizeof(d->head[1]),
			 "pagemap %016" PRIx64 ": not present (never touched, or reclaimed)", e);
	}
	if (!present || !pfn) {
		snprintf(d->head[2], sizeof(d->head[2]), "kpageflags, map count: %s",
			 present ? "need root (CAP_SYS_ADMIN), run memscope as root to see them" :
				   "none, no page frame");
	} else {
		f = pi_pread_u64("/proc/kpageflags", pfn, &ok);
		if (!ok) {
			snprintf(d->head[2], sizeof(d->head[2]), "kpageflags: cannot read /proc/kpageflags: %s",
				 strerror(errno));
		} else {
			pi_flag_names(f, names, sizeof(names));
			snprintf(d->head[2], sizeof(d->head[2]), "kpageflags %016" PRIx64 ":%s", f, names);
			if ((f & (1ULL << KPF_KSM)) && v->ksm_flag_broken)
				snprintf(d->head[4], sizeof(d->head[4]),
					 "(this kernel sets ksm on every anonymous page: the map's K is pmap's, see memscope(8))");
		}
		f = pi_pread_u64("/proc/kpagecount", pfn, &ok);
		if (ok)
			snprintf(d->head[3], sizeof(d->head[3]), "map count %" PRIu64, f);
		else
			snprintf(d->head[3], sizeof(d->head[3]), "map count: cannot read /proc/kpagecount: %s",
				 strerror(errno));
	}
	/* Reading a page that is not there would fault it in, or swap it in. */
	if (!present) {
		snprintf(d->why, sizeof(d->why),
			 "not resident: its bytes are not read (reading /proc/%" PRId64 "/mem would fault the page in)",
			 v->pid);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/mem", v->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, d->bytes, sizeof(d->bytes), (off_t)addr) == (ssize_t)sizeof(d->bytes))
		d->have_bytes = true;
	else if (errno == EACCES || errno == EPERM) {
		int err = errno;
		char advice[160];

		snprintf(d->why, sizeof(d->why), "cannot read %s: %s, %s", path, strerror(err),
			 pm_access_advice(v->pid, advice, sizeof(advice)));
	}
	else
		snprintf(d->why, sizeof(d->why), "cannot read %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	snprintf(d->head[5], sizeof(d->head[5]), "%s",
		 d->have_bytes ? "offset  bytes                                             ASCII" : "");
}

static void pi_draw_detail(const struct pi_detail *d, int scroll)
{
	int i, y, h = LINES - PI_DETAIL_HEAD - 1;

	erase();
	for (i = 0; i < PI_DETAIL_HEAD; i++)
		mvprintw(i, 0, "%s", d->head[i]);
	if (!d->have_bytes) {
		mvprintw(PI_DETAIL_HEAD - 2, 0, "%s", d->why);
	} else {
		for (y = 0; y < h && scroll + y < PI_HEX_LINES; y++) {
			const unsigned char *b = d->bytes + (scroll + y) * 16;

			mvprintw(PI_DETAIL_HEAD + y, 0, "%04x   ", (scroll + y) * 16);
			for (i = 0; i < 16; i++)
				printw("%02x %s", b[i], i == 7 ? " " : "");
			printw(" ");
			for (i = 0; i < 16; i++)
				addch(b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '.');
		}
	}
	mvprintw(LINES - 1, 0, "keys: arrows PgUp PgDn Home End scroll, Esc or Enter back, q quit");
	refresh();
}

/* The page detail until Esc or Enter (0), or q (1). */
static int pi_detail(struct pi_view *v)
{
	struct pi_detail *d = ms_xcalloc(1, sizeof(*d));
	int scroll = 0, h, key, ret = 0;

	pi_read_detail(v, v->anchor, d);
	timeout(250);		/* to see ms_stop */
	while (!ms_stop) {
		h = LINES - PI_DETAIL_HEAD - 1 > 1 ? LINES - PI_DETAIL_HEAD - 1 : 1;
		if (scroll > PI_HEX_LINES - h)
			scroll = PI_HEX_LINES - h > 0 ? PI_HEX_LINES - h : 0;
		if (scroll < 0)
			scroll = 0;
		pi_draw_detail(d, scroll);
		key = getch();
		if (key == 'q' || key == 'Q') {
			ret = 1;
			break;
		}
		if (key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER || key == KEY_BACKSPACE)
			break;
		if (key == KEY_UP)
			scroll--;
		else if (key == KEY_DOWN)
			scroll++;
		else if (key == KEY_PPAGE)
			scroll -= h;
		else if (key == KEY_NPAGE)
			scroll += h;
		else if (key == KEY_HOME)
			scroll = 0;
		else if (key == KEY_END)
			scroll = PI_HEX_LINES;
	}
	free(d);
	return ret;
}

/* Read the process again; once it is gone, say so and keep the last map. */
static void pi_refresh(struct pi_view *v)
{
	char err[256];

	if (v->exited)
		return;
	if (!pi_alive(v->pid)) {
		v->exited = true;
		snprintf(v->status, sizeof(v->status),
			 "process %" PRId64 " exited: the last view stays, q quits", v->pid);
		return;
	}
	if (pi_load(v)) {
		pi_last_error(err, sizeof(err));
		if (!pi_alive(v->pid)) {
			v->exited = true;
			snprintf(v->status, sizeof(v->status),
				 "process %" PRId64 " exited: the last view stays, q quits", v->pid);
		} else {
			snprintf(v->status, sizeof(v->status), "%s (the map shown is older)", err);
		}
		return;
	}
	pi_read_status(v);
	pi_layout(v);
	pi_locate(v);
}

/* Curses on the terminal, stderr (pmap's readers' errors) into a file. */
static int pi_start(void)
{
	const char *term = getenv("TERM");
	SCREEN *scr;

	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		print_error("cannot drive the terminal type \"%s\" (no terminfo entry for it), set TERM to one this system knows, e.g. TERM=xterm",
			    term ? term : "");
		return -1;
	}
	pi_curses = true;
	atexit(pi_restore);
	pi_errors = tmpfile();
	fflush(stderr);
	if (pi_errors) {
		pi_saved_stderr = dup(STDERR_FILENO);
		if (pi_saved_stderr >= 0)
			dup2(fileno(pi_errors), STDERR_FILENO);
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	return 0;
}

int pm_interactive(const struct ms_opts *o, uint64_t map_addr, bool want_map)
{
	struct pi_view v = { .pid = o->pid, .want_map = want_map, .map_addr = map_addr,
			     .every = o->delay, .zoom = 1, .page = sysconf(_SC_PAGESIZE) };
	double next;
	int key, quit = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		print_error("pmap -i needs a terminal, and standard %s is not one; run it in a terminal, or without -i for the text map (pmap -p PID --map ADDRESS)",
			    isatty(STDIN_FILENO) ? "output" : "input");
		return -1;
	}
	/* Errors (no such process, permission) before the screen is taken. */
	if (pi_load(&v))
		return -1;
	v.anchor = v.nsegs ? v.segs[0].start : 0;
	pi_read_status(&v);
	if (pi_start())
		goto out;
	pi_layout(&v);
	pi_locate(&v);
	next = ms_now_mono() + v.every;
	while (!ms_stop && !quit) {
		double left = next - ms_now_mono();

		pi_draw(&v);
		timeout(left <= 0 ? 0 : left < 0.25 ? (int)(left * 1000) + 1 : 250);
		key = getch();
		if (ms_now_mono() >= next) {
			pi_refresh(&v);
			next = ms_now_mono() + v.every;
		}
		switch (key) {
		case ERR:
			break;
		case 'q':
		case 'Q':
			quit = 1;
			break;
		case '+':
			if (v.zoom < PI_ZOOM_MAX) {
				v.zoom *= 2;
				pi_layout(&v);
				pi_locate(&v);
			}
			break;
		case '-':
			if (v.zoom > 1) {
				v.zoom /= 2;
				pi_layout(&v);
				pi_locate(&v);
			}
			break;
		case KEY_RESIZE:
			pi_layout(&v);
			pi_locate(&v);
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
			if (v.nrows)
				quit = pi_detail(&v);
			break;
		default:
			pi_key_move(&v, key);
			break;
		}
	}
out:
	pi_restore();
	if (pi_errors)
		fclose(pi_errors);
	free(v.segs);
	free(v.chars);
	free(v.rows);
	return 0;
}

#else /* !MS_HAVE_NCURSES */

int pm_interactive(const struct ms_opts *o, uint64_t map_addr, bool want_map)
{
	(void)o, (void)map_addr, (void)want_map;
	print_error("this memscope was built without ncurses, so pmap -i is not there; rebuild it with libncurses-dev installed (make deps), or use the text map: pmap -p PID --map ADDRESS");
	return -1;
}

#endif /* MS_HAVE_NCURSES */
