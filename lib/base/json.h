/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_JSON_H
#define __LOCKSTAT_JSON_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Streaming JSON writer in the style of bpftool's json_writer: values go
 * straight to the FILE, commas and indentation are placed from a nesting
 * stack, so callers never build a document in memory.
 *
 * Output always parses: strings are escaped per RFC 8259, invalid UTF-8
 * bytes become \ufffd, non-finite doubles become null. Each top-level value
 * ends with "\n", so a series of them is valid JSON Lines.
 *
 * Misuse (a value without a key inside an object, a key inside an array,
 * mismatched ends) is a programming error caught by assert(); nesting
 * deeper than JW_MAX_DEPTH aborts.
 */
#define JW_MAX_DEPTH 64

struct json_writer;

/* NULL on ENOMEM. pretty: 2-space indentation, one member per line. */
struct json_writer *jw_new(FILE *f, bool pretty);
/* Open containers are not closed: an error path may stop mid-document. */
void jw_free(struct json_writer *jw);

void jw_start_object(struct json_writer *jw);
void jw_end_object(struct json_writer *jw);
void jw_start_array(struct json_writer *jw);
void jw_end_array(struct json_writer *jw);

/* Key of the next value inside an object. */
void jw_name(struct json_writer *jw, const char *name);

void jw_string(struct json_writer *jw, const char *s);	/* NULL -> null */
void jw_u64(struct json_writer *jw, unsigned long long v);
void jw_i64(struct json_writer *jw, long long v);
/* %.6g with '.' in any locale; integers below 1e15 in full; inf/nan: null */
void jw_double(struct json_writer *jw, double v);
void jw_bool(struct json_writer *jw, bool v);
void jw_null(struct json_writer *jw);

/* jw_name() followed by the value. */
void jw_string_field(struct json_writer *jw, const char *name, const char *s);
void jw_u64_field(struct json_writer *jw, const char *name,
		  unsigned long long v);
void jw_i64_field(struct json_writer *jw, const char *name, long long v);
void jw_double_field(struct json_writer *jw, const char *name, double v);
void jw_bool_field(struct json_writer *jw, const char *name, bool v);
void jw_null_field(struct json_writer *jw, const char *name);

#endif
