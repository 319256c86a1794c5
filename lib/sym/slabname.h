/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SLABNAME_H
#define __LOCKSTAT_SLABNAME_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/*
 * Names of locks inside slab objects: the object's start from the slab
 * geometry, the struct behind the cache, the field from BTF
 * ("dentry.d_lockref.lock"), or the cache and the offset where the type
 * cannot be told ("&kmalloc-64+0x10"). SLUB merges caches of one size
 * and flags into one kmem_cache, named after the first of them: such a
 * lock is "struct.field" only where exactly one of the merged caches can
 * hold a lock at that offset and its struct is known, else the caches
 * that may hold it, as a set ("&{file_lock_ctx,xfs_extfree_intent}+0x0"),
 * never one of them as if it were the type.
 */

#define SLAB_MAX_NAMES	32	/* caches merged into one whose structs are looked up */
#define SLAB_SET_LEN	80	/* bytes of cache names in a set, ",…" included */

/* How slabname_lock() named a lock. */
enum slab_name_kind {
	SLAB_NAME_FIELD,	/* "struct.field" */
	SLAB_NAME_CACHE,	/* "&cache+0xOFF": a cache of its own, type not told */
	SLAB_NAME_SET,		/* "&{cache,...}+0xOFF": a merged cache, type not told */
};

/* A kmem_cache as the names program read it, and the caches merged into it. */
struct slab_cache {
	char name[48];
	uint32_t size;		/* the stride of objects in a slab */
	uint32_t object_size;
	uint32_t order;		/* a slab is PAGE_SIZE << order bytes, naturally aligned */
	uint32_t min_order;	/* the order of slabs allocated under memory pressure */
	uint32_t red_left_pad;
	int32_t refcount;	/* above 1: other caches were merged into this one */
	char **aliases;		/* every cache name merged here, this one included */
	size_t naliases;	/* 0: not known */
	/*
	 * The struct of each of its names (aliases[i], or name), found in
	 * BTF on the first lock named in it: each lookup is a walk of every
	 * type (tens of thousands), for each of its names, and hackbench met
	 * 1 500 new locks in one cache. A BTF id; -ENOENT: not known; 0: a
	 * cache of plain arrays, without locks.
	 */
	int types[SLAB_MAX_NAMES];
	uint32_t tails;		/* bit i: objects of name i extend past its struct */
	uint32_t ntypes;
	int8_t types_known;	/* 0: not looked up yet; 1: types[]; -1: none */
};

/* Other caches were merged into this one (or it into them). */
static inline int slabname_merged(const struct slab_cache *c)
{
	return c->refcount > 1 || c->naliases > 1;
}

/* The offset of addr in its object, for slabs of 2^order pages of page_size. */
uint64_t slab_offset(uint64_t addr, uint64_t page_size, uint32_t order, uint32_t size,
		     uint32_t red_left_pad);

/*
 * The struct a cache of this name holds, or -ENOENT: a table of the
 * common caches (files_cache is struct files_struct, bdev_cache struct
 * bdev_inode, ...), then the cache's own name and its usual spellings
 * (ext4_inode_cache: ext4_inode_info). Always checked against BTF: the
 * struct's size must be the cache's object size (at most it, for the
 * structs with a tail allocated past them, and within slack of it for a
 * merged cache, whose object size is the largest of its members').
 */
int slabname_struct(const struct btf *btf, const char *cache, uint32_t object_size, uint32_t slack);

/*
 * The name of the lock at addr in an object of c: "struct.field" where the
 * type is known and a lock starts at that offset; in a merged cache, only
 * where every merged cache that may hold a lock there has a known struct
 * and they agree on it (a cache whose struct is not known may hold one
 * anywhere). Else "&cache+0xOFF", or for a merged cache the set of those
 * that may hold a lock there (all of them where none may), sorted, at most
 * SLAB_SET_LEN bytes of names, ",…" for the rest: "&{a,b,…}+0xOFF" (",…"
 * too where the merged caches' names are not known). btf may be NULL.
 */
enum slab_name_kind slabname_lock(const struct btf *btf, struct slab_cache *c, uint64_t addr,
				  uint64_t page_size, char *buf, size_t len);

/*
 * The names of the caches merged with cache, from the links of a SLUB
 * sysfs directory (/sys/kernel/slab: a merged cache's names all point at
 * one ":A-0000064"-like directory). 0 and *n = 0 for a cache that is its
 * own directory; -errno when the directory cannot be read.
 */
int slabname_aliases(const char *sysfs, const char *cache, char ***names, size_t *n);
void slabname_free_aliases(char **names, size_t n);

#endif
