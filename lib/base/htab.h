/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HTAB_H
#define __LOCKSTAT_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Hash table of fixed-size keys and values, with no deletion. libbpf's
 * hashmap is internal to libbpf and not installed by Debian, and glibc's
 * hsearch is one global table of strings, hence this small one.
 *
 * The entries (key, then value, each rounded up to 8 bytes) are kept
 * dense, in the order they were inserted; an open-addressed index of
 * 4-byte entry numbers, at most half full, finds them. An empty slot
 * then costs 4 bytes, not a whole entry: the collector's tables of the
 * last drain's values (a 232-byte entry per lock row) took four times
 * their entries' size when the index held them inline.
 *
 * A value stays where it is until the next insertion that makes the
 * table grow.
 */
struct htab {
	size_t key_size;
	size_t val_size;
	size_t cap;		/* index slots, a power of two */
	size_t count;		/* entries */
	size_t ent_cap;		/* entries allocated */
	uint32_t *index;	/* per slot: 0 empty, else the entry's number + 1 */
	uint8_t *ents;		/* count entries: key, value */
};

void htab_init(struct htab *h, size_t key_size, size_t val_size);
void htab_free(struct htab *h);
/* The value for key, or NULL. */
void *htab_find(const struct htab *h, const void *key);
/* The value for key, inserted zeroed if absent; NULL on ENOMEM. */
void *htab_get(struct htab *h, const void *key, int *inserted);
/* Iterate, in insertion order: start with *it = 0; returns NULL at the end. */
void *htab_next(const struct htab *h, size_t *it, const void **key);
/*
 * Keep only the entries keep() says to, in their order (the table is
 * rebuilt: the only way out of it): how many went, or -ENOMEM with the
 * table as it was.
 */
long htab_filter(struct htab *h, bool (*keep)(const void *key, const void *val, void *ctx), void *ctx);
/* The heap memory the table holds, in bytes. */
size_t htab_bytes(const struct htab *h);

uint64_t hash_bytes(const void *p, size_t n);

#endif
