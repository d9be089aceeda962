// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "memscope.h"

volatile sig_atomic_t ms_stop;
static unsigned int step;
static struct timespec deadline;

static void on_signal(int sig)
{
	(void)sig;
	ms_stop = 1;
}

void ms_signals_init(void)
{
	struct sigaction sa;

	/* No SA_RESTART: a blocked read() or sleep must return on Ctrl-C. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

unsigned int ms_step(void)
{
	return step;
}

double ms_now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ms_interval_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &deadline);
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

#define MS_WAKE_FDS 4

/*
 * Until @until, or until a signal asks to stop (already asked: at once);
 * meanwhile @ops' wake each time one of its descriptors is readable.
 */
static void sleep_until(const struct timespec *until, const struct ms_interval_ops *ops,
			void *ctx)
{
	int fds[MS_WAKE_FDS], n = ops && ops->wake_fds ? ops->wake_fds(ctx, fds, MS_WAKE_FDS) : 0, i;
	struct pollfd pfd[MS_WAKE_FDS];
	struct timespec now, left;

	if (n <= 0) {
		while (!ms_stop &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, until, NULL) == EINTR)
			;
		return;
	}
	while (!ms_stop) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!ts_before(&now, until))
			return;
		left.tv_sec = until->tv_sec - now.tv_sec;
		left.tv_nsec = until->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		for (i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (ppoll(pfd, n, &left, NULL) > 0)
			ops->wake(ctx);
	}
}

static struct timespec last_tick;	/* when a tick last ran; 0: never */

/* @ops' tick, if it has one and a second has passed since it last ran. */
static void maybe_tick(const struct ms_interval_ops *ops, void *ctx)
{
	struct timespec now, due = last_tick;

	if (!ops || !ops->tick || ms_stop)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	due.tv_sec++;
	if (last_tick.tv_sec && ts_before(&now, &due))
		return;
	ops->tick(ctx);
	clock_gettime(CLOCK_MONOTONIC, &last_tick);
}

/*
 * The next deadline, @seconds after the last: absolute, so that reports
 * don't drift by the time they take.  @ops' tick, if any, runs each
 * second meanwhile, and between reports closer than that.
 */
static bool interval_wait(double seconds, const struct ms_interval_ops *ops, void *ctx)
{
	struct timespec next;
	double whole;
	long ns;

	if (ms_stop)
		return false;
	if (ms_test_steps()) {
		step++;
		return !ms_stop;
	}
	ns = (long)(modf(seconds, &whole) * 1e9);
	deadline.tv_sec += (time_t)whole;
	deadline.tv_nsec += ns;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	while (ops && ops->tick && !ms_stop) {
		maybe_tick(ops, ctx);
		next = last_tick;
		next.tv_sec++;
		if (!ts_before(&next, &deadline))
			break;
		sleep_until(&next, ops, ctx);
	}
	sleep_until(&deadline, ops, ctx);
	return !ms_stop;
}

bool ms_interval_wait(double seconds)
{
	return interval_wait(seconds, NULL, NULL);
}

/* A duration in ns as people read it: 3 significant digits and a unit. */
void ms_fmt_ns(char *buf, size_t size, uint64_t ns)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" }, { 60e9, "min" }, { 3600e9, "h" },
	};
	size_t i = 0;

	while (i + 1 < sizeof(u) / sizeof(u[0]) && ns >= u[i + 1].div)
		i++;
	snprintf(buf, size, "%.3g%s", ns / u[i].div, u[i].unit);
}

void ms_fmt_hms(char *buf, size_t size, time_t t)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%H:%M:%S", &tm))
		snprintf(buf, size, "??:??:??");
}

/*
 * An event's CLOCK_MONOTONIC stamp as wall-clock time of day: the event's
 * wall time in nanoseconds, rounded down to its second once, so that text
 * and JSON (and two runs) name the same second for the same event.
 */
void ms_fmt_hms_mono_ns(char *buf, size_t size, uint64_t mono_ns)
{
	const int64_t nsec = 1000000000;
	struct timespec mono, real;
	int64_t now_mono, now_real, ago;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	now_mono = (int64_t)mono.tv_sec * nsec + mono.tv_nsec;
	now_real = (int64_t)real.tv_sec * nsec + real.tv_nsec;
	ago = now_mono - (int64_t)mono_ns;
	if (mono_ns == 0 || mono_ns > (uint64_t)INT64_MAX || ago < 0 || ago > now_real)
		ago = 0;
	ms_fmt_hms(buf, size, (time_t)((now_real - ago) / nsec));
}

/* -T: a time line before a text report, "time" and "timestamp" in JSON. */
void ms_print_timestamp(const struct ms_opts *o)
{
	struct timeval tv;
	char hms[16];

	if (!o->timestamp)
		return;
	gettimeofday(&tv, NULL);
	ms_fmt_hms(hms, sizeof(hms), tv.tv_sec);
	print_string(PRINT_ANY, "time", "%s\n", hms);
	print_float(PRINT_JSON, "timestamp", NULL, (double)tv.tv_sec + tv.tv_usec / 1e6);
}

/*
 * A tool that turned its family on (ms_leased()) and has no INTERVAL
 * traces until Ctrl-C (or SIGTERM), as BCC's do, and then prints what
 * happened meanwhile: one interval as long as the run.
 */
static int run_traced(const struct ms_interval_ops *ops, void *ctx)
{
	struct ms_missed missed[2];
	struct timespec next;
	void *first, *now;
	double t0;
	int ret;

	fprintf(stderr, "Tracing: memscope turned %s on, and turns it off when it ends. Hit Ctrl-C to end.\n",
		ms_leased());
	ms_missed_snapshot(&missed[0]);
	first = ops->snapshot(ctx);
	if (!first)
		return 1;
	t0 = ms_now_mono();
	/* Each signal ends a sleep early: ms_stop is seen within a second. */
	while (!ms_stop && !ms_test_steps()) {
		clock_gettime(CLOCK_MONOTONIC, &next);
		next.tv_sec++;
		sleep_until(&next, ops, ctx);
		maybe_tick(ops, ctx);
	}
	now = ops->snapshot(ctx);
	if (!now) {
		ops->free_snap(first);
		return 1;
	}
	ms_missed_snapshot(&missed[1]);
	ret = ops->report(ctx, first, now, ms_now_mono() - t0);
	if (!ret && ops->finish)
		ret = ops->finish(ctx, first, now);
	if (!ret)
		ms_missed_warn(&missed[0], &missed[1], "while tracing");
	ops->free_snap(now);
	ops->free_snap(first);
	return ret ? 1 : 0;
}

/*
 * vmstat's contract: no INTERVAL prints one cumulative report; INTERVAL
 * alone repeats until Ctrl-C; INTERVAL COUNT prints COUNT reports. Each
 * interval report is the change since the previous one. Ctrl-C ends the
 * loop and still runs finish(), which prints the run's summary.  A tool
 * that turned its family on traces until Ctrl-C instead (run_traced).
 */
int ms_run_interval(const struct ms_opts *o, const struct ms_interval_ops *ops, void *ctx)
{
	struct ms_missed missed[2];
	void *first, *prev, *now;
	double t0, t1;
	uint64_t i;
	int ret = 0;

	if (!o->has_interval && ms_leased())
		return run_traced(ops, ctx);

	/*
	 * Misses are read after the counts: a hit missed in between is
	 * reported once more, never left out.
	 */
	if (!o->has_interval) {
		now = ops->snapshot(ctx);
		if (!now)
			return 1;
		ms_missed_snapshot(&missed[0]);
		ret = ops->report(ctx, NULL, now, 0);
		if (!ret && ops->finish)
			ret = ops->finish(ctx, NULL, now);
		ops->free_snap(now);
		if (!ret)
			ms_missed_warn(NULL, &missed[0], "since memscope was loaded");
		return ret ? 1 : 0;
	}

	ms_interval_start();
	ms_missed_snapshot(&missed[0]);
	first = ops->snapshot(ctx);
	if (!first)
		return 1;
	prev = first;
	t0 = ms_now_mono();
	for (i = 0; o->count == 0 || i < o->count; i++) {
		if (!interval_wait(o->interval, ops, ctx))
			break;
		now = ops->snapshot(ctx);
		if (!now) {
			ret = 1;
			break;
		}
		t1 = ms_now_mono();
		ms_missed_snapshot(&missed[(i + 1) & 1]);
		ret = ops->report(ctx, prev, now, ms_test_steps() ? o->interval : t1 - t0);
		if (!ret)
			ms_missed_warn(&missed[i & 1], &missed[(i + 1) & 1], "in this interval");
		t0 = t1;
		if (prev != first)
			ops->free_snap(prev);
		prev = now;
		if (ret)
			break;
	}
	if (!ret && ops->finish)
		ret = ops->finish(ctx, first, prev);
	if (prev != first)
		ops->free_snap(prev);
	ops->free_snap(first);
	return ret ? 1 : 0;
}
