/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_LOCK_NAMING_H
#define __LOCKSTAT_LOCK_NAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How lockstat names a lock: the one rule, for the writer (pwriter.c),
 * the locks view (view_locks_*.c, and through it report, top and the
 * exports), anon.c and diff. The recording only gathers facts: BPF a
 * lock's class and slab cache, lib/record/lockname.c what it found at an
 * address; the rule decides.
 *
 * A kernel lock, most specific first:
 *   1. BPF's class (the contention probe knew the lock: current->files->file_lock)
 *   2. a static symbol: kallsyms, else System.map or a debug vmlinux
 *      ("table[3]" where BTF has the array, "symbol+0xOFF")
 *   3. what the recording found: rq.__lock, zone.lock, a slab object's
 *      field, ptdesc.ptl; a lock on a task's stack is "[stack]@function"
 *      of each row's own caller (its address is reused by whatever runs
 *      on that stack next)
 *   4. an address in the kernel image: vmlinux+0xOFFSET
 *   5. else the address, "0xADDR": the writer cannot know more. The
 *      reader names it "0xADDR@function" after the function that waited
 *      on it most over the whole profile (anon.c), which a writer cannot
 *      know yet; a name a family gives later (the lock_names table:
 *      address_space.i_pages) replaces the address.
 * A name, once given, never changes within a recording, but for the
 * class (per row) and a lock on a stack (per caller). diff, which cannot
 * match addresses across runs, pairs the anonymous ones as
 * "[anon]@function" (diff.c).
 *
 * A user lock is its variable's name, else "0xADDR@caller" of its busiest
 * caller, "0xADDR@?" without one. Waits on futex words that one thread
 * alone waited on (per-thread semaphores and events: no lock) are one
 * row per wait site, "[per-thread]@site" (view_locks_user.c).
 */

/* A lock on a task's stack, as the recording finds it: "[stack]@function" once named. */
#define LOCK_NAME_STACK	"[stack]"

struct ksyms;
struct btf;

/* What is known of a kernel lock when it is named. */
struct lock_facts {
	uint64_t addr;
	uint32_t lock_class;	/* enum lock_class, from BPF */
	const char *found;	/* what the recording found at addr; NULL or "": nothing */
	const char *caller;	/* who waited on it in this row: "function+0xoff", "[stack lost]" */
};

/* Which step of the rule named a kernel lock. */
enum lock_name_step {
	LOCK_NAMED_CLASS,
	LOCK_NAMED_STATIC,
	LOCK_NAMED_FOUND,
	LOCK_NAMED_STACK,
	LOCK_NAMED_IMAGE,
	LOCK_NAMED_ADDRESS,
};

/*
 * A kernel lock's name by the rule (ks and btf may be NULL: no symbols),
 * in buf; the step that named it.
 */
enum lock_name_step lock_name_kernel(const struct ksyms *ks, const struct btf *btf, const struct lock_facts *f,
				     char *buf, size_t len);
/* Whether a step's name holds for every row of the address: a writer may keep it. */
bool lock_name_per_address(enum lock_name_step step);
/*
 * "what@function", the function of caller ("alloc_fd+0x36": alloc_fd), or
 * what alone where the caller is no function ("[stack lost]", "").
 */
void lock_name_by_caller(const char *what, const char *caller, char *buf, size_t len);
/* An anonymous lock: "0xADDR@function" of caller as above, or "0xADDR". */
void lock_name_anon(uint64_t addr, const char *caller, char *buf, size_t len);
/* Per-thread waits grouped by their wait site: "[per-thread]@site" ("[per-thread]@?" for NULL). */
#define LOCK_NAME_PER_THREAD	"[per-thread]"
void lock_name_per_thread(const char *site, char *buf, size_t len);
/* A user lock on the heap: "0xADDR@caller", the whole caller; "0xADDR@?" for NULL. */
void lock_name_user_heap(uint64_t addr, const char *caller, char *buf, size_t len);
/*
 * The length of an anonymous name's "0xADDR" (lowercase hex, as the rule
 * writes it), the name being that alone or "0xADDR@function"; 0 for any
 * other name.
 */
size_t lock_name_anon_len(const char *name);
static inline bool lock_name_is_anon(const char *name)
{
	return lock_name_anon_len(name) != 0;
}

#endif
