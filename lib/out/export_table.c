// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat export as JSON and CSV: one record per distinct stack, largest
 * value first, through the same writers as report so that quoting and
 * escaping are the ones report users already parse.
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

static void json_frames(struct json_writer *jw, const struct export_stacks *s,
			const struct export_stack *st)
{
	uint32_t i;

	jw_name(jw, "frames");
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

static void json_stack(struct json_writer *jw, const struct export_stacks *s,
		       const struct export_stack *st, const struct export_opts *o)
{
	jw_start_object(jw);
	jw_u64_field(jw, "value", export_stack_value(st, o->value));
	jw_string_field(jw, "comm", st->comm);
	jw_u64_field(jw, "pid", st->pid);
	if (s->locks) {
		jw_string_field(jw, "lock", st->lock);
		jw_string_field(jw, "type", st->type);
		jw_u64_field(jw, "contended", st->count);
		jw_u64_field(jw, "wait_total_ns", st->wait_ns);
	}
	json_frames(jw, s, st);
	jw_end_object(jw);
}

int export__json(FILE *f, const struct profile *p, const struct export_stacks *s,
		 const struct export_opts *o)
{
	struct json_writer *jw = jw_new(f, o->pretty);
	const char *freq = profile__meta(p, "sample_freq");
	size_t i;

	if (!jw)
		return -ENOMEM;
	jw_start_object(jw);
	jw_string_field(jw, "what", s->locks ? "locks" : "samples");
	jw_string_field(jw, "value_type", value_key(o));
	jw_u64_field(jw, "duration_ns", profile__duration_ns(p));
	if (!s->locks)
		jw_u64_field(jw, "sample_freq", freq ? strtoull(freq, NULL, 10) : 0);
	jw_u64_field(jw, "total", total_value(s, o));
	jw_name(jw, "stacks");
	jw_start_array(jw);
	for (i = 0; i < s->n; i++)
		json_stack(jw, s, &s->stacks[i], o);
	jw_end_array(jw);
	jw_end_object(jw);
	jw_free(jw);
	return ferror(f) ? -EIO : 0;
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

static int csv_row(struct out_table *t, const struct export_stacks *s,
		   const struct export_stack *st, const struct export_opts *o)
{
	char *frames = joined_frames(s, st);

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
	out_table__row_end(t);
	free(frames);
	return 0;
}

int export__csv(FILE *f, const struct export_stacks *s, const struct export_opts *o)
{
	struct out_col cols[] = {
		{ value_key(o), value_key(o), COL_U64, 0, false },
		{ "comm", "comm", COL_STR, 0, true },
		{ "pid", "pid", COL_U64, 0, false },
		{ "lock", "lock", COL_STR, 0, true },
		{ "type", "type", COL_STR, 0, true },
		{ "frames", "frames", COL_STR, 0, true },
	};
	struct out_table *t;
	size_t i;
	int err = 0;

	if (!s->locks)
		cols[3] = cols[5];	/* value, comm, pid, frames */
	t = out_table__new(f, OUT_CSV, cols, s->locks ? 6 : 4);
	if (!t)
		return -ENOMEM;
	for (i = 0; !err && i < s->n; i++)
		err = csv_row(t, s, &s->stacks[i], o);
	out_table__free(t);
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
			err = export__json(f, p, &s, o);
		else if (o->format == EXPORT_CSV)
			err = export__csv(f, &s, o);
		else
			err = -EINVAL;	/* pprof is binary: pprof__write() */
	}
	export_stacks__free(&s);
	return err;
}
