/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_ULOCK_NAMES_H
#define __LOCKSTAT_ULOCK_NAMES_H

#include <stdint.h>
#include "base/htab.h"
#include "record/procmaps.h"

struct syms;

/*
 * Names of user locks: the variable a static lock is (a global
 * pthread_mutex_t: its symbol, in the file mapped just below its address,
 * .data or .bss), and the process's command. The files are those of the
 * mapping cache (lib/record/procmaps.h), which keeps the mappings of a
 * process gone before the drain; /proc is read only for a process it
 * knows nothing of. Each name is looked up once and kept; "" when there
 * is none (a lock on the heap is named later, by address and caller, in
 * the report).
 */
struct ulock_names {
	struct syms *syms;	/* symbol tables only: no lines, no inlines */
	struct maps_cache *maps;
	struct htab locks;	/* struct ulock_name_key -> char * */
	struct htab comms;	/* uint32 tgid -> char * */
};

int ulock_names__init(struct ulock_names *n, struct maps_cache *maps);
void ulock_names__free(struct ulock_names *n);
/* Never NULL: "" when unknown or out of memory. */
const char *ulock_names__lock(struct ulock_names *n, uint32_t tgid, uint64_t addr);
const char *ulock_names__comm(struct ulock_names *n, uint32_t tgid);

#endif
