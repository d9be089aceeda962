// SPDX-License-Identifier: GPL-2.0
/*
 * Test seams for a test build of the CLI (build/cli/memscope-test), in
 * place of userspace/noseams.c.  tests/host/run.sh drives the CLI without
 * a kernel through them:
 *   MEMSCOPE_TEST_STEPS=1: read number k of a file comes from DIR/k/ (the
 *     last one that exists) and the interval sleep is skipped;
 *   MEMSCOPE_TEST_SYSROOT=DIR: /proc/mounts, the lockdown file and the
 *     memscope directories are read under DIR.
 * Copyright (C) 2026 The memscope authors.
 */
#include <stdlib.h>
#include <string.h>

#include "memscope.h"

bool ms_test_steps(void)
{
	static int on = -1;
	const char *e;

	if (on < 0) {
		e = getenv("MEMSCOPE_TEST_STEPS");
		on = e && *e && strcmp(e, "0");
	}
	return on;
}

const char *ms_test_sysroot(void)
{
	const char *root = getenv("MEMSCOPE_TEST_SYSROOT");

	return root && *root ? root : NULL;
}
