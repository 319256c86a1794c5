/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TEST_FIXTURES_TABLES_H
#define __LOCKSTAT_TEST_FIXTURES_TABLES_H

/*
 * Profiles of the counting families for the tests of their views: a
 * writer callback puts the META, lock rows and counter tables it wants,
 * fxt_profile() writes the file, ends it and reads it back. Include after
 * <cmocka.h>: failures are cmocka's.
 */
#include "fixtures.h"
#include "format/ctable.h"
#include "format/family_meta.h"

typedef void (*fxt_fill_fn)(struct pwriter *w, void *ctx);

static inline void fxt_table(struct pwriter *w, const struct tschema *s, uint64_t *v, size_t nrows)
{
	struct trows r = { .schema = s, .n = nrows, .v = v };

	assert_int_equal(pwriter__table(w, FX_BUCKET1_T0, FX_BUCKET1_T1, &r), 0);
}

/* family.NAME.* in META: state "attached" when mode is given, else not wanted. */
static inline void fxt_family(struct pwriter *w, const char *family, const char *mode,
			      const char *missing, const char *why)
{
	struct family_status st = { .state = mode ? FSTATE_ATTACHED : FSTATE_NOT_WANTED };
	struct family_meta m;

	snprintf(st.mode, sizeof(st.mode), "%s", mode ? mode : "");
	snprintf(st.missing, sizeof(st.missing), "%s", missing ? missing : "");
	snprintf(st.why, sizeof(st.why), "%s", why ? why : "");
	family_meta_keys(family, &st, &m);
	assert_int_equal(pwriter__meta(w, m.kv, m.n), 0);
}

/* The profile of FX_DURATION_NS that fill() wrote to path with options o (fd set here). */
static inline struct profile *fxt_profile_at(struct pwriter_opts o, fxt_fill_fn fill, void *ctx,
					     const char *path)
{
	struct pwriter *w = NULL;
	struct profile *p = NULL;
	char msg[256] = "";
	int fd = open(path, O_RDWR | O_TRUNC);

	assert_true(fd >= 0);
	o.fd = fd;
	o.created_ns = FX_CREATED_NS;
	assert_int_equal(pwriter__new(&w, &o), 0);
	fill(w, ctx);
	assert_int_equal(pwriter__end(w, FX_DURATION_NS, 0, END_F_CLEAN), 0);
	pwriter__free(w);
	close(fd);
	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("reading %s: %s", path, msg);
	return p;
}

/* The same in a temporary file, removed once read. */
static inline struct profile *fxt_profile(struct pwriter_opts o, fxt_fill_fn fill, void *ctx)
{
	struct profile *p;
	char path[64];
	int fd = fx_tmpfile(path);

	assert_true(fd >= 0);
	close(fd);
	p = fxt_profile_at(o, fill, ctx, path);
	unlink(path);
	return p;
}

#endif
