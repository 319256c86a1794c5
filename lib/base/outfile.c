// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Output files (lib/base/outfile.h). The new file is created unnamed with
 * O_TMPFILE, so that a SIGKILL before it is published leaves nothing
 * behind; where the filesystem has no O_TMPFILE, under a hidden name in
 * the same directory, removed on every exit path lockstat controls.
 * Publishing is a link(2) to the free name, or a rename(2) over the old
 * file: atomic either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/outfile.h"

#define MAX_LINKS	40	/* as the kernel's path walk */
#define TMP_TRIES	100

static int fail(struct outfile *o, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct outfile *o, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	return err;
}

static const char *kind_name(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	return "not a regular file";
}

/* The directory part of path: "." when it has none. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return slash == path ? strdup("/") : strndup(path, slash - path);
}

/* Where the link at path points, relative to path's directory. */
static char *link_target(const char *path, const struct stat *st)
{
	size_t len = st->st_size > 0 ? (size_t)st->st_size + 1 : PATH_MAX;
	char *t = malloc(len), *dir, *full = NULL;
	ssize_t n;

	if (!t)
		return NULL;
	n = readlink(path, t, len);
	if (n < 0 || (size_t)n >= len) {
		free(t);
		return NULL;
	}
	t[n] = '\0';
	if (t[0] == '/' || !strchr(path, '/'))
		return t;
	dir = dir_of(path);
	if (dir && asprintf(&full, "%s/%s", dir, t) < 0)
		full = NULL;
	free(dir);
	free(t);
	return full;
}

/* o->path: name with every symlink followed; *exists: whether it exists. */
static int follow_links(struct outfile *o, const char *name, struct stat *st, bool *exists)
{
	char *path = strdup(name), *next;
	int hops, err;

	for (hops = 0; path; hops++) {
		if (lstat(path, st)) {
			err = errno;
			o->path = path;
			*exists = false;
			return err == ENOENT ? 0 : fail(o, -err, "%s: %s", path, strerror(err));
		}
		if (!S_ISLNK(st->st_mode)) {
			o->path = path;
			*exists = true;
			return 0;
		}
		if (hops == MAX_LINKS) {
			free(path);
			return fail(o, -ELOOP, "%s: too many levels of symbolic links", name);
		}
		errno = ENOMEM;
		next = link_target(path, st);
		err = errno;
		if (!next)
			fail(o, -err, "%s: cannot follow the link: %s", path, strerror(err));
		free(path);
		if (!next)
			return -err;
		path = next;
	}
	return fail(o, -ENOMEM, "out of memory");
}

static int refuse_kind(struct outfile *o, const char *path, mode_t mode)
{
	return fail(o, S_ISDIR(mode) ? -EISDIR : -EINVAL,
		    "%s is %s: lockstat writes only regular files", path, kind_name(mode));
}

/* FILE.old, where the file replaced goes, must not be anything else. */
static int check_old(struct outfile *o)
{
	struct stat st;

	if (asprintf(&o->old, "%s.old", o->path) < 0) {
		o->old = NULL;
		return fail(o, -ENOMEM, "out of memory");
	}
	if (lstat(o->old, &st))
		return errno == ENOENT ? 0 : fail(o, -errno, "%s: %s", o->old, strerror(errno));
	return S_ISREG(st.st_mode) ? 0 : refuse_kind(o, o->old, st.st_mode);
}

/* A hidden name in dir no other file has, for a temporary file. */
static char *tmp_name(const char *dir, unsigned int attempt)
{
	struct timespec ts;
	char *name;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (asprintf(&name, "%s/.lockstat-%08x", dir,
		     (unsigned int)(ts.tv_nsec ^ (getpid() << 12) ^ (attempt * 2654435761u))) < 0)
		return NULL;
	return name;
}

/* No O_TMPFILE here: a hidden file, mode 0666 less the umask, as O_TMPFILE's. */
static int create_named(struct outfile *o, const char *dir)
{
	unsigned int i;
	int fd = -1;

	errno = EEXIST;
	for (i = 0; i < TMP_TRIES && fd < 0 && errno == EEXIST; i++) {
		free(o->tmp);
		o->tmp = tmp_name(dir, i);
		if (!o->tmp)
			return -ENOMEM;
		fd = open(o->tmp, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
	}
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return -errno;
	}
	return fd;
}

static int create(struct outfile *o)
{
	char *dir = dir_of(o->path);
	int fd;

	if (!dir)
		return fail(o, -ENOMEM, "out of memory");
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		fd = create_named(o, dir);
	else if (fd < 0)
		fd = -errno;
	free(dir);
	if (fd < 0)
		return fail(o, fd, "cannot create %s: %s", o->path, strerror(-fd));
	o->fd = fd;
	return 0;
}

int outfile__open(struct outfile *o, const char *name, const struct outfile_opts *opts)
{
	struct stat st;
	bool exists = false;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->keep_old = opts && opts->keep_old;
	if (!*name)
		return fail(o, -EINVAL, "an empty file name");
	/* What the name leads to first: /dev/stdout's last link is "pipe:[N]", no path. */
	if (!stat(name, &st) && !S_ISREG(st.st_mode))
		return refuse_kind(o, name, st.st_mode);
	err = follow_links(o, name, &st, &exists);
	if (!err && exists && !S_ISREG(st.st_mode))
		err = refuse_kind(o, o->path, st.st_mode);
	if (!err && o->keep_old)
		err = check_old(o);
	return err ? err : create(o);
}

FILE *outfile__stream(struct outfile *o)
{
	if (!o->f)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

/* Give the unnamed file a name: by its /proc link where AT_EMPTY_PATH needs a capability. */
static int link_fd(int fd, const char *to)
{
	char proc[64];

	if (!linkat(fd, "", AT_FDCWD, to, AT_EMPTY_PATH))
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, to, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

/* The unnamed file under a hidden name, to be renamed over an existing file. */
static int link_tmp(struct outfile *o)
{
	char *dir = dir_of(o->path);
	unsigned int i;
	int err = -EEXIST;

	for (i = 0; dir && i < TMP_TRIES && err == -EEXIST; i++) {
		free(o->tmp);
		o->tmp = tmp_name(dir, i);
		err = o->tmp ? link_fd(o->fd, o->tmp) : -ENOMEM;
	}
	free(dir);
	if (err) {
		free(o->tmp);
		o->tmp = NULL;
	}
	return dir ? err : -ENOMEM;
}

/* Linked to a free name; renamed over an existing one. */
static int place(struct outfile *o)
{
	int err;

	if (!o->tmp) {
		err = link_fd(o->fd, o->path);
		if (err != -EEXIST)
			return err;
		err = link_tmp(o);
		if (err)
			return err;
	}
	if (rename(o->tmp, o->path))
		return -errno;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

int outfile__publish(struct outfile *o)
{
	struct stat st;
	int err;

	if (o->published)
		return 0;
	if (!lstat(o->path, &st)) {
		if (!S_ISREG(st.st_mode))	/* it changed since outfile__open() */
			return refuse_kind(o, o->path, st.st_mode);
		if (o->keep_old && rename(o->path, o->old))
			return fail(o, -errno, "cannot keep %s as %s: %s", o->path, o->old, strerror(errno));
		o->made_old = o->keep_old;
	}
	err = place(o);
	if (err) {
		if (o->made_old && !rename(o->old, o->path))
			o->made_old = false;
		return fail(o, err, "cannot write %s: %s", o->path, strerror(-err));
	}
	o->published = true;
	return 0;
}

int outfile__commit(struct outfile *o)
{
	int err = 0;

	if (o->f && fflush(o->f))
		err = errno;
	else if (o->f && ferror(o->f))
		err = EIO;
	if (!err && fsync(o->fd))
		err = errno;
	if (err)
		return fail(o, -err, "writing %s failed: %s", o->path, strerror(err));
	return outfile__publish(o);
}

void outfile__discard(struct outfile *o)
{
	if (!o->published && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}

void outfile__close(struct outfile *o)
{
	outfile__discard(o);
	if (o->f)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	free(o->path);
	free(o->old);
	o->path = o->old = NULL;
}
