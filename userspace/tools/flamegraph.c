// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph: folded stacks ("a;b;c 12" lines, as faults --stacks and
 * brkstack print them, or as flamegraph.pl's stackcollapse scripts do) in,
 * one SVG flame graph out, in the layout of Brendan Gregg's flamegraph.pl:
 * the root at the bottom, each frame as wide as its count, children left
 * to right by name, a tooltip (<title>) with the count and share on each.
 * Copyright (C) 2026 The memscope authors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memscope.h"


#define FG_WIDTH	1200
#define FG_FRAME	16	/* pixels per level */
#define FG_PAD		10
#define FG_TOP		34	/* the title */
#define FG_FONT		12
#define FG_CHAR		7.0	/* average glyph width of FG_FONT Verdana, in pixels */
#define FG_MIN_PX	0.1	/* narrower frames are not drawn, as flamegraph.pl */

struct fg_node {
	char *name;
	uint64_t count;
	struct fg_node *child, *next;	/* children sorted by name */
};

static struct fg_node *fg_child(struct fg_node *parent, const char *name, size_t len)
{
	struct fg_node **pp = &parent->child, *n;

	for (; *pp; pp = &(*pp)->next) {
		int c = strncmp((*pp)->name, name, len);

		if (!c && !(*pp)->name[len])
			return *pp;
		if (c > 0 || (!c && (*pp)->name[len]))
			break;
	}
	n = ms_xcalloc(1, sizeof(*n));
	n->name = ms_xcalloc(len + 1, 1);
	memcpy(n->name, name, len);
	n->next = *pp;
	*pp = n;
	return n;
}

/* "frames count": the count after the last space; false if there is none. */
static bool fg_add(struct fg_node *root, char *line)
{
	char *sp = strrchr(line, ' '), *end, *f;
	struct fg_node *n = root;
	uint64_t count;

	if (!sp || sp == line)
		return false;
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (errno || end == sp + 1 || *end)
		return false;
	*sp = '\0';
	root->count += count;
	for (f = line; f;) {
		char *semi = strchr(f, ';');
		size_t len = semi ? (size_t)(semi - f) : strlen(f);

		n = fg_child(n, f, len);
		n->count += count;
		f = semi ? semi + 1 : NULL;
	}
	return true;
}

static int fg_depth(const struct fg_node *n)
{
	const struct fg_node *c;
	int d = 0, x;

	for (c = n->child; c; c = c->next) {
		x = fg_depth(c);
		if (x > d)
			d = x;
	}
	return d + 1;
}

static void fg_escape(FILE *out, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		unsigned char c = s[i];

		switch (c) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* XML 1.0 allows no control characters but tab, newline, CR. */
			fputc(c < 0x20 ? '?' : c, out);
		}
	}
}

/* A warm colour from the name, so a function has one colour everywhere. */
static void fg_colour(const char *name, int *r, int *g, int *b)
{
	unsigned int h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = (int)((h >> 8) % 230);
	*b = (int)((h >> 16) % 55);
}

struct fg_ctx {
	FILE *out;
	double scale;		/* pixels per count */
	uint64_t total;
	int height;
};

static void fg_draw(struct fg_ctx *c, const struct fg_node *n, int depth, double x)
{
	const struct fg_node *ch;
	double w = n->count * c->scale, y = c->height - FG_PAD - (depth + 1) * FG_FRAME;
	int r, g, b;
	size_t fit;

	if (w < FG_MIN_PX)
		return;
	fg_colour(n->name, &r, &g, &b);
	fputs("<g><title>", c->out);
	fg_escape(c->out, n->name, (size_t)-1);
	fprintf(c->out, " (%llu, %.2f%%)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		(unsigned long long)n->count, 100.0 * n->count / c->total, x, y, w, FG_FRAME - 1,
		r, g, b);
	fit = w > 3 * FG_CHAR ? (size_t)((w - 6) / FG_CHAR) : 0;
	if (fit >= 3) {
		fprintf(c->out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FG_FRAME - 4.5);
		if (strlen(n->name) <= fit) {
			fg_escape(c->out, n->name, fit);
		} else {
			fg_escape(c->out, n->name, fit - 2);
			fputs("..", c->out);
		}
		fputs("</text>", c->out);
	}
	fputs("</g>\n", c->out);
	for (ch = n->child; ch; ch = ch->next) {
		fg_draw(c, ch, depth + 1, x);
		x += ch->count * c->scale;
	}
}

static void fg_free(struct fg_node *n)
{
	struct fg_node *c, *next;

	for (c = n->child; c; c = next) {
		next = c->next;
		fg_free(c);
	}
	free(n->name);
	free(n);
}

/* Folded stacks from in, an SVG to out; the title names what was counted. */
static int ms_flamegraph(FILE *in, FILE *out, const char *title)
{
	struct fg_node *root = ms_xcalloc(1, sizeof(*root));
	struct fg_ctx c = { .out = out };
	char *line = NULL;
	size_t cap = 0, bad = 0, lines = 0;
	ssize_t len;

	root->name = ms_xstrdup("all");
	while ((len = getline(&line, &cap, in)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		lines++;
		if (!fg_add(root, line))
			bad++;
	}
	free(line);
	if (bad)
		print_warn("flamegraph: skipped %zu of %zu lines that are not \"frame;frame;... count\"",
			   bad, lines);
	if (!root->count) {
		ms_fail("flamegraph: no folded stacks in the input (lines \"comm;frame;... count\", as memscope faults --stacks prints them)");
		fg_free(root);
		return -1;
	}
	c.total = root->count;
	c.height = FG_TOP + fg_depth(root) * FG_FRAME + 2 * FG_PAD;
	c.scale = (double)(FG_WIDTH - 2 * FG_PAD) / root->count;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; } rect:hover { stroke: #000; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
		"<text x=\"%d\" y=\"24\" style=\"font-size: 17px\" text-anchor=\"middle\">",
		FG_WIDTH, c.height, FG_WIDTH, c.height, FG_FONT, FG_WIDTH / 2);
	fg_escape(out, title, (size_t)-1);
	fprintf(out, " (%llu)</text>\n", (unsigned long long)root->count);
	/* "all" at the bottom, as flamegraph.pl draws it. */
	fg_draw(&c, root, 0, FG_PAD);
	fputs("</svg>\n", out);
	fg_free(root);
	if (fflush(out) || ferror(out)) {
		ms_fail("flamegraph: cannot write the SVG: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_flamegraph(const struct ms_opts *o)
{
	FILE *in = stdin;
	int ret;

	if (o->file && strcmp(o->file, "-")) {
		in = fopen(o->file, "re");
		if (!in) {
			ms_fail("flamegraph: cannot open %s: %s; give a file of folded stacks, or - for standard input",
				o->file, strerror(errno));
			return 1;
		}
	}
	ret = ms_flamegraph(in, stdout, o->title ? o->title : "Flame Graph");
	if (in != stdin)
		fclose(in);
	return ret ? 1 : 0;
}

MS_TOOL(flamegraph,
	.topic = MS_TOPIC_CALLS, .rank = 40,
	.opts = OPT_FILE | OPT_TITLE,
	.flags = MS_TOOL_NO_MODULE | MS_TOOL_NO_SIGNALS,
	.usage = "flamegraph [--title TEXT] [FILE]",
	.summary = "folded stacks (FILE or standard input) to an SVG flame graph on standard output");
