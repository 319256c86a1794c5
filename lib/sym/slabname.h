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
 * cannot be told ("&kmalloc-64+0x10").
 */

#define SLAB_MAX_TYPES	16	/* structs of a merged cache told apart */

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
	 * The structs it holds, found in BTF on the first lock named in it:
	 * each lookup is a walk of every type (tens of thousands), for each
	 * of its names, and hackbench met 1 500 new locks in one cache.
	 */
	int types[SLAB_MAX_TYPES];
	uint32_t ntypes;
	int8_t types_known;	/* 0: not looked up yet; 1: types[]; -1: none */
};

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
 * type is known and a lock starts at that offset (in a merged cache, in
 * exactly one of its structs), else "&cache+0xOFF". btf may be NULL.
 */
void slabname_lock(const struct btf *btf, struct slab_cache *c, uint64_t addr,
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
