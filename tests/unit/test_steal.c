// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Steal time: /proc/stat's text parsed per CPU, a tracker over readings
 * of a file rewritten between them, the META keys read back, and what
 * the steal says of a long spinning wait, as the report says it.
 */
#include <errno.h>
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
#include "format/steal.h"
#include "out/head.h"
#include "record/steal_read.h"

#define MS	1000000ULL

/* A kernel 6.x /proc/stat: the total, two CPUs (steal 19 and 7), the rest. */
static const char two_cpus[] =
	"cpu  14946 0 3866 38830 538 0 50 26 0 0\n"
	"cpu0 6969 0 1737 20383 21 0 4 19 0 0\n"
	"cpu1 7977 0 2129 18447 516 0 45 7 0 0\n"
	"intr 207382 0 0 0 0\n"
	"ctxt 1234\n"
	"btime 1700000000\n"
	"processes 500\n";

static void test_parse(void **state)
{
	uint64_t t[4];

	(void)state;
	assert_int_equal(steal_parse(two_cpus, t, 4), 2);
	assert_int_equal(t[0], 19);
	assert_int_equal(t[1], 7);
	assert_int_equal(t[2], STEAL_ABSENT);
	assert_int_equal(t[3], STEAL_ABSENT);
}

/* cpu1 offline: not listed, its slot absent; the count goes to the highest listed. */
static void test_parse_sparse(void **state)
{
	static const char text[] = "cpu  1 2 3 4 5 6 7 8\n"
				   "cpu0 1 1 1 1 1 1 1 5\n"
				   "cpu2 1 1 1 1 1 1 1 300 0 0\n";
	uint64_t t[3], one;

	(void)state;
	assert_int_equal(steal_parse(text, t, 3), 3);
	assert_int_equal(t[0], 5);
	assert_int_equal(t[1], STEAL_ABSENT);
	assert_int_equal(t[2], 300);
	/* Fewer slots than CPUs: the count says how many to ask for. */
	assert_int_equal(steal_parse(text, &one, 1), 3);
	assert_int_equal(one, 5);
}

static void test_parse_bad(void **state)
{
	uint64_t t[2];

	(void)state;
	/* Before 2.6.11 a cpu line had no steal field. */
	assert_int_equal(steal_parse("cpu0 1 2 3 4 5 6 7\n", t, 2), -EINVAL);
	assert_int_equal(steal_parse("cpu0 1 2 3 4 5 6 7 x\n", t, 2), -EINVAL);
	assert_int_equal(steal_parse("cpu0: 1 2 3 4 5 6 7 8\n", t, 2), -EINVAL);
	assert_int_equal(steal_parse("cpu  1 2 3 4 5 6 7 8\nintr 1\n", t, 2), -ENOENT);
	assert_int_equal(steal_parse("", t, 2), -ENOENT);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Readings of a file rewritten between them: totals, the largest interval, a CPU that comes online. */
static void test_tracker(void **state)
{
	char path[] = "/tmp/lockstat-steal.XXXXXX";
	struct steal_tracker st;
	struct steal_summary s;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick = 1000000000ULL / hz;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "cpu0 0 0 0 0 0 0 0 100\ncpu1 0 0 0 0 0 0 0 50\n");
	assert_int_equal(steal_tracker__init(&st, path, 1000 * MS, 1000), 0);
	write_file(path, "cpu0 0 0 0 0 0 0 0 101\ncpu1 0 0 0 0 0 0 0 54\n");
	assert_int_equal(steal_tracker__sample(&st, 1000 + 1000 * MS), 0);
	/* cpu2 online from here; cpu1's counter read lower (no CPU's steal goes back): ignored. */
	write_file(path, "cpu0 0 0 0 0 0 0 0 103\ncpu1 0 0 0 0 0 0 0 53\ncpu2 0 0 0 0 0 0 0 7\n");
	assert_int_equal(steal_tracker__sample(&st, 1000 + 2000 * MS), 0);
	write_file(path, "cpu0 0 0 0 0 0 0 0 103\ncpu1 0 0 0 0 0 0 0 55\ncpu2 0 0 0 0 0 0 0 8\n");
	assert_int_equal(steal_tracker__sample(&st, 1000 + 3000 * MS), 0);
	steal_tracker__summary(&st, &s);
	assert_true(s.recorded);
	assert_int_equal(s.tick_ns, tick);
	assert_int_equal(s.ncpus, 3);
	assert_int_equal(s.total_ns, (3 + 5 + 1) * tick);
	assert_int_equal(s.max_iv_ns, 4 * tick);
	assert_int_equal(s.max_iv_cpu, 1);
	assert_int_equal(s.cpu_time_ns, 3 * 3000 * MS);
	assert_int_equal(s.boot_ns, (103 + 55 + 8) * tick);
	assert_int_equal(s.interval_ns, 1000 * MS);
	{
		char want[128];

		snprintf(want, sizeof(want), "0:%llu:%llu 1:%llu:%llu 2:%llu:%llu", 3 * (unsigned long long)tick,
			 2 * (unsigned long long)tick, 5 * (unsigned long long)tick, 4 * (unsigned long long)tick,
			 1 * (unsigned long long)tick, 1 * (unsigned long long)tick);
		assert_string_equal(s.per_cpu, want);
	}
	/* serve's next profile counts from the last reading. */
	steal_tracker__restart(&st);
	steal_tracker__summary(&st, &s);
	assert_int_equal(s.total_ns, 0);
	assert_int_equal(s.max_iv_cpu, -1);
	/* A file gone: that reading fails, what was read stays. */
	unlink(path);
	assert_int_equal(steal_tracker__sample(&st, 5000 * MS), -ENOENT);
	steal_tracker__free(&st);
	assert_int_equal(steal_tracker__init(&st, path, 1000 * MS, 0), -ENOENT);
}

static void test_meta_round_trip(void **state)
{
	struct steal_summary in = { .recorded = true, .tick_ns = 10 * MS, .total_ns = 30 * MS,
				    .cpu_time_ns = 4000 * MS, .max_iv_ns = 20 * MS, .max_iv_cpu = 1,
				    .interval_ns = 1000 * MS, .ncpus = 2, .boot_ns = 190 * MS,
				    .per_cpu = "0:10000000:10000000 1:20000000:20000000" }, out;
	struct steal_meta m;
	size_t n = steal_meta_keys(&in, &m);
	char line[256];

	(void)state;
	assert_int_equal(n, STEAL_META_KEYS);
	steal_meta_read(fx_meta_only(m.kv, n), &out);
	assert_true(out.recorded);
	assert_int_equal(out.tick_ns, in.tick_ns);
	assert_int_equal(out.total_ns, in.total_ns);
	assert_int_equal(out.cpu_time_ns, in.cpu_time_ns);
	assert_int_equal(out.max_iv_ns, in.max_iv_ns);
	assert_int_equal(out.max_iv_cpu, 1);
	assert_int_equal(out.interval_ns, in.interval_ns);
	assert_int_equal(out.ncpus, 2);
	assert_int_equal(out.boot_ns, in.boot_ns);
	assert_string_equal(out.per_cpu, in.per_cpu);
	assert_string_equal(out_steal_line(&out, line, sizeof(line)),
			    "30.00 ms (0.75 % of CPU time), at most 20.00 ms in one interval on cpu1; "
			    "counted in 10.00 ms ticks");
	/* No interval lost anything: no CPU to name, and none since boot is said. */
	in.total_ns = in.max_iv_ns = in.boot_ns = 0;
	in.max_iv_cpu = -1;
	n = steal_meta_keys(&in, &m);
	steal_meta_read(fx_meta_only(m.kv, n), &out);
	assert_int_equal(out.max_iv_cpu, -1);
	assert_string_equal(out_steal_line(&out, line, sizeof(line)),
			    "0 ns (0.00 % of CPU time); counted in 10.00 ms ticks, none since boot: "
			    "the host may not report it");
}

/* Profiles from before steal was recorded, and keys that do not parse: not recorded. */
static void test_meta_missing(void **state)
{
	struct kv bad[] = { { "steal.tick_ns", "10000000" }, { "steal.total_ns", "-5" },
			    { "steal.cpu_time_ns", "1" }, { "steal.max_interval_ns", "0" },
			    { "steal.interval_ns", "1" }, { "steal.cpus", "2" }, { "steal.boot_ns", "0" } };
	struct kv old[] = { { "kernel", "6.1.0" } };
	struct steal_summary s;
	char line[64];

	(void)state;
	steal_meta_read(fx_meta_only(old, 1), &s);
	assert_false(s.recorded);
	assert_string_equal(out_steal_line(&s, line, sizeof(line)), "not recorded");
	steal_meta_read(fx_meta_only(bad, 7), &s);
	assert_false(s.recorded);
	bad[1].value = "5x";
	steal_meta_read(fx_meta_only(bad, 7), &s);
	assert_false(s.recorded);
	bad[1].value = "5";
	steal_meta_read(fx_meta_only(bad, 7), &s);
	assert_true(s.recorded);
	assert_int_equal(s.max_iv_cpu, -1);
}

#define SPIN		0x1	/* LCB_F_SPIN */
#define SPIN_READ	0x3	/* rwlock:R */
#define SPIN_WRITE	0x5	/* rwlock:W */
#define MUTEX_SPIN	0x21	/* mutex:spin: its spinning stops when the CPU is wanted */
#define RWSEM_W		0x4

static void test_verdicts(void **state)
{
	struct steal_summary none = { .recorded = false }, zero = { .recorded = true, .tick_ns = 10 * MS,
								    .ncpus = 2, .boot_ns = 190 * MS };
	struct steal_summary some = zero;
	char why[400];

	(void)state;
	some.total_ns = 700 * MS;
	/* Only spinning kernel locks, only above the limit. */
	assert_int_equal(steal_verdict_of(&zero, SPIN, STEAL_SPIN_LIMIT_NS), STEAL_NOT_APPLICABLE);
	assert_int_equal(steal_verdict_of(&zero, RWSEM_W, 620 * MS), STEAL_NOT_APPLICABLE);
	assert_int_equal(steal_verdict_of(&zero, MUTEX_SPIN, 620 * MS), STEAL_NOT_APPLICABLE);
	assert_int_equal(steal_verdict_of(&zero, 0x10000 | 4, 620 * MS), STEAL_NOT_APPLICABLE);	/* u:spinlock */
	assert_int_equal(steal_verdict_of(&none, SPIN, 620 * MS), STEAL_NOT_RECORDED);
	assert_int_equal(steal_verdict_of(&zero, SPIN, 620 * MS), STEAL_TOO_LITTLE);
	assert_int_equal(steal_verdict_of(&zero, SPIN_READ, 620 * MS), STEAL_TOO_LITTLE);
	assert_int_equal(steal_verdict_of(&some, SPIN_WRITE, 620 * MS), STEAL_COULD_EXPLAIN);
	/* 2 CPUs x 2 ticks may go unseen: 40 ms over the limit is within it, 40 ms and 1 ns not. */
	assert_int_equal(steal_bound_ns(&zero), 40 * MS);
	assert_int_equal(steal_verdict_of(&zero, SPIN, 50 * MS), STEAL_COULD_EXPLAIN);
	assert_int_equal(steal_verdict_of(&zero, SPIN, 50 * MS + 1), STEAL_TOO_LITTLE);
	assert_string_equal(out_steal_verdict(&zero, STEAL_TOO_LITTLE, why, sizeof(why)),
			    "no steal was recorded: an accounting error, please report it");
	assert_string_equal(out_steal_verdict(&some, STEAL_COULD_EXPLAIN, why, sizeof(why)),
			    "700.00 ms of steal in the recording could explain it");
	assert_string_equal(out_steal_verdict(&zero, STEAL_COULD_EXPLAIN, why, sizeof(why)),
			    "no steal was recorded, but it is counted in whole ticks: up to 40.00 ms could have "
			    "gone unseen, which could explain it");
	some.total_ns = 20 * MS;
	assert_int_equal(steal_verdict_of(&some, SPIN, 620 * MS), STEAL_TOO_LITTLE);
	assert_string_equal(out_steal_verdict(&some, STEAL_TOO_LITTLE, why, sizeof(why)),
			    "only 20.00 ms of steal in the recording, too little to explain it: an accounting "
			    "error, please report it");
	zero.boot_ns = 0;
	assert_string_equal(out_steal_verdict(&zero, STEAL_TOO_LITTLE, why, sizeof(why)),
			    "no steal was recorded: an accounting error, please report it (unless the host does "
			    "not report steal: this machine counted none since boot)");
	assert_string_equal(steal_verdict_key(STEAL_TOO_LITTLE), "accounting_error");
	assert_string_equal(steal_verdict_key(STEAL_COULD_EXPLAIN), "steal_could_explain");
	assert_string_equal(steal_verdict_key(STEAL_NOT_RECORDED), "steal_not_recorded");
	assert_null(steal_verdict_key(STEAL_NOT_APPLICABLE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_sparse),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_tracker),
		cmocka_unit_test(test_meta_round_trip),
		cmocka_unit_test(test_meta_missing),
		cmocka_unit_test(test_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
