// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat fsck: walk a profile chunk by chunk and say where, if anywhere,
 * it stops being good. Exit 0 for a complete file, 1 otherwise; with
 * --deep, 3 when its figures contradict each other (view/invariants.h).
 */
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "format/profile.h"
#include "format/store.h"
#include "view/invariants.h"

static void usage(FILE *f)
{
	print_usage(f, "fsck", "usage: lockstat fsck [-q] [-v] [--deep] [FILE]   (default lockstat.data; - standard input)\n\n"
		"  -d, --deep     also check every row the report shows for figures that\n"
		"                 contradict each other (avg above max, ...): one line each\n"
		"  -q, --quiet    print nothing, only set the exit status\n"
		"  -v, --verbose  say more\n"
		"  -h, --help     this help\n\n"
		"exit status: 0 complete and clean; 1 unreadable, damaged or incomplete;\n"
		"2 usage error; 3 (--deep) some figures contradict each other\n");
}

static const char *walk_text(enum walk_status st)
{
	switch (st) {
	case WALK_EOF: return "end of file";
	case WALK_TRUNCATED: return "truncated chunk";
	case WALK_BAD_CRC: return "bad CRC";
	default: return "chunk";
	}
}

static void say(bool quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(bool quiet, const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* The chunk walk itself: CRC and framing, one line per chunk. */
static enum walk_status walk_chunks(const struct store_file *f, bool quiet, uint64_t *end)
{
	struct store_chunk ch;
	enum walk_status st;
	uint64_t pos = f->hdr.header_len;

	say(quiet, "%10s  %-9s %-8s %10s  %s\n", "offset", "type", "flags", "length", "crc");
	while ((st = store_next_chunk(f, &pos, &ch)) == WALK_CHUNK)
		say(quiet, "%10" PRIu64 "  %-9s %-8s %10zu  ok\n", ch.offset, chunk_type_name(ch.type),
		    ch.flags & CHUNK_F_CRITICAL ? "critical" : "-", ch.len);
	*end = pos;
	return st;
}

/* --deep: every finding on a line, then their count; true when none is an error. */
static bool deep(const struct profile *p, bool quiet)
{
	struct inv_report r;
	size_t i, k;
	int err = invariants_check(p, &r);

	for (i = 0; i < r.n; i++)
		say(quiet, "fsck: %s%s\n", r.v[i].warning ? "warning: " : "", r.v[i].msg);
	if (err) {
		pr_err("checking the figures: %s\n", strerror(-err));
		inv_report__free(&r);
		return false;
	}
	say(quiet, "fsck: %zu violation%s", r.errors, r.errors == 1 ? "" : "s");
	for (i = 0, k = 0; i < INV__COUNT; i++)
		if (r.by_kind[i])
			say(quiet, "%s%s %zu", k++ ? ", " : " (", inv_kind_name(i), r.by_kind[i]);
	say(quiet, "%s, %zu warning%s, %zu rows checked; estimated callers outside their 95 %% intervals: %zu of %zu\n",
	    k ? ")" : "", r.warnings, r.warnings == 1 ? "" : "s", r.rows, r.missed, r.intervals);
	i = r.errors;
	inv_report__free(&r);
	return i == 0;
}

static int check(const char *path, bool quiet, bool deep_check)
{
	struct store_file f;
	struct profile *p = NULL;
	enum walk_status st;
	const char *why;
	char msg[256] = "";
	bool consistent = true;
	uint64_t end;
	int err;

	err = store_open(path, &f, &why);
	if (err) {
		pr_err("%s: %s\n", path, why ? why : strerror(-err));
		return EXIT_FAIL;
	}
	say(quiet, "%s: LKST v%u.%u, %zu bytes\n", path, f.hdr.major, f.hdr.minor, f.size);
	st = walk_chunks(&f, quiet, &end);
	/* The payloads too: a chunk can pass its CRC and still not parse. */
	err = profile__read_mem(f.data, f.size, &p, msg, sizeof(msg));
	if (err)
		say(quiet, "payload error: %s\n", msg);
	else
		say(quiet, "%s at byte %" PRIu64 "; %" PRIu64 " buckets, %.2f s of data, %s\n",
		    walk_text(st), end, p->nbuckets, profile__duration_ns(p) / 1e9,
		    p->has_end ? "END present" : "no END chunk (recording did not finish)");
	/* What was read of a cut file must agree with itself too. */
	if (!err && deep_check)
		consistent = deep(p, quiet);
	err = err || st != WALK_EOF || !p->has_end;
	profile__free(p);
	store_close(&f);
	if (!consistent)
		return EXIT_INVARIANT;
	return err ? EXIT_FAIL : EXIT_OK;
}

int cmd_fsck(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "deep", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quiet = false, deep_check = false;
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "dqvh", opts)) != -1) {
		switch (opt) {
		case 'd': deep_check = true; break;
		case 'q': quiet = true; break;
		case 'v': log_verbosity++; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc - 1) {
		pr_err("fsck takes one FILE\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	return check(optind < argc ? argv[optind] : "lockstat.data", quiet, deep_check);
}
