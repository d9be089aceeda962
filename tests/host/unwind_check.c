// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind table's checks (module/uapi/memscope_unwind.h's list, in
 * ms_unwind_check()): the table built from FILE passes, and each copy of
 * it with one thing broken is refused.  The module's own checks (phase 3)
 * must refuse the same blobs.  Prints one line per case; exit 0 when every
 * case came out as it should.  usage: unwind_check FILE
 * Copyright (C) 2026 The memscope authors.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind.h"

struct view {
	struct memscope_unwind_header *h;
	struct memscope_unwind_rule *rules;
	struct memscope_unwind_row *rows;
	__u32 *pages;
	size_t size;	/* what the check is told the blob's length is */
};

static void break_magic(struct view *v) { v->h->magic ^= 1; }
static void break_version(struct view *v) { v->h->version++; }
static void break_machine(struct view *v) { v->h->machine = EM_AARCH64; }
static void break_flags(struct view *v) { v->h->flags = 1; }
static void break_length(struct view *v) { v->size -= 4; }
static void break_header_size(struct view *v) { v->h->header_size -= 8; }
static void break_npages(struct view *v) { v->h->nr_pages--; v->size -= 4; }
static void break_first_row(struct view *v) { v->rows[0].addr = 1; }
static void break_order(struct view *v) { v->rows[2].addr = v->rows[1].addr; }
static void break_rule_index(struct view *v) { v->rows[1].rule = (__u16)v->h->nr_rules; }
static void break_last_row(struct view *v) { v->rows[v->h->nr_rows - 1].addr = v->h->size; }
static void break_kind(struct view *v) { v->rules[0].kind = MEMSCOPE_UNWIND_KINDS; }
static void break_where(struct view *v) { v->rules[0].fp_rule = MEMSCOPE_UNWIND_AT_CFA + 1; }
static void break_page(struct view *v) { v->pages[v->h->nr_pages / 2]++; }
static void break_merge(struct view *v) { v->rows[2].rule = v->rows[1].rule; }

static void break_base(struct view *v)
{
	__u32 i;

	for (i = 0; i < v->h->nr_rules; i++)
		if (v->rules[i].kind == MEMSCOPE_UNWIND_RULE)
			v->rules[i].cfa_base = MEMSCOPE_UNWIND_REG_NONE;
}

static const struct {
	const char *name;
	void (*mangle)(struct view *v);
} cases[] = {
	{ "the table as built", NULL },
	{ "another magic", break_magic },
	{ "another version", break_version },
	{ "another machine", break_machine },
	{ "an unknown flag", break_flags },
	{ "a short blob", break_length },
	{ "a header_size below the header", break_header_size },
	{ "a page index one page short", break_npages },
	{ "a first row past the base", break_first_row },
	{ "two rows at one address", break_order },
	{ "a row's rule past the rules", break_rule_index },
	{ "a row at the end of the covered bytes", break_last_row },
	{ "an unknown kind", break_kind },
	{ "an unknown register rule", break_where },
	{ "a RULE without a CFA base", break_base },
	{ "a page entry off by one", break_page },
	{ "two consecutive rows with one rule", break_merge },
};

int main(int argc, char **argv)
{
	struct ms_unwind_table *t;
	char err[256];
	size_t i;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: unwind_check FILE\n");
		return 2;
	}
	if (ms_unwind_build(argv[1], -1, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *copy = malloc(t->size);
		struct view v = { .h = (void *)copy, .size = t->size };
		int r;

		if (!copy)
			return 2;
		memcpy(copy, t->blob, t->size);
		v.rules = (void *)(copy + v.h->header_size);
		v.rows = (void *)(v.rules + v.h->nr_rules);
		v.pages = (void *)(v.rows + v.h->nr_rows);
		if (cases[i].mangle)
			cases[i].mangle(&v);
		r = ms_unwind_check(copy, v.size, t->machine, err, sizeof(err));
		if ((r == 0) == (cases[i].mangle == NULL)) {
			printf("ok: %s: %s\n", cases[i].name, r ? err : "accepted");
		} else {
			printf("WRONG: %s: %s\n", cases[i].name, r ? err : "accepted");
			bad = 1;
		}
		free(copy);
	}
	ms_unwind_free(t);
	return bad;
}
