// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Record side of the sampler: SAMPLES rows per bucket, the MAPPING of
 * each process while it lives, and at the end USYMS, every user PC seen
 * symbolized once, so that reports need neither the process nor its
 * binaries any more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "format/pwriter_int.h"
#include "format/store.h"

/* Write a stack the first time it is seen; remember user ones. */
static int32_t put_stack(struct pwriter *w, enum stack_space space, int32_t bpf_id)
{
	stack_fetch_fn fetch = space == STACK_SAMPLE_USER ? w->o.fetch_sample_ustack : w->o.fetch_sample_kstack;
	int32_t id = stack_file_id(space, bpf_id);
	struct pw_ustack *u;
	uint64_t frames[LS_SAMPLE_USTACK_DEPTH];
	int n, inserted;

	if (id < 0 || !fetch)
		return -1;
	if (!htab_get(&w->stacks_seen, &id, &inserted))
		return -1;
	if (!inserted)
		return id;
	n = fetch(w->o.fetch_ctx, bpf_id, frames, LS_SAMPLE_USTACK_DEPTH);
	if (n <= 0)
		n = 0;
	pw_note_stack(w, id, frames, n, space != STACK_SAMPLE_USER);
	if (space == STACK_SAMPLE_USER && (u = htab_get(&w->ustacks, &id, NULL))) {
		u->n = n;
		memcpy(u->frames, frames, n * sizeof(*frames));
	}
	return id;
}

void pw_note_upcs(struct pwriter *w, uint32_t tgid, const uint64_t *frames, uint32_t n)
{
	struct pw_upc key = { .tgid = tgid };
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct pw_upc_val *v;
		int inserted;

		key.addr = frames[i];
		v = htab_get(&w->upcs, &key, &inserted);
		if (v && inserted)
			v->seen_ns = w->now_ns;
		/* First seen as a leaf after being written as a return address: again. */
		if (v && i == 0 && !(v->flags & PW_UPC_LEAF))
			v->flags = PW_UPC_LEAF;
	}
}

/* Every PC of a user stack, in the context of its process. */
static void note_upcs(struct pwriter *w, uint32_t tgid, int32_t ustack)
{
	const struct pw_ustack *u = htab_find(&w->ustacks, &ustack);

	if (u)
		pw_note_upcs(w, tgid, u->frames, u->n);
}

int pwriter__samples(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns,
		     const struct sample_row *rows, size_t nrows)
{
	struct buf b;
	size_t i;
	int err;

	w->now_ns = t1_ns;
	buf_init(&b);
	buf_put_varint(&b, t0_ns);
	buf_put_varint(&b, t1_ns);
	buf_put_varint(&b, nrows);
	for (i = 0; i < nrows; i++) {
		const struct sample_row *r = &rows[i];
		int32_t k = put_stack(w, STACK_SAMPLE_KERNEL, r->key.kstack);
		int32_t u = put_stack(w, STACK_SAMPLE_USER, r->key.ustack);

		if (u >= 0)
			note_upcs(w, r->key.tgid, u);
		buf_put_varint(&b, r->key.tgid);
		buf_put_varint(&b, r->key.tid);
		buf_put_varint(&b, pw_intern(w, r->comm));
		buf_put_svarint(&b, k);
		buf_put_svarint(&b, u);
		buf_put_varint(&b, r->count);
	}
	err = pw_flush_then(w, CHUNK_SAMPLES, CHUNK_F_CRITICAL, &b);
	buf_free(&b);
	return err;
}

int pwriter__mappings(struct pwriter *w, const struct mapping *maps, size_t n,
		      const char *const *paths)
{
	struct buf b;
	size_t i;
	int err;

	if (!n)
		return 0;
	buf_init(&b);
	buf_put_varint(&b, n);
	for (i = 0; i < n; i++) {
		buf_put_varint(&b, maps[i].tgid);
		buf_put_varint(&b, maps[i].start);
		buf_put_varint(&b, maps[i].end);
		buf_put_varint(&b, maps[i].pgoff);
		buf_put_varint(&b, pw_intern(w, paths[i]));
		buf_put_varint(&b, maps[i].build_id_len);
		buf_put(&b, maps[i].build_id, maps[i].build_id_len);
	}
	err = pw_flush_then(w, CHUNK_MAPPING, CHUNK_F_CRITICAL, &b);
	buf_free(&b);
	return err;
}

static void put_usym(struct pwriter *w, struct buf *b, const struct pw_upc *pc,
		     const struct usym_info *u)
{
	uint32_t i, n = u->nframes < USYM_MAX_FRAMES ? u->nframes : USYM_MAX_FRAMES;

	buf_put_varint(b, pc->tgid);
	buf_put_varint(b, pc->addr);
	buf_put_varint(b, u->why);
	buf_put_varint(b, pw_intern(w, u->module ? u->module : ""));
	buf_put_varint(b, u->func_addr);
	buf_put_varint(b, n);
	for (i = 0; i < n; i++) {
		buf_put_varint(b, pw_intern(w, u->frames[i].function ? u->frames[i].function : ""));
		buf_put_varint(b, pw_intern(w, u->frames[i].file ? u->frames[i].file : ""));
		buf_put_varint(b, u->frames[i].line);
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Worth symbolizing now: not written yet, and a sampled PC if only those are wanted. */
static bool upc_wanted(const struct pwriter *w, uint8_t flags)
{
	return !(flags & PW_UPC_WRITTEN) && (!w->o.usyms_leaves_only || (flags & PW_UPC_LEAF));
}

int pwriter__usyms(struct pwriter *w)
{
	return pwriter__usyms_for(w, 0);
}

struct forget_ctx {
	bool (*keep_tgid)(void *ctx, uint32_t tgid);
	bool (*known)(void *ctx, bool user, int32_t id);
	void *ctx;
};

static bool keep_upc(const void *key, const void *val, void *ctx)
{
	const struct pw_upc *pc = key;
	const struct pw_upc_val *v = val;
	struct forget_ctx *f = ctx;

	return !(v->flags & PW_UPC_WRITTEN) || f->keep_tgid(f->ctx, pc->tgid);
}

long pwriter__forget_upcs(struct pwriter *w, bool (*keep)(void *ctx, uint32_t tgid), void *ctx)
{
	struct forget_ctx f = { .keep_tgid = keep, .ctx = ctx };

	return htab_filter(&w->upcs, keep_upc, &f);
}

/* A stack of another space than the sampler's, or one the collector still has. */
static bool keep_stack(const void *key, const void *val, void *ctx)
{
	uint32_t id = *(const int32_t *)key, space = id >> STACK_SPACE_SHIFT;
	struct forget_ctx *f = ctx;

	(void)val;
	if (space != STACK_SAMPLE_KERNEL && space != STACK_SAMPLE_USER)
		return true;
	return f->known(f->ctx, space == STACK_SAMPLE_USER, id & ((1u << STACK_SPACE_SHIFT) - 1));
}

long pwriter__forget_sample_stacks(struct pwriter *w, bool (*known)(void *ctx, bool user, int32_t id), void *ctx)
{
	struct forget_ctx f = { .known = known, .ctx = ctx };
	long n = htab_filter(&w->stacks_seen, keep_stack, &f);

	if (n >= 0 && htab_filter(&w->ustacks, keep_stack, &f) < 0)
		return -ENOMEM;
	return n;
}

struct upc_ref {
	uint64_t file;
	const struct pw_upc *pc;
	struct pw_upc_val *v;
};

static int upc_ref_cmp(const void *a, const void *b)
{
	const struct upc_ref *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->pc->tgid != y->pc->tgid)
		return x->pc->tgid < y->pc->tgid ? -1 : 1;
	return x->pc->addr < y->pc->addr ? -1 : x->pc->addr > y->pc->addr;
}

/* The PCs still to symbolize, file by file: NULL on ENOMEM. */
static struct upc_ref *wanted_upcs(struct pwriter *w, size_t *n)
{
	struct upc_ref *refs = malloc((w->upcs.count ? w->upcs.count : 1) * sizeof(*refs));
	const struct pw_upc *pc;
	struct pw_upc_val *v;
	size_t it = 0;

	*n = 0;
	if (!refs)
		return NULL;
	while ((v = htab_next(&w->upcs, &it, (const void **)&pc))) {
		if (!upc_wanted(w, v->flags))
			continue;
		refs[*n] = (struct upc_ref){ .pc = pc, .v = v };
		if (w->o.usym_file)
			refs[*n].file = w->o.usym_file(w->o.resolve_ctx, pc->tgid, pc->addr);
		(*n)++;
	}
	qsort(refs, *n, sizeof(*refs), upc_ref_cmp);
	return refs;
}

/*
 * A return address points after its call: symbolize addr - 1 for those,
 * so that the line is the call's (a PC seen as a leaf anywhere is taken
 * as is). Only the PCs not written by an earlier call: record calls it
 * once at the end; top after every bucket and within a budget, since a
 * stream of new processes is a stream of files to read.
 */
int pwriter__usyms_for(struct pwriter *w, uint64_t budget_ns)
{
	uint64_t deadline = budget_ns ? mono_ns() + budget_ns : 0;
	struct upc_ref *refs;
	struct usym_info u;
	struct buf rows, b;
	size_t i, nrefs, n = 0;
	int err;

	if (!w->o.resolve_user || !w->upcs.count)
		return 0;
	refs = wanted_upcs(w, &nrefs);
	if (!refs)
		return -ENOMEM;
	buf_init(&rows);
	for (i = 0; i < nrefs && !(deadline && mono_ns() > deadline); i++) {
		const struct pw_upc *pc = refs[i].pc;
		struct pw_upc_val *v = refs[i].v;

		memset(&u, 0, sizeof(u));
		w->o.resolve_user(w->o.resolve_ctx, pc->tgid,
				  (v->flags & PW_UPC_LEAF) ? pc->addr : pc->addr - 1, v->seen_ns, &u);
		put_usym(w, &rows, pc, &u);
		v->flags |= PW_UPC_WRITTEN;
		n++;
	}
	free(refs);
	buf_init(&b);
	buf_put_varint(&b, n);
	buf_put(&b, rows.data, rows.len);
	b.oom |= rows.oom;
	err = n ? pw_flush_then(w, CHUNK_USYMS, CHUNK_F_CRITICAL, &b) : 0;
	buf_free(&b);
	buf_free(&rows);
	return err;
}
