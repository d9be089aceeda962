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
#include <uapi/linux/shm.h>
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

/* What the mmap(2) man page names; the type bits first, then the rest. */
static const struct ms_flag ms_map_flags[] = {
	MS_FLAG(MAP_, SHARED_VALIDATE), MS_FLAG(MAP_, SHARED), MS_FLAG(MAP_, PRIVATE),
	MS_FLAG(MAP_, FIXED_NOREPLACE), MS_FLAG(MAP_, FIXED), MS_FLAG(MAP_, ANONYMOUS),
	MS_FLAG(MAP_, GROWSDOWN), MS_FLAG(MAP_, DENYWRITE), MS_FLAG(MAP_, EXECUTABLE),
	MS_FLAG(MAP_, LOCKED), MS_FLAG(MAP_, NORESERVE), MS_FLAG(MAP_, POPULATE),
	MS_FLAG(MAP_, NONBLOCK), MS_FLAG(MAP_, STACK), MS_FLAG(MAP_, HUGETLB),
	MS_FLAG(MAP_, SYNC),
};

/* A mmap(2) call and its result. */
struct ms_mmap_event {
	u64 time_ns;
	pid_t pid;			/* the process, tgid */
	char comm[TASK_COMM_LEN];
	unsigned long len, prot, flags, off;
	long err;			/* 0, or the call's -errno */
	char file[MS_NAME_LEN];		/* "[anon]", or "-": fd held no file */
};

enum ms_shm_call { MS_SHMGET, MS_SHMAT, MS_SHMDT, MS_SHMCTL };

/* A System V shared memory call: its arguments as passed, and result. */
struct ms_shm_event {
	u64 time_ns;
	pid_t pid;
	enum ms_shm_call call;
	char comm[TASK_COMM_LEN];
	unsigned long args[3];
	long err;
	long id;			/* shmget's result; -1 otherwise */
};

/*
 * mmap's flags as strace prints them: the named flags, any bit left in hex,
 * then with MAP_HUGETLB the huge page size (log2, in bits 26-31) as
 * "21<<MAP_HUGE_SHIFT".  SHARED_VALIDATE, both type bits, is tried before
 * SHARED and PRIVATE.
 */
static int ms_mmap_flags_format(char *b, size_t len, const void *rec)
{
	const struct ms_mmap_event *e = ms_event_rec(rec);
	unsigned long flags = e->flags, huge = 0;
	int n;

	if (flags & MAP_HUGETLB)
		huge = flags & ((unsigned long)MAP_HUGE_MASK << MAP_HUGE_SHIFT);
	n = ms_format_flags(b, len, flags & ~huge, ms_map_flags, ARRAY_SIZE(ms_map_flags));
	if (huge)
		n += scnprintf(b + n, len - n, "|%lu<<MAP_HUGE_SHIFT", huge >> MAP_HUGE_SHIFT);
	return n;
}

/* "rw-", and a "+" for any bit past exec. */
static int ms_mmap_prot_format(char *b, size_t len, const void *rec)
{
	const struct ms_mmap_event *e = ms_event_rec(rec);
	unsigned long prot = e->prot;

	return scnprintf(b, len, "%c%c%c%s", prot & PROT_READ ? 'r' : '-',
			 prot & PROT_WRITE ? 'w' : '-', prot & PROT_EXEC ? 'x' : '-',
			 prot & ~(unsigned long)(PROT_READ | PROT_WRITE | PROT_EXEC) ? "+" : "");
}

#define MS_MMAP_FIELD(n, m, k, ...) MS_EVENT_FIELD(struct ms_mmap_event, n, m, k, ##__VA_ARGS__)

static const struct ms_field_desc ms_mmap_fields[] = {
	MS_MMAP_FIELD("time_ns", time_ns, MS_FK_UINT),
	MS_MMAP_FIELD("pid", pid, MS_FK_INT),
	MS_MMAP_FIELD("comm", comm, MS_FK_STR),
	MS_MMAP_FIELD("size", len, MS_FK_UINT),
	MS_MMAP_FIELD("prot", prot, MS_FK_TEXT, .format = ms_mmap_prot_format),
	MS_MMAP_FIELD("flags", flags, MS_FK_TEXT, .format = ms_mmap_flags_format),
	MS_MMAP_FIELD("off", off, MS_FK_UINT),
	MS_MMAP_FIELD("err", err, MS_FK_INT),
	MS_MMAP_FIELD("file", file, MS_FK_STR),
};

static struct ms_event_type ms_mmap_events = {
	.desc = { .name = "mmap", MS_FIELDS(ms_mmap_fields) },
	.size = MS_EVENT_SIZE(struct ms_mmap_event),
};

static const char *const ms_shm_calls[] = {
	[MS_SHMGET] = "shmget", [MS_SHMAT] = "shmat", [MS_SHMDT] = "shmdt",
	[MS_SHMCTL] = "shmctl",
};

static const struct ms_shm_event *ms_shm_rec(const void *rec)
{
	return ms_event_rec(rec);
}

static unsigned int ms_shm_variant(const void *rec)
{
	return BIT(ms_shm_rec(rec)->call);
}

static int ms_shm_call_format(char *b, size_t len, const void *rec)
{
	unsigned int call = ms_shm_rec(rec)->call;

	return scnprintf(b, len, "%s", call < ARRAY_SIZE(ms_shm_calls) ? ms_shm_calls[call] : "?");
}

/* An IPC key as strace prints it. */
static int ms_shm_key_format(char *b, size_t len, const void *rec)
{
	return scnprintf(b, len, "0x%08x", (unsigned int)ms_shm_rec(rec)->args[0]);
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
static int ms_shmget_flags_format(char *b, size_t len, const void *rec)
{
	const unsigned int huge_bits = (unsigned int)SHM_HUGE_MASK << SHM_HUGE_SHIFT;
	unsigned int shmflg = (unsigned int)ms_shm_rec(rec)->args[2];
	unsigned int named = shmflg & ~0777U & ~huge_bits;
	int n = 0;

	if (named)
		n = ms_format_flags(b, len, named, ms_shmget_flags, ARRAY_SIZE(ms_shmget_flags));
	if (shmflg & huge_bits)
		n += scnprintf(b + n, len - n, "%s%u<<SHM_HUGE_SHIFT", n ? "|" : "",
			       (shmflg & huge_bits) >> SHM_HUGE_SHIFT);
	return n + scnprintf(b + n, len - n, "%s%#o", n ? "|" : "", shmflg & 0777U);
}

static const struct ms_flag ms_shmat_flags[] = {
	MS_FLAG(SHM_, RDONLY), MS_FLAG(SHM_, RND), MS_FLAG(SHM_, REMAP), MS_FLAG(SHM_, EXEC),
};

static int ms_shmat_flags_format(char *b, size_t len, const void *rec)
{
	return ms_format_flags(b, len, ms_shm_rec(rec)->args[2], ms_shmat_flags,
			       ARRAY_SIZE(ms_shmat_flags));
}

static int ms_shmctl_cmd_format(char *b, size_t len, const void *rec)
{
	unsigned long cmd = ms_shm_rec(rec)->args[1];
	const char *name;

	/* IPC_64, which glibc ORs in, changes the layout, not the command. */
	switch (cmd & ~(unsigned long)IPC_64) {
	case IPC_RMID: name = "IPC_RMID"; break;
	case IPC_SET: name = "IPC_SET"; break;
	case IPC_STAT: name = "IPC_STAT"; break;
	case IPC_INFO: name = "IPC_INFO"; break;
	case SHM_LOCK: name = "SHM_LOCK"; break;
	case SHM_UNLOCK: name = "SHM_UNLOCK"; break;
	case SHM_STAT: name = "SHM_STAT"; break;
	case SHM_INFO: name = "SHM_INFO"; break;
	case SHM_STAT_ANY: name = "SHM_STAT_ANY"; break;
	default: return scnprintf(b, len, "%lu", cmd);
	}
	return scnprintf(b, len, "%s", name);
}

#define MS_SHM_FIELD(n, m, k, ...) MS_EVENT_FIELD(struct ms_shm_event, n, m, k, ##__VA_ARGS__)
#define MS_SHM_GET	.variants = BIT(MS_SHMGET)

/* Each call's own arguments, in the order strace gives them. */
static const struct ms_field_desc ms_shm_fields[] = {
	MS_SHM_FIELD("time_ns", time_ns, MS_FK_UINT),
	MS_SHM_FIELD("pid", pid, MS_FK_INT),
	MS_SHM_FIELD("comm", comm, MS_FK_STR),
	MS_SHM_FIELD("call", call, MS_FK_TEXT, .format = ms_shm_call_format),
	MS_SHM_FIELD("key", args[0], MS_FK_TEXT, .format = ms_shm_key_format, MS_SHM_GET),
	MS_SHM_FIELD("size", args[1], MS_FK_UINT, MS_SHM_GET),
	MS_SHM_FIELD("flags", args[2], MS_FK_TEXT, .format = ms_shmget_flags_format,
		     MS_SHM_GET),
	MS_SHM_FIELD("id", id, MS_FK_INT, MS_SHM_GET),
	MS_SHM_FIELD("id", args[0], MS_FK_INT, .flags = MS_FIELD_32,
		     .variants = BIT(MS_SHMAT) | BIT(MS_SHMCTL)),
	MS_SHM_FIELD("flags", args[2], MS_FK_TEXT, .format = ms_shmat_flags_format,
		     .variants = BIT(MS_SHMAT)),
	MS_SHM_FIELD("cmd", args[1], MS_FK_TEXT, .format = ms_shmctl_cmd_format,
		     .variants = BIT(MS_SHMCTL)),
	MS_SHM_FIELD("err", err, MS_FK_INT),
};

static struct ms_event_type ms_shm_events = {
	.desc = { .name = "shm", MS_FIELDS(ms_shm_fields), .variant = ms_shm_variant },
	.size = MS_EVENT_SIZE(struct ms_shm_event),
};

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
	struct ms_mmap_event ev = {}, *e = &ev;
	unsigned long a[6];

	if (likely(!ms_native_syscall(regs, __NR_mmap)))
		return;
	ms_hit(data);	/* the probe it was registered with */
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
	ms_event_emit(&ms_mmap_events, e);
}

static void ms_shm_exit(void *data, struct pt_regs *regs, long ret)
{
	struct ms_shm_event ev = {}, *e = &ev;
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
	ms_hit(data);
	ms_syscall_get_arguments(regs, a);
	e->time_ns = ms_pair_now();
	ms_syscall_task(&e->pid, e->comm);
	memcpy(e->args, a, sizeof(e->args));
	/* shmat returns an address, the others an id or 0. */
	e->err = IS_ERR_VALUE(ret) ? ret : 0;
	e->id = e->call == MS_SHMGET && !e->err ? ret : -1;
	ms_event_emit(&ms_shm_events, e);
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

static int __init ms_syscalls_init(void)
{
	ms_mmap_probe.default_off = !mmapsnoop;
	ms_shm_probe.default_off = !shmsnoop;
	return ms_probe_add(&ms_mmap_probe) ?: ms_probe_add(&ms_shm_probe) ?:
	       ms_event_type_add(&ms_mmap_events) ?: ms_event_type_add(&ms_shm_events);
}

const struct ms_family ms_syscalls_family __refconst = {
	.init = ms_syscalls_init,
};
