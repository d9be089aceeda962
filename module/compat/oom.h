/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OOM killer's interfaces, for oom.c, which includes this instead of
 * trace/events/oom.h: oom_kill_process()'s arguments, the kernel's kill
 * counter, the victim's marking, and the memcg's name.
 */
#ifndef _MEMSCOPE_COMPAT_OOM_H
#define _MEMSCOPE_COMPAT_OOM_H

#include <linux/kernfs.h>
#include <linux/memcontrol.h>
#include <linux/vmstat.h>
#include <trace/events/oom.h>

/*
 * oom_kill_process()'s decision, for the kprobe on it:
 * [3.10, 4.3)  (p, gfp_mask, order, points, totalpages, memcg, nodemask,
 *              message), RHEL 7's 3.10 included;
 * [4.3, 4.9)   (oc, p, points, totalpages, memcg, message), the request
 *              (order, gfp_mask) in oc;
 * [4.9, ...)   (oc, message), everything in oc.
 * The header decides which (oom.h declares it until 4.9).
 */
#include <linux/oom.h>

struct ms_oom_kill_args {
	struct task_struct *victim;	/* referenced by the caller */
	unsigned long totalpages;
	struct mem_cgroup *memcg;	/* NULL: a global OOM */
	int order;
	gfp_t gfp_mask;
};

static inline void ms_oom_kill_args(struct pt_regs *regs, struct ms_oom_kill_args *a)
{
#ifdef MS_HAVE_OOM_CONTROL
	struct oom_control *oc = (struct oom_control *)ms_arg(regs, 0);

	a->order = oc->order;
	a->gfp_mask = oc->gfp_mask;
#ifdef MS_HAVE_OOM_KILL_PROCESS_P
	a->victim = (struct task_struct *)ms_arg(regs, 1);
	a->totalpages = ms_arg(regs, 3);
	a->memcg = (struct mem_cgroup *)ms_arg(regs, 4);
#else
	a->victim = oc->chosen;
	a->totalpages = oc->totalpages;
	a->memcg = oc->memcg;
#endif /* MS_HAVE_OOM_KILL_PROCESS_P */
#else
	a->victim = (struct task_struct *)ms_arg(regs, 0);
	a->gfp_mask = (__force gfp_t)ms_arg(regs, 1);
	a->order = (int)ms_arg(regs, 2);
	a->totalpages = ms_arg(regs, 4);
	a->memcg = (struct mem_cgroup *)ms_arg(regs, 5);
#endif /* MS_HAVE_OOM_CONTROL */
}

/*
 * The kernel's oom_kill counter (4.13), per CPU; only oom_kill_process()
 * moves it.  Without it a kill is one the victim's marking confirmed.
 */
#if defined(CONFIG_VM_EVENT_COUNTERS) && defined(MS_HAVE_VM_OOM_KILL)
#define MS_HAVE_OOM_KILL_COUNTER true
#define ms_cpu_oom_kill_events(cpu) READ_ONCE(per_cpu(vm_event_states, cpu).event[OOM_KILL])
#else
#define MS_HAVE_OOM_KILL_COUNTER false
#define ms_cpu_oom_kill_events(cpu) 0UL
#endif /* CONFIG_VM_EVENT_COUNTERS && MS_HAVE_VM_OOM_KILL */

/*
 * The victim marked, with its task lock held:
 * [4.13, 6.9)  oom:mark_victim(pid): a confirmation, but no safe way to the mm;
 * [6.9, ...)   oom:mark_victim(task, uid), also in Debian's 6.1;
 * before 4.13  no event: a kprobe on mark_oom_victim(tsk) itself, where the
 *              tracepoint would be (MS_HAVE_MARK_VICTIM_EVENT false).
 * MS_MARK_VICTIM_TASK is the task the event passes, or NULL, and
 * MS_MARK_VICTIM_PID its pid where it passes only that.  Without the
 * event the handler takes the pid form, is never attached and is not
 * checked.
 */
#if defined(MS_HAVE_TP_MARK_VICTIM_TASK)
#define MS_MARK_VICTIM_PROTO void *data, struct task_struct *task, uid_t uid
#define MS_MARK_VICTIM_TASK task
#define MS_MARK_VICTIM_PID 0
#else
#define MS_MARK_VICTIM_PROTO void *data, int pid
#define MS_MARK_VICTIM_TASK ((struct task_struct *)NULL)
#define MS_MARK_VICTIM_PID pid
#endif /* MS_HAVE_TP_MARK_VICTIM_TASK */
#ifdef MS_HAVE_TP_MARK_VICTIM
#define MS_HAVE_MARK_VICTIM_EVENT true
#define MS_TP_CHECK_MARK_VICTIM(fn) MS_TP_CHECK(mark_victim, fn)
#else
#define MS_HAVE_MARK_VICTIM_EVENT false
#define MS_TP_CHECK_MARK_VICTIM(fn) ((void)(fn))
#endif /* MS_HAVE_TP_MARK_VICTIM */

/*
 * A memcg's path, "/a/b" relative to the cgroup root as cgroup_path() and
 * the OOM report give it, or "global" for NULL; in probe context, with
 * oom_lock held, so without sleeping.
 */
#if defined(CONFIG_MEMCG) && defined(MS_HAVE_CGROUP_KN)
#define MS_MEMCG_DEPTH 16

/*
 * Copy a kernfs name that a concurrent rename may free: cgroup v2 allows
 * renames, and kernfs_rename_lock is a sleeping lock on PREEMPT_RT.  The
 * nodes themselves are pinned (oc holds the memcg, the memcg its cgroup,
 * every kernfs node its parent); only the name string is at risk, so read
 * it without faulting and accept a garbled name in that race.
 */
static inline size_t ms_copy_name(char *dst, size_t len, const char *src)
{
	size_t n;

	for (n = 0; n + 1 < len; n++) {
		char c;

		if (copy_from_kernel_nofault(&c, src + n, 1) || !c)
			break;
		dst[n] = c;
	}
	dst[n] = '\0';
	return n;
}

/* [3.14, ...): kernfs; cgroup_path() takes kernfs_rename_lock. */
static inline void ms_memcg_path(struct mem_cgroup *memcg, char *buf, size_t len)
{
	struct kernfs_node *chain[MS_MEMCG_DEPTH], *kn;
	int depth = 0;
	size_t n = 0;

	if (!memcg) {
		strscpy(buf, "global", len);
		return;
	}
	kn = memcg->css.cgroup->kn;
	while (kn && ms_kernfs_parent(kn) && depth < MS_MEMCG_DEPTH) {
		chain[depth++] = kn;
		kn = ms_kernfs_parent(kn);
	}
	if (kn && ms_kernfs_parent(kn))	/* deeper than we keep: say so */
		n = strscpy(buf, "/...", len);
	while (depth-- && n + 2 < len) {
		buf[n++] = '/';
		n += ms_copy_name(buf + n, len - n, chain[depth]->name);
	}
	if (!n)
		strscpy(buf, "/", len);
	else
		buf[n] = '\0';
}
#elif defined(CONFIG_MEMCG)
/*
 * [3.10, 3.14): cgroupfs, before kernfs.  Its names are RCU-protected
 * and cgroup_path() reads them under rcu_read_lock() without sleeping.
 * struct mem_cgroup is private to mm/memcontrol.c there, and begins with
 * its css; mem_cgroup_css() is not exported.
 */
static inline void ms_memcg_path(struct mem_cgroup *memcg, char *buf, size_t len)
{
	const struct cgroup_subsys_state *css = (const struct cgroup_subsys_state *)memcg;

	if (!memcg)
		strscpy(buf, "global", len);
	else if (cgroup_path(css->cgroup, buf, len) < 0)
		strscpy(buf, "/...", len);
}
#else
static inline void ms_memcg_path(struct mem_cgroup *memcg, char *buf, size_t len)
{
	strscpy(buf, "global", len);
}
#endif /* CONFIG_MEMCG && MS_HAVE_CGROUP_KN, CONFIG_MEMCG */

#endif /* _MEMSCOPE_COMPAT_OOM_H */
