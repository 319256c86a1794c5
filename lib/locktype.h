/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_LOCKTYPE_H
#define __LOCKSTAT_LOCKTYPE_H

#include <stdbool.h>
#include <stdint.h>

/* perf's names for contention_begin flags, plus mutex:spin. */
const char *lock_type_name(uint32_t flags);
/* "rwsem" matches rwsem:R and rwsem:W; "rwsem:R" only the first. */
bool lock_type_matches(const char *filter, uint32_t flags);
/* Name of a lock recognised in BPF (enum lock_class), or NULL. */
const char *lock_class_name(uint32_t lock_class);

#endif
