// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/json.h"
#include "out/output.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define COL_ANY		(-1)	/* for take_col(): none fits every column */

struct out_table {
	FILE *f;
	enum out_format fmt;
	struct out_col *cols;	/* own copy, text widths widened to headers */
	int ncols;
	int name_col;		/* the column that gets the indent, or -1 */
	int line_width;		/* of the text header, for separators */
	bool started;		/* header or "[" written */
	bool in_row;
	int col;		/* the column the next value fills */
	int indent;
	bool approx;		/* the next value is an estimate: "~" in text */
	bool pretty;
	struct json_writer *jw;	/* OUT_JSON only */
};

int out_format_parse(const char *s, enum out_format *fmt)
{
	static const char *const names[] = {
		[OUT_TEXT] = "text",
		[OUT_JSON] = "json",
		[OUT_CSV] = "csv",
	};
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(names); i++) {
		if (!strcmp(s, names[i])) {
			*fmt = (enum out_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* n / d rounded half up, without the overflow of (n + d / 2) / d. */
static unsigned long long div_round(unsigned long long n, unsigned long long d)
{
	return n / d + (n % d >= d - d / 2);
}

void fmt_ns(char *buf, size_t len, unsigned long long ns)
{
	static const struct {
		unsigned long long ns;
		const char *name;
	} units[] = { { 1000ULL, "us" }, { 1000000ULL, "ms" },
		      { 1000000000ULL, "s" } };
	unsigned long long centi;
	size_t i;

	if (ns < 1000) {
		snprintf(buf, len, "%llu ns", ns);
		return;
	}
	/* Integer hundredths: exact, and 999999 ns reads "1.00 ms". */
	for (i = 0;; i++) {
		centi = div_round(ns, units[i].ns / 100);
		if (centi < 100000 || i == ARRAY_SIZE(units) - 1)
			break;
	}
	snprintf(buf, len, "%llu.%02llu %s", centi / 100, centi % 100,
		 units[i].name);
}

/* CSV gets the number as JSON does: %.6g with '.' whatever LC_NUMERIC. */
static void fmt_csv_double(char *buf, size_t len, double v)
{
	char *out = buf;
	const char *s;

	snprintf(buf, len, "%.6g", v);
	for (s = buf; *s; s++) {
		if (strchr("0123456789+-eE", *s))
			*out++ = *s;
		else if (out == buf || out[-1] != '.')
			*out++ = '.';
	}
	*out = '\0';
}

/* Widths grow to fit headers so that rows line up under them. */
static void text_layout(struct out_table *t)
{
	struct out_col *c;
	int i, hlen;

	t->name_col = -1;
	t->line_width = 2 * (t->ncols - 1);
	for (i = 0; i < t->ncols; i++) {
		c = &t->cols[i];
		hlen = (int)strlen(c->header);
		if (c->width && c->width < hlen)
			c->width = hlen;
		t->line_width += c->width ? c->width : hlen;
		if (t->name_col < 0 && c->type == COL_STR && c->left)
			t->name_col = i;
	}
}

struct out_table *out_table__new(FILE *f, enum out_format fmt,
				 const struct out_col *cols, int ncols)
{
	struct out_table *t;

	assert(ncols > 0);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cols = calloc(ncols, sizeof(*cols));
	if (!t->cols)
		goto err;
	memcpy(t->cols, cols, ncols * sizeof(*cols));
	t->f = f;
	t->fmt = fmt;
	t->ncols = ncols;
	t->pretty = isatty(fileno(f));
	if (fmt == OUT_JSON && !(t->jw = jw_new(f, t->pretty)))
		goto err;
	text_layout(t);
	return t;
err:
	free(t->cols);
	free(t);
	return NULL;
}

void out_table__set_pretty(struct out_table *t, bool pretty)
{
	struct json_writer *jw;

	if (t->fmt != OUT_JSON || t->started || t->pretty == pretty)
		return;
	/* On ENOMEM keep the old writer: other whitespace, same JSON. */
	jw = jw_new(t->f, pretty);
	if (!jw)
		return;
	jw_free(t->jw);
	t->jw = jw;
	t->pretty = pretty;
}

/* Value s of column i; only the name column is indented. */
static void text_cell(struct out_table *t, int i, const char *s, int indent)
{
	const struct out_col *c = &t->cols[i];
	int len = (int)printable_len(s) + 2 * indent;
	int pad = c->width > len ? c->width - len : 0;

	if (i > 0)
		fputs("  ", t->f);
	if (!c->left)
		fprintf(t->f, "%*s", pad, "");
	fprintf(t->f, "%*s", 2 * indent, "");
	fput_printable(t->f, s);
	/* No trailing blanks after the last column. */
	if (c->left && i < t->ncols - 1)
		fprintf(t->f, "%*s", pad, "");
}

/* RFC 4180: quote only when needed, doubling embedded quotes. */
static void csv_field(struct out_table *t, int i, const char *s)
{
	if (i > 0)
		putc(',', t->f);
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, t->f);
		return;
	}
	putc('"', t->f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', t->f);
		putc(*s, t->f);
	}
	putc('"', t->f);
}

static void print_header(struct out_table *t)
{
	int i;

	for (i = 0; i < t->ncols; i++) {
		if (t->fmt == OUT_TEXT)
			text_cell(t, i, t->cols[i].header, 0);
		else
			csv_field(t, i, t->cols[i].key);
	}
	putc('\n', t->f);
}

/* Header or "[" go out lazily, so set_pretty() can still act until then. */
static void start(struct out_table *t)
{
	if (t->started)
		return;
	t->started = true;
	if (t->fmt == OUT_JSON)
		jw_start_array(t->jw);
	else
		print_header(t);
}

void out_table__row_begin(struct out_table *t, int indent)
{
	assert(!t->in_row);
	start(t);
	t->in_row = true;
	t->col = 0;
	t->indent = indent > 0 ? indent : 0;
	if (t->fmt == OUT_JSON)
		jw_start_object(t->jw);
}

/*
 * The column the next value fills, NULL when the row is already full;
 * in JSON its key is written here.
 */
static const struct out_col *take_col(struct out_table *t, int type)
{
	const struct out_col *c;

	assert(t->in_row && t->col < t->ncols);
	if (!t->in_row || t->col >= t->ncols)
		return NULL;
	c = &t->cols[t->col];
	assert(type == COL_ANY || (int)c->type == type);
	(void)type;	/* only assert() looks at it */
	if (t->fmt == OUT_JSON) {
		jw_name(t->jw, c->key);
		t->approx = false;
	}
	return c;
}

void out_table__approx(struct out_table *t)
{
	t->approx = true;
}

/* Text or CSV value of the current column. */
static void put_cell(struct out_table *t, const char *s)
{
	int indent = t->col == t->name_col ? t->indent : 0;
	char approx[64];

	if (t->approx && t->fmt == OUT_TEXT && strlen(s) < sizeof(approx) - 1) {
		snprintf(approx, sizeof(approx), "~%s", s);
		s = approx;
	}
	t->approx = false;
	if (t->fmt == OUT_TEXT)
		text_cell(t, t->col, s, indent);
	else
		csv_field(t, t->col, s);
}

static const char *none_text(const struct out_table *t)
{
	return t->fmt == OUT_CSV ? "" : "-";
}

void out_table__none(struct out_table *t)
{
	if (!take_col(t, COL_ANY))
		return;
	if (t->fmt == OUT_JSON)
		jw_null(t->jw);
	else
		put_cell(t, none_text(t));
	t->col++;
}

void out_table__str(struct out_table *t, const char *s)
{
	if (!take_col(t, COL_STR))
		return;
	if (t->fmt == OUT_JSON)
		jw_string(t->jw, s);
	else
		put_cell(t, s ? s : none_text(t));
	t->col++;
}

void out_table__u64(struct out_table *t, unsigned long long v)
{
	char buf[32];

	if (!take_col(t, COL_U64))
		return;
	if (t->fmt == OUT_JSON) {
		jw_u64(t->jw, v);
	} else {
		snprintf(buf, sizeof(buf), "%llu", v);
		put_cell(t, buf);
	}
	t->col++;
}

void out_table__ns(struct out_table *t, unsigned long long ns)
{
	char buf[32];

	if (!take_col(t, COL_NS))
		return;
	if (t->fmt == OUT_JSON) {
		jw_u64(t->jw, ns);
		t->col++;
		return;
	}
	if (t->fmt == OUT_TEXT)
		fmt_ns(buf, sizeof(buf), ns);
	else
		snprintf(buf, sizeof(buf), "%llu", ns);
	put_cell(t, buf);
	t->col++;
}

void out_table__pct(struct out_table *t, double pct)
{
	char buf[64];

	if (!take_col(t, COL_PCT))
		return;
	if (t->fmt == OUT_JSON) {
		jw_double(t->jw, pct);	/* nan/inf: null */
		t->col++;
		return;
	}
	if (!isfinite(pct))
		snprintf(buf, sizeof(buf), "%s", none_text(t));
	else if (t->fmt == OUT_TEXT)
		snprintf(buf, sizeof(buf), "%.2f", pct);
	else
		fmt_csv_double(buf, sizeof(buf), pct);
	put_cell(t, buf);
	t->col++;
}

void out_table__hex(struct out_table *t, unsigned long long v)
{
	char buf[32];

	if (!take_col(t, COL_HEX))
		return;
	if (t->fmt == OUT_JSON) {
		jw_u64(t->jw, v);
	} else {
		snprintf(buf, sizeof(buf), "0x%llx", v);
		put_cell(t, buf);
	}
	t->col++;
}

void out_table__row_end(struct out_table *t)
{
	assert(t->in_row);
	if (!t->in_row)
		return;
	while (t->col < t->ncols)
		out_table__none(t);
	t->in_row = false;
	if (t->fmt == OUT_JSON)
		jw_end_object(t->jw);
	else
		putc('\n', t->f);
}

void out_table__separator(struct out_table *t)
{
	int i;

	assert(!t->in_row);
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
	if (t->fmt == OUT_JSON)
		jw_end_array(t->jw);
	fflush(t->f);
	jw_free(t->jw);
	free(t->cols);
	free(t);
}

/* --- text for a terminal --------------------------------------------------------- */

/* The length of the UTF-8 character at s, 0 when the bytes are not one. */
static size_t utf8_char(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The next piece of s: one character as it is, or bytes to escape. Its length. */
static size_t next_piece(const unsigned char *s, bool *escape)
{
	size_t n;

	if (*s >= 0x20 && *s < 0x7f) {
		*escape = false;
		return 1;
	}
	n = *s < 0x80 ? 0 : utf8_char(s);
	/* U+0080 to U+009F, C1 controls (CSI is U+009B): C2 80 to C2 9F. */
	*escape = !n || (s[0] == 0xc2 && s[1] < 0xa0);
	return n ? n : 1;
}

size_t printable_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, n;
	bool esc;

	for (; *p; p += n) {
		n = next_piece(p, &esc);
		len += esc ? 4 * n : n;
	}
	return len;
}

const char *fmt_printable(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, n, i;
	bool esc;

	if (!len)
		return buf;
	for (; *p; p += n) {
		n = next_piece(p, &esc);
		if (used + (esc ? 4 * n : n) >= len)
			break;
		for (i = 0; i < n; i++) {
			if (esc)
				used += snprintf(buf + used, 5, "\\x%02x", p[i]);
			else
				buf[used++] = p[i];
		}
	}
	buf[used] = '\0';
	return buf;
}

void fput_printable(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, i;
	bool esc;

	for (; *p; p += n) {
		n = next_piece(p, &esc);
		for (i = 0; i < n; i++) {
			if (esc)
				fprintf(f, "\\x%02x", p[i]);
			else
				putc(p[i], f);
		}
	}
}

void fprintf_printable(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n, end;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	for (end = n; end > 0 && text[end - 1] == '\n'; end--)
		;
	text[end] = '\0';
	fput_printable(f, text);
	for (; end < n; end++)	/* the newlines of fmt that end the text */
		putc('\n', f);
	free(text);
}
