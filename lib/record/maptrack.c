// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The mapping tracker (lib/record/maptrack.h). libbpf's raw perf buffer
 * opens the events (one per online CPU, system-wide), maps their ring
 * buffers and walks the records, wrapped ones included; the
 * PERF_EVENT_ARRAY map it needs is never read by a program.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/maptrack.h"

#define RING_PAGES	128	/* per CPU, as perf record's: about 3000 records between two reads */

struct maptrack {
	struct maps_cache *mc;
	struct perf_buffer *pb;
	int map_fd;
	uint64_t lost;
};

/* The records' layouts, as perf_event.h documents them (sample_id_all: pid, tid, time last). */
struct rec_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct rec_task {		/* PERF_RECORD_EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_comm {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct rec_lost {
	struct perf_event_header h;
	uint64_t id, lost;
};

/* The time of a record: the last field of its sample_id. */
static uint64_t rec_time(const struct perf_event_header *h)
{
	uint64_t t;

	memcpy(&t, (const char *)h + h->size - sizeof(t), sizeof(t));
	return t;
}

/* The name ends before the sample_id: bounded by the record's size. */
static void rec_string(const struct perf_event_header *h, const char *s, char *out, size_t len)
{
	size_t room = (const char *)h + h->size - s;

	snprintf(out, len, "%.*s", (int)(room < len ? room : len - 1), s);
}

static void on_mmap2(struct maptrack *t, const struct perf_event_header *h)
{
	const struct rec_mmap2 *r = (const void *)h;
	char path[4096];
	struct proc_map m;

	if (h->size < sizeof(*r) + 16 || !(r->prot & PROT_EXEC))
		return;
	rec_string(h, r->filename, path, sizeof(path));
	memset(&m, 0, sizeof(m));
	m.tgid = r->pid;
	m.start = r->addr;
	m.end = r->addr + r->len;
	m.pgoff = r->pgoff;
	m.ino = r->ino;
	m.dev = r->ino ? makedev(r->maj, r->min) : 0;
	m.mapped_ns = rec_time(h);
	/* perf's name for anonymous memory; /proc/PID/maps shows none. */
	m.path = strcmp(path, "//anon") ? path : "";
	maps_cache__add(t->mc, &m);
}

static enum bpf_perf_event_ret on_record(void *ctx, int cpu, struct perf_event_header *h)
{
	struct maptrack *t = ctx;
	const struct rec_task *x = (const void *)h;
	const struct rec_comm *c = (const void *)h;
	char comm[16];

	(void)cpu;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		on_mmap2(t, h);
		break;
	case PERF_RECORD_EXIT:	/* one per thread; the leader's ends the process */
		if (h->size >= sizeof(*x) && x->pid == x->tid)
			maps_cache__exited(t->mc, x->pid, x->time);
		break;
	case PERF_RECORD_COMM:
		if (h->size >= sizeof(*c) + 16 && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
			rec_string(h, c->comm, comm, sizeof(comm));
			maps_cache__set_comm(t->mc, c->pid, comm);
		}
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(struct rec_lost))
			t->lost += ((const struct rec_lost *)h)->lost;
		break;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

int maptrack__open(struct maptrack **tp, struct maps_cache *mc)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,	/* bpf_ktime_get_ns(), now_ns() */
		.watermark = 1,
		.wakeup_watermark = RING_PAGES * 4096 / 4,
	};
	struct maptrack *t = calloc(1, sizeof(*t));
	int err, ncpus = libbpf_num_possible_cpus();

	if (!t)
		return -ENOMEM;
	t->mc = mc;
	t->map_fd = ncpus > 0 ? bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "ls_maptrack", 4, 4, ncpus, NULL)
			      : -EINVAL;
	if (t->map_fd < 0) {
		err = ncpus > 0 ? -errno : ncpus;
		free(t);
		return err;
	}
	t->pb = perf_buffer__new_raw(t->map_fd, RING_PAGES, &attr, on_record, t, NULL);
	if (!t->pb) {
		err = -errno;
		maptrack__free(t);
		return err;
	}
	*tp = t;
	return 0;
}

void maptrack__free(struct maptrack *t)
{
	if (!t)
		return;
	perf_buffer__free(t->pb);
	if (t->map_fd >= 0)
		close(t->map_fd);
	free(t);
}

int maptrack__fd(const struct maptrack *t)
{
	return perf_buffer__epoll_fd(t->pb);
}

int maptrack__consume(struct maptrack *t)
{
	int err = perf_buffer__consume(t->pb);

	return err < 0 ? err : 0;
}

uint64_t maptrack__lost(const struct maptrack *t)
{
	return t->lost;
}
