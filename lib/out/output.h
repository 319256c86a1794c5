/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_OUTPUT_H
#define __LOCKSTAT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "base/json.h"
#include "base/nsfmt.h"

/*
 * The one renderer of lockstat's tables (lib/out/table.c): a view
 * describes its columns once, then hands over values, in column order,
 * row by row, and gets the same rows and columns as
 *
 *   text: aligned columns under a header line, for people
 *   CSV:  RFC 4180, a line of keys first, exactly ncols fields per row
 *   JSON: an array of objects keyed by out_col.key, through the streaming
 *         writer (lib/base/json.h)
 *
 * CSV and JSON carry every column but the few marked as one form's own
 * (OUT_NO_JSON, OUT_NO_CSV: a value whose JSON form is an array, a CSV
 * line's kind); text shows the columns that have a header, in the order
 * out_table__text_order() gives, because a line for people cannot hold
 * them all.
 *
 * Rows may have child rows (a lock's callers): text indents them under
 * their parent, CSV writes them as lines of their own that repeat their
 * parent's OUT_TOP columns, JSON nests them in an array of the parent's
 * object (out_table__set_children()). A total row ends a table: after a
 * separator in text, a last line in CSV, an object beside the array in
 * JSON (out_table__total_begin()).
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
	COL_ADDR,	/* an address: 0x%llx, a string in JSON (readers keep 53 bits of a number) */
	COL_BOOL,	/* text and CSV 1 or 0, JSON true or false */
	COL_NUM,	/* a number: text %.2f, CSV %.10g, JSON %.6g */
	COL_RATE,	/* per second: text rounded to a whole number, CSV %.6g, JSON %.6g */
	COL_NS_RATE,	/* ns per second: text per fmt_ns() of it rounded, CSV and JSON as COL_RATE */
	COL_NUMS,	/* numbers: text and CSV joined by ';' (%.10g), JSON an array (%.6g) */
};

/* Where a column goes (out_col.flags). */
#define OUT_TOP		(1u << 0)	/* of the top row: left out of child rows in text and JSON, repeated in CSV */
#define OUT_SUB		(1u << 1)	/* of child rows only: in text, the child's name in the name column */
#define OUT_NO_JSON	(1u << 2)	/* text and CSV only: JSON has it in another shape, or by nesting */
#define OUT_NO_CSV	(1u << 3)	/* JSON (and text) only */

struct out_col {
	const char *key;	/* JSON key; "group.key": the member key of the object group */
	const char *header;	/* text header; NULL: not shown in text */
	enum col_type type;
	int width;		/* text width; 0 = no padding (last column) */
	bool left;		/* left-align in text */
	unsigned int flags;	/* OUT_* above */
	const char *csv;	/* CSV header where the flat form names it otherwise; NULL: the key, '.' as '_' */
};

struct out_table;

/*
 * A table alone: JSON is one array. cols is copied, the strings it
 * points to are not: they must outlive the table. A text column is at
 * least as wide as its header. NULL on ENOMEM. JSON is pretty-printed
 * when f is a terminal; see out_table__set_pretty().
 */
struct out_table *out_table__new(FILE *f, enum out_format fmt,
				 const struct out_col *cols, int ncols);
/* Writes what an empty table still owes (header, "[]"), then flushes. */
void out_table__free(struct out_table *t);
/* JSON only; takes effect if called before the first row. */
void out_table__set_pretty(struct out_table *t, bool pretty);
/*
 * Text: only these columns (indexes into cols), in this order; each must
 * have a header. Without it, every column with a header, in cols' order.
 * The name column, which the indentation of child rows goes into, is
 * the first left-aligned string column of the text.
 */
int out_table__text_order(struct out_table *t, const int *cols, int n);
/*
 * JSON: the member name of the total row (default "total"); first: the
 * total row is given before the rows, and its object comes before the array.
 */
void out_table__set_total(struct out_table *t, const char *key, bool first);
/* JSON: child rows go into the array key of their parent's object, which every top row gets. */
void out_table__set_children(struct out_table *t, const char *key);

/*
 * depth 0: a row; 1: a child row of the last row of depth 0 (text: 2
 * spaces per level before the name column's value).
 */
void out_table__row_begin(struct out_table *t, int depth);
/*
 * The total row: after a separator in text, with label in the name
 * column where no value is set and the other OUT_TOP and OUT_SUB
 * columns blank; in JSON the object "total" beside the array (of a
 * table of out_doc__table(); alone, its last element), where unset
 * columns are left out.
 */
void out_table__total_begin(struct out_table *t, const char *label);
/* One setter per value, matching the column's type; NULL string = none. */
void out_table__str(struct out_table *t, const char *s);
void out_table__u64(struct out_table *t, unsigned long long v);
void out_table__ns(struct out_table *t, unsigned long long ns);
void out_table__pct(struct out_table *t, double pct);	/* nan/inf = none */
void out_table__hex(struct out_table *t, unsigned long long v);	/* COL_HEX, COL_ADDR */
/* The next value is an estimate: text writes it "~value"; CSV and JSON as they are. */
void out_table__approx(struct out_table *t);
void out_table__bool(struct out_table *t, bool v);
void out_table__num(struct out_table *t, double v);	/* COL_NUM, COL_RATE, COL_NS_RATE; nan = none */
void out_table__nums(struct out_table *t, const double *v, size_t n);	/* COL_NUMS */
/* Value not measured: text "-", CSV empty field, JSON null. Any column. */
void out_table__none(struct out_table *t);
/* The text form of the next value, in place of its type's (the value stays for CSV and JSON). */
void out_table__text(struct out_table *t, const char *text);
/* Columns left unset are written as none. */
void out_table__row_end(struct out_table *t);
/*
 * JSON: the writer, inside the object of the last top row (its child
 * rows ended), after the member name key: the caller writes one value,
 * an array or object for what no column can hold. NULL in text and CSV.
 */
struct json_writer *out_table__extra(struct out_table *t, const char *key);
/* Text only: a line of '-' as wide as the header; no-op in CSV/JSON. */
void out_table__separator(struct out_table *t);

/*
 * A document: in JSON one object, whose members the caller writes
 * through out_doc__jw() (meta, lost, ...) and whose tables are arrays
 * (out_doc__table()); in text and CSV, the tables one after the other.
 */
struct out_doc;

/* pretty: JSON indented. NULL on ENOMEM. */
struct out_doc *out_doc__new(FILE *f, enum out_format fmt, bool pretty);
/* Closes the object, flushes; every table of the document must be freed before. */
void out_doc__free(struct out_doc *d);
enum out_format out_doc__format(const struct out_doc *d);
FILE *out_doc__file(const struct out_doc *d);
/* The writer, between members of the object: JSON only, else NULL. */
struct json_writer *out_doc__jw(struct out_doc *d);
/* A table of the document: in JSON the member key, an array. */
struct out_table *out_doc__table(struct out_doc *d, const char *key, const struct out_col *cols, int ncols);

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
