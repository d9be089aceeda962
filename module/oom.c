// SPDX-License-Identifier: GPL-2.0
/*
 * Placeholder: the oom probes are not written yet.
 * Copyright (C) 2026 The memscope authors.
 */
#include "memscope.h"

int ms_oom_init(void)
{
	return 0;
}
