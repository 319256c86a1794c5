/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CONTVAL_H
#define __LOCKSTAT_CONTVAL_H

/*
 * A contention row's figures for one drain interval, from the row's
 * cumulative values (struct cont_val, all CPUs folded) at this drain and
 * at the last one; apart from the family so that the unit tests run it.
 */
#include <stdint.h>
#include "contention.h"

/* The waits slot i of a log2 histogram of nslots holds (format/consts.h): [bottom, top]. */
uint64_t log2_slot_bottom(int i);
uint64_t log2_slot_top(int i, int nslots);

void cont_val_delta(struct cont_val *d, const struct cont_val *now, const struct cont_val *before);

#endif
