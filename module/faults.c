// SPDX-License-Identifier: GPL-2.0
/*
 * faults and ffaults: handle_mm_fault, classified on entry, timed and
 * resolved (major, retry, error) on return.
 * Copyright (C) 2026 The memscope authors.
 *
 * One probe does both: its entry handler sees the arguments, its return
 * handler the vm_fault_t, and the per-call data carries the start time and
 * the table rows across a fault that may sleep.  The vma must not be touched
 * on return (it may be gone), hence the rows are found on entry.  A fault
 * that finds no free instance runs no handler: the stats add the probe's
 * misses to `faults` and show them as `faults_unclassified`.
 *
 * The probe is an fprobe where the kernel has one memscope can use (6.5 to
 * 6.13 built with CONFIG_FPROBE, Debian's 6.12 among them), a kretprobe
 * elsewhere or with fault_hook=kretprobe.  Both return through the same
 * rethook on those kernels; fprobe skips the kprobe layer on entry, 5 to 7
 * guest instructions per fault on 6.12 (docs/performance.md).  `version`
 * says which one runs.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hugetlb_inline.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "memscope.h"

static struct ms_table ms_table_faults_by_pid = {
	.file = "faults_by_pid", .header = "# pid comm faults major",
	.kind = MS_TK_TASK, .ncols = 2,
};

static struct ms_table ms_table_faults_by_file = {
	.file = "faults_by_file", .header = "# file faults major",
	.kind = MS_TK_NAME, .ncols = 2,
};

static struct ms_table ms_table_faults_by_cgroup = {
	.file = "faults_by_cgroup", .header = "# cgroup faults major",
	.kind = MS_TK_CGROUP, .ncols = 2,
};

#define MS_FAULT_STATS(X)						\
	X(faults, "Page faults (handle_mm_fault calls, as /proc/vmstat pgfault).") \
	X(faults_major, "Major page faults (VM_FAULT_MAJOR).")		\
	X(faults_retry, "Page faults that returned VM_FAULT_RETRY, but for faults_vma_lock_retry's.") \
	X(faults_vma_lock_retry, "Attempts under the VMA lock alone that gave way to the mmap lock: not faults (the retry is one).") \
	X(faults_error, "Page faults that returned VM_FAULT_ERROR.")	\
	X(faults_user, "Page faults from user mode.")			\
	X(faults_kernel, "Page faults from kernel mode.")		\
	X(faults_anon, "Page faults on anonymous memory.")		\
	X(faults_file, "Page faults on file-backed memory.")		\
	X(faults_shmem, "Page faults on shmem/tmpfs memory.")		\
	X(faults_hugetlb, "Page faults on hugetlb memory.")		\
	X(faults_write, "Write page faults.")				\
	X(faults_unclassified, "Page faults counted by the probe's misses, not classified.")
static void ms_faults_stats_raw(u64 *v);
MS_STAT_SET(faults, MS_FAULT_STATS, .raw = ms_faults_stats_raw);
MS_HIST(fault_latency_ns);

/* A row found on entry, and its key then: a row can be reused meanwhile. */
struct ms_fault_row {
	struct ms_row *row;
	u64 key;
};

enum { MS_FR_PID, MS_FR_FILE, MS_FR_CGROUP, MS_NR_FR };

struct ms_fault_data {
	u64 start;
	unsigned int flags;	/* handle_mm_fault()'s */
	unsigned int class;	/* MS_faults_anon and the like */
	struct ms_fault_row r[MS_NR_FR];
};

static struct ms_table *const ms_fault_tables[MS_NR_FR] = {
	[MS_FR_PID] = &ms_table_faults_by_pid,
	[MS_FR_FILE] = &ms_table_faults_by_file,
	[MS_FR_CGROUP] = &ms_table_faults_by_cgroup,
};

static struct ms_probe ms_fault_probe;

#define MS_ANON_KEY 1ULL	/* file keys are even */

/*
 * By file name, as ffaults.bt: one row per name, wherever the file is.
 * The dcache's own hash is salted by the parent directory, so the key is a
 * hash of the name itself.  The vma pins the file and so the dentry; a
 * rename may change d_name under us, and frees an old external name only
 * after a grace period.  As prepend_name() does, read the pointer, then at
 * most the length, stopping at a NUL: the copy never runs past either
 * name, and at worst mixes the two.  The key is computed from the bytes
 * copied, so it always matches the name shown.
 */
static noinline struct ms_row *ms_file_name_row(struct ms_table *t, struct file *file)
{
	char name[MS_NAME_LEN];
	const unsigned char *s;
	struct ms_row *row;
	unsigned int len, n;
	u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	rcu_read_lock();
	s = smp_load_acquire(&file->f_path.dentry->d_name.name);
	len = min_t(unsigned int, READ_ONCE(file->f_path.dentry->d_name.len),
		    sizeof(name) - 1);
	for (n = 0; n < len; n++) {
		unsigned char c = READ_ONCE(s[n]);

		if (!c)
			break;
		name[n] = c;
		h = (h ^ c) * 0x100000001b3ULL;
	}
	rcu_read_unlock();
	name[n] = '\0';
	row = ms_table_hit(t, (h << 1) | 2) ?: ms_table_get(t, (h << 1) | 2);
	if (row && !READ_ONCE(row->ready)) {
		memcpy(row->name, name, n + 1);
		smp_store_release(&row->ready, 1);
	}
	return row;
}

static __always_inline struct ms_row *ms_file_row(struct vm_area_struct *vma)
{
	struct ms_table *t = &ms_table_faults_by_file;
	struct ms_row *row;

	if (vma->vm_file)
		return ms_file_name_row(t, vma->vm_file);
	row = ms_table_hit(t, MS_ANON_KEY);
	if (likely(row))
		return row;
	row = ms_table_get(t, MS_ANON_KEY);
	if (row && !READ_ONCE(row->ready)) {
		strscpy(row->name, "[anon]", sizeof(row->name));
		smp_store_release(&row->ready, 1);
	}
	return row;
}

static unsigned int ms_fault_class(struct vm_area_struct *vma)
{
	if (is_vm_hugetlb_page(vma))
		return MS_faults_hugetlb;
	if (vma_is_anonymous(vma) || !vma->vm_file)
		return MS_faults_anon;
	if (file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC)
		return MS_faults_shmem;
	return MS_faults_file;
}

static __always_inline void ms_fault_count(struct ms_fault_data *d, int cpu, int i,
					   struct ms_row *row)
{
	struct ms_table *t = ms_fault_tables[i];

	d->r[i].row = row;
	if (!row)
		return;
	d->r[i].key = READ_ONCE(row->key);
	ms_row_add_cpu(t, cpu, row, 0, 1);
}

static __always_inline void ms_fault_enter(struct ms_fault_data *d, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)ms_arg(regs, MS_FAULT_ARG_VMA);
	unsigned int flags = ms_arg(regs, MS_FAULT_ARG_FLAGS);
	int cpu;

	ms_hit(&ms_fault_probe);	/* also `faults` in stats */
	ms_stat_inc(faults, flags & FAULT_FLAG_USER ? MS_faults_user : MS_faults_kernel);
	if (flags & FAULT_FLAG_WRITE)
		ms_stat_inc(faults, MS_faults_write);
	d->flags = flags;
	d->class = ms_fault_class(vma);
	ms_stat_inc(faults, d->class);

	/* A kretprobe entry handler runs with preemption disabled. */
	cpu = smp_processor_id();
	ms_fault_count(d, cpu, MS_FR_PID, ms_table_get_task(&ms_table_faults_by_pid));
	ms_fault_count(d, cpu, MS_FR_FILE, ms_file_row(vma));
	ms_fault_count(d, cpu, MS_FR_CGROUP,
		       ms_table_get_cgroup(&ms_table_faults_by_cgroup));
	/*
	 * The fault may sleep and return on another CPU: CLOCK_MONOTONIC, as
	 * ms_pair_now(), called directly on this hot path.
	 */
	d->start = ktime_get_mono_fast_ns();
}

static __always_inline void ms_fault_exit(struct ms_fault_data *d, struct pt_regs *regs)
{
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);
	s64 lat = ktime_get_mono_fast_ns() - d->start;
	bool gave_way = (ret & VM_FAULT_RETRY) && (d->flags & MS_FAULT_FLAG_VMA_LOCK);
	int i;

	if (!gave_way)
		ms_hist_add(fault_latency_ns, max_t(s64, lat, 0));
	if (ret & VM_FAULT_MAJOR) {
		ms_stat_inc(faults, MS_faults_major);
		for (i = 0; i < MS_NR_FR; i++) {
			struct ms_row *row = d->r[i].row;

			/* Not if the row was reused for another key meanwhile. */
			if (row && READ_ONCE(row->key) == d->r[i].key)
				__ms_row_add(ms_fault_tables[i], row, 1, 1);
		}
	}
	if (gave_way) {
		/*
		 * An attempt under the VMA lock alone that gave up (6.4 on;
		 * RHEL 9.6 gives up every read fault that fault-around did not
		 * map): the arch code takes the mmap lock and calls again, and
		 * that call is the fault, for pgfault (6.4 on), the task's
		 * min_flt and perf alike.  Uncount this one; its major stays,
		 * as pgmajfault counts the read where it starts.
		 */
		ms_stat_inc(faults, MS_faults_vma_lock_retry);
		ms_stat_add(faults, d->flags & FAULT_FLAG_USER ? MS_faults_user : MS_faults_kernel, -1);
		if (d->flags & FAULT_FLAG_WRITE)
			ms_stat_add(faults, MS_faults_write, -1);
		ms_stat_add(faults, d->class, -1);
		for (i = 0; i < MS_NR_FR; i++) {
			struct ms_row *row = d->r[i].row;

			if (row && READ_ONCE(row->key) == d->r[i].key)
				__ms_row_add(ms_fault_tables[i], row, 0, -1);
		}
	} else if (ret & VM_FAULT_RETRY) {
		ms_stat_inc(faults, MS_faults_retry);
	}
	if (ret & VM_FAULT_ERROR)
		ms_stat_inc(faults, MS_faults_error);
}

static int ms_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ms_fault_enter((struct ms_fault_data *)ri->data, regs);
	return 0;
}

static int ms_fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ms_fault_exit((struct ms_fault_data *)ri->data, regs);
	return 0;
}

/* fprobe runs its handlers with preemption disabled, as kretprobes do. */
static int ms_fault_fentry(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   struct pt_regs *regs, void *data)
{
	ms_fault_enter(data, regs);
	return 0;
}

static void ms_fault_fexit(struct fprobe *fp, unsigned long ip, unsigned long ret_ip,
			   struct pt_regs *regs, void *data)
{
	ms_fault_exit(data, regs);
}

static int fault_maxactive;
module_param(fault_maxactive, int, 0400);
MODULE_PARM_DESC(fault_maxactive, "kretprobe instances for faults (default: max(512, 16 * CPUs)); faults that find none are counted as faults_unclassified");

static char *fault_hook;
module_param(fault_hook, charp, 0400);
MODULE_PARM_DESC(fault_hook, "fprobe (the default where the build has it) or kretprobe: how handle_mm_fault is hooked");

static const char *const ms_fault_targets[] = { "handle_mm_fault", NULL };

static struct ms_probe ms_fault_probe = {
	.name = "faults",
	.targets = ms_fault_targets,
	.kind = MS_KRETPROBE,
	.entry_handler = ms_fault_entry,
	.ret_handler = ms_fault_return,
	.fentry = ms_fault_fentry,
	.fexit = ms_fault_fexit,
	.data_size = sizeof(struct ms_fault_data),
};

/* How handle_mm_fault is hooked: "fprobe" or "kretprobe". */
static void ms_faults_version(struct seq_file *m)
{
	seq_printf(m, "fault_hook %s\n",
		   READ_ONCE(ms_fault_probe.kind) == MS_FPROBE ? "fprobe" : "kretprobe");
}

static int ms_faults_init(void)
{
	/*
	 * handle_mm_fault() sleeps on I/O and locks: size the instance pool
	 * for many sleepers per CPU.  Faults that find it empty show as
	 * `missed` in the probes file.
	 */
	ms_fault_probe.maxactive = fault_maxactive > 0 ? fault_maxactive :
				   max_t(int, 512, 16 * num_possible_cpus());
	if (fault_hook && strcmp(fault_hook, "kretprobe") && strcmp(fault_hook, "fprobe")) {
		pr_err("memscope: fault_hook=%s: use fault_hook=fprobe or fault_hook=kretprobe\n",
		       fault_hook);
		return -EINVAL;
	}
	if (MS_HAVE_FPROBE_HOOK && (!fault_hook || !strcmp(fault_hook, "fprobe"))) {
		ms_fault_probe.kind = MS_FPROBE;
	} else if (fault_hook && !strcmp(fault_hook, "fprobe")) {
		pr_err("memscope: fault_hook=fprobe: this build has no fprobe (it needs a 6.5 to 6.13 kernel with CONFIG_FPROBE); load without fault_hook to use a kretprobe\n");
		return -EINVAL;
	}
	return ms_probe_add(&ms_fault_probe) ?: ms_table_add(&ms_table_faults_by_pid) ?:
	       ms_table_add(&ms_table_faults_by_file) ?: ms_stat_set_add(&ms_faults_stats) ?:
	       ms_hist_register(&ms_hist_fault_latency_ns);
}

const struct ms_family ms_faults_family = {
	.init = ms_faults_init,
	.version = ms_faults_version,
};

/* The per-cgroup table came after the other tools' tables: main.c lists it later. */
static int ms_faults_cgroup_init(void)
{
	return ms_table_add(&ms_table_faults_by_cgroup);
}

const struct ms_family ms_faults_cgroup_family = {
	.init = ms_faults_cgroup_init,
};

/*
 * stats' `faults` is the probe's hits (the fault path counts once, not
 * twice), plus the faults the kretprobe had no instance for (or hit
 * recursively), `faults_unclassified`: those ran no handler; less the
 * attempts under the VMA lock that gave way to the mmap lock.
 */
static void ms_faults_stats_raw(u64 *v)
{
	v[MS_faults_unclassified] += ms_probe_missed_now(&ms_fault_probe);
	v[MS_faults] += ms_probe_hits(&ms_fault_probe) + v[MS_faults_unclassified] -
			v[MS_faults_vma_lock_retry];
}
