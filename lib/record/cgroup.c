// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --cgroup's directory: found, checked and held open (see cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "record/cgroup.h"

#define CGROUP2_MAGIC	0x63677270	/* linux/magic.h's CGROUP2_SUPER_MAGIC */

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* The mount point of one mountinfo line when its type is cgroup2, else NULL. */
static char *cgroup2_point(char *line)
{
	char *sep = strstr(line, " - "), *field, *save = NULL;
	int i;

	if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
		return NULL;
	*sep = '\0';
	field = strtok_r(line, " ", &save);	/* id parent major:minor root point ... */
	for (i = 0; field && i < 4; i++)
		field = strtok_r(NULL, " ", &save);
	return field;
}

int cgroup2_mount(const char *mountinfo, char *out, size_t len)
{
	FILE *f = fopen(mountinfo, "re");
	char *line = NULL, *point;
	size_t cap = 0;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err == -ENOENT && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		point = cgroup2_point(line);
		if (!point)
			continue;
		unescape_octal(point);
		if ((size_t)snprintf(out, len, "%s", point) >= len)
			err = -ENAMETOOLONG;
		else
			err = 0;
	}
	free(line);
	fclose(f);
	return err;
}

/* path, a directory, as a path inside the hierarchy rooted at root. */
static int inside(const char *root, const char *path, char *rel, size_t len)
{
	char real[PATH_MAX];
	struct stat st;
	size_t n = strcmp(root, "/") ? strlen(root) : 0;

	if (!realpath(path, real) || stat(real, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (strncmp(real, root, n) || (real[n] && real[n] != '/'))
		return -EXDEV;
	if ((size_t)snprintf(rel, len, "%s", real[n] ? real + n : "/") >= len)
		return -ENAMETOOLONG;
	return 0;
}

int cgroup_rel_path(const char *mount, const char *arg, char *rel, size_t len)
{
	char joined[PATH_MAX], root[PATH_MAX];
	int err = -ENOENT;

	if (!realpath(mount, root))
		return -errno;
	/* A directory of the file system, when it is one of the hierarchy... */
	if (arg[0] == '/') {
		err = inside(root, arg, rel, len);
		if (err != -EXDEV && err != -ENOENT)
			return err;
	}
	/* ... else a path in the hierarchy, as /proc/PID/cgroup and systemd write them. */
	if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", root, arg) >= sizeof(joined))
		return -ENAMETOOLONG;
	if (err == -EXDEV)
		return inside(root, joined, rel, len) == 0 ? 0 : -EXDEV;
	return inside(root, joined, rel, len);
}

__attribute__((format(printf, 4, 5)))
static int fail(int err, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

int cgroup_target__open(struct cgroup_target *t, const char *arg, char *why, size_t len)
{
	char mount[PATH_MAX], full[PATH_MAX * 2];
	struct statfs sfs;
	int err;

	t->fd = -1;
	err = cgroup2_mount("/proc/self/mountinfo", mount, sizeof(mount));
	if (err)
		return fail(err, why, len, "no cgroup v2 hierarchy is mounted (--cgroup needs one)");
	err = cgroup_rel_path(mount, arg, t->path, sizeof(t->path));
	if (err == -EXDEV)
		return fail(err, why, len, "%s is neither a directory of the cgroup v2 hierarchy (mounted at %s) nor a path in it",
			    arg, mount);
	if (err)
		return fail(err, why, len, "%s: %s", arg, strerror(-err));
	snprintf(full, sizeof(full), "%s%s", mount, strcmp(t->path, "/") ? t->path : "");
	t->fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->fd < 0)
		return fail(-errno, why, len, "%s: %s", full, strerror(errno));
	if (fstatfs(t->fd, &sfs) || sfs.f_type != CGROUP2_MAGIC) {
		cgroup_target__close(t);
		return fail(-ENOTDIR, why, len, "%s is not a cgroup v2 directory", full);
	}
	return 0;
}

void cgroup_target__close(struct cgroup_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
