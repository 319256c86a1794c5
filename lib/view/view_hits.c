// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "view/match.h"
#include "view/view_hits.h"

/* Every view's one rule for name patterns (view/match.h). */
static bool glob_ok(const char *pattern, const char *s)
{
	return name_matches(pattern, s);
}

static const struct stack *stack_of(const struct profile *p, int32_t id)
{
	return id < 0 ? NULL : profile__stack(p, id);
}

/* The leaf is in the kernel when the kernel stack has a frame. */
static bool leaf_in_kernel(const struct profile *p, const struct sample_row_key *k)
{
	const struct stack *ks = stack_of(p, k->kstack);

	return ks && ks->nframes > 0;
}

static const char *kmodule(const struct profile *p, const struct ksym *s)
{
	const char *module = s ? ksyms_module(&p->ksyms, s) : "";

	return module[0] ? module : "[kernel]";
}

static int kernel_names(const struct profile *p, const struct stack *st, struct frame_name *out, int max)
{
	int n = 0;
	uint32_t i;

	for (i = 0; st && i < st->nframes && n < max; i++) {
		const struct ksym *s = ksyms_find(&p->ksyms, st->frames[i]);

		out[n++] = (struct frame_name){ s ? s->name : "[unknown]", kmodule(p, s), true };
	}
	return n;
}

static const char *user_module(const struct profile *p, uint32_t tgid, uint64_t addr,
			       const struct usym_val *u)
{
	const struct mapping *m;

	if (u && u->module)
		return profile__str(p, u->module);
	m = profile__mapping(p, tgid, addr);
	return m ? profile__str(p, m->path) : "[unknown]";
}

static int user_names(const struct profile *p, uint32_t tgid, const struct stack *st,
		      struct frame_name *out, int max)
{
	int n = 0;
	uint32_t i, j;

	for (i = 0; st && i < st->nframes && n < max; i++) {
		const struct usym_val *u = profile__usym(p, tgid, st->frames[i]);
		const char *module = user_module(p, tgid, st->frames[i], u);

		if (!u || !u->nframes) {
			out[n++] = (struct frame_name){ "[unknown]", module, false };
			continue;
		}
		for (j = 0; j < u->nframes && n < max; j++) {
			const struct ufile_frame *f = &p->uframes[u->first + j];

			out[n++] = (struct frame_name){ profile__str(p, f->function), module, false };
		}
	}
	return n;
}

int sample_stack_names(const struct profile *p, const struct sample_row_key *k,
		       struct frame_name *out, int max)
{
	int n = kernel_names(p, stack_of(p, k->kstack), out, max);

	return n + user_names(p, k->tgid, stack_of(p, k->ustack), out + n, max - n);
}

bool sample_passes(const struct profile *p, const struct sample_row_key *k,
		   const struct hits_filter *f)
{
	bool kernel = leaf_in_kernel(p, k);

	if (f->kernel_only && !kernel)
		return false;
	if (f->user_only && kernel)
		return false;
	if (f->pid >= 0 && (uint32_t)f->pid != k->tgid && (uint32_t)f->pid != k->tid)
		return false;
	return glob_ok(f->comm, profile__str(p, k->comm));
}

/* The hit a sample counts for: its leaf function (or leaf line). */
static void leaf_hit(const struct profile *p, const struct sample_row_key *k, bool lines,
		     struct hit *h, uint32_t *why)
{
	const struct stack *st;

	memset(h, 0, sizeof(*h));
	*why = USYM_OK;
	h->function = "[unknown]";
	if (leaf_in_kernel(p, k)) {
		const struct ksym *s = ksyms_find(&p->ksyms, stack_of(p, k->kstack)->frames[0]);

		h->kernel = true;
		h->module = kmodule(p, s);
		if (s) {
			h->function = s->name;
			h->addr = s->addr;
		}
		return;
	}
	st = stack_of(p, k->ustack);
	if (!st || !st->nframes) {
		h->module = "[unknown]";
		*why = USYM_NO_STACK;
		return;
	}
	{
		const struct usym_val *u = profile__usym(p, k->tgid, st->frames[0]);

		h->module = user_module(p, k->tgid, st->frames[0], u);
		/* Counted as unknown even when named "module+0xOFFSET" (lib/record/uresolve.h). */
		*why = u ? u->why : USYM_NO_MAPPING;
		if (!u || !u->nframes)
			return;
		/* The real function (outermost of the inline chain), as kernprof and perf list it. */
		h->function = profile__str(p, p->uframes[u->first + u->nframes - 1].function);
		h->addr = u->func_addr;
		if (lines) {
			h->file = profile__str(p, p->uframes[u->first].file);
			h->line = p->uframes[u->first].line;
		}
	}
}

static bool same_hit(const struct hit *a, const struct hit *b)
{
	return a->kernel == b->kernel && !strcmp(a->function, b->function) &&
	       !strcmp(a->module, b->module) && a->line == b->line &&
	       !strcmp(a->file ? a->file : "", b->file ? b->file : "");
}

static int add_hit(struct hits_view *v, struct htab *index, const struct hit *h, uint64_t count)
{
	char key[96];
	uint64_t hkey;
	size_t *slot;
	struct hit *grown;

	snprintf(key, sizeof(key), "%p %p %p %u %d", (void *)h->function, (void *)h->module,
		 (void *)h->file, h->line, h->kernel);
	hkey = hash_bytes(key, strlen(key)) ^ hash_bytes(h->function, strlen(h->function));
	slot = htab_get(index, &hkey, NULL);
	if (!slot)
		return -ENOMEM;
	if (*slot && same_hit(&v->hits[*slot - 1], h)) {
		v->hits[*slot - 1].samples += count;
		return 0;
	}
	grown = realloc(v->hits, (v->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	v->hits = grown;
	v->hits[v->n] = *h;
	v->hits[v->n].samples = count;
	if (!*slot)
		*slot = ++v->n;
	else
		v->n++;	/* a hash collision: the newcomer gets its own row, unindexed */
	return 0;
}

int hits_view__build(struct hits_view *v, const struct profile *p, const struct hits_filter *f,
		     bool lines)
{
	const struct sample_row_key *k;
	const uint64_t *count;
	struct htab index;
	size_t it = 0;
	int err = 0;

	memset(v, 0, sizeof(*v));
	htab_init(&index, sizeof(uint64_t), sizeof(size_t));
	while (!err && (count = htab_next(&p->samples, &it, (const void **)&k))) {
		const struct stack *us = stack_of(p, k->ustack);
		struct hit h;
		uint32_t why;

		if (!sample_passes(p, k, f))
			continue;
		leaf_hit(p, k, lines, &h, &why);
		if (!glob_ok(f->module, h.module))
			continue;
		v->total += *count;
		v->kernel += h.kernel ? *count : 0;
		if (!h.kernel && why < USYM__COUNT)
			v->unknown[why] += why ? *count : 0;
		if (us && us->nframes >= LS_SAMPLE_USTACK_DEPTH)
			v->truncated += *count;
		err = add_hit(v, &index, &h, *count);
	}
	htab_free(&index);
	if (err)
		hits_view__free(v);
	return err;
}

static int cmp_samples(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->function, y->function);
}

static int cmp_name(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	int c = strcmp(x->function, y->function);

	return c ? c : cmp_samples(a, b);
}

void hits_view__sort(struct hits_view *v, enum hits_sort key)
{
	if (v->n)
		qsort(v->hits, v->n, sizeof(*v->hits), key == HITS_SORT_NAME ? cmp_name : cmp_samples);
}

void hits_view__free(struct hits_view *v)
{
	free(v->hits);
	memset(v, 0, sizeof(*v));
}

static int add_edge(struct graph_view *g, const struct frame_name *f, uint64_t count)
{
	struct edge *grown;
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (g->edges[i].kernel == f->kernel && !strcmp(g->edges[i].function, f->function) &&
		    !strcmp(g->edges[i].module, f->module)) {
			g->edges[i].samples += count;
			return 0;
		}
	}
	grown = realloc(g->edges, (g->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	g->edges = grown;
	g->edges[g->n++] = (struct edge){ f->function, f->module, f->kernel, count };
	return 0;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->function, y->function);
}

/*
 * For every stack holding FUNC (its leaf-most occurrence, so recursion
 * counts once), the frame just outside it (callers) or just inside it
 * (callees): "[root]" and "[self]" at the ends.
 */
int graph_view__build(struct graph_view *g, const struct profile *p, const struct hits_filter *f,
		      const char *function, bool callers)
{
	static const struct frame_name root = { "[root]", "", false }, self = { "[self]", "", false };
	struct frame_name *names = calloc(HITS_MAX_FRAMES, sizeof(*names));
	const struct sample_row_key *k;
	const uint64_t *count;
	size_t it = 0;
	int err = 0, n, i;

	memset(g, 0, sizeof(*g));
	if (!names)
		return -ENOMEM;
	while (!err && (count = htab_next(&p->samples, &it, (const void **)&k))) {
		if (!sample_passes(p, k, f))
			continue;
		n = sample_stack_names(p, k, names, HITS_MAX_FRAMES);
		for (i = 0; i < n && strcmp(names[i].function, function); i++)
			;
		if (i == n)
			continue;
		g->total += *count;
		if (callers)
			err = add_edge(g, i + 1 < n ? &names[i + 1] : &root, *count);
		else
			err = add_edge(g, i > 0 ? &names[i - 1] : &self, *count);
	}
	free(names);
	if (!err && g->n)
		qsort(g->edges, g->n, sizeof(*g->edges), cmp_edge);
	if (err)
		graph_view__free(g);
	return err;
}

void graph_view__free(struct graph_view *g)
{
	free(g->edges);
	memset(g, 0, sizeof(*g));
}
