/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_COLLECTOR_H
#define __LOCKSTAT_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "kfeatures.h"
#include "profile.h"

/*
 * The collector loads and attaches the probes and drains their maps into
 * rows. Nothing else in lockstat touches a BPF map.
 */
struct collector_opts {
	bool per_task;		/* -t */
	bool filter_targets;	/* only the workload's processes */
	enum attach_mode mode;
	uint32_t stats_entries;	/* 0: default */
	uint32_t stack_entries;	/* 0: default */
	uint32_t stack_rate;	/* kernel stacks per second per CPU; 0: one per wait */
};

struct collector;

/* Returns 0 or -errno with the reason, in one line, in why. */
int collector__open(struct collector **c, const struct collector_opts *opts,
		    const struct features *f, char *why, size_t len);
void collector__free(struct collector *c);
/* "tp_btf" or "tracepoint". */
const char *collector__mode(const struct collector *c);
int collector__add_target(struct collector *c, pid_t tgid);
/* Rows whose counts changed since the last drain, as deltas. */
int collector__drain(struct collector *c, struct cont_row **rows, size_t *n);
/*
 * Stop the probes and close the waits still in progress at the moment of
 * stopping, as one row each (count 1, wait up to the stop).
 */
int collector__stop(struct collector *c, struct cont_row **rows, size_t *n);
int collector__fetch_stack(void *ctx, int32_t id, uint64_t *frames, int max);
void collector__lost(const struct collector *c, struct cont_lost *lost);
/* Every CPU's rq->__lock address, when the kernel lets us find them. */
size_t collector__rq_locks(const struct collector *c, const uint64_t **addrs);

#endif
