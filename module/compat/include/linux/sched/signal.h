/* SPDX-License-Identifier: GPL-2.0 */
/*
 * [4.9, 4.11): linux/sched.h declared what linux/sched/signal.h declares
 * from 4.11.  Only on the include path of a tree without linux/sched/ (Kbuild).
 */
#include <linux/sched.h>
