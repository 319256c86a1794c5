/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CMDS_H
#define __LOCKSTAT_CMDS_H

#include <stdio.h>
#include "base/optval.h"

/* One function per subcommand, each in tool/cmd-<name>.c. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_version(int argc, char **argv);

/*
 * The options of every subcommand. opt_next() is getopt_long() with
 * lockstat's messages ("lockstat: unknown option '--x'", as for a bad
 * value); it returns '?' after saying what is wrong.
 */
struct option;
int opt_next(int argc, char **argv, const char *shortopts, const struct option *longopts);
/*
 * A command's usage: all of it on stdout (-h); after a usage error, on
 * stderr, only its synopsis (up to the first blank line) and where the
 * rest is, so that the one-line error stays in sight.
 */
void print_usage(FILE *f, const char *cmd, const char *text);
/* The usage of record, top or serve, made from the recording options' table. */
struct run_cmd;
void print_run_usage(FILE *f, const char *cmd, const struct run_cmd *c);
/* Arguments left after the options are an error (after saying so). */
int no_operands(int argc, char **argv);
/* Check fflush/ferror on stdout at exit, as perf does. */
int finish_stdout(int status);

#endif
