/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmap's reading of a process, shared by its text report (pmap.c) and its
 * interactive map (pmapi.c): the mappings from smaps, and each page's
 * class from pagemap and kpageflags.
 *
 * Copyright (C) 2026 The memscope authors.
 */
#ifndef MS_PMAP_H
#define MS_PMAP_H

#include <stdbool.h>
#include <stdint.h>

/* Documentation/admin-guide/mm/pagemap.rst */
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)
#define PM_FILE		(1ULL << 61)	/* file page or shared anonymous */
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define KPF_DIRTY	4
#define KPF_ANON	12
#define KPF_KSM		21
#define KPF_THP		22
#define KPF_ZERO_PAGE	24

#define PM_BATCH	512		/* pagemap entries per read */
#define PM_MAP_MAX	(1u << 20)	/* pages --map draws: 4 GiB of 4 KiB pages */

enum { C_RSS, C_PSS, C_SWAP, C_DIRTY, C_ANON, C_FILE, C_THP, C_KSM, C_ZERO, C_NR };

struct pm_map {
	uint64_t start, end, offset;
	char perm[5];
	char *name;
	uint64_t smaps_rss_kb, smaps_kb[C_NR];	/* smaps_kb[] of c_smaps[] columns */
	bool pfnmap;		/* VM_PFNMAP: no struct pages, no Rss */
	bool mergeable;		/* VM_MERGEABLE: where KSM pages can be */
	uint64_t pages[C_NR];
};

struct pm_proc {
	int64_t pid;
	char comm[64];
	struct pm_map *maps;
	size_t n;
	int pagemap_fd, kpf_fd, kpc_fd;
	bool kpf;		/* kpageflags readable and PFNs shown */
	bool ksm_flag_broken;	/* KPF_KSM on every anonymous page */
	long page;
};

/* The legend of pm_page()'s characters, two lines, as the text map prints it. */
#define PM_LEGEND1 ". not present  S swapped  A anonymous  F file  D file, dirty"
#define PM_LEGEND2 "T THP  K KSM  0 zero page"

int pm_open(struct pm_proc *p, int64_t pid);
void pm_close(struct pm_proc *p);
void pm_free_maps(struct pm_proc *p);
int pm_read_smaps(struct pm_proc *p);
void pm_check_pfns(struct pm_proc *p);
bool pm_worth_walking(const struct pm_map *m);
int pm_walk(struct pm_proc *p, struct pm_map *m, char *map);
const struct pm_map *pm_find(const struct pm_proc *p, uint64_t addr);
uint64_t pm_kpageflags(struct pm_proc *p, uint64_t pfn);
uint64_t pm_kpagecount(struct pm_proc *p, uint64_t pfn);
const char *pm_access_advice(int64_t pid, char *buf, size_t len);

struct ms_opts;
/* pmapi.c: pmap -i, the map on a terminal, -d SECONDS apart. */
int pm_interactive(const struct ms_opts *o, uint64_t map_addr, bool want_map);

#endif /* MS_PMAP_H */
