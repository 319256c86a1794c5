// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a whole BPF hash map in few syscalls (lib/record/mapscan.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "record/mapscan.h"

#define MAPSCAN_CHUNK 1024	/* entries a batch call asks for at first */

/* -1: not probed yet; 0: per-entry loop; 1: batches. */
static int batch_state = -1;

bool mapscan_batched(void)
{
	return batch_state == 1;
}

void mapscan_use_loop(void)
{
	batch_state = 0;
}

void mapscan_init(struct mapscan *s, int fd, size_t key_size, size_t val_size)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->key_size = key_size;
	s->val_size = val_size;
}

void mapscan_free(struct mapscan *s)
{
	free(s->keys);
	free(s->vals);
	s->keys = s->vals = NULL;
	s->cap = 0;
}

void mapscan_start(struct mapscan *s)
{
	s->started = s->done = false;
	s->n = s->at = 0;
}

static int grow(struct mapscan *s, uint32_t cap)
{
	void *k = realloc(s->keys, (size_t)cap * s->key_size);
	void *v;

	if (!k)
		return -ENOMEM;
	s->keys = k;
	v = realloc(s->vals, (size_t)cap * s->val_size);
	if (!v)
		return -ENOMEM;
	s->vals = v;
	s->cap = cap;
	return 0;
}

/*
 * The next chunk by BPF_MAP_LOOKUP_BATCH. ENOENT ends the map, with the
 * last entries in count; ENOSPC means one hash bucket holds more than
 * the chunk: ask again with room for more.
 */
static int fetch_batch(struct mapscan *s)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint64_t out = 0;
	uint32_t count;
	int err;

	for (;;) {
		count = s->cap;
		s->syscalls++;
		err = bpf_map_lookup_batch(s->fd, s->started ? &s->cursor : NULL,
					   &out, s->keys, s->vals, &count, &opts);
		err = err ? -errno : 0;
		if (err != -ENOSPC || s->cap >= UINT32_MAX / 2)
			break;
		if (grow(s, 2 * s->cap))
			return -ENOMEM;
	}
	if (err && err != -ENOENT)
		return err;
	s->started = true;
	s->cursor = out;
	s->done = err == -ENOENT;
	s->n = count;
	s->at = 0;
	return 0;
}

/* One entry by get_next_key and lookup, the way before batches. */
static int fetch_one(struct mapscan *s)
{
	const void *prev = s->started ? s->keys : NULL;

	s->n = s->at = 0;
	for (;;) {
		s->syscalls++;
		if (bpf_map_get_next_key(s->fd, prev, s->keys)) {
			s->done = true;
			return errno == ENOENT ? 0 : -errno;
		}
		s->started = true;
		prev = s->keys;
		s->syscalls++;
		if (!bpf_map_lookup_elem(s->fd, s->keys, s->vals))
			break;
		if (errno != ENOENT)	/* deleted between the two calls: the next one */
			return -errno;
	}
	s->n = 1;
	return 0;
}

/* Batches, unless the kernel (or the map type) refuses them on the first try. */
static int fetch(struct mapscan *s)
{
	int err;

	if (batch_state == 0)
		return fetch_one(s);
	err = fetch_batch(s);
	if (batch_state == -1 && (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP)) {
		batch_state = 0;
		s->started = s->done = false;
		return fetch_one(s);
	}
	if (!err)
		batch_state = 1;
	return err;
}

int mapscan_next(struct mapscan *s, const void **key, const void **val)
{
	int err;

	if (!s->cap && grow(s, batch_state == 0 ? 1 : MAPSCAN_CHUNK))
		return -ENOMEM;
	while (s->at >= s->n) {
		if (s->done)
			return 0;
		err = fetch(s);
		if (err)
			return err;
	}
	*key = (char *)s->keys + s->at * s->key_size;
	*val = (char *)s->vals + s->at * s->val_size;
	s->at++;
	return 1;
}
