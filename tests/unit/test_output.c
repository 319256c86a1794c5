// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "out/output.h"

/* Every test renders into memory and compares the exact bytes. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static int setup(void **state)
{
	struct mem *m = calloc(1, sizeof(*m));

	if (!m)
		return -1;
	m->f = open_memstream(&m->buf, &m->len);
	*state = m;
	return m->f ? 0 : -1;
}

static int teardown(void **state)
{
	struct mem *m = *state;

	if (m->f)
		fclose(m->f);
	free(m->buf);
	free(m);
	return 0;
}

static FILE *out_file(void **state)
{
	return ((struct mem *)*state)->f;
}

static const char *output(void **state)
{
	struct mem *m = *state;

	fflush(m->f);
	return m->buf;
}

/* COUNT's width 3 is narrower than its header: the column must widen. */
static const struct out_col cols[] = {
	{ "name", "NAME", COL_STR, 12, true },
	{ "count", "COUNT", COL_U64, 3, false },
	{ "wait_ns", "WAIT", COL_NS, 10, false },
	{ "pct", "%", COL_PCT, 6, false },
	{ "addr", "ADDR", COL_HEX, 0, true },
};
#define NCOLS	((int)(sizeof(cols) / sizeof(cols[0])))

static struct out_table *new_table(void **state, enum out_format fmt)
{
	struct out_table *t = out_table__new(out_file(state), fmt, cols, NCOLS);

	assert_non_null(t);
	return t;
}

static void row_full(struct out_table *t, int indent, const char *name,
		     unsigned long long count, unsigned long long ns,
		     double pct, unsigned long long addr)
{
	out_table__row_begin(t, indent);
	out_table__str(t, name);
	out_table__u64(t, count);
	out_table__ns(t, ns);
	out_table__pct(t, pct);
	out_table__hex(t, addr);
	out_table__row_end(t);
}

/* Nested, with nothing measured but the name and the wait. */
static void row_sparse(struct out_table *t, int indent, const char *name,
		       unsigned long long ns)
{
	out_table__row_begin(t, indent);
	out_table__str(t, name);
	out_table__none(t);
	out_table__ns(t, ns);
	out_table__pct(t, NAN);
	out_table__none(t);
	out_table__row_end(t);
}

static void test_text_table(void **state)
{
	struct out_table *t = new_table(state, OUT_TEXT);

	row_full(t, 0, "mutex_a", 42, 1500000, 12.5, 0xffff8881);
	row_sparse(t, 2, "caller", 999);
	out_table__separator(t);
	/* Too wide for its columns: printed whole, the row gets wider. */
	row_full(t, 0, "a_very_long_lock_name", 123456, 2000000000, 100, 0);
	out_table__free(t);
	assert_string_equal(output(state),
		"NAME          COUNT        WAIT       %  ADDR\n"
		"mutex_a          42     1.50 ms   12.50  0xffff8881\n"
		"    caller        -      999 ns       -  -\n"
		"---------------------------------------------\n"
		"a_very_long_lock_name  123456      2.00 s  100.00  0x0\n");
}

static void test_text_empty_table(void **state)
{
	out_table__free(new_table(state, OUT_TEXT));
	assert_string_equal(output(state),
		"NAME          COUNT        WAIT       %  ADDR\n");
}

static void test_text_separator_first(void **state)
{
	struct out_table *t = new_table(state, OUT_TEXT);

	out_table__separator(t);
	out_table__free(t);
	assert_string_equal(output(state),
		"NAME          COUNT        WAIT       %  ADDR\n"
		"---------------------------------------------\n");
}

/* Only the first left-aligned string column is indented. */
static void test_text_indent_name_col(void **state)
{
	static const struct out_col c[] = {
		{ "cpu", "CPU", COL_STR, 3, false },
		{ "name", "NAME", COL_STR, 8, true },
		/* last: no trailing blanks despite the width */
		{ "note", "NOTE", COL_STR, 6, true },
	};
	struct out_table *t = out_table__new(out_file(state), OUT_TEXT, c, 3);

	assert_non_null(t);
	out_table__row_begin(t, 1);
	out_table__str(t, "0");
	out_table__str(t, "fn");
	out_table__str(t, "x");
	out_table__row_end(t);
	out_table__free(t);
	assert_string_equal(output(state),
			    "CPU  NAME      NOTE\n"
			    "  0    fn      x\n");
}

/* Fields per record, by RFC 4180 (quoted CR/LF do not end a record). */
static void assert_csv_fields(const char *s, int nrecords, int nfields)
{
	int records = 0, fields = 1;
	bool quoted = false;

	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (!quoted && *s == ',')
			fields++;
		else if (!quoted && *s == '\n') {
			assert_int_equal(fields, nfields);
			records++;
			fields = 1;
		}
	}
	assert_false(quoted);
	assert_int_equal(records, nrecords);
}

static void test_csv(void **state)
{
	struct out_table *t = new_table(state, OUT_CSV);

	row_full(t, 2, "a,b", 42, 1500000, 12.5, 0xff);
	out_table__separator(t);
	row_sparse(t, 0, "say \"hi\"", 999);
	row_full(t, 0, "two\nlines", 0, 0, 0.0, 0);
	row_full(t, 0, NULL, 1, 1, 100.0 / 3, 1);
	out_table__row_begin(t, 0);
	out_table__str(t, "cr\r");
	out_table__row_end(t);
	out_table__free(t);
	assert_string_equal(output(state),
			    "name,count,wait_ns,pct,addr\n"
			    "\"a,b\",42,1500000,12.5,0xff\n"
			    "\"say \"\"hi\"\"\",,999,,\n"
			    "\"two\nlines\",0,0,0,0x0\n"
			    ",1,1,33.3333,0x1\n"
			    "\"cr\r\",,,,\n");
	assert_csv_fields(output(state), 6, NCOLS);
}

static void test_csv_empty_table(void **state)
{
	out_table__free(new_table(state, OUT_CSV));
	assert_string_equal(output(state), "name,count,wait_ns,pct,addr\n");
}

static void test_json_rows(void **state)
{
	struct out_table *t = new_table(state, OUT_JSON);

	row_full(t, 2, "a,b", 42, 1500000, 12.5, 0xff);
	out_table__separator(t);
	row_sparse(t, 1, "say \"hi\"", 999);
	out_table__free(t);
	assert_string_equal(output(state),
			    "[{\"name\":\"a,b\",\"count\":42,"
			    "\"wait_ns\":1500000,\"pct\":12.5,\"addr\":255},"
			    "{\"name\":\"say \\\"hi\\\"\",\"count\":null,"
			    "\"wait_ns\":999,\"pct\":null,\"addr\":null}]\n");
}

static void test_json_empty_table(void **state)
{
	out_table__free(new_table(state, OUT_JSON));
	assert_string_equal(output(state), "[]\n");
}

static void test_json_pretty(void **state)
{
	struct out_table *t = new_table(state, OUT_JSON);

	out_table__set_pretty(t, true);
	out_table__row_begin(t, 0);
	out_table__str(t, "x");
	out_table__u64(t, 1);
	out_table__row_end(t);
	out_table__free(t);
	assert_string_equal(output(state),
			    "[\n"
			    "  {\n"
			    "    \"name\": \"x\",\n"
			    "    \"count\": 1,\n"
			    "    \"wait_ns\": null,\n"
			    "    \"pct\": null,\n"
			    "    \"addr\": null\n"
			    "  }\n"
			    "]\n");
}

/* Switching layout mid-array would mix styles: it is ignored. */
static void test_json_pretty_too_late(void **state)
{
	struct out_table *t = new_table(state, OUT_JSON);

	row_full(t, 0, "x", 1, 2, 3, 4);
	out_table__set_pretty(t, true);
	out_table__free(t);
	assert_string_equal(output(state),
			    "[{\"name\":\"x\",\"count\":1,\"wait_ns\":2,"
			    "\"pct\":3,\"addr\":4}]\n");
}

/* An error path that frees mid-row still leaves a document that parses. */
static void test_json_free_mid_row(void **state)
{
	struct out_table *t = new_table(state, OUT_JSON);

	out_table__row_begin(t, 0);
	out_table__str(t, "x");
	out_table__free(t);
	assert_string_equal(output(state),
			    "[{\"name\":\"x\",\"count\":null,\"wait_ns\":null,"
			    "\"pct\":null,\"addr\":null}]\n");
}

/*
 * One description for a table with child rows, a total, a JSON group,
 * a text order and columns of one form only: a lock, its callers.
 */
enum { T_ROW, T_NAME, T_TYPE, T_CALLER, T_COUNT, T_IV_RATE, T_IV_WAIT, T_ADDR, T_USER, T_FRAMES, T__N };

static const struct out_col tree_cols[T__N] = {
	[T_ROW] = { "row", NULL, COL_STR, 0, false, OUT_NO_JSON },
	[T_NAME] = { "name", "lock / caller", COL_STR, 0, true, OUT_TOP, "lock" },
	[T_TYPE] = { "type", "type", COL_STR, 8, false, OUT_TOP },
	[T_CALLER] = { "symbol", NULL, COL_STR, 0, false, OUT_SUB, "caller" },
	[T_COUNT] = { "count", "count", COL_U64, 5, false },
	[T_IV_RATE] = { "iv.rate", "rate/s", COL_RATE, 6, false },
	[T_IV_WAIT] = { "iv.wait", "wait/s", COL_NS_RATE, 8, false },
	[T_ADDR] = { "addr", NULL, COL_ADDR, 0, false, OUT_TOP },
	[T_USER] = { "user", NULL, COL_BOOL, 0, false, OUT_TOP },
	[T_FRAMES] = { "frames", "frames", COL_STR, 6, true, OUT_NO_JSON | OUT_TOP },
};

static void tree_row(struct out_table *t, int depth, const char *kind, const char *caller,
		     unsigned long long count, double rate)
{
	out_table__row_begin(t, depth);
	out_table__str(t, kind);
	out_table__str(t, "big_lock");	/* repeated on its callers, for CSV */
	out_table__str(t, "mutex");
	out_table__str(t, caller);
	out_table__u64(t, count);
	out_table__num(t, rate);
	out_table__num(t, rate * 1000);
	out_table__hex(t, 0xffff888100001000ULL);
	out_table__bool(t, false);
	out_table__str(t, "a;b");
	out_table__row_end(t);
}

static void render_tree(void **state, enum out_format fmt)
{
	static const int text[] = { T_COUNT, T_IV_RATE, T_IV_WAIT, T_TYPE, T_NAME };
	struct out_doc *d = out_doc__new(out_file(state), fmt, false);
	struct out_table *t = out_doc__table(d, "locks", tree_cols, T__N);
	struct json_writer *jw;

	assert_non_null(t);
	assert_int_equal(out_table__text_order(t, text, 5), 0);
	out_table__set_children(t, "callers");
	tree_row(t, 0, "lock", NULL, 3, 2.5);
	tree_row(t, 1, "caller", "f+0x1", 2, 1.5);
	jw = out_table__extra(t, "hist");	/* after the callers, in the lock's object */
	if (jw) {
		jw_start_array(jw);
		jw_u64(jw, 7);
		jw_end_array(jw);
	}
	out_table__total_begin(t, "TOTAL");
	out_table__str(t, "total");
	out_table__none(t);
	out_table__none(t);
	out_table__none(t);
	out_table__u64(t, 3);
	out_table__text(t, "fast");
	out_table__num(t, NAN);
	out_table__row_end(t);
	out_table__free(t);
	out_doc__free(d);
}

static void test_tree_text(void **state)
{
	render_tree(state, OUT_TEXT);
	assert_string_equal(output(state),
		"count  rate/s    wait/s      type  lock / caller\n"
		"    3       3   2.50 us     mutex  big_lock\n"
		"    2       2   1.50 us              f+0x1\n"
		"------------------------------------------------\n"
		"    3    fast         -            TOTAL\n");
}

static void test_tree_csv(void **state)
{
	render_tree(state, OUT_CSV);
	assert_string_equal(output(state),
		"row,lock,type,caller,count,iv_rate,iv_wait,addr,user,frames\n"
		"lock,big_lock,mutex,,3,2.5,2500,0xffff888100001000,0,a;b\n"
		"caller,big_lock,mutex,f+0x1,2,1.5,1500,0xffff888100001000,0,a;b\n"
		"total,,,,3,,,,,\n");
}

static void test_tree_json(void **state)
{
	render_tree(state, OUT_JSON);
	assert_string_equal(output(state),
		"{\"locks\":[{\"name\":\"big_lock\",\"type\":\"mutex\",\"count\":3,"
		"\"iv\":{\"rate\":2.5,\"wait\":2500},\"addr\":\"0xffff888100001000\",\"user\":false,"
		"\"callers\":[{\"symbol\":\"f+0x1\",\"count\":2,\"iv\":{\"rate\":1.5,\"wait\":1500}}],"
		"\"hist\":[7]}],"
		"\"total\":{\"count\":3,\"iv\":{\"rate\":null}}}\n");
}

/* A total given first (top's totals): its object before the array. */
static void test_json_total_first(void **state)
{
	static const struct out_col c[] = { { "name", "N", COL_STR, 0, true, OUT_TOP }, { "n", "n", COL_U64 } };
	struct out_doc *d = out_doc__new(out_file(state), OUT_JSON, false);
	struct out_table *t = out_doc__table(d, "locks", c, 2);

	out_table__set_total(t, "totals", true);
	out_table__total_begin(t, NULL);
	out_table__none(t);
	out_table__u64(t, 5);
	out_table__row_end(t);
	out_table__row_begin(t, 0);
	out_table__str(t, "a");
	out_table__u64(t, 5);
	out_table__row_end(t);
	out_table__free(t);
	out_doc__free(d);
	assert_string_equal(output(state), "{\"totals\":{\"n\":5},\"locks\":[{\"name\":\"a\",\"n\":5}]}\n");
}

/* Text rounds rates half up, whatever printf's rounding of %.0f. */
static void test_rates_round_half_up(void **state)
{
	static const struct out_col c[] = {
		{ "rate", "R", COL_RATE, 3, false }, { "wait", "W", COL_NS_RATE, 0, false },
	};
	struct out_table *t = out_table__new(out_file(state), OUT_TEXT, c, 2);

	out_table__row_begin(t, 0);
	out_table__num(t, 2.5);
	out_table__num(t, 999.5);
	out_table__row_end(t);
	out_table__free(t);
	assert_string_equal(output(state), "  R  W\n  3  1.00 us\n");
}

static void assert_fmt_ns(unsigned long long ns, const char *expect)
{
	char buf[32];

	fmt_ns(buf, sizeof(buf), ns);
	assert_string_equal(buf, expect);
}

static void test_fmt_ns(void **state)
{
	(void)state;
	assert_fmt_ns(0, "0 ns");
	assert_fmt_ns(512, "512 ns");
	assert_fmt_ns(999, "999 ns");
	assert_fmt_ns(1000, "1.00 us");
	assert_fmt_ns(1004, "1.00 us");
	assert_fmt_ns(1005, "1.01 us");		/* half up */
	assert_fmt_ns(1230, "1.23 us");
	assert_fmt_ns(999994, "999.99 us");
	assert_fmt_ns(999995, "1.00 ms");	/* not "1000.00 us" */
	assert_fmt_ns(1000000, "1.00 ms");
	assert_fmt_ns(1500000, "1.50 ms");
	assert_fmt_ns(45600000, "45.60 ms");
	assert_fmt_ns(999999999, "1.00 s");
	assert_fmt_ns(2000000000, "2.00 s");
	assert_fmt_ns(3600000000000ULL, "3600.00 s");
	assert_fmt_ns(ULLONG_MAX, "18446744073.71 s");
}

static void test_format_parse(void **state)
{
	enum out_format fmt = OUT_TEXT;

	(void)state;
	assert_int_equal(out_format_parse("json", &fmt), 0);
	assert_int_equal(fmt, OUT_JSON);
	assert_int_equal(out_format_parse("csv", &fmt), 0);
	assert_int_equal(fmt, OUT_CSV);
	assert_int_equal(out_format_parse("text", &fmt), 0);
	assert_int_equal(fmt, OUT_TEXT);
	assert_int_equal(out_format_parse("JSON", &fmt), -EINVAL);
	assert_int_equal(out_format_parse("", &fmt), -EINVAL);
	assert_int_equal(out_format_parse("jsonl", &fmt), -EINVAL);
	assert_int_equal(out_format_parse(NULL, &fmt), -EINVAL);
	assert_int_equal(fmt, OUT_TEXT);
}

static void test_free_null(void **state)
{
	(void)state;
	out_table__free(NULL);
}

static void check_printable(const char *in, const char *want)
{
	char buf[256];

	fmt_printable(buf, sizeof(buf), in);
	if (strcmp(buf, want))
		fail_msg("fmt_printable(\"%s\") = \"%s\", want \"%s\"", in, buf, want);
	assert_int_equal(printable_len(in), strlen(want));
}

/* A workload's name cannot drive the terminal: control characters and non-UTF-8 as \xHH. */
static void test_printable(void **state)
{
	char buf[8], *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	check_printable("fdstorm -t 2", "fdstorm -t 2");
	check_printable("a\033[2Jb", "a\\x1b[2Jb");
	check_printable("\033]0;title\007", "\\x1b]0;title\\x07");
	check_printable("one\ntwo\r\t", "one\\x0atwo\\x0d\\x09");
	check_printable("del\177", "del\\x7f");
	check_printable("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\x92", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\x92");
	check_printable("csi\xc2\x9b" "31m", "csi\\xc2\\x9b31m");	/* U+009B, the C1 CSI */
	check_printable("bad\xff\xc3", "bad\\xff\\xc3");
	check_printable("cut\xe2\x86", "cut\\xe2\\x86");
	check_printable("", "");
	/* Cut at a whole escape or character, never half of one. */
	assert_string_equal(fmt_printable(buf, 6, "a\033b"), "a\\x1b");
	assert_string_equal(fmt_printable(buf, 5, "a\033b"), "a");
	assert_string_equal(fmt_printable(buf, 4, "ab\xc3\xa9"), "ab");
	assert_string_equal(fmt_printable(buf, 1, "abc"), "");
	/* printf: the text's own newlines at its end stay, the arguments' do not. */
	f = open_memstream(&text, &len);
	assert_non_null(f);
	fprintf_printable(f, "# command: %s\n\n", "x\ny\033");
	fclose(f);
	assert_string_equal(text, "# command: x\\x0ay\\x1b\n\n");
	free(text);
}

#define TEST(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_text_table),
		TEST(test_text_empty_table),
		TEST(test_text_separator_first),
		TEST(test_text_indent_name_col),
		TEST(test_csv),
		TEST(test_csv_empty_table),
		TEST(test_json_rows),
		TEST(test_json_empty_table),
		TEST(test_json_pretty),
		TEST(test_json_pretty_too_late),
		TEST(test_json_free_mid_row),
		TEST(test_tree_text),
		TEST(test_tree_csv),
		TEST(test_tree_json),
		TEST(test_rates_round_half_up),
		TEST(test_json_total_first),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
