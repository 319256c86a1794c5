// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler family of the collector: a perf_event per CPU (hardware
 * cycles where a PMU exists, else the cpu-clock software event) running
 * bpf/sample.bpf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "base/log.h"
#include "sample.skel.h"

_Static_assert(sizeof(struct sample_key) == 16, "sample_key layout is shared with BPF");
_Static_assert(sizeof(struct sample_lost) == 4 * 8, "sample_lost layout is shared with BPF");

static const char *const lost_names[] = {
	"sample_kstack_error", "sample_ustack_error", "sample_stack_collision", "sample_map_full",
};

#define NLOST	(sizeof(lost_names) / sizeof(lost_names[0]))
_Static_assert(sizeof(struct sample_lost) == NLOST * sizeof(__u64), "one name per loss counter, in order");

struct sampler {
	struct sample_bpf *skel;
	int ncpus;
	uint32_t freq;
	struct bpf_link **links;
	int nlinks;
	struct htab totals;	/* sample_key -> uint64 count */
	struct htab changed;	/* sample_key -> uint8: its count changed since the last trim */
	struct mapscan scan;	/* the drains' reader of counts */
	struct sample_row *rows;
	size_t cap;
	struct ring_buffer *events;
	new_process_fn on_new_process;
	void *on_new_process_ctx;
};

static int sample_choose_mode(const struct features *f, enum attach_mode want, struct family_status *st)
{
	(void)want;	/* perf events have one mode */
	if (!f->r[FEAT_PERF_EVENT].ok) {
		snprintf(st->why, sizeof(st->why), "%s", f->r[FEAT_PERF_EVENT].detail);
		return -EOPNOTSUPP;
	}
	snprintf(st->mode, sizeof(st->mode), "perf_event");
	return 0;
}

static int open_event(int cpu, bool hardware, uint32_t freq)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hardware ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = freq,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * One event per CPU that exists; offline CPUs (-ENODEV) are skipped.
 * Cycles first: where there is no PMU (most VMs) every open fails the same
 * way, and cpu-clock is used on all CPUs instead.
 */
static int attach_cpu(struct sampler *m, int cpu, bool *hardware)
{
	struct bpf_link *link;
	int fd = open_event(cpu, *hardware, m->freq);

	if (fd < 0 && *hardware && fd != -ENODEV) {
		*hardware = false;
		fd = open_event(cpu, false, m->freq);
	}
	if (fd == -ENODEV)
		return 0;
	if (fd < 0)
		return fd;
	link = bpf_program__attach_perf_event(m->skel->progs.on_sample, fd);
	if (!link) {
		int err = -errno;

		close(fd);
		return err;
	}
	m->links[m->nlinks++] = link;	/* the link owns fd */
	return 0;
}

static void sample_detach(void *priv)
{
	struct sampler *m = priv;
	int i;

	for (i = 0; i < m->nlinks; i++)
		bpf_link__destroy(m->links[i]);
	m->nlinks = 0;
}

/* All CPUs or none: a family half attached would sample some CPUs only. */
static int attach_all(struct sampler *m, struct family_status *st)
{
	bool hardware = true;
	int cpu, err = 0;

	m->links = calloc(m->ncpus, sizeof(*m->links));
	if (!m->links)
		return -ENOMEM;
	for (cpu = 0; cpu < m->ncpus && !err; cpu++)
		err = attach_cpu(m, cpu, &hardware);
	if (err) {
		snprintf(st->why, sizeof(st->why), "perf_event_open on CPU %d: %s", cpu - 1, strerror(-err));
		sample_detach(m);
	} else {
		snprintf(st->mode, sizeof(st->mode), "%s@%uHz", hardware ? "cycles" : "cpu-clock", m->freq);
	}
	return err;
}

static int sample_open(struct collector *c, const struct features *f, struct family_status *st,
		       void **priv)
{
	struct sampler *m;
	int err = sample_choose_mode(f, c->o.mode, st);

	if (err)
		return err;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*priv = m;
	m->ncpus = c->ncpus;
	m->freq = c->o.sample_freq;
	htab_init(&m->totals, sizeof(struct sample_key), sizeof(uint64_t));
	htab_init(&m->changed, sizeof(struct sample_key), 1);
	mapscan_init(&m->scan, -1, sizeof(struct sample_key), sizeof(uint64_t));
	m->skel = sample_bpf__open();
	if (!m->skel)
		return -errno;
	m->skel->rodata->filter_targets = c->o.filter_targets;
	m->skel->rodata->pidns_dev = c->pidns_dev;
	m->skel->rodata->pidns_ino = c->pidns_ino;
	err = collector_prepare_object(c, m->skel->obj);
	if (!err)
		err = sample_bpf__load(m->skel);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the sampler failed: %s", strerror(-err));
		return err;
	}
	return attach_all(m, st);
}

static void sample_free(void *priv)
{
	struct sampler *m = priv;

	ring_buffer__free(m->events);
	sample_detach(m);
	free(m->links);
	sample_bpf__destroy(m->skel);
	htab_free(&m->totals);
	htab_free(&m->changed);
	mapscan_free(&m->scan);
	free(m->rows);
	free(m);
}

static void sample_comm(struct sampler *m, struct sample_row *r)
{
	__u32 tid = r->key.tid;

	if (bpf_map__lookup_elem(m->skel->maps.sample_comms, &tid, sizeof(tid),
				 r->comm, sizeof(r->comm), 0))
		snprintf(r->comm, sizeof(r->comm), "%s", tid ? "?" : "swapper");
	r->comm[sizeof(r->comm) - 1] = '\0';
}

static int drain_one(struct sampler *m, const struct sample_key *key, uint64_t now,
		     struct snapshot *s)
{
	uint64_t *before;
	struct sample_row *r;

	before = htab_get(&m->totals, key, NULL);
	if (!before)
		return -ENOMEM;
	if (now == *before)
		return 0;
	if (grow_array((void **)&m->rows, &m->cap, s->nsamples + 1, sizeof(*r)))
		return -ENOMEM;
	r = &m->rows[s->nsamples++];
	r->key = *key;
	r->count = now - *before;
	sample_comm(m, r);
	*before = now;
	return htab_get(&m->changed, key, NULL) ? 0 : -ENOMEM;
}

static int sample_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct sampler *m = priv;
	const void *key, *count;
	int err;

	(void)final;
	s->nsamples = 0;
	m->scan.fd = bpf_map__fd(m->skel->maps.counts);
	mapscan_start(&m->scan);
	while ((err = mapscan_next(&m->scan, &key, &count)) > 0) {
		c->entries_read++;
		err = drain_one(m, key, *(const uint64_t *)count, s);
		if (err)
			break;
	}
	s->samples = m->rows;
	return err;
}


/* What the counts left refer to: in sets[] the kernel stacks, user stacks, threads and processes. */
static int live_keys(struct sampler *m, struct htab *sets)
{
	struct sample_key key, next;
	const void *prev = NULL;
	int err = 0;

	while (!err && !bpf_map__get_next_key(m->skel->maps.counts, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		err = u32_set_add(&sets[0], key.kstack) ?: u32_set_add(&sets[1], key.ustack) ?:
		      u32_set_add(&sets[2], key.tid) ?: u32_set_add(&sets[3], key.tgid);
	}
	return err;
}

/*
 * A process forgotten from seen_tgids is announced again when it is next
 * sampled, and its mappings read for the segment that sees it.
 */
static int sample_trim(struct collector *c, void *priv)
{
	struct sampler *m = priv;
	struct bpf_map *maps[4] = { m->skel->maps.kstacks, m->skel->maps.ustacks,
				    m->skel->maps.sample_comms, m->skel->maps.seen_tgids };
	struct htab sets[4];
	int i, removed = forget_unchanged(&m->totals, &m->changed, m->skel->maps.counts), err;

	(void)c;
	if (removed < 0)
		return removed;
	for (i = 0; i < 4; i++)
		htab_init(&sets[i], sizeof(__u32), 1);
	err = live_keys(m, sets);
	for (i = 0; i < 4 && err >= 0; i++)
		err = map_prune(maps[i], &sets[i]);
	for (i = 0; i < 4; i++)
		htab_free(&sets[i]);
	return err < 0 ? err : removed;
}

int collector__fetch_sample_kstack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct sampler *m = family_priv(ctx, FAMILY_SAMPLE);

	if (!m || !m->skel)
		return -ENOENT;
	return fetch_stack_map(m->skel->maps.kstacks, id, frames, max, LS_SAMPLE_KSTACK_DEPTH);
}

int collector__fetch_sample_ustack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct sampler *m = family_priv(ctx, FAMILY_SAMPLE);

	if (!m || !m->skel)
		return -ENOENT;
	return fetch_stack_map(m->skel->maps.ustacks, id, frames, max, LS_SAMPLE_USTACK_DEPTH);
}

void collector__forget_process(struct collector *c, uint32_t tgid)
{
	struct sampler *m = family_priv(c, FAMILY_SAMPLE);

	if (!m || !m->skel)
		return;
	bpf_map__delete_elem(m->skel->maps.seen_tgids, &tgid, sizeof(tgid), 0);
	/* Its main thread's name too: a process under the PID would be named after it. */
	bpf_map__delete_elem(m->skel->maps.sample_comms, &tgid, sizeof(tgid), 0);
}

static void sample_lost(const struct collector *c, const void *priv, uint64_t *vals)
{
	const struct sampler *m = priv;

	(void)c;
	if (m && m->skel)
		memcpy(vals, &m->skel->bss->lost, sizeof(m->skel->bss->lost));
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct sampler *m = ctx;

	if (size >= sizeof(__u32))
		m->on_new_process(m->on_new_process_ctx, *(__u32 *)data);
	return 0;
}

int collector__watch_processes(struct collector *c, new_process_fn fn, void *ctx)
{
	struct sampler *m = family_priv(c, FAMILY_SAMPLE);

	if (!m || status_of(c, FAMILY_SAMPLE)->state != FSTATE_ATTACHED)
		return 0;
	m->on_new_process = fn;
	m->on_new_process_ctx = ctx;
	m->events = ring_buffer__new(bpf_map__fd(m->skel->maps.new_tgids), on_event, m, NULL);
	if (!m->events)
		return -errno;
	return collector_watch_fd(c, ring_buffer__epoll_fd(m->events));
}

/* The sampler's announcements of new processes; 0 or -errno. */
int sample_consume_events(struct collector *c)
{
	const struct sampler *m = family_priv(c, FAMILY_SAMPLE);
	int n = m && m->events ? ring_buffer__consume(m->events) : 0;

	return n < 0 ? n : 0;
}

static const struct bpf_object *sample_object(const void *priv)
{
	const struct sampler *m = priv;

	return m->skel ? m->skel->obj : NULL;
}

const struct family_ops sample_family = {
	.name = "sample",
	.what = "where the CPU time goes: cycles where a PMU exists, else cpu-clock, one event per CPU",
	.choose_mode = sample_choose_mode,
	.open = sample_open,
	.drain = sample_drain,
	.detach = sample_detach,
	.free = sample_free,
	.lost_names = lost_names,
	.nlost = NLOST,
	.lost = sample_lost,
	.object = sample_object,
	.trim = sample_trim,
};
