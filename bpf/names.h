/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_NAMES_H
#define __LOCKSTAT_NAMES_H

/*
 * Semi-global kernel locks that only BPF can locate: one run of a test
 * program fills their addresses, user space names waits on them.
 */
#define LS_MAX_CPUS	1024	/* perf found 4096 iterations too many for the verifier */

#endif
