// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat diff's model: names normalized as two kernel builds differ,
 * rows matched by name across kernels whose code and locks sit at other
 * addresses, per-second values of runs of different length, new and gone
 * rows, the tests chosen by the number of runs, the workload's figure
 * read from META, and families recorded on one side only left out.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include "view/diff.h"
#include "format/profile.h"
#include "fixtures_ulocks.h"

/* --- names ---------------------------------------------------------------------- */

static void check_func(const char *in, const char *want)
{
	char out[128];

	diff_norm_func(in, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("diff_norm_func(\"%s\") = \"%s\", want \"%s\"", in, out, want);
}

static void check_lock(const char *in, const char *want)
{
	char out[128];

	diff_norm_lock(in, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("diff_norm_lock(\"%s\") = \"%s\", want \"%s\"", in, out, want);
}

static void test_norm_func(void **state)
{
	(void)state;
	check_func("alloc_fd+0x36", "alloc_fd");
	check_func("alloc_fd+0x36/0x100", "alloc_fd");
	check_func("fget.isra.0", "fget");
	check_func("do_dup2.constprop.0.isra.0", "do_dup2");
	check_func("__fget_files.part.0", "__fget_files");
	check_func("ext4_da_write_end.cold", "ext4_da_write_end");
	check_func("kmem_cache_free.part.0.cold", "kmem_cache_free");
	check_func("vfs_read.llvm.14751386221470138911", "vfs_read");
	check_func("helper.lto_priv.0", "helper");
	check_func("memcpy.localalias", "memcpy");
	check_func("file_free.__uniq.190151924580946", "file_free");
	check_func("fget.isra.0+0x1c/0x80", "fget");
	check_func("memcpy@@GLIBC_2.14", "memcpy");
	check_func("memcpy@GLIBC_2.2.5", "memcpy");
	check_func("bpf_prog_d2fbc377201301c3_begin_btf", "bpf_prog_begin_btf");
	check_func("bpf_prog_d2fbc377201301c3", "bpf_prog");
	/* What is a name and not a suffix stays. */
	check_func("files_struct.file_lock", "files_struct.file_lock");
	check_func("descriptor.5", "descriptor.5");
	check_func("operator+", "operator+");
	check_func("[stack not sampled]", "[stack not sampled]");
	check_func(".isra.0", ".isra.0");
	check_func("bpf_prog_short_name", "bpf_prog_short_name");
	check_func("", "");
}

static void test_norm_lock(void **state)
{
	char small[8];

	(void)state;
	check_lock("0xffff888627c2bcc0@__schedule", "[anon]@__schedule");
	check_lock("0xffff888100002000@alloc_fd.isra.0", "[anon]@alloc_fd");
	check_lock("0xffff888627c2bcc0", "[anon]");
	check_lock("files_struct.file_lock", "files_struct.file_lock");
	check_lock("mm_struct.mmap_lock", "mm_struct.mmap_lock");
	check_lock("tasklist_lock", "tasklist_lock");
	check_lock("runqueues+0x40", "runqueues+0x40");
	check_lock("ep_mtx.lto_priv.0+0x8", "ep_mtx+0x8");
	check_lock("0xzz", "0xzz");
	/* The output is cut, never overrun. */
	diff_norm_lock("0xffff888627c2bcc0@__schedule", small, sizeof(small));
	assert_string_equal(small, "[anon]@");
	diff_norm_func("kmem_cache_free.part.0", small, sizeof(small));
	assert_int_equal(strlen(small), 7);
}

/* --- profiles of a fake kernel, built at another address each time ------------------ */

#define LOCK_TEXT	0x1000000ULL

struct kernel {
	const char *release;
	uint64_t text;		/* where its code starts */
	const char *alloc_fd;	/* alloc_fd's name in this build */
};

static const struct kernel host = { "6.18.44", 0xffffffff81000000ULL, "alloc_fd" };
static const struct kernel vm = { "6.1.0-cloud", 0xffffffff9a200000ULL, "alloc_fd.isra.0" };

static int kernel_syms(struct ksyms *ks, const struct kernel *k)
{
	int err = 0;

	ksyms_init(ks);
	err |= ksyms_add(ks, k->text, 0, "_stext", NULL, 'T');
	err |= ksyms_add(ks, k->text + 0x1000, 0x100, k->alloc_fd, NULL, 't');
	err |= ksyms_add(ks, k->text + 0x2000, 0x200, "do_sys_open", NULL, 'T');
	err |= ksyms_add(ks, k->text + LOCK_TEXT, 0, "__lock_text_start", NULL, 'T');
	err |= ksyms_add(ks, k->text + LOCK_TEXT, 0x40, "_raw_spin_lock", NULL, 'T');
	err |= ksyms_add(ks, k->text + LOCK_TEXT + 0x1000, 0, "__lock_text_end", NULL, 'T');
	ksyms_sort(ks);
	return err;
}

/*
 * Stack 1: _raw_spin_lock <- alloc_fd <- do_sys_open, in this kernel's
 * layout; stack 2: _raw_spin_lock <- do_sys_open.
 */
static int fetch_lock_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	const struct kernel *k = ctx;

	if (id == 2 && max >= 2) {
		frames[0] = k->text + LOCK_TEXT + 0x10;
		frames[1] = k->text + 0x2000 + 0x40;
		return 2;
	}
	if (id != 1 || max < 3)
		return -ENOENT;
	frames[0] = k->text + LOCK_TEXT + 0x10;
	frames[1] = k->text + 0x1000 + 0x20;
	frames[2] = k->text + 0x2000 + 0x30;
	return 3;
}

static int fetch_sample_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	const struct kernel *k = ctx;

	if (id != 1 || max < 2)
		return -ENOENT;
	frames[0] = k->text + 0x1000 + 0x10;
	frames[1] = k->text + 0x2000 + 0x30;
	return 2;
}

/* One run: what it saw, and how long it lasted. */
struct run_spec {
	const struct kernel *k;
	uint64_t dur_ns;
	uint64_t files_waits, files_ns;	/* files_struct.file_lock */
	uint64_t anon_waits;		/* a mutex known by its address */
	uint64_t anon_addr;
	uint64_t samples;		/* in alloc_fd */
	const char *metric;		/* META metric.value, or NULL */
	uint64_t user_waits;		/* storm_lock, a user lock (the ulocks table) */
	const char *ulocks;		/* META probe.ulocks, or NULL */
	uint64_t anon_open_waits;	/* the mutex's waits from do_sys_open */
};

static int write_user_waits(struct pwriter *w, const struct run_spec *s)
{
	uint64_t row[11] = { STORM_LOCK, TGID, ULK_MUTEX, tptr(&fxu_waiter), tptr("storm_lock"),
			     tptr("mutexstorm"), s->user_waits, s->user_waits * 1000, 1000, 1000, 0 };
	struct trows r = { .schema = &fxu_wait_schema, .n = 1, .v = row };

	return pwriter__table(w, 0, s->dur_ns, &r);
}

static int write_rows(struct pwriter *w, const struct run_spec *s)
{
	struct cont_row rows[3];
	struct sample_row sr;
	size_t n = 0;
	int err;

	if (s->files_waits)
		rows[n++] = fx_row(0xffff888100001000ULL, 1, LCB_F_SPIN, LOCK_CLASS_FILES_FILE_LOCK,
				   s->files_waits, s->files_ns, 100, 1000);
	if (s->anon_waits)
		rows[n++] = fx_row(s->anon_addr, 1, LCB_F_MUTEX, LOCK_CLASS_NONE, s->anon_waits,
				   s->anon_waits * 5000, 5000, 5000);
	if (s->anon_open_waits)
		rows[n++] = fx_row(s->anon_addr, 2, LCB_F_MUTEX, LOCK_CLASS_NONE, s->anon_open_waits,
				   s->anon_open_waits * 5000, 5000, 5000);
	err = pwriter__bucket(w, 0, s->dur_ns, rows, n);
	memset(&sr, 0, sizeof(sr));
	sr.key = (struct sample_ids){ 100, 100, 1, -1 };
	sr.count = s->samples;
	strcpy(sr.comm, "fdstorm");
	if (!err && s->samples)
		err = pwriter__samples(w, 0, s->dur_ns, &sr, 1);
	if (!err && s->user_waits)
		err = write_user_waits(w, s);
	return err;
}

static int write_run(int fd, const struct run_spec *s)
{
	struct kv meta[] = {
		{ (char *)"kernel", (char *)s->k->release },
		{ (char *)"cpus", (char *)"2" },
		{ (char *)"probe.ulocks", (char *)s->ulocks },
		{ (char *)"metric.name", (char *)"ops/s" },
		{ (char *)"metric.value", (char *)s->metric },
	};
	struct ksyms ks;
	struct pwriter_opts o = {
		.fd = fd, .ksyms = &ks, .fetch_stack = fetch_lock_stack,
		.fetch_sample_kstack = fetch_sample_stack, .fetch_ctx = (void *)s->k,
		.recording_id = fx_recording_id, .created_ns = FX_CREATED_NS,
	};
	struct pwriter *w;
	int err = kernel_syms(&ks, s->k);

	if (!err)
		err = pwriter__new(&w, &o);
	if (err) {
		ksyms_free(&ks);
		return err;
	}
	if (!s->ulocks)	/* no key: an older lockstat's profile */
		meta[2] = meta[0];
	err = pwriter__meta(w, meta, s->metric ? 5 : 3);
	if (!err)
		err = write_rows(w, s);
	if (!err)
		err = pwriter__end(w, s->dur_ns, 0, END_F_CLEAN);
	pwriter__free(w);
	ksyms_free(&ks);
	return err;
}

static struct profile *make_run(const struct run_spec *s)
{
	struct profile *p = NULL;
	char path[64], msg[256] = "";
	int fd = fx_tmpfile(path);

	assert_true(fd >= 0);
	assert_int_equal(write_run(fd, s), 0);
	close(fd);
	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("reading %s: %s", path, msg);
	unlink(path);
	return p;
}

/* Runs in, a built diff out; free with finish(). */
struct bench {
	struct diff_run runs[8];
	size_t n;
	struct diff d;
};

static int compare(struct bench *b, const struct run_spec *specs, size_t nb, size_t np,
		   const struct diff_opts *o)
{
	size_t i;

	b->n = nb + np;
	for (i = 0; i < b->n; i++)
		b->runs[i] = (struct diff_run){ make_run(&specs[i]), "run" };
	return diff__build(&b->d, b->runs, nb, np, o);
}

static void finish(struct bench *b, bool built)
{
	size_t i;

	if (built)
		diff__free(&b->d);
	for (i = 0; i < b->n; i++)
		profile__free((struct profile *)b->runs[i].p);
}

static const struct diff_row *row(const struct diff *d, const char *name, int depth)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!strcmp(d->rows[i].name, name) && d->rows[i].depth == depth)
			return &d->rows[i];
	fail_msg("no row '%s' at depth %d", name, depth);
	return NULL;
}

static struct diff_opts lock_opts(void)
{
	return (struct diff_opts){ .view = DIFF_VIEW_LOCKS, .value = DIFF_VALUE_WAIT,
				   .test = DIFF_TEST_AUTO, .adjust = ADJUST_BH, .alpha = 0.05 };
}

static void near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want) + 1e-12)
		fail_msg("got %.17g, want %.17g", got, want);
}

/* --- matching ------------------------------------------------------------------------ */

/*
 * This kernel against the VM tier's: other addresses for every function
 * and lock, alloc_fd built as alloc_fd.isra.0. Every row still matches.
 */
static void test_match_across_kernels(void **state)
{
	const struct run_spec specs[] = {
		{ &host, 1000000000, 1000, 2000000, 10, 0xffff888100002000ULL, 50, "100" },
		{ &vm, 1000000000, 400, 600000, 10, 0xffff9e0000abc000ULL, 20, "150" },
	};
	struct diff_opts o = lock_opts();
	struct bench b;
	const struct diff_row *files, *anon, *caller;
	size_t i, callers;

	(void)state;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(b.d.nrows, 4);	/* two locks, each with its one caller */
	files = row(&b.d, "files_struct.file_lock", 0);
	assert_string_equal(files->detail, "spinlock");
	assert_int_equal(files->status, DIFF_CHANGED);
	near(files->base.mean, 2000000, 1e-12);
	near(files->patched.mean, 600000, 1e-12);
	near(files->pct, -70, 1e-12);
	anon = row(&b.d, "[anon]@alloc_fd", 0);
	assert_int_equal(anon->status, DIFF_CHANGED);
	near(anon->delta, 0, 1e-12);
	/* Each lock's caller: alloc_fd, and alloc_fd.isra.0+0x20 in the other build. */
	for (i = 0, callers = 0; i < b.d.nrows; i++) {
		caller = &b.d.rows[i];
		if (!caller->depth)
			continue;
		callers++;
		assert_string_equal(caller->name, "alloc_fd");
		assert_int_equal(caller->status, DIFF_CHANGED);
	}
	assert_int_equal(callers, 2);
	finish(&b, true);

	o.view = DIFF_VIEW_HITS;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(b.d.nrows, 1);
	assert_string_equal(b.d.rows[0].name, "alloc_fd");
	assert_string_equal(b.d.rows[0].detail, "[kernel]");
	assert_true(b.d.rows[0].kernel);
	assert_int_equal(b.d.rows[0].base.count, 50);
	assert_int_equal(b.d.rows[0].patched.count, 20);
	finish(&b, true);
}

/* A lock only in the baseline is gone, one only in the patched kernel new. */
static void test_new_gone_order(void **state)
{
	const struct run_spec specs[] = {
		{ &host, 1000000000, 5000, 9000000, 0, 0, 0, NULL },
		{ &host, 1000000000, 0, 0, 100, 0xffff888100002000ULL, 0, NULL },
	};
	struct diff_opts o = lock_opts();
	struct bench b;
	const struct diff_row *files, *anon;

	(void)state;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	files = row(&b.d, "files_struct.file_lock", 0);
	anon = row(&b.d, "[anon]@alloc_fd", 0);
	assert_int_equal(files->status, DIFF_GONE);
	assert_int_equal(anon->status, DIFF_NEW);
	assert_true(isnan(anon->pct));
	near(files->base.share, 100, 1e-12);
	near(anon->patched.share, 100, 1e-12);
	/* By absolute change: 9 ms/s gone before 0.5 ms/s new, each lock before its callers. */
	assert_ptr_equal(&b.d.rows[b.d.order[0]], files);
	assert_int_equal(b.d.rows[b.d.order[1]].depth, 1);
	assert_ptr_equal(&b.d.rows[b.d.order[2]], anon);
	/* 5000 waits against none: more than counting noise. */
	assert_true(files->significant);
	assert_true(files->p < 1e-100);
	finish(&b, true);
}

/*
 * An anonymous mutex waited on from alloc_fd and do_sys_open about as
 * often: alloc_fd is its busiest caller in the base run, do_sys_open in
 * the patched one. It is one row in both, named by the function with the
 * most waits on anonymous locks over both runs; a lock whose second
 * caller has under half the waits of its first keeps the first.
 */
static void test_anon_close_callers(void **state)
{
	struct run_spec specs[] = {
		{ &host, 1000000000, 0, 0, 60, 0xffff888100002000ULL, 0, NULL },
		{ &vm, 1000000000, 0, 0, 40, 0xffff888100003000ULL, 0, NULL },
	};
	struct diff_opts o = lock_opts();
	struct bench b;
	size_t i;

	(void)state;
	specs[0].anon_open_waits = 50;
	specs[1].anon_open_waits = 55;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(row(&b.d, "[anon]@do_sys_open", 0)->status, DIFF_CHANGED);
	for (i = 0; i < b.d.nrows; i++)
		assert_string_not_equal(b.d.rows[i].name, "[anon]@alloc_fd");
	finish(&b, true);

	/*
	 * Each run's second function under half its first: named alloc_fd in
	 * one run, do_sys_open in the other. Only in the base under one name,
	 * only in the patched run under the other, with callers in common:
	 * one lock, merged, named by the same rule (a tie: the first name).
	 */
	specs[0].anon_waits = specs[1].anon_open_waits = 100;
	specs[0].anon_open_waits = specs[1].anon_waits = 10;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(b.d.nrows, 3);	/* the lock and its two callers */
	assert_int_equal(row(&b.d, "[anon]@alloc_fd", 0)->status, DIFF_CHANGED);
	near(row(&b.d, "[anon]@alloc_fd", 0)->base.mean, 110 * 5000, 1e-9);
	near(row(&b.d, "[anon]@alloc_fd", 0)->patched.mean, 110 * 5000, 1e-9);
	for (i = 0; i < b.d.nrows; i++) {
		assert_string_not_equal(b.d.rows[i].name, "[anon]@do_sys_open");
		if (b.d.rows[i].depth)
			assert_ptr_equal(&b.d.rows[b.d.rows[i].parent], row(&b.d, "[anon]@alloc_fd", 0));
	}
	near(row(&b.d, "do_sys_open", 1)->base.mean, 10 * 5000, 1e-9);
	near(row(&b.d, "do_sys_open", 1)->patched.mean, 100 * 5000, 1e-9);
	finish(&b, true);

	/* No caller in common: nothing says they are one lock. */
	specs[0].anon_open_waits = specs[1].anon_waits = 0;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(row(&b.d, "[anon]@alloc_fd", 0)->status, DIFF_GONE);
	assert_int_equal(row(&b.d, "[anon]@do_sys_open", 0)->status, DIFF_NEW);
	finish(&b, true);
}

/* Runs of different lengths compare per second: the same rate is no change. */
static void test_per_second(void **state)
{
	const struct run_spec specs[] = {
		{ &host, 1000000000, 1000, 1000000, 0, 0, 0, NULL },
		{ &host, 3000000000ULL, 3000, 3000000, 0, 0, 0, NULL },
	};
	struct diff_opts o = lock_opts();
	struct bench b;
	const struct diff_row *files;

	(void)state;
	o.value = DIFF_VALUE_COUNT;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(b.d.test, DIFF_TEST_POISSON);
	files = row(&b.d, "files_struct.file_lock", 0);
	near(files->base.mean, 1000, 1e-12);
	near(files->patched.mean, 1000, 1e-12);
	near(files->delta, 0, 1e-12);
	near(files->p, 1, 1e-12);
	assert_false(files->significant);
	near(b.d.total.delta, 0, 1e-12);
	finish(&b, true);
}

/* One run a side: the binomial test on counts; 3 waits against none is noise. */
static void test_poisson_small(void **state)
{
	const struct run_spec specs[] = {
		{ &host, 1000000000, 3, 3000, 0, 0, 0, NULL },
		{ &host, 1000000000, 0, 0, 0, 0, 0, NULL },
	};
	struct diff_opts o = lock_opts();
	struct bench b;
	const struct diff_row *files;

	(void)state;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	files = row(&b.d, "files_struct.file_lock", 0);
	near(files->p, 0.25, 1e-12);	/* 2 * 0.5^3 */
	assert_false(files->significant);
	finish(&b, true);
}

/*
 * Three runs a side: Welch. The same workload three times against itself
 * (a spread of a few per cent) is no change; a lock cut to a tenth is.
 */
static void test_welch_runs(void **state)
{
	const struct run_spec same[] = {
		{ &host, 1000000000, 1000, 1000000, 0, 0, 0, "100" },
		{ &host, 1000000000, 1040, 1040000, 0, 0, 0, "104" },
		{ &host, 1000000000, 980, 980000, 0, 0, 0, "98" },
		{ &host, 1000000000, 1010, 1010000, 0, 0, 0, "101" },
		{ &host, 1000000000, 1030, 1030000, 0, 0, 0, "103" },
		{ &host, 1000000000, 990, 990000, 0, 0, 0, "99" },
	};
	struct run_spec cut[6];
	struct diff_opts o = lock_opts();
	struct bench b;
	size_t i;

	(void)state;
	assert_int_equal(compare(&b, same, 3, 3, &o), 0);
	assert_int_equal(b.d.test, DIFF_TEST_WELCH);
	assert_false(row(&b.d, "files_struct.file_lock", 0)->significant);
	assert_false(b.d.metric.significant);
	assert_false(isnan(row(&b.d, "files_struct.file_lock", 0)->base.sd));
	finish(&b, true);

	memcpy(cut, same, sizeof(cut));
	for (i = 3; i < 6; i++) {	/* the baseline's runs, a tenth of the waits */
		cut[i].files_waits = same[i - 3].files_waits / 10;
		cut[i].files_ns = same[i - 3].files_ns / 10;
	}
	assert_int_equal(compare(&b, cut, 3, 3, &o), 0);
	assert_true(row(&b.d, "files_struct.file_lock", 0)->significant);
	near(row(&b.d, "files_struct.file_lock", 0)->pct, -90, 1e-12);
	finish(&b, true);

	/* Mann-Whitney: 3 + 3 runs can never reach 0.05 (its smallest p is 0.1). */
	o.test = DIFF_TEST_MWU;
	assert_int_equal(compare(&b, cut, 3, 3, &o), 0);
	near(row(&b.d, "files_struct.file_lock", 0)->p, 0.1, 1e-12);
	finish(&b, true);
}

/* The workload's own figure, from META, compared on its own. */
static void test_metric(void **state)
{
	const struct run_spec runs[] = {
		{ &host, 1000000000, 100, 1000, 0, 0, 0, "191986" },
		{ &host, 1000000000, 100, 1000, 0, 0, 0, "190500" },
		{ &host, 1000000000, 100, 1000, 0, 0, 0, "193400" },
		{ &host, 1000000000, 100, 1000, 0, 0, 0, "253083" },
		{ &host, 1000000000, 100, 1000, 0, 0, 0, "251000" },
		{ &host, 1000000000, 100, 1000, 0, 0, 0, "255100" },
	};
	struct diff_opts o = lock_opts();
	struct bench b;

	(void)state;
	assert_int_equal(compare(&b, runs, 3, 3, &o), 0);
	assert_string_equal(b.d.metric.name, "ops/s");
	assert_int_equal(b.d.metric.nb, 3);
	near(b.d.metric.base_mean, (191986 + 190500 + 193400) / 3.0, 1e-12);
	near(b.d.metric.pct, 100 * ((253083 + 251000 + 255100) / 3.0 / ((191986 + 190500 + 193400) / 3.0) - 1), 1e-9);
	assert_true(b.d.metric.significant);
	assert_true(b.d.metric.p < 0.001);
	/* The interval holds the change, and leaves 0 out as the test does. */
	assert_true(b.d.metric.lo > 0 && b.d.metric.lo < b.d.metric.pct && b.d.metric.pct < b.d.metric.hi);
	/* On logs: a ratio's interval, symmetric around the ratio of the geometric means. */
	near(log1p(b.d.metric.hi / 100) + log1p(b.d.metric.lo / 100),
	     2 * (log(253083.0 * 251000 * 255100) - log(191986.0 * 190500 * 193400)) / 3, 1e-9);
	finish(&b, true);

	/* One run a side: the change, and no test. */
	assert_int_equal(compare(&b, runs + 2, 1, 1, &o), 0);
	near(b.d.metric.pct, 100.0 * (253083 - 193400) / 193400, 1e-9);
	assert_true(isnan(b.d.metric.p));
	assert_true(isnan(b.d.metric.lo) && isnan(b.d.metric.hi));
	assert_false(b.d.metric.significant);
	finish(&b, true);
}

static void test_no_metric_and_errors(void **state)
{
	const struct run_spec runs[] = {
		{ &host, 1000000000, 100, 1000, 0, 0, 0, NULL },
		{ &host, 1000000000, 100, 1000, 0, 0, 0, NULL },
		{ &host, 0, 0, 0, 0, 0, 0, NULL },
	};
	struct diff_opts o = lock_opts();
	struct bench b;

	(void)state;
	assert_int_equal(compare(&b, runs, 1, 1, &o), 0);
	assert_null(b.d.metric.name);
	finish(&b, true);
	o.test = DIFF_TEST_WELCH;	/* needs 2 runs a side */
	assert_int_equal(compare(&b, runs, 1, 1, &o), -EINVAL);
	finish(&b, false);
	o.test = DIFF_TEST_AUTO;	/* a run of no duration has no rate */
	assert_int_equal(compare(&b, runs + 1, 1, 1, &o), -EINVAL);
	finish(&b, false);
}

/*
 * The locks are one family, the callers of each lock another; a caller
 * is marked only when its lock is.
 */
static void test_family(void **state)
{
	const struct run_spec specs[] = {
		{ &host, 1000000000, 1000, 1000000, 40, 0xffff888100002000ULL, 0, NULL },
		{ &host, 1000000000, 10, 10000, 41, 0xffff888100003000ULL, 0, NULL },
	};
	struct diff_opts o = lock_opts();
	struct bench b;
	size_t i;

	(void)state;
	o.adjust = ADJUST_HOLM;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(b.d.nrows, 4);
	assert_int_equal(b.d.ntested, 2);	/* the two locks */
	for (i = 0; i < b.d.nrows; i++) {
		const struct diff_row *r = &b.d.rows[i];

		assert_true(r->q >= r->p);
		if (r->depth)	/* alone in its family: unadjusted; marked with its lock */
			assert_true(r->q == r->p && r->significant == b.d.rows[r->parent].significant);
	}
	near(row(&b.d, "files_struct.file_lock", 0)->q, fmin(1, 2 * row(&b.d, "files_struct.file_lock", 0)->p), 1e-12);
	assert_true(row(&b.d, "files_struct.file_lock", 0)->significant);
	assert_false(row(&b.d, "[anon]@alloc_fd", 0)->significant);
	finish(&b, true);
}

/* --- families ------------------------------------------------------------------------ */

static bool any_user_row(const struct diff *d)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (!strncmp(d->rows[i].detail, "u:", 2))
			return true;
	return false;
}

/*
 * User locks recorded on the patched side only are not comparable: no
 * row of theirs (not "new, p < 0.001"), the total the kernel locks' alone.
 * Recorded on both sides they compare as any lock.
 */
static void test_family_one_side(void **state)
{
	struct run_spec specs[] = {
		{ &host, 1000000000, 1000, 1000000, 0, 0, 0, NULL, 0, "not recorded" },
		{ &host, 1000000000, 1000, 1000000, 0, 0, 0, NULL, 500, "tracepoint (futex)" },
	};
	struct diff_opts o = lock_opts();
	struct bench b;

	(void)state;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_int_equal(b.d.fam[DIFF_FAMILY_ULOCKS].nb, 0);
	assert_int_equal(b.d.fam[DIFF_FAMILY_ULOCKS].np, 1);
	assert_false(diff_family_comparable(&b.d.fam[DIFF_FAMILY_ULOCKS], 1, 1));
	assert_true(diff_family_comparable(&b.d.fam[DIFF_FAMILY_LOCKS], 1, 1));
	assert_false(any_user_row(&b.d));
	assert_int_equal(b.d.nrows, 2);	/* files_struct.file_lock and its caller */
	near(b.d.total.patched.mean, 1000000, 1e-12);
	assert_int_equal(b.d.total.status, DIFF_CHANGED);
	assert_false(b.d.total.significant);
	finish(&b, true);

	specs[0].user_waits = 400;	/* both record them: a row like any other */
	specs[0].ulocks = "tracepoint (futex)";
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_true(diff_family_comparable(&b.d.fam[DIFF_FAMILY_ULOCKS], 1, 1));
	assert_int_equal(row(&b.d, "storm_lock", 0)->status, DIFF_CHANGED);
	near(b.d.total.patched.mean, 1000000 + 500000, 1e-12);
	finish(&b, true);
}

/* Without META keys (an older lockstat), what a profile holds says what it recorded. */
static void test_family_from_data(void **state)
{
	const struct run_spec specs[] = {
		{ &host, 1000000000, 1000, 1000000, 0, 0, 50, NULL },
		{ &host, 1000000000, 1000, 1000000, 0, 0, 0, NULL, 30 },
	};
	struct diff_opts o = lock_opts();
	enum diff_family first;
	char text[256];
	struct bench b;

	(void)state;
	assert_int_equal(compare(&b, specs, 1, 1, &o), 0);
	assert_false(any_user_row(&b.d));
	assert_true(diff_recorded(b.runs[1].p, DIFF_FAMILY_ULOCKS));
	assert_false(diff_recorded(b.runs[0].p, DIFF_FAMILY_ULOCKS));
	/* Samples on the base side only: the hits view has nothing to compare. */
	assert_true(diff_recorded(b.runs[0].p, DIFF_FAMILY_SAMPLE));
	assert_false(diff_recorded(b.runs[1].p, DIFF_FAMILY_SAMPLE));
	assert_true(diff_nothing_comparable(b.d.fam, 1, 1, DIFF_VIEW_HITS, &first));
	assert_int_equal(first, DIFF_FAMILY_SAMPLE);
	diff_family_text(text, sizeof(text), first, &b.d.fam[first], 1, 1);
	assert_string_equal(text, "CPU samples (-e sample): recorded by 1 of 1 base run and 0 of 1 patched run");
	assert_false(diff_nothing_comparable(b.d.fam, 1, 1, DIFF_VIEW_LOCKS, &first));
	finish(&b, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_norm_func),
		cmocka_unit_test(test_norm_lock),
		cmocka_unit_test(test_match_across_kernels),
		cmocka_unit_test(test_new_gone_order),
		cmocka_unit_test(test_anon_close_callers),
		cmocka_unit_test(test_per_second),
		cmocka_unit_test(test_poisson_small),
		cmocka_unit_test(test_welch_runs),
		cmocka_unit_test(test_metric),
		cmocka_unit_test(test_no_metric_and_errors),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_family_one_side),
		cmocka_unit_test(test_family_from_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
