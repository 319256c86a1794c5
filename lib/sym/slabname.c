// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From a slab cache and an address to the struct field that is the lock.
 *
 * SLUB lays a slab out as 2^order naturally aligned pages, a left red
 * zone where debugging asks for it, then objects every s->size bytes
 * (mm/slub.c: fixup_red_left(), obj_to_index()), so the offset inside the
 * object is (addr - slab - red_left_pad) % size. A slab allocated at the
 * cache's minimum order under memory pressure (and a KFENCE object) breaks
 * that arithmetic: hence the field is taken only where a lock type starts
 * at exactly that offset, trying the minimum order when the usual one
 * finds none.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "sym/btfname.h"
#include "sym/slabname.h"

#define MERGE_SLACK	72	/* mm/slab_common.c merges sizes within a word, after cache-line alignment */

struct cache_type {
	const char *cache;
	const char *type;
	bool tail;		/* the cache's objects extend past the struct */
};

/* The common caches whose struct is not named after them. */
static const struct cache_type known_caches[] = {
	{ "task_struct", "task_struct", true },	/* the FPU state follows the struct */
	{ "mm_struct", "mm_struct", true },	/* its CPU masks follow the struct */
	{ "pid", "pid", true },			/* numbers[], one per namespace level */
	{ "files_cache", "files_struct", false },
	{ "sighand_cache", "sighand_struct", false },
	{ "signal_cache", "signal_struct", false },
	{ "fs_cache", "fs_struct", false },
	{ "filp", "file", false },
	{ "inode_cache", "inode", false },
	{ "bdev_cache", "bdev_inode", false },
	{ "sock_inode_cache", "socket_alloc", false },
	{ "shmem_inode_cache", "shmem_inode_info", false },
	{ "proc_inode_cache", "proc_inode", false },
	{ "kernfs_node_cache", "kernfs_node", false },
	{ "cred_jar", "cred", false },
	{ "mnt_cache", "mount", false },
	{ "skbuff_head_cache", "sk_buff", false },
	{ "skbuff_fclone_cache", "sk_buff_fclones", false },
	{ "UNIX", "unix_sock", false },
	{ "UNIX-STREAM", "unix_sock", false },
	{ "TCP", "tcp_sock", false },
	{ "TCPv6", "tcp6_sock", false },
	{ "UDP", "udp_sock", false },
	{ "UDPv6", "udp6_sock", false },
	{ "RAW", "raw_sock", false },
	{ "RAWv6", "raw6_sock", false },
};

/* Caches of anything: no struct can be told from them. */
static const char *const generic_prefixes[] = { "kmalloc-", "dma-kmalloc-" };
/* Caches of plain arrays without locks, which may share a slab with typed ones. */
static const char *const lockless_prefixes[] = { "sgpool-", "biovec-", "names_cache" };

static bool has_prefix(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(s, list[i], strlen(list[i])))
			return true;
	return false;
}

#define HAS_PREFIX(s, list)	has_prefix(s, list, sizeof(list) / sizeof(list[0]))

uint64_t slab_offset(uint64_t addr, uint64_t page_size, uint32_t order, uint32_t size,
		     uint32_t red_left_pad)
{
	uint64_t slab = addr & ~((page_size << order) - 1);

	if (!size || addr - slab < red_left_pad)
		return UINT64_MAX;
	return (addr - slab - red_left_pad) % size;
}

static bool size_fits(uint32_t btf_size, uint32_t object_size, uint32_t slack, bool tail)
{
	if (tail)
		return btf_size <= object_size;
	return btf_size <= object_size && object_size - btf_size <= slack;
}

static int struct_if_fits(const struct btf *btf, const char *type, uint32_t object_size,
			  uint32_t slack, bool tail)
{
	uint32_t size;
	int id = btfname_find_struct(btf, type, &size);

	return id >= 0 && size_fits(size, object_size, slack, tail) ? id : -ENOENT;
}

/* "ext4_inode_cache": ext4_inode_cache, ext4_inode, ext4_inode_info. */
static int struct_by_spelling(const struct btf *btf, const char *cache, uint32_t object_size,
			      uint32_t slack)
{
	static const char *const suffixes[] = { "_cache", "_cachep", "_jar" };
	char base[64], guess[80];
	size_t i, n, sl;
	int id = struct_if_fits(btf, cache, object_size, slack, false);

	n = strlen(cache);
	for (i = 0; id < 0 && i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		sl = strlen(suffixes[i]);
		if (n <= sl || n - sl >= sizeof(base) || strcmp(cache + n - sl, suffixes[i]))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(n - sl), cache);
		id = struct_if_fits(btf, base, object_size, slack, false);
		snprintf(guess, sizeof(guess), "%s_info", base);
		if (id < 0)
			id = struct_if_fits(btf, guess, object_size, slack, false);
	}
	return id;
}

int slabname_struct(const struct btf *btf, const char *cache, uint32_t object_size, uint32_t slack)
{
	size_t i;

	if (HAS_PREFIX(cache, generic_prefixes))
		return -ENOENT;
	for (i = 0; i < sizeof(known_caches) / sizeof(known_caches[0]); i++)
		if (!strcmp(cache, known_caches[i].cache))
			return struct_if_fits(btf, known_caches[i].type, object_size, slack,
					      known_caches[i].tail);
	return struct_by_spelling(btf, cache, object_size, slack);
}

/*
 * The structs whose objects the cache may hold: one for a cache of its
 * own, one per merged cache otherwise. -ENOENT if any of them is unknown,
 * since a lock found in the others could then be a wrong guess.
 */
static int cache_types(const struct btf *btf, const struct slab_cache *c, int *ids, size_t *n)
{
	const char *self = c->name;
	const char *const *names = c->naliases ? (const char *const *)c->aliases : &self;
	size_t i, j, count = c->naliases ? c->naliases : 1;
	bool merged = count > 1;
	int id;

	if (c->refcount > 1 && !merged)
		return -ENOENT;	/* merged, but with what is not known */
	*n = 0;
	for (i = 0; i < count; i++) {
		if (HAS_PREFIX(names[i], lockless_prefixes))
			continue;
		id = slabname_struct(btf, names[i], merged ? c->size : c->object_size,
				     merged ? MERGE_SLACK : 0);
		if (id < 0)
			return -ENOENT;
		for (j = 0; j < *n && ids[j] != id; j++)
			;
		if (j == *n && *n < SLAB_MAX_TYPES)
			ids[(*n)++] = id;
	}
	return *n ? 0 : -ENOENT;
}

/* The one struct of ids with a lock starting at off, as "type.field". */
static int unique_field(const struct btf *btf, const int *ids, size_t n, uint64_t off,
			char *buf, size_t len)
{
	char field[256];
	size_t i;
	int found = 0;

	for (i = 0; i < n; i++) {
		if (btfname_member(btf, ids[i], off, field, sizeof(field)))
			continue;
		if (found++)
			return -ENOENT;	/* two structs of a merged cache: cannot tell */
		snprintf(buf, len, "%s.%s", btf__name_by_offset(btf, btf__type_by_id(btf, ids[i])->name_off),
			 field);
	}
	return found ? 0 : -ENOENT;
}

/* cache_types(), once a cache. */
static int known_types(const struct btf *btf, struct slab_cache *c)
{
	size_t n;

	if (!c->types_known) {
		c->types_known = cache_types(btf, c, c->types, &n) ? -1 : 1;
		c->ntypes = c->types_known > 0 ? n : 0;
	}
	return c->types_known > 0 ? 0 : -ENOENT;
}

static int typed_name(const struct btf *btf, struct slab_cache *c, uint64_t addr,
		      uint64_t page_size, char *buf, size_t len)
{
	uint32_t orders[2] = { c->order, c->min_order };
	uint64_t off;
	size_t i;

	if (known_types(btf, c))
		return -ENOENT;
	for (i = 0; i < 2; i++) {
		if (i && orders[1] == orders[0])
			break;
		off = slab_offset(addr, page_size, orders[i], c->size, c->red_left_pad);
		if (off < c->object_size && !unique_field(btf, c->types, c->ntypes, off, buf, len))
			return 0;
	}
	return -ENOENT;
}

/* kmalloc-rnd-03-64 is kmalloc-64: which of the random copies is chance. */
static void display_name(const char *cache, char *out, size_t len)
{
	const char *rnd = "kmalloc-rnd-";
	const char *dash;

	if (!strncmp(cache, rnd, strlen(rnd)) && (dash = strchr(cache + strlen(rnd), '-')))
		snprintf(out, len, "kmalloc-%s", dash + 1);
	else
		snprintf(out, len, "%s", cache);
}

void slabname_lock(const struct btf *btf, struct slab_cache *c, uint64_t addr,
		   uint64_t page_size, char *buf, size_t len)
{
	uint64_t off = slab_offset(addr, page_size, c->order, c->size, c->red_left_pad);
	char cache[64];

	if (btf && !typed_name(btf, c, addr, page_size, buf, len))
		return;
	display_name(c->name, cache, sizeof(cache));
	if (off == UINT64_MAX)
		snprintf(buf, len, "&%s", cache);
	else
		snprintf(buf, len, "&%s+0x%" PRIx64, cache, off);
}

static int link_target(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = readlink(path, out, len - 1);
	if (n < 0)
		return -errno;
	out[n] = '\0';
	return 0;
}

static int add_alias(char ***names, size_t *n, const char *name)
{
	char **grown = realloc(*names, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*names = grown;
	grown[*n] = strdup(name);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int slabname_aliases(const char *sysfs, const char *cache, char ***names, size_t *n)
{
	char target[256], other[256];
	struct dirent *de;
	DIR *d;
	int err = link_target(sysfs, cache, target, sizeof(target));

	*names = NULL;
	*n = 0;
	if (err)
		return err == -EINVAL ? 0 : err;	/* EINVAL: a directory, a cache of its own */
	d = opendir(sysfs);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_name[0] == ':')
			continue;
		if (!link_target(sysfs, de->d_name, other, sizeof(other)) && !strcmp(other, target))
			err = add_alias(names, n, de->d_name);
	}
	closedir(d);
	if (err) {
		slabname_free_aliases(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return err;
}

void slabname_free_aliases(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
