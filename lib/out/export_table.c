// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat export as JSON and CSV: one record per distinct stack, largest
 * value first, through report's table renderer (lib/out/output.h), so
 * that quoting and escaping are the ones report users already parse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/buf.h"
#include "out/export.h"
#include "base/json.h"
#include "out/output.h"

/* The name of the exported value: a JSON value_type, a CSV column. */
static const char *value_key(const struct export_opts *o)
{
	if (o->what == EXPORT_SAMPLES)
		return "samples";
	return o->value == EXPORT_VALUE_WAIT ? "wait_total_ns" : "contended";
}

static uint64_t total_value(const struct export_stacks *s, const struct export_opts *o)
{
	return o->value == EXPORT_VALUE_WAIT ? s->total_wait_ns : s->total_count;
}

enum { X_VALUE, X_COMM, X_PID, X_LOCK, X_TYPE, X_FRAMES, X_CONTENDED, X_WAIT, X__COUNT };

/*
 * One stack per row. CSV's first column is the exported value, named
 * after it ("samples", "wait_total_ns", "contended"): a lock's other
 * figure is JSON's only. frames are function names joined by ';' in
 * CSV, objects with their module in JSON (json_frames).
 */
static const struct out_col stack_cols[X__COUNT] = {
	[X_VALUE] = { "value", NULL, COL_U64 },
	[X_COMM] = { "comm", NULL, COL_STR },
	[X_PID] = { "pid", NULL, COL_U64 },
	[X_LOCK] = { "lock", NULL, COL_STR },
	[X_TYPE] = { "type", NULL, COL_STR },
	[X_FRAMES] = { "frames", NULL, COL_STR, 0, false, OUT_NO_JSON },
	[X_CONTENDED] = { "contended", NULL, COL_U64, 0, false, OUT_NO_CSV },
	[X_WAIT] = { "wait_total_ns", NULL, COL_U64, 0, false, OUT_NO_CSV },
};

/* The columns of this export: the lock ones for locks only. */
static int stack_cols_of(const struct export_stacks *s, const struct export_opts *o, struct out_col *cols)
{
	int c, n = 0;

	for (c = 0; c < X__COUNT; c++) {
		if (!s->locks && (c == X_LOCK || c == X_TYPE || c == X_CONTENDED || c == X_WAIT))
			continue;
		cols[n] = stack_cols[c];
		if (c == X_VALUE)
			cols[n].csv = value_key(o);
		n++;
	}
	return n;
}

static void json_frames(struct json_writer *jw, const struct export_stacks *s,
			const struct export_stack *st)
{
	uint32_t i;

	jw_start_array(jw);
	for (i = 0; i < st->nframes; i++) {
		const struct frame_name *f = &s->frames[st->first + i];

		jw_start_object(jw);
		jw_string_field(jw, "function", *f->function ? f->function : "[unknown]");
		jw_string_field(jw, "module", f->module);
		jw_bool_field(jw, "kernel", f->kernel);
		jw_end_object(jw);
	}
	jw_end_array(jw);
}

/* Frames root first, joined by ';' as in the folded format. */
static char *joined_frames(const struct export_stacks *s, const struct export_stack *st)
{
	struct buf b;
	uint32_t i;

	buf_init(&b);
	for (i = 0; i < st->nframes; i++) {
		const char *name = s->frames[st->first + i].function;

		if (i)
			buf_put(&b, ";", 1);
		buf_put(&b, *name ? name : "[unknown]", strlen(*name ? name : "[unknown]"));
	}
	buf_put(&b, "", 1);
	if (b.oom) {
		buf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}

static int put_stack(struct out_table *t, const struct export_stacks *s,
		     const struct export_stack *st, const struct export_opts *o)
{
	char *frames = joined_frames(s, st);
	struct json_writer *jw;

	if (!frames)
		return -ENOMEM;
	out_table__row_begin(t, 0);
	out_table__u64(t, export_stack_value(st, o->value));
	out_table__str(t, st->comm);
	out_table__u64(t, st->pid);
	if (s->locks) {
		out_table__str(t, st->lock);
		out_table__str(t, st->type);
	}
	out_table__str(t, frames);
	if (s->locks) {
		out_table__u64(t, st->count);
		out_table__u64(t, st->wait_ns);
	}
	out_table__row_end(t);
	if ((jw = out_table__extra(t, "frames")))
		json_frames(jw, s, st);
	free(frames);
	return 0;
}

static void json_head(struct json_writer *jw, const struct profile *p, const struct export_stacks *s,
		      const struct export_opts *o)
{
	const char *freq = profile__meta(p, "sample_freq");

	jw_string_field(jw, "what", s->locks ? "locks" : "samples");
	jw_string_field(jw, "value_type", value_key(o));
	jw_u64_field(jw, "duration_ns", profile__duration_ns(p));
	if (!s->locks)
		jw_u64_field(jw, "sample_freq", freq ? strtoull(freq, NULL, 10) : 0);
	jw_u64_field(jw, "total", total_value(s, o));
}

/* JSON or CSV: one record per stack. */
static int export__table(FILE *f, enum out_format fmt, const struct profile *p,
			 const struct export_stacks *s, const struct export_opts *o)
{
	struct out_doc *d = out_doc__new(f, fmt, o->pretty);
	struct out_col cols[X__COUNT];
	struct out_table *t;
	size_t i;
	int err = 0;

	if (!d)
		return -ENOMEM;
	if (out_doc__jw(d))
		json_head(out_doc__jw(d), p, s, o);
	t = out_doc__table(d, "stacks", cols, stack_cols_of(s, o, cols));
	if (!t)
		err = -ENOMEM;
	for (i = 0; !err && i < s->n; i++)
		err = put_stack(t, s, &s->stacks[i], o);
	out_table__free(t);
	out_doc__free(d);
	return err ? err : (ferror(f) ? -EIO : 0);
}

int export__text(FILE *f, const struct profile *p, const struct export_opts *o)
{
	struct export_stacks s;
	int err = export_stacks__build(&s, p, o);

	if (err)
		return err;
	if (o->format == EXPORT_FOLDED) {
		err = export__folded(f, &s, o);
	} else {
		export_stacks__merge(&s, o->value);
		if (o->format == EXPORT_JSON)
			err = export__table(f, OUT_JSON, p, &s, o);
		else if (o->format == EXPORT_CSV)
			err = export__table(f, OUT_CSV, p, &s, o);
		else
			err = -EINVAL;	/* pprof is binary: pprof__write() */
	}
	export_stacks__free(&s);
	return err;
}
