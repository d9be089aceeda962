/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memscope's generic netlink family: the debugfs files' data, by command,
 * and the events stream, by multicast group.  Shared by the module and the
 * CLI.
 * Copyright (C) 2026 The memscope authors.
 *
 * Versioning: commands, attributes and groups are only ever appended, and
 * an attribute never changes type or meaning; MEMSCOPE_GENL_VERSION (the
 * family's version, CTRL_ATTR_VERSION) is bumped only if one has to.  A
 * client skips attributes it does not know.  The module validates requests
 * strictly: a client that sends a newer attribute checks CTRL_ATTR_MAXATTR
 * first.
 *
 * Repeated attributes: a reply carries one MEMSCOPE_A_STAT, MEMSCOPE_A_PROBE,
 * MEMSCOPE_A_ROW or MEMSCOPE_A_BUCKET nest per item, at the top level, in
 * the debugfs file's order: walk them (nla_for_each_attr), don't parse them
 * into a table indexed by type.
 */
#ifndef _UAPI_MEMSCOPE_GENL_H
#define _UAPI_MEMSCOPE_GENL_H

/*
 * The debugfs/procfs files' format, the "format N" line of `version`: a
 * CLI refuses a module of another format.  Bumped when a file, column,
 * field or stat changes meaning or goes away; additions (a file, a stat,
 * a ring field at the end of its line) keep it.  docs/debugfs.md says
 * what each one means.
 */
#define MEMSCOPE_FORMAT		3

/*
 * A user stack frame, in a stack table's `stack` column and in
 * MEMSCOPE_A_FRAMES (format 3).  Either a user address ("0x7f...", top bit
 * clear), or a byte offset into a mapped file, the file's slot in the
 * `files` text ("f12+0x1d2a"): what names the frame after its process
 * exited.
 */
#define MEMSCOPE_FRAME_FILE		(1ULL << 63)
#define MEMSCOPE_FRAME_SLOT_SHIFT	40
#define MEMSCOPE_FRAME_SLOT_MAX		((1U << 23) - 1)
#define MEMSCOPE_FRAME_OFF_MASK		((1ULL << MEMSCOPE_FRAME_SLOT_SHIFT) - 1)

#define MEMSCOPE_GENL_NAME	"memscope"
#define MEMSCOPE_GENL_VERSION	1

/* Multicast groups, by name (CTRL_ATTR_MCAST_GROUPS). */
#define MEMSCOPE_MCGRP_OOM		"oom"
#define MEMSCOPE_MCGRP_RECLAIM		"reclaim"
#define MEMSCOPE_MCGRP_COMPACTION	"compaction"
#define MEMSCOPE_MCGRP_MEMLEAK		"memleak"

enum memscope_cmd {
	MEMSCOPE_CMD_UNSPEC,
	MEMSCOPE_CMD_GET_STATS,		/* reply: MEMSCOPE_A_STAT per counter */
	MEMSCOPE_CMD_GET_PROBES,	/* reply: MEMSCOPE_A_PROBE per probe */
	MEMSCOPE_CMD_GET_TABLE,		/* dump; request: MEMSCOPE_A_NAME */
	MEMSCOPE_CMD_GET_HIST,		/* request: MEMSCOPE_A_NAME */
	MEMSCOPE_CMD_RESET,		/* as "reset" to control */
	MEMSCOPE_CMD_ENABLE,		/* request: MEMSCOPE_A_NAME, as "enable NAME" */
	MEMSCOPE_CMD_DISABLE,		/* request: MEMSCOPE_A_NAME */
	MEMSCOPE_CMD_EVENT_OOM,		/* notification, group "oom" */
	MEMSCOPE_CMD_EVENT_RECLAIM,	/* notification, group "reclaim" */
	MEMSCOPE_CMD_EVENT_COMPACTION,	/* notification, group "compaction" */
	MEMSCOPE_CMD_GET_TEXT,		/* dump; request: MEMSCOPE_A_NAME, "version" or a ring */
	MEMSCOPE_CMD_GET_HISTS,		/* reply: MEMSCOPE_A_NAME per histogram */
	MEMSCOPE_CMD_EVENT_MEMLEAK,	/* notification, group "memleak": a report's site */

	__MEMSCOPE_CMD_MAX,
	MEMSCOPE_CMD_MAX = __MEMSCOPE_CMD_MAX - 1
};

/*
 * One attribute space for every message.  Integers are unsigned and in
 * host order unless marked; u64s are 8-byte aligned with MEMSCOPE_A_PAD.
 */
enum memscope_attr {
	MEMSCOPE_A_UNSPEC,
	MEMSCOPE_A_PAD,
	MEMSCOPE_A_NAME,		/* string: a stat, probe, table or hist; an event's type */
	MEMSCOPE_A_VALUE,		/* u64: a stat's value */
	MEMSCOPE_A_STAT,		/* nest: NAME, VALUE */
	MEMSCOPE_A_PROBE,		/* nest: NAME, TARGET, STATE, HITS, MISSED */
	MEMSCOPE_A_TARGET,		/* string */
	MEMSCOPE_A_STATE,		/* string: attached, disabled, unavailable:<why> */
	MEMSCOPE_A_HITS,		/* u64 */
	MEMSCOPE_A_MISSED,		/* u64 */
	MEMSCOPE_A_HEADER,		/* string: a table's '#' line, as in debugfs */
	MEMSCOPE_A_ROW,			/* nest: [PID], NAME, COLUMNS, [DEPTH, FRAMES] */
	MEMSCOPE_A_PID,			/* u32: a process (tgid) */
	MEMSCOPE_A_COLUMNS,		/* nest: the counters, type n+1 for column n, u64 */
	MEMSCOPE_A_DEPTH,		/* u32: frames in FRAMES */
	MEMSCOPE_A_FRAMES,		/* binary: u64 frames, innermost first: MEMSCOPE_FRAME_* */
	MEMSCOPE_A_COUNT,		/* u64: samples in a histogram or bucket */
	MEMSCOPE_A_SUM,			/* u64: their sum */
	MEMSCOPE_A_BUCKET,		/* nest: LO, HI, COUNT, SLOT; non-empty buckets only */
	MEMSCOPE_A_LO,			/* u64, inclusive */
	MEMSCOPE_A_HI,			/* u64, inclusive */
	/* Events: the fields of the debugfs oom, direct_reclaim and compaction lines. */
	MEMSCOPE_A_SEQ,			/* u64: the events stream's sequence number */
	MEMSCOPE_A_TIME_NS,		/* u64 */
	MEMSCOPE_A_COMM,		/* string */
	MEMSCOPE_A_TRIGGER_PID,		/* u32 */
	MEMSCOPE_A_TRIGGER_COMM,	/* string */
	MEMSCOPE_A_VICTIM_PID,		/* u32 */
	MEMSCOPE_A_VICTIM_COMM,		/* string */
	MEMSCOPE_A_PAGES,		/* u64 */
	MEMSCOPE_A_ANON_RSS_KB,		/* u64; absent where the kernel can't tell */
	MEMSCOPE_A_FILE_RSS_KB,		/* u64; likewise */
	MEMSCOPE_A_SHMEM_RSS_KB,	/* u64; likewise */
	MEMSCOPE_A_OOM_SCORE_ADJ,	/* s32 */
	MEMSCOPE_A_MEMCG,		/* string: the OOM's memcg; absent if global */
	MEMSCOPE_A_ORDER,		/* s32 */
	MEMSCOPE_A_GFP_MASK,		/* u32 */
	MEMSCOPE_A_CONFIRMED,		/* flag: oom:mark_victim seen for the victim */
	MEMSCOPE_A_LATENCY_NS,		/* u64 */
	MEMSCOPE_A_NR_RECLAIMED,	/* u64: pages */
	MEMSCOPE_A_MEMCG_RECLAIM,	/* flag: a memcg's reclaim, not a global one */
	MEMSCOPE_A_STATUS,		/* string: compaction's result, as debugfs */
	MEMSCOPE_A_LINE,		/* string: a line of the file, without its newline */
	/* memleak's reports: a row of the memleak file, and where it ranks. */
	MEMSCOPE_A_REPORT,		/* u64: the report's number, from 1 at load */
	MEMSCOPE_A_RANK,		/* u32: the site's place, 1 for the most bytes */
	MEMSCOPE_A_SITE,		/* string: the memleak file's site token */
	MEMSCOPE_A_ALLOCS,		/* u64: outstanding allocations */
	MEMSCOPE_A_BYTES,		/* u64: their bytes */
	MEMSCOPE_A_OLDEST_MS,		/* u64: the age of the oldest */
	/* The rest of an oom line's fields (events_format names them all). */
	MEMSCOPE_A_LOADAVG,		/* string: as /proc/loadavg, commas for spaces */
	MEMSCOPE_A_GFP_FLAGS,		/* string: gfp_mask's names, as the OOM report */
	MEMSCOPE_A_OOM_SEQ,		/* u32: the kill's number, the oom line's seq */
	MEMSCOPE_A_SLOT,		/* u32: a bucket's index (memscope_hist.h) */

	__MEMSCOPE_A_MAX,
	MEMSCOPE_A_MAX = __MEMSCOPE_A_MAX - 1
};

#endif /* _UAPI_MEMSCOPE_GENL_H */
