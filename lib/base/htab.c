// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/htab.h"

/* FNV-1a, then a final mix so that the low bits used for slots are good. */
uint64_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* Key and value each rounded up to 8 bytes, so that values holding u64s are aligned. */
#define ROUND8(n)	(((n) + 7) & ~(size_t)7)

static size_t ent_size(const struct htab *h)
{
	return ROUND8(h->key_size) + ROUND8(h->val_size);
}

static uint8_t *ent_at(const struct htab *h, size_t i)
{
	return h->ents + i * ent_size(h);
}

static void *val_of(const struct htab *h, uint8_t *ent)
{
	return ent + ROUND8(h->key_size);
}

void htab_init(struct htab *h, size_t key_size, size_t val_size)
{
	memset(h, 0, sizeof(*h));
	h->key_size = key_size;
	h->val_size = val_size;
}

void htab_free(struct htab *h)
{
	free(h->index);
	free(h->ents);
	htab_init(h, h->key_size, h->val_size);
}

/* key's index slot: the one holding it, or the empty one where it would go. */
static size_t probe(const struct htab *h, const void *key)
{
	size_t i = hash_bytes(key, h->key_size) & (h->cap - 1);

	while (h->index[i] && memcmp(ent_at(h, h->index[i] - 1), key, h->key_size))
		i = (i + 1) & (h->cap - 1);
	return i;
}

void *htab_find(const struct htab *h, const void *key)
{
	size_t i;

	if (!h->count)
		return NULL;
	i = probe(h, key);
	return h->index[i] ? val_of(h, ent_at(h, h->index[i] - 1)) : NULL;
}

/* A new index twice the size, the entries hashed into it again. */
static int grow_index(struct htab *h)
{
	struct htab bigger = *h;
	size_t i;

	bigger.cap = h->cap ? h->cap * 2 : 64;
	if (bigger.cap > (size_t)UINT32_MAX)
		return -1;
	bigger.index = calloc(bigger.cap, sizeof(*bigger.index));
	if (!bigger.index)
		return -1;
	for (i = 0; i < h->count; i++)
		bigger.index[probe(&bigger, ent_at(h, i))] = i + 1;
	free(h->index);
	h->index = bigger.index;
	h->cap = bigger.cap;
	return 0;
}

/* Room for one more entry: half as many again (realloc moves large blocks by remapping). */
static int grow_ents(struct htab *h)
{
	size_t cap = h->ent_cap ? h->ent_cap + h->ent_cap / 2 : 16;
	uint8_t *ents = realloc(h->ents, cap * ent_size(h));

	if (!ents)
		return -1;
	h->ents = ents;
	h->ent_cap = cap;
	return 0;
}

void *htab_get(struct htab *h, const void *key, int *inserted)
{
	uint8_t *e;
	size_t i;

	if (inserted)
		*inserted = 0;
	if ((h->count + 1) * 2 > h->cap && grow_index(h))
		return NULL;
	i = probe(h, key);
	if (h->index[i])
		return val_of(h, ent_at(h, h->index[i] - 1));
	if (h->count == h->ent_cap && grow_ents(h))
		return NULL;
	e = ent_at(h, h->count);
	memset(e, 0, ent_size(h));
	memcpy(e, key, h->key_size);
	h->index[i] = ++h->count;
	if (inserted)
		*inserted = 1;
	return val_of(h, e);
}

void *htab_next(const struct htab *h, size_t *it, const void **key)
{
	uint8_t *e;

	if (*it >= h->count)
		return NULL;
	e = ent_at(h, (*it)++);
	if (key)
		*key = e;
	return val_of(h, e);
}

long htab_filter(struct htab *h, bool (*keep)(const void *key, const void *val, void *ctx), void *ctx)
{
	struct htab kept;
	const void *key;
	void *val, *dst;
	size_t it = 0;
	long removed = 0;

	htab_init(&kept, h->key_size, h->val_size);
	while ((val = htab_next(h, &it, &key))) {
		if (!keep(key, val, ctx)) {
			removed++;
			continue;
		}
		dst = htab_get(&kept, key, NULL);
		if (!dst) {
			htab_free(&kept);
			return -ENOMEM;
		}
		memcpy(dst, val, h->val_size);
	}
	htab_free(h);
	*h = kept;
	return removed;
}

size_t htab_bytes(const struct htab *h)
{
	return h->cap * sizeof(*h->index) + h->ent_cap * ent_size(h);
}
