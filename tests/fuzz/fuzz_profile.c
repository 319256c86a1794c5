// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: any byte string given to the profile reader either
 * parses or is refused; it never crashes, leaks or reads out of bounds.
 * The reader is then asked for everything report uses.
 */
#include <stddef.h>
#include <stdint.h>
#include "format/profile.h"
#include "view/view_locks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lock_filter f = { .pid = -1 };
	struct profile *p = NULL;
	struct lock_view v;
	char msg[256];
	size_t i;

	if (profile__read_mem(data, size, &p, msg, sizeof(msg)))
		return 0;
	if (!lock_view__build(&v, p, &f)) {
		lock_view__sort(&v, SORT_WAIT_TOTAL);
		for (i = 0; i < v.nlocks; i++)
			(void)hist_quantile(&v.locks[i].v, 0.99);
		lock_view__free(&v);
	}
	(void)profile__duration_ns(p);
	profile__free(p);
	return 0;
}
