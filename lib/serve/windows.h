/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_WINDOWS_H
#define __LOCKSTAT_WINDOWS_H

/*
 * The pprof windows of lockstat serve, between the recording loop (which
 * adds each bucket) and the HTTP threads (which wait for a window to end).
 *
 * A request for N seconds of CPU samples or lock waits waits for the next
 * N seconds of buckets: its window starts with the bucket being drained
 * when it arrives and ends with the bucket that completes N seconds (to
 * the nearest bucket). Requests of the same kind and length that arrive
 * during the same bucket share one window: one set of data, one encoding,
 * every requester served the same bytes, as Go's pprof handler would
 * serve two clients of one process. The lock waits are also added up since
 * the start, for /debug/pprof/mutex without seconds (Go's cumulative
 * mutex profile), encoded at most once per bucket.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"
#include "out/pprof.h"

/* An encoded answer, shared by the requests it answers. */
struct reply {
	atomic_int refs;
	size_t len;
	unsigned char data[];
};

struct reply *reply__new(const void *data, size_t len);
void reply__get(struct reply *r);
void reply__put(struct reply *r);

enum window_kind { WINDOW_CPU, WINDOW_MUTEX, WINDOW__KINDS };

struct window {
	enum window_kind kind;
	uint64_t seconds;
	uint64_t starts_at;	/* the bucket it begins with (windows.buckets then) */
	uint64_t got_ns;	/* the span of the buckets added */
	uint64_t start_wall_ns;	/* CLOCK_REALTIME at its first bucket's start */
	struct pprof_acc *acc;
	int waiters;
	bool done;
	int err;
	struct reply *reply;
	struct window *next;
};

struct windows_opts {
	size_t max_windows;	/* open at once; more: -EBUSY */
	size_t max_samples;	/* per window, and of the cumulative profile */
	uint64_t bucket_ns;
	bool has_cpu;		/* the families that feed each kind */
	bool has_mutex;
};

struct windows {
	struct windows_opts o;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct window *list;
	size_t nopen;
	uint64_t buckets;	/* added so far */
	uint64_t last_end_wall_ns;	/* CLOCK_REALTIME at the end of the last bucket */
	struct pprof_acc *cum;	/* lock waits since the start */
	uint64_t cum_start_wall_ns;
	uint64_t cum_ns;
	struct reply *cum_reply;	/* encoded at bucket cum_at */
	uint64_t cum_at;
	bool stopping;
};

int windows__init(struct windows *w, const struct windows_opts *o, uint64_t start_wall_ns);
void windows__free(struct windows *w);
/*
 * The recording loop, once a bucket: p holds the bucket's counts (and
 * every name they need), span_ns its length, end_wall_ns when it ended.
 * Windows that are complete are encoded and their requesters woken.
 */
int windows__add_bucket(struct windows *w, const struct profile *p, uint64_t span_ns,
			uint64_t end_wall_ns);
/* Wake every requester: serve is stopping; they get -ESHUTDOWN. */
void windows__stop(struct windows *w);
/*
 * An HTTP thread: the answer for the next `seconds` of kind (*reply, to be
 * put), waiting for it. -EBUSY: too many windows open; -ENODATA: the
 * family that feeds kind is not recorded; -ESHUTDOWN; -ENOMEM.
 */
int windows__wait(struct windows *w, enum window_kind kind, uint64_t seconds, struct reply **reply);
/* The lock waits since the start, encoded (*reply, to be put). */
int windows__cumulative(struct windows *w, struct reply **reply);

#endif
