// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counter tables (lib/format/ctable.h) end to end: the collector-side deltas and
 * merges, the TABLE chunk through pwriter and back through the reader,
 * and the locks view's join of the mmap_lock, hold and lock_names tables
 * with the contention rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>
#include <cmocka.h>
#include "format/ctable.h"
#include "base/htab.h"
#include "format/locktype.h"
#include "format/profile.h"
#include "format/store.h"
#include "view/view_locks.h"
#include "mmaplock.h"
#include "fixtures.h"

/* Kernel text added to the fixture's symbols. */
#define T_DOWN_WRITE	0xffffffff81004000ULL	/* size 0x80, a lock function */
#define T_DOWN_READ	0xffffffff81004080ULL	/* size 0x80, a lock function */
#define T_VM_MMAP	0xffffffff81005000ULL	/* size 0x200 */
#define T_TRACE_RUN	0xffffffff81006000ULL	/* size 0x100, tracing machinery */

/* Lock addresses of the view test. */
#define T_MM_LOCK	0xffff888100004000ULL	/* current->mm->mmap_lock */
#define T_UNKNOWN_LOCK	0xffff888100009000ULL	/* only in the hold table */
#define T_MM_STACK_ID	10			/* contention stack of T_MM_LOCK */

#define T1_T0	1000ULL
#define T1_T1	2000000000ULL
#define T2_T0	2000000000ULL
#define T2_T1	4000000000ULL

static int test_ksyms(struct ksyms *ks)
{
	int err = fx_ksyms(ks);

	err |= ksyms_add(ks, T_DOWN_WRITE, 0x80, "down_write", NULL, 't');
	err |= ksyms_add(ks, T_DOWN_READ, 0x80, "down_read", NULL, 't');
	err |= ksyms_add(ks, T_VM_MMAP, 0x200, "vm_mmap_pgoff", NULL, 'T');
	err |= ksyms_add(ks, T_TRACE_RUN, 0x100, "bpf_trace_run2", NULL, 'T');
	ksyms_sort(ks);
	return err;
}

/* The fixture's lock stacks, plus the mmap_lock writer's. */
static int test_fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	if (id == T_MM_STACK_ID && max >= 2) {
		frames[0] = T_DOWN_WRITE + 0x20;
		frames[1] = T_VM_MMAP + 0x10;
		return 2;
	}
	return fx_fetch_stack(ctx, id, frames, max);
}

static struct pwriter *open_writer(int fd, const struct ksyms *ks)
{
	struct pwriter_opts o = {
		.fd = fd,
		.ksyms = ks,
		.fetch_stack = test_fetch_stack,
		.recording_id = fx_recording_id,
		.created_ns = FX_CREATED_NS,
	};
	struct pwriter *w = NULL;

	assert_int_equal(pwriter__new(&w, &o), 0);
	assert_non_null(w);
	return w;
}

static void put_table(struct pwriter *w, uint64_t t0, uint64_t t1, const struct tschema *s,
		      uint64_t *v, size_t nrows)
{
	struct trows r = { .schema = s, .n = nrows, .v = v };

	assert_int_equal(pwriter__table(w, t0, t1, &r), 0);
}

static void close_writer(struct pwriter *w)
{
	assert_int_equal(pwriter__end(w, FX_DURATION_NS, 0, END_F_CLEAN), 0);
	pwriter__free(w);
}

static struct profile *read_back(const char *path)
{
	struct profile *p = NULL;
	char msg[256] = "";

	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("reading %s: %s", path, msg);
	assert_non_null(p);
	return p;
}

/* The first row whose column col holds key, or NULL. */
static const uint64_t *table_row(const struct ptable *t, int col, uint64_t key)
{
	const uint64_t *row;
	size_t it = 0;

	assert_true(col >= 0);
	while ((row = htab_next(&t->rows, &it, NULL)))
		if (row[col] == key)
			return row;
	return NULL;
}

static off_t file_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return st.st_size;
}

/* ---- deltas and merges ---- */

enum { D_COUNT, D_MAX, D_TOTAL, D_MIN, D__N };
static const uint8_t delta_kinds[D__N] = { TCOL_SUM, TCOL_MAX, TCOL_SUM, TCOL_MIN };

static void expect_delta(struct htab *last, uint64_t key, const uint64_t *cur,
			 const uint64_t *want, bool want_changed)
{
	uint64_t out[D__N];
	bool changed = !want_changed;

	memset(out, 0xa5, sizeof(out));
	assert_int_equal(tdelta(last, &key, cur, out, delta_kinds, D__N, &changed), 0);
	assert_memory_equal(out, want, sizeof(out));
	assert_int_equal(changed, want_changed);
}

static void test_tdelta(void **state)
{
	const uint64_t c1[D__N] = { 10, 5, 100, 7 }, w1[D__N] = { 10, 5, 100, 7 };
	const uint64_t w1same[D__N] = { 0, 5, 0, 7 };
	const uint64_t c2[D__N] = { 15, 5, 100, 7 }, w2[D__N] = { 5, 5, 0, 7 };
	const uint64_t c3[D__N] = { 15, 9, 130, 3 }, w3[D__N] = { 0, 9, 30, 3 };
	const uint64_t w3same[D__N] = { 0, 9, 0, 3 };
	const uint64_t o1[D__N] = { 1, 2, 3, 4 };
	const uint64_t zero[D__N] = { 0 };
	struct htab last;

	(void)state;
	htab_init(&last, sizeof(uint64_t), D__N * sizeof(uint64_t));
	/* The first drain gives the whole value. */
	expect_delta(&last, 7, c1, w1, true);
	/* Nothing new: SUMs give 0, MAX/MIN their current value, not changed. */
	expect_delta(&last, 7, c1, w1same, false);
	/* One SUM grew. */
	expect_delta(&last, 7, c2, w2, true);
	/* Only a MAX and a MIN moved: that is a change too. */
	expect_delta(&last, 7, c3, w3, true);
	/* Another key starts from nothing and leaves key 7 alone. */
	expect_delta(&last, 8, o1, o1, true);
	expect_delta(&last, 7, c3, w3same, false);
	/* A key first seen with nothing counted is not a change. */
	expect_delta(&last, 9, zero, zero, false);
	assert_int_equal(last.count, 3);
	htab_free(&last);
}

/*
 * tdelta() may write its deltas over its input (out == cur), as the
 * families' drains of summed counters do: cumulative 5, 8, 8 must give
 * deltas 5, 3, 0, never 5 again because "last" kept a delta.
 */
static void test_tdelta_in_place(void **state)
{
	static const uint8_t kinds[1] = { TCOL_SUM };
	const uint64_t cumulative[] = { 5, 8, 8, 8, 12 };
	const uint64_t want[] = { 5, 3, 0, 0, 4 };
	struct htab last;
	uint32_t zero = 0;
	size_t i;

	(void)state;
	htab_init(&last, sizeof(zero), sizeof(uint64_t));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t v = cumulative[i];
		bool changed;

		assert_int_equal(tdelta(&last, &zero, &v, &v, kinds, 1, &changed), 0);
		if (v != want[i] || changed != (want[i] != 0))
			fail_msg("drain %zu: cumulative %" PRIu64 " gave delta %" PRIu64 " (changed %d), want %" PRIu64,
				 i, cumulative[i], v, changed, want[i]);
	}
	htab_free(&last);
}

static void test_trow_merge(void **state)
{
	static const uint8_t kinds[] = { TCOL_KEY, TCOL_SUM, TCOL_MAX, TCOL_MIN, TCOL_KEY_STR, TCOL_KEY_KSTACK };
	static const struct {
		uint64_t v[6];
		uint64_t want[6];
	} steps[] = {
		/* Key columns are never touched; a MIN of 0 takes the first value. */
		{ { 99, 3, 7, 4, 77, 66 }, { 1, 13, 7, 4, 2, 3 } },
		/* A smaller MAX and a MIN of 0 ("none") change nothing. */
		{ { 99, 1, 2, 0, 77, 66 }, { 1, 14, 7, 4, 2, 3 } },
		/* A larger MIN is not kept, a larger MAX is. */
		{ { 99, 0, 9, 9, 77, 66 }, { 1, 14, 9, 4, 2, 3 } },
		/* The smallest non-zero MIN wins. */
		{ { 99, 0, 0, 2, 77, 66 }, { 1, 14, 9, 2, 2, 3 } },
	};
	uint64_t acc[6] = { 1, 10, 5, 0, 2, 3 };
	uint64_t none[3] = { 0, 0, 0 };
	const uint64_t zeros[3] = { 0, 0, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		trow_merge(acc, steps[i].v, kinds, 6);
		assert_memory_equal(acc, steps[i].want, sizeof(acc));
	}
	/* Nothing merged into nothing stays nothing. */
	trow_merge(none, zeros, kinds + 1, 3);
	assert_memory_equal(none, zeros, sizeof(none));
	/* n bounds the columns touched. */
	trow_merge(acc, steps[0].v, kinds, 2);
	assert_true(acc[1] == 17 && acc[2] == 9 && acc[3] == 2);
}

static void test_trows_add(void **state)
{
	static const struct tcol cols[] = { { "k", TCOL_KEY }, { "n", TCOL_SUM }, { "m", TCOL_MAX } };
	static const struct tschema s = { "test.grow", 3, cols };
	struct trows_buf b = { .rows = { .schema = &s } };
	uint64_t *row;
	size_t i;

	(void)state;
	/* Past the first allocation, with every row zeroed and in place. */
	for (i = 0; i < 200; i++) {
		row = trows_add(&b);
		assert_non_null(row);
		assert_true(row == b.rows.v + i * 3);
		assert_true(row[0] == 0 && row[1] == 0 && row[2] == 0);
		row[0] = i;
		row[1] = 2 * i;
		row[2] = 3 * i;
	}
	assert_int_equal(b.rows.n, 200);
	assert_true(b.cap >= 200);
	for (i = 0; i < 200; i++)
		assert_true(b.rows.v[i * 3] == i && b.rows.v[i * 3 + 2] == 3 * i);
	/* Reused between drains: a reset buffer hands out zeroed rows again. */
	b.rows.n = 0;
	row = trows_add(&b);
	assert_true(row == b.rows.v && row[0] == 0 && row[1] == 0 && row[2] == 0);
	trows_buf_free(&b);
	assert_null(b.rows.v);
	assert_int_equal(b.rows.n, 0);
	assert_int_equal(b.cap, 0);
}

/* ---- TABLE chunks through the writer and the reader ---- */

enum { RC_PID, RC_COMM, RC_STACK, RC_COUNT, RC_MAX, RC_MIN, RC__N };
static const struct tcol round_cols[RC__N] = {
	[RC_PID] = { "pid", TCOL_KEY },
	[RC_COMM] = { "comm", TCOL_KEY_STR },
	[RC_STACK] = { "stack", TCOL_KEY_KSTACK },
	[RC_COUNT] = { "count", TCOL_SUM },
	[RC_MAX] = { "max_ns", TCOL_MAX },
	[RC_MIN] = { "min_ns", TCOL_MIN },
};
static const struct tschema round_schema = { "test.round", RC__N, round_cols };
static const struct tschema empty_schema = { "test.empty", RC__N, round_cols };

static const struct tstack st_a = { 3, { FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20, FX_DO_SYS_OPEN + 0x30 } };
/* The same frames in another object: the writer keys stacks by content. */
static const struct tstack st_a_copy = { 3, { FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20, FX_DO_SYS_OPEN + 0x30 } };
static const struct tstack st_b = { 2, { FX_OTHER_FN + 0x10, FX_DO_SYS_OPEN + 0x44 } };
/* A tracing frame first: trimmed when the writer has symbols. */
static const struct tstack st_trace = { 3, { T_TRACE_RUN + 0x20, FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20 } };
/* A depth beyond the frames the struct holds: cut to TSTACK_DEPTH. */
static const struct tstack st_deep = {
	TSTACK_DEPTH + 4,
	{ FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20, FX_ALLOC_FD + 0x30, FX_ALLOC_FD + 0x40,
	  FX_OTHER_FN + 0x10, FX_OTHER_FN + 0x20, FX_DO_SYS_OPEN + 0x30, FX_DO_SYS_OPEN + 0x44 },
};

#define ROUND_ROWS	5	/* distinct pids over both buckets */

/* Writes the round-trip table in two buckets and an empty table. */
static void write_round(int fd, const struct ksyms *ks)
{
	uint64_t b1[3][RC__N] = {
		{ 1, tptr("alpha"), tptr(&st_a), 3, 100, 10 },
		{ 2, tptr("beta"), tptr(NULL), 1, 50, 0 },
		{ 5, tptr("trace"), tptr(&st_trace), 1, 1, 1 },
	};
	uint64_t b2[4][RC__N] = {
		{ 1, tptr("alpha"), tptr(&st_a_copy), 4, 80, 5 },
		{ 3, tptr("gamma"), tptr(&st_b), 7, 70, 70 },
		{ 2, tptr("beta"), tptr(NULL), 2, 60, 20 },
		{ 4, tptr(NULL), tptr(&st_deep), 1, 2, 3 },
	};
	uint64_t unused[RC__N] = { 0 };
	struct pwriter *w = open_writer(fd, ks);
	off_t before;

	/* No rows: no chunk, not even the strings of its schema. */
	before = file_size(fd);
	put_table(w, T1_T0, T1_T1, &empty_schema, unused, 0);
	assert_int_equal(file_size(fd), before);

	put_table(w, T1_T0, T1_T1, &round_schema, &b1[0][0], 3);
	put_table(w, T2_T0, T2_T1, &round_schema, &b2[0][0], 4);
	close_writer(w);
}

static void expect_frames(const struct profile *p, uint64_t id, const uint64_t *frames, uint32_t n)
{
	const struct stack *s;

	assert_true((int64_t)id >= 0);
	assert_int_equal((uint32_t)id >> STACK_SPACE_SHIFT, STACK_TABLE_KERNEL);
	s = profile__stack(p, (int32_t)id);
	assert_non_null(s);
	assert_int_equal(s->nframes, n);
	assert_memory_equal(s->frames, frames, n * sizeof(frames[0]));
}

static void expect_values(const uint64_t *row, uint64_t count, uint64_t max, uint64_t min)
{
	assert_non_null(row);
	assert_true(row[RC_COUNT] == count);
	assert_true(row[RC_MAX] == max);
	assert_true(row[RC_MIN] == min);
}

/* Schema, keys and merged values: the same with and without symbols. */
static const struct ptable *check_round_common(const struct profile *p)
{
	const struct ptable *t = profile__table(p, "test.round");
	const uint64_t *row;
	uint32_t i;

	assert_non_null(t);
	assert_string_equal(t->name, "test.round");
	assert_int_equal(t->ncols, RC__N);
	assert_int_equal(t->nkeys, 3);
	for (i = 0; i < RC__N; i++) {
		assert_string_equal(t->cols[i], round_cols[i].name);
		assert_int_equal(t->kinds[i], round_cols[i].kind);
		assert_int_equal(ptable__col(t, round_cols[i].name), i);
	}
	assert_int_equal(ptable__col(t, "no_such_column"), -1);
	assert_int_equal(ptable__col(NULL, "pid"), -1);
	assert_null(profile__table(p, "no.such.table"));
	assert_null(profile__table(p, "test.empty"));
	assert_int_equal(p->ntables, 1);
	assert_int_equal(t->nbuckets, 2);
	assert_true(p->last_bucket_end_ns == T2_T1);
	/* The same key in both buckets is one row. */
	assert_int_equal(t->rows.count, ROUND_ROWS);

	/* SUM adds, MAX keeps the largest, MIN the smallest non-zero. */
	row = table_row(t, RC_PID, 1);
	expect_values(row, 7, 100, 5);
	assert_string_equal(profile__str(p, row[RC_COMM]), "alpha");
	expect_frames(p, row[RC_STACK], st_a.frames, 3);

	row = table_row(t, RC_PID, 2);
	expect_values(row, 3, 60, 20);
	assert_string_equal(profile__str(p, row[RC_COMM]), "beta");
	assert_true(row[RC_STACK] == (uint64_t)(int64_t)-1);
	assert_null(profile__stack(p, (int32_t)row[RC_STACK]));

	row = table_row(t, RC_PID, 3);
	expect_values(row, 7, 70, 70);
	assert_string_equal(profile__str(p, row[RC_COMM]), "gamma");
	expect_frames(p, row[RC_STACK], st_b.frames, 2);

	/* A NULL string key is the empty string; a deep stack is cut. */
	row = table_row(t, RC_PID, 4);
	expect_values(row, 1, 2, 3);
	assert_string_equal(profile__str(p, row[RC_COMM]), "");
	expect_frames(p, row[RC_STACK], st_deep.frames, TSTACK_DEPTH);

	row = table_row(t, RC_PID, 5);
	expect_values(row, 1, 1, 1);
	assert_string_equal(profile__str(p, row[RC_COMM]), "trace");
	/* a, b, trace and deep: each written once. */
	assert_int_equal(p->stacks.count, 4);
	return t;
}

static void test_table_round_trip(void **state)
{
	const struct ptable *t;
	struct profile *p;
	char path[64], buf[128];
	const uint64_t *row;
	int fd = fx_tmpfile(path);

	(void)state;
	assert_true(fd >= 0);
	write_round(fd, NULL);
	close(fd);
	p = read_back(path);
	unlink(path);
	t = check_round_common(p);
	/* Without symbols nothing is trimmed. */
	row = table_row(t, RC_PID, 5);
	expect_frames(p, row[RC_STACK], st_trace.frames, 3);
	row = table_row(t, RC_PID, 2);
	assert_string_equal(profile__caller(p, (int32_t)row[RC_STACK], buf, sizeof(buf)), "[no stack]");
	profile__free(p);
}

static void test_table_round_trip_ksyms(void **state)
{
	const struct ptable *t;
	struct profile *p;
	struct ksyms ks;
	char path[64], buf[128];
	const uint64_t *row;
	int fd = fx_tmpfile(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(test_ksyms(&ks), 0);
	write_round(fd, &ks);
	ksyms_free(&ks);
	close(fd);
	p = read_back(path);
	unlink(path);
	t = check_round_common(p);

	/* The tracing frame is gone; the caller skips the lock primitive. */
	row = table_row(t, RC_PID, 5);
	expect_frames(p, row[RC_STACK], st_trace.frames + 1, 2);
	assert_string_equal(profile__caller(p, (int32_t)row[RC_STACK], buf, sizeof(buf)), "alloc_fd+0x20");
	row = table_row(t, RC_PID, 1);
	assert_string_equal(profile__caller(p, (int32_t)row[RC_STACK], buf, sizeof(buf)), "alloc_fd+0x20");
	row = table_row(t, RC_PID, 3);
	assert_string_equal(profile__caller(p, (int32_t)row[RC_STACK], buf, sizeof(buf)), "other_fn+0x10");
	row = table_row(t, RC_PID, 2);
	assert_string_equal(profile__caller(p, (int32_t)row[RC_STACK], buf, sizeof(buf)), "[no stack]");
	/* The symbols of table stacks travel with the file. */
	ksyms_format(&p->ksyms, FX_OTHER_FN + 0x10, buf, sizeof(buf));
	assert_string_equal(buf, "other_fn+0x10");
	profile__free(p);
}

/* Offset of the last chunk of a type in a good file, from the store's walk. */
static uint64_t last_chunk_at(const char *path, uint32_t type, size_t *count)
{
	struct store_file f;
	struct store_chunk c;
	const char *why = NULL;
	uint64_t pos, at = 0;

	assert_int_equal(store_open(path, &f, &why), 0);
	*count = 0;
	pos = f.hdr.header_len;
	while (store_next_chunk(&f, &pos, &c) == WALK_CHUNK) {
		if (c.type != type)
			continue;
		at = c.offset;
		(*count)++;
	}
	assert_true(pos == f.size);
	store_close(&f);
	return at;
}

/* One name, two schemas: the second chunk is refused. */
static void test_table_schema_change(void **state)
{
	static const struct tcol base[] = { { "k", TCOL_KEY }, { "n", TCOL_SUM } };
	static const struct tcol other_kind[] = { { "k", TCOL_KEY }, { "n", TCOL_MAX } };
	static const struct tcol other_name[] = { { "k", TCOL_KEY }, { "m", TCOL_SUM } };
	static const struct tcol more[] = { { "k", TCOL_KEY }, { "n", TCOL_SUM }, { "x", TCOL_MAX } };
	static const struct tcol key_kind[] = { { "k", TCOL_KEY_STR }, { "n", TCOL_SUM } };
	static const struct tschema first = { "test.schema", 2, base };
	const struct tschema changed[] = {
		{ "test.schema", 2, other_kind },
		{ "test.schema", 2, other_name },
		{ "test.schema", 3, more },
		{ "test.schema", 2, key_kind },
		{ "test.schema", 1, base },
	};
	uint64_t v[3] = { 1, 2, 3 };
	size_t i, ntables;

	(void)state;
	for (i = 0; i < sizeof(changed) / sizeof(changed[0]); i++) {
		struct profile *p = NULL;
		struct pwriter *w;
		char path[64], msg[256] = "", want[128];
		uint64_t at;
		int fd = fx_tmpfile(path);

		assert_true(fd >= 0);
		w = open_writer(fd, NULL);
		v[0] = 1;
		put_table(w, T1_T0, T1_T1, &first, v, 1);
		v[0] = tptr("key");	/* a string key in the variant that has one */
		put_table(w, T2_T0, T2_T1, &changed[i], v, 1);
		close_writer(w);
		close(fd);
		at = last_chunk_at(path, CHUNK_TABLE, &ntables);
		assert_int_equal(ntables, 2);
		assert_true(profile__read(path, &p, msg, sizeof(msg)) < 0);
		unlink(path);
		assert_null(p);
		snprintf(want, sizeof(want), "malformed TABLE chunk at byte %" PRIu64, at);
		if (strcmp(msg, want))
			fail_msg("schema change %zu: got \"%s\", want \"%s\"", i, msg, want);
	}
}

/* The same schema twice merges; another name may have any columns. */
static void test_table_schema_same(void **state)
{
	static const struct tcol base[] = { { "k", TCOL_KEY }, { "n", TCOL_SUM } };
	static const struct tcol other[] = { { "n", TCOL_MAX } };
	static const struct tschema first = { "test.schema", 2, base };
	static const struct tschema again = { "test.schema", 2, base };
	static const struct tschema second = { "test.other", 1, other };
	uint64_t v1[2] = { 1, 2 }, v2[2] = { 1, 5 }, v3[1] = { 9 };
	const struct ptable *t;
	struct profile *p;
	struct pwriter *w;
	char path[64];
	int fd = fx_tmpfile(path);

	(void)state;
	assert_true(fd >= 0);
	w = open_writer(fd, NULL);
	put_table(w, T1_T0, T1_T1, &first, v1, 1);
	put_table(w, T1_T0, T1_T1, &second, v3, 1);
	put_table(w, T2_T0, T2_T1, &again, v2, 1);
	close_writer(w);
	close(fd);
	p = read_back(path);
	unlink(path);
	assert_int_equal(p->ntables, 2);
	t = profile__table(p, "test.schema");
	assert_non_null(t);
	assert_int_equal(t->nbuckets, 2);
	assert_int_equal(t->rows.count, 1);
	assert_true(table_row(t, 0, 1)[1] == 7);
	/* A table of value columns only is one row. */
	t = profile__table(p, "test.other");
	assert_non_null(t);
	assert_int_equal(t->nkeys, 0);
	assert_int_equal(t->rows.count, 1);
	assert_true(table_row(t, 0, 9) != NULL);
	profile__free(p);
}

/* ---- the locks view's join ---- */

enum {
	MC_LOCK, MC_PID, MC_WRITE, MC_STACK, MC_ACQUIRED, MC_FAILED, MC_WAIT, MC_WAIT_MAX,
	MC_HELD, MC_HOLD, MC_HOLD_MAX, MC__N,
};
/* As lib/record/collect_mmaplock.c writes them. */
static const struct tcol mmap_cols[MC__N] = {
	[MC_LOCK] = { "lock", TCOL_KEY },
	[MC_PID] = { "pid", TCOL_KEY },
	[MC_WRITE] = { "write", TCOL_KEY },
	[MC_STACK] = { "stack", TCOL_KEY_KSTACK },
	[MC_ACQUIRED] = { "acquired", TCOL_SUM },
	[MC_FAILED] = { "failed", TCOL_SUM },
	[MC_WAIT] = { "wait_ns", TCOL_SUM },
	[MC_WAIT_MAX] = { "wait_max_ns", TCOL_MAX },
	[MC_HELD] = { "held", TCOL_SUM },
	[MC_HOLD] = { "hold_ns", TCOL_SUM },
	[MC_HOLD_MAX] = { "hold_max_ns", TCOL_MAX },
};
static const struct tschema mmap_schema = { "mmap_lock", MC__N, mmap_cols };

enum { HC_LOCK, HC_KIND, HC_STACK, HC_ACQUIRED, HC_HELD, HC_HOLD, HC_HOLD_MAX, HC_FAILED, HC__N };
static const struct tcol hold_cols[HC__N] = {
	[HC_LOCK] = { "lock", TCOL_KEY },
	[HC_KIND] = { "kind", TCOL_KEY },
	[HC_STACK] = { "stack", TCOL_KEY_KSTACK },
	[HC_ACQUIRED] = { "acquired", TCOL_SUM },
	[HC_HELD] = { "held", TCOL_SUM },
	[HC_HOLD] = { "hold_ns", TCOL_SUM },
	[HC_HOLD_MAX] = { "hold_max_ns", TCOL_MAX },
	[HC_FAILED] = { "failed", TCOL_SUM },
};
static const struct tschema hold_schema = { "hold", HC__N, hold_cols };

static const struct tcol name_cols[] = { { "lock", TCOL_KEY }, { "name", TCOL_KEY_STR } };
static const struct tschema names_schema = { "lock_names", 2, name_cols };

/* Acquisition sites: a few bytes from the contention callers, in the same function. */
static const struct tstack hs_mm_write = { 2, { T_DOWN_WRITE + 0x30, T_VM_MMAP + 0x24 } };
static const struct tstack hs_mm_read = { 2, { T_DOWN_READ + 0x10, FX_OTHER_FN + 0x10 } };
static const struct tstack hs_files = { 2, { FX_RAW_SPIN_LOCK + 0x18, FX_ALLOC_FD + 0x28 } };
static const struct tstack hs_files_open = { 2, { FX_RAW_SPIN_LOCK + 0x18, FX_DO_SYS_OPEN + 0x50 } };
static const struct tstack hs_other = { 1, { FX_OTHER_FN + 0x10 } };
static const struct tstack hs_mutex = { 2, { FX_RAW_SPIN_LOCK + 0x20, FX_ALLOC_FD + 0x40 } };

#define MM_CONTENDED	4

static void write_view_tables(struct pwriter *w)
{
	uint64_t mm1[][MC__N] = {
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_write), 20, 1, 500, 300, 18, 9000, 2000 },
		{ T_MM_LOCK, 100, 0, tptr(&hs_mm_read), 50, 0, 0, 0, 50, 500, 40 },
	};
	uint64_t mm2[][MC__N] = {
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_write), 5, 0, 0, 0, 5, 1000, 3000 },
		{ T_MM_LOCK, 101, 1, tptr(&hs_mm_write), 15, 0, 0, 0, 15, 500, 100 },
		{ T_MM_LOCK, 102, 1, tptr(NULL), 10, 0, 0, 0, 10, 100, 50 },
	};
	uint64_t hold[][HC__N] = {
		{ FX_FILES_LOCK_A, 1, tptr(&hs_files), 60, 59, 6000, 400, 0 },
		{ FX_FILES_LOCK_B, 1, tptr(&hs_files_open), 40, 40, 2000, 900, 0 },
		{ T_UNKNOWN_LOCK, 2, tptr(&hs_other), 7, 7, 700, 300, 0 },
		{ FX_ANON_MUTEX, 2, tptr(&hs_mutex), 10, 10, 1000, 500, 0 },
	};
	uint64_t names[][2] = {
		{ FX_ANON_MUTEX, tptr("address_space.i_pages") },
		/* A lock the contention rows named already keeps its name. */
		{ FX_FILES_LOCK_A, tptr("not.this.name") },
	};

	put_table(w, T1_T0, T1_T1, &mmap_schema, &mm1[0][0], 2);
	put_table(w, T1_T0, T1_T1, &names_schema, &names[0][0], 2);
	put_table(w, T2_T0, T2_T1, &mmap_schema, &mm2[0][0], 3);
	put_table(w, T2_T0, T2_T1, &hold_schema, &hold[0][0], 4);
}

/* The fixture's contention buckets, a contended mmap_lock, then the tables. */
static void write_view_profile(int fd)
{
	struct cont_row b1[FX_BUCKET1_ROWS], b2[FX_BUCKET2_ROWS], mm;
	struct pwriter *w;
	struct ksyms ks;

	assert_int_equal(test_ksyms(&ks), 0);
	fx_bucket1(b1);
	fx_bucket2(b2);
	mm = fx_row(T_MM_LOCK, T_MM_STACK_ID, LCB_F_WRITE, LOCK_CLASS_MM_MMAP_LOCK,
		    MM_CONTENDED, 40000, 5000, 20000);
	mm.val.hist[13] = 3;
	mm.val.hist[14] = 1;
	w = open_writer(fd, &ks);
	assert_int_equal(pwriter__bucket(w, FX_BUCKET1_T0, FX_BUCKET1_T1, b1, FX_BUCKET1_ROWS), 0);
	assert_int_equal(pwriter__bucket(w, FX_BUCKET2_T0, FX_BUCKET2_T1, b2, FX_BUCKET2_ROWS), 0);
	assert_int_equal(pwriter__bucket(w, FX_BUCKET2_T0, FX_BUCKET2_T1, &mm, 1), 0);
	write_view_tables(w);
	close_writer(w);
	ksyms_free(&ks);
}

/* A profile of one table, one bucket, read back. */
static struct profile *one_table_profile(const struct tschema *schema, uint64_t *rows, size_t n)
{
	struct profile *p = NULL;
	struct pwriter *w;
	struct ksyms ks;
	char path[64], msg[256] = "";
	int fd = fx_tmpfile(path);

	assert_true(fd >= 0);
	assert_int_equal(test_ksyms(&ks), 0);
	w = open_writer(fd, &ks);
	put_table(w, T2_T0, T2_T1, schema, rows, n);
	close_writer(w);
	ksyms_free(&ks);
	close(fd);
	assert_int_equal(profile__read(path, &p, msg, sizeof(msg)), 0);
	unlink(path);
	return p;
}

/*
 * A lock known from the hold table only, taken from two functions, is one
 * lock named by the one with the most acquisitions, not one per caller.
 */
static void test_view_hold_only_busiest(void **state)
{
	uint64_t hold[][HC__N] = {
		{ T_UNKNOWN_LOCK, 2, tptr(&hs_other), 3, 3, 300, 200, 0 },
		{ T_UNKNOWN_LOCK, 2, tptr(&hs_files), 9, 9, 900, 200, 0 },
	};
	const struct lock_filter any = { .pid = -1 };
	struct profile *p = one_table_profile(&hold_schema, &hold[0][0], 2);
	const struct lock_entry *e;
	struct lock_view v;

	(void)state;
	assert_int_equal(lock_view__build(&v, p, &any), 0);
	assert_int_equal(v.nlocks, 1);
	e = &v.locks[0];
	assert_string_equal(lock_view__str(&v, e->name), "0xffff888100009000@alloc_fd");
	assert_int_equal(e->ncallers, 2);
	assert_true(e->h.acquired == 12);
	lock_view__free(&v);
	profile__free(p);
}

static int setup_view(void **state)
{
	struct profile *p = NULL;
	char path[64], msg[256] = "";
	int fd = fx_tmpfile(path), err;

	if (fd < 0)
		return -1;
	write_view_profile(fd);
	close(fd);
	err = profile__read(path, &p, msg, sizeof(msg));
	unlink(path);
	if (err)
		fprintf(stderr, "view profile: %s\n", msg);
	*state = p;
	return err ? -1 : 0;
}

static int teardown_view(void **state)
{
	profile__free(*state);
	return 0;
}

static const struct lock_entry *view_lock(const struct lock_view *v, const char *name, uint32_t flags)
{
	const struct lock_entry *found = NULL;
	size_t i;

	for (i = 0; i < v->nlocks; i++) {
		if (v->locks[i].flags != flags || strcmp(lock_view__str(v, v->locks[i].name), name))
			continue;
		assert_null(found);	/* one entry per (name, type) */
		found = &v->locks[i];
	}
	return found;
}

static const struct lock_part *view_caller(const struct lock_view *v, const struct lock_entry *e,
					   const char *caller)
{
	size_t i;

	for (i = 0; i < e->ncallers; i++)
		if (!strcmp(lock_view__str(v, e->callers[i].caller), caller))
			return &e->callers[i];
	return NULL;
}

static void expect_hold(const struct hold_val *h, uint64_t acquired, uint64_t held,
			uint64_t hold_ns, uint64_t hold_max_ns)
{
	assert_true(h->has_hold);
	assert_true(h->acquired == acquired);
	assert_true(h->held == held);
	assert_true(h->hold_ns == hold_ns);
	assert_true(h->hold_max_ns == hold_max_ns);
}

/* A caller's sampled acquisitions and the 95 % intervals of its acquisitions and hold total. */
static void expect_hold_ci(const struct lock_entry *e, const struct lock_part *c, uint64_t sampled,
			   uint64_t sampled_ns, long acq_lo, long acq_hi, long hold_lo, long hold_hi)
{
	double lo, hi;

	assert_true(c->hest.sampled == sampled);
	assert_true(c->hest.sampled_ns == sampled_ns);
	lock_part__hold_ci95(e, c, false, &lo, &hi);
	assert_true(labs(lround(lo) - acq_lo) <= 1 && labs(lround(hi) - acq_hi) <= 1);
	lock_part__hold_ci95(e, c, true, &lo, &hi);
	assert_true(labs(lround(lo) - hold_lo) <= 1 && labs(lround(hi) - hold_hi) <= 1);
}

static void assert_pct(double got, double want)
{
	if (isnan(got) || fabs(got - want) > 1e-9)
		fail_msg("hold_con_pct %f, want %f", got, want);
}

/*
 * A caller's waits and acquisitions estimated from two samples: 12 waits
 * against 10 acquisitions is no figure to print; 100 % at most. Exact
 * figures keep what they say, and unmeasured acquisitions stay unknown.
 */
static void test_con_pct_estimate(void **state)
{
	struct lock_row_val w = { .count = 12 };
	struct hold_val h = { .has_hold = true, .acquired = 10 };

	(void)state;
	assert_pct(hold_con_pct(&w, &h), 120.0);
	assert_pct(hold_con_pct_estimate(&w, &h), 100.0);
	w.count = 4;
	assert_pct(hold_con_pct_estimate(&w, &h), 40.0);
	h.has_hold = false;
	assert_true(isnan(hold_con_pct_estimate(&w, &h)));
}

/* mmap_lock rows: one fixed name, the type from "write", callers by function. */
static void test_view_mmap_lock(void **state)
{
	const struct profile *p = *state;
	const struct lock_filter any = { .pid = -1 };
	const struct lock_entry *e;
	const struct lock_part *c;
	struct lock_view v;

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	assert_true(v.has_hold);
	e = view_lock(&v, "mm_struct.mmap_lock", LCB_F_WRITE);
	assert_non_null(e);
	assert_string_equal(lock_type_name(e->flags), "rwsem:W");
	assert_true(e->v.count == MM_CONTENDED);
	assert_true(e->v.total_ns == 40000);
	/* Three pids and two buckets: 20 + 5 + 15 + 10. */
	expect_hold(&e->h, 50, 48, 10600, 3000);
	assert_pct(hold_con_pct(&e->v, &e->h), 100.0 * MM_CONTENDED / 50);

	/* vm_mmap_pgoff+0x24 acquired where vm_mmap_pgoff+0x10 waited: one caller. */
	assert_int_equal(e->ncallers, 2);
	c = view_caller(&v, e, "vm_mmap_pgoff+0x10");
	assert_non_null(c);
	assert_true(c->v.count == MM_CONTENDED);
	expect_hold(&c->h, 40, 38, 10500, 3000);
	assert_null(view_caller(&v, e, "vm_mmap_pgoff+0x24"));
	/* No stack is no function: never merged into a caller. */
	c = view_caller(&v, e, "[no stack]");
	assert_non_null(c);
	assert_true(c->v.count == 0);
	expect_hold(&c->h, 10, 10, 100, 50);
	/* Hold data adds no stacks. */
	assert_int_equal(e->nstacks, 1);

	/* Read acquisitions: a lock of their own, never contended. */
	e = view_lock(&v, "mm_struct.mmap_lock", LCB_F_READ);
	assert_non_null(e);
	assert_string_equal(lock_type_name(e->flags), "rwsem:R");
	assert_true(e->v.count == 0);
	expect_hold(&e->h, 50, 50, 500, 40);
	assert_pct(hold_con_pct(&e->v, &e->h), 0.0);
	assert_int_equal(e->ncallers, 1);
	assert_string_equal(lock_view__str(&v, e->callers[0].caller), "other_fn+0x10");
	lock_view__free(&v);
}

/* The mmap_lock table as lockstat writes it now: with each row's stack sampling. */
enum {
	MS_LOCK, MS_PID, MS_WRITE, MS_STACK, MS_SHIFT, MS_ACQUIRED, MS_FAILED, MS_WAIT, MS_WAIT_MAX,
	MS_HELD, MS_HOLD, MS_HOLD_MAX, MS__N,
};
static const struct tcol mmap_sampled_cols[MS__N] = {
	[MS_LOCK] = { "lock", TCOL_KEY },
	[MS_PID] = { "pid", TCOL_KEY },
	[MS_WRITE] = { "write", TCOL_KEY },
	[MS_STACK] = { "stack", TCOL_KEY_KSTACK },
	[MS_SHIFT] = { "shift", TCOL_KEY },
	[MS_ACQUIRED] = { "acquired", TCOL_SUM },
	[MS_FAILED] = { "failed", TCOL_SUM },
	[MS_WAIT] = { "wait_ns", TCOL_SUM },
	[MS_WAIT_MAX] = { "wait_max_ns", TCOL_MAX },
	[MS_HELD] = { "held", TCOL_SUM },
	[MS_HOLD] = { "hold_ns", TCOL_SUM },
	[MS_HOLD_MAX] = { "hold_max_ns", TCOL_MAX },
};
static const struct tschema mmap_sampled_schema = { "mmap_lock", MS__N, mmap_sampled_cols };

static struct profile *sampled_mmap_profile(void)
{
	/*
	 * Write acquisitions: 100 without a stack; vm_mmap_pgoff's 3 sampled
	 * at p = 1/4 (12 estimated), other_fn's 4 at p = 1 (certain) and 2 at
	 * p = 1/2 (4 estimated): 109 in all.
	 */
	uint64_t mm[][MS__N] = {
		{ T_MM_LOCK, 100, 1, tptr(NULL), LS_MMAP_UNSAMPLED, 100, 0, 0, 0, 100, 100000, 5000 },
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_write), 2, 3, 0, 0, 0, 3, 1500, 900 },
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_read), 0, 4, 0, 0, 0, 4, 2000, 700 },
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_read), 1, 2, 0, 0, 0, 2, 1000, 600 },
	};

	return one_table_profile(&mmap_sampled_schema, &mm[0][0], 4);
}

/*
 * Sampled mmap_lock stacks: the lock's figures count every acquisition;
 * its callers' are estimates (2^shift each), no more than the lock's exact
 * figures, and no caller stands for the acquisitions without a stack.
 */
static void test_view_mmap_sampled(void **state)
{
	struct lock_filter f = { .pid = -1 };
	struct profile *p = sampled_mmap_profile();
	const struct lock_entry *e;
	const struct lock_part *c;
	struct lock_view v;

	(void)state;
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	e = view_lock(&v, "mm_struct.mmap_lock", LCB_F_WRITE);
	assert_non_null(e);
	assert_true(e->hold_estimated);
	assert_true(e->hold_sampled == 9);
	expect_hold(&e->h, 109, 109, 104500, 5000);
	assert_int_equal(e->ncallers, 2);
	assert_null(view_caller(&v, e, "[no stack]"));
	/*
	 * Each caller's acquisitions, releases and hold time are sums of 1/p
	 * (other_fn's 4 certain ones count once), as its waits would be:
	 * vm_mmap_pgoff 3 x 4, other_fn 4 + 2 x 2. The intervals: +- 1.96 x
	 * 6 and 4025 ns (hold, from the bound max x total on the holds'
	 * squares), 1.96 x 2 and 1095 ns, each within what the caller's
	 * stacks saw and the lock's figure. (Shares of the lock's exact
	 * figures, each by its own ratio, once made vm_mmap_pgoff's 79
	 * acquisitions hold 76875 ns: an average of 973 ns over a hold max
	 * of 900.)
	 */
	c = view_caller(&v, e, "vm_mmap_pgoff+0x24");
	assert_non_null(c);
	expect_hold(&c->h, 12, 12, 6000, 900);
	expect_hold_ci(e, c, 3, 1500, 3, 24, 1500, 13889);
	c = view_caller(&v, e, "other_fn+0x10");
	assert_non_null(c);
	expect_hold(&c->h, 8, 8, 4000, 700);
	expect_hold_ci(e, c, 6, 3000, 6, 12, 3000, 6147);
	assert_true(v.hold_total.acquired == 109);
	lock_view__free(&v);

	/* A caller filter: the lock's figures are its matching caller's estimates. */
	f.caller = "vm_mmap_pgoff*";
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	e = view_lock(&v, "mm_struct.mmap_lock", LCB_F_WRITE);
	assert_non_null(e);
	expect_hold(&e->h, 12, 12, 6000, 900);
	assert_true(v.hold_total_estimated);
	lock_view__free(&v);
	profile__free(p);
}

/*
 * Weights that overshoot the lock's figures (90 weighted acquisitions of
 * 15): vm_mmap_pgoff's 80 (80000 ns) shrink by one factor to within the
 * lock's 15 (10500 ns), 10500 / 80000, its hold average unchanged, and
 * no lower than the 10 its stacks saw; other_fn's 10 (1000 ns) stay.
 */
static void test_view_mmap_overshoot(void **state)
{
	uint64_t mm[][MS__N] = {
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_write), 3, 10, 0, 0, 0, 10, 10000, 2000 },
		{ T_MM_LOCK, 100, 1, tptr(&hs_mm_read), 1, 5, 0, 0, 0, 5, 500, 200 },
	};
	struct profile *p = one_table_profile(&mmap_sampled_schema, &mm[0][0], 2);
	struct lock_filter f = { .pid = -1 };
	const struct lock_entry *e;
	const struct lock_part *c;
	struct lock_view v;

	(void)state;
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	e = view_lock(&v, "mm_struct.mmap_lock", LCB_F_WRITE);
	assert_non_null(e);
	c = view_caller(&v, e, "vm_mmap_pgoff+0x24");
	assert_non_null(c);
	expect_hold(&c->h, 11, 11, 10500, 2000);
	assert_true(c->h.hold_ns / c->h.held <= c->h.hold_max_ns);
	c = view_caller(&v, e, "other_fn+0x10");
	assert_non_null(c);
	expect_hold(&c->h, 10, 10, 1000, 200);
	lock_view__free(&v);
	profile__free(p);
}

/* hold rows: named from the contention rows, lock_names, or the caller. */
static void test_view_hold(void **state)
{
	const struct profile *p = *state;
	const struct lock_filter any = { .pid = -1 };
	const struct lock_entry *e;
	const struct lock_part *c;
	struct lock_view v;
	char name[64];

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	/* Both files_struct addresses; kind 1 is a spinlock. */
	e = view_lock(&v, "files_struct.file_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_true(e->v.count == 6);
	expect_hold(&e->h, 100, 99, 8000, 900);
	assert_pct(hold_con_pct(&e->v, &e->h), 6.0);
	assert_int_equal(e->ncallers, 2);
	c = view_caller(&v, e, "alloc_fd+0x20");
	assert_non_null(c);
	assert_true(c->v.count == 6);
	expect_hold(&c->h, 60, 59, 6000, 400);
	c = view_caller(&v, e, "do_sys_open+0x50");
	assert_non_null(c);
	assert_true(c->v.count == 0);
	expect_hold(&c->h, 40, 40, 2000, 900);
	assert_null(view_lock(&v, "not.this.name", LCB_F_SPIN));

	/* An address nobody named: after the function that takes it. */
	snprintf(name, sizeof(name), "0x%" PRIx64 "@other_fn", (uint64_t)T_UNKNOWN_LOCK);
	e = view_lock(&v, name, LCB_F_MUTEX);
	assert_non_null(e);
	assert_true(e->v.count == 0);
	expect_hold(&e->h, 7, 7, 700, 300);
	assert_int_equal(e->ncallers, 1);
	assert_string_equal(lock_view__str(&v, e->callers[0].caller), "other_fn+0x10");

	/* A lock without hold data: not measured, not zero. */
	e = view_lock(&v, "tasklist_lock", LCB_F_SPIN | LCB_F_READ);
	assert_non_null(e);
	assert_false(e->h.has_hold);
	assert_true(isnan(hold_con_pct(&e->v, &e->h)));

	/* Every acquisition counted once in the total. */
	expect_hold(&v.hold_total, 50 + 50 + 100 + 7 + 10, 48 + 50 + 99 + 7 + 10,
		    10600 + 500 + 8000 + 700 + 1000, 3000);
	lock_view__free(&v);
}

/* lock_names renames an anonymous contention lock, and its hold rows follow. */
static void test_view_lock_names(void **state)
{
	const struct profile *p = *state;
	const struct lock_filter any = { .pid = -1 };
	const struct lock_entry *e;
	struct lock_view v;

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	assert_null(view_lock(&v, "0xffff888100002000@alloc_fd", LCB_F_MUTEX));
	e = view_lock(&v, "address_space.i_pages", LCB_F_MUTEX);
	assert_non_null(e);
	assert_true(e->v.count == 1);
	assert_true(e->v.total_ns == 100000);
	expect_hold(&e->h, 10, 10, 1000, 500);
	assert_pct(hold_con_pct(&e->v, &e->h), 10.0);
	/* alloc_fd+0x40 took it where alloc_fd+0x20 waited. */
	assert_int_equal(e->ncallers, 1);
	assert_string_equal(lock_view__str(&v, e->callers[0].caller), "alloc_fd+0x20");
	/* Anonymous locks without a given name keep theirs. */
	assert_non_null(view_lock(&v, "0xffff888100003000@do_sys_open", LCB_F_READ));
	/* 8 contended (name, type) pairs (mmap W among them), mmap R, the unknown mutex. */
	assert_int_equal(v.nlocks, 10);
	lock_view__free(&v);
}

static size_t count_hold(const struct lock_view *v)
{
	size_t i, j, n = 0;

	for (i = 0; i < v->nlocks; i++) {
		n += v->locks[i].h.has_hold;
		for (j = 0; j < v->locks[i].ncallers; j++)
			n += v->locks[i].callers[j].h.has_hold;
	}
	return n;
}

/* Hold tables are per lock: a per-task filter leaves them out. */
static void test_view_hold_filters(void **state)
{
	const struct profile *p = *state;
	struct lock_filter f = { .pid = 100 };
	struct lock_view v;

	assert_int_equal(lock_view__build(&v, p, &f), 0);
	assert_false(v.has_hold);
	assert_int_equal(count_hold(&v), 0);
	assert_true(v.hold_total.acquired == 0);
	/* Only the contention row of task 100 is left. */
	assert_int_equal(v.nlocks, 1);
	assert_non_null(view_lock(&v, "tasklist_lock", LCB_F_SPIN | LCB_F_WRITE));
	lock_view__free(&v);

	f = (struct lock_filter){ .pid = -1, .comm = "worker" };
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	assert_false(v.has_hold);
	assert_int_equal(count_hold(&v), 0);
	lock_view__free(&v);

	/* Lock, caller and type filters apply to hold rows too. */
	f = (struct lock_filter){ .pid = -1, .lock = "mm_struct.*" };
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	assert_int_equal(v.nlocks, 2);
	assert_true(v.hold_total.acquired == 100);
	lock_view__free(&v);

	f = (struct lock_filter){ .pid = -1, .caller = "other_fn*" };
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	assert_int_equal(v.nlocks, 2);
	assert_non_null(view_lock(&v, "mm_struct.mmap_lock", LCB_F_READ));
	assert_true(v.hold_total.acquired == 57);
	lock_view__free(&v);

	f = (struct lock_filter){ .pid = -1, .type = "rwsem:W" };
	assert_int_equal(lock_view__build(&v, p, &f), 0);
	assert_int_equal(v.nlocks, 2);
	assert_non_null(view_lock(&v, "0xffff888100003000@do_sys_open", LCB_F_WRITE));
	assert_true(v.hold_total.acquired == 50);
	lock_view__free(&v);
}

/*
 * BUG (reported to the lead, not fixed here): a lock that only the hold
 * tables know (no contention row) has no stacks, so lock_view__sort()
 * (lib/view/view_locks.c:464) calls qsort(NULL, 0, ...): undefined behaviour,
 * and UBSan (-fno-sanitize-recover) aborts the whole test binary here with
 * "null pointer passed as argument 1". Last in main() for that reason.
 */
static void test_view_sort_hold_only(void **state)
{
	static const char *const by_name[] = {
		"0xffff888100003000@do_sys_open", "0xffff888100003000@do_sys_open",
		"0xffff888100009000@other_fn", "address_space.i_pages", "files_struct.file_lock",
		"mm_struct.mmap_lock", "mm_struct.mmap_lock", "rq.__lock", "tasklist_lock", "tasklist_lock",
	};
	static const uint32_t by_name_f[] = {
		LCB_F_READ, LCB_F_WRITE, LCB_F_MUTEX, LCB_F_MUTEX, LCB_F_SPIN,
		LCB_F_READ, LCB_F_WRITE, LCB_F_SPIN, LCB_F_SPIN | LCB_F_READ, LCB_F_SPIN | LCB_F_WRITE,
	};
	const struct profile *p = *state;
	const struct lock_filter any = { .pid = -1 };
	const struct lock_entry *e;
	struct lock_view v;
	size_t i;

	assert_int_equal(lock_view__build(&v, p, &any), 0);
	e = view_lock(&v, "mm_struct.mmap_lock", LCB_F_READ);
	assert_non_null(e);
	assert_int_equal(e->nstacks, 0);
	lock_view__sort(&v, SORT_NAME);
	assert_int_equal(v.nlocks, 10);
	for (i = 0; i < v.nlocks; i++) {
		const char *got = lock_view__str(&v, v.locks[i].name);

		if (strcmp(got, by_name[i]) || v.locks[i].flags != by_name_f[i])
			fail_msg("position %zu: got %s/%u, want %s/%u", i, got, v.locks[i].flags,
				 by_name[i], by_name_f[i]);
	}
	/* Never contended: last by wait, by name among themselves. */
	lock_view__sort(&v, SORT_WAIT_TOTAL);
	assert_string_equal(lock_view__str(&v, v.locks[8].name), "0xffff888100009000@other_fn");
	assert_string_equal(lock_view__str(&v, v.locks[9].name), "mm_struct.mmap_lock");
	assert_int_equal(v.locks[9].flags, LCB_F_READ);
	/* A caller that only acquired comes after the one that waited. */
	e = view_lock(&v, "files_struct.file_lock", LCB_F_SPIN);
	assert_non_null(e);
	assert_string_equal(lock_view__str(&v, e->callers[0].caller), "alloc_fd+0x20");
	assert_string_equal(lock_view__str(&v, e->callers[1].caller), "do_sys_open+0x50");
	lock_view__free(&v);
}

/* ---- damaged files holding tables ---- */

struct view_file {
	char path[64];
	uint8_t *data;
	size_t size;
};

static int setup_view_file(void **state)
{
	struct view_file *f = calloc(1, sizeof(*f));
	int fd;

	*state = f;
	if (!f)
		return -1;
	fd = fx_tmpfile(f->path);
	if (fd < 0)
		return -1;
	write_view_profile(fd);
	close(fd);
	f->data = fx_slurp(f->path, &f->size);
	return f->data ? 0 : -1;
}

static int teardown_view_file(void **state)
{
	struct view_file *f = *state;

	if (f->path[0])
		unlink(f->path);
	free(f->data);
	free(f);
	return 0;
}

/* Whatever a table row refers to was read before it. */
static size_t check_tables(const struct profile *p)
{
	size_t i, it, nrows = 0;
	const uint64_t *row;
	uint32_t c;

	for (i = 0; i < p->ntables; i++) {
		const struct ptable *t = &p->tables[i];

		for (it = 0; (row = htab_next(&t->rows, &it, NULL)); nrows++) {
			for (c = 0; c < t->ncols; c++) {
				if (t->kinds[c] == TCOL_KEY_STR)
					assert_true(row[c] < p->nstrs);
				if (t->kinds[c] == TCOL_KEY_KSTACK && (int32_t)row[c] >= 0)
					assert_non_null(profile__stack(p, (int32_t)row[c]));
			}
		}
	}
	return nrows;
}

static int read_copy(const uint8_t *data, size_t size, struct profile **p, char *msg, size_t len)
{
	uint8_t *copy = malloc(size ? size : 1);
	int err;

	assert_non_null(copy);
	memcpy(copy, data, size);
	msg[0] = '\0';
	*p = NULL;
	err = profile__read_mem(copy, size, p, msg, len);
	free(copy);
	return err;
}

/* Cut anywhere: an error before the header's end, else what came before the cut. */
static void test_table_truncation(void **state)
{
	const struct lock_filter any = { .pid = -1 };
	struct view_file *f = *state;
	size_t off, prev_rows = 0, prev_tables = 0;

	for (off = 0; off <= f->size; off++) {
		struct profile *p = NULL;
		struct lock_view v;
		char msg[256];
		size_t nrows;
		int err = read_copy(f->data, off, &p, msg, sizeof(msg));

		if (err) {
			assert_null(p);
			assert_true(strlen(msg) > 0);
			if (off >= LKST_HEADER_LEN)
				fail_msg("cut at %zu of %zu: %s", off, f->size, msg);
			continue;
		}
		assert_non_null(p);
		nrows = check_tables(p);
		assert_true(nrows >= prev_rows);
		assert_true(p->ntables >= prev_tables);
		prev_rows = nrows;
		prev_tables = p->ntables;
		assert_int_equal(lock_view__build(&v, p, &any), 0);
		lock_view__free(&v);
		profile__free(p);
	}
	/* mmap_lock (4 keys), lock_names (2), hold (4). */
	assert_int_equal(prev_tables, 3);
	assert_int_equal(prev_rows, 10);
}

/*
 * Each TABLE payload byte changed with the CRC made right again: the
 * decoder refuses or accepts, never crashes, and the view builds on what
 * it accepts.
 */
static void test_table_payload_flips(void **state)
{
	static const uint8_t masks[] = { 0x01, 0x40, 0x80, 0x7f };
	const struct lock_filter any = { .pid = -1 };
	struct view_file *f = *state;
	struct store_file sf = { .data = f->data, .size = f->size };
	uint8_t *copy = malloc(f->size);
	uint64_t pos = LKST_HEADER_LEN;
	size_t ok = 0, refused = 0, ntables = 0, m;
	struct store_chunk ch;
	const char *why;

	assert_non_null(copy);
	assert_int_equal(store_parse(&sf, &why), 0);
	while (store_next_chunk(&sf, &pos, &ch) == WALK_CHUNK) {
		uint64_t start = ch.offset, crc_at = pos - LKST_CHUNK_TRAILER_LEN, off;

		if (ch.type != CHUNK_TABLE)
			continue;
		ntables++;
		for (off = start + LKST_CHUNK_HDR_LEN; off < crc_at; off++) {
			for (m = 0; m < sizeof(masks); m++) {
				struct profile *p = NULL;
				struct lock_view v;
				char msg[256] = "";
				uint32_t c;

				memcpy(copy, f->data, f->size);
				copy[off] ^= masks[m];
				c = crc32(0, copy + start, crc_at - start);
				copy[crc_at] = c;
				copy[crc_at + 1] = c >> 8;
				copy[crc_at + 2] = c >> 16;
				copy[crc_at + 3] = c >> 24;
				if (profile__read_mem(copy, f->size, &p, msg, sizeof(msg))) {
					assert_null(p);
					assert_non_null(strstr(msg, "malformed TABLE chunk"));
					refused++;
					continue;
				}
				ok++;
				check_tables(p);
				assert_int_equal(lock_view__build(&v, p, &any), 0);
				lock_view__free(&v);
				profile__free(p);
			}
		}
	}
	assert_int_equal(ntables, 4);
	/* Both outcomes happen: the flips did reach the table decoder. */
	assert_true(ok > 0);
	assert_true(refused > 0);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tdelta),
		cmocka_unit_test(test_tdelta_in_place),
		cmocka_unit_test(test_trow_merge),
		cmocka_unit_test(test_trows_add),
		cmocka_unit_test(test_table_round_trip),
		cmocka_unit_test(test_table_round_trip_ksyms),
		cmocka_unit_test(test_table_schema_change),
		cmocka_unit_test(test_table_schema_same),
		cmocka_unit_test_setup_teardown(test_view_mmap_lock, setup_view, teardown_view),
		cmocka_unit_test(test_view_mmap_sampled),
		cmocka_unit_test(test_view_mmap_overshoot),
		cmocka_unit_test_setup_teardown(test_view_hold, setup_view, teardown_view),
		cmocka_unit_test_setup_teardown(test_view_lock_names, setup_view, teardown_view),
		cmocka_unit_test_setup_teardown(test_view_hold_filters, setup_view, teardown_view),
		cmocka_unit_test_setup_teardown(test_table_truncation, setup_view_file, teardown_view_file),
		cmocka_unit_test_setup_teardown(test_table_payload_flips, setup_view_file, teardown_view_file),
		/* Aborts under UBSan until lock_view__sort() is fixed: keep it last. */
		cmocka_unit_test_setup_teardown(test_view_sort_hold_only, setup_view, teardown_view),
		cmocka_unit_test(test_view_hold_only_busiest),
		cmocka_unit_test(test_con_pct_estimate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
