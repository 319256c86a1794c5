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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collector_int.h"
#include "log.h"
#include "targets.h"
#include "targets.skel.h"

static const struct {
	const char *name;
	enum family bit;
} family_names[] = {
	{ "locks", FAMILY_LOCKS },
	{ "sample", FAMILY_SAMPLE },
};

int family_parse(const char *list, unsigned int *mask, const char **bad)
{
	static char word[64];
	const char *p = list;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		for (i = 0; i < sizeof(family_names) / sizeof(family_names[0]); i++)
			if (!strcmp(word, family_names[i].name))
				break;
		if (i == sizeof(family_names) / sizeof(family_names[0])) {
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
	return &c->status[f == FAMILY_SAMPLE];
}

const struct family_status *collector__status(const struct collector *c, enum family f)
{
	return &c->status[f == FAMILY_SAMPLE];
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
}

static void say_why_none(const struct collector *c, char *why, size_t len)
{
	const struct family_status *l = &c->status[0], *s = &c->status[1];

	snprintf(why, len, "%s%s%s%s%s", l->wanted ? "locks: " : "", l->wanted ? l->why : "",
		 l->wanted && s->wanted ? "; " : "", s->wanted ? "sample: " : "",
		 s->wanted ? s->why : "");
}

int collector__open(struct collector **cp, const struct collector_opts *o,
		    const struct features *f, char *why, size_t len)
{
	struct collector *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->o = *o;
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
	open_families(c, f);
	if (!c->status[0].attached && !c->status[1].attached) {
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
	if (!c)
		return;
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

int collector__drain(struct collector *c, struct snapshot *s)
{
	int err = locks_drain(c, s);

	return err ? err : sample_drain(c, s);
}

int collector__stop(struct collector *c, struct snapshot *s)
{
	int err;

	sample_detach(c);
	err = locks_stop(c, s);
	return err ? err : sample_drain(c, s);
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
