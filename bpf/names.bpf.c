// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Run once through BPF_PROG_TEST_RUN, never attached: writes the address
 * of every CPU's rq->__lock, the per-CPU run-queue lock that contention
 * sees as an anonymous spinlock. Kept apart from contention.bpf.c so a
 * kernel without per-CPU variables in its BTF only loses these names.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "names.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

extern struct rq runqueues __ksym;

const volatile __u32 nr_cpus;
__u64 rq_lock_addrs[LS_MAX_CPUS];

SEC("raw_tp/bpf_test_finish")
int find_rq_locks(void *ctx)
{
	__u32 i;

	for (i = 0; i < LS_MAX_CPUS && i < nr_cpus; i++) {
		struct rq *rq = bpf_per_cpu_ptr(&runqueues, i);

		if (rq)
			rq_lock_addrs[i] = (__u64)&rq->__lock;
	}
	return 0;
}
