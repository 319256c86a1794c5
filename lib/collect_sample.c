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
#include "collector_int.h"
#include "log.h"
#include "sample.skel.h"

_Static_assert(sizeof(struct sample_key) == 16, "sample_key layout is shared with BPF");
_Static_assert(sizeof(struct sample_lost) == 4 * 8, "sample_lost layout is shared with BPF");

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
static int attach_cpu(struct collector *c, int cpu, bool *hardware)
{
	struct bpf_link *link;
	int fd = open_event(cpu, *hardware, c->o.sample_freq);

	if (fd < 0 && *hardware && fd != -ENODEV) {
		*hardware = false;
		fd = open_event(cpu, false, c->o.sample_freq);
	}
	if (fd == -ENODEV)
		return 0;
	if (fd < 0)
		return fd;
	link = bpf_program__attach_perf_event(c->sample->progs.on_sample, fd);
	if (!link) {
		int err = -errno;

		close(fd);
		return err;
	}
	c->sample_links[c->nsample_links++] = link;	/* the link owns fd */
	return 0;
}

static int attach_all(struct collector *c, struct family_status *st)
{
	bool hardware = true;
	int cpu, err = 0;

	c->sample_links = calloc(c->ncpus, sizeof(*c->sample_links));
	if (!c->sample_links)
		return -ENOMEM;
	for (cpu = 0; cpu < c->ncpus && !err; cpu++)
		err = attach_cpu(c, cpu, &hardware);
	if (err)
		snprintf(st->why, sizeof(st->why), "perf_event_open on CPU %d: %s", cpu - 1, strerror(-err));
	else
		snprintf(st->mode, sizeof(st->mode), "%s@%uHz", hardware ? "cycles" : "cpu-clock",
			 c->o.sample_freq);
	return err;
}

int sample_open(struct collector *c, const struct features *f)
{
	struct family_status *st = status_of(c, FAMILY_SAMPLE);
	struct sample_bpf *s;
	int err;

	htab_init(&c->sample_totals, sizeof(struct sample_key), sizeof(uint64_t));
	if (!f->r[FEAT_PERF_EVENT].ok) {
		snprintf(st->why, sizeof(st->why), "%s", f->r[FEAT_PERF_EVENT].detail);
		return -EOPNOTSUPP;
	}
	s = sample_bpf__open();
	if (!s)
		return -errno;
	c->sample = s;
	s->rodata->filter_targets = c->o.filter_targets;
	err = reuse_target_maps(c, s->maps.targets, s->maps.targets_gen);
	if (!err)
		err = sample_bpf__load(s);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the sampler failed: %s", strerror(-err));
		return err;
	}
	err = attach_all(c, st);
	if (!err)
		st->attached = true;
	return err;
}

void sample_detach(struct collector *c)
{
	int i;

	for (i = 0; i < c->nsample_links; i++)
		bpf_link__destroy(c->sample_links[i]);
	c->nsample_links = 0;
}

void sample_free(struct collector *c)
{
	ring_buffer__free(c->events);
	sample_detach(c);
	free(c->sample_links);
	sample_bpf__destroy(c->sample);
	htab_free(&c->sample_totals);
	free(c->sample_rows);
}

static void sample_comm(struct collector *c, struct sample_row *r)
{
	__u32 tid = r->key.tid;

	if (bpf_map__lookup_elem(c->sample->maps.sample_comms, &tid, sizeof(tid),
				 r->comm, sizeof(r->comm), 0))
		snprintf(r->comm, sizeof(r->comm), "%s", tid ? "?" : "swapper");
	r->comm[sizeof(r->comm) - 1] = '\0';
}

static int drain_one(struct collector *c, const struct sample_key *key, struct snapshot *s)
{
	uint64_t now, *before;
	struct sample_row *r;

	if (bpf_map__lookup_elem(c->sample->maps.counts, key, sizeof(*key), &now, sizeof(now), 0))
		return 0;
	before = htab_get(&c->sample_totals, key, NULL);
	if (!before)
		return -ENOMEM;
	if (now == *before)
		return 0;
	c->sample_rows = grow_rows(c->sample_rows, &c->sample_cap, s->nsamples + 1, sizeof(*r));
	if (!c->sample_rows)
		return -ENOMEM;
	r = &c->sample_rows[s->nsamples++];
	r->key = *key;
	r->count = now - *before;
	sample_comm(c, r);
	*before = now;
	return 0;
}

int sample_drain(struct collector *c, struct snapshot *s)
{
	struct sample_key key, next;
	const void *prev = NULL;
	int err;

	s->nsamples = 0;
	s->samples = c->sample_rows;
	if (!c->sample)
		return 0;
	while (!bpf_map__get_next_key(c->sample->maps.counts, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		err = drain_one(c, &key, s);
		if (err)
			return err;
	}
	s->samples = c->sample_rows;
	return 0;
}

int collector__fetch_sample_kstack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct collector *c = ctx;

	return fetch_stack_map(c->sample->maps.kstacks, id, frames, max, LS_SAMPLE_KSTACK_DEPTH);
}

int collector__fetch_sample_ustack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct collector *c = ctx;

	return fetch_stack_map(c->sample->maps.ustacks, id, frames, max, LS_SAMPLE_USTACK_DEPTH);
}

void collector__sample_lost(const struct collector *c, struct sample_lost *lost)
{
	memset(lost, 0, sizeof(*lost));
	if (c->sample)
		*lost = c->sample->bss->lost;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;

	if (size >= sizeof(__u32))
		c->on_new_process(c->on_new_process_ctx, *(__u32 *)data);
	return 0;
}

int collector__watch_processes(struct collector *c, new_process_fn fn, void *ctx)
{
	if (!c->sample || !status_of(c, FAMILY_SAMPLE)->attached)
		return 0;
	c->on_new_process = fn;
	c->on_new_process_ctx = ctx;
	c->events = ring_buffer__new(bpf_map__fd(c->sample->maps.new_tgids), on_event, c, NULL);
	return c->events ? 0 : -errno;
}

int collector__event_fd(const struct collector *c)
{
	return c->events ? ring_buffer__epoll_fd(c->events) : -1;
}

int collector__consume(struct collector *c)
{
	int n = c->events ? ring_buffer__consume(c->events) : 0;

	return n < 0 ? n : 0;
}
