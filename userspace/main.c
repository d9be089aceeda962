// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"
#include "nl.h"
#include "unwind.h"

static int cmd_help(const struct ms_opts *o);

/*
 * The tools, each described in its own file (MS_TOOL() in memscope.h),
 * in the order help lists them and a prefix picks the first match in.
 */
static const struct ms_tool **tools;
static size_t ntools;

/* The linker's bounds of the section MS_TOOL() fills. */
extern const struct ms_tool __start_ms_tools[], __stop_ms_tools[];

static int by_order(const void *a, const void *b)
{
	const struct ms_tool *x = *(const struct ms_tool *const *)a;
	const struct ms_tool *y = *(const struct ms_tool *const *)b;

	if (x->topic != y->topic)
		return x->topic < y->topic ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The section holds them in link order, the files' (alphabetical): sort them. */
static void load_tools(void)
{
	const struct ms_tool *t;

	ntools = __stop_ms_tools - __start_ms_tools;
	tools = ms_xcalloc(ntools, sizeof(*tools));
	for (t = __start_ms_tools; t < __stop_ms_tools; t++)
		tools[t - __start_ms_tools] = t;
	qsort(tools, ntools, sizeof(*tools), by_order);
}

static const char *help_tool;

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

enum { ARGS_OK, ARGS_BAD, ARGS_HELP, ARGS_VERSION };

/* Each option's setter: ARGS_OK, or the error printed and ARGS_BAD. */
static int set_json(struct ms_opts *o, const char *v)
{
	(void)v;
	o->json = true;
	print_set_json(true);
	return ARGS_OK;
}

static int set_timestamp(struct ms_opts *o, const char *v)
{
	(void)v;
	o->timestamp = true;
	return ARGS_OK;
}

static int set_help(struct ms_opts *o, const char *v)
{
	(void)o, (void)v;
	return ARGS_HELP;
}

static int set_version(struct ms_opts *o, const char *v)
{
	(void)o, (void)v;
	return ARGS_VERSION;
}

static int set_netlink(struct ms_opts *o, const char *v)
{
	(void)v;
	o->netlink = true;
	return ARGS_OK;
}

static int set_dir(struct ms_opts *o, const char *v)
{
	if (!v || !*v) {
		print_error("--dir needs a directory, e.g. --dir /proc/memscope");
		return ARGS_BAD;
	}
	o->dir = v;
	return ARGS_OK;
}

static int set_pid(struct ms_opts *o, const char *v)
{
	if (!parse_pid(v, &o->pid)) {
		print_error("bad PID \"%s\", give a process id such as -p 1234", v ? v : "");
		return ARGS_BAD;
	}
	o->has_pid = true;
	return ARGS_OK;
}

static int set_cgroup(struct ms_opts *o, const char *v)
{
	if (!v || v[0] != '/') {
		print_error("bad cgroup \"%s\", give a path under the cgroup2 root such as -c /system.slice, or -c / for all",
			    v ? v : "");
		return ARGS_BAD;
	}
	o->cgroup = v;
	return ARGS_OK;
}

static int set_command(struct ms_opts *o, const char *v)
{
	if (!v || !*v) {
		print_error("-c needs a command to run and trace, e.g. memleak -c \"./server --port 8080\"");
		return ARGS_BAD;
	}
	o->command = v;
	return ARGS_OK;
}

static int set_sample(struct ms_opts *o, const char *v)
{
	if (!v || !ms_parse_u64(v, &o->sample_rate) || o->sample_rate < 1 ||
	    o->sample_rate > 65536) {
		print_error("bad -s \"%s\", give a sample rate from 1 to 65536 (1 in RATE allocations is traced)",
			    v ? v : "");
		return ARGS_BAD;
	}
	return ARGS_OK;
}

static int set_prefix(struct ms_opts *o, const char *v)
{
	if (!v || !*v || strchr(v, ' ')) {
		print_error("bad --prefix \"%s\", give the allocator's symbol prefix, e.g. --prefix je_ for jemalloc",
			    v ? v : "");
		return ARGS_BAD;
	}
	o->prefix = v;
	return ARGS_OK;
}

static int set_hist(struct ms_opts *o, const char *v)
{
	(void)v;
	o->hist = true;
	return ARGS_OK;
}

static int set_residency(struct ms_opts *o, const char *v)
{
	(void)v;
	o->residency = true;
	return ARGS_OK;
}

static int set_stacks(struct ms_opts *o, const char *v)
{
	(void)v;
	o->stacks = true;
	return ARGS_OK;
}

static int set_title(struct ms_opts *o, const char *v)
{
	if (!v) {
		print_error("--title needs a text, e.g. --title \"Page faults\"");
		return ARGS_BAD;
	}
	o->title = v;
	return ARGS_OK;
}

static int set_last(struct ms_opts *o, const char *v)
{
	(void)v;
	o->last = true;
	return ARGS_OK;
}

static int set_kept(struct ms_opts *o, const char *v)
{
	(void)v;
	o->kept = true;
	return ARGS_OK;
}

static int set_memcg(struct ms_opts *o, const char *v)
{
	(void)v;
	o->memcg = true;
	return ARGS_OK;
}

static int set_prometheus(struct ms_opts *o, const char *v)
{
	(void)v;
	o->prometheus = true;
	return ARGS_OK;
}

static int set_top(struct ms_opts *o, const char *v)
{
	if (!v || !ms_parse_u64(v, &o->top) || o->top == 0) {
		print_error("bad --top \"%s\", give a number of rows such as --top 10", v ? v : "");
		return ARGS_BAD;
	}
	o->has_top = true;
	return ARGS_OK;
}

static int set_older(struct ms_opts *o, const char *v)
{
	if (!v || !ms_parse_u64(v, &o->min_age_ms)) {
		print_error("bad -o \"%s\", give an age in milliseconds such as -o 5000", v ? v : "");
		return ARGS_BAD;
	}
	o->has_min_age = true;
	return ARGS_OK;
}

static int set_delay(struct ms_opts *o, const char *v)
{
	if (!parse_seconds(v, &o->delay)) {
		print_error("bad delay \"%s\", give seconds such as -d 2", v ? v : "");
		return ARGS_BAD;
	}
	o->has_delay = true;
	return ARGS_OK;
}

/* BYTES, or with a K, M or G suffix (powers of 1,024). */
static int set_buffer_size(struct ms_opts *o, const char *v)
{
	static const char units[] = "KMG";
	char num[32], *u;
	unsigned int shift = 0;
	size_t n = v ? strlen(v) : 0;

	if (n && n < sizeof(num) && (u = strchr(units, v[n - 1]))) {
		shift = 10 * (unsigned int)(u - units + 1);
		n--;
	}
	if (n && n < sizeof(num)) {
		memcpy(num, v, n);
		num[n] = '\0';
	}
	if (!n || n >= sizeof(num) || !ms_parse_u64(num, &o->buffer_size) || !o->buffer_size ||
	    o->buffer_size > (1ULL << 30) >> shift) {
		print_error("bad --buffer-size \"%s\", give bytes up to 1G, such as --buffer-size 64M", v ? v : "");
		return ARGS_BAD;
	}
	o->buffer_size <<= shift;
	return ARGS_OK;
}

static int set_textfile(struct ms_opts *o, const char *v)
{
	if (!v || !*v) {
		print_error("--textfile needs a directory, e.g. --textfile /var/lib/prometheus/node-exporter");
		return ARGS_BAD;
	}
	o->textfile = v;
	return ARGS_OK;
}

static int set_node_names(struct ms_opts *o, const char *v)
{
	(void)v;
	o->node_names = true;
	return ARGS_OK;
}

/*
 * libdw takes its debuginfo path as a ':'-separated list, and a relative
 * entry is relative to each binary's directory: DIR must be neither.
 */
static int set_debug_dir(struct ms_opts *o, const char *v)
{
	static char abs[PATH_MAX];

	if (!v || !*v) {
		print_error("--debug-dir needs a directory, e.g. --debug-dir /usr/lib/debug");
		return ARGS_BAD;
	}
	if (!realpath(v, abs)) {
		print_error("--debug-dir %s: %s, give the directory that holds .build-id/", v,
			    strerror(errno));
		return ARGS_BAD;
	}
	if (strchr(abs, ':')) {
		print_error("--debug-dir %s: a directory with ':' in its path cannot be used, link it from one without", abs);
		return ARGS_BAD;
	}
	o->debug_dir = abs;
	return ARGS_OK;
}

static int set_interactive(struct ms_opts *o, const char *v)
{
	(void)v;
	o->interactive = true;
	return ARGS_OK;
}

static int set_map(struct ms_opts *o, const char *v)
{
	if (!v || !*v) {
		print_error("--map needs an address from pmap's Address column, e.g. --map 7f3a1c000000");
		return ARGS_BAD;
	}
	o->map = v;
	return ARGS_OK;
}

/*
 * Every option, once: its spellings (ip's one-dash long form as alias),
 * the OPT_ bit a tool's entry must carry to take it (0: every tool), the
 * name of its value (NULL: a flag), and its setter.  Parsing, usage and the
 * shell completion (`memscope __complete`) all read this table.
 */
static const struct ms_optdef {
	const char *shortname;
	const char *longname;
	const char *alias;
	unsigned int bit;
	const char *arg;
	int (*set)(struct ms_opts *o, const char *v);
} optdefs[] = {
	{ "-j", "--json", "-json", 0, NULL, set_json },
	{ "-T", "--timestamp", "-timestamp", 0, NULL, set_timestamp },
	{ "-p", "--pid", "-pid", OPT_PID, "PID", set_pid },
	{ NULL, "--dir", NULL, 0, "DIR", set_dir },
	{ NULL, "--netlink", "-netlink", 0, NULL, set_netlink },
	{ "-h", "--help", "-help", 0, NULL, set_help },
	{ "-V", "--version", "-version", 0, NULL, set_version },
	{ "-c", "--cgroup", NULL, OPT_CGROUP, "CGROUP", set_cgroup },
	{ "-c", "--command", NULL, OPT_COMMAND, "COMMAND", set_command },
	{ "-s", "--sample-rate", NULL, OPT_SAMPLE, "RATE", set_sample },
	{ NULL, "--prefix", NULL, OPT_PREFIX, "PREFIX", set_prefix },
	{ NULL, "--hist", NULL, OPT_HIST, NULL, set_hist },
	{ NULL, "--stacks", NULL, OPT_STACKS, NULL, set_stacks },
	{ NULL, "--debug-dir", NULL, OPT_DEBUG_DIR, "DIR", set_debug_dir },
	{ NULL, "--residency", NULL, OPT_RESIDENCY, NULL, set_residency },
	{ NULL, "--last", NULL, OPT_LAST, NULL, set_last },
	{ NULL, "--kept", NULL, OPT_KEPT, NULL, set_kept },
	{ NULL, "--memcg", NULL, OPT_MEMCG, NULL, set_memcg },
	{ "-o", "--older", NULL, OPT_MIN_AGE, "MIN_AGE_MS", set_older },
	{ NULL, "--top", NULL, OPT_TOP, "N", set_top },
	{ "-d", "--delay", NULL, OPT_DELAY, "SECONDS", set_delay },
	{ NULL, "--map", NULL, OPT_MAP, "ADDRESS", set_map },
	{ "-i", "--interactive", NULL, OPT_INTERACTIVE, NULL, set_interactive },
	{ NULL, "--title", NULL, OPT_TITLE, "TEXT", set_title },
	{ NULL, "--prometheus", NULL, OPT_PROM, NULL, set_prometheus },
	{ NULL, "--textfile", NULL, OPT_TEXTFILE, "DIR", set_textfile },
	{ NULL, "--node-names", NULL, OPT_NODE_NAMES, NULL, set_node_names },
	{ NULL, "--buffer-size", NULL, OPT_BUFSIZE, "BYTES", set_buffer_size },
};

#define NOPTS (sizeof(optdefs) / sizeof(optdefs[0]))

/* The spelling a message names an option by: the short one if it has one. */
static const char *opt_name(const struct ms_optdef *d)
{
	return d->shortname ? d->shortname : d->longname;
}

/* d's definition if a is one of its spellings ("--long=VAL" for a value). */
static bool opt_is(const struct ms_optdef *d, const char *a)
{
	size_t n = strlen(d->longname);

	if ((d->shortname && !strcmp(a, d->shortname)) || !strcmp(a, d->longname) ||
	    (d->alias && !strcmp(a, d->alias)))
		return true;
	return d->arg && !strncmp(a, d->longname, n) && a[n] == '=';
}

/*
 * The definition a names: where two share a spelling (-c is memleak's
 * COMMAND, every other tool's CGROUP), the one the tool, if named
 * already, takes.
 */
static const struct ms_optdef *find_opt(const char *a, const struct ms_tool *tool)
{
	const struct ms_optdef *first = NULL;
	size_t i;

	for (i = 0; i < NOPTS; i++) {
		if (!opt_is(&optdefs[i], a))
			continue;
		if (!tool || !optdefs[i].bit || optdefs[i].bit & tool->opts)
			return &optdefs[i];
		if (!first)
			first = &optdefs[i];
	}
	return first;
}

static void usage_all(FILE *fp)
{
	size_t i, col;

	fprintf(fp, "Usage: memscope [OPTIONS] TOOL [ARGS] [INTERVAL [COUNT]]\n"
		    "       memscope help [TOOL]\n"
		    "where  OPTIONS := {");
	/* The global options, and -p, which most tools take. */
	for (i = 0, col = 0; i < NOPTS; i++) {
		const struct ms_optdef *d = &optdefs[i];

		if (d->bit && d->bit != OPT_PID)
			continue;
		col += fprintf(fp, "%s%s%s%s", col ? " | " : " ", opt_name(d),
			       d->arg ? " " : "", d->arg ? d->arg : "");
	}
	fprintf(fp, " }\n       TOOL := {");
	for (i = 0, col = 15; i < ntools; i++) {
		if (tools[i]->run == cmd_help)
			continue;
		if (col + strlen(tools[i]->name) > 70) {
			fprintf(fp, " |\n                ");
			col = 15;
		}
		col += fprintf(fp, "%s%s", col > 15 ? " | " : " ", tools[i]->name);
	}
	fprintf(fp, " }\n"
		    "       INTERVAL := seconds between reports (deltas); none: one cumulative report\n"
		    "       COUNT := number of reports; none: until Ctrl-C\n"
		    "\n");
	for (i = 0; i < ntools; i++)
		fprintf(fp, "  %-44s %s\n", tools[i]->usage, tools[i]->summary);
	fprintf(fp,
		"\nFiles are read from %s (or %s, --dir DIR, MEMSCOPE_DIR);\n"
		"--netlink (or MEMSCOPE_NETLINK=1) reads the module's netlink family instead.\n"
		"A unique prefix names a tool: `memscope vm 1` is `memscope vmscan 1`.\n",
		MS_DEBUGFS_DIR, MS_PROCFS_DIR);
}

static void usage_tool(FILE *fp, const struct ms_tool *t)
{
	size_t i;

	fprintf(fp, "Usage: memscope [OPTIONS] %s\n", t->usage);
	fprintf(fp, "       %s\n", t->summary);
	if (t->opts & OPT_INTERVAL)
		fprintf(fp, "where  INTERVAL := seconds between reports; COUNT := number of reports\n");
	fprintf(fp, "       OPTIONS := {");
	for (i = 0; i < NOPTS; i++) {
		const struct ms_optdef *d = &optdefs[i];

		if ((d->bit && !(d->bit & t->opts)) || d->set == set_help || d->set == set_version)
			continue;
		fprintf(fp, "%s%s%s%s", i ? " | " : " ", opt_name(d),
			d->arg ? " " : "", d->arg ? d->arg : "");
	}
	fprintf(fp, " }\nSee memscope(8).\n");
}

static int cmd_help(const struct ms_opts *o)
{
	size_t i;

	(void)o;
	if (help_tool) {
		for (i = 0; i < ntools; i++) {
			if (!strncmp(tools[i]->name, help_tool, strlen(help_tool))) {
				usage_tool(stdout, tools[i]);
				return 0;
			}
		}
		print_error("unknown tool \"%s\", run `memscope help` for the list", help_tool);
		return 1;
	}
	usage_all(stdout);
	return 0;
}

MS_TOOL(help,
	.topic = MS_TOPIC_HELP, .rank = 10,
	.usage = "help [TOOL]",
	.summary = "this text, or one tool's usage");

static const struct ms_tool *find_tool(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0)
		return NULL;
	for (i = 0; i < ntools; i++)
		if (!strcmp(tools[i]->name, name))
			return tools[i];
	for (i = 0; i < ntools; i++)
		if (!strncmp(tools[i]->name, name, n))
			return tools[i];
	return NULL;
}

/*
 * For the shell completion, from the tables above: with no argument the
 * tools; "--values" the spellings that take a value; "--global" the
 * options before a tool; TOOL the options it takes after its name (every
 * spelling but the one-dash aliases).
 */
static bool complete_shows(const struct ms_optdef *d, const char *what, const struct ms_tool *t)
{
	if (!strcmp(what, "--values"))
		return d->arg;
	if (!strcmp(what, "--global"))
		return !d->bit || d->bit == OPT_PID;
	return (!d->bit || (d->bit & t->opts)) && d->set != set_help && d->set != set_version;
}

static int complete(int argc, char **argv)
{
	const struct ms_tool *t = NULL;
	size_t i;

	if (argc < 3) {
		for (i = 0; i < ntools; i++)
			printf("%s\n", tools[i]->name);
		return 0;
	}
	if (argv[2][0] != '-') {
		t = find_tool(argv[2]);
		if (!t)
			return 1;
	}
	for (i = 0; i < NOPTS; i++) {
		const struct ms_optdef *d = &optdefs[i];

		if (!complete_shows(d, argv[2], t))
			continue;
		if (d->shortname)
			printf("%s\n", d->shortname);
		printf("%s\n", d->longname);
	}
	return 0;
}

/* A positional argument: the tool's name, help's TOOL, or INTERVAL/COUNT/FILE. */
static int take_word(const char *a, const struct ms_tool **tool, const char **pos, int *npos)
{
	if (!*tool) {
		*tool = find_tool(a);
		if (!*tool) {
			print_error("unknown tool \"%s\", run `memscope help` for the list", a);
			return ARGS_BAD;
		}
	} else if ((*tool)->run == cmd_help && !help_tool) {
		help_tool = a;
	} else {
		if (*npos < 3)
			pos[*npos] = a;
		(*npos)++;
	}
	return ARGS_OK;
}

/* What no single option's setter can see: pairs that exclude each other. */
static int check_combinations(const struct ms_opts *o, const struct ms_tool *t)
{
	if (o->stacks && (o->cgroup || o->hist)) {
		print_error("--stacks counts by user stack and process: it takes -p PID, not %s, usage: memscope %s",
			    o->cgroup ? "-c" : "--hist", t->usage);
		return ARGS_BAD;
	}
	if (o->debug_dir && !o->stacks && t->opts & OPT_STACKS) {
		print_error("--debug-dir names the frames of --stacks, usage: memscope %s", t->usage);
		return ARGS_BAD;
	}
	if (o->residency && o->cgroup) {
		print_error("--residency counts by the process whose pages went to swap: it takes -p PID, not -c, usage: memscope %s",
			    t->usage);
		return ARGS_BAD;
	}
	if (o->has_pid && o->cgroup) {
		print_error("give -p PID or -c CGROUP, not both, usage: memscope %s", t->usage);
		return ARGS_BAD;
	}
	return ARGS_OK;
}

/* FILE, or INTERVAL [COUNT]: what is left after the options. */
static int parse_positionals(struct ms_opts *o, const struct ms_tool *t,
			     const char *const *pos, int npos)
{
	if (t->opts & OPT_FILE) {
		if (npos > 1) {
			print_error("too many arguments (\"%s\"), usage: memscope %s", pos[1], t->usage);
			return ARGS_BAD;
		}
		o->file = pos[0];
		return ARGS_OK;
	}
	if (npos && !(t->opts & OPT_INTERVAL)) {
		print_error("%s takes no INTERVAL or COUNT (got \"%s\"), usage: memscope %s",
			    t->name, pos[0], t->usage);
		return ARGS_BAD;
	}
	if (npos > 2) {
		print_error("too many arguments (\"%s\"), usage: memscope %s", pos[2], t->usage);
		return ARGS_BAD;
	}
	if (npos >= 1) {
		if (!parse_seconds(pos[0], &o->interval)) {
			print_error("bad INTERVAL \"%s\", give seconds greater than 0", pos[0]);
			return ARGS_BAD;
		}
		o->has_interval = true;
	}
	if (npos == 2 && (!ms_parse_u64(pos[1], &o->count) || o->count == 0)) {
		print_error("bad COUNT \"%s\", give a number of reports greater than 0", pos[1]);
		return ARGS_BAD;
	}
	return ARGS_OK;
}

/*
 * Options may come before or after the tool name, as `ip -j link` and
 * `ip link -j` both work; a tool takes the ones its entry names.
 */
static int parse_args(int argc, char **argv, struct ms_opts *o, const struct ms_tool **tool)
{
	const char *pos[3] = { NULL };
	const struct ms_optdef *d;
	unsigned int used = 0;
	int i, r, npos = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if (!strcmp(a, "--")) {
			while (++i < argc)
				if (take_word(argv[i], tool, pos, &npos) != ARGS_OK)
					return ARGS_BAD;
			break;
		}
		if (a[0] != '-' || a[1] == '\0' || (a[1] >= '0' && a[1] <= '9')) {
			if (take_word(a, tool, pos, &npos) != ARGS_OK)
				return ARGS_BAD;
			continue;
		}
		d = find_opt(a, *tool);
		if (!d) {
			print_error("unknown option \"%s\", run `memscope help`", a);
			return ARGS_BAD;
		}
		if (d->arg && !strncmp(a, d->longname, strlen(d->longname)) && strchr(a, '='))
			v = strchr(a, '=') + 1;
		else if (d->arg && i + 1 < argc)
			v = argv[++i];
		r = d->set(o, v);
		if (r != ARGS_OK)
			return r;
		used |= d->bit;
	}
	if (!*tool)
		return ARGS_OK;
	for (d = optdefs; d < optdefs + NOPTS; d++) {
		if (d->bit & used & ~(*tool)->opts) {
			print_error("%s does not take %s, usage: memscope %s", (*tool)->name,
				    opt_name(d), (*tool)->usage);
			return ARGS_BAD;
		}
	}
	r = check_combinations(o, *tool);
	return r != ARGS_OK ? r : parse_positionals(o, *tool, pos, npos);
}

int main(int argc, char **argv)
{
	struct ms_opts o = { .delay = 1.0 };
	const struct ms_tool *tool = NULL;
	const char *dir;
	int r;

	load_tools();
	if (argc > 1 && !strcmp(argv[1], "__complete"))
		return complete(argc, argv);
	/* The unwind table built from FILE, as text: for tests/host, not a tool. */
	if (argc > 1 && !strcmp(argv[1], "__unwind")) {
		if (argc == 3)
			return ms_unwind_print(argv[2]);
		print_error("usage: memscope __unwind FILE");
		return 1;
	}
	/* FILE's unwind tables into the module: for tests, not a tool. */
	if (argc > 1 && !strcmp(argv[1], "__unwind-load"))
		return cmd_unwind_load(argc - 2, argv + 2);
	r = parse_args(argc, argv, &o, &tool);
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
	dir = o.dir;
	if (o.netlink && dir) {
		print_error("--netlink and --dir name two sources, give one of them");
		return 1;
	}
	/* The command line beats the environment: --dir reads files. */
	if (!dir && !o.netlink) {
		const char *env = getenv("MEMSCOPE_NETLINK");

		o.netlink = env && *env && strcmp(env, "0");
	}
	if (!(tool->flags & MS_TOOL_NO_SIGNALS))
		ms_signals_init();
	if (tool->flags & MS_TOOL_NO_MODULE)
		return tool->run(&o) ? 1 : 0;
	if ((o.netlink || ((tool->flags & MS_TOOL_NETLINK_FIRST) && !dir)) && ms_nl_use())
		return 1;
	if (tool->flags & MS_TOOL_MODULE_OPTIONAL)
		return tool->run(&o) ? 1 : 0;
	if (!ms_nl_on() && ms_locate_dir(dir))
		return 1;
	if (!(tool->flags & MS_TOOL_ANY_FORMAT) && ms_check_format())
		return 1;
	return tool->run(&o) ? 1 : 0;
}
