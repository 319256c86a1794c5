// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The mmap_lock family (bpf/mmaplock.bpf.c): waits and hold times of
 * every mmap_lock acquisition, handed over as the "mmap_lock" table, and
 * its losses as "mmap_lock.lost". A row's "shift" is its acquisitions'
 * stack sampling: taken with probability 2^-shift, or none taken
 * (LS_MMAP_UNSAMPLED, an empty stack).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/collector_int.h"
#include "mmaplock.h"
#include "mmaplock.skel.h"

_Static_assert(sizeof(struct mmap_lost) == MMAP_LOCK_LOST__NCOLS * sizeof(__u64), "one column per loss");

struct mmaplock {
	struct mmaplock_bpf *skel;
	struct tsource rows;
	struct tsource lost;
};

/* Load the handlers written for this kernel's tracepoint prototypes. */
static void set_layout(struct mmaplock_bpf *s, bool old)
{
	bpf_program__set_autoload(old ? s->progs.start_btf : s->progs.start_old, false);
	bpf_program__set_autoload(old ? s->progs.acquired_btf : s->progs.acquired_old, false);
	bpf_program__set_autoload(old ? s->progs.released_btf : s->progs.released_old, false);
}

/* tp_btf only (there are no classic handlers), whatever --attach says. */
static int choose(const struct features *f, int *nargs, struct family_status *st)
{
	if (!f->r[FEAT_TP_MMAP_LOCK].ok) {
		snprintf(st->why, sizeof(st->why), "%s", f->r[FEAT_TP_MMAP_LOCK].detail);
		return -EOPNOTSUPP;
	}
	*nargs = tp_btf_nargs("mmap_lock_start_locking");
	if (*nargs < 0) {
		snprintf(st->why, sizeof(st->why), "%s",
			 "needs kernel BTF with the mmap_lock raw tracepoints (tp_btf)");
		return -EOPNOTSUPP;
	}
	snprintf(st->mode, sizeof(st->mode), "tp_btf");
	return 0;
}

static int mmaplock_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	int nargs;

	(void)want;
	return choose(f, &nargs, st);
}

static int row_keys(void *ctx, const void *key, uint64_t *row, void *stack)
{
	const struct mmap_key *k = key;

	(void)ctx;
	tstack_copy(stack, k->frames);
	row[MMAP_LOCK__LOCK] = k->lock_addr;
	row[MMAP_LOCK__PID] = k->tgid;
	row[MMAP_LOCK__WRITE] = k->write;
	row[MMAP_LOCK__SHIFT] = k->shift;
	return 0;
}

static int init_sources(struct collector *c, struct mmaplock *m)
{
	int err;

	m->rows = (struct tsource){ .schema = ls_schema(TBL_MMAP_LOCK), .map = m->skel->maps.mmap_rows,
		.percpu = true, .key_size = sizeof(struct mmap_key), .val_size = sizeof(struct mmap_val),
		.nkeys = MMAP_LOCK__ACQUIRED, .keys = row_keys };
	m->lost = (struct tsource){ .schema = ls_schema(TBL_MMAP_LOCK_LOST), .map = m->skel->maps.mmap_lost,
		.percpu = true, .key_size = sizeof(uint32_t), .val_size = sizeof(struct mmap_lost) };
	err = tsource_init(&m->rows, c->ncpus);
	return err ? err : tsource_init(&m->lost, c->ncpus);
}

static int mmaplock_open(struct collector *c, const struct features *f, struct family_status *st,
			 void **privp)
{
	struct mmaplock *m;
	int nargs, err = choose(f, &nargs, st);

	if (err)
		return err;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*privp = m;
	m->skel = mmaplock_bpf__open();
	if (!m->skel)
		return -ENOMEM;
	m->skel->rodata->filter_targets = c->o.filter_targets;
	set_sampler_rodata(m->skel->rodata, c->o.stack_rate);
	set_layout(m->skel, nargs == 3);	/* (mm, memcg_path, write) */
	err = init_sources(c, m);
	if (!err)
		err = collector_prepare_object(c, m->skel->obj);
	if (!err)
		err = reuse_sampler(c, m->skel->maps.sampler);
	if (!err)
		err = mmaplock_bpf__load(m->skel);
	if (!err)
		err = mmaplock_bpf__attach(m->skel);
	if (err)
		snprintf(st->why, sizeof(st->why), "loading the mmap_lock probes failed: %s",
			 strerror(-err));
	return err;
}

static int mmaplock_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct mmaplock *m = priv;
	int err = collector_drain_source(c, &m->rows, NULL);

	(void)s;
	(void)final;
	return err ? err : collector_drain_source(c, &m->lost, NULL);
}

static void mmaplock_detach(void *priv)
{
	struct mmaplock *m = priv;

	if (m->skel)
		mmaplock_bpf__detach(m->skel);
}

static void mmaplock_free(void *priv)
{
	struct mmaplock *m = priv;

	mmaplock_bpf__destroy(m->skel);
	tsource_free(&m->rows);
	tsource_free(&m->lost);
	free(m);
}

static const struct bpf_object *mmaplock_object(const void *priv)
{
	const struct mmaplock *m = priv;

	return m->skel ? m->skel->obj : NULL;
}

static int mmaplock_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct mmaplock *m = priv;

	(void)c;
	return tsource_trim(&m->rows, before, late);
}

static unsigned mmaplock_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct mmaplock *m = priv;

	return tsource_fill(&m->rows, latest, before);
}

const struct family_ops mmap_lock_family = {
	.choose_mode = mmaplock_choose_mode,
	.open = mmaplock_open,
	.drain = mmaplock_drain,
	.detach = mmaplock_detach,
	.free = mmaplock_free,
	.object = mmaplock_object,
	.trim = mmaplock_trim,
	/* Its own losses are a table (mmap_lock.lost). */
	.trim_lost = "mmap_lock_trimmed_late",
	.fill = mmaplock_fill,
};
