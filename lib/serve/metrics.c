// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* lockstat serve's /metrics (lib/serve/metrics.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/locktype.h"
#include "serve/metrics.h"
#include "view/diff.h"

#define OTHER	"other"

int metrics__init(struct metrics *m, const struct metrics_opts *o)
{
	memset(m, 0, sizeof(*m));
	m->o = *o;
	htab_init(&m->index, sizeof(uint64_t), sizeof(uint32_t));
	return 0;
}

static void series_free(struct lock_series *s)
{
	free(s->name);
	free(s->type);
}

void metrics__free(struct metrics *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		series_free(&m->locks[i]);
	free(m->locks);
	htab_free(&m->index);
	memset(m, 0, sizeof(*m));
}

static uint64_t key_of(const char *name, const char *type)
{
	uint64_t h = hash_bytes(name, strlen(name));

	return h * 31 + hash_bytes(type, strlen(type));
}

/* Two names with one hash: linear probing on the key (the first one keeps it). */
static uint32_t *slot_of(struct metrics *m, const char *name, const char *type, int *found)
{
	uint64_t k = key_of(name, type);
	uint32_t *slot;

	for (;; k++) {
		slot = htab_get(&m->index, &k, NULL);
		if (!slot || !*slot)
			break;
		if (!strcmp(m->locks[*slot - 1].name, name) && !strcmp(m->locks[*slot - 1].type, type))
			break;
	}
	*found = slot && *slot;
	return slot;
}

/* The tracked lock of that name and type, added while there is room; -1 beyond. */
static long track(struct metrics *m, const char *name, const char *type)
{
	struct lock_series *s;
	int found;
	uint32_t *slot = slot_of(m, name, type, &found);

	if (!slot)
		return -ENOMEM;
	if (found)
		return *slot - 1;
	if (m->n >= m->o.max_tracked + m->o.max_series)
		return -1;
	if (grow_array((void **)&m->locks, &m->cap, m->n + 1, sizeof(*m->locks)))
		return -ENOMEM;
	s = &m->locks[m->n];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->type = strdup(type);
	if (!s->name || !s->type) {
		series_free(s);
		return -ENOMEM;
	}
	*slot = ++m->n;
	return m->n - 1;
}

static void val_add(struct series_val *d, const struct lock_row_val *w, const struct hold_val *h)
{
	int i;

	d->contended += w->count;
	d->wait_ns += w->total_ns;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		d->hist[i] += w->hist[i];
	if (!h->has_hold)
		return;
	d->has_hold = true;
	d->acquired += h->acquired;
	d->hold_ns += h->hold_ns;
}

static void label_name(const struct metrics *m, const char *name, char *out, size_t len)
{
	if (m->o.addresses)
		snprintf(out, len, "%s", name);
	else
		diff_norm_lock(name, out, len);
}

/* Free places go to the locks that waited most in this period. */
static void fill_places(struct metrics *m)
{
	while (m->nmembers < m->o.max_series) {
		struct lock_series *best = NULL;
		size_t i;

		for (i = 0; i < m->n; i++)
			if (!m->locks[i].member && m->locks[i].period_wait_ns &&
			    (!best || m->locks[i].period_wait_ns > best->period_wait_ns))
				best = &m->locks[i];
		if (!best)
			return;
		best->member = true;
		m->nmembers++;
	}
}

/* Each of the bucket's locks: tracked (its index), or -1. */
static int note_waits(struct metrics *m, const struct lock_view *v, long *idx)
{
	char name[512];
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		const struct lock_entry *e = &v->locks[i];

		label_name(m, lock_view__str(v, e->name), name, sizeof(name));
		idx[i] = track(m, name, lock_type_name(e->flags));
		if (idx[i] == -ENOMEM)
			return -ENOMEM;
		m->period_total_ns += e->v.total_ns;
		if (idx[i] >= 0)
			m->locks[idx[i]].period_wait_ns += e->v.total_ns;
	}
	return 0;
}

static int by_wait_desc(const void *a, const void *b)
{
	const struct lock_series *x = *(struct lock_series *const *)a, *y = *(struct lock_series *const *)b;

	return x->period_wait_ns < y->period_wait_ns ? 1 : x->period_wait_ns > y->period_wait_ns ? -1 : 0;
}

/*
 * What a member's place is weighed by: its waits in this period, and
 * mid-period (a candidate barging in before the period's end) the more of
 * those and the last period's, so that a member is not displaced merely
 * because the period has only begun.
 */
static uint64_t member_weight(const struct lock_series *s, bool mid_period)
{
	if (mid_period && s->last_period_wait_ns > s->period_wait_ns)
		return s->last_period_wait_ns;
	return s->period_wait_ns;
}

static int by_weight_mid(const void *a, const void *b)
{
	const struct lock_series *x = *(struct lock_series *const *)a, *y = *(struct lock_series *const *)b;
	uint64_t wx = member_weight(x, true), wy = member_weight(y, true);

	return wx < wy ? 1 : wx > wy ? -1 : 0;
}

/*
 * A candidate for a place: at the period's end, any lock that waited in
 * it; mid-period, only one that holds a place's share of the period's
 * waits (1/max_series of them).
 */
static bool candidate(const struct metrics *m, const struct lock_series *s, bool mid_period)
{
	if (s->member || !s->period_wait_ns)
		return false;
	return !mid_period || s->period_wait_ns * m->o.max_series >= m->period_total_ns;
}

/* The strongest candidates against the weakest members, by the hysteresis factor. */
static int trade_places(struct metrics *m, bool mid_period)
{
	struct lock_series **cand = calloc(m->n + 1, sizeof(*cand)), **mem = calloc(m->n + 1, sizeof(*mem));
	size_t nc = 0, nm = 0, i, j;

	if (!cand || !mem) {
		free(cand);
		free(mem);
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++) {
		if (m->locks[i].member)
			mem[nm++] = &m->locks[i];
		else if (candidate(m, &m->locks[i], mid_period))
			cand[nc++] = &m->locks[i];
	}
	qsort(cand, nc, sizeof(*cand), by_wait_desc);
	qsort(mem, nm, sizeof(*mem), mid_period ? by_weight_mid : by_wait_desc);
	for (i = 0, j = nm; i < nc && j > 0; i++, j--) {
		if (cand[i]->period_wait_ns <= METRICS_RANK_HYSTERESIS * member_weight(mem[j - 1], mid_period))
			break;
		mem[j - 1]->member = false;
		memset(&mem[j - 1]->v, 0, sizeof(mem[j - 1]->v));
		cand[i]->member = true;
	}
	free(cand);
	free(mem);
	return 0;
}

/* Keep the members, forget the others, and start a new period. */
static int compact(struct metrics *m)
{
	size_t i, kept = 0;
	int found;

	htab_free(&m->index);
	htab_init(&m->index, sizeof(uint64_t), sizeof(uint32_t));
	for (i = 0; i < m->n; i++) {
		struct lock_series *s = &m->locks[i];
		uint32_t *slot;

		if (!s->member) {
			series_free(s);
			continue;
		}
		s->last_period_wait_ns = s->period_wait_ns;
		s->period_wait_ns = 0;
		m->locks[kept] = *s;
		slot = slot_of(m, s->name, s->type, &found);
		if (!slot)
			return -ENOMEM;
		*slot = ++kept;
	}
	m->n = kept;
	m->period_total_ns = 0;
	return 0;
}

static int rerank(struct metrics *m)
{
	int err = trade_places(m, false);

	if (!err)
		fill_places(m);
	return err ? err : compact(m);
}

int metrics__add_bucket(struct metrics *m, const struct lock_view *v, uint64_t now_ns)
{
	long *idx = calloc(v->nlocks + 1, sizeof(*idx));
	size_t i;
	int err;

	if (!idx)
		return -ENOMEM;
	if (!m->period_start_ns)
		m->period_start_ns = now_ns;
	err = note_waits(m, v, idx);
	if (!err)
		fill_places(m);
	if (!err && m->nmembers == m->o.max_series)
		err = trade_places(m, true);
	for (i = 0; !err && i < v->nlocks; i++) {
		const struct lock_entry *e = &v->locks[i];
		bool own = idx[i] >= 0 && m->locks[idx[i]].member;

		val_add(own ? &m->locks[idx[i]].v : &m->other, &e->v, &e->h);
		if (idx[i] < 0)
			m->untracked += e->v.count;
	}
	free(idx);
	m->buckets++;
	if (!err && now_ns - m->period_start_ns >= METRICS_RANK_PERIOD_NS) {
		m->period_start_ns = now_ns;
		err = rerank(m);
	}
	return err;
}

void metrics__add_samples(struct metrics *m, uint64_t samples)
{
	m->samples += samples;
}

/* --- the text format ------------------------------------------------------------ */

void metrics_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Nanoseconds as seconds, exactly: a counter printed from it never goes back. */
static void seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000), ns % UINT64_C(1000000000));
}

static void lock_labels(FILE *f, const char *name, const char *type)
{
	fputs("{lock=\"", f);
	metrics_escape(f, name);
	fputs("\",type=\"", f);
	metrics_escape(f, type);
	fputs("\"}", f);
}

enum series_field { F_CONTENDED, F_WAIT, F_ACQUIRED, F_HOLD };

static void put_value(FILE *f, const struct series_val *v, enum series_field field)
{
	fputc(' ', f);
	if (field == F_WAIT || field == F_HOLD)
		seconds(f, field == F_WAIT ? v->wait_ns : v->hold_ns);
	else
		fprintf(f, "%" PRIu64, field == F_CONTENDED ? v->contended : v->acquired);
	fputc('\n', f);
}

/* Every member, then "other"; the hold fields only for the series that have them. */
static void each_series(const struct metrics *m, FILE *f, const char *metric, enum series_field field)
{
	bool hold_only = field == F_ACQUIRED || field == F_HOLD;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct lock_series *s = &m->locks[i];

		if (!s->member || (hold_only && !s->v.has_hold))
			continue;
		fputs(metric, f);
		lock_labels(f, s->name, s->type);
		put_value(f, &s->v, field);
	}
	if (hold_only && !m->other.has_hold)
		return;
	fputs(metric, f);
	lock_labels(f, OTHER, OTHER);
	put_value(f, &m->other, field);
}

static void write_locks(const struct metrics *m, FILE *f)
{
	static const struct {
		const char *name;
		enum series_field field;
		const char *help;
	} counters[] = {
		{ "lockstat_lock_contended_total", F_CONTENDED,
		  "Contended acquisitions (waits) of the lock since it got its series; lock=\"other\": every lock without one." },
		{ "lockstat_lock_wait_seconds_total", F_WAIT, "Time spent waiting for the lock since it got its series." },
		{ "lockstat_lock_acquired_total", F_ACQUIRED,
		  "Acquisitions of the lock, where a probe family measures them (mmap_lock, hold, uprobes)." },
		{ "lockstat_lock_hold_seconds_total", F_HOLD, "Time the lock was held, where a probe family measures it." },
	};
	size_t i;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		family(f, counters[i].name, "counter", counters[i].help);
		each_series(m, f, counters[i].name, counters[i].field);
	}
}

static void histogram_one(FILE *f, const char *name, const char *type, const struct series_val *v)
{
	uint64_t below = 0;
	int k, i = 0;

	for (k = METRICS_LE_FIRST; k <= METRICS_LE_LAST; k++) {
		/* Slot i holds [2^i, 2^(i+1)) ns: every slot below k is under 2^k ns. */
		for (; i < k; i++)
			below += v->hist[i];
		fprintf(f, "lockstat_lock_wait_duration_seconds_bucket{le=\"%.10g\",lock=\"", (double)(1ULL << k) / 1e9);
		metrics_escape(f, name);
		fputs("\",type=\"", f);
		metrics_escape(f, type);
		fprintf(f, "\"} %" PRIu64 "\n", below < v->contended ? below : v->contended);
	}
	fputs("lockstat_lock_wait_duration_seconds_bucket{le=\"+Inf\"", f);
	fputs(",lock=\"", f);
	metrics_escape(f, name);
	fputs("\",type=\"", f);
	metrics_escape(f, type);
	fprintf(f, "\"} %" PRIu64 "\n", v->contended);
	fputs("lockstat_lock_wait_duration_seconds_sum", f);
	lock_labels(f, name, type);
	fputc(' ', f);
	seconds(f, v->wait_ns);
	fputs("\nlockstat_lock_wait_duration_seconds_count", f);
	lock_labels(f, name, type);
	fprintf(f, " %" PRIu64 "\n", v->contended);
}

static void write_histograms(const struct metrics *m, FILE *f)
{
	size_t i;

	family(f, "lockstat_lock_wait_duration_seconds", "histogram",
	       "Wait times of the lock's contended acquisitions, from lockstat's log2 slots.");
	for (i = 0; i < m->n; i++)
		if (m->locks[i].member)
			histogram_one(f, m->locks[i].name, m->locks[i].type, &m->locks[i].v);
	histogram_one(f, OTHER, OTHER, &m->other);
}

static void write_self_costs(const struct metrics_self *x, FILE *f)
{
	size_t i;

	family(f, "lockstat_lost_events_total", "counter",
	       "Events a probe family could not count, by reason (the report header's lost line).");
	for (i = 0; i < x->nlost; i++)
		fprintf(f, "lockstat_lost_events_total{family=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
			x->lost[i].family, x->lost[i].reason, x->lost[i].value);
	if (!x->ncosts)
		return;
	/*
	 * Timing every run costs a lock storm a fifth of its throughput, so
	 * the kernel times them a tenth of the time: the counters say so in
	 * their names, and the rates come out of a ratio with the time.
	 */
	family(f, "lockstat_probe_measured_seconds_total", "counter",
	       "Time kernel.bpf_stats was on, over which the lockstat_probe_measured_* counters count.");
	fputs("lockstat_probe_measured_seconds_total ", f);
	seconds(f, x->costs_measured_ns);
	fputc('\n', f);
	family(f, "lockstat_probe_measured_runs_total", "counter",
	       "Runs of each probe family's BPF programs while kernel.bpf_stats was on.");
	for (i = 0; i < x->ncosts; i++)
		fprintf(f, "lockstat_probe_measured_runs_total{family=\"%s\"} %" PRIu64 "\n", x->costs[i].family,
			x->costs[i].runs);
	family(f, "lockstat_probe_measured_run_seconds_total", "counter",
	       "CPU time of each probe family's BPF programs while kernel.bpf_stats was on, paid by the traced tasks.");
	for (i = 0; i < x->ncosts; i++) {
		fprintf(f, "lockstat_probe_measured_run_seconds_total{family=\"%s\"} ", x->costs[i].family);
		seconds(f, x->costs[i].run_ns);
		fputc('\n', f);
	}
}

static void gauge(FILE *f, const char *name, const char *help, double v)
{
	family(f, name, "gauge", help);
	fprintf(f, "%s %.17g\n", name, v);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	family(f, name, "counter", help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* The cost ledger's terms that the process_ and probe_ series do not hold already. */
static void write_ledger(const struct metrics_self *x, FILE *f)
{
	if (!x->ledger)
		return;
	gauge(f, "lockstat_startup_cpu_seconds",
	      "lockstat's own CPU time from its start to the probes' start; its steady CPU is process_cpu_seconds_total less it.",
	      x->startup_cpu_seconds);
	if (!x->workload_known)
		return;
	family(f, "lockstat_workload_cpu_seconds_total", "counter",
	       "CPU time of what is recorded since the probes' start, by where it is read from (pid, cgroup, system).");
	fputs("lockstat_workload_cpu_seconds_total{source=\"", f);
	metrics_escape(f, x->workload_source ? x->workload_source : "");
	fprintf(f, "\"} %.6f\n", x->workload_cpu_seconds);
}

static void write_self(const struct metrics *m, const struct metrics_self *x, FILE *f)
{
	family(f, "lockstat_build_info", "gauge", "lockstat's version and the running kernel.");
	fputs("lockstat_build_info{version=\"", f);
	metrics_escape(f, x->version ? x->version : "");
	fputs("\",kernel=\"", f);
	metrics_escape(f, x->kernel ? x->kernel : "");
	fputs("\"} 1\n", f);
	counter(f, "lockstat_samples_total", "CPU samples taken (the sample family).", m->samples);
	counter(f, "lockstat_buckets_total", "Buckets drained from the kernel's maps.", m->buckets);
	gauge(f, "lockstat_lock_series", "Locks with series of their own (at most --max-series).", m->nmembers);
	counter(f, "lockstat_untracked_contended_total",
		"Waits of locks beyond the ones ranked in a period, counted in lock=\"other\".", m->untracked);
	write_self_costs(x, f);
	write_ledger(x, f);
	gauge(f, "lockstat_segments", "Segment files in the directory.", x->segments);
	gauge(f, "lockstat_segments_bytes", "Bytes in the segment files.", x->segment_bytes);
	counter(f, "lockstat_segments_begun_total", "Segments begun since serve started.", x->segments_written);
	counter(f, "lockstat_segment_write_errors_total", "Times writing a segment failed (a full disk).", x->write_errors);
	gauge(f, "lockstat_segment_writing", "1 while segments are written, 0 after a write error until there is room again.",
	      x->writing);
	counter(f, "lockstat_http_requests_total", "HTTP requests answered.", x->http_requests);
	counter(f, "lockstat_http_rejected_total", "HTTP requests answered with an error status.", x->http_rejected);
	family(f, "process_cpu_seconds_total", "counter", "User and system CPU time of lockstat serve.");
	fprintf(f, "process_cpu_seconds_total %.6f\n", x->cpu_seconds);
	gauge(f, "process_resident_memory_bytes", "Resident memory of lockstat serve.", x->rss_bytes);
	gauge(f, "process_virtual_memory_bytes", "Virtual memory of lockstat serve.", x->vm_bytes);
	gauge(f, "process_open_fds", "Open file descriptors of lockstat serve.", x->open_fds);
	gauge(f, "process_start_time_seconds", "When lockstat serve started, in seconds since the epoch.", x->start_time);
}

int metrics__write(const struct metrics *m, const struct metrics_self *self, FILE *f)
{
	write_locks(m, f);
	write_histograms(m, f);
	write_self(m, self, f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
