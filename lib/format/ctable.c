// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Counter tables: deltas on the record side, merging on the read side. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format/ctable.h"

bool tcol_kind_valid(unsigned int kind)
{
	return kind <= TCOL_KEY_USTACK || (kind >= TCOL_SUM && kind <= TCOL_MIN);
}

static uint64_t merge_one(uint8_t kind, uint64_t acc, uint64_t v)
{
	switch (kind) {
	case TCOL_SUM:
		return acc + v;
	case TCOL_MAX:
		return v > acc ? v : acc;
	case TCOL_MIN:
		return !acc || (v && v < acc) ? v : acc;
	default:
		return v;
	}
}

void trow_merge(uint64_t *acc, const uint64_t *v, const uint8_t *kinds, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!tcol_is_key(kinds[i]))
			acc[i] = merge_one(kinds[i], acc[i], v[i]);
}

int tdelta(struct htab *last, const void *key, const uint64_t *cur, uint64_t *out,
	   const uint8_t *kinds, uint32_t nvals, bool *changed)
{
	uint64_t *prev = htab_get(last, key, NULL);
	uint32_t i;

	if (!prev)
		return -ENOMEM;
	*changed = memcmp(prev, cur, nvals * sizeof(*cur)) != 0;
	for (i = 0; i < nvals; i++) {
		uint64_t now = cur[i];	/* out may be cur */

		out[i] = kinds[i] == TCOL_SUM ? now - prev[i] : now;
		prev[i] = now;
	}
	return 0;
}

uint64_t *trows_add(struct trows_buf *b)
{
	size_t ncols = b->rows.schema->ncols;
	uint64_t *row;

	if (b->rows.n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		uint64_t *v = realloc(b->rows.v, cap * ncols * sizeof(*v));

		if (!v)
			return NULL;
		b->rows.v = v;
		b->cap = cap;
	}
	row = b->rows.v + b->rows.n++ * ncols;
	memset(row, 0, ncols * sizeof(*row));
	return row;
}

void trows_buf_free(struct trows_buf *b)
{
	free(b->rows.v);
	b->rows.v = NULL;
	b->rows.n = b->cap = 0;
}
