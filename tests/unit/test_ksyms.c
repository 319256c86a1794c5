// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sym/ksyms.h"

/*
 * A kallsyms excerpt: core text, the .spinlock.text section, core data of
 * each kind, and two modules listed in load order, not address order.
 */
static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t alloc_fd\n"
	"ffffffff81001100 T do_sys_open\n"
	"ffffffff81002000 T queued_spin_lock_slowpath\n"
	"ffffffff81002400 T rwsem_down_write_slowpath\n"
	"ffffffff81002800 T mutex_lock\n"
	"ffffffff81002900 T helper_after\n"
	"ffffffff82000000 T __lock_text_start\n"
	"ffffffff82000000 T lock_text_first\n"
	"ffffffff82000100 T _raw_spin_lock\n"
	"ffffffff82001000 T __lock_text_end\n"
	"ffffffff82001000 T after_lock_text\n"
	"ffffffff82800000 T __sched_text_start\n"
	"ffffffff82800000 t __schedule\n"
	"ffffffff82800800 T schedule\n"
	"ffffffff82801000 T __sched_text_end\n"
	"ffffffff82801000 T exit_to_user_mode_loop\n"
	"ffffffff83000000 D tasklist_lock\n"
	"ffffffff83000040 d static_data\n"
	"ffffffff83000080 B bss_var\n"
	"ffffffff830000c0 R ro_var\n"
	"ffffffff83000100 T text_after_data\n"
	"ffffffff83001000 D __start_init_stack\n"
	"ffffffffc0003000 t bar_fn\t[bar_mod]\n"
	"ffffffffc0001000 t foo_fn\t[foo_mod]\n"
	"ffffffffc0001080 t foo_other\t[foo_mod]\n"
	"ffffffffc0002000 d foo_data\t[foo_mod]\n";

#define NSYMS	28

static int load_text(struct ksyms *ks, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	assert_non_null(f);
	ksyms_init(ks);
	err = ksyms_load_file(ks, f);
	fclose(f);
	return err;
}

static int setup(void **state)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	*state = ks;
	if (!ks)
		return -1;
	return load_text(ks, kallsyms);
}

static int teardown(void **state)
{
	struct ksyms *ks = *state;

	ksyms_free(ks);
	free(ks);
	return 0;
}

static void expect_sym(const struct ksyms *ks, uint64_t addr, const char *name,
		       const char *module, char type)
{
	const struct ksym *k = ksyms_find(ks, addr);

	assert_non_null(k);
	assert_string_equal(k->name, name);
	assert_string_equal(ksyms_module(ks, k), module);
	assert_int_equal(k->type, type);
	assert_true(addr >= k->addr && addr - k->addr < k->size);
}

static void test_parse(void **state)
{
	struct ksyms *ks = *state;
	size_t i;

	assert_int_equal(ks->count, NSYMS);
	for (i = 1; i < ks->count; i++)
		assert_true(ks->syms[i - 1].addr <= ks->syms[i].addr);
	assert_true(ks->lock_text_start == 0xffffffff82000000ULL);
	assert_true(ks->lock_text_end == 0xffffffff82001000ULL);
	assert_true(ks->sched_text_start == 0xffffffff82800000ULL);
	assert_true(ks->sched_text_end == 0xffffffff82801000ULL);
}

static void test_lookup_core(void **state)
{
	struct ksyms *ks = *state;
	const struct ksym *k;

	expect_sym(ks, 0xffffffff81001000ULL, "alloc_fd", "", 't');
	expect_sym(ks, 0xffffffff810010ffULL, "alloc_fd", "", 't');
	/* Upper-case types are kept lower case. */
	expect_sym(ks, 0xffffffff81001100ULL, "do_sys_open", "", 't');
	expect_sym(ks, 0xffffffff83000050ULL, "static_data", "", 'd');

	/* Sizes run to the next symbol. */
	k = ksyms_find(ks, 0xffffffff81001000ULL);
	assert_true(k->size == 0x100);
	k = ksyms_find(ks, 0xffffffff81002400ULL);
	assert_true(k->size == 0x400);

	/* Two names at one address: either is fine, but it must be one of them. */
	k = ksyms_find(ks, 0xffffffff81000010ULL);
	assert_non_null(k);
	assert_true(!strcmp(k->name, "_stext") || !strcmp(k->name, "startup_64"));
}

static void test_lookup_modules(void **state)
{
	struct ksyms *ks = *state;

	expect_sym(ks, 0xffffffffc0001000ULL, "foo_fn", "foo_mod", 't');
	expect_sym(ks, 0xffffffffc000107fULL, "foo_fn", "foo_mod", 't');
	expect_sym(ks, 0xffffffffc0001080ULL, "foo_other", "foo_mod", 't');
	expect_sym(ks, 0xffffffffc0002010ULL, "foo_data", "foo_mod", 'd');
	expect_sym(ks, 0xffffffffc0003000ULL, "bar_fn", "bar_mod", 't');
	/* The last symbol has no successor: it gets one page. */
	expect_sym(ks, 0xffffffffc0003fffULL, "bar_fn", "bar_mod", 't');
}

static void test_lookup_outside(void **state)
{
	struct ksyms *ks = *state;
	struct ksyms empty;

	assert_null(ksyms_find(ks, 0));
	assert_null(ksyms_find(ks, 0xffff888100000000ULL));
	assert_null(ksyms_find(ks, 0xffffffff80ffffffULL));
	assert_null(ksyms_find(ks, 0xffffffffc0004000ULL));
	assert_null(ksyms_find(ks, UINT64_MAX));

	ksyms_init(&empty);
	assert_null(ksyms_find(&empty, 0xffffffff81001000ULL));
	assert_null(ksyms_find_data(&empty, 0xffffffff81001000ULL));
	assert_false(ksyms_is_lock_function(&empty, 0xffffffff81001000ULL));
	ksyms_free(&empty);
}

static void test_format(void **state)
{
	struct ksyms *ks = *state;
	char buf[64], small[6];

	ksyms_format(ks, 0xffffffff81001020ULL, buf, sizeof(buf));
	assert_string_equal(buf, "alloc_fd+0x20");
	ksyms_format(ks, 0xffffffff81001000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "alloc_fd");
	ksyms_format(ks, 0xffffffffc00010abULL, buf, sizeof(buf));
	assert_string_equal(buf, "foo_other+0x2b");
	ksyms_format(ks, 0x1000, buf, sizeof(buf));
	assert_string_equal(buf, "0x1000");
	ksyms_format(ks, 0xffff888100000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffff888100000000");
	/* Truncated, still terminated. */
	ksyms_format(ks, 0xffffffff81001020ULL, small, sizeof(small));
	assert_string_equal(small, "alloc");
}

static void test_find_data(void **state)
{
	struct ksyms *ks = *state;
	const struct ksym *k;

	k = ksyms_find_data(ks, 0xffffffff83000000ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "tasklist_lock");
	k = ksyms_find_data(ks, 0xffffffff83000048ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "static_data");
	k = ksyms_find_data(ks, 0xffffffff83000080ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "bss_var");
	k = ksyms_find_data(ks, 0xffffffff830000c8ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "ro_var");
	k = ksyms_find_data(ks, 0xffffffffc0002000ULL);
	assert_non_null(k);
	assert_string_equal(k->name, "foo_data");

	/* Text is not data. */
	assert_null(ksyms_find_data(ks, 0xffffffff81001000ULL));
	assert_null(ksyms_find_data(ks, 0xffffffff83000100ULL));
	assert_null(ksyms_find_data(ks, 0xffffffffc0001000ULL));
	assert_null(ksyms_find_data(ks, 0xffff888100000000ULL));
	/* A section bound names nothing after it (kernels without KALLSYMS_ALL list only those). */
	assert_null(ksyms_find_data(ks, 0xffffffff83001000ULL));
	assert_null(ksyms_find_data(ks, 0xffffffff83009080ULL));
}

static void test_lock_functions(void **state)
{
	struct ksyms *ks = *state;

	/* Inside .spinlock.text, whatever the name. */
	assert_true(ksyms_is_lock_function(ks, 0xffffffff82000000ULL));
	assert_true(ksyms_is_lock_function(ks, 0xffffffff82000010ULL));
	assert_true(ksyms_is_lock_function(ks, 0xffffffff82000110ULL));
	assert_true(ksyms_is_lock_function(ks, 0xffffffff82000fffULL));
	/* __lock_text_end is exclusive. */
	assert_false(ksyms_is_lock_function(ks, 0xffffffff82001000ULL));
	assert_false(ksyms_is_lock_function(ks, 0xffffffff82001010ULL));
	/* Inside .sched.text: schedule() takes the run queue's lock for its caller. */
	assert_true(ksyms_is_lock_function(ks, 0xffffffff82800010ULL));
	assert_true(ksyms_is_lock_function(ks, 0xffffffff82800810ULL));
	assert_false(ksyms_is_lock_function(ks, 0xffffffff82801010ULL));
	/* Slow paths outside it, by name. */
	assert_true(ksyms_is_lock_function(ks, 0xffffffff81002010ULL));
	assert_true(ksyms_is_lock_function(ks, 0xffffffff81002410ULL));
	assert_true(ksyms_is_lock_function(ks, 0xffffffff81002804ULL));
	/* Callers. */
	assert_false(ksyms_is_lock_function(ks, 0xffffffff81001020ULL));
	assert_false(ksyms_is_lock_function(ks, 0xffffffff81001110ULL));
	assert_false(ksyms_is_lock_function(ks, 0xffffffff81002910ULL));
	assert_false(ksyms_is_lock_function(ks, 0xffffffffc0001010ULL));
	/* Nothing known there. */
	assert_false(ksyms_is_lock_function(ks, 0xffff888100000000ULL));
}

static void test_lock_functions_by_name_only(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _raw_spin_lock_irqsave\n"
		"ffffffff81000100 T lock_text_first\n"
		"ffffffff81000200 T down_read\n"
		"ffffffff81000300 t alloc_fd\n";
	struct ksyms ks;

	(void)state;
	assert_int_equal(load_text(&ks, text), 0);
	assert_true(ks.lock_text_start == 0 && ks.lock_text_end == 0);
	assert_true(ksyms_is_lock_function(&ks, 0xffffffff81000010ULL));
	assert_false(ksyms_is_lock_function(&ks, 0xffffffff81000110ULL));
	assert_true(ksyms_is_lock_function(&ks, 0xffffffff81000210ULL));
	assert_false(ksyms_is_lock_function(&ks, 0xffffffff81000310ULL));
	ksyms_free(&ks);
}

static void test_hidden_addresses(void **state)
{
	static const char text[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 t alloc_fd\n"
		"0000000000000000 t foo_fn\t[foo_mod]\n";
	struct ksyms ks;

	(void)state;
	assert_int_equal(load_text(&ks, text), -EPERM);
	ksyms_free(&ks);
}

/* No symbols at all (a profile without KSYMS chunks sorts an empty table). */
static void test_empty(void **state)
{
	FILE *f = fopen("/dev/null", "r");	/* fmemopen refuses a zero size */
	struct ksyms ks;

	(void)state;
	assert_non_null(f);
	ksyms_init(&ks);
	assert_int_equal(ksyms_load_file(&ks, f), 0);
	assert_int_equal(ks.count, 0);
	assert_null(ksyms_find(&ks, 0xffffffff81000000ULL));
	fclose(f);
	ksyms_sort(&ks);
	ksyms_free(&ks);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"not a kallsyms line\n",
		"ffffffff81000000\n",
		"ffffffff81000000 T\n",
		"ffffffff81000000 TT name\n",
		"ffffffff81000000\tT name\n",
	};
	struct ksyms ks;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load_text(&ks, bad[i]), -EINVAL);
		ksyms_free(&ks);
	}
}

static void test_add_and_sort(void **state)
{
	struct ksyms ks;
	const struct ksym *k;

	(void)state;
	ksyms_init(&ks);
	assert_int_equal(ksyms_add(&ks, 0x3000, 0, "c", "m", 'T'), 0);
	assert_int_equal(ksyms_add(&ks, 0x1000, 0x10, "a", NULL, 't'), 0);
	assert_int_equal(ksyms_add(&ks, 0x2000, 0, "b", "", 'D'), 0);
	ksyms_sort(&ks);
	assert_int_equal(ks.count, 3);
	assert_string_equal(ks.syms[0].name, "a");
	assert_string_equal(ks.syms[1].name, "b");
	assert_string_equal(ks.syms[2].name, "c");

	/* An explicit size is kept, not stretched to the next symbol. */
	k = ksyms_find(&ks, 0x100f);
	assert_non_null(k);
	assert_string_equal(k->name, "a");
	assert_null(ksyms_find(&ks, 0x1010));
	k = ksyms_find(&ks, 0x2fff);
	assert_non_null(k);
	assert_string_equal(k->name, "b");
	assert_int_equal(k->type, 'd');
	assert_string_equal(ksyms_module(&ks, k), "");
	k = ksyms_find(&ks, 0x3000);
	assert_string_equal(ksyms_module(&ks, k), "m");

	/* The table owns its strings. */
	{
		char name[] = "dynamic";

		assert_int_equal(ksyms_add(&ks, 0x5000, 0x10, name, NULL, 't'), 0);
		ksyms_sort(&ks);
		memset(name, 'x', sizeof(name) - 1);
		assert_string_equal(ksyms_find(&ks, 0x5000)->name, "dynamic");
	}
	ksyms_free(&ks);
	assert_int_equal(ks.count, 0);
	assert_null(ks.syms);
}

static void test_many_symbols(void **state)
{
	char name[32], mod[32];
	struct ksyms ks;
	uint32_t i;

	(void)state;
	ksyms_init(&ks);
	/* More than one growth of the symbol array and of the string list. */
	for (i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "fn_%u", i);
		snprintf(mod, sizeof(mod), "mod_%u", i / 100);
		assert_int_equal(ksyms_add(&ks, 0xffffffffc0000000ULL + (uint64_t)(9999 - i) * 0x10,
					   0, name, mod, 't'), 0);
	}
	ksyms_sort(&ks);
	for (i = 0; i < 10000; i++) {
		const struct ksym *k = ksyms_find(&ks, 0xffffffffc0000000ULL + (uint64_t)(9999 - i) * 0x10 + 0xf);

		snprintf(name, sizeof(name), "fn_%u", i);
		snprintf(mod, sizeof(mod), "mod_%u", i / 100);
		assert_non_null(k);
		assert_string_equal(k->name, name);
		assert_string_equal(ksyms_module(&ks, k), mod);
	}
	ksyms_free(&ks);
}

/*
 * A name longer than a block of names gets its own; the names before and
 * after stay whole, and a module's name is kept once for its symbols.
 */
static void test_long_name(void **state)
{
	size_t len = 70000;
	char *longname = malloc(len + 1);
	struct ksyms ks;

	(void)state;
	assert_non_null(longname);
	memset(longname, 'x', len);
	longname[len] = '\0';
	ksyms_init(&ks);
	assert_int_equal(ksyms_add(&ks, 0x1000, 0x10, "before", NULL, 't'), 0);
	assert_int_equal(ksyms_add(&ks, 0x2000, 0x10, longname, "mod", 't'), 0);
	assert_int_equal(ksyms_add(&ks, 0x3000, 0x10, "after", "mod", 't'), 0);
	ksyms_sort(&ks);
	assert_int_equal(ks.cap, ks.count);	/* the array fitted to its symbols */
	assert_string_equal(ksyms_find(&ks, 0x1008)->name, "before");
	assert_string_equal(ksyms_find(&ks, 0x2008)->name, longname);
	assert_string_equal(ksyms_find(&ks, 0x3008)->name, "after");
	assert_int_equal(ksyms_find(&ks, 0x2008)->module, ksyms_find(&ks, 0x3008)->module);
	assert_int_equal(ks.nmodules, 2);
	assert_string_equal(ksyms_module(&ks, ksyms_find(&ks, 0x1008)), "");
	ksyms_free(&ks);
	free(longname);
}

/*
 * A module seen again after another keeps its first index; sizes past
 * 32 bits, given or stretched to the next symbol, stop at 4 GiB - 1.
 */
static void test_modules_and_sizes(void **state)
{
	struct ksyms ks;
	const struct ksym *k;

	(void)state;
	ksyms_init(&ks);
	assert_int_equal(ksyms_add(&ks, 0x10, 0, "percpu_var", NULL, 'A'), 0);
	assert_int_equal(ksyms_add(&ks, 0x7fff00000000ULL, 0, "_text", NULL, 'T'), 0);
	assert_int_equal(ksyms_add(&ks, 0xffff000000001000ULL, 0x10, "a_fn", "a", 't'), 0);
	assert_int_equal(ksyms_add(&ks, 0xffff000000002000ULL, 0x10, "b_fn", "b", 't'), 0);
	assert_int_equal(ksyms_add(&ks, 0xffff000000003000ULL, (uint64_t)1 << 40, "a_big", "a", 't'), 0);
	ksyms_sort(&ks);
	assert_int_equal(ks.nmodules, 3);
	k = ksyms_find(&ks, 0xffff000000003000ULL + 0xfffffffeULL);
	assert_non_null(k);
	assert_string_equal(k->name, "a_big");
	assert_string_equal(ksyms_module(&ks, k), "a");
	assert_int_equal(k->size, UINT32_MAX);
	assert_null(ksyms_find(&ks, 0xffff000000003000ULL + UINT32_MAX));
	/* A per-CPU offset, 2^47 below the core's next symbol: cut at 4 GiB. */
	k = ksyms_find(&ks, 0x20);
	assert_non_null(k);
	assert_int_equal(k->size, UINT32_MAX);
	assert_null(ksyms_find(&ks, 0x10 + (uint64_t)UINT32_MAX));
	assert_string_equal(ksyms_module(&ks, ksyms_find(&ks, 0xffff000000002008ULL)), "b");
	ksyms_free(&ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_core, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_modules, setup, teardown),
		cmocka_unit_test(test_modules_and_sizes),
		cmocka_unit_test_setup_teardown(test_lookup_outside, setup, teardown),
		cmocka_unit_test_setup_teardown(test_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_functions, setup, teardown),
		cmocka_unit_test(test_lock_functions_by_name_only),
		cmocka_unit_test(test_hidden_addresses),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_add_and_sort),
		cmocka_unit_test(test_many_symbols),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
