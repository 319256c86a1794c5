/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_ANON_H
#define __LOCKSTAT_ANON_H

#include <stdbool.h>
#include <stdint.h>
#include "base/htab.h"
#include "format/profile.h"

/*
 * Kernel locks the recording could not name (no symbol, no class, no
 * slab field: the profile has "0xADDRESS", lock_name_is_anon()) are named
 * by the function that waited on them most, over the whole profile:
 * 0xADDRESS@function (format/lock_naming.h). The writer cannot know that
 * function (later waits may change it); the first caller seen, which
 * older writers used, changes from run to run.
 */

/*
 * For every anonymous lock of p with a caller: address -> a caller string
 * id of p in the function with the most waits (ties: the first function
 * in byte order). best is an htab of uint64_t -> uint32_t, initialised.
 */
int anon_busiest_callers(const struct profile *p, struct htab *best);

#endif
