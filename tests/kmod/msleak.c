// SPDX-License-Identifier: GPL-2.0
/*
 * msleak: known slab allocations from known functions.
 * Copyright (C) 2026 The memscope authors.
 *
 * A test fixture, not part of memscope.  At load it makes `kmallocs`
 * kmalloc(256) calls from msleak_kmalloc_site() and `cache_allocs`
 * kmem_cache_alloc() calls on its own 200-byte cache from
 * msleak_cache_site(), then frees the first `kfrees` and `cache_frees` of
 * them, and `pages0` order-0 and `pages2` order-2 alloc_pages() calls
 * from msleak_pages_site(), freeing the first `pfrees0` and `pfrees2`.
 * What memscope's memleak file must show at those three sites is then
 * exactly (kmallocs - kfrees) allocations of 256 bytes, (cache_allocs -
 * cache_frees) of 200, and (pages0 - pfrees0) of 4 KiB plus (pages2 -
 * pfrees2) of 16 KiB.  At unload it frees the rest: nothing is left.
 * The cache has a constructor so that SLUB never merges it into another.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>

#define MAX_OBJS 4096

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

static void *kobjs[MAX_OBJS], *cobjs[MAX_OBJS];
static struct kmem_cache *msleak_cache;

static void msleak_ctor(void *obj)
{
}

/* The store after the call keeps it from being a tail call. */
static noinline int msleak_kmalloc_site(int i)
{
	kobjs[i] = kmalloc(256, GFP_KERNEL);
	return kobjs[i] ? 0 : -ENOMEM;
}

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

static void msleak_free_all(void)
{
	int i;

	for (i = 0; i < MAX_PAGES; i++) {
		if (p0[i])
			__free_pages(p0[i], 0);
		if (p2[i])
			__free_pages(p2[i], 2);
		p0[i] = p2[i] = NULL;
	}

	for (i = 0; i < MAX_OBJS; i++) {
		kfree(kobjs[i]);
		kobjs[i] = NULL;
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
	    pages2 < 0 || pages2 > MAX_PAGES || pfrees2 < 0 || pfrees2 > pages2)
		return -EINVAL;
	msleak_cache = kmem_cache_create("msleak_cache", 200, 0, 0, msleak_ctor);
	if (!msleak_cache)
		return -ENOMEM;
	for (i = 0; i < kmallocs; i++)
		if (msleak_kmalloc_site(i))
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
	pr_info("msleak: outstanding %d x 256 bytes at msleak_kmalloc_site, %d x 200 at msleak_cache_site, %d x 4096 + %d x 16384 at msleak_pages_site\n",
		kmallocs - kfrees, cache_allocs - cache_frees, pages0 - pfrees0, pages2 - pfrees2);
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
