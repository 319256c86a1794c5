// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The floor for contrib/bench/overhead: two programs that do nothing, on
 * the tracepoints lockstat's locks family uses and with the same program
 * type (tp_btf). What they cost per event is what any BPF program on
 * lock:contention_begin/end costs before it does any work.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/contention_begin")
int BPF_PROG(floor_begin)
{
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(floor_end)
{
	return 0;
}
