/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_COLLECTOR_INT_H
#define __LOCKSTAT_COLLECTOR_INT_H

/* Shared by lib/record/collector.c and the per-family lib/collect_*.c files. */
#include "base/clock.h"
#include "record/collector.h"
#include "base/htab.h"
#include "record/tsource.h"
#include "record/trim.h"

struct bpf_map;
struct bpf_object;
struct maptrack;
struct targets_bpf;

/*
 * One probe family: what the collector knows of it (its name, flags and
 * help are the family table's, lib/format/families.h). Every member but
 * lost_names/lost is required. priv is the family's own state, NULL
 * until open() sets it (open may set it and still fail: free() follows).
 */
struct family_ops {
	/*
	 * From the features alone (nothing loaded): the mode it would attach
	 * with under --attach want, in st->mode (and st->missing/why for a
	 * part it would not measure), or -errno and st->why. open() takes
	 * this same decision, so that probe tells what record does.
	 */
	int (*choose_mode)(const struct features *f, enum attach_mode want, struct family_status *st);
	/* Load and attach: 0 with st->mode set, or -errno (st->why set or strerror). */
	int (*open)(struct collector *c, const struct features *f, struct family_status *st, void **priv);
	/*
	 * What changed since the last drain: counter tables through
	 * collector_add_table(), or the snapshot's contention or sample rows.
	 * final: the last drain, after detach().
	 */
	int (*drain)(struct collector *c, void *priv, struct snapshot *s, bool final);
	void (*detach)(void *priv);	/* stop the probes; the maps stay for the last drain */
	void (*free)(void *priv);
	/* Loss counters of the LOST chunk (the others count theirs in a table). */
	const char *const *lost_names;
	size_t nlost;
	/* Their values, nlost of them, zeroed before; priv is NULL when not opened. */
	void (*lost)(const struct collector *c, const void *priv, uint64_t *vals);
	/* The BPF object whose programs' run time is the family's cost, or NULL. */
	const struct bpf_object *(*object)(const void *priv);
	/*
	 * Optional (serve, between segments; any profile, when fill() says
	 * the maps are half full): remove from the kernel's maps, and from
	 * what the family keeps of them, the rows that last changed before
	 * drain before (c->ndrains counts them), and the stacks no row
	 * refers to any more; the number of rows removed, or -errno.
	 */
	int (*trim)(struct collector *c, void *priv, uint32_t before, uint64_t *late);
	/*
	 * With trim: the LOST counter of what rows took between the drain
	 * that read them and the trim that removed them, which trim adds to
	 * *late (the collector's, one a family), after the family's own.
	 */
	const char *trim_lost;
	/*
	 * With trim: how full the fullest of the maps it empties is, in
	 * thousandths, and in *before the trim that would leave them a
	 * quarter full (trim_cutoff); latest is the last drain.
	 */
	unsigned (*fill)(const void *priv, uint32_t latest, uint32_t *before);
};

#define FAMILY_OPS_DECLARE(NAME, name, flags, help)	extern const struct family_ops name##_family;
LOCKSTAT_FAMILIES(FAMILY_OPS_DECLARE)
#undef FAMILY_OPS_DECLARE

struct collector {
	struct collector_opts o;
	int ncpus;
	struct family_status status[FAMILY_COUNT];	/* by family index */
	void *priv[FAMILY_COUNT];
	struct trows *tables;	/* this drain's tables */
	size_t ntables;
	size_t tables_cap;
	uint32_t ndrains;	/* drains so far: the one in progress */
	uint32_t trim_drain[FAMILY_COUNT];	/* the drain of each family's last trim */
	uint64_t trims[FAMILY_COUNT];
	uint64_t trim_late[FAMILY_COUNT];	/* each family's trim_lost */
	int stats_fd;		/* BPF_ENABLE_STATS while it is held, or -1 */
	bool stats_wanted;	/* probe_stats, and the kernel has kernel.bpf_stats */
	bool stats_cycled;	/* on a tenth of the time only (collector__cycle_stats) */
	uint64_t stats_start;	/* the session's start (collector__cycle_stats) */
	uint64_t stats_since;	/* when the stats were last turned on */
	uint64_t stats_on_ns;	/* their time on before stats_since */
	uint64_t stats_next;	/* the next turn, on or off */
	/*
	 * Cycled, each program set's runs and run time over our own windows
	 * only (by family index, the fork follower last): what another
	 * tool's stats count while ours are off is not ours to divide.
	 */
	struct window_cost { uint64_t events, run_ns; } stats_sum[FAMILY_COUNT + 1],
		stats_base[FAMILY_COUNT + 1];
	int guard_fd;		/* bpf/guard.bpf.h's map, shared; -1 until asked for */
	int sampler_fd;		/* bpf/sampler.bpf.h's map, shared; -1 until asked for */
	struct targets_bpf *targets;
	uint64_t pidns_dev;	/* lockstat's PID namespace, 0: the initial one */
	uint64_t pidns_ino;
	struct maptrack *maptrack;	/* NULL: not asked for, or refused (maptrack_why) */
	char maptrack_why[128];
	int epoll_fd;		/* the tracker's and the sampler's ring buffers, or -1 */
	uint64_t entries_read;	/* by the drains, for the cost summary */
};

struct family_status *status_of(struct collector *c, enum family f);
/* A family's own state: NULL when it was not opened. */
void *family_priv(const struct collector *c, enum family f);

/* The kernel's counters (bpf_prog_info) summed over one object's programs. */
struct prog_stats {
	uint64_t run_cnt;
	uint64_t run_time_ns;	/* with kernel.bpf_stats on */
	uint64_t recursion_misses;
};

int object_prog_stats(const struct bpf_object *obj, struct prog_stats *st);
/* Hand one table over for this drain; r's memory stays the family's. */
int collector_add_table(struct collector *c, const struct trows *r);
/* Drain a source of rows (lib/record/tsource.h) and hand its table over. */
int collector_drain_source(struct collector *c, struct tsource *src, struct htab *extra);
/*
 * Before a family's object loads: its per-CPU hash maps sized for this
 * machine's CPUs (record/mapsize.h), its copy of the target maps pointed
 * at the targets object's.
 */
int collector_prepare_object(struct collector *c, struct bpf_object *obj);
/*
 * A preallocated hash map (a family's stacks) sized to want rows before
 * its object loads, held to SHARED_MAP_BUDGET (record/mapsize.h), with a
 * warning when it holds fewer: 0 or -errno.
 */
int size_shared_map(const char *family, struct bpf_map *map, uint32_t want, int ncpus);
/* Point a family's "guard" (bpf/guard.bpf.h) at the one all families share. */
int reuse_guard(struct collector *c, struct bpf_map *guard);

/* The stack sampler's constants (bpf/sampler.bpf.h) for --stack-rate. */
struct sampler_consts {
	uint32_t stack_rate;
	uint64_t window_ns;
	uint32_t window_cap;
};

void sampler_consts(uint32_t rate, struct sampler_consts *out);
/* Set a skeleton's copy of those constants: every object with a sampler has them. */
#define set_sampler_rodata(rodata, rate) do {		\
	struct sampler_consts k_;			\
							\
	sampler_consts((rate), &k_);			\
	(rodata)->stack_rate = k_.stack_rate;		\
	(rodata)->window_ns = k_.window_ns;		\
	(rodata)->window_cap = k_.window_cap;		\
} while (0)
/*
 * Point a family's "sampler" (bpf/sampler.bpf.h) at the one all families
 * that take kernel stacks of lock events share: one budget per CPU.
 */
int reuse_sampler(struct collector *c, struct bpf_map *sampler);
/* Children of the workload that could not be followed. */
uint64_t collector__targets_full(const struct collector *c);
/* The sampler's new-process announcements waiting in its ring buffer (collect_sample.c). */
int sample_consume_events(struct collector *c);
/* Poll fd (an epoll fd of a ring buffer) with the collector's event fd; 0 or -errno. */
int collector_watch_fd(struct collector *c, int fd);
/*
 * Read what the mapping tracker has waiting (it wakes us only a quarter
 * full): the sampler's dwarf unwinding needs the mappings of processes
 * that may be gone by now.
 */
void collector_consume_maps(struct collector *c);
/* A set of stack ids, tids or tgids (trim): a uint32 key, no value; negative ids are none. */
int u32_set_add(struct htab *set, int32_t id);
/* Delete every key of a BPF map (stacks, tids) that set (of its keys) does not hold: how many. */
int map_prune(struct bpf_map *m, const struct htab *set);

#endif
