// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler family of the collector: a perf_event per CPU (hardware
 * cycles where a PMU exists, else the cpu-clock software event) running
 * bpf/sample.bpf.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/buf.h"
#include "record/collector_int.h"
#include "record/dwunwind.h"
#include "record/mapsize.h"
#include "base/log.h"
#include "sample.skel.h"

_Static_assert(sizeof(struct sample_key) == 24, "sample_key layout is shared with BPF");
_Static_assert(sizeof(struct sample_stack) == 8 + 8 * LS_SAMPLE_STACK_DEPTH, "sample_stack layout is shared with BPF");
_Static_assert(sizeof(struct sample_lost) == 5 * 8, "sample_lost layout is shared with BPF");
_Static_assert(sizeof(struct sample_uregs) == 160, "sample_uregs layout is shared with BPF");
_Static_assert(LS_SAMPLE_UREGS == DWUNWIND_NREGS, "the unwinder takes the BPF side's registers");
_Static_assert(LS_SAMPLE_KSTACK_DEPTH <= LS_SAMPLE_STACK_DEPTH && LS_SAMPLE_USTACK_DEPTH <= LS_SAMPLE_STACK_DEPTH,
	       "the stack maps hold either kind");

/* BPF's counters, in struct sample_lost's order, then the collector's. */
static const char *const lost_names[] = {
	"sample_kstack_error", "sample_ustack_error", "sample_stacks_full", "sample_map_full",
	"sample_ustack_dropped", "sample_stack_gone", "sample_ustack_incomplete",
};

#define NLOST		(sizeof(lost_names) / sizeof(lost_names[0]))
#define NLOST_BPF	(sizeof(struct sample_lost) / sizeof(__u64))
_Static_assert(NLOST == NLOST_BPF + 2, "one name per loss counter, in order");

/* The profile's ids are below this: stack_file_id() keeps 24 bits for them. */
#define STACK_ID_LIMIT	((1 << STACK_SPACE_SHIFT) - 1)

/*
 * The stacks of one map as the profile numbers them: an id per BPF key
 * (the hash of the frames), new at its first row. A stack that trim
 * removes from the map is forgotten here too; should it come back, it
 * is fetched again under a new id (ids are never reused: the profile
 * may have the old one already).
 */
struct stack_ids {
	struct htab ids;	/* u64 BPF key -> int32 id */
	struct htab keys;	/* int32 id -> u64 BPF key, to fetch the stack */
	int32_t next;
};

struct sampler {
	struct sample_bpf *skel;
	int ncpus;
	uint32_t freq;
	struct bpf_link **links;
	int nlinks;
	struct htab totals;	/* sample_key -> uint64 count */
	struct htab seen;	/* sample_key -> uint32: the drain at which its count last changed */
	uint32_t drain;		/* the drain in progress (collector.ndrains) */
	struct stack_ids kst, ust;
	uint64_t stack_gone;	/* rows whose stack was not in its map any more (or no id was left) */
	uint64_t orphans_at;	/* map_full + stacks_full at the last trim: stacks without a row */
	struct mapscan scan;	/* the drains' reader of counts */
	struct sample_row *rows;
	size_t cap;
	struct ring_buffer *events;
	new_process_fn on_new_process;
	void *on_new_process_ctx;
	/* --user-stack dwarf */
	struct ring_buffer *ustack_ring;	/* the samples with their user registers and stack */
	struct dwunwind *unwinder;
	struct maps_cache *maps;
	struct htab unwound;	/* sample_key -> struct unwound: since the last drain */
	uint64_t ustack_incomplete;	/* stacks the unwinder could not take to their end */
	uint64_t unwound_lost;	/* unwound samples a full map dropped (counted as map_full) */
	uint64_t unwound_full;	/* ... kept without their stack, ustacks full (as stacks_full) */
	uint64_t unwind_ns, nunwound;	/* the unwinder's time, and its stacks (-v) */
	uint64_t build_ns;	/* of which the unwinds that first reported a process's modules */
};

/* Samples unwound in user space, counted under their stack until the drain. */
struct unwound {
	uint64_t count;
	struct sample_stack st;
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
	/* Said only where not frame pointers: the mode reads as it always did. */
	if (!err && m->skel->rodata->ustack_size)
		snprintf(st->mode + strlen(st->mode), sizeof(st->mode) - strlen(st->mode),
			 " user-stack=dwarf,%u", m->skel->rodata->ustack_size);
	}
	return err;
}

static void stack_ids_init(struct stack_ids *s)
{
	htab_init(&s->ids, sizeof(uint64_t), sizeof(int32_t));
	htab_init(&s->keys, sizeof(int32_t), sizeof(uint64_t));
	s->next = 0;
}

static void stack_ids_free(struct stack_ids *s)
{
	htab_free(&s->ids);
	htab_free(&s->keys);
}

/*
 * -M rows: the locks family's rows; the sampler keeps twice as many rows
 * (a row is a thread and a pair of stacks) and as many stacks of each
 * kind, as at the defaults (16384), each map within its budget (mapsize.h).
 */
static int size_maps(struct sampler *m, uint32_t rows)
{
	uint64_t twice = 2ULL * rows;
	int err;

	err = size_shared_map("sample", m->skel->maps.counts, twice < UINT32_MAX ? twice : UINT32_MAX,
			      m->ncpus);
	if (!err)
		err = size_shared_map("sample", m->skel->maps.kstacks, rows, m->ncpus);
	if (!err)
		err = size_shared_map("sample", m->skel->maps.ustacks, rows, m->ncpus);
	return err;
}

/*
 * --user-stack dwarf's ring: a quarter of a second of every CPU's
 * samples, 1 to 64 MiB. The BPF side wakes us only once a quarter of it
 * is full (measured at -F 999 on 2 CPUs: no sample dropped); the drains
 * empty it besides.
 */
#define USTACK_RING_MIN		(1U << 20)
#define USTACK_RING_MAX		(64U << 20)

static uint32_t ustack_ring_size(uint32_t ncpus, uint32_t freq, uint32_t stack_size)
{
	uint64_t rec = (8 + sizeof(struct sample_uregs) + stack_size + 7) & ~7ULL;
	uint64_t want = (uint64_t)ncpus * freq * rec / 4;
	uint32_t size = USTACK_RING_MIN;

	while (size < want && size < USTACK_RING_MAX)
		size <<= 1;
	return size;
}

/* Before the load: the stack size and the ring's. */
static int dwarf_prepare(struct collector *c, struct sampler *m, struct family_status *st)
{
	uint32_t ring = ustack_ring_size(m->ncpus, m->freq, c->o.user_stack_size);
	int err;

#if !defined(__x86_64__)
	snprintf(st->why, sizeof(st->why), "--user-stack dwarf: x86-64 only");
	return -EOPNOTSUPP;
#endif
	if (!c->o.maps) {
		snprintf(st->why, sizeof(st->why), "--user-stack dwarf: no mapping tracker to unwind with");
		return -EOPNOTSUPP;
	}
	m->skel->rodata->ustack_size = c->o.user_stack_size;
	m->skel->rodata->ustack_wake = ring / 4;
	err = bpf_map__set_max_entries(m->skel->maps.ustack_samples, ring);
	if (err)
		snprintf(st->why, sizeof(st->why), "--user-stack dwarf: a %u-byte ring: %s", ring, strerror(-err));
	return err;
}

static int on_ustack(void *ctx, void *data, size_t size);

/* After the load: the ring's reader, woken through the collector's epoll set. */
static int dwarf_open(struct collector *c, struct sampler *m)
{
	m->maps = c->o.maps;
	m->unwinder = dwunwind_new(m->maps);
	if (!m->unwinder)
		return -ENOMEM;
	m->ustack_ring = ring_buffer__new(bpf_map__fd(m->skel->maps.ustack_samples), on_ustack, m, NULL);
	if (!m->ustack_ring)
		return -errno;
	return collector_watch_fd(c, ring_buffer__epoll_fd(m->ustack_ring));
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
	htab_init(&m->seen, sizeof(struct sample_key), sizeof(uint32_t));
	stack_ids_init(&m->kst);
	stack_ids_init(&m->ust);
	htab_init(&m->unwound, sizeof(struct sample_key), sizeof(struct unwound));
	mapscan_init(&m->scan, -1, sizeof(struct sample_key), sizeof(uint64_t));
	m->skel = sample_bpf__open();
	if (!m->skel)
		return -errno;
	m->skel->rodata->filter_targets = c->o.filter_targets;
	m->skel->rodata->pidns_dev = c->pidns_dev;
	m->skel->rodata->pidns_ino = c->pidns_ino;
	err = c->o.stats_entries ? size_maps(m, c->o.stats_entries) : 0;
	if (!err && c->o.user_stack_size)
		err = dwarf_prepare(c, m, st);
	if (err)
		return err;
	err = collector_prepare_object(c, m->skel->obj);
	if (!err)
		err = sample_bpf__load(m->skel);
	if (err) {
		snprintf(st->why, sizeof(st->why), "loading the sampler failed: %s", strerror(-err));
		return err;
	}
	if (c->o.user_stack_size && (err = dwarf_open(c, m))) {
		snprintf(st->why, sizeof(st->why), "--user-stack dwarf: %s", strerror(-err));
		return err;
	}
	return attach_all(m, st);
}

static void sample_free(void *priv)
{
	struct sampler *m = priv;

	ring_buffer__free(m->events);
	sample_detach(m);
	ring_buffer__free(m->ustack_ring);
	dwunwind_free(m->unwinder);
	htab_free(&m->unwound);
	free(m->links);
	sample_bpf__destroy(m->skel);
	htab_free(&m->totals);
	htab_free(&m->seen);
	stack_ids_free(&m->kst);
	stack_ids_free(&m->ust);
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

/* The profile's id of a BPF stack key: -1 for none, a new one at first sight. */
static int stack_id_of(struct sampler *m, struct stack_ids *s, uint64_t key, int32_t *id)
{
	int32_t *slot;
	uint64_t *k;

	*id = -1;
	if (key == LS_SAMPLE_NO_STACK)
		return 0;
	if ((slot = htab_find(&s->ids, &key))) {
		*id = *slot;
		return 0;
	}
	if (s->next >= STACK_ID_LIMIT) {
		m->stack_gone++;
		return 0;
	}
	slot = htab_get(&s->ids, &key, NULL);
	k = slot ? htab_get(&s->keys, &s->next, NULL) : NULL;
	if (!k)
		return -ENOMEM;
	*k = key;
	*slot = s->next++;
	*id = *slot;
	return 0;
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
	r->key.tgid = key->tgid;
	r->key.tid = key->tid;
	if (stack_id_of(m, &m->kst, key->kstack, &r->key.kstack) ||
	    stack_id_of(m, &m->ust, key->ustack, &r->key.ustack))
		return -ENOMEM;
	r->count = now - *before;
	sample_comm(m, r);
	*before = now;
	return note_seen(&m->seen, key, m->drain);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A sample with its user registers and stack (--user-stack dwarf):
 * unwound now, while the process's mappings are those it ran with, and
 * counted under its kernel and user stacks until the drain.
 */
static int on_ustack(void *ctx, void *data, size_t size)
{
	const struct sample_uregs *e = data;
	struct sampler *m = ctx;
	struct dwunwind_sample smp;
	struct sample_key key;
	enum dwunwind_end end;
	struct unwound *u;
	struct sample_stack st;
	uint64_t t0 = mono_ns(), ips[LS_SAMPLE_USTACK_DEPTH], builds = dwunwind_builds(m->unwinder);
	int i;

	if (size < sizeof(*e) || size - sizeof(*e) < e->size)
		return 0;
	smp.tgid = e->tgid;
	smp.tid = e->tid;
	for (i = 0; i < LS_SAMPLE_UREGS; i++)
		smp.regs[i] = e->regs[i];
	smp.stack = e->stack;
	smp.size = e->size;
	/* A process the tracker has not told us about: what it has mapped now. */
	if (!maps_cache__known(m->maps, e->tgid))
		maps_cache__read_proc(m->maps, e->tgid);
	memset(&st, 0, sizeof(st));
	st.nr = dwunwind_stack(m->unwinder, &smp, ips, LS_SAMPLE_USTACK_DEPTH, &end);
	for (i = 0; i < (int)st.nr; i++)
		st.ip[i] = ips[i];
	if (end == DWUNWIND_INCOMPLETE)
		m->ustack_incomplete++;
	key = (struct sample_key){ .tgid = e->tgid, .tid = e->tid, .kstack = e->kstack };
	key.ustack = hash_bytes(st.ip, st.nr * sizeof(st.ip[0]));
	if (key.ustack == LS_SAMPLE_NO_STACK)
		key.ustack = 1;
	u = htab_get(&m->unwound, &key, NULL);
	if (!u)
		return -ENOMEM;
	if (!u->count++)
		u->st = st;
	t0 = mono_ns() - t0;
	m->unwind_ns += t0;
	if (dwunwind_builds(m->unwinder) != builds)
		m->build_ns += t0;
	m->nunwound++;
	return 0;
}

/* Add n samples to key's count in the counts map (a full map drops them, counted). */
static void add_count(struct sampler *m, int cfd, const struct sample_key *key, uint64_t n)
{
	uint64_t count;

	if (bpf_map_lookup_elem(cfd, key, &count))
		count = 0;
	count += n;
	if (bpf_map_update_elem(cfd, key, &count, BPF_ANY))
		m->unwound_lost += n;
}

/*
 * The samples unwound since the last drain into the maps the drain
 * reads, as if the BPF side had counted them: their stacks into
 * ustacks, their counts into counts. The BPF side counts no sample with
 * a user stack in this mode, so no such key is written from both sides.
 * A stack that finds ustacks full is counted without its user stack, as
 * the BPF side does (sample_stacks_full): that key the BPF side may
 * count too (its ring full), and a sample it counts between our lookup
 * and update is lost; only while the stacks map is full.
 */
static int flush_unwound(struct sampler *m)
{
	int ufd = bpf_map__fd(m->skel->maps.ustacks), cfd = bpf_map__fd(m->skel->maps.counts);
	struct sample_key key;
	struct unwound *u;
	const void *k;
	size_t it = 0;

	while ((u = htab_next(&m->unwound, &it, &k))) {
		memcpy(&key, k, sizeof(key));
		if (bpf_map_update_elem(ufd, &key.ustack, &u->st, BPF_NOEXIST) && errno != EEXIST) {
			m->unwound_full += u->count;
			key.ustack = LS_SAMPLE_NO_STACK;
		}
		add_count(m, cfd, &key, u->count);
	}
	htab_free(&m->unwound);
	htab_init(&m->unwound, sizeof(struct sample_key), sizeof(struct unwound));
	return 0;
}

/* The samples waiting in the ring, unwound and counted in the maps. */
static int drain_ustacks(struct sampler *m)
{
	int n;

	if (!m->ustack_ring)
		return 0;
	n = ring_buffer__consume(m->ustack_ring);
	if (n < 0)
		return n;
	return flush_unwound(m);
}

static int sample_drain(struct collector *c, void *priv, struct snapshot *s, bool final)
{
	struct sampler *m = priv;
	const struct dwunwind_why *why;
	const void *key, *count;
	int err;

	if (m->ustack_ring)
		collector_consume_maps(c);
	err = drain_ustacks(m);
	if (err)
		return err;
	why = m->unwinder ? dwunwind_why(m->unwinder) : NULL;
	if (final && m->nunwound)
		pr_info("sample: %" PRIu64 " user stacks unwound in %.1f ms: %.1f ms reporting %" PRIu64
			" processes' modules, then %.1f us a stack; %" PRIu64 " incomplete (%" PRIu64
			" process unknown, %" PRIu64 " copy too short, %" PRIu64 " code of no file, %" PRIu64
			" libdw)\n",
			m->nunwound, m->unwind_ns / 1e6, m->build_ns / 1e6, dwunwind_builds(m->unwinder),
			(m->unwind_ns - m->build_ns) / 1e3 / m->nunwound, m->ustack_incomplete,
			why->no_process, why->short_copy, why->no_module, why->libdw);
	m->drain = c->ndrains;
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


/* A set of stack keys (trim): a u64 key, no value; none is no stack. */
static int stack_set_add(struct htab *set, uint64_t key)
{
	return key == LS_SAMPLE_NO_STACK || htab_get(set, &key, NULL) ? 0 : -ENOMEM;
}

/*
 * What the counts left refer to, in sets[]: the kernel stacks, user
 * stacks, threads and processes. Read from the map itself, after the
 * rows were trimmed: a row made since the last drain keeps its stacks.
 */
static int live_keys(struct sampler *m, struct htab *sets)
{
	const struct sample_key *key;
	const void *k, *v;
	int err;

	mapscan_start(&m->scan);
	while ((err = mapscan_next(&m->scan, &k, &v)) > 0) {
		key = k;
		err = stack_set_add(&sets[0], key->kstack) ?: stack_set_add(&sets[1], key->ustack) ?:
		      u32_set_add(&sets[2], key->tid) ?: u32_set_add(&sets[3], key->tgid);
		if (err)
			break;
	}
	return err;
}

/*
 * Forget the stacks that no row refers to any more (live), and delete
 * them from map: the number forgotten, or -errno. Only stacks that a
 * drain has seen: one made since is a row's to come.
 */
static int forget_stacks(struct stack_ids *s, struct bpf_map *map, const struct htab *live)
{
	struct stack_ids kept;
	const void *key;
	int32_t *id;
	size_t it = 0;
	int forgotten = 0;

	stack_ids_init(&kept);
	kept.next = s->next;
	while ((id = htab_next(&s->ids, &it, &key))) {
		int32_t *slot;
		uint64_t *back;

		if (!htab_find(live, key)) {
			bpf_map__delete_elem(map, key, sizeof(uint64_t), 0);
			forgotten++;
			continue;
		}
		slot = htab_get(&kept.ids, key, NULL);
		back = slot ? htab_get(&kept.keys, id, NULL) : NULL;
		if (!back) {
			stack_ids_free(&kept);
			return -ENOMEM;
		}
		*slot = *id;
		*back = *(const uint64_t *)key;
	}
	stack_ids_free(s);
	*s = kept;
	return forgotten;
}

static uint64_t late_samples(const void *total, const void *deleted, void *ctx)
{
	uint64_t before = *(const uint64_t *)total, now = *(const uint64_t *)deleted;

	(void)ctx;
	return now > before ? now - before : 0;
}

/*
 * Stacks kept for a sample whose row found the counts full, or whose
 * other stack found its map full, have no row: never forgotten by their
 * ids, they would stay. After such losses, every stack of the maps that
 * no row refers to goes (a stack made for a sample in flight may go
 * with them: its row then counts in sample_stack_gone).
 */
static int sweep_orphans(struct sampler *m, struct htab *sets)
{
	const struct sample_lost *l = &m->skel->bss->lost;
	uint64_t losses = l->map_full + l->stacks_full + m->unwound_lost + m->unwound_full;
	int err;

	if (losses == m->orphans_at)
		return 0;
	m->orphans_at = losses;
	err = map_prune(m->skel->maps.kstacks, &sets[0]);
	return err < 0 ? err : map_prune(m->skel->maps.ustacks, &sets[1]);
}

/*
 * Removing names or announcements: the BPF side believes its per-CPU
 * record of the threads it named and announced only while names_gen
 * stays the same even number (bpf/sample.bpf.c, remember_thread): called
 * before entries go (odd) and after (even).
 */
static void names_removal(struct sampler *m)
{
	__u64 *gen = &m->skel->data->names_gen;

	__atomic_store_n(gen, *gen + 1, __ATOMIC_SEQ_CST);
}

/*
 * A process forgotten from seen_tgids is announced again when it is next
 * sampled, and its mappings read for the segment that sees it.
 */
static int sample_trim(struct collector *c, void *priv, uint32_t before, uint64_t *late)
{
	struct sampler *m = priv;
	struct bpf_map *maps[2] = { m->skel->maps.sample_comms, m->skel->maps.seen_tgids };
	struct htab sets[4];
	int i, removed, err;

	(void)c;
	m->scan.fd = bpf_map__fd(m->skel->maps.counts);
	removed = forget_older(&m->totals, &m->seen, m->skel->maps.counts, before, late_samples, m,
			       late);
	if (removed < 0)
		return removed;
	for (i = 0; i < 4; i++)
		htab_init(&sets[i], i < 2 ? sizeof(uint64_t) : sizeof(__u32), 1);
	err = live_keys(m, sets);
	if (!err)
		err = forget_stacks(&m->kst, m->skel->maps.kstacks, &sets[0]);
	if (err >= 0)
		err = forget_stacks(&m->ust, m->skel->maps.ustacks, &sets[1]);
	if (err >= 0)
		err = sweep_orphans(m, sets);
	if (err >= 0) {
		names_removal(m);
		for (i = 0; i < 2 && err >= 0; i++)
			err = map_prune(maps[i], &sets[i + 2]);
		names_removal(m);
	}
	for (i = 0; i < 4; i++)
		htab_free(&sets[i]);
	return err < 0 ? err : removed;
}

/*
 * The fullest of the counts and the stack maps. A row refers to a stack
 * of each kind at most, so rows down to a quarter of the smallest map
 * leave each stack map a quarter full at most.
 */
static unsigned sample_fill(const void *priv, uint32_t latest, uint32_t *before)
{
	const struct sampler *m = priv;
	uint32_t rows_max, k_max, u_max;
	unsigned rows, k, u;

	*before = 0;
	if (!m->skel)
		return 0;
	rows_max = bpf_map__max_entries(m->skel->maps.counts);
	k_max = bpf_map__max_entries(m->skel->maps.kstacks);
	u_max = bpf_map__max_entries(m->skel->maps.ustacks);
	rows = m->totals.count * 1000 / rows_max;
	k = m->kst.ids.count * 1000 / k_max;
	u = m->ust.ids.count * 1000 / u_max;
	*before = trim_cutoff(&m->seen, latest, (rows_max < k_max ? (rows_max < u_max ? rows_max : u_max) :
						(k_max < u_max ? k_max : u_max)) / 4);
	return rows > k ? (rows > u ? rows : u) : (k > u ? k : u);
}

/* Copy a stack out by the profile's id: the number of frames, or -ENOENT (counted). */
static int fetch_stack(struct sampler *m, struct stack_ids *s, struct bpf_map *map, int32_t id,
		       uint64_t *frames, int max)
{
	const uint64_t *key = htab_find(&s->keys, &id);
	struct sample_stack st;
	int i;

	if (!key || bpf_map__lookup_elem(map, key, sizeof(*key), &st, sizeof(st), 0)) {
		m->stack_gone++;
		return -ENOENT;
	}
	for (i = 0; i < (int)st.nr && i < LS_SAMPLE_STACK_DEPTH && i < max; i++)
		frames[i] = st.ip[i];
	return i;
}

int collector__fetch_sample_kstack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct sampler *m = family_priv(ctx, FAMILY_SAMPLE);

	if (!m || !m->skel)
		return -ENOENT;
	return fetch_stack(m, &m->kst, m->skel->maps.kstacks, id, frames,
			   max < LS_SAMPLE_KSTACK_DEPTH ? max : LS_SAMPLE_KSTACK_DEPTH);
}

int collector__fetch_sample_ustack(void *ctx, int32_t id, uint64_t *frames, int max)
{
	struct sampler *m = family_priv(ctx, FAMILY_SAMPLE);

	if (!m || !m->skel)
		return -ENOENT;
	return fetch_stack(m, &m->ust, m->skel->maps.ustacks, id, frames,
			   max < LS_SAMPLE_USTACK_DEPTH ? max : LS_SAMPLE_USTACK_DEPTH);
}

bool collector__sample_stack_known(const struct collector *c, bool user, int32_t id)
{
	const struct sampler *m = family_priv(c, FAMILY_SAMPLE);

	return m && htab_find(user ? &m->ust.keys : &m->kst.keys, &id);
}

void collector__forget_process(struct collector *c, uint32_t tgid)
{
	struct sampler *m = family_priv(c, FAMILY_SAMPLE);

	if (!m || !m->skel)
		return;
	dwunwind_forget(m->unwinder, tgid);
	names_removal(m);
	bpf_map__delete_elem(m->skel->maps.seen_tgids, &tgid, sizeof(tgid), 0);
	/* Its main thread's name too: a process under the PID would be named after it. */
	bpf_map__delete_elem(m->skel->maps.sample_comms, &tgid, sizeof(tgid), 0);
	names_removal(m);
}

static void sample_lost(const struct collector *c, const void *priv, uint64_t *vals)
{
	const struct sampler *m = priv;

	(void)c;
	if (!m || !m->skel)
		return;
	memcpy(vals, &m->skel->bss->lost, sizeof(m->skel->bss->lost));
	vals[2] += m->unwound_full;	/* sample_stacks_full: counted without that stack */
	vals[3] += m->unwound_lost;	/* sample_map_full: the sample was dropped */
	vals[NLOST_BPF] = m->stack_gone;
	vals[NLOST_BPF + 1] = m->ustack_incomplete;
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

	/* After the announcements: a new process's mappings are read first. */
	if (n >= 0 && m && m->ustack_ring)
		n = ring_buffer__consume(m->ustack_ring);
	return n < 0 ? n : 0;
}

static const struct bpf_object *sample_object(const void *priv)
{
	const struct sampler *m = priv;

	return m->skel ? m->skel->obj : NULL;
}

const struct family_ops sample_family = {
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
	.trim_lost = "sample_trimmed_late",
	.fill = sample_fill,
};
