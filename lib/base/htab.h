/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HTAB_H
#define __LOCKSTAT_HTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Open-addressing hash table of fixed-size keys and values, stored inline.
 * libbpf's hashmap is internal to libbpf and not installed by Debian, and
 * glibc's hsearch is one global table of strings, hence this small one.
 */
struct htab {
	size_t key_size;
	size_t val_size;
	size_t cap;	/* slots, a power of two */
	size_t count;
	uint8_t *slots;	/* per slot: 1 byte used flag, key, value */
};

void htab_init(struct htab *h, size_t key_size, size_t val_size);
void htab_free(struct htab *h);
/* The value for key, or NULL. */
void *htab_find(const struct htab *h, const void *key);
/* The value for key, inserted zeroed if absent; NULL on ENOMEM. */
void *htab_get(struct htab *h, const void *key, int *inserted);
/* Iterate: start with *it = 0; returns NULL at the end. */
void *htab_next(const struct htab *h, size_t *it, const void **key);

uint64_t hash_bytes(const void *p, size_t n);

#endif
