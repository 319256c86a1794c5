/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PROFILE_H
#define __LOCKSTAT_PROFILE_H

#include <stdint.h>
#include <stdbool.h>
#include "contention.h"
#include "htab.h"
#include "ksyms.h"
#include "store.h"

/*
 * The in-memory profile model that report (and later top, diff, export)
 * consume, and the writer that record feeds. Both sides of the LKST
 * payload encodings live in lib/profile.c and lib/pwriter.c.
 */

/* One aggregated contention row as the collector hands it over. */
struct cont_row {
	struct cont_key key;
	struct cont_val val;	/* the delta for this bucket */
	char comm[LS_COMM_LEN];	/* with -t */
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
	uint32_t __pad;
};

struct lock_row_val {
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t hist[LS_HIST_SLOTS];
};

struct kv {
	char *key;
	char *value;
};

struct stack {
	uint32_t nframes;
	uint64_t *frames;
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
void lock_row_merge(struct lock_row_val *dst, const struct lock_row_val *src);

/* Read a profile file; on error *errmsg says why in one line. */
int profile__read(const char *path, struct profile **p, char *errmsg, size_t errlen);
int profile__read_mem(const void *data, size_t size, struct profile **p, char *errmsg, size_t errlen);
void profile__free(struct profile *p);
const char *profile__meta(const struct profile *p, const char *key);
const char *profile__str(const struct profile *p, uint32_t id);
uint64_t profile__duration_ns(const struct profile *p);
const struct stack *profile__stack(const struct profile *p, int32_t id);

/* Writer. */
struct pwriter;
typedef int (*stack_fetch_fn)(void *ctx, int32_t id, uint64_t *frames, int max);

struct pwriter_opts {
	int fd;
	const struct ksyms *ksyms;	/* may be NULL: no names, no callers */
	const uint64_t *rq_locks;	/* every CPU's rq->__lock, may be NULL */
	size_t nrq_locks;
	stack_fetch_fn fetch_stack;
	void *fetch_ctx;
	const uint8_t *recording_id;	/* 16 bytes */
	uint64_t created_ns;
};

int pwriter__new(struct pwriter **w, const struct pwriter_opts *opts);
void pwriter__free(struct pwriter *w);
int pwriter__meta(struct pwriter *w, const struct kv *kv, size_t n);
int pwriter__bucket(struct pwriter *w, uint64_t t0_ns, uint64_t t1_ns,
		    const struct cont_row *rows, size_t nrows);
int pwriter__lost(struct pwriter *w, const struct kv *kv, size_t n);
int pwriter__end(struct pwriter *w, uint64_t duration_ns, int64_t exit_status, uint32_t flags);

#endif
