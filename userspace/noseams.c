// SPDX-License-Identifier: GPL-2.0
/*
 * The product's answer to the test seams: there are none.  The test build
 * (build/cli/memscope-test) links tests/cli/seams.c instead, which replays
 * numbered snapshots and reads a fake root; this binary reads no
 * MEMSCOPE_TEST_* variable, so nothing in a user's environment can make
 * it skip a sleep or read another tree.
 * Copyright (C) 2026 The memscope authors.
 */
#include "memscope.h"

bool ms_test_steps(void)
{
	return false;
}

const char *ms_test_sysroot(void)
{
	return NULL;
}
