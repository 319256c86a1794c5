/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TEST_FIXTURES_ULOCKS_H
#define __LOCKSTAT_TEST_FIXTURES_ULOCKS_H

/*
 * A profile of user locks (the ulocks family's tables), shared by the
 * tests of the locks view and of the exports: mutexstorm's storm_lock
 * waited on from storm_op, a mutex on the heap, and a condition variable
 * (an event wait, no lock). User PCs are symbolized by fxu_resolve().
 */
#include "fixtures.h"
#include "format/ctable.h"
#include "ulocks.h"

#define TGID		42
#define LIBC		"/usr/lib/x86_64-linux-gnu/libc.so.6"
#define PROG_PATH	"/usr/bin/mutexstorm"
#define PC_LLL_WAIT	0x7f0000001010ULL	/* libc: the futex syscall */
#define PC_MUTEX_LOCK	0x7f0000002020ULL	/* libc: return into pthread_mutex_lock */
#define PC_STORM_OP	0x55d000001040ULL	/* the program: return into storm_op */
#define PC_RUN		0x55d000001140ULL	/* the program: return into run_worker */
#define STORM_LOCK	0x55d000004000ULL
#define STORM_COND	0x55d000004040ULL
#define HEAP_LOCK	0x55d001000040ULL

/* The user locks' waits of the profile: storm_lock and the heap lock (the condition variable is no lock). */
#define FXU_LOCK_WAITS		(10 + 3)
#define FXU_LOCK_WAIT_NS	(1000 + 30)

static inline int fxu_resolve(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns, struct usym_info *out)
{
	(void)seen_ns;
	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (tgid != TGID) {
		out->why = USYM_NO_MAPPING;
		return 0;
	}
	out->nframes = 1;
	out->module = addr >= 0x7f0000000000ULL ? LIBC : PROG_PATH;
	if (addr >= 0x7f0000001000ULL && addr < 0x7f0000002000ULL)
		out->frames[0] = (struct uframe){ "__lll_lock_wait", NULL, 0 };
	else if (addr >= 0x7f0000002000ULL && addr < 0x7f0000003000ULL)
		out->frames[0] = (struct uframe){ "pthread_mutex_lock", NULL, 0 };
	else if (addr >= 0x55d000001000ULL && addr < 0x55d000001100ULL)
		out->frames[0] = (struct uframe){ "storm_op", "mutexstorm.c", 12 };
	else if (addr >= 0x55d000001100ULL && addr < 0x55d000001200ULL)
		out->frames[0] = (struct uframe){ "run_worker", "mutexstorm.c", 30 };
	else
		out->nframes = 0;
	return 0;
}

static const struct tcol fxu_wait_cols[] = {
	{ "lock", TCOL_KEY }, { "pid", TCOL_KEY }, { "kind", TCOL_KEY },
	{ "stack", TCOL_KEY_USTACK }, { "name", TCOL_KEY_STR }, { "comm", TCOL_KEY_STR },
	{ "contended", TCOL_SUM }, { "wait_ns", TCOL_SUM },
	{ "wait_min_ns", TCOL_MIN }, { "wait_max_ns", TCOL_MAX }, { "hist_0", TCOL_SUM },
};

static const struct tcol fxu_hold_cols[] = {
	{ "lock", TCOL_KEY }, { "pid", TCOL_KEY }, { "kind", TCOL_KEY },
	{ "stack", TCOL_KEY_USTACK }, { "name", TCOL_KEY_STR }, { "comm", TCOL_KEY_STR },
	{ "acquired", TCOL_SUM }, { "held", TCOL_SUM }, { "hold_ns", TCOL_SUM }, { "hold_max_ns", TCOL_MAX },
};

static const struct tschema fxu_wait_schema = { "ulocks", 11, fxu_wait_cols };
static const struct tschema fxu_hold_schema = { "ulocks.holds", 10, fxu_hold_cols };

static const struct tustack fxu_waiter = { TGID, 4, { PC_LLL_WAIT, PC_MUTEX_LOCK, PC_STORM_OP, PC_RUN } };
static const struct tustack fxu_heap_waiter = { TGID, 3, { PC_LLL_WAIT, PC_STORM_OP, PC_RUN } };
static const struct tustack fxu_locker = { TGID, 3, { PC_MUTEX_LOCK, PC_STORM_OP, PC_RUN } };

static inline int fxu_put(struct pwriter *w, const struct tschema *s, uint64_t *v, size_t n)
{
	struct trows r = { .schema = s, .n = n, .v = v };

	return pwriter__table(w, 0, 1000000000, &r);
}

/* Tables of rows written as a profile, user PCs symbolized by resolve. */
struct fxu_table {
	const struct tschema *schema;
	uint64_t *rows;
	size_t n;
};

static inline int fxu_write(int fd, usym_resolve_fn resolve, const struct fxu_table *t, size_t nt)
{
	struct pwriter_opts o = { .fd = fd, .resolve_user = resolve, .created_ns = 1 };
	struct pwriter *w = NULL;
	int err = pwriter__new(&w, &o);
	size_t i;

	for (i = 0; !err && i < nt; i++)
		err = fxu_put(w, t[i].schema, t[i].rows, t[i].n);
	if (!err)
		err = pwriter__usyms(w);
	if (!err)
		err = pwriter__end(w, 1000000000, 0, END_F_CLEAN);
	pwriter__free(w);
	return err;
}

static inline int fxu_write_profile(int fd)
{
	uint64_t waits[3][11] = {
		{ STORM_LOCK, TGID, ULK_MUTEX, tptr(&fxu_waiter), tptr("storm_lock"), tptr("mutexstorm"),
		  10, 1000, 50, 300, 0 },
		{ HEAP_LOCK, TGID, ULK_MUTEX, tptr(&fxu_heap_waiter), tptr(""), tptr("mutexstorm"),
		  3, 30, 5, 20, 0 },
		{ STORM_COND, TGID, ULK_COND, tptr(&fxu_waiter), tptr("storm_cond"), tptr("mutexstorm"),
		  100, 99999, 1, 9000, 0 },
	};
	uint64_t holds[1][10] = {
		{ STORM_LOCK, TGID, ULK_MUTEX, tptr(&fxu_locker), tptr("storm_lock"), tptr("mutexstorm"),
		  50, 50, 5000, 400 },
	};
	const struct fxu_table t[] = {
		{ &fxu_wait_schema, &waits[0][0], 3 }, { &fxu_hold_schema, &holds[0][0], 1 },
	};

	return fxu_write(fd, fxu_resolve, t, 2);
}

/* The profile write() writes, read back; NULL on an error, which is printed. */
static inline struct profile *fxu_profile_of(int (*write)(int fd))
{
	struct profile *p = NULL;
	char path[64], msg[256] = "";
	int fd = fx_tmpfile(path), err;

	if (fd < 0)
		return NULL;
	err = write(fd);
	close(fd);
	if (!err)
		err = profile__read(path, &p, msg, sizeof(msg));
	unlink(path);
	if (err)
		fprintf(stderr, "user profile: %s\n", msg[0] ? msg : strerror(-err));
	return err ? NULL : p;
}

static inline struct profile *fxu_profile(void)
{
	return fxu_profile_of(fxu_write_profile);
}

#endif
