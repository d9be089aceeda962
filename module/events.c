// SPDX-License-Identifier: GPL-2.0
/*
 * Event records: the last N of each kind, and the `events` stream.
 * Copyright (C) 2026 The memscope authors.
 *
 * Probe context copies a fixed-size binary record into a ring under a raw
 * spinlock (a sleeping lock would be a bug on PREEMPT_RT, where probes run
 * with preemption disabled) and defers the reader wake-up to irq_work, which
 * is safe from any context.  Formatting happens only in read().
 *
 * Each open of `events` has its own cursor, so two readers both see every
 * event.  A reader that falls more than a ring behind is told how many
 * events it lost with an in-stream "lost count=N" line.
 *
 * Except OOM kills: the rarest events, and the ones that matter most,
 * must not be lost behind a flood of reclaims that share the stream.  Each
 * event in the stream carries the number of the next OOM kill (oom_seq),
 * and each reader the number of the next kill it has to see.  A reader
 * behind that number has lost kills from the stream; it gets them, before
 * the event that told, from the `oom` ring (oom_ring_size, its own size),
 * which only kills fill.  Only a reader more than oom_ring_size kills
 * behind loses a kill, and that is counted in events_oom_lost.
 */
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/math64.h>
#include <linux/mman.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <uapi/linux/shm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "memscope.h"

struct ms_ring {
	raw_spinlock_t lock;
	u64 head;			/* sequence number of the next event */
	u64 start;			/* the first event since the last reset */
	unsigned int size;
	u32 oom_next;			/* the stream: the next OOM kill's oom_seq */
	struct ms_event *ev;
};

static struct ms_ring ms_rings[MS_NR_EVENT_TYPES];
static struct ms_ring ms_stream;
static DECLARE_WAIT_QUEUE_HEAD(ms_events_wq);
static bool ms_events_closing;

static void ms_events_wake(struct irq_work *w)
{
	wake_up_all(&ms_events_wq);
	ms_genl_kick();
}
static struct irq_work ms_wake_work;

/*
 * The slot that holds sequence number seq.  ring_size is any value in
 * 16..65536, not always a power of two, so this is a real division; a
 * u64 % would not link on a 32-bit kernel (it has no __umoddi3), so
 * div_u64_rem(): the same % on 64-bit, a do_div() on 32-bit.
 */
static struct ms_event *ms_ring_slot(struct ms_ring *r, u64 seq)
{
	u32 i;

	div_u64_rem(seq, r->size, &i);
	return &r->ev[i];
}

/* Into the event's own ring; its number there, an OOM kill's oom_seq. */
static u32 ms_ring_push(struct ms_ring *r, const struct ms_event *ev)
{
	unsigned long flags;
	struct ms_event *slot;
	u32 seq;

	raw_spin_lock_irqsave(&r->lock, flags);
	slot = ms_ring_slot(r, r->head);
	*slot = *ev;
	slot->seq = r->head++;
	slot->oom_seq = seq = (u32)slot->seq;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return seq;
}

static void ms_stream_push(const struct ms_event *ev, u32 oom_seq)
{
	struct ms_ring *r = &ms_stream;
	unsigned long flags;
	struct ms_event *slot;

	raw_spin_lock_irqsave(&r->lock, flags);
	slot = ms_ring_slot(r, r->head);
	*slot = *ev;
	slot->seq = r->head++;
	if (ev->type == MS_EV_OOM) {
		slot->oom_seq = oom_seq;
		/* Kills come one at a time (oom_lock): in their order. */
		if ((s32)(oom_seq + 1 - r->oom_next) > 0)
			r->oom_next = oom_seq + 1;
	} else {
		slot->oom_seq = r->oom_next;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

void ms_event_emit(const struct ms_event *ev)
{
	u32 seq;

	if (WARN_ON_ONCE(ev->type >= MS_NR_EVENT_TYPES))
		return;
	seq = ms_ring_push(&ms_rings[ev->type], ev);
	ms_stream_push(ev, seq);
	irq_work_queue(&ms_wake_work);
}

static int ms_ring_alloc(struct ms_ring *r, unsigned int size)
{
	raw_spin_lock_init(&r->lock);
	r->head = 0;
	r->start = 0;
	r->size = size;
	r->oom_next = 0;
	r->ev = vzalloc(array_size(size, sizeof(*r->ev)));
	return r->ev ? 0 : -ENOMEM;
}

int ms_events_init(void)
{
	unsigned int n = max(ms_ring_size, 16U);
	int err;

	init_irq_work(&ms_wake_work, ms_events_wake);
	err = ms_ring_alloc(&ms_rings[MS_EV_OOM], ms_oom_ring_size) ?:
	      ms_ring_alloc(&ms_rings[MS_EV_DIRECT_RECLAIM], n) ?:
	      ms_ring_alloc(&ms_rings[MS_EV_COMPACTION], n) ?:
	      ms_ring_alloc(&ms_rings[MS_EV_MMAP], n) ?:
	      ms_ring_alloc(&ms_rings[MS_EV_SHM], n) ?:
	      ms_ring_alloc(&ms_stream, n);
	if (err)
		ms_events_exit();
	return err;
}

/* Called after every probe is gone: nothing can push or queue anymore. */
void ms_events_exit(void)
{
	int i;

	irq_work_sync(&ms_wake_work);
	for (i = 0; i < MS_NR_EVENT_TYPES; i++) {
		vfree(ms_rings[i].ev);
		ms_rings[i].ev = NULL;
	}
	vfree(ms_stream.ev);
	ms_stream.ev = NULL;
}

/* After this, no wake-up of an event emitted before still runs. */
void ms_events_sync(void)
{
	irq_work_sync(&ms_wake_work);
}

/* Blocked readers must return before their files can be removed. */
void ms_events_shutdown(void)
{
	WRITE_ONCE(ms_events_closing, true);
	wake_up_all(&ms_events_wq);
}

size_t ms_events_bytes(void)
{
	return (ms_oom_ring_size + 5 * max(ms_ring_size, 16U)) * sizeof(struct ms_event);
}

void ms_events_reset(void)
{
	unsigned long flags;
	int i;

	/*
	 * Forget the per-kind history: readers show only what came after.
	 * Sequence numbers never go back, so a slot's seq still tells which
	 * event it holds.  The stream is not reset.
	 */
	for (i = 0; i < MS_NR_EVENT_TYPES; i++) {
		struct ms_ring *r = &ms_rings[i];

		raw_spin_lock_irqsave(&r->lock, flags);
		r->start = r->head;
		raw_spin_unlock_irqrestore(&r->lock, flags);
	}
}

/* Octal-escape what would split a field: space, tab, newline, backslash. */
size_t ms_escape(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	for (; *src && n + 5 < len; src++) {
		unsigned char c = *src;

		if (c <= ' ' || c == '\\' || c >= 0x7f)
			n += snprintf(dst + n, len - n, "\\%03o", c);
		else
			dst[n++] = c;
	}
	dst[n] = '\0';
	return n;
}

void ms_seq_escape(struct seq_file *m, const char *s)
{
	char buf[MS_NAME_LEN * 8 + 1];

	ms_escape(buf, sizeof(buf), s);
	seq_puts(m, buf);
}

#define MS_LOAD_INT(x) ((x) >> FSHIFT)
#define MS_LOAD_FRAC(x) MS_LOAD_INT(((x) & (FIXED_1 - 1)) * 100)

/*
 * Written piece by piece, the names escaped straight into the line: a
 * buffer per field would take about 1 KiB of stack, over the kernel's
 * frame warning on Ubuntu's configuration.
 */
static int ms_format_oom(char *b, size_t len, const struct ms_oom_event *e, u32 seq)
{
	gfp_t gfp_mask = (__force gfp_t)e->gfp_mask;
	unsigned long a[3];
	size_t n;
	int i;

	/* As /proc/loadavg rounds: add half of the last printed digit. */
	for (i = 0; i < 3; i++)
		a[i] = e->avenrun[i] + FIXED_1 / 200;
	n = scnprintf(b, len, "time_ns=%llu trigger_pid=%d trigger_comm=",
		      e->time_ns, e->trigger_pid);
	n += ms_escape(b + n, len - n, e->trigger_comm);
	n += scnprintf(b + n, len - n, " victim_pid=%d victim_comm=", e->victim_pid);
	n += ms_escape(b + n, len - n, e->victim_comm);
	n += scnprintf(b + n, len - n, " pages=%lu ", e->pages);
	if (e->anon_rss_kb >= 0)
		n += scnprintf(b + n, len - n, "anon_rss_kb=%ld file_rss_kb=%ld shmem_rss_kb=%ld",
			       e->anon_rss_kb, e->file_rss_kb, e->shmem_rss_kb);
	else
		n += scnprintf(b + n, len - n, "anon_rss_kb=- file_rss_kb=- shmem_rss_kb=-");
	n += scnprintf(b + n, len - n, " oom_score_adj=%d memcg=", e->oom_score_adj);
	if (e->memcg[0])
		n += ms_escape(b + n, len - n, e->memcg);
	else
		n += scnprintf(b + n, len - n, "-");
	n += scnprintf(b + n, len - n,
		" order=%d gfp_mask=%#x loadavg=%lu.%02lu,%lu.%02lu,%lu.%02lu,%u/%u,%d confirmed=%d gfp_flags=",
		e->order, e->gfp_mask,
		MS_LOAD_INT(a[0]), MS_LOAD_FRAC(a[0]), MS_LOAD_INT(a[1]),
		MS_LOAD_FRAC(a[1]), MS_LOAD_INT(a[2]), MS_LOAD_FRAC(a[2]),
		e->nr_running, e->nr_threads, e->last_pid, e->confirmed);
	/* The names the kernel's own OOM report prints, in its own words. */
	i = scnprintf(b + n, len - n, "%pGg", &gfp_mask);
	n += i ?: scnprintf(b + n, len - n, "none");
	/* The kill's number, the same in the ring and in the stream. */
	n += scnprintf(b + n, len - n, " seq=%u\n", seq);
	return n;
}

static int ms_format_reclaim(char *b, size_t len, const struct ms_reclaim_event *e)
{
	char comm[TASK_COMM_LEN * 4 + 1];

	ms_escape(comm, sizeof(comm), e->comm);
	return snprintf(b, len,
		"time_ns=%llu pid=%d comm=%s latency_ns=%llu nr_reclaimed=%lu memcg=%d\n",
		e->time_ns, e->pid, comm, e->latency_ns, e->nr_reclaimed, e->memcg);
}

/* A compaction's result by name, or by number where the kernel names none. */
const char *ms_compaction_status_str(int status, char num[12])
{
	const char *name = ms_compaction_status_name(status);

	if (name)
		return name;
	snprintf(num, 12, "%d", status);
	return num;
}

static int ms_format_compaction(char *b, size_t len, const struct ms_compaction_event *e)
{
	char comm[TASK_COMM_LEN * 4 + 1], num[12];

	ms_escape(comm, sizeof(comm), e->comm);
	return snprintf(b, len,
		"time_ns=%llu pid=%d comm=%s latency_ns=%llu status=%s\n",
		e->time_ns, e->pid, comm, e->latency_ns,
		ms_compaction_status_str(e->status, num));
}

/* Named flag bits, then what is left in hex: "MAP_PRIVATE|MAP_ANONYMOUS". */
struct ms_flag {
	unsigned long bit;
	const char *name;
};

static int ms_format_flags(char *b, size_t len, unsigned long v,
			   const struct ms_flag *f, size_t nf)
{
	int n = 0;
	size_t i;

	for (i = 0; i < nf; i++) {
		if (!f[i].bit || (v & f[i].bit) != f[i].bit)
			continue;
		n += scnprintf(b + n, len - n, "%s%s", n ? "|" : "", f[i].name);
		v &= ~f[i].bit;
	}
	if (v)
		n += scnprintf(b + n, len - n, "%s%#lx", n ? "|" : "", v);
	else if (!n)
		n += scnprintf(b + n, len - n, "0");
	return n;
}

#define MS_FLAG(p, x) { p##x, #p #x }

/* What the mmap(2) man page names; the type bits first, then the rest. */
static const struct ms_flag ms_map_flags[] = {
	MS_FLAG(MAP_, SHARED_VALIDATE), MS_FLAG(MAP_, SHARED), MS_FLAG(MAP_, PRIVATE),
	MS_FLAG(MAP_, FIXED_NOREPLACE), MS_FLAG(MAP_, FIXED), MS_FLAG(MAP_, ANONYMOUS),
	MS_FLAG(MAP_, GROWSDOWN), MS_FLAG(MAP_, DENYWRITE), MS_FLAG(MAP_, EXECUTABLE),
	MS_FLAG(MAP_, LOCKED), MS_FLAG(MAP_, NORESERVE), MS_FLAG(MAP_, POPULATE),
	MS_FLAG(MAP_, NONBLOCK), MS_FLAG(MAP_, STACK), MS_FLAG(MAP_, HUGETLB),
	MS_FLAG(MAP_, SYNC),
};

/*
 * mmap's flags as strace prints them: the named flags, any bit left in hex,
 * then with MAP_HUGETLB the huge page size (log2, in bits 26-31) as
 * "21<<MAP_HUGE_SHIFT".  SHARED_VALIDATE, both type bits, is tried before
 * SHARED and PRIVATE.
 */
static void ms_format_mmap_flags(char *b, size_t len, unsigned long flags)
{
	unsigned long huge = 0;
	int n;

	if (flags & MAP_HUGETLB)
		huge = flags & ((unsigned long)MAP_HUGE_MASK << MAP_HUGE_SHIFT);
	n = ms_format_flags(b, len, flags & ~huge, ms_map_flags, ARRAY_SIZE(ms_map_flags));
	if (huge)
		scnprintf(b + n, len - n, "|%lu<<MAP_HUGE_SHIFT", huge >> MAP_HUGE_SHIFT);
}

static int ms_format_mmap(char *b, size_t len, const struct ms_mmap_event *e)
{
	char comm[TASK_COMM_LEN * 4 + 1], file[MS_NAME_LEN * 4 + 1], flags[256];

	ms_escape(comm, sizeof(comm), e->comm);
	ms_escape(file, sizeof(file), e->file);
	ms_format_mmap_flags(flags, sizeof(flags), e->flags);
	return snprintf(b, len,
		"time_ns=%llu pid=%d comm=%s size=%lu prot=%c%c%c%s flags=%s off=%lu err=%ld file=%s\n",
		e->time_ns, e->pid, comm, e->len,
		e->prot & PROT_READ ? 'r' : '-', e->prot & PROT_WRITE ? 'w' : '-',
		e->prot & PROT_EXEC ? 'x' : '-',
		e->prot & ~(unsigned long)(PROT_READ | PROT_WRITE | PROT_EXEC) ? "+" : "",
		flags, e->off, e->err, file);
}

static const struct ms_flag ms_shmget_flags[] = {
	MS_FLAG(IPC_, CREAT), MS_FLAG(IPC_, EXCL), MS_FLAG(SHM_, HUGETLB),
	MS_FLAG(SHM_, NORESERVE),
};

/*
 * shmget's flags as strace prints them: the named flags, the huge page
 * size (log2, in bits 26-31) as "21<<SHM_HUGE_SHIFT", then the mode in
 * octal: "IPC_CREAT|SHM_HUGETLB|21<<SHM_HUGE_SHIFT|0600".  shmflg is an
 * int: the register's upper half is not the caller's.
 */
static void ms_format_shmget_flags(char *b, size_t len, unsigned int shmflg)
{
	const unsigned int huge_bits = (unsigned int)SHM_HUGE_MASK << SHM_HUGE_SHIFT;
	unsigned int named = shmflg & ~0777U & ~huge_bits;
	int n = 0;

	if (named)
		n = ms_format_flags(b, len, named, ms_shmget_flags, ARRAY_SIZE(ms_shmget_flags));
	if (shmflg & huge_bits)
		n += scnprintf(b + n, len - n, "%s%u<<SHM_HUGE_SHIFT", n ? "|" : "",
			       (shmflg & huge_bits) >> SHM_HUGE_SHIFT);
	scnprintf(b + n, len - n, "%s%#o", n ? "|" : "", shmflg & 0777U);
}

static const struct ms_flag ms_shmat_flags[] = {
	MS_FLAG(SHM_, RDONLY), MS_FLAG(SHM_, RND), MS_FLAG(SHM_, REMAP), MS_FLAG(SHM_, EXEC),
};

static const char *ms_shmctl_cmd(unsigned long cmd)
{
	/* IPC_64, which glibc ORs in, changes the layout, not the command. */
	switch (cmd & ~(unsigned long)IPC_64) {
	case IPC_RMID: return "IPC_RMID";
	case IPC_SET: return "IPC_SET";
	case IPC_STAT: return "IPC_STAT";
	case IPC_INFO: return "IPC_INFO";
	case SHM_LOCK: return "SHM_LOCK";
	case SHM_UNLOCK: return "SHM_UNLOCK";
	case SHM_STAT: return "SHM_STAT";
	case SHM_INFO: return "SHM_INFO";
	case SHM_STAT_ANY: return "SHM_STAT_ANY";
	default: return NULL;
	}
}

static int ms_format_shm(char *b, size_t len, const struct ms_shm_event *e)
{
	static const char *const calls[] = { "shmget", "shmat", "shmdt", "shmctl" };
	char comm[TASK_COMM_LEN * 4 + 1], flags[160];
	const char *cmd;
	int n;

	ms_escape(comm, sizeof(comm), e->comm);
	n = scnprintf(b, len, "time_ns=%llu pid=%d comm=%s call=%s", e->time_ns, e->pid,
		      comm, e->call < ARRAY_SIZE(calls) ? calls[e->call] : "?");
	switch (e->call) {
	case MS_SHMGET:
		ms_format_shmget_flags(flags, sizeof(flags), (unsigned int)e->args[2]);
		n += scnprintf(b + n, len - n, " key=0x%08x size=%lu flags=%s id=%ld",
			       (unsigned int)e->args[0], e->args[1], flags, e->id);
		break;
	case MS_SHMAT:
		ms_format_flags(flags, sizeof(flags), e->args[2], ms_shmat_flags,
				ARRAY_SIZE(ms_shmat_flags));
		n += scnprintf(b + n, len - n, " id=%d flags=%s", (int)e->args[0], flags);
		break;
	case MS_SHMCTL:
		cmd = ms_shmctl_cmd(e->args[1]);
		if (cmd)
			n += scnprintf(b + n, len - n, " id=%d cmd=%s", (int)e->args[0], cmd);
		else
			n += scnprintf(b + n, len - n, " id=%d cmd=%lu", (int)e->args[0],
				       e->args[1]);
		break;
	default:
		break;
	}
	return n + scnprintf(b + n, len - n, " err=%ld\n", e->err);
}

static const char *const ms_event_names[MS_NR_EVENT_TYPES] = {
	[MS_EV_OOM] = "oom",
	[MS_EV_DIRECT_RECLAIM] = "direct_reclaim",
	[MS_EV_COMPACTION] = "compaction",
	[MS_EV_MMAP] = "mmap",
	[MS_EV_SHM] = "shm",
};

/* The ring file's name, and the events stream's word, for events of @type. */
const char *ms_event_name(enum ms_event_type type)
{
	return ms_event_names[type];
}

static int ms_format(char *b, size_t len, const struct ms_event *ev)
{
	switch (ev->type) {
	case MS_EV_OOM:
		return ms_format_oom(b, len, &ev->oom, ev->oom_seq);
	case MS_EV_DIRECT_RECLAIM:
		return ms_format_reclaim(b, len, &ev->reclaim);
	case MS_EV_COMPACTION:
		return ms_format_compaction(b, len, &ev->compaction);
	case MS_EV_MMAP:
		return ms_format_mmap(b, len, &ev->mmap);
	case MS_EV_SHM:
		return ms_format_shm(b, len, &ev->shm);
	default:
		return snprintf(b, len, "unknown\n");
	}
}

/* An event's line in its ring's file, for the netlink groups. */
int ms_event_line(char *b, size_t len, const struct ms_event *ev)
{
	return ms_format(b, len, ev);
}

#define MS_LINE_MAX 1024

int ms_ring_show(struct seq_file *m, enum ms_event_type type)
{
	struct ms_ring *r = &ms_rings[type];
	struct ms_event ev;
	unsigned long flags;
	u64 head, s;
	bool live;
	char *line;

	line = ms_self_alloc(kmalloc(MS_LINE_MAX, GFP_KERNEL));
	if (!line)
		return -ENOMEM;
	raw_spin_lock_irqsave(&r->lock, flags);
	head = r->head;
	s = max(r->start, head > r->size ? head - r->size : 0);
	raw_spin_unlock_irqrestore(&r->lock, flags);

	/*
	 * One event per lock hold.  Probes take this raw lock with interrupts
	 * off, so its hold time must stay short and must not grow with
	 * ring_size (on PREEMPT_RT it bounds scheduling latency).  The lines
	 * are the events of [s, head) still in the ring when the read gets to
	 * them: a slot that a newer event overwrote, or a reset cleared, in
	 * the meantime is left out, as it would be by a read a moment later.
	 */
	for (; s < head; s++) {
		raw_spin_lock_irqsave(&r->lock, flags);
		ev = *ms_ring_slot(r, s);
		live = ev.seq == s && s >= r->start;
		raw_spin_unlock_irqrestore(&r->lock, flags);
		if (live) {
			ms_format(line, MS_LINE_MAX, &ev);
			seq_puts(m, line);
			/* seq_file retries with a bigger buffer: stop here. */
			if (seq_has_overflowed(m))
				break;
		}
		cond_resched();
	}
	kfree(line);
	return 0;
}

/* ---- the events stream ------------------------------------------------- */

/*
 * One per open file.  A file may be read by many threads at once, and
 * read(2)'s f_pos_lock does not cover them all (pread, io_uring, and a
 * nonseekable file skips it), so the reader's state has its own mutex, as
 * trace_pipe's iterator has: every read holds it except while it sleeps.
 */
struct ms_reader {
	struct mutex lock;
	struct ms_stream_cursor cursor;
	size_t len, off;
	char buf[MS_LINE_MAX + 32];
};

static int ms_events_open(struct inode *inode, struct file *file)
{
	struct ms_reader *rd = ms_self_alloc(kzalloc(sizeof(*rd), GFP_KERNEL));

	if (!rd)
		return -ENOMEM;
	mutex_init(&rd->lock);
	/* Like trace_pipe: a new reader starts with what happens next. */
	ms_stream_start(&rd->cursor);
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

static int ms_events_release(struct inode *inode, struct file *file)
{
	struct ms_reader *rd = file->private_data;

	mutex_destroy(&rd->lock);
	kfree(rd);
	return 0;
}

static bool ms_events_pending(struct ms_reader *rd)
{
	return READ_ONCE(ms_stream.head) != READ_ONCE(rd->cursor.seq) ||
	       READ_ONCE(ms_events_closing);
}

/*
 * The oldest kill from c->oom_seq up to @next that the oom ring still
 * holds, into *ev; false when there is none.  Kills it no longer holds are
 * lost for good: they stay in c->lost, and in events_oom_lost.
 */
static bool ms_oom_recover(struct ms_stream_cursor *c, u32 next, struct ms_event *ev)
{
	struct ms_ring *r = &ms_rings[MS_EV_OOM];
	unsigned long flags;
	u32 back, gone;
	bool found = false;

	raw_spin_lock_irqsave(&r->lock, flags);
	back = (u32)r->head - c->oom_seq;	/* how far back the kill is */
	if (back > r->size) {
		gone = min(back - r->size, next - c->oom_seq);
		c->oom_seq += gone;
		ms_stat_add(MS_events_oom_lost, gone);
		back -= gone;
	}
	if (c->oom_seq != next && back) {
		*ev = *ms_ring_slot(r, r->head - back);
		c->oom_seq++;
		found = true;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return found;
}

/*
 * The stream's next event after c->seq, and the events a ring overwrote
 * before they were read (*lost); false when there is none.  Each reader
 * of the stream keeps a cursor: an open `events` file, the netlink sender.
 * OOM kills the stream overwrote come first, from the oom ring, in their
 * place: before the first event that came after them.
 */
bool ms_stream_next(struct ms_stream_cursor *c, struct ms_event *ev, u64 *lost)
{
	struct ms_ring *r = &ms_stream;
	unsigned long flags;
	u32 next;

	*lost = 0;
	c->recovered = false;
	raw_spin_lock_irqsave(&r->lock, flags);
	if (c->seq == r->head) {
		raw_spin_unlock_irqrestore(&r->lock, flags);
		return false;
	}
	if (r->head - c->seq > r->size) {
		c->lost += r->head - c->seq - r->size;
		c->seq = r->head - r->size;
	}
	*ev = *ms_ring_slot(r, c->seq);
	raw_spin_unlock_irqrestore(&r->lock, flags);

	/* Kills before this event that this reader has not seen: lost. */
	next = ev->oom_seq;
	if ((s32)(next - c->oom_seq) > 0 && ms_oom_recover(c, next, ev)) {
		if (c->lost)
			c->lost--;
		ms_stat_inc(MS_events_oom_recovered);
		c->recovered = true;
		return true;
	}
	/* Nothing (else) to recover: this event, and what was lost before it. */
	c->seq++;
	if (ev->type == MS_EV_OOM)
		c->oom_seq = ev->oom_seq + 1;
	*lost = c->lost;
	c->lost = 0;
	return true;
}

/* Where a new reader of the stream starts: with what happens next. */
void ms_stream_start(struct ms_stream_cursor *c)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ms_stream.lock, flags);
	c->seq = ms_stream.head;
	c->oom_seq = ms_stream.oom_next;
	c->recovered = false;
	c->lost = 0;
	raw_spin_unlock_irqrestore(&ms_stream.lock, flags);
}

/* Format the next event into rd->buf; false when there is none. */
static bool ms_events_next(struct ms_reader *rd)
{
	struct ms_event ev;
	u64 lost;
	int n;

	if (!ms_stream_next(&rd->cursor, &ev, &lost))
		return false;
	n = 0;
	if (lost) {
		ms_stat_add(MS_events_lost, lost);
		n = scnprintf(rd->buf, sizeof(rd->buf), "lost count=%llu\n", lost);
	}
	n += scnprintf(rd->buf + n, sizeof(rd->buf) - n, "%s ", ms_event_names[ev.type]);
	ms_format(rd->buf + n, sizeof(rd->buf) - n, &ev);
	rd->len = strlen(rd->buf);
	rd->off = 0;
	return true;
}

static ssize_t ms_events_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct ms_reader *rd = file->private_data;
	ssize_t done = 0;
	int err = 0;

	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	while (done < count) {
		size_t n;

		if (rd->off == rd->len && !ms_events_next(rd)) {
			if (done || READ_ONCE(ms_events_closing))
				break;
			if (file->f_flags & O_NONBLOCK) {
				err = -EAGAIN;
				break;
			}
			/* Not while asleep: another reader may have the next line. */
			mutex_unlock(&rd->lock);
			err = wait_event_interruptible(ms_events_wq, ms_events_pending(rd));
			if (err)
				return err;
			if (mutex_lock_interruptible(&rd->lock))
				return -ERESTARTSYS;
			continue;
		}
		/* Whole lines only unless the caller's buffer is smaller than one. */
		n = min(rd->len - rd->off, count - done);
		if (n < rd->len - rd->off && done)
			break;
		if (copy_to_user(ubuf + done, rd->buf + rd->off, n)) {
			err = -EFAULT;
			break;
		}
		rd->off += n;
		done += n;
	}
	mutex_unlock(&rd->lock);
	return done ? done : err;
}

static __poll_t ms_events_poll(struct file *file, poll_table *wait)
{
	struct ms_reader *rd = file->private_data;

	poll_wait(file, &ms_events_wq, wait);
	/* Unlocked, as trace_pipe's poll: a hint, which read() settles. */
	return READ_ONCE(rd->off) < READ_ONCE(rd->len) || ms_events_pending(rd) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

const struct file_operations ms_events_fops = {
	.owner = THIS_MODULE,
	.open = ms_events_open,
	.read = ms_events_read,
	.poll = ms_events_poll,
	.release = ms_events_release,
	.llseek = ms_no_llseek,
};

const struct ms_proc_ops ms_events_proc_ops = {
	.MS_PROC(open) = ms_events_open,
	.MS_PROC(read) = ms_events_read,
	.MS_PROC(poll) = ms_events_poll,
	.MS_PROC(release) = ms_events_release,
	.MS_PROC_LSEEK = ms_no_llseek,
};
