// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Record side of the counter tables (lib/format/ctable.h): one TABLE chunk per
 * table and bucket, carrying its schema, so that the reader needs no
 * knowledge of the family that produced it.
 *
 * TABLE payload: t0, t1, table name (string id), ncols, per column its
 * name (string id) and kind, nrows, then ncols varints per row. String
 * keys are string ids, kernel stacks are file stack ids (STACKS chunk,
 * space STACK_TABLE_KERNEL). The chunk is not critical: a lockstat that
 * predates a table still reads the rest of the file.
 */
#include <errno.h>
#include <string.h>
#include "format/pwriter_int.h"
#include "format/store.h"

/* A table stack's file id; written the first time it is seen. */
static int32_t put_tstack(struct pwriter *w, const struct tstack *in)
{
	struct tstack s;
	int32_t *id;
	int inserted;

	if (!in || !in->n)
		return -1;
	memset(&s, 0, sizeof(s));	/* a hash key: its padding too */
	s.n = in->n > TSTACK_DEPTH ? TSTACK_DEPTH : in->n;
	memcpy(s.frames, in->frames, s.n * sizeof(s.frames[0]));
	if (w->o.ksyms)
		s.n = ksyms_trim_tracing(w->o.ksyms, s.frames, s.n);
	id = htab_get(&w->tstacks, &s, &inserted);
	if (!id)
		return -1;
	if (inserted) {
		*id = stack_file_id(STACK_TABLE_KERNEL, w->ntstacks++);
		pw_note_stack(w, *id, s.frames, s.n, true);
	}
	return *id;
}

/* A table's user stack: stored once, its PCs symbolized at the end. */
static int32_t put_tustack(struct pwriter *w, const struct tustack *in)
{
	struct tustack s;
	int32_t *id;
	int inserted;

	if (!in || !in->n)
		return -1;
	memset(&s, 0, sizeof(s));
	s.tgid = in->tgid;
	s.n = in->n > TUSTACK_DEPTH ? TUSTACK_DEPTH : in->n;
	memcpy(s.frames, in->frames, s.n * sizeof(s.frames[0]));
	id = htab_get(&w->tustacks, &s, &inserted);
	if (!id)
		return -1;
	if (inserted) {
		*id = stack_file_id(STACK_TABLE_USER, w->ntustacks++);
		pw_note_stack(w, *id, s.frames, s.n, false);
		pw_note_upcs(w, s.tgid, s.frames, s.n);
		if (htab_get(&w->user_tgids, &s.tgid, &inserted) && inserted && w->o.on_user_tgid)
			w->o.on_user_tgid(w->o.on_user_tgid_ctx, s.tgid);
	}
	return *id;
}

static void put_value(struct pwriter *w, struct buf *b, uint8_t kind, uint64_t v)
{
	switch (kind) {
	case TCOL_KEY_STR:
		buf_put_varint(b, pw_intern(w, v ? (const char *)(uintptr_t)v : ""));
		break;
	case TCOL_KEY_KSTACK:
		buf_put_svarint(b, put_tstack(w, (const struct tstack *)(uintptr_t)v));
		break;
	case TCOL_KEY_USTACK:
		buf_put_svarint(b, put_tustack(w, (const struct tustack *)(uintptr_t)v));
		break;
	default:
		buf_put_varint(b, v);
	}
}

int pwriter__table(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns, const struct trows *r)
{
	const struct tschema *s = r->schema;
	struct buf b;
	size_t i;
	uint32_t c;
	int err;

	if (!r->n)
		return 0;
	w->now_ns = t1_ns;
	if (w->ntstacks >= (1 << STACK_SPACE_SHIFT) - 1 || w->ntustacks >= (1 << STACK_SPACE_SHIFT) - 1)
		return -E2BIG;
	buf_init(&b);
	buf_put_varint(&b, t0_ns);
	buf_put_varint(&b, t1_ns);
	buf_put_varint(&b, pw_intern(w, s->name));
	buf_put_varint(&b, s->ncols);
	for (c = 0; c < s->ncols; c++) {
		buf_put_varint(&b, pw_intern(w, s->cols[c].name));
		buf_put_varint(&b, s->cols[c].kind);
	}
	buf_put_varint(&b, r->n);
	for (i = 0; i < r->n; i++)
		for (c = 0; c < s->ncols; c++)
			put_value(w, &b, s->cols[c].kind, r->v[i * s->ncols + c]);
	err = pw_flush_then(w, CHUNK_TABLE, 0, &b);
	buf_free(&b);
	return err;
}
