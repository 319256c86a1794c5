// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include "cmds.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "run/opts.h"

/* getopt's optstring with ':' after any '+': missing values are told apart. */
static const char *quiet_optstring(const char *shortopts)
{
	static char buf[128];
	bool plus = shortopts[0] == '+';

	snprintf(buf, sizeof(buf), "%s:%s", plus ? "+" : "", shortopts + plus);
	return buf;
}

/* How many long options begin with the name in arg ("--na=x": "na"). */
static int long_matches(const struct option *longopts, const char *arg, const struct option **exact)
{
	size_t n = strcspn(arg + 2, "=");
	int count = 0;

	for (; longopts->name; longopts++) {
		if (strncmp(longopts->name, arg + 2, n))
			continue;
		count++;
		if (strlen(longopts->name) == n) {
			*exact = longopts;
			return 1;
		}
	}
	return count;
}

static void say_long_error(int opt, const char *arg, const struct option *longopts)
{
	const struct option *exact = NULL;
	int n = (int)strcspn(arg, "=");
	int matches = long_matches(longopts, arg, &exact);

	if (opt == ':')
		pr_err("option '%.*s' needs a value\n", n, arg);
	else if (exact && arg[n] == '=')
		pr_err("option '%.*s' takes no value\n", n, arg);
	else if (matches > 1)
		pr_err("ambiguous option '%.*s'\n", n, arg);
	else
		pr_err("unknown option '%.*s'\n", n, arg);
}

int opt_next(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	int before = optind, opt;
	const char *arg;

	opterr = 0;
	opt = getopt_long(argc, argv, quiet_optstring(shortopts), longopts, NULL);
	if (opt != '?' && opt != ':')
		return opt;
	/* A long option's element is consumed at once; a short one may sit in a cluster. */
	arg = optind - 1 >= before && optind - 1 < argc ? argv[optind - 1] : "";
	if (!strncmp(arg, "--", 2))
		say_long_error(opt, arg, longopts);
	else if (opt == ':')
		pr_err("option '-%c' needs a value\n", optopt);
	else
		pr_err("unknown option '-%c'\n", optopt);
	return '?';
}

void print_usage(FILE *f, const char *cmd, const char *text)
{
	const char *blank = strstr(text, "\n\n");

	if (f == stdout || !blank) {
		fputs(text, f);
		return;
	}
	fprintf(f, "%.*s\n('lockstat %s -h' lists the options)\n", (int)(blank - text), text, cmd);
}

void print_run_usage(FILE *f, const char *cmd, const struct run_cmd *c)
{
	char *text = run_cmd__help(c);

	if (!text) {
		pr_err("cannot make the help text: %s\n", strerror(ENOMEM));
		return;
	}
	print_usage(f, cmd, text);
	free(text);
}

int no_operands(int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	pr_err("unexpected argument '%s'\n", argv[optind]);
	return -EINVAL;
}

/* A pipe whose reader has gone polls as an error on its write end. */
static bool stdout_reader_gone(void)
{
	struct pollfd pfd = { STDOUT_FILENO, POLLOUT, 0 };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

/*
 * SIGPIPE is ignored (main.c): a closed pipe is an error to report, as
 * any other write error, not a silent death by signal.
 */
int finish_stdout(int status)
{
	int err = 0;

	if (fflush(stdout))
		err = errno;
	else if (ferror(stdout))
		err = stdout_reader_gone() ? EPIPE : EIO;
	if (!err)
		return status;
	pr_err("writing to standard output failed: %s\n", strerror(err));
	return status ? status : EXIT_FAIL;
}
