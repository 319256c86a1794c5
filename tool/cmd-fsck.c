// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat fsck: walk a profile chunk by chunk and say where, if anywhere,
 * it stops being good. Exit 0 for a complete file, 1 otherwise.
 */
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "exitcode.h"
#include "log.h"
#include "profile.h"
#include "store.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: lockstat fsck [-q] [-v] [FILE]   (default lockstat.data; - standard input)\n\n"
		"  -q, --quiet    print nothing, only set the exit status\n"
		"  -v, --verbose  say more\n"
		"  -h, --help     this help\n");
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

static int check(const char *path, bool quiet)
{
	struct store_file f;
	struct profile *p = NULL;
	enum walk_status st;
	const char *why;
	char msg[256] = "";
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
	err = err || st != WALK_EOF || !p->has_end;
	profile__free(p);
	store_close(&f);
	return err ? EXIT_FAIL : EXIT_OK;
}

int cmd_fsck(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quiet = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "qvh", opts, NULL)) != -1) {
		switch (opt) {
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
	return check(optind < argc ? argv[optind] : "lockstat.data", quiet);
}
