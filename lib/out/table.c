// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The table renderer of output.h. A row's values are kept until the row
 * ends, then written in each format's order: the columns' order in CSV
 * and JSON (a JSON group's members together, where its first member
 * is), the text order in text.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "out/output.h"

#define COL_ANY		(-1)	/* for take_col(): none fits every column */

struct cell {
	bool set;
	unsigned long long u;
	double d;
	char *s;		/* COL_STR, owned; COL_NUMS: as text, owned */
	double *list;		/* COL_NUMS, owned */
	size_t nlist;
	char *text;		/* the text form given, owned */
	bool approx;		/* an estimate: "~" before it in text */
};

enum row_kind { ROW_TOP, ROW_CHILD, ROW_TOTAL };

struct out_table {
	FILE *f;
	enum out_format fmt;
	struct out_col *cols;	/* own copy, text widths widened to headers */
	int ncols;
	int *text;		/* the text columns, in text order */
	int ntext;
	int name_col;		/* the column that gets the indent, or -1 */
	int sub_col;		/* the first OUT_SUB column, or -1 */
	int line_width;		/* of the text header, for separators */
	bool started;		/* header or "[" written */
	bool ended;		/* JSON: the array is closed (a total row came) */
	struct cell *cells;
	bool in_row;
	enum row_kind kind;
	int depth;
	int col;		/* the column the next value fills */
	char *next_text;	/* out_table__text() for the next value */
	bool next_approx;	/* out_table__approx() for the next value */
	const char *label;	/* of the total row */
	bool pretty;
	/* JSON */
	struct json_writer *jw;
	bool own_jw;		/* a table alone, not a document's */
	const char *key;	/* a document's: the member that holds the array */
	const char *children;
	const char *total_key;	/* the member that holds the total row */
	bool total_first;	/* given before the rows: JSON has it before the array */
	bool top_open;		/* the object of the last top row */
	bool kids_open;		/* its children's array */
	bool kid_open;		/* the object of the last child row */
};

/* --- set-up -------------------------------------------------------------------- */

static bool text_col_ok(const struct out_col *c)
{
	return c->header != NULL;
}

/* Widths grow to fit headers so that rows line up under them. */
static void text_layout(struct out_table *t)
{
	struct out_col *c;
	int i, hlen;

	t->name_col = -1;
	t->line_width = t->ntext ? 2 * (t->ntext - 1) : 0;
	for (i = 0; i < t->ntext; i++) {
		c = &t->cols[t->text[i]];
		hlen = (int)strlen(c->header);
		if (c->width && c->width < hlen)
			c->width = hlen;
		t->line_width += c->width ? c->width : hlen;
		if (t->name_col < 0 && c->type == COL_STR && c->left)
			t->name_col = t->text[i];
	}
}

int out_table__text_order(struct out_table *t, const int *cols, int n)
{
	int i;

	assert(!t->started && n <= t->ncols);
	for (i = 0; i < n; i++)
		if (cols[i] < 0 || cols[i] >= t->ncols || !text_col_ok(&t->cols[cols[i]]))
			return -EINVAL;
	memcpy(t->text, cols, n * sizeof(*cols));
	t->ntext = n;
	text_layout(t);
	return 0;
}

static void default_text_order(struct out_table *t)
{
	int i;

	t->ntext = 0;
	t->sub_col = -1;
	for (i = 0; i < t->ncols; i++) {
		if (text_col_ok(&t->cols[i]))
			t->text[t->ntext++] = i;
		if (t->sub_col < 0 && (t->cols[i].flags & OUT_SUB))
			t->sub_col = i;
	}
	text_layout(t);
}

static void clear_cells(struct out_table *t);

static void table_destroy(struct out_table *t)
{
	if (t->own_jw)
		jw_free(t->jw);
	if (t->cells)
		clear_cells(t);
	free(t->cells);
	free(t->text);
	free(t->cols);
	free(t);
}

static struct out_table *table_new(FILE *f, enum out_format fmt, const struct out_col *cols, int ncols)
{
	struct out_table *t;

	assert(ncols > 0);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cols = calloc(ncols, sizeof(*cols));
	t->text = calloc(ncols, sizeof(*t->text));
	t->cells = calloc(ncols, sizeof(*t->cells));
	if (!t->cols || !t->text || !t->cells) {
		table_destroy(t);
		return NULL;
	}
	memcpy(t->cols, cols, ncols * sizeof(*cols));
	t->f = f;
	t->fmt = fmt;
	t->ncols = ncols;
	default_text_order(t);
	return t;
}

struct out_table *out_table__new(FILE *f, enum out_format fmt,
				 const struct out_col *cols, int ncols)
{
	struct out_table *t = table_new(f, fmt, cols, ncols);

	if (!t)
		return NULL;
	t->pretty = isatty(fileno(f));
	t->own_jw = true;
	if (fmt == OUT_JSON && !(t->jw = jw_new(f, t->pretty))) {
		table_destroy(t);
		return NULL;
	}
	return t;
}

void out_table__set_pretty(struct out_table *t, bool pretty)
{
	struct json_writer *jw;

	if (t->fmt != OUT_JSON || !t->own_jw || t->started || t->pretty == pretty)
		return;
	/* On ENOMEM keep the old writer: other whitespace, same JSON. */
	jw = jw_new(t->f, pretty);
	if (!jw)
		return;
	jw_free(t->jw);
	t->jw = jw;
	t->pretty = pretty;
}

void out_table__set_children(struct out_table *t, const char *key)
{
	assert(!t->started);
	t->children = key;
}

void out_table__set_total(struct out_table *t, const char *key, bool first)
{
	assert(!t->started);
	t->total_key = key;
	t->total_first = first;
}

/* --- text and CSV cells ----------------------------------------------------------- */

/* Value s of text column i; only the name column is indented. */
static void text_cell(struct out_table *t, int i, const char *s, int indent)
{
	const struct out_col *c = &t->cols[t->text[i]];
	int len = (int)printable_len(s) + 2 * indent;
	int pad = c->width > len ? c->width - len : 0;

	if (i > 0)
		fputs("  ", t->f);
	if (!c->left)
		fprintf(t->f, "%*s", pad, "");
	fprintf(t->f, "%*s", 2 * indent, "");
	fput_printable(t->f, s);
	/* No trailing blanks after the last column. */
	if (c->left && i < t->ntext - 1)
		fprintf(t->f, "%*s", pad, "");
}

/* RFC 4180: quote only when needed, doubling embedded quotes. */
static void csv_field(FILE *f, bool first, const char *s)
{
	if (!first)
		putc(',', f);
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

/* CSV gets the number as JSON does: %.6g (or %.10g) with '.' whatever LC_NUMERIC. */
static void fmt_csv_double(char *buf, size_t len, const char *fmt, double v)
{
	char *out = buf;
	const char *s;

	snprintf(buf, len, fmt, v);
	for (s = buf; *s; s++) {
		if (strchr("0123456789+-eE", *s))
			*out++ = *s;
		else if (out == buf || out[-1] != '.')
			*out++ = '.';
	}
	*out = '\0';
}

static unsigned long long rounded(double v)
{
	return v > 0 ? (unsigned long long)(v + 0.5) : 0;
}

/* A set value as text (for_text) or CSV, without its estimate mark; NULL: none. */
static const char *flat_value_raw(const struct out_col *c, const struct cell *v, bool for_text,
				  char *buf, size_t len)
{
	bool num = c->type == COL_PCT || c->type == COL_NUM || c->type == COL_RATE || c->type == COL_NS_RATE;

	if (for_text && v->text)
		return v->text;
	if (num && !isfinite(v->d))
		return NULL;
	switch (c->type) {
	case COL_STR:
	case COL_NUMS:
		return v->s;
	case COL_NS:
		if (for_text)
			fmt_ns(buf, len, v->u);
		else
			snprintf(buf, len, "%llu", v->u);
		return buf;
	case COL_HEX:
	case COL_ADDR:
		snprintf(buf, len, "0x%llx", v->u);
		return buf;
	case COL_BOOL:
		return v->u ? "1" : "0";
	case COL_PCT:
	case COL_NUM:
		if (for_text)
			snprintf(buf, len, "%.2f", v->d);
		else
			fmt_csv_double(buf, len, c->type == COL_PCT ? "%.6g" : "%.10g", v->d);
		return buf;
	case COL_RATE:
	case COL_NS_RATE:
		if (!for_text)
			fmt_csv_double(buf, len, "%.6g", v->d);
		else if (c->type == COL_RATE)
			snprintf(buf, len, "%llu", rounded(v->d));
		else
			fmt_ns(buf, len, rounded(v->d));
		return buf;
	default:
		snprintf(buf, len, "%llu", v->u);
		return buf;
	}
}

/* A set value as text (for_text) or CSV; NULL: none. An estimate is "~value" in text. */
static const char *flat_value(const struct out_col *c, const struct cell *v, bool for_text,
			      char *buf, size_t len)
{
	char raw[128];
	const char *s;

	if (!for_text || !v->approx)
		return flat_value_raw(c, v, for_text, buf, len);
	s = flat_value_raw(c, v, for_text, raw, sizeof(raw));
	if (s)
		snprintf(buf, len, "~%s", s);
	return s ? buf : NULL;
}

static void csv_key(FILE *f, bool first, const struct out_col *c)
{
	char key[128], *dot;

	if (c->csv) {
		csv_field(f, first, c->csv);
		return;
	}
	snprintf(key, sizeof(key), "%s", c->key);
	for (dot = key; (dot = strchr(dot, '.')); dot++)
		*dot = '_';
	csv_field(f, first, key);
}

static void print_header(struct out_table *t)
{
	bool first = true;
	int i;

	for (i = 0; t->fmt == OUT_TEXT && i < t->ntext; i++)
		text_cell(t, i, t->cols[t->text[i]].header, 0);
	for (i = 0; t->fmt == OUT_CSV && i < t->ncols; i++) {
		if (t->cols[i].flags & OUT_NO_CSV)
			continue;
		csv_key(t->f, first, &t->cols[i]);
		first = false;
	}
	putc('\n', t->f);
}

/* Header or "[" go out lazily, so set_pretty() can still act until then. */
static void start(struct out_table *t)
{
	if (t->started)
		return;
	t->started = true;
	if (t->fmt != OUT_JSON) {
		print_header(t);
		return;
	}
	if (t->key)
		jw_name(t->jw, t->key);
	jw_start_array(t->jw);
}

/* --- rows --------------------------------------------------------------------------- */

/* JSON: close what a new row at depth (or the end of the rows) ends. */
static void json_close(struct out_table *t, int depth)
{
	if (t->kid_open) {
		jw_end_object(t->jw);
		t->kid_open = false;
	}
	if (depth > 0)
		return;
	if (t->kids_open) {
		jw_end_array(t->jw);
		t->kids_open = false;
	}
	if (t->top_open) {
		jw_end_object(t->jw);
		t->top_open = false;
	}
}

static void begin(struct out_table *t, enum row_kind kind, int depth)
{
	assert(!t->in_row && !t->ended);
	if (kind != ROW_TOTAL || t->fmt != OUT_JSON || !t->key || !t->total_first)
		start(t);
	t->in_row = true;
	t->kind = kind;
	t->depth = depth > 0 ? depth : 0;
	t->col = 0;
}

void out_table__row_begin(struct out_table *t, int depth)
{
	begin(t, depth > 0 ? ROW_CHILD : ROW_TOP, depth);
}

void out_table__total_begin(struct out_table *t, const char *label)
{
	begin(t, ROW_TOTAL, 0);
	t->label = label;
}

static void clear_cells(struct out_table *t)
{
	int i;

	for (i = 0; i < t->ncols; i++) {
		free(t->cells[i].s);
		free(t->cells[i].list);
		free(t->cells[i].text);
		memset(&t->cells[i], 0, sizeof(t->cells[i]));
	}
	free(t->next_text);
	t->next_text = NULL;
	t->next_approx = false;
}

/* The cell the next value fills, NULL when the row is already full. */
static struct cell *take_col(struct out_table *t, int type)
{
	struct cell *v;

	assert(t->in_row && t->col < t->ncols);
	if (!t->in_row || t->col >= t->ncols)
		return NULL;
	assert(type == COL_ANY || (int)t->cols[t->col].type == type ||
	       (type == COL_HEX && t->cols[t->col].type == COL_ADDR) ||
	       (type == COL_NUM && (t->cols[t->col].type == COL_RATE || t->cols[t->col].type == COL_NS_RATE)));
	(void)type;	/* only assert() looks at it */
	v = &t->cells[t->col++];
	v->text = t->next_text;
	v->approx = t->next_approx;
	t->next_text = NULL;
	t->next_approx = false;
	return v;
}

void out_table__approx(struct out_table *t)
{
	t->next_approx = true;
}

void out_table__text(struct out_table *t, const char *text)
{
	free(t->next_text);
	t->next_text = text ? strdup(text) : NULL;
}

void out_table__none(struct out_table *t)
{
	take_col(t, COL_ANY);
}

void out_table__str(struct out_table *t, const char *s)
{
	struct cell *v = take_col(t, COL_STR);

	if (v && s) {
		v->s = strdup(s);
		v->set = v->s != NULL;
	}
}

static void set_u64(struct out_table *t, int type, unsigned long long u)
{
	struct cell *v = take_col(t, type);

	if (v) {
		v->u = u;
		v->set = true;
	}
}

void out_table__u64(struct out_table *t, unsigned long long v)
{
	set_u64(t, COL_U64, v);
}

void out_table__ns(struct out_table *t, unsigned long long ns)
{
	set_u64(t, COL_NS, ns);
}

void out_table__hex(struct out_table *t, unsigned long long v)
{
	set_u64(t, COL_HEX, v);
}

void out_table__bool(struct out_table *t, bool v)
{
	set_u64(t, COL_BOOL, v);
}

static void set_double(struct out_table *t, int type, double d)
{
	struct cell *v = take_col(t, type);

	if (v) {
		v->d = d;
		v->set = true;
	}
}

void out_table__pct(struct out_table *t, double pct)
{
	set_double(t, COL_PCT, pct);
}

void out_table__num(struct out_table *t, double v)
{
	set_double(t, COL_NUM, v);
}

/* The text and CSV form: "1.5;2;3.25". */
static char *joined_nums(const double *v, size_t n)
{
	char *s = malloc(n * 32 + 1);
	size_t i, used = 0;

	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			s[used++] = ';';
		s[used] = '\0';	/* none: an empty item */
		if (isfinite(v[i]))
			fmt_csv_double(s + used, 32, "%.10g", v[i]);
		used += strlen(s + used);
	}
	return s;
}

void out_table__nums(struct out_table *t, const double *v, size_t n)
{
	struct cell *c = take_col(t, COL_NUMS);

	if (!c)
		return;
	c->list = malloc((n ? n : 1) * sizeof(*v));
	c->s = joined_nums(v, n);
	if (!c->list || !c->s)
		return;
	memcpy(c->list, v, n * sizeof(*v));
	c->nlist = n;
	c->set = true;
}

/* --- writing a row ---------------------------------------------------------------------- */

/* Whether column i belongs in this row's text, CSV line or JSON object. */
static bool in_row(const struct out_table *t, int i)
{
	unsigned int flags = t->cols[i].flags;

	if (t->kind == ROW_CHILD && (flags & OUT_TOP))
		return false;
	return t->kind == ROW_CHILD || !(flags & OUT_SUB);
}

static const char *text_of(struct out_table *t, int col, char *buf, size_t len)
{
	const struct cell *v = &t->cells[col];
	const char *s;

	if (col == t->name_col && t->kind == ROW_CHILD && t->sub_col >= 0)
		v = &t->cells[t->sub_col];	/* a child row's name, in its parent's column */
	else if (!in_row(t, col))
		return "";
	if (t->kind == ROW_TOTAL && !v->set && !v->text && col == t->name_col)
		return t->label ? t->label : "";
	/* A total is of no lock: what names one stays blank. */
	if (t->kind == ROW_TOTAL && !v->set && !v->text && (t->cols[col].flags & (OUT_TOP | OUT_SUB)))
		return "";
	s = v->set || v->text ? flat_value(&t->cols[col], v, true, buf, len) : NULL;
	return s ? s : "-";
}

static void write_text(struct out_table *t)
{
	char buf[64];
	int i;

	if (t->kind == ROW_TOTAL)
		out_table__separator(t);
	for (i = 0; i < t->ntext; i++)
		text_cell(t, i, text_of(t, t->text[i], buf, sizeof(buf)), t->text[i] == t->name_col ? t->depth : 0);
	putc('\n', t->f);
}

static void write_csv(struct out_table *t)
{
	bool first = true;
	char buf[64];
	int i;

	for (i = 0; i < t->ncols; i++) {
		const char *s = NULL;

		if (t->cols[i].flags & OUT_NO_CSV)
			continue;
		if (t->cells[i].set)
			s = flat_value(&t->cols[i], &t->cells[i], false, buf, sizeof(buf));
		csv_field(t->f, first, s ? s : "");
		first = false;
	}
	putc('\n', t->f);
}

static void json_list(struct json_writer *jw, const double *v, size_t n)
{
	size_t i;

	jw_start_array(jw);
	for (i = 0; i < n; i++)
		jw_double(jw, v[i]);
	jw_end_array(jw);
}

static void json_value(struct out_table *t, int i, const char *name)
{
	const struct out_col *c = &t->cols[i];
	const struct cell *v = &t->cells[i];
	char hex[24];

	jw_name(t->jw, name);
	if (!v->set) {
		jw_null(t->jw);
		return;
	}
	switch (c->type) {
	case COL_STR:
		jw_string(t->jw, v->s);
		break;
	case COL_ADDR:
		snprintf(hex, sizeof(hex), "0x%llx", v->u);
		jw_string(t->jw, hex);
		break;
	case COL_BOOL:
		jw_bool(t->jw, v->u);
		break;
	case COL_PCT:
	case COL_NUM:
	case COL_RATE:
	case COL_NS_RATE:
		jw_double(t->jw, v->d);	/* nan/inf: null */
		break;
	case COL_NUMS:
		json_list(t->jw, v->list, v->nlist);
		break;
	default:
		jw_u64(t->jw, v->u);
	}
}

static bool in_json(const struct out_table *t, int i)
{
	if ((t->cols[i].flags & OUT_NO_JSON) || !in_row(t, i))
		return false;
	return t->kind != ROW_TOTAL || t->cells[i].set;	/* a total holds what was totalled */
}

/* The length of the group name of a "group.key" key, 0 for a plain key. */
static size_t group_len(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot ? (size_t)(dot - key) : 0;
}

static bool same_group(const char *a, const char *b, size_t n)
{
	return group_len(b) == n && !strncmp(a, b, n);
}

/* The members of the group of column first, from first on, as one object. */
static void json_group(struct out_table *t, int first, bool *done)
{
	const char *key = t->cols[first].key;
	size_t n = group_len(key);
	char name[64];
	int i;

	snprintf(name, sizeof(name), "%.*s", (int)n, key);
	jw_name(t->jw, name);
	jw_start_object(t->jw);
	for (i = first; i < t->ncols; i++) {
		if (!same_group(key, t->cols[i].key, n))
			continue;
		done[i] = true;
		if (in_json(t, i))
			json_value(t, i, t->cols[i].key + n + 1);
	}
	jw_end_object(t->jw);
}

static bool group_any(const struct out_table *t, int first)
{
	size_t n = group_len(t->cols[first].key);
	int i;

	for (i = first; i < t->ncols; i++)
		if (same_group(t->cols[first].key, t->cols[i].key, n) && in_json(t, i))
			return true;
	return false;
}

static void json_cells(struct out_table *t)
{
	bool done[t->ncols];
	int i;

	memset(done, 0, sizeof(done));
	for (i = 0; i < t->ncols; i++) {
		if (done[i])
			continue;
		if (group_len(t->cols[i].key) && group_any(t, i))
			json_group(t, i, done);
		else if (!group_len(t->cols[i].key) && in_json(t, i))
			json_value(t, i, t->cols[i].key);
	}
}

static void write_json(struct out_table *t)
{
	bool child = t->kind == ROW_CHILD && t->children;
	bool total = t->kind == ROW_TOTAL && t->key;	/* alone, a table has no place for it but its array */

	json_close(t, child ? 1 : 0);
	if (total) {
		if (t->started) {
			jw_end_array(t->jw);
			t->ended = true;
		}
		jw_name(t->jw, t->total_key);
	} else if (child && !t->kids_open) {
		assert(t->top_open);	/* a child row without its parent: in no array */
		jw_name(t->jw, t->children);
		jw_start_array(t->jw);
		t->kids_open = true;
	}
	jw_start_object(t->jw);
	json_cells(t);
	if (total) {
		jw_end_object(t->jw);
		return;
	}
	if (child) {
		t->kid_open = true;
		return;
	}
	t->top_open = true;
	if (t->children) {	/* every top row has the array, empty or not */
		jw_name(t->jw, t->children);
		jw_start_array(t->jw);
		t->kids_open = true;
	}
}

void out_table__row_end(struct out_table *t)
{
	assert(t->in_row);
	if (!t->in_row)
		return;
	t->in_row = false;
	if (t->fmt == OUT_TEXT)
		write_text(t);
	else if (t->fmt == OUT_CSV)
		write_csv(t);
	else
		write_json(t);
	clear_cells(t);
}

struct json_writer *out_table__extra(struct out_table *t, const char *key)
{
	if (t->fmt != OUT_JSON || !t->top_open)
		return NULL;
	json_close(t, 1);
	if (t->kids_open) {
		jw_end_array(t->jw);
		t->kids_open = false;
	}
	jw_name(t->jw, key);
	return t->jw;
}

void out_table__separator(struct out_table *t)
{
	int i;

	assert(!t->in_row || t->kind == ROW_TOTAL);
	if (t->fmt != OUT_TEXT)
		return;
	start(t);
	for (i = 0; i < t->line_width; i++)
		putc('-', t->f);
	putc('\n', t->f);
}

void out_table__free(struct out_table *t)
{
	if (!t)
		return;
	/* An error path may stop mid-row: still leave a complete table. */
	if (t->in_row)
		out_table__row_end(t);
	start(t);
	if (t->fmt == OUT_JSON && !t->ended) {
		json_close(t, 0);
		jw_end_array(t->jw);
	}
	fflush(t->f);
	table_destroy(t);
}

/* --- documents ------------------------------------------------------------------------- */

struct out_doc {
	FILE *f;
	enum out_format fmt;
	struct json_writer *jw;
};

struct out_doc *out_doc__new(FILE *f, enum out_format fmt, bool pretty)
{
	struct out_doc *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->f = f;
	d->fmt = fmt;
	if (fmt == OUT_JSON) {
		d->jw = jw_new(f, pretty);
		if (!d->jw) {
			free(d);
			return NULL;
		}
		jw_start_object(d->jw);
	}
	return d;
}

void out_doc__free(struct out_doc *d)
{
	if (!d)
		return;
	if (d->jw) {
		jw_end_object(d->jw);
		jw_free(d->jw);
	}
	fflush(d->f);
	free(d);
}

enum out_format out_doc__format(const struct out_doc *d)
{
	return d->fmt;
}

FILE *out_doc__file(const struct out_doc *d)
{
	return d->f;
}

struct json_writer *out_doc__jw(struct out_doc *d)
{
	return d->jw;
}

struct out_table *out_doc__table(struct out_doc *d, const char *key, const struct out_col *cols, int ncols)
{
	struct out_table *t = table_new(d->f, d->fmt, cols, ncols);

	if (!t)
		return NULL;
	t->jw = d->jw;
	t->key = key;
	t->total_key = "total";
	return t;
}
