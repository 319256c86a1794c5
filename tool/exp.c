// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parts of lockstat ab and lockstat sweep that are the same: see
 * exp.h. A run is lockstat record started as a child of this process
 * (/proc/self/exe: the same build), not a session in this one: every
 * run is then exactly what the user would get from record, with its
 * own clean state, and a run that crashes or is killed takes only
 * itself down, said in the error with the log that holds its output.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "exp.h"
#include "base/log.h"
#include "run/metric.h"
#include "view/stats.h"

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			err = -ENOTEMPTY;
	closedir(d);
	return err;
}

int exp_dir_make(const char *dir)
{
	int err = mkdir(dir, 0777) ? -errno : 0;

	if (err == -EEXIST)
		err = dir_is_empty(dir);
	if (err == -ENOTEMPTY)
		pr_err("%s: not empty: give a new or empty directory (-o), old results are not mixed with new ones\n",
		       dir);
	else if (err)
		pr_err("%s: %s\n", dir, strerror(-err));
	return err;
}

int exp_metric_parse(struct exp_opts *o, const char *spec)
{
	struct metric m;
	char why[256];

	if (metric__init(&m, spec, why, sizeof(why))) {
		pr_err("--metric %s\n", why);
		return -EINVAL;
	}
	metric__free(&m);
	o->metric = spec;
	return 0;
}

void exp_figure(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.*f", fabs(v) >= 1000 || v == 0 ? 0 : fabs(v) >= 10 ? 1 : 3, v);
}

void exp_argv_text(char *buf, size_t len, char *const *argv)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; *argv && n < len; argv++) {
		bool plain = **argv && !(*argv)[strcspn(*argv, " \t\n'\"\\$`*?;&|<>(){}[]!#~")];

		n += snprintf(buf + n, len - n, plain ? "%s%s" : "%s'%s'", n ? " " : "", *argv);
	}
}

/* The child: its output to the log, then lockstat record. Never returns. */
static void run_child(char **args, const char *log, const cpu_set_t *pin, pid_t parent)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || in < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0 ||
	    dup2(in, STDIN_FILENO) < 0)
		_exit(126);
	/* ab or sweep killed: the run stops too (record ends its workload on SIGTERM). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(126);
	if (pin && sched_setaffinity(0, sizeof(*pin), pin)) {
		dprintf(STDERR_FILENO, "lockstat: sched_setaffinity: %s\n", strerror(errno));
		_exit(126);
	}
	execv("/proc/self/exe", args);
	dprintf(STDERR_FILENO, "lockstat: /proc/self/exe: %s\n", strerror(errno));
	_exit(127);
}

/* The last line of the log, for the one-line error. */
static void last_line(const char *log, char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen(log, "r");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t\n")])
			snprintf(buf, len, "%.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
}

static char **record_args(const struct exp_opts *o, const char *data, char *const *argv)
{
	size_t n = 0, i = 0;
	char **args;

	while (argv[n])
		n++;
	args = calloc(n + 10, sizeof(*args));
	if (!args)
		return NULL;
	args[i++] = "lockstat";
	args[i++] = "record";
	args[i++] = "-q";
	args[i++] = "-o";
	args[i++] = (char *)data;
	if (o->metric) {
		args[i++] = "--metric";
		args[i++] = (char *)o->metric;
	}
	args[i++] = "--";
	memcpy(args + i, argv, n * sizeof(*args));
	return args;
}

static int wait_run(pid_t pid, const char *what, const char *log)
{
	char line[512];
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	last_line(log, line, sizeof(line));
	if (WIFEXITED(status))
		pr_err("%s failed (exit status %d)%s%s; its output: %s\n", what, WEXITSTATUS(status),
		       line[0] ? ": " : "", line, log);
	else
		pr_err("%s was killed by signal %d; its output: %s\n", what, WTERMSIG(status), log);
	return -EIO;
}

int exp_record(const struct exp_opts *o, const char *name, char *const *argv, const cpu_set_t *pin,
	       const char *what)
{
	char data[PATH_MAX], log[PATH_MAX];
	pid_t pid, parent = getpid();
	char **args;
	int err;

	snprintf(data, sizeof(data), "%s/%s.data", o->dir, name);
	snprintf(log, sizeof(log), "%s/%s.log", o->dir, name);
	args = record_args(o, data, argv);
	if (!args)
		return -ENOMEM;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		run_child(args, log, pin, parent);
	free(args);
	if (pid < 0) {
		err = -errno;
		pr_err("%s: fork: %s\n", what, strerror(-err));
		return err;
	}
	return wait_run(pid, what, log);
}

int exp_load(const char *dir, char **names, size_t n, struct diff_run *runs)
{
	char path[PATH_MAX], why[256];
	struct profile *p;
	size_t i;
	int err = 0;

	memset(runs, 0, n * sizeof(*runs));
	for (i = 0; !err && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s.data", dir, names[i]);
		why[0] = '\0';
		err = profile__read(path, &p, why, sizeof(why));
		if (err) {
			pr_err("%s: %s\n", path, why[0] ? why : strerror(-err));
			break;
		}
		runs[i].p = p;
		runs[i].path = strdup(path);
		if (!runs[i].path)
			err = -ENOMEM;
	}
	return err;
}

void exp_unload(struct diff_run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		profile__free((struct profile *)runs[i].p);
		free((char *)runs[i].path);
	}
}

void exp_interval(const double *v, size_t n, double *mean, double *half)
{
	*mean = n ? stats_mean(v, n) : NAN;
	*half = n > 1 ? stats_t_quantile2(0.05, n - 1) * stats_sd(v, n) / sqrt(n) : NAN;
}

int exp_file_open(struct exp_file *x, const char *dir, const char *name)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = outfile__open(&x->out, path, NULL);
	x->f = err ? NULL : outfile__stream(&x->out);
	if (err)
		pr_err("%s\n", x->out.why);
	else if (!x->f)
		err = -ENOMEM;
	if (err && !x->f)
		outfile__close(&x->out);
	return err;
}

int exp_file_commit(struct exp_file *x)
{
	int err = outfile__commit(&x->out);

	if (err)
		pr_err("%s\n", x->out.why);
	outfile__close(&x->out);
	return err;
}
