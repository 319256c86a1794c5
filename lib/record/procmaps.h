/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PROCMAPS_H
#define __LOCKSTAT_PROCMAPS_H

#include <stdint.h>
#include <stddef.h>
#include "base/htab.h"

/*
 * The executable mappings of the sampled processes, captured while they
 * live. Each mapped file is kept open (through /proc/PID/map_files), so a
 * binary that exits, or is deleted, before the end of the recording can
 * still be symbolized from /proc/self/fd/N.
 */
struct proc_map {
	uint32_t tgid;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	char *path;		/* as /proc/PID/maps shows it ("[vdso]", "" for anonymous) */
	int fd;			/* the file held open, or -1 */
	uint8_t build_id[20];
	uint32_t build_id_len;
};

struct maps_cache {
	struct proc_map *maps;
	size_t n;
	size_t cap;
	struct htab seen;	/* uint32 tgid -> captured */
	size_t open_fds;
	size_t max_fds;		/* stop holding files open past this many */
};

void maps_cache__init(struct maps_cache *mc, size_t max_fds);
void maps_cache__free(struct maps_cache *mc);
/* Already captured? */
int maps_cache__has(const struct maps_cache *mc, uint32_t tgid);
/*
 * Read tgid's executable mappings; returns the index of the first new one
 * in mc->maps (so the caller can write them out) or -errno.
 */
int maps_cache__capture(struct maps_cache *mc, uint32_t tgid);
const struct proc_map *maps_cache__find(const struct maps_cache *mc, uint32_t tgid, uint64_t addr);
/* Parse one line of /proc/PID/maps; executable file or anonymous mappings only. */
int procmaps_parse_line(const char *line, struct proc_map *m);

#endif
