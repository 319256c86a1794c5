// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
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
#include "base/buf.h"
#include "format/lock_naming.h"
#include "format/profile.h"
#include "view/view_locks.h"
#include "fixtures.h"

/* The fixture profile, written once per test through pwriter. */
struct fixture {
	char path[64];
	uint8_t *data;
	size_t size;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	*state = fx;
	if (!fx)
		return -1;
	fx->data = fx_profile_bytes(fx->path, &fx->size);
	return fx->data ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->path[0])
		unlink(fx->path);
	free(fx->data);
	free(fx);
	return 0;
}

/* Read a prefix of the fixture from a buffer of exactly that size. */
static int read_prefix(const uint8_t *data, size_t size, struct profile **p, char *msg, size_t len)
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

static void expect_row(const struct profile *p, uint64_t lock_addr, int32_t stack_id, uint32_t flags,
		       const char *name, const char *caller, const struct lock_row_val *want)
{
	struct lock_row_key k;
	struct lock_row_val v;

	assert_true(fx_find_row(p, lock_addr, stack_id, flags, &k, &v));
	assert_string_equal(profile__str(p, k.name), name);
	assert_string_equal(profile__str(p, k.caller), caller);
	assert_true(v.count == want->count);
	assert_true(v.total_ns == want->total_ns);
	assert_true(v.min_ns == want->min_ns);
	assert_true(v.max_ns == want->max_ns);
	assert_memory_equal(v.hist, want->hist, sizeof(v.hist));
}

/* What the reader should have for a row written once. */
static struct lock_row_val row_val(const struct cont_row *r)
{
	struct lock_row_val v = {
		.count = r->val.count, .total_ns = r->val.total_ns,
		.min_ns = r->val.min_ns, .max_ns = r->val.max_ns,
	};
	size_t i;

	for (i = 0; i < LS_HIST_SLOTS; i++)
		v.hist[i] = r->val.hist[i];
	return v;
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct cont_row b1[FX_BUCKET1_ROWS], b2[FX_BUCKET2_ROWS];
	struct lock_row_val want;
	struct lock_row_key k;
	struct lock_row_val v;
	struct profile *p = NULL;
	char msg[256] = "";
	int32_t id;
	size_t i;

	assert_int_equal(profile__read(fx->path, &p, msg, sizeof(msg)), 0);
	assert_non_null(p);

	/* Header. */
	assert_int_equal(p->hdr.major, LKST_MAJOR);
	assert_int_equal(p->hdr.minor, LKST_MINOR);
	assert_true(p->hdr.created_ns == FX_CREATED_NS);
	assert_memory_equal(p->hdr.recording_id, fx_recording_id, 16);

	/* META and LOST. */
	assert_int_equal(p->nmeta, 3);
	assert_string_equal(profile__meta(p, "version"), "0.1.0");
	assert_string_equal(profile__meta(p, "command"), "lockstat record -a");
	assert_string_equal(profile__meta(p, "cpus"), "8");
	assert_null(profile__meta(p, "missing_begin"));
	assert_int_equal(p->nlost, 2);
	for (i = 0; i < p->nlost; i++) {
		if (!strcmp(p->lost[i].key, "missing_begin"))
			assert_string_equal(p->lost[i].value, "2");
		else if (!strcmp(p->lost[i].key, "map_full"))
			assert_string_equal(p->lost[i].value, "0");
		else
			fail_msg("unexpected lost key %s", p->lost[i].key);
	}

	/* Buckets, END, and a clean stop at the end of the file. */
	assert_int_equal(p->nbuckets, 2);
	assert_true(p->last_bucket_end_ns == FX_BUCKET2_T1);
	assert_true(p->has_end);
	assert_true(p->end_duration_ns == FX_DURATION_NS);
	assert_true(p->end_exit_status == FX_EXIT_STATUS);
	assert_int_equal(p->end_flags, END_F_CLEAN);
	assert_true(profile__duration_ns(p) == FX_DURATION_NS);
	assert_int_equal(p->stop, WALK_EOF);
	assert_int_equal(p->stop_offset, fx->size);

	/* Rows: the repeated key summed, each name and caller resolved. */
	fx_bucket1(b1);
	fx_bucket2(b2);
	assert_int_equal(p->rows.count, FX_NROWS);
	memset(&want, 0, sizeof(want));
	want.count = 5;
	want.total_ns = 7200;
	want.min_ns = 200;
	want.max_ns = 4000;
	want.hist[7] = want.hist[8] = want.hist[9] = want.hist[10] = want.hist[11] = 1;
	expect_row(p, FX_FILES_LOCK_A, 1, LCB_F_SPIN, "files_struct.file_lock", "alloc_fd+0x20", &want);

	want = row_val(&b1[1]);
	expect_row(p, FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_READ, "tasklist_lock", "do_sys_open+0x44", &want);
	want = row_val(&b1[2]);
	/* The writer leaves an anonymous lock's name to the reader (lib/view/anon.c). */
	expect_row(p, FX_ANON_MUTEX, 1, LCB_F_MUTEX, "0xffff888100002000", "alloc_fd+0x20", &want);
	want = row_val(&b1[3]);
	expect_row(p, FX_RQ_LOCK, 2, LCB_F_SPIN, "rq.__lock", "do_sys_open+0x44", &want);
	want = row_val(&b2[1]);
	expect_row(p, FX_ANON_RWSEM, -1, LCB_F_READ, "0xffff888100003000", "[stack lost]", &want);
	want = row_val(&b2[2]);
	expect_row(p, FX_ANON_RWSEM, 2, LCB_F_WRITE, "0xffff888100003000", "do_sys_open+0x44", &want);
	want = row_val(&b2[3]);
	expect_row(p, FX_FILES_LOCK_B, 3, LCB_F_SPIN, "files_struct.file_lock", "alloc_fd+0x20", &want);
	want = row_val(&b2[4]);
	expect_row(p, FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_WRITE, "tasklist_lock", "do_sys_open+0x44", &want);

	/* Per-task fields only where the collector set them. */
	assert_true(fx_find_row(p, FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_WRITE, &k, &v));
	assert_int_equal(k.tgid, 100);
	assert_int_equal(k.tid, 101);
	assert_string_equal(profile__str(p, k.comm), "worker");
	assert_true(fx_find_row(p, FX_TASKLIST_LOCK, 2, LCB_F_SPIN | LCB_F_READ, &k, &v));
	assert_int_equal(k.tgid, 0);
	assert_int_equal(k.tid, 0);
	assert_string_equal(profile__str(p, k.comm), "");
	assert_string_equal(profile__str(p, UINT32_MAX), "");

	/* Stacks, with their frames. */
	for (id = 1; id <= FX_NSTACKS; id++) {
		uint64_t frames[LS_STACK_DEPTH];
		int n = fx_stack_frames(id, frames, LS_STACK_DEPTH);
		const struct stack *s = profile__stack(p, id);

		assert_non_null(s);
		assert_int_equal(s->nframes, n);
		assert_memory_equal(s->frames, frames, n * sizeof(frames[0]));
	}
	assert_null(profile__stack(p, -1));
	assert_null(profile__stack(p, FX_NSTACKS + 1));
	assert_int_equal(p->stacks.count, FX_NSTACKS);

	/* The symbols of the frames travel with the file. */
	{
		const struct ksym *sym = ksyms_find(&p->ksyms, FX_ALLOC_FD + 0x20);
		char buf[64];

		assert_non_null(sym);
		assert_string_equal(sym->name, "alloc_fd");
		assert_true(sym->addr == FX_ALLOC_FD);
		assert_true(sym->size == 0x100);
		assert_int_equal(sym->type, 't');
		ksyms_format(&p->ksyms, FX_DO_SYS_OPEN + 0x44, buf, sizeof(buf));
		assert_string_equal(buf, "do_sys_open+0x44");
		ksyms_format(&p->ksyms, FX_OTHER_FN + 0x10, buf, sizeof(buf));
		assert_string_equal(buf, "other_fn+0x10");
		ksyms_format(&p->ksyms, FX_RAW_SPIN_LOCK + 0x10, buf, sizeof(buf));
		assert_string_equal(buf, "_raw_spin_lock+0x10");
		ksyms_format(&p->ksyms, FX_RAW_READ_LOCK + 0x8, buf, sizeof(buf));
		assert_string_equal(buf, "_raw_read_lock+0x8");
	}
	profile__free(p);
}

/* The file and memory readers agree. */
static void test_read_mem(void **state)
{
	struct fixture *fx = *state;
	struct profile *p;
	char msg[256];

	assert_int_equal(read_prefix(fx->data, fx->size, &p, msg, sizeof(msg)), 0);
	assert_int_equal(p->nbuckets, 2);
	assert_int_equal(p->rows.count, FX_NROWS);
	assert_int_equal(p->stacks.count, FX_NSTACKS);
	assert_true(p->has_end);
	assert_int_equal(p->stop, WALK_EOF);
	profile__free(p);
}

/* Chunk boundaries of a good file, from the store's own walk. */
static size_t chunk_ends(const uint8_t *data, size_t size, uint64_t *ends, uint32_t *types, size_t max)
{
	struct store_file f = { .data = (uint8_t *)data, .size = size };
	struct store_chunk c;
	const char *why;
	uint64_t pos = LKST_HEADER_LEN;
	size_t n = 0;

	assert_int_equal(store_parse(&f, &why), 0);
	ends[n] = pos;
	types[n++] = 0;
	while (store_next_chunk(&f, &pos, &c) == WALK_CHUNK) {
		assert_true(n < max);
		ends[n] = pos;
		types[n++] = c.type;
	}
	assert_int_equal(pos, size);
	return n;
}

/*
 * A profile cut at any byte is readable up to the last whole chunk before
 * the cut, and a cut never loses a bucket that a shorter cut had.
 */
static void test_truncation_every_offset(void **state)
{
	struct fixture *fx = *state;
	uint64_t ends[64];
	uint32_t types[64];
	uint64_t prev_buckets = 0, prev_rows = 0;
	size_t nends, off, e = 0;

	nends = chunk_ends(fx->data, fx->size, ends, types, 64);
	assert_true(nends > 8);
	for (off = 0; off <= fx->size; off++) {
		struct profile *p = NULL;
		char msg[256];
		int err = read_prefix(fx->data, off, &p, msg, sizeof(msg));
		const struct lock_row_key *kp;
		uint64_t buckets_before = 0;
		size_t it = 0, i;

		if (off < LKST_HEADER_LEN) {
			assert_true(err < 0);
			assert_null(p);
			assert_true(strlen(msg) > 0);
			continue;
		}
		if (err)
			fail_msg("cut at %zu of %zu: %s", off, fx->size, msg);
		assert_non_null(p);
		while (e + 1 < nends && ends[e + 1] <= off)
			e++;
		for (i = 1; i <= e; i++)
			buckets_before += types[i] == CHUNK_LOCKSTAT;
		if (off == ends[e])
			assert_int_equal(p->stop, WALK_EOF);
		else
			assert_int_equal(p->stop, WALK_TRUNCATED);
		assert_int_equal(p->stop_offset, ends[e]);
		assert_int_equal(p->nbuckets, buckets_before);
		assert_true(p->nbuckets >= prev_buckets);
		assert_true(p->rows.count >= prev_rows);
		assert_int_equal(p->has_end, off == fx->size);
		if (!p->has_end)
			assert_true(profile__duration_ns(p) == p->last_bucket_end_ns);
		prev_buckets = p->nbuckets;
		prev_rows = p->rows.count;

		/* Whatever a row refers to was written before it. */
		while (htab_next(&p->rows, &it, (const void **)&kp)) {
			struct lock_row_key k;

			memcpy(&k, kp, sizeof(k));
			assert_true(k.name < p->nstrs && k.caller < p->nstrs && k.comm < p->nstrs);
			if (k.stack_id >= 0)
				assert_non_null(profile__stack(p, k.stack_id));
		}
		profile__free(p);
	}
	assert_int_equal(prev_buckets, 2);
	assert_int_equal(prev_rows, FX_NROWS);
}

/* Every single-byte change is either refused (header) or stops the walk. */
static void test_byte_flips(void **state)
{
	static const uint8_t masks[] = { 0x01, 0x80, 0xff };
	struct fixture *fx = *state;
	uint8_t *copy = malloc(fx->size);
	size_t off, m;

	assert_non_null(copy);
	for (m = 0; m < sizeof(masks); m++) {
		for (off = 0; off < fx->size; off++) {
			struct profile *p = NULL;
			char msg[256] = "";
			int err;

			memcpy(copy, fx->data, fx->size);
			copy[off] ^= masks[m];
			err = profile__read_mem(copy, fx->size, &p, msg, sizeof(msg));
			if (off < LKST_HEADER_LEN) {
				assert_true(err < 0);
				assert_true(strlen(msg) > 0);
				continue;
			}
			if (err)
				fail_msg("flip 0x%02x at %zu: %s", masks[m], off, msg);
			assert_true(p->stop == WALK_BAD_CRC || p->stop == WALK_TRUNCATED);
			assert_true(p->nbuckets < 2 || !p->has_end);
			profile__free(p);
		}
	}
	free(copy);
}

/*
 * The same with the chunk CRC made right again, so that the payload
 * decoders see the damage: they may refuse the file, never crash, and
 * whatever they accept must be usable by the locks view.
 */
static void test_payload_flips(void **state)
{
	struct fixture *fx = *state;
	uint8_t *copy = malloc(fx->size);
	uint64_t ends[64];
	uint32_t types[64];
	size_t nends, e, ok = 0, refused = 0;

	assert_non_null(copy);
	nends = chunk_ends(fx->data, fx->size, ends, types, 64);
	for (e = 1; e < nends; e++) {
		uint64_t start = ends[e - 1], crc_at = ends[e] - LKST_CHUNK_TRAILER_LEN, off;

		/* Payload bytes only: the length is not for this test. */
		for (off = start + LKST_CHUNK_HDR_LEN; off < crc_at; off++) {
			static const uint8_t masks[] = { 0x01, 0x40, 0x80, 0x7f };
			size_t m;

			for (m = 0; m < sizeof(masks); m++) {
				struct profile *p = NULL;
				struct lock_view v;
				struct lock_filter f = { .pid = -1 };
				char msg[256] = "";
				uint32_t c;
				int err;

				memcpy(copy, fx->data, fx->size);
				copy[off] ^= masks[m];
				c = crc32(0, copy + start, crc_at - start);
				copy[crc_at] = c;
				copy[crc_at + 1] = c >> 8;
				copy[crc_at + 2] = c >> 16;
				copy[crc_at + 3] = c >> 24;
				err = profile__read_mem(copy, fx->size, &p, msg, sizeof(msg));
				if (err) {
					assert_null(p);
					assert_non_null(strstr(msg, "chunk"));
					refused++;
					continue;
				}
				ok++;
				if (!lock_view__build(&v, p, &f)) {
					lock_view__sort(&v, SORT_WAIT_TOTAL);
					lock_view__free(&v);
				}
				profile__free(p);
			}
		}
	}
	/* Both outcomes happen: the test did reach the decoders. */
	assert_true(ok > 0);
	assert_true(refused > 0);
	free(copy);
}

/* A file: header, META, one extra chunk, END. */
static void write_with_extra_chunk(const char *path, uint32_t type, uint32_t flags)
{
	static const struct kv meta[] = { { (char *)"version", (char *)"9.9.9" } };
	struct pwriter_opts o = { .recording_id = fx_recording_id };
	struct pwriter *w;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	o.fd = fileno(f);
	assert_int_equal(pwriter__new(&w, &o), 0);
	assert_int_equal(pwriter__meta(w, meta, 1), 0);
	assert_int_equal(store_write_chunk(o.fd, type, flags, "future", 6), 0);
	assert_int_equal(pwriter__end(w, 42, 0, END_F_CLEAN), 0);
	pwriter__free(w);
	fclose(f);
}

static void test_unknown_critical_chunk(void **state)
{
	struct fixture *fx = *state;
	struct profile *p = NULL;
	char msg[256] = "";

	write_with_extra_chunk(fx->path, 1000, CHUNK_F_CRITICAL);
	assert_true(profile__read(fx->path, &p, msg, sizeof(msg)) < 0);
	assert_null(p);
	assert_non_null(strstr(msg, "newer lockstat"));
}

static void test_unknown_optional_chunk(void **state)
{
	struct fixture *fx = *state;
	struct profile *p = NULL;
	char msg[256] = "";

	write_with_extra_chunk(fx->path, 1000, 0);
	assert_int_equal(profile__read(fx->path, &p, msg, sizeof(msg)), 0);
	assert_string_equal(profile__meta(p, "version"), "9.9.9");
	assert_true(p->has_end);
	assert_true(p->end_duration_ns == 42);
	assert_int_equal(p->stop, WALK_EOF);
	profile__free(p);
}

/* A chunk whose CRC holds but whose payload does not make sense. */
static void expect_malformed(const char *path, uint32_t type, const struct buf *payload,
			     const char *want)
{
	struct store_header h = { .major = LKST_MAJOR, .minor = LKST_MINOR };
	struct profile *p = NULL;
	char msg[256] = "";
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_false(payload->oom);
	assert_int_equal(store_write_header(fileno(f), &h), 0);
	assert_int_equal(store_write_chunk(fileno(f), type, CHUNK_F_CRITICAL, payload->data, payload->len), 0);
	fclose(f);
	assert_true(profile__read(path, &p, msg, sizeof(msg)) < 0);
	assert_null(p);
	assert_non_null(strstr(msg, want));
}

static void test_malformed_chunks(void **state)
{
	struct fixture *fx = *state;
	struct buf b;

	buf_init(&b);
	/* A row naming string 999 of an empty string table. */
	buf_put_varint(&b, 10);
	buf_put_varint(&b, 20);
	buf_put_varint(&b, 1);
	buf_put_varint(&b, 0xffff888100001000ULL);	/* lock_addr */
	buf_put_varint(&b, LCB_F_SPIN);
	buf_put_svarint(&b, -1);
	buf_put_varint(&b, 0);
	buf_put_varint(&b, 0);
	buf_put_varint(&b, 999);			/* name */
	buf_put_varint(&b, 0);
	buf_put_varint(&b, 0);
	buf_put_varint(&b, 1);
	buf_put_varint(&b, 100);
	buf_put_varint(&b, 100);
	buf_put_varint(&b, 100);
	buf_put_varint(&b, 0);
	expect_malformed(fx->path, CHUNK_LOCKSTAT, &b, "malformed LOCKSTAT chunk at byte 64");

	/* A bucket that ends before it starts. */
	buf_reset(&b);
	buf_put_varint(&b, 20);
	buf_put_varint(&b, 10);
	buf_put_varint(&b, 0);
	expect_malformed(fx->path, CHUNK_LOCKSTAT, &b, "malformed LOCKSTAT");

	/* A string table that does not continue the one before. */
	buf_reset(&b);
	buf_put_varint(&b, 5);
	buf_put_varint(&b, 1);
	buf_put_str(&b, "x");
	expect_malformed(fx->path, CHUNK_STRTAB, &b, "malformed STRTAB");

	/* A stack deeper than any kernel stack, and a stack cut short. */
	buf_reset(&b);
	buf_put_varint(&b, 1);
	buf_put_svarint(&b, 7);
	buf_put_varint(&b, 1u << 20);
	expect_malformed(fx->path, CHUNK_STACKS, &b, "malformed STACKS");
	buf_reset(&b);
	buf_put_varint(&b, 1);
	buf_put_svarint(&b, 7);
	buf_put_varint(&b, 3);
	buf_put_svarint(&b, 1);
	expect_malformed(fx->path, CHUNK_STACKS, &b, "malformed STACKS");

	/* META with more pairs than it holds. */
	buf_reset(&b);
	buf_put_varint(&b, 2);
	buf_put_str(&b, "k");
	buf_put_str(&b, "v");
	expect_malformed(fx->path, CHUNK_META, &b, "malformed META");
	buf_free(&b);
}

/* One bucket (time 0 to 10) of rows written with o to path, read back. */
static struct profile *one_bucket(const char *path, struct pwriter_opts *o, const struct cont_row *rows, size_t n)
{
	struct profile *p = NULL;
	struct pwriter *w;
	char msg[256] = "";
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	o->fd = fileno(f);
	assert_int_equal(pwriter__new(&w, o), 0);
	assert_int_equal(pwriter__bucket(w, 0, 10, rows, n), 0);
	pwriter__free(w);
	fclose(f);
	assert_int_equal(profile__read(path, &p, msg, sizeof(msg)), 0);
	return p;
}

/* Without symbols a caller is its first frame's address. */
static void test_no_ksyms(void **state)
{
	struct fixture *fx = *state;
	struct fx_fetch_ctx ctx = { 0 };
	struct cont_row b1[FX_BUCKET1_ROWS];
	struct pwriter_opts o = { .fetch_stack = fx_fetch_stack, .fetch_ctx = &ctx };
	struct lock_row_key k;
	struct lock_row_val v;
	struct profile *p;

	fx_bucket1(b1);
	b1[3].found = NULL;
	p = one_bucket(fx->path, &o, b1, FX_BUCKET1_ROWS);
	assert_true(ctx.calls > 0);
	assert_false(p->has_end);
	assert_int_equal(p->nbuckets, 1);
	assert_true(profile__duration_ns(p) == 10);
	assert_true(fx_find_row(p, FX_ANON_MUTEX, 1, LCB_F_MUTEX, &k, &v));
	assert_string_equal(profile__str(p, k.caller), "0xffffffff82000010");
	assert_string_equal(profile__str(p, k.name), "0xffff888100002000");
	/* BPF's class needs no symbols; with nothing found an rq lock is anonymous. */
	assert_true(fx_find_row(p, FX_FILES_LOCK_A, 1, LCB_F_SPIN, &k, &v));
	assert_string_equal(profile__str(p, k.name), "files_struct.file_lock");
	assert_true(fx_find_row(p, FX_RQ_LOCK, 2, LCB_F_SPIN, &k, &v));
	assert_string_equal(profile__str(p, k.name), "0xffff88823fc2c000");
	assert_non_null(profile__stack(p, 1));
	profile__free(p);
}

/*
 * Static locks without a data symbol are vmlinux+0xOFFSET (from _stext),
 * a heap lock stays an address, and a stack's lock is [stack]@ the
 * function of each row's own caller, whatever was seen first at that address.
 */
static void test_static_and_stack_names(void **state)
{
	struct fixture *fx = *state;
	struct fx_fetch_ctx ctx = { 0 };
	struct cont_row rows[4] = {
		fx_row(FX_DATA_END + 0x1c8, 1, LCB_F_SPIN, 0, 1, 100, 100, 100),
		fx_row(0xffff888100009000ULL, 1, LCB_F_SPIN, 0, 1, 100, 100, 100),
		fx_row(0xffffc900018c7cc0ULL, 1, LCB_F_SPIN, 0, 1, 100, 100, 100),
		fx_row(0xffffc900018c7cc0ULL, 2, LCB_F_SPIN, 0, 1, 100, 100, 100),
	};
	struct pwriter_opts o = { .fetch_stack = fx_fetch_stack, .fetch_ctx = &ctx };
	struct ksyms ks;
	struct lock_row_key k;
	struct lock_row_val v;
	struct profile *p;

	/* A lock on a stack, as lockname finds it: the writer adds each row's caller. */
	rows[2].found = rows[3].found = LOCK_NAME_STACK;
	assert_int_equal(fx_ksyms(&ks), 0);
	o.ksyms = &ks;
	p = one_bucket(fx->path, &o, rows, 4);
	ksyms_free(&ks);
	assert_true(fx_find_row(p, FX_DATA_END + 0x1c8, 1, LCB_F_SPIN, &k, &v));
	assert_string_equal(profile__str(p, k.name), "vmlinux+0x20011c8");
	assert_true(fx_find_row(p, 0xffff888100009000ULL, 1, LCB_F_SPIN, &k, &v));
	assert_string_equal(profile__str(p, k.name), "0xffff888100009000");
	assert_true(fx_find_row(p, 0xffffc900018c7cc0ULL, 1, LCB_F_SPIN, &k, &v));
	assert_string_equal(profile__str(p, k.name), "[stack]@alloc_fd");
	assert_true(fx_find_row(p, 0xffffc900018c7cc0ULL, 2, LCB_F_SPIN, &k, &v));
	assert_string_equal(profile__str(p, k.name), "[stack]@do_sys_open");
	profile__free(p);
}

static void test_read_errors(void **state)
{
	struct fixture *fx = *state;
	struct profile *p = NULL;
	char msg[256], missing[96];

	snprintf(missing, sizeof(missing), "%s.missing", fx->path);
	msg[0] = '\0';
	assert_int_equal(profile__read(missing, &p, msg, sizeof(msg)), -ENOENT);
	assert_null(p);
	assert_true(strlen(msg) > 0);

	msg[0] = '\0';
	assert_int_equal(profile__read("/tmp", &p, msg, sizeof(msg)), -EISDIR);
	assert_null(p);
	assert_true(strlen(msg) > 0);

	msg[0] = '\0';
	assert_true(profile__read_mem("LKSTAT\0\nshort", 13, &p, msg, sizeof(msg)) < 0);
	assert_null(p);
	assert_true(strlen(msg) > 0);
}

/* Every lock row of a equals b's. */
static void expect_same_rows(const struct profile *a, const struct profile *b)
{
	const struct lock_row_key *k;
	const struct lock_row_val *v, *w;
	size_t it = 0;

	assert_int_equal(a->rows.count, b->rows.count);
	while ((v = htab_next(&a->rows, &it, (const void **)&k))) {
		w = htab_find(&b->rows, k);
		assert_non_null(w);
		assert_memory_equal(v, w, sizeof(*v));
	}
}

/* Feed the chunks of types (0: all) to p, as top does. */
static void feed(struct profile *p, const struct store_file *f, uint32_t only)
{
	struct store_chunk ch;
	uint64_t pos = f->hdr.header_len;
	char msg[256];

	while (store_next_chunk(f, &pos, &ch) == WALK_CHUNK)
		if (!only || ch.type == only)
			assert_int_equal(profile__add_chunk(p, &ch, msg, sizeof(msg)), 0);
}

/* top's reading: chunk by chunk is the whole file; clearing keeps the names. */
static void test_chunk_by_chunk(void **state)
{
	struct fixture *fx = *state;
	struct store_file f = { .data = fx->data, .size = fx->size };
	struct profile *whole, *p;
	const char *why = NULL;
	char msg[256];
	size_t nstrs;

	assert_int_equal(read_prefix(fx->data, fx->size, &whole, msg, sizeof(msg)), 0);
	assert_int_equal(store_parse(&f, &why), 0);
	p = profile__new(&f.hdr);
	assert_non_null(p);
	feed(p, &f, 0);
	expect_same_rows(p, whole);
	assert_int_equal(p->nbuckets, whole->nbuckets);
	assert_int_equal(p->ksyms.count, whole->ksyms.count);
	assert_true(p->has_end);

	nstrs = p->nstrs;
	profile__clear_counts(p);
	assert_int_equal(p->rows.count, 0);
	assert_int_equal(p->nbuckets, 0);
	assert_int_equal(p->nstrs, nstrs);
	assert_int_equal(p->stacks.count, FX_NSTACKS);
	/* The counting chunks alone, once more: the same rows. */
	feed(p, &f, CHUNK_LOCKSTAT);
	expect_same_rows(p, whole);
	profile__free(p);
	profile__free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_mem, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunk_by_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncation_every_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_flips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_payload_flips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_critical_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_static_and_stack_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_optional_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_ksyms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
