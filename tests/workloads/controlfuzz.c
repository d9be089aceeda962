// SPDX-License-Identifier: GPL-2.0
/*
 * controlfuzz DIR N SEED: N single writes to DIR/control: random bytes,
 * random words, near misses of valid commands (one to three mutations) and
 * valid commands.  A model of the documented grammar says what each write
 * must do: fail with EINVAL, or succeed with its effect, which is checked
 * in DIR/probes and DIR/stats right after:
 *   reset            every counter restarts from zero
 *   enable NAME      NAME is attached (or ENODEV: NAME is unavailable)
 *   disable NAME     NAME is not attached
 * NAME is a probe from DIR/probes, a family (memleak, slabtop, mmapsnoop,
 * shmsnoop, faultstacks, brkstack, pressure: accepted, their effect checked
 * by the families' own tests), or "all"; white space (isspace) around
 * the command and between its words is allowed.  Prints a summary line;
 * exits 1 on the first write that breaks the model.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXP 64
static char names[MAXP][64];
/* The families "enable" and "disable" take besides probe names (probe.c). */
static const char *const families[] = {
	"memleak", "slabtop", "mmapsnoop", "shmsnoop", "faultstacks", "brkstack", "pressure",
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))
static int nnames;
static const char *dir;
static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (unsigned int)(rng % n) : 0;
}

/* The kernel's isspace(): the C locale's plus 0xa0 (lib/ctype.c). */
static int kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static int read_file(const char *name, char *buf, size_t len)
{
	char path[4096];
	ssize_t n, t = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + t, len - 1 - t)) > 0)
		t += n;
	close(fd);
	buf[t] = '\0';
	return n < 0 ? -1 : 0;
}

/* State column of probe NAME, "" if absent. */
static void probe_state(const char *name, char *state, size_t len)
{
	static char buf[16384];
	char *line, *save;

	state[0] = '\0';
	if (read_file("probes", buf, sizeof(buf)))
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char n[64], t[128], s[128];

		if (line[0] != '#' && sscanf(line, "%63s %127s %127s", n, t, s) == 3 &&
		    !strcmp(n, name)) {
			snprintf(state, len, "%s", s);
			return;
		}
	}
}

static unsigned long long stat_value(const char *key)
{
	static char buf[16384];
	char *p;
	size_t k = strlen(key);

	if (read_file("stats", buf, sizeof(buf)))
		return ~0ULL;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ' ')
			return strtoull(p + k + 1, NULL, 10);
	return ~0ULL;
}

enum verb { V_INVALID, V_RESET, V_ENABLE, V_DISABLE };

/* What the documented grammar makes of these bytes; *arg gets NAME. */
static enum verb model(const unsigned char *s, size_t len, char *arg)
{
	char buf[128], *cmd, *a, *end;
	size_t i;

	if (len == 0 || len >= 64)
		return V_INVALID;
	for (i = 0; i < len; i++)
		if (!s[i])
			return V_INVALID;	/* a NUL is not part of any command */
	memcpy(buf, s, len);
	buf[len] = '\0';
	cmd = buf;
	while (*cmd && kspace(*cmd))
		cmd++;
	end = cmd + strlen(cmd);
	while (end > cmd && kspace(end[-1]))
		*--end = '\0';
	a = strchr(cmd, ' ');
	if (a) {
		*a++ = '\0';
		while (*a && kspace(*a))
			a++;
		if (!*a || strchr(a, ' ') || strchr(a, '\t'))
			return V_INVALID;
	}
	if (!strcmp(cmd, "reset"))
		return a ? V_INVALID : V_RESET;
	if (strcmp(cmd, "enable") && strcmp(cmd, "disable"))
		return V_INVALID;
	if (!a)
		return V_INVALID;
	for (i = 0; i < (size_t)nnames; i++)
		if (!strcmp(a, names[i]))
			break;
	if (i == (size_t)nnames && strcmp(a, "all")) {
		for (i = 0; i < NFAMILIES; i++)
			if (!strcmp(a, families[i]))
				break;
		if (i == NFAMILIES)
			return V_INVALID;
	}
	strcpy(arg, a);
	return cmd[0] == 'e' ? V_ENABLE : V_DISABLE;
}

static int is_family(const char *a)
{
	size_t i;

	for (i = 0; i < NFAMILIES; i++)
		if (!strcmp(a, families[i]))
			return 1;
	return 0;
}

static void show(const unsigned char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (isprint(s[i]) && s[i] != '\\')
			putchar(s[i]);
		else
			printf("\\x%02x", s[i]);
}

static size_t generate(unsigned char *s)
{
	static const char *const words[] = { "reset", "enable", "disable", "all",
		"RESET", "Enable", "en", "reset\n", "--", "0", "%s%n", "../" };
	static const char ws[] = " \t\n\r\v\f";
	unsigned int kind = rnd(10), m, i;
	size_t len = 0;
	char base[96];

	if (kind < 2) {				/* random bytes */
		len = 1 + rnd(80);
		for (i = 0; i < len; i++)
			s[i] = rnd(256);
		return len;
	}
	if (kind < 4) {				/* random words */
		for (m = 1 + rnd(3); m; m--) {
			const char *w = rnd(3) ? words[rnd(12)] : names[rnd(nnames)];

			len += snprintf((char *)s + len, 200 - len, "%s%s", w, m > 1 ? " " : "");
		}
		return len;
	}
	switch (rnd(3)) {
	case 0: snprintf(base, sizeof(base), "reset"); break;
	case 1: snprintf(base, sizeof(base), "enable %s", rnd(8) ? names[rnd(nnames)] : "all"); break;
	default: snprintf(base, sizeof(base), "disable %s", rnd(8) ? names[rnd(nnames)] : "all"); break;
	}
	len = strlen(base);
	memcpy(s, base, len);
	if (kind < 8) {				/* near misses */
		for (m = 1 + rnd(3); m; m--) {
			unsigned int p = rnd(len + 1);

			switch (rnd(10)) {
			case 0:		/* insert a byte */
				memmove(s + p + 1, s + p, len - p);
				s[p] = rnd(256);
				len++;
				break;
			case 1:		/* delete one */
				if (len > 1 && p < len) {
					memmove(s + p, s + p + 1, len - p - 1);
					len--;
				}
				break;
			case 2:		/* replace one */
				if (p < len)
					s[p] = rnd(256);
				break;
			case 3:		/* flip a letter's case */
				if (p < len && isalpha(s[p]))
					s[p] ^= 0x20;
				break;
			case 4:		/* white space somewhere */
				memmove(s + p + 1, s + p, len - p);
				s[p] = ws[rnd(6)];
				len++;
				break;
			case 5:		/* say it twice */
				if (2 * len + 1 < 150) {
					s[len] = ' ';
					memcpy(s + len + 1, s, len);
					len = 2 * len + 1;
				}
				break;
			case 6:		/* cut short */
				if (p > 0)
					len = p;
				break;
			case 7:		/* a NUL inside */
				memmove(s + p + 1, s + p, len - p);
				s[p] = 0;
				len++;
				break;
			case 8:		/* pad to the limit and past it */
				while (len < 63 + rnd(3))
					s[len++] = rnd(2) ? ' ' : 'x';
				break;
			default:	/* a newline, as echo writes */
				s[len++] = '\n';
				break;
			}
			if (len > 150)
				len = 150;
		}
		return len;
	}
	if (rnd(2))				/* valid, maybe with a newline */
		s[len++] = '\n';
	return len;
}

int main(int argc, char **argv)
{
	static char buf[16384];
	unsigned long n, i, ok = 0, einval = 0, enodev = 0, effects = 0;
	char path[4096], *line, *save;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: controlfuzz DIR N SEED\n");
		return 2;
	}
	dir = argv[1];
	n = strtoul(argv[2], NULL, 10);
	rng = strtoull(argv[3], NULL, 10) * 2654435761ULL + 88172645463325252ULL;
	if (read_file("probes", buf, sizeof(buf))) {
		perror("probes");
		return 1;
	}
	for (line = strtok_r(buf, "\n", &save); line && nnames < MAXP;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#' && sscanf(line, "%63s", names[nnames]) == 1)
			nnames++;
	if (!nnames) {
		fprintf(stderr, "no probes listed\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/control", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	for (i = 0; i < n; i++) {
		unsigned char s[256];
		char arg[128] = "", state[128];
		unsigned long long before = 0, after;
		size_t len = generate(s);
		enum verb v = model(s, len, arg);
		ssize_t r;
		int err;

		if (v == V_RESET)
			before = stat_value("faults");
		r = write(fd, s, len);
		err = r < 0 ? errno : 0;
		if (r >= 0 && (size_t)r != len) {
			printf("short write %zd of %zu: '", r, len);
			show(s, len);
			printf("'\n");
			return 1;
		}
		if (v == V_INVALID) {
			if (err != EINVAL) {
				printf("write %lu: '", i);
				show(s, len);
				printf("' gave %s, want EINVAL\n", err ? strerrorname_np(err) : "success");
				return 1;
			}
			einval++;
			continue;
		}
		if (err && !(v == V_ENABLE && err == ENODEV)) {
			printf("write %lu: '", i);
			show(s, len);
			printf("' gave %s, want success\n", strerrorname_np(err));
			return 1;
		}
		err ? enodev++ : ok++;
		/* The effect, where it can be seen. */
		if (v == V_RESET) {
			after = stat_value("faults");
			if (after == ~0ULL || (before >= 1000 && after >= before)) {
				printf("reset: faults %llu -> %llu\n", before, after);
				return 1;
			}
			effects++;
		} else if (is_family(arg)) {
			continue;	/* accepted; its probes are the families' tests' */
		} else if (strcmp(arg, "all")) {
			probe_state(arg, state, sizeof(state));
			if ((v == V_ENABLE && !err && strcmp(state, "attached")) ||
			    (v == V_ENABLE && err && strncmp(state, "unavailable:", 12)) ||
			    (v == V_DISABLE && !strcmp(state, "attached"))) {
				printf("write %lu: '", i);
				show(s, len);
				printf("' left %s %s\n", arg, state);
				return 1;
			}
			effects++;
		} else {
			int j;

			for (j = 0; j < nnames; j++) {
				probe_state(names[j], state, sizeof(state));
				if (v == V_DISABLE ? !strcmp(state, "attached") :
				    (strcmp(state, "attached") && strncmp(state, "unavailable:", 12))) {
					printf("%s all left %s %s\n", v == V_DISABLE ? "disable" : "enable",
					       names[j], state);
					return 1;
				}
			}
			effects++;
		}
	}
	printf("writes %lu einval %lu ok %lu enodev %lu effects_checked %lu\n",
	       n, einval, ok, enodev, effects);
	return 0;
}
