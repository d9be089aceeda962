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
 * comes from sched_switch, whose handler reads one counter and returns
 * while no task stalls.  NONIDLE comes from each CPU's idle time, read
 * when the totals are collected: nothing per switch.
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
	X(pressure_tasks_full, "Memory stalls not counted: more tasks stalled at once than the table holds.")
MS_STAT_SET(pressure, MS_PRESSURE_STATS);

/* Tasks in a memstall at once, each in one slot found by its pointer. */
#define MS_PRESSURE_TASKS	1024
#define MS_PRESSURE_REACH	16

struct ms_pressure_task {
	unsigned long owner;	/* the task_struct; 0 when free */
	unsigned int depth;	/* enters not yet left: the owner's alone */
	int cpu;		/* whose count it is in, or -1: under that CPU's lock */
};

static struct ms_pressure_task ms_pressure_tasks[MS_PRESSURE_TASKS];
static atomic_t ms_pressure_nr_stalled;

#define MS_CURR_KEEP	-1	/* leave what runs as it is */
#define MS_CURR_STALLED	1
#define MS_CURR_IDLE	2

struct ms_pressure_cpu {
	raw_spinlock_t lock;
	int nr_stalled;
	int curr;		/* MS_CURR_* of what runs, while a task stalls */
	u64 last;		/* ms_pair_now() the times run to */
	u64 last_change;	/* of nr_stalled or curr: the tick's FULL (< 5.13) */
	u64 some, full;		/* ns */
};
static DEFINE_PER_CPU(struct ms_pressure_cpu, ms_pressure_cpu);

/* The collector's view of each CPU at its last collection. */
struct ms_pressure_prev {
	u64 now, some, full, idle_us;
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
	struct mutex lock;
	u64 total[2];		/* ns: some, full */
	u64 avg_total[2];
	unsigned long avg[2][3];
	u64 avg_last_update;
	u64 avg_next_update;
	struct delayed_work work;
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

/*
 * Time up to @now, in the state @c was in; under its lock.  Without the
 * leave probe no stall can be seen to end: nothing is counted then.
 */
static void ms_pressure_advance(struct ms_pressure_cpu *c, u64 now)
{
	s64 d = now - c->last;

	if (d <= 0)
		return;
	c->last = now;
	if (c->nr_stalled <= 0 || !ms_pressure_leaves_attached())
		return;
	c->some += d;
	if (c->curr == MS_CURR_IDLE || (c->curr == MS_CURR_STALLED && ms_pressure_running_full))
		c->full += d;
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

/*
 * On @cpu, under its lock: the time up to @now, then @op on @t (if it is
 * still @owner's and where @op expects it), then what runs becomes @curr.
 * False if @op did not apply.
 */
static bool ms_pressure_change(int cpu, struct ms_pressure_task *t, unsigned long owner,
			       enum ms_pressure_op op, int curr, u64 now)
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
			c->nr_stalled += op == MS_PRESSURE_ATTACH ? 1 : -1;
			WRITE_ONCE(t->cpu, op == MS_PRESSURE_ATTACH ? cpu : -1);
			if (op == MS_PRESSURE_RELEASE)
				WRITE_ONCE(t->owner, 0);
		}
	}
	if (curr != MS_CURR_KEEP)
		c->curr = curr;
	c->last_change = now;
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return ok;
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
	atomic_inc(&ms_pressure_nr_stalled);
	if (ms_pressure_change(smp_processor_id(), t, me, MS_PRESSURE_ATTACH, MS_CURR_STALLED,
			       ms_pair_now()))
		ms_stat_inc(pressure, MS_pressure_stalls);
	else
		atomic_dec(&ms_pressure_nr_stalled);
}

/*
 * The current task leaves a memstall site: the stall ends with the
 * outermost.  @p, if any, is the probe whose hit this is.
 */
static void ms_pressure_leave(struct ms_probe *p)
{
	unsigned long me = (unsigned long)current;
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
	/* A running task does not move: its count is here, or was forgotten. */
	from = READ_ONCE(t->cpu);
	if (from != cpu)
		ms_pressure_change(cpu, NULL, 0, MS_PRESSURE_NONE, 0, now);
	if (from >= 0 && ms_pressure_change(from, t, me, MS_PRESSURE_RELEASE,
					    from == cpu ? 0 : MS_CURR_KEEP, now))
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

static void __maybe_unused ms_pressure_switch(MS_SCHED_SWITCH_PROTO)
{
	unsigned long task = (unsigned long)next;
	struct ms_pressure_task *t;
	int cpu, curr, from;
	u64 now;

	if (likely(!atomic_read(&ms_pressure_nr_stalled)))
		return;
	ms_hit(data);
	cpu = smp_processor_id();
	now = ms_pair_now();
	t = ms_pressure_task_find(task);
	curr = t ? MS_CURR_STALLED : is_idle_task(next) ? MS_CURR_IDLE : 0;
	from = t ? READ_ONCE(t->cpu) : cpu;
	/* A stalled task woke here: its count moves with it. */
	if (from >= 0 && from != cpu &&
	    ms_pressure_change(from, t, task, MS_PRESSURE_DETACH, MS_CURR_KEEP, now) &&
	    ms_pressure_change(cpu, t, task, MS_PRESSURE_ATTACH, curr, now))
		return;
	ms_pressure_change(cpu, NULL, 0, MS_PRESSURE_NONE, curr, now);
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
	if (c->nr_stalled > 0 && c->curr == MS_CURR_STALLED) {
		c->full += min_t(u64, now - c->last_change, TICK_NSEC);
		c->last_change = now;
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

/*
 * Before 5.13: a task woken onto a CPU is a change there, whose time the
 * next tick's sample of a running stall starts from, as PSI's enqueue.
 */
static void __maybe_unused ms_pressure_wakeup(MS_SCHED_WAKEUP_PROTO)
{
	if (likely(atomic_read(&ms_pressure_nr_stalled) <= 0))
		return;
	ms_hit(data);
	ms_pressure_change(task_cpu(p), NULL, 0, MS_PRESSURE_NONE, MS_CURR_KEEP, ms_pair_now());
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
 */
static void ms_pressure_forget(void)
{
	u64 now = ms_pair_now();
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
		unsigned long flags;

		raw_spin_lock_irqsave(&c->lock, flags);
		ms_pressure_advance(c, now);
		for (i = 0; i < MS_PRESSURE_TASKS; i++) {
			struct ms_pressure_task *t = &ms_pressure_tasks[i];

			if (READ_ONCE(t->cpu) == cpu && READ_ONCE(t->owner)) {
				WRITE_ONCE(t->cpu, -1);
				WRITE_ONCE(t->owner, 0);
				atomic_dec(&ms_pressure_nr_stalled);
			}
		}
		c->nr_stalled = 0;
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
}

/* A CPU's stall and non-idle time since the last collection, in ns. */
static u64 ms_pressure_cpu_delta(int cpu, u64 now, u64 *dsome, u64 *dfull)
{
	struct ms_pressure_cpu *c = per_cpu_ptr(&ms_pressure_cpu, cpu);
	struct ms_pressure_prev *p = per_cpu_ptr(&ms_pressure_prev, cpu);
	u64 idle_us = get_cpu_idle_time_us(cpu, NULL);
	u64 wall = now - p->now, nonidle, some, full;
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	ms_pressure_advance(c, now);
	some = c->some;
	full = c->full;
	raw_spin_unlock_irqrestore(&c->lock, flags);

	*dsome = some - p->some;
	*dfull = full - p->full;
	/* Without NO_HZ idle time, every CPU weighs its whole time. */
	nonidle = wall;
	if (idle_us != (u64)-1 && p->idle_us != (u64)-1)
		nonidle -= min(wall, (idle_us - p->idle_us) * NSEC_PER_USEC);
	/* A stalled task is non-idle even while its CPU idles. */
	nonidle = max(nonidle, *dsome);
	p->now = now;
	p->some = some;
	p->full = full;
	p->idle_us = idle_us;
	return nonidle;
}

/*
 * PSI's collect_percpu_times(): each CPU's stall time, weighted by its
 * non-idle time in jiffies.  Under ms_pressure.lock.
 */
static void ms_pressure_collect(u64 now)
{
	u64 some = 0, full = 0, weights = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		u64 dsome, dfull, w;

		w = div_u64(ms_pressure_cpu_delta(cpu, now, &dsome, &dfull), NSEC_PER_SEC / HZ);
		some += dsome * w;
		full += dfull * w;
		weights += w;
	}
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

/* PSI's update_averages(): one sample per period, the overage deferred. */
static void ms_pressure_update_averages(u64 now)
{
	u64 expires = ms_pressure.avg_next_update, period;
	unsigned long missed = 0;
	int s, w;

	if (now - expires >= MS_PSI_PERIOD)
		missed = div64_u64(now - expires, MS_PSI_PERIOD);
	ms_pressure.avg_next_update = expires + (1 + missed) * MS_PSI_PERIOD;
	period = now - (ms_pressure.avg_last_update + missed * MS_PSI_PERIOD);
	ms_pressure.avg_last_update = now;

	for (s = 0; s < 2; s++) {
		u64 sample = min(ms_pressure.total[s] - ms_pressure.avg_total[s], period);
		unsigned long pct;

		ms_pressure.avg_total[s] += sample;
		pct = div64_u64(sample * 100, max(period, 1ULL)) * MS_FIXED_1;
		for (w = 0; w < 3; w++) {
			unsigned long *avg = &ms_pressure.avg[s][w];

			if (missed)
				*avg = ms_calc_load(*avg, ms_fixed_power(ms_psi_exp[w], missed), 0);
			*avg = ms_calc_load(*avg, ms_psi_exp[w], pct);
		}
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

static const struct ms_text ms_pressure_text = {
	.file = "pressure",
	.show = ms_pressure_show,
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

	for (i = 0; i < MS_PRESSURE_TASKS; i++)
		ms_pressure_tasks[i].cpu = -1;
	for_each_possible_cpu(cpu) {
		struct ms_pressure_prev *p = per_cpu_ptr(&ms_pressure_prev, cpu);

		raw_spin_lock_init(&per_cpu_ptr(&ms_pressure_cpu, cpu)->lock);
		per_cpu_ptr(&ms_pressure_cpu, cpu)->last = now;
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
	err = ms_pressure_running_full ? 0 :
	      ms_probe_add(&ms_pressure_tick_probe) ?: ms_probe_add(&ms_pressure_wakeup_probe);
	err = err ?: ms_probe_add(&ms_pressure_switch_probe);
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
	err = err ?: ms_stat_set_add(&ms_pressure_stats) ?: ms_text_add(&ms_pressure_text);
	if (!err)
		schedule_delayed_work(&ms_pressure.work, MS_PSI_FREQ);
	return err;
}

static void ms_pressure_exit(void)
{
	cancel_delayed_work_sync(&ms_pressure.work);
}

static size_t ms_pressure_bytes(void)
{
	return sizeof(ms_pressure_tasks);
}

const struct ms_family ms_pressure_family = {
	.init = ms_pressure_init,
	.exit = ms_pressure_exit,
	.bytes = ms_pressure_bytes,
};
