// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat serve's segment files (lib/serve/serve.h): every byte the session
 * writes is copied to the current segment, a whole bucket's chunks at a
 * time, so a SIGKILL loses at most the bucket being drained. A write
 * error (a full disk) cuts the file back to its last whole chunk, says
 * so once and stops the copying; the recording, the metrics and the
 * profiles go on from the memfd, and when the directory has room again a
 * new segment begins (it must: the one cut short lacks what came since).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include "base/log.h"
#include "serve/serve.h"

static uint64_t segment_ns(const struct serve *v)
{
	return (uint64_t)(v->o.segment * NSEC_PER_SEC);
}

/* Segments start at whole multiples of --segment on the clock: hours on the hour. */
static void set_boundary(struct serve *v, uint64_t now)
{
	uint64_t seg = segment_ns(v);

	v->next_boundary_ns = (now / seg + 1) * seg;
}

static void stop_writing(struct serve *v, int err)
{
	v->write_errors++;
	v->writing = false;
	pr_err("writing %s/%s failed: %s; no segment is written until %s has room again (metrics and profiles go on)\n",
	       v->o.dir, v->name, strerror(err), v->o.dir);
	if (!v->out.published) {	/* nothing of it is left */
		outfile__close(&v->out);
		v->have_file = false;
		return;
	}
	/* As a SIGKILL would leave it: every whole chunk readable. */
	if (ftruncate(v->out.fd, v->file_len) == 0)
		lseek(v->out.fd, v->file_len, SEEK_SET);
}

/* The header and META are in: the segment takes its name. */
static int publish(struct serve *v)
{
	int err = outfile__publish(&v->out);

	if (err) {
		pr_err("%s\n", v->out.why);
		return err;
	}
	v->nsegments++;
	pr_info("segment %s/%s\n", v->o.dir, v->name);
	return 0;
}

void serve__tee(void *ctx, const void *bytes, size_t n)
{
	struct serve *v = ctx;
	const char *p = bytes;

	if (!v->have_file || !v->writing)
		return;
	while (n) {
		ssize_t w = write(v->out.fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			stop_writing(v, w < 0 ? errno : ENOSPC);
			return;
		}
		p += w;
		n -= w;
		v->file_len += w;
	}
	if (!v->out.published && publish(v))
		stop_writing(v, EIO);
}

static int open_file(struct serve *v, uint64_t at_ns)
{
	struct outfile_opts oo = { .keep_old = false };
	char path[PATH_MAX];
	int err = segdir_new_name(v->o.dir, at_ns / NSEC_PER_SEC, v->name, sizeof(v->name));

	if (err) {
		pr_err("no name for a new segment in %s: %s\n", v->o.dir, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", v->o.dir, v->name);
	err = outfile__open(&v->out, path, &oo);
	if (err) {
		pr_err("%s\n", v->out.why);
		return err;
	}
	v->have_file = true;
	v->file_len = 0;
	v->segments_begun++;
	return 0;
}

static void close_file(struct serve *v)
{
	if (!v->have_file)
		return;
	if (v->writing && outfile__commit(&v->out)) {
		pr_err("%s\n", v->out.why);
		v->write_errors++;
	}
	v->ring_bytes += v->out.published ? v->file_len : 0;
	outfile__close(&v->out);	/* unpublished: nothing stays */
	v->have_file = false;
}

/* Oldest first, never the current one; the counts for /metrics. */
static void keep_ring(struct serve *v)
{
	struct segdir_left left = { v->nsegments, v->ring_bytes };
	int removed = segdir_prune(v->o.dir, v->o.keep_count, v->o.keep_bytes,
				   v->have_file ? v->name : NULL, &left);

	if (removed < 0)
		pr_warn("removing old segments from %s: %s\n", v->o.dir, strerror(-removed));
	else if (removed)
		pr_info("removed %d old segment%s\n", removed, removed > 1 ? "s" : "");
	v->nsegments = left.count;
	v->ring_bytes = left.others_bytes;
}

/* The segment begins: its file (the header comes with the next read back). */
static int begin_segment(struct serve *v, uint64_t at_ns)
{
	int err = open_file(v, at_ns);

	v->writing = !err;
	err = serve__model_reset(v);
	if (!err)
		err = serve__read_back(v);	/* header and META, to the file */
	keep_ring(v);
	return err;
}

int serve__first_segment(struct serve *v)
{
	uint64_t now = wall_ns();
	int err;

	set_boundary(v, now);
	err = begin_segment(v, now);
	if (!err && !v->writing)
		err = -EIO;	/* said: the directory cannot take a segment */
	return err;
}

static bool has_room(const struct serve *v)
{
	struct statvfs st;

	return !statvfs(v->o.dir, &st) && (uint64_t)st.f_bavail * st.f_frsize >= SERVE_RESUME_FREE_BYTES;
}

/* What was idle for the whole segment leaves the kernel's maps: they never fill up with the past. */
static void trim_maps(struct serve *v)
{
	int n = collector__trim(v->s.col);

	if (n < 0)
		pr_warn("removing idle rows from the kernel's maps: %s\n", strerror(-n));
	else
		pr_info("removed %d rows idle for the whole segment from the kernel's maps\n", n);
}

/* End the profile in the current file and begin one in a new file. */
static void rotate(struct serve *v, uint64_t at_ns)
{
	bool was_writing = v->writing;
	int err = session__end_profile(&v->s);

	if (!err)
		err = serve__read_back(v);
	close_file(v);
	if (!err)
		trim_maps(v);
	if (!err)
		err = session__begin_profile(&v->s);
	if (!err)
		err = begin_segment(v, at_ns);
	if (err) {
		v->err = err;
		session__stop(&v->s);
		return;
	}
	if (!was_writing && v->writing)
		pr_notice("writing segments again: %s/%s\n", v->o.dir, v->name);
}

/*
 * When the bucket just written was due, on the wall clock: a bucket
 * written late (a busy machine, the reading back before this) must not
 * move a boundary, or a segment would lose a bucket to the next one.
 */
static uint64_t bucket_due_wall(const struct serve *v, uint64_t wall)
{
	uint64_t mono = now_ns(), due = v->s.next_t - (uint64_t)(v->s.o.bucket * NSEC_PER_SEC);
	uint64_t late = mono > due ? mono - due : 0;

	return wall > late ? wall - late : wall;
}

void serve__segments(struct serve *v)
{
	uint64_t now = wall_ns(), half_bucket = v->s.o.bucket * NSEC_PER_SEC / 2;
	uint64_t due = bucket_due_wall(v, now);

	if (due + half_bucket >= v->next_boundary_ns) {
		uint64_t at = v->next_boundary_ns;

		set_boundary(v, due + half_bucket);
		rotate(v, at);
	} else if (v->rotate_asked) {
		rotate(v, now);
	} else if (!v->writing && has_room(v)) {
		rotate(v, now);
	} else if (v->o.keep_bytes && v->file_len > v->o.keep_bytes) {
		rotate(v, now);	/* alone over the limit: it goes next, as the oldest */
	} else if (v->o.keep_bytes && v->ring_bytes + v->file_len > v->o.keep_bytes) {
		keep_ring(v);
	}
	v->rotate_asked = false;
}

void serve__last_segment(struct serve *v)
{
	if (serve__read_back(v))
		v->err = -EIO;
	close_file(v);
}
