// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The stacks that lockstat export writes, and the folded format. A sample
 * row becomes its stack of function names (inline frames expanded, as the
 * hits view names them) under its command name; a row of report's locks
 * view becomes its kernel stack, or a user lock's user stack, under the
 * name report gives the lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "out/export.h"
#include "format/locktype.h"

int export_format_parse(const char *s, enum export_format *fmt)
{
	static const char *const names[] = {
		[EXPORT_FOLDED] = "folded", [EXPORT_PPROF] = "pprof",
		[EXPORT_JSON] = "json", [EXPORT_CSV] = "csv", [EXPORT_SVG] = "svg",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*fmt = i;
			return 0;
		}
	}
	return -EINVAL;
}

int export_lock_view(struct lock_view *v, const struct profile *p, const struct hits_filter *f)
{
	struct lock_filter lf = { .comm = f->comm, .pid = f->pid, .waits_only = true };

	return lock_view__build_rows(v, p, &lf);
}

bool export_row_is_user(const struct lock_row_key *k)
{
	return lock_type_is_user(k->flags);
}

uint64_t export_stack_value(const struct export_stack *st, enum export_value value)
{
	return value == EXPORT_VALUE_WAIT ? st->wait_ns : st->count;
}


/* Append st with its frames, given leaf first, stored root first. */
static int push_stack(struct export_stacks *s, size_t *cap, size_t *fcap,
		      const struct export_stack *st, const struct frame_name *leaf_first, int n)
{
	struct export_stack *dst;
	int i;

	if (grow_array((void **)&s->stacks, cap, s->n + 1, sizeof(*s->stacks)) ||
	    grow_array((void **)&s->frames, fcap, s->nframes + n, sizeof(*s->frames)))
		return -ENOMEM;
	dst = &s->stacks[s->n++];
	*dst = *st;
	dst->first = s->nframes;
	dst->nframes = n;
	for (i = n - 1; i >= 0; i--)
		s->frames[s->nframes++] = leaf_first[i];
	s->total_count += st->count;
	s->total_wait_ns += st->wait_ns;
	return 0;
}

static int build_samples(struct export_stacks *s, const struct profile *p,
			 const struct hits_filter *f)
{
	struct frame_name *names = calloc(HITS_MAX_FRAMES, sizeof(*names));
	const struct sample_row_key *k;
	const uint64_t *count;
	size_t it = 0, cap = 0, fcap = 0;
	int err = names ? 0 : -ENOMEM, n;

	while (!err && (count = htab_next(&p->samples, &it, (const void **)&k))) {
		struct export_stack st = { .comm = profile__str(p, k->comm), .pid = k->tgid,
					   .count = *count };

		if (!sample_passes(p, k, f))
			continue;
		n = sample_stack_names(p, k, names, HITS_MAX_FRAMES);
		err = push_stack(s, &cap, &fcap, &st, names, n);
	}
	free(names);
	return err;
}

/*
 * A lock row's stack, leaf first: a kernel stack, or for a user lock its
 * user stack named as the hits view names it; without one, its caller
 * ("[stack lost]", "[no stack]").
 */
static int lock_frames(const struct lock_view *v, const struct lock_row_key *k,
		       struct frame_name *out, int max)
{
	const struct profile *p = v->p;
	const struct sample_row_key user = { .tgid = k->tgid, .kstack = -1, .ustack = k->stack_id };
	const struct stack *st = k->stack_id < 0 ? NULL : profile__stack(p, k->stack_id);
	uint32_t i;
	int n = 0;

	if (!st || !st->nframes) {
		out[0] = (struct frame_name){ lock_view__str(v, k->caller), "", false };
		return 1;
	}
	if (export_row_is_user(k))
		return sample_stack_names(p, &user, out, max);
	for (i = 0; i < st->nframes && n < max; i++) {
		const struct ksym *sym = ksyms_find(&p->ksyms, st->frames[i]);
		const char *module = sym ? ksyms_module(&p->ksyms, sym) : "";

		out[n++] = (struct frame_name){ sym ? sym->name : "[unknown]",
			module[0] ? module : "[kernel]", true };
	}
	return n;
}

static int build_locks(struct export_stacks *s, const struct profile *p,
		       const struct hits_filter *f)
{
	struct frame_name *names = calloc(HITS_MAX_FRAMES, sizeof(*names));
	size_t i, cap = 0, fcap = 0;
	int err = names ? export_lock_view(&s->view, p, f) : -ENOMEM, n;

	for (i = 0; !err && i < s->view.nrows; i++) {
		const struct lock_row_key *k = &s->view.rows[i].k;
		const struct lock_row_val *v = &s->view.rows[i].v;
		struct export_stack st = {
			.comm = profile__str(p, k->comm), .pid = k->tgid,
			.lock = lock_view__str(&s->view, k->name), .type = lock_type_name(k->flags),
			.user = export_row_is_user(k), .count = v->count, .wait_ns = v->total_ns,
		};

		n = lock_frames(&s->view, k, names, HITS_MAX_FRAMES);
		err = push_stack(s, &cap, &fcap, &st, names, n);
	}
	free(names);
	return err;
}

int export_stacks__build(struct export_stacks *s, const struct profile *p,
			 const struct export_opts *o)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->locks = o->what == EXPORT_LOCKS;
	err = s->locks ? build_locks(s, p, &o->filter) : build_samples(s, p, &o->filter);
	if (err)
		export_stacks__free(s);
	return err;
}

void export_stacks__free(struct export_stacks *s)
{
	free(s->stacks);
	free(s->frames);
	lock_view__free(&s->view);
	memset(s, 0, sizeof(*s));
}

/* --- merging and order ------------------------------------------------------ */

struct cmp_ctx {
	const struct export_stacks *s;
	enum export_value value;
};

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_frame(const struct frame_name *a, const struct frame_name *b)
{
	int c = strcmp(a->function, b->function);

	if (!c)
		c = strcmp(a->module, b->module);
	return c ? c : (int)a->kernel - (int)b->kernel;
}

static int cmp_frames(const struct export_stacks *s, const struct export_stack *a,
		      const struct export_stack *b)
{
	uint32_t i, n = a->nframes < b->nframes ? a->nframes : b->nframes;
	int c;

	for (i = 0; i < n; i++) {
		c = cmp_frame(&s->frames[a->first + i], &s->frames[b->first + i]);
		if (c)
			return c;
	}
	return a->nframes == b->nframes ? 0 : (a->nframes < b->nframes ? -1 : 1);
}

static int cmp_key(const void *x, const void *y, void *arg)
{
	const struct cmp_ctx *ctx = arg;
	const struct export_stack *a = x, *b = y;
	int c;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	c = cmp_str(a->comm, b->comm);
	if (!c)
		c = cmp_str(a->lock, b->lock);
	if (!c)
		c = cmp_str(a->type, b->type);
	return c ? c : cmp_frames(ctx->s, a, b);
}

static int cmp_value(const void *x, const void *y, void *arg)
{
	const struct cmp_ctx *ctx = arg;
	uint64_t a = export_stack_value(x, ctx->value), b = export_stack_value(y, ctx->value);

	if (a != b)
		return a > b ? -1 : 1;
	return cmp_key(x, y, arg);
}

void export_stacks__merge(struct export_stacks *s, enum export_value value)
{
	struct cmp_ctx ctx = { s, value };
	size_t i, out = 0;

	if (!s->n)
		return;
	qsort_r(s->stacks, s->n, sizeof(*s->stacks), cmp_key, &ctx);
	for (i = 1; i < s->n; i++) {
		struct export_stack *dst = &s->stacks[out];

		if (!cmp_key(dst, &s->stacks[i], &ctx)) {
			dst->count += s->stacks[i].count;
			dst->wait_ns += s->stacks[i].wait_ns;
		} else {
			s->stacks[++out] = s->stacks[i];
		}
	}
	s->n = out + 1;
	qsort_r(s->stacks, s->n, sizeof(*s->stacks), cmp_value, &ctx);
}

/* --- folded ------------------------------------------------------------------- */

struct folded_line {
	char *text;
	uint64_t value;
};

/* ';' separates frames and a newline ends the line: neither may be in a name. */
static void put_frame_name(struct buf *b, const char *s, bool kernel_suffix)
{
	if (!*s)
		s = "[unknown]";
	for (; *s; s++) {
		char c = *s == ';' || *s == '\n' || *s == '\r' ? '_' : *s;

		buf_put(b, &c, 1);
	}
	if (kernel_suffix)
		buf_put(b, "_[k]", 4);
}

/* "root;...;leaf": the command (samples) or the lock, then the frames. */
static char *folded_text(const struct export_stacks *s, const struct export_stack *st,
			 bool annotate)
{
	struct buf b;
	uint32_t i;

	buf_init(&b);
	put_frame_name(&b, s->locks ? st->lock : st->comm, false);
	for (i = 0; i < st->nframes; i++) {
		const struct frame_name *f = &s->frames[st->first + i];

		buf_put(&b, ";", 1);
		put_frame_name(&b, f->function, annotate && f->kernel);
	}
	buf_put(&b, "", 1);
	if (b.oom) {
		buf_free(&b);
		return NULL;
	}
	return (char *)b.data;	/* the buffer's bytes become the line */
}

static int cmp_line(const void *x, const void *y)
{
	return strcmp(((const struct folded_line *)x)->text, ((const struct folded_line *)y)->text);
}

static void free_lines(struct folded_line *lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

/* One line per distinct text, in byte order, as stackcollapse-perf.pl sorts them. */
static void print_lines(FILE *f, struct folded_line *lines, size_t n)
{
	size_t i = 0, j;
	uint64_t sum;

	qsort(lines, n, sizeof(*lines), cmp_line);
	while (i < n) {
		for (sum = 0, j = i; j < n && !strcmp(lines[i].text, lines[j].text); j++)
			sum += lines[j].value;
		fprintf(f, "%s %llu\n", lines[i].text, (unsigned long long)sum);
		i = j;
	}
}

int export__folded(FILE *f, const struct export_stacks *s, const struct export_opts *o)
{
	struct folded_line *lines = calloc(s->n ? s->n : 1, sizeof(*lines));
	size_t i;

	if (!lines)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		lines[i].value = export_stack_value(&s->stacks[i], o->value);
		lines[i].text = folded_text(s, &s->stacks[i], o->annotate_kernel);
		if (!lines[i].text) {
			free_lines(lines, i);
			return -ENOMEM;
		}
	}
	print_lines(f, lines, s->n);
	free_lines(lines, s->n);
	return ferror(f) ? -EIO : 0;
}
