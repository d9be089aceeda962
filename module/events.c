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
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
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

/* The types, in registration order, each with its ring: ms_rings[id]. */
struct ms_event_type *ms_event_types[MS_MAX_EVENT_TYPES];
unsigned int ms_nr_event_types;
static struct ms_ring ms_rings[MS_MAX_EVENT_TYPES];
static const struct ms_event_type *ms_recover_type;	/* OOM kills' */
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

/* A slot of @r for @rec of type @t, its next; under r->lock. */
static struct ms_event *ms_ring_put(struct ms_ring *r, const struct ms_event_type *t,
				    const void *rec)
{
	struct ms_event *slot = ms_ring_slot(r, r->head);

	slot->seq = r->head++;
	slot->type = t->id;
	memcpy(slot->data, rec, t->size);
	return slot;
}

/* Into the event's own ring; its number there, an OOM kill's oom_seq. */
static u32 ms_ring_push(struct ms_ring *r, const struct ms_event_type *t, const void *rec)
{
	unsigned long flags;
	struct ms_event *slot;
	u32 seq;

	raw_spin_lock_irqsave(&r->lock, flags);
	slot = ms_ring_put(r, t, rec);
	slot->oom_seq = seq = (u32)slot->seq;
	raw_spin_unlock_irqrestore(&r->lock, flags);
	return seq;
}

static void ms_stream_push(const struct ms_event_type *t, const void *rec, u32 oom_seq)
{
	struct ms_ring *r = &ms_stream;
	unsigned long flags;
	struct ms_event *slot;

	raw_spin_lock_irqsave(&r->lock, flags);
	slot = ms_ring_put(r, t, rec);
	if (t->recover) {
		slot->oom_seq = oom_seq;
		/* Kills come one at a time (oom_lock): in their order. */
		if ((s32)(oom_seq + 1 - r->oom_next) > 0)
			r->oom_next = oom_seq + 1;
	} else {
		slot->oom_seq = r->oom_next;
	}
	raw_spin_unlock_irqrestore(&r->lock, flags);
}

/* Record @rec of type @t, from any context. */
void ms_event_emit(const struct ms_event_type *t, const void *rec)
{
	u32 seq = ms_ring_push(&ms_rings[t->id], t, rec);

	ms_stream_push(t, rec, seq);
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

/*
 * From a family's init, before any probe can emit: the type's ring, and
 * its netlink group.  ms_events_exit() frees the rings.
 */
int ms_event_type_add(struct ms_event_type *t)
{
	unsigned int id = ms_nr_event_types;
	int err;

	if (id == ARRAY_SIZE(ms_event_types)) {
		pr_err("memscope: event type %s: more than MS_MAX_EVENT_TYPES (%zu); raise it\n",
		       t->desc.name, ARRAY_SIZE(ms_event_types));
		return -ENOSPC;
	}
	if (t->recover && ms_recover_type) {
		pr_err("memscope: event type %s: %s already has the recovered events\n",
		       t->desc.name, ms_recover_type->desc.name);
		return -EINVAL;
	}
	err = ms_ring_alloc(&ms_rings[id], t->recover ? ms_oom_ring_size :
				     max(ms_ring_size, 16U));
	if (err)
		return err;
	t->group = -1;
	if (t->genl_cmd) {
		t->group = ms_genl_group_add(t->genl_group);
		if (t->group < 0)
			return t->group;
	}
	t->id = id;
	ms_event_types[ms_nr_event_types++] = t;
	if (t->recover)
		ms_recover_type = t;
	return 0;
}

/* The type of an event a ring held. */
const struct ms_event_type *ms_event_type_of(const struct ms_event *ev)
{
	return ms_event_types[ev->type];
}

int ms_events_init(void)
{
	unsigned int n = max(ms_ring_size, 16U);
	int err;

	init_irq_work(&ms_wake_work, ms_events_wake);
	err = ms_ring_alloc(&ms_stream, n);
	if (err)
		ms_events_exit();
	return err;
}

/*
 * Called after every probe is gone: nothing can push or queue anymore.
 * Every ring, of the types registered and of one that failed to.
 */
void ms_events_exit(void)
{
	unsigned int i;

	irq_work_sync(&ms_wake_work);
	for (i = 0; i < ARRAY_SIZE(ms_rings); i++) {
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
	unsigned int i;
	size_t n = ms_stream.size;

	/* The types' rings and the stream. */
	for (i = 0; i < ms_nr_event_types; i++)
		n += ms_rings[i].size;
	return n * sizeof(struct ms_event);
}

void ms_events_reset(void)
{
	unsigned long flags;
	unsigned int i;

	/*
	 * Forget the per-kind history: readers show only what came after.
	 * Sequence numbers never go back, so a slot's seq still tells which
	 * event it holds.  The stream is not reset.
	 */
	for (i = 0; i < ms_nr_event_types; i++) {
		struct ms_ring *r = &ms_rings[i];

		raw_spin_lock_irqsave(&r->lock, flags);
		r->start = r->head;
		raw_spin_unlock_irqrestore(&r->lock, flags);
	}
}

static int ms_format(char *b, size_t len, const struct ms_event *ev)
{
	return ms_record_format(b, len, &ms_event_type_of(ev)->desc, ev);
}

/*
 * events_format: how to read the rings', the stream's and the netlink
 * groups' records, a line each (fields.c): every event type, the stream's
 * own "lost", and the messages families send to their groups (memleak's
 * reports).
 */
/* Records a family sends to its group that no ring holds: memleak's reports. */
#define MS_MAX_MESSAGES 4
static const struct ms_record_desc *ms_messages[MS_MAX_MESSAGES];
static unsigned int ms_nr_messages;

/* From a family's init: @d gets its line in events_format. */
int ms_message_add(const struct ms_record_desc *d)
{
	return ms_register(ms_messages, ms_nr_messages, d, "message", d->name);
}

int ms_events_format_show(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < ms_nr_event_types; i++)
		ms_record_format_show(m, &ms_event_types[i]->desc);
	seq_puts(m, "lost count:uint\n");
	for (i = 0; i < ms_nr_messages; i++)
		ms_record_format_show(m, ms_messages[i]);
	return 0;
}

/* An event's line in its ring's file, for the netlink groups. */
int ms_event_line(char *b, size_t len, const struct ms_event *ev)
{
	return ms_format(b, len, ev);
}

#define MS_LINE_MAX 1024

int ms_ring_show(struct seq_file *m, const struct ms_event_type *t)
{
	struct ms_ring *r = &ms_rings[t->id];
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
	struct ms_cursor cursor;
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
	ms_cursor_start(&rd->cursor);
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
static bool ms_oom_recover(struct ms_cursor *c, u32 next, struct ms_event *ev)
{
	const struct ms_event_type *t = ms_recover_type;
	unsigned long flags;
	u32 back, gone;
	bool found = false;
	struct ms_ring *r;

	/* Only events of that type move oom_seq: never without it. */
	if (WARN_ON_ONCE(!t))
		return false;
	r = &ms_rings[t->id];

	raw_spin_lock_irqsave(&r->lock, flags);
	back = (u32)r->head - c->oom_seq;	/* how far back the kill is */
	if (back > r->size) {
		gone = min(back - r->size, next - c->oom_seq);
		c->oom_seq += gone;
		ms_stat_add(core, MS_events_oom_lost, gone);
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
bool ms_cursor_next(struct ms_cursor *c, struct ms_event *ev, u64 *lost)
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
		ms_stat_inc(core, MS_events_oom_recovered);
		c->recovered = true;
		return true;
	}
	/* Nothing (else) to recover: this event, and what was lost before it. */
	c->seq++;
	if (ms_event_type_of(ev)->recover)
		c->oom_seq = ev->oom_seq + 1;
	*lost = c->lost;
	c->lost = 0;
	return true;
}

/* Where a new reader of the stream starts: with what happens next. */
void ms_cursor_start(struct ms_cursor *c)
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

	if (!ms_cursor_next(&rd->cursor, &ev, &lost))
		return false;
	n = 0;
	if (lost) {
		ms_stat_add(core, MS_events_lost, lost);
		n = scnprintf(rd->buf, sizeof(rd->buf), "lost count=%llu\n", lost);
	}
	n += scnprintf(rd->buf + n, sizeof(rd->buf) - n, "%s ", ms_event_type_of(&ev)->desc.name);
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
