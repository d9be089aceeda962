// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded top-N tables.
 * Copyright (C) 2026 The memscope authors.
 *
 * Each table is one array allocated at load, never grown.  Probe context
 * finds its row by open addressing: a cmpxchg on the key claims a free slot,
 * counters are atomic64, and nothing ever blocks or allocates.  When a key
 * has no slot within MS_TABLE_PROBES steps the event is counted in
 * `dropped`, so a full table is visible instead of silent.
 *
 * Readers snapshot the rows at open (seq_file single_open), sort a copy and
 * print from that, so every read of a file sees one consistent table.
 */
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "memscope.h"

#define MS_TABLE_PROBES 32

struct ms_table ms_tables[MS_NR_TABLES] = {
	[MS_T_FAULTS_BY_PID] = {
		.file = "faults_by_pid", .header = "# pid comm faults major",
		.ncols = 2, .show_pid = true,
	},
	[MS_T_FAULTS_BY_FILE] = {
		.file = "faults_by_file", .header = "# file faults major",
		.ncols = 2,
	},
	[MS_T_SWAPINS_BY_PID] = {
		.file = "swapins_by_pid", .header = "# pid comm swapins",
		.ncols = 1, .show_pid = true,
	},
	[MS_T_HUGETLB_BY_PID] = {
		.file = "hugetlb_by_pid", .header = "# pid comm faults",
		.ncols = 1, .show_pid = true,
	},
	[MS_T_SHRINKERS] = {
		.file = "shrinkers", .header = "# shrinker count ns freed",
		.ncols = 3, .show_ptr = true,
	},
};

struct ms_row *ms_table_get(struct ms_table *t, u64 key)
{
	unsigned int mask = t->size - 1;
	unsigned int i = hash_64(key, 32) & mask;
	int n;

	for (n = 0; n < MS_TABLE_PROBES; n++, i = (i + 1) & mask) {
		struct ms_row *row = &t->rows[i];
		u64 k = READ_ONCE(row->key);

		if (k == key)
			return row;
		if (!k && !cmpxchg64(&row->key, 0, key))
			return row;	/* claimed; caller fills and publishes */
		if (READ_ONCE(row->key) == key)
			return row;	/* lost the race to the same key */
	}
	ms_stat_inc(MS_dropped);
	return NULL;
}

/*
 * Rows keyed by (pid, comm), as bpftrace's @[pid, comm]: a process that
 * execs gets a new row under its new name instead of being shown as the
 * shell that forked it.
 */
struct ms_row *ms_table_get_task(struct ms_table *t, struct task_struct *tsk)
{
	u64 c[2], key;
	struct ms_row *row;

	BUILD_BUG_ON(TASK_COMM_LEN != sizeof(c));
	memcpy(c, tsk->comm, sizeof(c));
	key = ((u64)tsk->pid << 32 | 1) ^ (c[0] * 0x9e3779b97f4a7c15ULL) ^
	      (c[1] * 0xc2b2ae3d27d4eb4fULL);
	key |= 1;	/* never 0, the free marker */
	row = ms_table_get(t, key);
	if (row && !READ_ONCE(row->ready)) {
		row->pid = tsk->pid;
		memcpy(row->name, c, sizeof(c));
		row->name[TASK_COMM_LEN - 1] = '\0';
		/* Readers test ready before name and pid. */
		smp_store_release(&row->ready, 1);
	}
	return row;
}

int ms_tables_init(void)
{
	int i;

	for (i = 0; i < MS_NR_TABLES; i++) {
		struct ms_table *t = &ms_tables[i];

		t->size = roundup_pow_of_two(ms_table_size);
		t->rows = vzalloc(array_size(t->size, sizeof(*t->rows)));
		if (!t->rows) {
			ms_tables_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void ms_tables_exit(void)
{
	int i;

	for (i = 0; i < MS_NR_TABLES; i++) {
		vfree(ms_tables[i].rows);
		ms_tables[i].rows = NULL;
	}
}

size_t ms_tables_bytes(void)
{
	return MS_NR_TABLES * roundup_pow_of_two(ms_table_size) * sizeof(struct ms_row);
}

/*
 * Concurrent updates may land in a row while it is cleared; that loses or
 * keeps one increment, never memory safety.  Rows are cleared before the key
 * is, so a claimed row never shows stale counts.
 */
void ms_tables_reset(void)
{
	int i;
	unsigned int j;

	for (i = 0; i < MS_NR_TABLES; i++) {
		struct ms_table *t = &ms_tables[i];

		for (j = 0; j < t->size; j++) {
			struct ms_row *row = &t->rows[j];
			int c;

			if (!READ_ONCE(row->key))
				continue;
			WRITE_ONCE(row->ready, 0);
			for (c = 0; c < MS_TABLE_COLS; c++)
				atomic64_set(&row->v[c], 0);
			smp_wmb();
			WRITE_ONCE(row->key, 0);
		}
	}
}

struct ms_snap {
	unsigned long ptr;
	u32 pid;
	char name[MS_NAME_LEN];
	s64 v[MS_TABLE_COLS];
};

static int ms_snap_cmp(const void *a, const void *b)
{
	const struct ms_snap *x = a, *y = b;

	if (x->v[0] != y->v[0])
		return x->v[0] < y->v[0] ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int ms_table_show(struct seq_file *m, struct ms_table *t)
{
	struct ms_snap *snap;
	unsigned int i, n = 0;
	int c;

	snap = kvmalloc_array(t->size, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	for (i = 0; i < t->size; i++) {
		struct ms_row *row = &t->rows[i];
		struct ms_snap *s = &snap[n];

		if (!READ_ONCE(row->key) || !smp_load_acquire(&row->ready))
			continue;
		s->ptr = row->ptr;
		s->pid = row->pid;
		memcpy(s->name, row->name, sizeof(s->name));
		s->name[MS_NAME_LEN - 1] = '\0';
		for (c = 0; c < t->ncols; c++)
			s->v[c] = atomic64_read(&row->v[c]);
		if (s->v[0] > 0)
			n++;
	}
	sort(snap, n, sizeof(*snap), ms_snap_cmp, NULL);

	seq_printf(m, "%s\n", t->header);
	for (i = 0; i < n; i++) {
		struct ms_snap *s = &snap[i];

		if (t->show_pid)
			seq_printf(m, "%u ", s->pid);
		if (t->show_ptr && !s->name[0]) {
			/*
			 * A row whose creator did not resolve the name.  %ps of a
			 * module function reads "sym [mod]": escape it.
			 */
			char sym[KSYM_SYMBOL_LEN];

			snprintf(sym, sizeof(sym), "%ps", (void *)s->ptr);
			ms_seq_escape(m, sym);
		} else {
			ms_seq_escape(m, s->name);
		}
		for (c = 0; c < t->ncols; c++)
			seq_printf(m, " %lld", s->v[c]);
		seq_putc(m, '\n');
	}
	kvfree(snap);
	return 0;
}
