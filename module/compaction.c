// SPDX-License-Identifier: GPL-2.0
/*
 * Placeholder: the compaction probes are not written yet.
 * Copyright (C) 2026 The memscope authors.
 */
#include "memscope.h"

int ms_compaction_init(void)
{
	return 0;
}
