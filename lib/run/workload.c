// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The workload of a recording and its other targets (lib/run/workload.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "base/clock.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "run/workload.h"

void workload__init(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = w->out_fd = -1;
}

static void redirect_streams(enum wl_output out)
{
	int null;

	if (out == WL_OUT_STDERR) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		return;
	}
	if (out != WL_OUT_NULL || (null = open("/dev/null", O_RDWR)) < 0)
		return;
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
}

static void child_exec(char **argv, enum wl_output wl_out, const sigset_t *mask, int go, int errfd, int out)
{
	char c;
	int e;

	sigprocmask(SIG_SETMASK, mask, NULL);
	signal(SIGPIPE, SIG_DFL);
	redirect_streams(wl_out);
	if (out >= 0)	/* --metric: we read it and pass it on */
		dup2(out, STDOUT_FILENO);
	/* Wait until the probes are attached: none of its contention is missed. */
	if (read(go, &c, 1) != 1)
		_exit(EXIT_FAIL);
	execvp(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) != sizeof(e))
		_exit(EXIT_FAIL);
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

int workload__fork(struct workload *w, char **argv, enum wl_output wl_out, bool pipe_stdout,
		   const sigset_t *mask)
{
	int go[2], err[2], out[2] = { -1, -1 };
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC) || (pipe_stdout && pipe2(out, O_CLOEXEC))) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child_exec(argv, wl_out, mask, go[0], err[1], out[1]);
	}
	close(go[0]);
	close(err[1]);
	if (out[1] >= 0) {
		close(out[1]);
		fcntl(out[0], F_SETFL, O_NONBLOCK);
		w->out_fd = out[0];
	}
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int workload__start(struct workload *w, const char *name)
{
	ssize_t n;
	int e = 0;

	if (write(w->go_fd, "g", 1) != 1)
		e = errno;
	close(w->go_fd);
	w->go_fd = -1;
	n = read(w->err_fd, &e, sizeof(e));
	close(w->err_fd);
	w->err_fd = -1;
	if (n != sizeof(e) && !e)
		return 0;
	waitpid(w->pid, NULL, 0);
	w->pid = 0;
	pr_err("cannot run '%s': %s\n", name, strerror(e));
	return e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

bool workload__reap(struct workload *w)
{
	int status;

	if (!w->pid || w->exited)
		return true;
	if (wait4(w->pid, &status, WNOHANG, &w->ru) != w->pid)
		return false;
	w->exited = true;
	w->status = status;
	return true;
}

bool workload__finish(struct workload *w)
{
	uint64_t deadline = now_ns() + KILL_GRACE_NS;

	if (!w->pid || workload__reap(w))
		return true;
	kill(w->pid, SIGTERM);
	while (!workload__reap(w) && now_ns() < deadline)
		usleep(10000);
	if (!w->exited) {
		kill(w->pid, SIGKILL);
		wait4(w->pid, &w->status, 0, &w->ru);
		w->exited = true;
	}
	return false;
}

void workload__kill(struct workload *w)
{
	if (w->pid) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
	}
}

int workload__exit_code(const struct workload *w)
{
	if (!w->pid || !w->exited)
		return EXIT_OK;
	if (WIFSIGNALED(w->status))
		return EXIT_SIGNAL_BASE + WTERMSIG(w->status);
	return WEXITSTATUS(w->status);
}

/*
 * The workload's output, passed on as it comes and read for --metric;
 * closed at EOF (it exited, or closed its stdout). When our standard
 * output fails (a closed pipe: SIGPIPE is ignored), the metric is still
 * read and the recording goes on.
 */
void workload__pass_output(struct workload *w, struct metric *m)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(w->out_fd, buf, sizeof(buf))) > 0) {
		if (m)
			metric__feed(m, buf, n);
		if (w->stdout_failed || write(STDOUT_FILENO, buf, n) == n)
			continue;
		pr_warn("writing to standard output failed: %s: the workload's output is no longer passed on; --metric still reads it\n",
			strerror(errno));
		w->stdout_failed = true;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(w->out_fd);
		w->out_fd = -1;
	}
}

void workload__free(struct workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	if (w->out_fd >= 0)
		close(w->out_fd);
	w->go_fd = w->err_fd = w->out_fd = -1;
}

/* --- the other targets, and the signals ------------------------------------ */

int run_signals__open(int extra, sigset_t *orig, int *sigfd)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	if (extra)
		sigaddset(&mask, extra);
	if (sigprocmask(SIG_BLOCK, &mask, orig))
		return -errno;
	*sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return *sigfd < 0 ? -errno : 0;
}

int run_target__open_pid(pid_t pid, int *pidfd)
{
	if (kill(pid, 0) && errno == ESRCH) {
		pr_err("no process with pid %d\n", pid);
		return -ESRCH;
	}
	*pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (*pidfd < 0)
		pr_info("pidfd_open(%d): %s: will stop on -d or a signal only\n", pid, strerror(errno));
	return 0;
}

int run_target__open_cgroup(struct cgroup_target *cg, const char *path)
{
	char why[PATH_MAX + 128];

	if (cgroup_target__open(cg, path, why, sizeof(why))) {
		pr_err("--cgroup: %s\n", why);
		return -EINVAL;
	}
	return 0;
}
