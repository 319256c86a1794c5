// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cost ledger: its META keys written and read back, a profile
 * without them, the overhead and the probes' scaling, and the CPU-time
 * files' parsers (/proc/PID/stat, cpu.stat, /proc/stat).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include "fixtures.h"
#include "format/cost.h"
#include "record/cpu_read.h"

#define MS	1000000ULL

static struct cost_ledger sample_ledger(void)
{
	struct cost_ledger l = {
		.recorded = true, .recording_ns = 10000 * MS, .startup_ns = 800 * MS,
		.steady_ns = 50 * MS, .finish_ns = 40 * MS, .source = "command",
		.workload_known = true, .workload_ns = 20000 * MS, .note = "its rusage",
		.probes_known = true, .measured_ns = 1000 * MS, .nprobes = 2,
		.probes = { { "locks", 1000, 10 * MS }, { "targets", 5, 2000 } },
	};

	return l;
}

static void test_round_trip(void **state)
{
	struct cost_ledger in = sample_ledger(), out;
	struct cost_meta m;
	size_t n = cost_meta_keys(&in, &m);

	(void)state;
	assert_int_equal(n, 9);
	cost_meta_read(fx_meta_only(m.kv, n), &out);
	assert_true(out.recorded);
	assert_int_equal(out.recording_ns, in.recording_ns);
	assert_int_equal(out.startup_ns, in.startup_ns);
	assert_int_equal(out.steady_ns, in.steady_ns);
	assert_int_equal(out.finish_ns, in.finish_ns);
	assert_string_equal(out.source, "command");
	assert_true(out.workload_known);
	assert_int_equal(out.workload_ns, in.workload_ns);
	assert_string_equal(out.note, "its rusage");
	assert_true(out.probes_known);
	assert_int_equal(out.measured_ns, in.measured_ns);
	assert_int_equal(out.nprobes, 2);
	assert_string_equal(out.probes[1].name, "targets");
	assert_int_equal(out.probes[0].events, 1000);
	assert_int_equal(out.probes[1].run_ns, 2000);
}

/*
 * The probes measured a tenth of the time: scaled by ten. Overhead =
 * (100 ms + 20 us of probes + 50 ms own steady) / 20 s.
 */
static void test_overhead(void **state)
{
	struct cost_ledger l = sample_ledger();

	(void)state;
	assert_true(fabs(cost_probe_ns(&l, &l.probes[0]) - 100 * MS) < 1);
	assert_true(fabs(cost_probes_ns(&l) - (100 * MS + 20000)) < 1);
	assert_true(fabs(cost_overhead_pct(&l) - 100.0 * (150 * MS + 20000) / (20000 * MS)) < 1e-9);
	/* Measured throughout (another tool held the stats on): as counted. */
	l.measured_ns = l.recording_ns;
	assert_true(fabs(cost_probes_ns(&l) - (10 * MS + 2000)) < 1);
	/* A term unknown, or a workload that used no CPU: no overhead. */
	l.workload_ns = 0;
	assert_true(isnan(cost_overhead_pct(&l)));
	l = sample_ledger();
	l.workload_known = false;
	assert_true(isnan(cost_overhead_pct(&l)));
	l = sample_ledger();
	l.probes_known = false;
	assert_true(isnan(cost_probes_ns(&l)));
	assert_true(isnan(cost_overhead_pct(&l)));
}

/* Unknown terms are left out of the keys and come back unknown. */
static void test_unknown_terms(void **state)
{
	struct cost_ledger in = sample_ledger(), out;
	struct cost_meta m;
	size_t n;

	(void)state;
	in.workload_known = in.probes_known = false;
	in.note = "";
	n = cost_meta_keys(&in, &m);
	assert_int_equal(n, 5);
	cost_meta_read(fx_meta_only(m.kv, n), &out);
	assert_true(out.recorded);
	assert_false(out.workload_known);
	assert_false(out.probes_known);
	assert_string_equal(out.note, "");
}

/* Profiles from before the ledger, and keys that do not parse: not recorded. */
static void test_missing(void **state)
{
	struct kv old[] = { { "kernel", "6.1" } };
	struct kv bad[] = { { "cost.recording_ns", "100" }, { "cost.own.startup_ns", "1" },
			    { "cost.own.steady_ns", "-1" }, { "cost.own.finish_ns", "1" } };
	struct kv badprobes[] = { { "cost.recording_ns", "100" }, { "cost.own.startup_ns", "1" },
				  { "cost.own.steady_ns", "1" }, { "cost.own.finish_ns", "1" },
				  { "cost.probes.measured_ns", "10" }, { "cost.probes", "locks:1" } };
	struct cost_ledger l;

	(void)state;
	cost_meta_read(fx_meta_only(old, 1), &l);
	assert_false(l.recorded);
	assert_true(isnan(cost_overhead_pct(&l)));
	cost_meta_read(fx_meta_only(bad, 4), &l);
	assert_false(l.recorded);
	cost_meta_read(fx_meta_only(badprobes, 6), &l);
	assert_false(l.recorded);
}

static void test_parsers(void **state)
{
	/* A command with ") " in it; utime 100 stime 20 cutime 3 cstime 4. */
	const char *pid_stat = "4242 (a) b) S 1 4242 4242 0 -1 4194560 500 0 0 0 100 20 3 4 20 0 1 0";
	const char *cg = "usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n";
	const char *stat = "cpu  100 2 30 4000 50 6 7 80 0 0\ncpu0 50 1 15 2000 25 3 3 40 0 0\n";
	uint64_t v;

	(void)state;
	assert_int_equal(cpu_parse_pid_stat(pid_stat, &v), 0);
	assert_int_equal(v, 127);
	assert_int_equal(cpu_parse_pid_stat("4242 (a) S 1", &v), -EINVAL);
	assert_int_equal(cpu_parse_cgroup_stat(cg, &v), 0);
	assert_int_equal(v, 123456);
	assert_int_equal(cpu_parse_cgroup_stat("user_usec 1\n", &v), -EINVAL);
	assert_int_equal(cpu_parse_proc_stat(stat, &v), 0);
	assert_int_equal(v, 100 + 2 + 30 + 6 + 7);
	assert_int_equal(cpu_parse_proc_stat("intr 1\n", &v), -EINVAL);
}

/* The readers: this process's CPU is part of the machine's; a process that is not there is ENOENT. */
static void test_readers(void **state)
{
	uint64_t a, b;

	(void)state;
	assert_int_equal(cpu_read_pid_ns(getpid(), &a), 0);
	assert_int_equal(cpu_read_machine_ns(&b), 0);
	assert_true(b >= a);
	assert_int_equal(cpu_read_pid_ns(-1, &a), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_unknown_terms),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_readers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
