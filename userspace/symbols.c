// SPDX-License-Identifier: GPL-2.0
/*
 * Names for code in ELF files, by file and offset (symbols.h).
 * Copyright (C) 2026 The memscope authors.
 *
 * With libdw, each file is one Dwfl module, reported at its link-time
 * addresses, and libdwfl finds the rest as perf, eu-stack and systemd's
 * coredumps do: the file's .symtab; else its separate debuginfo, by
 * build-id (DIR/.build-id/xx/yyyy.debug: Debian's -dbgsym, RHEL's
 * -debuginfo) or by .gnu_debuglink with its CRC (the file's directory,
 * its .debug/, DIR/<the file's directory>); else .dynsym, with the
 * functions of MiniDebugInfo (.gnu_debugdata, xz, where libdw was built
 * with lzma: Debian's and Fedora's are).  DIR is /usr/lib/debug, or
 * --debug-dir.  The DWARF scopes at the address give the inlined
 * functions.  With libelf only, the file's own .symtab, else its .dynsym.
 *
 * Files are kept, by device and inode, at most MAX_FILES of them:
 * one more drops the one used longest ago, so memory stays bounded
 * however many libraries the stacks run through.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef MS_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif
#ifdef MS_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "memscope.h"
#include "symbols.h"

#define MAX_FILES	32
#define MEMO		256

struct load {
	uint64_t off, vaddr, filesz;
};

struct elf_sym {
	uint64_t addr, size;
	char *name;
};

struct symfile {
	dev_t dev;
	ino_t ino;
	uint64_t used;		/* the lookup that last used it: the oldest is closed first */
	struct load *load;	/* PT_LOAD segments: file offset to link-time address */
	size_t nload;
#ifdef MS_HAVE_LIBDW
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* the module's addresses less link-time ones */
#elif defined(MS_HAVE_LIBELF)
	struct elf_sym *syms;	/* functions, by address */
	size_t nsyms;
#endif
};

static struct symfile files[MAX_FILES];
static size_t nfiles;
static uint64_t lookups;
static uint64_t last_symoff;	/* the last name's offset into its function */

/* The file's directory, its .debug/, then DIR; "+": check debuglink CRCs. */
static char debuginfo_buf[4200] = "+:.debug:/usr/lib/debug";

void ms_symbols_debug_dir(const char *dir)
{
	snprintf(debuginfo_buf, sizeof(debuginfo_buf), "+:.debug:%s", dir);
}

#ifdef MS_HAVE_LIBELF
static void read_loads(struct symfile *f, Elf *elf)
{
	size_t nph, i;

	if (elf_getphdrnum(elf, &nph))
		return;
	f->load = ms_xcalloc(nph ? nph : 1, sizeof(*f->load));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			f->load[f->nload++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
}

/* The link-time address of byte OFF of the file, if a segment loads it. */
static bool off_to_vaddr(const struct symfile *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->nload; i++)
		if (off >= f->load[i].off && off < f->load[i].off + f->load[i].filesz) {
			*vaddr = off - f->load[i].off + f->load[i].vaddr;
			return true;
		}
	return false;
}
#endif

#ifdef MS_HAVE_LIBDW
static char *debuginfo_path = debuginfo_buf;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

enum ms_sym_source ms_symbols_source(void)
{
	return MS_SYM_LIBDW;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Takes FD.  PATH names the module, and its directory is where debuglinks are. */
static void file_open(struct symfile *f, const char *path, int fd)
{
	Elf *elf;

	f->dwfl = dwfl_begin(&callbacks);
	if (!f->dwfl) {
		close(fd);
		return;
	}
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_elf(f->dwfl, base_name(path), path, fd, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		close(fd);	/* consumed on success only */
		dwfl_end(f->dwfl);
		f->dwfl = NULL;
		return;
	}
	elf = dwfl_module_getelf(f->mod, &f->bias);
	if (elf)
		read_loads(f, elf);
}

static void file_close(struct symfile *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
}

/* The functions inlined at ADDR, outermost first, from its DWARF scopes. */
static size_t inlined(struct symfile *f, Dwarf_Addr addr, const char **names, size_t max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, addr, &bias), *scopes = NULL;
	int nscopes, i;
	size_t n = 0;

	if (!cu)
		return 0;
	nscopes = dwarf_getscopes(cu, addr - bias, &scopes);
	/* scopes[0] is the innermost: the callers of what is inlined come last. */
	for (i = nscopes - 1; i >= 0 && n < max; i--) {
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		name = dwarf_diename(&scopes[i]);
		names[n++] = name ? name : "[inlined]";
	}
	free(scopes);
	return n;
}

static size_t file_names(struct symfile *f, uint64_t off, bool vaddr_given, const char **names,
			 size_t max)
{
	GElf_Off symoff;
	GElf_Sym sym;
	uint64_t vaddr;
	const char *name;

	vaddr = off;
	if (!f->mod || (!vaddr_given && !off_to_vaddr(f, off, &vaddr)))
		return 0;
	name = dwfl_module_addrinfo(f->mod, vaddr + f->bias, &symoff, &sym, NULL, NULL, NULL);
	if (!name || !*name)
		return 0;
	names[0] = name;
	last_symoff = symoff;
	return 1 + inlined(f, vaddr + f->bias, names + 1, max - 1);
}

#elif defined(MS_HAVE_LIBELF)

enum ms_sym_source ms_symbols_source(void)
{
	return MS_SYM_LIBELF;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Functions from .symtab, or .dynsym where the file is stripped. */
static void read_syms(struct symfile *f, Elf *elf)
{
	Elf_Scn *scn = NULL, *use = NULL;
	GElf_Shdr sh, ush = { 0 };
	size_t i, alloc = 0;
	Elf_Data *data;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !use)) {
			use = scn;
			ush = sh;
		}
	}
	if (!use || !(data = elf_getdata(use, NULL)) || !ush.sh_entsize)
		return;
	for (i = 0; i < ush.sh_size / ush.sh_entsize; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
			continue;
		name = elf_strptr(elf, ush.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (f->nsyms == alloc) {
			struct elf_sym *n;

			alloc = alloc ? 2 * alloc : 256;
			n = realloc(f->syms, alloc * sizeof(*n));
			if (!n)
				break;
			f->syms = n;
		}
		f->syms[f->nsyms++] = (struct elf_sym){ s.st_value, s.st_size, ms_xstrdup(name) };
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp);
}

static void file_open(struct symfile *f, const char *path, int fd)
{
	Elf *elf;

	(void)path;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		read_loads(f, elf);
		read_syms(f, elf);
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

static void file_close(struct symfile *f)
{
	size_t i;

	for (i = 0; i < f->nsyms; i++)
		free(f->syms[i].name);
	free(f->syms);
}

static size_t file_names(struct symfile *f, uint64_t off, bool vaddr_given, const char **names,
			 size_t max)
{
	size_t i, lo = 0, hi = f->nsyms;
	uint64_t vaddr;

	(void)max;
	vaddr = off;
	if (!vaddr_given && !off_to_vaddr(f, off, &vaddr))
		return 0;
	/* The last symbol at or below vaddr, if vaddr is inside it. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	i = lo - 1;
	if (f->syms[i].size && vaddr >= f->syms[i].addr + f->syms[i].size)
		return 0;
	names[0] = f->syms[i].name;
	last_symoff = vaddr - f->syms[i].addr;
	return 1;
}

#else /* neither: no names */

enum ms_sym_source ms_symbols_source(void)
{
	return MS_SYM_NONE;
}

static void file_open(struct symfile *f, const char *path, int fd)
{
	(void)f;
	(void)path;
	close(fd);
}

static void file_close(struct symfile *f)
{
	(void)f;
}

static size_t file_names(struct symfile *f, uint64_t off, bool vaddr_given, const char **names,
			 size_t max)
{
	(void)f;
	(void)off;
	(void)vaddr_given;
	(void)names;
	(void)max;
	return 0;
}
#endif

/*
 * The device and inode of the file at SRC.  A stack's frames come a few
 * files at a time, every snapshot, and a stat of /proc/PID/map_files/...
 * costs microseconds: so each name's answer is kept (whether a file is
 * there or not), in MEMO slots by the name's hash.  A name is taken to
 * stay the same file for the run, as the maps it came from are.
 */
static bool file_id(const char *src, dev_t *dev, ino_t *ino)
{
	static struct {
		char *name;
		bool ok;
		dev_t dev;
		ino_t ino;
	} memo[MEMO];
	unsigned int h = 2166136261u;
	const char *c;
	struct stat st;

	for (c = src; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	h %= MEMO;
	if (!memo[h].name || strcmp(memo[h].name, src)) {
		free(memo[h].name);
		memo[h].name = ms_xstrdup(src);
		memo[h].ok = !stat(src, &st) && S_ISREG(st.st_mode);
		memo[h].dev = memo[h].ok ? st.st_dev : 0;
		memo[h].ino = memo[h].ok ? st.st_ino : 0;
	}
	*dev = memo[h].dev;
	*ino = memo[h].ino;
	return memo[h].ok;
}

/* The file at SRC, from the cache or opened now in its slot or the oldest's. */
static struct symfile *get_file(const char *path, const char *src)
{
	struct symfile *f = NULL;
	dev_t dev;
	ino_t ino;
	size_t i;
	int fd;

	if (!file_id(src, &dev, &ino))
		return NULL;
	lookups++;
	for (i = 0; i < nfiles; i++)
		if (files[i].dev == dev && files[i].ino == ino) {
			files[i].used = lookups;
			return &files[i];
		}
	/* Not there after all (a process gone since): the caller tries its path. */
	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (nfiles < MAX_FILES) {
		f = &files[nfiles++];
	} else {
		f = &files[0];
		for (i = 1; i < nfiles; i++)
			if (files[i].used < f->used)
				f = &files[i];
		file_close(f);
		free(f->load);
	}
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	f->ino = ino;
	f->used = lookups;
	file_open(f, path, fd);
	return f;
}

static size_t symbolize(const char *path, const char *open, uint64_t addr, bool vaddr,
			const char **names, size_t max)
{
	struct symfile *f = NULL;

	if (!max)
		return 0;
	if (open)
		f = get_file(path, open);
	if (!f)
		f = get_file(path, path);
	return f ? file_names(f, addr, vaddr, names, max) : 0;
}

size_t ms_symbolize(const char *path, const char *open, uint64_t off, const char **names,
		    size_t max)
{
	return symbolize(path, open, off, false, names, max);
}

size_t ms_symbolize_vaddr(const char *path, const char *open, uint64_t vaddr,
			  const char **names, size_t max)
{
	return symbolize(path, open, vaddr, true, names, max);
}

bool ms_symbols_by_build_id(const char *hex, char *buf, size_t len)
{
	const char *dir = debuginfo_buf + strlen("+:.debug:");
	size_t n = strlen(hex), i;

	if (n < 4 || n % 2)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)hex[i]))
			return false;
	if ((size_t)snprintf(buf, len, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2) >= len)
		return false;
	return access(buf, R_OK) == 0;
}

uint64_t ms_symbol_offset(void)
{
	return last_symoff;
}

#ifdef MS_HAVE_LIBELF
/* NAMES[i]'s file offset into OFFS[i] where SCN, a symbol table, defines it as a function. */
static void find_in(Elf *elf, Elf_Scn *scn, const struct symfile *f, const char *const *names,
		    size_t n, uint64_t *offs)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	size_t i, j;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		const char *name;
		GElf_Sym s;
		uint64_t off;

		/* An IFUNC's value is its resolver, not the function: not probed. */
		if (!gelf_getsym(data, i, &s) || s.st_shndx == SHN_UNDEF || !s.st_value ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		for (j = 0; name && j < n; j++) {
			size_t k;

			if (offs[j] || strcmp(name, names[j]))
				continue;
			for (k = 0; k < f->nload; k++)
				if (s.st_value >= f->load[k].vaddr &&
				    s.st_value < f->load[k].vaddr + f->load[k].filesz) {
					off = s.st_value - f->load[k].vaddr + f->load[k].off;
					offs[j] = off;
				}
		}
	}
}

int ms_symbols_find(const char *path, const char *const *names, size_t n, uint64_t *offs)
{
	struct symfile f = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(offs, 0, n * sizeof(*offs));
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		errno = ENOEXEC;
		return -1;
	}
	read_loads(&f, elf);
	/* .dynsym first: what the dynamic linker binds calls to; then .symtab. */
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			find_in(elf, scn, &f, names, n, offs);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			find_in(elf, scn, &f, names, n, offs);
	free(f.load);
	elf_end(elf);
	close(fd);
	return 0;
}
#else
int ms_symbols_find(const char *path, const char *const *names, size_t n, uint64_t *offs)
{
	(void)path;
	(void)names;
	memset(offs, 0, n * sizeof(*offs));
	errno = ENOTSUP;
	return -1;
}
#endif
