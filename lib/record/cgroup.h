/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CGROUP_H
#define __LOCKSTAT_CGROUP_H

#include <limits.h>
#include <stddef.h>

/*
 * --cgroup: the tasks of one cgroup v2 directory and its descendants are
 * recorded. The directory is held open: the BPF target filter is given
 * its file descriptor (a cgroup array), which names the cgroup whatever
 * the cgroup namespace lockstat runs in, and survives a rename.
 */
struct cgroup_target {
	int fd;			/* the directory, or -1 */
	char path[PATH_MAX];	/* as the hierarchy names it: "/system.slice/x.service" */
};

/*
 * The first cgroup2 mount point of a mountinfo file (/proc/self/mountinfo;
 * octal escapes undone) into out: 0, -ENOENT where there is none, or
 * -errno reading the file.
 */
int cgroup2_mount(const char *mountinfo, char *out, size_t len);

/*
 * arg, a directory of the hierarchy mounted at mount ("/sys/fs/cgroup/
 * system.slice"), or a path in the hierarchy, as /proc/PID/cgroup writes
 * them ("/system.slice/x.service", "/") or relative ("system.slice"), as
 * a path in the hierarchy into rel, after symbolic links and "..": 0,
 * -ENOENT (no such cgroup), -ENOTDIR, or -EXDEV for a directory that is
 * neither.
 */
int cgroup_rel_path(const char *mount, const char *arg, char *rel, size_t len);

/*
 * Opens the cgroup arg names (as above, the hierarchy found in
 * /proc/self/mountinfo): 0, or -errno and one line on why (no cgroup v2
 * hierarchy, no such cgroup, not a cgroup).
 */
int cgroup_target__open(struct cgroup_target *t, const char *arg, char *why, size_t len);
void cgroup_target__close(struct cgroup_target *t);

#endif
