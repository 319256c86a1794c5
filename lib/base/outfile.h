/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_OUTFILE_H
#define __LOCKSTAT_OUTFILE_H

/*
 * The one way lockstat writes a file (record -o, top -o, export -o): the
 * new file is built unnamed (O_TMPFILE, or a hidden temporary name where
 * the filesystem has none) in the target's directory and only then put
 * under the target's name, so that the target is the old file or the new
 * one, never a part of either. The rules, the same for every command:
 *
 * - only a regular file is ever replaced: a directory, FIFO, socket or
 *   device named as the output is refused (nothing is written to it);
 * - a symbolic link is followed to its target, which is the file that is
 *   created or replaced (the link stays);
 * - the new file's mode is 0666 less the umask, as for any new file;
 * - with keep_old (profiles), the file replaced is kept as FILE.old, as
 *   perf keeps perf.data.old.
 *
 * Every function returns 0 or -errno, and on an error leaves a one-line
 * reason in why (without the "lockstat: " prefix).
 */
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>

struct outfile_opts {
	bool keep_old;		/* the file replaced becomes FILE.old */
};

struct outfile {
	char *path;		/* the file written: the name given, symlinks followed */
	char *old;		/* path.old (keep_old), else NULL */
	char *tmp;		/* the temporary name, when the file could not be unnamed */
	int fd;			/* read-write, -1 when closed */
	FILE *f;		/* outfile__stream(), owns fd */
	bool keep_old;
	bool published;		/* under its final name */
	bool made_old;		/* publishing moved the previous file to old */
	char why[PATH_MAX + 200];
};

/* Check the target and create the new, still unnamed, file beside it. */
int outfile__open(struct outfile *o, const char *name, const struct outfile_opts *opts);
/* A stdio stream on the file (the outfile keeps and closes it); NULL: no memory. */
FILE *outfile__stream(struct outfile *o);
/* Put the file under its name now (the previous one to .old with keep_old). */
int outfile__publish(struct outfile *o);
/* Flush, fsync and publish: the file is complete. */
int outfile__commit(struct outfile *o);
/* Before publishing: nothing of the new file remains. After: it stays. */
void outfile__discard(struct outfile *o);
void outfile__close(struct outfile *o);

#endif
