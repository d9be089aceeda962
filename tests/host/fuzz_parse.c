// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The memscope authors. */
/*
 * Fuzz target for userspace/parse.c (and the JSON escaping of print.c):
 * every debugfs format parser gets the same input.
 *
 * libFuzzer:  make -C userspace fuzz && userspace/fuzz_parse tests/fixtures/fuzz-regressions
 * standalone: cc -DFUZZ_STANDALONE -fsanitize=address,undefined ... (see tests/host/run.sh);
 *             ./fuzz_parse [-n ITERATIONS] [-t MAX_SECONDS] [-s SEED] [-o CRASHDIR] FILE|DIR...
 * The standalone driver first replays each file, then mutates them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "parse.h"
#include "print.h"

static FILE *sink;

static void emit(const char *key, const char *s)
{
	print_string(PRINT_ANY, key, "%s", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	struct ms_counters st;
	struct ms_probe_lines pr;
	struct ms_rows t;
	struct ms_records ring;
	struct ms_evfmt ef;
	struct ms_record rec;
	struct ms_buckets h, h2, delta;
	struct ms_psi psi;
	char label[64], *copy;
	uint64_t v;
	size_t i, j;
	int k;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		print_set_output(sink);
		print_set_json(true);
	}
	print_begin_record();

	if (ms_parse_stats(d, size, &st) == 0) {
		for (i = 0; i < st.n; i++)
			ms_stats_get(&st, st.v[i].key, &v);
		ms_stats_val(&st, "faults");
	}
	ms_stats_free(&st);

	if (ms_parse_probes(d, size, &pr) == 0)
		for (i = 0; i < pr.n; i++) {
			emit("name", pr.v[i].name);
			emit("reason", pr.v[i].reason);
		}
	ms_probes_free(&pr);

	if (ms_parse_table(d, size, &t) == 0) {
		for (i = 0; i < t.ncols; i++)
			ms_table_col(&t, t.cols[i]);
		for (i = 0; i < t.nrows; i++)
			for (j = 0; j < t.ncols; j++) {
				emit("cell", ms_table_cell(&t, i, j));
				ms_parse_u64(ms_table_cell(&t, i, j), &v);
			}
		ms_table_cell(&t, t.nrows, 0);
	}
	ms_table_free(&t);

	if (ms_parse_ring(d, size, &ring) == 0)
		for (i = 0; i < ring.n; i++)
			for (j = 0; j < ring.v[i].n; j++)
				emit(ring.v[i].f[j].key, ring.v[i].f[j].val);
	ms_ring_free(&ring);

	if (ms_parse_record(d, size, true, &rec) == 0) {
		emit("type", rec.type);
		ms_rec_u64(&rec, "time_ns", &v);
		ms_record_free(&rec);
	}

	if (ms_parse_evfmt(d, size, &ef) == 0) {
		for (i = 0; i < ef.n; i++) {
			emit("evtype", ef.t[i].name);
			for (j = 0; j < ef.t[i].n; j++)
				emit(ef.t[i].f[j].name, ms_evfmt_field(&ef.t[i], ef.t[i].f[j].name)->name);
		}
		ms_evfmt_type(&ef, "oom");
		ms_evfmt_free(&ef);
	}

	/* A PSI text, whole or not: a some line at least, whatever else. */
	if (ms_parse_psi(d, size, &psi) == 0 && !psi.has[0])
		abort();

	if (ms_parse_hist(d, size, &h) == 0) {
		for (k = 0; k < MEMSCOPE_HIST_BUCKETS; k++) {
			if (!h.slot[k])
				continue;
			memscope_hist_label(label, sizeof(label), k);
			if (memscope_hist_index(memscope_hist_lo(k), memscope_hist_hi(k)) != k)
				abort();
		}
		/* a second parse of a prefix: deltas across a truncation */
		ms_parse_hist(d, size / 2, &h2);
		ms_hist_delta(&h, &h2, &delta);
		ms_hist_delta(&h2, &h, &delta);
	}

	copy = malloc(size + 1);
	if (copy) {
		memcpy(copy, data, size);
		copy[size] = '\0';
		emit("raw", copy);
		ms_unescape(copy);
		free(copy);
	}
	print_end_record();
	return 0;
}

#ifdef FUZZ_STANDALONE
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(FUZZ_ASAN)
#include <sanitizer/common_interface_defs.h>
#define set_death_callback(fn) __sanitizer_set_death_callback(fn)
#else
#define set_death_callback(fn) ((void)(fn))
#endif

#define FUZZ_MAX_INPUT 8192

struct seed {
	char *data;
	size_t len;
};

static struct seed *seeds;
static size_t nseeds;
static uint8_t cur[FUZZ_MAX_INPUT];
static size_t cur_len;
static const char *crash_dir;
static unsigned long iter;
static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic for a given -s SEED */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static size_t rndn(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void on_death(void)
{
	char path[4096];
	FILE *f;

	if (!crash_dir)
		return;
	snprintf(path, sizeof(path), "%s/crash-%lu", crash_dir, iter);
	f = fopen(path, "w");
	if (f) {
		fwrite(cur, 1, cur_len, f);
		fclose(f);
		fprintf(stderr, "fuzz: crashing input saved as %s\n", path);
	}
}

static void add_seed(const char *path)
{
	struct seed s = { NULL, 0 };
	FILE *f = fopen(path, "r");
	struct seed *ns;

	if (!f)
		return;
	s.data = malloc(FUZZ_MAX_INPUT);
	if (s.data)
		s.len = fread(s.data, 1, FUZZ_MAX_INPUT, f);
	fclose(f);
	ns = realloc(seeds, (nseeds + 1) * sizeof(*seeds));
	if (!s.data || !ns) {
		free(s.data);
		return;
	}
	seeds = ns;
	seeds[nseeds++] = s;
}

static void add_path(const char *path)
{
	struct stat sb;
	struct dirent *de;
	char sub[4096];
	DIR *d;

	if (stat(path, &sb))
		return;
	if (!S_ISDIR(sb.st_mode)) {
		add_seed(path);
		return;
	}
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		add_path(sub);
	}
	closedir(d);
}

static const char *const dict[] = {
	"\\040", "\\", "\\0", "\\377", "\\000", "#", "# ", "[", "]", ")", ", ", "K", "E",
	"...", "18446744073709551615", "18446744073709551616", "9223372036854775808",
	"-", "=", " ", "\n", "\t", "# count ", " sum ", "@x:", "[8E, ...)", "[8E, 16E)",
	"[4E, 8E)", "[0]", "[1]", "[2, 4)", "|@@@@|", "unavailable:", "attached", "disabled",
	"oom ", "lost count=", "time_ns=", "\xc3\xa9", "\xff\xfe", "\xe2\x82", "\xf0\x9f\x98\x80",
	"# pid comm faults major\n", "99999999999999999999",
};

static void mutate(void)
{
	int rounds = 1 + (int)rndn(8), r;
	size_t pos, n, tl;
	const char *tok;

	for (r = 0; r < rounds; r++) {
		pos = rndn(cur_len + 1);
		switch (rndn(8)) {
		case 0:	/* flip a bit */
			if (cur_len)
				cur[rndn(cur_len)] ^= (uint8_t)(1u << rndn(8));
			break;
		case 1:	/* random byte */
			if (cur_len)
				cur[rndn(cur_len)] = (uint8_t)rnd();
			break;
		case 2:	/* insert a byte */
			if (cur_len < FUZZ_MAX_INPUT) {
				memmove(cur + pos + 1, cur + pos, cur_len - pos);
				cur[pos] = (uint8_t)rnd();
				cur_len++;
			}
			break;
		case 3:	/* delete a range */
			n = rndn(cur_len - pos + 1);
			memmove(cur + pos, cur + pos + n, cur_len - pos - n);
			cur_len -= n;
			break;
		case 4:	/* duplicate a range */
			n = rndn(cur_len - pos + 1);
			if (n && cur_len + n <= FUZZ_MAX_INPUT) {
				memmove(cur + pos + n, cur + pos, cur_len - pos);
				cur_len += n;
			}
			break;
		case 5:	/* truncate */
			cur_len = pos;
			break;
		default:	/* insert a token the formats care about */
			tok = dict[rndn(sizeof(dict) / sizeof(dict[0]))];
			tl = strlen(tok);
			if (cur_len + tl <= FUZZ_MAX_INPUT) {
				memmove(cur + pos + tl, cur + pos, cur_len - pos);
				memcpy(cur + pos, tok, tl);
				cur_len += tl;
			}
			break;
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 200000;
	double max_seconds = 0;
	time_t start = time(NULL);
	uint64_t seed = 1;
	size_t i;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "-s") && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "-t") && a + 1 < argc)
			max_seconds = strtod(argv[++a], NULL);
		else if (!strcmp(argv[a], "-o") && a + 1 < argc)
			crash_dir = argv[++a];
		else
			add_path(argv[a]);
	}
	set_death_callback(on_death);
	rng = seed ? seed : 1;
	/* the corpus itself first: regressions must stay fixed */
	for (i = 0; i < nseeds; i++) {
		cur_len = seeds[i].len;
		memcpy(cur, seeds[i].data, cur_len);
		LLVMFuzzerTestOneInput(cur, cur_len);
	}
	for (iter = 0; iter < n; iter++) {
		/* a time cap for loaded machines; the count ran is reported */
		if (max_seconds > 0 && (iter & 1023) == 0 &&
		    difftime(time(NULL), start) > max_seconds)
			break;
		if (nseeds) {
			struct seed *s = &seeds[rndn(nseeds)];

			cur_len = s->len;
			memcpy(cur, s->data, cur_len);
			if (rndn(8) == 0 && nseeds > 1) {	/* splice another seed in */
				struct seed *o = &seeds[rndn(nseeds)];
				size_t at = rndn(cur_len + 1), take = rndn(o->len + 1);

				if (at + take > FUZZ_MAX_INPUT)
					take = FUZZ_MAX_INPUT - at;
				memcpy(cur + at, o->data, take);
				if (at + take > cur_len)
					cur_len = at + take;
			}
		} else {
			cur_len = 0;
		}
		mutate();
		LLVMFuzzerTestOneInput(cur, cur_len);
	}
	printf("fuzz: %zu corpus files and %lu mutated inputs (seed %llu), no crash\n",
	       nseeds, iter, (unsigned long long)seed);
	return 0;
}
#endif
