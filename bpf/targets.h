/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_TARGETS_H
#define __LOCKSTAT_TARGETS_H

/*
 * The processes being recorded (-p PID, -- CMD) and their children. The
 * targets object owns the maps and follows forks; every probe family
 * declares the same maps (bpf/targets.bpf.h) and the collector makes them
 * one by reusing the owner's file descriptors.
 */
#define LS_MAX_TARGETS	8192

struct targets_gen {
	__u64 generation;	/* bumped whenever a process is added */
	__u64 full;		/* children that could not be followed */
};

#endif
