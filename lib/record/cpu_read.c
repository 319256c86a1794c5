// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CPU time from /proc/PID/stat, a cgroup's cpu.stat and /proc/stat
 * (lib/record/cpu_read.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record/cpu_read.h"

/* The fields after the command's closing parenthesis, which may itself hold ") ". */
int cpu_parse_pid_stat(const char *text, uint64_t *ticks)
{
	const char *p = strrchr(text, ')');
	unsigned long long ut, st, cut, cst;

	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt, then the four */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return -EINVAL;
	*ticks = ut + st + cut + cst;
	return 0;
}

int cpu_parse_cgroup_stat(const char *text, uint64_t *usec)
{
	const char *p = text;
	unsigned long long v;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "usage_usec %llu", &v) == 1) {
			*usec = v;
			return 0;
		}
	return -EINVAL;
}

int cpu_parse_proc_stat(const char *text, uint64_t *ticks)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;

	if (sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
		   &iowait, &irq, &softirq) != 7)
		return -EINVAL;
	*ticks = user + nice + sys + irq + softirq;
	return 0;
}

/* A small text file whole, at dirfd: 0 or -errno. */
static int read_text(int dirfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return 0;
}

static uint64_t ticks_ns(uint64_t ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	return ticks * (1000000000ULL / (hz > 0 ? hz : 100));
}

int cpu_read_pid_ns(int pid, uint64_t *ns)
{
	char path[32], buf[1024];
	uint64_t ticks;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	err = read_text(AT_FDCWD, path, buf, sizeof(buf));
	if (!err)
		err = cpu_parse_pid_stat(buf, &ticks);
	if (!err)
		*ns = ticks_ns(ticks);
	return err;
}

int cpu_read_cgroup_ns(int dirfd, uint64_t *ns)
{
	char buf[1024];
	uint64_t usec;
	int err = read_text(dirfd, "cpu.stat", buf, sizeof(buf));

	if (!err)
		err = cpu_parse_cgroup_stat(buf, &usec);
	if (!err)
		*ns = usec * 1000;
	return err;
}

int cpu_read_machine_ns(uint64_t *ns)
{
	char buf[512];
	uint64_t ticks;
	int err = read_text(AT_FDCWD, "/proc/stat", buf, sizeof(buf));

	if (!err)
		err = cpu_parse_proc_stat(buf, &ticks);
	if (!err)
		*ns = ticks_ns(ticks);
	return err;
}
