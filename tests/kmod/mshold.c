// SPDX-License-Identifier: GPL-2.0
/*
 * mshold: hold one task inside zswap's load path, on demand.
 * Copyright (C) 2026 The memscope authors.
 *
 * A test fixture, not part of memscope.  A kprobe on the function zswap's
 * load calls to decompress (zswap_decompress on 6.12, upstream's
 * __zswap_load before it on RHEL 9.6, zswap_frontswap_load on 6.1)
 * spins, once armed, in the first call made by task `pid`, until
 * `release` is set (or 10 s pass): the task is then between memscope's
 * entry and return handlers on the zswap load, the window a `reset` must
 * not break.  `held` says the task is in there; `arm` goes back to 0.
 *
 *   echo PID > /sys/module/mshold/parameters/pid
 *   echo 1 > /sys/module/mshold/parameters/arm
 *   (wait for held = 1)  ...  echo 1 > /sys/module/mshold/parameters/release
 */
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>

static int pid;
module_param(pid, int, 0600);
MODULE_PARM_DESC(pid, "the process (tgid) to hold");
static int arm;
module_param(arm, int, 0600);
MODULE_PARM_DESC(arm, "1: hold the next call by pid");
static int release;
module_param(release, int, 0600);
MODULE_PARM_DESC(release, "1: let the held task go");
static int held;
module_param(held, int, 0400);
MODULE_PARM_DESC(held, "1 while a task is held, then 2 once it went on");

static const char *const mshold_symbols[] = {
	"zswap_decompress", "__zswap_load", "zswap_frontswap_load"
};

static int mshold_pre(struct kprobe *kp, struct pt_regs *regs)
{
	int i;

	if (current->tgid != READ_ONCE(pid) || cmpxchg(&arm, 1, 0) != 1)
		return 0;
	WRITE_ONCE(held, 1);
	/* Probe context: preemption is off, so spin, bounded, never sleep. */
	for (i = 0; i < 100000 && !READ_ONCE(release); i++)
		udelay(100);
	WRITE_ONCE(held, 2);
	return 0;
}

static struct kprobe mshold_kp = { .pre_handler = mshold_pre };

static int __init mshold_init(void)
{
	int i, err = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(mshold_symbols); i++) {
		mshold_kp.symbol_name = mshold_symbols[i];
		err = register_kprobe(&mshold_kp);
		if (!err) {
			pr_info("mshold: on %s\n", mshold_symbols[i]);
			return 0;
		}
		memset(&mshold_kp, 0, sizeof(mshold_kp));
		mshold_kp.pre_handler = mshold_pre;
	}
	pr_err("mshold: none of zswap_decompress, __zswap_load, zswap_frontswap_load can be probed (%d)\n", err);
	return err;
}

static void __exit mshold_exit(void)
{
	WRITE_ONCE(release, 1);
	unregister_kprobe(&mshold_kp);
}

module_init(mshold_init);
module_exit(mshold_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memscope test fixture: hold a task inside zswap's load");
