/* SPDX-License-Identifier: GPL-2.0 */
/*
 * [3.10, 4.11): linux/sched.h declared what linux/sched/task_stack.h declares
 * from 4.11.  On the include path only of a tree that lacks one of them,
 * after the tree's own (Kbuild).
 */
#include <linux/sched.h>
