// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A top snapshot: the lock view and the hit list of the cumulative model
 * (view_locks.c, view_hits.c: exactly what report shows), each row
 * joined by name with the same row of the interval model. Strings
 * are copied into the snapshot's arena, so a snapshot outlives the models'
 * next interval and the drawing code never reads a model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/family_meta.h"
#include "base/htab.h"
#include "format/locktype.h"
#include "view/match.h"
#include "view/top_snap.h"
#include "view/view_hits.h"
#include "view/view_locks.h"
#include "view/view_tables.h"

/* --- the arena: one free for a whole snapshot ---------------------------- */

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	max_align_t data[];
};

#define ARENA_BLOCK	(64 * 1024)

static void *arena_alloc(struct top_snap *s, size_t n)
{
	struct arena_block *b = s->mem;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!b || b->size - b->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = s->mem;
		s->mem = b;
	}
	b->used += n;
	return memset((char *)b->data + b->used - n, 0, n);
}

static const char *arena_str(struct top_snap *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *p = arena_alloc(s, n);

	return p ? memcpy(p, str, n) : NULL;
}

void top_snap__free(struct top_snap *s)
{
	struct arena_block *b, *next;

	if (!s)
		return;
	for (b = s->mem; b; b = next) {
		next = b->next;
		free(b);
	}
	free(s);
}

/* --- figures ------------------------------------------------------------- */

double per_s(uint64_t v, uint64_t span_ns)
{
	return span_ns ? v * 1e9 / span_ns : 0;
}

double wait_pct(uint64_t wait_ns, uint64_t span_ns, unsigned int cpus)
{
	return span_ns && cpus ? 100.0 * wait_ns / ((double)span_ns * cpus) : 0;
}

uint64_t stat_avg(const struct top_stat *s)
{
	return s->avg_ns;
}

/* report's figures: the average as report has it, within min and max where a total saturated. */
static struct top_stat stat_of(const struct lock_row_val *v)
{
	return (struct top_stat){ v->count, v->total_ns, v->max_ns, row_avg(v) };
}

/* --- filters ----------------------------------------------------------------- */

/* An empty filter is none: NULL for the views' filters. */
static const char *filter_of(const char *pattern)
{
	return pattern[0] ? pattern : NULL;
}

static const struct {
	const char *name;
	size_t off;
} query_fields[] = {
	{ "lock", offsetof(struct top_query, lock) },
	{ "caller", offsetof(struct top_query, caller) },
	{ "comm", offsetof(struct top_query, comm) },
	{ "func", offsetof(struct top_query, func) },
	{ "key", offsetof(struct top_query, key) },
};

#define NFIELDS	(sizeof(query_fields) / sizeof(query_fields[0]))

static int set_field(struct top_query *q, const char *field, size_t flen, const char *value,
		     size_t vlen, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++) {
		if (strlen(query_fields[i].name) != flen || strncmp(query_fields[i].name, field, flen))
			continue;
		snprintf((char *)q + query_fields[i].off, sizeof(q->lock), "%.*s", (int)vlen, value);
		return 0;
	}
	snprintf(why, len, "unknown filter '%.*s' (lock, caller, comm, func, key)", (int)flen, field);
	return -EINVAL;
}

/* Words "field=GLOB"; a bare word filters bare_field. Empty text: no filter. */
int top_query__parse(struct top_query *q, const char *text, const char *bare_field, char *why, size_t len)
{
	struct top_query n = *q;
	const char *p = text;
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		((char *)&n + query_fields[i].off)[0] = '\0';
	while (*p) {
		size_t w = strcspn(p, " \t"), eq = strcspn(p, "=");
		int err;

		if (!w) {
			p++;
			continue;
		}
		if (eq < w)
			err = set_field(&n, p, eq, p + eq + 1, w - eq - 1, why, len);
		else
			err = set_field(&n, bare_field, strlen(bare_field), p, w, why, len);
		if (err)
			return err;
		p += w;
	}
	*q = n;
	return 0;
}

void top_query__describe(const struct top_query *q, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < NFIELDS && used < len; i++) {
		const char *v = (const char *)q + query_fields[i].off;

		if (v[0])
			used += snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
					 query_fields[i].name, v);
	}
}

/* --- locks ------------------------------------------------------------------- */

static uint64_t name_hash(const char *name, uint32_t flags)
{
	return hash_bytes(name, strlen(name)) ^ ((uint64_t)flags * 0x9e3779b97f4a7c15ULL);
}

/* The interval's entry of the lock named like e, or NULL. */
static const struct lock_entry *iv_lock(const struct lock_view *iv, const struct htab *index,
					const char *name, uint32_t flags)
{
	uint64_t h = name_hash(name, flags);
	const size_t *i = htab_find(index, &h);
	size_t j;

	if (i && iv->locks[*i].flags == flags && !strcmp(lock_view__str(iv, iv->locks[*i].name), name))
		return &iv->locks[*i];
	for (j = 0; i && j < iv->nlocks; j++)	/* a hash collision: look at them all */
		if (iv->locks[j].flags == flags && !strcmp(lock_view__str(iv, iv->locks[j].name), name))
			return &iv->locks[j];
	return NULL;
}

static const struct lock_part *iv_part(const struct lock_view *iv, const struct lock_entry *e,
				       const struct lock_part *parts, size_t n, const char *caller,
				       int32_t stack_id)
{
	size_t i;

	for (i = 0; e && i < n; i++)
		if (parts[i].stack_id == stack_id && !strcmp(lock_view__str(iv, parts[i].caller), caller))
			return &parts[i];
	return NULL;
}

static int copy_callers(struct top_snap *s, struct top_lock *l, const struct lock_view *cv,
			const struct lock_entry *e, const struct lock_view *iv, const struct lock_entry *ie)
{
	size_t i;

	uint64_t best = 0;

	l->callers = arena_alloc(s, (e->ncallers + 1) * sizeof(*l->callers));
	if (!l->callers)
		return -ENOMEM;
	for (i = 0; i < e->ncallers; i++) {
		const char *name = lock_view__str(cv, e->callers[i].caller);
		const struct lock_part *ip = ie ? iv_part(iv, ie, ie->callers, ie->ncallers, name, 0) : NULL;
		struct top_caller *c = &l->callers[l->ncallers++];

		c->name = arena_str(s, name);
		c->cum = stat_of(&e->callers[i].v);
		c->estimated = e->estimated || (ie && ie->estimated);
		if (ip)
			c->iv = stat_of(&ip->v);
		if (!c->name)
			return -ENOMEM;
		/* "[stack lost]" and the like only when no caller is known. */
		if (!l->caller || (l->caller[0] == '[' && c->name[0] != '[') ||
		    ((l->caller[0] == '[') == (c->name[0] == '[') && c->cum.total_ns > best)) {
			l->caller = c->name;
			best = c->cum.total_ns;
		}
	}
	return 0;
}

/* Kernel frames, or a user lock's user frames, as report --stacks names them. */
static int copy_frames(struct top_snap *s, struct top_stack *st, const struct lock_view *v,
		       const struct lock_part *part)
{
	const struct stack *k = profile__stack(v->p, part->stack_id);
	char sym[320];
	uint32_t i;

	if (!k)
		return 0;
	st->frames = arena_alloc(s, (k->nframes + 1) * sizeof(*st->frames));
	if (!st->frames)
		return -ENOMEM;
	for (i = 0; i < k->nframes; i++) {
		lock_view__frame(v, part, k->frames[i], sym, sizeof(sym));
		if (!(st->frames[i] = arena_str(s, sym)))
			return -ENOMEM;
	}
	st->nframes = k->nframes;
	return 0;
}

static int copy_stacks(struct top_snap *s, struct top_lock *l, const struct lock_view *cv,
		       const struct lock_entry *e, const struct lock_view *iv, const struct lock_entry *ie)
{
	size_t i;
	int err = 0;

	l->stacks = arena_alloc(s, (e->nstacks + 1) * sizeof(*l->stacks));
	if (!l->stacks)
		return -ENOMEM;
	for (i = 0; i < e->nstacks && !err; i++) {
		const char *caller = lock_view__str(cv, e->stacks[i].caller);
		const struct lock_part *ip = ie ? iv_part(iv, ie, ie->stacks, ie->nstacks, caller,
							  e->stacks[i].stack_id) : NULL;
		struct top_stack *st = &l->stacks[l->nstacks++];

		st->caller = arena_str(s, caller);
		st->cum = stat_of(&e->stacks[i].v);
		if (ip)
			st->iv = stat_of(&ip->v);
		err = st->caller ? copy_frames(s, st, cv, &e->stacks[i]) : -ENOMEM;
	}
	return err;
}

static bool is_detail(const struct top_query *q, const char *name, uint32_t flags)
{
	return q->detail && flags == q->detail_flags && !strcmp(name, q->detail_name);
}

static int copy_lock(struct top_snap *s, struct top_lock *l, const struct lock_view *cv,
		     const struct lock_entry *e, const struct lock_view *iv, const struct htab *index,
		     const struct top_query *q)
{
	const char *name = lock_view__str(cv, e->name);
	const struct lock_entry *ie = iv_lock(iv, index, name, e->flags);
	int err;

	l->name = arena_str(s, name);
	l->type = lock_type_name(e->flags);
	l->flags = e->flags;
	l->cum = stat_of(&e->v);
	if (ie)
		l->iv = stat_of(&ie->v);
	if (!l->name)
		return -ENOMEM;
	err = copy_callers(s, l, cv, e, iv, ie);
	if (!err && is_detail(q, name, e->flags)) {
		l->detailed = true;
		s->detail = l;
		err = copy_stacks(s, l, cv, e, iv, ie);
	}
	return err;
}

static void lock_filter_of(const struct top_query *q, struct lock_filter *f)
{
	*f = (struct lock_filter){ .pid = -1, .waits_only = true };
	f->lock = filter_of(q->lock);
	f->caller = filter_of(q->caller);
	f->comm = filter_of(q->comm);
}

static int build_locks(struct top_snap *s, const struct top_model *m, const struct top_query *q)
{
	struct lock_view cv, iv;
	struct lock_filter f;
	struct htab index;
	size_t i;
	int err;

	lock_filter_of(q, &f);
	err = lock_view__build(&cv, m->cum, &f);
	if (err)
		return err;
	err = lock_view__build_named(&iv, m->iv, m->cum, &f);
	if (err) {
		lock_view__free(&cv);
		return err;
	}
	htab_init(&index, sizeof(uint64_t), sizeof(size_t));
	for (i = 0; i < iv.nlocks && !err; i++) {
		uint64_t h = name_hash(lock_view__str(&iv, iv.locks[i].name), iv.locks[i].flags);
		size_t *slot = htab_get(&index, &h, NULL);

		if (!slot)
			err = -ENOMEM;
		else
			*slot = i;
	}
	s->locks = err ? NULL : arena_alloc(s, (cv.nlocks + 1) * sizeof(*s->locks));
	if (!err && !s->locks)
		err = -ENOMEM;
	/* Locks known only from hold tables have no wait to show here. */
	for (i = 0; i < cv.nlocks && !err; i++)
		if (cv.locks[i].v.count)
			err = copy_lock(s, &s->locks[s->nlocks++], &cv, &cv.locks[i], &iv, &index, q);
	s->locks_cum = stat_of(&cv.total);
	s->locks_iv = stat_of(&iv.total);
	htab_free(&index);
	lock_view__free(&iv);
	lock_view__free(&cv);
	return err;
}

/* --- functions --------------------------------------------------------------- */

static uint64_t hit_hash(const struct hit *h)
{
	return hash_bytes(h->function, strlen(h->function)) ^ hash_bytes(h->module, strlen(h->module)) ^ h->kernel;
}

static bool same_hit(const struct hit *a, const struct hit *b)
{
	return a->kernel == b->kernel && !strcmp(a->function, b->function) && !strcmp(a->module, b->module);
}

static uint64_t iv_hits(const struct hits_view *iv, const struct htab *index, const struct hit *h)
{
	uint64_t k = hit_hash(h), sum = 0;
	const size_t *i = htab_find(index, &k);
	size_t j;

	if (i && same_hit(&iv->hits[*i], h))
		return iv->hits[*i].samples;
	for (j = 0; i && j < iv->n; j++)	/* a collision, or one name in several rows */
		if (same_hit(&iv->hits[j], h))
			sum += iv->hits[j].samples;
	return sum;
}

static int copy_funcs(struct top_snap *s, const struct hits_view *cv, const struct hits_view *iv,
		      const struct htab *index, const struct top_query *q)
{
	size_t i;

	s->funcs = arena_alloc(s, (cv->n + 1) * sizeof(*s->funcs));
	if (!s->funcs)
		return -ENOMEM;
	for (i = 0; i < cv->n; i++) {
		const struct hit *h = &cv->hits[i];
		struct top_func *f;

		if (!name_matches(q->func, h->function))
			continue;
		f = &s->funcs[s->nfuncs++];
		f->function = arena_str(s, h->function);
		f->module = arena_str(s, h->module);
		f->kernel = h->kernel;
		f->cum = h->samples;
		f->iv = iv_hits(iv, index, h);
		s->samples_cum += f->cum;
		s->samples_iv += f->iv;
		s->ksamples_cum += f->kernel ? f->cum : 0;
		s->ksamples_iv += f->kernel ? f->iv : 0;
		if (!f->function || !f->module)
			return -ENOMEM;
	}
	return 0;
}

static int build_funcs(struct top_snap *s, const struct top_model *m, const struct top_query *q)
{
	struct hits_filter f = { .pid = -1, .comm = filter_of(q->comm) };
	struct family_status sample;
	struct hits_view cv, iv;
	struct htab index;
	size_t i;
	int err;

	family_meta_read(m->cum, family_name(FAMILY_SAMPLE), &sample);
	s->has_samples = sample.state == FSTATE_ATTACHED;
	err = hits_view__build(&cv, m->cum, &f, false);
	if (err)
		return err;
	err = hits_view__build(&iv, m->iv, &f, false);
	if (err) {
		hits_view__free(&cv);
		return err;
	}
	htab_init(&index, sizeof(uint64_t), sizeof(size_t));
	for (i = 0; i < iv.n && !err; i++) {
		uint64_t k = hit_hash(&iv.hits[i]);
		size_t *slot = htab_get(&index, &k, NULL);

		if (!slot)
			err = -ENOMEM;
		else
			*slot = i;
	}
	if (!err)
		err = copy_funcs(s, &cv, &iv, &index, q);
	htab_free(&index);
	hits_view__free(&iv);
	hits_view__free(&cv);
	return err;
}

/* --- the other families' tables ------------------------------------------------ */

static const char *key_text(struct top_snap *s, const struct profile *p, const struct ptable *t,
			    const uint64_t *row, uint32_t c)
{
	char buf[256];

	return arena_str(s, table_view__key(p, t, row, c, buf, sizeof(buf)));
}

/* A table row, its keys as text: only for the rows shown, or filtered on. */
static int copy_trow(struct top_snap *s, struct top_table *tt, struct top_trow *r, const struct profile *p,
		     const struct ptable *t)
{
	uint32_t c, k = 0;

	r->keys = arena_alloc(s, (tt->nkeys + 1) * sizeof(*r->keys));
	if (!r->keys)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++)
		if (tcol_is_key(t->kinds[c]) && !(r->keys[k++] = key_text(s, p, t, r->src, c)))
			return -ENOMEM;
	r->src = NULL;
	return 0;
}

/* The values of a row, split from its keys, which wait in src. */
static int row_values(struct top_snap *s, const struct top_table *tt, const struct ptable *t,
		      struct top_trow *r, const uint64_t *cum, const uint64_t *iv)
{
	uint32_t c, v = 0;

	r->iv = arena_alloc(s, (tt->nvals + 1) * sizeof(*r->iv));
	r->cum = arena_alloc(s, (tt->nvals + 1) * sizeof(*r->cum));
	if (!r->iv || !r->cum)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++) {
		if (tcol_is_key(t->kinds[c]))
			continue;
		r->cum[v] = cum[c];
		r->iv[v++] = iv ? iv[c] : 0;
	}
	r->src = cum;
	return 0;
}

static bool trow_ok(const struct top_query *q, const struct top_trow *r, uint32_t nkeys)
{
	uint32_t k;

	if (!q->key[0])
		return true;
	for (k = 0; k < nkeys; k++)
		if (name_matches(q->key, r->keys[k]))
			return true;
	return false;
}

static int first_sum(const struct top_table *t)
{
	uint32_t v;

	for (v = 0; v < t->nvals; v++)
		if (t->val_kinds[v] == TCOL_SUM)
			return v;
	return t->nvals ? 0 : -1;
}

static int trow_col;

static int cmp_trow(const void *a, const void *b)
{
	const struct top_trow *x = a, *y = b;

	if (trow_col < 0)
		return 0;
	if (x->iv[trow_col] != y->iv[trow_col])
		return x->iv[trow_col] > y->iv[trow_col] ? -1 : 1;
	if (x->cum[trow_col] != y->cum[trow_col])
		return x->cum[trow_col] > y->cum[trow_col] ? -1 : 1;
	return 0;
}

static int table_schema(struct top_snap *s, struct top_table *tt, const struct ptable *t)
{
	uint32_t c, k = 0, v = 0;
	uint8_t *kinds;

	tt->name = arena_str(s, t->name);
	for (c = 0; c < t->ncols; c++)
		tcol_is_key(t->kinds[c]) ? tt->nkeys++ : tt->nvals++;
	tt->key_names = arena_alloc(s, (tt->nkeys + 1) * sizeof(char *));
	tt->val_names = arena_alloc(s, (tt->nvals + 1) * sizeof(char *));
	tt->val_kinds = kinds = arena_alloc(s, tt->nvals + 1);
	tt->rows = arena_alloc(s, (t->rows.count + 1) * sizeof(*tt->rows));
	if (!tt->name || !tt->key_names || !tt->val_names || !kinds || !tt->rows)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++) {
		struct tshown sh;

		table_view__col(t, c, &sh);
		if (tcol_is_key(t->kinds[c])) {
			tt->key_names[k++] = arena_str(s, sh.name);
		} else {
			kinds[v] = t->kinds[c];
			tt->val_names[v++] = arena_str(s, sh.name);
		}
	}
	return 0;
}

/* Only what is shown: the busiest rows, and a key filter's matches. */
static int keep_rows(struct top_snap *s, struct top_table *tt, const struct profile *p,
		     const struct ptable *t, const struct top_query *q)
{
	size_t i, kept = 0;
	int err = 0;

	trow_col = first_sum(tt);
	qsort(tt->rows, tt->nrows, sizeof(*tt->rows), cmp_trow);
	for (i = 0; i < tt->nrows && kept < TOP_TABLE_ROWS && !err; i++) {
		err = copy_trow(s, tt, &tt->rows[i], p, t);
		if (!err && trow_ok(q, &tt->rows[i], tt->nkeys)) {
			if (q->key[0])
				tt->total_rows++;
			tt->rows[kept++] = tt->rows[i];
		}
	}
	for (; q->key[0] && i < tt->nrows && !err; i++) {	/* counted, not shown */
		err = copy_trow(s, tt, &tt->rows[i], p, t);
		tt->total_rows += !err && trow_ok(q, &tt->rows[i], tt->nkeys);
	}
	if (!q->key[0])
		tt->total_rows = tt->nrows;
	tt->nrows = kept;
	return err;
}

static int copy_table(struct top_snap *s, const struct top_model *m, const struct ptable *t,
		      const struct top_query *q)
{
	const struct ptable *it = profile__table(m->iv, t->name);
	struct top_table *tt = &s->tables[s->ntables];
	const uint64_t *row, *ivrow;
	uint64_t key[64] = { 0 };
	size_t pos = 0;
	uint32_t c, k;
	int err = table_schema(s, tt, t);

	while (!err && (row = htab_next(&t->rows, &pos, NULL))) {
		for (c = 0, k = 0; c < t->ncols && k < 64; c++)
			if (tcol_is_key(t->kinds[c]))
				key[k++] = row[c];
		ivrow = it ? htab_find(&it->rows, key) : NULL;
		err = row_values(s, tt, t, &tt->rows[tt->nrows++], row, ivrow);
	}
	if (!err)
		err = keep_rows(s, tt, m->cum, t, q);
	s->ntables++;
	return err;
}

static int build_tables(struct top_snap *s, const struct top_model *m, const struct top_query *q)
{
	size_t i;
	int err = 0;

	s->tables = arena_alloc(s, (m->cum->ntables + 1) * sizeof(*s->tables));
	if (!s->tables)
		return -ENOMEM;
	for (i = 0; i < m->cum->ntables && !err; i++)
		err = copy_table(s, m, &m->cum->tables[i], q);
	return err;
}

/* --- the snapshot ---------------------------------------------------------------- */

static int copy_meta(struct top_snap *s, const struct top_model *m)
{
	const char *cpus = profile__meta(m->cum, "cpus");

	s->cpus = cpus ? atoi(cpus) : 1;
	s->target = arena_str(s, profile__meta(m->cum, "target") ?: "");
	s->command = arena_str(s, profile__meta(m->cum, "command") ?: "");
	s->per_task = !strcmp(profile__meta(m->cum, "per_task") ?: "0", "1");
	s->elapsed_ns = m->last_t1;
	s->iv_ns = m->iv_any ? m->iv_t1 - m->iv_t0 : 0;
	s->cum_ns = m->last_t1 - m->cum_t0;
	s->lost_cum = top_model__lost(m) - m->lost_at_reset;
	s->lost_iv = top_model__lost(m) - m->lost_at_iv;
	s->probe_pct = NAN;
	return s->target && s->command ? 0 : -ENOMEM;
}

int top_snap__build(struct top_snap **out, const struct top_model *m, const struct top_query *q)
{
	struct top_snap *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	if (!m->have_hdr) {
		*out = s;	/* nothing read yet: an empty snapshot */
		return 0;
	}
	err = copy_meta(s, m);
	if (!err)
		err = build_locks(s, m, q);
	if (!err)
		err = build_funcs(s, m, q);
	if (!err && q->tables)
		err = build_tables(s, m, q);
	if (err) {
		top_snap__free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* --- sorting ------------------------------------------------------------------------ */

static const char *const lock_key_names[TK__COUNT] = {
	[TK_CONT_RATE] = "contended", [TK_WAIT_RATE] = "wait", [TK_AVG] = "avg",
	[TK_MAX] = "max", [TK_CUM_CONT] = "total_contended", [TK_CUM_WAIT] = "total_wait",
	[TK_CUM_AVG] = "total_avg", [TK_CUM_MAX] = "total_max", [TK_NAME] = "name",
};

static const char *const func_key_names[TF__COUNT] = {
	[TF_RATE] = "hits", [TF_CUM] = "total_hits", [TF_NAME] = "function",
};

const char *top_lock_key_name(enum top_lock_key k)
{
	return k < TK__COUNT ? lock_key_names[k] : "?";
}

const char *top_func_key_name(enum top_func_key k)
{
	return k < TF__COUNT ? func_key_names[k] : "?";
}

int top_sort_parse(const char *s, int *lock_key, int *func_key)
{
	int i;

	for (i = 0; i < TK__COUNT; i++)
		if (!strcmp(s, lock_key_names[i])) {
			*lock_key = i;
			return 0;
		}
	for (i = 0; i < TF__COUNT; i++)
		if (!strcmp(s, func_key_names[i])) {
			*func_key = i;
			return 0;
		}
	return -EINVAL;
}

static uint64_t lock_value(const struct top_lock *l, enum top_lock_key k)
{
	switch (k) {
	case TK_CONT_RATE: return l->iv.count;
	case TK_WAIT_RATE: return l->iv.total_ns;
	case TK_AVG: return stat_avg(&l->iv);
	case TK_MAX: return l->iv.max_ns;
	case TK_CUM_CONT: return l->cum.count;
	case TK_CUM_WAIT: return l->cum.total_ns;
	case TK_CUM_AVG: return stat_avg(&l->cum);
	case TK_CUM_MAX: return l->cum.max_ns;
	default: return 0;
	}
}

static enum top_lock_key lock_key;

/* Largest first; ties (an idle interval) by the cumulative wait, then by name. */
static int cmp_lock(const void *a, const void *b)
{
	const struct top_lock *x = a, *y = b;
	uint64_t u = lock_value(x, lock_key), v = lock_value(y, lock_key);
	int c;

	if (u != v)
		return u > v ? -1 : 1;
	if (lock_key != TK_NAME && x->cum.total_ns != y->cum.total_ns)
		return x->cum.total_ns > y->cum.total_ns ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->flags > y->flags) - (x->flags < y->flags);
}

static int cmp_caller(const void *a, const void *b)
{
	const struct top_caller *x = a, *y = b;

	if (x->iv.total_ns != y->iv.total_ns)
		return x->iv.total_ns > y->iv.total_ns ? -1 : 1;
	if (x->cum.total_ns != y->cum.total_ns)
		return x->cum.total_ns > y->cum.total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_stack(const void *a, const void *b)
{
	const struct top_stack *x = a, *y = b;

	if (x->cum.total_ns != y->cum.total_ns)
		return x->cum.total_ns > y->cum.total_ns ? -1 : 1;
	return strcmp(x->caller, y->caller);
}

void top_snap__sort_locks(struct top_snap *s, enum top_lock_key k)
{
	size_t i;

	lock_key = k;
	if (s->nlocks)
		qsort(s->locks, s->nlocks, sizeof(*s->locks), cmp_lock);
	s->detail = NULL;
	for (i = 0; i < s->nlocks; i++) {
		if (s->locks[i].ncallers)
			qsort(s->locks[i].callers, s->locks[i].ncallers, sizeof(struct top_caller), cmp_caller);
		if (s->locks[i].nstacks)
			qsort(s->locks[i].stacks, s->locks[i].nstacks, sizeof(struct top_stack), cmp_stack);
		if (s->locks[i].detailed)
			s->detail = &s->locks[i];
	}
}

static enum top_func_key func_key;

static int cmp_func(const void *a, const void *b)
{
	const struct top_func *x = a, *y = b;
	uint64_t u = func_key == TF_RATE ? x->iv : x->cum, v = func_key == TF_RATE ? y->iv : y->cum;
	int c;

	if (func_key != TF_NAME && u != v)
		return u > v ? -1 : 1;
	if (func_key != TF_NAME && x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->module, y->module);
}

void top_snap__sort_funcs(struct top_snap *s, enum top_func_key k)
{
	func_key = k;
	if (s->nfuncs)
		qsort(s->funcs, s->nfuncs, sizeof(*s->funcs), cmp_func);
}
