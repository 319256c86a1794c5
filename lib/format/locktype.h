/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_LOCKTYPE_H
#define __LOCKSTAT_LOCKTYPE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A user-space lock (the ulocks family): the low bits are its ULK_* kind
 * (format/consts.h), the name is "u:" and the kind's ("u:mutex", "u:cond").
 */
#define LOCK_F_USER	(1U << 16)

/* perf's names for contention_begin flags, plus mutex:spin; u:* for user locks. */
const char *lock_type_name(uint32_t flags);
/* "rwsem" matches rwsem:R and rwsem:W; "rwsem:R" only the first; "u" every user lock. */
bool lock_type_matches(const char *filter, uint32_t flags);
/* Whether a --type filter can match any lock: a type's name, or a family of them. */
bool lock_type_known(const char *filter);
bool lock_type_is_user(uint32_t flags);
/* A user wait for an event (condition variable, other futex), not for a lock. */
bool lock_type_is_wait(uint32_t flags);
/* The contention flags of a hold table row's HOLD_* kind: its lock's type; 0 unknown. */
uint32_t hold_kind_flags(uint64_t kind);
/* Name of a lock recognised in BPF (enum lock_class), or NULL. */
const char *lock_class_name(uint32_t lock_class);

#endif
