// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The hold family (bpf/hold.bpf.c, record --hold): every acquisition and
 * hold time of kernel spinlocks, mutexes and rwsems, from their lock and
 * release functions, handed over as the "hold" table and its losses as
 * "hold.lost".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "buf.h"
#include "collector_int.h"
#include "hold.h"
#include "hold.skel.h"
#include "log.h"

_Static_assert(sizeof(struct hold_row_key) == 16 + 8 * HOLD_STACK_DEPTH, "hold_row_key layout");
_Static_assert(sizeof(struct hold_row_val) == 5 * 8, "hold_row_val layout");
_Static_assert(sizeof(struct hold_lost) == 5 * 8, "hold_lost layout");
_Static_assert(HOLD_STACK_DEPTH == TSTACK_DEPTH, "hold stacks are short stacks");

/* The table the locks view reads: keep these names. */
enum {
	HC_LOCK, HC_KIND, HC_STACK,
	HC_ACQUIRED, HC_HELD, HC_HOLD, HC_HOLD_MAX, HC_FAILED,
	HC__COUNT,
};

static const struct tcol hold_cols[HC__COUNT] = {
	[HC_LOCK] = { "lock", TCOL_KEY },
	[HC_KIND] = { "kind", TCOL_KEY },
	[HC_STACK] = { "stack", TCOL_KEY_KSTACK },
	[HC_ACQUIRED] = { "acquired", TCOL_SUM },
	[HC_HELD] = { "held", TCOL_SUM },
	[HC_HOLD] = { "hold_ns", TCOL_SUM },
	[HC_HOLD_MAX] = { "hold_max_ns", TCOL_MAX },
	[HC_FAILED] = { "failed", TCOL_SUM },
};

static const struct tschema hold_schema = { "hold", HC__COUNT, hold_cols };

enum {
	HL_UNMATCHED, HL_UNSEEN, HL_PENDING_FULL, HL_ROWS_FULL, HL_NESTED, HL_RECURSION,
	HL__COUNT,
};

static const struct tcol lost_cols[HL__COUNT] = {
	[HL_UNMATCHED] = { "unmatched_release", TCOL_SUM },
	[HL_UNSEEN] = { "release_unseen", TCOL_SUM },
	[HL_PENDING_FULL] = { "pending_full", TCOL_SUM },
	[HL_ROWS_FULL] = { "rows_full", TCOL_SUM },
	[HL_NESTED] = { "nested", TCOL_SUM },
	[HL_RECURSION] = { "recursion", TCOL_SUM },	/* programs the kernel skipped */
};

static const struct tschema lost_schema = { "hold.lost", HL__COUNT, lost_cols };

struct hold_func {
	const char *name;
	uint32_t kind;
	uint32_t how;
	const char *release;	/* lock functions only */
};

#define LOCK_FUNC(fn, kind, how, release)	{ #fn, kind, how, #release },
#define UNLOCK_FUNC(fn, kind)			{ #fn, kind, 0, NULL },

static const struct hold_func lock_funcs[] = { HOLD_LOCK_FUNCS(LOCK_FUNC) };
static const struct hold_func unlock_funcs[] = { HOLD_UNLOCK_FUNCS(UNLOCK_FUNC) };

#define NLOCK		(sizeof(lock_funcs) / sizeof(lock_funcs[0]))
#define NUNLOCK		(sizeof(unlock_funcs) / sizeof(unlock_funcs[0]))
#define NVALS		(sizeof(struct hold_row_val) / sizeof(__u64))
#define NLOST_BPF	(sizeof(struct hold_lost) / sizeof(__u64))

struct hold {
	struct hold_bpf *skel;
	int ncpus;
	struct bpf_link *links[NLOCK + NUNLOCK];
	size_t nlinks;
	bool released[NUNLOCK];	/* the release function is attached */
	int nlock, nunlock;
	int first_err;
	const char *first_fail;
	struct hold_row_val *percpu;
	struct htab last;	/* hold_row_key -> uint64_t[NVALS] */
	struct htab last_lost;	/* uint32 0 -> uint64_t[HL__COUNT] */
	struct trows_buf rows;
	struct trows_buf lost;
	struct tstack *stacks;	/* one per row of this drain */
	size_t stacks_cap;
	uint8_t kinds[NVALS];
};

/*
 * fentry only. kprobes on these functions, with or without kretprobes,
 * crashed (calls to address 0) or hung Debian's 6.1 under QEMU in about
 * one recording in twenty in the VM tier, where fentry never did: they
 * are refused, whatever --attach says, rather than offered with a
 * warning. A forced fentry is tried even where the feature probe said
 * no, so that the message is the failure of these very programs.
 */
#define NO_KPROBES "kprobes on the kernel's lock functions are refused (they crashed and hung " \
		   "test kernels: see the man page)"

static int choose_mode(const struct features *f, enum attach_mode want, char *why, size_t len)
{
	if (want == ATTACH_KPROBE) {
		snprintf(why, len, "needs fentry: " NO_KPROBES);
		return -EOPNOTSUPP;
	}
	if (want == ATTACH_FENTRY || f->r[FEAT_FENTRY].ok)
		return 0;
	snprintf(why, len, "needs fentry: %.100s; " NO_KPROBES, f->r[FEAT_FENTRY].detail);
	return -EOPNOTSUPP;
}

static struct bpf_program *fentry_prog(const struct hold *h, const char *prefix, const char *fn)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", prefix, fn);
	return bpf_object__find_program_by_name(h->skel->obj, name);
}

static int unlock_index(const char *name)
{
	size_t i;

	for (i = 0; i < NUNLOCK; i++)
		if (!strcmp(unlock_funcs[i].name, name))
			return i;
	return -1;
}

/*
 * Only the programs of functions in the kernel's BTF are loaded, and of
 * lock functions only those whose release function is there too (a
 * spin_unlock can be inlined where spin_lock is not).
 */
static void select_programs(struct hold *h)
{
	bool have[NUNLOCK];
	size_t i;

	for (i = 0; i < NUNLOCK; i++) {
		have[i] = kfunc_in_btf(unlock_funcs[i].name);
		bpf_program__set_autoload(fentry_prog(h, "fe_", unlock_funcs[i].name), have[i]);
	}
	for (i = 0; i < NLOCK; i++) {
		int r = unlock_index(lock_funcs[i].release);
		bool on = r >= 0 && have[r] && kfunc_in_btf(lock_funcs[i].name);

		bpf_program__set_autoload(fentry_prog(h, "fx_", lock_funcs[i].name), on);
	}
}

static int keep_link(struct hold *h, struct bpf_link *l)
{
	if (!l)
		return -errno;
	h->links[h->nlinks++] = l;
	return 0;
}

/* prefix "fe_" (release) or "fx_" (lock): the function's program, if loaded. */
static int attach_func(struct hold *h, const char *prefix, const struct hold_func *fn)
{
	struct bpf_program *p = fentry_prog(h, prefix, fn->name);

	if (!bpf_program__autoload(p))
		return -ENOENT;
	return keep_link(h, bpf_program__attach_trace(p));
}

static void note_missing(struct hold *h, const char *fn, int err)
{
	pr_info("hold: %s not attached: %s\n", fn, err == -ENOENT ?
		"not in the kernel's BTF (inlined or renamed)" : strerror(-err));
	if (!h->first_err) {
		h->first_err = err;
		h->first_fail = fn;
	}
}

/* Release functions first: a hold must never start that cannot end. */
static void attach_all(struct hold *h)
{
	size_t i;
	int err, r;

	for (i = 0; i < NUNLOCK; i++) {
		/* It starts a read hold: after up_read in the list. */
		if (unlock_funcs[i].kind == HOLD_DOWNGRADE && !h->released[unlock_index("up_read")]) {
			pr_info("hold: %s not attached: up_read is not\n", unlock_funcs[i].name);
			continue;
		}
		err = attach_func(h, "fe_", &unlock_funcs[i]);
		h->released[i] = !err;
		h->nunlock += !err;
		if (err)
			note_missing(h, unlock_funcs[i].name, err);
	}
	for (i = 0; i < NLOCK; i++) {
		r = unlock_index(lock_funcs[i].release);
		if (r < 0 || !h->released[r]) {
			pr_info("hold: %s not attached: its release %s is not\n", lock_funcs[i].name,
				lock_funcs[i].release);
			continue;
		}
		err = attach_func(h, "fx_", &lock_funcs[i]);
		h->nlock += !err;
		if (err)
			note_missing(h, lock_funcs[i].name, err);
	}
}

static void say_why(const struct hold *h, const struct features *f, int err, bool loading,
		    char *why, size_t len)
{
	const char *probe = f->r[FEAT_FENTRY].detail;

	if (loading)
		snprintf(why, len, "needs fentry: loading the programs failed: %s (probe: %.100s)",
			 strerror(-err), probe);
	else
		snprintf(why, len, "needs fentry: no lock function could be attached, %s: %s (probe: %.100s)",
			 h->first_fail ? h->first_fail : "?", strerror(-err), probe);
}

static int hold_init(struct collector *c, struct hold *h)
{
	size_t i;

	h->ncpus = c->ncpus;
	htab_init(&h->last, sizeof(struct hold_row_key), NVALS * sizeof(uint64_t));
	htab_init(&h->last_lost, sizeof(uint32_t), HL__COUNT * sizeof(uint64_t));
	h->rows.rows.schema = &hold_schema;
	h->lost.rows.schema = &lost_schema;
	for (i = 0; i < NVALS; i++)
		h->kinds[i] = hold_cols[HC_ACQUIRED + i].kind;
	h->percpu = calloc(c->ncpus, sizeof(*h->percpu));
	h->skel = hold_bpf__open();
	return h->percpu && h->skel ? 0 : -ENOMEM;
}

static int hold_open(struct collector *c, const struct features *f, void **privp)
{
	struct family_status *st = status_of(c, FAMILY_HOLD);
	struct hold *h;
	int err;

	err = choose_mode(f, c->o.mode, st->why, sizeof(st->why));
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	*privp = h;
	err = hold_init(c, h);
	if (err)
		return err;
	h->skel->rodata->filter_targets = c->o.filter_targets;
	select_programs(h);
	err = reuse_target_maps(c, h->skel->maps.targets, h->skel->maps.targets_gen);
	if (!err)
		err = reuse_guard(c, h->skel->maps.guard);
	if (!err)
		err = hold_bpf__load(h->skel);
	if (err) {
		say_why(h, f, err, true, st->why, sizeof(st->why));
		return err;
	}
	attach_all(h);
	if (!h->nlock) {
		say_why(h, f, h->first_err ? h->first_err : -ENOENT, false, st->why, sizeof(st->why));
		return -EOPNOTSUPP;
	}
	snprintf(st->mode, sizeof(st->mode), "fentry: %d lock, %d unlock functions", h->nlock,
		 h->nunlock);
	return 0;
}

/* One row's values summed over the CPUs (the maximum for hold_max_ns). */
static int read_row(struct hold *h, const struct hold_row_key *k, uint64_t *sum)
{
	int cpu;
	size_t i;

	if (bpf_map__lookup_elem(h->skel->maps.hold_rows, k, sizeof(*k), h->percpu,
				 h->ncpus * sizeof(*h->percpu), 0))
		return -errno;
	memset(sum, 0, NVALS * sizeof(*sum));
	for (cpu = 0; cpu < h->ncpus; cpu++) {
		const uint64_t *v = (const uint64_t *)&h->percpu[cpu];

		for (i = 0; i < NVALS; i++)
			sum[i] = h->kinds[i] == TCOL_MAX ? (v[i] > sum[i] ? v[i] : sum[i]) : sum[i] + v[i];
	}
	return 0;
}

static int add_row(struct hold *h, const struct hold_row_key *k, const uint64_t *delta)
{
	uint64_t *row = trows_add(&h->rows);
	struct tstack *s;

	if (!row || grow_array((void **)&h->stacks, &h->stacks_cap, h->rows.rows.n, sizeof(*s)))
		return -ENOMEM;
	s = &h->stacks[h->rows.rows.n - 1];
	for (s->n = 0; s->n < TSTACK_DEPTH && k->frames[s->n]; s->n++)
		s->frames[s->n] = k->frames[s->n];
	row[HC_LOCK] = k->lock_addr;
	row[HC_KIND] = k->kind;
	row[HC_STACK] = h->rows.rows.n - 1;	/* an index until the drain ends */
	memcpy(&row[HC_ACQUIRED], delta, NVALS * sizeof(*delta));
	return 0;
}

/* Runs the kernel skipped because one of ours was already running on that CPU. */
static int recursion_misses(const struct hold *h, uint64_t *n)
{
	struct prog_stats st;
	int err = object_prog_stats(h->skel->obj, &st);

	*n = err ? 0 : st.recursion_misses;
	return err;
}

static int sum_lost(struct hold *h, uint64_t *sum)
{
	struct hold_lost *per = calloc(h->ncpus, sizeof(*per));
	uint32_t zero = 0;
	int cpu, err;
	size_t i;

	if (!per)
		return -ENOMEM;
	err = bpf_map__lookup_elem(h->skel->maps.hold_lost, &zero, sizeof(zero), per,
				   h->ncpus * sizeof(*per), 0) ? -errno : 0;
	for (cpu = 0; !err && cpu < h->ncpus; cpu++)
		for (i = 0; i < NLOST_BPF; i++)
			sum[i] += ((const uint64_t *)&per[cpu])[i];
	free(per);
	return err ? err : recursion_misses(h, &sum[HL_RECURSION]);
}

static int drain_lost(struct collector *c, struct hold *h)
{
	uint64_t sum[HL__COUNT] = { 0 }, *row;
	uint8_t kinds[HL__COUNT];
	uint32_t zero = 0;
	bool changed;
	size_t i;
	int err;

	for (i = 0; i < HL__COUNT; i++)
		kinds[i] = TCOL_SUM;
	h->lost.rows.n = 0;
	err = sum_lost(h, sum);
	if (!err)
		err = tdelta(&h->last_lost, &zero, sum, sum, kinds, HL__COUNT, &changed);
	if (err || !changed)
		return err;
	row = trows_add(&h->lost);
	if (!row)
		return -ENOMEM;
	memcpy(row, sum, sizeof(sum));
	return collector_add_table(c, &h->lost.rows);
}

/*
 * Holds still open at the final drain are left out: they count as
 * acquired, not as held, so that every hold time is a whole one.
 */
static int hold_drain(struct collector *c, void *priv, bool final)
{
	struct hold *h = priv;
	struct hold_row_key key, next, *prev = NULL;
	uint64_t cur[NVALS], delta[NVALS];
	bool changed;
	size_t i;
	int err = 0;

	(void)final;
	h->rows.rows.n = 0;
	while (!err && !bpf_map__get_next_key(h->skel->maps.hold_rows, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		err = read_row(h, &key, cur);
		if (err == -ENOENT) {	/* rows are never deleted; harmless anyway */
			err = 0;
			continue;
		}
		if (!err)
			err = tdelta(&h->last, &key, cur, delta, h->kinds, NVALS, &changed);
		if (!err && changed)
			err = add_row(h, &key, delta);
	}
	for (i = 0; i < h->rows.rows.n; i++)
		h->rows.rows.v[i * HC__COUNT + HC_STACK] = tptr(&h->stacks[i]);
	if (!err)
		err = collector_add_table(c, &h->rows.rows);
	return err ? err : drain_lost(c, h);
}

static void hold_detach(void *priv)
{
	struct hold *h = priv;

	while (h->nlinks)
		bpf_link__destroy(h->links[--h->nlinks]);
}

static void hold_free(void *priv)
{
	struct hold *h = priv;

	hold_detach(h);
	hold_bpf__destroy(h->skel);
	htab_free(&h->last);
	htab_free(&h->last_lost);
	trows_buf_free(&h->rows);
	trows_buf_free(&h->lost);
	free(h->stacks);
	free(h->percpu);
	free(h);
}

static struct bpf_object *hold_object(void *priv)
{
	struct hold *h = priv;

	return h->skel ? h->skel->obj : NULL;
}

const struct table_family hold_family = {
	.bit = FAMILY_HOLD,
	.open = hold_open,
	.drain = hold_drain,
	.detach = hold_detach,
	.free = hold_free,
	.object = hold_object,
};
