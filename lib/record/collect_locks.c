// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks family of the collector: lock:contention_begin/end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "hist.h"
#include "base/log.h"
#include "names.h"
#include "contention.skel.h"
#include "names.skel.h"

_Static_assert(sizeof(struct cont_key) == 32, "cont_key layout is shared with BPF");
_Static_assert(sizeof(struct cont_val) == 32 + 4 * LS_HIST_SLOTS, "cont_val layout is shared with BPF");
_Static_assert(sizeof(struct cont_pending) == 40, "cont_pending layout is shared with BPF");
_Static_assert(sizeof(struct cont_pending_spin) == 8 + 40 * LS_PENDING_SPIN_DEPTH, "cont_pending_spin layout");

static const char *const lost_names[] = {
	"missing_begin", "nested_dropped", "stale_begin", "pending_full",
	"stack_collision", "stack_error", "map_full", "targets_full", "in_probe",
};

#define NLOST	(sizeof(lost_names) / sizeof(lost_names[0]))
_Static_assert(sizeof(struct cont_lost) == NLOST * sizeof(__u64), "one name per loss counter, in order");

struct locks {
	struct contention_bpf *skel;
	int ncpus;
	struct cont_val *percpu;	/* lookup buffer: one value per possible CPU */
	struct mapscan scan;	/* the drains' reader of stats */
	struct htab totals;	/* cont_key -> cont_val, as of the last drain */
	struct cont_row *rows;
	size_t cap;
	uint64_t *rq_locks;
	size_t nrq_locks;
	uint64_t stop_ns;	/* when detached: the end of the waits still open */
};

/* tp_btf where BTF describes the tracepoints, else the classic ones. */
static int choose(const struct features *f, enum attach_mode want, bool *use_btf,
		  struct family_status *st)
{
	bool btf_ok = f->r[FEAT_TP_BTF_LOCK].ok, tp_ok = f->r[FEAT_TP_LOCK].ok;

	if (want == ATTACH_TP_BTF)
		tp_ok = false;
	if (want == ATTACH_TP_CLASSIC)
		btf_ok = false;
	if (btf_ok || tp_ok) {
		*use_btf = btf_ok;
		snprintf(st->mode, sizeof(st->mode), "%s", btf_ok ? "tp_btf" : "tracepoint");
		return 0;
	}
	snprintf(st->why, sizeof(st->why), "%s", want == ATTACH_TP_CLASSIC ? f->r[FEAT_TP_LOCK].detail :
		 f->r[FEAT_TP_BTF_LOCK].ok ? f->r[FEAT_TP_LOCK].detail : f->r[FEAT_TP_BTF_LOCK].detail);
	return -EOPNOTSUPP;
}

static int locks_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	bool btf;

	return choose(f, want, &btf, st);
}

static void select_programs(struct contention_bpf *s, bool btf)
{
	bpf_program__set_autoload(btf ? s->progs.begin_tp : s->progs.begin_btf, false);
	bpf_program__set_autoload(btf ? s->progs.end_tp : s->progs.end_btf, false);
}

static int load_and_attach(struct collector *c, struct locks *l, bool btf)
{
	struct contention_bpf *s = contention_bpf__open();
	const struct collector_opts *o = &c->o;
	int err;

	if (!s)
		return -errno;
	s->rodata->filter_targets = o->filter_targets;
	s->rodata->per_task = o->per_task;
	s->rodata->stack_rate = o->stack_rate;
	/* Twice a 10 ms window's share, so that random bunching is rarely cut. */
	s->rodata->stack_window_cap = o->stack_rate / 50 + 2;
	if (o->stats_entries)
		bpf_map__set_max_entries(s->maps.stats, o->stats_entries);
	select_programs(s, btf);
	err = reuse_target_maps(c, s->maps.targets, s->maps.targets_gen);
	if (!err)
		err = reuse_guard(c, s->maps.guard);
	if (!err)
		err = contention_bpf__load(s);
	if (!err)
		err = contention_bpf__attach(s);
	if (err) {
		contention_bpf__destroy(s);
		return err;
	}
	l->skel = s;
	return 0;
}

static int attach_some_mode(struct collector *c, struct locks *l, const struct features *f,
			    struct family_status *st)
{
	bool btf;
	int err = choose(f, c->o.mode, &btf, st);

	if (err)
		return err;
	err = load_and_attach(c, l, btf);
	if (err && btf && c->o.mode == ATTACH_AUTO && f->r[FEAT_TP_LOCK].ok) {
		pr_info("tp_btf/contention_begin failed (%s), using the classic tracepoints\n", strerror(-err));
		btf = false;
		err = load_and_attach(c, l, false);
	}
	if (err)
		snprintf(st->why, sizeof(st->why), "loading the %s contention probes failed: %s%s",
			 btf ? "tp_btf" : "tracepoint", strerror(-err),
			 err == -EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "");
	else
		snprintf(st->mode, sizeof(st->mode), "%s", btf ? "tp_btf" : "tracepoint");
	return err;
}

static int run_rq_lock_finder(struct locks *l, struct names_bpf *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int i, err;

	s->rodata->nr_cpus = l->ncpus;
	err = names_bpf__load(s);
	if (!err)
		err = bpf_prog_test_run_opts(bpf_program__fd(s->progs.find_rq_locks), &run);
	if (err)
		return err;
	l->rq_locks = calloc(l->ncpus, sizeof(*l->rq_locks));
	if (!l->rq_locks)
		return -ENOMEM;
	for (i = 0; i < l->ncpus && i < LS_MAX_CPUS; i++)
		if (s->bss->rq_lock_addrs[i])
			l->rq_locks[l->nrq_locks++] = s->bss->rq_lock_addrs[i];
	return 0;
}

/* Best effort: without them, run-queue locks are named by their caller. */
static void find_rq_locks(struct locks *l)
{
	struct names_bpf *s = names_bpf__open();
	int err = s ? run_rq_lock_finder(l, s) : -errno;

	if (err)
		pr_info("cannot locate the run-queue locks (%s): they stay unnamed\n", strerror(-err));
	names_bpf__destroy(s);
}

static int locks_open(struct collector *c, const struct features *f, struct family_status *st,
		      void **priv)
{
	struct locks *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return -ENOMEM;
	*priv = l;
	l->ncpus = c->ncpus;
	htab_init(&l->totals, sizeof(struct cont_key), sizeof(struct cont_val));
	l->percpu = calloc(c->ncpus, sizeof(*l->percpu));
	mapscan_init(&l->scan, -1, sizeof(struct cont_key), sizeof(*l->percpu) * c->ncpus);
	if (!l->percpu)
		return -ENOMEM;
	err = attach_some_mode(c, l, f, st);
	if (!err)
		find_rq_locks(l);
	return err;
}

static void locks_free(void *priv)
{
	struct locks *l = priv;

	contention_bpf__destroy(l->skel);
	htab_free(&l->totals);
	free(l->percpu);
	mapscan_free(&l->scan);
	free(l->rows);
	free(l->rq_locks);
	free(l);
}

static struct cont_row *new_row(struct locks *l, size_t *n)
{
	if (grow_array((void **)&l->rows, &l->cap, *n + 1, sizeof(*l->rows)))
		return NULL;
	memset(&l->rows[*n], 0, sizeof(l->rows[*n]));
	return &l->rows[(*n)++];
}

static void sum_percpu(const struct locks *l, const struct cont_val *percpu, struct cont_val *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	sum->min_ns = ~0ULL;
	for (cpu = 0; cpu < l->ncpus; cpu++) {
		const struct cont_val *v = &percpu[cpu];

		if (!v->count)
			continue;
		sum->count += v->count;
		sum->total_ns += v->total_ns;
		if (v->min_ns < sum->min_ns)
			sum->min_ns = v->min_ns;
		if (v->max_ns > sum->max_ns)
			sum->max_ns = v->max_ns;
		for (i = 0; i < LS_HIST_SLOTS; i++)
			sum->hist[i] += v->hist[i];
	}
}

/* now - before, except min and max, which are as of now. */
static void delta(struct cont_val *d, const struct cont_val *now, const struct cont_val *before)
{
	int i;

	d->count = now->count - before->count;
	d->total_ns = now->total_ns - before->total_ns;
	d->min_ns = now->min_ns;
	d->max_ns = now->max_ns;
	for (i = 0; i < LS_HIST_SLOTS; i++)
		d->hist[i] = now->hist[i] - before->hist[i];
}

static void fill_comm(struct locks *l, struct cont_row *r)
{
	__u32 tid = r->key.tid;

	if (!tid || bpf_map__lookup_elem(l->skel->maps.comms, &tid, sizeof(tid),
					 r->comm, sizeof(r->comm), 0))
		snprintf(r->comm, sizeof(r->comm), "%s", tid ? "?" : "");
	r->comm[sizeof(r->comm) - 1] = '\0';
}

/*
 * The counters are not of a counter table: the contention rows keep a
 * histogram and a minimum, and their keys are the file's own.
 */
static int drain_one(struct locks *l, const struct cont_key *key,
		     const struct cont_val *percpu, size_t *n)
{
	struct cont_val sum, *before;
	struct cont_row *r;

	sum_percpu(l, percpu, &sum);
	before = htab_get(&l->totals, key, NULL);
	if (!before)
		return -ENOMEM;
	if (sum.count == before->count)
		return 0;
	r = new_row(l, n);
	if (!r)
		return -ENOMEM;
	r->key = *key;
	delta(&r->val, &sum, before);
	fill_comm(l, r);
	*before = sum;
	return 0;
}

static int drain_rows(struct collector *c, struct locks *l, size_t *n)
{
	const void *key, *vals;
	int err;

	l->scan.fd = bpf_map__fd(l->skel->maps.stats);
	mapscan_start(&l->scan);
	while ((err = mapscan_next(&l->scan, &key, &vals)) > 0) {
		c->entries_read++;
		err = drain_one(l, key, vals, n);
		if (err)
			return err;
	}
	return err;
}

static int add_inflight(struct locks *l, const struct cont_pending *p, uint64_t stop, size_t *n)
{
	struct cont_row *r;
	uint64_t wait;

	if (!p->start_ns || p->start_ns > stop)
		return 0;
	r = new_row(l, n);
	if (!r)
		return -ENOMEM;
	wait = stop - p->start_ns;
	r->key = p->key;
	r->val.count = 1;
	r->val.total_ns = r->val.min_ns = r->val.max_ns = wait;
	r->val.hist[log2_slot(wait, LS_HIST_SLOTS)] = 1;
	fill_comm(l, r);
	return 0;
}

static int close_sleeping(struct locks *l, uint64_t stop, size_t *n)
{
	struct bpf_map *m = l->skel->maps.pending_sleep;
	struct cont_pending p;
	__u32 tid, next;
	const void *prev = NULL;
	int err;

	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		tid = next;
		prev = &tid;
		if (bpf_map__lookup_elem(m, &tid, sizeof(tid), &p, sizeof(p), 0))
			continue;
		err = add_inflight(l, &p, stop, n);
		if (err)
			return err;
	}
	return 0;
}

static int close_spinning(struct locks *l, uint64_t stop, size_t *n)
{
	struct cont_pending_spin *ps = calloc(l->ncpus, sizeof(*ps));
	__u32 zero = 0, d;
	int cpu, err = 0;

	if (!ps)
		return -ENOMEM;
	if (bpf_map__lookup_elem(l->skel->maps.pending_spin, &zero, sizeof(zero), ps,
				 sizeof(*ps) * l->ncpus, 0))
		goto out;
	/* As in BPF: a spin older than a second lost its end; do not close it. */
	for (cpu = 0; cpu < l->ncpus && !err; cpu++)
		for (d = 0; d < ps[cpu].depth && d < LS_PENDING_SPIN_DEPTH && !err; d++)
			if (stop - ps[cpu].slot[d].start_ns < 1000000000ULL)
				err = add_inflight(l, &ps[cpu].slot[d], stop, n);
out:
	free(ps);
	return err;
}

/* The maps stop changing; what is still waiting now is closed at this time. */
static void locks_detach(void *priv)
{
	struct locks *l = priv;

	l->stop_ns = now_ns();
	if (l->skel)
		contention_bpf__detach(l->skel);
}

/* The last drain adds the waits that were still in progress at the detach. */
static int locks_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct locks *l = priv;
	int err;

	s->ncont = 0;
	err = drain_rows(c, l, &s->ncont);
	if (!err && final)
		err = close_sleeping(l, l->stop_ns, &s->ncont);
	if (!err && final)
		err = close_spinning(l, l->stop_ns, &s->ncont);
	s->cont = l->rows;
	return err;
}

int collector__fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct locks *l = family_priv(ctx, FAMILY_LOCKS);

	if (!l || !l->skel)
		return -ENOENT;
	return fetch_stack_map(l->skel->maps.stacks, id, frames, max, LS_STACK_DEPTH);
}

/* targets_full is the target filter's, counted whatever families are on. */
static void locks_lost(const struct collector *c, const void *priv, uint64_t *vals)
{
	const struct locks *l = priv;
	struct cont_lost lost = { 0 };

	if (l && l->skel)
		lost = l->skel->bss->lost;
	lost.targets_full = collector__targets_full(c);
	memcpy(vals, &lost, sizeof(lost));
}

size_t collector__rq_locks(const struct collector *c, const uint64_t **addrs)
{
	const struct locks *l = family_priv(c, FAMILY_LOCKS);

	*addrs = l ? l->rq_locks : NULL;
	return l ? l->nrq_locks : 0;
}

static const struct bpf_object *locks_object(const void *priv)
{
	const struct locks *l = priv;

	return l->skel ? l->skel->obj : NULL;
}

const struct family_ops locks_family = {
	.name = "locks",
	.what = "kernel lock waits: lock:contention_begin/end",
	.choose_mode = locks_choose_mode,
	.open = locks_open,
	.drain = locks_drain,
	.detach = locks_detach,
	.free = locks_free,
	.lost_names = lost_names,
	.nlost = NLOST,
	.lost = locks_lost,
	.object = locks_object,
};
