#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Feature probes: grep the target kernel's headers and print -DMS_HAVE_*
# flags.  Distributions backport interfaces (RHEL 8's 4.18 carries dozens
# of 5.x ones, Debian's 6.1 a 6.9 tracepoint), so a probe beats a version
# number wherever a header shows the difference.  Only include/ and
# arch/*/include/ are probed: that is all an installed headers package has.
# See NOTES.md for the prototypes behind each probe, README for the check.
# usage: probe.sh SRCTREE OBJTREE
src=$1
arch=${SRCARCH:-x86}
has() { grep -qsE "$2" "$src/$1"; }

# Entry arguments of a kprobed function: x86 has the helper from 4.20.
has "arch/$arch/include/asm/ptrace.h" 'regs_get_kernel_argument' &&
	echo -DMS_HAVE_REGS_GET_KERNEL_ARGUMENT
# __poll_t and EPOLL* for poll handlers came in 4.16.
has include/uapi/linux/types.h '__poll_t;' && echo -DMS_HAVE_POLL_T
# Tracepoints are found with for_each_kernel_tracepoint() from 3.15;
# before, registered by name.
has include/linux/tracepoint.h 'for_each_kernel_tracepoint' && echo -DMS_HAVE_FOR_EACH_KERNEL_TRACEPOINT
# Shrinkers split shrink into count_objects and scan_objects in 3.12.
has include/linux/shrinker.h 'scan_objects' && echo -DMS_HAVE_SHRINKER_SCAN_OBJECTS
# Cgroups live in kernfs from 3.14 (cgroup->kn).
grep -qsE 'struct kernfs_node[[:space:]]+\*kn;' "$src/include/linux/cgroup-defs.h" "$src/include/linux/cgroup.h" &&
	echo -DMS_HAVE_CGROUP_KN
# cgroup_path() returned where in buf the path starts (kernfs_path()) from
# 3.14 to 4.8; an int before (RHEL 7's cgroupfs) and since.
has include/linux/cgroup.h 'char \* __must_check cgroup_path\(' && echo -DMS_HAVE_CGROUP_PATH_CHAR
# The default (v2) hierarchy, and css_set's dfl_cgrp, came in 3.16.
grep -qsE 'struct cgroup[[:space:]]+\*dfl_cgrp;' "$src/include/linux/cgroup-defs.h" "$src/include/linux/cgroup.h" &&
	echo -DMS_HAVE_CSS_SET_DFL_CGRP
# handle_mm_fault() lost its mm argument in 4.6.
has include/linux/mm.h 'int handle_mm_fault\(struct mm_struct \*mm' && echo -DMS_HAVE_HANDLE_MM_FAULT_MM
# A fault can run under its VMA's lock alone, without the mmap lock, from
# 6.4 (RHEL 9.6 has it too).
has include/linux/mm_types.h 'FAULT_FLAG_VMA_LOCK[[:space:]]*=' && echo -DMS_HAVE_FAULT_FLAG_VMA_LOCK
# A VMA's own read lock as lock_vma_under_rcu() takes it (6.4 on, RHEL
# 9.6): vma_start_read(vma) in mm.h, and the detached flag.
has include/linux/mm.h 'bool vma_start_read\(struct vm_area_struct \*vma\)' &&
	has include/linux/mm_types.h 'bool detached;' && echo -DMS_HAVE_VMA_START_READ
# struct oom_control came in 4.3.
has include/linux/oom.h 'struct oom_control \{' && echo -DMS_HAVE_OOM_CONTROL
# oom_kill_process() took the victim, points, totalpages and memcg as
# arguments before 4.9 (declared in oom.h then).
has include/linux/oom.h 'oom_kill_process\(struct oom_control \*oc, struct task_struct \*p' &&
	echo -DMS_HAVE_OOM_KILL_PROCESS_P
# MM_SHMEMPAGES came in 4.5.
grep -qs MM_SHMEMPAGES "$src/include/linux/mm_types.h" "$src/include/linux/mm_types_task.h" &&
	echo -DMS_HAVE_MM_SHMEMPAGES
# in_compat_syscall() came in 4.6.
has include/linux/compat.h 'in_compat_syscall' && echo -DMS_HAVE_IN_COMPAT_SYSCALL
# vm_fault_t came in 4.17.
has include/linux/mm_types.h 'typedef .*vm_fault_t;' && echo -DMS_HAVE_VM_FAULT_T
# linux/overflow.h's array_size() and struct_size() came in 4.18.
has include/linux/overflow.h 'array_size\(' && echo -DMS_HAVE_ARRAY_SIZE
# kvmalloc() came in 4.12.
grep -qs kvmalloc "$src/include/linux/mm.h" "$src/include/linux/slab.h" && echo -DMS_HAVE_KVMALLOC
# procfs takes struct proc_ops from 5.6.
has include/linux/proc_fs.h 'struct proc_ops \{' && echo -DMS_HAVE_PROC_OPS
# PDE_DATA() became pde_data() in 5.17.
has include/linux/proc_fs.h 'pde_data\(' && echo -DMS_HAVE_PDE_DATA
# no_llseek() is gone from 6.12: a NULL llseek means "not seekable".
has include/linux/fs.h '[^_]no_llseek' && echo -DMS_HAVE_NO_LLSEEK
# probe_kernel_read() became copy_from_kernel_nofault() in 5.8.
has include/linux/uaccess.h 'long copy_from_kernel_nofault\(' &&
	echo -DMS_HAVE_COPY_FROM_KERNEL_NOFAULT
# copy_from_user_nofault() came in 5.8 (probe_user_read() in 5.3).
has include/linux/uaccess.h 'long copy_from_user_nofault\(' &&
	echo -DMS_HAVE_COPY_FROM_USER_NOFAULT
# mmap_read_trylock() and friends came in 5.8 (RHEL 8.10 backports them);
# before, mm->mmap_sem.
has include/linux/mmap_lock.h 'bool (__must_check )?mmap_read_trylock\(' && echo -DMS_HAVE_MMAP_LOCK
# kernel_read() took (file, buf, count, &pos) from 4.14; (file, pos, buf,
# count) before.
has include/linux/fs.h 'kernel_read\(struct file \*, void \*, size_t, loff_t \*\)' &&
	echo -DMS_HAVE_KERNEL_READ_POS
# Folios came in 5.16.
has include/linux/mm.h 'folio_nr_pages\(' && echo -DMS_HAVE_FOLIO_NR_PAGES
# PageSwapCache() went in 6.12; folio_test_swapcache() came with folios.
has include/linux/page-flags.h 'bool folio_test_swapcache\(' && echo -DMS_HAVE_FOLIO_TEST_SWAPCACHE
# kernfs_node.parent became the RCU pointer __parent in 6.15.
has include/linux/kernfs.h 'struct kernfs_node[[:space:]]+__rcu[[:space:]]*\*__parent' &&
	echo -DMS_HAVE_KERNFS_RCU_PARENT
# cgroup_id() came in 5.5 (with 64-bit kernfs ids); before, cgroup_ino().
has include/linux/cgroup.h 'u64 cgroup_id\((const )?struct cgroup \*' && echo -DMS_HAVE_CGROUP_ID
# cgroup_get_from_path() came in 4.6.
has include/linux/cgroup.h 'cgroup_get_from_path\(' && echo -DMS_HAVE_CGROUP_GET_FROM_PATH
# A cgroup by its id (5.15; exported by 6.1): cgroup paths at read time.
has include/linux/cgroup.h 'struct cgroup \*cgroup_get_from_id\(u64' &&
	echo -DMS_HAVE_CGROUP_GET_FROM_ID
# pid namespaces allocate from an idr from 4.15; before, a pidmap and last_pid.
has include/linux/pid_namespace.h 'struct idr[[:space:]]+idr;' && echo -DMS_HAVE_PID_NS_IDR

# fprobe handlers take (fp, ip, ret_ip, pt_regs, entry_data) in [6.5, 6.14):
# ret_ip came in 6.5, ftrace_regs replaced pt_regs in 6.14.
has include/linux/fprobe.h 'unsigned long ret_ip, struct pt_regs \*regs,' &&
	echo -DMS_HAVE_FPROBE_PT_REGS

# syscall_get_arguments() lost its (i, n) window in 5.1: all six, always.
grep -sA2 'void syscall_get_arguments(' "$src/include/asm-generic/syscall.h" |
	grep -q 'unsigned int i' && echo -DMS_HAVE_SYSCALL_GET_ARGUMENTS_IN

# stack_trace_save() came in 5.2; save_stack_trace() before.
has include/linux/stacktrace.h 'unsigned int stack_trace_save\(' && echo -DMS_HAVE_STACK_TRACE_SAVE

# Generic netlink (genl.c, compat/genl.h).
# [4.4, 4.10): ops and groups are given at registration (RHEL 7 has the later form).
has include/net/genetlink.h '_genl_register_family_with_ops_grps\(' &&
	echo -DMS_HAVE_GENL_REGISTER_WITH_OPS
# The attribute policy is the family's from 5.2 (and in RHEL 8); before, each op's.
grep -sA30 'struct genl_family {' "$src/include/net/genetlink.h" |
	sed '/^};/q' | grep -q 'nla_policy \*policy;' && echo -DMS_HAVE_GENL_FAMILY_POLICY
# Multicast groups that need CAP_SYS_ADMIN: a cap_sys_admin bit [5.4.y, 6.8)
# (backported to stable), GENL_MCAST_CAP_SYS_ADMIN after (a macro: compat/genl.h
# tests it), and before both, the family's mcast_bind() [3.18, 5.x].
has include/net/genetlink.h 'u8[[:space:]]+cap_sys_admin:1;' && echo -DMS_HAVE_GENL_MCGRP_CAP_SYS_ADMIN
has include/net/genetlink.h '\(\*mcast_bind\)\(struct net \*net, int group\);' &&
	echo -DMS_HAVE_GENL_MCAST_BIND
# nla_put_u64_64bit() came in 4.7 (and in RHEL 7).
has include/net/netlink.h 'int nla_put_u64_64bit\(' && echo -DMS_HAVE_NLA_PUT_U64_64BIT

# Tracepoint prototypes that changed.
# kmem (memleak.c, NOTES.md): 6.1 made kmem_cache_alloc its own event that
# passes the cache (and merged the _node twins); 5.19 added the cache to the
# kmem_alloc class before that; kmem_cache_free passes the cache's name from
# 5.12 and the cache itself from 6.1.
has include/trace/events/kmem.h 'TRACE_EVENT\(kmem_cache_alloc,' && echo -DMS_HAVE_TP_KMEM_CACHE_ALLOC_S
grep -sA6 'DECLARE_EVENT_CLASS(kmem_alloc,' "$src/include/trace/events/kmem.h" |
	grep -q 'struct kmem_cache \*s' && echo -DMS_HAVE_TP_KMEM_ALLOC_CLASS_S
has include/trace/events/kmem.h 'const void \*ptr, const struct kmem_cache \*s\)' &&
	echo -DMS_HAVE_TP_KMEM_CACHE_FREE_S
has include/trace/events/kmem.h 'const void \*ptr, const char \*name\)' &&
	echo -DMS_HAVE_TP_KMEM_CACHE_FREE_NAME
# kmem_cache_alloc_lru() came in 5.18 (slabtop.c kprobes it before 6.1).
has include/linux/slab.h 'kmem_cache_alloc_lru\(' && echo -DMS_HAVE_KMEM_CACHE_ALLOC_LRU
# kmem_cache_alloc_bulk() returned a bool until 4.6 (slabtop.c).
has include/linux/slab.h 'bool kmem_cache_alloc_bulk\(' && echo -DMS_HAVE_KMEM_CACHE_ALLOC_BULK_BOOL
# The percpu tracepoints came in 4.13.
has include/trace/events/percpu.h 'TRACE_EVENT\(percpu_alloc_percpu,' && echo -DMS_HAVE_TP_PERCPU
# percpu_alloc_percpu gained call_site, bytes_alloc and gfp_flags in 6.0.
has include/trace/events/percpu.h 'TP_PROTO\(unsigned long call_site,' && echo -DMS_HAVE_TP_PERCPU_CALL_SITE
# vmscan.c, compaction.c, oom.c and memleak.c
# check their handlers against these same headers at build time, so a
# probe that guessed wrong fails the build instead of misreading arguments.
ev=$src/include/trace/events
# mm_vmscan_writepage(page) became mm_vmscan_write_folio(folio) in 5.18.
has include/trace/events/vmscan.h 'TRACE_EVENT\(mm_vmscan_write_folio' && echo -DMS_HAVE_TP_WRITE_FOLIO
# Reclaim begin events lost may_writepage and classzone_idx in 5.2.
grep -sA3 'DECLARE_EVENT_CLASS(mm_vmscan_direct_reclaim_begin_template' "$ev/vmscan.h" |
	grep -q may_writepage && echo -DMS_HAVE_TP_RECLAIM_BEGIN_WRITEPAGE
# The reclaim begin events gained classzone_idx in 4.8 (and lost it in 5.2).
grep -sA3 'DECLARE_EVENT_CLASS(mm_vmscan_direct_reclaim_begin_template' "$ev/vmscan.h" |
	grep -q classzone_idx && echo -DMS_HAVE_TP_RECLAIM_BEGIN_CLASSZONE
# psi_memstall_enter() and its sites came with PSI in 4.20.
has include/linux/psi.h 'psi_memstall_enter' && echo -DMS_HAVE_PSI_MEMSTALL
# A task's memory cgroup as task_css(p, memory_cgrp_id), and a css's
# parent and CSS_ONLINE: the per-cgroup pressure rows (3.15 on; RHEL 7's
# 3.10 has mem_cgroup_subsys_id, and the rows are left out there).
has include/linux/cgroup.h 'task_css_check' &&
	{ has include/linux/cgroup-defs.h '_cgrp_id,' || has include/linux/cgroup.h '_cgrp_id,'; } &&
	{ has include/linux/cgroup-defs.h 'CSS_ONLINE' || has include/linux/cgroup.h 'CSS_ONLINE'; } &&
	echo -DMS_HAVE_PRESSURE_GROUPS
# PSI's memory "full" counts a running stalled task from 5.13 (the
# NR_MEMSTALL_RUNNING count); before, only a tick's worth at a time.
has include/linux/psi_types.h 'NR_MEMSTALL_RUNNING' && echo -DMS_HAVE_PSI_MEMSTALL_RUNNING
# sched_switch gained preempt in 4.4 and prev_state in 5.18.
grep -sA5 'TRACE_EVENT(sched_switch' "$ev/sched.h" |
	grep -q 'bool preempt' && echo -DMS_HAVE_TP_SCHED_SWITCH_PREEMPT
grep -sA5 'TRACE_EVENT(sched_switch' "$ev/sched.h" |
	grep -q 'prev_state' && echo -DMS_HAVE_TP_SCHED_SWITCH_PREV_STATE
# sched_wakeup lost its success argument in 4.3.
grep -sA3 'DECLARE_EVENT_CLASS(sched_wakeup_template' "$ev/sched.h" |
	grep -q 'int success' && echo -DMS_HAVE_TP_SCHED_WAKEUP_SUCCESS
# mm_vmscan_kswapd_wake gained zid in 4.8.
grep -sA2 'TRACE_EVENT(mm_vmscan_kswapd_wake' "$ev/vmscan.h" |
	grep -q 'int zid' && echo -DMS_HAVE_TP_KSWAPD_WAKE_ZID
# mm_vmscan_writepage lost reclaim_flags in 4.8.
grep -sA3 'TRACE_EVENT(mm_vmscan_writepage' "$ev/vmscan.h" |
	grep -q reclaim_flags && echo -DMS_HAVE_TP_WRITEPAGE_FLAGS
# shrink_slab_start traded pgs_scanned and lru_pgs for priority in 4.16.
grep -sA3 'TRACE_EVENT(mm_shrink_slab_start' "$ev/vmscan.h" |
	grep -q pgs_scanned && echo -DMS_HAVE_TP_SHRINK_SLAB_PGS_SCANNED
# mm_vmscan_wakeup_kswapd gained gfp_flags in 4.17.
grep -sA2 'TRACE_EVENT(mm_vmscan_wakeup_kswapd' "$ev/vmscan.h" |
	grep -q gfp_flags && echo -DMS_HAVE_TP_WAKEUP_KSWAPD_GFP
# shrink_slab_end gained nid and total_scan in 3.12.
grep -sA1 'TRACE_EVENT(mm_shrink_slab_end' "$ev/vmscan.h" |
	grep -q 'int nid' && echo -DMS_HAVE_TP_SHRINK_SLAB_END_NID
# Compaction's begin and end events came in 3.16.
has include/trace/events/compaction.h 'TRACE_EVENT\(mm_compaction_begin' && echo -DMS_HAVE_TP_COMPACTION_BEGIN
# Compaction begin/end take struct compact_control instead of the pfns
# from 5.18/5.19.
grep -sA2 'TRACE_EVENT(mm_compaction_begin' "$ev/compaction.h" |
	grep -q 'struct compact_control' && echo -DMS_HAVE_TP_COMPACTION_CC
# The oom_kill vm event and oom:mark_victim came in 4.13.
has include/linux/vm_event_item.h '[[:space:]]OOM_KILL,' && echo -DMS_HAVE_VM_OOM_KILL
has include/trace/events/oom.h 'TRACE_EVENT\(mark_victim,' && echo -DMS_HAVE_TP_MARK_VICTIM
# mark_victim(int pid) became mark_victim(task, uid) in 6.9 (and in Debian's 6.1).
grep -sA1 'TRACE_EVENT(mark_victim' "$ev/oom.h" |
	grep -q 'struct task_struct' && echo -DMS_HAVE_TP_MARK_VICTIM_TASK
# uprobe_register() returns the uprobe, which unregistering takes, from
# 6.12 (uprobe_unregister_nosync() and _sync()); the consumer's filter
# lost its uprobe_filter_ctx in the same release.
has include/linux/uprobes.h 'struct uprobe \*uprobe_register\(' && echo -DMS_HAVE_UPROBE_REGISTER_PTR
has include/linux/uprobes.h 'bool \(\*filter\)\(struct uprobe_consumer \*self, struct mm_struct \*mm\)' &&
	echo -DMS_HAVE_UPROBE_FILTER_MM
# 6.13 gave uprobe handlers a per-call cookie (__u64 *data).
has include/linux/uprobes.h 'struct pt_regs \*regs, __u64 \*data' && echo -DMS_HAVE_UPROBE_HANDLER_DATA
# d_real_inode(): the inode under an overlay, from 4.7.
has include/linux/dcache.h 'd_real_inode\(' && echo -DMS_HAVE_D_REAL_INODE
# file_dentry(): the dentry under an overlay's file, from 4.6.
has include/linux/fs.h 'struct dentry \*file_dentry\(' && echo -DMS_HAVE_FILE_DENTRY
# mmgrab() and linux/sched/mm.h came in 4.11.
has include/linux/sched/mm.h 'void mmgrab\(' && echo -DMS_HAVE_MMGRAB
exit 0
