// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Walk a struct's BTF members down to the lock at an offset. The kernel
 * passes contention_begin the address of the lock itself (a mutex, the
 * spinlock_t, ...), so a name is right only when a lock type starts
 * exactly there: any other landing is refused rather than guessed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "sym/btfname.h"

#define MAX_DEPTH	16	/* struct nesting followed; real kernels need about 6 */

/* The kernel's lock types, by the name of their struct or typedef. */
static const char *const lock_structs[] = {
	"spinlock", "raw_spinlock", "qspinlock", "qrwlock", "mutex", "rw_semaphore",
	"rt_mutex", "rt_mutex_base", "semaphore", "percpu_rw_semaphore", "ww_mutex",
	"rwbase_rt",
};
static const char *const lock_typedefs[] = {
	"spinlock_t", "raw_spinlock_t", "rwlock_t", "arch_spinlock_t", "arch_rwlock_t",
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

#define IN_LIST(s, list)	in_list(s, list, sizeof(list) / sizeof(list[0]))

static bool is_qualifier(const struct btf_type *t)
{
	return btf_is_mod(t) || btf_kind(t) == BTF_KIND_TYPE_TAG;
}

bool btfname_is_lock(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth;

	for (depth = 0; t && depth < MAX_DEPTH; depth++) {
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (btf_is_typedef(t) && name && IN_LIST(name, lock_typedefs))
			return true;
		if (btf_is_composite(t))
			return name && IN_LIST(name, lock_structs);
		if (!btf_is_typedef(t) && !is_qualifier(t))
			return false;
		t = btf__type_by_id(btf, t->type);
	}
	return false;
}

/* The type under typedefs and qualifiers. */
static const struct btf_type *skip_aliases(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	int depth;

	for (depth = 0; t && (btf_is_typedef(t) || is_qualifier(t)) && depth < MAX_DEPTH; depth++) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

struct path {
	char *buf;
	size_t len;
	size_t used;
	bool truncated;
};

/* Append what n bytes of text say; returns where to cut back to. */
static size_t path_put(struct path *p, int n)
{
	size_t at = p->used;

	if (n < 0 || (size_t)n >= p->len - at) {
		p->truncated = true;
		p->buf[at] = '\0';
		return at;
	}
	p->used += n;
	return at;
}

/* ".name" ("name" first). */
static size_t path_push_name(struct path *p, const char *name)
{
	size_t at = p->used;

	return path_put(p, snprintf(p->buf + at, p->len - at, "%s%s", at ? "." : "", name));
}

static size_t path_push_index(struct path *p, uint64_t i)
{
	size_t at = p->used;

	return path_put(p, snprintf(p->buf + at, p->len - at, "[%llu]", (unsigned long long)i));
}

static void path_cut(struct path *p, size_t at)
{
	p->used = at;
	p->buf[at] = '\0';
}

static int walk(const struct btf *btf, uint32_t id, uint64_t off, struct path *p, int depth);

/* Every member that covers off, in order, until one leads to a lock. */
static int walk_members(const struct btf *btf, const struct btf_type *t, uint64_t off,
			struct path *p, int depth)
{
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		uint64_t start = btf_member_bit_offset(t, i) / 8;
		__s64 size = btf__resolve_size(btf, m->type);
		const char *name = btf__name_by_offset(btf, m->name_off);
		size_t at;

		if (btf_member_bitfield_size(t, i) || size <= 0 || off < start || off >= start + size)
			continue;
		at = name && *name ? path_push_name(p, name) : p->used;
		if (!p->truncated && !walk(btf, m->type, off - start, p, depth + 1))
			return 0;
		path_cut(p, at);
	}
	return -ENOENT;
}

static int walk_array(const struct btf *btf, const struct btf_type *t, uint64_t off,
		      struct path *p, int depth)
{
	const struct btf_array *a = btf_array(t);
	__s64 esize = btf__resolve_size(btf, a->type);
	size_t at;

	if (esize <= 0 || off / esize >= a->nelems)
		return -ENOENT;
	at = path_push_index(p, off / esize);
	if (!p->truncated && !walk(btf, a->type, off % esize, p, depth + 1))
		return 0;
	path_cut(p, at);
	return -ENOENT;
}

static int walk(const struct btf *btf, uint32_t id, uint64_t off, struct path *p, int depth)
{
	const struct btf_type *t;

	if (depth > MAX_DEPTH)
		return -ENOENT;
	if (btfname_is_lock(btf, id) && off == 0)
		return 0;
	t = skip_aliases(btf, &id);	/* a lock's own lock inside: a mutex's wait_lock */
	if (t && btf_is_composite(t))
		return walk_members(btf, t, off, p, depth);
	if (t && btf_is_array(t))
		return walk_array(btf, t, off, p, depth);
	return -ENOENT;
}

int btfname_member(const struct btf *btf, uint32_t id, uint64_t off, char *buf, size_t len)
{
	struct path p = { .buf = buf, .len = len };
	const struct btf_type *t;
	int err;

	if (!len)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	t = skip_aliases(btf, &id);
	if (!t || !btf_is_composite(t))
		return -ENOENT;
	err = walk_members(btf, t, off, &p, 0);
	return err && p.truncated ? -ENAMETOOLONG : err;
}

int btfname_find_struct(const struct btf *btf, const char *name, uint32_t *size)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	if (id < 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	if (id < 0)
		return -ENOENT;
	*size = btf__type_by_id(btf, id)->size;
	return id;
}
