/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_RUN_WORKLOAD_H
#define __LOCKSTAT_RUN_WORKLOAD_H

/*
 * What a recording watches: the COMMAND it runs (held before its exec
 * until the probes are attached, so that none of its contention is
 * missed), a -p PID (a pidfd tells when it exits), a --cgroup, and the
 * signals that end a recording (read from a signalfd in the loop).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "record/cgroup.h"
#include "run/metric.h"
#include "run/opts.h"

/* How long a signalled workload has to exit before it gets SIGKILL. */
#define KILL_GRACE_NS	(3 * NSEC_PER_SEC)

struct workload {
	pid_t pid;		/* 0: none */
	int go_fd;		/* write a byte to let it exec */
	int err_fd;		/* errno of a failed exec, EOF on success */
	bool exited;
	int status;		/* from waitpid */
	struct rusage ru;	/* its CPU, once exited: its own and its waited-for descendants' */
	int out_fd;		/* its stdout, read for --metric; -1 */
	bool stdout_failed;	/* passing it on to ours failed */
};

void workload__init(struct workload *w);
/*
 * Fork the child that runs argv once let (workload__start): its streams
 * as out says, with the signal mask mask, stdout through a pipe when
 * pipe_stdout (--metric). 0 or -errno.
 */
int workload__fork(struct workload *w, char **argv, enum wl_output out, bool pipe_stdout,
		   const sigset_t *mask);
/* Let it exec; 0, or the exit code for a failed exec after saying why. */
int workload__start(struct workload *w, const char *name);
/* Reap without waiting; true once the workload is gone (or there is none). */
bool workload__reap(struct workload *w);
/* Ask it to end (SIGTERM, SIGKILL after KILL_GRACE_NS); true when it had ended by itself. */
bool workload__finish(struct workload *w);
/* Set-up failed after the fork: it must not run. */
void workload__kill(struct workload *w);
/* Its exit status as lockstat's (128+N when killed by signal N). */
int workload__exit_code(const struct workload *w);
/* Pass on what it wrote to stdout, read for the metric m (NULL: none). */
void workload__pass_output(struct workload *w, struct metric *m);
void workload__free(struct workload *w);

/*
 * The signals that end a recording, and extra (0: none), blocked and
 * read from *sigfd; *orig: the mask before, for the workload. 0 or -errno.
 */
int run_signals__open(int extra, sigset_t *orig, int *sigfd);
/* -p PID: *pidfd tells when it exits (-1: it cannot). 0, or -ESRCH after saying so. */
int run_target__open_pid(pid_t pid, int *pidfd);
/* --cgroup PATH, open for the collector's filter. 0, or -EINVAL after saying why. */
int run_target__open_cgroup(struct cgroup_target *cg, const char *path);

#endif
