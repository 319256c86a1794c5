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

#endif
