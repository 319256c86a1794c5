/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PROCMAPS_H
#define __LOCKSTAT_PROCMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "base/htab.h"

/*
 * Every executable mapping a process had while we recorded: reported by
 * the kernel as it was made (lib/record/maptrack.c), or read from
 * /proc/PID/maps for what was there before we looked. Nothing is
 * forgotten when a mapping goes away: a library unloaded before the end
 * (dlclose, exec, exit) still names the PCs sampled in it. Where two
 * mappings covered an address one after the other, a PC is resolved
 * against the one that was there when it was seen.
 *
 * A process becomes "announced" when the profile first refers to it: from
 * then on its files are held open (through /proc/PID/map_files where it
 * still lives), so that a binary deleted before the end can still be
 * symbolized from /proc/self/fd/N, and its mappings are written to the
 * profile as they come.
 */
struct proc_map {
	uint32_t tgid;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t dev;		/* makedev(major, minor) of the file; 0 for anonymous memory */
	uint64_t ino;
	uint64_t mapped_ns;	/* when it was made (CLOCK_MONOTONIC); 0: before we looked */
	char *path;		/* as /proc/PID/maps shows it ("[vdso]", "" for anonymous) */
	int fd;			/* the file held open (shared by every mapping of it), or -1 */
	uint8_t build_id[20];
	uint32_t build_id_len;
};

/* One process: its mappings in the order they were learnt. */
struct proc_maps {
	struct proc_map *maps;
	size_t n;
	size_t cap;
	size_t nwritten;	/* maps[0..nwritten) are in the profile */
	uint64_t exited_ns;	/* its last thread exited then; 0: alive */
	bool announced;
	bool queued;		/* in maps_cache.unwritten */
	bool proc_read;		/* /proc/PID/maps read already */
	char comm[16];		/* its name at exec, "" when not seen */
};

struct maps_cache {
	struct htab procs;	/* uint32 tgid -> struct proc_maps * */
	struct htab files;	/* struct file_id -> struct held_file */
	size_t open_fds;
	size_t max_fds;		/* stop holding files open past this many */
	/*
	 * The announced processes with mappings not yet written: a fork loop
	 * announces hundreds of processes a second, and a walk of every
	 * process held at each announcement cost record 12 % of its time.
	 */
	uint32_t *unwritten;
	size_t nunwritten, unwritten_cap;
};

void maps_cache__init(struct maps_cache *mc, size_t max_fds);
void maps_cache__free(struct maps_cache *mc);
/* Announced already? */
bool maps_cache__announced(const struct maps_cache *mc, uint32_t tgid);
/* A mapping as the kernel reported it when it was made: m is copied, its path too. */
int maps_cache__add(struct maps_cache *mc, const struct proc_map *m);
/*
 * Read tgid's executable mappings from /proc, once: those not known
 * already count as made before we looked. 0 or -errno (the process is
 * gone).
 */
int maps_cache__read_proc(struct maps_cache *mc, uint32_t tgid);
/*
 * A child just forked from lockstat runs lockstat's code until its exec
 * (the workload waits for the probes there): our own mappings become the
 * child's, as made before we looked, so that what it is sampled doing
 * then is named. Its exec's mappings, made later, win wherever they
 * cover the same addresses; /proc/CHILD/maps is still read when the
 * profile first refers to it. 0 or -errno.
 */
int maps_cache__adopt_own(struct maps_cache *mc, uint32_t child);
/* The same for every process there is now (-a: what they mapped before we looked). */
void maps_cache__read_all(struct maps_cache *mc);
/* The profile refers to tgid from now on: hold its files open. 0 or -errno. */
int maps_cache__announce(struct maps_cache *mc, uint32_t tgid);
/* Its last thread exited at when; its exec'd name, for a process gone by the drain. */
void maps_cache__exited(struct maps_cache *mc, uint32_t tgid, uint64_t when);
void maps_cache__set_comm(struct maps_cache *mc, uint32_t tgid, const char *comm);
const char *maps_cache__comm(const struct maps_cache *mc, uint32_t tgid);
/*
 * The mapping of tgid that covered addr at seen_ns: of those that did,
 * the last one made by then (0: the last one made at all); NULL when none.
 */
const struct proc_map *maps_cache__find(const struct maps_cache *mc, uint32_t tgid, uint64_t addr,
					uint64_t seen_ns);
/*
 * The file mapping a data address of tgid belongs to (its .data or .bss):
 * the last one made of those starting closest below it. NULL when none.
 */
const struct proc_map *maps_cache__data_map(const struct maps_cache *mc, uint32_t tgid, uint64_t addr);
/*
 * Forget the processes that exited before `before` and were never
 * announced: nothing will refer to them any more.
 */
void maps_cache__purge(struct maps_cache *mc, uint64_t before);
/*
 * The processes that exited before `before` whose mappings are still
 * held, announced ones included: the profile may still refer to those,
 * until their PCs are symbolized.
 */
size_t maps_cache__exited_held(const struct maps_cache *mc, uint64_t before);
/*
 * Forget every process that exited before `before`, announced or not:
 * for when their PCs are all symbolized. forgot (may be NULL) is called
 * with each one's tgid. How many were forgotten.
 */
size_t maps_cache__forget_exited(struct maps_cache *mc, uint64_t before,
				 void (*forgot)(void *ctx, uint32_t tgid), void *ctx);
/* Whether tgid's mappings are held. */
bool maps_cache__known(const struct maps_cache *mc, uint32_t tgid);
/*
 * The announced processes' mappings not written yet, each process's in
 * one call of fn, after which they count as written. Stops at fn's first
 * error and returns it.
 */
typedef int (*maps_write_fn)(void *ctx, const struct proc_map *maps, size_t n);
int maps_cache__write_new(struct maps_cache *mc, maps_write_fn fn, void *ctx);
/* Parse one line of /proc/PID/maps; executable file or anonymous mappings only. */
int procmaps_parse_line(const char *line, struct proc_map *m);

#endif
