// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --cgroup's path handling (lib/record/cgroup.c): the cgroup2 mount found
 * in mountinfo files of hybrid, unified and cgroup v1-only machines, and
 * paths inside a stand-in hierarchy (a temporary directory).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "record/cgroup.h"

static char mount_dir[] = "/tmp/lockstat-cgroup-XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void check_mount(const char *mountinfo, int want_err, const char *want)
{
	char path[] = "/tmp/lockstat-mountinfo-XXXXXX", out[256] = "";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	write_file(path, mountinfo);
	assert_int_equal(cgroup2_mount(path, out, sizeof(out)), want_err);
	if (!want_err)
		assert_string_equal(out, want);
	unlink(path);
}

static void test_mount(void **state)
{
	(void)state;
	/* systemd's hybrid layout: v1 controllers, the v2 tree at unified. */
	check_mount("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
		    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
		    0, "/sys/fs/cgroup/unified");
	/* Unified, with optional fields before the separator. */
	check_mount("30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:9 master:2 - cgroup2 cgroup2 rw,nsdelegate\n",
		    0, "/sys/fs/cgroup");
	/* A space in the mount point is \040 in the file. */
	check_mount("50 23 0:40 / /mnt/my\\040cgroups rw - cgroup2 none rw\n", 0, "/mnt/my cgroups");
	/* v1 only; a source named cgroup2 is not the type. */
	check_mount("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup2 rw,cpu\n", -ENOENT, NULL);
	check_mount("", -ENOENT, NULL);
	assert_int_equal(cgroup2_mount("/nonexistent/mountinfo", (char[8]){ 0 }, 8), -ENOENT);
}

static void mkdir_in(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", mount_dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void check_rel(const char *arg, int want_err, const char *want)
{
	char rel[512] = "";

	assert_int_equal(cgroup_rel_path(mount_dir, arg, rel, sizeof(rel)), want_err);
	if (!want_err)
		assert_string_equal(rel, want);
}

static void test_rel_path(void **state)
{
	char abs[512], file[512];

	(void)state;
	assert_non_null(mkdtemp(mount_dir));
	mkdir_in("system.slice");
	mkdir_in("system.slice/x.service");
	snprintf(file, sizeof(file), "%s/cgroup.procs", mount_dir);
	write_file(file, "");

	check_rel("system.slice/x.service", 0, "/system.slice/x.service");
	check_rel("system.slice//x.service/", 0, "/system.slice/x.service");
	snprintf(abs, sizeof(abs), "%s/system.slice", mount_dir);
	check_rel(abs, 0, "/system.slice");
	check_rel(mount_dir, 0, "/");
	check_rel("system.slice/x.service/../..", 0, "/");
	check_rel("/system.slice/x.service", 0, "/system.slice/x.service");	/* as /proc/PID/cgroup */
	check_rel("/", 0, "/");
	check_rel("..", -EXDEV, NULL);
	check_rel("/tmp", -EXDEV, NULL);
	check_rel("/nonexistent-lockstat", -ENOENT, NULL);
	check_rel("system.slice/y.service", -ENOENT, NULL);
	check_rel("cgroup.procs", -ENOTDIR, NULL);

	unlink(file);
	snprintf(abs, sizeof(abs), "%s/system.slice/x.service", mount_dir);
	rmdir(abs);
	snprintf(abs, sizeof(abs), "%s/system.slice", mount_dir);
	rmdir(abs);
	rmdir(mount_dir);
}

/* No such cgroup: refused with its name, nothing left open. */
static void test_open_refuses(void **state)
{
	struct cgroup_target t;
	char why[512];

	(void)state;
	assert_true(cgroup_target__open(&t, "/nonexistent-lockstat-cgroup", why, sizeof(why)) < 0);
	assert_int_equal(t.fd, -1);
	/* Where no cgroup2 is mounted at all, that is why. */
	assert_true(strstr(why, "nonexistent-lockstat-cgroup") || strstr(why, "no cgroup v2 hierarchy"));
	cgroup_target__close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount),
		cmocka_unit_test(test_rel_path),
		cmocka_unit_test(test_open_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
