/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SERVE_H
#define __LOCKSTAT_SERVE_H

/*
 * lockstat serve: record's session (lib/run/session.h) that never ends. The
 * session writes its profile to a memfd, as top does; after every bucket
 * serve reads the new bytes back once, appends them to the current
 * segment file and feeds them to an interval model, whose counts become
 * the Prometheus counters and the pprof windows (lib/serve/). At a
 * segment boundary, on SIGHUP, or when a full disk has room again, the
 * profile ends (user symbols, END) and a new one begins in a new file.
 *
 *   tool/cmd-serve.c  options, start and stop
 *   serve_segments.c  the segment files: copy, rotation, ring, full disk
 *   serve_feed.c      each bucket: read back, metrics, windows, /metrics page
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "base/outfile.h"
#include "serve/httpd.h"
#include "serve/metrics.h"
#include "serve/segdir.h"
#include "serve/windows.h"
#include "run/session.h"
#include "view/top_model.h"

#define SERVE_DEFAULT_DIR	"/var/lib/lockstat"
#define SERVE_DEFAULT_LISTEN	"127.0.0.1:9747"
#define SERVE_RESUME_FREE_BYTES	(4ULL << 20)	/* free space before a full disk is tried again */

struct serve_opts {
	const char *dir;
	double segment;		/* seconds */
	unsigned long keep_count;
	uint64_t keep_bytes;
	const char *listen;	/* NULL: no HTTP */
	struct httpd_opts http;
	bool listen_loopback;
	struct metrics_opts metrics;
	unsigned long max_stacks;
	bool lines;		/* --lines: DWARF lines and inlines for user frames */
};

struct serve {
	struct serve_opts o;
	struct session s;
	struct top_model model;	/* the current profile, one bucket's counts at a time */
	struct metrics metrics;
	struct windows windows;
	bool have_windows;
	struct httpd *http;
	pthread_mutex_t page_lock;
	struct reply *page;	/* the /metrics page of the last bucket */
	uint64_t start_wall_ns;
	int err;		/* reading the profile back failed: serve stops */

	/* the current segment file */
	struct outfile out;
	bool have_file;
	char name[SEGDIR_NAME_MAX];
	uint64_t file_len;	/* bytes in it, all whole chunks */
	bool writing;		/* false after a write error, until there is room again */
	uint64_t write_errors;
	uint64_t segments_begun;
	uint64_t next_boundary_ns;	/* CLOCK_REALTIME of the next segment */
	bool rotate_asked;	/* SIGHUP */
	size_t nsegments;	/* in the directory, the current one included */
	uint64_t ring_bytes;	/* of the segments before the current one */
};

/* serve_segments.c */
/* The first segment: its file, and the next boundary. 0 or -errno after saying why. */
int serve__first_segment(struct serve *v);
/* Copy bytes the session wrote to the current file (the model's tee). */
void serve__tee(void *ctx, const void *bytes, size_t n);
/* After a bucket: a new segment when one is due, and the ring kept to its size. */
void serve__segments(struct serve *v);
/* The last segment, complete (after session__finish). */
void serve__last_segment(struct serve *v);

/* serve_feed.c */
int serve__model_reset(struct serve *v);
/* Read what the session wrote since the last call into the model (and the file). */
int serve__read_back(struct serve *v);
/* The interval model's counts into the metrics and the windows; the /metrics page. */
void serve__fold(struct serve *v);
void serve__publish_page(struct serve *v);
struct reply *serve__page(void *ctx);

#endif
