// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables for the module's stack walk without frame pointers
 * (unwind.h; the format is module/uapi/memscope_unwind.h).
 * Copyright (C) 2026 The memscope authors.
 *
 * libdw computes the CFI: for each address of each executable PT_LOAD,
 * dwarf_cfi_addrframe() on .eh_frame (dwarf_getcfi_elf()), else on
 * .debug_frame (dwarf_getcfi()), gives the frame state and the range
 * [start, end) it holds for; the walk goes on from end.  Each state
 * becomes one of the few rules the module follows, or STOP.  No CFI is
 * parsed here.  Addresses no FDE covers are stepped over byte by byte:
 * libdw finds the FDE of an address (through .eh_frame_hdr's search
 * table, or its own tree), not the next one, and the gaps are padding
 * between functions and the few stubs without CFI.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef MS_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#endif

#include "print.h"
#include "unwind.h"

#define PAGE_BYTES	(1u << MEMSCOPE_UNWIND_PAGE_SHIFT)
#define NPAGES(size)	(((uint64_t)(size) + PAGE_BYTES - 1) >> MEMSCOPE_UNWIND_PAGE_SHIFT)

/* The blob's parts (the uapi header's layout). */
struct parts {
	const struct memscope_unwind_header *h;
	const struct memscope_unwind_rule *rules;
	const struct memscope_unwind_row *rows;
	const __u32 *pages;
};

static struct parts parts_of(const void *blob)
{
	const struct memscope_unwind_header *h = blob;
	const char *p = (const char *)blob + h->header_size;
	struct parts s = { .h = h };

	s.rules = (const void *)p;
	s.rows = (const void *)(p + (size_t)h->nr_rules * sizeof(*s.rules));
	s.pages = (const void *)((const char *)s.rows + (size_t)h->nr_rows * sizeof(*s.rows));
	return s;
}

long ms_unwind_lookup(const void *blob, uint64_t addr)
{
	struct parts s = parts_of(blob);
	uint64_t rel = addr - s.h->base, p;
	long lo, hi;

	if (rel >= s.h->size)
		return -1;
	p = rel >> MEMSCOPE_UNWIND_PAGE_SHIFT;
	lo = s.pages[p];
	hi = p + 1 < s.h->nr_pages ? (long)s.pages[p + 1] : (long)s.h->nr_rows - 1;
	while (lo < hi) {	/* the last row in [lo, hi] that starts at or below rel */
		long mid = lo + (hi - lo + 1) / 2;

		if (s.rows[mid].addr <= rel)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int ms_unwind_check(const void *blob, size_t size, uint16_t machine, char *err, size_t errlen)
{
	const char *why = memscope_unwind_check(blob, size, machine);
	struct parts s;
	uint32_t i;

	/*
	 * The module's checks (the uapi header's), then what this builder
	 * promises besides: no two consecutive rows with one rule, and every
	 * row found again through the page index.
	 */
	if (!why) {
		s = parts_of(blob);
		for (i = 1; !why && i < s.h->nr_rows; i++)
			if (s.rows[i].rule == s.rows[i - 1].rule)
				why = "two consecutive rows with one rule";
		for (i = 0; !why && i < s.h->nr_rows; i++) {
			uint64_t end = i + 1 < s.h->nr_rows ? s.rows[i + 1].addr : s.h->size;

			if (ms_unwind_lookup(blob, s.h->base + s.rows[i].addr) != i ||
			    ms_unwind_lookup(blob, s.h->base + end - 1) != i)
				why = "a lookup through the page index misses its row";
		}
	}
	if (why) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	return 0;
}

/* The registers' names: x86-64's DWARF 7 and 6, arm64's 31 and 29. */
static const char *const x86_names[] = { "-", "rsp", "rbp" };
static const char *const a64_names[] = { "-", "sp", "x29" };
static const char *const kind_names[] = { "stop", "rule", "fp-chain", "plt", "signal" };

static void where_text(char *buf, size_t len, __u8 where, __s32 off)
{
	if (where == MEMSCOPE_UNWIND_AT_CFA)
		snprintf(buf, len, "c%+d", off);
	else
		snprintf(buf, len, "%s", where == MEMSCOPE_UNWIND_SAME ? "s" : "u");
}

static void rule_text(char *buf, size_t len, const struct memscope_unwind_rule *r,
		      uint16_t machine)
{
	const char *const *names = machine == EM_AARCH64 ? a64_names : x86_names;
	char fp[16], ra[16];

	if (r->kind != MEMSCOPE_UNWIND_RULE && r->kind != MEMSCOPE_UNWIND_FP_CHAIN) {
		snprintf(buf, len, "%s", kind_names[r->kind]);
		return;
	}
	where_text(fp, sizeof(fp), r->fp_rule, r->fp_off);
	where_text(ra, sizeof(ra), r->ra_rule, r->ra_off);
	snprintf(buf, len, "%s cfa=%s%+d %s=%s ra=%s", kind_names[r->kind],
		 names[r->cfa_base], r->cfa_off, names[MEMSCOPE_UNWIND_REG_FP], fp, ra);
}

void ms_unwind_dump(const struct ms_unwind_table *t, FILE *fp)
{
	struct parts s = parts_of(t->blob);
	const uint32_t *k = t->kind_rows, *w = t->stop_ranges;
	char text[80];
	uint32_t i;

	fprintf(fp, "# rules %u rows %u pages %u bytes %zu stop %u rule %u fp-chain %u plt %u signal %u\n",
		s.h->nr_rules, s.h->nr_rows, s.h->nr_pages, t->size, k[MEMSCOPE_UNWIND_STOP],
		k[MEMSCOPE_UNWIND_RULE], k[MEMSCOPE_UNWIND_FP_CHAIN], k[MEMSCOPE_UNWIND_PLT],
		k[MEMSCOPE_UNWIND_SIGNAL]);
	fprintf(fp, "# stop-ranges no-cfi %u cfa %u fp %u ra %u\n", w[MS_STOP_NO_CFI],
		w[MS_STOP_CFA], w[MS_STOP_FP], w[MS_STOP_RA]);
	fprintf(fp, "# covers 0x%llx-0x%llx\n", (unsigned long long)s.h->base,
		(unsigned long long)(s.h->base + s.h->size));
	for (i = 0; i < s.h->nr_rows; i++) {
		rule_text(text, sizeof(text), &s.rules[s.rows[i].rule], s.h->machine);
		fprintf(fp, "0x%llx %s\n", (unsigned long long)(s.h->base + s.rows[i].addr), text);
	}
}

void ms_unwind_free(struct ms_unwind_table *t)
{
	while (t) {
		struct ms_unwind_table *next = t->next;

		free(t->blob);
		free(t);
		t = next;
	}
}

#ifdef MS_HAVE_LIBDW

#define MAX_RULES	65536	/* a row's u16 */

/* A machine's DWARF registers: the stack pointer, the frame pointer, the return address. */
struct ms_regs {
	int sp, fp, ra;
};
static const struct ms_regs x86_regs = { 7, 6, 16 };	/* rsp, rbp, rip */
static const struct ms_regs a64_regs = { 31, 29, 30 };	/* sp, x29, x30 (LR) */

/* The machines the builder reads CFI of: a table says which in its header. */
static bool known_machine(uint16_t machine)
{
	return machine == EM_X86_64 || machine == EM_AARCH64;
}

struct builder {
	uint16_t machine;
	const struct ms_regs *regs;
	struct memscope_unwind_rule *rules;
	struct memscope_unwind_row *rows;
	size_t nrules, nrows, cap_rules, cap_rows;
	uint64_t base, size;
	struct ms_unwind_table *t;
	char *err;
	size_t errlen;
};

static int grow(void **p, size_t *cap, size_t n, size_t each)
{
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, (*cap ? *cap * 2 : 256) * each);
	if (!q)
		return -1;
	*p = q;
	*cap = *cap ? *cap * 2 : 256;
	return 0;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Where register REGNO of the caller is, as the format can say it: 0, else -1. */
static int reg_where(Dwarf_Frame *f, int regno, __u8 *where, __s32 *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t o = 0;

	*off = 0;
	if (dwarf_frame_register(f, regno, mem, &ops, &n))
		return -1;
	if (n == 0) {	/* no location: ops NULL for same_value, else undefined */
		*where = ops ? MEMSCOPE_UNWIND_UNDEFINED : MEMSCOPE_UNWIND_SAME;
		return 0;
	}
	/* offset(N): DW_OP_call_frame_cfa, then DW_OP_plus_uconst N unless 0, N signed */
	if (ops[0].atom != DW_OP_call_frame_cfa || n > 2 ||
	    (n == 2 && ops[1].atom != DW_OP_plus_uconst))
		return -1;
	if (n == 2)
		o = (int64_t)ops[1].number;
	if (!fits_s32(o))
		return -1;
	*where = MEMSCOPE_UNWIND_AT_CFA;
	*off = (__s32)o;
	return 0;
}

/* The .plt's CFA expression (the uapi header's PLT), operand by operand. */
static bool is_plt(const Dwarf_Op *ops, size_t n)
{
	static const struct { uint8_t atom; int64_t number; } plt[] = {
		{ DW_OP_breg7, 8 }, { DW_OP_breg16, 0 }, { DW_OP_lit15, 0 }, { DW_OP_and, 0 },
		{ DW_OP_lit11, 0 }, { DW_OP_ge, 0 }, { DW_OP_lit3, 0 }, { DW_OP_shl, 0 },
		{ DW_OP_plus, 0 },
	};
	size_t i;

	if (n != sizeof(plt) / sizeof(plt[0]))
		return false;
	for (i = 0; i < n; i++)
		if (ops[i].atom != plt[i].atom ||
		    ((ops[i].atom == DW_OP_breg7 || ops[i].atom == DW_OP_breg16) &&
		     (int64_t)ops[i].number != plt[i].number))
			return false;
	return true;
}

/* The CFA: register + offset, as DW_OP_bregx (a def_cfa rule) or DW_OP_bregN (an expression). */
static int cfa_rule(const struct builder *b, Dwarf_Frame *f, struct memscope_unwind_rule *r)
{
	Dwarf_Op *ops;
	size_t n;
	uint64_t reg;
	int64_t off;

	if (dwarf_frame_cfa(f, &ops, &n) || n == 0)
		return -1;
	if (b->machine == EM_X86_64 && is_plt(ops, n)) {
		r->kind = MEMSCOPE_UNWIND_PLT;
		r->cfa_base = MEMSCOPE_UNWIND_REG_SP;
		r->cfa_off = 8;
		return 0;
	}
	if (n != 1)
		return -1;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return -1;
	}
	if ((reg != (uint64_t)b->regs->sp && reg != (uint64_t)b->regs->fp) || !fits_s32(off))
		return -1;
	r->kind = MEMSCOPE_UNWIND_RULE;
	r->cfa_base = reg == (uint64_t)b->regs->sp ? MEMSCOPE_UNWIND_REG_SP : MEMSCOPE_UNWIND_REG_FP;
	r->cfa_off = (__s32)off;
	return 0;
}

/*
 * Whether the rule's return address is one the walk can have: x86-64's is
 * always at CFA - 8; arm64's is saved at the CFA plus an offset, or still
 * in the link register (SAME: a leaf, or a prologue before it saves x30).
 */
static bool ra_known(const struct builder *b, const struct memscope_unwind_rule *r)
{
	if (b->machine == EM_AARCH64)
		return r->ra_rule == MEMSCOPE_UNWIND_AT_CFA || r->ra_rule == MEMSCOPE_UNWIND_SAME;
	return r->ra_rule == MEMSCOPE_UNWIND_AT_CFA && r->ra_off == -8;
}

/* A frame state as a rule; a STOP rule says why in *WHY. */
static struct memscope_unwind_rule classify(const struct builder *b, Dwarf_Frame *f, bool signalp,
					    enum ms_unwind_stop *why)
{
	static const struct memscope_unwind_rule stop = { .kind = MEMSCOPE_UNWIND_STOP };
	struct memscope_unwind_rule r = { 0 };

	/* SIGNAL's frame layout is x86-64's: an arm64 signal frame ends the walk. */
	if (signalp && b->machine == EM_X86_64)
		return (struct memscope_unwind_rule){ .kind = MEMSCOPE_UNWIND_SIGNAL };
	*why = MS_STOP_CFA;
	if (signalp || cfa_rule(b, f, &r))
		return stop;
	*why = MS_STOP_RA;
	if (reg_where(f, b->regs->ra, &r.ra_rule, &r.ra_off) || !ra_known(b, &r))
		return stop;
	*why = MS_STOP_FP;
	if (reg_where(f, b->regs->fp, &r.fp_rule, &r.fp_off))
		return stop;
	if (r.kind == MEMSCOPE_UNWIND_PLT && r.fp_rule != MEMSCOPE_UNWIND_SAME)
		return stop;
	if (r.kind == MEMSCOPE_UNWIND_RULE && r.cfa_base == MEMSCOPE_UNWIND_REG_FP &&
	    r.cfa_off == 16 && r.fp_rule == MEMSCOPE_UNWIND_AT_CFA && r.fp_off == -16)
		r.kind = MEMSCOPE_UNWIND_FP_CHAIN;
	return r;
}

/* The rule's index, added if new; -1 past MAX_RULES or out of memory. */
static long intern_rule(struct builder *b, const struct memscope_unwind_rule *r)
{
	size_t i;

	for (i = 0; i < b->nrules; i++)
		if (!memcmp(&b->rules[i], r, sizeof(*r)))
			return (long)i;
	if (b->nrules == MAX_RULES) {
		snprintf(b->err, b->errlen, "more than %d distinct unwind rules", MAX_RULES);
		return -1;
	}
	if (grow((void **)&b->rules, &b->cap_rules, b->nrules, sizeof(*r))) {
		snprintf(b->err, b->errlen, "out of memory");
		return -1;
	}
	b->rules[b->nrules] = *r;
	return (long)b->nrules++;
}

/* From ELF address ADDR on (until the next call), rule R: a row where the rule changes. */
static int add_range(struct builder *b, uint64_t addr, const struct memscope_unwind_rule *r)
{
	long idx = intern_rule(b, r);

	if (idx < 0)
		return -1;
	if (b->nrows && b->rows[b->nrows - 1].rule == idx)
		return 0;
	if (grow((void **)&b->rows, &b->cap_rows, b->nrows, sizeof(*b->rows))) {
		snprintf(b->err, b->errlen, "out of memory");
		return -1;
	}
	b->rows[b->nrows++] = (struct memscope_unwind_row){
		.addr = (__u32)(addr - b->base), .rule = (__u16)idx,
	};
	return 0;
}

/* .eh_frame's state at ADDR, else .debug_frame's; NULL where neither has an FDE. */
static Dwarf_Frame *frame_at(Dwarf_CFI *const cfi[2], uint64_t addr)
{
	Dwarf_Frame *f;
	int i;

	for (i = 0; i < 2; i++)
		if (cfi[i] && !dwarf_cfi_addrframe(cfi[i], addr, &f))
			return f;
	return NULL;
}

/* Every address of [base, base + size): one rule per CFI row, STOP between FDEs. */
static int walk_cfi(struct builder *b, Dwarf_CFI *const cfi[2])
{
	static const struct memscope_unwind_rule stop = { .kind = MEMSCOPE_UNWIND_STOP };
	uint64_t a = b->base, end = b->base + b->size;
	bool gap = false;	/* in a run of addresses without an FDE */

	while (a < end) {
		Dwarf_Frame *f = frame_at(cfi, a);
		Dwarf_Addr start, next;
		enum ms_unwind_stop why = MS_STOP_NO_CFI;
		struct memscope_unwind_rule r = stop;
		bool signalp = false;

		next = a + 1;
		if (f && dwarf_frame_info(f, &start, &next, &signalp) >= 0)
			r = classify(b, f, signalp, &why);
		free(f);
		if (r.kind == MEMSCOPE_UNWIND_STOP && (why != MS_STOP_NO_CFI || !gap))
			b->t->stop_ranges[why]++;
		gap = r.kind == MEMSCOPE_UNWIND_STOP && why == MS_STOP_NO_CFI;
		if (add_range(b, a, &r))
			return -1;
		a = next > a ? next : a + 1;
	}
	return 0;
}

/* The rules, rows and page index after the header, in one blob. */
static int assemble(struct builder *b, uint16_t machine, const GElf_Phdr *ph)
{
	struct memscope_unwind_header h = {
		.magic = MEMSCOPE_UNWIND_MAGIC, .version = MEMSCOPE_UNWIND_VERSION,
		.machine = machine, .header_size = sizeof(h),
		.seg_offset = ph->p_offset, .seg_vaddr = ph->p_vaddr,
		.seg_filesz = ph->p_filesz, .seg_memsz = ph->p_memsz,
		.base = b->base, .size = (__u32)b->size,
		.nr_rules = (__u32)b->nrules, .nr_rows = (__u32)b->nrows,
		.nr_pages = (__u32)NPAGES(b->size),
	};
	struct ms_unwind_table *t = b->t;
	__u32 *pages;
	size_t i, r = 0;
	char *p;

	t->size = memscope_unwind_blob_size(&h);
	t->blob = p = calloc(1, t->size);
	if (!p) {
		snprintf(b->err, b->errlen, "out of memory");
		return -1;
	}
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), b->rules, b->nrules * sizeof(*b->rules));
	memcpy(p + sizeof(h) + b->nrules * sizeof(*b->rules), b->rows, b->nrows * sizeof(*b->rows));
	pages = (__u32 *)(p + sizeof(h) + b->nrules * sizeof(*b->rules) + b->nrows * sizeof(*b->rows));
	for (i = 0; i < h.nr_pages; i++) {
		while (r + 1 < b->nrows && b->rows[r + 1].addr <= i << MEMSCOPE_UNWIND_PAGE_SHIFT)
			r++;
		pages[i] = (__u32)r;
	}
	for (i = 0; i < b->nrows; i++)
		t->kind_rows[b->rules[b->rows[i].rule].kind]++;
	return 0;
}

/* The table of executable segment PH, added to the chain at *TAIL. */
static int build_segment(struct builder *b, Dwarf_CFI *const cfi[2], uint16_t machine,
			 const GElf_Phdr *ph, struct ms_unwind_table ***tail)
{
	if (ph->p_memsz == 0 || ph->p_memsz > UINT32_MAX) {
		snprintf(b->err, b->errlen, "an executable segment of %llu bytes",
			 (unsigned long long)ph->p_memsz);
		return -1;
	}
	b->t = **tail = calloc(1, sizeof(*b->t));
	if (!b->t) {
		snprintf(b->err, b->errlen, "out of memory");
		return -1;
	}
	b->t->machine = machine;
	*tail = &b->t->next;
	b->nrules = b->nrows = 0;
	b->base = ph->p_vaddr;
	b->size = ph->p_memsz;
	return walk_cfi(b, cfi) ? -1 : assemble(b, machine, ph);
}

/* A table for each executable PT_LOAD, in the chain at *OUT. */
static int build_elf(Elf *elf, struct builder *b, struct ms_unwind_table **out)
{
	struct ms_unwind_table **tail = out;
	Dwarf_CFI *cfi[2] = { NULL, NULL };
	Dwarf *dw = NULL;
	size_t nph, i;
	GElf_Ehdr eh;
	int r = 0;

	if (!gelf_getehdr(elf, &eh) || elf_kind(elf) != ELF_K_ELF) {
		snprintf(b->err, b->errlen, "not an ELF object");
		return -1;
	}
	if (!known_machine(eh.e_machine)) {
		snprintf(b->err, b->errlen, "ELF machine %u: unwind tables are for x86-64 and arm64",
			 eh.e_machine);
		return -1;
	}
	b->machine = eh.e_machine;
	b->regs = eh.e_machine == EM_AARCH64 ? &a64_regs : &x86_regs;
	if (elf_getphdrnum(elf, &nph)) {
		snprintf(b->err, b->errlen, "no program headers: %s", elf_errmsg(-1));
		return -1;
	}
	cfi[0] = dwarf_getcfi_elf(elf);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);	/* NULL without debug sections */
	cfi[1] = dw ? dwarf_getcfi(dw) : NULL;
	if (!cfi[0] && !cfi[1]) {
		snprintf(b->err, b->errlen, "no .eh_frame or .debug_frame");
		r = -1;
	}
	for (i = 0; !r && i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			r = build_segment(b, cfi, eh.e_machine, &ph, &tail);
	}
	if (!r && !*out) {
		snprintf(b->err, b->errlen, "no executable PT_LOAD segment");
		r = -1;
	}
	if (cfi[0])
		dwarf_cfi_end(cfi[0]);
	if (dw)
		dwarf_end(dw);
	return r;
}

int ms_unwind_build(const char *path, int fd, struct ms_unwind_table **out, char *err,
		    size_t errlen)
{
	struct builder b = { .err = err, .errlen = errlen };
	int own = -1, r = -1;
	Elf *elf;

	*out = NULL;
	if (fd < 0) {
		fd = own = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
			return -1;
		}
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		snprintf(err, errlen, "%s: not an ELF object: %s", path, elf_errmsg(-1));
	} else {
		r = build_elf(elf, &b, out);
		elf_end(elf);
	}
	if (r && elf) {		/* say which file */
		char why[200];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
	}
	free(b.rules);
	free(b.rows);
	if (own >= 0)
		close(own);
	if (r) {
		ms_unwind_free(*out);
		*out = NULL;
	}
	return r;
}

#else

int ms_unwind_build(const char *path, int fd, struct ms_unwind_table **out, char *err,
		    size_t errlen)
{
	(void)path, (void)fd;
	*out = NULL;
	snprintf(err, errlen, "built without libdw: no unwind tables (install libdw-dev, elfutils-devel on RHEL, and rebuild)");
	return -1;
}

#endif

int ms_unwind_load(int wfd, const char *path, size_t *bytes, char *err, size_t errlen)
{
	struct ms_unwind_table *t, *s;
	int fd, n = 0;

	if (bytes)
		*bytes = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (ms_unwind_build(path, fd, &t, err, errlen)) {
		close(fd);
		return -1;
	}
	for (s = t; s && n >= 0; s = s->next) {
		struct memscope_unwind_load hdr = { .fd = fd, .size = (__u32)s->size };
		size_t len = sizeof(hdr) + s->size;
		char *buf = malloc(len);

		if (!buf) {
			snprintf(err, errlen, "out of memory");
			n = -1;
			break;
		}
		memcpy(buf, &hdr, sizeof(hdr));
		memcpy(buf + sizeof(hdr), s->blob, s->size);
		/* One write is the whole of a load (the uapi header). */
		if (write(wfd, buf, len) == (ssize_t)len) {
			n++;
			if (bytes)
				*bytes += s->size;
		} else if (errno == E2BIG) {
			n = MS_UNWIND_FULL;
		} else if (errno == EOPNOTSUPP) {
			snprintf(err, errlen, "the module follows no unwind tables on this machine (x86-64 only so far): stacks are walked by frame pointers");
			n = MS_UNWIND_UNSUPPORTED;
		} else if (errno != EEXIST) {
			snprintf(err, errlen, "the module refused the unwind table of %s: %s%s", path,
				 strerror(errno), errno == EINVAL ?
				 " (a table it cannot check; the kernel log says why)" : "");
			n = -1;
		}
		free(buf);
	}
	ms_unwind_free(t);
	close(fd);
	return n;
}

int ms_unwind_print(const char *path)
{
	struct ms_unwind_table *t, *s;
	char err[512];

	if (ms_unwind_build(path, -1, &t, err, sizeof(err))) {
		print_error("%s", err);
		return 1;
	}
	for (s = t; s; s = s->next) {
		if (ms_unwind_check(s->blob, s->size, s->machine, err, sizeof(err))) {
			print_error("the table built from %s fails its own check: %s", path, err);
			ms_unwind_free(t);
			return 1;
		}
		ms_unwind_dump(s, stdout);
	}
	ms_unwind_free(t);
	return 0;
}
