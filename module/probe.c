// SPDX-License-Identifier: GPL-2.0
/*
 * Probe registration: kprobes, kretprobes and tracepoints found by name.
 * Copyright (C) 2026 The memscope authors.
 *
 * A probe whose target the running kernel lacks is marked
 * unavailable:<reason> and the module loads without it.  Tracepoints are
 * looked up with for_each_kernel_tracepoint(), as LTTng does, because most
 * of them are not exported to modules; the handlers' prototypes are checked
 * at build time against the kernel's own trace/events headers (see the
 * MS_CHECK_TP() users).
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/tracepoint.h>

#include "memscope.h"

DEFINE_PER_CPU(struct ms_probe_cpu, ms_probe_hits);
struct ms_probe *ms_probes[MS_NR_PROBES];
static DEFINE_MUTEX(ms_probe_lock);
/*
 * Set by ms_probes_exit(): /proc/memscope/control holds no module
 * reference, so an "enable" can still arrive after the probes came off and
 * before the files are gone.  It must not attach handlers that are about
 * to be unloaded.
 */
static bool ms_probes_closing;

static char *disable;
module_param(disable, charp, 0400);
MODULE_PARM_DESC(disable, "Comma-separated probes to leave detached at load");

/*
 * For testing degradation: "probe=symbol[,probe=symbol]" replaces a probe's
 * candidate targets with one named symbol or tracepoint.
 */
static char *target_override;
module_param(target_override, charp, 0400);
MODULE_PARM_DESC(target_override, "probe=target[,...]: attach a probe to another target (testing)");

void ms_probe_add(struct ms_probe *p, enum ms_probe_id id)
{
	p->id = id;
	ms_probes[id] = p;
}

static bool ms_list_has(const char *list, const char *name, const char **value)
{
	size_t len = strlen(name);
	const char *s = list;

	while (s && *s) {
		if (!strncmp(s, name, len) &&
		    (s[len] == ',' || s[len] == '\0' || (value && s[len] == '='))) {
			if (value)
				*value = s[len] == '=' ? s + len + 1 : NULL;
			return true;
		}
		s = strchr(s, ',');
		if (s)
			s++;
	}
	return false;
}

/* The override value is "symbol" up to the next comma; keep a copy. */
static char ms_override_buf[MS_NR_PROBES][KSYM_NAME_LEN];

static const char *ms_override(struct ms_probe *p)
{
	const char *v;
	size_t n;

	if (!target_override || !ms_list_has(target_override, p->name, &v) || !v)
		return NULL;
	n = strcspn(v, ",");
	n = min_t(size_t, n, KSYM_NAME_LEN - 1);
	memcpy(ms_override_buf[p->id], v, n);
	ms_override_buf[p->id][n] = '\0';
	return ms_override_buf[p->id];
}

static const char *ms_errno_reason(int err)
{
	switch (err) {
	case -ENOENT:
		return "symbol_not_found";
	case -EINVAL:
		return "not_probeable";
	case -EBUSY:
		return "busy";
	case -ENOMEM:
		return "out_of_memory";
	default:
		return "register_failed";
	}
}

static int ms_kretprobe_register(struct ms_probe *p, const char *sym)
{
	int err;

	memset(&p->rp, 0, sizeof(p->rp));
	p->rp.kp.symbol_name = sym;
	p->rp.entry_handler = p->entry_handler;
	p->rp.handler = p->ret_handler;
	p->rp.data_size = p->data_size;
	p->rp.maxactive = p->maxactive;
	err = register_kretprobe(&p->rp);
	if (err == -EINVAL) {
		/*
		 * Before 5.x (4.19 here) register_kretprobe() says -EINVAL for
		 * a symbol that does not exist as for one it cannot probe;
		 * register_kprobe() tells them apart with -ENOENT.  No
		 * handler: if it attaches, it is gone again at once.
		 */
		struct kprobe kp = { .symbol_name = sym };
		int kerr = register_kprobe(&kp);

		if (!kerr)
			unregister_kprobe(&kp);
		else if (kerr == -ENOENT)
			err = -ENOENT;
	}
	return err;
}


/* Resolve a probe's target once, at load: kallsyms for kprobes is done by
 * register_kprobe() itself, so the first candidate that registers wins. */
static int ms_attach(struct ms_probe *p)
{
	const char *const *t;
	const char *only = ms_override(p);
	const char *single[2] = { only, NULL };
	int err = -ENOENT;

	lockdep_assert_held(&ms_probe_lock);
	if (p->attached)
		return 0;
	if (p->unsupported) {
		p->reason = p->unsupported;
		return -EOPNOTSUPP;
	}
	if (p->before_attach)
		p->before_attach();
	for (t = only ? single : p->targets; *t; t++) {
		switch (p->kind) {
		case MS_KPROBE:
			memset(&p->kp, 0, sizeof(p->kp));
			p->kp.symbol_name = *t;
			p->kp.pre_handler = p->pre_handler;
			err = register_kprobe(&p->kp);
			break;
		case MS_FPROBE:
			err = ms_fprobe_register(&p->fp, *t, p->fentry, p->fexit, p->data_size,
						 p->maxactive);
			if (!err || err == -ENOENT || !p->ret_handler)
				break;
			/*
			 * The function is there but ftrace would not hook it:
			 * the same handlers run as a kretprobe, for good.
			 */
			pr_info("memscope: probe %s: fprobe on %s failed (%d), using a kretprobe\n",
				p->name, *t, err);
			WRITE_ONCE(p->kind, MS_KRETPROBE);
			err = ms_kretprobe_register(p, *t);
			break;
		case MS_KRETPROBE:
			err = ms_kretprobe_register(p, *t);
			break;
		case MS_TRACEPOINT:
			err = ms_tracepoint_register(&p->tp, *t, p->tp_func, p);
			break;
		}
		if (!err) {
			p->target = *t;
			p->reason = NULL;
			p->attached = true;
			if (p->after_attach)
				p->after_attach();
			return 0;
		}
		/* Report the most specific failure; keep trying candidates. */
		if (err != -ENOENT || !p->reason)
			p->reason = p->kind == MS_TRACEPOINT && err == -ENOENT ?
				    "tracepoint_not_found" : ms_errno_reason(err);
	}
	if (!p->target)
		p->target = only ? only : p->targets[0];
	return err;
}

/*
 * Detach every attached probe, or only the one called @name: one grace
 * period per kind, not one per probe.  unregister_kprobes() and
 * unregister_kretprobes() wait once for their whole batch, and a single
 * tracepoint_synchronize_unregister() covers every tracepoint removed, so
 * that no handler runs once this returns.
 */
static void ms_detach(const char *name)
{
	struct kprobe *kps[MS_NR_PROBES];
	struct kretprobe *rps[MS_NR_PROBES];
	int i, nk = 0, nr = 0, nt = 0;

	lockdep_assert_held(&ms_probe_lock);
	/* In reverse of attach order: memleak's allocations before its frees. */
	for (i = MS_NR_PROBES - 1; i >= 0; i--) {
		struct ms_probe *p = ms_probes[i];

		if (!p || !p->attached)
			continue;
		if (name && strcmp(p->name, name) && (!p->family || strcmp(p->family, name)))
			continue;
		switch (p->kind) {
		case MS_KPROBE:
			kps[nk++] = &p->kp;
			break;
		case MS_KRETPROBE:
			rps[nr++] = &p->rp;
			break;
		case MS_TRACEPOINT:
			ms_tracepoint_unregister(p->tp, p->target, p->tp_func, p);
			nt++;
			break;
		case MS_FPROBE:
			/*
			 * Stops the return hook, removes the ftrace hook and
			 * waits until no handler runs (ftrace_shutdown's RCU
			 * tasks grace periods): one probe, so one wait.
			 */
			ms_fprobe_unregister(&p->fp);
			p->missed_before += ms_fprobe_nmissed(&p->fp);
			break;
		}
		p->attached = false;
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(rps, nr);
	/* register_k*probe() zeroes nmissed: keep the count across cycles. */
	for (i = 0; i < nk; i++)
		container_of(kps[i], struct ms_probe, kp)->missed_before += kps[i]->nmissed;
	for (i = 0; i < nr; i++)
		container_of(rps[i], struct ms_probe, rp)->missed_before +=
			rps[i]->nmissed + rps[i]->kp.nmissed;
	if (nt)
		tracepoint_synchronize_unregister();
}

int ms_probes_init(void)
{
	int i, n = 0;

	mutex_lock(&ms_probe_lock);
	for (i = 0; i < MS_NR_PROBES; i++) {
		struct ms_probe *p = ms_probes[i];

		if (!p)
			continue;
		if (p->default_off || (disable && ms_list_has(disable, p->name, NULL))) {
			p->target = p->targets[0];
			/* Off, but say now if it could never be on. */
			p->reason = p->unsupported;
			continue;
		}
		if (!ms_attach(p))
			n++;
		else
			pr_info("memscope: probe %s (%s) unavailable: %s\n",
				p->name, p->target, p->reason);
	}
	mutex_unlock(&ms_probe_lock);
	pr_info("memscope: %d probes attached\n", n);
	return 0;
}

void ms_probes_exit(void)
{
	mutex_lock(&ms_probe_lock);
	ms_probes_closing = true;
	ms_detach(NULL);
	mutex_unlock(&ms_probe_lock);
}

/* control: "enable NAME" / "disable NAME", NAME a probe, a family or "all". */
int ms_probe_set(const char *name, bool on)
{
	bool all = !strcmp(name, "all"), found = false, family = false;
	int i, err = 0;

	mutex_lock(&ms_probe_lock);
	if (ms_probes_closing) {
		mutex_unlock(&ms_probe_lock);
		return -ENODEV;
	}
	for (i = 0; i < MS_NR_PROBES; i++) {
		struct ms_probe *p = ms_probes[i];

		if (p && p->family && !strcmp(p->family, name))
			family = true;
	}
	for (i = 0; i < MS_NR_PROBES; i++) {
		struct ms_probe *p = ms_probes[i];

		if (!p || (!all && !family && strcmp(p->name, name)))
			continue;
		if (family && (!p->family || strcmp(p->family, name)))
			continue;
		found = true;
		/* A family's probes the kernel cannot have are no error. */
		if (on && ms_attach(p) && !all && !(family && p->unsupported))
			err = -ENODEV;
	}
	if (found && !on)
		ms_detach(all ? NULL : name);
	mutex_unlock(&ms_probe_lock);
	return found ? err : -EINVAL;
}

/*
 * Whether NAME (a probe, a family or "all", as ms_probe_set() takes it) is
 * on: 1 if any of its probes is attached, 0 if none, -EINVAL if there is
 * no such name.
 */
int ms_probe_on(const char *name)
{
	bool all = !strcmp(name, "all"), found = false, on = false;
	int i;

	mutex_lock(&ms_probe_lock);
	for (i = 0; i < MS_NR_PROBES; i++) {
		struct ms_probe *p = ms_probes[i];

		if (!p || (!all && strcmp(p->name, name) &&
			   (!p->family || strcmp(p->family, name))))
			continue;
		found = true;
		on |= p->attached;
	}
	mutex_unlock(&ms_probe_lock);
	return found ? on : -EINVAL;
}

unsigned long ms_probe_missed(const struct ms_probe *p)
{
	unsigned long now = 0;

	if (p->attached && p->kind == MS_KPROBE)
		now = READ_ONCE(p->kp.nmissed);
	else if (p->attached && p->kind == MS_KRETPROBE)
		now = READ_ONCE(p->rp.nmissed) + READ_ONCE(p->rp.kp.nmissed);
	else if (p->attached && p->kind == MS_FPROBE)
		now = ms_fprobe_nmissed(&p->fp);
	return p->missed_before + now;
}

/*
 * Call @fn for each probe, in the `probes` file's order, under the probe
 * lock; stop at its first nonzero return and return that.
 */
int ms_probes_for_each(int (*fn)(const struct ms_probe_state *st, void *arg), void *arg)
{
	int i, cpu, err = 0;

	mutex_lock(&ms_probe_lock);
	for (i = 0; i < MS_NR_PROBES && !err; i++) {
		struct ms_probe *p = ms_probes[i];
		struct ms_probe_state st;

		if (!p)
			continue;
		st.name = p->name;
		st.target = p->target ? p->target : p->targets[0];
		st.state = p->attached ? "attached" : p->reason ? "unavailable:" : "disabled";
		st.reason = p->attached || !p->reason ? "" : p->reason;
		st.hits = 0;
		for_each_possible_cpu(cpu)
			st.hits += per_cpu_ptr(&ms_probe_hits, cpu)->hits[i];
		st.missed = ms_probe_missed(p);
		err = fn(&st, arg);
	}
	mutex_unlock(&ms_probe_lock);
	return err;
}

static int ms_probe_show(const struct ms_probe_state *st, void *m)
{
	seq_printf(m, "%s %s %s%s %llu %llu\n", st->name, st->target, st->state, st->reason,
		   st->hits, st->missed);
	return 0;
}

void ms_probes_show(struct seq_file *m)
{
	seq_puts(m, "# name target state hits missed\n");
	ms_probes_for_each(ms_probe_show, m);
}

/* Misses of probe @id so far, never decreasing across enable and disable. */
unsigned long ms_probe_missed_id(enum ms_probe_id id)
{
	unsigned long n = 0;

	mutex_lock(&ms_probe_lock);
	if (ms_probes[id])
		n = ms_probe_missed(ms_probes[id]);
	mutex_unlock(&ms_probe_lock);
	return n;
}
