/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_MAPTRACK_H
#define __LOCKSTAT_MAPTRACK_H

#include <stdint.h>
#include "record/procmaps.h"

/*
 * The mapping tracker: a dummy perf event per CPU whose ring buffer gets
 * a record for every executable mapping made on the machine, written by
 * the kernel as the mapping is made (PERF_RECORD_MMAP2, as perf record
 * uses), and for every exec and exit. Whatever families are recorded, a
 * process's libraries are known even when it maps them after its first
 * sample and exits before the next drain. The records' PIDs are in our
 * PID namespace.
 */
struct maptrack;

/* 0, or -errno when the kernel refuses the events (the caller falls back to /proc). */
int maptrack__open(struct maptrack **t, struct maps_cache *mc);
void maptrack__free(struct maptrack *t);
/* The descriptor to poll (an epoll fd), readable when records wait. */
int maptrack__fd(const struct maptrack *t);
/* Hand every waiting record to the cache; 0 or -errno. */
int maptrack__consume(struct maptrack *t);
/* Records the kernel could not write: the ring buffer was full. */
uint64_t maptrack__lost(const struct maptrack *t);

#endif
