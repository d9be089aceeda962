// SPDX-License-Identifier: GPL-2.0
/*
 * A test build of the CLI's reader: prints the text the CLI reads for
 * each file NAME, from the module's files or, with --netlink, rendered from
 * its netlink family, so a test can compare the two byte for byte with the
 * parsers out of the way.  usage: msread [--netlink] NAME...
 * Copyright (C) 2026 The memscope authors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"
#include "nl.h"

int main(int argc, char **argv)
{
	int i = 1, ret = 0;
	size_t len;
	char *data;

	if (i < argc && !strcmp(argv[i], "--netlink")) {
		if (ms_nl_use())
			return 1;
		i++;
	} else if (ms_locate_dir(NULL)) {
		return 1;
	}
	if (i == argc) {
		fprintf(stderr, "usage: msread [--netlink] NAME...\n");
		return 1;
	}
	for (; i < argc; i++) {
		if (ms_read(argv[i], &data, &len)) {
			ret = 1;
			continue;
		}
		fwrite(data, 1, len, stdout);
		free(data);
	}
	return ret;
}
