/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SAY_H
#define __LOCKSTAT_SAY_H

/* What record and top say of a recording (lib/run/session.h) at its end. */
#include "run/session.h"

/*
 * What the recording cost: one line per family and the fork follower
 * (kernel.bpf_stats, when measured), and lockstat's own CPU time.
 */
void session__say_costs(const struct session *s);
/* A line with every loss counter that is not zero, when one is. */
void session__say_lost(const struct session *s);
/* A line with the recording's steal time, as the report's header says it. */
void session__say_steal(struct session *s);

#endif
