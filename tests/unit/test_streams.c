// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Profiles that are not regular files: a pipe ("-", /dev/fd/N), a FIFO,
 * a device, a terminal. Every reader goes through store_open(); a stream
 * must read as the file does, and a foreign or damaged one must be refused
 * or cut at once, never read forever. alarm() turns a hang into a failure.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "profile.h"
#include "store.h"
#include "fixtures.h"

#define HANG_S	10

struct fixture {
	char path[64];
	uint8_t *data;
	size_t size;
	pid_t writer;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->data = fx_profile_bytes(fx->path, &fx->size);
	*state = fx;
	alarm(HANG_S);
	return fx->data ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	alarm(0);
	if (fx->writer > 0) {
		kill(fx->writer, SIGKILL);
		waitpid(fx->writer, NULL, 0);
	}
	unlink(fx->path);
	free(fx->data);
	free(fx);
	return 0;
}

/* A child writes n bytes to fd, then exits or, with hold, keeps fd open. */
static void start_writer(struct fixture *fx, int fd, size_t n, bool hold)
{
	fx->writer = fork();
	assert_true(fx->writer >= 0);
	if (fx->writer)
		return;
	if (write(fd, fx->data, n) != (ssize_t)n)
		_exit(1);
	if (hold)
		pause();
	_exit(0);
}

/* A pipe whose read end is returned, its writer running. */
static int piped(struct fixture *fx, size_t n, bool hold)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	start_writer(fx, p[1], n, hold);
	close(p[1]);
	return p[0];
}

static void assert_same_profile(const struct profile *a, const struct profile *b)
{
	assert_int_equal(a->nbuckets, b->nbuckets);
	assert_int_equal(a->rows.count, b->rows.count);
	assert_int_equal(a->samples.count, b->samples.count);
	assert_int_equal(profile__duration_ns(a), profile__duration_ns(b));
	assert_int_equal(a->has_end, b->has_end);
	assert_int_equal(a->stop, b->stop);
	assert_int_equal(a->stop_offset, b->stop_offset);
}

static struct profile *read_ok(const char *path)
{
	struct profile *p = NULL;
	char why[256] = "";

	assert_int_equal(profile__read(path, &p, why, sizeof(why)), 0);
	assert_non_null(p);
	return p;
}

/* The profile read by path from a pipe (/dev/fd/N, as /dev/stdin is) fed n bytes. */
static struct profile *read_piped(struct fixture *fx, size_t n, bool hold)
{
	int rd = piped(fx, n, hold);
	struct profile *p;
	char path[32];

	snprintf(path, sizeof(path), "/dev/fd/%d", rd);
	p = read_ok(path);
	close(rd);
	return p;
}

/* "-" is standard input, here a pipe: the same profile as the file. */
static void test_stdin_pipe(void **state)
{
	struct fixture *fx = *state;
	struct profile *file = read_ok(fx->path), *in;
	int saved = dup(STDIN_FILENO), rd = piped(fx, fx->size, false);

	assert_true(saved >= 0);
	assert_int_equal(dup2(rd, STDIN_FILENO), STDIN_FILENO);
	close(rd);
	in = read_ok("-");
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	assert_true(file->has_end && file->nbuckets > 0);
	assert_same_profile(file, in);
	profile__free(in);
	profile__free(file);
}

/* A pipe by path: read, not refused with EINVAL. */
static void test_pipe_by_path(void **state)
{
	struct fixture *fx = *state;
	struct profile *file = read_ok(fx->path), *in = read_piped(fx, fx->size, false);

	assert_same_profile(file, in);
	profile__free(in);
	profile__free(file);
}

/* A FIFO: open(2) does not block, the reader waits for the writer, then reads it all. */
static void test_fifo(void **state)
{
	struct fixture *fx = *state;
	struct profile *file = read_ok(fx->path), *in;
	char fifo[80];
	int fd;

	snprintf(fifo, sizeof(fifo), "%s.fifo", fx->path);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fx->writer = fork();
	assert_true(fx->writer >= 0);
	if (!fx->writer) {
		usleep(200 * 1000);	/* the reader is already waiting */
		fd = open(fifo, O_WRONLY);
		_exit(fd < 0 || write(fd, fx->data, fx->size) != (ssize_t)fx->size);
	}
	in = read_ok(fifo);
	unlink(fifo);
	assert_same_profile(file, in);
	profile__free(in);
	profile__free(file);
}

/* A stream cut inside a chunk reads as the file cut at the same byte. */
static void test_stream_cut(void **state)
{
	struct fixture *fx = *state;
	size_t cut = fx->size - 10;
	struct profile *file, *in;

	assert_int_equal(truncate(fx->path, cut), 0);
	file = read_ok(fx->path);
	in = read_piped(fx, cut, false);
	assert_int_equal(in->stop, WALK_TRUNCATED);
	assert_same_profile(file, in);
	profile__free(in);
	profile__free(file);
}

/*
 * A damaged chunk ends the walk: the reader stops there and returns what
 * came before, although the writer never closes the pipe.
 */
static void test_stream_stops_at_damage(void **state)
{
	struct fixture *fx = *state;
	struct store_file whole = { .data = fx->data, .size = fx->size };
	struct store_chunk ch;
	struct profile *in;
	enum walk_status st;
	uint64_t pos, second;
	const char *why;

	assert_int_equal(store_parse(&whole, &why), 0);
	pos = whole.hdr.header_len;
	assert_int_equal(store_next_chunk(&whole, &pos, &ch), WALK_CHUNK);
	second = pos;
	fx->data[second + LKST_CHUNK_HDR_LEN] ^= 0x40;	/* a payload byte of chunk 2 */
	in = read_piped(fx, fx->size, true);
	st = in->stop;
	assert_int_equal(st, WALK_BAD_CRC);
	assert_int_equal(in->stop_offset, second);
	assert_non_null(profile__meta(in, "command"));
	profile__free(in);
}

/* Devices that hold no profile: refused at once, with why. */
static void test_devices_refused(void **state)
{
	struct store_file f;
	const char *why;

	(void)state;
	why = NULL;
	assert_int_equal(store_open("/dev/zero", &f, &why), -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, "magic"));
	assert_null(f.data);
	why = NULL;
	assert_int_equal(store_open("/dev/null", &f, &why), -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, "empty"));
	assert_null(f.data);
}

/* A terminal is never read as a profile: nobody is going to type one. */
static void test_terminal_refused(void **state)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	struct store_file f;
	const char *why = NULL;

	(void)state;
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		print_message("SKIP: no pseudo-terminal (/dev/ptmx): %s\n", strerror(errno));
		skip();
		return;
	}
	assert_int_equal(store_open(ptsname(master), &f, &why), -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, "terminal"));
	close(master);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stdin_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_by_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_stops_at_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devices_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_terminal_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
