/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SESSION_INT_H
#define __LOCKSTAT_SESSION_INT_H

/* What the recorder's files (lib/run/session.c, rows.c, loop.c, probes.c) share. */
#include "run/session.h"

/* session.c */
/*
 * Called after every write with its result: the first error cuts the
 * file back to its last whole chunk and stops the recording.
 */
void session_note_write(struct session *s, int err);

/* rows.c */
int session_write_meta(struct session *s);
/* One drain's rows, the mappings they name and the loss counters, as of time t. */
void session_write_rows(struct session *s, const struct snapshot *snap, uint64_t t);
void session_write_metric(struct session *s);
void session_write_steal(struct session *s);
void session_write_lock_names(struct session *s);
/* The writer's and the sampler's callback for a process it meets first. */
void session_on_new_process(void *ctx, uint32_t tgid);

/* ledger.c */
/* The workload released: start-up ends, the steady state and the workload's reading begin. */
void session_ledger_start(struct session *s);
/* At a drain: -p's process read again, so that one that exits keeps its last figure. */
void session_ledger_sample(struct session *s);
/* The recording's end: the steady state ends, the workload's last reading. */
void session_ledger_stop(struct session *s);
/* The META chunk cost.*, with the finish's CPU so far. */
void session_write_cost(struct session *s);

/* loop.c */
uint64_t session_cpu_ns(void);
void session_sample_steal(struct session *s, uint64_t now);
void session_pass_output(struct session *s);

/* probes.c */
/* Do we hold what loading BPF tracing programs needs? 0 or -EPERM after saying what is missing. */
int check_bpf_privileges(void);
int session_attach_probes(struct session *s);
void session_load_symbols(struct session *s);

#endif
