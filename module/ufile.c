// SPDX-License-Identifier: GPL-2.0
/*
 * The files user stack frames are in: what names a frame after its
 * process has exited.
 * Copyright (C) 2026 The memscope authors.
 *
 * A stack's walk (ustack.c) gives user addresses, which mean nothing once
 * the process is gone.  Right after the walk, still in probe context, each
 * address in a file mapping becomes (file slot, offset into the file): the
 * slot is this table's, keyed by the file's identity (device, inode number
 * and generation), and the offset is what symbols are looked up by.
 *
 * Probe context may not sleep, so the file's path and build-id cannot be
 * read there (a path walk takes rename_lock, a sleeping lock on
 * PREEMPT_RT).  The probe claims a free slot with a cmpxchg, takes a
 * reference to the file (an atomic increment) and queues a work item; the
 * worker, in process context, writes the path and the build-id (the ELF's
 * NT_GNU_BUILD_ID note, read with kernel_read(): lib/buildid.c is not
 * exported), then drops the reference.  A file is held only from its
 * first frame until the worker ran.
 *
 * The path is the file's within its filesystem (dentry_path_raw()), not
 * one from some root: the worker's root is init's, not the process's
 * (a chroot, a container), so only the CLI, by the device and
 * /proc/self/mountinfo, knows where the file is in its own view.
 *
 * The VMAs are found with find_vma() under the mmap lock: a fault holds
 * it for reading already (from 6.4, or only the faulting VMA's lock),
 * brk's system call exit holds nothing, and then a trylock is right, as
 * the kernel's own __vmf_anon_prepare() takes it.  It fails while a
 * writer holds or waits for the lock.  Where the kernel has per-VMA locks
 * (6.4 on, RHEL 9.6), each VMA is then taken by its own lock, as a fault
 * would (ms_uvma_find()), and only the frames in a VMA being changed stay
 * raw.  Before, the stack keeps its raw addresses.  Either is counted in
 * ustack_mm_busy, and named from /proc/PID/maps while its process runs.
 * PREEMPT_RT's rwsem unlock must not run with interrupts off, so an
 * interrupts-off probe (an int3 kprobe) keeps raw addresses there.
 *
 * The table is bounded (ustack_files slots, allocated at load) and is not
 * cleared by `reset`: rows name slots, and slots live until unload.  A
 * file that finds no free slot within reach keeps raw addresses, counted
 * in ustack_files_full.  The `files` text lists the slots.
 *
 * A slot also keeps the process whose stack first had the file: the CLI
 * loads unwind tables for the files of the processes it knows of, and a
 * library a process dlopen()s later would be walked by frame pointers
 * until the CLI's next full scan.  `unwind_wanted` lists the ELF files in
 * stacks that have no unwind table, with that process, and is readable
 * to poll() each time the worker has named new slots since it was last
 * read: the CLI waits on it and loads their tables then.
 */
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "memscope.h"

#define MS_UFILE_REACH		16
#define MS_UFILE_PATH		416	/* a slot is 512 bytes */
#define MS_UFILE_LOADS		2	/* executable segments kept */
#define MS_UFILE_BUILD_ID	20	/* SHA-1, what GNU ld writes */
#define MS_NT_GNU_BUILD_ID	3	/* elf.h's; the kernel has it in lib/buildid.c only */

enum ms_ufile_state {
	MS_UF_CLAIMED,		/* key set, the rest being written */
	MS_UF_PENDING,		/* file held, for the worker to name */
	MS_UF_NAMED,
};

struct ms_ufile {
	u64 key;		/* 0: free; else a hash of (dev, ino, gen), odd */
	struct file *file;	/* MS_UF_PENDING: the reference the worker drops */
	u64 ino;
	u32 dev;		/* the superblock's s_dev */
	u32 gen;		/* i_generation: a reused inode number differs */
	u32 pid;		/* the process whose stack first had it */
	u8 state;
	u8 deleted;		/* unlinked when first seen or when named */
	u8 truncated;		/* the path did not fit */
	u8 build_id_len;
	u8 build_id[MS_UFILE_BUILD_ID];
	/* Executable PT_LOADs: what maps a frame's offset to an address in the ELF. */
	struct {
		u32 off, filesz;
		u64 vaddr;
	} load[MS_UFILE_LOADS];
	char path[MS_UFILE_PATH];
};

static unsigned int ustack_files = 1024;
module_param(ustack_files, uint, 0400);
MODULE_PARM_DESC(ustack_files, "Files user stack frames are named by, kept until unload (rounded up to a power of two; 0: none)");

static struct ms_ufile *ms_ufiles;
static unsigned int ms_ufiles_mask;
static char *ms_ufile_buf;		/* the worker's: a path, then ELF headers */
/* Bumped by the worker after it named slots; unwind_wanted's pollers wait. */
static atomic_t ms_ufile_named;
static DECLARE_WAIT_QUEUE_HEAD(ms_ufile_wq);

#define MS_UFILE_STATS(X)						\
	X(ustack_files_full, "User stack frames left as addresses: the table of files (ustack_files) had no free slot for theirs.") \
	X(ustack_mm_busy, "User stacks left as addresses, in whole or in part: their address space was being changed (the mmap lock, or a VMA's own lock, taken for writing).")
MS_STAT_SET(ufile, MS_UFILE_STATS);

static void ms_ufile_work_fn(struct work_struct *work);
static DECLARE_WORK(ms_ufile_work, ms_ufile_work_fn);

static u64 ms_ufile_key(u32 dev, u64 ino, u32 gen)
{
	u64 h = (ino * 0x9e3779b97f4a7c15ULL) ^ ((u64)dev << 32 | gen) * 0xc2b2ae3d27d4eb4fULL;

	return (h ^ h >> 29) | 1;
}

/*
 * The slot of @file, claimed for it if new, or -1.  Probe context, with
 * the mmap lock that keeps @file mapped.
 */
static int ms_ufile_slot(struct file *file)
{
	struct inode *inode = file_inode(file);
	u32 dev = inode->i_sb->s_dev, gen = inode->i_generation;
	u64 ino = inode->i_ino, key = ms_ufile_key(dev, ino, gen), k;
	unsigned int h = hash_64(key, 32), i;

	for (i = 0; i < MS_UFILE_REACH; i++) {
		unsigned int s = (h + i) & ms_ufiles_mask;
		struct ms_ufile *u = &ms_ufiles[s];

		k = READ_ONCE(u->key);
		if (k == key)
			return s;
		if (k)
			continue;
		k = cmpxchg(&u->key, 0, key);
		if (k == key)
			return s;
		if (k)
			continue;
		u->dev = dev;
		u->ino = ino;
		u->gen = gen;
		u->pid = task_tgid_nr(current);
		u->deleted = d_unlinked(file->f_path.dentry) || !inode->i_nlink;
		u->file = get_file(file);
		/* The worker sees the file once it sees the state. */
		smp_store_release(&u->state, MS_UF_PENDING);
		schedule_work(&ms_ufile_work);
		return s;
	}
	ms_stat_inc(ufile, MS_ustack_files_full);
	return -1;
}

enum { MS_UVMA_MM_HELD, MS_UVMA_MM_TAKEN, MS_UVMA_PER_VMA };

/*
 * Begin a walk of @mm's VMAs for a stack.  @mm_locked: the current task
 * holds @mm's mmap lock already (a fault's).  Else the lock is taken for
 * the walk if it can be had without waiting; else, where the kernel has
 * per-VMA locks, each VMA is read-locked by its own lock as the walk
 * comes to it, as a fault under FAULT_FLAG_VMA_LOCK takes its own: a
 * writer changes only the VMAs it write-locked, and the others can be
 * read meanwhile.  @held, if not NULL, is a VMA the caller has locked
 * (the fault's).  False, counted in ustack_mm_busy, if none of that can
 * be had.  Probe context.
 */
bool ms_uvma_begin(struct ms_uvma *w, struct mm_struct *mm, bool mm_locked,
		   struct vm_area_struct *held)
{
	*w = (struct ms_uvma){ .mm = mm, .held = held, .mode = MS_UVMA_MM_HELD };
	if (mm_locked)
		return true;
	/* PREEMPT_RT's rwsem unlock must not run with interrupts off. */
	if (mm && !(IS_ENABLED(CONFIG_PREEMPT_RT) && irqs_disabled())) {
		w->mode = MS_UVMA_MM_TAKEN;
		if (ms_mmap_read_trylock(mm))
			return true;
		w->mode = MS_UVMA_PER_VMA;
		if (MS_HAVE_VMA_READ_LOCK)
			return true;
	}
	ms_stat_inc(ufile, MS_ustack_mm_busy);
	return false;
}

/*
 * The VMA of @w's mm that holds user address @a, or NULL (none, or its
 * lock busy: then @w->busy).  It stays valid until the next call or
 * ms_uvma_end(): the previous one is left when the walk leaves it.
 */
struct vm_area_struct *ms_uvma_find(struct ms_uvma *w, unsigned long a)
{
	struct vm_area_struct *vma = w->vma;

	if (vma && a >= vma->vm_start && a < vma->vm_end)
		return vma;
	if (w->mode != MS_UVMA_PER_VMA) {
		vma = find_vma(w->mm, a);
		w->vma = vma && a >= vma->vm_start ? vma : NULL;
		return w->vma;
	}
	if (vma && vma != w->held)
		ms_vma_read_unlock(vma);
	vma = w->held;
	if (!vma || a < vma->vm_start || a >= vma->vm_end) {
		vma = ms_vma_read_trylock(w->mm, a);
		if (IS_ERR(vma)) {
			w->busy = true;
			vma = NULL;
		}
	}
	w->vma = vma;
	return vma;
}

/* End @w's walk: its locks given back, a busy VMA counted. */
void ms_uvma_end(struct ms_uvma *w)
{
	if (w->mode == MS_UVMA_MM_TAKEN)
		ms_mmap_read_unlock(w->mm);
	if (w->mode == MS_UVMA_PER_VMA && w->vma && w->vma != w->held)
		ms_vma_read_unlock(w->vma);
	if (w->busy)
		ms_stat_inc(ufile, MS_ustack_mm_busy);
}

/*
 * User address @a as a file frame (MEMSCOPE_FRAME_FILE) if @vma, the VMA
 * that holds it or NULL, maps a file; else @a.  Probe context, preemption
 * off, @vma found through a struct ms_uvma; never sleeps, never faults.
 */
unsigned long ms_ufile_frame(const struct vm_area_struct *vma, unsigned long a)
{
	u64 off;
	int s;

	if (!ms_ufiles || !vma || !vma->vm_file)
		return a;
	off = a - vma->vm_start + ((u64)vma->vm_pgoff << PAGE_SHIFT);
	if (off > MEMSCOPE_FRAME_OFF_MASK)
		return a;
	s = ms_ufile_slot(vma->vm_file);
	if (s < 0)
		return a;
	return MEMSCOPE_FRAME_FILE | (u64)s << MEMSCOPE_FRAME_SLOT_SHIFT | off;
}

/*
 * Each of the @n user addresses at @ip as a file frame where it lies in a
 * file mapping found through @w, as ms_ufile_frame() does.
 */
void ms_ufile_frames(struct ms_uvma *w, unsigned long *ip, unsigned int n)
{
	unsigned int i;

	if (!ms_ufiles)
		return;
	for (i = 0; i < n; i++)
		ip[i] = ms_ufile_frame(ms_uvma_find(w, ip[i]), ip[i]);
}

/*
 * The ELF file's executable segments, and its NT_GNU_BUILD_ID from its
 * PT_NOTE segments' first page.
 */
static void ms_ufile_read_elf(struct ms_ufile *u, struct file *f, char *buf)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)buf;
	char *note = buf + PAGE_SIZE;
	unsigned int i, j, nph;

	if (ms_kernel_read(f, buf, sizeof(*eh), 0) != sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(*ph))
		return;
	nph = min_t(unsigned int, eh->e_phnum, PAGE_SIZE / sizeof(*ph));
	if (ms_kernel_read(f, buf, nph * sizeof(*ph), eh->e_phoff) != nph * sizeof(*ph))
		return;
	for (i = 0, j = 0; i < nph && j < MS_UFILE_LOADS; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) ||
		    ph[i].p_offset > U32_MAX || ph[i].p_filesz > U32_MAX)
			continue;
		u->load[j].off = ph[i].p_offset;
		u->load[j].filesz = ph[i].p_filesz;
		u->load[j++].vaddr = ph[i].p_vaddr;
	}
	for (i = 0; i < nph; i++) {
		size_t len = min_t(u64, ph[i].p_filesz, PAGE_SIZE), at = 0;
		ssize_t got;

		if (ph[i].p_type != PT_NOTE)
			continue;
		got = ms_kernel_read(f, note, len, ph[i].p_offset);
		if (got <= 0)
			continue;
		while (at + sizeof(Elf64_Nhdr) <= (size_t)got) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(note + at);
			size_t name = ALIGN(nh->n_namesz, 4), desc = ALIGN(nh->n_descsz, 4);
			const char *p = note + at + sizeof(*nh);

			if (name > (size_t)got || desc > (size_t)got ||
			    at + sizeof(*nh) + name + desc > (size_t)got)
				break;
			if (nh->n_type == MS_NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p, "GNU", 4) && nh->n_descsz &&
			    nh->n_descsz <= MS_UFILE_BUILD_ID) {
				memcpy(u->build_id, p + name, nh->n_descsz);
				u->build_id_len = nh->n_descsz;
				return;
			}
			at += sizeof(*nh) + name + desc;
		}
	}
}

/* Process context: name @u from its file, and let the file go. */
static void ms_ufile_name(struct ms_ufile *u)
{
	struct file *f = u->file;
	/* The layer's under an overlay: the slot's device and inode are its. */
	struct dentry *d = ms_file_dentry(f);
	char *p;

	p = dentry_path_raw(d, ms_ufile_buf, PAGE_SIZE);
	if (IS_ERR(p)) {
		strscpy(u->path, "-", sizeof(u->path));
	} else {
		u->truncated = strlen(p) >= sizeof(u->path);
		strscpy(u->path, p, sizeof(u->path));
	}
	if (d_unlinked(d) || !file_inode(f)->i_nlink)
		u->deleted = 1;
	ms_ufile_read_elf(u, f, ms_ufile_buf);
	u->file = NULL;
	smp_store_release(&u->state, MS_UF_NAMED);
	fput(f);
}

static void ms_ufile_work_fn(struct work_struct *work)
{
	unsigned int i, named = 0;

	for (i = 0; i <= ms_ufiles_mask; i++) {
		if (smp_load_acquire(&ms_ufiles[i].state) == MS_UF_PENDING) {
			ms_ufile_name(&ms_ufiles[i]);
			named++;
		}
		cond_resched();
	}
	if (named) {
		atomic_inc(&ms_ufile_named);
		wake_up_interruptible_all(&ms_ufile_wq);
	}
}

/*
 * `files`: every slot in use, "slot dev ino gen state build_id loads
 * path"; a slot not named yet is "pending" with "-" for the rest.
 */
static int ms_ufiles_show(struct seq_file *m)
{
	unsigned int i, j;

	seq_puts(m, "# slot dev ino gen state build_id loads path\n");
	for (i = 0; ms_ufiles && i <= ms_ufiles_mask; i++) {
		const struct ms_ufile *u = &ms_ufiles[i];

		if (!READ_ONCE(u->key))
			continue;
		if (smp_load_acquire(&u->state) != MS_UF_NAMED) {
			seq_printf(m, "%u - - - pending - - -\n", i);
			continue;
		}
		seq_printf(m, "%u %u:%u %llu %u %s ", i, MAJOR(u->dev), MINOR(u->dev),
			   (unsigned long long)u->ino, u->gen,
			   u->deleted ? "deleted" : u->truncated ? "truncated" : "named");
		if (!u->build_id_len)
			seq_putc(m, '-');
		for (j = 0; j < u->build_id_len; j++)
			seq_printf(m, "%02x", u->build_id[j]);
		seq_putc(m, ' ');
		if (!u->load[0].filesz)
			seq_putc(m, '-');
		for (j = 0; j < MS_UFILE_LOADS && u->load[j].filesz; j++)
			seq_printf(m, "%s0x%x:0x%llx:0x%x", j ? "," : "", u->load[j].off,
				   (unsigned long long)u->load[j].vaddr, u->load[j].filesz);
		seq_putc(m, ' ');
		ms_seq_escape(m, u->path);
		seq_putc(m, '\n');
	}
	return 0;
}

static const struct ms_text ms_ufiles_text = {
	.file = "files",
	.show = ms_ufiles_show,
};

/*
 * `unwind_wanted`: each named slot of an ELF file with an executable
 * segment and no unwind table, "pid dev ino gen", the process the one
 * whose stack first had it.  A read notes the worker's count in the open
 * file's seq_file (poll_event), as /proc/PID/mounts notes its namespace's.
 */
static int ms_unwind_wanted_show(struct seq_file *m)
{
	unsigned int i;

	m->poll_event = atomic_read(&ms_ufile_named);
	seq_puts(m, "# pid dev ino gen\n");
	for (i = 0; ms_ufiles && i <= ms_ufiles_mask; i++) {
		const struct ms_ufile *u = &ms_ufiles[i];

		if (!READ_ONCE(u->key) || smp_load_acquire(&u->state) != MS_UF_NAMED ||
		    !u->load[0].filesz || ms_unwind_has(u->dev, u->ino, u->gen))
			continue;
		seq_printf(m, "%u %u:%u %llu %u\n", u->pid, MAJOR(u->dev), MINOR(u->dev),
			   (unsigned long long)u->ino, u->gen);
		cond_resched();
	}
	return 0;
}

/* Readable once the worker named slots since this file was last read. */
static __poll_t ms_unwind_wanted_poll(struct seq_file *m, struct file *file, poll_table *wait)
{
	poll_wait(file, &ms_ufile_wq, wait);
	return atomic_read(&ms_ufile_named) != m->poll_event ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct ms_text ms_unwind_wanted_text = {
	.file = "unwind_wanted",
	.show = ms_unwind_wanted_show,
	.poll = ms_unwind_wanted_poll,
};

static void ms_ufile_exit(void)
{
	unsigned int i;

	/* The probes are gone: no new slot, no new work. */
	cancel_work_sync(&ms_ufile_work);
	for (i = 0; ms_ufiles && i <= ms_ufiles_mask; i++)
		if (ms_ufiles[i].state == MS_UF_PENDING && ms_ufiles[i].file)
			fput(ms_ufiles[i].file);
	vfree(ms_ufiles);
	ms_ufiles = NULL;
	free_pages((unsigned long)ms_ufile_buf, 1);
	ms_ufile_buf = NULL;
}

/* The slots, as loaded (docs/testing.md's footprint reads it). */
static void ms_ufile_version(struct seq_file *m)
{
	seq_printf(m, "ustack_files %u\n", ms_ufiles ? ms_ufiles_mask + 1 : 0);
}

static size_t ms_ufile_bytes(void)
{
	return ms_ufiles ? (ms_ufiles_mask + 1) * sizeof(*ms_ufiles) + 2 * PAGE_SIZE : 0;
}

/*
 * Not __init: vmallocinfo names an area by its caller, and an __init one
 * is gone once the module loaded (52-bounded-memory counts the pages).
 */
static int ms_ufile_init(void)
{
	int err = ms_stat_set_add(&ms_ufile_stats) ?: ms_text_add(&ms_ufiles_text) ?:
		  ms_text_add(&ms_unwind_wanted_text);

	if (err || !MS_HAVE_USTACK_WALK || !ustack_files)
		return err;
	if (ustack_files > MEMSCOPE_FRAME_SLOT_MAX + 1) {
		pr_err("memscope: ustack_files=%u is more than %u, load it with a smaller one\n",
		       ustack_files, MEMSCOPE_FRAME_SLOT_MAX + 1);
		return -EINVAL;
	}
	BUILD_BUG_ON(sizeof(struct ms_ufile) != 512);
	ms_ufiles_mask = roundup_pow_of_two(ustack_files) - 1;
	ms_ufiles = ms_self_alloc(vzalloc((ms_ufiles_mask + 1) * sizeof(*ms_ufiles)));
	ms_ufile_buf = ms_self_alloc((char *)__get_free_pages(GFP_KERNEL, 1));
	if (!ms_ufiles || !ms_ufile_buf) {
		ms_ufile_exit();
		return -ENOMEM;
	}
	return 0;
}

const struct ms_family ms_ufile_family = {
	.init = ms_ufile_init,
	.exit = ms_ufile_exit,
	.bytes = ms_ufile_bytes,
	.version = ms_ufile_version,
};
