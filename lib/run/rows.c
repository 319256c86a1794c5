// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the recorder writes (lib/run/session.h): the rows of each drain,
 * moved from the collector's snapshot to the profile writer, the
 * mappings of the processes they name, the loss counters, and the META
 * chunks that say how the recording was made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <time.h>
#include <sys/utsname.h>
#include "base/log.h"
#include "format/family_meta.h"
#include "run/session_int.h"

/* The lock_names META line: how the recording names locks, static ones last. */
#define LOCK_NAMES_LINE	1536

static void lock_names_line(const struct session *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%sstatic locks: %s", collector__lock_names(s->col),
		 *collector__lock_names(s->col) ? "; " : "",
		 s->static_names[0] ? s->static_names : s->have_ksyms ? "kallsyms" : "none (no kallsyms)");
}

/* --- meta data ----------------------------------------------------------- */

static void join_argv(char **argv, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (; argv && *argv && used < len; argv++)
		used += snprintf(out + used, len - used, "%s%s", used ? " " : "", *argv);
}

/* What the META's target says was recorded. */
static void target_line(const struct session *s, char *buf, size_t len)
{
	if (s->o.pid)
		snprintf(buf, len, "pid %d", s->o.pid);
	else if (s->o.cgroup)
		snprintf(buf, len, "cgroup %s", s->cgroup.path);
	else
		snprintf(buf, len, "%s", s->o.system_wide ? "system-wide" : "command");
}

int session_write_meta(struct session *s)
{
	char cpus[16], bucket[32], command[1024], target[PATH_MAX + 16], started[64], rate[24], freq[24], thin[24], ustack[32];
	char names[LOCK_NAMES_LINE];
	struct family_meta fm[FAMILY_COUNT];
	struct utsname u;
	time_t t = time(NULL);
	struct kv kv[17 + FAMILY_COUNT * FAMILY_META_KEYS];
	size_t n = 0;
	int i;

	uname(&u);
	snprintf(cpus, sizeof(cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(bucket, sizeof(bucket), "%" PRIu64, (uint64_t)(s->o.bucket * NSEC_PER_SEC));
	join_argv(s->o.argv, command, sizeof(command));
	target_line(s, target, sizeof(target));
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
	kv[n++] = (struct kv){ "lockstat_version", LOCKSTAT_VERSION };
	kv[n++] = (struct kv){ "kernel", u.release };
	kv[n++] = (struct kv){ "kernel_version", u.version };
	kv[n++] = (struct kv){ "hostname", u.nodename };
	kv[n++] = (struct kv){ "arch", u.machine };
	kv[n++] = (struct kv){ "cpus", cpus };
	kv[n++] = (struct kv){ "command", command };
	kv[n++] = (struct kv){ "target", target };
	kv[n++] = (struct kv){ "start_time", started };
	kv[n++] = (struct kv){ "bucket_ns", bucket };
	kv[n++] = (struct kv){ "per_task", s->o.per_task ? "1" : "0" };
	snprintf(rate, sizeof(rate), "%lu", s->o.stack_rate);
	kv[n++] = (struct kv){ "stack_rate", rate };
	snprintf(thin, sizeof(thin), "%" PRIu64, stack_thin_ns(s->o.stack_rate, s->o.stack_thin));
	kv[n++] = (struct kv){ "stack_thin_ns", thin };
	snprintf(freq, sizeof(freq), "%lu", s->o.sample_freq);
	kv[n++] = (struct kv){ "sample_freq", freq };
	/* Only where not frame pointers: a profile without it was recorded as ever. */
	if (s->o.user_stack_dwarf && (s->o.families & FAMILY_SAMPLE)) {
		snprintf(ustack, sizeof(ustack), "dwarf,%lu", s->o.user_stack_size);
		kv[n++] = (struct kv){ "user_stack", ustack };
	}
	lock_names_line(s, names, sizeof(names));
	kv[n++] = (struct kv){ "lock_names", names };
	for (i = 0; i < FAMILY_COUNT; i++) {
		family_meta_keys(family_name(1 << i), collector__status(s->col, 1 << i), &fm[i]);
		memcpy(&kv[n], fm[i].kv, fm[i].n * sizeof(kv[0]));
		n += fm[i].n;
	}
	return pwriter__meta(s->w, kv, n);
}

/* The counters are the collector's since it opened; a profile holds its own (serve). */
static int write_lost(struct session *s)
{
	struct lost_counter lc[MAX_LOST];
	char vals[MAX_LOST][24];
	struct kv kv[MAX_LOST];
	size_t i, n = collector__lost(s->col, lc, MAX_LOST);

	for (i = 0; i < n; i++) {
		snprintf(vals[i], sizeof(vals[i]), "%" PRIu64, lc[i].value - s->lost.base[i]);
		kv[i] = (struct kv){ (char *)lc[i].name, vals[i] };
	}
	return pwriter__lost(s->w, kv, n);
}

/* MAPPING chunks, up to 256 mappings each. */
static int write_maps(void *ctx, const struct proc_map *pm, size_t n)
{
	struct session *s = ctx;
	const char *paths[256];
	struct mapping m[256];
	size_t j, k;
	int err = 0;

	for (j = 0; j < n && !err; j += k) {
		for (k = 0; k < 256 && j + k < n; k++) {
			m[k] = (struct mapping){ .tgid = pm[j + k].tgid, .start = pm[j + k].start,
				.end = pm[j + k].end, .pgoff = pm[j + k].pgoff,
				.build_id_len = pm[j + k].build_id_len };
			memcpy(m[k].build_id, pm[j + k].build_id, sizeof(m[k].build_id));
			paths[k] = pm[j + k].path;
		}
		err = pwriter__mappings(s->w, m, k, paths);
	}
	return err;
}

/*
 * The profile refers to tgid from now on: what /proc still shows of the
 * mappings made before we looked joins those the tracker reported (a
 * process gone already has only those), and its files are held open.
 */
static void announce(struct session *s, uint32_t tgid)
{
	if (!tgid || maps_cache__announced(&s->maps, tgid))
		return;
	maps_cache__read_proc(&s->maps, tgid);
	maps_cache__announce(&s->maps, tgid);
}

/* Announce the processes seen in samples, and write every new mapping. */
static int capture_mappings(struct session *s, const struct sample_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		announce(s, rows[i].key.tgid);
	return maps_cache__write_new(&s->maps, write_maps, s);
}

/* Called as the sampler announces a process, or a table first has its stack. */
void session_on_new_process(void *ctx, uint32_t tgid)
{
	struct session *s = ctx;

	announce(s, tgid);
	if (!s->write_err)
		session_note_write(s, maps_cache__write_new(&s->maps, write_maps, s));
}

/* A loss table's columns (NAME.lost: every column a loss counter) added up, for the lost: line. */
static void add_table_losses(struct session *s, const struct trows *t)
{
	size_t r, k;
	uint32_t c;

	if (!ls_table_is_lost(t->schema))
		return;
	for (c = 0; c < t->schema->ncols; c++) {
		uint64_t sum = 0;

		for (r = 0; r < t->n; r++)
			sum += t->v[r * t->schema->ncols + c];
		for (k = 0; k < s->lost.ntables; k++)
			if (s->lost.tables[k].schema == t->schema && s->lost.tables[k].col == c)
				break;
		if (k == s->lost.ntables) {
			if (k == MAX_TABLE_LOST)
				continue;
			s->lost.tables[s->lost.ntables++] = (struct table_lost){ t->schema, c, 0 };
		}
		s->lost.tables[k].value += sum;
	}
}

void session_write_rows(struct session *s, const struct snapshot *snap, uint64_t t)
{
	uint64_t t0 = s->last_t - s->t0, t1 = t - s->t0;
	size_t i;

	for (i = 0; i < snap->ncont; i++)
		s->counts.contended += snap->cont[i].val.count;
	s->counts.ucontended += snap->ucontended;
	for (i = 0; i < snap->nsamples; i++)
		s->counts.samples += snap->samples[i].count;
	if (collector__status(s->col, FAMILY_LOCKS)->state == FSTATE_ATTACHED)
		session_note_write(s, pwriter__bucket(s->w, t0, t1, snap->cont, snap->ncont));
	if (!s->write_err)
		session_note_write(s, capture_mappings(s, snap->samples, snap->nsamples));
	if (!s->write_err && collector__status(s->col, FAMILY_SAMPLE)->state == FSTATE_ATTACHED)
		session_note_write(s, pwriter__samples(s->w, t0, t1, snap->samples, snap->nsamples));
	for (i = 0; i < snap->ntables && !s->write_err; i++) {
		add_table_losses(s, &snap->tables[i]);
		session_note_write(s, pwriter__table(s->w, t0, t1, &snap->tables[i]));
	}
	/* What the announced processes mapped since the last drain. */
	if (!s->write_err)
		session_note_write(s, maps_cache__write_new(&s->maps, write_maps, s));
	if (!s->write_err)
		session_note_write(s, write_lost(s));
	s->last_t = t;
}

/* A second META chunk: its keys join (and win over) the first one's. */
void session_write_metric(struct session *s)
{
	struct kv kv[2];

	if (!s->has_metric)
		return;
	metric__end(&s->metric);
	if (!s->metric.found) {
		pr_warn("--metric: no line of the workload's output matched\n");
		return;
	}
	kv[0] = (struct kv){ "metric.name", s->metric.name };
	kv[1] = (struct kv){ "metric.value", s->metric.value };
	pr_notice("metric: %s = %s\n", s->metric.name, s->metric.value);
	session_note_write(s, pwriter__meta(s->w, kv, 2));
}

/* A META chunk with the recording's steal time, as of its last reading. */
void session_write_steal(struct session *s)
{
	struct steal_summary sum;
	struct steal_meta m;

	if (!s->steal.on)
		return;
	steal_tracker__summary(&s->steal.tracker, &sum);
	session_note_write(s, pwriter__meta(s->w, m.kv, steal_meta_keys(&sum, &m)));
}

/* The lock names' line again, last: it counts the merged slab caches the recording met. */
void session_write_lock_names(struct session *s)
{
	char names[LOCK_NAMES_LINE];
	struct kv kv = { "lock_names", names };

	lock_names_line(s, names, sizeof(names));
	session_note_write(s, pwriter__meta(s->w, &kv, 1));
}
