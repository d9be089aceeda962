// SPDX-License-Identifier: GPL-2.0
/*
 * pressure: memory stall time as PSI defines it (kernel/sched/psi.c,
 * Documentation/accounting/psi.rst), where the kernel's own PSI is off.
 * Copyright (C) 2026 The memscope authors.
 *
 * Where a task stalls: the kernel's own memstall sites, through kprobes
 * on psi_memstall_enter() and psi_memstall_leave().  Every site calls
 * them from 4.20 on, with PSI on or off (psi=0, and RHEL 8's
 * CONFIG_PSI_DEFAULT_DISABLED), so the set of sites is the kernel's own.
 * Nesting is ours to track: with PSI off the kernel never writes the
 * flags word that tells an inner call from an outer one.  A kernel built
 * without PSI, or older than 4.20, has neither function: there the sites
 * are hooked themselves, where each kernel has a hook (the reclaim
 * tracepoints, kretprobes on kswapd's and compaction's functions), and
 * the waits on refaults and swap-ins, which have none, are left out
 * (docs/pressure.md).  pressure_hooks=1 does the same where the
 * functions are there, to compare the two.
 *
 * What PSI counts on each CPU:
 *   SOME    while a task counted on that CPU is in a memstall;
 *   FULL    while, besides, nothing productive runs there: the running
 *           task is a stalled one, or the CPU idles.  That is 5.13's
 *           definition, and memscope's on kernels without PSI.  From
 *           4.20 to 5.12 a running stalled task made the CPU full only
 *           at a scheduler tick, for the time since the CPU's last
 *           change and a tick at most (psi_memstall_tick()); where the
 *           kernel's PSI is that one, so is memscope's, from a kprobe
 *           on the tick, with wakeups onto the CPU as changes too, as
 *           that PSI's enqueues are.
 *   NONIDLE while anything runs, waits on I/O or stalls there.
 * A stalled task is counted on the CPU it entered on, and moved to the
 * CPU it is switched in on, as psi_ttwu_dequeue() moves it.  What runs
 * comes from sched_switch, whose handler reads a flag and two counters
 * and returns while no stall is recent and no task is queued (below);
 * while one is, it also notes the next task's memcgs, whose time running
 * there weighs a cgroup's CPUs (ms_pressure_collect()), with the time its
 * tasks waited there to run or on I/O (ms_pressure_waits_switch()).
 * NONIDLE comes from
 * each CPU's idle time, read when the totals are collected, less the time
 * a CPU idled with a task queued on it: a task woken from another CPU is
 * enqueued by that CPU (always on PREEMPT_RT, and before 6.0 onto an idle
 * CPU), and PSI counts its CPU non-idle from then, though it idles until
 * the reschedule IPI lands.  sched_wakeup notes such a CPU's idle time,
 * its next switch ends the wait.
 *
 * The totals are collected every PSI period (2 s and a tick) and at each
 * read, with PSI's weights: a CPU's share is its non-idle time in
 * jiffies, so a stall on one busy CPU of four counts for a quarter.  The
 * averages are PSI's calc_avgs() with its constants.  Neither is reset by
 * `reset`: like /proc/pressure/memory, the file only grows.
 */
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/tick.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>
#include <trace/events/vmscan.h>

#include "memscope.h"

#define MS_PRESSURE_STATS(X)						\
	X(pressure_stalls, "Memory stalls begun (psi_memstall_enter calls, outermost).") \
	X(pressure_tasks_full, "Memory stalls not counted: more tasks stalled at once than the table holds.") \
	X(pressure_cgroups_full, "Memory stalls not counted for a cgroup: more cgroups with stalls than pressure_by_cgroup holds.") \
	X(pressure_waits_full, "Waits of a cgroup's tasks to run or on I/O not followed: more waiting at once than the table holds.")
MS_STAT_SET(pressure, MS_PRESSURE_STATS);

/* Tasks in a memstall at once, each in one slot found by its pointer. */
#define MS_PRESSURE_TASKS	1024
#define MS_PRESSURE_REACH	16
/* Memory cgroups with a stall on record: pressure_by_cgroup's rows. */
#define MS_PRESSURE_GROUPS	64

struct ms_pressure_task {
	unsigned long owner;	/* the task_struct; 0 when free */
	unsigned int depth;	/* enters not yet left: the owner's alone */
	int cpu;		/* whose count it is in, or -1: under that CPU's lock */
	/* Its memcg and that memcg's ancestors but the root: group slots. */
	DECLARE_BITMAP(groups, MS_PRESSURE_GROUPS);
};

static struct ms_pressure_task ms_pressure_tasks[MS_PRESSURE_TASKS];
static atomic_t ms_pressure_nr_stalled;

/*
 * A task of a cgroup with a row, waiting on a CPU while stalls are
 * recent: PSI counts the cgroup non-idle there, as for a task that
 * runs or stalls.  Runnable and not running (woken there, or switched
 * out preempted: MS_WAIT_QUEUED), or asleep on I/O (switched out with
 * in_iowait, until its wakeup: MS_WAIT_IOWAIT).  Found by the task's
 * pointer, as ms_pressure_tasks; a slot of an older epoch (below) counts
 * nowhere, and is free to claim.  Its events are the task's own, which
 * the scheduler orders (a wakeup's enqueue waits for the task to be off
 * its CPU), so one changes a slot at a time; its counts change under the
 * lock of the CPU it waits on.  Tasks that already waited when stalls
 * became recent, and migrations of waiting tasks, are not seen: the
 * first wait starts at its next preemption or wakeup, and a migrated
 * one is counted where it was queued until it runs.
 */
enum { MS_WAIT_NONE, MS_WAIT_QUEUED, MS_WAIT_IOWAIT };
struct ms_pressure_wait {
	unsigned long owner;	/* the task_struct; 0 when free */
	int cpu;		/* where it is counted, or -1 */
	unsigned int epoch;	/* ms_pressure_epoch when it was */
	u8 kind;		/* MS_WAIT_* */
	bool stalled;		/* queued in a memstall: not free to run PSI's FULL away */
	DECLARE_BITMAP(groups, MS_PRESSURE_GROUPS);
};
static struct ms_pressure_wait ms_pressure_waits[MS_PRESSURE_TASKS];
/* CPUs with a task woken onto them from another CPU, not yet switched in. */
static atomic_t ms_pressure_nr_queued;
/*
 * From a stall to the first collection that finds none since the one
 * before: the CPUs' weights count for all the time a collection spans,
 * stalled or not, so wakeups are followed for all of it
 * (ms_pressure_queue()).  Set again at each switch while a task stalls,
 * should a collection have cleared it as a stall began.
 */
static bool ms_pressure_recent;
/*
 * Bumped as ms_pressure_recent is set again: what a CPU found running
 * before then (its curr_groups) is stale until its next switch.
 */
static atomic_t ms_pressure_epoch;

static void ms_pressure_mark_recent(void)
{
	if (!READ_ONCE(ms_pressure_recent)) {
		atomic_inc(&ms_pressure_epoch);
		WRITE_ONCE(ms_pressure_recent, true);
	}
}

/*
 * A memory cgroup's row: its css, referenced while the row is in use, and
 * found by that pointer.  Claimed under the lock on a task's first stall
 * in it (a raw lock: from probe context); let go by the collector once
 * the cgroup is offline and no stall names it.
 */
struct ms_pressure_group {
	struct cgroup_subsys_state *css;
	atomic_t users;		/* task slots whose groups have it */
	/* Under ms_pressure.lock: as the system's (ms_pressure), per cgroup. */
	u64 total[2];		/* ns: some, full */
	u64 avg_total[2];
	unsigned long avg[2][3];
};
static struct ms_pressure_group ms_pressure_groups[MS_PRESSURE_GROUPS];
static DECLARE_BITMAP(ms_pressure_groups_used, MS_PRESSURE_GROUPS);
static DEFINE_RAW_SPINLOCK(ms_pressure_groups_lock);

#define MS_CURR_KEEP	-1	/* leave what runs as it is */
#define MS_CURR_STALLED	1
#define MS_CURR_IDLE	2

/* PSI's per-CPU times, of the system or of one memory cgroup. */
struct ms_pressure_acct {
	int nr_stalled;
	/* A cgroup's tasks waiting here, while stalls are recent (below). */
	int nr_queued;		/* runnable, not running */
	int nr_queued_free;	/* of which not stalled */
	int nr_iowait;		/* asleep on I/O */
	u64 last;		/* ms_pair_now() the times run to */
	u64 some, full;		/* ns */
	u64 nonidle;		/* a cgroup's: ns a task of it stalled, ran or waited here */
};

struct ms_pressure_cpu {
	raw_spinlock_t lock;
	int curr;		/* MS_CURR_* of what runs, while a task stalls */
	/* The groups what runs is in, while a task stalls anywhere. */
	DECLARE_BITMAP(curr_groups, MS_PRESSURE_GROUPS);
	/* ms_pressure_epoch when they were set: older ones say nothing. */
	unsigned int curr_epoch;
	DECLARE_BITMAP(stalled_groups, MS_PRESSURE_GROUPS);	/* nr_stalled > 0 here */
	/* Groups with a task waiting here (nr_queued or nr_iowait), as of waits_epoch. */
	DECLARE_BITMAP(waiting_groups, MS_PRESSURE_GROUPS);
	unsigned int waits_epoch;
	u64 last_change;	/* of a count or of what runs: the tick's FULL (< 5.13) */
	/*
	 * A task woken onto this CPU from another and not yet switched in:
	 * the CPU's idle time (us) then, and the idle time it has had with
	 * one queued so, which PSI counts as non-idle (ns).
	 */
	bool queued;
	u64 queued_idle_us;
	u64 queued_ns;
	struct ms_pressure_acct sys;
	struct ms_pressure_acct *grp;	/* [MS_PRESSURE_GROUPS], its ms_pressure_groups_cpu's */
};
static DEFINE_PER_CPU(struct ms_pressure_cpu, ms_pressure_cpu);

/*
 * The groups' times on each CPU, and the collector's view of them at its
 * last collection ([group][some, full]).  Allocated at load: too big for
 * the per-CPU space that all modules share (8 KiB on x86-64).
 */
struct ms_pressure_groups_cpu {
	struct ms_pressure_acct acct[MS_PRESSURE_GROUPS];
	u64 prev[MS_PRESSURE_GROUPS][3];	/* some, full, nonidle */
};
static struct ms_pressure_groups_cpu __percpu *ms_pressure_groups_cpu;

/* The collector's view of each CPU at its last collection. */
struct ms_pressure_prev {
	u64 now, some, full, idle_us, queued_ns;
};
static DEFINE_PER_CPU(struct ms_pressure_prev, ms_pressure_prev);

/* PSI's constants (psi.c, include/linux/sched/loadavg.h). */
#define MS_FSHIFT	11
#define MS_FIXED_1	(1UL << MS_FSHIFT)
#define MS_LOAD_INT(x)	((x) >> MS_FSHIFT)
#define MS_LOAD_FRAC(x)	MS_LOAD_INT(((x) & (MS_FIXED_1 - 1)) * 100)
#define MS_PSI_FREQ	(2 * HZ + 1)
#define MS_PSI_PERIOD	((u64)MS_PSI_FREQ * (NSEC_PER_SEC / HZ))
static const unsigned long ms_psi_exp[3] = { 1677, 1981, 2034 };	/* 10 s, 60 s, 300 s */

static struct {
	struct mutex lock;	/* the totals, the averages, and group rows' release */
	u64 total[2];		/* ns: some, full */
	u64 avg_total[2];
	unsigned long avg[2][3];
	u64 avg_last_update;
	u64 avg_next_update;
	struct delayed_work work;
	/* The collector's: each group's times on one CPU, and their sums. */
	u64 grp_delta[MS_PRESSURE_GROUPS][3];
	u64 grp_sum[MS_PRESSURE_GROUPS][5];
} ms_pressure;

static struct ms_pressure_task *ms_pressure_task_find(unsigned long task)
{
	unsigned int i = ms_hash_64(task, ilog2(MS_PRESSURE_TASKS)), n;

	for (n = 0; n < MS_PRESSURE_REACH; n++, i = (i + 1) & (MS_PRESSURE_TASKS - 1))
		if (READ_ONCE(ms_pressure_tasks[i].owner) == task)
			return &ms_pressure_tasks[i];
	return NULL;
}

static struct ms_pressure_task *ms_pressure_task_claim(unsigned long task)
{
	unsigned int i = ms_hash_64(task, ilog2(MS_PRESSURE_TASKS)), n;

	for (n = 0; n < MS_PRESSURE_REACH; n++, i = (i + 1) & (MS_PRESSURE_TASKS - 1)) {
		struct ms_pressure_task *t = &ms_pressure_tasks[i];

		if (!READ_ONCE(t->owner) && !cmpxchg(&t->owner, 0, task))
			return t;
	}
	return NULL;
}

/*
 * Where the stalls come from.  The kernel's memstall functions where it
 * has them with PSI built in; else (before 4.20, or CONFIG_PSI=n), and
 * with pressure_hooks=1, the sites themselves, each through the nearest
 * hook the kernel has (docs/pressure.md, Sites).
 */
static bool ms_pressure_hooks;
module_param_named(pressure_hooks, ms_pressure_hooks, bool, 0400);
MODULE_PARM_DESC(pressure_hooks, "pressure: stalls from hooks on the memstall sites (what kernels before 4.20 get), not psi_memstall_enter/leave");

/* A running stalled task makes its CPU full: 5.13's PSI, and the hooks'. */
static bool ms_pressure_running_full;

/*
 * Each source of stalls as the probe that begins them and the one that
 * ends them (the same kretprobe for a function's entry and return).  While
 * an end that could attach is not attached, no stall can be seen to end,
 * and nothing is counted; one the kernel cannot have (unavailable) has
 * no stalls to end, since its beginning enters none.  Set at load.
 */
struct ms_pressure_source {
	struct ms_probe *enter, *leave;
};
static struct ms_probe ms_pressure_leave_probe;
static struct ms_pressure_source ms_pressure_sources[8];
static unsigned int ms_pressure_nr_sources;

static bool ms_pressure_leaves_attached(void)
{
	unsigned int i;

	for (i = 0; i < ms_pressure_nr_sources; i++) {
		const struct ms_pressure_source *src = &ms_pressure_sources[i];

		if (!READ_ONCE(src->leave->attached) && !READ_ONCE(src->leave->reason))
			return false;
	}
	return true;
}

static void ms_pressure_acct_advance(struct ms_pressure_acct *a, u64 now, bool running,
				     bool counting, bool full)
{
	s64 d = now - a->last;

	if (d <= 0)
		return;
	a->last = now;
	if (a->nr_stalled > 0 || running || a->nr_queued > 0 || a->nr_iowait > 0)
		a->nonidle += d;
	if (a->nr_stalled <= 0 || !counting)
		return;
	a->some += d;
	if (full)
		a->full += d;
}

/*
 * Whether what @c found running, in its curr_groups, is current: set
 * since stalls were last recent, and not the idle task.
 */
static bool ms_pressure_runs(const struct ms_pressure_cpu *c)
{
	return c->curr != MS_CURR_IDLE &&
	       c->curr_epoch == (unsigned int)atomic_read(&ms_pressure_epoch);
}

/*
 * Whether a memory cgroup @g with a stall on @c is full: nothing of it
 * productive runs there.  From 5.13 (and with the hooks), what runs is
 * idle, outside it, or a stalled task of it.  Before, a group was full
 * only while none of its tasks could run, stalled or not: none of them
 * runs there (the CPU idles, or runs a task outside it, if what runs is
 * known) and none is queued there (plus a tick's sample of a stalled
 * task of it running).
 */
static bool ms_pressure_group_full(const struct ms_pressure_cpu *c, int g)
{
	const struct ms_pressure_acct *a = &c->grp[g];

	if (!ms_pressure_running_full) {
		if (a->nr_queued > 0)
			return false;
		return c->curr == MS_CURR_IDLE ||
		       (ms_pressure_runs(c) && !test_bit(g, c->curr_groups));
	}
	/* A task of it that could run productively, queued here, is not full. */
	if (a->nr_queued_free > 0)
		return false;
	if (c->curr == MS_CURR_IDLE)
		return true;
	return !test_bit(g, c->curr_groups) || c->curr == MS_CURR_STALLED;
}


/*
 * Under @c's lock: the waits counted on @c are of this epoch, or are
 * forgotten (a slot of an older one counts nowhere: ms_pressure_wait_put()).
 */
static void ms_pressure_waits_fresh(struct ms_pressure_cpu *c)
{
	unsigned int epoch = atomic_read(&ms_pressure_epoch);
	int g;

	if (c->waits_epoch == epoch)
		return;
	for_each_set_bit(g, c->waiting_groups, MS_PRESSURE_GROUPS) {
		c->grp[g].nr_queued = 0;
		c->grp[g].nr_queued_free = 0;
		c->grp[g].nr_iowait = 0;
	}
	bitmap_zero(c->waiting_groups, MS_PRESSURE_GROUPS);
	c->waits_epoch = epoch;
}

/*
 * Whether group @g's time on @c runs: a task of it stalls, runs (@runs:
 * ms_pressure_runs()) or waits there.  Else its last is moved to the
 * moment it starts to.
 */
static bool ms_pressure_grp_advanced(const struct ms_pressure_cpu *c, int g, bool runs)
{
	return c->grp[g].nr_stalled || (runs && test_bit(g, c->curr_groups)) ||
	       test_bit(g, c->waiting_groups);
}

/*
 * Time up to @now, in the state @c was in, for the system and for each
 * cgroup with a stall there, or running or waiting there while stalls
 * are recent; under its lock.  Without the end probes no stall can be seen to end:
 * nothing is counted then.
 */
static void ms_pressure_advance(struct ms_pressure_cpu *c, u64 now)
{
	bool counting = ms_pressure_leaves_attached(), runs = ms_pressure_runs(c);
	DECLARE_BITMAP(active, MS_PRESSURE_GROUPS);
	int g;

	ms_pressure_acct_advance(&c->sys, now, false, counting, c->curr == MS_CURR_IDLE ||
				 (c->curr == MS_CURR_STALLED && ms_pressure_running_full));
	/* Waits of an older epoch ended with it: their time is not counted. */
	ms_pressure_waits_fresh(c);
	bitmap_or(active, c->waiting_groups, c->stalled_groups, MS_PRESSURE_GROUPS);
	if (runs)
		bitmap_or(active, active, c->curr_groups, MS_PRESSURE_GROUPS);
	for_each_set_bit(g, active, MS_PRESSURE_GROUPS)
		ms_pressure_acct_advance(&c->grp[g], now, runs && test_bit(g, c->curr_groups),
					 counting, ms_pressure_group_full(c, g));
}

/* @t's count, on @c, goes up or down by @n, for the system and its groups. */
static void ms_pressure_count(struct ms_pressure_cpu *c, const struct ms_pressure_task *t,
			      int n, u64 now)
{
	int g;

	c->sys.nr_stalled += n;
	for_each_set_bit(g, t->groups, MS_PRESSURE_GROUPS) {
		struct ms_pressure_acct *a = &c->grp[g];

		/* A group neither stalled, running nor waiting here was not advanced. */
		if (!ms_pressure_grp_advanced(c, g, ms_pressure_runs(c)))
			a->last = now;
		a->nr_stalled += n;
		if (a->nr_stalled > 0)
			__set_bit(g, c->stalled_groups);
		else
			__clear_bit(g, c->stalled_groups);
	}
}

/*
 * What a change does to the stalled task @t on a CPU.  A slot is counted
 * on the CPU its cpu field names, or on none while that is -1: just
 * claimed, or moving to another CPU.  Every move of the count happens
 * under the CPU's lock, checked against the slot's owner and CPU there,
 * so that a forget and a leave or a move never both count it out.
 */
enum ms_pressure_op {
	MS_PRESSURE_NONE,	/* only what runs changes */
	MS_PRESSURE_ATTACH,	/* counted here: a new stall, or one that moved here */
	MS_PRESSURE_DETACH,	/* no longer here: it moves */
	MS_PRESSURE_RELEASE,	/* no longer here: it ended, the slot is free */
};

/* The users @groups held, let go: a stall's end, or its slot's forgetting. */
static void ms_pressure_groups_put(const unsigned long *groups)
{
	int g;

	for_each_set_bit(g, groups, MS_PRESSURE_GROUPS)
		atomic_dec(&ms_pressure_groups[g].users);
}

/*
 * On @cpu, under its lock: the time up to @now, then @op on @t (if it is
 * still @owner's and where @op expects it), then what runs becomes @curr,
 * in the groups @members (unless @curr is MS_CURR_KEEP).  False if @op
 * did not apply.
 */
static bool ms_pressure_change(int cpu, struct ms_pressure_task *t, unsigned long owner,
			       enum ms_pressure_op op, int curr, const unsigned long *members,
			       u64 now)
{
	struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
	unsigned long flags;
	bool ok = true;

	raw_spin_lock_irqsave(&c->lock, flags);
	ms_pressure_advance(c, now);
	if (op != MS_PRESSURE_NONE) {
		ok = READ_ONCE(t->owner) == owner &&
		     READ_ONCE(t->cpu) == (op == MS_PRESSURE_ATTACH ? -1 : cpu);
		if (ok) {
			ms_pressure_count(c, t, op == MS_PRESSURE_ATTACH ? 1 : -1, now);
			WRITE_ONCE(t->cpu, op == MS_PRESSURE_ATTACH ? cpu : -1);
			if (op == MS_PRESSURE_RELEASE) {
				ms_pressure_groups_put(t->groups);
				WRITE_ONCE(t->owner, 0);
			}
		}
	}
	if (curr != MS_CURR_KEEP) {
		bool ran = ms_pressure_runs(c);
		int g;

		c->curr = curr;
		c->curr_epoch = atomic_read(&ms_pressure_epoch);
		/* Groups not advanced above (neither stalled, running nor waiting): from now. */
		for_each_set_bit(g, members, MS_PRESSURE_GROUPS)
			if (!ms_pressure_grp_advanced(c, g, ran))
				c->grp[g].last = now;
		bitmap_copy(c->curr_groups, members, MS_PRESSURE_GROUPS);
	}
	c->last_change = now;
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return ok;
}

/*
 * The group slot of @css, or -1.  Only pointers are compared: a slot let
 * go meanwhile held an offline cgroup, which no task can be in.
 */
static int ms_pressure_group_find(const struct cgroup_subsys_state *css)
{
	int g;

	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS)
		if (READ_ONCE(ms_pressure_groups[g].css) == css)
			return g;
	return -1;
}

/*
 * ... or a new one, holding a reference on @css: -ENOSPC if none is
 * free, -ENOENT for a cgroup being removed (no stall of it to keep).
 */
static int ms_pressure_group_claim(struct cgroup_subsys_state *css)
{
	unsigned long flags;
	int g;

	raw_spin_lock_irqsave(&ms_pressure_groups_lock, flags);
	g = ms_pressure_group_find(css);
	if (g < 0) {
		g = find_first_zero_bit(ms_pressure_groups_used, MS_PRESSURE_GROUPS);
		if (g >= MS_PRESSURE_GROUPS) {
			g = -ENOSPC;
		} else if (!ms_css_tryget(css)) {
			g = -ENOENT;
		} else {
			WRITE_ONCE(ms_pressure_groups[g].css, css);
			smp_wmb();	/* the css before the bit that shows it */
			set_bit(g, ms_pressure_groups_used);
		}
	}
	raw_spin_unlock_irqrestore(&ms_pressure_groups_lock, flags);
	return g;
}

/*
 * The groups of task @p, its memory cgroup and each ancestor but the
 * root, into @groups; with @claim (the stall's own task), rows are
 * claimed for those without one, and each gains a user.  Under the RCU
 * read side a probe has (ms_probe_rcu_lock()).
 */
static void ms_pressure_groups_of(struct task_struct *p, unsigned long *groups, bool claim)
{
	struct cgroup_subsys_state *css;
	int g;

	bitmap_zero(groups, MS_PRESSURE_GROUPS);
	if (!claim && bitmap_empty(ms_pressure_groups_used, MS_PRESSURE_GROUPS))
		return;
	for (css = ms_task_memcg_css(p); css && ms_css_parent(css); css = ms_css_parent(css)) {
		g = ms_pressure_group_find(css);
		if (g < 0 && claim) {
			g = ms_pressure_group_claim(css);
			if (g == -ENOSPC)
				ms_stat_inc(pressure, MS_pressure_cgroups_full);
		}
		if (g < 0)
			continue;
		__set_bit(g, groups);
		if (claim)
			atomic_inc(&ms_pressure_groups[g].users);
	}
}

/*
 * The current task enters a memstall, at a site probe @p hit, which
 * probe @leave ends.  An inner site only deepens the outer one, as
 * psi_memstall_enter()'s *flags.  Without its end attached (a function
 * a build inlined), a stall could never end: the site is not counted.
 */
static void ms_pressure_enter(struct ms_probe *p, const struct ms_probe *leave)
{
	unsigned long me = (unsigned long)current;
	DECLARE_BITMAP(mine, MS_PRESSURE_GROUPS);
	struct ms_pressure_task *t;

	ms_hit(p);
	if (!READ_ONCE(leave->attached))
		return;
	t = ms_pressure_task_find(me);
	if (t) {
		t->depth++;
		return;
	}
	t = ms_pressure_task_claim(me);
	if (!t) {
		ms_stat_inc(pressure, MS_pressure_tasks_full);
		return;
	}
	t->depth = 1;
	ms_probe_rcu_lock();
	ms_pressure_groups_of(current, t->groups, true);
	ms_probe_rcu_unlock();
	bitmap_copy(mine, t->groups, MS_PRESSURE_GROUPS);
	atomic_inc(&ms_pressure_nr_stalled);
	ms_pressure_mark_recent();
	if (ms_pressure_change(smp_processor_id(), t, me, MS_PRESSURE_ATTACH, MS_CURR_STALLED,
			       mine, ms_pair_now())) {
		ms_stat_inc(pressure, MS_pressure_stalls);
		return;
	}
	/* Not possible while the slot is ours at cpu -1; but never leak it. */
	atomic_dec(&ms_pressure_nr_stalled);
	ms_pressure_groups_put(mine);
	WRITE_ONCE(t->owner, 0);
}

/*
 * The current task leaves a memstall site: the stall ends with the
 * outermost.  @p, if any, is the probe whose hit this is.
 */
static void ms_pressure_leave(struct ms_probe *p)
{
	unsigned long me = (unsigned long)current;
	DECLARE_BITMAP(mine, MS_PRESSURE_GROUPS);
	struct ms_pressure_task *t;
	int cpu = smp_processor_id(), from;
	u64 now;

	if (p)
		ms_hit(p);
	t = ms_pressure_task_find(me);
	/* Not found: it entered before the probes attached, or found no slot. */
	if (!t || --t->depth)
		return;
	now = ms_pair_now();
	/* Its groups, while the slot is still its own: what runs here now. */
	bitmap_copy(mine, t->groups, MS_PRESSURE_GROUPS);
	/* A running task does not move: its count is here, or was forgotten. */
	from = READ_ONCE(t->cpu);
	if (from != cpu)
		ms_pressure_change(cpu, NULL, 0, MS_PRESSURE_NONE, 0, mine, now);
	if (from >= 0 && ms_pressure_change(from, t, me, MS_PRESSURE_RELEASE,
					    from == cpu ? 0 : MS_CURR_KEEP, mine, now))
		atomic_dec(&ms_pressure_nr_stalled);
}

static int ms_pressure_enter_pre(struct kprobe *kp, struct pt_regs *regs)
{
	ms_pressure_enter(container_of(kp, struct ms_probe, kp), &ms_pressure_leave_probe);
	return 0;
}

static int ms_pressure_leave_pre(struct kprobe *kp, struct pt_regs *regs)
{
	ms_pressure_leave(container_of(kp, struct ms_probe, kp));
	return 0;
}

/*
 * A task woken onto @cpu by another CPU: the kernel enqueued it there
 * from the waker's CPU (PREEMPT_RT, which does not queue wakeups for the
 * target to do, and before 6.0 wakeups onto an idle CPU too), and PSI
 * counts @cpu non-idle from then, while @cpu idles on until the
 * reschedule IPI reaches it.  Its idle time up to its next switch is
 * what PSI counts so; a CPU that was not idle has none.
 */
static void ms_pressure_queue(int cpu)
{
	struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
	u64 idle_us = get_cpu_idle_time_us(cpu, NULL);
	unsigned long flags;

	if (idle_us == (u64)-1 || READ_ONCE(c->queued))
		return;
	raw_spin_lock_irqsave(&c->lock, flags);
	if (!c->queued) {
		c->queued = true;
		c->queued_idle_us = idle_us;
		atomic_inc(&ms_pressure_nr_queued);
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/* Under @c's lock: the idle time @c had with a task queued, up to @idle_us. */
static void ms_pressure_queued_idle(struct ms_pressure_cpu *c, u64 idle_us)
{
	if (idle_us > c->queued_idle_us)
		c->queued_ns += (idle_us - c->queued_idle_us) * NSEC_PER_USEC;
	c->queued_idle_us = max(c->queued_idle_us, idle_us);
}

/* @cpu, the current one, switches: a task queued there runs, or another does. */
static void ms_pressure_unqueue(int cpu)
{
	struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
	unsigned long flags;
	u64 idle_us;

	if (likely(!READ_ONCE(c->queued)))
		return;
	idle_us = get_cpu_idle_time_us(cpu, NULL);
	raw_spin_lock_irqsave(&c->lock, flags);
	if (c->queued) {
		ms_pressure_queued_idle(c, idle_us);
		c->queued = false;
		atomic_dec(&ms_pressure_nr_queued);
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * When the switch probe attaches again: a task queued while it was off
 * may have run long since, unseen.  Its idle time is not counted, and
 * the waits on record, whose ends it may have missed, are forgotten
 * (the epoch: ms_pressure_waits_fresh()), as is what each CPU ran.
 */
static void ms_pressure_unqueue_all(void)
{
	int cpu;

	/* The waits it did not see end: forgotten with their epoch. */
	atomic_inc(&ms_pressure_epoch);
	for_each_possible_cpu(cpu) {
		struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
		unsigned long flags;

		raw_spin_lock_irqsave(&c->lock, flags);
		if (c->queued) {
			c->queued = false;
			atomic_dec(&ms_pressure_nr_queued);
		}
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
}

/* @task's wait slot, if it has one of this epoch. */
static struct ms_pressure_wait *ms_pressure_wait_find(unsigned long task, unsigned int epoch)
{
	unsigned int i = ms_hash_64(task, ilog2(MS_PRESSURE_TASKS)), n;

	for (n = 0; n < MS_PRESSURE_REACH; n++, i = (i + 1) & (MS_PRESSURE_TASKS - 1)) {
		struct ms_pressure_wait *w = &ms_pressure_waits[i];

		if (READ_ONCE(w->owner) == task)
			return READ_ONCE(w->epoch) == epoch ? w : NULL;
	}
	return NULL;
}

/* ... or a slot for it: a free one, or one of an older epoch, which counts nowhere. */
static struct ms_pressure_wait *ms_pressure_wait_claim(unsigned long task, unsigned int epoch)
{
	unsigned int i = ms_hash_64(task, ilog2(MS_PRESSURE_TASKS)), n;

	for (n = 0; n < MS_PRESSURE_REACH; n++, i = (i + 1) & (MS_PRESSURE_TASKS - 1)) {
		struct ms_pressure_wait *w = &ms_pressure_waits[i];
		unsigned long old = READ_ONCE(w->owner);

		if (old == task || ((!old || READ_ONCE(w->epoch) != epoch) &&
				    cmpxchg(&w->owner, old, task) == old)) {
			if (old != task || READ_ONCE(w->epoch) != epoch) {
				WRITE_ONCE(w->cpu, -1);
				w->kind = MS_WAIT_NONE;
			}
			WRITE_ONCE(w->epoch, epoch);
			return w;
		}
	}
	return NULL;
}

/*
 * @w's wait on its CPU ends (@kind MS_WAIT_NONE), or it waits as @kind on
 * @cpu from @now.  Its counts move under each CPU's lock, and only within
 * the epoch that CPU counts (a CPU that moved on forgot them).
 */
static void ms_pressure_wait_set(struct ms_pressure_wait *w, int kind, int cpu, u64 now)
{
	unsigned int epoch = READ_ONCE(w->epoch);
	struct ms_pressure_cpu *c;
	unsigned long flags;
	int g, n;

	for (n = -1; n <= 1; n += 2) {
		int at = n < 0 ? READ_ONCE(w->cpu) : cpu;
		int k = n < 0 ? w->kind : kind;

		if (at < 0 || k == MS_WAIT_NONE)
			continue;
		c = per_cpu_ptr(&ms_pressure_cpu, at);
		raw_spin_lock_irqsave(&c->lock, flags);
		ms_pressure_advance(c, now);
		if (c->waits_epoch == epoch) {
			bool runs = ms_pressure_runs(c);

			for_each_set_bit(g, w->groups, MS_PRESSURE_GROUPS) {
				struct ms_pressure_acct *a = &c->grp[g];

				if (n > 0 && !ms_pressure_grp_advanced(c, g, runs))
					a->last = now;
				/* Never below 0: a slot taken over as its old owner let it go. */
				if (k == MS_WAIT_IOWAIT) {
					a->nr_iowait = max(a->nr_iowait + n, 0);
				} else {
					a->nr_queued = max(a->nr_queued + n, 0);
					if (!w->stalled)
						a->nr_queued_free = max(a->nr_queued_free + n, 0);
				}
				if (a->nr_queued > 0 || a->nr_iowait > 0)
					__set_bit(g, c->waiting_groups);
				else
					__clear_bit(g, c->waiting_groups);
			}
		}
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
	w->kind = kind;
	WRITE_ONCE(w->cpu, kind == MS_WAIT_NONE ? -1 : cpu);
}

/* @w is let go: its task runs, or sleeps other than on I/O. */
static void ms_pressure_wait_put(struct ms_pressure_wait *w, u64 now)
{
	ms_pressure_wait_set(w, MS_WAIT_NONE, -1, now);
	/* Its fields before the slot is free to claim. */
	smp_store_release(&w->owner, 0);
}

/*
 * The waits at a switch on @c (@cpu), under no lock, stalls recent: @next
 * waits no more; @prev (in @c's curr_groups, if they are current) waits
 * to run again if it is still runnable, or on I/O if it sleeps on it.
 */
static void ms_pressure_waits_switch(int cpu, struct ms_pressure_cpu *c, struct task_struct *prev,
				     bool runnable, struct task_struct *next, u64 now)
{
	unsigned int epoch = atomic_read(&ms_pressure_epoch);
	DECLARE_BITMAP(groups, MS_PRESSURE_GROUPS);
	struct ms_pressure_wait *w;
	unsigned long flags;
	bool known;
	int kind;

	/* No cgroup has a row: no wait to follow. */
	if (bitmap_empty(ms_pressure_groups_used, MS_PRESSURE_GROUPS))
		return;
	w = ms_pressure_wait_find((unsigned long)next, epoch);
	if (w)
		ms_pressure_wait_put(w, now);
	if (is_idle_task(prev))
		return;
	kind = runnable ? MS_WAIT_QUEUED : prev->in_iowait ? MS_WAIT_IOWAIT : MS_WAIT_NONE;
	raw_spin_lock_irqsave(&c->lock, flags);
	known = ms_pressure_runs(c);
	if (known)
		bitmap_copy(groups, c->curr_groups, MS_PRESSURE_GROUPS);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	if (!known) {
		ms_probe_rcu_lock();
		ms_pressure_groups_of(prev, groups, false);
		ms_probe_rcu_unlock();
	}
	w = ms_pressure_wait_find((unsigned long)prev, epoch);
	if (kind == MS_WAIT_NONE || bitmap_empty(groups, MS_PRESSURE_GROUPS)) {
		if (w)
			ms_pressure_wait_put(w, now);
		return;
	}
	if (!w) {
		w = ms_pressure_wait_claim((unsigned long)prev, epoch);
		if (!w) {
			ms_stat_inc(pressure, MS_pressure_waits_full);
			return;
		}
	}
	ms_pressure_wait_set(w, MS_WAIT_NONE, -1, now);
	bitmap_copy(w->groups, groups, MS_PRESSURE_GROUPS);
	w->stalled = ms_pressure_task_find((unsigned long)prev);
	ms_pressure_wait_set(w, kind, cpu, now);
}

/* @p is woken onto @cpu: if a cgroup of it has a row, it waits there to run. */
static void ms_pressure_waits_wakeup(struct task_struct *p, int cpu, u64 now)
{
	unsigned int epoch = atomic_read(&ms_pressure_epoch);
	DECLARE_BITMAP(groups, MS_PRESSURE_GROUPS);
	struct ms_pressure_wait *w;

	/* A running task woken (before it slept): PSI's enqueue leaves it be. */
	if (bitmap_empty(ms_pressure_groups_used, MS_PRESSURE_GROUPS) || ms_task_on_cpu(p))
		return;
	ms_probe_rcu_lock();
	ms_pressure_groups_of(p, groups, false);
	ms_probe_rcu_unlock();
	w = ms_pressure_wait_find((unsigned long)p, epoch);
	if (bitmap_empty(groups, MS_PRESSURE_GROUPS)) {
		if (w)
			ms_pressure_wait_put(w, now);
		return;
	}
	if (w && w->kind == MS_WAIT_QUEUED && w->cpu == cpu)
		return;		/* woken while queued here already */
	if (!w) {
		w = ms_pressure_wait_claim((unsigned long)p, epoch);
		if (!w) {
			ms_stat_inc(pressure, MS_pressure_waits_full);
			return;
		}
	}
	ms_pressure_wait_set(w, MS_WAIT_NONE, -1, now);
	bitmap_copy(w->groups, groups, MS_PRESSURE_GROUPS);
	w->stalled = ms_pressure_task_find((unsigned long)p);
	ms_pressure_wait_set(w, MS_WAIT_QUEUED, cpu, now);
}

/*
 * The switch probe's work while a stall is recent or a task is queued
 * (ms_pressure_switch()): out of line, so that the probe itself stays a
 * few loads and a return on every other switch.
 */
static noinline void ms_pressure_switch_slow(struct ms_probe *data, struct task_struct *prev,
					     bool runnable, struct task_struct *next)
{
	unsigned long task = (unsigned long)next;
	DECLARE_BITMAP(members, MS_PRESSURE_GROUPS);
	struct ms_pressure_task *t;
	int cpu, curr, from;
	u64 now;

	cpu = smp_processor_id();
	ms_pressure_unqueue(cpu);
	/*
	 * What runs, while stalls are recent: a cgroup's CPUs weigh the time
	 * a task of it ran there too, as PSI weighs its non-idle time.
	 */
	if (atomic_read(&ms_pressure_nr_stalled))
		ms_pressure_mark_recent();
	else if (!READ_ONCE(ms_pressure_recent))
		return;
	ms_hit(data);
	now = ms_pair_now();
	ms_pressure_waits_switch(cpu, per_cpu_ptr(&ms_pressure_cpu, cpu), prev, runnable, next,
				 now);
	t = ms_pressure_task_find(task);
	/* The groups of what runs next: a stalled task's are in its slot. */
	if (t) {
		bitmap_copy(members, t->groups, MS_PRESSURE_GROUPS);
	} else {
		ms_probe_rcu_lock();
		ms_pressure_groups_of(next, members, false);
		ms_probe_rcu_unlock();
	}
	curr = t ? MS_CURR_STALLED : is_idle_task(next) ? MS_CURR_IDLE : 0;
	from = t ? READ_ONCE(t->cpu) : cpu;
	/* A stalled task woke here: its count moves with it. */
	if (from >= 0 && from != cpu &&
	    ms_pressure_change(from, t, task, MS_PRESSURE_DETACH, MS_CURR_KEEP, NULL, now) &&
	    ms_pressure_change(cpu, t, task, MS_PRESSURE_ATTACH, curr, members, now))
		return;
	ms_pressure_change(cpu, NULL, 0, MS_PRESSURE_NONE, curr, members, now);
}

static void __maybe_unused ms_pressure_switch(MS_SCHED_SWITCH_PROTO)
{
	if (likely(!READ_ONCE(ms_pressure_recent) && !atomic_read(&ms_pressure_nr_stalled) &&
		   !atomic_read(&ms_pressure_nr_queued)))
		return;
	ms_pressure_switch_slow(data, prev, ms_switch_prev_runnable(), next);
}

/*
 * Before 5.13, a tick on a CPU whose running task is stalled adds the
 * time since the CPU's last change, a tick at most, to FULL.
 */
static int ms_pressure_tick_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ms_pressure_cpu *c;
	unsigned long flags;
	u64 now;

	if (likely(atomic_read(&ms_pressure_nr_stalled) <= 0))
		return 0;
	ms_hit(container_of(kp, struct ms_probe, kp));
	c = this_cpu_ptr(&ms_pressure_cpu);
	now = ms_pair_now();
	raw_spin_lock_irqsave(&c->lock, flags);
	ms_pressure_advance(c, now);
	if (c->curr == MS_CURR_STALLED) {
		u64 sample = min_t(u64, now - c->last_change, TICK_NSEC);
		int g;

		if (c->sys.nr_stalled > 0)
			c->sys.full += sample;
		for_each_set_bit(g, c->stalled_groups, MS_PRESSURE_GROUPS)
			if (test_bit(g, c->curr_groups))
				c->grp[g].full += sample;
		c->last_change = now;
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

/*
 * A task woken onto a CPU from another is queued there (above).  A
 * stalled one is counted there from then, and a task of a cgroup with a
 * row waits there to run.  Before 5.13 a task woken onto a CPU is also a
 * change there, whose time the next tick's sample of a running stall
 * starts from, as PSI's enqueue.
 */
static noinline void ms_pressure_wakeup_slow(struct ms_probe *data, struct task_struct *p)
{
	struct ms_pressure_task *t;
	int cpu, from;
	u64 now;

	ms_hit(data);
	cpu = task_cpu(p);
	if (cpu != smp_processor_id())
		ms_pressure_queue(cpu);
	now = ms_pair_now();
	/* A stalled task's count moves with its enqueue, as psi_ttwu_dequeue(). */
	t = ms_pressure_task_find((unsigned long)p);
	from = t ? READ_ONCE(t->cpu) : -1;
	if (from >= 0 && from != cpu &&
	    ms_pressure_change(from, t, (unsigned long)p, MS_PRESSURE_DETACH, MS_CURR_KEEP,
			       NULL, now))
		ms_pressure_change(cpu, t, (unsigned long)p, MS_PRESSURE_ATTACH, MS_CURR_KEEP,
				   NULL, now);
	ms_pressure_waits_wakeup(p, cpu, now);
	if (!ms_pressure_running_full && atomic_read(&ms_pressure_nr_stalled) > 0)
		ms_pressure_change(cpu, NULL, 0, MS_PRESSURE_NONE, MS_CURR_KEEP, NULL, now);
}

static void __maybe_unused ms_pressure_wakeup(MS_SCHED_WAKEUP_PROTO)
{
	if (likely(!READ_ONCE(ms_pressure_recent)))
		return;
	ms_pressure_wakeup_slow(data, p);
}

/* Prototypes checked against the kernel's header; see vmscan.c. */
static void __maybe_unused ms_pressure_check_protos(void)
{
	MS_TP_CHECK(sched_switch, ms_pressure_switch);
	MS_TP_CHECK(sched_wakeup, ms_pressure_wakeup);
}

/*
 * Forget every stall on record, when the leave or the enter probe
 * attaches: a stall whose leave was not seen while they were off would
 * otherwise count for ever.  An enter, leave or move racing with this
 * finds its slot as this left it, under the same lock: a slot counted on
 * a CPU is forgotten there, one on the way to a CPU (cpu -1) is not.
 * The waits on record are forgotten too, with their epoch.
 */
static void ms_pressure_forget(void)
{
	u64 now = ms_pair_now();
	int cpu, i;

	atomic_inc(&ms_pressure_epoch);
	for_each_possible_cpu(cpu) {
		struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
		unsigned long flags;

		raw_spin_lock_irqsave(&c->lock, flags);
		ms_pressure_advance(c, now);
		for (i = 0; i < MS_PRESSURE_TASKS; i++) {
			struct ms_pressure_task *t = &ms_pressure_tasks[i];

			if (READ_ONCE(t->cpu) == cpu && READ_ONCE(t->owner)) {
				WRITE_ONCE(t->cpu, -1);
				ms_pressure_groups_put(t->groups);
				WRITE_ONCE(t->owner, 0);
				atomic_dec(&ms_pressure_nr_stalled);
			}
		}
		c->sys.nr_stalled = 0;
		for_each_set_bit(i, c->stalled_groups, MS_PRESSURE_GROUPS)
			c->grp[i].nr_stalled = 0;
		bitmap_zero(c->stalled_groups, MS_PRESSURE_GROUPS);
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
}

/*
 * A CPU's stall and non-idle time since the last collection, in ns; and
 * each group's stall times since then, into @grp ([group][some, full]).
 */
static u64 ms_pressure_cpu_delta(int cpu, u64 now, u64 *dsome, u64 *dfull,
				 u64 (*grp)[3])
{
	struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
	struct ms_pressure_prev *p = per_cpu_ptr(&ms_pressure_prev, cpu);
	u64 idle_us = get_cpu_idle_time_us(cpu, NULL);
	u64 wall = now - p->now, nonidle, idle, some, full, queued;
	unsigned long flags;
	int g;

	raw_spin_lock_irqsave(&c->lock, flags);
	ms_pressure_advance(c, now);
	if (c->queued && idle_us != (u64)-1)
		ms_pressure_queued_idle(c, idle_us);
	queued = c->queued_ns;
	some = c->sys.some;
	full = c->sys.full;
	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
		u64 *prev = per_cpu_ptr(ms_pressure_groups_cpu, cpu)->prev[g];

		grp[g][0] = c->grp[g].some - prev[0];
		grp[g][1] = c->grp[g].full - prev[1];
		grp[g][2] = c->grp[g].nonidle - prev[2];
		prev[0] = c->grp[g].some;
		prev[1] = c->grp[g].full;
		prev[2] = c->grp[g].nonidle;
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);

	*dsome = some - p->some;
	*dfull = full - p->full;
	/* Without NO_HZ idle time, every CPU weighs its whole time. */
	nonidle = wall;
	if (idle_us != (u64)-1 && p->idle_us != (u64)-1) {
		/* But for the time it idled with a task queued, as PSI. */
		idle = (idle_us - p->idle_us) * NSEC_PER_USEC;
		idle -= min(idle, queued - p->queued_ns);
		nonidle -= min(wall, idle);
	}
	/* A stalled task is non-idle even while its CPU idles. */
	nonidle = max(nonidle, *dsome);
	p->now = now;
	p->some = some;
	p->full = full;
	p->idle_us = idle_us;
	p->queued_ns = queued;
	return nonidle;
}

/*
 * Let go of the rows of cgroups that are gone: offline, and named by no
 * stall.  No task is in an offline cgroup, so no probe can look one up
 * again; its times go with it.  Under ms_pressure.lock.
 */
static void ms_pressure_groups_release(void)
{
	int g, cpu;

	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
		struct ms_pressure_group *grp = &ms_pressure_groups[g];
		struct cgroup_subsys_state *css = READ_ONCE(grp->css);
		unsigned long flags;

		if (atomic_read(&grp->users) || ms_css_online(css))
			continue;
		/* Clean before the slot can be claimed again. */
		for_each_possible_cpu(cpu) {
			struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);

			raw_spin_lock_irqsave(&c->lock, flags);
			c->grp[g] = (struct ms_pressure_acct){ 0 };
			__clear_bit(g, c->curr_groups);
			__clear_bit(g, c->waiting_groups);
			raw_spin_unlock_irqrestore(&c->lock, flags);
			memset(per_cpu_ptr(ms_pressure_groups_cpu, cpu)->prev[g], 0,
			       sizeof(per_cpu_ptr(ms_pressure_groups_cpu, cpu)->prev[g]));
		}
		/* Waits name groups by slot: none may name this one again. */
		atomic_inc(&ms_pressure_epoch);
		memset(grp->total, 0, sizeof(grp->total));
		memset(grp->avg_total, 0, sizeof(grp->avg_total));
		memset(grp->avg, 0, sizeof(grp->avg));
		raw_spin_lock_irqsave(&ms_pressure_groups_lock, flags);
		clear_bit(g, ms_pressure_groups_used);
		WRITE_ONCE(grp->css, NULL);
		raw_spin_unlock_irqrestore(&ms_pressure_groups_lock, flags);
		ms_css_put(css);
	}
}

/*
 * PSI's collect_percpu_times(): each CPU's stall time, weighted by its
 * non-idle time in jiffies.  A cgroup's CPUs weigh the time a task of it
 * stalled, ran, or waited there to run or on I/O (in us), while stalls
 * were recent: PSI's non-idle time of the cgroup.  Under ms_pressure.lock.
 */
static void ms_pressure_collect(u64 now)
{
	u64 (*grp)[3] = ms_pressure.grp_delta;
	u64 some = 0, full = 0, weights = 0;
	int cpu, g;

	memset(ms_pressure.grp_sum, 0, sizeof(ms_pressure.grp_sum));
	for_each_possible_cpu(cpu) {
		u64 dsome, dfull, w;

		/* A group claimed meanwhile has times on the later CPUs only. */
		memset(ms_pressure.grp_delta, 0, sizeof(ms_pressure.grp_delta));
		w = div_u64(ms_pressure_cpu_delta(cpu, now, &dsome, &dfull, grp),
			    NSEC_PER_SEC / HZ);
		some += dsome * w;
		full += dfull * w;
		weights += w;
		for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
			u64 *sum = ms_pressure.grp_sum[g];

			w = div_u64(grp[g][2], NSEC_PER_USEC);
			sum[0] += grp[g][0] * w;
			sum[1] += grp[g][1] * w;
			sum[2] += w;
			sum[3] += grp[g][0];
			sum[4] += grp[g][1];
		}
	}
	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
		const u64 *sum = ms_pressure.grp_sum[g];
		u64 *total = ms_pressure_groups[g].total;

		/* Stalls under a microsecond on every CPU weigh nothing: as they are. */
		total[0] += sum[2] ? div64_u64(sum[0], sum[2]) : sum[3];
		total[1] += sum[2] ? div64_u64(sum[1], sum[2]) : sum[4];
	}
	ms_pressure_groups_release();
	/* No stall since the last collection, and none now: wakeups can rest. */
	if (!some && !atomic_read(&ms_pressure_nr_stalled))
		WRITE_ONCE(ms_pressure_recent, false);
	if (!weights)
		return;
	ms_pressure.total[0] += div64_u64(some, weights);
	ms_pressure.total[1] += div64_u64(full, weights);
}

/* calc_load() and fixed_power_int(), which modules cannot call. */
static unsigned long ms_calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload = load * exp + active * (MS_FIXED_1 - exp);

	if (active >= load)
		newload += MS_FIXED_1 - 1;
	return newload / MS_FIXED_1;
}

static unsigned long ms_fixed_power(unsigned long x, unsigned int n)
{
	unsigned long result = MS_FIXED_1;

	while (n) {
		if (n & 1) {
			result = (result * x + (MS_FIXED_1 >> 1)) >> MS_FSHIFT;
		}
		n >>= 1;
		x = (x * x + (MS_FIXED_1 >> 1)) >> MS_FSHIFT;
	}
	return result;
}

/*
 * One period's sample of @total (some, full) into @avg_total and the
 * averages @avg, after @missed periods with none, as PSI's calc_avgs().
 */
static void ms_pressure_avgs(const u64 *total, u64 *avg_total, unsigned long (*avg)[3],
			     u64 period, unsigned long missed)
{
	int s, w;

	for (s = 0; s < 2; s++) {
		u64 sample = min(total[s] - avg_total[s], period);
		unsigned long pct;

		avg_total[s] += sample;
		pct = div64_u64(sample * 100, max(period, 1ULL)) * MS_FIXED_1;
		for (w = 0; w < 3; w++) {
			if (missed)
				avg[s][w] = ms_calc_load(avg[s][w],
							 ms_fixed_power(ms_psi_exp[w], missed), 0);
			avg[s][w] = ms_calc_load(avg[s][w], ms_psi_exp[w], pct);
		}
	}
}

/*
 * PSI's update_averages(): one sample per period, the overage deferred;
 * the system's, and each cgroup's on the same periods, as each group of
 * the kernel's has its own.  A row claimed within a period starts from
 * zero, its first sample what it stalled since.
 */
static void ms_pressure_update_averages(u64 now)
{
	u64 expires = ms_pressure.avg_next_update, period;
	unsigned long missed = 0;
	int g;

	if (now - expires >= MS_PSI_PERIOD)
		missed = div64_u64(now - expires, MS_PSI_PERIOD);
	ms_pressure.avg_next_update = expires + (1 + missed) * MS_PSI_PERIOD;
	period = now - (ms_pressure.avg_last_update + missed * MS_PSI_PERIOD);
	ms_pressure.avg_last_update = now;

	ms_pressure_avgs(ms_pressure.total, ms_pressure.avg_total, ms_pressure.avg, period,
			 missed);
	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
		struct ms_pressure_group *grp = &ms_pressure_groups[g];

		ms_pressure_avgs(grp->total, grp->avg_total, grp->avg, period, missed);
	}
}

/* Collect, and average once a period is due; under ms_pressure.lock. */
static void ms_pressure_update(u64 now)
{
	ms_pressure_collect(now);
	if ((s64)(now - ms_pressure.avg_next_update) >= 0)
		ms_pressure_update_averages(now);
}

static void ms_pressure_work(struct work_struct *work)
{
	u64 now = ms_pair_now(), left;

	mutex_lock(&ms_pressure.lock);
	ms_pressure_update(now);
	left = ms_pressure.avg_next_update - now;
	mutex_unlock(&ms_pressure.lock);
	schedule_delayed_work(&ms_pressure.work, div_u64(left, NSEC_PER_SEC / HZ) + 1);
}

/* Exactly /proc/pressure/memory's two lines. */
static int ms_pressure_show(struct seq_file *m)
{
	int s;

	mutex_lock(&ms_pressure.lock);
	ms_pressure_update(ms_pair_now());
	for (s = 0; s < 2; s++) {
		const unsigned long *avg = ms_pressure.avg[s];

		seq_printf(m, "%s avg10=%lu.%02lu avg60=%lu.%02lu avg300=%lu.%02lu total=%llu\n",
			   s ? "full" : "some", MS_LOAD_INT(avg[0]), MS_LOAD_FRAC(avg[0]),
			   MS_LOAD_INT(avg[1]), MS_LOAD_FRAC(avg[1]), MS_LOAD_INT(avg[2]),
			   MS_LOAD_FRAC(avg[2]), div_u64(ms_pressure.total[s], NSEC_PER_USEC));
	}
	mutex_unlock(&ms_pressure.lock);
	return 0;
}

/* A cgroup's path, or its id where the path does not fit, as the tables say it. */
static void ms_pressure_seq_group(struct seq_file *m, const struct ms_pressure_group *grp,
				  char *path)
{
	int r = ms_css_path(grp->css, path, PATH_MAX);

	if (r < 0 || r >= PATH_MAX)
		seq_printf(m, "[id:%llu]", ms_css_id(grp->css));
	else
		ms_seq_escape(m, path);
}

static const struct ms_text ms_pressure_text = {
	.file = "pressure",
	.show = ms_pressure_show,
};

/*
 * Each memory cgroup with a stall since load (or since it was created),
 * and each ancestor of one but the root: its some and full totals, in
 * microseconds, as its memory.pressure's total= would say.
 */
static int ms_pressure_by_cgroup_show(struct seq_file *m)
{
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);
	int g;

	if (!path)
		return -ENOMEM;
	mutex_lock(&ms_pressure.lock);
	ms_pressure_update(ms_pair_now());
	seq_puts(m, "# cgroup some_us full_us\n");
	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
		const struct ms_pressure_group *grp = &ms_pressure_groups[g];

		ms_pressure_seq_group(m, grp, path);
		seq_printf(m, " %llu %llu\n", div_u64(grp->total[0], NSEC_PER_USEC),
			   div_u64(grp->total[1], NSEC_PER_USEC));
	}
	mutex_unlock(&ms_pressure.lock);
	kfree(path);
	return 0;
}

static const struct ms_text ms_pressure_by_cgroup_text = {
	.file = "pressure_by_cgroup",
	.show = ms_pressure_by_cgroup_show,
};

/*
 * The same rows' running averages, as each one's memory.pressure's
 * avg10, avg60 and avg300 would say them: some's three, then full's.
 */
static int ms_pressure_by_cgroup_avg_show(struct seq_file *m)
{
	char *path = kmalloc(PATH_MAX, GFP_KERNEL);
	int g, s, w;

	if (!path)
		return -ENOMEM;
	mutex_lock(&ms_pressure.lock);
	ms_pressure_update(ms_pair_now());
	seq_puts(m, "# cgroup some_avg10 some_avg60 some_avg300 full_avg10 full_avg60 full_avg300\n");
	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS) {
		const struct ms_pressure_group *grp = &ms_pressure_groups[g];

		ms_pressure_seq_group(m, grp, path);
		for (s = 0; s < 2; s++)
			for (w = 0; w < 3; w++)
				seq_printf(m, " %lu.%02lu", MS_LOAD_INT(grp->avg[s][w]),
					   MS_LOAD_FRAC(grp->avg[s][w]));
		seq_putc(m, '\n');
	}
	mutex_unlock(&ms_pressure.lock);
	kfree(path);
	return 0;
}

static const struct ms_text ms_pressure_by_cgroup_avg_text = {
	.file = "pressure_by_cgroup_avg",
	.show = ms_pressure_by_cgroup_avg_show,
};

/*
 * The sites, hooked where the kernel has no memstall functions to probe
 * (pressure_hooks).  Reclaim through its tracepoints, which every kernel
 * from 3.10 has inside the functions PSI's sites wrap; compaction through
 * its functions' entries and returns; kswapd's balancing from the
 * kswapd_wake event just before balance_pgdat() to prepare_kswapd_sleep(),
 * kswapd's next call after it, since builds inline balance_pgdat()
 * (4.19 with gcc 10).  What has no hook (refault and swap-in waits,
 * memory.high's throttling) is named in docs/pressure.md.
 */
static struct ms_probe ms_pressure_site_probes[];
/* In the order they are added: ends before beginnings, which attach after. */
enum { MS_SITE_DIRECT_END, MS_SITE_MEMCG_END, MS_SITE_KSWAPD_BALANCED, MS_SITE_DIRECT_BEGIN,
       MS_SITE_MEMCG_BEGIN, MS_SITE_KSWAPD_WAKE, MS_SITE_COMPACT, MS_SITE_KCOMPACTD,
       MS_NR_SITES };

#define MS_SITE(site) (&ms_pressure_site_probes[MS_SITE_##site])

static void ms_pressure_direct_begin(MS_RECLAIM_BEGIN_PROTO)
{
	ms_pressure_enter(data, MS_SITE(DIRECT_END));
}

static void ms_pressure_memcg_begin(MS_RECLAIM_BEGIN_PROTO)
{
	ms_pressure_enter(data, MS_SITE(MEMCG_END));
}

static void ms_pressure_reclaim_end(void *data, unsigned long nr_reclaimed)
{
	ms_pressure_leave(data);
}

static void ms_pressure_kswapd_wake(MS_KSWAPD_WAKE_PROTO)
{
	ms_pressure_enter(data, MS_SITE(KSWAPD_BALANCED));
}

/* kswapd's first call once balanced; only ever from kswapd_try_to_sleep(). */
static int ms_pressure_kswapd_balanced_pre(struct kprobe *kp, struct pt_regs *regs)
{
	ms_pressure_leave(container_of(kp, struct ms_probe, kp));
	return 0;
}

#define MS_PRESSURE_SITE_FN(fn, site)						\
static int fn##_entry(struct kretprobe_instance *ri, struct pt_regs *regs)	\
{										\
	ms_pressure_enter(MS_SITE(site), MS_SITE(site));			\
	return 0;								\
}										\
static int fn##_return(struct kretprobe_instance *ri, struct pt_regs *regs)	\
{										\
	ms_pressure_leave(NULL);						\
	return 0;								\
}
MS_PRESSURE_SITE_FN(ms_pressure_compact, COMPACT)
MS_PRESSURE_SITE_FN(ms_pressure_kcompactd, KCOMPACTD)

static void __maybe_unused ms_pressure_check_site_protos(void)
{
	MS_TP_CHECK(mm_vmscan_direct_reclaim_begin, ms_pressure_direct_begin);
	MS_TP_CHECK(mm_vmscan_direct_reclaim_end, ms_pressure_reclaim_end);
	MS_TP_CHECK_MEMCG(mm_vmscan_memcg_reclaim_begin, ms_pressure_memcg_begin);
	MS_TP_CHECK_MEMCG(mm_vmscan_memcg_reclaim_end, ms_pressure_reclaim_end);
	MS_TP_CHECK(mm_vmscan_kswapd_wake, ms_pressure_kswapd_wake);
}

#define MS_PRESSURE_TP(n, tp, fn, ...) {					\
	.name = n, .targets = (const char *const[]){ tp, NULL },		\
	.kind = MS_TRACEPOINT, .tp_func = fn, .family = "pressure",		\
	__VA_ARGS__ }
/*
 * A stall in each function, from its entry to its return; a call that
 * finds no kretprobe instance is not counted (the probe's missed).
 */
#define MS_PRESSURE_RET(n, target, fn, nr) {					\
	.name = n, .targets = (const char *const[]){ target, NULL },		\
	.kind = MS_KRETPROBE, .entry_handler = fn##_entry,			\
	.ret_handler = fn##_return, .maxactive = nr, .family = "pressure",	\
	.before_attach = ms_pressure_forget }
#define MS_PRESSURE_NEEDS_MEMCG \
	.unsupported = IS_ENABLED(CONFIG_MEMCG) ? NULL : "config_memcg_disabled"

static struct ms_probe ms_pressure_site_probes[MS_NR_SITES] = {
	[MS_SITE_DIRECT_END] = MS_PRESSURE_TP("pressure_direct_reclaim_end",
		"mm_vmscan_direct_reclaim_end", ms_pressure_reclaim_end),
	[MS_SITE_MEMCG_END] = MS_PRESSURE_TP("pressure_memcg_reclaim_end",
		"mm_vmscan_memcg_reclaim_end", ms_pressure_reclaim_end, MS_PRESSURE_NEEDS_MEMCG),
	[MS_SITE_KSWAPD_BALANCED] = {
		.name = "pressure_kswapd_balanced",
		.targets = (const char *const[]){ "prepare_kswapd_sleep", NULL },
		.kind = MS_KPROBE,
		.pre_handler = ms_pressure_kswapd_balanced_pre,
		.family = "pressure",
	},
	[MS_SITE_DIRECT_BEGIN] = MS_PRESSURE_TP("pressure_direct_reclaim_begin",
		"mm_vmscan_direct_reclaim_begin", ms_pressure_direct_begin,
		.before_attach = ms_pressure_forget),
	[MS_SITE_MEMCG_BEGIN] = MS_PRESSURE_TP("pressure_memcg_reclaim_begin",
		"mm_vmscan_memcg_reclaim_begin", ms_pressure_memcg_begin,
		MS_PRESSURE_NEEDS_MEMCG, .before_attach = ms_pressure_forget),
	[MS_SITE_KSWAPD_WAKE] = MS_PRESSURE_TP("pressure_kswapd_wake",
		"mm_vmscan_kswapd_wake", ms_pressure_kswapd_wake,
		.before_attach = ms_pressure_forget),
	/* One kcompactd per node; any task can compact. */
	[MS_SITE_COMPACT] = MS_PRESSURE_RET("pressure_direct_compact", "try_to_compact_pages",
		ms_pressure_compact, 64),
	[MS_SITE_KCOMPACTD] = MS_PRESSURE_RET("pressure_kcompactd", "kcompactd_do_work",
		ms_pressure_kcompactd, 16),
};

static const char *const ms_pressure_enter_targets[] = { "psi_memstall_enter", NULL };
static const char *const ms_pressure_leave_targets[] = { "psi_memstall_leave", NULL };
static const char *const ms_pressure_switch_targets[] = { "sched_switch", NULL };
static const char *const ms_pressure_tick_targets[] = { "scheduler_tick", NULL };
static const char *const ms_pressure_wakeup_targets[] = { "sched_wakeup", NULL };

/* Leaves before enters: the probes attach in the order they were added. */
static struct ms_probe ms_pressure_switch_probe = {
	.name = "pressure_switch",
	.targets = ms_pressure_switch_targets,
	.kind = MS_TRACEPOINT,
	.tp_func = ms_pressure_switch,
	.before_attach = ms_pressure_unqueue_all,
	.family = "pressure",
};

/* Only where the kernel's PSI has the tick's FULL (4.20 to 5.12). */
static struct ms_probe ms_pressure_tick_probe = {
	.name = "pressure_tick",
	.targets = ms_pressure_tick_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_pressure_tick_pre,
	.family = "pressure",
};

static struct ms_probe ms_pressure_wakeup_probe = {
	.name = "pressure_wakeup",
	.targets = ms_pressure_wakeup_targets,
	.kind = MS_TRACEPOINT,
	.tp_func = ms_pressure_wakeup,
	.family = "pressure",
};

static struct ms_probe ms_pressure_leave_probe = {
	.name = "pressure_leave",
	.targets = ms_pressure_leave_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_pressure_leave_pre,
	.before_attach = ms_pressure_forget,
	.family = "pressure",
};

static struct ms_probe ms_pressure_enter_probe = {
	.name = "pressure_enter",
	.targets = ms_pressure_enter_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_pressure_enter_pre,
	.before_attach = ms_pressure_forget,
	.family = "pressure",
};

static int ms_pressure_init(void)
{
	u64 now = ms_pair_now();
	int cpu, err, i;

	ms_pressure_groups_cpu = alloc_percpu(struct ms_pressure_groups_cpu);
	if (!ms_pressure_groups_cpu)
		return -ENOMEM;
	for (i = 0; i < MS_PRESSURE_TASKS; i++) {
		ms_pressure_tasks[i].cpu = -1;
		ms_pressure_waits[i].cpu = -1;
	}
	for_each_possible_cpu(cpu) {
		struct ms_pressure_prev *p = per_cpu_ptr(&ms_pressure_prev, cpu);
		struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);

		raw_spin_lock_init(&c->lock);
		c->sys.last = now;
		c->grp = per_cpu_ptr(ms_pressure_groups_cpu, cpu)->acct;
		p->now = now;
		p->idle_us = get_cpu_idle_time_us(cpu, NULL);
	}
	mutex_init(&ms_pressure.lock);
	ms_pressure.avg_last_update = now;
	ms_pressure.avg_next_update = now + MS_PSI_PERIOD;
	INIT_DELAYED_WORK(&ms_pressure.work, ms_pressure_work);
	/* Without PSI built in, psi_memstall_enter() is an empty inline. */
	if (!IS_ENABLED(MS_HAVE_PSI_MEMSTALL) || !IS_ENABLED(CONFIG_PSI))
		ms_pressure_hooks = true;
	ms_pressure_running_full = IS_ENABLED(MS_HAVE_PSI_MEMSTALL_RUNNING) || ms_pressure_hooks;
	/* The tick's FULL only where the kernel's PSI has it (4.20 to 5.12). */
	err = ms_pressure_running_full ? 0 : ms_probe_add(&ms_pressure_tick_probe);
	err = err ?: ms_probe_add(&ms_pressure_wakeup_probe) ?:
	      ms_probe_add(&ms_pressure_switch_probe);
	if (ms_pressure_hooks) {
		static const int pairs[][2] = {
			{ MS_SITE_DIRECT_BEGIN, MS_SITE_DIRECT_END },
			{ MS_SITE_MEMCG_BEGIN, MS_SITE_MEMCG_END },
			{ MS_SITE_KSWAPD_WAKE, MS_SITE_KSWAPD_BALANCED },
			{ MS_SITE_COMPACT, MS_SITE_COMPACT },
			{ MS_SITE_KCOMPACTD, MS_SITE_KCOMPACTD },
		};

		for (i = 0; i < ARRAY_SIZE(pairs); i++)
			ms_pressure_sources[ms_pressure_nr_sources++] = (struct ms_pressure_source){
				&ms_pressure_site_probes[pairs[i][0]],
				&ms_pressure_site_probes[pairs[i][1]] };
		for (i = 0; i < MS_NR_SITES && !err; i++)
			err = ms_probe_add(&ms_pressure_site_probes[i]);
	} else {
		ms_pressure_sources[ms_pressure_nr_sources++] = (struct ms_pressure_source){
			&ms_pressure_enter_probe, &ms_pressure_leave_probe };
		err = err ?: ms_probe_add(&ms_pressure_leave_probe) ?:
		      ms_probe_add(&ms_pressure_enter_probe);
	}
	err = err ?: ms_stat_set_add(&ms_pressure_stats) ?: ms_text_add(&ms_pressure_text) ?:
	      ms_text_add(&ms_pressure_by_cgroup_text) ?: ms_text_add(&ms_pressure_by_cgroup_avg_text);
	if (err) {
		free_percpu(ms_pressure_groups_cpu);
		return err;
	}
	schedule_delayed_work(&ms_pressure.work, MS_PSI_FREQ);
	return 0;
}

static void ms_pressure_exit(void)
{
	int g;

	cancel_delayed_work_sync(&ms_pressure.work);
	/* The probes are off: nothing claims or counts any more. */
	for_each_set_bit(g, ms_pressure_groups_used, MS_PRESSURE_GROUPS)
		ms_css_put(ms_pressure_groups[g].css);
	bitmap_zero(ms_pressure_groups_used, MS_PRESSURE_GROUPS);
	free_percpu(ms_pressure_groups_cpu);
}

static size_t ms_pressure_bytes(void)
{
	return sizeof(ms_pressure_tasks) + sizeof(ms_pressure_waits) + sizeof(ms_pressure_groups) +
	       sizeof(struct ms_pressure_groups_cpu) * num_possible_cpus();
}

const struct ms_family ms_pressure_family = {
	.init = ms_pressure_init,
	.exit = ms_pressure_exit,
	.bytes = ms_pressure_bytes,
};
