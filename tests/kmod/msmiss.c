// SPDX-License-Identifier: GPL-2.0
/*
 * msmiss: make a kprobe miss an exactly known number of hits.
 * Copyright (C) 2026 The memscope authors.
 *
 * A test fixture, not part of memscope.  msmiss_target() is a function for
 * another module's kprobe to sit on (memscope's, through its
 * target_override parameter).  This module's own kprobe on msmiss_outer()
 * calls msmiss_target() `nested` times from inside its handler, where the
 * kernel cannot run a second kprobe handler on the same CPU: each of those
 * calls is a missed hit of the probe on msmiss_target(), counted in its
 * nmissed.  Writing N to `run` calls msmiss_outer() N times and
 * msmiss_target() `direct` times, outside any handler (hits).
 *
 *   echo 7 > /sys/module/msmiss/parameters/nested
 *   echo 11 > /sys/module/msmiss/parameters/direct
 *   echo 5 > /sys/module/msmiss/parameters/run	(5 * 7 misses, 11 hits)
 */
#include <linux/kprobes.h>
#include <linux/module.h>

static unsigned int nested = 1;
module_param(nested, uint, 0600);
MODULE_PARM_DESC(nested, "calls of msmiss_target() from inside the handler, per msmiss_outer()");
static unsigned int direct;
module_param(direct, uint, 0600);
MODULE_PARM_DESC(direct, "calls of msmiss_target() outside any handler, per write to run");
static unsigned int inner;
module_param(inner, uint, 0400);
MODULE_PARM_DESC(inner, "calls made from inside the handler so far");

void msmiss_target(void);
void msmiss_outer(void);

/* Not inlined, and not folded away: each call must reach its entry. */
noinline void msmiss_target(void)
{
	barrier();
}
EXPORT_SYMBOL_GPL(msmiss_target);

noinline void msmiss_outer(void)
{
	barrier();
}
EXPORT_SYMBOL_GPL(msmiss_outer);

static int msmiss_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned int i, n = READ_ONCE(nested);

	for (i = 0; i < n; i++)
		msmiss_target();
	inner += n;
	return 0;
}

static struct kprobe msmiss_kp = {
	.symbol_name = "msmiss_outer",
	.pre_handler = msmiss_pre,
};

static int msmiss_run(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int err = kstrtouint(val, 0, &n);

	if (err)
		return err;
	for (i = 0; i < n; i++)
		msmiss_outer();
	n = READ_ONCE(direct);
	for (i = 0; i < n; i++)
		msmiss_target();
	return 0;
}

static const struct kernel_param_ops msmiss_run_ops = {
	.set = msmiss_run,
};
module_param_cb(run, &msmiss_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write N: N calls of msmiss_outer(), then `direct` of msmiss_target()");

static int __init msmiss_init(void)
{
	return register_kprobe(&msmiss_kp);
}

static void __exit msmiss_exit(void)
{
	unregister_kprobe(&msmiss_kp);
}

module_init(msmiss_init);
module_exit(msmiss_exit);
MODULE_DESCRIPTION("memscope test fixture: a kprobe that misses a known number of hits");
MODULE_LICENSE("GPL");
