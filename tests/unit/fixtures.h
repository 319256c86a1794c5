/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TEST_FIXTURES_H
#define __LOCKSTAT_TEST_FIXTURES_H

/*
 * Shared by the unit tests that need a written profile: a small fake
 * kernel symbol table, fixed stacks, and one profile file built through
 * pwriter. Header-only; everything is static inline so that a test that
 * uses part of it still builds with -Werror.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "contention.h"
#include "sym/ksyms.h"
#include "format/profile.h"

/* Kernel text and data of the fake kernel. */
#define FX_STEXT		0xffffffff81000000ULL
#define FX_ALLOC_FD		0xffffffff81001000ULL	/* size 0x100 */
#define FX_DO_SYS_OPEN		0xffffffff81002000ULL	/* size 0x200 */
#define FX_OTHER_FN		0xffffffff81003000ULL	/* size 0x80 */
#define FX_LOCK_TEXT_START	0xffffffff82000000ULL
#define FX_RAW_SPIN_LOCK	0xffffffff82000000ULL	/* size 0x40 */
#define FX_RAW_READ_LOCK	0xffffffff82000040ULL	/* size 0x40 */
#define FX_LOCK_TEXT_END	0xffffffff82001000ULL
#define FX_TASKLIST_LOCK	0xffffffff83000000ULL	/* 'd', size 0x40 */
#define FX_DATA_END		0xffffffff83001000ULL

/* Lock addresses of the rows. */
#define FX_FILES_LOCK_A		0xffff888100001000ULL	/* LOCK_CLASS_FILES_FILE_LOCK */
#define FX_FILES_LOCK_B		0xffff888100001800ULL	/* same class, other task */
#define FX_ANON_MUTEX		0xffff888100002000ULL	/* no name: 0x..@alloc_fd */
#define FX_ANON_RWSEM		0xffff888100003000ULL	/* first seen without a stack */
#define FX_RQ_LOCK		0xffff88823fc2c000ULL	/* the recording found rq.__lock */

#define FX_CREATED_NS		1700000000123456789ULL
#define FX_DURATION_NS		5000000000ULL
#define FX_EXIT_STATUS		(-3)

static const uint8_t fx_recording_id[16] = {
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

/* A profile that holds only META keys: what the readers of META look at; one at a time. */
static inline struct profile *fx_meta_only(struct kv *kv, size_t n)
{
	static struct profile p;

	memset(&p, 0, sizeof(p));
	p.meta = kv;
	p.nmeta = n;
	return &p;
}

static inline int fx_ksyms(struct ksyms *ks)
{
	int err = 0;

	ksyms_init(ks);
	/* Added out of order on purpose: ksyms_sort() orders them. */
	err |= ksyms_add(ks, FX_TASKLIST_LOCK, 0x40, "tasklist_lock", NULL, 'd');
	err |= ksyms_add(ks, FX_DATA_END, 0, "_edata", NULL, 'D');
	err |= ksyms_add(ks, FX_ALLOC_FD, 0x100, "alloc_fd", NULL, 't');
	err |= ksyms_add(ks, FX_STEXT, 0, "_stext", NULL, 'T');
	err |= ksyms_add(ks, FX_DO_SYS_OPEN, 0x200, "do_sys_open", NULL, 'T');
	err |= ksyms_add(ks, FX_OTHER_FN, 0x80, "other_fn", NULL, 't');
	err |= ksyms_add(ks, FX_LOCK_TEXT_START, 0, "__lock_text_start", NULL, 'T');
	err |= ksyms_add(ks, FX_RAW_SPIN_LOCK, 0x40, "_raw_spin_lock", NULL, 'T');
	err |= ksyms_add(ks, FX_RAW_READ_LOCK, 0x40, "_raw_read_lock", NULL, 'T');
	err |= ksyms_add(ks, FX_LOCK_TEXT_END, 0, "__lock_text_end", NULL, 'T');
	ksyms_sort(ks);
	return err;
}

/* Stack 1 and 3 are called from alloc_fd+0x20, stack 2 from do_sys_open+0x44. */
#define FX_NSTACKS	3
static inline int fx_stack_frames(int32_t id, uint64_t *frames, int max)
{
	static const uint64_t s1[] = { FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20, FX_DO_SYS_OPEN + 0x30 };
	static const uint64_t s2[] = { FX_RAW_READ_LOCK + 0x08, FX_DO_SYS_OPEN + 0x44 };
	static const uint64_t s3[] = { FX_RAW_SPIN_LOCK + 0x10, FX_ALLOC_FD + 0x20, FX_OTHER_FN + 0x10, FX_DO_SYS_OPEN + 0x30 };
	const uint64_t *s;
	int n, i;

	switch (id) {
	case 1: s = s1; n = 3; break;
	case 2: s = s2; n = 2; break;
	case 3: s = s3; n = 4; break;
	default: return -ENOENT;
	}
	for (i = 0; i < n && i < max; i++)
		frames[i] = s[i];
	return i;
}

struct fx_fetch_ctx {
	unsigned int calls;
};

static inline int fx_fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct fx_fetch_ctx *c = ctx;

	if (c)
		c->calls++;
	return fx_stack_frames(id, frames, max);
}

static inline struct cont_row fx_row(uint64_t lock_addr, int32_t stack_id, uint32_t flags,
				     uint32_t lock_class, uint64_t count, uint64_t total_ns,
				     uint64_t min_ns, uint64_t max_ns)
{
	struct cont_row r;

	memset(&r, 0, sizeof(r));
	r.key.lock_addr = lock_addr;
	r.key.stack_id = stack_id;
	r.key.flags = flags;
	r.key.lock_class = lock_class;
	r.val.count = count;
	r.val.total_ns = total_ns;
	r.val.min_ns = min_ns;
	r.val.max_ns = max_ns;
	return r;
}

/*
 * The rows of the two buckets. Bucket 2 repeats bucket 1's first row, so
 * the reader has to sum them.
 */
#define FX_BUCKET1_ROWS	4
#define FX_BUCKET2_ROWS	5
static inline void fx_bucket1(struct cont_row *r)
{
	r[0] = fx_row(FX_FILES_LOCK_A, 1, LCB_F_SPIN, LOCK_CLASS_FILES_FILE_LOCK, 3, 3000, 500, 1500);
	r[0].val.hist[8] = 1;
	r[0].val.hist[9] = 1;
	r[0].val.hist[10] = 1;
	r[1] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_READ, LOCK_CLASS_NONE, 2, 20000, 8000, 12000);
	r[1].val.hist[12] = 1;
	r[1].val.hist[13] = 1;
	r[2] = fx_row(FX_ANON_MUTEX, 1, LCB_F_MUTEX, LOCK_CLASS_NONE, 1, 100000, 100000, 100000);
	r[2].val.hist[16] = 1;
	r[3] = fx_row(FX_RQ_LOCK, 2, LCB_F_SPIN, LOCK_CLASS_NONE, 4, 400, 100, 100);
	r[3].val.hist[6] = 4;
	r[3].found = "rq.__lock";	/* what the recording found (lib/record/lockname.c) */
}

static inline void fx_bucket2(struct cont_row *r)
{
	r[0] = fx_row(FX_FILES_LOCK_A, 1, LCB_F_SPIN, LOCK_CLASS_FILES_FILE_LOCK, 2, 4200, 200, 4000);
	r[0].val.hist[7] = 1;
	r[0].val.hist[11] = 1;
	r[1] = fx_row(FX_ANON_RWSEM, -1, LCB_F_READ, LOCK_CLASS_NONE, 5, 50000, 1000, 20000);
	r[1].val.hist[9] = 5;
	/* Same address, now with a stack: keeps the name it got first. */
	r[2] = fx_row(FX_ANON_RWSEM, 2, LCB_F_WRITE, LOCK_CLASS_NONE, 1, 70000, 70000, 70000);
	r[2].val.hist[16] = 1;
	/* Another task's files_struct, another stack, the same caller. */
	r[3] = fx_row(FX_FILES_LOCK_B, 3, LCB_F_SPIN, LOCK_CLASS_FILES_FILE_LOCK, 1, 9000, 9000, 9000);
	r[3].val.hist[13] = 1;
	/* Per-task row. */
	r[4] = fx_row(FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_WRITE, LOCK_CLASS_NONE, 1, 6000, 6000, 6000);
	r[4].val.hist[12] = 1;
	r[4].key.tgid = 100;
	r[4].key.tid = 101;
	strcpy(r[4].comm, "worker");
}

#define FX_BUCKET1_T0	1000ULL
#define FX_BUCKET1_T1	2000000000ULL
#define FX_BUCKET2_T0	2000000000ULL
#define FX_BUCKET2_T1	4000000000ULL
#define FX_NROWS	8	/* distinct keys over both buckets */

/* Write the whole fixture profile to fd; 0 or -errno. */
static inline int fx_write_profile(int fd, const struct ksyms *ks, struct fx_fetch_ctx *ctx)
{
	static const struct kv meta[] = {
		{ (char *)"version", (char *)"0.1.0" },
		{ (char *)"command", (char *)"lockstat record -a" },
		{ (char *)"cpus", (char *)"8" },
	};
	static const struct kv lost[] = {
		{ (char *)"missing_begin", (char *)"2" },
		{ (char *)"map_full", (char *)"0" },
	};
	struct pwriter_opts o = {
		.fd = fd,
		.ksyms = ks,
		.fetch_stack = fx_fetch_stack,
		.fetch_ctx = ctx,
		.recording_id = fx_recording_id,
		.created_ns = FX_CREATED_NS,
	};
	struct cont_row b1[FX_BUCKET1_ROWS], b2[FX_BUCKET2_ROWS];
	struct pwriter *w;
	int err;

	fx_bucket1(b1);
	fx_bucket2(b2);
	err = pwriter__new(&w, &o);
	if (err)
		return err;
	err = pwriter__meta(w, meta, 3);
	if (!err)
		err = pwriter__bucket(w, FX_BUCKET1_T0, FX_BUCKET1_T1, b1, FX_BUCKET1_ROWS);
	if (!err)
		err = pwriter__bucket(w, FX_BUCKET2_T0, FX_BUCKET2_T1, b2, FX_BUCKET2_ROWS);
	if (!err)
		err = pwriter__lost(w, lost, 2);
	if (!err)
		err = pwriter__end(w, FX_DURATION_NS, FX_EXIT_STATUS, END_F_CLEAN);
	pwriter__free(w);
	return err;
}

/* A fresh temporary file; its name lands in path (at least 64 bytes). */
static inline int fx_tmpfile(char *path)
{
	strcpy(path, "/tmp/lockstat-unit-XXXXXX");
	return mkstemp(path);
}

/* The whole file in a buffer of exactly its size (malloc), or NULL. */
static inline uint8_t *fx_slurp(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *data;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	data = malloc(st.st_size ? st.st_size : 1);
	while (data && got < (size_t)st.st_size) {
		ssize_t r = read(fd, data + got, st.st_size - got);

		if (r <= 0) {
			free(data);
			data = NULL;
			break;
		}
		got += r;
	}
	close(fd);
	*size = got;
	return data;
}

/* Write the fixture profile into a temp file and return its bytes too. */
static inline uint8_t *fx_profile_bytes(char *path, size_t *size)
{
	struct fx_fetch_ctx ctx = { 0 };
	struct ksyms ks;
	uint8_t *data = NULL;
	int fd = fx_tmpfile(path), err;

	if (fd < 0)
		return NULL;
	err = fx_ksyms(&ks);
	if (!err)
		err = fx_write_profile(fd, &ks, &ctx);
	ksyms_free(&ks);
	close(fd);
	if (!err)
		data = fx_slurp(path, size);
	return data;
}

/*
 * A row of a read profile by the fields that tell the fixture's rows apart,
 * copied out: table slots need not be aligned for the row types.
 */
static inline bool fx_find_row(const struct profile *p, uint64_t lock_addr, int32_t stack_id,
			       uint32_t flags, struct lock_row_key *k, struct lock_row_val *v)
{
	const void *key, *val;
	size_t it = 0;

	while ((val = htab_next(&p->rows, &it, &key))) {
		memcpy(k, key, sizeof(*k));
		if (k->lock_addr == lock_addr && k->stack_id == stack_id && k->flags == flags) {
			memcpy(v, val, sizeof(*v));
			return true;
		}
	}
	return false;
}

/* What a test's recording found at addr: 0 and its name, or -ENOENT. */
typedef int (*fx_found_fn)(void *ctx, uint64_t addr, char *buf, size_t len);

#define FX_FOUND_LEN	128

/* A bucket's rows, each with what found() says was found at its lock, in names; 0 or -errno. */
static inline int fx_bucket_found(struct pwriter *w, uint64_t t0, uint64_t t1, const struct cont_row *rows,
				  size_t n, fx_found_fn found)
{
	struct cont_row *r = calloc(n ? n : 1, sizeof(*r));
	char (*names)[FX_FOUND_LEN] = calloc(n ? n : 1, FX_FOUND_LEN);
	size_t i;
	int err = r && names ? 0 : -ENOMEM;

	for (i = 0; !err && i < n; i++) {
		r[i] = rows[i];
		if (found && !found(NULL, rows[i].key.lock_addr, names[i], FX_FOUND_LEN))
			r[i].found = names[i];
	}
	if (!err)
		err = pwriter__bucket(w, t0, t1, r, n);
	free(r);
	free(names);
	return err;
}

/*
 * A profile of these buckets of rows (bucket i: [i, i + 1) x bucket_ns),
 * with the fixture's symbols and stacks and these META keys first,
 * written and read back; NULL on error.
 */
static inline struct profile *fx_written_meta(const struct cont_row *const *buckets, const size_t *n,
					      size_t nbuckets, uint64_t bucket_ns, fx_found_fn found,
					      const struct kv *meta, size_t nmeta)
{
	struct pwriter_opts o = { .fetch_stack = fx_fetch_stack };
	struct profile *p = NULL;
	struct pwriter *w = NULL;
	struct ksyms ks;
	char path[64], msg[256];
	size_t i;
	int fd, err;

	if (fx_ksyms(&ks))
		return NULL;
	fd = fx_tmpfile(path);
	o.fd = fd;
	o.ksyms = &ks;
	err = fd < 0 ? -EIO : pwriter__new(&w, &o);
	if (!err && nmeta)
		err = pwriter__meta(w, meta, nmeta);
	for (i = 0; !err && i < nbuckets; i++)
		err = fx_bucket_found(w, i * bucket_ns, (i + 1) * bucket_ns, buckets[i], n[i], found);
	pwriter__free(w);
	if (fd >= 0)
		close(fd);
	ksyms_free(&ks);
	if (!err)
		err = profile__read(path, &p, msg, sizeof(msg));
	unlink(path);
	return err ? NULL : p;
}

static inline struct profile *fx_written_named(const struct cont_row *const *buckets, const size_t *n,
					       size_t nbuckets, uint64_t bucket_ns, fx_found_fn found)
{
	return fx_written_meta(buckets, n, nbuckets, bucket_ns, found, NULL, 0);
}

static inline struct profile *fx_written(const struct cont_row *const *buckets, const size_t *n,
					 size_t nbuckets, uint64_t bucket_ns)
{
	return fx_written_named(buckets, n, nbuckets, bucket_ns, NULL);
}

#endif
