/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PWRITER_INT_H
#define __LOCKSTAT_PWRITER_INT_H

/* Shared by lib/format/pwriter.c (locks) and lib/format/pwriter_samples.c (sampler). */
#include "base/buf.h"
#include "format/ctable.h"
#include "format/profile.h"

struct pw_ustack {		/* a user stack as written, kept to symbolize it */
	uint32_t n;
	uint64_t frames[LS_SAMPLE_USTACK_DEPTH];
};

struct pw_upc {			/* a user PC to symbolize at the end */
	uint32_t tgid;
	uint32_t __pad;
	uint64_t addr;
};

/* What pwriter.upcs keeps of a struct pw_upc. */
struct pw_upc_val {
	uint8_t flags;		/* PW_UPC_* */
	uint64_t seen_ns;	/* the end of the bucket it was first seen in */
};

#define PW_UPC_LEAF	1u	/* seen as the sampled PC, not only as a return address */
#define PW_UPC_WRITTEN	2u	/* in a USYMS chunk already */

struct pwriter {
	struct pwriter_opts o;
	struct htab str_ids;	/* hash of string -> id + 1 */
	char **strs;		/* by id, to confirm hash hits */
	uint32_t nstrs;
	uint32_t strs_written;	/* ids below this are on disk */
	struct htab stacks_seen;	/* int32 file stack id */
	struct htab ksyms_seen;	/* uint64 symbol address */
	struct htab lock_names;	/* uint64 lock address -> name id + 1 */
	struct htab callers;	/* int32 file stack id -> its caller's name id + 1 */
	struct htab ustacks;	/* int32 file stack id -> struct pw_ustack */
	struct htab upcs;	/* struct pw_upc -> struct pw_upc_val */
	uint64_t now_ns;	/* the end of the bucket being written */
	struct htab tstacks;	/* struct tstack -> int32 file stack id (tables) */
	int32_t ntstacks;
	struct htab tustacks;	/* struct tustack -> int32 file stack id */
	int32_t ntustacks;
	struct htab user_tgids;	/* uint32 tgid seen in a table's user stack */
	struct buf ksyms_chunk;
	uint32_t nksyms_pending;
	struct buf stacks_chunk;
	uint32_t nstacks_pending;
};

uint32_t pw_intern(struct pwriter *w, const char *s);
void pw_note_stack(struct pwriter *w, int32_t id, const uint64_t *frames, int n, bool kernel);
/* Remember the PCs of a user stack to symbolize them at the end. */
void pw_note_upcs(struct pwriter *w, uint32_t tgid, const uint64_t *frames, uint32_t n);
int pw_flush_then(struct pwriter *w, uint32_t type, uint32_t flags, const struct buf *b);

#endif
