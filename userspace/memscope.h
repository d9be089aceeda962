/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The memscope authors. */
#ifndef MEMSCOPE_H
#define MEMSCOPE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "parse.h"
#include "print.h"

/* The module's file format this CLI reads: MEMSCOPE_FORMAT, `format` in version. */
#include "../module/uapi/memscope_genl.h"

#ifndef MEMSCOPE_VERSION
#define MEMSCOPE_VERSION "unknown"
#endif

#define MS_DEBUGFS_DIR	"/sys/kernel/debug/memscope"
#define MS_PROCFS_DIR	"/proc/memscope"
#define MS_MAX_FILE	(64u << 20)	/* larger than any file the module makes */

/* Options after the tool name; which ones a tool accepts is in its MS_TOOL(). */
enum {
	OPT_PID		= 1 << 0,
	OPT_HIST	= 1 << 1,
	OPT_LAST	= 1 << 2,
	OPT_INTERVAL	= 1 << 3,
	OPT_DELAY	= 1 << 4,
	OPT_PROM	= 1 << 5,
	OPT_MEMCG	= 1 << 6,
	OPT_CGROUP	= 1 << 7,
	OPT_TOP		= 1 << 8,
	OPT_MIN_AGE	= 1 << 9,
	OPT_STACKS	= 1 << 10,
	OPT_FILE	= 1 << 11,	/* a FILE argument instead of INTERVAL */
	OPT_TITLE	= 1 << 12,
	OPT_MAP		= 1 << 13,	/* pmap --map ADDRESS */
	OPT_RESIDENCY	= 1 << 14,	/* swapin --residency */
	OPT_TEXTFILE	= 1 << 15,	/* export --textfile DIR */
	OPT_KEPT	= 1 << 16,	/* an opt-in tool: what its family kept */
	OPT_INTERACTIVE	= 1 << 17,	/* pmap -i */
	OPT_DEBUG_DIR	= 1 << 18,	/* --debug-dir DIR: separate debuginfo, for stacks */
	OPT_BUFSIZE	= 1 << 19,	/* monitor --buffer-size BYTES */
	OPT_COMMAND	= 1 << 20,	/* memleak -c COMMAND */
	OPT_SAMPLE	= 1 << 21,	/* memleak -s RATE */
	OPT_PREFIX	= 1 << 22,	/* memleak --prefix PREFIX */
	OPT_NODE_NAMES	= 1 << 23,	/* export --node-names */
};

struct ms_opts {
	bool json;
	bool timestamp;
	bool hist;
	bool last;
	bool kept;		/* --kept: turn nothing on, show what was kept */
	bool memcg;		/* drsnoop: memcg reclaims too */
	bool prometheus;
	bool has_pid;
	int64_t pid;
	const char *cgroup;	/* -c: a cgroup2 path, its subtree */
	bool has_interval;
	double interval;
	uint64_t count;		/* 0: forever */
	double delay;		/* top -d */
	bool has_delay;
	bool has_top;		/* memleak --top N */
	uint64_t top;
	bool has_min_age;	/* memleak -o MIN_AGE_MS */
	uint64_t min_age_ms;
	bool stacks;		/* faults --stacks */
	const char *debug_dir;	/* --debug-dir: for /usr/lib/debug, naming stack frames */
	bool residency;		/* swapin --residency */
	const char *file;	/* flamegraph FILE */
	const char *title;	/* flamegraph --title */
	const char *map;	/* pmap --map ADDRESS */
	bool interactive;	/* pmap -i */
	const char *textfile;	/* export --textfile DIR */
	bool node_names;	/* export: node_exporter's pressure names too */
	const char *dir;	/* --dir, for tools that find the module themselves */
	bool netlink;		/* --netlink: the module's netlink family, not its files */
	uint64_t buffer_size;	/* monitor --buffer-size: 0, the default */
	const char *command;	/* memleak -c: run it, trace it */
	uint64_t sample_rate;	/* memleak -s: 0, all */
	const char *prefix;	/* memleak --prefix: the allocator's symbol prefix */
};

/*
 * A tool describes itself once, in its own file, with MS_TOOL(): main.c
 * finds every description in the ms_tools section and drives parsing,
 * usage, `memscope __complete` (the shell completion) and the setup
 * before the tool runs from them.  Nothing else names a tool.
 *
 * The order is the topic's, then the rank's within it (then the name's):
 * help lists the tools in it, and a prefix picks the first tool it
 * matches in it, as in ip(8) ("s" is status, "sh" shrinkers), so a new
 * tool's topic and rank decide which abbreviations stay with the old
 * ones.  Ranks go in tens, to leave room.
 */
enum ms_topic {
	MS_TOPIC_STATUS,	/* the module itself */
	MS_TOPIC_FAULTS,	/* page faults and swap-ins */
	MS_TOPIC_PRESSURE,	/* OOM kills, reclaim, shrinkers, compaction */
	MS_TOPIC_ALLOC,		/* slab allocations */
	MS_TOPIC_CALLS,		/* system calls and user stacks, and their flame graphs */
	MS_TOPIC_VIEWS,		/* views over the families: dashboard, maps, reports, export */
	MS_TOPIC_HELP,		/* help itself, last */
};

/*
 * What main.c sets up before it runs a tool; 0: the module, by its files
 * or netlink, in the format this CLI reads (MEMSCOPE_FORMAT).
 */
enum {
	MS_TOOL_ANY_FORMAT	= 1 << 0,	/* runs whatever the module's format: status says it */
	MS_TOOL_MODULE_OPTIONAL	= 1 << 1,	/* finds the module itself, and says what it missed */
	MS_TOOL_NO_MODULE	= 1 << 2,	/* reads no module: no --netlink, no directory */
	MS_TOOL_NO_SIGNALS	= 1 << 3,	/* Ctrl-C ends it at once, as it ends cat */
	MS_TOOL_NETLINK_FIRST	= 1 << 4,	/* the netlink family unless --dir, not the files */
};

struct ms_tool {
	const char *name;
	int (*run)(const struct ms_opts *o);
	enum ms_topic topic;
	unsigned int rank;
	unsigned int opts;	/* the OPT_ bits of the options it takes */
	unsigned int flags;	/* MS_TOOL_ */
	const char *usage;	/* the grammar after "memscope [OPTIONS] name" */
	const char *summary;
};

/*
 * MS_TOOL(name, .topic = ..., .rank = ..., ...): the tool "name", run by
 * cmd_name() (defined above it in its file), and the rest of its struct
 * ms_tool, in the section main.c walks as an array from __start_ms_tools
 * to __stop_ms_tools.  The explicit alignment keeps the compiler from
 * padding between them (GCC aligns large objects to 32 bytes on x86-64).
 * "used" keeps a description through LTO.  GNU ld and gold keep a section
 * that __start_ and __stop_ symbols name; lld's --gc-sections (13 on) only
 * one marked retain, which the Makefile turns on (MS_HAVE_RETAIN) where
 * the compiler and assembler take it.
 */
#ifdef MS_HAVE_RETAIN
#define MS_TOOL_KEEP used, retain
#else
#define MS_TOOL_KEEP used
#endif
#define MS_TOOL(tname, ...)						\
	static const struct ms_tool ms_tool_##tname				\
	__attribute__((MS_TOOL_KEEP, section("ms_tools"),			\
		       aligned(sizeof(void *)))) = {				\
		.name = #tname, .run = cmd_##tname, __VA_ARGS__		\
	}

/* dir.c: where the files are, reading them, and saying why we can't */
int ms_locate_dir(const char *cli_dir);
const char *ms_dir(void);
/* 0 if the module's files are in the format this CLI reads, else fails. */
int ms_check_format(void);
uint64_t ms_memleak_sample(void);
int ms_module_tables(char ***names);
void ms_free_names(char **names);
char *ms_path(const char *name);		/* caller frees */
int ms_read(const char *name, char **data, size_t *len);
int ms_read_optional(const char *name, char **data, size_t *len);
int ms_load_stats(struct ms_counters *st);
int ms_load_table(const char *name, struct ms_rows *t);
/* As ms_load_table(), but 1 where there is no such table, or (said) a malformed one. */
int ms_load_table_optional(const char *name, struct ms_rows *t);
/*
 * table_reuse's row for @table: rows a reader had seen that the module
 * took over while their process still ran, and the events they held.
 * Zero where the module has no such file (older than this CLI).
 */
struct ms_reuse {
	uint64_t rows, events;
};
int ms_load_reuse(const char *table, struct ms_reuse *r);
/*
 * Say what a report since enable lacks because of such rows (@what: the
 * events counted, "faults"), and give both numbers in JSON.  No warning
 * with @prev: an interval's counts are whole, as those rows had not moved
 * since the read before.  @one_process: the report shows one process
 * (-p), and the rows may have been any process's.
 */
void ms_warn_reuse(const char *table, const char *what, bool by_process, bool one_process,
		   const struct ms_reuse *now, const struct ms_reuse *prev);
int ms_load_ring(const char *name, struct ms_records *r, bool optional);
int ms_load_hist(const char *name, struct ms_buckets *h, bool optional);
int ms_load_probes(struct ms_probe_lines *p, bool optional);
int ms_load_pressure(struct ms_psi *p);
int ms_load_pressure_by_cgroup(struct ms_rows *t);
int ms_load_pressure_by_cgroup_avg(struct ms_rows *t);
/* The pressure family's probes, as ms_check_probes() patterns. */
extern const char *const ms_pressure_probes[];
void ms_warn_diag(const char *name, const struct ms_diag *d);
/*
 * Check the probes a tool depends on (fnmatch patterns on probe name or
 * target). Unusable ones are named with their reason as warnings; returns
 * -1 (with an error printed) when none of them is usable.
 */
int ms_check_probes(const char *tool, const char *const *patterns);
/* tool: the command to run again; family: what `enable` takes */
int ms_check_optin(const char *tool, const char *family, const char *probe, const char *cost,
		   bool kept);
const char *ms_leased(void);
bool ms_probe_matches(const struct ms_probe_line *p, const char *const *patterns);
bool ms_module_loaded(void);
void ms_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* calloc() and strdup() that print the error and exit when memory is out */
void *ms_xcalloc(size_t n, size_t size);
char *ms_xstrdup(const char *s);
char *ms_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * missed.c: a report's warning for the hits its probes missed.  Tools
 * checked with ms_check_probes() watch those probes; opt-in tools name
 * theirs with ms_missed_watch().
 */
#define MS_MISSED_MAX 16
struct ms_missed {
	size_t n;
	struct {
		char name[96];		/* "name (target)" */
		uint64_t missed;
	} p[MS_MISSED_MAX];
};
void ms_missed_watch(const char *const *patterns);
void ms_missed_snapshot(struct ms_missed *m);
void ms_missed_warn(const struct ms_missed *prev, const struct ms_missed *now,
		    const char *span);

/*
 * Test seams: noseams.c in the product (always off), tests/cli/seams.c in
 * the test build.  Steps replay DIR/0, DIR/1, ... without sleeping; the
 * sysroot prefixes the system paths the directory diagnosis reads.
 */
bool ms_test_steps(void);
const char *ms_test_sysroot(void);

/* interval.c: vmstat-style INTERVAL [COUNT], signals, time */
extern volatile sig_atomic_t ms_stop;
void ms_signals_init(void);
unsigned int ms_step(void);
/* Sleep until the next interval; false when the user asked to stop. */
bool ms_interval_wait(double seconds);
void ms_interval_start(void);
double ms_now_mono(void);
void ms_fmt_hms(char *buf, size_t size, time_t t);
void ms_fmt_ns(char *buf, size_t size, uint64_t ns);
void ms_fmt_hms_mono_ns(char *buf, size_t size, uint64_t mono_ns);
void ms_print_timestamp(const struct ms_opts *o);

struct ms_interval_ops {
	void *(*snapshot)(void *ctx);
	void (*free_snap)(void *snap);
	/* prev is NULL for the cumulative report */
	int (*report)(void *ctx, const void *prev, const void *now, double dt);
	/* first is NULL in cumulative mode */
	int (*finish)(void *ctx, const void *first, const void *last);
	/* Each second while the tool waits for its next report, if not NULL. */
	void (*tick)(void *ctx);
	/*
	 * The descriptors to watch while the tool waits, up to @max into @fds
	 * (how many: 0, none), and what to do as soon as one is readable;
	 * both NULL, or both set.
	 */
	int (*wake_fds)(void *ctx, int *fds, int max);
	void (*wake)(void *ctx);
};
int ms_run_interval(const struct ms_opts *o, const struct ms_interval_ops *ops, void *ctx);
/* procev.c: the kernel's process events, for exec()s as they happen. */
int ms_procev_open(void);
void ms_procev_read(int fd, void (*fn)(void *ctx, int tgid), void *ctx);

/* proctable.c: one per-process counter table plus its total stat */
struct ms_proc_table {
	const char *table;	/* faults_by_pid-style file */
	const char *valcol;	/* its counter column */
	const char *stat;	/* the matching stats key */
	bool swapin_layout;	/* swapin.bt's block: time, COMM PID COUNT */
};
int ms_run_proc_table(const struct ms_opts *o, const struct ms_proc_table *t);

/* keyed.c: tables as keyed rows of counters, and their interval deltas */
#define MS_KEYED_VALS 4
struct ms_krow {
	char *key;
	char *label;
	uint64_t v[MS_KEYED_VALS];
};
struct ms_keyed {
	struct ms_krow *rows;
	size_t n;
	int nvals;
	bool borrowed;		/* strings belong to another ms_keyed */
	uint64_t reset_count;	/* stats' reset_count, read just before */
	uint64_t dropped;	/* and its dropped */
	struct ms_reuse reuse;	/* the table's rows reused while their key ran */
	const char *file;
	bool by_pid;
};
int ms_keyed_load(const char *file, const char *keycol, const char *labelcol,
		  const char *const *valcols, int nvals, struct ms_keyed *k);
/* ms_keyed_load() into a heap snapshot (ms_run_interval's), and its free. */
struct ms_keyed *ms_keyed_snapshot(const char *file, const char *keycol, const char *labelcol,
				   const char *const *cols, int ncols);
void ms_keyed_snapshot_free(void *p);
/* now - prev per key (prev may be NULL), zero rows dropped, sorted by v[sortcol] */
int ms_keyed_delta(const struct ms_keyed *now, const struct ms_keyed *prev,
		   int sortcol, struct ms_keyed *out);
void ms_keyed_free(struct ms_keyed *k);
bool ms_keyed_pid_match(const struct ms_krow *r, const struct ms_opts *o);
bool ms_keyed_cgroup_match(const struct ms_krow *r, const struct ms_opts *o);
/*
 * A counter's change from prev to now.  Counters only restart at a reset,
 * which reset_count tells; a smaller value without one is a swap-in the
 * zswap probe is taking back (docs/debugfs.md), so no change.
 */
uint64_t ms_stat_delta(const struct ms_counters *now, const struct ms_counters *prev,
		       const char *key);
bool ms_reset_between(const struct ms_counters *now, const struct ms_counters *prev);
int ms_load_reset_count(uint64_t *reset_count, uint64_t *dropped);
/* One line when events found a table full between prev and now. */
void ms_keyed_print_dropped(const struct ms_keyed *now, const struct ms_keyed *prev,
			    bool one_process);
/*
 * A "%-Ns" format for the key column of @d's first @n rows: as wide as
 * the widest key, at least @min and at most 40 columns.
 */
void ms_keyed_key_fmt(const struct ms_keyed *d, size_t n, size_t min, char *fmt, size_t len);

/* hist.c: bpftrace's histogram layout, or JSON buckets */
void ms_print_hist(const char *name, const struct ms_buckets *h);
/* The slot that holds the median sample, or -1 for an empty histogram. */
int ms_hist_median_slot(const struct ms_buckets *h);

/* tools/oomkill.c: BCC's two-line OOM kill report (also used by top) */
void ms_print_oom(const struct ms_record *r);

/* tools/ustack.c: faults --stacks; and for memleak -p, its stacks' names */
void *ms_ustack_preload_start(void);
void ms_ustack_preload_tick(void *p);
void ms_ustack_preload_end(void *p);
struct ms_rows;
void ms_ustack_files_wait(const struct ms_rows *t);
char *ms_ustack_frame_line(int64_t pid, uint64_t ip, bool ret);
int cmd_fault_stacks(const struct ms_opts *o);
/* tools/uleak.c: memleak -p PID */
int ms_memleak_process(const struct ms_opts *o);
/* `memscope __unwind-load FILE...`: FILE's unwind tables into the module (tests). */
int cmd_unwind_load(int argc, char **argv);

/* events.c: the blocking events stream, read like trace_pipe */
struct ms_stream;
struct ms_stream *ms_stream_open(const char *name, uint64_t rcvbuf);
/* Whether @s reads the netlink groups (else a file). */
bool ms_stream_netlink(const struct ms_stream *s);
/* events_format, read once; NULL where the module has none (older). */
const struct ms_evfmt *ms_events_format(void);
/* 1: an event in *rec (its type set); 0: end of stream (a plain file hit EOF) or stop; -1: error */
int ms_stream_next(struct ms_stream *s, struct ms_record *rec);
void ms_stream_close(struct ms_stream *s);
typedef int (*ms_event_fn)(void *ctx, const struct ms_record *r);
int ms_follow_events(const char *type, ms_event_fn fn, void *ctx);
typedef int (*ms_recover_fn)(void *ctx);
int ms_follow_events_recover(const char *type, ms_event_fn fn, ms_recover_fn recover,
			     void *ctx);

#endif /* MEMSCOPE_H */
