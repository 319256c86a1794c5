// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/json.h"

/* Every test writes into memory and compares the exact bytes. */
struct fixture {
	char *buf;
	size_t len;
	FILE *f;
	struct json_writer *jw;
};

static int setup_compact(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->f = open_memstream(&fx->buf, &fx->len);
	fx->jw = fx->f ? jw_new(fx->f, false) : NULL;
	*state = fx;
	return fx->jw ? 0 : -1;
}

static int setup_pretty(void **state)
{
	struct fixture *fx;

	if (setup_compact(state))
		return -1;
	fx = *state;
	jw_free(fx->jw);
	fx->jw = jw_new(fx->f, true);
	return fx->jw ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	jw_free(fx->jw);
	if (fx->f)
		fclose(fx->f);
	free(fx->buf);
	free(fx);
	return 0;
}

static const char *output(void **state)
{
	struct fixture *fx = *state;

	fflush(fx->f);
	return fx->buf;
}

static struct json_writer *jw_of(void **state)
{
	return ((struct fixture *)*state)->jw;
}

/* {"a":1,"b":[1,2,{"c":null}],"d":{},"e":[]} in either layout */
static void write_nested(struct json_writer *jw)
{
	jw_start_object(jw);
	jw_u64_field(jw, "a", 1);
	jw_name(jw, "b");
	jw_start_array(jw);
	jw_u64(jw, 1);
	jw_u64(jw, 2);
	jw_start_object(jw);
	jw_null_field(jw, "c");
	jw_end_object(jw);
	jw_end_array(jw);
	jw_name(jw, "d");
	jw_start_object(jw);
	jw_end_object(jw);
	jw_name(jw, "e");
	jw_start_array(jw);
	jw_end_array(jw);
	jw_end_object(jw);
}

static void test_compact_nesting(void **state)
{
	write_nested(jw_of(state));
	assert_string_equal(output(state),
			    "{\"a\":1,\"b\":[1,2,{\"c\":null}],"
			    "\"d\":{},\"e\":[]}\n");
}

static void test_pretty_nesting(void **state)
{
	write_nested(jw_of(state));
	assert_string_equal(output(state),
			    "{\n"
			    "  \"a\": 1,\n"
			    "  \"b\": [\n"
			    "    1,\n"
			    "    2,\n"
			    "    {\n"
			    "      \"c\": null\n"
			    "    }\n"
			    "  ],\n"
			    "  \"d\": {},\n"
			    "  \"e\": []\n"
			    "}\n");
}

static void test_json_lines(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_object(jw);
	jw_string_field(jw, "event", "start");
	jw_end_object(jw);
	jw_start_object(jw);
	jw_u64_field(jw, "n", 2);
	jw_end_object(jw);
	jw_u64(jw, 7);
	assert_string_equal(output(state),
			    "{\"event\":\"start\"}\n{\"n\":2}\n7\n");
}

static void test_pretty_json_lines(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_array(jw);
	jw_bool(jw, true);
	jw_end_array(jw);
	jw_start_array(jw);
	jw_end_array(jw);
	assert_string_equal(output(state), "[\n  true\n]\n[]\n");
}

static void test_field_helpers(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_object(jw);
	jw_string_field(jw, "s", "x");
	jw_string_field(jw, "ns", NULL);
	jw_u64_field(jw, "u", 3);
	jw_i64_field(jw, "i", -3);
	jw_double_field(jw, "d", 0.5);
	jw_bool_field(jw, "t", true);
	jw_bool_field(jw, "f", false);
	jw_null_field(jw, "z");
	jw_end_object(jw);
	assert_string_equal(output(state),
			    "{\"s\":\"x\",\"ns\":null,\"u\":3,\"i\":-3,"
			    "\"d\":0.5,\"t\":true,\"f\":false,\"z\":null}\n");
}

static void test_escape_ascii(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_array(jw);
	jw_string(jw, "q\"b\\s/");
	jw_string(jw, "\b\f\n\r\t");
	jw_string(jw, "\x01\x1f\x7f~");
	jw_string(jw, "");
	jw_end_array(jw);
	assert_string_equal(output(state),
			    "[\"q\\\"b\\\\s/\",\"\\b\\f\\n\\r\\t\","
			    "\"\\u0001\\u001f\x7f~\",\"\"]\n");
}

static void test_escape_key(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_object(jw);
	jw_u64_field(jw, "a\"b\n", 1);
	jw_end_object(jw);
	assert_string_equal(output(state), "{\"a\\\"b\\n\":1}\n");
}

static void test_utf8_valid_kept(void **state)
{
	/* 2, 3 and 4 byte sequences, and the edges of the valid ranges */
	const char *s = "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 "
			"\xc2\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf \xed\x9f\xbf";
	char expect[128];

	jw_string(jw_of(state), s);
	snprintf(expect, sizeof(expect), "\"%s\"\n", s);
	assert_string_equal(output(state), expect);
}

static void test_utf8_invalid_replaced(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_array(jw);
	jw_string(jw, "a\x80z");		/* lone continuation byte */
	jw_string(jw, "\xff\xfe");		/* never valid */
	jw_string(jw, "\xc0\xaf");		/* overlong '/' */
	jw_string(jw, "\xe2\x82" "A");		/* truncated, then ASCII */
	jw_string(jw, "\xe2\x82");		/* truncated at the end */
	jw_string(jw, "\xed\xa0\x80");		/* surrogate U+D800 */
	jw_string(jw, "\xf4\x90\x80\x80");	/* past U+10FFFF */
	jw_end_array(jw);
	assert_string_equal(output(state),
			    "[\"a\\ufffdz\","
			    "\"\\ufffd\\ufffd\","
			    "\"\\ufffd\\ufffd\","
			    "\"\\ufffd\\ufffdA\","
			    "\"\\ufffd\\ufffd\","
			    "\"\\ufffd\\ufffd\\ufffd\","
			    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"]\n");
}

static void test_integers(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_array(jw);
	jw_u64(jw, ULLONG_MAX);
	jw_u64(jw, 0);
	jw_i64(jw, -1);
	jw_i64(jw, LLONG_MIN);
	jw_i64(jw, LLONG_MAX);
	jw_end_array(jw);
	assert_string_equal(output(state),
			    "[18446744073709551615,0,-1,"
			    "-9223372036854775808,9223372036854775807]\n");
}

static void test_doubles(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_array(jw);
	jw_double(jw, 12.34);
	jw_double(jw, 3.0);
	jw_double(jw, -2.0);
	jw_double(jw, 123456789.0);	/* %.6g alone would say 1.23457e+08 */
	jw_double(jw, 999999999999999.0);
	jw_double(jw, 1e15);		/* from here on, %.6g */
	jw_double(jw, 0.000123456789);
	jw_double(jw, 1234.56789);
	jw_end_array(jw);
	assert_string_equal(output(state),
			    "[12.34,3,-2,123456789,999999999999999,"
			    "1e+15,0.000123457,1234.57]\n");
}

static void test_doubles_non_finite(void **state)
{
	struct json_writer *jw = jw_of(state);

	jw_start_object(jw);
	jw_double_field(jw, "nan", NAN);
	jw_double_field(jw, "inf", INFINITY);
	jw_double_field(jw, "ninf", -INFINITY);
	jw_end_object(jw);
	assert_string_equal(output(state),
			    "{\"nan\":null,\"inf\":null,\"ninf\":null}\n");
}

static void test_max_depth(void **state)
{
	struct json_writer *jw = jw_of(state);
	char expect[2 * JW_MAX_DEPTH + 2];
	int i;

	for (i = 0; i < JW_MAX_DEPTH; i++)
		jw_start_array(jw);
	for (i = 0; i < JW_MAX_DEPTH; i++)
		jw_end_array(jw);
	for (i = 0; i < JW_MAX_DEPTH; i++) {
		expect[i] = '[';
		expect[JW_MAX_DEPTH + i] = ']';
	}
	expect[2 * JW_MAX_DEPTH] = '\n';
	expect[2 * JW_MAX_DEPTH + 1] = '\0';
	assert_string_equal(output(state), expect);
}

/* One level too deep must stop the program, not overrun the stack array. */
static void test_too_deep_aborts(void **state)
{
	int status, i;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Die of it, rather than in cmocka's handler. */
		signal(SIGABRT, SIG_DFL);
		for (i = 0; i <= JW_MAX_DEPTH; i++)
			jw_start_array(jw_of(state));
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void test_free_null(void **state)
{
	(void)state;
	jw_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_compact_nesting,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_pretty_nesting,
						setup_pretty, teardown),
		cmocka_unit_test_setup_teardown(test_json_lines,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_pretty_json_lines,
						setup_pretty, teardown),
		cmocka_unit_test_setup_teardown(test_field_helpers,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_escape_ascii,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_escape_key,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_utf8_valid_kept,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_utf8_invalid_replaced,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_integers,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_doubles,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_doubles_non_finite,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_max_depth,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(test_too_deep_aborts,
						setup_compact, teardown),
		cmocka_unit_test(test_free_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
