// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The mapping cache (lib/record/procmaps.h): mappings that replace each
 * other at one address resolved by when a PC was seen, /proc and the
 * tracker's records merged, the data address of a static lock, what is
 * written and what is forgotten; and the "module+0xOFFSET" name of a PC
 * no symbol table names (lib/record/uresolve.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "record/procmaps.h"
#include "record/uresolve.h"
#include "sym/syms.h"

#define TGID	4242

static struct proc_map pmap(uint64_t start, uint64_t end, uint64_t pgoff, const char *path,
			    uint64_t ino, uint64_t when)
{
	return (struct proc_map){ .tgid = TGID, .start = start, .end = end, .pgoff = pgoff,
		.dev = ino ? 0x801 : 0, .ino = ino, .mapped_ns = when, .path = (char *)path, .fd = -1 };
}

/* dlclose then dlopen of another library at the same place: each PC gets the one it was seen in. */
static void test_replaced_mapping(void **state)
{
	struct maps_cache mc;
	struct proc_map a = pmap(0x7f0000000000ULL, 0x7f0000010000ULL, 0x1000, "/lib/liba.so", 11, 100);
	struct proc_map b = pmap(0x7f0000000000ULL, 0x7f0000020000ULL, 0x2000, "/lib/libb.so", 12, 500);
	const struct proc_map *m;

	(void)state;
	maps_cache__init(&mc, 0);
	assert_int_equal(maps_cache__add(&mc, &a), 0);
	assert_int_equal(maps_cache__add(&mc, &b), 0);
	m = maps_cache__find(&mc, TGID, 0x7f0000000100ULL, 300);
	assert_non_null(m);
	assert_string_equal(m->path, "/lib/liba.so");
	m = maps_cache__find(&mc, TGID, 0x7f0000000100ULL, 700);
	assert_string_equal(m->path, "/lib/libb.so");
	/* Seen before either was made (clocks): the first one made after. */
	assert_string_equal(maps_cache__find(&mc, TGID, 0x7f0000000100ULL, 50)->path, "/lib/liba.so");
	/* No time: the last one made. */
	assert_string_equal(maps_cache__find(&mc, TGID, 0x7f0000000100ULL, 0)->path, "/lib/libb.so");
	/* Past a's end, only b ever covered it. */
	assert_string_equal(maps_cache__find(&mc, TGID, 0x7f0000018000ULL, 300)->path, "/lib/libb.so");
	assert_null(maps_cache__find(&mc, TGID, 0x7f0000030000ULL, 700));
	assert_null(maps_cache__find(&mc, TGID + 1, 0x7f0000000100ULL, 700));
	maps_cache__free(&mc);
}

/* What /proc showed before the record came: one mapping, made when the record says. */
static void test_proc_then_record(void **state)
{
	struct maps_cache mc;
	const struct proc_map *m;
	struct proc_map rec;
	uint64_t self = (uint64_t)(uintptr_t)test_proc_then_record;

	(void)state;
	maps_cache__init(&mc, 0);
	assert_int_equal(maps_cache__read_proc(&mc, getpid()), 0);
	m = maps_cache__find(&mc, getpid(), self, 0);
	assert_non_null(m);
	assert_int_equal(m->mapped_ns, 0);
	assert_true(m->ino != 0 && m->dev != 0);
	rec = *m;
	rec.mapped_ns = 12345;
	assert_int_equal(maps_cache__add(&mc, &rec), 0);
	m = maps_cache__find(&mc, getpid(), self, 0);
	assert_int_equal(m->mapped_ns, 12345);
	/* One mapping there, not two: the one before is the one after. */
	assert_ptr_equal(maps_cache__find(&mc, getpid(), self, 1), m);
	/* Read once: a second read adds nothing, and a process that is gone is an error. */
	assert_int_equal(maps_cache__read_proc(&mc, getpid()), 0);
	assert_int_equal(maps_cache__read_proc(&mc, 0x3fffffff), -ENOENT);
	maps_cache__free(&mc);
}

/*
 * The workload between fork and exec runs our code: our mappings are the
 * child's, until its exec's own cover the same addresses. Its /proc is
 * still read later (a child gone already: an error, not "read before").
 */
static void test_adopt_own(void **state)
{
	const uint32_t child = 0x3ffffff0;
	uint64_t self = (uint64_t)(uintptr_t)test_adopt_own;
	struct maps_cache mc;
	const struct proc_map *m;
	struct proc_map exec;

	(void)state;
	maps_cache__init(&mc, 0);
	assert_int_equal(maps_cache__adopt_own(&mc, child), 0);
	m = maps_cache__find(&mc, child, self, 1000);
	assert_non_null(m);
	assert_int_equal(m->tgid, child);
	assert_int_equal(m->mapped_ns, 0);
	assert_null(maps_cache__find(&mc, getpid(), self, 0));	/* ours are not read as ours */
	memset(&exec, 0, sizeof(exec));
	exec.tgid = child;
	exec.start = m->start;
	exec.end = m->end;
	exec.ino = 77;
	exec.dev = 1;
	exec.mapped_ns = 500;
	exec.path = (char *)"/usr/bin/workload";
	assert_int_equal(maps_cache__add(&mc, &exec), 0);
	assert_string_equal(maps_cache__find(&mc, child, self, 1000)->path, "/usr/bin/workload");
	assert_string_equal(maps_cache__find(&mc, child, self, 0)->path, "/usr/bin/workload");
	assert_int_equal(maps_cache__read_proc(&mc, child), -ENOENT);
	maps_cache__free(&mc);
}

/* -a: every process's mappings as they are at the start, ours among them. */
static void test_read_all(void **state)
{
	struct maps_cache mc;
	const struct proc_map *m;

	(void)state;
	maps_cache__init(&mc, 0);
	maps_cache__read_all(&mc);
	m = maps_cache__find(&mc, getpid(), (uint64_t)(uintptr_t)test_read_all, 0);
	assert_non_null(m);
	assert_int_equal(m->mapped_ns, 0);
	assert_non_null(maps_cache__data_map(&mc, getppid(), UINT64_MAX));	/* our parent's files too */
	maps_cache__free(&mc);
}

/* A static lock's address: .data in the file, .bss past it, the heap past a gap. */
static void test_data_map(void **state)
{
	struct maps_cache mc;
	struct proc_map text = pmap(0x55d000001000ULL, 0x55d000002000ULL, 0x1000, "/usr/bin/prog", 42, 10);
	struct proc_map lib = pmap(0x7f0000001000ULL, 0x7f0000002000ULL, 0x1000, "/lib/libc.so.6", 43, 20);
	struct proc_map jit = pmap(0x55d000008000ULL, 0x55d000009000ULL, 0, "", 0, 30);

	(void)state;
	maps_cache__init(&mc, 0);
	assert_int_equal(maps_cache__add(&mc, &text), 0);
	assert_int_equal(maps_cache__add(&mc, &lib), 0);
	assert_int_equal(maps_cache__add(&mc, &jit), 0);
	assert_string_equal(maps_cache__data_map(&mc, TGID, 0x55d000004010ULL)->path, "/usr/bin/prog");
	/* Anonymous memory is never the answer: the file below it is. */
	assert_string_equal(maps_cache__data_map(&mc, TGID, 0x55d000008010ULL)->path, "/usr/bin/prog");
	assert_string_equal(maps_cache__data_map(&mc, TGID, 0x7f0000003000ULL)->path, "/lib/libc.so.6");
	assert_null(maps_cache__data_map(&mc, TGID, 0x1000));
	maps_cache__free(&mc);
}

struct written {
	size_t calls;
	size_t maps;
	uint32_t tgid;
};

static int count_written(void *ctx, const struct proc_map *maps, size_t n)
{
	struct written *w = ctx;

	w->calls++;
	w->maps += n;
	w->tgid = maps[0].tgid;
	return 0;
}

/* Only what the profile refers to is written, each mapping once; the rest is forgotten at exit. */
static void test_write_and_purge(void **state)
{
	struct maps_cache mc;
	struct proc_map a = pmap(0x1000, 0x2000, 0, "/bin/a", 1, 10);
	struct proc_map b = pmap(0x1000, 0x2000, 0, "/bin/b", 2, 10);
	struct proc_map a2 = pmap(0x3000, 0x4000, 0, "/lib/liba2.so", 3, 20);
	struct written w = { 0 };

	(void)state;
	b.tgid = TGID + 1;
	maps_cache__init(&mc, 0);
	assert_int_equal(maps_cache__add(&mc, &a), 0);
	assert_int_equal(maps_cache__add(&mc, &b), 0);
	assert_int_equal(maps_cache__announce(&mc, TGID), 0);
	assert_true(maps_cache__announced(&mc, TGID));
	assert_false(maps_cache__announced(&mc, TGID + 1));
	assert_int_equal(maps_cache__write_new(&mc, count_written, &w), 0);
	assert_true(w.calls == 1 && w.maps == 1 && w.tgid == TGID);
	assert_int_equal(maps_cache__add(&mc, &a2), 0);	/* dlopen'd later */
	assert_int_equal(maps_cache__write_new(&mc, count_written, &w), 0);
	assert_true(w.calls == 2 && w.maps == 2);
	assert_int_equal(maps_cache__write_new(&mc, count_written, &w), 0);
	assert_int_equal(w.calls, 2);
	maps_cache__exited(&mc, TGID, 100);
	maps_cache__exited(&mc, TGID + 1, 100);
	maps_cache__purge(&mc, 50);	/* a drain that began before they exited */
	assert_non_null(maps_cache__find(&mc, TGID + 1, 0x1800, 0));
	maps_cache__purge(&mc, 150);
	assert_null(maps_cache__find(&mc, TGID + 1, 0x1800, 0));
	assert_non_null(maps_cache__find(&mc, TGID, 0x1800, 0));	/* announced: kept */
	maps_cache__free(&mc);
}

/*
 * Once their PCs are symbolized, the processes gone before a drain are
 * forgotten, announced or not; the living stay, and a reused PID starts
 * afresh.
 */
static void note_forgot(void *ctx, uint32_t tgid)
{
	*(uint32_t *)ctx = tgid;
}

static void test_forget_exited(void **state)
{
	uint32_t forgot = 0;
	struct maps_cache mc;
	struct proc_map a = pmap(0x1000, 0x2000, 0, "/bin/a", 1, 10);
	struct proc_map b = pmap(0x1000, 0x2000, 0, "/bin/b", 2, 10);
	struct proc_map c = pmap(0x5000, 0x6000, 0, "/bin/c", 3, 300);

	(void)state;
	b.tgid = TGID + 1;
	maps_cache__init(&mc, 0);
	assert_int_equal(maps_cache__add(&mc, &a), 0);
	assert_int_equal(maps_cache__add(&mc, &b), 0);
	assert_int_equal(maps_cache__announce(&mc, TGID), 0);
	assert_int_equal(maps_cache__announce(&mc, TGID + 1), 0);
	maps_cache__exited(&mc, TGID, 100);
	assert_int_equal(maps_cache__exited_held(&mc, 50), 0);	/* a drain that began before */
	assert_int_equal(maps_cache__exited_held(&mc, 150), 1);
	maps_cache__purge(&mc, 150);	/* announced: purge keeps it */
	assert_int_equal(maps_cache__exited_held(&mc, 150), 1);
	assert_true(maps_cache__known(&mc, TGID));
	assert_int_equal(maps_cache__forget_exited(&mc, 50, note_forgot, &forgot), 0);
	assert_int_equal(maps_cache__forget_exited(&mc, 150, note_forgot, &forgot), 1);
	assert_int_equal(forgot, TGID);	/* told, to be announced again */
	assert_false(maps_cache__known(&mc, TGID));
	assert_null(maps_cache__find(&mc, TGID, 0x1800, 0));
	assert_false(maps_cache__announced(&mc, TGID));
	assert_true(maps_cache__known(&mc, TGID + 1));	/* alive: kept */
	assert_non_null(maps_cache__find(&mc, TGID + 1, 0x1800, 0));
	assert_int_equal(maps_cache__exited_held(&mc, 150), 0);
	/* The PID again, another process: only its own mapping. */
	assert_int_equal(maps_cache__add(&mc, &c), 0);
	assert_true(maps_cache__known(&mc, TGID));
	assert_null(maps_cache__find(&mc, TGID, 0x1800, 0));
	assert_non_null(maps_cache__find(&mc, TGID, 0x5800, 0));
	maps_cache__free(&mc);
}

/* A PC in a file that names nothing, or no longer the file: its module and file offset, and why. */
static void test_fallback_name(void **state)
{
	char path[] = "/tmp/lockstat-maps-XXXXXX";
	struct maps_cache mc;
	struct proc_map m;
	struct usym_info u;
	struct uresolver r = { .maps = &mc };
	int fd = mkstemp(path);
	char want[64];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	r.syms = syms__new(NULL);
	assert_non_null(r.syms);
	maps_cache__init(&mc, 0);
	m = pmap(0x7f0000000000ULL, 0x7f0000010000ULL, 0x3000, path, 0, 10);
	assert_int_equal(maps_cache__add(&mc, &m), 0);
	assert_int_equal(uresolve(&r, TGID, 0x7f0000000123ULL, 0, &u), 0);
	assert_int_equal(u.why, USYM_NOT_ELF);
	assert_int_equal(u.nframes, 1);
	snprintf(want, sizeof(want), "%s+0x3123", strrchr(path, '/') + 1);
	assert_string_equal(u.frames[0].function, want);
	assert_string_equal(u.module, path);
	/* A file replaced at its path since it was mapped (another inode), not held open: not used. */
	m = pmap(0x7e0000000000ULL, 0x7e0000010000ULL, 0, "/proc/self/exe", 1, 10);
	assert_int_equal(maps_cache__add(&mc, &m), 0);
	assert_int_equal(uresolve(&r, TGID, 0x7e0000001000ULL, 0, &u), 0);
	assert_int_equal(u.why, USYM_NO_FILE);
	assert_string_equal(u.frames[0].function, "exe+0x1000");
	/* No mapping at all: nothing to name it by. */
	assert_int_equal(uresolve(&r, TGID, 0x1000, 0, &u), 0);
	assert_int_equal(u.why, USYM_NO_MAPPING);
	assert_int_equal(u.nframes, 0);
	syms__free(r.syms);
	maps_cache__free(&mc);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replaced_mapping),
		cmocka_unit_test(test_proc_then_record),
		cmocka_unit_test(test_adopt_own),
		cmocka_unit_test(test_read_all),
		cmocka_unit_test(test_data_map),
		cmocka_unit_test(test_write_and_purge),
		cmocka_unit_test(test_forget_exited),
		cmocka_unit_test(test_fallback_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
