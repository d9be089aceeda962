// SPDX-License-Identifier: GPL-2.0
/*
 * Control: the commands the control file (and the netlink family's RESET,
 * ENABLE and DISABLE) carry out, and what a reset clears.
 * Copyright (C) 2026 The memscope authors.
 */
#include <linux/string.h>

#include "memscope.h"

/* Every counter, histogram, table, ring and outstanding allocation. */
void ms_reset_all(void)
{
	ms_stats_reset();
	ms_hist_reset();
	ms_tables_reset();
	ms_events_reset();
	ms_leak_clear();
}

/*
 * One command line, NUL-terminated and writable: "reset", "enable NAME"
 * or "disable NAME", with spaces around; anything else is -EINVAL.
 */
int ms_control(char *line)
{
	char *cmd = strim(line), *arg = strchr(cmd, ' ');

	if (arg) {
		*arg++ = '\0';
		arg = skip_spaces(arg);
		if (!*arg || strchr(arg, ' ') || strchr(arg, '\t'))
			return -EINVAL;
	}
	if (!strcmp(cmd, "reset") && !arg) {
		ms_reset_all();
		return 0;
	}
	if (!strcmp(cmd, "enable") && arg)
		return ms_probe_set(arg, true);
	if (!strcmp(cmd, "disable") && arg)
		return ms_probe_set(arg, false);
	return -EINVAL;
}
