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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collector_int.h"
#include "log.h"
#include "targets.h"
#include "targets.skel.h"
#include "contention.skel.h"
#include "sample.skel.h"
#include "buf.h"

static const struct {
	const char *name;
	enum family bit;
} family_names[] = {
	{ "locks", FAMILY_LOCKS },
	{ "sample", FAMILY_SAMPLE },
	{ "mmap_lock", FAMILY_MMAP_LOCK },
	{ "fd", FAMILY_FD },
	{ "pagecache", FAMILY_PAGECACHE },
	{ "hold", FAMILY_HOLD },
	{ "ulocks", FAMILY_ULOCKS },
	{ "uprobes", FAMILY_UPROBES },
};

#define NFAMILY_NAMES	(sizeof(family_names) / sizeof(family_names[0]))

/* The families that hand counter tables over, in the order they drain. */
static const struct table_family *const table_families[] = {
	&mmap_lock_family,
	&fd_family,
	&pagecache_family,
	&hold_family,
	&ulocks_family,
	&uprobes_family,	/* after ulocks, which attaches them */
};

#define NTABLE_FAMILIES	(sizeof(table_families) / sizeof(table_families[0]))

const char *family_name(enum family f)
{
	size_t i;

	for (i = 0; i < NFAMILY_NAMES; i++)
		if (family_names[i].bit == f)
			return family_names[i].name;
	return "?";
}

const char *family_names_list(void)
{
	static char list[128];
	size_t i, used = 0;

	for (i = 0; i < NFAMILY_NAMES && used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
				 family_names[i].name);
	return list;
}

int family_parse(const char *list, unsigned int *mask, const char **bad)
{
	static char word[64];
	const char *p = list;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		for (i = 0; i < NFAMILY_NAMES; i++)
			if (!strcmp(word, family_names[i].name))
				break;
		if (i == NFAMILY_NAMES) {
			*bad = word;
			return -EINVAL;
		}
		*mask |= family_names[i].bit;
		p += n + (p[n] == ',');
	}
	*bad = "";
	return *mask ? 0 : -EINVAL;
}

struct family_status *status_of(struct collector *c, enum family f)
{
	return &c->status[__builtin_ctz(f)];
}

const struct family_status *collector__status(const struct collector *c, enum family f)
{
	return &c->status[__builtin_ctz(f)];
}

struct bpf_map *collector_targets_map(const struct collector *c)
{
	return c->targets ? c->targets->maps.targets : NULL;
}

struct bpf_map *collector_targets_gen_map(const struct collector *c)
{
	return c->targets ? c->targets->maps.targets_gen : NULL;
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

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void *grow_rows(void *rows, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap : 256;
	void *p;

	if (n <= *cap)
		return rows;
	while (want < n)
		want *= 2;
	p = realloc(rows, want * size);
	if (!p) {
		free(rows);
		*cap = 0;
		return NULL;
	}
	*cap = want;
	return p;
}

int fetch_stack_map(struct bpf_map *m, int32_t id, uint64_t *frames, int max, int depth)
{
	__u64 buf[LS_SAMPLE_USTACK_DEPTH > LS_STACK_DEPTH ? LS_SAMPLE_USTACK_DEPTH : LS_STACK_DEPTH] = { 0 };
	__u32 key = id;
	int i;

	if (id < 0 || depth > (int)(sizeof(buf) / sizeof(buf[0])) ||
	    bpf_map__lookup_elem(m, &key, sizeof(key), buf, depth * sizeof(__u64), 0))
		return -ENOENT;
	for (i = 0; i < depth && i < max && buf[i]; i++)
		frames[i] = buf[i];
	return i;
}

int reuse_target_maps(struct collector *c, struct bpf_map *targets, struct bpf_map *gen)
{
	int err;

	if (!c->targets)
		return 0;
	err = bpf_map__reuse_fd(targets, bpf_map__fd(c->targets->maps.targets));
	if (!err)
		err = bpf_map__reuse_fd(gen, bpf_map__fd(c->targets->maps.targets_gen));
	return err;
}

/*
 * One guard for every object whose programs probe locks, whether or not
 * a target filter is loaded: created by the first family that asks.
 */
int reuse_guard(struct collector *c, struct bpf_map *guard)
{
	if (c->guard_fd < 0) {
		c->guard_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "guard", sizeof(__u32),
					     sizeof(__u32), 1, NULL);
		if (c->guard_fd < 0)
			return -errno;
	}
	return bpf_map__reuse_fd(guard, c->guard_fd);
}

/* The owner of the target maps, and the fork follower. */
static int targets_open(struct collector *c, const struct features *f)
{
	struct targets_bpf *s = targets_bpf__open();
	bool btf = f->r[FEAT_BTF].ok && c->o.mode != ATTACH_TP_CLASSIC;
	int err;

	if (!s)
		return -errno;
	bpf_program__set_autoload(btf ? s->progs.fork_tp : s->progs.fork_btf, false);
	err = targets_bpf__load(s);
	if (!err && f->r[FEAT_TP_SCHED].ok)
		err = targets_bpf__attach(s);
	if (err) {
		targets_bpf__destroy(s);
		return err;
	}
	c->targets = s;
	return 0;
}

static void open_table_families(struct collector *c, const struct features *f)
{
	size_t i;

	for (i = 0; i < NTABLE_FAMILIES; i++) {
		const struct table_family *tf = table_families[i];
		struct family_status *st = status_of(c, tf->bit);
		int err;

		if (!(c->o.families & tf->bit))
			continue;
		st->wanted = true;
		err = tf->open(c, f, &c->tpriv[__builtin_ctz(tf->bit)]);
		if (err && !st->why[0])
			snprintf(st->why, sizeof(st->why), "%s", strerror(-err));
		st->attached = !err;
	}
}

static void open_families(struct collector *c, const struct features *f)
{
	int err;

	if (c->o.families & FAMILY_LOCKS) {
		status_of(c, FAMILY_LOCKS)->wanted = true;
		err = locks_open(c, f);
		if (err && !status_of(c, FAMILY_LOCKS)->why[0])
			snprintf(status_of(c, FAMILY_LOCKS)->why, 256, "%s", strerror(-err));
	}
	if (c->o.families & FAMILY_SAMPLE) {
		status_of(c, FAMILY_SAMPLE)->wanted = true;
		err = sample_open(c, f);
		if (err && !status_of(c, FAMILY_SAMPLE)->why[0])
			snprintf(status_of(c, FAMILY_SAMPLE)->why, 256, "%s", strerror(-err));
		if (err)
			sample_detach(c);
	}
	open_table_families(c, f);
}

static void say_why_none(const struct collector *c, char *why, size_t len)
{
	size_t used = 0;
	int i;

	why[0] = '\0';
	for (i = 0; i < FAMILY_COUNT && used < len; i++)
		if (c->status[i].wanted)
			used += snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "",
					 family_name(1 << i), c->status[i].why);
}

static bool any_attached(const struct collector *c)
{
	int i;

	for (i = 0; i < FAMILY_COUNT; i++)
		if (c->status[i].attached)
			return true;
	return false;
}

int collector__open(struct collector **cp, const struct collector_opts *o,
		    const struct features *f, char *why, size_t len)
{
	struct collector *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->o = *o;
	c->stats_fd = -1;
	c->guard_fd = -1;
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
	open_families(c, f);
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
	size_t i;

	if (!c)
		return;
	for (i = 0; i < NTABLE_FAMILIES; i++) {
		void *priv = c->tpriv[__builtin_ctz(table_families[i]->bit)];

		if (priv)
			table_families[i]->free(priv);
	}
	free(c->tables);
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	if (c->guard_fd >= 0)
		close(c->guard_fd);
	locks_free(c);
	sample_free(c);
	targets_bpf__destroy(c->targets);
	free(c);
}

int collector__add_target(struct collector *c, pid_t tgid)
{
	__u32 key = tgid, one = 1, zero = 0;
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

static int drain_tables(struct collector *c, struct snapshot *s, bool final)
{
	size_t i;
	int err = 0;

	c->ntables = 0;
	for (i = 0; i < NTABLE_FAMILIES && !err; i++) {
		void *priv = c->tpriv[__builtin_ctz(table_families[i]->bit)];

		if (priv && status_of(c, table_families[i]->bit)->attached)
			err = table_families[i]->drain(c, priv, final);
	}
	s->tables = c->tables;
	s->ntables = c->ntables;
	return err;
}

int collector__drain(struct collector *c, struct snapshot *s)
{
	int err = locks_drain(c, s);

	if (!err)
		err = sample_drain(c, s);
	return err ? err : drain_tables(c, s, false);
}

int collector__stop(struct collector *c, struct snapshot *s)
{
	size_t i;
	int err;

	sample_detach(c);
	for (i = 0; i < NTABLE_FAMILIES; i++) {
		void *priv = c->tpriv[__builtin_ctz(table_families[i]->bit)];

		if (priv)
			table_families[i]->detach(priv);
	}
	err = locks_stop(c, s);
	if (!err)
		err = sample_drain(c, s);
	return err ? err : drain_tables(c, s, true);
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

static const struct bpf_object *family_object(const struct collector *c, enum family f)
{
	size_t i;

	if (f == FAMILY_LOCKS)
		return c->cont ? c->cont->obj : NULL;
	if (f == FAMILY_SAMPLE)
		return c->sample ? c->sample->obj : NULL;
	for (i = 0; i < NTABLE_FAMILIES; i++) {
		void *priv = c->tpriv[__builtin_ctz(f)];

		if (table_families[i]->bit == f && priv)
			return table_families[i]->object(priv);
	}
	return NULL;
}

int collector__costs(const struct collector *c, struct probe_cost *out, size_t max)
{
	size_t n = 0;
	int i, err;

	if (c->stats_fd < 0)
		return -EOPNOTSUPP;
	for (i = 0; i < FAMILY_COUNT && n < max; i++) {
		const struct bpf_object *obj = family_object(c, 1 << i);

		if (!c->status[i].attached || !obj)
			continue;
		out[n] = (struct probe_cost){ .family = 1 << i };
		err = object_cost(obj, &out[n]);
		if (err)
			return err;
		n++;
	}
	return n;
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
