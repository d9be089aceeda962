/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MS_SYMBOLS_H
#define MS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Names for code in ELF files, by the file and an offset into it: the
 * frame's identity that outlives its process.  Built with libdw, names
 * come from the file's .symtab, then its separate debuginfo (by build-id
 * or .gnu_debuglink, under the debug directory), then its .dynsym and
 * MiniDebugInfo (.gnu_debugdata), and DWARF adds the functions inlined at
 * the offset.  With libelf only, the file's own .symtab or .dynsym.
 */

#define MS_SYM_MAX_INLINE	8	/* inlined frames kept per address */

/* Where separate debuginfo lives: --debug-dir, before the first lookup. */
void ms_symbols_debug_dir(const char *dir);

/*
 * The function containing byte OFF of the file PATH, then the functions
 * inlined at that byte, outermost first: up to MAX names in NAMES, valid
 * until the next call.  Returns how many, 0 when none.  OPEN, if not
 * NULL, is where the file's bytes are read from (/proc/PID/map_files/...:
 * a deleted file, another mount namespace); PATH still names it, and its
 * directory is where .gnu_debuglink files are looked for.
 */
size_t ms_symbolize(const char *path, const char *open, uint64_t off, const char **names,
		    size_t max);

/*
 * The same, for the ELF address VADDR (its link-time address, as in its
 * symbol table): a file whose segments have no file offsets, a .debug
 * file, named by the addresses its stripped file's segments gave.
 */
size_t ms_symbolize_vaddr(const char *path, const char *open, uint64_t vaddr,
			  const char **names, size_t max);

/*
 * The separate debuginfo of the file whose build-id is HEX (lowercase
 * hexadecimal), DIR/.build-id/xx/yyyy.debug, into BUF, if it is there:
 * what names a file that was deleted or replaced since.
 */
bool ms_symbols_by_build_id(const char *hex, char *buf, size_t len);

/*
 * The offset of the last name ms_symbolize() or ms_symbolize_vaddr()
 * gave first (the function) from that function's start: "name+0xoff".
 */
uint64_t ms_symbol_offset(void);

/*
 * The file offsets of the functions NAMES[0..N) that the ELF file PATH
 * defines, by its .dynsym, then its .symtab, into OFFS (0: not defined
 * there, or an IFUNC).  -1 with errno when PATH cannot be read as ELF, or
 * this build has no libelf (ENOTSUP).
 */
int ms_symbols_find(const char *path, const char *const *names, size_t n, uint64_t *offs);

/* What names frames in this build, for a warning when it is less than libdw. */
enum ms_sym_source { MS_SYM_NONE, MS_SYM_LIBELF, MS_SYM_LIBDW };
enum ms_sym_source ms_symbols_source(void);

#endif
