// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The locks family of the collector: lock:contention_begin/end. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "record/contval.h"
#include "format/consts.h"
#include "base/log.h"
#include "record/lockname.h"
#include "contention.skel.h"

_Static_assert(sizeof(struct cont_key) == 24, "cont_key layout is shared with BPF");
_Static_assert(sizeof(struct cont_val) == 48 + 4 * LS_HIST_SLOTS, "cont_val layout is shared with BPF");
_Static_assert(sizeof(struct cont_stack) == 8 + 8 * LS_STACK_DEPTH, "cont_stack layout is shared with BPF");
_Static_assert(sizeof(struct cont_pending) == 32, "cont_pending layout is shared with BPF");
_Static_assert(sizeof(struct cont_pending_spin) == 8 + 48 * LS_PENDING_SPIN_DEPTH, "cont_pending_spin layout");
_Static_assert(sizeof(struct cont_task_waits) == 36 * LS_PENDING_TASK_DEPTH + 8, "cont_task_waits layout");
_Static_assert(sizeof(struct cont_comm) == LS_COMM_LEN + 8, "cont_comm layout is shared with BPF");
_Static_assert(sizeof(struct stack_sampler) == 40 + 8 * LS_SAMPLER_SLOTS + 8 * LS_SAMPLED_LOCKS,
	       "stack_sampler layout is shared with BPF");

/* BPF's counters, in struct cont_lost's order, then the kernel's skips of our programs. */
static const char *const lost_names[] = {
	"missing_begin", "nested_dropped", "stale_begin", "pending_full",
	"map_full_sampled",
	"stacks_full", "stack_error", "map_full", "targets_full", "in_probe",
	"end_before_begin", "recursion_begin", "recursion_end",
};

#define NLOST		(sizeof(lost_names) / sizeof(lost_names[0]))
#define NLOST_BPF	(sizeof(struct cont_lost) / sizeof(__u64))
_Static_assert(NLOST == NLOST_BPF + 2, "one name per loss counter, in order");


uint64_t stack_thin_ns(uint32_t stack_rate, uint64_t thin)
{
	if (!stack_rate || thin < 2)
		return 0;
	return 1ULL << log2_slot(thin, 64);
}

/* Its log2: the histogram slot from which waits keep every stack. */
static uint32_t thin_log2(uint64_t ns)
{
	return ns ? log2_slot(ns, 64) : 0;
}

struct locks {
	struct contention_bpf *skel;
	int ncpus;
	struct cont_val *percpu;	/* lookup buffer: one value per possible CPU */
	struct mapscan scan;	/* the drains' reader of stats */
	struct htab totals;	/* cont_key -> cont_val, as of the last drain */
	struct htab stack_ids;	/* BPF stack key (u64) -> file stack id (int32) */
	uint64_t *stack_keys;	/* file stack id -> BPF stack key */
	size_t nstack_keys, stack_keys_cap;
	struct htab seen;	/* cont_key -> uint32: the drain at which its row last changed */
	uint32_t drain;		/* the drain in progress (collector.ndrains) */
	struct cont_row *rows;
	size_t cap;
	struct lockname *names;	/* rq, zone and slab names of dynamic locks */
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

/*
 * The end program first: a begin seen before its end program was there
 * would leave a wait open whose end never comes, closed at the stop as
 * a wait of the whole recording. An end before its begin's program is
 * only counted (missing_begin). The skeleton's detach takes the begin
 * first, for the same reason.
 */
static int attach_ends_first(struct contention_bpf *s, bool btf)
{
	struct bpf_link **end = btf ? &s->links.end_btf : &s->links.end_tp;
	struct bpf_link **begin = btf ? &s->links.begin_btf : &s->links.begin_tp;

	*end = bpf_program__attach(btf ? s->progs.end_btf : s->progs.end_tp);
	if (!*end)
		return -errno;
	*begin = bpf_program__attach(btf ? s->progs.begin_btf : s->progs.begin_tp);
	return *begin ? 0 : -errno;
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
	s->rodata->pidns_dev = c->pidns_dev;	/* -t's IDs as lockstat's PID namespace has them */
	s->rodata->pidns_ino = c->pidns_ino;
	set_sampler_rodata(s->rodata, o->stack_rate);
	s->rodata->thin_slot = thin_log2(stack_thin_ns(o->stack_rate, o->stack_thin));
	bpf_program__set_autoattach(s->progs.waiting_tasks, false);
	s->rodata->lockname_slab = lockname__want_slab(l->names);
	/* -M: as many stacks as rows, as the sampler keeps (a row has one). */
	err = o->stats_entries ? bpf_map__set_max_entries(s->maps.stats, o->stats_entries) ?:
				 size_shared_map("locks", s->maps.stacks, o->stats_entries, c->ncpus) : 0;
	select_programs(s, btf);
	if (!err)
		err = collector_prepare_object(c, s->obj);
	if (!err)
		err = reuse_guard(c, s->maps.guard);
	if (!err)
		err = reuse_sampler(c, s->maps.sampler);
	if (!err)
		err = contention_bpf__load(s);
	if (!err)
		err = attach_ends_first(s, btf);
	if (err) {
		contention_bpf__destroy(s);
		return err;
	}
	l->skel = s;
	lockname__use_map(l->names, bpf_map__fd(s->maps.lock_caches));
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
	htab_init(&l->stack_ids, sizeof(uint64_t), sizeof(int32_t));
	htab_init(&l->seen, sizeof(struct cont_key), sizeof(uint32_t));
	l->percpu = calloc(c->ncpus, sizeof(*l->percpu));
	mapscan_init(&l->scan, -1, sizeof(struct cont_key), sizeof(*l->percpu) * c->ncpus);
	if (!l->percpu)
		return -ENOMEM;
	err = lockname__open(&l->names, c->ncpus);
	if (!err)
		err = attach_some_mode(c, l, f, st);
	return err;
}

static void locks_free(void *priv)
{
	struct locks *l = priv;

	contention_bpf__destroy(l->skel);
	htab_free(&l->totals);
	htab_free(&l->stack_ids);
	free(l->stack_keys);
	htab_free(&l->seen);
	free(l->percpu);
	mapscan_free(&l->scan);
	free(l->rows);
	lockname__free(l->names);
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
		sum->sumsq_lo += v->sumsq_lo;
		sum->sumsq_hi += v->sumsq_hi + (sum->sumsq_lo < v->sumsq_lo);
		for (i = 0; i < LS_HIST_SLOTS; i++)
			sum->hist[i] += v->hist[i];
	}
}

/* -t: the task's command and process, as BPF saw them at its first wait (0 and "?": unknown). */
static void fill_comm(struct locks *l, struct cont_row *r)
{
	__u32 tid = r->key.tid;
	struct cont_comm c;

	if (!tid || bpf_map__lookup_elem(l->skel->maps.comms, &tid, sizeof(tid), &c, sizeof(c), 0)) {
		snprintf(r->comm, sizeof(r->comm), "%s", tid ? "?" : "");
		return;
	}
	_Static_assert(sizeof(r->comm) == sizeof(c.comm), "one comm length");
	memcpy(r->comm, c.comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	r->key.tgid = c.tgid;
}

/* The file's id of a BPF stack key: the next one on first sight. */
static int file_stack_id(struct locks *l, uint64_t stack, int32_t *id)
{
	int inserted;
	int32_t *slot;

	/* _AT_END: a spin in progress at the stop, whose stack was never taken. */
	if (stack == LS_STACK_NONE || stack == LS_STACK_ERR || stack == LS_STACK_AT_END) {
		*id = stack == LS_STACK_NONE ? LS_STACK_UNSAMPLED : LS_STACK_FAILED;
		return 0;
	}
	slot = htab_get(&l->stack_ids, &stack, &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted) {
		if (grow_array((void **)&l->stack_keys, &l->stack_keys_cap, l->nstack_keys + 1,
			       sizeof(*l->stack_keys)))
			return -ENOMEM;
		*slot = l->nstack_keys;
		l->stack_keys[l->nstack_keys++] = stack;
	}
	*id = *slot;
	return 0;
}

static int row_key(struct locks *l, const struct cont_key *k, struct cont_row_key *out)
{
	*out = (struct cont_row_key){
		.lock_addr = k->lock_addr, .flags = cont_key_flags(k->bits), .tid = k->tid,
		.lock_class = cont_key_class(k->bits), .shift = cont_key_shift(k->bits),
		.err = cont_key_err(k->bits),
	};
	return file_stack_id(l, k->stack, &out->stack_id);
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
	if (!r || row_key(l, key, &r->key))
		return -ENOMEM;
	cont_val_delta(&r->val, &sum, before);
	fill_comm(l, r);
	*before = sum;
	return note_seen(&l->seen, key, l->drain);
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

typedef int (*pending_fn)(struct locks *l, const struct cont_pending *p, void *arg);

/* The tasks waiting now, from the task iterator: fn on each one's struct cont_pending. */
static int each_sleeping(struct locks *l, pending_fn fn, void *arg)
{
	struct bpf_link *link = bpf_program__attach_iter(l->skel->progs.waiting_tasks, NULL);
	struct cont_pending p;
	ssize_t got;
	int fd, err = 0;

	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		bpf_link__destroy(link);
		return err;
	}
	while (!err && (got = read(fd, &p, sizeof(p))) == sizeof(p))
		err = fn(l, &p, arg);
	if (!err && got != 0)
		err = got < 0 ? -errno : -EIO;
	close(fd);
	bpf_link__destroy(link);
	return err;
}

static int add_inflight(struct locks *l, const struct cont_pending *p, uint64_t stop, size_t *n);

/* A wait still in progress at the stop, closed then: a row more. */
struct closing {
	uint64_t stop;
	size_t *n;
};

static int close_one(struct locks *l, const struct cont_pending *p, void *arg)
{
	const struct closing *c = arg;

	return add_inflight(l, p, c->stop, c->n);
}

static int add_inflight(struct locks *l, const struct cont_pending *p, uint64_t stop, size_t *n)
{
	struct cont_row *r;
	uint64_t wait;

	if (!p->start_ns || p->start_ns > stop)
		return 0;
	r = new_row(l, n);
	if (!r || row_key(l, &p->key, &r->key))
		return -ENOMEM;
	wait = stop - p->start_ns;
	r->val.count = 1;
	r->val.total_ns = r->val.min_ns = r->val.max_ns = wait;
	r->val.hist[log2_slot(wait, LS_HIST_SLOTS)] = 1;
	if (cont_key_shift(p->key.bits) && p->key.stack != LS_STACK_NONE) {	/* as BPF's add_square() */
		unsigned __int128 sq = (unsigned __int128)wait * wait;

		r->val.sumsq_lo = (uint64_t)sq;
		r->val.sumsq_hi = (uint64_t)(sq >> 64);
	}
	fill_comm(l, r);
	return 0;
}

/*
 * The tasks still waiting, from the task iterator: one struct cont_pending
 * for each wait open (two for PREEMPT_RT's nested ones). A wait whose end
 * was lost is no longer among them once its task began another.
 */
static int close_sleeping(struct locks *l, uint64_t stop, size_t *n)
{
	struct closing c = { stop, n };

	l->skel->bss->stop_stacks = true;	/* detached now: their stacks can be taken */

	return each_sleeping(l, close_one, &c);
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
			if (stop - ps[cpu].slot[d].p.start_ns < 1000000000ULL)
				err = add_inflight(l, &ps[cpu].slot[d].p, stop, n);
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

/* The slab path against the per-task classes, on this recording's locks. */
static void log_class_checks(const struct locks *l)
{
	uint64_t agree, disagree;

	lockname__class_checks(l->names, &agree, &disagree);
	if (agree || disagree)
		pr_info("lock names: the slab path names %" PRIu64 " lock(s) of the per-task classes as the class does, %" PRIu64 " otherwise\n",
			agree, disagree);
}

/* The last drain adds the waits that were still in progress at the detach. */
static int locks_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct locks *l = priv;
	int err;

	s->ncont = 0;
	l->drain = c->ndrains;
	err = drain_rows(c, l, &s->ncont);
	if (!err && final)
		err = close_sleeping(l, l->stop_ns, &s->ncont);
	if (!err && final)
		err = close_spinning(l, l->stop_ns, &s->ncont);
	if (!err)
		err = lockname__prepare(l->names, l->rows, s->ncont);
	if (!err && final)
		log_class_checks(l);
	s->cont = l->rows;
	return err;
}


/* Stack keys are hashes of the frames; LS_STACK_NONE, _ERR and _AT_END are none. */
static int stack_set_add(struct htab *set, uint64_t stack)
{
	if (stack == LS_STACK_NONE || stack == LS_STACK_ERR || stack == LS_STACK_AT_END)
		return 0;
	return htab_get(set, &stack, NULL) ? 0 : -ENOMEM;
}

static int spinning_stacks(struct locks *l, struct htab *stacks)
{
	struct cont_pending_spin *ps = calloc(l->ncpus, sizeof(*ps));
	__u32 zero = 0, d;
	int cpu, err = 0;

	if (!ps)
		return -ENOMEM;
	if (!bpf_map__lookup_elem(l->skel->maps.pending_spin, &zero, sizeof(zero), ps, sizeof(*ps) * l->ncpus, 0))
		for (cpu = 0; cpu < l->ncpus && !err; cpu++)
			for (d = 0; d < ps[cpu].depth && d < LS_PENDING_SPIN_DEPTH && !err; d++)
				err = stack_set_add(stacks, ps[cpu].slot[d].p.key.stack);
	free(ps);
	return err;
}

/* The stacks and tasks kept for the rows to come, in two sets. */
struct live_sets {
	struct htab *stacks, *tids;
};

static int live_add(struct locks *l, const struct cont_pending *p, void *arg)
{
	const struct live_sets *live = arg;

	(void)l;
	return stack_set_add(live->stacks, p->key.stack) ?: u32_set_add(live->tids, p->key.tid);
}

/*
 * The stacks and tasks of the rows left, and of the waits in progress:
 * a wait's row is made at its end (a sleeping one's always), and a
 * stack pruned before then would leave its caller "[stack lost]", a
 * task's comm "?".
 */
static int live_keys(struct locks *l, struct htab *stacks, struct htab *tids)
{
	struct live_sets live = { stacks, tids };
	struct cont_key key, next;
	const void *prev = NULL;
	int err = 0;

	while (!err && !bpf_map__get_next_key(l->skel->maps.stats, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		err = stack_set_add(stacks, key.stack) ?: u32_set_add(tids, key.tid);
	}
	if (!err)
		err = spinning_stacks(l, stacks);
	return err ?: each_sleeping(l, live_add, &live);
}

/* The waits a row counted between the last drain and its trim. */
static uint64_t late_waits(const void *total, const void *deleted, void *ctx)
{
	const struct cont_val *before = total;
	struct cont_val now;

	sum_percpu(ctx, deleted, &now);
	return now.count > before->count ? now.count - before->count : 0;
}

/* A wait in progress may have a new row to come, with the stack it took. */
static int locks_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct locks *l = priv;
	struct htab stacks, tids;
	int removed = forget_older(&l->totals, &l->seen, l->skel->maps.stats, before, late_waits, l,
				   late), err;

	(void)c;
	if (removed < 0)
		return removed;
	htab_init(&stacks, sizeof(__u64), 1);
	htab_init(&tids, sizeof(__u32), 1);
	err = live_keys(l, &stacks, &tids);
	if (!err)
		err = map_prune(l->skel->maps.stacks, &stacks);
	if (err >= 0 && l->skel->rodata->per_task)
		err = map_prune(l->skel->maps.comms, &tids);
	htab_free(&stacks);
	htab_free(&tids);
	return err < 0 ? err : removed;
}

int collector__fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct locks *l = family_priv(ctx, FAMILY_LOCKS);
	struct cont_stack st;
	uint32_t i;

	if (!l || !l->skel || id < 0 || (size_t)id >= l->nstack_keys ||
	    bpf_map__lookup_elem(l->skel->maps.stacks, &l->stack_keys[id], sizeof(uint64_t),
				 &st, sizeof(st), 0))
		return -ENOENT;
	for (i = 0; i < st.nr && i < LS_STACK_DEPTH && (int)i < max; i++)
		frames[i] = st.ip[i];
	return i;
}

/* Waits whose begin or end the kernel did not run our program for. */
static uint64_t recursion_misses(const struct bpf_program *prog)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = prog ? bpf_program__fd(prog) : -1;

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

/* targets_full is the target filter's, counted whatever families are on. */
static void locks_lost(const struct collector *c, const void *priv, uint64_t *vals)
{
	const struct locks *l = priv;
	struct cont_lost lost = { 0 };

	if (l && l->skel) {
		const struct contention_bpf *s = l->skel;

		lost = s->bss->lost;
		vals[NLOST_BPF] = recursion_misses(s->progs.begin_btf) + recursion_misses(s->progs.begin_tp);
		vals[NLOST_BPF + 1] = recursion_misses(s->progs.end_btf) + recursion_misses(s->progs.end_tp);
	}
	lost.targets_full = collector__targets_full(c);
	memcpy(vals, &lost, sizeof(lost));
}

const char *collector__lock_names(const struct collector *c)
{
	const struct locks *l = family_priv(c, FAMILY_LOCKS);

	return lockname__status(l ? l->names : NULL);
}

static unsigned locks_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct locks *l = priv;
	uint32_t max = l->skel ? bpf_map__max_entries(l->skel->maps.stats) : 0;

	*before = trim_cutoff(&l->seen, latest, max / 4);
	return max ? l->totals.count * 1000 / max : 0;
}

static const struct bpf_object *locks_object(const void *priv)
{
	const struct locks *l = priv;

	return l->skel ? l->skel->obj : NULL;
}

const struct family_ops locks_family = {
	.choose_mode = locks_choose_mode,
	.open = locks_open,
	.drain = locks_drain,
	.detach = locks_detach,
	.free = locks_free,
	.lost_names = lost_names,
	.nlost = NLOST,
	.lost = locks_lost,
	.object = locks_object,
	.trim = locks_trim,
	.trim_lost = "trimmed_late",
	.fill = locks_fill,
};
