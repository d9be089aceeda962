// SPDX-License-Identifier: GPL-2.0
/*
 * faults and ffaults: handle_mm_fault, classified on entry, timed and
 * resolved (major, retry, error) on return.
 * Copyright (C) 2026 The memscope authors.
 *
 * One kretprobe does both: its entry handler sees the arguments, its return
 * handler the vm_fault_t, and the instance data carries the start time and
 * the table rows across a fault that may sleep.  The vma must not be touched
 * on return (it may be gone), hence the rows are found on entry.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hugetlb_inline.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>

#include "memscope.h"

struct ms_fault_data {
	u64 start;
	struct ms_row *pid_row;
	struct ms_row *file_row;
};

#define MS_ANON_KEY 1ULL	/* no real dentry hash_len is 1: len would be 0 */

static struct ms_row *ms_file_row(struct vm_area_struct *vma)
{
	struct ms_table *t = &ms_tables[MS_T_FAULTS_BY_FILE];
	struct file *file = vma->vm_file;
	struct dentry *dentry;
	struct ms_row *row;
	u64 key;

	if (!file) {
		row = ms_table_get(t, MS_ANON_KEY);
		if (row && !READ_ONCE(row->ready)) {
			strscpy(row->name, "[anon]", sizeof(row->name));
			smp_store_release(&row->ready, 1);
		}
		return row;
	}
	/*
	 * As ffaults.bt, by dentry name.  The vma pins the file and so the
	 * dentry; d_name changes only by rename, and the old name is freed
	 * after an RCU grace period.  The key is the name's hash and length,
	 * which the dcache already computed.
	 */
	dentry = file->f_path.dentry;
	rcu_read_lock();
	key = READ_ONCE(dentry->d_name.hash_len);
	row = ms_table_get(t, key ?: MS_ANON_KEY + 1);
	if (row && !READ_ONCE(row->ready)) {
		strscpy(row->name, READ_ONCE(dentry->d_name.name), sizeof(row->name));
		smp_store_release(&row->ready, 1);
	}
	rcu_read_unlock();
	return row;
}

static enum ms_stat ms_fault_class(struct vm_area_struct *vma)
{
	if (is_vm_hugetlb_page(vma))
		return MS_faults_hugetlb;
	if (vma_is_anonymous(vma) || !vma->vm_file)
		return MS_faults_anon;
	if (file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC)
		return MS_faults_shmem;
	return MS_faults_file;
}

static int ms_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_fault_data *d = (struct ms_fault_data *)ri->data;
	struct vm_area_struct *vma = (struct vm_area_struct *)ms_arg(regs, 0);
	unsigned int flags = ms_arg(regs, 2);

	ms_hit(MS_P_faults);
	ms_stat_inc(MS_faults);
	ms_stat_inc(flags & FAULT_FLAG_USER ? MS_faults_user : MS_faults_kernel);
	if (flags & FAULT_FLAG_WRITE)
		ms_stat_inc(MS_faults_write);
	ms_stat_inc(ms_fault_class(vma));

	d->pid_row = ms_table_get_task(&ms_tables[MS_T_FAULTS_BY_PID], current);
	if (d->pid_row)
		ms_row_add(d->pid_row, 0, 1);
	d->file_row = ms_file_row(vma);
	if (d->file_row)
		ms_row_add(d->file_row, 0, 1);
	d->start = local_clock();
	return 0;
}

static int ms_fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_fault_data *d = (struct ms_fault_data *)ri->data;
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);

	ms_hist_add(MS_H_fault_latency_ns, local_clock() - d->start);
	if (ret & VM_FAULT_MAJOR) {
		ms_stat_inc(MS_faults_major);
		if (d->pid_row)
			ms_row_add(d->pid_row, 1, 1);
		if (d->file_row)
			ms_row_add(d->file_row, 1, 1);
	}
	if (ret & VM_FAULT_RETRY)
		ms_stat_inc(MS_faults_retry);
	if (ret & VM_FAULT_ERROR)
		ms_stat_inc(MS_faults_error);
	return 0;
}

static const char *const ms_fault_targets[] = { "handle_mm_fault", NULL };

static struct ms_probe ms_fault_probe = {
	.name = "faults",
	.targets = ms_fault_targets,
	.kind = MS_KRETPROBE,
	.entry_handler = ms_fault_entry,
	.ret_handler = ms_fault_return,
	.data_size = sizeof(struct ms_fault_data),
};

int ms_faults_init(void)
{
	/*
	 * handle_mm_fault() sleeps on I/O and locks: size the instance pool
	 * for many sleepers per CPU.  Faults that find it empty show as
	 * `missed` in the probes file.
	 */
	ms_fault_probe.maxactive = max_t(int, 512, 16 * num_possible_cpus());
	ms_probe_add(&ms_fault_probe, MS_P_faults);
	return 0;
}
