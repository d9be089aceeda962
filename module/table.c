// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded top-N tables.
 * Copyright (C) 2026 The memscope authors.
 *
 * Each table is one array of rows plus, per possible CPU, one array of
 * counters, all allocated at load and never grown.
 *
 * Writers (probe context: any context but NMI, never sleeping) find their
 * row by open addressing over at most MS_TABLE_REACH slots.  A cmpxchg on
 * the key claims a free slot; the claimant, or any writer that finds the
 * row not yet ready, fills the name and publishes it.  Counts go to the
 * writer's own CPU's counters, so the rows every CPU updates (`[anon]`, a
 * process's many threads) are only ever read by other CPUs.
 *
 * A full table does not go stale.  When no slot in reach is free, a second
 * pass reuses a row that is finished with:
 *   - first, the first row whose process has exited, every thread of it
 *     (the per-process tables): nothing anyone can ask for is lost;
 *   - else, of the rows a reader has seen whose count has not moved since,
 *     the one that holds the fewest events: at each open the reader notes
 *     each row's first column in `seen`, and the writer compares (summing
 *     the CPUs, on this full-table path only).  Its events are counted in
 *     table_reuse, since a total since enable now lacks them.
 * A running process's row is never taken unseen, even once it exec'd or
 * was renamed and so can no longer count: `-p PID` still shows it, so it
 * leaves only with a count, never silently.
 * The fast path pays nothing for this: no timestamp, no epoch, no write
 * beyond its own CPU's counter.  Only when no such row is in reach is the
 * event counted in `dropped`.  A reused
 * row is taken over under the reserved key MS_KEY_BUSY with interrupts
 * off: its counters are zeroed and its name unpublished before the new key
 * appears, so no reader or writer ever pairs a new key with an old name or
 * count.  A writer that found the row under its old key just before, and
 * adds just after, moves one event to the new key; a kretprobe that keeps
 * a row across a sleep checks the key first (faults.c).
 *
 * Readers take one snapshot per open: the rows are copied, the CPUs'
 * counters folded, names resolved (cgroup paths, rows with equal names
 * merged) and the result sorted, all at open.  Every read(2) of that file
 * description, however small, comes from the same snapshot.
 */
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "memscope.h"

#define MS_TABLE_REACH 32
#define MS_KEY_BUSY (~0ULL)

/* Each family defines its tables and registers them at load: ms_table_add(). */
struct ms_table *ms_tables[MS_MAX_TABLES];
unsigned int ms_nr_tables;

/*
 * Register @t, last in `version`'s tables line and among the files.  At
 * load, before ms_tables_init() allocates every table's rows.
 */
int ms_table_add(struct ms_table *t)
{
	return ms_register(ms_tables, ms_nr_tables, t, "table", t->file);
}

/* The table whose file is @file, or NULL. */
struct ms_table *ms_table_find(const char *file)
{
	struct ms_table *t;
	unsigned int i;

	ms_for_each_table(t, i)
		if (!strcmp(t->file, file))
			return t;
	return NULL;
}

/*
 * The row's process has exited: no thread of it runs.  A leader that
 * exited before its other threads stays a zombie until they have, and the
 * process still runs.  One that exec'd, or renamed itself, still runs too:
 * its rows under the old name stay its rows.  (A pid reused by a new
 * process keeps the old one's rows as if it ran: kept, never lost.)
 */
static bool ms_task_gone(const struct ms_row *row)
{
	struct task_struct *p;
	bool gone;

	if (!smp_load_acquire(&row->ready))
		return false;		/* being filled: live by definition */
	rcu_read_lock();
	p = pid_task(find_pid_ns(row->pid, &init_pid_ns), PIDTYPE_PID);
	gone = !p || (READ_ONCE(p->exit_state) && thread_group_empty(p));
	rcu_read_unlock();
	return gone;
}

static s64 ms_row_col0(struct ms_table *t, const struct ms_row *row)
{
	s64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += local64_read(&t->cnt[cpu][row->base]);
	return sum;
}

enum ms_row_state {
	MS_ROW_LIVE,		/* may count again, or unseen: kept */
	MS_ROW_SEEN,		/* seen, not moved since: reusable, counted */
	MS_ROW_GONE,		/* its process has exited: reusable */
};

/*
 * Whether @row is finished with: its process has exited, or a reader saw
 * its count and it has not moved since (*held: that count, a running
 * process's or a key's that may count again, which later totals lack).
 */
static enum ms_row_state ms_row_state(struct ms_table *t, struct ms_row *row, u64 *held)
{
	u64 seen = READ_ONCE(row->seen);

	*held = 0;
	if (ms_table_has_pid(t) && ms_task_gone(row))
		return MS_ROW_GONE;
	if (!seen || (u64)ms_row_col0(t, row) + 1 != seen)
		return MS_ROW_LIVE;
	*held = seen - 1;
	return MS_ROW_SEEN;
}

/* Another CPU holds the row for a few stores with interrupts off. */
static u64 ms_row_wait(struct ms_row *row)
{
	u64 k;

	while ((k = READ_ONCE(row->key)) == MS_KEY_BUSY)
		cpu_relax();
	return k;
}

/* Zero a row the caller holds as MS_KEY_BUSY; every CPU's counters. */
static void ms_row_clear(struct ms_table *t, struct ms_row *row)
{
	unsigned int base = row->base, c;
	int cpu;

	WRITE_ONCE(row->ready, 0);
	WRITE_ONCE(row->seen, 0);
	for_each_possible_cpu(cpu)
		for (c = 0; c < t->ncols; c++)
			local64_set(&t->cnt[cpu][base + c], 0);
	if (t->buckets)
		for (c = 0; c < MS_ROW_BUCKETS; c++)
			atomic_set(&t->buckets[(size_t)(row - t->rows) * MS_ROW_BUCKETS + c], 0);
}

/* Take over @row, last seen with key @old, for @key; it held @held events of a live key. */
static bool ms_row_reuse(struct ms_table *t, struct ms_row *row, u64 old, u64 key, u64 held)
{
	unsigned long flags;

	local_irq_save(flags);
	if (cmpxchg64(&row->key, old, MS_KEY_BUSY) != old) {
		local_irq_restore(flags);
		return false;
	}
	ms_row_clear(t, row);
	smp_wmb();		/* zeroes and !ready before the new key */
	WRITE_ONCE(row->key, key);
	local_irq_restore(flags);
	ms_stat_inc(core, MS_table_reused);
	if (held) {
		atomic64_inc(&t->reused_rows);
		atomic64_add(held, &t->reused_events);
	}
	return true;
}

/*
 * Pass 2 of ms_table_get(), no free slot in reach: the first row of an
 * exited process, else the seen, unmoved row that holds the fewest events.
 * Writers of one key walk the same slots in the same order, so they agree
 * on it; one that finds it busy waits and then finds its key there.
 */
static struct ms_row *ms_table_make_room(struct ms_table *t, u64 key, unsigned int start)
{
	unsigned int mask = t->size - 1, i;
	struct ms_row *row, *pick = NULL;
	u64 pick_key = 0, pick_held = 0, held;
	int n;

	for (n = 0, i = start; n < MS_TABLE_REACH; n++, i = (i + 1) & mask) {
		u64 k;

		row = &t->rows[i];
		k = ms_row_wait(row);
		if (k == key)
			return row;
		if (!k) {
			k = cmpxchg64(&row->key, 0, key);
			if (!k || k == key)
				return row;
			continue;
		}
		switch (ms_row_state(t, row, &held)) {
		case MS_ROW_GONE:
			if (ms_row_reuse(t, row, k, key, 0))
				return row;
			break;
		case MS_ROW_SEEN:
			if (!pick || held < pick_held) {
				pick = row;
				pick_key = k;
				pick_held = held;
			}
			break;
		case MS_ROW_LIVE:
			break;
		}
		if (ms_row_wait(row) == key)
			return row;	/* another writer reused it for us */
	}
	if (!pick)
		return NULL;
	/* Still finished with?  Its count may have moved since. */
	if (ms_row_state(t, pick, &held) != MS_ROW_LIVE &&
	    ms_row_reuse(t, pick, pick_key, key, held))
		return pick;
	return ms_row_wait(pick) == key ? pick : NULL;
}

struct ms_row *ms_table_get(struct ms_table *t, u64 key)
{
	unsigned int mask = t->size - 1, start = ms_hash_64(key, 32) & mask, i;
	struct ms_row *row;
	int n;

	if (unlikely(key == MS_KEY_BUSY))
		key ^= 2;	/* keep the reserved key reserved */

	/* Pass 1: the key, or a free slot for it. */
	for (n = 0, i = start; n < MS_TABLE_REACH; n++, i = (i + 1) & mask) {
		u64 k;

		row = &t->rows[i];
		k = READ_ONCE(row->key);
		if (k == key)
			return row;
		if (!k) {
			k = cmpxchg64(&row->key, 0, key);
			if (!k || k == key)
				return row;	/* claimed, or lost to the same key */
		}
	}
	row = ms_table_make_room(t, key, start);
	if (!row)
		ms_stat_inc(core, MS_dropped);
	return row;
}

/* The slow half of ms_table_get_task(): publish a new row's pid and name. */
void ms_row_publish_task(struct ms_row *row, pid_t tgid, u64 c0, u64 c1)
{
	row->pid = tgid;
	memcpy(row->name, &c0, sizeof(c0));
	memcpy(row->name + sizeof(c0), &c1, sizeof(c1));
	row->name[TASK_COMM_LEN - 1] = '\0';
	/* Readers test ready before name and pid. */
	smp_store_release(&row->ready, 1);
}

/* ... and of ms_table_get_cgroup(): publish a new row's cgroup id. */
void ms_row_publish_id(struct ms_row *row, u64 id)
{
	row->aux = id;
	smp_store_release(&row->ready, 1);
}

static size_t ms_table_cnt_bytes(const struct ms_table *t)
{
	return array_size(t->size, t->ncols * sizeof(local64_t));
}

static size_t ms_table_buckets_bytes(const struct ms_table *t)
{
	return array3_size(t->size, MS_ROW_BUCKETS, sizeof(atomic_t));
}

/* A stack table keeps each row's frames beside it: they live and die with the row. */
static size_t ms_table_frames_bytes(const struct ms_table *t)
{
	return array3_size(t->size, ms_ustack_depth, sizeof(unsigned long));
}

int ms_tables_init(void)
{
	struct ms_table *t;
	unsigned int i, j;
	int cpu;

	ms_for_each_table(t, i) {
		t->size = roundup_pow_of_two(ms_table_size);
		t->rows = vzalloc(array_size(t->size, sizeof(*t->rows)));
		t->cnt = kcalloc(nr_cpu_ids, sizeof(*t->cnt), GFP_KERNEL);
		if (!t->rows || !t->cnt)
			goto err;
		for (j = 0; j < t->size; j++)
			t->rows[j].base = j * t->ncols;
		if (t->kind == MS_TK_STACK) {
			t->frames = vzalloc(ms_table_frames_bytes(t));
			if (!t->frames)
				goto err;
		}
		if (t->row_hist) {
			t->buckets = vzalloc(ms_table_buckets_bytes(t));
			if (!t->buckets)
				goto err;
		}
		for_each_possible_cpu(cpu) {
			t->cnt[cpu] = vzalloc_node(ms_table_cnt_bytes(t), cpu_to_node(cpu));
			if (!t->cnt[cpu])
				goto err;
		}
	}
	return 0;
err:
	pr_err("memscope: no memory for %lu-row tables on %u CPUs (%zu bytes); load with a smaller table_size\n",
	       roundup_pow_of_two(ms_table_size), num_possible_cpus(), ms_tables_bytes());
	ms_tables_exit();
	return -ENOMEM;
}

void ms_tables_exit(void)
{
	struct ms_table *t;
	unsigned int i;
	int cpu;

	ms_for_each_table(t, i) {
		if (t->cnt)
			for_each_possible_cpu(cpu)
				vfree(t->cnt[cpu]);
		kfree(t->cnt);
		t->cnt = NULL;
		vfree(t->frames);
		t->frames = NULL;
		vfree(t->buckets);
		t->buckets = NULL;
		vfree(t->rows);
		t->rows = NULL;
	}
}

size_t ms_tables_bytes(void)
{
	size_t rows = roundup_pow_of_two(ms_table_size), bytes = 0;
	struct ms_table *t;
	unsigned int i;

	ms_for_each_table(t, i) {
		bytes += rows * sizeof(struct ms_row) + nr_cpu_ids * sizeof(local64_t *) +
			 num_possible_cpus() * rows * t->ncols * sizeof(local64_t);
		if (t->kind == MS_TK_STACK)
			bytes += rows * ms_ustack_depth * sizeof(unsigned long);
		if (t->row_hist)
			bytes += rows * MS_ROW_BUCKETS * sizeof(atomic_t);
	}
	return bytes;
}

/*
 * Each row is taken as MS_KEY_BUSY, as a reuse takes it, so a writer
 * reusing the same row at the same time cannot interleave with us.  A
 * writer that found a row just before and adds just after keeps one event
 * in a cleared row.
 */
void ms_tables_reset(void)
{
	struct ms_table *t;
	unsigned int i, j;

	ms_for_each_table(t, i) {
		for (j = 0; j < t->size; j++) {
			struct ms_row *row = &t->rows[j];
			unsigned long flags;
			u64 k;

			local_irq_save(flags);
			k = ms_row_wait(row);
			if (k && cmpxchg64(&row->key, k, MS_KEY_BUSY) == k) {
				ms_row_clear(t, row);
				smp_wmb();
				WRITE_ONCE(row->key, 0);
			}
			local_irq_restore(flags);
			cond_resched();
		}
		atomic64_set(&t->reused_rows, 0);
		atomic64_set(&t->reused_events, 0);
	}
}

/*
 * table_reuse: per table, the rows a reader had seen that were taken over
 * while their key could still count, and the events they held.  A tool
 * reporting counts since enable says these are missing from it.
 */
int ms_table_reuse_show(struct seq_file *m)
{
	struct ms_table *t;
	unsigned int i;

	seq_puts(m, "# table rows events\n");
	ms_for_each_table(t, i)
		seq_printf(m, "%s %lld %lld\n", t->file,
			   (long long)atomic64_read(&t->reused_rows),
			   (long long)atomic64_read(&t->reused_events));
	return 0;
}

/*
 * The median of a row's log2 histogram: the lower bound of the bucket that
 * holds it (bucket b holds [2^(b-1), 2^b), as in hist/), so the median is
 * in [median, 2 * median).  0 for no samples.
 */
static s64 ms_row_median(const atomic_t *b)
{
	unsigned int i;
	u64 n = 0, half;

	for (i = 0; i < MS_ROW_BUCKETS; i++)
		n += (u32)atomic_read(&b[i]);
	if (!n)
		return 0;
	half = (n + 1) / 2;
	for (i = 0, n = 0; i < MS_ROW_BUCKETS; i++) {
		n += (u32)atomic_read(&b[i]);
		if (n >= half)
			break;
	}
	return i ? 1LL << (i - 1) : 0;
}

static int ms_snap_cmp(const void *a, const void *b)
{
	const struct ms_snap *x = a, *y = b;

	if (x->v[0] != y->v[0])
		return x->v[0] < y->v[0] ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int ms_snap_name_cmp(const void *a, const void *b)
{
	const struct ms_snap *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* A row's name for readers; runs in process context, at open. */
static void ms_snap_name(struct ms_table *t, struct ms_snap *s)
{
	switch (t->kind) {
	case MS_TK_PTR:
		/*
		 * The writer resolved scan_objects while it was certainly
		 * loaded.  Never print the address: a function kallsyms cannot
		 * name gets a fixed name.
		 */
		if (!s->name[0] || !strncmp(s->name, "0x", 2))
			strscpy(s->name, "[unknown]", sizeof(s->name));
		break;
	case MS_TK_CGROUP:
	{
		int err = ms_cgroup_id_path(s->aux, s->name, sizeof(s->name));

		if (err)
			snprintf(s->name, sizeof(s->name),
				 err == -ENOENT ? "[deleted:%llu]" : "[id:%llu]",
				 s->aux & ~MS_CGROUP_V1);
		break;
	}
	default:
		break;
	}
}

/* Sorted by name: add each run of equal names into its first row. */
static unsigned int ms_snap_merge(struct ms_snap *snap, unsigned int n, unsigned int ncols)
{
	unsigned int i, out = 0, c;

	sort(snap, n, sizeof(*snap), ms_snap_name_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (out && !strcmp(snap[out - 1].name, snap[i].name)) {
			for (c = 0; c < ncols; c++)
				snap[out - 1].v[c] += snap[i].v[c];
			continue;
		}
		if (out != i)
			snap[out] = snap[i];
		out++;
	}
	return out;
}

/*
 * A table's rows as readers see them, sorted, largest first: for the
 * files and the netlink dump alike.  Process context.
 * noinline: 19-table-snapshot counts its calls with a kprobe event.
 */
noinline struct ms_table_iter *ms_table_snapshot(struct ms_table *t)
{
	struct ms_table_iter *it;
	unsigned int i, n = 0, c;
	int cpu;

	it = ms_self_alloc(kvmalloc(struct_size(it, snap, t->size), GFP_KERNEL));
	if (!it)
		return NULL;
	it->t = t;
	it->frames = NULL;
	if (t->frames) {
		it->frames = ms_self_alloc(kvmalloc(ms_table_frames_bytes(t), GFP_KERNEL));
		if (!it->frames) {
			kvfree(it);
			return NULL;
		}
	}
	for (i = 0; i < t->size; i++) {
		struct ms_row *row = &t->rows[i];
		struct ms_snap *s = &it->snap[n];
		u64 key = READ_ONCE(row->key);

		if (!key || key == MS_KEY_BUSY || !smp_load_acquire(&row->ready))
			continue;
		s->aux = row->aux;
		s->pid = row->pid;
		s->i = n;
		if (t->frames) {
			s->depth = min(READ_ONCE(row->depth), ms_ustack_depth);
			memcpy(&it->frames[n * ms_ustack_depth], &t->frames[i * ms_ustack_depth],
			       s->depth * sizeof(unsigned long));
		}
		memcpy(s->name, row->name, sizeof(s->name));
		s->name[MS_NAME_LEN - 1] = '\0';
		for (c = 0; c < MS_TABLE_COLS; c++) {
			s->v[c] = 0;
			if (c >= t->ncols)
				continue;
			for_each_possible_cpu(cpu)
				s->v[c] += local64_read(&t->cnt[cpu][i * t->ncols + c]);
		}
		if (t->buckets)
			s->v[t->ncols] = ms_row_median(&t->buckets[(size_t)i * MS_ROW_BUCKETS]);
		/* Reused while we copied: its name or frames may be torn.  Skip it. */
		smp_rmb();
		if (READ_ONCE(row->key) != key || !READ_ONCE(row->ready))
			continue;
		/* Seen: once this count stops moving, the row may be reused. */
		WRITE_ONCE(row->seen, (u64)s->v[0] + 1);
		if (s->v[0] > 0)
			n++;
	}
	for (i = 0; i < n; i++)
		ms_snap_name(t, &it->snap[i]);
	if (t->kind != MS_TK_TASK && t->kind != MS_TK_STACK)
		n = ms_snap_merge(it->snap, n, t->ncols);
	sort(it->snap, n, sizeof(*it->snap), ms_snap_cmp, NULL);
	it->n = n;
	return it;
}

static void *ms_table_start(struct seq_file *m, loff_t *pos)
{
	struct ms_table_iter *it = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	return *pos <= it->n ? &it->snap[*pos - 1] : NULL;
}

static void *ms_table_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return ms_table_start(m, pos);
}

static void ms_table_stop(struct seq_file *m, void *v)
{
}

/*
 * " DEPTH STACK": a user stack's frames, innermost first, each a file
 * frame "fSLOT+0xOFFSET" or a user address "0xADDR", or "-" for none.
 */
void ms_seq_frames(struct seq_file *m, const unsigned long *f, unsigned int depth)
{
	unsigned int c;

	seq_printf(m, " %u %s", depth, depth ? "" : "-");
	for (c = 0; c < depth; c++) {
		u64 v = f[c];

		if (v & MEMSCOPE_FRAME_FILE)
			seq_printf(m, "%sf%llu+0x%llx", c ? "," : "",
				   (v & ~MEMSCOPE_FRAME_FILE) >> MEMSCOPE_FRAME_SLOT_SHIFT,
				   v & MEMSCOPE_FRAME_OFF_MASK);
		else
			seq_printf(m, "%s0x%llx", c ? "," : "", v);
	}
}

static int ms_table_seq_show(struct seq_file *m, void *v)
{
	struct ms_table_iter *it = m->private;
	struct ms_table *t = it->t;
	struct ms_snap *s = v;
	unsigned int c;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, "%s\n", t->header);
		return 0;
	}
	if (ms_table_has_pid(t))
		seq_printf(m, "%u ", s->pid);
	ms_seq_escape(m, s->name);
	for (c = 0; c < ms_table_cols(t); c++)
		seq_printf(m, " %lld", s->v[c]);
	if (t->kind == MS_TK_STACK) {
		const unsigned long *f = ms_snap_frames(it, s);

		/* Innermost first, user addresses or file offsets: never a kernel address. */
		ms_seq_frames(m, f, s->depth);
	}
	seq_putc(m, '\n');
	return 0;
}

const struct seq_operations ms_table_seq_ops = {
	.start = ms_table_start,
	.next = ms_table_next,
	.stop = ms_table_stop,
	.show = ms_table_seq_show,
};

void ms_table_iter_free(struct ms_table_iter *it)
{
	if (it)
		kvfree(it->frames);
	kvfree(it);
}

int ms_table_open(struct file *file, struct ms_table *t)
{
	struct ms_table_iter *it = ms_table_snapshot(t);
	int err;

	if (!it)
		return -ENOMEM;
	err = seq_open(file, &ms_table_seq_ops);
	if (err) {
		ms_table_iter_free(it);
		return err;
	}
	((struct seq_file *)file->private_data)->private = it;
	return 0;
}

int ms_table_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	ms_table_iter_free(m->private);
	return seq_release(inode, file);
}
