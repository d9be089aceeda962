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

/* Registered by the families at load, before anything can fire; then fixed. */
static struct ms_probe *ms_probes[MS_MAX_PROBES];
static unsigned int ms_nr_probes;
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
static char *ms_override_copy;
static int ms_override_init(void);

/*
 * Register @p, last in the `probes` file, with a hit counter of its own.
 * At load, in process context, before anything can attach (ms_fs_init()'s
 * control file, ms_probes_init()): a probe is never on without its
 * counter, nor without its target_override.
 */
int ms_probe_add(struct ms_probe *p)
{
	int err = ms_nr_probes ? 0 : ms_override_init();

	if (err)
		return err;
	if (ms_nr_probes == ARRAY_SIZE(ms_probes)) {
		pr_err("memscope: probe %s: more than MS_MAX_PROBES (%zu) probes; raise it\n",
		       p->name, ARRAY_SIZE(ms_probes));
		return -ENOSPC;
	}
	p->hits = alloc_percpu(unsigned long);
	if (!p->hits)
		return -ENOMEM;
	ms_probes[ms_nr_probes++] = p;
	return 0;
}

/* ms_probe_add() each of @n probes, in order; stop at the first failure. */
int ms_probe_add_all(struct ms_probe *const *p, unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = ms_probe_add(p[i]);
	return err;
}

/*
 * The counters and the override copy go last, once no handler can run and
 * no file can be read (after ms_probes_exit() and ms_fs_exit()), or when
 * the load fails before any probe attached.
 */
void ms_probes_release(void)
{
	unsigned int i;

	for (i = 0; i < ms_nr_probes; i++) {
		free_percpu(ms_probes[i]->hits);
		ms_probes[i]->hits = NULL;
	}
	ms_nr_probes = 0;
	kfree(ms_override_copy);
	ms_override_copy = NULL;
}

/*
 * What the probes allocate: each one's hit counter per CPU, kretprobe (or
 * fprobe) instances, and the override copy.
 */
size_t ms_probes_bytes(void)
{
	size_t bytes = (size_t)ms_nr_probes * sizeof(unsigned long) * num_possible_cpus();
	unsigned int i;

	for (i = 0; i < ms_nr_probes; i++) {
		const struct ms_probe *p = ms_probes[i];

		if (p->kind == MS_KRETPROBE)
			bytes += p->maxactive * (sizeof(struct kretprobe_instance) + p->data_size);
		if (p->kind == MS_FPROBE)
			bytes += p->maxactive * (MS_FPROBE_NODE_BYTES + p->data_size);
	}
	if (ms_override_copy)
		bytes += strlen(target_override) + 1;
	return bytes;
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

/*
 * The override's "symbol" ends at the next comma: ms_override() returns it
 * from a copy of the parameter made at load, its commas made NULs, which
 * lives as long as the probes (a probe's target may point into it).
 */
static const char *ms_override(struct ms_probe *p)
{
	const char *v;

	if (!ms_override_copy || !ms_list_has(target_override, p->name, &v) || !v)
		return NULL;
	return ms_override_copy + (v - target_override);
}

static int ms_override_init(void)
{
	char *c;

	if (!target_override)
		return 0;
	ms_override_copy = kstrdup(target_override, GFP_KERNEL);
	if (!ms_override_copy)
		return -ENOMEM;
	for (c = ms_override_copy; (c = strchr(c, ',')); c++)
		*c = '\0';
	return 0;
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
	/* Under ms_probe_lock: too big for the stack. */
	static struct kprobe *kps[MS_MAX_PROBES];
	static struct kretprobe *rps[MS_MAX_PROBES];
	int i, nk = 0, nr = 0, nt = 0;

	lockdep_assert_held(&ms_probe_lock);
	/* In reverse of attach order: memleak's allocations before its frees. */
	for (i = ms_nr_probes - 1; i >= 0; i--) {
		struct ms_probe *p = ms_probes[i];

		if (!p->attached)
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
	for (i = 0; i < ms_nr_probes; i++) {
		struct ms_probe *p = ms_probes[i];

		if (p->default_off || (disable && ms_list_has(disable, p->name, NULL))) {
			p->target = p->targets[0];
			/* Off, but say now if it could never be on. */
			p->reason = p->unsupported;
			continue;
		}
		if (!ms_attach(p))
			n++;
		else
			pr_info("memscope: probe %s (%s) unavailable: %s\n", p->name,
				p->target ? p->target : p->targets[0], p->reason);
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
	for (i = 0; i < ms_nr_probes; i++) {
		struct ms_probe *p = ms_probes[i];

		if (p->family && !strcmp(p->family, name))
			family = true;
	}
	for (i = 0; i < ms_nr_probes; i++) {
		struct ms_probe *p = ms_probes[i];

		if (!all && !family && strcmp(p->name, name))
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
	for (i = 0; i < ms_nr_probes; i++) {
		struct ms_probe *p = ms_probes[i];

		if (!all && strcmp(p->name, name) && (!p->family || strcmp(p->family, name)))
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
	int i, err = 0;

	mutex_lock(&ms_probe_lock);
	for (i = 0; i < ms_nr_probes && !err; i++) {
		struct ms_probe *p = ms_probes[i];
		struct ms_probe_state st;

		st.name = p->name;
		st.target = p->target ? p->target : p->targets[0];
		st.state = p->attached ? "attached" : p->reason ? "unavailable:" : "disabled";
		st.reason = p->attached || !p->reason ? "" : p->reason;
		st.hits = ms_probe_hits(p);
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

/* Hits of probe @p so far, summed over the CPUs. */
u64 ms_probe_hits(const struct ms_probe *p)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*per_cpu_ptr(p->hits, cpu));
	return n;
}

/* Misses of probe @p so far, never decreasing across enable and disable. */
unsigned long ms_probe_missed_now(const struct ms_probe *p)
{
	unsigned long n;

	mutex_lock(&ms_probe_lock);
	n = ms_probe_missed(p);
	mutex_unlock(&ms_probe_lock);
	return n;
}
