/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_BTFNAME_H
#define __LOCKSTAT_BTFNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/*
 * Struct fields from BTF: which member of a type holds a lock at an
 * offset, as the kernel's own field names.
 */

/*
 * Is type id (through its typedefs and qualifiers) one of the kernel's
 * lock types: spinlock_t, raw_spinlock_t, rwlock_t, struct mutex,
 * struct rw_semaphore, struct rt_mutex, struct semaphore, ...?
 */
bool btfname_is_lock(const struct btf *btf, uint32_t id);

/*
 * The lock of type id that starts exactly at byte off, as a member path:
 * "d_lockref.lock", "vfs_inode.i_data.i_private_lock", "locks[2]".
 * Anonymous structs and unions are left out of the path; where members
 * overlap (a union), the one that leads to a lock wins. The outermost
 * lock type that starts at off ends the path (a spinlock_t, not its
 * raw_spinlock inside); a lock inside a lock type is named too
 * ("i_rwsem.wait_lock").
 * 0, -ENOENT where no lock starts at off, -ENAMETOOLONG if len is short.
 */
int btfname_member(const struct btf *btf, uint32_t id, uint64_t off, char *buf, size_t len);

/* The struct or union named name, or -ENOENT; its size in *size. */
int btfname_find_struct(const struct btf *btf, const char *name, uint32_t *size);

#endif
