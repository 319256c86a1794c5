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
 *
 * SLUB merges caches of one size and flags into one kmem_cache, named
 * after the first of them (/sys/kernel/slab links each name to one
 * ":0000056" directory): file_lock_ctx's objects live in a cache named
 * ftrace_event_field. Every merged cache's struct is looked up; a field is
 * named only where exactly one struct can hold a lock at the offset, and
 * the merged caches that may, where that cannot be told.
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
	/* Small caches that SLUB merges with others of their size. */
	{ "file_lock_ctx", "file_lock_context", false },
	{ "Acpi-Namespace", "acpi_namespace_node", false },
	{ "Acpi-Parse", "acpi_parse_obj_common", false },
	{ "Acpi-ParseExt", "acpi_parse_obj_named", false },
	{ "Acpi-State", "acpi_generic_state", false },
	{ "Acpi-Operand", "acpi_operand_object", false },
	{ "btrfs_inode_defrag", "inode_defrag", false },
	{ "xfs_extfree_intent", "xfs_extent_free_item", false },
	{ "eventpoll_epi", "epitem", false },
	{ "eventpoll_pwq", "eppoll_entry", false },
	{ "ep_head", "epitems_head", false },
	{ "tcp_bind_bucket", "inet_bind_bucket", false },
	{ "tcp_bind2_bucket", "inet_bind2_bucket", false },
	{ "posix_timers_cache", "k_itimer", false },
	{ "fasync_cache", "fasync_struct", false },
	{ "shared_policy_node", "sp_node", false },
	{ "numa_policy", "mempolicy", false },
	{ "uid_cache", "user_struct", false },
	{ "ip6_dst_cache", "rt6_info", false },
	{ "UDP-Lite", "udp_sock", false },
	{ "UDPLITEv6", "udp6_sock", false },
	{ "ip4-frags", "ipq", false },
	{ "ip6-frags", "frag_queue", false },
	{ "fuse_request", "fuse_req", false },
	{ "jbd2_transaction_s", "transaction_s", false },
	{ "iommu_iova", "iova", false },
	{ "btrfs_extent_state", "extent_state", false },
	{ "btrfs_extent_map", "extent_map", false },
	{ "btrfs_extent_buffer", "extent_buffer", false },
	{ "btrfs_prelim_ref", "prelim_ref", false },
	{ "xfs_ili", "xfs_inode_log_item", false },
	{ "xfs_refc_intent", "xfs_refcount_intent", false },
	{ "blkdev_ioc", "io_context", false },
	{ "ip_fib_alias", "fib_alias", false },
	{ "AF_VSOCK", "vsock_sock", false },
	{ "net_namespace", "net", false },
	{ "kvm_mmu_page_header", "kvm_mmu_page", false },
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

/* Does the struct end in a flexible array (struct pid's numbers[])? */
static bool flexible_end(const struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || !btf_vlen(t))
		return false;
	m = btf_members(t) + btf_vlen(t) - 1;
	t = btf__type_by_id(btf, m->type);
	return t && btf_is_array(t) && !btf_array(t)->nelems;
}

/* slabname_struct(), and whether the cache's objects extend past the struct. */
static int struct_of(const struct btf *btf, const char *cache, uint32_t object_size, uint32_t slack,
		     bool *tail)
{
	size_t i;
	int id;

	*tail = false;
	if (HAS_PREFIX(cache, generic_prefixes))
		return -ENOENT;
	for (i = 0; i < sizeof(known_caches) / sizeof(known_caches[0]); i++) {
		if (strcmp(cache, known_caches[i].cache))
			continue;
		id = struct_if_fits(btf, known_caches[i].type, object_size, slack, known_caches[i].tail);
		*tail = id >= 0 && (known_caches[i].tail || flexible_end(btf, id));
		return id;
	}
	id = struct_by_spelling(btf, cache, object_size, slack);
	*tail = id >= 0 && flexible_end(btf, id);
	return id;
}

int slabname_struct(const struct btf *btf, const char *cache, uint32_t object_size, uint32_t slack)
{
	bool tail;

	return struct_of(btf, cache, object_size, slack, &tail);
}

/* The cache's names: each merged cache's, or its own (through *self). */
static const char *const *cache_names(const struct slab_cache *c, const char **self, size_t *n)
{
	*self = c->name;
	*n = c->naliases ? c->naliases : 1;
	return c->naliases ? (const char *const *)c->aliases : self;
}

#define LOCKLESS	0	/* types[i]: a cache of plain arrays */

/*
 * The struct of each name of the cache, in types[]. -ENOENT where the
 * cache is merged with caches not known (their sysfs links unread), or
 * with more than SLAB_MAX_NAMES.
 */
static int cache_types(const struct btf *btf, struct slab_cache *c)
{
	const char *self;
	size_t i, count;
	const char *const *names = cache_names(c, &self, &count);
	bool merged = count > 1, tail;

	if (c->refcount > 1 && !merged)
		return -ENOENT;	/* merged, but with what is not known */
	if (count > SLAB_MAX_NAMES)
		return -ENOENT;
	c->tails = 0;
	for (i = 0; i < count; i++) {
		if (HAS_PREFIX(names[i], lockless_prefixes)) {
			c->types[i] = LOCKLESS;
			continue;
		}
		c->types[i] = struct_of(btf, names[i], merged ? c->size : c->object_size,
					merged ? MERGE_SLACK : 0, &tail);
		if (tail)
			c->tails |= 1u << i;
	}
	c->ntypes = count;
	return 0;
}

/*
 * May name i's objects hold a lock at off? 1 with its "type.field" in
 * field where BTF says one starts there, 0 where BTF says none does, -1
 * where it cannot say: the struct is not known, the offset is in the tail
 * allocated past it, or the member path is too long to write.
 */
static int lock_at(const struct btf *btf, const struct slab_cache *c, size_t i, uint64_t off,
		   char *field, size_t len)
{
	const struct btf_type *t;
	char member[200];
	int id = c->types[i], err;

	if (id == LOCKLESS)
		return 0;
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	err = btfname_member(btf, id, off, member, sizeof(member));
	if (!err) {
		snprintf(field, len, "%s.%s", btf__name_by_offset(btf, t->name_off), member);
		return 1;
	}
	if (err != -ENOENT || (off >= t->size && (c->tails & (1u << i))))
		return -1;
	return 0;
}

/*
 * The names that may hold a lock at off, as a bit mask; 0 into buf its
 * "type.field" where they all have a known struct and name the same one.
 */
static uint32_t lock_holders(const struct btf *btf, const struct slab_cache *c, uint64_t off,
			     char *buf, size_t len, int *named)
{
	char first[256] = "", field[256];
	bool undecided = false;
	uint32_t maybe = 0;
	size_t i;
	int at;

	for (i = 0; i < c->ntypes; i++) {
		at = lock_at(btf, c, i, off, field, sizeof(field));
		if (!at)
			continue;
		maybe |= 1u << i;
		if (at < 0 || (first[0] && strcmp(first, field)))
			undecided = true;	/* two structs, or one not known: cannot tell */
		else
			snprintf(first, sizeof(first), "%s", field);
	}
	*named = first[0] && !undecided ? 0 : -ENOENT;
	if (!*named)
		snprintf(buf, len, "%s", first);
	return maybe;
}

/* cache_types(), once a cache. */
static int known_types(const struct btf *btf, struct slab_cache *c)
{
	if (!c->types_known)
		c->types_known = cache_types(btf, c) ? -1 : 1;
	if (c->types_known < 0)
		c->ntypes = 0;
	return c->types_known > 0 ? 0 : -ENOENT;
}

/*
 * "type.field" into buf, or -ENOENT and in *maybe the names that may hold
 * a lock at the offset of either order (0: not known).
 */
static int typed_name(const struct btf *btf, struct slab_cache *c, uint64_t addr,
		      uint64_t page_size, char *buf, size_t len, uint32_t *maybe)
{
	uint32_t orders[2] = { c->order, c->min_order };
	uint64_t off;
	size_t i;
	int named;

	*maybe = 0;
	if (known_types(btf, c))
		return -ENOENT;
	for (i = 0; i < 2; i++) {
		if (i && orders[1] == orders[0])
			break;
		off = slab_offset(addr, page_size, orders[i], c->size, c->red_left_pad);
		if (off >= c->object_size)
			continue;
		*maybe |= lock_holders(btf, c, off, buf, len, &named);
		if (!named)
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

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names picked, sorted and comma-separated, ",…" for those that do not fit or are not known. */
static void put_set(char *out, size_t len, const char **picked, size_t n, bool more)
{
	static const char ellipsis[] = ",…";
	size_t i, used = 0, need, budget = len < SLAB_SET_LEN + 1 ? len - 1 : SLAB_SET_LEN;

	out[0] = '\0';
	qsort(picked, n, sizeof(*picked), by_name);
	for (i = 0; i < n; i++) {
		need = (used ? 1 : 0) + strlen(picked[i]);
		if (used + need + (i + 1 < n || more ? strlen(ellipsis) : 0) > budget)
			break;
		used += snprintf(out + used, len - used, "%s%s", used ? "," : "", picked[i]);
	}
	if ((i < n || more) && used + strlen(ellipsis) <= budget)
		snprintf(out + used, len - used, "%s", used ? ellipsis : ellipsis + 1);
}

/*
 * "{a,b}": the merged caches that may hold a lock at the offset (maybe),
 * else every one not of plain arrays, else all.
 */
static void cache_set(const struct slab_cache *c, uint32_t maybe, char *out, size_t len)
{
	const char *picked[SLAB_MAX_NAMES], *self;
	char set[SLAB_SET_LEN + 1];
	size_t i, n = 0, count;
	const char *const *names = cache_names(c, &self, &count);
	uint32_t not_arrays = 0;

	for (i = 0; !maybe && i < count && i < SLAB_MAX_NAMES; i++)
		if (!HAS_PREFIX(names[i], lockless_prefixes))
			not_arrays |= 1u << i;
	if (!maybe)
		maybe = not_arrays;
	for (i = 0; i < count && i < SLAB_MAX_NAMES; i++)
		if (maybe & (1u << i) || !maybe)
			picked[n++] = names[i];
	put_set(set, sizeof(set), picked, n, !c->naliases || count > SLAB_MAX_NAMES);
	snprintf(out, len, "{%s}", set);
}

enum slab_name_kind slabname_lock(const struct btf *btf, struct slab_cache *c, uint64_t addr,
				  uint64_t page_size, char *buf, size_t len)
{
	uint64_t off = slab_offset(addr, page_size, c->order, c->size, c->red_left_pad);
	char cache[SLAB_SET_LEN + 8];
	uint32_t maybe = 0;
	bool merged = slabname_merged(c);

	if (btf && !typed_name(btf, c, addr, page_size, buf, len, &maybe))
		return SLAB_NAME_FIELD;
	if (merged)
		cache_set(c, maybe, cache, sizeof(cache));
	else
		display_name(c->name, cache, sizeof(cache));
	if (off == UINT64_MAX)
		snprintf(buf, len, "&%s", cache);
	else
		snprintf(buf, len, "&%s+0x%" PRIx64, cache, off);
	return merged ? SLAB_NAME_SET : SLAB_NAME_CACHE;
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
