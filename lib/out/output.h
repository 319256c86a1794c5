/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_OUTPUT_H
#define __LOCKSTAT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * One table formatter for every report, so that text, CSV and JSON always
 * carry the same rows and columns: callers describe the columns once and
 * then hand over values, in column order, row by row.
 *
 *   text: aligned columns under a header line, for people
 *   CSV:  RFC 4180, a line of keys first, exactly ncols fields per row
 *   JSON: one array of flat objects keyed by out_col.key
 */
enum out_format { OUT_TEXT, OUT_JSON, OUT_CSV };

/* "text", "json" or "csv": 0; anything else: -EINVAL. */
int out_format_parse(const char *s, enum out_format *fmt);

enum col_type {
	COL_STR,	/* string */
	COL_U64,	/* unsigned count */
	COL_NS,		/* duration in ns: text per fmt_ns(), CSV/JSON raw ns */
	COL_PCT,	/* percentage: text "12.34", CSV/JSON the number */
	COL_HEX,	/* 0x%llx in text and CSV, integer in JSON */
};

struct out_col {
	const char *key;	/* JSON key and CSV header */
	const char *header;	/* text header */
	enum col_type type;
	int width;		/* text width; 0 = no padding (last column) */
	bool left;		/* left-align in text */
};

struct out_table;

/*
 * cols is copied, the strings it points to are not: they must outlive the
 * table. A text column is at least as wide as its header. NULL on ENOMEM.
 * JSON is pretty-printed when f is a terminal; see out_table__set_pretty().
 */
struct out_table *out_table__new(FILE *f, enum out_format fmt,
				 const struct out_col *cols, int ncols);
/* Writes what an empty table still owes (header, "[]"), then flushes. */
void out_table__free(struct out_table *t);
/* JSON only; takes effect if called before the first row. */
void out_table__set_pretty(struct out_table *t, bool pretty);

/*
 * indent: text only, 2 spaces per level before the value of the first
 * left-aligned COL_STR column (the name column), e.g. for call chains.
 */
void out_table__row_begin(struct out_table *t, int indent);
/* One setter per value, matching the column's type; NULL string = none. */
void out_table__str(struct out_table *t, const char *s);
void out_table__u64(struct out_table *t, unsigned long long v);
void out_table__ns(struct out_table *t, unsigned long long ns);
void out_table__pct(struct out_table *t, double pct);	/* nan/inf = none */
void out_table__hex(struct out_table *t, unsigned long long v);
/* The next value is an estimate: text writes it "~value"; CSV and JSON as they are. */
void out_table__approx(struct out_table *t);
/* Value not measured: text "-", CSV empty field, JSON null. Any column. */
void out_table__none(struct out_table *t);
/* Columns left unset are written as none. */
void out_table__row_end(struct out_table *t);
/* Text only: a line of '-' as wide as the header; no-op in CSV/JSON. */
void out_table__separator(struct out_table *t);

/*
 * Duration for people, scaled like perf: "999 ns", "1.00 us", "45.60 ms",
 * "2.00 s". Rounds half up, and moves to the next unit rather than print
 * "1000.00 us".
 */
void fmt_ns(char *buf, size_t len, unsigned long long ns);

/*
 * Text for a terminal from a profile's strings (a workload's argv, a
 * comm, a symbol): control characters (C0, DEL, C1) and bytes that are
 * not UTF-8 become \xHH, so that a name cannot move the cursor, clear
 * the screen or retitle the window. Text tables do it to every cell.
 * fmt_printable() writes at most len - 1 bytes, never half an escape
 * or a character, and returns buf.
 */
const char *fmt_printable(char *buf, size_t len, const char *s);
size_t printable_len(const char *s);
void fput_printable(FILE *f, const char *s);
/* printf for a terminal: everything escaped as above but the newlines that end the text. */
void fprintf_printable(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
