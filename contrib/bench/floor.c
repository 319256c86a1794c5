// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * floor OBJ -- CMD [ARG...]: load every program of the BPF object OBJ,
 * attach each where its section says, run CMD, detach, exit with CMD's
 * status. contrib/bench/overhead runs fdstorm under it with the empty
 * programs of floor.bpf.c to measure what a do-nothing program on the
 * lock tracepoints costs; kernel.bpf_stats gives the figures.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "base/exitcode.h"

static int floor__attach_all(struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor: cannot attach %s: %s\n",
				bpf_program__name(prog), strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* Run argv, return the exit code to pass on (128 + N when killed). */
static int floor__run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return EXIT_FAIL;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "floor: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
	}
	if (waitpid(pid, &status, 0) < 0)
		return EXIT_FAIL;
	if (WIFSIGNALED(status))
		return EXIT_SIGNAL_BASE + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: floor OBJ -- CMD [ARG...]\n");
		return EXIT_USAGE;
	}
	libbpf_set_print(NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load %s: %s\n", argv[1], strerror(errno));
		return EXIT_FAIL;
	}
	if (floor__attach_all(obj))
		return EXIT_FAIL;
	return floor__run(argv + 3);
}
