// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat serve's series places (lib/serve/metrics.c): the first locks
 * take the free places; a lock that waits a place's share of the period
 * takes the weakest member's place at once, a smaller one only at the
 * period's end; a member is weighed by its last period too, so that a new
 * period does not hand its place to the first lock that waits; and every
 * series, "other" included, only grows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "serve/metrics.h"

#define MS		1000000ULL
#define NLOCKS		6
#define PERIOD		METRICS_RANK_PERIOD_NS

static char *names[NLOCKS] = { "a.lock", "b.lock", "c.lock", "d.lock", "e.lock", "storm.lock" };
#define STORM		5

struct bucket {
	struct profile p;
	struct lock_view v;
	struct lock_entry e[NLOCKS];
};

/* One bucket: waits[i] ms of lock i (0: it did not wait), one wait each. */
static const struct lock_view *bucket(struct bucket *b, const uint64_t waits[NLOCKS])
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->v.p = &b->p;
	b->v.xstrs = names;
	b->v.nxstrs = NLOCKS;
	b->v.locks = b->e;
	for (i = 0; i < NLOCKS; i++) {
		if (!waits[i])
			continue;
		b->e[b->v.nlocks].name = i;
		b->e[b->v.nlocks].v.count = 1;
		b->e[b->v.nlocks].v.total_ns = waits[i] * MS;
		b->v.nlocks++;
	}
	return &b->v;
}

static const struct lock_series *series(const struct metrics *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->locks[i].name, name))
			return &m->locks[i];
	return NULL;
}

static bool member(const struct metrics *m, const char *name)
{
	const struct lock_series *s = series(m, name);

	return s && s->member;
}

static void add(struct metrics *m, const uint64_t waits[NLOCKS], uint64_t now)
{
	struct bucket b;

	assert_int_equal(metrics__add_bucket(m, bucket(&b, waits), now), 0);
}

static void setup(struct metrics *m, size_t max_series)
{
	struct metrics_opts o = { .max_series = max_series, .max_tracked = 64 };

	assert_int_equal(metrics__init(m, &o), 0);
}

/* a, b, c take the three places; the storm takes c's at the bucket it storms in. */
static void test_storm_takes_a_place_at_once(void **state)
{
	const uint64_t quiet[NLOCKS] = { 3, 2, 1 }, storm[NLOCKS] = { 3, 2, 1, 0, 0, 500 };
	struct metrics m;

	(void)state;
	setup(&m, 3);
	add(&m, quiet, 1);
	assert_true(member(&m, "a.lock") && member(&m, "b.lock") && member(&m, "c.lock"));
	add(&m, quiet, 2 * MS);
	add(&m, storm, 3 * MS);
	assert_true(member(&m, "storm.lock"));
	assert_false(member(&m, "c.lock"));
	assert_true(member(&m, "a.lock") && member(&m, "b.lock"));
	/* Its series counts the bucket it got its place in. */
	assert_int_equal(series(&m, "storm.lock")->v.wait_ns, 500 * MS);
	assert_int_equal(series(&m, "storm.lock")->v.contended, 1);
	/* c's waits before it lost its place are forgotten with its series; none went to other. */
	assert_int_equal(m.other.wait_ns, 1 * MS);
	assert_int_equal(m.nmembers, 3);
	add(&m, storm, 4 * MS);
	assert_int_equal(series(&m, "storm.lock")->v.wait_ns, 1000 * MS);
	metrics__free(&m);
}

/* A lock below a place's share waits for the period's end, then takes its place. */
static void test_small_lock_waits_for_the_period(void **state)
{
	/* d waits 4 times as long as c, but 4 of 13 ms is under a third. */
	const uint64_t first[NLOCKS] = { 4, 4, 1 }, later[NLOCKS] = { 4, 4, 1, 4 };
	struct metrics m;

	(void)state;
	setup(&m, 3);
	add(&m, first, 1);
	add(&m, later, 2 * MS);
	assert_false(member(&m, "d.lock"));
	assert_true(member(&m, "c.lock"));
	assert_int_equal(m.other.wait_ns, 4 * MS);
	/* The period's last bucket: 8 ms against c's 3, so d takes c's place after it. */
	add(&m, later, PERIOD + 1);
	assert_true(member(&m, "d.lock"));
	assert_false(member(&m, "c.lock"));
	/* What went to other stays there, and d's series starts at 0. */
	assert_int_equal(m.other.wait_ns, 8 * MS);
	assert_int_equal(series(&m, "d.lock")->v.wait_ns, 0);
	metrics__free(&m);
}

/*
 * A new period: the members' waits in it start at 0, but a lock that
 * storms at its start must wait twice as long as the weakest member did in
 * the whole last period to take a place.
 */
static void test_last_period_protects_members(void **state)
{
	const uint64_t steady[NLOCKS] = { 40, 30, 20 };
	const uint64_t burst[NLOCKS] = { 0, 0, 0, 0, 30 }, big[NLOCKS] = { 0, 0, 0, 0, 0, 50 };
	struct metrics m;

	(void)state;
	setup(&m, 3);
	add(&m, steady, 1);
	add(&m, steady, PERIOD + 1);	/* a period of 80, 60 and 40 ms */
	assert_true(member(&m, "c.lock"));
	assert_int_equal(series(&m, "c.lock")->last_period_wait_ns, 40 * MS);
	add(&m, burst, PERIOD + 2);	/* 30 ms: all of the period so far, under 2 x 40 */
	assert_false(member(&m, "e.lock"));
	assert_true(member(&m, "c.lock"));
	add(&m, big, PERIOD + 3);	/* 50 ms: still under 2 x 40 */
	assert_false(member(&m, "storm.lock"));
	add(&m, big, PERIOD + 4);	/* 100 ms: over, and most of the period */
	assert_true(member(&m, "storm.lock"));
	assert_false(member(&m, "c.lock"));
	assert_int_equal(series(&m, "storm.lock")->v.wait_ns, 50 * MS);
	metrics__free(&m);
}

/*
 * Two locks of one weight storming in turn, and a weak lock that took a
 * place first: the two end up with the places, and then keep them, over
 * periods and buckets alike (each lock's place changes at most once).
 */
static void test_equal_locks_do_not_trade(void **state)
{
	const uint64_t weak[NLOCKS] = { 0, 0, 1 }, a[NLOCKS] = { 20 }, b[NLOCKS] = { 0, 20 };
	bool was[NLOCKS] = { false };
	int changes[NLOCKS] = { 0 }, i, k;
	struct metrics m;

	(void)state;
	setup(&m, 2);
	add(&m, weak, 1);
	was[2] = member(&m, "c.lock");
	for (i = 0; i < 60; i++) {
		add(&m, i % 2 ? a : b, (uint64_t)(i + 1) * (PERIOD / 10));
		for (k = 0; k < NLOCKS; k++) {
			changes[k] += member(&m, names[k]) != was[k];
			was[k] = member(&m, names[k]);
		}
	}
	assert_true(member(&m, "a.lock") && member(&m, "b.lock"));
	for (k = 0; k < NLOCKS; k++)
		assert_true(changes[k] <= 1);
	metrics__free(&m);
}

static uint64_t member_wait(const struct metrics *m, const char *name)
{
	const struct lock_series *s = series(m, name);

	return s && s->member ? s->v.wait_ns : 0;
}

/*
 * Every bucket's waits land once: in the series of a lock that has (or
 * just got) a place, or in "other"; a member's series only grows, and
 * "other" only grows. A lock that loses its place at the period's end
 * loses its series with the bucket's waits in it, so that only those may
 * be missing.
 */
static void test_each_wait_lands_once(void **state)
{
	static const uint64_t pattern[4][NLOCKS] = {
		{ 5, 1, 1, 1, 1, 0 }, { 0, 0, 0, 0, 0, 300 }, { 1, 1, 30, 1, 1, 1 }, { 0, 9, 0, 9, 0, 0 },
	};
	struct metrics m;
	int i, k, trades = 0;

	(void)state;
	setup(&m, 2);
	for (i = 0; i < 400; i++) {
		const uint64_t *w = pattern[(i / 3) % 4];
		uint64_t before[NLOCKS], other = m.other.wait_ns, landed, total = 0, dropped = 0;
		bool was[NLOCKS];

		for (k = 0; k < NLOCKS; k++) {
			before[k] = member_wait(&m, names[k]);
			was[k] = member(&m, names[k]);
			total += w[k] * MS;
		}
		add(&m, w, (uint64_t)i * (PERIOD / 20) + 1);
		assert_true(m.other.wait_ns >= other);
		landed = m.other.wait_ns - other;
		for (k = 0; k < NLOCKS; k++) {
			uint64_t now = member_wait(&m, names[k]);

			if (was[k] && !member(&m, names[k])) {
				dropped += w[k] * MS;
				trades++;
			}
			if (!member(&m, names[k]))
				continue;
			/* Kept its place: it grew. Got it in this bucket: it starts here. */
			if (was[k]) {
				assert_true(now >= before[k]);
				landed += now - before[k];
			} else {
				landed += now;
			}
		}
		assert_true(landed <= total && landed + dropped >= total);
		assert_true(m.nmembers <= 2);
	}
	assert_true(trades > 0);
	metrics__free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storm_takes_a_place_at_once),
		cmocka_unit_test(test_small_lock_waits_for_the_period),
		cmocka_unit_test(test_last_period_protects_members),
		cmocka_unit_test(test_equal_locks_do_not_trade),
		cmocka_unit_test(test_each_wait_lands_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
