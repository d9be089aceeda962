/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compaction events, for compaction.c, which includes this instead of
 * trace/events/compaction.h; their prototypes are tracepoints.h's.
 */
#ifndef _MEMSCOPE_COMPAT_COMPACTION_H
#define _MEMSCOPE_COMPAT_COMPACTION_H

/* Before compaction.h: 4.4 declares functions of struct node there. */
#include <linux/node.h>
#include <linux/compaction.h>

/* mm/internal.h's; the trace header only passes pointers to it around. */
struct compact_control;
#include <trace/events/compaction.h>

/*
 * The kernel's names for enum compact_result, as its tracepoints print
 * them: an EM()/EMe() list from the trace header (4.4) or mmflags.h (4.8,
 * empty without CONFIG_COMPACTION).  RHEL 7's 3.10 has none: there every
 * status is printed as a number.
 */
#ifdef COMPACTION_STATUS
#define MS_COMPACTION_STATUS COMPACTION_STATUS
#else
#define MS_COMPACTION_STATUS EMe(0, NULL)
#endif /* COMPACTION_STATUS */

#endif /* _MEMSCOPE_COMPAT_COMPACTION_H */
