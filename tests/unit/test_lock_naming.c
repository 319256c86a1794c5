// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one rule that names a lock (lib/format/lock_naming.c): each step of
 * its order against the next, a lock on a stack by each caller, the
 * anonymous and user names, and what counts as an anonymous name.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "format/lock_naming.h"
#include "fixtures.h"

#define HEAP_LOCK	0xffff888100009000ULL
#define IMAGE_LOCK	(FX_DATA_END + 0x1c8)	/* in the image, no symbol: vmlinux+0x20011c8 */

static struct ksyms ks;

static int setup(void **state)
{
	(void)state;
	return fx_ksyms(&ks);
}

static int teardown(void **state)
{
	(void)state;
	ksyms_free(&ks);
	return 0;
}

/* The name of f by the rule with the fixture's symbols, and the step expected. */
static void expect_name(const struct lock_facts *f, const char *want, enum lock_name_step step)
{
	char name[320];

	assert_int_equal(lock_name_kernel(&ks, NULL, f, name, sizeof(name)), step);
	assert_string_equal(name, want);
}

/* 1. BPF's class, before a symbol and whatever the recording found. */
static void test_class_first(void **state)
{
	struct lock_facts f = { .addr = FX_TASKLIST_LOCK, .lock_class = LOCK_CLASS_FILES_FILE_LOCK,
				.found = "rq.__lock", .caller = "alloc_fd+0x20" };
	char name[64];

	(void)state;
	expect_name(&f, "files_struct.file_lock", LOCK_NAMED_CLASS);
	f.addr = HEAP_LOCK;
	f.lock_class = LOCK_CLASS_RQ_LOCK;
	expect_name(&f, "rq.__lock", LOCK_NAMED_CLASS);
	/* A class needs no symbols. */
	f.lock_class = LOCK_CLASS_MM_MMAP_LOCK;
	assert_int_equal(lock_name_kernel(NULL, NULL, &f, name, sizeof(name)), LOCK_NAMED_CLASS);
	assert_string_equal(name, "mm_struct.mmap_lock");
	/* A class lockstat does not know is none. */
	f.lock_class = LOCK_CLASS__COUNT;
	f.found = NULL;
	expect_name(&f, "0xffff888100009000", LOCK_NAMED_ADDRESS);
}

/* 2. A static symbol, before what the recording found there. */
static void test_static_before_found(void **state)
{
	struct lock_facts f = { .addr = FX_TASKLIST_LOCK, .found = "rq.__lock", .caller = "alloc_fd+0x20" };

	(void)state;
	expect_name(&f, "tasklist_lock", LOCK_NAMED_STATIC);
	f.addr = FX_TASKLIST_LOCK + 0x10;
	expect_name(&f, "tasklist_lock+0x10", LOCK_NAMED_STATIC);
}

/* 3. What the recording found, before the image offset; "" is nothing. */
static void test_found_before_image(void **state)
{
	struct lock_facts f = { .addr = IMAGE_LOCK, .found = "zone.lock", .caller = "alloc_fd+0x20" };

	(void)state;
	expect_name(&f, "zone.lock", LOCK_NAMED_FOUND);
	f.addr = HEAP_LOCK;
	f.found = "dentry.d_lockref.lock";
	expect_name(&f, "dentry.d_lockref.lock", LOCK_NAMED_FOUND);
	f.found = "";
	expect_name(&f, "0xffff888100009000", LOCK_NAMED_ADDRESS);
}

/* 3. A lock on a stack: [stack]@ each row's own caller's function, [stack] without one. */
static void test_stack_by_caller(void **state)
{
	struct lock_facts f = { .addr = 0xffffc900018c7cc0ULL, .found = LOCK_NAME_STACK, .caller = "alloc_fd+0x20" };

	(void)state;
	expect_name(&f, "[stack]@alloc_fd", LOCK_NAMED_STACK);
	f.caller = "do_sys_open+0x44/0x200";
	expect_name(&f, "[stack]@do_sys_open", LOCK_NAMED_STACK);
	f.caller = "[stack lost]";
	expect_name(&f, "[stack]", LOCK_NAMED_STACK);
	f.caller = "";
	expect_name(&f, "[stack]", LOCK_NAMED_STACK);
	f.caller = NULL;
	expect_name(&f, "[stack]", LOCK_NAMED_STACK);
}

/* 4. The image offset, before the bare address; 5. the bare address, caller or not. */
static void test_image_then_address(void **state)
{
	struct lock_facts f = { .addr = IMAGE_LOCK, .caller = "alloc_fd+0x20" };
	char name[64];

	(void)state;
	expect_name(&f, "vmlinux+0x20011c8", LOCK_NAMED_IMAGE);
	f.addr = HEAP_LOCK;
	expect_name(&f, "0xffff888100009000", LOCK_NAMED_ADDRESS);
	/* Without symbols a static lock is an address too. */
	f.addr = FX_TASKLIST_LOCK;
	assert_int_equal(lock_name_kernel(NULL, NULL, &f, name, sizeof(name)), LOCK_NAMED_ADDRESS);
	assert_string_equal(name, "0xffffffff83000000");
}

/* Which names a writer may keep for the address: not a class's (per row), not a stack's (per caller). */
static void test_per_address(void **state)
{
	(void)state;
	assert_false(lock_name_per_address(LOCK_NAMED_CLASS));
	assert_true(lock_name_per_address(LOCK_NAMED_STATIC));
	assert_true(lock_name_per_address(LOCK_NAMED_FOUND));
	assert_false(lock_name_per_address(LOCK_NAMED_STACK));
	assert_true(lock_name_per_address(LOCK_NAMED_IMAGE));
	assert_true(lock_name_per_address(LOCK_NAMED_ADDRESS));
}

/* The reader's step 5: 0xADDR@function of a caller, the address alone without one. */
static void test_anon(void **state)
{
	char name[64];

	(void)state;
	lock_name_anon(0xffff888100002000ULL, "alloc_fd+0x36/0x100", name, sizeof(name));
	assert_string_equal(name, "0xffff888100002000@alloc_fd");
	lock_name_anon(0xffff888100002000ULL, "[stack lost]", name, sizeof(name));
	assert_string_equal(name, "0xffff888100002000");
	lock_name_anon(0xffff888100002000ULL, NULL, name, sizeof(name));
	assert_string_equal(name, "0xffff888100002000");
	lock_name_by_caller("what", "fn", name, 7);	/* truncated, terminated */
	assert_string_equal(name, "what@f");
}

/* A user lock on the heap keeps its whole caller (C++'s operator+=), or "?". */
static void test_user_heap(void **state)
{
	char name[64];

	(void)state;
	lock_name_user_heap(0x7f0000001000ULL, "worker_main", name, sizeof(name));
	assert_string_equal(name, "0x7f0000001000@worker_main");
	lock_name_user_heap(0x7f0000001000ULL, "operator+=", name, sizeof(name));
	assert_string_equal(name, "0x7f0000001000@operator+=");
	lock_name_user_heap(0x7f0000001000ULL, NULL, name, sizeof(name));
	assert_string_equal(name, "0x7f0000001000@?");
}

/* What the rule's step 5 writes is anonymous; nothing else is. */
static void test_anon_len(void **state)
{
	(void)state;
	assert_int_equal(lock_name_anon_len("0xffff888100002000"), 18);
	assert_int_equal(lock_name_anon_len("0xffff888100002000@alloc_fd"), 18);
	assert_true(lock_name_is_anon("0x1@f"));
	assert_false(lock_name_is_anon("0x"));
	assert_false(lock_name_is_anon("0x@f"));
	assert_false(lock_name_is_anon("0xzz"));
	assert_false(lock_name_is_anon("0x12g"));
	assert_false(lock_name_is_anon("0xABC"));	/* the rule writes lowercase */
	assert_false(lock_name_is_anon("vmlinux+0x20011c8"));
	assert_false(lock_name_is_anon("[stack]@alloc_fd"));
	assert_false(lock_name_is_anon("runqueues+0x40"));
	assert_false(lock_name_is_anon(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_first),
		cmocka_unit_test(test_static_before_found),
		cmocka_unit_test(test_found_before_image),
		cmocka_unit_test(test_stack_by_caller),
		cmocka_unit_test(test_image_then_address),
		cmocka_unit_test(test_per_address),
		cmocka_unit_test(test_anon),
		cmocka_unit_test(test_user_heap),
		cmocka_unit_test(test_anon_len),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
