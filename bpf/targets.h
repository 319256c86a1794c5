/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TARGETS_H
#define __LOCKSTAT_TARGETS_H

/*
 * The processes being recorded (-p PID, -- CMD) and their children, or
 * the tasks of a cgroup v2 subtree (--cgroup). The
 * targets object owns the maps, follows forks and forgets a process when
 * its last thread exits (its PID may be reused); every probe family
 * declares the same maps (bpf/targets.bpf.h) and the collector makes them
 * one by reusing the owner's file descriptors.
 *
 * The map is keyed by the tgids BPF sees, those of the initial PID
 * namespace. When lockstat runs in another one (a container), the PIDs it
 * knows are its namespace's: it adds them with LS_NS_KEY set, and each is
 * replaced by the initial namespace's tgid at the process's first event
 * (bpf_get_ns_current_pid_tgid), or first fork.
 */
#define LS_MAX_TARGETS	8192
#define LS_NS_KEY	0x80000000u	/* a tgid of lockstat's namespace, not yet translated */

struct targets_gen {
	__u64 generation;	/* bumped whenever a process is added or removed */
	__u64 full;		/* children that could not be followed */
	__u64 pidns_dev;	/* lockstat's PID namespace (nsfs dev, inode); 0: the initial one */
	__u64 pidns_ino;
	/*
	 * 1: the targets are the tasks of the cgroup in target_cgroup and its
	 * descendants (--cgroup), not the processes of the targets map.
	 */
	__u64 by_cgroup;
};

#endif
