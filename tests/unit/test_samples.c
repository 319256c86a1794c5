// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler's side of the profile: SAMPLES, MAPPING and USYMS written by
 * pwriter and read back, then the hits and call-graph views built on them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "fixtures.h"
#include "record/procmaps.h"
#include "view/view_hits.h"

#define TGID		4242
#define MAP_START	0x555555554000ULL
#define HOT_THREE	(MAP_START + 0x2000)	/* leaf PCs */
#define HOT_ONE		(MAP_START + 0x2030)
#define MAIN_RET	(MAP_START + 0x1100)	/* a return address into main */

/* Sample kernel stack 1: alloc_fd called from do_sys_open; user stacks 1-3. */
static int fetch_k(void *ctx, int32_t id, uint64_t *f, int max)
{
	(void)ctx;
	if (id != 1 || max < 2)
		return -ENOENT;
	f[0] = FX_ALLOC_FD + 0x10;
	f[1] = FX_DO_SYS_OPEN + 0x30;
	return 2;
}

static int fetch_u(void *ctx, int32_t id, uint64_t *f, int max)
{
	(void)ctx;
	if (max < 2 || id < 1 || id > 3)
		return -ENOENT;
	f[0] = id == 1 ? HOT_THREE + 4 : id == 2 ? HOT_ONE + 4 : MAIN_RET;
	f[1] = MAIN_RET;
	return id == 3 ? 1 : 2;
}

/*
 * A fake symbolizer: hot_one is inlined into hot_three's file. Every PC
 * is first seen in the bucket ending at 1000 and seen again in the next:
 * the mapping that counts is the one there when it was first seen.
 */
static int resolve(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns, struct usym_info *out)
{
	unsigned int *calls = ctx;

	assert_int_equal(seen_ns, 1000);
	(*calls)++;
	memset(out, 0, sizeof(*out));
	out->module = "/opt/hotspots";
	if (tgid != TGID || addr < MAP_START) {
		out->why = USYM_NO_MAPPING;
		return 0;
	}
	out->nframes = 1;
	if (addr >= HOT_ONE && addr < HOT_ONE + 0x30) {
		out->frames[0] = (struct uframe){ "helper", "hot.c", 7 };
		out->frames[1] = (struct uframe){ "hot_one", "hot.c", 20 };
		out->nframes = 2;
		out->func_addr = HOT_ONE - MAP_START;
	} else if (addr >= HOT_THREE && addr < HOT_ONE) {
		out->frames[0] = (struct uframe){ "hot_three", "hot.c", 10 };
		out->func_addr = HOT_THREE - MAP_START;
	} else {
		out->frames[0] = (struct uframe){ "main", "hot.c", 30 };
		out->func_addr = 0x1000;
	}
	return 0;
}

static struct sample_row srow(uint32_t tid, int32_t k, int32_t u, uint64_t count)
{
	struct sample_row r = { .key = { TGID, tid, k, u }, .count = count };

	snprintf(r.comm, sizeof(r.comm), "hotspots");
	return r;
}

static struct profile *write_and_read(unsigned int *resolves)
{
	struct ksyms ks;
	struct mapping m = { .tgid = TGID, .start = MAP_START, .end = MAP_START + 0x10000,
			     .build_id = { 0xab, 0xcd }, .build_id_len = 2 };
	const char *path = "/opt/hotspots";
	struct sample_row b1[] = { srow(TGID, -1, 1, 300), srow(TGID, -1, 2, 100) };
	struct sample_row b2[] = { srow(TGID, -1, 1, 150), srow(TGID + 1, 1, 3, 50) };
	struct pwriter_opts o = { .ksyms = &ks, .fetch_sample_kstack = fetch_k,
				  .fetch_sample_ustack = fetch_u, .resolve_user = resolve,
				  .resolve_ctx = resolves };
	struct pwriter *w;
	struct profile *p = NULL;
	char tmp[64], msg[256];
	int fd = fx_tmpfile(tmp);

	assert_true(fd >= 0);
	assert_int_equal(fx_ksyms(&ks), 0);
	o.fd = fd;
	assert_int_equal(pwriter__new(&w, &o), 0);
	assert_int_equal(pwriter__mappings(w, &m, 1, &path), 0);
	assert_int_equal(pwriter__samples(w, 0, 1000, b1, 2), 0);
	assert_int_equal(pwriter__samples(w, 1000, 2000, b2, 2), 0);
	assert_int_equal(pwriter__usyms(w), 0);
	assert_int_equal(pwriter__usyms(w), 0);	/* nothing new: nothing resolved again */
	assert_int_equal(pwriter__end(w, 2000, 0, END_F_CLEAN), 0);
	pwriter__free(w);
	close(fd);
	assert_int_equal(profile__read(tmp, &p, msg, sizeof(msg)), 0);
	unlink(tmp);
	ksyms_free(&ks);
	return p;
}

static bool keep_all(void *ctx, uint32_t tgid)
{
	(void)ctx;
	(void)tgid;
	return true;
}

static bool keep_others(void *ctx, uint32_t tgid)
{
	(void)ctx;
	return tgid != TGID;
}

/* A writer on a temporary file, for the tests that forget. */
struct wfix {
	struct ksyms ks;
	struct pwriter *w;
	char tmp[64];
	int fd;
	unsigned int resolves;
};

static void wfix_open(struct wfix *f, stack_fetch_fn fetch_user)
{
	struct pwriter_opts o = { .ksyms = &f->ks, .fetch_sample_kstack = fetch_k,
				  .fetch_sample_ustack = fetch_user, .resolve_user = resolve,
				  .resolve_ctx = &f->resolves };

	f->resolves = 0;
	f->fd = fx_tmpfile(f->tmp);
	assert_true(f->fd >= 0);
	assert_int_equal(fx_ksyms(&f->ks), 0);
	o.fd = f->fd;
	assert_int_equal(pwriter__new(&f->w, &o), 0);
}

/* End the profile and read it back. */
static struct profile *wfix_close(struct wfix *f)
{
	struct profile *p = NULL;
	char msg[256];

	assert_int_equal(pwriter__end(f->w, 2000, 0, END_F_CLEAN), 0);
	pwriter__free(f->w);
	close(f->fd);
	assert_int_equal(profile__read(f->tmp, &p, msg, sizeof(msg)), 0);
	unlink(f->tmp);
	ksyms_free(&f->ks);
	return p;
}

/*
 * A process's PCs forgotten once written (it exited): only the written
 * ones, only its own, and the same PCs seen again are symbolized anew.
 */
static void test_forget_upcs(void **state)
{
	struct sample_row b1[] = { srow(TGID, -1, 1, 300), srow(TGID, -1, 2, 100) };
	struct profile *p;
	struct wfix f;

	(void)state;
	wfix_open(&f, fetch_u);
	assert_int_equal(pwriter__samples(f.w, 0, 1000, b1, 2), 0);
	assert_int_equal(pwriter__forget_upcs(f.w, keep_others, NULL), 0);	/* none written yet */
	assert_int_equal(pwriter__usyms(f.w), 0);
	assert_int_equal(f.resolves, 3);
	assert_int_equal(pwriter__forget_upcs(f.w, keep_all, NULL), 0);
	assert_int_equal(pwriter__forget_upcs(f.w, keep_others, NULL), 3);
	assert_int_equal(pwriter__usyms(f.w), 0);
	assert_int_equal(f.resolves, 3);	/* nothing left to symbolize */
	/* Under the same PID again, in a bucket that ends at 1000 too (the fake resolver's rule). */
	assert_int_equal(pwriter__samples(f.w, 1000, 1000, b1, 1), 0);
	assert_int_equal(pwriter__usyms(f.w), 0);
	assert_int_equal(f.resolves, 5);
	p = wfix_close(&f);
	assert_non_null(profile__usym(p, TGID, HOT_THREE + 4));
	assert_non_null(profile__usym(p, TGID, HOT_ONE + 4));
	profile__free(p);
}

static int fetches;

static int fetch_u_counted(void *ctx, int32_t id, uint64_t *f, int max)
{
	fetches++;
	return fetch_u(ctx, id, f, max);
}

/* The collector knows user stack 1 only: it forgot 2 (trimmed), and never uses that id again. */
static bool known_one(void *ctx, bool user, int32_t id)
{
	(void)ctx;
	return user && id == 1;
}

/*
 * Stacks the collector forgot are forgotten by the writer, frames and
 * all; those it still has are not fetched again, and the profile reads.
 */
static void test_forget_stacks(void **state)
{
	struct sample_row b1[] = { srow(TGID, -1, 1, 300), srow(TGID, -1, 2, 100) };
	struct sample_row b2[] = { srow(TGID, -1, 1, 30), srow(TGID, -1, 3, 10) };
	struct profile *p;
	struct wfix f;

	(void)state;
	fetches = 0;
	wfix_open(&f, fetch_u_counted);
	assert_int_equal(pwriter__samples(f.w, 0, 1000, b1, 2), 0);
	assert_int_equal(fetches, 2);
	assert_int_equal(pwriter__forget_sample_stacks(f.w, known_one, NULL), 1);
	assert_int_equal(pwriter__forget_sample_stacks(f.w, known_one, NULL), 0);
	assert_int_equal(pwriter__samples(f.w, 1000, 1000, b2, 2), 0);
	assert_int_equal(fetches, 3);	/* 3 only: 1 is written already */
	assert_int_equal(pwriter__usyms(f.w), 0);
	p = wfix_close(&f);
	assert_int_equal(p->samples.count, 3);
	assert_non_null(profile__usym(p, TGID, HOT_ONE + 4));	/* stack 2's, written before */
	profile__free(p);
}

static void test_round_trip(void **state)
{
	unsigned int resolves = 0;
	struct profile *p = write_and_read(&resolves);
	const struct usym_val *u;
	const struct mapping *m;

	(void)state;
	assert_int_equal(p->nsample_buckets, 2);
	assert_int_equal(p->samples.count, 3);	/* (tgid, tid, k, u) rows merged */
	/* Three distinct user PCs: each symbolized exactly once. */
	assert_int_equal(resolves, 3);
	u = profile__usym(p, TGID, HOT_ONE + 4);
	assert_non_null(u);
	assert_int_equal(u->nframes, 2);
	assert_string_equal(profile__str(p, p->uframes[u->first].function), "helper");
	assert_string_equal(profile__str(p, p->uframes[u->first + 1].function), "hot_one");
	m = profile__mapping(p, TGID, HOT_THREE);
	assert_non_null(m);
	assert_string_equal(profile__str(p, m->path), "/opt/hotspots");
	assert_int_equal(m->build_id_len, 2);
	assert_int_equal(m->build_id[1], 0xcd);
	assert_null(profile__mapping(p, TGID + 7, HOT_THREE));
	profile__free(p);
}

static const struct hit *find_hit(const struct hits_view *v, const char *fn)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->hits[i].function, fn))
			return &v->hits[i];
	return NULL;
}

static void test_hits(void **state)
{
	unsigned int resolves = 0;
	struct profile *p = write_and_read(&resolves);
	struct hits_filter f = { .pid = -1 };
	struct hits_view v;
	const struct hit *h;

	(void)state;
	assert_int_equal(hits_view__build(&v, p, &f, false), 0);
	hits_view__sort(&v, HITS_SORT_SAMPLES);
	assert_int_equal(v.total, 600);
	assert_int_equal(v.kernel, 50);
	assert_string_equal(v.hits[0].function, "hot_three");	/* 450 samples, sorted first */
	assert_int_equal(v.hits[0].samples, 450);
	/* An inlined leaf counts for the real function, as kernprof lists it. */
	h = find_hit(&v, "hot_one");
	assert_non_null(h);
	assert_int_equal(h->samples, 100);
	assert_int_equal(h->addr, HOT_ONE - MAP_START);
	h = find_hit(&v, "alloc_fd");
	assert_non_null(h);
	assert_true(h->kernel);
	assert_string_equal(h->module, "[kernel]");
	hits_view__free(&v);

	f.user_only = true;
	assert_int_equal(hits_view__build(&v, p, &f, true), 0);
	assert_int_equal(v.total, 550);
	h = find_hit(&v, "hot_one");
	assert_non_null(h);
	assert_string_equal(h->file, "hot.c");
	assert_int_equal(h->line, 7);	/* --lines: the innermost frame's line */
	hits_view__free(&v);
	profile__free(p);
}

static void test_graph(void **state)
{
	unsigned int resolves = 0;
	struct profile *p = write_and_read(&resolves);
	struct hits_filter f = { .pid = -1 };
	struct graph_view g;

	(void)state;
	assert_int_equal(graph_view__build(&g, p, &f, "hot_three", true), 0);
	assert_int_equal(g.total, 450);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.edges[0].function, "main");
	graph_view__free(&g);
	/* Inline frames are frames: helper is called by hot_one. */
	assert_int_equal(graph_view__build(&g, p, &f, "hot_one", false), 0);
	assert_int_equal(g.total, 100);
	assert_string_equal(g.edges[0].function, "helper");
	graph_view__free(&g);
	assert_int_equal(graph_view__build(&g, p, &f, "alloc_fd", true), 0);
	assert_string_equal(g.edges[0].function, "do_sys_open");
	assert_true(g.edges[0].kernel);
	graph_view__free(&g);
	f.comm = "nomatch";
	assert_int_equal(graph_view__build(&g, p, &f, "hot_three", true), 0);
	assert_int_equal(g.total, 0);
	graph_view__free(&g);
	profile__free(p);
}

static void test_procmaps_line(void **state)
{
	struct proc_map m;

	(void)state;
	assert_int_equal(procmaps_parse_line("55a4c8a00000-55a4c8a02000 r-xp 00001000 fe:01 1234   /usr/bin/true\n", &m), 0);
	assert_true(m.start == 0x55a4c8a00000ULL && m.end == 0x55a4c8a02000ULL && m.pgoff == 0x1000);
	assert_string_equal(m.path, "/usr/bin/true");
	free(m.path);
	assert_int_equal(procmaps_parse_line("7ffd1000-7ffd2000 r-xp 00000000 00:00 0                  [vdso]\n", &m), 0);
	assert_string_equal(m.path, "[vdso]");
	free(m.path);
	assert_int_equal(procmaps_parse_line("7f00-8000 rw-p 00000000 00:00 0\n", &m), -ENOENT);
	assert_int_equal(procmaps_parse_line("garbage\n", &m), -EINVAL);
	assert_int_equal(procmaps_parse_line("1000-2000 r-xp 00000000 00:00 0\n", &m), 0);
	assert_string_equal(m.path, "");	/* anonymous: a JIT, maybe */
	free(m.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_forget_upcs),
		cmocka_unit_test(test_forget_stacks),
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_procmaps_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
