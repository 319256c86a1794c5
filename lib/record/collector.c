// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The collector: the target filter shared by every family, and the
 * dispatch to the families (lib/collect_*.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/collector_int.h"
#include "record/mapsize.h"
#include "record/maptrack.h"
#include "base/log.h"
#include "targets.h"
#include "sampler.h"
#include "targets.skel.h"
#include "base/buf.h"

#define FAMILY_OPS_ENTRY(NAME, name, flags, help)	[FAMILY_I_##NAME] = &name##_family,
static const struct family_ops *const families[FAMILY_COUNT] = {
	LOCKSTAT_FAMILIES(FAMILY_OPS_ENTRY)
};
#undef FAMILY_OPS_ENTRY

static const struct family_ops *ops_of(enum family f)
{
	return families[__builtin_ctz(f)];
}

int family_choose_mode(enum family f, const struct features *feat, enum attach_mode want,
		       struct family_status *st)
{
	memset(st, 0, sizeof(*st));
	return ops_of(f)->choose_mode(feat, want, st);
}

struct family_status *status_of(struct collector *c, enum family f)
{
	return &c->status[__builtin_ctz(f)];
}

const struct family_status *collector__status(const struct collector *c, enum family f)
{
	return &c->status[__builtin_ctz(f)];
}

void *family_priv(const struct collector *c, enum family f)
{
	return c->priv[__builtin_ctz(f)];
}

int collector_add_table(struct collector *c, const struct trows *r)
{
	if (!r->n)
		return 0;
	if (grow_array((void **)&c->tables, &c->tables_cap, c->ntables + 1, sizeof(*c->tables)))
		return -ENOMEM;
	c->tables[c->ntables++] = *r;
	return 0;
}

int collector_drain_source(struct collector *c, struct tsource *src, struct htab *extra)
{
	int err;

	src->drain = c->ndrains;
	err = tsource_drain(src, extra);

	c->entries_read += src->nread;

	return err ? err : collector_add_table(c, &src->rows.rows);
}

/* The maps of bpf/targets.bpf.h in obj: the targets object's from now on. */
static int reuse_target_maps(struct collector *c, struct bpf_object *obj)
{
	static const char *const names[] = { "targets", "targets_gen", "target_cgroup" };
	const struct bpf_map *owner[] = {
		c->targets ? c->targets->maps.targets : NULL,
		c->targets ? c->targets->maps.targets_gen : NULL,
		c->targets ? c->targets->maps.target_cgroup : NULL,
	};
	struct bpf_map *m;
	size_t i;
	int err;

	if (!c->targets)
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		m = bpf_object__find_map_by_name(obj, names[i]);
		if (!m)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, bpf_map__fd(owner[i]));
		if (err)
			return err;
	}
	return 0;
}

/* The stats map's rows reserved at load where they fit (mapsize.h). */
static int prealloc_stats(struct collector *c, struct bpf_map *m)
{
	uint32_t flags = bpf_map__map_flags(m);

	if (!(flags & BPF_F_NO_PREALLOC) ||
	    !percpu_map_prealloc(bpf_map__max_entries(m), bpf_map__value_size(m), c->ncpus))
		return 0;
	pr_info("stats: %u rows reserved at load (%d CPUs)\n", bpf_map__max_entries(m), c->ncpus);
	return bpf_map__set_map_flags(m, flags & ~BPF_F_NO_PREALLOC);
}

/* A per-CPU hash map held to its budget on this machine's CPUs (mapsize.h). */
static int budget_rows(struct collector *c, struct bpf_map *m, bool stats)
{
	uint64_t budget = stats ? STATS_MAP_BUDGET : PERCPU_MAP_BUDGET;
	uint32_t max = bpf_map__max_entries(m);
	uint32_t rows = percpu_map_rows(max, bpf_map__value_size(m), c->ncpus, budget);
	int err;

	if (rows == max)
		return 0;
	err = bpf_map__set_max_entries(m, rows);
	if (!err)
		pr_info("%s: %u rows, not %u, on %d CPUs (per-CPU values: at most %llu MiB of kernel memory)\n",
			bpf_map__name(m), rows, max, c->ncpus, (unsigned long long)(budget >> 20));
	return err;
}

int size_shared_map(const char *family, struct bpf_map *map, uint32_t want, int ncpus)
{
	uint32_t rows = shared_map_rows(want, bpf_map__key_size(map), bpf_map__value_size(map),
					ncpus, SHARED_MAP_BUDGET);

	if (rows < want)
		pr_warn("%s: %s holds %u rows, not %u (all reserved at load: at most %llu MiB of kernel memory a map)\n",
			family, bpf_map__name(map), rows, want, (unsigned long long)(SHARED_MAP_BUDGET >> 20));
	else
		pr_info("%s: %s holds %u rows\n", family, bpf_map__name(map), rows);
	return bpf_map__set_max_entries(map, rows);
}

/*
 * The per-CPU hash maps of obj held to their budget; the stats map keeps
 * the rows -M asked for, and is preallocated where it is small enough.
 */
static int size_percpu_maps(struct collector *c, struct bpf_object *obj)
{
	struct bpf_map *m;
	bool stats;
	int err;

	bpf_object__for_each_map(m, obj) {
		if (bpf_map__type(m) != BPF_MAP_TYPE_PERCPU_HASH)
			continue;
		stats = !strcmp(bpf_map__name(m), "stats");
		err = stats && c->o.stats_entries ? 0 : budget_rows(c, m, stats);
		if (!err && stats)
			err = prealloc_stats(c, m);
		if (err)
			return err;
	}
	return 0;
}

int collector_prepare_object(struct collector *c, struct bpf_object *obj)
{
	int err = size_percpu_maps(c, obj);

	return err ? err : reuse_target_maps(c, obj);
}

/*
 * One guard for every object whose programs probe locks, whether or not
 * a target filter is loaded: created by the first family that asks, its
 * value (guard.bpf.h's struct guard_cpu) as that object declares it.
 */
int reuse_guard(struct collector *c, struct bpf_map *guard)
{
	if (c->guard_fd < 0) {
		c->guard_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "guard", sizeof(__u32),
					     bpf_map__value_size(guard), 1, NULL);
		if (c->guard_fd < 0)
			return -errno;
	}
	return bpf_map__reuse_fd(guard, c->guard_fd);
}

/*
 * Windows of 10 ms, or, below 100 stacks a second, long enough for one.
 * Over its tokens, a window halves the probability every twice its share
 * of the rate: random bunching is rarely halved, a storm is sampled at a
 * falling rate.
 */
#define SAMPLE_WINDOW_NS	10000000ULL

void sampler_consts(uint32_t rate, struct sampler_consts *out)
{
	uint64_t window = SAMPLE_WINDOW_NS, share;

	if (rate && rate < 100)
		window = 1000000000ULL / rate;
	share = (uint64_t)rate * window / 1000000000ULL;
	out->stack_rate = rate;
	out->window_ns = window;
	out->window_cap = share ? 2 * share : 2;
}

int reuse_sampler(struct collector *c, struct bpf_map *sampler)
{
	if (c->sampler_fd < 0) {
		c->sampler_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sampler", sizeof(__u32),
					       sizeof(struct stack_sampler), 1, NULL);
		if (c->sampler_fd < 0)
			return -errno;
	}
	return bpf_map__reuse_fd(sampler, c->sampler_fd);
}

/*
 * lockstat's PID namespace when it is not the initial one (a container):
 * the PIDs it knows, and /proc's, are that namespace's, not BPF's.
 */
#define PROC_PID_INIT_INO	0xEFFFFFFCu

static void find_pidns(struct collector *c)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == PROC_PID_INIT_INO)
		return;
	c->pidns_dev = st.st_dev;
	c->pidns_ino = st.st_ino;
}

/*
 * The programs that follow the workload: fork with BTF or classic; the
 * exit, which reads the task's signal_struct through CO-RE, where the
 * kernel has BTF (without, targets are never forgotten).
 */
static void choose_target_progs(struct targets_bpf *s, const struct features *f, enum attach_mode mode)
{
	bool btf = f->r[FEAT_BTF].ok, tp_btf = btf && mode != ATTACH_TP_CLASSIC;

	bpf_program__set_autoload(tp_btf ? s->progs.fork_tp : s->progs.fork_btf, false);
	bpf_program__set_autoload(s->progs.exit_btf, tp_btf);
	bpf_program__set_autoload(s->progs.exit_tp, btf && !tp_btf);
}

/*
 * The owner of the target maps, and the fork and exit follower; with
 * --cgroup, the owner of the cgroup's map, and nothing to follow.
 */
static int targets_open(struct collector *c, const struct features *f)
{
	struct targets_gen gen = { .pidns_dev = c->pidns_dev, .pidns_ino = c->pidns_ino,
				   .by_cgroup = c->o.cgroup_fd >= 0 };
	struct targets_bpf *s = targets_bpf__open();
	__u32 zero = 0;
	int err;

	if (!s)
		return -errno;
	choose_target_progs(s, f, c->o.mode);
	err = targets_bpf__load(s);
	if (!err && gen.by_cgroup)
		err = bpf_map__update_elem(s->maps.target_cgroup, &zero, sizeof(zero), &c->o.cgroup_fd,
					   sizeof(c->o.cgroup_fd), BPF_ANY);
	if (!err)
		err = bpf_map__update_elem(s->maps.targets_gen, &zero, sizeof(zero), &gen, sizeof(gen), BPF_ANY);
	if (!err && !gen.by_cgroup && f->r[FEAT_TP_SCHED].ok)
		err = targets_bpf__attach(s);
	if (err) {
		targets_bpf__destroy(s);
		return err;
	}
	c->targets = s;
	return 0;
}

int collector_watch_fd(struct collector *c, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (c->epoll_fd < 0 && (c->epoll_fd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -errno;
	return epoll_ctl(c->epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/*
 * The mapping tracker, whatever families are on: every family's user
 * stacks are resolved through the mappings it reports.
 */
static void open_maptrack(struct collector *c)
{
	int err = maptrack__open(&c->maptrack, c->o.maps);

	if (!err)
		err = collector_watch_fd(c, maptrack__fd(c->maptrack));
	if (err)
		snprintf(c->maptrack_why, sizeof(c->maptrack_why), "%s", strerror(-err));
}

const char *collector__maptrack_why(const struct collector *c)
{
	return c->maptrack_why;
}

int collector__event_fd(const struct collector *c)
{
	return c->epoll_fd;
}

void collector_consume_maps(struct collector *c)
{
	if (c->maptrack)
		maptrack__consume(c->maptrack);
}

int collector__consume(struct collector *c)
{
	int err = c->maptrack ? maptrack__consume(c->maptrack) : 0;

	return err ? err : sample_consume_events(c);
}

/* A family that fails is named with its reason; the others go on. */
static void open_family(struct collector *c, int i, const struct features *f)
{
	struct family_status *st = &c->status[i];
	int err;

	st->state = FSTATE_NOT_ATTACHED;
	err = families[i]->open(c, f, st, &c->priv[i]);
	if (err && !st->why[0])
		snprintf(st->why, sizeof(st->why), "%s", strerror(-err));
	if (err)	/* what it would have been does not matter now */
		st->mode[0] = st->missing[0] = '\0';
	else
		st->state = FSTATE_ATTACHED;
}

static void say_why_none(const struct collector *c, char *why, size_t len)
{
	size_t used = 0;
	int i;

	why[0] = '\0';
	for (i = 0; i < FAMILY_COUNT && used < len; i++)
		if (c->status[i].state != FSTATE_NOT_WANTED)
			used += snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "",
					 family_name(1 << i), c->status[i].why);
}

static bool any_attached(const struct collector *c)
{
	int i;

	for (i = 0; i < FAMILY_COUNT; i++)
		if (c->status[i].state == FSTATE_ATTACHED)
			return true;
	return false;
}

int collector__open(struct collector **cp, const struct collector_opts *o,
		    const struct features *f, char *why, size_t len)
{
	struct collector *c = calloc(1, sizeof(*c));
	int err, i;

	if (!c)
		return -ENOMEM;
	c->o = *o;
	c->stats_fd = -1;
	c->epoll_fd = -1;
	find_pidns(c);
	c->guard_fd = -1;
	c->sampler_fd = -1;
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0) {
		snprintf(why, len, "cannot count possible CPUs");
		err = -EINVAL;
		goto err_free;
	}
	if (o->filter_targets && (err = targets_open(c, f))) {
		snprintf(why, len, "loading the target filter failed: %s%s", strerror(-err),
			 err == -EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "");
		goto err_free;
	}
	if (o->probe_stats)
		c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	c->stats_wanted = c->stats_fd >= 0;
	if (o->maps)
		open_maptrack(c);
	for (i = 0; i < FAMILY_COUNT; i++)
		if (o->families & (1U << i))
			open_family(c, i, f);
	if (!any_attached(c)) {
		say_why_none(c, why, len);
		err = -ENODEV;
		goto err_free;
	}
	*cp = c;
	return 0;
err_free:
	collector__free(c);
	return err;
}

void collector__free(struct collector *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < FAMILY_COUNT; i++)
		if (c->priv[i])
			families[i]->free(c->priv[i]);
	free(c->tables);
	maptrack__free(c->maptrack);
	if (c->epoll_fd >= 0)
		close(c->epoll_fd);
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	if (c->guard_fd >= 0)
		close(c->guard_fd);
	if (c->sampler_fd >= 0)
		close(c->sampler_fd);
	targets_bpf__destroy(c->targets);
	free(c);
}

int collector__add_target(struct collector *c, pid_t tgid)
{
	/* A PID of our namespace: BPF puts its own in place at the process's first event. */
	__u32 key = tgid | (c->pidns_ino ? LS_NS_KEY : 0), one = 1, zero = 0;
	struct targets_gen gen;

	if (!c->targets)
		return 0;
	if (bpf_map__update_elem(c->targets->maps.targets, &key, sizeof(key), &one, sizeof(one), BPF_ANY))
		return -errno;
	/* Invalidate the per-CPU answers cached for this tgid. */
	if (bpf_map__lookup_elem(c->targets->maps.targets_gen, &zero, sizeof(zero), &gen, sizeof(gen), 0))
		return -errno;
	gen.generation++;
	if (bpf_map__update_elem(c->targets->maps.targets_gen, &zero, sizeof(zero), &gen, sizeof(gen), BPF_ANY))
		return -errno;
	return 0;
}

/* The mappings made up to now first: the families name and resolve with them. */
static int drain_families(struct collector *c, struct snapshot *s, bool final)
{
	int i, err = c->maptrack ? maptrack__consume(c->maptrack) : 0;

	memset(s, 0, sizeof(*s));
	c->ntables = 0;
	c->ndrains++;
	for (i = 0; i < FAMILY_COUNT && !err; i++)
		if (c->status[i].state == FSTATE_ATTACHED)
			err = families[i]->drain(c, c->priv[i], s, final);
	s->tables = c->tables;
	s->ntables = c->ntables;
	return err;
}

int collector__drain(struct collector *c, struct snapshot *s)
{
	return drain_families(c, s, false);
}

int collector__stop(struct collector *c, struct snapshot *s)
{
	int i;

	for (i = 0; i < FAMILY_COUNT; i++)
		if (c->priv[i])
			families[i]->detach(c->priv[i]);
	return drain_families(c, s, true);
}

int collector__trim(struct collector *c)
{
	int i, n, removed = 0;

	for (i = 0; i < FAMILY_COUNT; i++) {
		if (c->status[i].state != FSTATE_ATTACHED || !families[i]->trim)
			continue;
		/* Rows that changed at a drain since the last trim stay. */
		n = families[i]->trim(c, c->priv[i], c->trim_drain[i] + 1, &c->trim_late[i]);
		if (n < 0)
			return n;
		removed += n;
		c->trim_drain[i] = c->ndrains;
		c->trims[i]++;
	}
	return removed;
}

/*
 * A family's maps are trimmed at each drain that finds them half full:
 * the rows that changed the longest ago go, until a quarter is left
 * (never one that changed at that drain), with the stacks only they
 * referred to. When every row changed at that drain, none can go, and
 * the trim is not made. A trim costs a pass over the family's totals
 * (and, for the sampler, a batched read of its rows), as a drain does,
 * and a syscall a row or stack removed. A map must hold the new rows of
 * two buckets: past that, they are lost and counted (a shorter --bucket
 * trims more often).
 */
#define TRIM_FILL	500	/* thousandths */

static int trim_family(struct collector *c, int i)
{
	uint32_t before;
	unsigned full = families[i]->fill(c->priv[i], c->ndrains, &before), after;
	int n;

	if (full < TRIM_FILL || !before)
		return 0;
	n = families[i]->trim(c, c->priv[i], before, &c->trim_late[i]);
	if (n < 0)
		return n;
	after = families[i]->fill(c->priv[i], c->ndrains, &before);
	c->trim_drain[i] = c->ndrains;
	c->trims[i]++;
	pr_info("%s: removed %d rows idle longest from the kernel's maps, %.1f %% full before, %.1f %% after\n",
		family_name(1 << i), n, full / 10.0, after / 10.0);
	return n;
}

int collector__trim_full(struct collector *c)
{
	int i, n, removed = 0;

	for (i = 0; i < FAMILY_COUNT; i++) {
		if (c->status[i].state != FSTATE_ATTACHED || !families[i]->trim || !families[i]->fill)
			continue;
		n = trim_family(c, i);
		if (n < 0)
			return n;
		removed += n;
	}
	return removed;
}

uint64_t collector__trims(const struct collector *c)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < FAMILY_COUNT; i++)
		n += c->trims[i];
	return n;
}

int u32_set_add(struct htab *set, int32_t id)
{
	uint32_t k = id;

	if (id < 0)
		return 0;
	return htab_get(set, &k, NULL) ? 0 : -ENOMEM;
}

/* Keys first, deletions after: a deleted key would restart the walk from the first. */
int map_prune(struct bpf_map *m, const struct htab *set)
{
	size_t ksz = set->key_size, n = 0, cap = 0, i;
	uint8_t key[16], next[16], *keys = NULL;
	const void *prev = NULL;
	int removed = 0;

	if (ksz > sizeof(key) || ksz != bpf_map__key_size(m))
		return -EINVAL;
	while (!bpf_map__get_next_key(m, prev, next, ksz)) {
		memcpy(key, next, ksz);
		prev = key;
		if (htab_find(set, key))
			continue;
		if (grow_array((void **)&keys, &cap, n + 1, ksz)) {
			free(keys);
			return -ENOMEM;
		}
		memcpy(keys + n++ * ksz, key, ksz);
	}
	for (i = 0; i < n; i++)
		removed += !bpf_map__delete_elem(m, keys + i * ksz, ksz, 0);
	free(keys);
	return removed;
}

int object_prog_stats(const struct bpf_object *obj, struct prog_stats *st)
{
	struct bpf_program *prog;

	memset(st, 0, sizeof(*st));
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		st->run_cnt += info.run_cnt;
		st->run_time_ns += info.run_time_ns;
		st->recursion_misses += info.recursion_misses;
	}
	return 0;
}

static int object_cost(const struct bpf_object *obj, struct probe_cost *pc)
{
	struct prog_stats st;
	int err = object_prog_stats(obj, &st);

	if (err)
		return err;
	pc->events += st.run_cnt;
	pc->run_ns += st.run_time_ns;
	return 0;
}

/* Whether someone else holds kernel.bpf_stats on (read while we do not). */
static bool stats_held_elsewhere(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int on = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &on) != 1)
		on = 0;
	fclose(f);
	return on != 0;
}

/* A random number in [0, n): the kernel's, else the clock's low bits. */
static uint64_t random_below(uint64_t n)
{
	uint64_t r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL;
	}
	return n ? r % n : 0;
}

void collector__cycle_stats(struct collector *c, uint64_t now)
{
	if (!c->stats_wanted)
		return;
	c->stats_start = now;
	close(c->stats_fd);
	c->stats_fd = -1;
	if (stats_held_elsewhere()) {
		c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		pr_info("kernel.bpf_stats is on for another tool: probe costs measured throughout\n");
		return;
	}
	c->stats_cycled = true;
	c->stats_next = now + random_below(STATS_PERIOD_MS * 1000000ULL);
	collector__stats_tick(c, now);
}

/* Where a program set's figures go: its family's index, the fork follower last. */
static int cost_slot(const struct probe_cost *pc)
{
	return pc->family ? __builtin_ctz(pc->family) : FAMILY_COUNT;
}

/* Every program set's runs and run time so far, as the kernel counts them. */
static int raw_costs(const struct collector *c, struct probe_cost *out, size_t max)
{
	size_t n = 0;
	int i, err;

	for (i = 0; i < FAMILY_COUNT && n < max; i++) {
		const struct bpf_object *obj = c->priv[i] ? families[i]->object(c->priv[i]) : NULL;

		if (c->status[i].state != FSTATE_ATTACHED || !obj)
			continue;
		out[n] = (struct probe_cost){ .family = 1 << i, .name = family_name(1 << i) };
		err = object_cost(obj, &out[n]);
		if (err)
			return err;
		n++;
	}
	/* sched_process_fork runs it on every fork of the system. */
	if (c->targets && n < max) {
		out[n] = (struct probe_cost){ .name = "targets" };
		err = object_cost(c->targets->obj, &out[n]);
		if (err)
			return err;
		n++;
	}
	return n;
}

/* At a turn: the window's start (on) or what it counted (off). */
static void stats_turn(struct collector *c, bool on)
{
	struct probe_cost pc[PROBE_COSTS_MAX];
	int i, n = raw_costs(c, pc, PROBE_COSTS_MAX);

	for (i = 0; i < n; i++) {
		struct window_cost *base = &c->stats_base[cost_slot(&pc[i])];
		struct window_cost *sum = &c->stats_sum[cost_slot(&pc[i])];

		if (!on) {
			sum->events += pc[i].events - base->events;
			sum->run_ns += pc[i].run_ns - base->run_ns;
		}
		base->events = pc[i].events;
		base->run_ns = pc[i].run_ns;
	}
}

uint64_t collector__stats_tick(struct collector *c, uint64_t now)
{
	if (!c->stats_cycled)
		return 0;
	if (now < c->stats_next)
		return c->stats_next;
	if (c->stats_fd >= 0) {
		stats_turn(c, false);
		close(c->stats_fd);
		c->stats_fd = -1;
		c->stats_on_ns += now - c->stats_since;
		c->stats_next = c->stats_since + STATS_PERIOD_MS * 1000000ULL;
		if (c->stats_next <= now)
			c->stats_next = now + (STATS_PERIOD_MS - STATS_ON_MS) * 1000000ULL;
		return c->stats_next;
	}
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	stats_turn(c, true);
	c->stats_since = now;
	c->stats_next = now + STATS_ON_MS * 1000000ULL;
	return c->stats_next;
}

uint64_t collector__stats_ns(const struct collector *c, uint64_t now)
{
	if (!c->stats_wanted || !c->stats_start)
		return 0;
	if (!c->stats_cycled)
		return now > c->stats_start ? now - c->stats_start : 0;
	if (c->stats_fd < 0)
		return c->stats_on_ns;
	return c->stats_on_ns + (now > c->stats_since ? now - c->stats_since : 0);
}

bool collector__stats_cycled(const struct collector *c)
{
	return c->stats_cycled;
}

int collector__costs(const struct collector *c, struct probe_cost *out, size_t max)
{
	int i, n;

	if (!c->stats_wanted)
		return -EOPNOTSUPP;
	n = raw_costs(c, out, max);
	if (n <= 0 || !c->stats_cycled)
		return n;
	/* Our windows' sums, and the open window's runs so far. */
	for (i = 0; i < n; i++) {
		const struct window_cost *base = &c->stats_base[cost_slot(&out[i])];
		const struct window_cost *sum = &c->stats_sum[cost_slot(&out[i])];
		uint64_t events = sum->events, run_ns = sum->run_ns;

		if (c->stats_fd >= 0) {
			events += out[i].events - base->events;
			run_ns += out[i].run_ns - base->run_ns;
		}
		out[i].events = events;
		out[i].run_ns = run_ns;
	}
	return n;
}

uint64_t collector__entries_read(const struct collector *c)
{
	return c->entries_read;
}

uint64_t collector__targets_full(const struct collector *c)
{
	struct targets_gen gen;
	__u32 zero = 0;

	if (!c->targets || bpf_map__lookup_elem(c->targets->maps.targets_gen, &zero, sizeof(zero),
						&gen, sizeof(gen), 0))
		return 0;
	return gen.full;
}

size_t collector__lost(const struct collector *c, struct lost_counter *out, size_t max)
{
	uint64_t vals[32];
	size_t n = 0, j;
	int i;

	for (i = 0; i < FAMILY_COUNT; i++) {
		const struct family_ops *ops = families[i];

		if (ops->nlost && ops->nlost <= sizeof(vals) / sizeof(vals[0]) && n + ops->nlost <= max) {
			memset(vals, 0, sizeof(vals));
			ops->lost(c, c->priv[i], vals);
			for (j = 0; j < ops->nlost; j++)
				out[n++] = (struct lost_counter){ ops->lost_names[j], vals[j], 1 << i };
		}
		if (ops->trim_lost && n < max)
			out[n++] = (struct lost_counter){ ops->trim_lost, c->trim_late[i], 1 << i };
	}
	if (c->maptrack && n < max)
		out[n++] = (struct lost_counter){ "maps_lost", maptrack__lost(c->maptrack) };
	return n;
}
