// SPDX-License-Identifier: GPL-2.0
/*
 * msshrink: a shrinker whose scan_objects kallsyms cannot name.
 * Copyright (C) 2026 The memscope authors.
 *
 * A test fixture, not part of memscope.  Its shrinker holds POOL objects;
 * each scan frees what it is asked to, until none are left.  The Makefile
 * strips every symbol the module does not need to load, and the two
 * callbacks come first in its text, so no symbol at or below their address
 * is left for %ps: the kernel prints such a function as a raw address.
 * memscope must print a fixed name instead.  The module logs whether %ps
 * named the function (the fixture works only if it did not), and at unload
 * how many counts found objects and how many objects the scans freed: what
 * memscope's row must say.
 */
#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/shrinker.h>
#include <linux/version.h>

#define POOL 1000

static atomic_long_t ms_test_pool = ATOMIC_LONG_INIT(POOL);
static atomic_long_t ms_test_counted = ATOMIC_LONG_INIT(0);
static atomic_long_t ms_test_freed = ATOMIC_LONG_INIT(0);
static bool ms_test_checked;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(3, 12, 0)
/* First in the file, so first in .text, below every other function. */
static unsigned long ms_test_count(struct shrinker *s, struct shrink_control *sc)
{
	long n = atomic_long_read(&ms_test_pool);

	if (n <= 0)
		return 0;
	/* memscope counts the do_shrink_slab() calls that get past here. */
	atomic_long_inc(&ms_test_counted);
	return n;
}

static unsigned long ms_test_scan(struct shrinker *s, struct shrink_control *sc)
{
	long n = min_t(long, sc->nr_to_scan, atomic_long_read(&ms_test_pool));

	if (!READ_ONCE(ms_test_checked)) {
		char buf[KSYM_SYMBOL_LEN];

		WRITE_ONCE(ms_test_checked, true);
		snprintf(buf, sizeof(buf), "%ps", ms_test_scan);
		if (strncmp(buf, "0x", 2))
			pr_info("msshrink: kallsyms names scan_objects: %s\n", buf);
		else
			pr_info("msshrink: kallsyms cannot name scan_objects\n");
	}
	if (n <= 0)
		return SHRINK_STOP;
	atomic_long_sub(n, &ms_test_pool);
	atomic_long_add(n, &ms_test_freed);
	return n;
}

#else
/*
 * Before 3.12 (RHEL 7's 3.10 too) a shrinker has one callback, shrink: it
 * returns the objects left, and with nr_to_scan 0 only counts them.
 * shrink_slab() counts once per shrinker, and only a count that finds
 * objects leads to the shrink_slab_start/end pair memscope counts; its
 * loop then counts again before each scan.  So a scan takes back the
 * count just before it: what is left is one per pair.
 */
static bool ms_test_found;

static int ms_test_shrink(struct shrinker *s, struct shrink_control *sc)
{
	long n = atomic_long_read(&ms_test_pool);

	if (!sc->nr_to_scan) {
		WRITE_ONCE(ms_test_found, n > 0);
		if (n <= 0)
			return 0;
		atomic_long_inc(&ms_test_counted);
		return n;
	}
	if (READ_ONCE(ms_test_found))
		atomic_long_dec(&ms_test_counted);
	WRITE_ONCE(ms_test_found, false);
	if (!READ_ONCE(ms_test_checked)) {
		char buf[KSYM_SYMBOL_LEN];

		WRITE_ONCE(ms_test_checked, true);
		snprintf(buf, sizeof(buf), "%ps", ms_test_shrink);
		if (strncmp(buf, "0x", 2))
			pr_info("msshrink: kallsyms names scan_objects: %s\n", buf);
		else
			pr_info("msshrink: kallsyms cannot name scan_objects\n");
	}
	n = min_t(long, sc->nr_to_scan, n);
	if (n > 0) {
		atomic_long_sub(n, &ms_test_pool);
		atomic_long_add(n, &ms_test_freed);
	}
	return atomic_long_read(&ms_test_pool);
}
#endif

/*
 * The shrinker API: count_objects and scan_objects from 3.12, a name from
 * 6.0, allocated shrinkers from 6.7.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
static struct shrinker *ms_test_shrinker;

static int __init ms_test_init(void)
{
	ms_test_shrinker = shrinker_alloc(0, "msshrink");
	if (!ms_test_shrinker)
		return -ENOMEM;
	ms_test_shrinker->count_objects = ms_test_count;
	ms_test_shrinker->scan_objects = ms_test_scan;
	ms_test_shrinker->seeks = DEFAULT_SEEKS;
	shrinker_register(ms_test_shrinker);
	return 0;
}

static void __exit ms_test_exit(void)
{
	shrinker_free(ms_test_shrinker);
	pr_info("msshrink: counted %ld freed %ld\n",
		atomic_long_read(&ms_test_counted), atomic_long_read(&ms_test_freed));
}
#else
static struct shrinker ms_test_shrinker = {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(3, 12, 0)
	.count_objects = ms_test_count,
	.scan_objects = ms_test_scan,
#else
	.shrink = ms_test_shrink,
#endif
	.seeks = DEFAULT_SEEKS,
};

static int __init ms_test_init(void)
{
#if defined(MS_REGISTER_SHRINKER_NAMED)	/* 6.0, and RHEL 9.6 (Kbuild) */
	return register_shrinker(&ms_test_shrinker, "msshrink");
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(3, 12, 0)
	return register_shrinker(&ms_test_shrinker);
#else
	register_shrinker(&ms_test_shrinker);	/* void before 3.12 */
	return 0;
#endif
}

static void __exit ms_test_exit(void)
{
	unregister_shrinker(&ms_test_shrinker);
	pr_info("msshrink: counted %ld freed %ld\n",
		atomic_long_read(&ms_test_counted), atomic_long_read(&ms_test_freed));
}
#endif

module_init(ms_test_init);
module_exit(ms_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memscope test fixture: a shrinker kallsyms cannot name");
