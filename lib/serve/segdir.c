// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The segment directory of lockstat serve (lib/serve/segdir.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/buf.h"
#include "serve/segdir.h"

#define PREFIX		"lockstat-"
#define PREFIX_LEN	(sizeof(PREFIX) - 1)
#define STAMP_LEN	16	/* 20250101T140000Z */
#define SUFFIX		".data"
#define SUFFIX_LEN	(sizeof(SUFFIX) - 1)
#define MAX_SEQ		9999

static bool digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool is_stamp(const char *s)
{
	return digits(s, 8) && s[8] == 'T' && digits(s + 9, 6) && s[15] == 'Z';
}

/* What follows the stamp: ".data", or ".N.data"; the N, 0 when none, -1 when neither. */
static long seq_of(const char *rest)
{
	size_t n = strspn(rest + 1, "0123456789");

	if (!strcmp(rest, SUFFIX))
		return 0;
	if (rest[0] != '.' || !n || n > 4 || rest[1] == '0' || strcmp(rest + 1 + n, SUFFIX))
		return -1;
	return strtol(rest + 1, NULL, 10);
}

bool segdir_is_segment(const char *name)
{
	return !strncmp(name, PREFIX, PREFIX_LEN) && strlen(name) >= PREFIX_LEN + STAMP_LEN + SUFFIX_LEN &&
	       is_stamp(name + PREFIX_LEN) && seq_of(name + PREFIX_LEN + STAMP_LEN) >= 0;
}

int segdir_name(char *buf, size_t len, time_t t, unsigned int seq)
{
	char stamp[STAMP_LEN + 1];
	struct tm tm;
	int n;

	if (seq > MAX_SEQ || !gmtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		return -EINVAL;
	if (seq)
		n = snprintf(buf, len, PREFIX "%s.%u" SUFFIX, stamp, seq);
	else
		n = snprintf(buf, len, PREFIX "%s" SUFFIX, stamp);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int segdir_cmp(const char *a, const char *b)
{
	int c = strncmp(a + PREFIX_LEN, b + PREFIX_LEN, STAMP_LEN);

	if (c)
		return c;
	return (int)(seq_of(a + PREFIX_LEN + STAMP_LEN) - seq_of(b + PREFIX_LEN + STAMP_LEN));
}

static int by_name(const void *a, const void *b)
{
	return segdir_cmp(((const struct segment *)a)->name, ((const struct segment *)b)->name);
}

static int add_segment(DIR *d, const char *name, struct segment **out, size_t *n, size_t *cap)
{
	struct stat st;

	/* Only regular files: a directory or a link by that name is not ours. */
	if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	if (grow_array((void **)out, cap, *n + 1, sizeof(**out)))
		return -ENOMEM;
	snprintf((*out)[*n].name, sizeof((*out)[*n].name), "%s", name);
	(*out)[(*n)++].bytes = st.st_size;
	return 0;
}

int segdir_list(const char *dir, struct segment **out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while (!err && (e = readdir(d)))
		if (strlen(e->d_name) < SEGDIR_NAME_MAX && segdir_is_segment(e->d_name))
			err = add_segment(d, e->d_name, out, n, &cap);
	closedir(d);
	if (err) {
		free(*out);
		*out = NULL;
		*n = 0;
		return err;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), by_name);
	return 0;
}

static int remove_segment(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

static bool over(size_t count, uint64_t bytes, size_t keep_count, uint64_t keep_bytes)
{
	return (keep_count && count > keep_count) || (keep_bytes && bytes > keep_bytes);
}

/* The bytes of current in segs (0: not there). */
static uint64_t bytes_of(const struct segment *segs, size_t n, const char *current)
{
	size_t i;

	for (i = 0; current && i < n; i++)
		if (!strcmp(segs[i].name, current))
			return segs[i].bytes;
	return 0;
}

int segdir_prune(const char *dir, size_t keep_count, uint64_t keep_bytes, const char *current,
		 struct segdir_left *left)
{
	struct segment *segs;
	uint64_t bytes = 0;
	size_t n, i;
	int err, removed = 0;

	err = segdir_list(dir, &segs, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		bytes += segs[i].bytes;
	for (i = 0; i < n && !err && over(n - removed, bytes, keep_count, keep_bytes); i++) {
		if (current && !strcmp(segs[i].name, current))
			continue;
		err = remove_segment(dir, segs[i].name);
		if (!err) {
			bytes -= segs[i].bytes;
			removed++;
		}
	}
	left->count = n - removed;
	left->others_bytes = bytes - bytes_of(segs, n, current);
	free(segs);
	return err ? err : removed;
}

int segdir_new_name(const char *dir, time_t t, char *buf, size_t len)
{
	char path[PATH_MAX];
	unsigned int seq;
	int err;

	for (seq = 0; seq <= MAX_SEQ; seq++) {
		err = segdir_name(buf, len, t, seq);
		if (err)
			return err;
		if (snprintf(path, sizeof(path), "%s/%s", dir, buf) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if (access(path, F_OK) && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}
