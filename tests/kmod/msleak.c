// SPDX-License-Identifier: GPL-2.0
/*
 * msleak: known slab allocations from known functions.
 * Copyright (C) 2026 The memscope authors.
 *
 * A test fixture, not part of memscope.  At load it makes `kmallocs`
 * kmalloc(256) calls (`kmalloc_size`, 256 unless given) from
 * msleak_kmalloc_site() and `cache_allocs`
 * kmem_cache_alloc() calls on its own 200-byte cache from
 * msleak_cache_site(), then frees the first `kfrees` and `cache_frees` of
 * them, and `pages0` order-0 and `pages2` order-2 alloc_pages() calls
 * from msleak_pages_site(), freeing the first `pfrees0` and `pfrees2`.
 * What memscope's memleak file must show at those three sites is then
 * exactly (kmallocs - kfrees) allocations of 256 bytes, (cache_allocs -
 * cache_frees) of 200, and (pages0 - pfrees0) of 4 KiB plus (pages2 -
 * pfrees2) of 16 KiB.
 *
 * It also makes `pcpus` alloc_percpu() calls of 64 bytes from
 * msleak_percpu_site() and frees the first `pcpufrees`: (pcpus -
 * pcpufrees) x 64 bytes on each possible CPU remain there.  And it makes
 * `irqobjs` kmalloc(128) calls from msleak_irq_site() that an hrtimer
 * frees when 1 is written to the `irqfree` parameter: in hard-irq
 * context, or in softirq context on PREEMPT_RT, where the slab allocator's
 * locks sleep and nothing may free in hard irq.  `irqfreed` then counts
 * the objects freed, and `irqctx` says where: 1 hardirq, 2 softirq, 3 task.
 *
 * And `lost` kmalloc(96) calls from msleak_lost_site() whose pointers
 * it keeps only XORed with a constant: kmemleak finds no reference to
 * them and reports them as leaks, while msleak can still free them.
 *
 * Writing N to the `more` parameter makes N more kmalloc(kmalloc_size)
 * calls from msleak_kmalloc_site(), kept until unload: a second batch of
 * known age at the same site.
 *
 * At unload it frees the rest: nothing is left.  The cache has a
 * constructor so that SLUB never merges it into another.
 */
#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/version.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#define MAX_OBJS 4096

/* A size between kmalloc's classes (100) tells bytes asked from bytes given. */
/* Not "kmalloc_size": older kernels (4.9) have a function of that name. */
static int kmalloc_bytes = 256;
module_param_named(kmalloc_size, kmalloc_bytes, int, 0400);

static int kmallocs = 100, kfrees = 40, cache_allocs = 30, cache_frees = 10;
module_param(kmallocs, int, 0400);
module_param(kfrees, int, 0400);
module_param(cache_allocs, int, 0400);
module_param(cache_frees, int, 0400);
static int pages0 = 8, pfrees0 = 3, pages2 = 4, pfrees2 = 1;
module_param(pages0, int, 0400);
module_param(pfrees0, int, 0400);
module_param(pages2, int, 0400);
module_param(pfrees2, int, 0400);

#define MAX_PAGES 64
static struct page *p0[MAX_PAGES], *p2[MAX_PAGES];

static int pcpus = 6, pcpufrees = 2, irqobjs = 50, lost;
module_param(lost, int, 0400);
#define MSLEAK_HIDE 0xa5a5a5a5a5a5a5a5UL
static unsigned long lobjs[MAX_OBJS];	/* pointer ^ MSLEAK_HIDE, or 0 */
module_param(pcpus, int, 0400);
module_param(pcpufrees, int, 0400);
module_param(irqobjs, int, 0400);

struct msleak_pcpu {
	u64 v[8];
};

static struct msleak_pcpu __percpu *pc[MAX_PAGES];
static void *iobjs[MAX_OBJS];
static struct hrtimer irq_timer;
static atomic_t irq_timer_armed = ATOMIC_INIT(0);
static int irqfreed, irqctx;
module_param(irqfreed, int, 0444);
module_param(irqctx, int, 0444);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 4, 0)
#define MSLEAK_TIMER_MODE (IS_ENABLED(CONFIG_PREEMPT_RT) ? HRTIMER_MODE_REL_SOFT : \
			   HRTIMER_MODE_REL_HARD)
#else
/* Before 5.4 (no _HARD/_SOFT modes, no PREEMPT_RT in mainline): hardirq. */
#define MSLEAK_TIMER_MODE HRTIMER_MODE_REL
#endif

static enum hrtimer_restart msleak_irq_free(struct hrtimer *t)
{
	int i, n = 0;

	WRITE_ONCE(irqctx, hardirq_count() ? 1 : in_serving_softirq() ? 2 : 3);
	for (i = 0; i < irqobjs; i++) {
		if (iobjs[i]) {
			kfree(iobjs[i]);
			iobjs[i] = NULL;
			n++;
		}
	}
	WRITE_ONCE(irqfreed, n);
	return HRTIMER_NORESTART;
}

static int msleak_irqfree_set(const char *val, const struct kernel_param *kp)
{
	if (!sysfs_streq(val, "1"))
		return -EINVAL;
	if (atomic_xchg(&irq_timer_armed, 1))
		return -EBUSY;
	hrtimer_start(&irq_timer, ns_to_ktime(1000000), MSLEAK_TIMER_MODE);
	return 0;
}

static const struct kernel_param_ops msleak_irqfree_ops = {
	.set = msleak_irqfree_set,
	.get = param_get_int,
};
static int irqfree;
module_param_cb(irqfree, &msleak_irqfree_ops, &irqfree, 0600);

static void *kobjs[MAX_OBJS], *cobjs[MAX_OBJS];
static struct kmem_cache *msleak_cache;

static void msleak_ctor(void *obj)
{
}

/* The store after the call keeps it from being a tail call. */
static noinline int msleak_kmalloc_site(int i)
{
	kobjs[i] = kmalloc(kmalloc_bytes, GFP_KERNEL);
	return kobjs[i] ? 0 : -ENOMEM;
}

/* kobjs[] in use: kmallocs at load, then each write to `more`. */
static int nkobjs;
static DEFINE_MUTEX(more_lock);

static int msleak_more_set(const char *val, const struct kernel_param *kp)
{
	int n, i, err;

	err = kstrtoint(val, 0, &n);
	if (err)
		return err;
	mutex_lock(&more_lock);
	if (n <= 0 || n > MAX_OBJS - nkobjs) {
		mutex_unlock(&more_lock);
		return -EINVAL;
	}
	for (i = 0; i < n && !err; i++)
		err = msleak_kmalloc_site(nkobjs++);
	mutex_unlock(&more_lock);
	return err;
}

static const struct kernel_param_ops msleak_more_ops = {
	.set = msleak_more_set,
	.get = param_get_int,
};
static int more;
module_param_cb(more, &msleak_more_ops, &more, 0600);

static noinline int msleak_cache_site(int i)
{
	cobjs[i] = kmem_cache_alloc(msleak_cache, GFP_KERNEL);
	return cobjs[i] ? 0 : -ENOMEM;
}

static noinline int msleak_pages_site(struct page **slot, unsigned int order)
{
	*slot = alloc_pages(GFP_KERNEL, order);
	return *slot ? 0 : -ENOMEM;
}

static noinline int msleak_percpu_site(int i)
{
	pc[i] = alloc_percpu(struct msleak_pcpu);
	return pc[i] ? 0 : -ENOMEM;
}

static noinline int msleak_lost_site(int i)
{
	void *p = kmalloc(96, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	WRITE_ONCE(lobjs[i], (unsigned long)p ^ MSLEAK_HIDE);
	return 0;
}

static noinline int msleak_irq_site(int i)
{
	iobjs[i] = kmalloc(128, GFP_KERNEL);
	return iobjs[i] ? 0 : -ENOMEM;
}

static void msleak_free_all(void)
{
	int i;

	hrtimer_cancel(&irq_timer);
	for (i = 0; i < MAX_PAGES; i++) {
		if (p0[i])
			__free_pages(p0[i], 0);
		if (p2[i])
			__free_pages(p2[i], 2);
		free_percpu(pc[i]);
		p0[i] = p2[i] = NULL;
		pc[i] = NULL;
	}

	for (i = 0; i < MAX_OBJS; i++) {
		kfree(kobjs[i]);
		kobjs[i] = NULL;
		kfree(iobjs[i]);
		iobjs[i] = NULL;
		if (lobjs[i])
			kfree((void *)(lobjs[i] ^ MSLEAK_HIDE));
		lobjs[i] = 0;
		if (cobjs[i])
			kmem_cache_free(msleak_cache, cobjs[i]);
		cobjs[i] = NULL;
	}
}

static int __init msleak_init(void)
{
	int i;

	if (kmallocs < 0 || kmallocs > MAX_OBJS || cache_allocs < 0 || cache_allocs > MAX_OBJS ||
	    kfrees < 0 || kfrees > kmallocs || cache_frees < 0 || cache_frees > cache_allocs ||
	    pages0 < 0 || pages0 > MAX_PAGES || pfrees0 < 0 || pfrees0 > pages0 ||
	    pages2 < 0 || pages2 > MAX_PAGES || pfrees2 < 0 || pfrees2 > pages2 ||
	    pcpus < 0 || pcpus > MAX_PAGES || pcpufrees < 0 || pcpufrees > pcpus ||
	    irqobjs < 0 || irqobjs > MAX_OBJS || lost < 0 || lost > MAX_OBJS)
		return -EINVAL;
	hrtimer_init(&irq_timer, CLOCK_MONOTONIC, MSLEAK_TIMER_MODE);
	irq_timer.function = msleak_irq_free;
	msleak_cache = kmem_cache_create("msleak_cache", 200, 0, 0, msleak_ctor);
	if (!msleak_cache)
		return -ENOMEM;
	for (nkobjs = 0; nkobjs < kmallocs; nkobjs++)
		if (msleak_kmalloc_site(nkobjs))
			goto nomem;
	for (i = 0; i < cache_allocs; i++)
		if (msleak_cache_site(i))
			goto nomem;
	for (i = 0; i < pages0; i++)
		if (msleak_pages_site(&p0[i], 0))
			goto nomem;
	for (i = 0; i < pages2; i++)
		if (msleak_pages_site(&p2[i], 2))
			goto nomem;
	for (i = 0; i < pcpus; i++)
		if (msleak_percpu_site(i))
			goto nomem;
	for (i = 0; i < irqobjs; i++)
		if (msleak_irq_site(i))
			goto nomem;
	for (i = 0; i < lost; i++)
		if (msleak_lost_site(i))
			goto nomem;
	for (i = 0; i < pcpufrees; i++) {
		free_percpu(pc[i]);
		pc[i] = NULL;
	}
	for (i = 0; i < pfrees0; i++) {
		__free_pages(p0[i], 0);
		p0[i] = NULL;
	}
	for (i = 0; i < pfrees2; i++) {
		__free_pages(p2[i], 2);
		p2[i] = NULL;
	}
	for (i = 0; i < kfrees; i++) {
		kfree(kobjs[i]);
		kobjs[i] = NULL;
	}
	for (i = 0; i < cache_frees; i++) {
		kmem_cache_free(msleak_cache, cobjs[i]);
		cobjs[i] = NULL;
	}
	pr_info("msleak: outstanding %d x %d bytes at msleak_kmalloc_site, %d x 200 at msleak_cache_site, %d x 4096 + %d x 16384 at msleak_pages_site, %d x 64 per CPU at msleak_percpu_site, %d x 128 at msleak_irq_site, %d x 96 at msleak_lost_site\n",
		kmallocs - kfrees, kmalloc_bytes, cache_allocs - cache_frees, pages0 - pfrees0, pages2 - pfrees2,
		pcpus - pcpufrees, irqobjs, lost);
	return 0;
nomem:
	msleak_free_all();
	kmem_cache_destroy(msleak_cache);
	return -ENOMEM;
}

static void __exit msleak_exit(void)
{
	msleak_free_all();
	kmem_cache_destroy(msleak_cache);
}

module_init(msleak_init);
module_exit(msleak_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memscope test fixture: known slab allocations at known sites");
