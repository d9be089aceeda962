/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memscope's unwind tables: one ELF object's call-frame information
 * (.eh_frame, else .debug_frame), reduced by the CLI (userspace/unwind.c,
 * with libdw) to the few rules a user-stack walk without frame pointers
 * needs, for the module to follow in probe context.  Shared by the module
 * and the CLI.  docs/unwind.md has the measurements; docs/stacks-research.md
 * §1.3 the design.
 * Copyright (C) 2026 The memscope authors.
 *
 * A table is one contiguous blob, in the byte order of the host that
 * uses it (the CLI builds it on the machine the module runs on):
 *
 *   struct memscope_unwind_header   at 0
 *   struct memscope_unwind_rule     nr_rules of them, at header_size
 *   struct memscope_unwind_row      nr_rows of them, after the rules
 *   __u32 page index                nr_pages of them, after the rows
 *
 * Each part starts 8-byte aligned: header_size is a multiple of 8, a rule
 * is 16 bytes and a row 8.  Total: header_size + 16 nr_rules + 8 nr_rows
 * + 4 nr_pages.
 *
 * What the module must check before it uses a table, since a walk in
 * probe context cannot afford to: magic, version, machine (its own), no
 * flags, header_size >= sizeof(struct memscope_unwind_header) and a
 * multiple of 8, the blob's length equal to the total above, nr_rows >= 1,
 * rows[0].addr == 0, rows' addr strictly increasing and each < size, each
 * row's rule < nr_rules, each rule's kind, cfa_base, fp_rule and ra_rule
 * known and a cfa_base other than NONE for RULE, FP_CHAIN and PLT,
 * nr_pages == (size + 4095) >> 12, and each page entry the row it should
 * be (below).
 * The builder keeps two more properties that a walker does not rely on:
 * no two consecutive rows have the same rule, and no two rules are equal.
 *
 * Looking up a user pc, in the VMA that maps it from this file:
 *
 *   1. off = pc - vm_start + (vm_pgoff << PAGE_SHIFT), the file offset;
 *      outside [seg_offset, seg_offset + seg_filesz) of every table of
 *      the file: no rule (STOP).
 *   2. a = off - seg_offset + seg_vaddr, the ELF (link-time) address.
 *      For every frame whose pc is a return address, that is every frame
 *      but the first and but one whose registers came from a signal frame,
 *      look up a - 1 instead: a call can be a function's last instruction,
 *      so its return address can be the first byte of the next function,
 *      or of an epilogue row, whose rule is not the caller's.
 *   3. rel = a - base; rel >= size (as unsigned): STOP.
 *   4. p = rel >> 12; lo = pages[p]; hi = p + 1 < nr_pages ? pages[p + 1]
 *      : nr_rows - 1; the row is the last i in [lo, hi] with rows[i].addr
 *      <= rel (a binary search: pages[p] is the row that holds the page's
 *      first byte, pages[p + 1] the one that holds the next page's).
 *   5. The rule is rules[rows[i].rule].  It holds for [rows[i].addr,
 *      rows[i + 1].addr), the last row to size.
 *
 * Following a rule (RULE and FP_CHAIN; x86-64 register names):
 *
 *   CFA = (cfa_base == SP ? sp : fp) + cfa_off
 *   ra  = [CFA + ra_off]                     (ra_rule AT_CFA)
 *   fp' = [CFA + fp_off] (fp_rule AT_CFA), fp (SAME), unknown (UNDEFINED)
 *   sp' = CFA
 *
 * [x] is an 8-byte user read.  An unknown fp is kept as unknown: a later
 * rule with cfa_base FP then stops.  A CFA that does not climb above sp
 * ends the walk, as does a zero ra.
 *
 * Addresses that no FDE covers have STOP rows: a covered range has no
 * implicit holes.  Rows are where the rule changes, not where readelf's
 * do: two FDEs, or two CFI rows, with the same rule are one row.
 */
#ifndef _UAPI_MEMSCOPE_UNWIND_H
#define _UAPI_MEMSCOPE_UNWIND_H

#include <linux/types.h>

#define MEMSCOPE_UNWIND_MAGIC		0x4e55534dU	/* "MSUN" as little-endian bytes */
#define MEMSCOPE_UNWIND_VERSION		1
#define MEMSCOPE_UNWIND_PAGE_SHIFT	12		/* the page index's pages: 4 KiB */

/*
 * One table covers one executable PT_LOAD of one file, the one a
 * file-backed executable VMA maps: [base, base + size) of ELF addresses,
 * which is [seg_vaddr, seg_vaddr + seg_memsz).  A file with several
 * executable PT_LOADs (Debian 12's node has three) has a table for each:
 * the one whose [seg_offset, seg_offset + seg_filesz) holds the file
 * offset of step 1 below is the one to follow.
 */
struct memscope_unwind_header {
	__u32 magic;		/* MEMSCOPE_UNWIND_MAGIC */
	__u16 version;		/* MEMSCOPE_UNWIND_VERSION; bumped on any change */
	__u16 machine;		/* ELF e_machine: EM_X86_64 (62) or EM_AARCH64 (183) */
	__u32 header_size;	/* bytes; the rules start here */
	__u32 flags;		/* none yet: 0 */
	__u64 seg_offset;	/* the executable PT_LOAD's p_offset */
	__u64 seg_vaddr;	/* its p_vaddr */
	__u64 seg_filesz;	/* its p_filesz */
	__u64 seg_memsz;	/* its p_memsz */
	__u64 base;		/* the first covered ELF address: seg_vaddr */
	__u32 size;		/* covered bytes: seg_memsz */
	__u32 nr_rules;
	__u32 nr_rows;
	__u32 nr_pages;		/* (size + 4095) >> 12 */
};

/* What a row's rule tells the walker to do. */
enum memscope_unwind_kind {
	/* End the walk here: no FDE, an outermost frame (the return address
	 * undefined: _start, clone's child), or a rule this format has no
	 * words for (another register as the CFA's base, an expression). */
	MEMSCOPE_UNWIND_STOP,
	/* Follow the rule (above). */
	MEMSCOPE_UNWIND_RULE,
	/* The frame-pointer rule: CFA = fp + 16, fp' = [CFA - 16], ra =
	 * [CFA - 8] on x86-64.  Its fields say exactly that, so a walker may
	 * follow it as a RULE; the kind lets it take its frame-pointer step. */
	MEMSCOPE_UNWIND_FP_CHAIN,
	/* x86-64 .plt entries, whose CFI is the one expression toolchains
	 * emit for 16-byte PLT entries, "DW_OP_breg7 8; DW_OP_breg16 0;
	 * lit15; and; lit11; ge; lit3; shl; plus": CFA = sp + cfa_off +
	 * ((pc & 15) >= 11 ? 8 : 0), pc the frame's own (not pc - 1), and
	 * then as a RULE (cfa_base SP, cfa_off 8, fp SAME, ra at CFA - 8). */
	MEMSCOPE_UNWIND_PLT,
	/* A signal frame (a CIE with the "S" augmentation: glibc's
	 * __restore_rt): the interrupted registers are in the ucontext on the
	 * stack (x86-64: struct sigcontext at sp + 40, after the handler's
	 * return popped pretcode); the next pc is exact, so no pc - 1.  The
	 * other fields are 0. */
	MEMSCOPE_UNWIND_SIGNAL,
	MEMSCOPE_UNWIND_KINDS
};

/* A rule's cfa_base. */
enum memscope_unwind_reg {
	MEMSCOPE_UNWIND_REG_NONE,	/* STOP and SIGNAL */
	MEMSCOPE_UNWIND_REG_SP,		/* x86-64 rsp (DWARF 7); arm64 sp (31) */
	MEMSCOPE_UNWIND_REG_FP,		/* x86-64 rbp (DWARF 6); arm64 x29 */
};

/* Where the caller's value of a register is (fp_rule, ra_rule). */
enum memscope_unwind_where {
	MEMSCOPE_UNWIND_UNDEFINED,	/* lost: the caller's value is unknown */
	MEMSCOPE_UNWIND_SAME,		/* this frame did not change it */
	MEMSCOPE_UNWIND_AT_CFA,		/* saved at [CFA + off] */
};

/*
 * A rule, deduplicated: rows refer to it by index.  x86-64's return
 * address is always at CFA - 8 (ra_rule AT_CFA, ra_off -8, which the
 * builder checks: any other RA rule is STOP); the field is there for
 * arm64, whose RA is LR (x30) in the first frame of a leaf (ra_rule SAME)
 * and saved at [CFA + ra_off] after its prologue, with pointer
 * authentication bits to strip.
 */
struct memscope_unwind_rule {
	__u8 kind;		/* enum memscope_unwind_kind */
	__u8 cfa_base;		/* enum memscope_unwind_reg */
	__u8 fp_rule;		/* enum memscope_unwind_where */
	__u8 ra_rule;		/* enum memscope_unwind_where */
	__s32 cfa_off;
	__s32 fp_off;		/* with fp_rule AT_CFA, else 0 */
	__s32 ra_off;		/* with ra_rule AT_CFA, else 0 */
};

/* From ELF address base + addr to the next row's: rules[rule]. */
struct memscope_unwind_row {
	__u32 addr;		/* ELF address less the header's base */
	__u16 rule;		/* index into the rules */
	__u16 spare;		/* 0 */
};

/*
 * Loading a table: one write(2) to the `unwind` file of this header and
 * then the blob, for the file open as @fd in the writer (the table is
 * the file's inode's, which the module holds until it unloads).  The
 * write is the whole of it: count == sizeof(this) + @size, or -EINVAL.
 * -E2BIG: over the module's unwind_bytes budget; -EEXIST: that file's
 * segment has a table already; -EINVAL: a blob the checks above refuse.
 */
struct memscope_unwind_load {
	__s32 fd;
	__u32 size;		/* the blob's bytes, which follow */
};

/*
 * The checks a table must pass before a walker follows it, written once
 * for the module (which runs them on every load: a walk in probe context
 * cannot afford to) and the CLI (which runs them on what it built, and
 * its host tests on broken blobs): NULL, or what is wrong.  @size is the
 * blob's bytes, @machine the walker's ELF e_machine.
 */
static inline __u64 memscope_unwind_blob_size(const struct memscope_unwind_header *h)
{
	return h->header_size + (__u64)h->nr_rules * sizeof(struct memscope_unwind_rule) +
	       (__u64)h->nr_rows * sizeof(struct memscope_unwind_row) +
	       (__u64)h->nr_pages * sizeof(__u32);
}

/* Every field known, and a base for the CFA where the kind computes one. */
static inline int memscope_unwind_rule_known(const struct memscope_unwind_rule *r)
{
	int cfa = r->kind == MEMSCOPE_UNWIND_RULE || r->kind == MEMSCOPE_UNWIND_FP_CHAIN ||
		  r->kind == MEMSCOPE_UNWIND_PLT;

	return r->kind < MEMSCOPE_UNWIND_KINDS && r->cfa_base <= MEMSCOPE_UNWIND_REG_FP &&
	       (!cfa || r->cfa_base != MEMSCOPE_UNWIND_REG_NONE) &&
	       r->fp_rule <= MEMSCOPE_UNWIND_AT_CFA && r->ra_rule <= MEMSCOPE_UNWIND_AT_CFA;
}

static inline const char *memscope_unwind_check(const void *blob, __u64 size, __u16 machine)
{
	const struct memscope_unwind_header *h = (const struct memscope_unwind_header *)blob;
	const struct memscope_unwind_rule *rules;
	const struct memscope_unwind_row *rows;
	const __u32 *pages;
	__u32 i, r = 0;

	if (size < sizeof(*h) || h->magic != MEMSCOPE_UNWIND_MAGIC ||
	    h->version != MEMSCOPE_UNWIND_VERSION)
		return "not a memscope unwind table of this version";
	if (h->machine != machine || h->flags)
		return "a table for another machine, or with flags this version does not know";
	if (h->header_size < sizeof(*h) || h->header_size % 8 ||
	    memscope_unwind_blob_size(h) != size)
		return "its size is not what its header says";
	if (h->nr_pages != ((__u64)h->size + (1U << MEMSCOPE_UNWIND_PAGE_SHIFT) - 1) >>
			   MEMSCOPE_UNWIND_PAGE_SHIFT)
		return "the page index does not cover the table";
	rules = (const struct memscope_unwind_rule *)((const char *)blob + h->header_size);
	rows = (const struct memscope_unwind_row *)(rules + h->nr_rules);
	pages = (const __u32 *)(rows + h->nr_rows);
	if (h->nr_rows < 1 || rows[0].addr != 0)
		return "the first row is not at the table's base";
	for (i = 0; i < h->nr_rules; i++)
		if (!memscope_unwind_rule_known(&rules[i]))
			return "a rule of an unknown kind, base or register rule";
	for (i = 0; i < h->nr_rows; i++) {
		if (rows[i].rule >= h->nr_rules || rows[i].addr >= h->size)
			return "a row past the rules or the covered bytes";
		if (i && rows[i].addr <= rows[i - 1].addr)
			return "rows out of order";
	}
	for (i = 0; i < h->nr_pages; i++) {
		__u64 start = (__u64)i << MEMSCOPE_UNWIND_PAGE_SHIFT;

		while (r + 1 < h->nr_rows && rows[r + 1].addr <= start)
			r++;
		if (pages[i] != r)
			return "a page entry that is not the row holding the page's first byte";
	}
	if (h->seg_offset + h->seg_filesz < h->seg_offset || h->seg_vaddr != h->base)
		return "a segment that does not fit";
	return (const char *)0;
}

#endif /* _UAPI_MEMSCOPE_UNWIND_H */
