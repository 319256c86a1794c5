/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PROFILE_H
#define __LOCKSTAT_PROFILE_H

#include <stdint.h>
#include <stdbool.h>
#include "format/consts.h"
#include "format/ctable.h"
#include "format/families.h"
#include "base/htab.h"
#include "sym/ksyms.h"
#include "format/store.h"

/*
 * The in-memory profile model that every reader builds its views from
 * (report, top, diff, export, fsck), and the writer that record and top
 * feed. Both sides of the LKST
 * payload encodings live in lib/format/profile.c and lib/format/pwriter.c.
 */

/* One aggregated contention row as the collector hands it over. */
struct cont_row_key {
	uint64_t lock_addr;
	int32_t stack_id;	/* the file's stack id, or LS_STACK_FAILED / LS_STACK_UNSAMPLED */
	uint32_t flags;		/* contention_begin flags: the lock type */
	uint32_t tgid;		/* 0 unless per-task aggregation (-t) */
	uint32_t tid;
	uint32_t lock_class;	/* enum lock_class */
	uint32_t shift;		/* a sampled row: each wait taken with probability 2^-shift */
	uint32_t err;		/* the waits ended without the lock: errno (EINTR, EDEADLK) */
};

struct cont_row {
	struct cont_row_key key;
	struct cont_val val;	/* the delta for this bucket */
	char comm[LS_COMM_LEN];	/* with -t */
	/*
	 * What the recording found at the lock's address (rq.__lock, a slab
	 * object's field, "[stack]"), NULL: nothing; the writer's naming
	 * rule (lock_naming.h) decides. Valid until the collector's next drain.
	 */
	const char *found;
};

/* A sampler row's process, thread and stacks: the collector's stack ids, -1 for none. */
struct sample_ids {
	uint32_t tgid;
	uint32_t tid;
	int32_t kstack;
	int32_t ustack;
};

/* One aggregated sampler row as the collector hands it over. */
struct sample_row {
	struct sample_ids key;
	uint64_t count;		/* the delta for this bucket */
	char comm[16];
};

/*
 * Stack ids in the file: the collector's id of the stack (a number from 0
 * in the order it first saw it; a stack it forgot and saw again has a
 * new one) plus the map it came from, so that the stacks of every family
 * (whose ids overlap) share one table.
 */
enum stack_space {
	STACK_LOCK_KERNEL = 0,
	STACK_SAMPLE_KERNEL = 1,
	STACK_SAMPLE_USER = 2,
	STACK_TABLE_KERNEL = 3,	/* short kernel stacks of counter tables */
	STACK_TABLE_USER = 4,	/* user stacks of counter tables */
};
#define STACK_SPACE_SHIFT	24

static inline int32_t stack_file_id(enum stack_space space, int32_t id)
{
	return id < 0 ? id : (int32_t)((uint32_t)space << STACK_SPACE_SHIFT | (uint32_t)id);
}

/* The user mappings of a process, captured while it lived. */
struct mapping {
	uint32_t tgid;
	uint32_t path;		/* string id */
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint8_t build_id[20];
	uint32_t build_id_len;
};

#define USYM_MAX_FRAMES	16

/* Why a user frame has no function name; the report counts each cause. */
enum usym_why {
	USYM_OK = 0,
	USYM_NO_FILE,		/* the mapped file could not be opened */
	USYM_BUILD_ID_MISMATCH,	/* the file changed since the process mapped it */
	USYM_NOT_ELF,
	USYM_NO_SYMTAB,		/* stripped, and no debug file found */
	USYM_NO_SYMBOL,		/* no function covers the address */
	USYM_NO_MAPPING,	/* no mapping captured for the address */
	USYM_JIT_NO_MAP,	/* anonymous executable memory without /tmp/perf-PID.map */
	USYM_NO_STACK,		/* a user sample whose stack the sampler lost (a stack-map collision) */
	USYM__COUNT,
};

const char *usym_why_str(uint32_t why);

/* A user PC, symbolized at the end of recording (innermost frame first). */
struct uframe {
	const char *function;	/* NULL: unknown */
	const char *file;
	uint32_t line;
};

struct usym_info {
	uint32_t why;		/* enum syms_why: 0 when resolved */
	const char *module;	/* mapping path, "" when no mapping */
	uint64_t func_addr;	/* function start, module-relative; 0 when unknown */
	uint32_t nframes;
	struct uframe frames[USYM_MAX_FRAMES];
};

/* A row of the model, summed over every bucket read. */
struct lock_row_key {
	uint64_t lock_addr;
	int32_t stack_id;
	uint32_t flags;
	uint32_t tgid;
	uint32_t tid;
	uint32_t name;		/* string ids */
	uint32_t caller;
	uint32_t comm;
	uint32_t shift;		/* a sampled row: each wait taken with probability 2^-shift */
	uint32_t err;		/* the waits ended without the lock: errno; 0 acquired */
	uint32_t __pad;
};

struct lock_row_val {
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t hist[LS_HIST_SLOTS];
	double sumsq;		/* the squared waits, summed where shift > 0 */
};

struct kv {
	char *key;
	char *value;
};

struct stack {
	uint32_t nframes;
	uint64_t *frames;
};

struct sample_row_key {
	uint32_t tgid;
	uint32_t tid;
	uint32_t comm;		/* string id */
	int32_t kstack;		/* file stack ids */
	int32_t ustack;
	uint32_t __pad;
};

/* The model's copy of a user PC's symbols: strings are string ids. */
struct usym_key {
	uint32_t tgid;
	uint32_t __pad;
	uint64_t addr;
};

struct usym_val {
	uint32_t why;
	uint32_t module;
	uint64_t func_addr;
	uint32_t nframes;
	uint32_t first;		/* index into profile.uframes */
};

struct ufile_frame {
	uint32_t function;	/* string ids; 0 ("") when unknown */
	uint32_t file;
	uint32_t line;
};

/*
 * A counter table (lib/format/ctable.h), merged over every bucket read. Each
 * row holds all ncols values, its keys included; string keys are string
 * ids, kernel stacks file stack ids.
 */
struct ptable {
	char *name;
	uint32_t ncols;
	char **cols;
	uint8_t *kinds;
	uint32_t nkeys;
	int ls_id;		/* enum ls_table, -1: a table this lockstat does not write */
	int *lcol;		/* ls_id's columns -> this table's, -1 where it has none */
	struct htab rows;	/* packed key columns -> uint64_t[ncols] */
	uint64_t nbuckets;
};

struct profile {
	struct store_header hdr;
	struct kv *meta;
	size_t nmeta;
	struct kv *lost;
	size_t nlost;
	char **strs;
	size_t nstrs;
	struct htab stacks;	/* int32 id -> struct stack */
	struct ksyms ksyms;
	struct htab rows;	/* lock_row_key -> lock_row_val */
	/*
	 * The LOCKSTAT chunks say how each sampled row was sampled (files
	 * before 1.1 do not): rows without a stack are counted in their
	 * lock's totals, never as a caller.
	 */
	bool lock_sampling;
	struct htab samples;	/* sample_row_key -> uint64 count */
	uint64_t nsample_buckets;
	struct mapping *maps;
	size_t nmaps;
	struct htab usyms;	/* usym_key -> usym_val */
	struct ufile_frame *uframes;
	size_t nuframes;
	struct ptable *tables;
	size_t ntables;
	uint64_t nbuckets;
	uint64_t last_bucket_end_ns;
	bool has_end;
	uint64_t end_duration_ns;
	int64_t end_exit_status;
	uint32_t end_flags;
	/* Where reading stopped early, if it did. */
	enum walk_status stop;
	uint64_t stop_offset;
};

#define END_F_CLEAN		1u	/* record finished normally */
#define END_F_INTERRUPTED	2u	/* stopped by a signal */

/* dst += src: counts and totals add, min and max combine, histograms add. */
/*
 * Adds src's waits to dst's: a row without waits changes nothing (its
 * min of 0 is no wait); counts and totals saturate at 2^64 - 1 rather
 * than wrap (a weighed estimate can be that large: sat_shl()).
 */
void lock_row_merge(struct lock_row_val *dst, const struct lock_row_val *src);

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* x * 2^shift, or 2^64 - 1 where that does not fit (x << shift would drop bits). */
static inline uint64_t sat_shl(uint64_t x, uint32_t shift)
{
	if (!x)
		return 0;
	return shift >= 64 || x > UINT64_MAX >> shift ? UINT64_MAX : x << shift;
}

/* Read a profile file; on error *errmsg says why in one line. */
int profile__read(const char *path, struct profile **p, char *errmsg, size_t errlen);
int profile__read_mem(const void *data, size_t size, struct profile **p, char *errmsg, size_t errlen);
void profile__free(struct profile *p);
/*
 * Chunk by chunk, for a profile still being written or replayed (top):
 * an empty profile with the file's header, then each chunk as it comes;
 * on error *errmsg says why in one line.
 */
struct profile *profile__new(const struct store_header *hdr);
int profile__add_chunk(struct profile *p, const struct store_chunk *ch, char *errmsg, size_t errlen);
/*
 * Forget the counts (lock rows, samples, the values of table rows) but
 * keep what they are written with (strings, stacks, symbols, mappings,
 * table keys and schemas, meta, lost): the start of a new interval.
 */
void profile__clear_counts(struct profile *p);
const char *profile__meta(const struct profile *p, const char *key);
/* The value of key, or dflt when the profile has none or an empty one. */
const char *profile__meta_or(const struct profile *p, const char *key, const char *dflt);
/* A key that must be there and be a whole decimal number: 0, or -1. */
int profile__meta_u64(const struct profile *p, const char *key, uint64_t *v);
const char *profile__str(const struct profile *p, uint32_t id);
uint64_t profile__duration_ns(const struct profile *p);
const struct stack *profile__stack(const struct profile *p, int32_t id);
/* The symbols recorded for a user PC of process tgid, or NULL. */
const struct usym_val *profile__usym(const struct profile *p, uint32_t tgid, uint64_t addr);
/* The mapping of tgid covering addr, or NULL. */
const struct mapping *profile__mapping(const struct profile *p, uint32_t tgid, uint64_t addr);

/* The table of that name, or NULL when it was not recorded. */
const struct ptable *profile__table(const struct profile *p, const char *name);
/* The index of a column, or -1. */
int ptable__col(const struct ptable *t, const char *name);
/* A table of this lockstat's families (lib/format/families.h), or NULL when not recorded. */
const struct ptable *profile__ltable(const struct profile *p, enum ls_table id);
/*
 * The index of the family table's column col (TABLE__COLUMN), or -1 when
 * t is NULL, is not that table, or was written without that column.
 */
int ptable__lcol(const struct ptable *t, enum ls_table id, unsigned int col);
/*
 * Who took a lock, from a kernel stack of the file: the first frame
 * outside the locking primitives, as "function+0xoff"; "[no stack]" for
 * a negative id.
 */
const char *profile__caller(const struct profile *p, int32_t stack_id, char *buf, size_t len);

/* Writer. */
struct pwriter;
struct btf;

typedef int (*stack_fetch_fn)(void *ctx, int32_t id, uint64_t *frames, int max);

/*
 * seen_ns: the end of the bucket in which the PC was first seen, in ns
 * since the recording started: where one mapping replaced another
 * (dlclose, exec), the PC is the one that was there then.
 */
typedef int (*usym_resolve_fn)(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns,
			       struct usym_info *out);

struct pwriter_opts {
	int fd;
	const struct ksyms *ksyms;	/* may be NULL: no names, no callers */
	const struct btf *btf;		/* the kernel's, for arrays' elements; may be NULL */
	stack_fetch_fn fetch_stack;	/* lock stacks */
	stack_fetch_fn fetch_sample_kstack;
	stack_fetch_fn fetch_sample_ustack;
	void *fetch_ctx;
	usym_resolve_fn resolve_user;	/* may be NULL: user PCs stay raw */
	/* A table has a user stack of a process not seen before: capture its mappings. */
	void (*on_user_tgid)(void *ctx, uint32_t tgid);
	void *on_user_tgid_ctx;
	void *resolve_ctx;
	/*
	 * Which file a PC's symbols come from, as a number (may be NULL):
	 * the PCs are symbolized file by file, so that the symbolizer needs
	 * only one file's indexes at a time.
	 */
	uint64_t (*usym_file)(void *resolve_ctx, uint32_t tgid, uint64_t addr);
	bool usyms_leaves_only;	/* only the sampled PCs, not the return addresses (top) */
	const uint8_t *recording_id;	/* 16 bytes */
	uint64_t created_ns;
};

int pwriter__new(struct pwriter **w, const struct pwriter_opts *opts);
void pwriter__free(struct pwriter *w);
int pwriter__meta(struct pwriter *w, const struct kv *kv, size_t n);
int pwriter__bucket(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns,
		    const struct cont_row *rows, size_t nrows);
int pwriter__samples(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns,
		     const struct sample_row *rows, size_t nrows);
int pwriter__table(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns, const struct trows *r);
int pwriter__mappings(struct pwriter *w, const struct mapping *maps, size_t n,
		      const char *const *paths);
/* Symbolize every user PC seen in samples (resolve_user) and write them. */
int pwriter__usyms(struct pwriter *w);
/* The same within about budget_ns (0: no limit); the rest waits for the next call. */
int pwriter__usyms_for(struct pwriter *w, uint64_t budget_ns);
/*
 * Forget the user PCs written already whose process keep() says is gone:
 * what a long recording of many short processes would otherwise hold
 * until its end. A PC of such a tgid seen again (a new process under a
 * reused PID) is symbolized anew. How many were forgotten, or -ENOMEM.
 */
long pwriter__forget_upcs(struct pwriter *w, bool (*keep)(void *ctx, uint32_t tgid), void *ctx);
/*
 * Forget the sampler's stacks written already that known() says the
 * collector forgot (trimmed from its maps: their ids never come back),
 * with the frames kept of user ones: what a long recording of many
 * short processes would otherwise hold. The number forgotten, or -ENOMEM.
 */
long pwriter__forget_sample_stacks(struct pwriter *w, bool (*known)(void *ctx, bool user, int32_t id), void *ctx);
int pwriter__lost(struct pwriter *w, const struct kv *kv, size_t n);
int pwriter__end(struct pwriter *w, uint64_t duration_ns, int64_t exit_status, uint32_t flags);

#endif
