// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib/record/mapscan: a real per-CPU hash map (root), read in batches and
 * by the per-entry loop: every entry exactly once with every CPU's value,
 * across chunk boundaries, and in a few syscalls when batched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <setjmp.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "record/mapscan.h"

#define NKEYS 3000	/* more than two of mapscan's first chunks */

struct fixture {
	int fd;
	int ncpus;
};

/* key k holds k * 10 + cpu on every CPU */
static int fill(struct fixture *f)
{
	uint64_t *v = calloc(f->ncpus, sizeof(*v));
	uint32_t k;
	int cpu, err = 0;

	for (k = 1; v && !err && k <= NKEYS; k++) {
		for (cpu = 0; cpu < f->ncpus; cpu++)
			v[cpu] = (uint64_t)k * 10 + cpu;
		err = bpf_map_update_elem(f->fd, &k, v, BPF_ANY);
	}
	free(v);
	return v ? err : -ENOMEM;
}

/* Scan, check every key once with its values; the syscalls it took. */
static uint64_t scan_all(struct fixture *f)
{
	uint8_t *seen = calloc(NKEYS + 1, 1);
	const void *key, *val;
	struct mapscan s;
	size_t n = 0;
	int err, cpu;

	assert_non_null(seen);
	mapscan_init(&s, f->fd, sizeof(uint32_t), sizeof(uint64_t) * f->ncpus);
	mapscan_start(&s);
	while ((err = mapscan_next(&s, &key, &val)) > 0) {
		uint32_t k = *(const uint32_t *)key;
		const uint64_t *v = val;

		assert_true(k >= 1 && k <= NKEYS);
		assert_int_equal(seen[k], 0);
		seen[k] = 1;
		for (cpu = 0; cpu < f->ncpus; cpu++)
			assert_int_equal(v[cpu], (uint64_t)k * 10 + cpu);
		n++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(n, NKEYS);
	mapscan_free(&s);
	free(seen);
	return s.syscalls;
}

static int setup(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	static struct fixture f;

	f.ncpus = libbpf_num_possible_cpus();
	f.fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "mapscan_test", sizeof(uint32_t),
			      sizeof(uint64_t), NKEYS + 100, &opts);
	if (f.fd < 0) {
		f.fd = -errno;
		*state = &f;
		return 0;
	}
	*state = &f;
	return fill(&f);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->fd >= 0)
		close(f->fd);
	return 0;
}

static bool need_map(struct fixture *f)
{
	if (f->fd < 0) {
		print_message("SKIP: root (CAP_BPF): cannot create a BPF map: %s\n", strerror(-f->fd));
		skip();
		return false;
	}
	return true;
}

/* BPF_MAP_LOOKUP_BATCH came with 5.6. */
static bool kernel_has_batches(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return true;
	return major > 5 || (major == 5 && minor >= 6);
}

static void batched(void **state)
{
	struct fixture *f = *state;
	uint64_t calls;

	if (!need_map(f))
		return;
	calls = scan_all(f);
	if (!mapscan_batched() && !kernel_has_batches()) {
		print_message("SKIP: kernel >= 5.6: no BPF_MAP_LOOKUP_BATCH here\n");
		skip();
		return;
	}
	assert_true(mapscan_batched());
	/* 1024 a chunk: 3 calls, and one more that may find the end */
	assert_true(calls <= 4);
}

static void loop(void **state)
{
	struct fixture *f = *state;

	if (!need_map(f))
		return;
	mapscan_use_loop();
	/* a get_next_key and a lookup each, and the get_next_key that ends */
	assert_int_equal(scan_all(f), 2 * NKEYS + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batched),
		cmocka_unit_test(loop),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
