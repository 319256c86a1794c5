// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The recorder's probes and kernel symbols (lib/run/session.h): what may
 * be attached, attaching every family asked for (the ones that cannot
 * are named, the others go on), and the names of kernel addresses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "base/log.h"
#include "sym/kmap.h"
#include "run/session_int.h"

static struct collector_opts collector_opts_of(struct session *s)
{
	return (struct collector_opts){
		.per_task = s->o.per_task,
		.filter_targets = !s->o.system_wide,
		.cgroup_fd = s->cgroup.fd,
		.mode = s->o.mode,
		.stats_entries = s->o.map_entries,
		.stack_rate = s->o.stack_rate,
		.stack_thin = s->o.stack_thin,
		.families = s->o.families,
		.sample_freq = s->o.sample_freq,
		.user_stack_size = s->o.user_stack_dwarf ? s->o.user_stack_size : 0,
		.target_pid = s->wl.pid ? s->wl.pid : s->o.pid,
		.event_budget = s->o.event_budget,
		.force = s->o.force,
		.maps = &s->maps,
		/* The opt-in families are the costly ones: say what they cost. */
		.probe_stats = s->o.probe_stats || (s->o.families & FAMILY_OPTIN),
	};
}

/* A family that cannot attach is named; the others go on. */
static void say_families(const struct session *s)
{
	char line[600];
	int i;

	for (i = 0; i < FAMILY_COUNT; i++) {
		const struct family_status *st = collector__status(s->col, 1 << i);

		if (st->state == FSTATE_NOT_ATTACHED)
			pr_warn("%s: %s\n", family_name(1 << i), family_status_line(st, line, sizeof(line)));
		else if (st->state == FSTATE_ATTACHED)
			pr_info("%s: %s\n", family_name(1 << i), family_status_line(st, line, sizeof(line)));
	}
}

int session_attach_probes(struct session *s)
{
	struct collector_opts co = collector_opts_of(s);
	char why[600] = "";
	int err;

	/* Only fd and hold may attach by fentry or kprobe. */
	features_probe_some(&s->feat, s->o.families & (FAMILY_FD | FAMILY_HOLD));
	if (!s->feat.r[FEAT_TP_SCHED].ok && co.filter_targets && !s->o.cgroup)
		pr_warn("no sched_process_fork tracepoint: processes the workload forks are not followed\n");
	err = collector__open(&s->col, &co, &s->feat, why, sizeof(why));
	if (err) {
		pr_err("no probe could be attached: %s\n", why);
		return err;
	}
	if (collector__maptrack_why(s->col)[0])
		pr_warn("cannot follow mappings as they are made (%s): libraries mapped after a process's "
			"first sample, or by a process gone before a drain, may stay unresolved\n",
			collector__maptrack_why(s->col));
	say_families(s);
	if (s->wl.pid)
		err = collector__add_target(s->col, s->wl.pid);
	else if (s->o.pid)
		err = collector__add_target(s->col, s->o.pid);
	if (err)
		pr_err("cannot follow the workload: %s\n", strerror(-err));
	return err;
}

void session_load_symbols(struct session *s)
{
	int err = ksyms_load(&s->ks);

	s->have_ksyms = !err;
	if (err == -EPERM)
		pr_warn("kernel addresses are hidden (kptr_restrict): locks and callers stay unnamed\n");
	else if (err)
		pr_warn("cannot read /proc/kallsyms: %s: locks and callers stay unnamed\n", strerror(-err));
	if (err)
		return;
	if (kmap_load_running(&s->ks, s->static_names, sizeof(s->static_names)))
		pr_warn("no memory for the data symbols of System.map: static locks named by address\n");
	else
		pr_info("static locks: %s\n", s->static_names);
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

/*
 * Tracing programs need CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN on
 * kernels before 5.8). Saying which one is missing beats libbpf's EPERM.
 */
int check_bpf_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &hdr, data))
		return 0;	/* cannot tell: let the kernel decide */
	if (has_cap(data, CAP_SYS_ADMIN))
		return 0;
	if (has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON))
		return 0;
	pr_err("recording needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): missing %s; run as root\n",
	       !has_cap(data, CAP_BPF) && !has_cap(data, CAP_PERFMON) ? "CAP_BPF and CAP_PERFMON" :
	       !has_cap(data, CAP_BPF) ? "CAP_BPF" : "CAP_PERFMON");
	return -EPERM;
}
