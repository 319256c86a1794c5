// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the collector does in user space, without a kernel: the counter
 * table drainer (lib/record/tsource.c) over fake BPF maps, and the histogram
 * slot shared with the BPF programs (bpf/hist.h).
 *
 * The fake maps stand in for libbpf's: this file defines bpf_map__fd(),
 * bpf_map_lookup_batch(), bpf_map_get_next_key(), bpf_map_lookup_elem()
 * and bpf_map__lookup_elem(), which the drainer's calls (and
 * lib/record/mapscan.c's) bind to instead of the library's. And the
 * contention rows' packed key fields (bpf/contention.h), which BPF writes
 * and the collector reads back, and their values' intervals
 * (lib/record/contval.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "format/consts.h"
#include "contention.h"
#include "record/contval.h"
#include "record/mapscan.h"
#include "record/tsource.h"

#define FAKE_KEYS	8
#define FAKE_VAL	256	/* bytes of all CPUs' values of one key */
#define FAKE_FD		1000
#define FAKE_CHUNK	3	/* entries a batch hands out: drains take several */

struct fake_map {
	size_t n;
	uint32_t keys[FAKE_KEYS];
	uint8_t vals[FAKE_KEYS][FAKE_VAL];
	bool gone[FAKE_KEYS];	/* listed, but deleted before the lookup */
	size_t val_size;	/* a value as the kernel lays it out (all CPUs) */
};

static struct fake_map *fd_map;	/* the map bpf_map__fd() last gave out */

static struct fake_map *fake(const struct bpf_map *map)
{
	return (struct fake_map *)map;
}

int bpf_map__fd(const struct bpf_map *map)
{
	fd_map = fake(map);
	return FAKE_FD;
}

static int fake_fail(int err)
{
	errno = err;
	return -err;
}

int bpf_map_get_next_key(int fd, const void *cur, void *next)
{
	struct fake_map *m = fd_map;
	size_t i = 0;

	if (fd != FAKE_FD)
		return fake_fail(EBADF);
	if (cur)
		while (i < m->n && m->keys[i++] != *(const uint32_t *)cur)
			;
	if (i >= m->n)
		return fake_fail(ENOENT);
	memcpy(next, &m->keys[i], sizeof(uint32_t));
	return 0;
}

static const void *fake_lookup(struct fake_map *m, const void *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->keys[i] == *(const uint32_t *)key && !m->gone[i])
			return m->vals[i];
	return NULL;
}

int bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	const void *v = fd == FAKE_FD ? fake_lookup(fd_map, key) : NULL;

	if (!v)
		return fake_fail(fd == FAKE_FD ? ENOENT : EBADF);
	memcpy(value, v, fd_map->val_size);
	return 0;
}

/* FAKE_CHUNK entries at a time from position *in; gone keys are not listed. */
int bpf_map_lookup_batch(int fd, void *in, void *out, void *keys, void *values, __u32 *count,
			 const struct bpf_map_batch_opts *opts)
{
	struct fake_map *m = fd_map;
	uint32_t i = in ? *(uint32_t *)in : 0, n = 0;

	(void)opts;
	if (fd != FAKE_FD)
		return fake_fail(EBADF);
	for (; i < m->n && n < *count && n < FAKE_CHUNK; i++) {
		if (m->gone[i])
			continue;
		memcpy((char *)keys + n * sizeof(uint32_t), &m->keys[i], sizeof(uint32_t));
		memcpy((char *)values + n * m->val_size, m->vals[i], m->val_size);
		n++;
	}
	*count = n;
	*(uint32_t *)out = i;
	return i >= m->n ? fake_fail(ENOENT) : 0;
}

/* tsource_read()'s */
int bpf_map__lookup_elem(const struct bpf_map *map, const void *key, size_t key_sz, void *value,
			 size_t value_sz, __u64 flags)
{
	const void *v = key_sz == sizeof(uint32_t) ? fake_lookup(fake(map), key) : NULL;

	(void)flags;
	if (!v)
		return fake_fail(ENOENT);
	memcpy(value, v, value_sz < FAKE_VAL ? value_sz : FAKE_VAL);
	return 0;
}

/* Two CPUs' values of key k: count (SUM), max (MAX), min (MIN, 0: none). */
static void set_key(struct fake_map *m, size_t i, uint32_t k, const uint64_t *cpu0, const uint64_t *cpu1)
{
	m->keys[i] = k;
	memcpy(m->vals[i], cpu0, 3 * sizeof(uint64_t));
	memcpy(m->vals[i] + 3 * sizeof(uint64_t), cpu1, 3 * sizeof(uint64_t));
	if (i >= m->n)
		m->n = i + 1;
}

enum { C_ID, C_STACK, C_COUNT, C_MAX, C_MIN, C__COUNT };

static const struct tcol cols[C__COUNT] = {
	[C_ID] = { "id", TCOL_KEY },
	[C_STACK] = { "stack", TCOL_KEY_KSTACK },
	[C_COUNT] = { "count", TCOL_SUM },
	[C_MAX] = { "max_ns", TCOL_MAX },
	[C_MIN] = { "min_ns", TCOL_MIN },
};

static const struct tschema schema = { "test", C__COUNT, cols };

/* The key is the id; its stack is one frame, the id times 16. */
static int id_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	struct tstack *s = stack;
	int *calls = ctx;

	(*calls)++;
	row[C_ID] = *(const uint32_t *)key;
	s->n = 1;
	s->frames[0] = row[C_ID] * 16;
	return 0;
}

struct fixture {
	struct fake_map map;
	struct tsource src;
	int key_calls;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->map.val_size = 2 * 3 * sizeof(uint64_t);
	fx->src = (struct tsource){ .schema = &schema, .map = (struct bpf_map *)&fx->map, .percpu = true,
		.key_size = sizeof(uint32_t), .val_size = 3 * sizeof(uint64_t), .nkeys = C_COUNT,
		.keys = id_keys, .ctx = &fx->key_calls };
	*state = fx;
	return tsource_init(&fx->src, 2);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tsource_free(&fx->src);
	free(fx);
	return 0;
}

static const uint64_t *row_of(const struct tsource *s, uint64_t id)
{
	size_t i;

	for (i = 0; i < s->rows.rows.n; i++)
		if (s->rows.rows.v[i * C__COUNT + C_ID] == id)
			return &s->rows.rows.v[i * C__COUNT];
	return NULL;
}

static void expect_row(const struct tsource *s, uint64_t id, uint64_t count, uint64_t max, uint64_t min)
{
	const uint64_t *r = row_of(s, id);
	const struct tstack *st;

	assert_non_null(r);
	assert_int_equal(r[C_COUNT], count);
	assert_int_equal(r[C_MAX], max);
	assert_int_equal(r[C_MIN], min);
	st = (const struct tstack *)(uintptr_t)r[C_STACK];
	assert_int_equal(st->n, 1);
	assert_int_equal(st->frames[0], id * 16);
}

/*
 * Per-CPU values fold by column kind (a CPU without a minimum does not
 * make it 0); each drain hands over only what changed, SUM as a delta.
 */
static void test_fold_and_deltas(void **state)
{
	struct fixture *fx = *state;
	struct tsource *s = &fx->src;

	set_key(&fx->map, 0, 1, (uint64_t[]){ 3, 500, 100 }, (uint64_t[]){ 2, 900, 0 });
	set_key(&fx->map, 1, 2, (uint64_t[]){ 0, 0, 0 }, (uint64_t[]){ 7, 40, 30 });
	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(s->scan.val_size, 2 * 3 * sizeof(uint64_t));
	assert_int_equal(s->rows.rows.n, 2);
	expect_row(s, 1, 5, 900, 100);
	expect_row(s, 2, 7, 40, 30);

	set_key(&fx->map, 1, 2, (uint64_t[]){ 1, 60, 20 }, (uint64_t[]){ 7, 40, 30 });
	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(s->rows.rows.n, 1);
	expect_row(s, 2, 1, 60, 20);

	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(s->rows.rows.n, 0);
	assert_int_equal(fx->key_calls, 3);
}

/* A key deleted between listing and lookup is skipped, not an error. */
static void test_deleted_under_us(void **state)
{
	struct fixture *fx = *state;

	set_key(&fx->map, 0, 1, (uint64_t[]){ 1, 10, 10 }, (uint64_t[]){ 0, 0, 0 });
	set_key(&fx->map, 1, 2, (uint64_t[]){ 1, 20, 20 }, (uint64_t[]){ 0, 0, 0 });
	fx->map.gone[0] = true;
	assert_int_equal(tsource_drain(&fx->src, NULL), 0);
	assert_int_equal(fx->src.rows.rows.n, 1);
	expect_row(&fx->src, 2, 1, 20, 20);
}

/* More keys than a batch hands out: every one, once, from several batches. */
static void test_chunks(void **state)
{
	struct fixture *fx = *state;
	uint32_t k;

	for (k = 0; k < FAKE_KEYS; k++)
		set_key(&fx->map, k, k + 1, (uint64_t[]){ k + 1, 10, 10 }, (uint64_t[]){ 1, 0, 0 });
	assert_int_equal(tsource_drain(&fx->src, NULL), 0);
	assert_true(mapscan_batched());
	assert_int_equal(fx->src.nread, FAKE_KEYS);
	assert_int_equal(fx->src.rows.rows.n, FAKE_KEYS);
	for (k = 0; k < FAKE_KEYS; k++)
		expect_row(&fx->src, k + 1, k + 2, 10, 10);
	assert_int_equal(fx->src.scan.syscalls, (FAKE_KEYS + FAKE_CHUNK - 1) / FAKE_CHUNK);
}

/*
 * Where the kernel refuses batches: one get_next_key and one lookup a key,
 * and a key listed then deleted before its lookup is skipped. Runs last:
 * the choice holds for the process.
 */
static void test_loop(void **state)
{
	struct fixture *fx = *state;

	mapscan_use_loop();
	test_deleted_under_us(state);
	assert_int_equal(fx->src.scan.syscalls, 2 + 2 + 1);
	set_key(&fx->map, 1, 2, (uint64_t[]){ 4, 20, 20 }, (uint64_t[]){ 0, 0, 0 });
	assert_int_equal(tsource_drain(&fx->src, NULL), 0);
	assert_int_equal(fx->src.rows.rows.n, 1);
	expect_row(&fx->src, 2, 3, 20, 20);
}

/* extra adds to a key's row, and makes the row of a key the map lacks. */
static void test_extra(void **state)
{
	struct fixture *fx = *state;
	struct htab extra;
	uint64_t *v;
	uint32_t k;

	htab_init(&extra, sizeof(uint32_t), 4 * sizeof(uint64_t));
	set_key(&fx->map, 0, 1, (uint64_t[]){ 2, 50, 40 }, (uint64_t[]){ 0, 0, 0 });
	k = 1;
	v = htab_get(&extra, &k, NULL);
	assert_non_null(v);
	memcpy(v, (uint64_t[]){ 1, 1, 70, 35 }, 4 * sizeof(uint64_t));
	k = 9;
	v = htab_get(&extra, &k, NULL);
	assert_non_null(v);
	memcpy(v, (uint64_t[]){ 1, 1, 5, 5 }, 4 * sizeof(uint64_t));
	assert_int_equal(tsource_drain(&fx->src, &extra), 0);
	htab_free(&extra);
	assert_int_equal(fx->src.rows.rows.n, 2);
	expect_row(&fx->src, 1, 3, 70, 35);
	expect_row(&fx->src, 9, 1, 5, 5);
}

/* Totals a family summed itself: one row when they changed, none otherwise. */
static void test_total(void **state)
{
	const struct tcol lcols[] = { { "full", TCOL_SUM }, { "stale", TCOL_SUM } };
	const struct tschema lschema = { "test.lost", 2, lcols };
	struct tsource s = { .schema = &lschema, .key_size = sizeof(uint32_t),
			     .val_size = 2 * sizeof(uint64_t) };

	(void)state;
	assert_int_equal(tsource_init(&s, 2), 0);
	assert_int_equal(tsource_total(&s, (uint64_t[]){ 0, 0 }), 0);
	assert_int_equal(s.rows.rows.n, 0);
	assert_int_equal(tsource_total(&s, (uint64_t[]){ 4, 1 }), 0);
	assert_int_equal(s.rows.rows.n, 1);
	assert_int_equal(s.rows.rows.v[0], 4);
	assert_int_equal(tsource_total(&s, (uint64_t[]){ 6, 1 }), 0);
	assert_int_equal(s.rows.rows.n, 1);
	assert_int_equal(s.rows.rows.v[0], 2);
	assert_int_equal(s.rows.rows.v[1], 0);
	assert_int_equal(tsource_total(&s, (uint64_t[]){ 6, 1 }), 0);
	assert_int_equal(s.rows.rows.n, 0);
	tsource_free(&s);
}

/* A 12-byte value: converted by values(), laid out 8-byte aligned per CPU. */
struct small {
	uint32_t count;
	uint32_t max;
	uint32_t min;
};

static void small_values(const void *val, uint64_t *out)
{
	const struct small *v = val;

	out[0] = v->count;
	out[1] = v->max;
	out[2] = v->min;
}

static void test_values_and_alignment(void **state)
{
	struct fixture *fx = *state;
	struct small cpu[2] = { { 1, 8, 8 }, { 2, 9, 3 } };
	struct tsource *s = &fx->src;

	tsource_free(s);
	s->values = small_values;
	s->val_size = sizeof(struct small);
	assert_int_equal(tsource_init(s, 2), 0);
	fx->map.val_size = 2 * 16;
	fx->map.keys[0] = 4;
	fx->map.n = 1;
	memcpy(fx->map.vals[0], &cpu[0], sizeof(cpu[0]));
	memcpy(fx->map.vals[0] + 16, &cpu[1], sizeof(cpu[1]));
	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(s->scan.val_size, 2 * 16);
	expect_row(s, 4, 3, 9, 3);
}

/* A plain hash: one value, of the map's own size. */
static void test_not_percpu(void **state)
{
	struct fixture *fx = *state;
	struct tsource *s = &fx->src;

	tsource_free(s);
	s->percpu = false;
	assert_int_equal(tsource_init(s, 8), 0);
	fx->map.val_size = 3 * sizeof(uint64_t);
	set_key(&fx->map, 0, 3, (uint64_t[]){ 5, 6, 7 }, (uint64_t[]){ 100, 100, 100 });
	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(s->scan.val_size, 3 * sizeof(uint64_t));
	expect_row(s, 3, 5, 6, 7);
}

static int failing_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	(void)ctx;
	(void)key;
	(void)row;
	(void)stack;
	return -ENOMEM;
}

static void test_errors(void **state)
{
	struct fixture *fx = *state;
	struct tsource bad = fx->src;

	bad.val_size = 2 * sizeof(uint64_t);	/* three value columns, no values() */
	assert_int_equal(tsource_init(&bad, 2), -EINVAL);	/* before it allocates anything */
	assert_int_equal(tsource_total(&fx->src, (uint64_t[]){ 1, 2, 3 }), 0);
	fx->src.key_size = sizeof(uint64_t);
	assert_int_equal(tsource_total(&fx->src, (uint64_t[]){ 1, 2, 3 }), -EINVAL);
	fx->src.key_size = sizeof(uint32_t);
	fx->src.keys = failing_keys;
	set_key(&fx->map, 0, 5, (uint64_t[]){ 1, 1, 1 }, (uint64_t[]){ 0, 0, 0 });
	assert_int_equal(tsource_drain(&fx->src, NULL), -ENOMEM);
}

/*
 * A sampled wait that finds the map full (contention.bpf.c's row_of):
 * its lock's row of lost stacks at its own weight, then its unsampled
 * row; the lock, type, class, errno and task are the wait's in each.
 */
static void test_cont_key_fallback(void **state)
{
	uint32_t bits = cont_key_with_err(cont_key_bits(LCB_F_MUTEX, 1, 5), 4);
	struct cont_key k = { .lock_addr = 0xffff888100001000ULL, .stack = 1ULL << 63 | 42,
			      .bits = bits, .tid = 7 };

	(void)state;
	assert_true(cont_key_fallback(&k));
	assert_true(k.stack == LS_STACK_ERR);
	assert_int_equal(k.bits, bits);
	assert_true(cont_key_fallback(&k));
	assert_true(k.stack == LS_STACK_NONE);
	assert_int_equal(cont_key_shift(k.bits), 0);
	assert_int_equal(cont_key_flags(k.bits), LCB_F_MUTEX);
	assert_int_equal(cont_key_class(k.bits), 1);
	assert_int_equal(cont_key_err(k.bits), 4);
	assert_true(k.lock_addr == 0xffff888100001000ULL && k.tid == 7);
	/* The unsampled row is the last: an unsampled wait has no other. */
	assert_false(cont_key_fallback(&k));
	/* A wait sampled without its stack goes straight to the unsampled row. */
	k.stack = LS_STACK_ERR;
	k.bits = bits;
	assert_true(cont_key_fallback(&k));
	assert_true(k.stack == LS_STACK_NONE && cont_key_shift(k.bits) == 0);
}

/* The slot of [2^i, 2^(i+1)) ns is i; 0 ns is slot 0; the last takes the rest. */
static void test_log2_slot(void **state)
{
	int i;

	(void)state;
	assert_int_equal(log2_slot(0, 40), 0);
	assert_int_equal(log2_slot(1, 40), 0);
	for (i = 1; i < 40; i++) {
		assert_int_equal(log2_slot(1ULL << i, 40), i);
		assert_int_equal(log2_slot((1ULL << i) - 1, 40), i - 1);
	}
	assert_int_equal(log2_slot(1ULL << 45, 40), 39);
	assert_int_equal(log2_slot(UINT64_MAX, 40), 39);
	assert_int_equal(log2_slot(1000, 40), 9);
}

/* Every field comes back as it went in, whatever the others hold. */
static void test_cont_key_bits(void **state)
{
	static const uint32_t flags[] = { 0, LCB_F_SPIN, LCB_F_READ | LCB_F_WRITE, LCB_F_MUTEX | LCB_F_SPIN, 0xff };
	static const uint32_t errs[] = { 0, 4, 35, 512, CK_ERR_MAX };
	uint32_t f, c, sh, e, bits;

	(void)state;
	for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
		for (c = 0; c < LOCK_CLASS__COUNT; c++)
			for (sh = 0; sh <= LS_MAX_SHIFT; sh++)
				for (e = 0; e < sizeof(errs) / sizeof(errs[0]); e++) {
					bits = cont_key_with_err(cont_key_bits(flags[f], c, sh), errs[e]);
					assert_int_equal(cont_key_flags(bits), flags[f]);
					assert_int_equal(cont_key_class(bits), c);
					assert_int_equal(cont_key_shift(bits), sh);
					assert_int_equal(cont_key_err(bits), errs[e]);
				}
	/* An errno past the field is kept as its largest value, not spilled into the others. */
	bits = cont_key_with_err(cont_key_bits(LCB_F_MUTEX, 2, 7), 1U << 20);
	assert_int_equal(cont_key_err(bits), CK_ERR_MAX);
	assert_int_equal(cont_key_flags(bits), LCB_F_MUTEX);
	assert_int_equal(cont_key_class(bits), 2);
	assert_int_equal(cont_key_shift(bits), 7);
	/* A continued wait's narrowing of its flags (contention.bpf.c) keeps the rest. */
	bits = cont_key_bits(LCB_F_MUTEX | LCB_F_SPIN, 1, 3);
	bits &= LCB_F_MUTEX | ~CK_FLAGS_MASK;
	assert_int_equal(cont_key_flags(bits), LCB_F_MUTEX);
	assert_int_equal(cont_key_class(bits), 1);
	assert_int_equal(cont_key_shift(bits), 3);
}

/* One wait added to a row, as BPF's account() does. */
static void add_wait(struct cont_val *v, uint64_t w)
{
	if (!v->count || w < v->min_ns)
		v->min_ns = w;
	if (w > v->max_ns)
		v->max_ns = w;
	v->count++;
	v->total_ns += w;
	v->hist[log2_slot(w, LS_HIST_SLOTS)]++;
}

/* The interval since before, as a drain computes it; before becomes now. */
static void drain_val(const struct cont_val *now, struct cont_val *before, struct cont_val *d)
{
	memset(d, 0, sizeof(*d));
	cont_val_delta(d, now, before);
	*before = *now;
}

/* What fsck --deep asks of a row, and that its extremes bound the interval's true ones. */
static void expect_interval(const struct cont_val *d, uint64_t count, uint64_t true_min, uint64_t true_max)
{
	int i, first = -1, last = -1;
	uint64_t n = 0;

	assert_int_equal(d->count, count);
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		n += d->hist[i];
		if (d->hist[i] && first < 0)
			first = i;
		if (d->hist[i])
			last = i;
	}
	assert_int_equal(n, count);
	assert_true(d->min_ns <= true_min);
	assert_true(d->max_ns >= true_max);
	assert_true(d->min_ns <= d->total_ns / d->count);
	assert_true(d->total_ns / d->count <= d->max_ns);
	assert_true(d->max_ns <= d->total_ns);
	assert_int_equal(log2_slot(d->min_ns, LS_HIST_SLOTS), first);
	assert_int_equal(log2_slot(d->max_ns, LS_HIST_SLOTS), last);
}

/*
 * A row's min and max are since the row began, its count, total and
 * histogram the interval's: each interval's extremes are its own waits'
 * (exact where the cumulative one moved, else bounds inside the
 * histogram's end slots), never an older interval's.
 */
static void test_cont_val_delta(void **state)
{
	struct cont_val now = { .min_ns = ~0ULL }, before = { 0 }, d;

	(void)state;
	add_wait(&now, 5000);
	add_wait(&now, 100);
	drain_val(&now, &before, &d);
	assert_int_equal(d.min_ns, 100);
	assert_int_equal(d.max_ns, 5000);
	expect_interval(&d, 2, 100, 5000);

	/* 300 and 400 ns: slot [256, 512); the other wait is at least 256. */
	add_wait(&now, 300);
	add_wait(&now, 400);
	drain_val(&now, &before, &d);
	expect_interval(&d, 2, 300, 400);
	assert_int_equal(d.min_ns, 256);
	assert_int_equal(d.max_ns, 700 - 256);

	/* A new max is exact; one wait alone is its own min. */
	add_wait(&now, 7000);
	drain_val(&now, &before, &d);
	assert_int_equal(d.min_ns, 7000);
	assert_int_equal(d.max_ns, 7000);

	/* A new min is exact; one wait alone is its own max. */
	add_wait(&now, 50);
	drain_val(&now, &before, &d);
	assert_int_equal(d.min_ns, 50);
	assert_int_equal(d.max_ns, 50);
}

/* Random waits, random intervals: every interval keeps the invariants. */
static void test_cont_val_delta_random(void **state)
{
	struct cont_val now = { .min_ns = ~0ULL }, before = { 0 }, d;
	uint64_t x = 88172645463325252ULL, w, lo, hi;
	int iv, n, k;

	(void)state;
	for (iv = 0; iv < 2000; iv++) {
		n = 1 + iv % 7;
		lo = UINT64_MAX;
		hi = 0;
		for (k = 0; k < n; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w = (x & 0xffff) << (x >> 60);	/* up to 2^31 ns, mostly short */
			add_wait(&now, w);
			lo = w < lo ? w : lo;
			hi = w > hi ? w : hi;
		}
		drain_val(&now, &before, &d);
		expect_interval(&d, n, lo, hi);
	}
}

/* A table of waits: count, total, max and min bounded by the total and a 12-slot histogram. */
enum { W_ID, W_COUNT, W_TOTAL, W_MAX, W_MIN, W_HIST, W__COUNT = W_HIST + 12 };

static const struct tcol wcols[W__COUNT] = {
	[W_ID] = { "id", TCOL_KEY }, [W_COUNT] = { "count", TCOL_SUM }, [W_TOTAL] = { "wait_ns", TCOL_SUM },
	[W_MAX] = { "wait_max_ns", TCOL_MAX, "wait_ns", "h0", 12 },
	[W_MIN] = { "wait_min_ns", TCOL_MIN, "wait_ns", "h0", 12 },
	[W_HIST] = { "h0", TCOL_SUM }, { "h1", TCOL_SUM }, { "h2", TCOL_SUM }, { "h3", TCOL_SUM },
	{ "h4", TCOL_SUM }, { "h5", TCOL_SUM }, { "h6", TCOL_SUM }, { "h7", TCOL_SUM }, { "h8", TCOL_SUM },
	{ "h9", TCOL_SUM }, { "h10", TCOL_SUM }, { "h11", TCOL_SUM },
};

static const struct tschema wschema = { "waits", W__COUNT, wcols };

/* One wait on one CPU's copy of key 1, as a BPF program keeps it. */
static void table_wait(struct fake_map *m, int cpu, uint64_t w)
{
	uint64_t *v = (uint64_t *)m->vals[0] + cpu * (W__COUNT - 1);

	if (!v[0] || w < v[3])
		v[3] = w;
	if (w > v[2])
		v[2] = w;
	v[0]++;
	v[1] += w;
	v[4 + log2_slot(w, 12)]++;
}

static void expect_extremes(const struct tsource *s, uint64_t count, uint64_t max, uint64_t min)
{
	const uint64_t *r = s->rows.rows.v;

	assert_int_equal(s->rows.rows.n, 1);
	assert_int_equal(r[W_COUNT], count);
	assert_int_equal(r[W_MAX], max);
	assert_int_equal(r[W_MIN], min);
}

/*
 * A MAX or MIN column with a total is the interval's, as the sums are:
 * exact where it moved, else bounded by the interval's total and its
 * histogram's end slots; never the row's since it began.
 */
static void test_interval_extremes(void **state)
{
	struct fake_map map = { .n = 1, .keys = { 1 }, .val_size = 2 * (W__COUNT - 1) * sizeof(uint64_t) };
	struct tsource s = { .schema = &wschema, .map = (struct bpf_map *)&map, .percpu = true,
		.key_size = sizeof(uint32_t), .val_size = (W__COUNT - 1) * sizeof(uint64_t), .nkeys = 1 };

	(void)state;
	assert_int_equal(tsource_init(&s, 2), 0);
	table_wait(&map, 0, 1000);
	table_wait(&map, 0, 100);
	assert_int_equal(tsource_drain(&s, NULL), 0);
	expect_extremes(&s, 2, 1000, 100);

	/* 300 and 400 ns, on the other CPU: [256, 512) */
	table_wait(&map, 1, 300);
	table_wait(&map, 1, 400);
	assert_int_equal(tsource_drain(&s, NULL), 0);
	expect_extremes(&s, 2, 511, 256);

	/* A new max is exact; the min is the bottom of [2048, ...), the last slot. */
	table_wait(&map, 0, 5000);
	assert_int_equal(tsource_drain(&s, NULL), 0);
	expect_extremes(&s, 1, 5000, 2048);

	/* 40 ns, a new min: exact; the max is at most the interval's total. */
	table_wait(&map, 1, 40);
	assert_int_equal(tsource_drain(&s, NULL), 0);
	expect_extremes(&s, 1, 40, 40);
	tsource_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fold_and_deltas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_under_us, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extra, setup, teardown),
		cmocka_unit_test(test_total),
		cmocka_unit_test_setup_teardown(test_values_and_alignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_percpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test(test_cont_key_fallback),
		cmocka_unit_test(test_log2_slot),
		cmocka_unit_test(test_cont_key_bits),
		cmocka_unit_test(test_cont_val_delta),
		cmocka_unit_test(test_cont_val_delta_random),
		cmocka_unit_test(test_interval_extremes),
		cmocka_unit_test_setup_teardown(test_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
