// SPDX-License-Identifier: GPL-2.0
/*
 * Control: the commands the control file (and the netlink family's RESET,
 * ENABLE and DISABLE) carry out, what a reset clears, and leases.
 * Copyright (C) 2026 The memscope authors.
 *
 * A lease ("lease NAME" written to an open control file) turns NAME, a
 * probe or a family, on for as long as that file stays open: the tool
 * that needs memleak holds it while it runs, and when the file is closed
 * (the tool ended, or was killed: the kernel closes its files either way)
 * the last lease on NAME turns it off again, if leases turned it on.  A
 * NAME that was already on is left as it was.  An "enable NAME" or
 * "disable NAME" while leases are held is the administrator's word: NAME
 * then stays as they set it when the leases end.
 */
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "memscope.h"

/* Every counter, histogram, table, ring and outstanding allocation. */
void ms_reset_all(void)
{
	ms_stats_reset();
	ms_hist_reset();
	ms_tables_reset();
	ms_events_reset();
	ms_families_reset();
}

/* Names leased at once; each open control file holds a bit per slot. */
#define MS_LEASES 16

static struct ms_lease {
	char name[MS_NAME_LEN];
	unsigned int refs;	/* open files holding it */
	bool owns;		/* leases turned it on: the last one turns it off */
} ms_leases[MS_LEASES];
static DEFINE_MUTEX(ms_lease_lock);

/* The slot leasing @name, else a free one if @take; NULL if none. */
static struct ms_lease *ms_lease_find(const char *name, bool take)
{
	struct ms_lease *free = NULL;
	int i;

	lockdep_assert_held(&ms_lease_lock);
	for (i = 0; i < MS_LEASES; i++) {
		if (ms_leases[i].refs && !strcmp(ms_leases[i].name, name))
			return &ms_leases[i];
		if (!ms_leases[i].refs && !free)
			free = &ms_leases[i];
	}
	return take ? free : NULL;
}

static int ms_lease(struct file *file, const char *name)
{
	unsigned long held = (unsigned long)file->private_data;
	struct ms_lease *l;
	int on, err = 0;

	if (strlen(name) >= MS_NAME_LEN)
		return -EINVAL;
	mutex_lock(&ms_lease_lock);
	l = ms_lease_find(name, true);
	if (!l) {
		err = -ENOSPC;
		goto out;
	}
	if (held & BIT(l - ms_leases))
		goto out;		/* this file holds it already */
	if (!l->refs) {
		on = ms_probe_on(name);
		if (on < 0) {
			err = on;
			goto out;
		}
		if (!on) {
			err = ms_probe_set(name, true);
			/* Some probes of a family may be missing: one on will do. */
			if (err && ms_probe_on(name) != 1)
				goto out;
			err = 0;
		}
		strscpy(l->name, name, sizeof(l->name));
		l->owns = !on;
	}
	l->refs++;
	file->private_data = (void *)(held | BIT(l - ms_leases));
out:
	mutex_unlock(&ms_lease_lock);
	return err;
}

/* The control file @file closes: its leases end. */
void ms_control_release(struct file *file)
{
	unsigned long held = (unsigned long)file->private_data;
	int i;

	if (!held)
		return;
	mutex_lock(&ms_lease_lock);
	for (i = 0; i < MS_LEASES; i++) {
		struct ms_lease *l = &ms_leases[i];

		if (!(held & BIT(i)) || --l->refs)
			continue;
		/* -ENODEV once the module is unloading: its probes are gone. */
		if (l->owns)
			ms_probe_set(l->name, false);
		l->owns = false;
	}
	mutex_unlock(&ms_lease_lock);
	file->private_data = NULL;
}

/* enable or disable NAME by the administrator: leases no longer own it. */
int ms_control_set(const char *name, bool on)
{
	struct ms_lease *l;
	int err;

	mutex_lock(&ms_lease_lock);
	err = ms_probe_set(name, on);
	l = ms_lease_find(name, false);
	if (l && (!err || !on))
		l->owns = false;
	mutex_unlock(&ms_lease_lock);
	return err;
}

/*
 * One command line, NUL-terminated and writable: "reset", "enable NAME",
 * "disable NAME", or "lease NAME" on an open control file (@file, NULL
 * from netlink, which has no file to hold it), with spaces around;
 * anything else is -EINVAL.
 */
int ms_control(char *line, struct file *file)
{
	char *cmd = strim(line), *arg = strchr(cmd, ' ');

	if (arg) {
		*arg++ = '\0';
		arg = skip_spaces(arg);
		if (!*arg || strchr(arg, ' ') || strchr(arg, '\t'))
			return -EINVAL;
	}
	if (!strcmp(cmd, "reset") && !arg) {
		ms_reset_all();
		return 0;
	}
	if (!strcmp(cmd, "enable") && arg)
		return ms_control_set(arg, true);
	if (!strcmp(cmd, "disable") && arg)
		return ms_control_set(arg, false);
	if (!strcmp(cmd, "lease") && arg && file)
		return ms_lease(file, arg);
	return -EINVAL;
}
