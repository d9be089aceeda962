// SPDX-License-Identifier: GPL-2.0
/*
 * The file front end: /sys/kernel/debug/memscope/, or /proc/memscope/ too
 * when loaded with procfs=1 (debugfs not mounted, or a kernel in lockdown
 * confidentiality mode).
 * Copyright (C) 2026 The memscope authors.
 *
 * debugfs files hold a module reference while open (.owner), so rmmod
 * fails with EBUSY rather than pull code from under a reader.  procfs has
 * no owner: remove_proc_entry() waits for readers inside our code and
 * releases the rest itself, so unload proceeds while a file is open and
 * later reads get EIO.
 */
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "memscope.h"

static bool procfs;
module_param(procfs, bool, 0400);
MODULE_PARM_DESC(procfs, "Also show the files read-only under /proc/memscope (for lockdown or no debugfs)");

enum ms_file_kind {
	MS_F_VERSION,
	MS_F_PROBES,
	MS_F_STATS,
	MS_F_TABLE,
	MS_F_VIEW,
	MS_F_RING,
	MS_F_HIST,
	MS_F_HIST_RAW,
	MS_F_EVENTS_FORMAT,
	MS_F_TABLE_REUSE,
	MS_F_STATS_FORMAT,
	MS_F_TEXT,
};

struct ms_file {
	const char *name;
	enum ms_file_kind kind;
	int arg;
	struct ms_table *table;		/* MS_F_TABLE's */
	const struct ms_view *view;	/* MS_F_VIEW's */
	struct ms_hist *hist;		/* MS_F_HIST's and MS_F_HIST_RAW's */
	const struct ms_event_type *type;	/* MS_F_RING's */
	const struct ms_text *text;	/* MS_F_TEXT's */
};

static int ms_show(struct seq_file *m, void *unused)
{
	const struct ms_file *f = m->private;
	struct ms_stats_snap *stats;
	struct ms_table *t;
	unsigned int j;

	switch (f->kind) {
	case MS_F_VERSION:
		seq_printf(m, "memscope %s %s\n", MEMSCOPE_VERSION, init_utsname()->release);
		seq_printf(m, "memory_bytes %zu cpus %u table_size %lu ring_size %u\n",
			   ms_footprint(), num_possible_cpus(),
			   roundup_pow_of_two(ms_table_size), ms_ring_size);
		seq_printf(m, "format %d\n", MEMSCOPE_FORMAT);
		ms_families_version(m);
		seq_printf(m, "oom_ring_size %u\n", ms_oom_ring_size);
		seq_puts(m, "tables");
		ms_for_each_table(t, j)
			seq_printf(m, " %s", t->file);
		seq_putc(m, '\n');
		/* A kretprobe instance's own size, a term of memory_bytes. */
		seq_printf(m, "kretprobe_instance_bytes %zu\n", sizeof(struct kretprobe_instance));
		return 0;
	case MS_F_PROBES:
		ms_probes_show(m);
		return 0;
	case MS_F_STATS:
		stats = ms_stats_snapshot();
		if (!stats)
			return -ENOMEM;
		for (j = 0; j < stats->n; j++)
			seq_printf(m, "%s %llu\n", stats->e[j].name, stats->e[j].v);
		kfree(stats);
		return 0;
	case MS_F_TABLE:	/* ms_table_open()'s own seq_file */
	case MS_F_VIEW:		/* ms_view_open()'s */
		break;
	case MS_F_RING:
		return ms_ring_show(m, f->type);
	case MS_F_EVENTS_FORMAT:
		return ms_events_format_show(m);
	case MS_F_STATS_FORMAT:
		ms_stats_format_show(m);
		return 0;
	case MS_F_TABLE_REUSE:
		return ms_table_reuse_show(m);
	case MS_F_TEXT:
		return f->text->show(m);
	case MS_F_HIST:
	case MS_F_HIST_RAW:
		ms_hist_show(m, f->hist, f->kind == MS_F_HIST_RAW);
		return 0;
	}
	return -EINVAL;
}

static int ms_open(struct inode *inode, struct file *file)
{
	const struct ms_file *f = inode->i_private;

	if (f->kind == MS_F_TABLE)
		return ms_table_open(file, f->table);
	if (f->kind == MS_F_VIEW)
		return ms_view_open(file, f->view);
	return single_open(file, ms_show, inode->i_private);
}

static int ms_release(struct inode *inode, struct file *file)
{
	const struct ms_file *f = inode->i_private;

	if (f->kind == MS_F_TABLE)
		return ms_table_release(inode, file);
	if (f->kind == MS_F_VIEW)
		return ms_view_release(inode, file);
	return single_release(inode, file);
}

/* A text's own poll, where it has one; else what the VFS says without one. */
static __poll_t ms_file_poll(const struct ms_file *f, struct file *file, poll_table *wait)
{
	if (f->kind != MS_F_TEXT || !f->text->poll)
		return DEFAULT_POLLMASK;
	return f->text->poll(file->private_data, file, wait);
}

static __poll_t ms_poll(struct file *file, poll_table *wait)
{
	return ms_file_poll(file_inode(file)->i_private, file, wait);
}

static const struct file_operations ms_fops = {
	.owner = THIS_MODULE,
	.open = ms_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.poll = ms_poll,
	.release = ms_release,
};

#define MS_CONTROL_MAX 64

/*
 * One command written to a command file (control, uleak): @count bytes
 * into @buf of @size, NUL-terminated.  0, -EINVAL for an empty or too long
 * one or one with a NUL ("reset\0junk" is not "reset": a NUL would hide
 * the rest), or -EFAULT.
 */
int ms_user_line(char *buf, size_t size, const char __user *ubuf, size_t count)
{
	if (count == 0 || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return strlen(buf) == count ? 0 : -EINVAL;
}

static ssize_t ms_control_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[MS_CONTROL_MAX];
	int err = ms_user_line(buf, sizeof(buf), ubuf, count);

	if (err)
		return err;
	err = ms_control(buf, file);
	return err ?: count;
}

/* Each open control file starts with no lease; closing it ends its own. */
static int ms_control_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return nonseekable_open(inode, file);
}

static int ms_control_close(struct inode *inode, struct file *file)
{
	ms_control_release(file);
	return 0;
}

static const struct file_operations ms_control_fops = {
	.owner = THIS_MODULE,
	.open = ms_control_open,
	.release = ms_control_close,
	.write = ms_control_write,
	.llseek = noop_llseek,
};

static int ms_proc_open(struct inode *inode, struct file *file)
{
	const struct ms_file *f = pde_data(inode);

	if (f->kind == MS_F_TABLE)
		return ms_table_open(file, f->table);
	if (f->kind == MS_F_VIEW)
		return ms_view_open(file, f->view);
	return single_open(file, ms_show, pde_data(inode));
}

static int ms_proc_release(struct inode *inode, struct file *file)
{
	const struct ms_file *f = pde_data(inode);

	if (f->kind == MS_F_TABLE)
		return ms_table_release(inode, file);
	if (f->kind == MS_F_VIEW)
		return ms_view_release(inode, file);
	return single_release(inode, file);
}

static __poll_t ms_proc_poll(struct file *file, poll_table *wait)
{
	return ms_file_poll(pde_data(file_inode(file)), file, wait);
}

static const struct ms_proc_ops ms_file_proc_ops = {
	.MS_PROC(open) = ms_proc_open,
	.MS_PROC(read) = seq_read,
	.MS_PROC_LSEEK = seq_lseek,
	.MS_PROC(poll) = ms_proc_poll,
	.MS_PROC(release) = ms_proc_release,
};

static const struct ms_proc_ops ms_control_proc_ops = {
	.MS_PROC(open) = ms_control_open,
	.MS_PROC(release) = ms_control_close,
	.MS_PROC(write) = ms_control_write,
	.MS_PROC_LSEEK = noop_llseek,
};

#define MS_F(n, k, a) { .name = n, .kind = k, .arg = a }

/*
 * version, probes, stats, events_format, table_reuse and stats_format;
 * then every table, view, event type and text the families registered.
 */
#define MS_NR_CORE_FILES 6
#define MS_NR_FILES (MS_NR_CORE_FILES + MS_MAX_TABLES + MS_MAX_VIEWS + MS_MAX_EVENT_TYPES + \
		     MS_MAX_TEXTS)
static unsigned int ms_nr_files;
static struct ms_file ms_files[MS_NR_FILES] = {
	MS_F("version", MS_F_VERSION, 0),
	MS_F("probes", MS_F_PROBES, 0),
	MS_F("stats", MS_F_STATS, 0),
	MS_F("events_format", MS_F_EVENTS_FORMAT, 0),
	MS_F("table_reuse", MS_F_TABLE_REUSE, 0),
	MS_F("stats_format", MS_F_STATS_FORMAT, 0),
};

static void ms_files_init(void)
{
	struct ms_file *f = &ms_files[MS_NR_CORE_FILES];
	struct ms_table *t;
	unsigned int j;

	ms_for_each_table(t, j) {
		*f = (struct ms_file)MS_F(t->file, MS_F_TABLE, j);
		f++->table = t;
	}
	for (j = 0; j < ms_nr_views; j++) {
		*f = (struct ms_file)MS_F(ms_views[j]->file, MS_F_VIEW, j);
		f++->view = ms_views[j];
	}
	for (j = 0; j < ms_nr_event_types; j++) {
		*f = (struct ms_file)MS_F(ms_event_types[j]->desc.name, MS_F_RING, j);
		f++->type = ms_event_types[j];
	}
	for (j = 0; j < ms_nr_texts; j++) {
		*f = (struct ms_file)MS_F(ms_texts[j]->file, MS_F_TEXT, j);
		f++->text = ms_texts[j];
	}
	ms_nr_files = f - ms_files;
}

/* hist/ in bpftrace's layout for people, hist_raw/ for programs. */
static const struct {
	const char *dir;
	enum ms_file_kind kind;
} ms_hist_dirs[] = {
	{ "hist", MS_F_HIST },
	{ "hist_raw", MS_F_HIST_RAW },
};
static struct ms_file ms_hist_files[ARRAY_SIZE(ms_hist_dirs)][MS_MAX_HISTS];

static void ms_hist_files_init(void)
{
	unsigned int d, i;

	for (d = 0; d < ARRAY_SIZE(ms_hist_dirs); d++) {
		for (i = 0; i < ms_nr_hists; i++) {
			struct ms_file *f = &ms_hist_files[d][i];

			*f = (struct ms_file)MS_F(ms_hists[i]->name, ms_hist_dirs[d].kind, 0);
			f->hist = ms_hists[i];
		}
	}
}

/*
 * The text of file @name, for the netlink family's GET_TEXT: only the
 * files it has no typed command for: version, the event rings, whose
 * lines hold names only the kernel can give (gfp_flags, as its OOM report),
 * events_format, which types those lines and the events' attributes,
 * table_reuse, a few numbers per table, stats_format, which types
 * and explains the stats, and the families' texts.
 */
int ms_file_show(struct seq_file *m, const char *name)
{
	int i;

	for (i = 0; i < ms_nr_files; i++) {
		const struct ms_file *f = &ms_files[i];

		if (strcmp(f->name, name) ||
		    (f->kind != MS_F_VERSION && f->kind != MS_F_RING &&
		     f->kind != MS_F_EVENTS_FORMAT && f->kind != MS_F_TABLE_REUSE &&
		     f->kind != MS_F_STATS_FORMAT && f->kind != MS_F_TEXT))
			continue;
		m->private = (void *)f;
		return ms_show(m, NULL);
	}
	return -ENOENT;
}

static struct dentry *ms_debugfs;
static struct proc_dir_entry *ms_procdir;

static int ms_debugfs_init(void)
{
	struct dentry *hist;
	int i, d;

	ms_debugfs = debugfs_create_dir("memscope", NULL);
	if (IS_ERR_OR_NULL(ms_debugfs)) {
		ms_debugfs = NULL;
		return -ENODEV;
	}
	for (i = 0; i < ms_nr_files; i++)
		debugfs_create_file(ms_files[i].name, 0400, ms_debugfs,
				    (void *)&ms_files[i], &ms_fops);
	debugfs_create_file("events", 0400, ms_debugfs, NULL, &ms_events_fops);
	debugfs_create_file("control", 0200, ms_debugfs, NULL, &ms_control_fops);
	debugfs_create_file("unwind", 0200, ms_debugfs, NULL, &ms_unwind_fops);
	debugfs_create_file("uleak", 0200, ms_debugfs, NULL, &ms_uleak_fops);
	for (d = 0; d < ARRAY_SIZE(ms_hist_dirs); d++) {
		hist = debugfs_create_dir(ms_hist_dirs[d].dir, ms_debugfs);
		for (i = 0; i < ms_nr_hists; i++)
			debugfs_create_file(ms_hist_files[d][i].name, 0400, hist,
					    &ms_hist_files[d][i], &ms_fops);
	}
	return 0;
}

static int ms_procfs_init(void)
{
	struct proc_dir_entry *hist;
	int i, d;

	ms_procdir = proc_mkdir_mode("memscope", 0500, NULL);
	if (!ms_procdir)
		return -ENOMEM;
	for (i = 0; i < ms_nr_files; i++)
		if (!proc_create_data(ms_files[i].name, 0400, ms_procdir, &ms_file_proc_ops,
				      (void *)&ms_files[i]))
			goto err;
	if (!proc_create("events", 0400, ms_procdir, &ms_events_proc_ops) ||
	    !proc_create("control", 0200, ms_procdir, &ms_control_proc_ops) ||
	    !proc_create("unwind", 0200, ms_procdir, &ms_unwind_proc_ops) ||
	    !proc_create("uleak", 0200, ms_procdir, &ms_uleak_proc_ops))
		goto err;
	for (d = 0; d < ARRAY_SIZE(ms_hist_dirs); d++) {
		hist = proc_mkdir_mode(ms_hist_dirs[d].dir, 0500, ms_procdir);
		if (!hist)
			goto err;
		for (i = 0; i < ms_nr_hists; i++)
			if (!proc_create_data(ms_hist_files[d][i].name, 0400, hist,
					      &ms_file_proc_ops, &ms_hist_files[d][i]))
				goto err;
	}
	return 0;
err:
	proc_remove(ms_procdir);
	ms_procdir = NULL;
	return -ENOMEM;
}

int ms_fs_init(void)
{
	int err;

	ms_files_init();
	ms_hist_files_init();
	err = ms_debugfs_init();

	if (err)
		pr_warn("memscope: debugfs unavailable (%d)%s\n", err,
			procfs ? "" : "; load with procfs=1 to use /proc/memscope");
	if (procfs) {
		int perr = ms_procfs_init();

		if (perr) {
			pr_err("memscope: cannot create /proc/memscope (%d)\n", perr);
			if (err)
				return perr;
		} else {
			err = 0;
		}
	}
	return err;
}

void ms_fs_exit(void)
{
	/* Wake blocked `events` readers first: removal waits for them. */
	ms_events_shutdown();
	proc_remove(ms_procdir);
	ms_procdir = NULL;
	debugfs_remove_recursive(ms_debugfs);
	ms_debugfs = NULL;
}
