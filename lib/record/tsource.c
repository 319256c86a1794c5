// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one drainer of the families' BPF rows into counter tables
 * (lib/record/tsource.h): read each key, fold its per-CPU values, keep the
 * totals of the last drain, hand over what changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/contval.h"
#include "record/tsource.h"
#include "record/trim.h"

/* The kernel lays per-CPU values out 8-byte aligned. */
static size_t value_step(const struct tsource *s)
{
	return s->percpu ? (s->val_size + 7) & ~(size_t)7 : s->val_size;
}

static void find_stack(struct tsource *s)
{
	uint32_t i;

	s->stack_col = -1;
	for (i = 0; i < s->nkeys; i++) {
		uint8_t kind = s->schema->cols[i].kind;

		if (kind == TCOL_KEY_KSTACK || kind == TCOL_KEY_USTACK) {
			s->stack_col = i;
			s->stack_size = kind == TCOL_KEY_KSTACK ? sizeof(struct tstack) : sizeof(struct tustack);
			return;
		}
	}
}

/* A value column's index by name, or -1. */
static int value_col(const struct tsource *s, const char *name)
{
	uint32_t i;

	for (i = s->nkeys; name && i < s->schema->ncols; i++)
		if (!strcmp(s->schema->cols[i].name, name))
			return i - s->nkeys;
	return -1;
}

static void find_bounds(struct tsource *s)
{
	const struct tcol *c;
	uint32_t i;

	for (i = 0; i < s->nvals; i++) {
		c = &s->schema->cols[s->nkeys + i];
		s->total_of[i] = value_col(s, c->total);
		s->hist_of[i] = value_col(s, c->hist);
		if (s->hist_of[i] >= 0 && s->hist_of[i] + c->hist_slots > (int)s->nvals)
			s->hist_of[i] = -1;
	}
}

int tsource_init(struct tsource *s, int ncpus)
{
	uint32_t i;

	if (s->nkeys > s->schema->ncols)
		return -EINVAL;
	s->nvals = s->schema->ncols - s->nkeys;
	if (!s->values && s->val_size != s->nvals * sizeof(uint64_t))
		return -EINVAL;
	s->ncpus = s->percpu ? ncpus : 1;
	find_stack(s);
	htab_init(&s->last, s->key_size, s->nvals * sizeof(uint64_t));
	htab_init(&s->seen, s->key_size, sizeof(uint32_t));
	s->rows.rows.schema = s->schema;
	s->kinds = calloc(s->nvals + 1, 1);
	s->cur = calloc(4 * (size_t)s->nvals + 1, sizeof(uint64_t));	/* cur, delta, one CPU's, prev */
	s->delta = s->cur + s->nvals;
	s->total_of = calloc(2 * (size_t)s->nvals + 1, sizeof(int));
	s->buf = calloc(s->ncpus, value_step(s) + 1);
	mapscan_init(&s->scan, -1, s->key_size, value_step(s) * s->ncpus);
	if (!s->kinds || !s->cur || !s->buf || !s->total_of)
		return -ENOMEM;
	s->prev = s->cur + 3 * s->nvals;
	s->hist_of = s->total_of + s->nvals;
	for (i = 0; i < s->nvals; i++)
		s->kinds[i] = s->schema->cols[s->nkeys + i].kind;
	find_bounds(s);
	return 0;
}

/* Back to what the family filled in: tsource_init() may follow. */
void tsource_free(struct tsource *s)
{
	htab_free(&s->last);
	htab_free(&s->seen);
	trows_buf_free(&s->rows);
	free(s->stacks);
	free(s->kinds);
	free(s->cur);
	free(s->total_of);
	free(s->buf);
	mapscan_free(&s->scan);
	s->stacks = s->buf = NULL;
	s->kinds = NULL;
	s->cur = s->delta = s->prev = NULL;
	s->total_of = s->hist_of = NULL;
	s->stacks_cap = 0;
}

void tsource_merge(uint64_t *acc, uint64_t v, uint8_t kind)
{
	if (kind == TCOL_MAX)
		*acc = v > *acc ? v : *acc;
	else if (kind == TCOL_MIN)
		*acc = v && (!*acc || v < *acc) ? v : *acc;
	else
		*acc += v;
}

/* A value as the map holds it (every CPU's) folded into out (nvals). */
static void fold(struct tsource *s, const void *raw, uint64_t *out)
{
	uint64_t *one = s->delta + s->nvals;
	size_t step = value_step(s);
	uint32_t i;
	int cpu;

	memset(out, 0, s->nvals * sizeof(*out));
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		const char *v = (const char *)raw + cpu * step;

		if (s->values)
			s->values(v, one);
		else
			memcpy(one, v, s->nvals * sizeof(*one));
		for (i = 0; i < s->nvals; i++)
			tsource_merge(&out[i], one[i], s->kinds[i]);
	}
}

int tsource_read(struct tsource *s, const void *key, uint64_t *out)
{
	if (bpf_map__lookup_elem(s->map, key, s->key_size, s->buf, value_step(s) * s->ncpus, 0))
		return -errno;
	fold(s, s->buf, out);
	return 0;
}

static int add_row(struct tsource *s, const void *key, const uint64_t *delta)
{
	uint64_t *row = trows_add(&s->rows);
	void *stack = NULL;
	int err;

	if (!row)
		return -ENOMEM;
	if (s->stack_col >= 0) {
		if (grow_array(&s->stacks, &s->stacks_cap, s->rows.rows.n, s->stack_size))
			return -ENOMEM;
		stack = (char *)s->stacks + (s->rows.rows.n - 1) * s->stack_size;
		memset(stack, 0, s->stack_size);
	}
	if (s->keys && (err = s->keys(s->ctx, key, row, stack)))
		return err;
	memcpy(&row[s->nkeys], delta, s->nvals * sizeof(*delta));
	return 0;
}

/* The lowest (first) and highest (last) non-empty slot of a histogram in d, or -1. */
static void hist_ends(const struct tsource *s, const uint64_t *d, uint32_t i, int *first, int *last)
{
	int h = s->hist_of[i], n = s->schema->cols[s->nkeys + i].hist_slots, k;

	*first = *last = -1;
	for (k = 0; h >= 0 && k < n; k++) {
		if (!d[h + k])
			continue;
		if (*first < 0)
			*first = k;
		*last = k;
	}
}

/*
 * A MAX or MIN column that did not move since the last drain is the
 * row's since it began, not the interval's, whose sums are deltas: a
 * segment's max could be longer than its total. Where the column has a
 * total (and histogram), it is bounded as lib/record/contval.c bounds a
 * contention row's: at most the interval's total and its highest slot's
 * top, at least its lowest slot's bottom; 0 (none) without waits. One
 * that moved is exact: its wait ended in the interval.
 */
static void bound_extremes(struct tsource *s, const uint64_t *prev, const uint64_t *cur, uint64_t *d)
{
	int first, last, n;
	uint32_t i;

	for (i = 0; prev && i < s->nvals; i++) {
		if (s->total_of[i] < 0 || (s->kinds[i] == TCOL_MAX && cur[i] > prev[i]) ||
		    (s->kinds[i] == TCOL_MIN && cur[i] && (!prev[i] || cur[i] < prev[i])))
			continue;
		n = s->schema->cols[s->nkeys + i].hist_slots;
		hist_ends(s, d, i, &first, &last);
		if (!d[s->total_of[i]])
			d[i] = 0;
		else if (s->kinds[i] == TCOL_MAX && last >= 0 && log2_slot_top(last, n) < d[i])
			d[i] = log2_slot_top(last, n);
		else if (s->kinds[i] == TCOL_MIN && first >= 0 && log2_slot_bottom(first) > d[i])
			d[i] = log2_slot_bottom(first);
		if (s->kinds[i] == TCOL_MAX && d[i] > d[s->total_of[i]])
			d[i] = d[s->total_of[i]];
	}
}

/* A row when its values changed since the last drain. */
static int put(struct tsource *s, const void *key, const uint64_t *cur)
{
	const uint64_t *last = htab_find(&s->last, key);
	bool changed;
	int err;

	if (last)
		memcpy(s->prev, last, s->nvals * sizeof(*last));
	err = tdelta(&s->last, key, cur, s->delta, s->kinds, s->nvals, &changed);
	if (err || !changed)
		return err;
	bound_extremes(s, last ? s->prev : NULL, cur, s->delta);
	err = note_seen(&s->seen, key, s->drain);
	return err ? err : add_row(s, key, s->delta);
}

static int drain_key(struct tsource *s, const void *key, const void *raw, struct htab *extra)
{
	uint64_t *more;
	uint32_t i;

	fold(s, raw, s->cur);
	more = extra ? htab_find(extra, key) : NULL;
	if (more && more[0]) {
		for (i = 0; i < s->nvals; i++)
			tsource_merge(&s->cur[i], more[1 + i], s->kinds[i]);
		more[0] = 0;	/* used */
	}
	return put(s, key, s->cur);
}

/* What extra holds for keys the map has no row for. */
static int drain_extra(struct tsource *s, struct htab *extra)
{
	const void *key;
	uint64_t *more;
	size_t it = 0;
	int err = 0;

	while (!err && (more = htab_next(extra, &it, &key)))
		if (more[0])
			err = put(s, key, more + 1);
	return err;
}

/* Rows hold their stack's address once the array stops moving. */
static void set_stacks(struct tsource *s)
{
	size_t i;

	for (i = 0; s->stack_col >= 0 && i < s->rows.rows.n; i++)
		s->rows.rows.v[i * s->schema->ncols + s->stack_col] =
			tptr((char *)s->stacks + i * s->stack_size);
}

int tsource_drain(struct tsource *s, struct htab *extra)
{
	const void *key, *raw;
	int err;

	s->rows.rows.n = 0;
	s->nread = 0;
	s->scan.fd = bpf_map__fd(s->map);	/* the family may set map after tsource_init() */
	mapscan_start(&s->scan);
	while ((err = mapscan_next(&s->scan, &key, &raw)) > 0) {
		err = drain_key(s, key, raw, extra);
		s->nread++;
		if (err)
			break;
	}
	if (!err && extra)
		err = drain_extra(s, extra);
	set_stacks(s);
	return err;
}

int tsource_total(struct tsource *s, const uint64_t *totals)
{
	uint32_t zero = 0;

	if (s->key_size != sizeof(zero))
		return -EINVAL;
	s->rows.rows.n = 0;
	return put(s, &zero, totals);
}

/* The first value column's events between the last drain and the row's removal. */
static uint64_t late_events(const void *total, const void *deleted, void *ctx)
{
	struct tsource *s = ctx;
	uint64_t before = *(const uint64_t *)total;

	fold(s, deleted, s->cur);
	return s->cur[0] > before ? s->cur[0] - before : 0;
}

int tsource_trim(struct tsource *s, uint32_t before, uint64_t *late)
{
	if (!s->map || !s->nvals)
		return 0;
	return forget_older(&s->last, &s->seen, s->map, before, late_events, s, late);
}

unsigned tsource_fill(const struct tsource *s, uint32_t latest, uint32_t *before)
{
	uint32_t max = s->map ? bpf_map__max_entries(s->map) : 0;

	*before = 0;
	if (!max)
		return 0;
	*before = trim_cutoff(&s->seen, latest, max / 4);
	return s->last.count * 1000 / max;
}
