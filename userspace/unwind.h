/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MS_UNWIND_H
#define MS_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../module/uapi/memscope_unwind.h"

/*
 * An ELF object's unwind table (module/uapi/memscope_unwind.h), built
 * from its CFI with libdw: the blob the module takes, and what the
 * builder counted on the way.
 */

/* Why a range became STOP. */
enum ms_unwind_stop {
	MS_STOP_NO_CFI,		/* no FDE covers it */
	MS_STOP_CFA,		/* CFA on another register, or an expression */
	MS_STOP_FP,		/* rbp saved other than at CFA + offset */
	MS_STOP_RA,		/* return address undefined (outermost) or elsewhere */
	MS_STOP_REASONS
};

struct ms_unwind_table {
	struct ms_unwind_table *next;	/* the object's next executable segment's */
	void *blob;		/* header, rules, rows, page index */
	size_t size;		/* its bytes */
	uint16_t machine;	/* the object's ELF e_machine: what the blob must say */
	/* rows of each kind; CFI ranges (before merging) made STOP, by reason */
	uint32_t kind_rows[MEMSCOPE_UNWIND_KINDS];
	uint32_t stop_ranges[MS_STOP_REASONS];
};

/*
 * Build the tables of the file PATH, one for each executable PT_LOAD (in
 * their order, chained by next; most objects have one), read from FD if
 * it is not -1 (PATH then only names it in errors).  0 and *OUT, or -1
 * and ERR says why: not ELF, not x86-64, no executable PT_LOAD, no CFI,
 * or a build without libdw.  ms_unwind_free() frees the chain.
 */
int ms_unwind_build(const char *path, int fd, struct ms_unwind_table **out, char *err,
		    size_t errlen);
void ms_unwind_free(struct ms_unwind_table *t);

/*
 * Check a blob as the module must (the header's list, MACHINE the ELF
 * e_machine it must be for) and as the builder makes it (no two
 * consecutive rows with one rule), and look both ends of every row up
 * through the page index: 0, or -1 and ERR says what is wrong.
 */
int ms_unwind_check(const void *blob, size_t size, uint16_t machine, char *err, size_t errlen);

/*
 * The row index holding ELF address ADDR, by the header's lookup
 * (steps 3-4), or -1 outside the table.  BLOB is checked.
 */
long ms_unwind_lookup(const void *blob, uint64_t addr);

/*
 * As text: "# rules N rows M pages P bytes B stop K rule R fp-chain F plt
 * L signal S", "# stop-ranges no-cfi A cfa B fp C ra D", "# covers
 * 0xBASE-0xEND" (ELF addresses, END excluded), then each row
 * as "0xADDR RULE" (ELF addresses) with RULE one of "stop", "plt",
 * "signal", "rule cfa=rsp+16 rbp=c-24 ra=c-8" or "fp-chain cfa=rbp+16
 * rbp=c-16 ra=c-8" (rbp: u undefined, s same, c+N at CFA + N).
 */
void ms_unwind_dump(const struct ms_unwind_table *t, FILE *fp);

/*
 * Build PATH's tables and hand each to the module through WFD, its
 * `unwind` file open for writing (memscope_unwind_load).  The number of
 * tables loaded (0: all were loaded already), or MS_UNWIND_FULL when the
 * module's budget (unwind_bytes) has no room left, or -1 and ERR says why.
 * *BYTES, if not NULL, gets the bytes loaded.
 */
#define MS_UNWIND_FULL	(-2)
/* ... or MS_UNWIND_UNSUPPORTED where the module follows none (not x86-64). */
#define MS_UNWIND_UNSUPPORTED	(-3)
int ms_unwind_load(int wfd, const char *path, size_t *bytes, char *err, size_t errlen);

/* `memscope __unwind FILE`: FILE's tables, checked, dumped; 0, else 1 with an error. */
int ms_unwind_print(const char *path);

#endif
