/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_NSFMT_H
#define __LOCKSTAT_NSFMT_H

#include <stddef.h>

/*
 * Duration for people, scaled like perf: "999 ns", "1.00 us", "45.60 ms",
 * "2.00 s". Rounds half up, and moves to the next unit rather than print
 * "1000.00 us". In base, not out: the invariant checker (view) words its
 * findings with the figures as report prints them.
 */
void fmt_ns(char *buf, size_t len, unsigned long long ns);

#endif
