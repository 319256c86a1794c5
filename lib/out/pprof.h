/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_PPROF_H
#define __LOCKSTAT_PPROF_H

#include "base/buf.h"
#include "out/export.h"
#include "format/profile.h"

/*
 * A profile's samples (o->what == EXPORT_SAMPLES: samples/count and, when
 * the sampling frequency is known, cpu/nanoseconds) or lock waits
 * (contentions/count, delay/nanoseconds) as pprof's profile.proto,
 * gzip-compressed: what `go tool pprof` and pprof-compatible viewers
 * read. Appended to out; 0 or -errno.
 */
int pprof__write(struct buf *out, const struct profile *p, const struct export_opts *o);

/*
 * The same, over several profiles (lockstat serve: the buckets of a
 * window, which may span segments): each profile's rows are added as it
 * comes, and may be freed after; samples with the same stack and labels
 * add up. With max_samples, the samples beyond it add up on one frame,
 * "[more stacks than lockstat keeps]", and nothing more is kept, so that
 * an accumulator that lives long stays bounded. All return 0 or -errno.
 */
struct pprof_acc;
int pprof_acc__new(struct pprof_acc **a, bool locks, size_t max_samples);
void pprof_acc__free(struct pprof_acc *a);
int pprof_acc__add(struct pprof_acc *a, const struct profile *p, const struct hits_filter *f);
/* Encoded, gzip'd, with this time and duration; a may grow after. */
int pprof_acc__write(struct pprof_acc *a, struct buf *out, uint64_t time_ns, uint64_t duration_ns);
size_t pprof_acc__samples(const struct pprof_acc *a);

#endif
