// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat export --format pprof: the gzip stream inflates, and the
 * profile.proto inside, read back by a small decoder of its own, holds
 * the profile: values that sum to the totals, "" first in the string
 * table, every id it refers to, and inline frames innermost first.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>
#include "buf.h"
#include "export.h"
#include "pprof.h"
#include "profile.h"
#include "fixtures.h"

#include "fixtures_samples.h"
#include "fixtures_ulocks.h"

/* --- gunzip and a decoder of profile.proto --------------------------------- */

static uint8_t *gunzip(const uint8_t *in, size_t n, size_t *outlen)
{
	size_t cap = 1 << 16;
	uint8_t *out = malloc(cap);
	z_stream zs;
	int rc;

	assert_non_null(out);
	assert_true(n > 18 && in[0] == 0x1f && in[1] == 0x8b);	/* a gzip member */
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (uint8_t *)in;
	zs.avail_in = n;
	do {
		if (zs.total_out == cap) {
			out = realloc(out, cap *= 2);
			assert_non_null(out);
		}
		zs.next_out = out + zs.total_out;
		zs.avail_out = cap - zs.total_out;
		rc = inflate(&zs, Z_NO_FLUSH);
	} while (rc == Z_OK);
	assert_int_equal(rc, Z_STREAM_END);
	assert_int_equal(zs.avail_in, 0);
	*outlen = zs.total_out;
	inflateEnd(&zs);
	return out;
}

struct field {
	uint32_t num;
	uint32_t wire;
	uint64_t v;		/* varint */
	struct cursor sub;	/* length-delimited */
};

static bool next_field(struct cursor *c, struct field *f)
{
	uint64_t key, len;

	if (cursor_done(c))
		return false;
	key = cursor_varint(c);
	f->num = key >> 3;
	f->wire = key & 7;
	if (f->wire == 0) {
		f->v = cursor_varint(c);
	} else {
		assert_int_equal(f->wire, 2);
		len = cursor_varint(c);
		assert_true(len <= (uint64_t)(c->end - c->p));
		cursor_init(&f->sub, c->p, len);
		c->p += len;
	}
	assert_false(c->err);
	return true;
}

/* A repeated scalar: packed (proto3's default) or one per field. */
static int repeated(const struct field *f, uint64_t *out, int max)
{
	struct cursor c = f->sub;
	int n = 0;

	if (f->wire == 0) {
		out[0] = f->v;
		return 1;
	}
	while (!cursor_done(&c)) {
		assert_true(n < max);
		out[n++] = cursor_varint(&c);
	}
	assert_false(c.err);
	return n;
}

#define MAXN	64

struct t_line { uint64_t function; int64_t line; };
struct t_loc { uint64_t id, mapping, addr; int nlines; struct t_line lines[16]; };
struct t_func { uint64_t id; int64_t name, system_name, file; };
struct t_map {
	uint64_t id, start, limit, offset;
	int64_t file, build_id;
	bool functions, inlines;
};
struct t_label { int64_t key, str, num; };
struct t_sample {
	uint64_t locs[MAXN];
	int nlocs;
	uint64_t vals[4];
	int nvals;
	struct t_label labels[8];
	int nlabels;
};
struct t_vt { int64_t type, unit; };

struct t_profile {
	struct t_vt types[4];
	int ntypes;
	struct t_sample samples[MAXN];
	int nsamples;
	struct t_loc locs[MAXN];
	int nlocs;
	struct t_func funcs[MAXN];
	int nfuncs;
	struct t_map maps[8];
	int nmaps;
	char *strs[256];
	int nstrs;
	int64_t time_nanos, duration_nanos, period;
	struct t_vt period_type;
	int ncomments;
	int64_t comments[8];
};

static struct t_vt read_vt(struct cursor c)
{
	struct t_vt vt = { 0 };
	struct field f;

	while (next_field(&c, &f))
		if (f.num == 1 || f.num == 2)
			*(f.num == 1 ? &vt.type : &vt.unit) = f.v;
	return vt;
}

static void read_sample(struct cursor c, struct t_sample *s)
{
	struct field f, g;

	memset(s, 0, sizeof(*s));
	while (next_field(&c, &f)) {
		if (f.num == 1) {
			s->nlocs += repeated(&f, s->locs + s->nlocs, MAXN - s->nlocs);
		} else if (f.num == 2) {
			s->nvals += repeated(&f, s->vals + s->nvals, 4 - s->nvals);
		} else if (f.num == 3) {
			struct t_label *l = &s->labels[s->nlabels++];

			assert_true(s->nlabels <= 8);
			while (next_field(&f.sub, &g))
				*(g.num == 1 ? &l->key : g.num == 2 ? &l->str : &l->num) = g.v;
		}
	}
}

static void read_line(struct cursor c, struct t_line *l)
{
	struct field f;

	while (next_field(&c, &f))
		*(f.num == 1 ? (int64_t *)&l->function : &l->line) = f.v;
}

static void read_location(struct cursor c, struct t_loc *l)
{
	struct field f;

	memset(l, 0, sizeof(*l));
	while (next_field(&c, &f)) {
		if (f.num == 1)
			l->id = f.v;
		else if (f.num == 2)
			l->mapping = f.v;
		else if (f.num == 3)
			l->addr = f.v;
		else if (f.num == 4)
			read_line(f.sub, &l->lines[l->nlines++]);
	}
}

static void read_function(struct cursor c, struct t_func *fn)
{
	struct field f;

	memset(fn, 0, sizeof(*fn));
	while (next_field(&c, &f)) {
		if (f.num == 1)
			fn->id = f.v;
		else if (f.num == 2)
			fn->name = f.v;
		else if (f.num == 3)
			fn->system_name = f.v;
		else if (f.num == 4)
			fn->file = f.v;
	}
}

static void read_mapping(struct cursor c, struct t_map *m)
{
	uint64_t *fields[] = { NULL, &m->id, &m->start, &m->limit, &m->offset,
			       (uint64_t *)&m->file, (uint64_t *)&m->build_id };
	struct field f;

	memset(m, 0, sizeof(*m));
	while (next_field(&c, &f)) {
		if (f.num >= 1 && f.num <= 6)
			*fields[f.num] = f.v;
		else if (f.num == 7)
			m->functions = f.v;
		else if (f.num == 10)
			m->inlines = f.v;
	}
}

static char *read_string(const struct field *f)
{
	size_t n = f->sub.end - f->sub.p;
	char *s = malloc(n + 1);

	assert_non_null(s);
	memcpy(s, f->sub.p, n);
	s[n] = '\0';
	return s;
}

static void read_field(struct t_profile *t, const struct field *f)
{
	switch (f->num) {
	case 1: t->types[t->ntypes++] = read_vt(f->sub); break;
	case 2:
		assert_true(t->nsamples < MAXN);
		read_sample(f->sub, &t->samples[t->nsamples++]);
		break;
	case 3: assert_true(t->nmaps < 8); read_mapping(f->sub, &t->maps[t->nmaps++]); break;
	case 4: assert_true(t->nlocs < MAXN); read_location(f->sub, &t->locs[t->nlocs++]); break;
	case 5: assert_true(t->nfuncs < MAXN); read_function(f->sub, &t->funcs[t->nfuncs++]); break;
	case 6: assert_true(t->nstrs < 256); t->strs[t->nstrs++] = read_string(f); break;
	case 9: t->time_nanos = f->v; break;
	case 10: t->duration_nanos = f->v; break;
	case 11: t->period_type = read_vt(f->sub); break;
	case 12: t->period = f->v; break;
	case 13: t->comments[t->ncomments++] = f->v; break;
	default: fail_msg("unexpected Profile field %u", f->num);
	}
}

static struct t_profile *decode(const struct profile *p, const struct export_opts *o)
{
	struct t_profile *t = calloc(1, sizeof(*t));
	struct buf gz;
	struct cursor c;
	struct field f;
	uint8_t *raw;
	size_t len;

	assert_non_null(t);
	buf_init(&gz);
	assert_int_equal(pprof__write(&gz, p, o), 0);
	raw = gunzip(gz.data, gz.len, &len);
	cursor_init(&c, raw, len);
	while (next_field(&c, &f))
		read_field(t, &f);
	free(raw);
	buf_free(&gz);
	return t;
}

static void t_free(struct t_profile *t)
{
	int i;

	for (i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	free(t);
}

static const char *str(const struct t_profile *t, int64_t i)
{
	assert_true(i >= 0 && i < t->nstrs);
	return t->strs[i];
}

static const struct t_loc *loc(const struct t_profile *t, uint64_t id)
{
	int i;

	for (i = 0; i < t->nlocs; i++)
		if (t->locs[i].id == id)
			return &t->locs[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const struct t_func *func(const struct t_profile *t, uint64_t id)
{
	int i;

	for (i = 0; i < t->nfuncs; i++)
		if (t->funcs[i].id == id)
			return &t->funcs[i];
	fail_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

static const struct t_map *mapping(const struct t_profile *t, uint64_t id)
{
	int i;

	for (i = 0; i < t->nmaps; i++)
		if (t->maps[i].id == id)
			return &t->maps[i];
	fail_msg("no mapping %llu", (unsigned long long)id);
	return NULL;
}

/* The location holding addr, or NULL. */
static const struct t_loc *loc_at(const struct t_profile *t, uint64_t addr)
{
	int i;

	for (i = 0; i < t->nlocs; i++)
		if (t->locs[i].addr == addr)
			return &t->locs[i];
	return NULL;
}

static const char *line_fn(const struct t_profile *t, const struct t_loc *l, int i)
{
	assert_true(i < l->nlines);
	return str(t, func(t, l->lines[i].function)->name);
}

static const struct t_label *label(const struct t_profile *t, const struct t_sample *s,
				   const char *key)
{
	int i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(str(t, s->labels[i].key), key))
			return &s->labels[i];
	return NULL;
}

static struct export_opts opts(enum export_what what)
{
	struct export_opts o = { .format = EXPORT_PPROF, .what = what, .filter = { .pid = -1 } };

	return o;
}

/*
 * What pprof's own CheckValid demands: ids non-zero and unique, every id
 * referred to defined, one value per sample type, "" at index 0.
 */
static void check_consistent(const struct t_profile *t)
{
	int i, j;

	assert_true(t->nstrs > 0);
	assert_string_equal(t->strs[0], "");
	for (i = 0; i < t->nsamples; i++) {
		assert_int_equal(t->samples[i].nvals, t->ntypes);
		for (j = 0; j < t->samples[i].nlocs; j++)
			loc(t, t->samples[i].locs[j]);
	}
	for (i = 0; i < t->nlocs; i++) {
		assert_true(t->locs[i].id == (uint64_t)i + 1);
		if (t->locs[i].mapping)
			mapping(t, t->locs[i].mapping);
		for (j = 0; j < t->locs[i].nlines; j++)
			func(t, t->locs[i].lines[j].function);
	}
	for (i = 0; i < t->nfuncs; i++) {
		assert_true(t->funcs[i].id == (uint64_t)i + 1);
		str(t, t->funcs[i].name);
		str(t, t->funcs[i].file);
		for (j = 0; j < i; j++)
			assert_false(t->funcs[i].name == t->funcs[j].name &&
				     t->funcs[i].file == t->funcs[j].file);
	}
	for (i = 0; i < t->nmaps; i++)
		assert_true(t->maps[i].id == (uint64_t)i + 1);
	for (i = 0; i < t->nstrs; i++)
		for (j = 0; j < i; j++)
			assert_string_not_equal(t->strs[i], t->strs[j]);
}

/* --- samples ------------------------------------------------------------------- */

static void test_sample_header(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_SAMPLES);
	struct t_profile *t = decode(p, &o);

	(void)state;
	check_consistent(t);
	assert_int_equal(t->ntypes, 2);
	assert_string_equal(str(t, t->types[0].type), "samples");
	assert_string_equal(str(t, t->types[0].unit), "count");
	assert_string_equal(str(t, t->types[1].type), "cpu");
	assert_string_equal(str(t, t->types[1].unit), "nanoseconds");
	assert_string_equal(str(t, t->period_type.type), "cpu");
	assert_string_equal(str(t, t->period_type.unit), "nanoseconds");
	assert_int_equal(t->period, 1000000000 / FREQ);
	assert_true((uint64_t)t->time_nanos == FX_CREATED_NS);
	assert_true((uint64_t)t->duration_nanos == DURATION_NS);
	assert_int_equal(t->ncomments, 1);
	assert_string_equal(str(t, t->comments[0]), "command: app -d 3");
	t_free(t);
	profile__free(p);
}

static void test_sample_values(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_SAMPLES);
	struct t_profile *t = decode(p, &o);
	uint64_t count = 0, ns = 0;
	int i;

	(void)state;
	/* One Sample per row of the profile: thread 100's two buckets are one row. */
	assert_int_equal(t->nsamples, 5);
	for (i = 0; i < t->nsamples; i++) {
		count += t->samples[i].vals[0];
		ns += t->samples[i].vals[1];
		assert_true(t->samples[i].vals[1] == t->samples[i].vals[0] * (1000000000 / FREQ));
	}
	assert_int_equal(count, TOTAL_SAMPLES);
	assert_true(ns == (uint64_t)TOTAL_SAMPLES * (1000000000 / FREQ));
	t_free(t);
	profile__free(p);
}

/* One Location per address and mapping, one Function per name and file. */
static void test_locations(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_SAMPLES);
	struct t_profile *t = decode(p, &o);
	const struct t_loc *sq, *m1, *m2, *k;
	const struct t_map *app, *kernel;

	(void)state;
	assert_int_equal(t->nlocs, 7);		/* 5 user PCs, 2 kernel PCs */
	assert_int_equal(t->nfuncs, 7);		/* main() once for two PCs */
	sq = loc_at(t, 0x401010);
	assert_non_null(sq);
	assert_int_equal(sq->nlines, 2);
	assert_string_equal(line_fn(t, sq, 0), "square");	/* innermost first */
	assert_int_equal(sq->lines[0].line, 10);
	assert_string_equal(line_fn(t, sq, 1), "hot_three");
	assert_int_equal(sq->lines[1].line, 20);
	assert_string_equal(str(t, func(t, sq->lines[0].function)->file), "app.c");
	m1 = loc_at(t, 0x401100);
	m2 = loc_at(t, 0x401104);
	assert_true(m1 && m2 && m1 != m2);
	assert_true(m1->lines[0].function == m2->lines[0].function);
	app = mapping(t, sq->mapping);
	assert_string_equal(str(t, app->file), "/usr/bin/app");
	assert_string_equal(str(t, app->build_id), "deadbeef");
	assert_true(app->start == APP_LO && app->limit == APP_HI);
	assert_true(app->functions && app->inlines);
	assert_int_equal(mapping(t, loc_at(t, LIBC_LO + 0x1000)->mapping)->offset, 0x1000);
	k = loc_at(t, FX_ALLOC_FD + 0x20);
	assert_non_null(k);
	assert_string_equal(line_fn(t, k, 0), "alloc_fd");
	kernel = mapping(t, k->mapping);
	assert_string_equal(str(t, kernel->file), "[kernel.kallsyms]");
	assert_true(kernel->start <= FX_ALLOC_FD + 0x20 && kernel->limit > FX_DO_SYS_OPEN + 0x30);
	t_free(t);
	profile__free(p);
}

/* Locations leaf first: the kernel's, then the user stack's. */
static void test_sample_stack_and_labels(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_SAMPLES);
	struct t_profile *t = decode(p, &o);
	const struct t_sample *s = NULL;
	int i;

	(void)state;
	for (i = 0; i < t->nsamples; i++)
		if (t->samples[i].vals[0] == 5)
			s = &t->samples[i];
	assert_non_null(s);
	assert_int_equal(s->nlocs, 5);
	assert_true(loc(t, s->locs[0])->addr == FX_ALLOC_FD + 0x20);
	assert_true(loc(t, s->locs[1])->addr == FX_DO_SYS_OPEN + 0x30);
	assert_true(loc(t, s->locs[2])->addr == 0x401010);
	assert_true(loc(t, s->locs[4])->addr == LIBC_LO + 0x1000);
	assert_int_equal(label(t, s, "pid")->num, 100);
	assert_int_equal(label(t, s, "tid")->num, 101);
	assert_string_equal(str(t, label(t, s, "comm")->str), "app");
	t_free(t);
	profile__free(p);
}

static void test_sample_filter(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_SAMPLES);
	struct t_profile *t;

	(void)state;
	o.filter.comm = "kworker";
	t = decode(p, &o);
	check_consistent(t);
	assert_int_equal(t->nsamples, 1);
	assert_int_equal(t->samples[0].vals[0], 7);
	assert_int_equal(t->nlocs, 2);
	assert_int_equal(label(t, &t->samples[0], "pid")->num, 200);
	t_free(t);
	profile__free(p);
}

/* --- locks --------------------------------------------------------------------- */

static void test_locks(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_LOCKS);
	struct t_profile *t = decode(p, &o);
	uint64_t count = 0, ns = 0;
	const struct t_sample *lost = NULL;
	int i;

	(void)state;
	check_consistent(t);
	assert_string_equal(str(t, t->types[0].type), "contentions");
	assert_string_equal(str(t, t->types[0].unit), "count");
	assert_string_equal(str(t, t->types[1].type), "delay");
	assert_string_equal(str(t, t->types[1].unit), "nanoseconds");
	assert_int_equal(t->nsamples, FX_NROWS);
	for (i = 0; i < t->nsamples; i++) {
		const struct t_sample *s = &t->samples[i];

		count += s->vals[0];
		ns += s->vals[1];
		assert_non_null(label(t, s, "lock"));
		assert_non_null(label(t, s, "lock type"));
		if (s->nlocs == 1 && loc(t, s->locs[0])->addr == 0)
			lost = s;
	}
	assert_int_equal(count, 20);
	assert_int_equal(ns, 262600);
	/* The waits without a stack stand under a frame that says so. */
	assert_non_null(lost);
	assert_string_equal(line_fn(t, loc(t, lost->locs[0]), 0), "[stack lost]");
	assert_string_equal(str(t, label(t, lost, "lock")->str), "0xffff888100003000@do_sys_open");
	assert_string_equal(str(t, label(t, lost, "lock type")->str), "rwsem:R");
	assert_null(label(t, lost, "pid"));
	t_free(t);
	profile__free(p);
}

static void test_locks_per_task(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_LOCKS);
	struct t_profile *t;

	(void)state;
	o.filter.pid = 101;
	t = decode(p, &o);
	assert_int_equal(t->nsamples, 1);
	assert_int_equal(t->samples[0].vals[1], 6000);
	assert_int_equal(label(t, &t->samples[0], "tid")->num, 101);
	assert_string_equal(str(t, label(t, &t->samples[0], "comm")->str), "worker");
	/* Stack 2, leaf first: _raw_read_lock+0x8, do_sys_open+0x44. */
	assert_int_equal(t->samples[0].nlocs, 2);
	assert_string_equal(line_fn(t, loc(t, t->samples[0].locs[0]), 0), "_raw_read_lock");
	assert_string_equal(line_fn(t, loc(t, t->samples[0].locs[1]), 0), "do_sys_open");
	t_free(t);
	profile__free(p);
}

/*
 * User locks are samples as kernel locks are, with the locks view's
 * totals: their locations are the user stack's PCs, named from the
 * recorded symbols, leaf first.
 */
static void test_user_locks(void **state)
{
	struct profile *p = fxu_profile();
	struct export_opts o = opts(EXPORT_LOCKS);
	const struct t_sample *storm = NULL;
	struct t_profile *t;
	uint64_t count = 0, ns = 0;
	int i;

	(void)state;
	assert_non_null(p);
	t = decode(p, &o);
	check_consistent(t);
	assert_int_equal(t->nsamples, 2);	/* storm_lock and the heap lock, not the condition variable */
	for (i = 0; i < t->nsamples; i++) {
		count += t->samples[i].vals[0];
		ns += t->samples[i].vals[1];
		if (!strcmp(str(t, label(t, &t->samples[i], "lock")->str), "storm_lock"))
			storm = &t->samples[i];
	}
	assert_int_equal(count, FXU_LOCK_WAITS);
	assert_int_equal(ns, FXU_LOCK_WAIT_NS);
	assert_non_null(storm);
	assert_string_equal(str(t, label(t, storm, "lock type")->str), "u:mutex");
	assert_string_equal(str(t, label(t, storm, "comm")->str), "mutexstorm");
	assert_int_equal(label(t, storm, "pid")->num, TGID);
	assert_int_equal(storm->nlocs, 4);
	assert_int_equal(loc(t, storm->locs[0])->addr, PC_LLL_WAIT);
	assert_string_equal(line_fn(t, loc(t, storm->locs[0]), 0), "__lll_lock_wait");
	assert_string_equal(line_fn(t, loc(t, storm->locs[2]), 0), "storm_op");
	assert_string_equal(line_fn(t, loc(t, storm->locs[3]), 0), "run_worker");
	t_free(t);
	profile__free(p);
}

/* An empty export is still a valid profile: its types and an empty string first. */
static void test_empty(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_SAMPLES);
	struct t_profile *t = decode(p, &o);

	(void)state;
	check_consistent(t);
	assert_int_equal(t->nsamples, 0);
	assert_int_equal(t->ntypes, 1);		/* no sample_freq: no cpu time */
	assert_int_equal(t->period, 0);
	t_free(t);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_header),
		cmocka_unit_test(test_sample_values),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_sample_stack_and_labels),
		cmocka_unit_test(test_sample_filter),
		cmocka_unit_test(test_locks),
		cmocka_unit_test(test_locks_per_task),
		cmocka_unit_test(test_user_locks),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
