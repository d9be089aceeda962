// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "memscope.h"

#define TOP_N 5

struct top_snap {
	struct ms_counters stats;
	struct ms_keyed procs;
	struct ms_keyed files;
	struct ms_records oom;
	bool has_oom;
};

static struct termios saved_tio;
static bool tio_saved;
static bool screen_alt;

static void tty_restore(void)
{
	if (tio_saved) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
		tio_saved = false;
	}
	if (screen_alt) {
		/* show the cursor again; the last screen stays, as with watch(1) */
		fputs("\033[?25h", stdout);
		fflush(stdout);
		screen_alt = false;
	}
}

static void tty_setup(void)
{
	struct termios tio;

	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tio) == 0) {
		tio = saved_tio;
		/* keys without Enter and without echo; ISIG keeps Ctrl-C working */
		tio.c_lflag &= (tcflag_t)~(ICANON | ECHO);
		tio.c_cc[VMIN] = 0;
		tio.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &tio) == 0)
			tio_saved = true;
	}
	fputs("\033[?25l", stdout);
	screen_alt = true;
	atexit(tty_restore);
}

/* The interval wait of a tty dashboard: returns early, false, on 'q'. */
static bool tty_wait(double seconds)
{
	double end = ms_now_mono() + seconds, left;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;
	int r;

	while (!ms_stop && (left = end - ms_now_mono()) > 0) {
		if (!tio_saved) {
			struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };

			nanosleep(&ts, NULL);
			continue;
		}
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r > 0) {
			while (read(STDIN_FILENO, &c, 1) == 1)
				if (c == 'q' || c == 'Q')
					return false;
		} else if (r < 0 && errno != EINTR) {
			break;
		}
	}
	return !ms_stop;
}

static void top_free(struct top_snap *s)
{
	if (!s)
		return;
	ms_stats_free(&s->stats);
	ms_keyed_free(&s->procs);
	ms_keyed_free(&s->files);
	if (s->has_oom)
		ms_ring_free(&s->oom);
	free(s);
}

static struct top_snap *top_snapshot(void)
{
	static const char *const cols[] = { "faults", "major" };
	struct top_snap *s = calloc(1, sizeof(*s));
	int r;

	if (!s) {
		ms_fail("out of memory, free some memory");
		return NULL;
	}
	if (ms_load_stats(&s->stats) ||
	    ms_keyed_load("faults_by_pid", "pid", "comm", cols, 2, &s->procs) ||
	    ms_keyed_load("faults_by_file", "file", NULL, cols, 2, &s->files))
		goto fail;
	r = ms_load_ring("oom", &s->oom, true);
	if (r < 0)
		goto fail;
	s->has_oom = r == 0;
	return s;
fail:
	top_free(s);
	return NULL;
}

static double rate(const struct ms_counters *now, const struct ms_counters *prev,
		   const char *key, double dt, double scale)
{
	uint64_t d = ms_stat_delta(now, prev, key);

	return dt > 0 ? (double)d / scale / dt : 0;
}

/* The system-wide lines: rates over the interval, and the OOM kills. */
static void top_summary(const struct top_snap *prev, const struct top_snap *now, double dt)
{
	double faults = rate(&now->stats, &prev->stats, "faults", dt, 1);
	double major = rate(&now->stats, &prev->stats, "faults_major", dt, 1);

	print_float(PRINT_ANY, "faults_per_s", "Faults       %12.1f/s", faults);
	print_float(PRINT_ANY, "major_pct", "   major %.2f%%",
		    faults > 0 ? 100.0 * major / faults : 0.0);
	print_float(PRINT_ANY, "major_per_s", " (%.1f/s)\n", major);
	print_float(PRINT_ANY, "swapins_per_s", "Swap-ins     %12.1f/s\n",
		    rate(&now->stats, &prev->stats, "swapins", dt, 1));
	print_float(PRINT_ANY, "direct_reclaim_ms_per_s", "Reclaim      %12.2f ms/s direct",
		    rate(&now->stats, &prev->stats, "direct_reclaim_ns", dt, 1e6));
	print_float(PRINT_ANY, "memcg_reclaim_ms_per_s", ", %.2f ms/s memcg",
		    rate(&now->stats, &prev->stats, "memcg_reclaim_ns", dt, 1e6));
	print_float(PRINT_ANY, "kswapd_wakeups_per_s", ", kswapd wakeups %.1f/s\n",
		    rate(&now->stats, &prev->stats, "kswapd_wakeups", dt, 1));
	print_float(PRINT_ANY, "compaction_ms_per_s", "Compaction   %12.2f ms/s",
		    rate(&now->stats, &prev->stats, "compaction_ns", dt, 1e6));
	print_float(PRINT_ANY, "compactions_per_s", " (%.1f/s)\n",
		    rate(&now->stats, &prev->stats, "compaction_count", dt, 1));
	print_uint(PRINT_ANY, "oom_kills", "OOM kills    %12llu total\n",
		   ms_stats_val(&now->stats, "oom_kills"));
}

/*
 * The TOP_N busiest rows of a table's delta, as @array: each row's key
 * (a pid, with its comm, or a file) and its faults and major faults per
 * second.
 */
static void top_rows(const char *array, const struct ms_keyed *d, bool pid, double dt)
{
	size_t i, n = d->n < TOP_N ? d->n : TOP_N;

	if (pid)
		print_fp("\n%-7s %-16s %12s %10s\n", "PID", "COMM", "FAULTS/s", "MAJOR/s");
	else
		print_fp("\n%-32s %12s %10s\n", "FILE", "FAULTS/s", "MAJOR/s");
	open_json_array(array);
	for (i = 0; i < n; i++) {
		open_json_object(NULL);
		if (pid) {
			print_num_str(PRINT_ANY, "pid", "%-7s ", d->rows[i].key);
			print_string(PRINT_ANY, "comm", "%-16s ", d->rows[i].label);
		} else {
			print_string(PRINT_ANY, "file", "%-32s ", d->rows[i].key);
		}
		print_float(PRINT_ANY, "faults_per_s", "%12.1f ", (double)d->rows[i].v[0] / dt);
		print_float(PRINT_ANY, "major_per_s", "%10.1f\n", (double)d->rows[i].v[1] / dt);
		close_json_object();
	}
	close_json_array();
}

static void top_last_oom(const struct top_snap *now)
{
	print_fp("\nLast OOM kill:\n");
	if (now->has_oom && now->oom.n) {
		open_json_object("last_oom");
		ms_print_oom(&now->oom.v[now->oom.n - 1]);
		close_json_object();
	} else {
		print_fp("none recorded\n");
		print_string(PRINT_JSON, "last_oom", NULL, NULL);
	}
}

static int top_draw(const struct top_snap *prev, const struct top_snap *now, double dt,
		    bool tty)
{
	struct ms_keyed dp, df;
	char hms[16];

	if (ms_keyed_delta(&now->procs, &prev->procs, 0, &dp))
		return -1;
	if (ms_keyed_delta(&now->files, &prev->files, 0, &df)) {
		ms_keyed_free(&dp);
		return -1;
	}
	ms_fmt_hms(hms, sizeof(hms), time(NULL));
	print_begin_record();
	if (tty)
		print_fp("\033[H\033[2J");
	print_string(PRINT_ANY, "time", "memscope top - %s", hms);
	print_float(PRINT_ANY, "interval", ", every %.1fs", dt);
	print_fp("%s\n\n", tty ? "  (q quits)" : "");
	top_summary(prev, now, dt);
	top_rows("top_processes", &dp, true, dt);
	top_rows("top_files", &df, false, dt);
	ms_keyed_print_dropped(&now->procs, &prev->procs, false);
	top_last_oom(now);
	if (!tty)
		print_nl();
	print_end_record();
	ms_keyed_free(&dp);
	ms_keyed_free(&df);
	return 0;
}

static int cmd_top(const struct ms_opts *o)
{
	struct top_snap *prev, *now;
	double interval = o->has_interval ? o->interval : o->delay;
	double t0, t1, dt;
	bool tty = !o->json && isatty(STDOUT_FILENO) && !ms_test_steps();
	uint64_t i;
	int ret = 0;

	prev = top_snapshot();
	if (!prev)
		return 1;
	if (tty) {
		tty_setup();
		printf("\033[H\033[2Jmemscope top - collecting for %.1fs...\n", interval);
		fflush(stdout);
	}
	ms_interval_start();
	t0 = ms_now_mono();
	for (i = 0; o->count == 0 || i < o->count; i++) {
		if (!(tty ? tty_wait(interval) : ms_interval_wait(interval)))
			break;
		now = top_snapshot();
		if (!now) {
			ret = 1;
			break;
		}
		t1 = ms_now_mono();
		dt = ms_test_steps() ? interval : t1 - t0;
		t0 = t1;
		if (top_draw(prev, now, dt > 0 ? dt : interval, tty)) {
			top_free(now);
			ret = 1;
			break;
		}
		top_free(prev);
		prev = now;
	}
	top_free(prev);
	tty_restore();
	return ret;
}

MS_TOOL(top,
	.topic = MS_TOPIC_VIEWS, .rank = 10,
	.opts = OPT_DELAY | OPT_INTERVAL,
	.usage = "top [-d SECONDS] [INTERVAL [COUNT]]",
	.summary = "live dashboard of memory rates (q quits)");
