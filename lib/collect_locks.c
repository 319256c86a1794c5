// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The contention family of the collector: lock:contention_begin/end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collector_int.h"
#include "log.h"
#include "names.h"
#include "contention.skel.h"
#include "names.skel.h"

_Static_assert(sizeof(struct cont_key) == 32, "cont_key layout is shared with BPF");
_Static_assert(sizeof(struct cont_val) == 32 + 4 * LS_HIST_SLOTS, "cont_val layout is shared with BPF");
_Static_assert(sizeof(struct cont_pending) == 40, "cont_pending layout is shared with BPF");
_Static_assert(sizeof(struct cont_pending_spin) == 8 + 40 * LS_PENDING_SPIN_DEPTH, "cont_pending_spin layout");
_Static_assert(sizeof(struct cont_lost) == 9 * 8, "cont_lost layout is shared with BPF");

static void select_programs(struct contention_bpf *s, bool btf)
{
	bpf_program__set_autoload(btf ? s->progs.begin_tp : s->progs.begin_btf, false);
	bpf_program__set_autoload(btf ? s->progs.end_tp : s->progs.end_btf, false);
}

static int load_and_attach(struct collector *c, bool btf)
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
	c->cont = s;
	c->cont_btf = btf;
	return 0;
}

static int attach_some_mode(struct collector *c, const struct features *f, struct family_status *st)
{
	bool btf;
	int err;

	if (!contention_choose_mode(f, c->o.mode, &btf, st->why, sizeof(st->why)))
		return -EOPNOTSUPP;
	err = load_and_attach(c, btf);
	if (err && btf && c->o.mode == ATTACH_AUTO && f->r[FEAT_TP_LOCK].ok) {
		pr_info("tp_btf/contention_begin failed (%s), using the classic tracepoints\n", strerror(-err));
		btf = false;
		err = load_and_attach(c, false);
	}
	if (err)
		snprintf(st->why, sizeof(st->why), "loading the %s contention probes failed: %s%s",
			 btf ? "tp_btf" : "tracepoint", strerror(-err),
			 err == -EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "");
	else
		snprintf(st->mode, sizeof(st->mode), "%s", btf ? "tp_btf" : "tracepoint");
	return err;
}

static int run_rq_lock_finder(struct collector *c, struct names_bpf *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int i, err;

	s->rodata->nr_cpus = c->ncpus;
	err = names_bpf__load(s);
	if (!err)
		err = bpf_prog_test_run_opts(bpf_program__fd(s->progs.find_rq_locks), &run);
	if (err)
		return err;
	c->rq_locks = calloc(c->ncpus, sizeof(*c->rq_locks));
	if (!c->rq_locks)
		return -ENOMEM;
	for (i = 0; i < c->ncpus && i < LS_MAX_CPUS; i++)
		if (s->bss->rq_lock_addrs[i])
			c->rq_locks[c->nrq_locks++] = s->bss->rq_lock_addrs[i];
	return 0;
}

/* Best effort: without them, run-queue locks are named by their caller. */
static void find_rq_locks(struct collector *c)
{
	struct names_bpf *s = names_bpf__open();
	int err = s ? run_rq_lock_finder(c, s) : -errno;

	if (err)
		pr_info("cannot locate the run-queue locks (%s): they stay unnamed\n", strerror(-err));
	names_bpf__destroy(s);
}

int locks_open(struct collector *c, const struct features *f)
{
	struct family_status *st = status_of(c, FAMILY_LOCKS);
	int err;

	htab_init(&c->cont_totals, sizeof(struct cont_key), sizeof(struct cont_val));
	c->percpu = calloc(c->ncpus, sizeof(*c->percpu));
	if (!c->percpu)
		return -ENOMEM;
	err = attach_some_mode(c, f, st);
	if (err)
		return err;
	st->attached = true;
	find_rq_locks(c);
	return 0;
}

void locks_free(struct collector *c)
{
	contention_bpf__destroy(c->cont);
	htab_free(&c->cont_totals);
	free(c->percpu);
	free(c->cont_rows);
	free(c->rq_locks);
}

static struct cont_row *new_row(struct collector *c, size_t *n)
{
	c->cont_rows = grow_rows(c->cont_rows, &c->cont_cap, *n + 1, sizeof(*c->cont_rows));
	if (!c->cont_rows)
		return NULL;
	memset(&c->cont_rows[*n], 0, sizeof(c->cont_rows[*n]));
	return &c->cont_rows[(*n)++];
}

static void sum_percpu(const struct collector *c, struct cont_val *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	sum->min_ns = ~0ULL;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		const struct cont_val *v = &c->percpu[cpu];

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

static void fill_comm(struct collector *c, struct cont_row *r)
{
	__u32 tid = r->key.tid;

	if (!tid || bpf_map__lookup_elem(c->cont->maps.comms, &tid, sizeof(tid),
					 r->comm, sizeof(r->comm), 0))
		snprintf(r->comm, sizeof(r->comm), "%s", tid ? "?" : "");
	r->comm[sizeof(r->comm) - 1] = '\0';
}

static int drain_one(struct collector *c, const struct cont_key *key, size_t *n)
{
	struct cont_val sum, *before;
	struct cont_row *r;
	int err;

	err = bpf_map__lookup_elem(c->cont->maps.stats, key, sizeof(*key), c->percpu,
				   sizeof(*c->percpu) * c->ncpus, 0);
	if (err)
		return err == -ENOENT ? 0 : err;
	sum_percpu(c, &sum);
	before = htab_get(&c->cont_totals, key, NULL);
	if (!before)
		return -ENOMEM;
	if (sum.count == before->count)
		return 0;
	r = new_row(c, n);
	if (!r)
		return -ENOMEM;
	r->key = *key;
	delta(&r->val, &sum, before);
	fill_comm(c, r);
	*before = sum;
	return 0;
}

int locks_drain(struct collector *c, struct snapshot *s)
{
	struct cont_key key, next;
	const void *prev = NULL;
	int err;

	s->ncont = 0;
	s->cont = c->cont_rows;
	if (!c->cont)
		return 0;
	while (!bpf_map__get_next_key(c->cont->maps.stats, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		err = drain_one(c, &key, &s->ncont);
		if (err)
			return err;
	}
	s->cont = c->cont_rows;
	return 0;
}

static __u32 slot_of(uint64_t ns)
{
	__u32 s = 0;

	while (ns > 1 && s < LS_HIST_SLOTS - 1) {
		ns >>= 1;
		s++;
	}
	return s;
}

static int add_inflight(struct collector *c, const struct cont_pending *p, uint64_t stop, size_t *n)
{
	struct cont_row *r;
	uint64_t wait;

	if (!p->start_ns || p->start_ns > stop)
		return 0;
	r = new_row(c, n);
	if (!r)
		return -ENOMEM;
	wait = stop - p->start_ns;
	r->key = p->key;
	r->val.count = 1;
	r->val.total_ns = r->val.min_ns = r->val.max_ns = wait;
	r->val.hist[slot_of(wait)] = 1;
	fill_comm(c, r);
	return 0;
}

static int close_sleeping(struct collector *c, uint64_t stop, size_t *n)
{
	struct bpf_map *m = c->cont->maps.pending_sleep;
	struct cont_pending p;
	__u32 tid, next;
	const void *prev = NULL;
	int err;

	while (!bpf_map__get_next_key(m, prev, &next, sizeof(next))) {
		tid = next;
		prev = &tid;
		if (bpf_map__lookup_elem(m, &tid, sizeof(tid), &p, sizeof(p), 0))
			continue;
		err = add_inflight(c, &p, stop, n);
		if (err)
			return err;
	}
	return 0;
}

static int close_spinning(struct collector *c, uint64_t stop, size_t *n)
{
	struct cont_pending_spin *ps = calloc(c->ncpus, sizeof(*ps));
	__u32 zero = 0, d;
	int cpu, err = 0;

	if (!ps)
		return -ENOMEM;
	if (bpf_map__lookup_elem(c->cont->maps.pending_spin, &zero, sizeof(zero), ps,
				 sizeof(*ps) * c->ncpus, 0))
		goto out;
	/* As in BPF: a spin older than a second lost its end; do not close it. */
	for (cpu = 0; cpu < c->ncpus && !err; cpu++)
		for (d = 0; d < ps[cpu].depth && d < LS_PENDING_SPIN_DEPTH && !err; d++)
			if (stop - ps[cpu].slot[d].start_ns < 1000000000ULL)
				err = add_inflight(c, &ps[cpu].slot[d], stop, n);
out:
	free(ps);
	return err;
}

/*
 * Detach first, so that the maps stop changing, then take the last drain
 * and the waits that were still in progress at the detach.
 */
int locks_stop(struct collector *c, struct snapshot *s)
{
	uint64_t stop = monotonic_ns();
	int err;

	s->ncont = 0;
	s->cont = c->cont_rows;
	if (!c->cont)
		return 0;
	contention_bpf__detach(c->cont);
	err = locks_drain(c, s);
	if (!err)
		err = close_sleeping(c, stop, &s->ncont);
	if (!err)
		err = close_spinning(c, stop, &s->ncont);
	s->cont = c->cont_rows;
	return err;
}

int collector__fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct collector *c = ctx;

	return fetch_stack_map(c->cont->maps.stacks, id, frames, max, LS_STACK_DEPTH);
}

void collector__lost(const struct collector *c, struct cont_lost *lost)
{
	memset(lost, 0, sizeof(*lost));
	if (c->cont)
		*lost = c->cont->bss->lost;
	lost->targets_full = collector__targets_full(c);
}

size_t collector__rq_locks(const struct collector *c, const uint64_t **addrs)
{
	*addrs = c->rq_locks;
	return c->nrq_locks;
}
