// SPDX-License-Identifier: GPL-2.0
/*
 * Views: rows a family computes from its own data at each read, where a
 * table's rows are counted in place (memleak's, from its allocations);
 * and texts, a family's own lines (memscope.h).
 * Copyright (C) 2026 The memscope authors.
 *
 * The file and the netlink dump read a view as they read a table: one
 * snapshot per open (or dump), taken by the family, then a header line
 * and a row per entry: a name, then up to MS_VIEW_COLS numbers.
 */
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "memscope.h"

struct ms_view *ms_views[MS_MAX_VIEWS];
unsigned int ms_nr_views;

int ms_view_add(struct ms_view *v)
{
	return ms_register(ms_views, ms_nr_views, v, "view", v->file);
}

const struct ms_text *ms_texts[MS_MAX_TEXTS];
unsigned int ms_nr_texts;

int ms_text_add(const struct ms_text *t)
{
	return ms_register(ms_texts, ms_nr_texts, t, "text", t->file);
}

struct ms_view *ms_view_find(const char *file)
{
	unsigned int i;

	for (i = 0; i < ms_nr_views; i++)
		if (!strcmp(ms_views[i]->file, file))
			return ms_views[i];
	return NULL;
}

/* A reader's snapshot, and the view it came from. */
struct ms_view_iter {
	const struct ms_view *view;
	void *snap;
	unsigned int n;
};

/*
 * Position 0 is the header, SEQ_START_TOKEN; row i is at position i + 1,
 * and its cursor is i + 2, which is never SEQ_START_TOKEN's 1 nor NULL.
 */
#define MS_VIEW_CURSOR(i)	((void *)(uintptr_t)((i) + 2))
#define MS_VIEW_ROW(v)		((unsigned int)((uintptr_t)(v) - 2))

static void *ms_view_start(struct seq_file *m, loff_t *pos)
{
	struct ms_view_iter *it = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	return *pos <= it->n ? MS_VIEW_CURSOR(*pos - 1) : NULL;
}

static void *ms_view_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return ms_view_start(m, pos);
}

static void ms_view_stop(struct seq_file *m, void *v)
{
}

static int ms_view_show(struct seq_file *m, void *v)
{
	struct ms_view_iter *it = m->private;
	char name[KSYM_SYMBOL_LEN];
	u64 c[MS_VIEW_COLS];
	unsigned int n, j;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, "%s\n", it->view->header);
		return 0;
	}
	n = it->view->row(it->snap, MS_VIEW_ROW(v), name, sizeof(name), c);
	seq_puts(m, name);
	for (j = 0; j < n; j++)
		seq_printf(m, " %llu", c[j]);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations ms_view_seq_ops = {
	.start = ms_view_start,
	.next = ms_view_next,
	.stop = ms_view_stop,
	.show = ms_view_show,
};

int ms_view_open(struct file *file, const struct ms_view *v)
{
	struct ms_view_iter *it = ms_self_alloc(kmalloc(sizeof(*it), GFP_KERNEL));
	int err = -ENOMEM;

	if (!it)
		return err;
	it->view = v;
	it->snap = v->snapshot(v);
	if (!it->snap)
		goto err_it;
	it->n = v->rows(it->snap);
	err = seq_open(file, &ms_view_seq_ops);
	if (err)
		goto err_snap;
	((struct seq_file *)file->private_data)->private = it;
	return 0;

err_snap:
	v->free(it->snap);
err_it:
	kfree(it);
	return err;
}

int ms_view_release(struct inode *inode, struct file *file)
{
	struct ms_view_iter *it = ((struct seq_file *)file->private_data)->private;

	it->view->free(it->snap);
	kfree(it);
	return seq_release(inode, file);
}
