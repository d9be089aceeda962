// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"
#include "nl.h"

static int cmd_help(const struct ms_opts *o);

/* Order matters: a prefix picks the first match, as in ip(8). */
static const struct ms_tool tools[] = {
	{ "status", cmd_status, 0,
	  "status",
	  "module version, kernel, and each probe's state, hits and misses" },
	{ "faults", cmd_faults, OPT_PID | OPT_CGROUP | OPT_HIST | OPT_STACKS | OPT_INTERVAL,
	  "faults [-p PID | -c CGROUP] [--hist | --stacks] [INTERVAL [COUNT]]",
	  "page faults by process (-c: by cgroup), totals by class, latency histogram; --stacks: by user stack, folded (enable faultstacks first)" },
	{ "ffaults", cmd_ffaults, OPT_INTERVAL,
	  "ffaults [INTERVAL [COUNT]]",
	  "page faults by file name" },
	{ "swapin", cmd_swapin, OPT_PID | OPT_CGROUP | OPT_RESIDENCY | OPT_INTERVAL,
	  "swapin [-p PID | -c CGROUP] [--residency] [INTERVAL [COUNT]]",
	  "swap-ins (pages) by process; --residency: how long pages stayed in swap, by owner, and a histogram" },
	{ "hfaults", cmd_hfaults, OPT_PID | OPT_INTERVAL,
	  "hfaults [-p PID] [INTERVAL [COUNT]]",
	  "hugetlb faults by process" },
	{ "oomkill", cmd_oomkill, OPT_LAST,
	  "oomkill [--last]",
	  "OOM kills as they happen (--last: the recent ones)" },
	{ "drsnoop", cmd_drsnoop, OPT_PID | OPT_LAST | OPT_MEMCG,
	  "drsnoop [-T] [-p PID] [--memcg] [--last]",
	  "each direct reclaim with its latency and pages (--memcg: memcg reclaims too)" },
	{ "vmscan", cmd_vmscan, OPT_INTERVAL,
	  "vmscan [INTERVAL [COUNT]]",
	  "reclaim time per interval, then latency histograms" },
	{ "shrinkers", cmd_shrinkers, OPT_INTERVAL,
	  "shrinkers [INTERVAL [COUNT]]",
	  "shrink_slab time and objects freed by shrinker" },
	{ "compact", cmd_compact, OPT_HIST | OPT_INTERVAL,
	  "compact [--hist] [INTERVAL [COUNT]]",
	  "compactions and their time, recent events, histogram" },
	{ "memleak", cmd_memleak, OPT_TOP | OPT_MIN_AGE | OPT_INTERVAL,
	  "memleak [-o MIN_AGE_MS] [--top N] [INTERVAL [COUNT]]",
	  "outstanding slab allocations by call site (enable memleak first)" },
	{ "slabtop", cmd_slabtop, OPT_TOP | OPT_INTERVAL,
	  "slabtop [--top N] [INTERVAL [COUNT]]",
	  "kmem_cache allocations and frees by cache, most allocations first (enable slabtop first)" },
	{ "mmapsnoop", cmd_mmapsnoop, OPT_PID | OPT_LAST,
	  "mmapsnoop [-T] [-p PID] [--last]",
	  "each mmap() with its size, protection, flags and file (enable mmapsnoop first)" },
	{ "shmsnoop", cmd_shmsnoop, OPT_PID | OPT_LAST,
	  "shmsnoop [-T] [-p PID] [--last]",
	  "each shmget, shmat, shmdt and shmctl call (enable shmsnoop first)" },
	{ "brkstack", cmd_brkstack, OPT_PID | OPT_INTERVAL,
	  "brkstack [-p PID] [INTERVAL [COUNT]]",
	  "brk() calls by user stack, folded for flame graphs (enable brkstack first)" },
	{ "flamegraph", cmd_flamegraph, OPT_FILE | OPT_TITLE,
	  "flamegraph [--title TEXT] [FILE]",
	  "folded stacks (FILE or standard input) to an SVG flame graph on standard output" },
	{ "top", cmd_top, OPT_DELAY | OPT_INTERVAL,
	  "top [-d SECONDS] [INTERVAL [COUNT]]",
	  "live dashboard of memory rates (q quits)" },
	{ "pmap", cmd_pmap, OPT_PID | OPT_MAP | OPT_DELAY | OPT_INTERVAL,
	  "pmap -p PID [--map ADDRESS] [-d SECONDS | INTERVAL [COUNT]]",
	  "per mapping: resident, swapped, dirty, anonymous, file, THP, KSM and zero-page KiB; --map: one mapping page by page (root for THP, KSM, zero page)" },
	{ "analyze", cmd_analyze, OPT_INTERVAL,
	  "analyze [DURATION]",
	  "the book's memory analysis (7.1.3) over DURATION seconds (default 10): OOM kills, swap, free memory and PSI, processes, files, stalls, leaks, with findings" },
	{ "export", cmd_export, OPT_PROM,
	  "export [--prometheus]",
	  "every counter and histogram in Prometheus text format" },
	{ "monitor", cmd_monitor, 0,
	  "monitor",
	  "every OOM kill, direct reclaim and compaction as it happens, and how many were lost, from the netlink groups (the events file where the kernel has none, or with --dir)" },
	{ "help", cmd_help, 0,
	  "help [TOOL]",
	  "this text, or one tool's usage" },
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

static const char *help_tool;

static void usage_all(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"Usage: memscope [OPTIONS] TOOL [ARGS] [INTERVAL [COUNT]]\n"
		"       memscope help [TOOL]\n"
		"where  OPTIONS := { -j[son] | -T[imestamp] | -p[id] PID | --dir DIR |\n"
		"                    --netlink | -h[elp] | -V | --version }\n"
		"       TOOL := { status | faults | ffaults | swapin | hfaults | oomkill |\n"
		"                 drsnoop | vmscan | shrinkers | compact | memleak | slabtop |\n"
		"                 mmapsnoop | shmsnoop | brkstack | flamegraph | top | pmap |\n"
		"                 analyze | export | monitor }\n"
		"       INTERVAL := seconds between reports (deltas); none: one cumulative report\n"
		"       COUNT := number of reports; none: until Ctrl-C\n"
		"\n");
	for (i = 0; i < NTOOLS; i++)
		fprintf(fp, "  %-44s %s\n", tools[i].usage, tools[i].summary);
	fprintf(fp,
		"\nFiles are read from %s (or %s, --dir DIR, MEMSCOPE_DIR);\n"
		"--netlink (or MEMSCOPE_NETLINK=1) reads the module's netlink family instead.\n"
		"A unique prefix names a tool: `memscope vm 1` is `memscope vmscan 1`.\n",
		MS_DEBUGFS_DIR, MS_PROCFS_DIR);
}

static void usage_tool(FILE *fp, const struct ms_tool *t)
{
	fprintf(fp, "Usage: memscope [OPTIONS] %s\n", t->usage);
	fprintf(fp, "       %s\n", t->summary);
	if (t->opts & OPT_INTERVAL)
		fprintf(fp, "where  INTERVAL := seconds between reports; COUNT := number of reports\n");
	fprintf(fp, "       OPTIONS := { -j | -T | --dir DIR | --netlink%s }\n",
		t->opts & OPT_PID ? " | -p PID" : "");
	fprintf(fp, "See memscope(8).\n");
}

static int cmd_help(const struct ms_opts *o)
{
	size_t i;

	(void)o;
	if (help_tool) {
		for (i = 0; i < NTOOLS; i++) {
			if (!strncmp(tools[i].name, help_tool, strlen(help_tool))) {
				usage_tool(stdout, &tools[i]);
				return 0;
			}
		}
		print_error("unknown tool \"%s\", run `memscope help` for the list", help_tool);
		return 1;
	}
	usage_all(stdout);
	return 0;
}

static const struct ms_tool *find_tool(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0)
		return NULL;
	for (i = 0; i < NTOOLS; i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	for (i = 0; i < NTOOLS; i++)
		if (!strncmp(tools[i].name, name, n))
			return &tools[i];
	return NULL;
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > 86400 * 365.0)
		return false;
	*out = v;
	return true;
}

static bool parse_pid(const char *s, int64_t *pid)
{
	return s && ms_parse_i64(s, pid) && *pid >= 0 && *pid <= 0x7fffffff;
}

/* "-x", "--xx" and "--xx=VAL"; returns the value argument or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *longname)
{
	const char *a = argv[*i];
	size_t n = strlen(longname);

	if (!strncmp(a, longname, n) && a[n] == '=')
		return a + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static bool is_opt(const char *a, const char *s, const char *l)
{
	size_t n = strlen(l);

	return (s && !strcmp(a, s)) || !strcmp(a, l) ||
	       (!strncmp(a, l, n) && a[n] == '=');
}

enum { ARGS_OK, ARGS_BAD, ARGS_HELP, ARGS_VERSION };

/*
 * Options may come before or after the tool name, as `ip -j link` and
 * `ip link -j` both work; tool-specific ones are checked against the table.
 */
static int parse_args(int argc, char **argv, struct ms_opts *o, const char **dir,
		      const struct ms_tool **tool, const char **toolname)
{
	int i, npos = 0;
	const char *pos[3] = { NULL };
	const char *v;
	unsigned int used = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++) {
				if (npos < 3)
					pos[npos] = argv[i];
				npos++;
			}
			break;
		}
		if (a[0] != '-' || a[1] == '\0' || (a[1] >= '0' && a[1] <= '9')) {
			if (!*tool && !*toolname) {
				*toolname = a;
				*tool = find_tool(a);
				if (!*tool) {
					print_error("unknown tool \"%s\", run `memscope help` for the list", a);
					return ARGS_BAD;
				}
				continue;
			}
			if (*tool && (*tool)->run == cmd_help && !help_tool) {
				help_tool = a;
				continue;
			}
			if (npos < 3)
				pos[npos] = a;
			npos++;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "-json") || !strcmp(a, "--json")) {
			o->json = true;
			print_set_json(true);
		} else if (!strcmp(a, "-T") || !strcmp(a, "-timestamp") || !strcmp(a, "--timestamp")) {
			o->timestamp = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "-help") || !strcmp(a, "--help")) {
			return ARGS_HELP;
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version") || !strcmp(a, "-version")) {
			return ARGS_VERSION;
		} else if (!strcmp(a, "--netlink") || !strcmp(a, "-netlink")) {
			o->netlink = true;
		} else if (is_opt(a, NULL, "--dir")) {
			v = opt_value(argc, argv, &i, "--dir");
			if (!v || !*v) {
				print_error("--dir needs a directory, e.g. --dir /proc/memscope");
				return ARGS_BAD;
			}
			*dir = v;
		} else if (is_opt(a, "-p", "--pid") || !strcmp(a, "-pid")) {
			v = opt_value(argc, argv, &i, "--pid");
			if (!parse_pid(v, &o->pid)) {
				print_error("bad PID \"%s\", give a process id such as -p 1234", v ? v : "");
				return ARGS_BAD;
			}
			o->has_pid = true;
			used |= OPT_PID;
		} else if (is_opt(a, "-c", "--cgroup")) {
			v = opt_value(argc, argv, &i, "--cgroup");
			if (!v || v[0] != '/') {
				print_error("bad cgroup \"%s\", give a path under the cgroup2 root such as -c /system.slice, or -c / for all",
					    v ? v : "");
				return ARGS_BAD;
			}
			o->cgroup = v;
			used |= OPT_CGROUP;
		} else if (!strcmp(a, "--hist")) {
			o->hist = true;
			used |= OPT_HIST;
		} else if (!strcmp(a, "--residency")) {
			o->residency = true;
			used |= OPT_RESIDENCY;
		} else if (!strcmp(a, "--stacks")) {
			o->stacks = true;
			used |= OPT_STACKS;
		} else if (is_opt(a, NULL, "--title")) {
			v = opt_value(argc, argv, &i, "--title");
			if (!v) {
				print_error("--title needs a text, e.g. --title \"Page faults\"");
				return ARGS_BAD;
			}
			o->title = v;
			used |= OPT_TITLE;
		} else if (!strcmp(a, "--last")) {
			o->last = true;
			used |= OPT_LAST;
		} else if (!strcmp(a, "--memcg")) {
			o->memcg = true;
			used |= OPT_MEMCG;
		} else if (!strcmp(a, "--prometheus")) {
			o->prometheus = true;
			used |= OPT_PROM;
		} else if (is_opt(a, NULL, "--top")) {
			v = opt_value(argc, argv, &i, "--top");
			if (!v || !ms_parse_u64(v, &o->top) || o->top == 0) {
				print_error("bad --top \"%s\", give a number of rows such as --top 10", v ? v : "");
				return ARGS_BAD;
			}
			o->has_top = true;
			used |= OPT_TOP;
		} else if (is_opt(a, "-o", "--older")) {
			v = opt_value(argc, argv, &i, "--older");
			if (!v || !ms_parse_u64(v, &o->min_age_ms)) {
				print_error("bad -o \"%s\", give an age in milliseconds such as -o 5000", v ? v : "");
				return ARGS_BAD;
			}
			o->has_min_age = true;
			used |= OPT_MIN_AGE;
		} else if (is_opt(a, "-d", "--delay")) {
			v = opt_value(argc, argv, &i, "--delay");
			if (!parse_seconds(v, &o->delay)) {
				print_error("bad delay \"%s\", give seconds such as -d 2", v ? v : "");
				return ARGS_BAD;
			}
			o->has_delay = true;
			used |= OPT_DELAY;
		} else if (is_opt(a, NULL, "--map")) {
			v = opt_value(argc, argv, &i, "--map");
			if (!v || !*v) {
				print_error("--map needs an address from pmap's Address column, e.g. --map 7f3a1c000000");
				return ARGS_BAD;
			}
			o->map = v;
			used |= OPT_MAP;
		} else {
			print_error("unknown option \"%s\", run `memscope help`", a);
			return ARGS_BAD;
		}
	}
	if (!*tool)
		return ARGS_OK;
	if (used & ~(*tool)->opts) {
		print_error("%s does not take %s, usage: memscope %s", (*tool)->name,
			    (used & ~(*tool)->opts) & OPT_PID ? "-p" :
			    (used & ~(*tool)->opts) & OPT_HIST ? "--hist" :
			    (used & ~(*tool)->opts) & OPT_LAST ? "--last" :
			    (used & ~(*tool)->opts) & OPT_MEMCG ? "--memcg" :
			    (used & ~(*tool)->opts) & OPT_CGROUP ? "-c" :
			    (used & ~(*tool)->opts) & OPT_DELAY ? "-d" :
			    (used & ~(*tool)->opts) & OPT_TOP ? "--top" :
			    (used & ~(*tool)->opts) & OPT_MIN_AGE ? "-o" :
			    (used & ~(*tool)->opts) & OPT_STACKS ? "--stacks" :
			    (used & ~(*tool)->opts) & OPT_TITLE ? "--title" :
			    (used & ~(*tool)->opts) & OPT_MAP ? "--map" :
			    (used & ~(*tool)->opts) & OPT_RESIDENCY ? "--residency" : "--prometheus",
			    (*tool)->usage);
		return ARGS_BAD;
	}
	if (o->stacks && (o->cgroup || o->hist)) {
		print_error("--stacks counts by user stack and process: it takes -p PID, not %s, usage: memscope %s",
			    o->cgroup ? "-c" : "--hist", (*tool)->usage);
		return ARGS_BAD;
	}
	if (o->residency && o->cgroup) {
		print_error("--residency counts by the process whose pages went to swap: it takes -p PID, not -c, usage: memscope %s",
			    (*tool)->usage);
		return ARGS_BAD;
	}
	if (o->has_pid && o->cgroup) {
		print_error("give -p PID or -c CGROUP, not both, usage: memscope %s", (*tool)->usage);
		return ARGS_BAD;
	}
	if ((*tool)->opts & OPT_FILE) {
		if (npos > 1) {
			print_error("too many arguments (\"%s\"), usage: memscope %s", pos[1],
				    (*tool)->usage);
			return ARGS_BAD;
		}
		o->file = pos[0];
		return ARGS_OK;
	}
	if (npos && !((*tool)->opts & OPT_INTERVAL)) {
		print_error("%s takes no INTERVAL or COUNT (got \"%s\"), usage: memscope %s",
			    (*tool)->name, pos[0], (*tool)->usage);
		return ARGS_BAD;
	}
	if (npos > 2) {
		print_error("too many arguments (\"%s\"), usage: memscope %s",
			    pos[2], (*tool)->usage);
		return ARGS_BAD;
	}
	if (npos >= 1) {
		if (!parse_seconds(pos[0], &o->interval)) {
			print_error("bad INTERVAL \"%s\", give seconds greater than 0", pos[0]);
			return ARGS_BAD;
		}
		o->has_interval = true;
	}
	if (npos == 2) {
		if (!ms_parse_u64(pos[1], &o->count) || o->count == 0) {
			print_error("bad COUNT \"%s\", give a number of reports greater than 0", pos[1]);
			return ARGS_BAD;
		}
	}
	return ARGS_OK;
}

int main(int argc, char **argv)
{
	struct ms_opts o = { .delay = 1.0 };
	const struct ms_tool *tool = NULL;
	const char *toolname = NULL, *dir = NULL;
	int r;

	r = parse_args(argc, argv, &o, &dir, &tool, &toolname);
	if (r == ARGS_BAD)
		return 1;
	if (r == ARGS_VERSION) {
		if (o.json) {
			print_begin_record();
			print_string(PRINT_JSON, "version", NULL, MEMSCOPE_VERSION);
			print_end_record();
		} else {
			printf("memscope %s\n", MEMSCOPE_VERSION);
		}
		return 0;
	}
	if (r == ARGS_HELP) {
		if (tool && tool->run != cmd_help)
			usage_tool(stdout, tool);
		else
			usage_all(stdout);
		return 0;
	}
	if (!tool) {
		usage_all(stderr);
		return 1;
	}
	if (tool->run == cmd_help)
		return cmd_help(&o);
	if (o.netlink && dir) {
		print_error("--netlink and --dir name two sources, give one of them");
		return 1;
	}
	/* The command line beats the environment: --dir reads files. */
	if (!dir && !o.netlink) {
		const char *env = getenv("MEMSCOPE_NETLINK");

		o.netlink = env && *env && strcmp(env, "0");
	}
	/* Needs no module: it reads what a tool printed. */
	if (tool->run == cmd_flamegraph)
		return cmd_flamegraph(&o) ? 1 : 0;
	ms_signals_init();
	/* Needs no module: it reads /proc. */
	if (tool->run == cmd_pmap)
		return cmd_pmap(&o) ? 1 : 0;
	/* monitor reads the groups, or with --dir that directory's events. */
	if ((o.netlink || (tool->run == cmd_monitor && !dir)) && ms_nl_use())
		return 1;
	/* Uses the module when it is there, and says what it missed when not. */
	if (tool->run == cmd_analyze) {
		o.dir = dir;
		return cmd_analyze(&o) ? 1 : 0;
	}
	if (!ms_nl_on() && ms_locate_dir(dir))
		return 1;
	if (tool->run != cmd_status && ms_check_format())
		return 1;
	return tool->run(&o) ? 1 : 0;
}
