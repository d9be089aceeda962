#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Feature probes: grep the target kernel's headers and print -DMS_HAVE_*
# flags.  Distributions backport interfaces, so a probe beats a version
# number wherever a header shows the difference.
# usage: probe.sh SRCTREE OBJTREE
src=$1
has() { grep -qsE "$2" "$src/$1"; }

has arch/x86/include/asm/ptrace.h 'regs_get_kernel_argument' && echo -DMS_HAVE_REGS_GET_KERNEL_ARGUMENT
# Tracepoint prototypes that changed (vmscan.c, compaction.c check them at
# build time against these same headers).
ev=$src/include/trace/events
# mm_vmscan_writepage(page) became mm_vmscan_write_folio(folio) in 5.18.
has include/trace/events/vmscan.h 'TRACE_EVENT\(mm_vmscan_write_folio' && echo -DMS_HAVE_TP_WRITE_FOLIO
# Reclaim begin events lost may_writepage and classzone_idx in 5.2.
grep -sA3 'DECLARE_EVENT_CLASS(mm_vmscan_direct_reclaim_begin_template' "$ev/vmscan.h" |
	grep -q may_writepage && echo -DMS_HAVE_TP_RECLAIM_BEGIN_WRITEPAGE
# Compaction begin/end take struct compact_control instead of the pfns.
grep -sA2 'TRACE_EVENT(mm_compaction_begin' "$ev/compaction.h" |
	grep -q 'struct compact_control' && echo -DMS_HAVE_TP_COMPACTION_CC
# mark_victim(int pid) became mark_victim(task, uid) in 6.9 (and in Debian's 6.1).
grep -sA1 'TRACE_EVENT(mark_victim' "$src/include/trace/events/oom.h" |
	grep -q 'struct task_struct' && echo -DMS_HAVE_TP_MARK_VICTIM_TASK
exit 0
