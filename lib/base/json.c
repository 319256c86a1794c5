// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"

/* Significant digits of a non-integral double: ample for rates and ratios. */
#define JW_DOUBLE_DIGITS 6

struct jw_level {
	bool is_object;
	bool empty;	/* nothing written yet: no comma before a member */
};

struct json_writer {
	FILE *f;
	bool pretty;
	bool after_name;	/* a key was written, its value comes next */
	int depth;		/* 0: top level, between documents */
	struct jw_level level[JW_MAX_DEPTH + 1];
};

struct json_writer *jw_new(FILE *f, bool pretty)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->f = f;
	jw->pretty = pretty;
	return jw;
}

void jw_free(struct json_writer *jw)
{
	free(jw);
}

static struct jw_level *jw_top(struct json_writer *jw)
{
	return &jw->level[jw->depth];
}

static void jw_newline(struct json_writer *jw)
{
	int i;

	if (!jw->pretty)
		return;
	putc('\n', jw->f);
	for (i = 0; i < jw->depth; i++)
		fputs("  ", jw->f);
}

/* Comma and line break before a member; none before the first one. */
static void jw_separate(struct json_writer *jw)
{
	struct jw_level *top = jw_top(jw);

	if (jw->depth == 0)
		return;
	if (!top->empty)
		putc(',', jw->f);
	top->empty = false;
	jw_newline(jw);
}

static void jw_before_value(struct json_writer *jw)
{
	if (jw->after_name) {
		jw->after_name = false;
		return;
	}
	assert(jw->depth == 0 || !jw_top(jw)->is_object);
	jw_separate(jw);
}

/* A finished top-level value ends its line: JSON Lines for free. */
static void jw_after_value(struct json_writer *jw)
{
	if (jw->depth == 0)
		putc('\n', jw->f);
}

static void jw_push(struct json_writer *jw, bool is_object)
{
	jw_before_value(jw);
	if (jw->depth == JW_MAX_DEPTH)
		abort();
	putc(is_object ? '{' : '[', jw->f);
	jw->depth++;
	jw_top(jw)->is_object = is_object;
	jw_top(jw)->empty = true;
}

static void jw_pop(struct json_writer *jw, bool is_object)
{
	bool empty;

	assert(jw->depth > 0 && jw_top(jw)->is_object == is_object);
	assert(!jw->after_name);
	if (jw->depth == 0)
		return;
	empty = jw_top(jw)->empty;
	jw->depth--;
	if (!empty)
		jw_newline(jw);
	putc(is_object ? '}' : ']', jw->f);
	jw_after_value(jw);
}

void jw_start_object(struct json_writer *jw)
{
	jw_push(jw, true);
}

void jw_end_object(struct json_writer *jw)
{
	jw_pop(jw, true);
}

void jw_start_array(struct json_writer *jw)
{
	jw_push(jw, false);
}

void jw_end_array(struct json_writer *jw)
{
	jw_pop(jw, false);
}

/*
 * Length of the well-formed UTF-8 sequence at s, or 0 (Unicode table 3-7).
 * Overlongs, surrogates and code points past U+10FFFF count as invalid so
 * that strict parsers accept whatever we pass through. Stops at the first
 * bad byte, so it never reads past the terminating NUL.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void jw_put_ascii(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':	fputs("\\\"", f); break;
	case '\\':	fputs("\\\\", f); break;
	case '\b':	fputs("\\b", f); break;
	case '\f':	fputs("\\f", f); break;
	case '\n':	fputs("\\n", f); break;
	case '\r':	fputs("\\r", f); break;
	case '\t':	fputs("\\t", f); break;
	default:
		if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
}

/* Each byte that is not part of valid UTF-8 becomes one U+FFFD. */
static void jw_put_string(struct json_writer *jw, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	putc('"', jw->f);
	while (*s) {
		n = utf8_len(s);
		if (n == 1)
			jw_put_ascii(jw->f, *s);
		else if (n > 1)
			fwrite(s, 1, n, jw->f);
		else
			fputs("\\ufffd", jw->f);
		s += n ? n : 1;
	}
	putc('"', jw->f);
}

void jw_name(struct json_writer *jw, const char *name)
{
	assert(jw->depth > 0 && jw_top(jw)->is_object && !jw->after_name);
	jw_separate(jw);
	jw_put_string(jw, name);
	fputs(jw->pretty ? ": " : ":", jw->f);
	jw->after_name = true;
}

void jw_null(struct json_writer *jw)
{
	jw_before_value(jw);
	fputs("null", jw->f);
	jw_after_value(jw);
}

void jw_string(struct json_writer *jw, const char *s)
{
	if (!s) {
		jw_null(jw);
		return;
	}
	jw_before_value(jw);
	jw_put_string(jw, s);
	jw_after_value(jw);
}

void jw_u64(struct json_writer *jw, unsigned long long v)
{
	jw_before_value(jw);
	fprintf(jw->f, "%llu", v);
	jw_after_value(jw);
}

void jw_i64(struct json_writer *jw, long long v)
{
	jw_before_value(jw);
	fprintf(jw->f, "%lld", v);
	jw_after_value(jw);
}

void jw_bool(struct json_writer *jw, bool v)
{
	jw_before_value(jw);
	fputs(v ? "true" : "false", jw->f);
	jw_after_value(jw);
}

/*
 * printf's radix character follows LC_NUMERIC, JSON's is always '.':
 * whatever the locale put between the digits (maybe several bytes)
 * collapses to one '.'.
 */
static void fix_radix(char *buf)
{
	char *out = buf;
	const char *s;

	for (s = buf; *s; s++) {
		if (strchr("0123456789+-eE", *s))
			*out++ = *s;
		else if (out == buf || out[-1] != '.')
			*out++ = '.';
	}
	*out = '\0';
}

void jw_double(struct json_writer *jw, double v)
{
	char buf[64];

	if (!isfinite(v)) {
		jw_null(jw);
		return;
	}
	/* Range check first: the cast is defined; %.6g says 1.23457e+06. */
	if (v > -1e15 && v < 1e15 && v == (double)(long long)v)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else
		snprintf(buf, sizeof(buf), "%.*g", JW_DOUBLE_DIGITS, v);
	fix_radix(buf);
	jw_before_value(jw);
	fputs(buf, jw->f);
	jw_after_value(jw);
}

void jw_string_field(struct json_writer *jw, const char *name, const char *s)
{
	jw_name(jw, name);
	jw_string(jw, s);
}

void jw_u64_field(struct json_writer *jw, const char *name,
		  unsigned long long v)
{
	jw_name(jw, name);
	jw_u64(jw, v);
}

void jw_i64_field(struct json_writer *jw, const char *name, long long v)
{
	jw_name(jw, name);
	jw_i64(jw, v);
}

void jw_double_field(struct json_writer *jw, const char *name, double v)
{
	jw_name(jw, name);
	jw_double(jw, v);
}

void jw_bool_field(struct json_writer *jw, const char *name, bool v)
{
	jw_name(jw, name);
	jw_bool(jw, v);
}

void jw_null_field(struct json_writer *jw, const char *name)
{
	jw_name(jw, name);
	jw_null(jw);
}
