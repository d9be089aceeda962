// SPDX-License-Identifier: GPL-2.0
/*
 * oomkill: the whole story of every OOM kill, as one record.
 * Copyright (C) 2026 The memscope authors.
 *
 * A kretprobe on oom_kill_process(oc, message) sees the kill decision: its
 * entry handler fills a pending record from struct oom_control (victim,
 * totalpages, memcg, order, gfp_mask), current (the trigger) and avenrun.
 * The oom:mark_victim tracepoint then fires inside the kill with the
 * victim's task_lock held by the kernel, the one place where the victim's
 * mm is stable: it adds the RSS and oom_score_adj and confirms the kill.
 * The return handler publishes the record.
 *
 * Every oom_kill_process() runs under oom_lock (out_of_memory()'s callers
 * all take it), so one pending record is enough; a raw spinlock still
 * guards it, as probe context may not sleep, on PREEMPT_RT either.
 *
 * Counting.  The kernel counts oom_kill (/proc/vmstat) in
 * __oom_kill_process(), once per task it kills: the chosen victim, and
 * every member of the memcg when memory.oom.group is set.  It does not
 * count the shortcuts where the victim is already exiting
 * (task_will_free_mem()), although mark_oom_victim() and so
 * oom:mark_victim run there too; and it does count a victim whose
 * TIF_MEMDIE was already set, where mark_victim does not fire.  So neither
 * the kprobe nor the tracepoint matches oom_kill.  Since every OOM_KILL
 * event happens inside oom_kill_process() under oom_lock, the kernel's own
 * counter cannot move for any other reason while we are in there: the
 * change of its sum across the call is exactly the kills this call made,
 * and oom_kills equals oom_kill.  A record is published when that change
 * is nonzero: one per oom_kill_process() that killed.
 */
#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "memscope.h"
#include "compat/oom.h"
#include "uapi/memscope_genl.h"

#define MS_OOM_STATS(X) X(oom_kills, "OOM kills.")
MS_STAT_SET(oom, MS_OOM_STATS);

struct ms_oom_event {
	u64 time_ns;
	pid_t trigger_pid;
	pid_t victim_pid;
	char trigger_comm[TASK_COMM_LEN];
	char victim_comm[TASK_COMM_LEN];
	unsigned long pages;		/* oc->totalpages */
	long anon_rss_kb;		/* -1: not known on this kernel */
	long file_rss_kb;
	long shmem_rss_kb;
	int oom_score_adj;
	int order;
	unsigned int gfp_mask;
	unsigned long avenrun[3];
	unsigned int nr_running, nr_threads;	/* /proc/loadavg's 4th field */
	pid_t last_pid;				/* and its 5th */
	bool confirmed;			/* oom:mark_victim seen for the victim */
	char memcg[MS_NAME_LEN * 2];
};

static struct ms_event_type ms_oom_events;

static DEFINE_RAW_SPINLOCK(ms_oom_lock);
static struct ms_oom_event ms_oom_pending;	/* under ms_oom_lock */
static bool ms_oom_active;		/* inside oom_kill_process() */
static pid_t ms_oom_victim_tgid;

struct ms_oom_data {
	unsigned long kills_before;
};

/* The kernel's oom_kill counter, where it has one (compat/oom.h). */
static unsigned long ms_oom_kill_events(void)
{
	unsigned long sum = 0;
	int cpu;

	if (!MS_HAVE_OOM_KILL_COUNTER)
		return 0;
	for_each_possible_cpu(cpu)
		sum += ms_cpu_oom_kill_events(cpu);
	return sum;
}

static void ms_copy_comm(char *dst, const struct task_struct *tsk)
{
	/* As get_task_comm() without task_lock: a racing rename shows either. */
	memcpy(dst, tsk->comm, TASK_COMM_LEN);
	dst[TASK_COMM_LEN - 1] = '\0';
}

/*
 * /proc/loadavg's last two fields, "running/threads last_pid", at the kill,
 * as BCC's oomkill reads the file when the kill reaches it.  nr_running()
 * and nr_threads are not exported, so one RCU walk of the task list counts
 * what they count: runnable tasks, and every thread but the idle ones.  The
 * OOM killer itself has just walked the same list to choose its victim.
 * last_pid is the initial namespace's, as a reader outside containers sees.
 */
static void ms_oom_sample_tasks(unsigned int *running, unsigned int *threads,
				pid_t *last_pid)
{
	struct task_struct *g, *t;

	*running = 0;
	*threads = 0;
	rcu_read_lock();
	for_each_process_thread(g, t) {
		(*threads)++;
		if (task_is_running(t))
			(*running)++;
	}
	rcu_read_unlock();
	*last_pid = ms_last_pid(&init_pid_ns);
}

static struct ms_probe ms_oom_kill_probe, ms_mark_victim_probe, ms_mark_oom_victim_probe;
/* Where the victim is seen marked: the event, or before it (compat/oom.h) the function. */
static struct ms_probe *const ms_oom_mark_probe =
	MS_HAVE_MARK_VICTIM_EVENT ? &ms_mark_victim_probe : &ms_mark_oom_victim_probe;

static int ms_oom_kill_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_oom_data *d = (struct ms_oom_data *)ri->data;
	struct ms_oom_event *e = &ms_oom_pending;
	struct ms_oom_kill_args oc;
	struct task_struct *victim;
	unsigned int running, threads;
	unsigned long flags;
	pid_t last_pid;
	int i;

	ms_hit(&ms_oom_kill_probe);
	ms_oom_kill_args(regs, &oc);
	victim = oc.victim;
	d->kills_before = ms_oom_kill_events();
	ms_oom_sample_tasks(&running, &threads, &last_pid);

	raw_spin_lock_irqsave(&ms_oom_lock, flags);
	memset(&ms_oom_pending, 0, sizeof(ms_oom_pending));
	e->time_ns = ktime_get_ns();
	e->trigger_pid = task_pid_nr(current);
	ms_copy_comm(e->trigger_comm, current);
	e->victim_pid = task_pid_nr(victim);
	ms_copy_comm(e->victim_comm, victim);
	e->pages = oc.totalpages;
	/* Known only once mark_victim confirms, with the victim locked. */
	e->anon_rss_kb = -1;
	e->file_rss_kb = -1;
	e->shmem_rss_kb = -1;
	e->oom_score_adj = READ_ONCE(victim->signal->oom_score_adj);
	e->order = oc.order;
	e->gfp_mask = (__force unsigned int)oc.gfp_mask;
	for (i = 0; i < 3; i++)
		e->avenrun[i] = READ_ONCE(avenrun[i]);
	e->nr_running = running;
	e->nr_threads = threads;
	e->last_pid = last_pid;
	ms_memcg_path(oc.memcg, e->memcg, sizeof(e->memcg));
	ms_oom_victim_tgid = victim->tgid;
	ms_oom_active = true;
	raw_spin_unlock_irqrestore(&ms_oom_lock, flags);
	return 0;
}

static int ms_oom_kill_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_oom_data *d = (struct ms_oom_data *)ri->data;
	unsigned long flags, kills;
	struct ms_oom_event ev;

	raw_spin_lock_irqsave(&ms_oom_lock, flags);
	ev = ms_oom_pending;
	ms_oom_active = false;
	raw_spin_unlock_irqrestore(&ms_oom_lock, flags);

	if (MS_HAVE_OOM_KILL_COUNTER)
		kills = ms_oom_kill_events() - d->kills_before;
	else
		kills = ev.confirmed;
	if (!kills)
		return 0;	/* the victim was already exiting */
	ms_stat_add(oom, MS_oom_kills, kills);
	ms_event_emit(&ms_oom_events, &ev);
	return 0;
}

/*
 * The victim marked: mark_oom_victim() runs with task_lock(task) held or
 * on current, so task->mm is stable here; the RSS is read exactly as the
 * kernel's "Killed process" line reads it.
 */
static void ms_oom_mark(struct task_struct *task)
{
	struct ms_oom_event *e = &ms_oom_pending;
	struct mm_struct *mm = task->mm;
	unsigned long flags;

	ms_hit(ms_oom_mark_probe);
	raw_spin_lock_irqsave(&ms_oom_lock, flags);
	if (ms_oom_active && !e->confirmed && task->tgid == ms_oom_victim_tgid) {
		/* The thread that holds the mm, as "Killed process <pid>". */
		e->victim_pid = task_pid_nr(task);
		ms_copy_comm(e->victim_comm, task);
		if (mm) {
			e->anon_rss_kb = get_mm_counter(mm, MM_ANONPAGES) << (PAGE_SHIFT - 10);
			e->file_rss_kb = get_mm_counter(mm, MM_FILEPAGES) << (PAGE_SHIFT - 10);
			e->shmem_rss_kb = ms_mm_shmem_kb(mm);
		}
		e->oom_score_adj = READ_ONCE(task->signal->oom_score_adj);
		e->confirmed = true;
	}
	raw_spin_unlock_irqrestore(&ms_oom_lock, flags);
}

/*
 * oom:mark_victim (compat/oom.h): with the task (6.9), the whole record;
 * with its pid only, a confirmation, as there is no safe way to the mm.
 */
static void ms_mark_victim(MS_MARK_VICTIM_PROTO)
{
	struct task_struct *victim = MS_MARK_VICTIM_TASK;
	struct ms_oom_event *e = &ms_oom_pending;
	unsigned long flags;

	if (victim) {
		ms_oom_mark(victim);
		return;
	}
	ms_hit(data);
	raw_spin_lock_irqsave(&ms_oom_lock, flags);
	if (ms_oom_active && MS_MARK_VICTIM_PID == e->victim_pid)
		e->confirmed = true;
	raw_spin_unlock_irqrestore(&ms_oom_lock, flags);
}

/* A prototype mismatch with the kernel's own header fails the build. */
static void __maybe_unused ms_oom_check_protos(void)
{
	MS_TP_CHECK_MARK_VICTIM(ms_mark_victim);
}

/*
 * Before 4.13, mark_oom_victim(tsk) itself, where the tracepoint would be.
 * A static function: where the compiler inlined it, the probe is
 * unavailable and kills are not confirmed.
 */
static int ms_mark_oom_victim_pre(struct kprobe *p, struct pt_regs *regs)
{
	ms_oom_mark((struct task_struct *)ms_arg(regs, 0));
	return 0;
}

static const char *const ms_oom_kill_targets[] = { "oom_kill_process", NULL };

static struct ms_probe ms_oom_kill_probe = {
	.name = "oom_kill",
	.targets = ms_oom_kill_targets,
	.kind = MS_KRETPROBE,
	.entry_handler = ms_oom_kill_entry,
	.ret_handler = ms_oom_kill_return,
	.data_size = sizeof(struct ms_oom_data),
	/* Serialized by oom_lock; a few for kills that sleep on the way out. */
	.maxactive = 4,
};

static const char *const ms_mark_victim_targets[] = { "mark_victim", NULL };
static const char *const ms_mark_oom_victim_targets[] = { "mark_oom_victim", NULL };

static struct ms_probe ms_mark_victim_probe = {
	.name = "oom_mark_victim",
	.targets = ms_mark_victim_targets,
	.kind = MS_TRACEPOINT,
	.tp_func = ms_mark_victim,
};

static struct ms_probe ms_mark_oom_victim_probe = {
	.name = "oom_mark_victim",
	.targets = ms_mark_oom_victim_targets,
	.kind = MS_KPROBE,
	.pre_handler = ms_mark_oom_victim_pre,
};

#define MS_LOAD_INT(x) ((x) >> FSHIFT)
#define MS_LOAD_FRAC(x) MS_LOAD_INT(((x) & (FIXED_1 - 1)) * 100)

/* /proc/loadavg's five fields at the kill, commas for its spaces. */
static int ms_oom_loadavg_format(char *b, size_t len, const void *rec)
{
	const struct ms_oom_event *e = ms_event_rec(rec);
	unsigned long a[3];
	int i;

	/* As /proc/loadavg rounds: add half of the last printed digit. */
	for (i = 0; i < 3; i++)
		a[i] = e->avenrun[i] + FIXED_1 / 200;
	return scnprintf(b, len, "%lu.%02lu,%lu.%02lu,%lu.%02lu,%u/%u,%d",
			 MS_LOAD_INT(a[0]), MS_LOAD_FRAC(a[0]), MS_LOAD_INT(a[1]),
			 MS_LOAD_FRAC(a[1]), MS_LOAD_INT(a[2]), MS_LOAD_FRAC(a[2]),
			 e->nr_running, e->nr_threads, e->last_pid);
}

/* The names the kernel's own OOM report prints, in its own words. */
static int ms_oom_gfp_format(char *b, size_t len, const void *rec)
{
	const struct ms_oom_event *e = ms_event_rec(rec);
	gfp_t gfp_mask = (__force gfp_t)e->gfp_mask;

	return scnprintf(b, len, "%pGg", &gfp_mask) ?: scnprintf(b, len, "none");
}

#define MS_OOM_FIELD(n, m, k, ...) MS_EVENT_FIELD(struct ms_oom_event, n, m, k, __VA_ARGS__)

/* An RSS not known (no mark_victim seen, or no shmem counter) is "-". */
static const struct ms_field_desc ms_oom_fields[] = {
	MS_OOM_FIELD("time_ns", time_ns, MS_FK_UINT, .nla = MEMSCOPE_A_TIME_NS,
		     .flags = MS_FIELD_NLA64),
	MS_OOM_FIELD("trigger_pid", trigger_pid, MS_FK_INT, .nla = MEMSCOPE_A_TRIGGER_PID),
	MS_OOM_FIELD("trigger_comm", trigger_comm, MS_FK_STR, .nla = MEMSCOPE_A_TRIGGER_COMM),
	MS_OOM_FIELD("victim_pid", victim_pid, MS_FK_INT, .nla = MEMSCOPE_A_VICTIM_PID),
	MS_OOM_FIELD("victim_comm", victim_comm, MS_FK_STR, .nla = MEMSCOPE_A_VICTIM_COMM),
	MS_OOM_FIELD("pages", pages, MS_FK_UINT, .nla = MEMSCOPE_A_PAGES,
		     .flags = MS_FIELD_NLA64),
	MS_OOM_FIELD("anon_rss_kb", anon_rss_kb, MS_FK_INT, .nla = MEMSCOPE_A_ANON_RSS_KB,
		     .flags = MS_FIELD_UNKNOWN | MS_FIELD_NLA64),
	MS_OOM_FIELD("file_rss_kb", file_rss_kb, MS_FK_INT, .nla = MEMSCOPE_A_FILE_RSS_KB,
		     .flags = MS_FIELD_UNKNOWN | MS_FIELD_NLA64),
	MS_OOM_FIELD("shmem_rss_kb", shmem_rss_kb, MS_FK_INT, .nla = MEMSCOPE_A_SHMEM_RSS_KB,
		     .flags = MS_FIELD_UNKNOWN | MS_FIELD_NLA64),
	MS_OOM_FIELD("oom_score_adj", oom_score_adj, MS_FK_INT, .nla = MEMSCOPE_A_OOM_SCORE_ADJ),
	MS_OOM_FIELD("memcg", memcg, MS_FK_STR, .nla = MEMSCOPE_A_MEMCG,
		     .flags = MS_FIELD_UNKNOWN),
	MS_OOM_FIELD("order", order, MS_FK_INT, .nla = MEMSCOPE_A_ORDER),
	MS_OOM_FIELD("gfp_mask", gfp_mask, MS_FK_HEX, .nla = MEMSCOPE_A_GFP_MASK),
	MS_OOM_FIELD("loadavg", avenrun, MS_FK_TEXT, .nla = MEMSCOPE_A_LOADAVG,
		     .format = ms_oom_loadavg_format),
	MS_OOM_FIELD("confirmed", confirmed, MS_FK_BOOL, .nla = MEMSCOPE_A_CONFIRMED),
	MS_OOM_FIELD("gfp_flags", gfp_mask, MS_FK_TEXT, .nla = MEMSCOPE_A_GFP_FLAGS,
		     .format = ms_oom_gfp_format),
	/* The kill's number, the same in the ring and in the stream. */
	MS_FIELD(struct ms_event, "seq", oom_seq, MS_FK_UINT, .nla = MEMSCOPE_A_OOM_SEQ),
};

static struct ms_event_type ms_oom_events = {
	.desc = { .name = "oom", MS_FIELDS(ms_oom_fields) },
	.size = MS_EVENT_SIZE(struct ms_oom_event),
	.genl_cmd = MEMSCOPE_CMD_EVENT_OOM,
	.genl_group = MEMSCOPE_MCGRP_OOM,
	.recover = true,	/* never lost behind other events (events.c) */
};

static int ms_oom_init(void)
{
	return ms_probe_add(&ms_oom_kill_probe) ?: ms_probe_add(ms_oom_mark_probe) ?:
	       ms_stat_set_add(&ms_oom_stats) ?: ms_event_type_add(&ms_oom_events);
}

const struct ms_family ms_oom_family = {
	.init = ms_oom_init,
};
