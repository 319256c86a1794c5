// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat diff -f svg: a differential flame graph of both sides'
 * stacks (lib/out/flame.c), per second, red where the patched side
 * grew, blue where it shrank.
 */
#include <stdio.h>
#include "out/export.h"
#include "out/flame.h"
#include "format/profile.h"
#include "diff.h"

/* Frames merge across runs and kernels under the names rows match by. */
static const char *svg_rename(const char *name, enum flame_kind kind, char *buf, size_t len)
{
	if (kind == FLAME_TASK)
		return name;
	return kind == FLAME_LOCK ? diff_norm_lock(name, buf, len) : diff_norm_func(name, buf, len);
}

/* The stacks of a lock family that is not comparable go, as their rows do in the other formats. */
static void keep_comparable(struct export_stacks *s, const bool *left_out)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++) {
		enum diff_family f = !s->locks ? DIFF_FAMILY_SAMPLE :
				     s->stacks[i].user ? DIFF_FAMILY_ULOCKS : DIFF_FAMILY_LOCKS;

		if (!left_out[f])
			s->stacks[n++] = s->stacks[i];
	}
	s->n = n;
}

static int add_side(struct flame *f, const struct diff_cmd *c, const struct export_opts *eo,
		    const bool *left_out, size_t from, size_t n, int side)
{
	double secs = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++)
		secs += profile__duration_ns(c->runs[from + i].p) / 1e9;
	for (i = 0; !err && i < n; i++) {
		struct export_stacks s;

		err = export_stacks__build(&s, c->runs[from + i].p, eo);
		if (err)
			break;
		keep_comparable(&s, left_out);
		export_stacks__merge(&s, eo->value);
		err = flame__add_export(f, &s, eo->value, side, secs > 0 ? 1 / secs : 0, svg_rename);
		export_stacks__free(&s);
	}
	return err;
}

/* The subtitle's note on what was left out, "" when nothing was. */
static void svg_left_out(const struct diff_cmd *c, const struct diff_family_runs *fam, bool *left_out,
			 char *buf, size_t len)
{
	size_t used = 0;
	int f;

	buf[0] = '\0';
	for (f = 0; f < DIFF_FAMILY__COUNT; f++) {
		left_out[f] = diff_family_in_view(f, c->o.view) &&
			      !diff_family_comparable(&fam[f], c->nfiles[0], c->nfiles[1]);
		if (left_out[f] && used < len)
			used += snprintf(buf + used, len - used, "; %s not comparable (-e %s in %zu of %zu base, %zu of %zu patched runs): left out",
					 diff_family_what(f), diff_family_name(f), fam[f].nb, c->nfiles[0],
					 fam[f].np, c->nfiles[1]);
	}
}

int print_diff_svg(const struct diff_cmd *c, const struct diff_family_runs *fam)
{
	struct export_opts eo = { .what = c->o.view == DIFF_VIEW_LOCKS ? EXPORT_LOCKS : EXPORT_SAMPLES,
				  .filter = { .pid = -1 } };
	struct flame_opts fo = { .per_second = true, .unit = FLAME_UNIT_SAMPLES };
	char title[128], sub[512], note[256];
	bool left_out[DIFF_FAMILY__COUNT];
	struct flame f;
	int err;

	eo.value = c->o.value == DIFF_VALUE_WAIT && eo.what == EXPORT_LOCKS ? EXPORT_VALUE_WAIT : EXPORT_VALUE_COUNT;
	if (eo.what == EXPORT_LOCKS)
		fo.unit = eo.value == EXPORT_VALUE_WAIT ? FLAME_UNIT_NS : FLAME_UNIT_WAITS;
	snprintf(title, sizeof(title), "Differential flame graph: %s", eo.what == EXPORT_SAMPLES ? "CPU samples" :
		 eo.value == EXPORT_VALUE_WAIT ? "lock wait time" : "contended lock waits");
	svg_left_out(c, fam, left_out, note, sizeof(note));
	snprintf(sub, sizeof(sub), "base %s%s, patched %s%s: width base + patched per second, red grew, blue shrank%s",
		 c->files[0][0], c->nfiles[0] > 1 ? " and the others" : "", c->files[1][0],
		 c->nfiles[1] > 1 ? " and the others" : "", note);
	fo.title = title;
	fo.subtitle = sub;
	err = flame__init(&f, true);
	if (!err)
		err = add_side(&f, c, &eo, left_out, 0, c->nfiles[0], 0);
	if (!err)
		err = add_side(&f, c, &eo, left_out, c->nfiles[0], c->nfiles[1], 1);
	if (!err)
		err = flame__write_svg(&f, stdout, &fo);
	flame__free(&f);
	return err;
}

