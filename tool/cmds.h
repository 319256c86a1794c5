/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_CMDS_H
#define __LOCKSTAT_CMDS_H

/* One function per subcommand, each in tool/cmd-<name>.c. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* Shared by the subcommands: parse a number or complain, one line. */
int parse_ulong(const char *opt, const char *s, unsigned long max, unsigned long *out);
int parse_seconds(const char *opt, const char *s, double *out);
/* Check fflush/ferror on stdout at exit, as perf does. */
int finish_stdout(int status);
/* Do we hold what loading BPF tracing programs needs? */
int check_bpf_privileges(void);

#endif
