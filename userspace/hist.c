// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#include <string.h>

#include "memscope.h"

#define BAR_WIDTH 52

/*
 * bpftrace's log2 layout: "@name:", then from the first to the last non-empty
 * bucket a 16-wide label, an 8-wide count and a 52-wide bar scaled to the
 * largest bucket. JSON gets inclusive min/max per bucket, as bpftrace -f json.
 */
void ms_print_hist(const char *name, const struct ms_buckets *h)
{
	char label[48], bar[BAR_WIDTH + 1];
	uint64_t max = 0;
	int i, first = -1, last = -1;
	size_t w;

	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++) {
		if (!h->slot[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (h->slot[i] > max)
			max = h->slot[i];
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "@%s:\n", name);
	print_uint(PRINT_JSON, "count", NULL, h->count);
	if (h->has_totals)
		print_uint(PRINT_JSON, "sum", NULL, h->sum);
	open_json_array("buckets");
	for (i = first; first >= 0 && i <= last; i++) {
		memscope_hist_label(label, sizeof(label), i);
		w = max ? (size_t)((long double)h->slot[i] * BAR_WIDTH / max) : 0;
		memset(bar, '@', w);
		memset(bar + w, ' ', BAR_WIDTH - w);
		bar[BAR_WIDTH] = '\0';
		open_json_object(NULL);
		print_string(PRINT_FP, NULL, "%-16s", label);
		print_uint(PRINT_JSON, "min", NULL, memscope_hist_lo(i));
		print_uint(PRINT_JSON, "max", NULL, memscope_hist_hi(i));
		print_uint(PRINT_ANY, "count", "%8llu", h->slot[i]);
		print_string(PRINT_FP, NULL, " |%s|\n", bar);
		close_json_object();
	}
	close_json_array();
	if (first < 0)
		print_fp("(no events)\n");
	print_nl();
	close_json_object();
}

int ms_hist_median_slot(const struct ms_buckets *h)
{
	uint64_t n = 0, seen = 0;
	int i;

	for (i = 0; i < MEMSCOPE_HIST_BUCKETS; i++)
		n += h->slot[i];
	for (i = 0; n && i < MEMSCOPE_HIST_BUCKETS; i++) {
		seen += h->slot[i];
		if (seen >= (n + 1) / 2)
			return i;
	}
	return -1;
}
