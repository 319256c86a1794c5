/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_ANON_H
#define __LOCKSTAT_ANON_H

#include <stdbool.h>
#include <stdint.h>
#include "base/htab.h"
#include "format/profile.h"

/*
 * Kernel locks the recording could not name (no symbol, no class, no
 * slab field: the profile has "0xADDRESS") are named by the function that
 * waited on them most, over the whole profile: 0xADDRESS@function. The
 * writer cannot know that function (later waits may change it); the
 * first caller seen, which older writers used, changes from run to run.
 */

/* "0xffff88810056eb7c", or as older writers named them, "0x...@function". */
bool anon_lock_name(const char *name);

/*
 * For every anonymous lock of p with a caller: address -> a caller string
 * id of p in the function with the most waits (ties: the first function
 * in byte order). best is an htab of uint64_t -> uint32_t, initialised.
 */
int anon_busiest_callers(const struct profile *p, struct htab *best);

#endif
