// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "memscope.h"
#include "nl.h"

struct version_info {
	char module[64];
	char kernel[128];
	bool has_memory, has_cpus, has_format, found;
	uint64_t memory_bytes;
	uint64_t cpus;
	uint64_t format;
	char fault_hook[16];
	uint64_t memleak_sample;
};

/*
 * "memscope <version> <kernel>", "memory_bytes N cpus N ...", "format N",
 * "fault_hook NAME", "memleak_size N memleak_sample N"
 */
static int load_version(struct version_info *vi)
{
	char *data, *line2, *tok, *save = NULL, *prev = NULL;
	size_t len;
	int ret;

	memset(vi, 0, sizeof(*vi));
	ret = ms_read_optional("version", &data, &len);
	if (ret < 0)
		return -1;
	if (ret > 0) {
		snprintf(vi->module, sizeof(vi->module), "?");
		snprintf(vi->kernel, sizeof(vi->kernel), "?");
		return 0;
	}
	vi->found = true;
	if (memchr(data, '\0', len))
		len = strlen(data);
	line2 = memchr(data, '\n', len);
	if (line2)
		*line2++ = '\0';
	if (sscanf(data, "memscope %63s %127s", vi->module, vi->kernel) != 2) {
		ms_fail("%s/version is malformed (want \"memscope VERSION KERNEL\"), check that the module version matches this CLI",
			ms_dir());
		free(data);
		return -1;
	}
	if (line2) {
		for (tok = strtok_r(line2, " \t\n", &save); tok;
		     prev = tok, tok = strtok_r(NULL, " \t\n", &save)) {
			if (prev && !strcmp(prev, "memory_bytes"))
				vi->has_memory = ms_parse_u64(tok, &vi->memory_bytes);
			else if (prev && !strcmp(prev, "cpus"))
				vi->has_cpus = ms_parse_u64(tok, &vi->cpus);
			else if (prev && !strcmp(prev, "format"))
				vi->has_format = ms_parse_u64(tok, &vi->format);
			else if (prev && !strcmp(prev, "fault_hook"))
				snprintf(vi->fault_hook, sizeof(vi->fault_hook), "%s", tok);
			else if (prev && !strcmp(prev, "memleak_sample"))
				ms_parse_u64(tok, &vi->memleak_sample);
		}
	}
	free(data);
	return 0;
}

/* Why this CLI cannot read the module's files, or NULL. */
static const char *format_mismatch(const struct version_info *vi)
{
	if (!vi->found)
		return NULL;	/* no version file: each read says what is missing */
	if (!vi->has_format || vi->format < MEMSCOPE_FORMAT)
		return "older";
	if (vi->format > MEMSCOPE_FORMAT)
		return "newer";
	return NULL;
}

/* memleak keeps 1 in this many allocations (1 when version does not say). */
uint64_t ms_memleak_sample(void)
{
	struct version_info vi;

	if (load_version(&vi) || vi.memleak_sample < 1)
		return 1;
	return vi.memleak_sample;
}

/*
 * The module's top-N tables, from version's "tables NAME..." line: *names
 * gets a NULL-terminated array of them (free with ms_free_names()).  0, or
 * 1 when version has no such line (a module built before it), -1 on error.
 */
int ms_module_tables(char ***names)
{
	char *data, *line, *next, *tok, *save = NULL;
	size_t len, n = 0;
	int ret;

	*names = NULL;
	ret = ms_read_optional("version", &data, &len);
	if (ret)
		return ret < 0 ? -1 : 1;
	if (memchr(data, '\0', len))
		len = strlen(data);
	for (line = data; line && line < data + len; line = next) {
		next = memchr(line, '\n', len - (size_t)(line - data));
		if (next)
			*next++ = '\0';
		if (strncmp(line, "tables ", 7))
			continue;
		*names = ms_xcalloc(strlen(line) / 2 + 1, sizeof(**names));
		for (tok = strtok_r(line + 7, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			(*names)[n++] = ms_xstrdup(tok);
		break;
	}
	free(data);
	return *names ? 0 : 1;
}

void ms_free_names(char **names)
{
	char **p;

	for (p = names; p && *p; p++)
		free(*p);
	free(names);
}

int ms_check_format(void)
{
	struct version_info vi;
	if (load_version(&vi))
		return -1;
	if (!format_mismatch(&vi))
		return 0;
	if (vi.has_format)
		ms_fail("the module (memscope %s) writes file format %llu and this CLI (memscope %s) reads format %d, install the CLI and the module of one memscope release (`memscope status` shows both)",
			vi.module, (unsigned long long)vi.format, MEMSCOPE_VERSION, MEMSCOPE_FORMAT);
	else
		ms_fail("the module (memscope %s) is older than file format %d, which this CLI (memscope %s) reads, install the CLI and the module of one memscope release (`memscope status` shows both)",
			vi.module, MEMSCOPE_FORMAT, MEMSCOPE_VERSION);
	return -1;
}

static int cmd_status(const struct ms_opts *o)
{
	struct version_info vi;
	struct ms_probe_lines pr;
	size_t i, wn = 5, wt = 6, ws = 5;
	char fmt[32];

	(void)o;
	if (load_version(&vi) || ms_load_probes(&pr, false))
		return 1;
	for (i = 0; i < pr.n; i++) {
		if (strlen(pr.v[i].name) > wn)
			wn = strlen(pr.v[i].name);
		if (strlen(pr.v[i].target) > wt)
			wt = strlen(pr.v[i].target);
		if (strlen(pr.v[i].state) > ws)
			ws = strlen(pr.v[i].state);
	}
	if (wn > 40) wn = 40;
	if (wt > 40) wt = 40;
	if (ws > 48) ws = 48;

	print_begin_record();
	print_string(PRINT_ANY, "version", "memscope %s", vi.module);
	print_string(PRINT_ANY, "cli_version", " (cli %s)", MEMSCOPE_VERSION);
	print_string(PRINT_ANY, "kernel", ", kernel %s", vi.kernel);
	if (vi.has_cpus)
		print_uint(PRINT_ANY, "cpus", ", %llu cpus", vi.cpus);
	if (vi.has_memory)
		print_uint(PRINT_ANY, "memory_bytes", ", module memory %llu bytes", vi.memory_bytes);
	if (vi.has_format)
		print_uint(PRINT_ANY, "format", ", file format %llu", vi.format);
	if (vi.fault_hook[0])
		print_string(PRINT_ANY, "fault_hook", ", faults hooked by %s", vi.fault_hook);
	print_nl();
	if (ms_nl_on())
		print_string(PRINT_ANY, "netlink", "netlink family %s\n", "memscope");
	else
		print_string(PRINT_ANY, "dir", "directory %s\n", ms_dir());
	snprintf(fmt, sizeof(fmt), "%%-%zus %%-%zus %%-%zus", wn, wt, ws);
	print_fp(fmt, "PROBE", "TARGET", "STATE");
	print_fp(" %12s %10s\n", "HITS", "MISSED");
	open_json_array("probes");
	for (i = 0; i < pr.n; i++) {
		const struct ms_probe_line *p = &pr.v[i];
		static const char *const names[] = { "attached", "disabled", "unavailable", "unknown" };

		open_json_object(NULL);
		snprintf(fmt, sizeof(fmt), "%%-%zus ", wn);
		print_string(PRINT_ANY, "name", fmt, p->name);
		snprintf(fmt, sizeof(fmt), "%%-%zus ", wt);
		print_string(PRINT_ANY, "target", fmt, p->target);
		snprintf(fmt, sizeof(fmt), "%%-%zus", ws);
		print_string(PRINT_FP, NULL, fmt, p->state);
		print_string(PRINT_JSON, "state", NULL, names[p->st]);
		if (p->st == MS_PROBE_UNAVAILABLE)
			print_string(PRINT_JSON, "reason", NULL, p->reason);
		print_uint(PRINT_ANY, "hits", " %12llu", p->hits);
		print_uint(PRINT_ANY, "missed", " %10llu\n", p->missed);
		close_json_object();
	}
	close_json_array();
	if (strcmp(vi.module, MEMSCOPE_VERSION) && strcmp(vi.module, "?"))
		print_fp("note: module %s and cli %s differ\n", vi.module, MEMSCOPE_VERSION);
	if (format_mismatch(&vi))
		print_fp("note: the module's file format is %s than this CLI's (%d): other commands refuse to run, install the CLI and the module of one memscope release\n",
			 format_mismatch(&vi), MEMSCOPE_FORMAT);
	print_end_record();
	ms_probes_free(&pr);
	return 0;
}

MS_TOOL(status,
	.topic = MS_TOPIC_STATUS, .rank = 10,
	.flags = MS_TOOL_ANY_FORMAT,
	.usage = "status",
	.summary = "module version, kernel, and each probe's state, hits and misses");
