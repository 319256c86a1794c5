/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CPU_READ_H
#define __LOCKSTAT_CPU_READ_H

#include <stdint.h>

/*
 * The CPU time of what a recording watches, from the kernel's text
 * files, for the cost ledger (format/cost.h): a process's, a cgroup's
 * and the machine's. The parsers take the files' text; the readers
 * read them. Each returns 0 or -errno (-EINVAL: text that does not parse).
 */

/* /proc/PID/stat: utime + stime + cutime + cstime, in ticks (1/USER_HZ). */
int cpu_parse_pid_stat(const char *text, uint64_t *ticks);
/* cgroup v2 cpu.stat: usage_usec. */
int cpu_parse_cgroup_stat(const char *text, uint64_t *usec);
/* /proc/stat's "cpu" line: user + nice + system + irq + softirq, in ticks (idle, iowait, steal left out). */
int cpu_parse_proc_stat(const char *text, uint64_t *ticks);

/* The same, read; in ns. dirfd: the cgroup's directory. */
int cpu_read_pid_ns(int pid, uint64_t *ns);
int cpu_read_cgroup_ns(int dirfd, uint64_t *ns);
int cpu_read_machine_ns(uint64_t *ns);

#endif
