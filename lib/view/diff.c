// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat diff's model: rows of the locks or hits view matched across
 * runs and kernels by normalized name, summed per run, then compared.
 * The statistics are lib/view/stats.c; how they are applied is here and in
 * lockstat-diff(1).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "view/diff.h"
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "base/log.h"
#include "view/view_hits.h"
#include "view/view_locks.h"

/* --- names ------------------------------------------------------------------- */

/* What compilers and linkers append to a function's name in one build. */
static const char *const suffix_words[] = {
	"isra", "constprop", "part", "cold", "llvm", "lto_priv", "localalias", "__uniq", "specialized",
};

static bool is_suffix_word(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(suffix_words) / sizeof(suffix_words[0]); i++)
		if (strlen(suffix_words[i]) == n && !strncmp(s, suffix_words[i], n))
			return true;
	return false;
}

static bool is_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/*
 * Is s (starting at a '.') a chain of compiler suffixes, ".constprop.0.isra.0"?
 * The first part must be a known word, so "lock.5" (a static variable)
 * and "files_struct.file_lock" stay as they are.
 */
static bool is_suffix_chain(const char *s)
{
	bool first = true;
	size_t n;

	while (*s == '.') {
		s++;
		n = strcspn(s, ".");
		if (!is_suffix_word(s, n) && (first || !is_digits(s, n)))
			return false;
		first = false;
		s += n;
	}
	return !*s && !first;
}

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return false;
	return n > 0;
}

/* bpf_prog_<16 hex digits>_<name>: the tag is a hash of the program's code. */
static void drop_bpf_tag(char *s)
{
	const size_t pre = strlen("bpf_prog_");

	if (strncmp(s, "bpf_prog_", pre) || strlen(s) < pre + 16 || !is_hex(s + pre, 16))
		return;
	if (s[pre + 16] == '_')
		memmove(s + pre, s + pre + 17, strlen(s + pre + 17) + 1);
	else if (!s[pre + 16])
		s[pre - 1] = '\0';
}

/* A bare symbol: no version, no BPF tag, no compiler suffixes. */
static void norm_symbol(char *s)
{
	char *at = s[0] ? strchr(s + 1, '@') : NULL;	/* memcpy@@GLIBC_2.14 */
	size_t i;

	if (at)
		*at = '\0';
	drop_bpf_tag(s);
	for (i = 1; s[i]; i++) {
		if (s[i] == '.' && is_suffix_chain(s + i)) {
			s[i] = '\0';
			return;
		}
	}
}

char *diff_norm_func(const char *name, char *out, size_t len)
{
	char *off;

	if (!len)
		return out;
	snprintf(out, len, "%s", name);
	off = strstr(out, "+0x");	/* function+0x1c or function+0x1c/0x80 */
	if (off && off > out)
		*off = '\0';
	norm_symbol(out);
	return out;
}

/*
 * A lock inside a static object keeps its offset ("runqueues+0x40"): it
 * says which lock of the object it is.
 */
char *diff_norm_lock(const char *name, char *out, size_t len)
{
	size_t anon = lock_name_anon_len(name);
	char sym[512], func[512];
	const char *off;

	if (!len)
		return out;
	if (anon && !name[anon]) {
		snprintf(out, len, "[anon]");
		return out;
	}
	if (anon) {	/* "0xADDR@function" */
		snprintf(out, len, "[anon]@%s", diff_norm_func(name + anon + 1, func, sizeof(func)));
		return out;
	}
	if (!strncmp(name, LOCK_NAME_PER_THREAD "@", sizeof(LOCK_NAME_PER_THREAD))) {	/* the site names it */
		snprintf(out, len, LOCK_NAME_PER_THREAD "@%s",
			 diff_norm_func(name + sizeof(LOCK_NAME_PER_THREAD), func, sizeof(func)));
		return out;
	}
	off = strstr(name, "+0x");
	snprintf(sym, sizeof(sym), "%.*s", off && off > name ? (int)(off - name) : (int)strlen(name), name);
	norm_symbol(sym);
	snprintf(out, len, "%s%s", sym, off && off > name ? off : "");
	return out;
}

/* --- options ------------------------------------------------------------------- */

static const char *const test_names[] = {
	[DIFF_TEST_AUTO] = "auto", [DIFF_TEST_WELCH] = "welch",
	[DIFF_TEST_MWU] = "mwu", [DIFF_TEST_POISSON] = "poisson",
};

int diff_test_parse(const char *s, enum diff_test *t)
{
	size_t i;

	for (i = 0; i < sizeof(test_names) / sizeof(test_names[0]); i++) {
		if (!strcmp(s, test_names[i])) {
			*t = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *diff_test_name(enum diff_test t)
{
	return t < sizeof(test_names) / sizeof(test_names[0]) ? test_names[t] : "?";
}

/* --- rows ------------------------------------------------------------------------ */

struct row_id {
	const char *key;
	const char *name;
	const char *detail;
	bool kernel;
	int depth;
	size_t parent;
};

static size_t nruns(const struct diff *d)
{
	return d->nb + d->np;
}

static int row_init(struct diff_row *r, const struct row_id *id, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->key = strdup(id->key);
	r->name = strdup(id->name);
	r->detail = strdup(id->detail);
	r->v = calloc(n, sizeof(*r->v));
	r->c = calloc(n, sizeof(*r->c));
	r->kernel = id->kernel;
	r->depth = id->depth;
	r->parent = id->parent;
	r->p = r->q = NAN;
	return r->key && r->name && r->detail && r->v && r->c ? 0 : -ENOMEM;
}

static void row_free(struct diff_row *r)
{
	free(r->key);
	free(r->name);
	free(r->detail);
	free(r->v);
	free(r->c);
}

static int add_row(struct diff *d, const struct row_id *id, size_t *idx)
{
	if (grow_array((void **)&d->rows, &d->rows_cap, d->nrows + 1, sizeof(*d->rows)))
		return -ENOMEM;
	*idx = d->nrows++;
	return row_init(&d->rows[*idx], id, nruns(d));
}

/* The row of id->key, added when new. Hash collisions probe on. */
static int row_of(struct diff *d, const struct row_id *id, size_t *idx)
{
	uint64_t h = hash_bytes(id->key, strlen(id->key));
	uint64_t *slot;

	for (;;) {
		slot = htab_get(&d->index, &h, NULL);
		if (!slot)
			return -ENOMEM;
		if (!*slot) {
			int err = add_row(d, id, idx);

			*slot = *idx + 1;
			return err;
		}
		if (!strcmp(d->rows[*slot - 1].key, id->key)) {
			*idx = *slot - 1;
			return 0;
		}
		h = h * 0x9e3779b97f4a7c15ULL + 1;
	}
}

static void add_value(struct diff_row *r, size_t run, double value, uint64_t count)
{
	r->v[run] += value;
	r->c[run] += count;
}

static double lock_value(const struct diff *d, const struct lock_row_val *v)
{
	return d->o.value == DIFF_VALUE_WAIT ? (double)v->total_ns : (double)v->count;
}

/* --- families ------------------------------------------------------------------------ */

static const struct {
	enum family family;
	const char *what;
	enum diff_view view;
} families[DIFF_FAMILY__COUNT] = {
	[DIFF_FAMILY_LOCKS] = { FAMILY_LOCKS, "kernel locks", DIFF_VIEW_LOCKS },
	[DIFF_FAMILY_ULOCKS] = { FAMILY_ULOCKS, "user locks", DIFF_VIEW_LOCKS },
	[DIFF_FAMILY_SAMPLE] = { FAMILY_SAMPLE, "CPU samples", DIFF_VIEW_HITS },
};

const char *diff_family_name(enum diff_family f)
{
	return family_name(families[f].family);
}

const char *diff_family_what(enum diff_family f)
{
	return families[f].what;
}

bool diff_family_in_view(enum diff_family f, enum diff_view v)
{
	return families[f].view == v;
}

bool diff_recorded(const struct profile *p, enum diff_family f)
{
	const char *mode;
	char key[64];

	/* The META key that says how it was recorded, in files of every version. */
	snprintf(key, sizeof(key), "probe.%s", family_legacy_name(diff_family_name(f)));
	mode = profile__meta(p, key);
	if (mode)	/* "tp_btf", "not recorded", "not attached: why" */
		return strncmp(mode, "not ", 4) != 0;
	if (f == DIFF_FAMILY_LOCKS)
		return p->nbuckets > 0;
	if (f == DIFF_FAMILY_ULOCKS)
		return profile__ltable(p, TBL_ULOCKS) != NULL;
	return p->nsample_buckets > 0;
}

void diff_families(const struct diff_run *runs, size_t nb, size_t np, struct diff_family_runs *out)
{
	size_t i;
	int f;

	for (f = 0; f < DIFF_FAMILY__COUNT; f++) {
		out[f] = (struct diff_family_runs){ 0, 0 };
		for (i = 0; i < nb + np; i++)
			if (diff_recorded(runs[i].p, f))
				(*(i < nb ? &out[f].nb : &out[f].np))++;
	}
}

bool diff_family_comparable(const struct diff_family_runs *r, size_t nb, size_t np)
{
	return (r->nb == nb && r->np == np) || (!r->nb && !r->np);
}

bool diff_nothing_comparable(const struct diff_family_runs *fam, size_t nb, size_t np,
			     enum diff_view v, enum diff_family *first)
{
	bool one_sided = false;
	int f;

	for (f = DIFF_FAMILY__COUNT - 1; f >= 0; f--) {
		if (!diff_family_in_view(f, v))
			continue;
		if (fam[f].nb == nb && fam[f].np == np)
			return false;
		if (!diff_family_comparable(&fam[f], nb, np)) {
			one_sided = true;
			*first = f;
		}
	}
	return one_sided;
}

void diff_family_text(char *buf, size_t len, enum diff_family f, const struct diff_family_runs *r,
		      size_t nb, size_t np)
{
	snprintf(buf, len, "%s (-e %s): recorded by %zu of %zu base run%s and %zu of %zu patched run%s",
		 families[f].what, diff_family_name(f), r->nb, nb, nb == 1 ? "" : "s", r->np, np,
		 np == 1 ? "" : "s");
}

/* A lock's family: its rows compare only when every run recorded it. */
static bool lock_compared(const struct diff *d, const struct lock_entry *e)
{
	enum diff_family f = lock_type_is_user(e->flags) ? DIFF_FAMILY_ULOCKS : DIFF_FAMILY_LOCKS;

	return diff_family_comparable(&d->fam[f], d->nb, d->np);
}

/*
 * Anonymous locks (no symbol, class or slab field) are matched across
 * runs by a function that waits on them. The busiest one flips from run
 * to run where two callers are close (evict 1451 / insert_inode_locked
 * 464 in one run, 744 / 662 in the next), and the lock would show as gone
 * under one name and new under another. So the functions with at least
 * half the waits of the lock's busiest are its candidates, and of those
 * the one with the most waits on anonymous locks over all compared runs
 * names it: the same function in every run where the candidates are the
 * same, whatever their order in each run.
 */
#define ANON_CANDIDATE_SHARE 0.5

static uint64_t func_hash(const char *norm)
{
	return hash_bytes(norm, strlen(norm));
}

static bool anon_entry(const struct lock_view *v, const struct lock_entry *e, char *norm, size_t len)
{
	diff_norm_lock(lock_view__str(v, e->name), norm, len);
	return !strncmp(norm, "[anon]", 6);
}

/* Waits on anonymous locks per function over all runs: rank, hash -> double. */
static int rank_anon_funcs(const struct lock_view *views, size_t n, struct htab *rank)
{
	char norm[512];
	size_t r, i, c;
	double *w;

	for (r = 0; r < n; r++) {
		for (i = 0; i < views[r].nlocks; i++) {
			const struct lock_entry *e = &views[r].locks[i];

			if (!anon_entry(&views[r], e, norm, sizeof(norm)))
				continue;
			for (c = 0; c < e->ncallers; c++) {
				diff_norm_func(lock_view__str(&views[r], e->callers[c].caller), norm, sizeof(norm));
				if (norm[0] == '[')	/* [stack lost] and the like */
					continue;
				if (!(w = htab_get(rank, &(uint64_t){ func_hash(norm) }, NULL)))
					return -ENOMEM;
				*w += e->callers[c].v.count;
			}
		}
	}
	return 0;
}

/* The waits of e from func: its callers are call sites, several per function. */
static double func_waits(const struct lock_view *v, const struct lock_entry *e, const char *func)
{
	char norm[512];
	double sum = 0;
	size_t c;

	for (c = 0; c < e->ncallers; c++) {
		diff_norm_func(lock_view__str(v, e->callers[c].caller), norm, sizeof(norm));
		if (!strcmp(norm, func))
			sum += e->callers[c].v.count;
	}
	return sum;
}

static bool better_candidate(const char *a, double rank_a, const char *b, double rank_b)
{
	return rank_a > rank_b || (rank_a == rank_b && strcmp(a, b) < 0);
}

/* "[anon]@function" of an anonymous lock, chosen as above; "[anon]" without callers. */
static void anon_key_name(const struct diff *d, const struct lock_view *v, const struct lock_entry *e,
			  char *out, size_t len)
{
	char norm[512], best[512] = "";
	double top = 0, best_rank = -1, waits, *rank;
	size_t c;

	for (c = 0; c < e->ncallers; c++) {
		diff_norm_func(lock_view__str(v, e->callers[c].caller), norm, sizeof(norm));
		if (norm[0] != '[' && (waits = func_waits(v, e, norm)) > top)
			top = waits;
	}
	for (c = 0; top > 0 && c < e->ncallers; c++) {
		diff_norm_func(lock_view__str(v, e->callers[c].caller), norm, sizeof(norm));
		if (norm[0] == '[' || func_waits(v, e, norm) < ANON_CANDIDATE_SHARE * top)
			continue;
		rank = htab_find(&d->anon_rank, &(uint64_t){ func_hash(norm) });
		if (!best[0] || better_candidate(norm, rank ? *rank : 0, best, best_rank)) {
			snprintf(best, sizeof(best), "%s", norm);
			best_rank = rank ? *rank : 0;
		}
	}
	if (best[0])
		snprintf(out, len, "[anon]@%s", best);
	else
		snprintf(out, len, "[anon]");
}

/* A lock and its callers; hold-only entries (no contended wait) are no row. */
static int add_lock(struct diff *d, const struct lock_view *v, const struct lock_entry *e, size_t run)
{
	char name[512], caller[512], key[1100];
	const char *type = lock_type_name(e->flags);
	size_t idx, cidx, i;
	int err;

	if (!e->v.count)
		return 0;
	if (anon_entry(v, e, name, sizeof(name)))
		anon_key_name(d, v, e, name, sizeof(name));
	snprintf(key, sizeof(key), "%s\x1f%s", name, type);
	err = row_of(d, &(struct row_id){ key, name, type, false, 0, 0 }, &idx);
	if (err)
		return err;
	add_value(&d->rows[idx], run, lock_value(d, &e->v), e->v.count);
	for (i = 0; i < e->ncallers; i++) {
		const struct lock_part *c = &e->callers[i];

		if (!c->v.count)
			continue;
		diff_norm_func(lock_view__str(v, c->caller), caller, sizeof(caller));
		snprintf(key, sizeof(key), "%zu\x1f%s", idx, caller);
		err = row_of(d, &(struct row_id){ key, caller, "", false, 1, idx }, &cidx);
		if (err)
			return err;
		add_value(&d->rows[cidx], run, lock_value(d, &c->v), c->v.count);
	}
	return 0;
}

static int add_lock_run(struct diff *d, const struct lock_view *v, size_t run)
{
	struct lock_row_val total = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; !err && i < v->nlocks; i++) {
		if (!lock_compared(d, &v->locks[i]))
			continue;
		err = add_lock(d, v, &v->locks[i], run);
		total.count += v->locks[i].v.count;
		total.total_ns += v->locks[i].v.total_ns;
	}
	if (!err)
		add_value(&d->total, run, lock_value(d, &total), total.count);
	return err;
}

/* Every run's lock view at once: anonymous locks are named over all of them. */
static int add_lock_runs(struct diff *d)
{
	struct lock_filter f = { .pid = -1 };
	struct lock_view *views = calloc(nruns(d), sizeof(*views));
	size_t i, built = 0;
	int err = views ? 0 : -ENOMEM;

	for (; !err && built < nruns(d); built++)
		err = lock_view__build(&views[built], d->runs[built].p, &f);
	if (err && built)
		built--;	/* the failed build freed its own view */
	if (!err)
		err = rank_anon_funcs(views, nruns(d), &d->anon_rank);
	for (i = 0; !err && i < nruns(d); i++)
		err = add_lock_run(d, &views[i], i);
	for (i = 0; i < built; i++)
		lock_view__free(&views[i]);
	free(views);
	return err;
}

/* A user function is matched within its file, by the file's name: paths may differ. */
static const char *module_key(const struct hit *h)
{
	const char *slash = strrchr(h->module, '/');

	return h->kernel || !slash ? h->module : slash + 1;
}

static int add_hit(struct diff *d, const struct hit *h, size_t run)
{
	char name[512], key[1100];
	const char *module = module_key(h);
	size_t idx;
	int err;

	diff_norm_func(h->function, name, sizeof(name));
	snprintf(key, sizeof(key), "%c\x1f%s\x1f%s", h->kernel ? 'k' : 'u', module, name);
	err = row_of(d, &(struct row_id){ key, name, module, h->kernel, 0, 0 }, &idx);
	if (!err)
		add_value(&d->rows[idx], run, (double)h->samples, h->samples);
	return err;
}

static int add_hits_run(struct diff *d, size_t run)
{
	struct hits_filter f = { .pid = -1 };
	struct hits_view v;
	size_t i;
	int err;

	if (!diff_family_comparable(&d->fam[DIFF_FAMILY_SAMPLE], d->nb, d->np))
		return 0;
	err = hits_view__build(&v, d->runs[run].p, &f, false);

	for (i = 0; !err && i < v.n; i++)
		err = add_hit(d, &v.hits[i], run);
	if (!err)
		add_value(&d->total, run, (double)v.total, v.total);
	hits_view__free(&v);
	return err;
}

/* --- statistics -------------------------------------------------------------------- */

double diff_rate(const struct diff *d, const struct diff_row *r, size_t run)
{
	return r->v[run] / d->secs[run];
}

static void sum_side(const struct diff *d, const struct diff_row *r, size_t from, size_t n,
		     struct diff_sum *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		d->scratch[i] = diff_rate(d, r, from + i);
		s->total += r->v[from + i];
		s->count += r->c[from + i];
	}
	s->mean = stats_mean(d->scratch, n);
	s->sd = n > 1 ? stats_sd(d->scratch, n) : NAN;
}

static double side_secs(const struct diff *d, size_t from, size_t n)
{
	double t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t += d->secs[from + i];
	return t;
}

/*
 * One side on the log scale: log((value + half an event) / seconds) per
 * run, so that a run without the row stays finite; the variance is never
 * taken below counting noise, 1 / (events + 1/2) a run, the delta-method
 * variance of the log of a Poisson count (of a sum of equal waits, a
 * lower bound for unequal ones).
 */
static void log_side(const struct diff *d, const struct diff_row *r, size_t from, size_t n,
		     double unit, double *mean, double *var)
{
	double floor = 0, sd;
	size_t i;

	for (i = 0; i < n; i++) {
		d->scratch[i] = log((r->v[from + i] + unit / 2) / d->secs[from + i]);
		floor += 1 / (r->c[from + i] + 0.5);
	}
	*mean = stats_mean(d->scratch, n);
	sd = stats_sd(d->scratch, n);
	*var = fmax(sd * sd, floor / n);
}

static double welch_p(const struct diff *d, const struct diff_row *r)
{
	uint64_t events = r->base.count + r->patched.count;
	double unit = events ? (r->base.total + r->patched.total) / events : 1;
	double mb, vb, mp, vp;
	struct welch w;

	if (!(unit > 0))
		unit = 1;
	log_side(d, r, 0, d->nb, unit, &mb, &vb);
	log_side(d, r, d->nb, d->np, unit, &mp, &vp);
	stats_welch_moments(mb, vb, d->nb, mp, vp, d->np, &w);
	return w.p;
}

static double mwu_p(const struct diff *d, const struct diff_row *r)
{
	double *x = calloc(nruns(d), sizeof(*x)), u, p = NAN;
	size_t i;

	if (!x)
		return NAN;
	for (i = 0; i < nruns(d); i++)
		x[i] = diff_rate(d, r, i);
	if (stats_mwu(x, d->nb, x + d->nb, d->np, &u, &p))
		p = NAN;
	free(x);
	return p;
}

static double row_p(const struct diff *d, const struct diff_row *r)
{
	switch (d->test) {
	case DIFF_TEST_POISSON:
		return stats_poisson2(r->base.count, side_secs(d, 0, d->nb),
				      r->patched.count, side_secs(d, d->nb, d->np));
	case DIFF_TEST_MWU:
		return mwu_p(d, r);
	default:
		return welch_p(d, r);
	}
}

static void compute_row(struct diff *d, struct diff_row *r)
{
	sum_side(d, r, 0, d->nb, &r->base);
	sum_side(d, r, d->nb, d->np, &r->patched);
	r->base.share = d->total.base.mean > 0 ? 100 * r->base.mean / d->total.base.mean : NAN;
	r->patched.share = d->total.patched.mean > 0 ? 100 * r->patched.mean / d->total.patched.mean : NAN;
	r->delta = r->patched.mean - r->base.mean;
	r->pct = r->base.mean > 0 ? 100 * r->delta / r->base.mean : NAN;
	r->status = DIFF_CHANGED;	/* a TOTAL of nothing on both sides, too */
	if (!r->base.count && r->patched.count)
		r->status = DIFF_NEW;
	else if (r->base.count && !r->patched.count)
		r->status = DIFF_GONE;
	r->p = row_p(d, r);
}

/*
 * Adjust the p-values of one family among themselves: the locks or the
 * functions (parent SIZE_MAX), or the callers of one lock. A caller is
 * marked only when its lock is: callers say where a change happened, so
 * a lock's many callers do not dilute the test of the lock itself.
 */
static int adjust_family(struct diff *d, size_t parent, double *p, size_t *idx)
{
	size_t i, n = 0;

	for (i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (parent == SIZE_MAX ? r->depth != 0 : !r->depth || r->parent != parent)
			continue;
		idx[n] = i;
		p[n++] = r->p;
	}
	if (stats_adjust(p, p, n, d->o.adjust))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct diff_row *r = &d->rows[idx[i]];

		r->q = p[i];
		r->significant = !isnan(p[i]) && p[i] <= d->o.alpha &&
				 (!r->depth || d->rows[r->parent].significant);
		d->ntested += parent == SIZE_MAX && !isnan(p[i]);
	}
	return 0;
}

static int adjust(struct diff *d)
{
	double *p = calloc(d->nrows ? d->nrows : 1, sizeof(*p));
	size_t *idx = calloc(d->nrows ? d->nrows : 1, sizeof(*idx)), i;
	int err = p && idx ? adjust_family(d, SIZE_MAX, p, idx) : -ENOMEM;

	for (i = 0; !err && d->o.view == DIFF_VIEW_LOCKS && i < d->nrows; i++)
		if (!d->rows[i].depth)
			err = adjust_family(d, i, p, idx);
	free(p);
	free(idx);
	d->total.q = d->total.p;
	d->total.significant = !isnan(d->total.p) && d->total.p <= d->o.alpha;
	return err;
}

/* --- order ---------------------------------------------------------------------------- */

static const struct diff_row *top_of(const struct diff *d, const struct diff_row *r)
{
	return r->depth ? &d->rows[r->parent] : r;
}

/* Largest absolute change first; equal changes by name, for a stable order. */
static int cmp_change(const struct diff_row *a, const struct diff_row *b)
{
	double x = fabs(a->delta), y = fabs(b->delta);
	int c;

	if (x != y)
		return x > y ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->key, b->key);
}

static int cmp_order(const void *pa, const void *pb, void *arg)
{
	const struct diff *d = arg;
	const struct diff_row *a = &d->rows[*(const size_t *)pa], *b = &d->rows[*(const size_t *)pb];
	const struct diff_row *ta = top_of(d, a), *tb = top_of(d, b);

	if (ta != tb)
		return cmp_change(ta, tb);
	if (a->depth != b->depth)
		return a->depth - b->depth;	/* the lock, then its callers */
	return cmp_change(a, b);
}

static int make_order(struct diff *d)
{
	size_t i;

	d->order = calloc(d->nrows ? d->nrows : 1, sizeof(*d->order));
	if (!d->order)
		return -ENOMEM;
	for (i = 0; i < d->nrows; i++)
		d->order[i] = i;
	qsort_r(d->order, d->nrows, sizeof(*d->order), cmp_order, d);
	return 0;
}

/* --- the workload's figure -------------------------------------------------------------- */

static double meta_number(const struct profile *p, const char *key)
{
	const char *s = profile__meta(p, key);
	char *end;
	double v;

	if (!s || !*s)
		return NAN;
	v = strtod(s, &end);
	return *end || !isfinite(v) ? NAN : v;
}

static void metric_side(const double *v, size_t n, size_t *count, double *mean, double *sd,
			double *tmp)
{
	size_t i;

	for (i = *count = 0; i < n; i++)
		if (!isnan(v[i]))
			tmp[(*count)++] = v[i];
	*mean = *count ? stats_mean(tmp, *count) : NAN;
	*sd = *count > 1 ? stats_sd(tmp, *count) : NAN;
}

static bool all_positive(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]) && v[i] <= 0)
			return false;
	return true;
}

/*
 * The change's (1 - alpha) interval, from the same moments and degrees of
 * freedom as the test: on logs it is a ratio's, back in percent.
 */
static void metric_interval(struct diff_metric *m, double x[2][2], double df, bool logs, double alpha)
{
	double dm = x[1][0] - x[0][0];
	double half = stats_t_quantile2(alpha, df) * sqrt(x[0][1] / m->nb + x[1][1] / m->np);

	if (logs) {
		m->lo = 100 * expm1(dm - half);
		m->hi = 100 * expm1(dm + half);
	} else {
		m->lo = 100 * (dm - half) / fabs(m->base_mean);
		m->hi = 100 * (dm + half) / fabs(m->base_mean);
	}
}

/* Welch on the runs' figures, on logs (a ratio) when every one is positive. */
static void metric_test(struct diff *d, struct diff_metric *m)
{
	double x[2][2];	/* mean, variance per side */
	bool logs = all_positive(m->v, nruns(d));
	size_t side, i, n;
	struct welch w;

	for (side = 0; side < 2; side++) {
		size_t from = side ? d->nb : 0, len = side ? d->np : d->nb;

		for (i = n = 0; i < len; i++)
			if (!isnan(m->v[from + i]))
				d->scratch[n++] = logs ? log(m->v[from + i]) : m->v[from + i];
		x[side][0] = stats_mean(d->scratch, n);
		x[side][1] = pow(stats_sd(d->scratch, n), 2);
	}
	stats_welch_moments(x[0][0], x[0][1], m->nb, x[1][0], x[1][1], m->np, &w);
	m->p = w.p;
	m->significant = m->p <= d->o.alpha;
	metric_interval(m, x, w.df, logs, d->o.alpha);
}

static int read_metric(struct diff *d)
{
	struct diff_metric *m = &d->metric;
	double *tmp = d->scratch;
	size_t i;

	m->p = m->pct = m->lo = m->hi = NAN;
	m->v = calloc(nruns(d), sizeof(*m->v));
	if (!m->v)
		return -ENOMEM;
	for (i = 0; i < nruns(d); i++) {
		const char *name = profile__meta(d->runs[i].p, "metric.name");

		m->v[i] = meta_number(d->runs[i].p, "metric.value");
		if (!isnan(m->v[i]) && !m->name)
			m->name = name && *name ? name : "metric";
		else if (!isnan(m->v[i]) && name && strcmp(name, m->name))
			pr_warn("%s: its metric is '%s', the first run's '%s'\n", d->runs[i].path, name, m->name);
	}
	metric_side(m->v, d->nb, &m->nb, &m->base_mean, &m->base_sd, tmp);
	metric_side(m->v + d->nb, d->np, &m->np, &m->patched_mean, &m->patched_sd, tmp);
	if (m->nb && m->np && m->base_mean)
		m->pct = 100 * (m->patched_mean - m->base_mean) / fabs(m->base_mean);
	if (m->nb >= 2 && m->np >= 2)
		metric_test(d, m);
	return 0;
}

/* --- the whole ---------------------------------------------------------------------------- */

static int choose_test(struct diff *d)
{
	bool several = d->nb >= 2 && d->np >= 2;

	d->test = d->o.test;
	if (d->test == DIFF_TEST_AUTO)
		d->test = several ? DIFF_TEST_WELCH : DIFF_TEST_POISSON;
	if ((d->test == DIFF_TEST_WELCH || d->test == DIFF_TEST_MWU) && !several)
		return -EINVAL;
	return 0;
}

static int read_durations(struct diff *d)
{
	size_t i;

	d->secs = calloc(nruns(d), sizeof(*d->secs));
	d->scratch = calloc(nruns(d), sizeof(*d->scratch));
	if (!d->secs || !d->scratch)
		return -ENOMEM;
	for (i = 0; i < nruns(d); i++) {
		d->secs[i] = profile__duration_ns(d->runs[i].p) / 1e9;
		if (!(d->secs[i] > 0)) {
			pr_err("%s: the profile holds no recorded time\n", d->runs[i].path);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * An anonymous lock has no identity across runs but its callers. When its
 * busiest caller changes completely (a lock of 100 and 10 waits from two
 * functions in one run, 10 and 100 in the other), the rule above names it
 * differently in each, and diff showed it gone under one name and new
 * under another. So, once every row is computed, a gone row and a new one,
 * anonymous, of the same type and with a caller function in common, are
 * one lock: they are merged, named as above, and computed again.
 */
static bool anon_row(const struct diff_row *r)
{
	return !r->depth && !strncmp(r->name, "[anon]@", 7);
}

/* Rows' callers as lists: first[lock row], next[caller row]; SIZE_MAX ends one. */
struct caller_lists {
	size_t *first, *next;
};

static bool shares_caller(const struct diff *d, const struct caller_lists *l, size_t a, size_t b)
{
	size_t i, j;

	for (i = l->first[a]; i != SIZE_MAX; i = l->next[i])
		for (j = l->first[b]; j != SIZE_MAX; j = l->next[j])
			if (d->rows[i].name[0] != '[' && !strcmp(d->rows[i].name, d->rows[j].name))
				return true;
	return false;
}

static void add_row_values(const struct diff *d, struct diff_row *to, const struct diff_row *from)
{
	size_t i;

	for (i = 0; i < nruns(d); i++)
		add_value(to, i, from->v[i], from->c[i]);
}

/* A caller row's key: its lock's row index, then its function. */
static int caller_key(struct diff_row *r, size_t lock)
{
	char *key;

	if (asprintf(&key, "%zu\x1f%s", lock, r->name) < 0)
		return -ENOMEM;
	free(r->key);
	r->key = key;
	return 0;
}

/*
 * Fold lock row b and its callers into row a, and compute a and its callers
 * again; b's rows are marked to drop (depth -1).
 */
static int merge_anon(struct diff *d, struct caller_lists *l, size_t a, size_t b)
{
	struct diff_row *ra = &d->rows[a], *rb = &d->rows[b];
	const double *rank_a = htab_find(&d->anon_rank, &(uint64_t){ func_hash(ra->name + 7) });
	const double *rank_b = htab_find(&d->anon_rank, &(uint64_t){ func_hash(rb->name + 7) });
	size_t i, j, next;
	char *swap;
	int err = 0;

	add_row_values(d, ra, rb);
	for (i = l->first[b]; i != SIZE_MAX; i = next) {
		next = l->next[i];
		for (j = l->first[a]; j != SIZE_MAX; j = l->next[j])
			if (!strcmp(d->rows[j].name, d->rows[i].name))
				break;
		if (j != SIZE_MAX) {
			add_row_values(d, &d->rows[j], &d->rows[i]);
			d->rows[i].depth = -1;
			continue;
		}
		d->rows[i].parent = a;
		err = err ? err : caller_key(&d->rows[i], a);
		l->next[i] = l->first[a];
		l->first[a] = i;
	}
	l->first[b] = SIZE_MAX;
	if (better_candidate(rb->name + 7, rank_b ? *rank_b : 0, ra->name + 7, rank_a ? *rank_a : 0)) {
		swap = ra->name;	/* the key (name, type) goes with it */
		ra->name = rb->name;
		rb->name = swap;
		swap = ra->key;
		ra->key = rb->key;
		rb->key = swap;
	}
	rb->depth = -1;
	compute_row(d, ra);
	for (i = l->first[a]; i != SIZE_MAX; i = l->next[i])
		compute_row(d, &d->rows[i]);
	return err;
}

/* Drop the rows merge_anon() marked, keeping the order and the callers' parents. */
static int drop_merged_rows(struct diff *d)
{
	size_t *to = calloc(d->nrows ? d->nrows : 1, sizeof(*to)), i, n = 0;

	if (!to)
		return -ENOMEM;
	for (i = 0; i < d->nrows; i++) {
		if (d->rows[i].depth < 0) {
			row_free(&d->rows[i]);
			continue;
		}
		to[i] = n;
		d->rows[n++] = d->rows[i];
	}
	for (i = 0; i < n; i++)
		if (d->rows[i].depth)
			d->rows[i].parent = to[d->rows[i].parent];
	d->nrows = n;
	free(to);
	/* The key index is of the rows as they were; nothing looks a key up after the build. */
	htab_free(&d->index);
	htab_init(&d->index, sizeof(uint64_t), sizeof(uint64_t));
	return 0;
}

static int pair_anon_rows(struct diff *d)
{
	size_t n = d->nrows ? d->nrows : 1, g, k, best, nnew = 0, merged = 0;
	struct caller_lists l = { calloc(n, sizeof(size_t)), calloc(n, sizeof(size_t)) };
	size_t *news = calloc(n, sizeof(size_t));
	int err = 0;

	if (!l.first || !l.next || !news) {
		err = -ENOMEM;
		goto out;
	}
	for (g = 0; g < d->nrows; g++)
		l.first[g] = l.next[g] = SIZE_MAX;
	for (g = d->nrows; g-- > 0;) {
		if (d->rows[g].depth == 1) {
			l.next[g] = l.first[d->rows[g].parent];
			l.first[d->rows[g].parent] = g;
		}
		if (anon_row(&d->rows[g]) && d->rows[g].status == DIFF_NEW)
			news[nnew++] = g;
	}
	for (g = 0; !err && g < d->nrows; g++) {
		if (!anon_row(&d->rows[g]) || d->rows[g].status != DIFF_GONE)
			continue;
		best = SIZE_MAX;
		for (k = 0; k < nnew; k++) {
			const struct diff_row *r = &d->rows[news[k]];

			if (r->depth < 0 || strcmp(r->detail, d->rows[g].detail) ||
			    !shares_caller(d, &l, g, news[k]))
				continue;
			if (best == SIZE_MAX || r->patched.count > d->rows[best].patched.count ||
			    (r->patched.count == d->rows[best].patched.count && news[k] < best))
				best = news[k];
		}
		if (best != SIZE_MAX) {
			err = merge_anon(d, &l, g, best);
			merged++;
		}
	}
	if (!err && merged)
		err = drop_merged_rows(d);
out:
	free(l.first);
	free(l.next);
	free(news);
	return err;
}

static int build_rows(struct diff *d)
{
	size_t i;
	int err = row_init(&d->total, &(struct row_id){ "", "TOTAL", "", false, 0, 0 }, nruns(d));

	if (!err && d->o.view == DIFF_VIEW_LOCKS)
		err = add_lock_runs(d);
	for (i = 0; !err && d->o.view != DIFF_VIEW_LOCKS && i < nruns(d); i++)
		err = add_hits_run(d, i);
	if (err)
		return err;
	compute_row(d, &d->total);	/* first: the rows' shares are of its means */
	for (i = 0; i < d->nrows; i++)
		compute_row(d, &d->rows[i]);
	return d->o.view == DIFF_VIEW_LOCKS ? pair_anon_rows(d) : 0;
}

int diff__build(struct diff *d, const struct diff_run *runs, size_t nb, size_t np,
		const struct diff_opts *o)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->o = *o;
	d->runs = runs;
	d->nb = nb;
	d->np = np;
	htab_init(&d->index, sizeof(uint64_t), sizeof(uint64_t));
	htab_init(&d->anon_rank, sizeof(uint64_t), sizeof(double));
	err = !nb || !np ? -EINVAL : choose_test(d);
	if (!err)
		err = read_durations(d);
	if (!err)
		diff_families(runs, nb, np, d->fam);
	if (!err)
		err = build_rows(d);
	if (!err)
		err = adjust(d);
	if (!err)
		err = make_order(d);
	if (!err)
		err = read_metric(d);
	if (err)
		diff__free(d);
	return err;
}

void diff__free(struct diff *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		row_free(&d->rows[i]);
	row_free(&d->total);
	free(d->rows);
	free(d->order);
	free(d->secs);
	free(d->scratch);
	free(d->metric.v);
	htab_free(&d->index);
	htab_free(&d->anon_rank);
	memset(d, 0, sizeof(*d));
}
