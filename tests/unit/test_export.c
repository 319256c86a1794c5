// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat export's text formats: folded stacks (the counts add up to the
 * totals, frames root first, one stable order), JSON and CSV, for samples
 * and for lock waits, kernel and user.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include "export.h"
#include "profile.h"
#include "view_locks.h"
#include "fixtures.h"

#include "fixtures_samples.h"
#include "fixtures_ulocks.h"

/* --- helpers ------------------------------------------------------------------ */

static struct export_opts opts(enum export_format fmt, enum export_what what)
{
	struct export_opts o = { .format = fmt, .what = what, .filter = { .pid = -1 } };

	o.value = what == EXPORT_LOCKS ? EXPORT_VALUE_WAIT : EXPORT_VALUE_COUNT;
	return o;
}

/* The export as a string (malloc). */
static char *run(const struct profile *p, const struct export_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(export__text(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Sum of the folded counts; every line is "stack count", in strict byte order. */
static uint64_t folded_sum(const char *text, size_t *nlines)
{
	const char *line = text, *prev = NULL;
	uint64_t sum = 0;

	*nlines = 0;
	while (*line) {
		const char *nl = strchr(line, '\n'), *sp;

		assert_non_null(nl);
		sp = memrchr(line, ' ', nl - line);
		assert_non_null(sp);
		sum += strtoull(sp + 1, NULL, 10);
		if (prev)
			assert_true(strncmp(prev, line, nl - line) < 0);
		prev = line;
		(*nlines)++;
		line = nl + 1;
	}
	return sum;
}

/* --- samples ------------------------------------------------------------------- */

static void test_folded_samples(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_FOLDED, EXPORT_SAMPLES);
	char *text = run(p, &o);
	size_t n;

	(void)state;
	assert_string_equal(text,
		"app;__libc_start_call_main;main;hot_one 10\n"
		"app;__libc_start_call_main;main;hot_three;square 35\n"
		"app;__libc_start_call_main;main;hot_three;square;do_sys_open;alloc_fd 5\n"
		"kworker;do_sys_open;alloc_fd 7\n");
	assert_int_equal(folded_sum(text, &n), TOTAL_SAMPLES);
	assert_int_equal(n, 4);
	free(text);
	profile__free(p);
}

/* The sum equals what report --view hits counts, under every filter. */
static void test_folded_sums_match_hits(void **state)
{
	static const struct hits_filter filters[] = {
		{ .pid = -1 },
		{ .pid = -1, .kernel_only = true },
		{ .pid = -1, .user_only = true },
		{ .pid = 101 },
		{ .pid = 200 },
		{ .pid = -1, .comm = "kw*" },
		{ .pid = -1, .comm = "nothing" },
	};
	struct profile *p = sample_profile();
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		struct export_opts o = opts(EXPORT_FOLDED, EXPORT_SAMPLES);
		struct hits_view v;
		char *text;

		o.filter = filters[i];
		text = run(p, &o);
		assert_int_equal(hits_view__build(&v, p, &filters[i], false), 0);
		assert_int_equal(folded_sum(text, &n), v.total);
		hits_view__free(&v);
		free(text);
	}
	profile__free(p);
}

static void test_folded_annotate(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_FOLDED, EXPORT_SAMPLES);
	char *text;

	(void)state;
	o.annotate_kernel = true;
	o.filter.kernel_only = true;
	text = run(p, &o);
	assert_string_equal(text,
		"app;__libc_start_call_main;main;hot_three;square;do_sys_open_[k];alloc_fd_[k] 5\n"
		"kworker;do_sys_open_[k];alloc_fd_[k] 7\n");
	free(text);
	profile__free(p);
}

/* Two runs on two reads of the same file give the same bytes. */
static void test_stable_order(void **state)
{
	static const enum export_format fmts[] = { EXPORT_FOLDED, EXPORT_JSON, EXPORT_CSV };
	struct profile *a = sample_profile(), *b = sample_profile();
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct export_opts o = opts(fmts[i], EXPORT_SAMPLES);
		char *x = run(a, &o), *y = run(b, &o);

		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	profile__free(a);
	profile__free(b);
}

static void test_csv_samples(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_CSV, EXPORT_SAMPLES);
	char *text = run(p, &o);

	(void)state;
	/* Threads of one process merge; largest first. */
	assert_string_equal(text,
		"samples,comm,pid,frames\n"
		"35,app,100,__libc_start_call_main;main;hot_three;square\n"
		"10,app,100,__libc_start_call_main;main;hot_one\n"
		"7,kworker,200,do_sys_open;alloc_fd\n"
		"5,app,100,__libc_start_call_main;main;hot_three;square;do_sys_open;alloc_fd\n");
	free(text);
	profile__free(p);
}

static void test_json_samples(void **state)
{
	struct profile *p = sample_profile();
	struct export_opts o = opts(EXPORT_JSON, EXPORT_SAMPLES);
	char *text = run(p, &o);

	(void)state;
	assert_non_null(strstr(text, "\"what\":\"samples\""));
	assert_non_null(strstr(text, "\"value_type\":\"samples\""));
	assert_non_null(strstr(text, "\"total\":57"));
	assert_non_null(strstr(text, "\"sample_freq\":100"));
	/* The first stack is the largest, its root frame first. */
	assert_non_null(strstr(text, "\"stacks\":[{\"value\":35,\"comm\":\"app\",\"pid\":100,"
				     "\"frames\":[{\"function\":\"__libc_start_call_main\","
				     "\"module\":\"/lib/libc.so.6\",\"kernel\":false}"));
	assert_non_null(strstr(text, "{\"function\":\"alloc_fd\",\"module\":\"[kernel]\","
				     "\"kernel\":true}]}"));
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);
	profile__free(p);
}

/* --- locks --------------------------------------------------------------------- */

static void test_folded_locks(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_FOLDED, EXPORT_LOCKS);
	char *text = run(p, &o);
	size_t n;

	(void)state;
	assert_string_equal(text,
		"0xffff888100002000@alloc_fd;do_sys_open;alloc_fd;_raw_spin_lock 100000\n"
		"0xffff888100003000@do_sys_open;[stack lost] 50000\n"
		"0xffff888100003000@do_sys_open;do_sys_open;_raw_read_lock 70000\n"
		"files_struct.file_lock;do_sys_open;alloc_fd;_raw_spin_lock 7200\n"
		"files_struct.file_lock;do_sys_open;other_fn;alloc_fd;_raw_spin_lock 9000\n"
		"rq.__lock;do_sys_open;_raw_read_lock 400\n"
		"tasklist_lock;do_sys_open;_raw_read_lock 26000\n");
	assert_int_equal(folded_sum(text, &n), 262600);
	free(text);
	o.value = EXPORT_VALUE_COUNT;
	text = run(p, &o);
	assert_int_equal(folded_sum(text, &n), 20);
	assert_int_equal(n, 7);
	free(text);
	profile__free(p);
}

/* The folded total equals the locks view's total, filtered or not. */
static void test_folded_locks_match_view(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_FOLDED, EXPORT_LOCKS);
	struct lock_filter lf = { .pid = 101 };
	struct lock_view v;
	char *text;
	size_t n;

	(void)state;
	o.filter.pid = 101;
	text = run(p, &o);
	assert_string_equal(text, "tasklist_lock;do_sys_open;_raw_read_lock 6000\n");
	assert_int_equal(lock_view__build(&v, p, &lf), 0);
	assert_int_equal(folded_sum(text, &n), v.total.total_ns);
	lock_view__free(&v);
	free(text);
	profile__free(p);
}

static void test_csv_locks(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_CSV, EXPORT_LOCKS);
	char *text, *line;

	(void)state;
	o.value = EXPORT_VALUE_COUNT;
	text = run(p, &o);
	line = strchr(text, '\n');
	assert_non_null(line);
	*line = '\0';
	assert_string_equal(text, "contended,comm,pid,lock,type,frames");
	/* The rows of one lock and stack in two buckets are one. */
	assert_non_null(strstr(line + 1, "5,,0,files_struct.file_lock,spinlock,"
				     "do_sys_open;alloc_fd;_raw_spin_lock\n"));
	assert_non_null(strstr(line + 1, "1,worker,100,tasklist_lock,rwlock:W,"
				     "do_sys_open;_raw_read_lock\n"));
	assert_non_null(strstr(line + 1, "5,,0,0xffff888100003000@do_sys_open,rwsem:R,"
				     "[stack lost]\n"));
	free(text);
	profile__free(p);
}

static void test_json_locks(void **state)
{
	struct profile *p = lock_profile();
	struct export_opts o = opts(EXPORT_JSON, EXPORT_LOCKS);
	char *text = run(p, &o);

	(void)state;
	assert_non_null(strstr(text, "\"what\":\"locks\""));
	assert_non_null(strstr(text, "\"value_type\":\"wait_total_ns\""));
	assert_non_null(strstr(text, "\"total\":262600"));
	/* The largest wait first. */
	assert_non_null(strstr(text, "\"stacks\":[{\"value\":100000,\"comm\":\"\",\"pid\":0,"
				     "\"lock\":\"0xffff888100002000@alloc_fd\",\"type\":\"mutex\","
				     "\"contended\":1,\"wait_total_ns\":100000,\"frames\":["));
	free(text);
	profile__free(p);
}

/*
 * User locks are lock waits too: every format carries them, under the
 * names and with the totals of report's locks view, their frames the
 * user stack root first; the condition variable (no lock) stays out.
 */
static void test_user_locks(void **state)
{
	struct profile *p = fxu_profile();
	struct export_opts o = opts(EXPORT_FOLDED, EXPORT_LOCKS);
	struct lock_filter all = { .pid = -1 };
	struct lock_view v;
	char *text, heap[96];
	size_t n;

	(void)state;
	assert_non_null(p);
	text = run(p, &o);
	snprintf(heap, sizeof(heap), "0x%llx@storm_op;run_worker;storm_op;__lll_lock_wait 30\n",
		 (unsigned long long)HEAP_LOCK);
	assert_non_null(strstr(text, heap));
	assert_non_null(strstr(text, "storm_lock;run_worker;storm_op;pthread_mutex_lock;__lll_lock_wait 1000\n"));
	assert_null(strstr(text, "storm_cond"));
	assert_int_equal(folded_sum(text, &n), FXU_LOCK_WAIT_NS);
	assert_int_equal(n, 2);
	assert_int_equal(lock_view__build(&v, p, &all), 0);
	assert_int_equal(v.total.total_ns, FXU_LOCK_WAIT_NS);
	lock_view__free(&v);
	free(text);

	o = opts(EXPORT_JSON, EXPORT_LOCKS);
	o.value = EXPORT_VALUE_COUNT;
	text = run(p, &o);
	assert_non_null(strstr(text, "\"total\":13,"));
	assert_non_null(strstr(text, "{\"value\":10,\"comm\":\"mutexstorm\",\"pid\":42,\"lock\":\"storm_lock\","
				     "\"type\":\"u:mutex\",\"contended\":10,\"wait_total_ns\":1000,\"frames\":["
				     "{\"function\":\"run_worker\",\"module\":\"" PROG_PATH "\",\"kernel\":false}"));
	free(text);

	o = opts(EXPORT_CSV, EXPORT_LOCKS);
	o.filter.comm = "mutex*";
	text = run(p, &o);
	assert_non_null(strstr(text, "\n1000,mutexstorm,42,storm_lock,u:mutex,"
				     "run_worker;storm_op;pthread_mutex_lock;__lll_lock_wait\n"));
	free(text);
	o.filter.pid = TGID + 1;	/* another process: nothing */
	text = run(p, &o);
	assert_string_equal(text, "wait_total_ns,comm,pid,lock,type,frames\n");
	free(text);
	profile__free(p);
}

static void test_format_parse(void **state)
{
	enum export_format f;

	(void)state;
	assert_int_equal(export_format_parse("folded", &f), 0);
	assert_int_equal(f, EXPORT_FOLDED);
	assert_int_equal(export_format_parse("pprof", &f), 0);
	assert_int_equal(f, EXPORT_PPROF);
	assert_int_equal(export_format_parse("csv", &f), 0);
	assert_int_equal(f, EXPORT_CSV);
	assert_int_equal(export_format_parse("json", &f), 0);
	assert_int_equal(f, EXPORT_JSON);
	assert_int_equal(export_format_parse("svg", &f), 0);	/* lib/flame.c */
	assert_int_equal(f, EXPORT_SVG);
	assert_int_equal(export_format_parse("png", &f), -EINVAL);
	assert_int_equal(export_format_parse("", &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_samples),
		cmocka_unit_test(test_folded_sums_match_hits),
		cmocka_unit_test(test_folded_annotate),
		cmocka_unit_test(test_stable_order),
		cmocka_unit_test(test_csv_samples),
		cmocka_unit_test(test_json_samples),
		cmocka_unit_test(test_folded_locks),
		cmocka_unit_test(test_folded_locks_match_view),
		cmocka_unit_test(test_csv_locks),
		cmocka_unit_test(test_json_locks),
		cmocka_unit_test(test_user_locks),
		cmocka_unit_test(test_format_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
