// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* lib/base/outfile.c: what is replaced, what is refused, what is left behind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <endian.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <cmocka.h>
#include "base/outfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/lockstat-outfile.XXXXXX");
	if (!mkdtemp(dir) || chdir(dir))
		return -1;
	umask(022);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (chdir("/"))
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's content, or "" when it cannot be read. */
static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Names in the test directory, hidden ones included (temporary files). */
static int entries(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void write_all_of(struct outfile *o, const char *text)
{
	assert_int_equal(write(o->fd, text, strlen(text)), (ssize_t)strlen(text));
}

static void test_new_file_is_unnamed_until_commit(void **state)
{
	struct outfile o;
	struct stat st;

	(void)state;
	umask(027);
	assert_int_equal(outfile__open(&o, "new.data", NULL), 0);
	write_all_of(&o, "new");
	assert_int_equal(entries(), 0);		/* O_TMPFILE: no name yet */
	assert_int_equal(outfile__commit(&o), 0);
	outfile__close(&o);
	assert_string_equal(get("new.data"), "new");
	assert_int_equal(stat("new.data", &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);	/* 0666 less the umask */
	assert_int_equal(entries(), 1);
	unlink("new.data");
	umask(022);
}

static void test_discard_leaves_the_old_file(void **state)
{
	struct outfile o;

	(void)state;
	put("p.data", "old");
	assert_int_equal(outfile__open(&o, "p.data", &(struct outfile_opts){ .keep_old = true }), 0);
	write_all_of(&o, "half");
	outfile__close(&o);	/* never published: discarded */
	assert_string_equal(get("p.data"), "old");
	assert_int_equal(entries(), 1);
	unlink("p.data");
}

static void test_keep_old(void **state)
{
	struct outfile o;

	(void)state;
	put("p.data", "old");
	put("p.data.old", "older");
	assert_int_equal(outfile__open(&o, "p.data", &(struct outfile_opts){ .keep_old = true }), 0);
	write_all_of(&o, "new");
	assert_int_equal(outfile__publish(&o), 0);
	assert_true(o.made_old);
	assert_string_equal(o.old, "p.data.old");
	outfile__discard(&o);	/* published: stays */
	outfile__close(&o);
	assert_string_equal(get("p.data"), "new");
	assert_string_equal(get("p.data.old"), "old");
	assert_int_equal(entries(), 2);
	unlink("p.data");
	unlink("p.data.old");
}

static void test_replace_without_old(void **state)
{
	struct outfile o;

	(void)state;
	put("x.svg", "old");
	assert_int_equal(outfile__open(&o, "x.svg", NULL), 0);
	fputs("new", outfile__stream(&o));
	assert_int_equal(outfile__commit(&o), 0);
	outfile__close(&o);
	assert_string_equal(get("x.svg"), "new");
	assert_int_equal(entries(), 1);
	unlink("x.svg");
}

static void test_symlinks_are_followed(void **state)
{
	struct outfile o;
	char target[64];

	(void)state;
	assert_int_equal(mkdir("sub", 0755), 0);
	put("sub/real.data", "old");
	assert_int_equal(symlink("real.data", "sub/rel"), 0);	/* relative to sub/ */
	assert_int_equal(symlink("sub/rel", "top"), 0);		/* a chain */
	assert_int_equal(outfile__open(&o, "top", &(struct outfile_opts){ .keep_old = true }), 0);
	assert_string_equal(o.path, "sub/real.data");
	write_all_of(&o, "new");
	assert_int_equal(outfile__commit(&o), 0);
	outfile__close(&o);
	assert_string_equal(get("sub/real.data"), "new");
	assert_string_equal(get("sub/real.data.old"), "old");
	assert_int_equal(readlink("top", target, sizeof(target)), 7);	/* the links stay */
	/* A dangling link: its target is created. */
	assert_int_equal(symlink("sub/later.data", "dangling"), 0);
	assert_int_equal(outfile__open(&o, "dangling", NULL), 0);
	assert_int_equal(outfile__commit(&o), 0);
	outfile__close(&o);
	assert_int_equal(access("sub/later.data", F_OK), 0);
	assert_int_equal(system("rm -rf sub top dangling"), 0);
}

static void test_link_loop(void **state)
{
	struct outfile o;

	(void)state;
	assert_int_equal(symlink("b", "a"), 0);
	assert_int_equal(symlink("a", "b"), 0);
	assert_int_not_equal(outfile__open(&o, "a", NULL), 0);
	assert_non_null(strstr(o.why, "symbolic links"));
	outfile__close(&o);
	unlink("a");
	unlink("b");
}

/* Refused, and left exactly as they were. */
static void test_not_regular_refused(void **state)
{
	struct outfile o;
	struct stat st;

	(void)state;
	assert_int_equal(mkfifo("fifo", 0644), 0);
	assert_int_equal(outfile__open(&o, "fifo", NULL), -EINVAL);
	assert_string_equal(o.why, "fifo is a FIFO: lockstat writes only regular files");
	outfile__close(&o);
	assert_int_equal(lstat("fifo", &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	assert_int_equal(symlink("fifo", "to-fifo"), 0);
	assert_int_equal(outfile__open(&o, "to-fifo", NULL), -EINVAL);
	outfile__close(&o);
	assert_int_equal(outfile__open(&o, "/dev/null", NULL), -EINVAL);
	assert_non_null(strstr(o.why, "a character device"));
	outfile__close(&o);
	assert_int_equal(outfile__open(&o, ".", NULL), -EISDIR);
	outfile__close(&o);
	assert_int_equal(outfile__open(&o, "", NULL), -EINVAL);
	assert_string_equal(o.why, "an empty file name");
	outfile__close(&o);
	assert_int_equal(entries(), 2);
	unlink("fifo");
	unlink("to-fifo");
}

/* FILE.old must be a regular file too: it would be replaced. */
static void test_old_not_regular_refused(void **state)
{
	struct outfile o;

	(void)state;
	put("p.data", "old");
	assert_int_equal(mkdir("p.data.old", 0755), 0);
	assert_int_equal(outfile__open(&o, "p.data", &(struct outfile_opts){ .keep_old = true }), -EISDIR);
	outfile__close(&o);
	assert_string_equal(get("p.data"), "old");
	rmdir("p.data.old");
	unlink("p.data");
}

/* A FIFO put in place while the file was being written is not replaced. */
static void test_target_changed_before_publish(void **state)
{
	struct outfile o;
	struct stat st;

	(void)state;
	assert_int_equal(outfile__open(&o, "p.data", NULL), 0);
	assert_int_equal(mkfifo("p.data", 0644), 0);
	assert_int_equal(outfile__publish(&o), -EINVAL);
	outfile__close(&o);
	assert_int_equal(lstat("p.data", &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(entries(), 1);
	unlink("p.data");
}

static void test_missing_directory(void **state)
{
	struct outfile o;

	(void)state;
	assert_int_equal(outfile__open(&o, "no/such/dir/p.data", NULL), -ENOENT);
	assert_string_equal(o.why, "cannot create no/such/dir/p.data: No such file or directory");
	outfile__close(&o);
}

/* A filesystem without O_TMPFILE, as the kernel tells it: openat fails with EOPNOTSUPP. */
static int refuse_tmpfile(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]) +
			 (__BYTE_ORDER == __BIG_ENDIAN ? 4 : 0)),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 020000000 /* __O_TMPFILE */, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* In a child (the filter stays with it): 0, or the number of the step that failed. */
static int fallback_steps(void)
{
	struct outfile o;

	put("p.data", "old");
	if (refuse_tmpfile())
		return 1;
	if (outfile__open(&o, "p.data", &(struct outfile_opts){ .keep_old = true }))
		return 2;
	if (!o.tmp || !strstr(o.tmp, "/.lockstat-") || entries() != 2)
		return 3;	/* the old file and the hidden new one */
	write_all_of(&o, "new");
	if (outfile__commit(&o))
		return 4;
	outfile__close(&o);
	if (strcmp(get("p.data"), "new") || strcmp(get("p.data.old"), "old") || entries() != 2)
		return 5;
	if (outfile__open(&o, "q.data", NULL) || entries() != 3)
		return 6;
	outfile__close(&o);	/* never published: the hidden file goes */
	return entries() == 2 ? 0 : 7;
}

static void test_named_fallback(void **state)
{
	pid_t pid = fork();
	int status;

	(void)state;
	if (pid == 0)
		_exit(fallback_steps());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink("p.data");
	unlink("p.data.old");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file_is_unnamed_until_commit),
		cmocka_unit_test(test_discard_leaves_the_old_file),
		cmocka_unit_test(test_keep_old),
		cmocka_unit_test(test_replace_without_old),
		cmocka_unit_test(test_symlinks_are_followed),
		cmocka_unit_test(test_link_loop),
		cmocka_unit_test(test_not_regular_refused),
		cmocka_unit_test(test_old_not_regular_refused),
		cmocka_unit_test(test_target_changed_before_publish),
		cmocka_unit_test(test_missing_directory),
		cmocka_unit_test(test_named_fallback),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
