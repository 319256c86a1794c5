// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Record side of the profile: turns collector rows into LKST chunks. Each
 * bucket writes the strings, kernel symbols and stacks it introduces
 * before the rows that use them, so a file cut after any chunk is a
 * complete, readable profile of the buckets before the cut.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "format/lock_naming.h"
#include "format/profile.h"
#include "format/pwriter_int.h"

uint32_t pw_intern(struct pwriter *w, const char *s)
{
	uint64_t h = hash_bytes(s, strlen(s));
	uint32_t *slot = htab_get(&w->str_ids, &h, NULL);
	char **n;

	if (!slot)
		return 0;
	if (*slot && !strcmp(w->strs[*slot - 1], s))
		return *slot - 1;
	n = realloc(w->strs, (w->nstrs + 1) * sizeof(*n));
	if (!n)
		return 0;
	w->strs = n;
	w->strs[w->nstrs] = strdup(s);
	if (!w->strs[w->nstrs])
		return 0;
	if (!*slot)	/* on a 64-bit hash collision the first one keeps the slot */
		*slot = w->nstrs + 1;
	return w->nstrs++;
}

int pwriter__new(struct pwriter **wp, const struct pwriter_opts *opts)
{
	struct store_header h = { .major = LKST_MAJOR, .minor = LKST_MINOR };
	struct pwriter *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->o = *opts;
	htab_init(&w->str_ids, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&w->stacks_seen, sizeof(int32_t), 1);
	htab_init(&w->ksyms_seen, sizeof(uint64_t), 1);
	htab_init(&w->lock_names, sizeof(uint64_t), sizeof(uint32_t));
	htab_init(&w->callers, sizeof(int32_t), sizeof(uint32_t));
	htab_init(&w->ustacks, sizeof(int32_t), sizeof(struct pw_ustack));
	htab_init(&w->upcs, sizeof(struct pw_upc), sizeof(struct pw_upc_val));
	htab_init(&w->tstacks, sizeof(struct tstack), sizeof(int32_t));
	htab_init(&w->tustacks, sizeof(struct tustack), sizeof(int32_t));
	htab_init(&w->user_tgids, sizeof(uint32_t), 1);
	buf_init(&w->ksyms_chunk);
	buf_init(&w->stacks_chunk);
	pw_intern(w, "");	/* id 0: the empty string */
	h.created_ns = opts->created_ns;
	if (opts->recording_id)
		memcpy(h.recording_id, opts->recording_id, 16);
	err = store_write_header(opts->fd, &h);
	if (err) {
		pwriter__free(w);
		return err;
	}
	*wp = w;
	return 0;
}

void pwriter__free(struct pwriter *w)
{
	uint32_t i;

	if (!w)
		return;
	for (i = 0; i < w->nstrs; i++)
		free(w->strs[i]);
	free(w->strs);
	htab_free(&w->str_ids);
	htab_free(&w->stacks_seen);
	htab_free(&w->ksyms_seen);
	htab_free(&w->lock_names);
	htab_free(&w->callers);
	htab_free(&w->ustacks);
	htab_free(&w->upcs);
	htab_free(&w->tstacks);
	htab_free(&w->tustacks);
	htab_free(&w->user_tgids);
	buf_free(&w->ksyms_chunk);
	buf_free(&w->stacks_chunk);
	free(w);
}

static int put_kv_chunk(struct pwriter *w, uint32_t type, const struct kv *kv, size_t n)
{
	struct buf b;
	size_t i;
	int err;

	buf_init(&b);
	buf_put_varint(&b, n);
	for (i = 0; i < n; i++) {
		buf_put_str(&b, kv[i].key);
		buf_put_str(&b, kv[i].value);
	}
	err = b.oom ? -ENOMEM : store_write_chunk(w->o.fd, type, CHUNK_F_CRITICAL * (type == CHUNK_META), b.data, b.len);
	buf_free(&b);
	return err;
}

int pwriter__meta(struct pwriter *w, const struct kv *kv, size_t n)
{
	return put_kv_chunk(w, CHUNK_META, kv, n);
}

int pwriter__lost(struct pwriter *w, const struct kv *kv, size_t n)
{
	return put_kv_chunk(w, CHUNK_LOST, kv, n);
}

static void note_ksym(struct pwriter *w, uint64_t pc)
{
	const struct ksym *k = w->o.ksyms ? ksyms_find(w->o.ksyms, pc) : NULL;
	int inserted;

	if (!k || !htab_get(&w->ksyms_seen, &k->addr, &inserted) || !inserted)
		return;
	buf_put_varint(&w->ksyms_chunk, k->addr);
	buf_put_varint(&w->ksyms_chunk, k->size);
	buf_put_varint(&w->ksyms_chunk, pw_intern(w, k->name));
	buf_put_varint(&w->ksyms_chunk, pw_intern(w, ksyms_module(w->o.ksyms, k)));
	buf_put_varint(&w->ksyms_chunk, (uint8_t)k->type);
	w->nksyms_pending++;
}

/* Frames are delta-encoded: kernel PCs share their high bits. */
void pw_note_stack(struct pwriter *w, int32_t id, const uint64_t *frames, int n, bool kernel)
{
	uint64_t prev = 0;
	int i;

	buf_put_svarint(&w->stacks_chunk, id);
	buf_put_varint(&w->stacks_chunk, n);
	for (i = 0; i < n; i++) {
		buf_put_svarint(&w->stacks_chunk, (int64_t)(frames[i] - prev));
		prev = frames[i];
		if (kernel)
			note_ksym(w, frames[i]);
	}
	w->nstacks_pending++;
}

/* The first frame outside the locking primitives: who took the lock. */
static uint32_t caller_of(struct pwriter *w, uint64_t *frames, int n)
{
	char name[256];
	int i;

	for (i = 0; i < n; i++) {
		if (w->o.ksyms && ksyms_is_lock_function(w->o.ksyms, frames[i]))
			continue;
		if (w->o.ksyms)
			ksyms_format(w->o.ksyms, frames[i], name, sizeof(name));
		else
			snprintf(name, sizeof(name), "0x%" PRIx64, frames[i]);
		return pw_intern(w, name);
	}
	return pw_intern(w, "[unknown]");
}

/*
 * The rule (lock_naming.h) names a lock from the facts of its row: its
 * class, the symbols, what the recording found and its caller. A name
 * that holds for its address is kept: the rule runs once per lock.
 */
static uint32_t lock_name(struct pwriter *w, const struct cont_row *r, uint32_t caller)
{
	struct lock_facts f = {
		.addr = r->key.lock_addr,
		.lock_class = r->key.lock_class,
		.found = r->found,
		.caller = caller < w->nstrs ? w->strs[caller] : "",
	};
	uint32_t *id = htab_get(&w->lock_names, &f.addr, NULL);
	enum lock_name_step step;
	char name[320];

	if (!f.lock_class && id && *id)
		return *id - 1;
	step = lock_name_kernel(w->o.ksyms, w->o.btf, &f, name, sizeof(name));
	if (!id || !lock_name_per_address(step))
		return pw_intern(w, name);
	*id = pw_intern(w, name) + 1;
	return *id - 1;
}

/*
 * A stack's caller is found once: a busy row is written in every bucket,
 * and fetching and symbolizing its stack each time was most of a drain.
 */
static uint32_t row_caller(struct pwriter *w, const struct cont_row_key *k)
{
	uint64_t frames[LS_STACK_DEPTH];
	uint32_t *caller;
	int n, inserted;

	if (k->stack_id == LS_STACK_UNSAMPLED)
		return pw_intern(w, "[stack not sampled]");
	if (k->stack_id < 0 || !w->o.fetch_stack)
		return pw_intern(w, "[stack lost]");
	caller = htab_find(&w->callers, &k->stack_id);
	if (caller && *caller)
		return *caller - 1;
	n = w->o.fetch_stack(w->o.fetch_ctx, k->stack_id, frames, LS_STACK_DEPTH);
	if (n <= 0)
		return pw_intern(w, "[stack lost]");
	if (w->o.ksyms)
		n = ksyms_trim_tracing(w->o.ksyms, frames, n);
	if (htab_get(&w->stacks_seen, &k->stack_id, &inserted) && inserted)
		pw_note_stack(w, k->stack_id, frames, n, true);
	caller = htab_get(&w->callers, &k->stack_id, NULL);
	if (!caller)
		return caller_of(w, frames, n);
	*caller = caller_of(w, frames, n) + 1;
	return *caller - 1;
}

static void put_row(struct pwriter *w, struct buf *b, const struct cont_row *r,
		    uint32_t name, uint32_t caller)
{
	uint32_t i, nhist = 0;

	buf_put_varint(b, r->key.lock_addr);
	buf_put_varint(b, r->key.flags);
	buf_put_svarint(b, r->key.stack_id);
	buf_put_varint(b, r->key.tgid);
	buf_put_varint(b, r->key.tid);
	buf_put_varint(b, name);
	buf_put_varint(b, caller);
	buf_put_varint(b, pw_intern(w, r->key.tid ? r->comm : ""));
	buf_put_varint(b, r->val.count);
	buf_put_varint(b, r->val.total_ns);
	buf_put_varint(b, r->val.min_ns);
	buf_put_varint(b, r->val.max_ns);
	for (i = 0; i < LS_HIST_SLOTS; i++)
		nhist += r->val.hist[i] != 0;
	buf_put_varint(b, nhist);
	for (i = 0; i < LS_HIST_SLOTS; i++) {
		if (!r->val.hist[i])
			continue;
		buf_put_varint(b, i);
		buf_put_varint(b, r->val.hist[i]);
	}
}

static int flush_strings(struct pwriter *w)
{
	struct buf b;
	uint32_t i;
	int err;

	if (w->strs_written == w->nstrs)
		return 0;
	buf_init(&b);
	buf_put_varint(&b, w->strs_written);
	buf_put_varint(&b, w->nstrs - w->strs_written);
	for (i = w->strs_written; i < w->nstrs; i++)
		buf_put_str(&b, w->strs[i]);
	err = b.oom ? -ENOMEM : store_write_chunk(w->o.fd, CHUNK_STRTAB, CHUNK_F_CRITICAL, b.data, b.len);
	buf_free(&b);
	if (!err)
		w->strs_written = w->nstrs;
	return err;
}

/* A pending list: count first, then the entries gathered so far. */
static int flush_list(struct pwriter *w, uint32_t type, uint32_t flags, struct buf *list, uint32_t *n)
{
	struct buf b;
	int err;

	if (!*n)
		return 0;
	buf_init(&b);
	buf_put_varint(&b, *n);
	buf_put(&b, list->data, list->len);
	err = (b.oom || list->oom) ? -ENOMEM : store_write_chunk(w->o.fd, type, flags, b.data, b.len);
	buf_free(&b);
	buf_reset(list);
	*n = 0;
	return err;
}

/*
 * How each row was sampled and how its waits ended, after the rows: a
 * reader older than format 1.1 ignores it (bytes after the fields it
 * knows) and reads the rows as before.
 */
static void put_row_sampling(struct buf *b, const struct cont_row *rows, size_t nrows)
{
	size_t i;

	buf_put_varint(b, nrows);
	for (i = 0; i < nrows; i++) {
		buf_put_varint(b, rows[i].key.shift);
		buf_put_varint(b, rows[i].key.err);
		buf_put_varint(b, rows[i].val.sumsq_lo);
		buf_put_varint(b, rows[i].val.sumsq_hi);
	}
}

int pwriter__bucket(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns,
		    const struct cont_row *rows, size_t nrows)
{
	struct buf b;
	size_t i;
	int err;

	buf_init(&b);
	buf_put_varint(&b, t0_ns);
	buf_put_varint(&b, t1_ns);
	buf_put_varint(&b, nrows);
	for (i = 0; i < nrows; i++) {
		uint32_t caller = row_caller(w, &rows[i].key);

		put_row(w, &b, &rows[i], lock_name(w, &rows[i], caller), caller);
	}
	put_row_sampling(&b, rows, nrows);
	err = pw_flush_then(w, CHUNK_LOCKSTAT, CHUNK_F_CRITICAL, &b);
	buf_free(&b);
	return err;
}

/* Strings, symbols and stacks first: then the chunk that uses them. */
int pw_flush_then(struct pwriter *w, uint32_t type, uint32_t flags, const struct buf *b)
{
	int err = flush_strings(w);

	if (!err)
		err = flush_list(w, CHUNK_KSYMS, 0, &w->ksyms_chunk, &w->nksyms_pending);
	if (!err)
		err = flush_list(w, CHUNK_STACKS, CHUNK_F_CRITICAL, &w->stacks_chunk, &w->nstacks_pending);
	if (!err)
		err = b->oom ? -ENOMEM : store_write_chunk(w->o.fd, type, flags, b->data, b->len);
	return err;
}

int pwriter__end(struct pwriter *w, uint64_t duration_ns, int64_t exit_status, uint32_t flags)
{
	struct buf b;
	int err;

	buf_init(&b);
	buf_put_varint(&b, duration_ns);
	buf_put_svarint(&b, exit_status);
	buf_put_varint(&b, flags);
	err = b.oom ? -ENOMEM : store_write_chunk(w->o.fd, CHUNK_END, 0, b.data, b.len);
	buf_free(&b);
	return err;
}
