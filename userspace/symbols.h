/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MS_SYMBOLS_H
#define MS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Names for code in ELF files, by the file and an offset into it: the
 * frame's identity that outlives its process.  With libelf, from the
 * file's own .symtab or .dynsym.
 */

#define MS_SYM_MAX_INLINE	8	/* inlined frames kept per address */

/*
 * The function containing byte OFF of the file PATH, then the functions
 * inlined at that byte, outermost first: up to MAX names in NAMES, valid
 * until the next call.  Returns how many, 0 when none.  OPEN, if not
 * NULL, is where the file's bytes are read from (/proc/PID/map_files/...:
 * a deleted file, another mount namespace); PATH still names it.
 */
size_t ms_symbolize(const char *path, const char *open, uint64_t off, const char **names,
		    size_t max);

/* What names frames in this build, for a warning when it is nothing. */
enum ms_sym_source { MS_SYM_NONE, MS_SYM_LIBELF };
enum ms_sym_source ms_symbols_source(void);

#endif
