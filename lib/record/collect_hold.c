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
#include "base/buf.h"
#include "record/collector_int.h"
#include "hold.h"
#include "hold.skel.h"
#include "base/log.h"

_Static_assert(sizeof(struct hold_row_key) == 16 + 8 * HOLD_STACK_DEPTH, "hold_row_key layout");
_Static_assert(sizeof(struct hold_row_val) == 5 * 8, "hold_row_val layout");
_Static_assert(sizeof(struct hold_lost) == 5 * 8, "hold_lost layout");
_Static_assert(HOLD_STACK_DEPTH == TSTACK_DEPTH, "hold stacks are short stacks");

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
_Static_assert(HOLD_LOST__RECURSION * sizeof(__u64) == sizeof(struct hold_lost), "the kernel counts all but recursion");

struct hold {
	struct hold_bpf *skel;
	struct bpf_link *links[NLOCK + NUNLOCK];
	size_t nlinks;
	bool released[NUNLOCK];	/* the release function is attached */
	int nlock, nunlock;
	int first_err;
	const char *first_fail;
	struct tsource rows;
	struct tsource lost;
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

static int hold_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	if (want == ATTACH_KPROBE) {
		snprintf(st->why, sizeof(st->why), "needs fentry: " NO_KPROBES);
		return -EOPNOTSUPP;
	}
	if (want == ATTACH_FENTRY || f->r[FEAT_FENTRY].ok) {
		snprintf(st->mode, sizeof(st->mode), "fentry");
		if (!f->r[FEAT_FENTRY].ok)
			snprintf(st->why, sizeof(st->why), "tried as asked, though: %.200s",
				 f->r[FEAT_FENTRY].detail);
		return 0;
	}
	snprintf(st->why, sizeof(st->why), "needs fentry: %.100s; " NO_KPROBES, f->r[FEAT_FENTRY].detail);
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

static int row_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	const struct hold_row_key *k = key;

	(void)ctx;
	tstack_copy(stack, k->frames);
	row[HOLD__LOCK] = k->lock_addr;
	row[HOLD__KIND] = k->kind;
	return 0;
}

/* The kernel's counters, and a last column counted outside them (recursion). */
static void lost_values(const void *val, uint64_t *out)
{
	memcpy(out, val, sizeof(struct hold_lost));
	out[HOLD_LOST__RECURSION] = 0;
}

static int hold_init(struct collector *c, struct hold *h)
{
	int err;

	h->skel = hold_bpf__open();
	if (!h->skel)
		return -ENOMEM;
	h->rows = (struct tsource){ .schema = ls_schema(TBL_HOLD), .map = h->skel->maps.hold_rows,
		.percpu = true, .key_size = sizeof(struct hold_row_key),
		.val_size = sizeof(struct hold_row_val), .nkeys = HOLD__ACQUIRED, .keys = row_keys };
	h->lost = (struct tsource){ .schema = ls_schema(TBL_HOLD_LOST), .map = h->skel->maps.hold_lost,
		.percpu = true, .key_size = sizeof(uint32_t), .val_size = sizeof(struct hold_lost),
		.values = lost_values };
	err = tsource_init(&h->rows, c->ncpus);
	return err ? err : tsource_init(&h->lost, c->ncpus);
}

static int hold_open(struct collector *c, const struct features *f, struct family_status *st,
		     void **privp)
{
	struct hold *h;
	int err;

	err = hold_choose_mode(f, c->o.mode, st);
	if (err)
		return err;
	st->why[0] = '\0';	/* a forecast: the attach will tell */
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	*privp = h;
	err = hold_init(c, h);
	if (err)
		return err;
	h->skel->rodata->filter_targets = c->o.filter_targets;
	select_programs(h);
	err = collector_prepare_object(c, h->skel->obj);
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

/* Runs the kernel skipped because one of ours was already running on that CPU. */
static int recursion_misses(const struct hold *h, uint64_t *n)
{
	struct prog_stats st;
	int err = object_prog_stats(h->skel->obj, &st);

	*n = err ? 0 : st.recursion_misses;
	return err;
}

static int drain_lost(struct collector *c, struct hold *h)
{
	uint64_t sum[HOLD_LOST__NCOLS];
	uint32_t zero = 0;
	int err = tsource_read(&h->lost, &zero, sum);

	if (!err)
		err = recursion_misses(h, &sum[HOLD_LOST__RECURSION]);
	if (!err)
		err = tsource_total(&h->lost, sum);
	return err ? err : collector_add_table(c, &h->lost.rows.rows);
}

/*
 * Holds still open at the final drain are left out: they count as
 * acquired, not as held, so that every hold time is a whole one.
 */
static int hold_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct hold *h = priv;
	int err = collector_drain_source(c, &h->rows, NULL);

	(void)s;
	(void)final;
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
	tsource_free(&h->rows);
	tsource_free(&h->lost);
	free(h);
}

static const struct bpf_object *hold_object(const void *priv)
{
	const struct hold *h = priv;

	return h->skel ? h->skel->obj : NULL;
}

/*
 * Its rows are lock x kind x short stack: every lock of every object the
 * system touches, a row each. Idle ones are removed as the map fills.
 */
static int hold_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct hold *h = priv;

	(void)c;
	return tsource_trim(&h->rows, before, late);
}

static unsigned hold_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct hold *h = priv;

	return tsource_fill(&h->rows, latest, before);
}

const struct family_ops hold_family = {
	.choose_mode = hold_choose_mode,
	.open = hold_open,
	.drain = hold_drain,
	.detach = hold_detach,
	.free = hold_free,
	.object = hold_object,
	.trim = hold_trim,
	/* Its own losses are a table (hold.lost); the late ones are acquisitions. */
	.trim_lost = "hold_trimmed_late",
	.fill = hold_fill,
};
