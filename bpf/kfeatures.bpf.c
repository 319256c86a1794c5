// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Feature probes: each program is loaded alone, its attach target set at
 * run time, and only the verdict of the load (and attach) is used.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfeatures.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("fentry/placeholder")
int BPF_PROG(probe_fentry)
{
	return 0;
}

SEC("kprobe/placeholder")
int BPF_KPROBE(probe_kprobe)
{
	return 0;
}
