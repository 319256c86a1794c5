/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_HEAD_H
#define __LOCKSTAT_HEAD_H

#include <stdio.h>
#include "base/json.h"
#include "format/profile.h"
#include "format/steal.h"
#include "out/output.h"

/*
 * What every view of a profile says before its rows: the recording's
 * kernel, CPUs, duration and target, what each probe family measured,
 * the workload's own figure and the losses. file is the name the
 * profile was read from, as the user gave it.
 */

/* Whatever the format: the text header, or the JSON meta and lost members, or nothing for CSV. */
void out_head(struct out_doc *d, const struct profile *p, const char *file);
/* The "# ..." lines of a text view, a line "#" last; the profile's strings escaped. */
void out_head__text(FILE *f, const struct profile *p, const char *file);
/* The "meta" member of a JSON view (see lockstat-report(1)). */
void out_head__json(struct json_writer *jw, const struct profile *p, const char *file);
/* The "lost" member: every loss counter the profile saved. */
void out_lost__json(struct json_writer *jw, const struct profile *p);
/* What the profile says of a family, as one line ("tp_btf", "not attached: why"). */
const char *out_family_line(const struct profile *p, const char *family, char *buf, size_t len);

/*
 * The recording's steal time as one line, as the header and record's
 * summary say it: "12.30 ms (0.60 % of CPU time), at most 4.10 ms in one
 * interval on cpu1; 10.00 ms ticks", or "not recorded".
 */
const char *out_steal_line(const struct steal_summary *s, char *buf, size_t len);
/* What the steal says of a spinning wait over STEAL_SPIN_LIMIT_NS, as a sentence. */
const char *out_steal_verdict(const struct steal_summary *s, enum steal_verdict v, char *buf, size_t len);

#endif
