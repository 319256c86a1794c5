/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_ULOCK_NAMES_H
#define __LOCKSTAT_ULOCK_NAMES_H

#include <stdint.h>
#include "base/htab.h"

struct syms;

/*
 * Names of user locks, found while their process lives: the variable a
 * static lock is (a global pthread_mutex_t: its symbol, from the file
 * mapped at its address, .bss included), and the process's command.
 * Each is looked up once and kept; "" when there is none (a lock on the
 * heap is named later, by address and caller, in the report).
 */
struct ulock_names {
	struct syms *syms;	/* symbol tables only: no lines, no inlines */
	struct htab locks;	/* struct ulock_name_key -> char * */
	struct htab comms;	/* uint32 tgid -> char * */
};

int ulock_names__init(struct ulock_names *n);
void ulock_names__free(struct ulock_names *n);
/* Never NULL: "" when unknown or out of memory. */
const char *ulock_names__lock(struct ulock_names *n, uint32_t tgid, uint64_t addr);
const char *ulock_names__comm(struct ulock_names *n, uint32_t tgid);

/* One line of /proc/PID/maps, any mapping; 0 or -EINVAL. */
struct ulock_map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	char path[256];		/* "" for anonymous memory */
};

int ulock_map_parse(const char *line, struct ulock_map *m);
/*
 * Of n mappings in address order, the file a data address belongs to:
 * the mapping that holds it, or for anonymous memory right after a file
 * mapping (the .bss past the file's end), that file. Its reference is
 * the file's mapping at offset 0 where there is one (the one offset no
 * two segments share). -ENOENT when the address is in no file's memory.
 */
int ulock_map_find(const struct ulock_map *maps, size_t n, uint64_t addr, const struct ulock_map **ref);

#endif
