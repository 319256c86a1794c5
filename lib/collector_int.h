/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_COLLECTOR_INT_H
#define __LOCKSTAT_COLLECTOR_INT_H

/* Shared by lib/collector.c and the per-family lib/collect_*.c files. */
#include "collector.h"
#include "htab.h"

struct contention_bpf;
struct sample_bpf;
struct targets_bpf;
struct bpf_map;
struct bpf_link;
struct ring_buffer;

/*
 * A family that hands its data over as counter tables (lib/ctable.h).
 * open() sets the family's status (attached, mode, or why not) and
 * returns 0 or -errno; drain() appends this drain's tables with
 * collector_add_table(); final is set for the last drain, after detach().
 */
struct table_family {
	enum family bit;
	int (*open)(struct collector *c, const struct features *f, void **priv);
	int (*drain)(struct collector *c, void *priv, bool final);
	void (*detach)(void *priv);
	void (*free)(void *priv);
	struct bpf_object *(*object)(void *priv);
};

extern const struct table_family mmap_lock_family;
extern const struct table_family fd_family;
extern const struct table_family pagecache_family;
extern const struct table_family hold_family;
extern const struct table_family ulocks_family;
extern const struct table_family uprobes_family;

struct collector {
	struct collector_opts o;
	int ncpus;
	struct family_status status[FAMILY_COUNT];	/* by family bit index */
	void *tpriv[FAMILY_COUNT];	/* table families' own state */
	struct trows *tables;	/* this drain's tables */
	size_t ntables;
	size_t tables_cap;
	int stats_fd;		/* BPF_ENABLE_STATS, or -1 */
	struct targets_bpf *targets;
	int guard_fd;		/* bpf/guard.bpf.h's map, shared; -1 until asked for */
	/* locks */
	struct contention_bpf *cont;
	bool cont_btf;
	struct cont_val *percpu;	/* lookup buffer: one value per possible CPU */
	struct htab cont_totals;	/* cont_key -> cont_val, as of the last drain */
	struct cont_row *cont_rows;
	size_t cont_cap;
	uint64_t *rq_locks;
	size_t nrq_locks;
	/* sample */
	struct sample_bpf *sample;
	struct bpf_link **sample_links;
	int nsample_links;
	struct htab sample_totals;	/* sample_key -> uint64 count */
	struct sample_row *sample_rows;
	size_t sample_cap;
	struct ring_buffer *events;
	new_process_fn on_new_process;
	void *on_new_process_ctx;
};

struct family_status *status_of(struct collector *c, enum family f);

/* The kernel's counters (bpf_prog_info) summed over one object's programs. */
struct prog_stats {
	uint64_t run_cnt;
	uint64_t run_time_ns;	/* with kernel.bpf_stats on */
	uint64_t recursion_misses;
};

int object_prog_stats(const struct bpf_object *obj, struct prog_stats *st);
/* Hand one table over for this drain; r's memory stays the family's. */
int collector_add_table(struct collector *c, const struct trows *r);
/* The targets map a family must share, or NULL when not filtering. */
struct bpf_map *collector_targets_map(const struct collector *c);
struct bpf_map *collector_targets_gen_map(const struct collector *c);
/* Point a family's copy of the target maps at the targets object's. */
int reuse_target_maps(struct collector *c, struct bpf_map *targets, struct bpf_map *gen);
/* Point a family's "guard" (bpf/guard.bpf.h) at the one all families share. */
int reuse_guard(struct collector *c, struct bpf_map *guard);
void *grow_rows(void *rows, size_t *cap, size_t n, size_t size);
uint64_t monotonic_ns(void);
/* Children of the workload that could not be followed. */
uint64_t collector__targets_full(const struct collector *c);
/* Copy one stack out of a BPF stack map: the number of frames or -errno. */
int fetch_stack_map(struct bpf_map *m, int32_t id, uint64_t *frames, int max, int depth);

int locks_open(struct collector *c, const struct features *f);
void locks_free(struct collector *c);
int locks_drain(struct collector *c, struct snapshot *s);
int locks_stop(struct collector *c, struct snapshot *s);

int sample_open(struct collector *c, const struct features *f);
void sample_free(struct collector *c);
int sample_drain(struct collector *c, struct snapshot *s);
void sample_detach(struct collector *c);

#endif
