/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TOP_MODEL_H
#define __LOCKSTAT_TOP_MODEL_H

/*
 * top's model: the profile that a session writes (or a replay reads),
 * fed chunk by chunk into two in-memory profiles, the one report reads:
 * the current interval, and everything since the start (or the last
 * reset). lib/view/top_snap.h builds what is shown from both.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"
#include "format/store.h"

struct top_model {
	struct profile *iv;	/* the current interval */
	struct profile *cum;	/* since the start or the last reset */
	struct store_header hdr;
	bool have_hdr;
	uint8_t *pending;	/* bytes read, not yet a whole chunk */
	size_t npending;
	size_t cap;
	uint64_t file_pos;	/* where the next read starts */
	uint64_t base;		/* file offset of pending[0], for messages */
	struct store_chunk *saved;	/* this interval's counting chunks, copied: a reset feeds them again */
	size_t nsaved;
	size_t saved_cap;
	bool iv_any;		/* a bucket was fed this interval */
	uint64_t iv_t0, iv_t1;	/* its span, from the buckets' t0 and t1 */
	uint64_t cum_t0;	/* start of the cumulative span */
	bool was_reset;
	uint64_t last_t1;	/* end of the last bucket fed */
	uint64_t lost_at_iv;	/* lost events when the interval started */
	uint64_t lost_at_reset;
	bool iv_only;		/* no cumulative model (serve keeps its own totals) */
	/* Called with the bytes read from the file, before they are parsed (serve copies them). */
	void (*tee)(void *ctx, const void *bytes, size_t n);
	void *tee_ctx;
	char err[256];
};

int top_model__init(struct top_model *m);
void top_model__free(struct top_model *m);
/* The header of a whole file (replay) or of what was read. */
int top_model__set_header(struct top_model *m, const struct store_header *hdr);
/* Into both models; 0 or -errno with m->err set. */
int top_model__feed(struct top_model *m, const struct store_chunk *ch);
/*
 * Read what was appended to fd since the last call and feed its whole
 * chunks. truncate: the file is ours alone (a memfd): empty it once read,
 * so that it never holds more than one interval.
 */
int top_model__read_fd(struct top_model *m, int fd, bool truncate);
void top_model__next_interval(struct top_model *m);
/* 'r': the cumulative model starts again with the current interval. */
void top_model__reset(struct top_model *m);
uint64_t top_model__lost(const struct top_model *m);
/* A bucket chunk's span (LOCKSTAT, SAMPLES, TABLE); false for the others. */
bool chunk_span(const struct store_chunk *ch, uint64_t *t0, uint64_t *t1);

#endif
