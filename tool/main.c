// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* lockstat: which locks a workload waits on, for how long, and from where. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{ "record", cmd_record, "run a workload (or watch the system) and save a profile" },
	{ "report", cmd_report, "print the lock table or the hit list of a profile" },
	{ "top", cmd_top, "watch the lock waits and CPU hot spots of a running workload, live" },
	{ "serve", cmd_serve, "record for ever: a ring of segment files, Prometheus metrics, pprof endpoints" },
	{ "export", cmd_export, "write samples or lock waits as folded stacks, pprof, JSON or CSV" },
	{ "diff", cmd_diff, "compare the profiles of a baseline and a patched kernel, with significance" },
	{ "ab", cmd_ab, "run a baseline and a patched command N times each, alternated, and diff them" },
	{ "sweep", cmd_sweep, "run a workload over a ladder of CPUs or threads: scaling, and its locks" },
	{ "fsck", cmd_fsck, "check a profile file chunk by chunk" },
	{ "probe", cmd_probe, "show what this kernel offers and which probes lockstat will use" },
	{ "version", cmd_version, "print the version" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lockstat COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'lockstat COMMAND -h' for its options; man lockstat-COMMAND for the details.\n");
}

/* Exact name, or an unambiguous prefix of one ("rec" for record). */
static const struct cmd *find_cmd(const char *name)
{
	const struct cmd *found = NULL;
	size_t i, n = strlen(name);

	for (i = 0; i < NCMDS; i++) {
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
		if (!strncmp(cmds[i].name, name, n)) {
			if (found)
				return NULL;
			found = &cmds[i];
		}
	}
	return found;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;

	log_setup_libbpf();
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is reported (finish_stdout) */
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		argv[1] = "version";
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		pr_err("unknown or ambiguous command '%s' (see 'lockstat --help')\n", argv[1]);
		return EXIT_USAGE;
	}
	return finish_stdout(cmd->fn(argc - 1, argv + 1));
}
