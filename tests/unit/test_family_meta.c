// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A probe family's status in META: the separate keys written now, read
 * back through the file format; the one sentence of older files (those
 * in tests/data among them) read as the same status and shown as the
 * same line; the families a profile names, in its order.
 */
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fixtures.h"
#include "format/family_meta.h"
#include "format/profile.h"

static void expect(const struct family_status *st, enum family_state state, const char *mode,
		   const char *missing, const char *why)
{
	assert_int_equal(st->state, state);
	assert_string_equal(st->mode, mode);
	assert_string_equal(st->missing, missing);
	assert_string_equal(st->why, why);
}

/* lockstat 0.1.0's sentences: the status each one means, and the same line back. */
static void test_legacy_sentences(void **state)
{
	static const struct {
		const char *sentence;
		enum family_state state;
		const char *mode, *missing, *why;
	} cases[] = {
		{ "tp_btf", FSTATE_ATTACHED, "tp_btf", "", "" },
		{ "cpu-clock@199Hz", FSTATE_ATTACHED, "cpu-clock@199Hz", "", "" },
		{ "not recorded", FSTATE_NOT_WANTED, "", "", "" },
		{ "not attached: no lock/contention_begin tracepoint in this kernel", FSTATE_NOT_ATTACHED,
		  "", "", "no lock/contention_begin tracepoint in this kernel" },
		{ "not attached", FSTATE_NOT_ATTACHED, "", "", "" },
		{ "tp_btf; fget not measured: fentry: refused; kprobe: no kprobe PMU", FSTATE_ATTACHED,
		  "tp_btf", "fget", "fentry: refused; kprobe: no kprobe PMU" },
		{ "tp_btf+fentry(fget,fget_raw)", FSTATE_ATTACHED, "tp_btf+fentry(fget,fget_raw)", "", "" },
		{ "tp_btf:add,delete,lookup", FSTATE_ATTACHED, "tp_btf:add,delete,lookup", "", "" },
		{ "uprobe (pid 7) in /lib/libc.so.6; 1.2 us a hit, budget 10000/s; spin not probed (x)",
		  FSTATE_ATTACHED,
		  "uprobe (pid 7) in /lib/libc.so.6; 1.2 us a hit, budget 10000/s; spin not probed (x)", "", "" },
	};
	struct family_status st;
	char line[600];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kv kv = { (char *)"probe.fd", (char *)cases[i].sentence };

		family_meta_read(fx_meta_only(&kv, 1), "fd", &st);
		expect(&st, cases[i].state, cases[i].mode, cases[i].missing, cases[i].why);
		assert_string_equal(family_status_line(&st, line, sizeof(line)), cases[i].sentence);
	}
}

/* The contention probes' key predates the family names; no key at all is still shown as before. */
static void test_legacy_names(void **state)
{
	struct kv kv = { (char *)"probe.contention", (char *)"tracepoint" };
	struct family_status st;
	char line[64];

	(void)state;
	family_meta_read(fx_meta_only(&kv, 1), "locks", &st);
	expect(&st, FSTATE_ATTACHED, "tracepoint", "", "");
	family_meta_read(fx_meta_only(NULL, 0), "locks", &st);
	assert_string_equal(family_status_line(&st, line, sizeof(line)), "not attached");
	family_meta_read(fx_meta_only(NULL, 0), "sample", &st);
	assert_string_equal(family_status_line(&st, line, sizeof(line)), "not recorded");
	assert_string_equal(family_legacy_name("locks"), "contention");
	assert_string_equal(family_legacy_name("fd"), "fd");
}

/* Where both are there, the keys win over the sentence. */
static void test_keys_win(void **state)
{
	struct kv kv[] = {
		{ (char *)"probe.fd", (char *)"not recorded" },
		{ (char *)"family.fd.state", (char *)"attached" },
		{ (char *)"family.fd.mode", (char *)"tracepoint" },
		{ (char *)"family.fd.missing", (char *)"fget" },
		{ (char *)"family.fd.why", (char *)"--attach=tracepoint uses tracepoints only" },
	};
	struct family_status st;

	(void)state;
	family_meta_read(fx_meta_only(kv, 5), "fd", &st);
	expect(&st, FSTATE_ATTACHED, "tracepoint", "fget", "--attach=tracepoint uses tracepoints only");
}

static const struct {
	const char *family;
	struct family_status st;
} written[] = {
	{ "locks", { FSTATE_ATTACHED, "tp_btf", "", "" } },
	{ "sample", { FSTATE_NOT_WANTED, "", "", "" } },
	{ "fd", { FSTATE_ATTACHED, "tp_btf", "fget", "fentry: refused; kprobe: none" } },
	{ "hold", { FSTATE_NOT_ATTACHED, "fentry", "", "needs fentry: refused" } },
	{ "pagecache", { FSTATE_ATTACHED, "tp_btf:add,delete", "", "" } },
};

#define NWRITTEN	(sizeof(written) / sizeof(written[0]))

static int write_statuses(int fd)
{
	struct pwriter_opts o = { .fd = fd, .recording_id = fx_recording_id, .created_ns = FX_CREATED_NS };
	struct family_meta fm;
	struct pwriter *w;
	size_t i;
	int err = pwriter__new(&w, &o);

	for (i = 0; !err && i < NWRITTEN; i++) {
		family_meta_keys(written[i].family, &written[i].st, &fm);
		err = pwriter__meta(w, fm.kv, fm.n);
	}
	if (!err)
		err = pwriter__end(w, FX_DURATION_NS, 0, END_F_CLEAN);
	if (w)
		pwriter__free(w);
	return err;
}

/*
 * Written and read back through the file: the same status (a mode is
 * only kept for an attached family), the order of the families, and the
 * old key with the line an older lockstat shows.
 */
static void test_round_trip(void **state)
{
	char path[64], msg[256], line[600], names[8][32];
	struct family_status st;
	struct profile *p;
	int fd = fx_tmpfile(path);
	size_t i;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write_statuses(fd), 0);
	close(fd);
	assert_int_equal(profile__read(path, &p, msg, sizeof(msg)), 0);
	unlink(path);
	for (i = 0; i < NWRITTEN; i++) {
		const struct family_status *want = &written[i].st;
		char key[64];

		family_meta_read(p, written[i].family, &st);
		expect(&st, want->state, want->state == FSTATE_ATTACHED ? want->mode : "", want->missing,
		       want->why);
		snprintf(key, sizeof(key), "probe.%s", family_legacy_name(written[i].family));
		assert_string_equal(profile__meta(p, key), family_status_line(&st, line, sizeof(line)));
	}
	assert_string_equal(profile__meta(p, "probe.fd"), "tp_btf; fget not measured: fentry: refused; kprobe: none");
	assert_string_equal(profile__meta(p, "family.hold.state"), "not attached");
	assert_null(profile__meta(p, "family.hold.mode"));
	assert_int_equal(family_meta_names(p, names, 8), NWRITTEN);
	for (i = 0; i < NWRITTEN; i++)
		assert_string_equal(names[i], written[i].family);
	profile__free(p);
}

static void test_names_legacy_order(void **state)
{
	struct kv kv[] = {
		{ (char *)"kernel", (char *)"6.1" },
		{ (char *)"probe.contention", (char *)"tp_btf" },
		{ (char *)"probe.sample", (char *)"not recorded" },
		{ (char *)"probe.mmap_lock", (char *)"tp_btf" },
		{ (char *)"probe.", (char *)"nameless: not a family" },
	};
	char names[8][32];

	(void)state;
	assert_int_equal(family_meta_names(fx_meta_only(kv, 5), names, 8), 3);
	assert_string_equal(names[0], "locks");
	assert_string_equal(names[1], "sample");
	assert_string_equal(names[2], "mmap_lock");
	assert_int_equal(family_meta_names(fx_meta_only(kv, 5), names, 2), 2);
	assert_int_equal(family_meta_names(fx_meta_only(kv, 1), names, 8), 0);
}

/*
 * The recorded fixtures, written by lockstat 0.1.0: every probe.NAME
 * reads as a status whose line is the sentence itself.
 */
static void check_fixture(const char *path, size_t *nfamilies)
{
	char msg[256], line[600], names[16][32];
	struct family_status st;
	struct profile *p;
	size_t i, n;

	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("%s: %s", path, msg);
	n = family_meta_names(p, names, 16);
	for (i = 0; i < n; i++) {
		char key[64];

		snprintf(key, sizeof(key), "probe.%s", family_legacy_name(names[i]));
		family_meta_read(p, names[i], &st);
		assert_string_equal(family_status_line(&st, line, sizeof(line)), profile__meta(p, key));
	}
	family_meta_read(p, "locks", &st);
	expect(&st, FSTATE_ATTACHED, "tp_btf", "", "");
	*nfamilies += n;
	profile__free(p);
}

static void test_fixtures(void **state)
{
	size_t i, nfamilies = 0;
	glob_t g;

	(void)state;
	assert_int_equal(glob(LOCKSTAT_TEST_DATA "/*.data", 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 6);
	for (i = 0; i < g.gl_pathc; i++)
		check_fixture(g.gl_pathv[i], &nfamilies);
	globfree(&g);
	/*
	 * fdstorm and hotspots name two families; vm61-fdstorm,
	 * mutexstorm-ulocks, fdstorm-sampled and mmapstorm (recorded again,
	 * format 1.1) all eight.
	 */
	assert_int_equal(nfamilies, 2 + 2 + 8 + 8 + 8 + 8);
}

static void test_fixture_states(void **state)
{
	char msg[256];
	struct family_status st;
	struct profile *p;

	(void)state;
	assert_int_equal(profile__read(LOCKSTAT_TEST_DATA "/mmapstorm.data", &p, msg, sizeof(msg)), 0);
	family_meta_read(p, "sample", &st);
	expect(&st, FSTATE_NOT_WANTED, "", "", "");
	profile__free(p);
	assert_int_equal(profile__read(LOCKSTAT_TEST_DATA "/vm61-fdstorm.data", &p, msg, sizeof(msg)), 0);
	family_meta_read(p, "sample", &st);
	expect(&st, FSTATE_ATTACHED, "cpu-clock@999Hz", "", "");
	family_meta_read(p, "mmap_lock", &st);
	expect(&st, FSTATE_ATTACHED, "tp_btf", "", "");
	family_meta_read(p, "fd", &st);
	expect(&st, FSTATE_NOT_WANTED, "", "", "");
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_sentences),
		cmocka_unit_test(test_legacy_names),
		cmocka_unit_test(test_keys_win),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_names_legacy_order),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_fixture_states),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
