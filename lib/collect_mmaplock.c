// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The mmap_lock family (bpf/mmaplock.bpf.c): waits and hold times of
 * every mmap_lock acquisition, handed over as the "mmap_lock" table, and
 * its losses as "mmap_lock.lost".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "buf.h"
#include "collector_int.h"
#include "mmaplock.h"
#include "mmaplock.skel.h"

enum {
	MC_LOCK, MC_PID, MC_WRITE, MC_STACK,
	MC_ACQUIRED, MC_FAILED, MC_WAIT, MC_WAIT_MAX, MC_HELD, MC_HOLD, MC_HOLD_MAX,
	MC__COUNT,
};

static const struct tcol mmap_cols[MC__COUNT] = {
	[MC_LOCK] = { "lock", TCOL_KEY },
	[MC_PID] = { "pid", TCOL_KEY },
	[MC_WRITE] = { "write", TCOL_KEY },
	[MC_STACK] = { "stack", TCOL_KEY_KSTACK },
	[MC_ACQUIRED] = { "acquired", TCOL_SUM },
	[MC_FAILED] = { "failed", TCOL_SUM },
	[MC_WAIT] = { "wait_ns", TCOL_SUM },
	[MC_WAIT_MAX] = { "wait_max_ns", TCOL_MAX },
	[MC_HELD] = { "held", TCOL_SUM },
	[MC_HOLD] = { "hold_ns", TCOL_SUM },
	[MC_HOLD_MAX] = { "hold_max_ns", TCOL_MAX },
};

static const struct tschema mmap_schema = { "mmap_lock", MC__COUNT, mmap_cols };

static const struct tcol lost_cols[] = {
	{ "released_unseen", TCOL_SUM },
	{ "pending_full", TCOL_SUM },
	{ "rows_full", TCOL_SUM },
};

static const struct tschema lost_schema = { "mmap_lock.lost", 3, lost_cols };

#define NVALS	(sizeof(struct mmap_val) / sizeof(__u64))

struct mmaplock {
	struct mmaplock_bpf *skel;
	int ncpus;
	struct mmap_val *percpu;
	struct htab last;	/* mmap_key -> uint64_t[NVALS] */
	struct htab last_lost;	/* uint32 0 -> uint64_t[3] */
	struct trows_buf rows;
	struct trows_buf lost;
	struct tstack *stacks;	/* one per row of this drain */
	size_t stacks_cap;
	uint8_t kinds[NVALS];
};

/* Load the handlers written for this kernel's tracepoint prototypes. */
static void set_layout(struct mmaplock_bpf *s, bool old)
{
	bpf_program__set_autoload(old ? s->progs.start_btf : s->progs.start_old, false);
	bpf_program__set_autoload(old ? s->progs.acquired_btf : s->progs.acquired_old, false);
	bpf_program__set_autoload(old ? s->progs.released_btf : s->progs.released_old, false);
}

static int mmaplock_open(struct collector *c, const struct features *f, void **privp)
{
	struct family_status *st = status_of(c, FAMILY_MMAP_LOCK);
	struct mmaplock *m;
	int nargs, err;
	size_t i;

	if (!f->r[FEAT_TP_MMAP_LOCK].ok) {
		snprintf(st->why, sizeof(st->why), "%s", f->r[FEAT_TP_MMAP_LOCK].detail);
		return -EOPNOTSUPP;
	}
	nargs = tp_btf_nargs("mmap_lock_start_locking");
	if (nargs < 0) {
		snprintf(st->why, sizeof(st->why), "%s",
			 "needs kernel BTF with the mmap_lock raw tracepoints (tp_btf)");
		return -EOPNOTSUPP;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*privp = m;
	m->ncpus = c->ncpus;
	htab_init(&m->last, sizeof(struct mmap_key), NVALS * sizeof(uint64_t));
	htab_init(&m->last_lost, sizeof(uint32_t), 3 * sizeof(uint64_t));
	m->rows.rows.schema = &mmap_schema;
	m->lost.rows.schema = &lost_schema;
	for (i = 0; i < NVALS; i++)
		m->kinds[i] = mmap_cols[MC_ACQUIRED + i].kind;
	m->percpu = calloc(c->ncpus, sizeof(*m->percpu));
	m->skel = mmaplock_bpf__open();
	if (!m->percpu || !m->skel)
		return -ENOMEM;
	m->skel->rodata->filter_targets = c->o.filter_targets;
	set_layout(m->skel, nargs == 3);	/* (mm, memcg_path, write) */
	err = reuse_target_maps(c, m->skel->maps.targets, m->skel->maps.targets_gen);
	if (!err)
		err = mmaplock_bpf__load(m->skel);
	if (!err)
		err = mmaplock_bpf__attach(m->skel);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the mmap_lock probes failed: %s",
			 strerror(-err));
		return err;
	}
	snprintf(st->mode, sizeof(st->mode), "tp_btf");
	return 0;
}

/* One row's values summed over the CPUs. */
static int read_row(struct mmaplock *m, const struct mmap_key *k, uint64_t *sum)
{
	int cpu;
	size_t i;

	if (bpf_map__lookup_elem(m->skel->maps.mmap_rows, k, sizeof(*k), m->percpu,
				 m->ncpus * sizeof(*m->percpu), 0))
		return -errno;
	memset(sum, 0, NVALS * sizeof(*sum));
	for (cpu = 0; cpu < m->ncpus; cpu++) {
		const uint64_t *v = (const uint64_t *)&m->percpu[cpu];

		for (i = 0; i < NVALS; i++)
			sum[i] = m->kinds[i] == TCOL_MAX ? (v[i] > sum[i] ? v[i] : sum[i]) : sum[i] + v[i];
	}
	return 0;
}

static int add_row(struct mmaplock *m, const struct mmap_key *k, const uint64_t *delta)
{
	uint64_t *row = trows_add(&m->rows);
	struct tstack *s;

	if (!row || grow_array((void **)&m->stacks, &m->stacks_cap, m->rows.rows.n, sizeof(*s)))
		return -ENOMEM;
	s = &m->stacks[m->rows.rows.n - 1];
	for (s->n = 0; s->n < TSTACK_DEPTH && k->frames[s->n]; s->n++)
		s->frames[s->n] = k->frames[s->n];
	row[MC_LOCK] = k->lock_addr;
	row[MC_PID] = k->tgid;
	row[MC_WRITE] = k->write;
	row[MC_STACK] = m->rows.rows.n - 1;	/* an index until the drain ends */
	memcpy(&row[MC_ACQUIRED], delta, NVALS * sizeof(*delta));
	return 0;
}

static int drain_lost(struct collector *c, struct mmaplock *m)
{
	struct mmap_lost *per = calloc(m->ncpus, sizeof(*per));
	uint64_t sum[3] = { 0 }, *row;
	const uint8_t kinds[3] = { TCOL_SUM, TCOL_SUM, TCOL_SUM };
	uint32_t zero = 0;
	bool changed;
	int cpu, err;

	if (!per)
		return -ENOMEM;
	err = bpf_map__lookup_elem(m->skel->maps.mmap_lost, &zero, sizeof(zero), per,
				   m->ncpus * sizeof(*per), 0) ? -errno : 0;
	for (cpu = 0; !err && cpu < m->ncpus; cpu++) {
		sum[0] += per[cpu].no_acquire;
		sum[1] += per[cpu].pending_full;
		sum[2] += per[cpu].rows_full;
	}
	free(per);
	m->lost.rows.n = 0;
	if (!err)
		err = tdelta(&m->last_lost, &zero, sum, sum, kinds, 3, &changed);
	if (err || !changed)
		return err;
	row = trows_add(&m->lost);
	if (!row)
		return -ENOMEM;
	memcpy(row, sum, sizeof(sum));
	return collector_add_table(c, &m->lost.rows);
}

static int mmaplock_drain(struct collector *c, void *priv, bool final)
{
	struct mmaplock *m = priv;
	struct mmap_key key, next, *prev = NULL;
	uint64_t cur[NVALS], delta[NVALS];
	bool changed;
	size_t i;
	int err = 0;

	(void)final;
	m->rows.rows.n = 0;
	while (!err && !bpf_map__get_next_key(m->skel->maps.mmap_rows, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		err = read_row(m, &key, cur);
		if (err == -ENOENT) {	/* deleted under us: not by us, but harmless */
			err = 0;
			continue;
		}
		if (!err)
			err = tdelta(&m->last, &key, cur, delta, m->kinds, NVALS, &changed);
		if (!err && changed)
			err = add_row(m, &key, delta);
	}
	for (i = 0; i < m->rows.rows.n; i++)
		m->rows.rows.v[i * MC__COUNT + MC_STACK] = tptr(&m->stacks[i]);
	if (!err)
		err = collector_add_table(c, &m->rows.rows);
	return err ? err : drain_lost(c, m);
}

static void mmaplock_detach(void *priv)
{
	struct mmaplock *m = priv;

	mmaplock_bpf__detach(m->skel);
}

static void mmaplock_free(void *priv)
{
	struct mmaplock *m = priv;

	mmaplock_bpf__destroy(m->skel);
	htab_free(&m->last);
	htab_free(&m->last_lost);
	trows_buf_free(&m->rows);
	trows_buf_free(&m->lost);
	free(m->stacks);
	free(m->percpu);
	free(m);
}

static struct bpf_object *mmaplock_object(void *priv)
{
	struct mmaplock *m = priv;

	return m->skel ? m->skel->obj : NULL;
}

const struct table_family mmap_lock_family = {
	.bit = FAMILY_MMAP_LOCK,
	.open = mmaplock_open,
	.drain = mmaplock_drain,
	.detach = mmaplock_detach,
	.free = mmaplock_free,
	.object = mmaplock_object,
};
