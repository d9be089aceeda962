// SPDX-License-Identifier: GPL-2.0
/*
 * memscope: the memory chapter of BPF Performance Tools, as one module.
 * Copyright (C) 2026 The memscope authors.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "memscope.h"

unsigned int ms_table_size = 1024;
module_param_named(table_size, ms_table_size, uint, 0400);
MODULE_PARM_DESC(table_size, "Rows per table (rounded up to a power of two, 16..65536)");

/* Frames per user stack (ustack.c), in each row of the stack tables. */
unsigned int ms_ustack_depth = 32;
module_param_named(ustack_depth, ms_ustack_depth, uint, 0400);
MODULE_PARM_DESC(ustack_depth, "Frames kept per user stack, in faults_by_stack and brk_by_stack (1..127)");

unsigned int ms_ring_size = 256;
module_param_named(ring_size, ms_ring_size, uint, 0400);
MODULE_PARM_DESC(ring_size, "Events kept in the events stream and in each event ring but oom (16..65536)");

/*
 * OOM kills have a ring of their own size: a reader of the events stream
 * that lost kills behind other events gets them from it (events.c).
 */
unsigned int ms_oom_ring_size = 64;
module_param_named(oom_ring_size, ms_oom_ring_size, uint, 0400);
MODULE_PARM_DESC(oom_ring_size, "OOM kills kept in the oom ring, and recoverable by a reader of the events stream that fell behind (16..65536)");

/*
 * Everything memscope allocates is fixed at load: this is the whole
 * footprint, reported in `version` (the README gives it in numbers):
 *   10 tables * table_size * sizeof(struct ms_row)
 * + (oom_ring_size + 5 * ring_size) * sizeof(struct ms_event): the oom
 *   ring, the other event types' rings (4) and the events stream
 * + cpus * the module's per-CPU section (stats, histograms)
 * + cpus * each probe's hit counter, and kretprobe instances
 *   (maxactive * (instance + data)): ms_probes_bytes()
 * + begin/end pairing slots (pair.c, fixed)
 * + memleak's table (memleak_size * its 64-byte slot)
 * + the swap residency table (swap_residency_size * its 32-byte slot)
 * + the stack tables' frames (2 * table_size * ustack_depth * 8).
 * The module's own text and data are not in it: lsmod shows those.
 */
size_t ms_footprint(void)
{
	size_t bytes = ms_tables_bytes() + ms_events_bytes() + ms_pairs_bytes() +
		       ms_families_bytes() + ms_probes_bytes();

	/*
	 * The loader reserves the whole .data..percpu section per CPU,
	 * alignment padding included, not just the sum of the variables.
	 */
	if (IS_ENABLED(CONFIG_SMP))
		bytes += num_possible_cpus() * ms_module_percpu_size(THIS_MODULE);
	else
		bytes += ms_stats_percpu_bytes();
	return bytes;
}

/* The families' descriptors, in memscope.h's order. */
#define MS_FAMILY_PTR(name) &ms_##name##_family,
static const struct ms_family *const ms_families[] = { MS_FAMILIES(MS_FAMILY_PTR) };

/* The first @n families' exits, last first. */
static void ms_families_exit(int n)
{
	while (n--)
		if (ms_families[n]->exit)
			ms_families[n]->exit();
}

/* What a reset clears beyond the stats, histograms, tables and rings. */
void ms_families_reset(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms_families); i++)
		if (ms_families[i]->reset)
			ms_families[i]->reset();
}

size_t ms_families_bytes(void)
{
	size_t bytes = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms_families); i++)
		if (ms_families[i]->bytes)
			bytes += ms_families[i]->bytes();
	return bytes;
}

/* Each family's lines of `version`, in the families' order. */
void ms_families_version(struct seq_file *m)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms_families); i++)
		if (ms_families[i]->version)
			ms_families[i]->version(m);
}

static int __init memscope_init(void)
{
	int err, i;

	ms_table_size = clamp(ms_table_size, 16U, 65536U);
	ms_ring_size = clamp(ms_ring_size, 16U, 65536U);
	ms_oom_ring_size = clamp(ms_oom_ring_size, 16U, 65536U);

	/* Parameters first: a bad one fails the load before anything is set up. */
	if (ms_ustack_depth < 1 || ms_ustack_depth > MS_USTACK_MAX_DEPTH) {
		pr_err("memscope: ustack_depth=%u: use 1 to %u frames\n", ms_ustack_depth,
		       MS_USTACK_MAX_DEPTH);
		return -EINVAL;
	}
	err = ms_events_init();
	if (err)
		return err;

	/* Families only register their probes and tables here; nothing fires yet. */
	for (i = 0; i < ARRAY_SIZE(ms_families); i++) {
		err = ms_families[i]->init();
		if (err)
			goto err_families;
	}
	err = ms_tables_init();
	if (err)
		goto err_families;
	err = ms_fs_init();
	if (err)
		goto err_tables;
	err = ms_probes_init();
	if (err)
		goto err_fs;
	ms_genl_init();
	pr_info("memscope %s loaded, %zu bytes\n", MEMSCOPE_VERSION, ms_footprint());
	return 0;

err_fs:
	ms_fs_exit();
err_tables:
	ms_tables_exit();
err_families:
	ms_families_exit(i);
	ms_probes_release();
	ms_events_exit();
	return err;
}

static void __exit memscope_exit(void)
{
	ms_genl_exit();
	ms_probes_exit();
	/* No handler runs now, and no file is open: what they use can go. */
	ms_fs_exit();
	ms_families_exit(ARRAY_SIZE(ms_families));
	ms_probes_release();
	ms_events_exit();
	ms_tables_exit();
	pr_info("memscope unloaded\n");
}

module_init(memscope_init);
module_exit(memscope_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The memscope authors");
MODULE_DESCRIPTION("Memory observability without BPF: faults, swap, OOM, reclaim, compaction");
MODULE_VERSION(MEMSCOPE_VERSION);
