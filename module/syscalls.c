// SPDX-License-Identifier: GPL-2.0
/*
 * mmapsnoop and shmsnoop: each mmap(2), and each System V shared memory
 * call, as one event (the book's mmapsnoop and BCC's shmsnoop).
 * Copyright (C) 2026 The memscope authors.
 *
 * Both hook the raw sys_exit tracepoint, which every kernel memscope
 * supports has in the same form, (regs, ret): the arguments are still in
 * the saved user registers when the call returns (syscall_get_arguments()
 * reads arm64's first one from orig_x0), so one probe sees a call and its
 * result together and no per-task state pairs an entry with its exit.
 * Kprobes on the entry points would instead follow their renames and
 * their pt_regs wrappers release by release (sys_shmctl, ksys_shmctl,
 * __x64_sys_shmctl, ...).
 *
 * The price is that a registered sys_exit probe puts every task on the
 * slow system call exit path, whatever the call: both probes are off by
 * default, and `make bench` measures what they cost (docs/performance.md).
 *
 * Only the native ABI is traced: a 32-bit task's calls have other numbers
 * and argument layouts, and are skipped, as BCC's shmsnoop skips them.
 */
#include <linux/compat.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/ipc.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <asm/unistd.h>
/*
 * Before 5.1, x86's syscall_get_arguments() falls from case to case of its
 * switch unannotated, which W=1's -Wextra flags in that header, the tree's
 * own (4.19, RHEL 8): quiet the one warning for the one header.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include <asm/syscall.h>
#pragma GCC diagnostic pop

#include "memscope.h"

static bool mmapsnoop;
module_param(mmapsnoop, bool, 0400);
MODULE_PARM_DESC(mmapsnoop, "Enable the mmap probe at load (it puts every system call on the slow exit path)");

static bool shmsnoop;
module_param(shmsnoop, bool, 0400);
MODULE_PARM_DESC(shmsnoop, "Enable the shm probe at load (it puts every system call on the slow exit path)");

static __always_inline bool ms_native_syscall(struct pt_regs *regs, long nr)
{
	return syscall_get_nr(current, regs) == nr && !in_compat_syscall();
}

static void ms_syscall_task(pid_t *pid, char *comm)
{
	*pid = task_tgid_nr(current);
	memcpy(comm, current->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = '\0';
}

/*
 * The name of the file behind fd, or "-" if the fd holds none.  Under RCU
 * the struct file stays a struct file (freed after a grace period, or
 * SLAB_TYPESAFE_BY_RCU from 6.7), but another thread may close fd
 * meanwhile, and a pseudo file's dentry (DCACHE_NORCU: sockets, pipes) is
 * freed at once: so the dentry and its name are read without faulting,
 * at most d_name.len bytes from the name pointer read first.  A race
 * shows the old name, part of it, or "?"; it never faults.
 */
static void ms_fd_name(unsigned int fd, char *name, size_t size)
{
	struct files_struct *files = current->files;
	const unsigned char *s;
	struct file *file = NULL;
	struct fdtable *fdt;
	struct dentry *d;
	unsigned int len = 0;

	rcu_read_lock();
	if (files) {
		fdt = files_fdtable(files);
		if (fd < fdt->max_fds)
			file = rcu_dereference(fdt->fd[array_index_nospec(fd, fdt->max_fds)]);
	}
	if (file) {
		d = READ_ONCE(file->f_path.dentry);
		if (!d || copy_from_kernel_nofault(&s, &d->d_name.name, sizeof(s)) ||
		    copy_from_kernel_nofault(&len, &d->d_name.len, sizeof(len)))
			len = 0;
		len = min_t(unsigned int, len, size - 1);
		if (len && copy_from_kernel_nofault(name, s, len))
			len = 0;
		len = strnlen(name, len);
	}
	rcu_read_unlock();
	/* "?": a file whose name a race took away. */
	if (!len)
		name[len++] = file ? '?' : '-';
	name[len] = '\0';
}

static void ms_mmap_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ms_event ev = { .type = MS_EV_MMAP };
	struct ms_mmap_event *e = &ev.mmap;
	unsigned long a[6];

	if (likely(!ms_native_syscall(regs, __NR_mmap)))
		return;
	ms_hit(MS_P_mmap);
	ms_syscall_get_arguments(regs, a);
	e->time_ns = ms_pair_now();
	ms_syscall_task(&e->pid, e->comm);
	e->len = a[1];
	e->prot = a[2];
	e->flags = a[3];
	e->off = a[5];
	/* The address is not kept: a mapping is its size, file and flags. */
	e->err = IS_ERR_VALUE(ret) ? ret : 0;
	if (e->flags & MAP_ANONYMOUS)
		strscpy(e->file, "[anon]", sizeof(e->file));
	else
		ms_fd_name((unsigned int)a[4], e->file, sizeof(e->file));
	ms_event_emit(&ev);
}

static void ms_shm_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ms_event ev = { .type = MS_EV_SHM };
	struct ms_shm_event *e = &ev.shm;
	long nr = syscall_get_nr(current, regs);
	unsigned long a[6];

	switch (nr) {
	case __NR_shmget:
		e->call = MS_SHMGET;
		break;
	case __NR_shmat:
		e->call = MS_SHMAT;
		break;
	case __NR_shmdt:
		e->call = MS_SHMDT;
		break;
	case __NR_shmctl:
		e->call = MS_SHMCTL;
		break;
	default:
		return;
	}
	if (in_compat_syscall())
		return;
	ms_hit(MS_P_shm);
	ms_syscall_get_arguments(regs, a);
	e->time_ns = ms_pair_now();
	ms_syscall_task(&e->pid, e->comm);
	memcpy(e->args, a, sizeof(e->args));
	/* shmat returns an address, the others an id or 0. */
	e->err = IS_ERR_VALUE(ret) ? ret : 0;
	e->id = e->call == MS_SHMGET && !e->err ? ret : -1;
	ms_event_emit(&ev);
}

static const char *const ms_sys_exit_targets[] = { "sys_exit", NULL };

static struct ms_probe ms_mmap_probe = {
	.name = "mmap", .targets = ms_sys_exit_targets, .kind = MS_TRACEPOINT,
	.tp_func = ms_mmap_exit, .family = "mmapsnoop",
};

static struct ms_probe ms_shm_probe = {
	.name = "shm", .targets = ms_sys_exit_targets, .kind = MS_TRACEPOINT,
	.tp_func = ms_shm_exit, .family = "shmsnoop",
};

int __init ms_syscalls_init(void)
{
	ms_mmap_probe.default_off = !mmapsnoop;
	ms_shm_probe.default_off = !shmsnoop;
	ms_probe_add(&ms_mmap_probe, MS_P_mmap);
	ms_probe_add(&ms_shm_probe, MS_P_shm);
	return 0;
}
