// SPDX-License-Identifier: GPL-2.0
/*
 * slabtop: kmem_cache allocations and frees by cache (the book's
 * slabratetop).
 * Copyright (C) 2026 The memscope authors.
 *
 * One row per cache in the `slab` table: allocations, frees and the bytes
 * allocated (the cache's object size, kmem_cache_size(), per allocation),
 * counted per CPU like every table.
 *
 * From 6.1 the kmem_cache_alloc and kmem_cache_free tracepoints pass the
 * cache, and kmem_cache_alloc fires for the _node and _lru variants too.
 * Before, neither passes it (5.12 to 6.0 give the free's cache name only),
 * so the functions themselves are kprobed, their first argument the cache,
 * as BCC's slabratetop does.  Either way a call is counted, as slabratetop
 * counts it.  The bulk interfaces fire neither, and the maple tree (6.1)
 * allocates its nodes in bulk and frees them one by one: a kretprobe on
 * kmem_cache_alloc_bulk() counts the objects it returned, and a kprobe on
 * kmem_cache_free_bulk() the objects it was given with their cache.  What
 * is freed with kfree(), or with kmem_cache_free_bulk() and no cache, is
 * not counted: no cache is named.
 *
 * struct kmem_cache is private to mm/ and differs between SLAB, SLUB and
 * every few releases, so the name is found at load instead of compiled
 * in: two caches of known names are created, and the first offset at
 * which both point to their own name is the one used.  A row is keyed by
 * the cache and that name pointer, so a cache created where a destroyed
 * one lived starts a row of its own; the name is copied, without faulting,
 * on the row's first event.
 */
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "memscope.h"
#include "compat/kmem.h"

static struct ms_table ms_table_slab = {
	.file = "slab", .header = "# cache allocs frees bytes",
	.kind = MS_TK_NAME, .ncols = 3,
};

static bool slabtop;
module_param(slabtop, bool, 0400);
MODULE_PARM_DESC(slabtop, "Enable the slabtop probes at load (they cost on every kmem_cache allocation and free)");

/* Where struct kmem_cache keeps its name; found by ms_slab_find_name(). */
static unsigned int ms_slab_name_off __read_mostly;

#define MS_SLAB_ALLOCS	0
#define MS_SLAB_FREES	1
#define MS_SLAB_BYTES	2

/* The row's first event: its name, as long as the cache certainly lives. */
static noinline void ms_slab_publish(struct ms_row *row, const char *name)
{
	unsigned int n;
	char c;

	for (n = 0; n < sizeof(row->name) - 1; n++) {
		if (copy_from_kernel_nofault(&c, name + n, 1) || !c)
			break;
		row->name[n] = c;
	}
	row->name[n] = '\0';
	if (!n)
		strscpy(row->name, "[unknown]", sizeof(row->name));
	smp_store_release(&row->ready, 1);
}

/* In probe context: any context but NMI, which never allocates from slab. */
static __always_inline void ms_slab_count(struct kmem_cache *s, unsigned int col, long n)
{
	struct ms_table *t = &ms_table_slab;
	const char *name;
	struct ms_row *row;
	u64 key;

	if (unlikely(!s || n <= 0))
		return;
	/* The allocator is using s: it and its name are live. */
	name = READ_ONCE(*(const char *const *)((const char *)s + ms_slab_name_off));
	/* Bit 1 set, bit 0 clear: never 0 (free) nor MS_KEY_BUSY. */
	key = (((u64)(unsigned long)s * 0x9e3779b97f4a7c15ULL) ^
	       (u64)(unsigned long)name) << 2 | 2;
	row = ms_table_hit(t, key) ?: ms_table_get(t, key);
	if (unlikely(!row))
		return;
	if (unlikely(!READ_ONCE(row->ready)))
		ms_slab_publish(row, name);
	preempt_disable_notrace();
	__ms_row_add(t, row, col, n);
	if (col == MS_SLAB_ALLOCS)
		__ms_row_add(t, row, MS_SLAB_BYTES, n * kmem_cache_size(s));
	preempt_enable_notrace();
}

/*
 * By tracepoint, where both events pass the cache (MS_SLAB_BY_TRACEPOINT,
 * 6.1): there kmem_cache_alloc fires for the _node and _lru variants too.
 */
static void ms_slab_alloc_tp(MS_KMEM_CACHE_ALLOC_PROTO)
{
	ms_hit(data);	/* the probe it was registered with */
	ms_slab_count(MS_KMEM_CACHE_ALLOC_CACHE, MS_SLAB_ALLOCS, 1);
}

static void ms_slab_free_tp(MS_KMEM_CACHE_FREE_PROTO)
{
	ms_hit(data);
	ms_slab_count(MS_KMEM_CACHE_FREE_CACHE, MS_SLAB_FREES, 1);
}

static void __maybe_unused ms_slabtop_check_protos(void)
{
	MS_TP_CHECK(kmem_cache_alloc, ms_slab_alloc_tp);
	MS_TP_CHECK(kmem_cache_free, ms_slab_free_tp);
}

#define MS_SLAB_TRACEPOINT(n, tp, fn)					\
	static const char *const ms_##n##_tp_targets[] = { #tp, NULL };	\
	static struct ms_probe ms_##n##_tp_probe = {			\
		.name = #n, .targets = ms_##n##_tp_targets,		\
		.kind = MS_TRACEPOINT, .tp_func = fn,			\
	}

MS_SLAB_TRACEPOINT(slab_alloc, kmem_cache_alloc, ms_slab_alloc_tp);
MS_SLAB_TRACEPOINT(slab_free, kmem_cache_free, ms_slab_free_tp);
MS_SLAB_TRACEPOINT(slab_alloc_node, kmem_cache_alloc_node, NULL);
MS_SLAB_TRACEPOINT(slab_alloc_lru, kmem_cache_alloc_lru, NULL);

/* Else by kprobe on the functions, whose first argument is the cache. */
#define MS_SLAB_KPROBE(n, fn, col)					\
	static int ms_##n##_pre(struct kprobe *p, struct pt_regs *regs)\
	{								\
		ms_hit(container_of(p, struct ms_probe, kp));		\
		ms_slab_count((struct kmem_cache *)ms_arg(regs, 0), col, 1);\
		return 0;						\
	}								\
	static const char *const ms_##n##_targets[] = { #fn, NULL };	\
	static struct ms_probe ms_##n##_probe = {			\
		.name = #n, .targets = ms_##n##_targets,		\
		.kind = MS_KPROBE, .pre_handler = ms_##n##_pre,		\
	}

MS_SLAB_KPROBE(slab_alloc, kmem_cache_alloc, MS_SLAB_ALLOCS);
MS_SLAB_KPROBE(slab_alloc_node, kmem_cache_alloc_node, MS_SLAB_ALLOCS);
MS_SLAB_KPROBE(slab_alloc_lru, kmem_cache_alloc_lru, MS_SLAB_ALLOCS);
MS_SLAB_KPROBE(slab_free, kmem_cache_free, MS_SLAB_FREES);

/*
 * kmem_cache_alloc_bulk(s, flags, size, p) returns how many it allocated
 * (all or nothing, from 4.6; a bool before), and may sleep to get them.
 */
struct ms_slab_bulk {
	struct kmem_cache *s;
	unsigned long size;
};

static int ms_slab_alloc_bulk_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ms_slab_bulk *d = (struct ms_slab_bulk *)ri->data;

	d->s = (struct kmem_cache *)ms_arg(regs, 0);
	d->size = ms_arg(regs, 2);
	return 0;
}

static struct ms_probe ms_slab_alloc_bulk_probe;

static int ms_slab_alloc_bulk_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct ms_slab_bulk *d = (const struct ms_slab_bulk *)ri->data;
	int ret = (int)regs_return_value(regs);

	ms_hit(&ms_slab_alloc_bulk_probe);
	ms_slab_count(d->s, MS_SLAB_ALLOCS, ms_slab_bulk_count(ret, d->size));
	return 0;
}

/* kmem_cache_free_bulk(s, size, p): s NULL is kfree_bulk(), of any caches. */
static int ms_slab_free_bulk_pre(struct kprobe *p, struct pt_regs *regs)
{
	ms_hit(container_of(p, struct ms_probe, kp));
	ms_slab_count((struct kmem_cache *)ms_arg(regs, 0), MS_SLAB_FREES, (long)ms_arg(regs, 1));
	return 0;
}

/* _noprof from 6.10, where allocation profiling wraps the allocators. */
static const char *const ms_slab_alloc_bulk_targets[] = {
	"kmem_cache_alloc_bulk_noprof", "kmem_cache_alloc_bulk", NULL
};
static const char *const ms_slab_free_bulk_targets[] = { "kmem_cache_free_bulk", NULL };

static struct ms_probe ms_slab_alloc_bulk_probe = {
	.name = "slab_alloc_bulk", .targets = ms_slab_alloc_bulk_targets,
	.kind = MS_KRETPROBE, .entry_handler = ms_slab_alloc_bulk_entry,
	.ret_handler = ms_slab_alloc_bulk_ret, .data_size = sizeof(struct ms_slab_bulk),
};
static struct ms_probe ms_slab_free_bulk_probe = {
	.name = "slab_free_bulk", .targets = ms_slab_free_bulk_targets,
	.kind = MS_KPROBE, .pre_handler = ms_slab_free_bulk_pre,
};

/* Never called: a ctor keeps the allocator from merging the probe caches. */
static void ms_slab_ctor(void *obj)
{
}

/* Does s hold, at off, a pointer to the string want? */
static bool __init ms_slab_name_at(struct kmem_cache *s, unsigned int off, const char *want)
{
	size_t len = strlen(want) + 1;
	const char *p;
	char buf[32];

	if (copy_from_kernel_nofault(&p, (const char *)s + off, sizeof(p)))
		return false;
	/* Names are kstrdup()ed: in the linear map, not vmalloc or percpu. */
	if (!virt_addr_valid(p) || copy_from_kernel_nofault(buf, p, len))
		return false;
	return !memcmp(buf, want, len);
}

/*
 * The lowest offset that is a name in both caches.  Reads stop there: the
 * name is among struct kmem_cache's first fields under every allocator
 * (SLUB: after the sizes and ctor; SLAB: after the colouring), well inside
 * the 256 bytes scanned and the structure itself.
 */
static int __init ms_slab_find_name(void)
{
	static const char *const names[] = { "memscope_probe_a", "memscope_probe_b" };
	struct kmem_cache *c[ARRAY_SIZE(names)] = { NULL };
	unsigned int off, i;
	int ret = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		c[i] = kmem_cache_create(names[i], 16 + 16 * i, 0, 0, ms_slab_ctor);
		if (!c[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (off = 0; off < 256; off += sizeof(void *)) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!ms_slab_name_at(c[i], off, names[i]))
				break;
		if (i == ARRAY_SIZE(names)) {
			ms_slab_name_off = off;
			ret = 0;
			break;
		}
	}
out:
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (c[i])
			kmem_cache_destroy(c[i]);
	return ret;
}

static int __init ms_slabtop_init(void)
{
	const bool tp = MS_SLAB_BY_TRACEPOINT;
	struct ms_probe *const probes[] = {
		tp ? &ms_slab_free_tp_probe : &ms_slab_free_probe,
		&ms_slab_free_bulk_probe,
		tp ? &ms_slab_alloc_tp_probe : &ms_slab_alloc_probe,
		tp ? &ms_slab_alloc_node_tp_probe : &ms_slab_alloc_node_probe,
		tp ? &ms_slab_alloc_lru_tp_probe : &ms_slab_alloc_lru_probe,
		&ms_slab_alloc_bulk_probe,
	};
	int err = ms_slab_find_name();
	unsigned int i;

	/* Held across the allocator's sleeps, as zswap_load()'s (swap.c). */
	ms_slab_alloc_bulk_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	/* 6.1's kmem_cache_alloc event fires for them too. */
	ms_slab_alloc_node_tp_probe.unsupported = "merged_into_slab_alloc";
	ms_slab_alloc_lru_tp_probe.unsupported = "merged_into_slab_alloc";
	if (!MS_HAVE_SLAB_ALLOC_LRU)
		ms_slab_alloc_lru_probe.unsupported = "no_kmem_cache_alloc_lru";
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		probes[i]->family = "slabtop";
		probes[i]->default_off = !slabtop;
		/* Without the name, rows could not be told apart: say why. */
		if (err && !probes[i]->unsupported)
			probes[i]->unsupported = err == -ENOMEM ? "no_memory_for_probe_caches" :
							   "kmem_cache_name_not_found";
	}
	if (err)
		pr_warn("memscope: slabtop unavailable: %s\n", err == -ENOMEM ?
			"could not create its two probe caches" :
			"the cache name was not found in struct kmem_cache");
	return ms_probe_add_all(probes, ARRAY_SIZE(probes)) ?: ms_table_add(&ms_table_slab);
}

const struct ms_family ms_slabtop_family __refconst = {
	.init = ms_slabtop_init,
};
