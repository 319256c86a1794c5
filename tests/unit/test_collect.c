// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the collector does in user space, without a kernel: the counter
 * table drainer (lib/tsource.c) over fake BPF maps, and the histogram
 * slot shared with the BPF programs (bpf/hist.h).
 *
 * The fake maps stand in for libbpf's: this file defines
 * bpf_map__get_next_key() and bpf_map__lookup_elem(), which the
 * drainer's calls bind to instead of the library's.
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
#include <bpf/libbpf.h>
#include "hist.h"
#include "tsource.h"

#define FAKE_KEYS	8
#define FAKE_VAL	256	/* bytes of all CPUs' values of one key */

struct fake_map {
	size_t n;
	uint32_t keys[FAKE_KEYS];
	uint8_t vals[FAKE_KEYS][FAKE_VAL];
	bool gone[FAKE_KEYS];	/* listed, but deleted before the lookup */
	size_t lookup_size;	/* what the last lookup asked for */
};

static struct fake_map *fake(const struct bpf_map *map)
{
	return (struct fake_map *)map;
}

int bpf_map__get_next_key(const struct bpf_map *map, const void *cur, void *next, size_t key_sz)
{
	struct fake_map *m = fake(map);
	size_t i = 0;

	if (cur)
		while (i < m->n && m->keys[i++] != *(const uint32_t *)cur)
			;
	if (key_sz != sizeof(uint32_t) || i >= m->n)
		return -ENOENT;
	memcpy(next, &m->keys[i], key_sz);
	return 0;
}

int bpf_map__lookup_elem(const struct bpf_map *map, const void *key, size_t key_sz, void *value,
			 size_t value_sz, __u64 flags)
{
	struct fake_map *m = fake(map);
	size_t i;

	(void)flags;
	m->lookup_size = value_sz;
	for (i = 0; i < m->n && key_sz == sizeof(uint32_t); i++) {
		if (m->keys[i] != *(const uint32_t *)key || m->gone[i])
			continue;
		memcpy(value, m->vals[i], value_sz < FAKE_VAL ? value_sz : FAKE_VAL);
		return 0;
	}
	errno = ENOENT;
	return -ENOENT;
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
	assert_int_equal(fx->map.lookup_size, 2 * 3 * sizeof(uint64_t));
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
	fx->map.keys[0] = 4;
	fx->map.n = 1;
	memcpy(fx->map.vals[0], &cpu[0], sizeof(cpu[0]));
	memcpy(fx->map.vals[0] + 16, &cpu[1], sizeof(cpu[1]));
	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(fx->map.lookup_size, 2 * 16);
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
	set_key(&fx->map, 0, 3, (uint64_t[]){ 5, 6, 7 }, (uint64_t[]){ 100, 100, 100 });
	assert_int_equal(tsource_drain(s, NULL), 0);
	assert_int_equal(fx->map.lookup_size, 3 * sizeof(uint64_t));
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
		cmocka_unit_test(test_log2_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
