// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat record: attach the probes, run the workload, and drain the
 * kernel's aggregates into a profile file once per bucket.
 *
 * The file appears under its final name as soon as its header is written
 * (through a temporary name and rename(2), so an existing profile is only
 * replaced by a valid one); every later chunk is one write(2) with its own
 * CRC. Ctrl-C, SIGTERM, the end of the workload or -d close the file
 * cleanly; a SIGKILL leaves every bucket written before it readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "cmds.h"
#include "collector.h"
#include "exitcode.h"
#include "kfeatures.h"
#include "ksyms.h"
#include "log.h"
#include "procmaps.h"
#include "profile.h"
#include "syms.h"
#include "uresolve.h"

#define NSEC_PER_SEC	1000000000ULL
#define KILL_GRACE_NS	(3 * NSEC_PER_SEC)

struct record_opts {
	const char *output;
	bool system_wide;
	pid_t pid;
	double duration;	/* 0: until the workload ends or a signal */
	double bucket;
	bool per_task;
	enum attach_mode mode;
	unsigned long map_entries;
	unsigned long stack_rate;
	unsigned int families;
	unsigned long sample_freq;
	char **argv;		/* the workload, or NULL */
};

struct workload {
	pid_t pid;		/* 0: none */
	int go_fd;		/* write a byte to let it exec */
	int err_fd;		/* errno of a failed exec, EOF on success */
	bool exited;
	int status;		/* from waitpid */
};

struct recorder {
	struct record_opts o;
	struct features feat;
	struct ksyms ks;
	bool have_ksyms;
	struct collector *col;
	struct pwriter *w;
	struct maps_cache maps;
	struct syms *syms;
	struct uresolver ures;
	int fd;
	char tmp_path[PATH_MAX];
	bool renamed;
	struct workload wl;
	int sigfd;
	int pidfd;
	sigset_t orig_mask;
	uint64_t t0;
	uint64_t last_t;
	uint64_t contended;
	uint64_t samples;
	int signals;		/* SIGINT/SIGTERM/SIGHUP received */
	uint64_t kill_deadline;	/* when a signalled workload gets SIGKILL */
	bool stop;
	int write_err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lockstat record [OPTIONS] [-a | -p PID | [--] COMMAND [ARGS...]]\n"
		"\n"
		"  -o, --output FILE      profile to write (default lockstat.data)\n"
		"  -a, --all-cpus         record the whole system (with a COMMAND: while it runs)\n"
		"  -p, --pid PID          record process PID and the processes it forks\n"
		"  -d, --duration SECS    stop after SECS seconds\n"
		"  -e, --events LIST      probe families: locks, sample, mmap_lock, fd, pagecache,\n"
		"                         hold (default locks,sample; mmap_lock comes with locks)\n"
		"      --hold             add hold times of kernel mutexes, rwsems and spinlocks\n"
		"                         (fentry, else kprobes; costly: the cost is printed)\n"
		"  -F, --freq HZ          samples per second per CPU (default 99)\n"
		"  -t, --per-thread       aggregate lock waits per task too (pid, tid, comm)\n"
		"      --attach MODE      auto, tp, tp_btf, tracepoint, fentry or kprobe (default\n"
		"                         auto); fentry/kprobe choose how fd and hold attach\n"
		"      --bucket SECS      drain the kernel maps every SECS (default 1)\n"
		"      --stack-rate N     kernel stacks taken per second per CPU (default 1000;\n"
		"                         0: one for every wait); waits are always all counted\n"
		"  -M, --map-entries N    rows the kernel can hold (default 16384)\n"
		"  -v, --verbose          say more (-vvv: libbpf's own messages)\n"
		"  -q, --quiet            only errors\n"
		"  -h, --help             this help\n"
		"\n"
		"The workload's exit status becomes lockstat's (128+N when killed by signal N).\n");
}

enum { OPT_ATTACH = 1000, OPT_BUCKET, OPT_STACK_RATE, OPT_HOLD };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "per-thread", no_argument, NULL, 't' },
	{ "events", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "attach", required_argument, NULL, OPT_ATTACH },
	{ "hold", no_argument, NULL, OPT_HOLD },
	{ "bucket", required_argument, NULL, OPT_BUCKET },
	{ "stack-rate", required_argument, NULL, OPT_STACK_RATE },
	{ "map-entries", required_argument, NULL, 'M' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_one(struct record_opts *o, int opt, const char *arg)
{
	unsigned long v;

	switch (opt) {
	case 'o':
		o->output = arg;
		return 0;
	case 'a':
		o->system_wide = true;
		return 0;
	case 'p':
		if (parse_ulong("--pid", arg, INT_MAX, &v) || !v)
			return v ? -EINVAL : (pr_err("--pid: 0 is not a process\n"), -EINVAL);
		o->pid = v;
		return 0;
	case 'd':
		return parse_seconds("--duration", arg, &o->duration);
	case 't':
		o->per_task = true;
		return 0;
	case 'e': {
		const char *bad;

		unsigned int hold = o->families & FAMILY_HOLD;

		if (!family_parse(arg, &o->families, &bad)) {
			o->families |= hold;
			return 0;
		}
		pr_err("--events: unknown probe family '%s' (%s)\n", bad, family_names_list());
		return -EINVAL;
	}
	case OPT_HOLD:
		o->families |= FAMILY_HOLD;
		return 0;
	case 'F':
		if (parse_ulong("--freq", arg, 100000, &o->sample_freq))
			return -EINVAL;
		if (!o->sample_freq) {
			pr_err("--freq: 0 samples per second samples nothing\n");
			return -EINVAL;
		}
		return 0;
	case OPT_ATTACH:
		if (attach_mode_parse(arg, &o->mode)) {
			pr_err("--attach: '%s' is not one of auto, tp, tp_btf, tracepoint, fentry, kprobe\n", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_BUCKET:
		return parse_seconds("--bucket", arg, &o->bucket);
	case OPT_STACK_RATE:
		return parse_ulong("--stack-rate", arg, 1000000UL, &o->stack_rate);
	case 'M':
		if (parse_ulong("--map-entries", arg, 1UL << 24, &v))
			return -EINVAL;
		if (v < 64) {
			pr_err("--map-entries: %lu is too small (at least 64)\n", v);
			return -EINVAL;
		}
		o->map_entries = v;
		return 0;
	case 'v':
		log_verbosity++;
		return 0;
	case 'q':
		log_verbosity = -1;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Returns 0, 1 for --help, or -EINVAL after saying what is wrong. */
static int parse_args(struct record_opts *o, int argc, char **argv)
{
	int opt, targets;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:ap:d:te:F:M:vqh", long_opts, NULL)) != -1) {
		if (opt == 'h')
			return 1;
		if (opt == '?' || parse_one(o, opt, optarg))
			return -EINVAL;
	}
	if (optind < argc)
		o->argv = &argv[optind];
	targets = (o->pid > 0) + (o->argv != NULL);
	if (targets > 1) {
		pr_err("give either -p PID or a COMMAND, not both\n");
		return -EINVAL;
	}
	if (!targets && !o->system_wide) {
		pr_err("nothing to record: give -a, -p PID or a COMMAND\n");
		return -EINVAL;
	}
	if (o->system_wide && o->pid > 0) {
		pr_err("-a and -p exclude each other\n");
		return -EINVAL;
	}
	return 0;
}

/* --- the output file -------------------------------------------------- */

static int open_output(struct recorder *r)
{
	char dir[PATH_MAX];

	if (strlen(r->o.output) >= sizeof(dir) - 32) {
		pr_err("%s: path too long\n", r->o.output);
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%s", r->o.output);
	snprintf(r->tmp_path, sizeof(r->tmp_path), "%s/.lockstat-XXXXXX", dirname(dir));
	r->fd = mkostemp(r->tmp_path, O_CLOEXEC);
	if (r->fd < 0) {
		int err = -errno;

		pr_err("cannot write %s: %s\n", r->o.output, strerror(errno));
		r->tmp_path[0] = '\0';
		return err;
	}
	fchmod(r->fd, 0644);
	return 0;
}

static void discard_output(struct recorder *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->renamed)
		unlink(r->o.output);
	else if (r->tmp_path[0])
		unlink(r->tmp_path);
}

static int publish_output(struct recorder *r)
{
	struct stat st;

	if (!stat(r->o.output, &st) && S_ISDIR(st.st_mode)) {
		pr_err("cannot write %s: Is a directory\n", r->o.output);
		return -EISDIR;
	}
	if (rename(r->tmp_path, r->o.output)) {
		int err = -errno;

		pr_err("cannot write %s: %s\n", r->o.output, strerror(errno));
		return err;
	}
	r->renamed = true;
	return 0;
}

static void note_write_error(struct recorder *r, int err)
{
	if (err && !r->write_err) {
		r->write_err = err;
		pr_err("writing %s failed: %s; stopping\n", r->o.output, strerror(-err));
		r->stop = true;
	}
}

/* --- the workload ------------------------------------------------------ */

static void child_exec(struct recorder *r, int go, int errfd)
{
	char c;
	int e;

	sigprocmask(SIG_SETMASK, &r->orig_mask, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Wait until the probes are attached: none of its contention is missed. */
	if (read(go, &c, 1) != 1)
		_exit(EXIT_FAIL);
	execvp(r->o.argv[0], r->o.argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) != sizeof(e))
		_exit(EXIT_FAIL);
	_exit(e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
}

static int workload_fork(struct recorder *r)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
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
		child_exec(r, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	r->wl.pid = pid;
	r->wl.go_fd = go[1];
	r->wl.err_fd = err[0];
	return 0;
}

/* Let the workload exec; returns 0 or the exit code for a failed exec. */
static int workload_start(struct recorder *r)
{
	ssize_t n;
	int e = 0;

	if (write(r->wl.go_fd, "g", 1) != 1)
		e = errno;
	close(r->wl.go_fd);
	r->wl.go_fd = -1;
	n = read(r->wl.err_fd, &e, sizeof(e));
	close(r->wl.err_fd);
	r->wl.err_fd = -1;
	if (n != sizeof(e) && !e)
		return 0;
	waitpid(r->wl.pid, NULL, 0);
	r->wl.pid = 0;
	pr_err("cannot run '%s': %s\n", r->o.argv[0], strerror(e));
	return e == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

/* Reap without waiting; true once the workload is gone. */
static bool workload_reap(struct recorder *r)
{
	int status;

	if (!r->wl.pid || r->wl.exited)
		return true;
	if (waitpid(r->wl.pid, &status, WNOHANG) != r->wl.pid)
		return false;
	r->wl.exited = true;
	r->wl.status = status;
	return true;
}

static void workload_finish(struct recorder *r)
{
	uint64_t deadline = now_ns() + KILL_GRACE_NS;

	if (!r->wl.pid || workload_reap(r))
		return;
	kill(r->wl.pid, SIGTERM);
	while (!workload_reap(r) && now_ns() < deadline)
		usleep(10000);
	if (!r->wl.exited) {
		kill(r->wl.pid, SIGKILL);
		waitpid(r->wl.pid, &r->wl.status, 0);
		r->wl.exited = true;
	}
}

static int workload_exit_code(const struct recorder *r)
{
	if (!r->wl.pid || !r->wl.exited)
		return EXIT_OK;
	if (WIFSIGNALED(r->wl.status))
		return EXIT_SIGNAL_BASE + WTERMSIG(r->wl.status);
	return WEXITSTATUS(r->wl.status);
}

/* --- meta data ----------------------------------------------------------- */

static void join_argv(char **argv, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (; argv && *argv && used < len; argv++)
		used += snprintf(out + used, len - used, "%s%s", used ? " " : "", *argv);
}

/* "tp_btf", "not recorded", or "not attached: why", for META and messages. */
static char *family_text(const struct recorder *r, enum family f, char *buf, size_t len)
{
	const struct family_status *st = collector__status(r->col, f);

	if (st->attached)
		snprintf(buf, len, "%s", st->mode);
	else if (!st->wanted)
		snprintf(buf, len, "not recorded");
	else
		snprintf(buf, len, "not attached: %s", st->why);
	return buf;
}

static int write_meta(struct recorder *r)
{
	char cpus[16], bucket[32], command[1024], target[64], started[64], rate[24], freq[24];
	char modes[FAMILY_COUNT][300], keys[FAMILY_COUNT][32];
	struct utsname u;
	time_t t = time(NULL);
	struct kv kv[16 + FAMILY_COUNT];
	size_t n = 0;
	int i;

	uname(&u);
	snprintf(cpus, sizeof(cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(bucket, sizeof(bucket), "%" PRIu64, (uint64_t)(r->o.bucket * NSEC_PER_SEC));
	join_argv(r->o.argv, command, sizeof(command));
	if (r->o.pid)
		snprintf(target, sizeof(target), "pid %d", r->o.pid);
	else
		snprintf(target, sizeof(target), "%s", r->o.system_wide ? "system-wide" : "command");
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
	kv[n++] = (struct kv){ "lockstat_version", LOCKSTAT_VERSION };
	kv[n++] = (struct kv){ "kernel", u.release };
	kv[n++] = (struct kv){ "kernel_version", u.version };
	kv[n++] = (struct kv){ "hostname", u.nodename };
	kv[n++] = (struct kv){ "arch", u.machine };
	kv[n++] = (struct kv){ "cpus", cpus };
	kv[n++] = (struct kv){ "command", command };
	kv[n++] = (struct kv){ "target", target };
	kv[n++] = (struct kv){ "start_time", started };
	kv[n++] = (struct kv){ "bucket_ns", bucket };
	kv[n++] = (struct kv){ "per_task", r->o.per_task ? "1" : "0" };
	snprintf(rate, sizeof(rate), "%lu", r->o.stack_rate);
	kv[n++] = (struct kv){ "stack_rate", rate };
	snprintf(freq, sizeof(freq), "%lu", r->o.sample_freq);
	kv[n++] = (struct kv){ "sample_freq", freq };
	for (i = 0; i < FAMILY_COUNT; i++) {
		/* "probe.contention" predates the family names: kept for old readers. */
		snprintf(keys[i], sizeof(keys[i]), "probe.%s",
			 i == 0 ? "contention" : family_name(1 << i));
		kv[n++] = (struct kv){ keys[i], family_text(r, 1 << i, modes[i], sizeof(modes[i])) };
	}
	return pwriter__meta(r->w, kv, n);
}

static const char *const lost_names[] = {
	"missing_begin", "nested_dropped", "stale_begin", "pending_full",
	"stack_collision", "stack_error", "map_full", "targets_full", "in_probe",
};

#define NLOST (sizeof(lost_names) / sizeof(lost_names[0]))
_Static_assert(sizeof(struct cont_lost) == NLOST * sizeof(__u64), "one name per loss counter, in order");

static const char *const sample_lost_names[] = {
	"sample_kstack_error", "sample_ustack_error", "sample_stack_collision", "sample_map_full",
};

#define NSLOST (sizeof(sample_lost_names) / sizeof(sample_lost_names[0]))
_Static_assert(sizeof(struct sample_lost) == NSLOST * sizeof(__u64), "one name per loss counter, in order");

static int write_lost(struct recorder *r)
{
	char vals[NLOST + NSLOST][24];
	struct cont_lost lost;
	struct sample_lost slost;
	struct kv kv[NLOST + NSLOST];
	__u64 *counters = (__u64 *)&lost, *scounters = (__u64 *)&slost;
	size_t i;

	collector__lost(r->col, &lost);
	collector__sample_lost(r->col, &slost);
	for (i = 0; i < NLOST + NSLOST; i++) {
		snprintf(vals[i], sizeof(vals[i]), "%llu",
			 (unsigned long long)(i < NLOST ? counters[i] : scounters[i - NLOST]));
		kv[i] = (struct kv){ (char *)(i < NLOST ? lost_names[i] : sample_lost_names[i - NLOST]), vals[i] };
	}
	return pwriter__lost(r->w, kv, NLOST + NSLOST);
}

/* Capture the mappings of processes seen in samples for the first time. */
/* Read a process's mappings once, and write them to the profile. */
static int capture_process(struct recorder *r, uint32_t tgid)
{
	const char *paths[256];
	struct mapping m[256];
	size_t j, k;
	int first, err = 0;

	if (!tgid || maps_cache__has(&r->maps, tgid))
		return 0;
	first = maps_cache__capture(&r->maps, tgid);
	if (first < 0)
		return 0;	/* gone already: its PCs stay unmapped */
	for (j = first; j < r->maps.n && !err; j += k) {
		for (k = 0; k < 256 && j + k < r->maps.n; k++) {
			const struct proc_map *pm = &r->maps.maps[j + k];

			m[k] = (struct mapping){ .tgid = pm->tgid, .start = pm->start,
				.end = pm->end, .pgoff = pm->pgoff, .build_id_len = pm->build_id_len };
			memcpy(m[k].build_id, pm->build_id, sizeof(m[k].build_id));
			paths[k] = pm->path;
		}
		err = pwriter__mappings(r->w, m, k, paths);
	}
	return err;
}

static int capture_mappings(struct recorder *r, const struct sample_row *rows, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = capture_process(r, rows[i].key.tgid);
	return err;
}

/* Called as the sampler announces a process, usually within milliseconds. */
static void on_new_process(void *ctx, uint32_t tgid)
{
	struct recorder *r = ctx;

	if (!r->write_err)
		note_write_error(r, capture_process(r, tgid));
}

/* --- the loop ------------------------------------------------------------ */

static void write_rows(struct recorder *r, const struct snapshot *s, uint64_t t)
{
	uint64_t t0 = r->last_t - r->t0, t1 = t - r->t0;
	size_t i;

	for (i = 0; i < s->ncont; i++)
		r->contended += s->cont[i].val.count;
	for (i = 0; i < s->nsamples; i++)
		r->samples += s->samples[i].count;
	if (collector__status(r->col, FAMILY_LOCKS)->attached)
		note_write_error(r, pwriter__bucket(r->w, t0, t1, s->cont, s->ncont));
	if (!r->write_err)
		note_write_error(r, capture_mappings(r, s->samples, s->nsamples));
	if (!r->write_err && collector__status(r->col, FAMILY_SAMPLE)->attached)
		note_write_error(r, pwriter__samples(r->w, t0, t1, s->samples, s->nsamples));
	for (i = 0; i < s->ntables && !r->write_err; i++)
		note_write_error(r, pwriter__table(r->w, t0, t1, &s->tables[i]));
	if (!r->write_err)
		note_write_error(r, write_lost(r));
	r->last_t = t;
}

static void write_bucket(struct recorder *r)
{
	struct snapshot s;
	int err;

	err = collector__drain(r->col, &s);
	if (err) {
		pr_err("reading the kernel maps failed: %s\n", strerror(-err));
		r->stop = true;
		return;
	}
	write_rows(r, &s, now_ns());
}

static void on_stop_signal(struct recorder *r, const struct signalfd_siginfo *si)
{
	r->signals++;
	if (!r->wl.pid || r->wl.exited || r->signals > 1) {
		r->stop = true;
		return;
	}
	/* A terminal's Ctrl-C already reached the workload: forward the rest. */
	if (si->ssi_code != SI_KERNEL)
		kill(r->wl.pid, si->ssi_signo);
	r->kill_deadline = now_ns() + KILL_GRACE_NS;
}

static void handle_signals(struct recorder *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (r->wl.pid && workload_reap(r))
				r->stop = true;
			continue;
		}
		on_stop_signal(r, &si);
	}
}

static int poll_timeout_ms(const struct recorder *r, uint64_t next, uint64_t deadline)
{
	uint64_t now = now_ns(), until = next;

	if (deadline && deadline < until)
		until = deadline;
	if (r->kill_deadline && r->kill_deadline < until)
		until = r->kill_deadline;
	return until <= now ? 0 : (int)((until - now + 999999) / 1000000);
}

static void run_loop(struct recorder *r)
{
	uint64_t step = r->o.bucket * NSEC_PER_SEC, next = r->t0 + step;
	uint64_t deadline = r->o.duration ? r->t0 + (uint64_t)(r->o.duration * NSEC_PER_SEC) : 0;
	/* poll(2) skips the descriptors that are -1. */
	struct pollfd pfd[3] = { { r->sigfd, POLLIN, 0 }, { r->pidfd, POLLIN, 0 },
				 { collector__event_fd(r->col), POLLIN, 0 } };

	while (!r->stop) {
		int n = poll(pfd, 3, poll_timeout_ms(r, next, deadline));

		if (n > 0 && (pfd[2].revents & POLLIN))
			collector__consume(r->col);
		if (n > 0 && (pfd[0].revents & POLLIN))
			handle_signals(r);
		if (n > 0 && r->pidfd >= 0 && (pfd[1].revents & POLLIN)) {
			pr_notice("process %d exited\n", r->o.pid);
			r->stop = true;
		}
		if (now_ns() >= next && !r->stop) {
			write_bucket(r);
			next += step;
		}
		if (deadline && now_ns() >= deadline)
			r->stop = true;
		if (r->kill_deadline && now_ns() >= r->kill_deadline && !workload_reap(r)) {
			pr_warn("workload did not exit after the signal; killing it\n");
			kill(r->wl.pid, SIGKILL);
			r->kill_deadline = 0;
		}
	}
}

/* --- set-up and tear-down ------------------------------------------------ */

static int setup_signals(struct recorder *r)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &r->orig_mask))
		return -errno;
	r->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return r->sigfd < 0 ? -errno : 0;
}

static int open_target_pid(struct recorder *r)
{
	if (kill(r->o.pid, 0) && errno == ESRCH) {
		pr_err("no process with pid %d\n", r->o.pid);
		return -ESRCH;
	}
	r->pidfd = syscall(SYS_pidfd_open, r->o.pid, 0);
	if (r->pidfd < 0)
		pr_info("pidfd_open(%d): %s: will stop on -d or a signal only\n", r->o.pid, strerror(errno));
	return 0;
}

static int attach_probes(struct recorder *r)
{
	struct collector_opts co = {
		.per_task = r->o.per_task,
		.filter_targets = !r->o.system_wide,
		.mode = r->o.mode,
		.stats_entries = r->o.map_entries,
		.stack_rate = r->o.stack_rate,
		.families = r->o.families,
		.sample_freq = r->o.sample_freq,
		/* The opt-in families are the costly ones: say what they cost. */
		.probe_stats = r->o.families & (FAMILY_FD | FAMILY_PAGECACHE | FAMILY_HOLD),
	};
	char why[600] = "", mode[300];
	int err, i;

	features_probe(&r->feat);
	if (!r->feat.r[FEAT_TP_SCHED].ok && co.filter_targets)
		pr_warn("no sched_process_fork tracepoint: processes the workload forks are not followed\n");
	err = collector__open(&r->col, &co, &r->feat, why, sizeof(why));
	if (err) {
		pr_err("no probe could be attached: %s\n", why);
		return err;
	}
	/* A family that cannot attach is named; the others go on. */
	for (i = 0; i < FAMILY_COUNT; i++) {
		const struct family_status *st = collector__status(r->col, 1 << i);

		if (st->wanted && !st->attached)
			pr_warn("%s: %s\n", family_name(1 << i), family_text(r, 1 << i, mode, sizeof(mode)));
		else if (st->attached)
			pr_info("%s: %s\n", family_name(1 << i), st->mode);
	}
	if (r->wl.pid)
		err = collector__add_target(r->col, r->wl.pid);
	else if (r->o.pid)
		err = collector__add_target(r->col, r->o.pid);
	if (err)
		pr_err("cannot follow the workload: %s\n", strerror(-err));
	return err;
}

static void load_symbols(struct recorder *r)
{
	int err = ksyms_load(&r->ks);

	r->have_ksyms = !err;
	if (err == -EPERM)
		pr_warn("kernel addresses are hidden (kptr_restrict): locks and callers stay unnamed\n");
	else if (err)
		pr_warn("cannot read /proc/kallsyms: %s: locks and callers stay unnamed\n", strerror(-err));
}

static int open_writer(struct recorder *r)
{
	struct pwriter_opts po = {
		.fd = r->fd,
		.ksyms = r->have_ksyms ? &r->ks : NULL,
		.fetch_stack = collector__fetch_stack,
		.fetch_sample_kstack = collector__fetch_sample_kstack,
		.fetch_sample_ustack = collector__fetch_sample_ustack,
		.fetch_ctx = r->col,
		.resolve_user = uresolve,
		.resolve_ctx = &r->ures,
		.on_user_tgid = on_new_process,
		.on_user_tgid_ctx = r,
	};
	struct syms_opts so = { .lines = true, .inlines = true };
	uint8_t id[16];
	struct timespec ts;
	int err;

	clock_gettime(CLOCK_REALTIME, &ts);
	po.created_ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if (getentropy(id, sizeof(id)))
		memset(id, 0, sizeof(id));
	po.recording_id = id;
	po.nrq_locks = collector__rq_locks(r->col, &po.rq_locks);
	r->syms = syms__new(&so);
	r->ures = (struct uresolver){ .syms = r->syms, .maps = &r->maps };
	if (!r->syms)
		po.resolve_user = NULL;
	err = pwriter__new(&r->w, &po);
	if (!err)
		err = write_meta(r);
	if (err)
		pr_err("writing %s failed: %s\n", r->o.output, strerror(-err));
	return err;
}

static void finish(struct recorder *r)
{
	struct snapshot s;
	uint64_t t;
	int err;
	uint32_t flags;

	workload_finish(r);
	t = now_ns();
	err = collector__stop(r->col, &s);
	if (err)
		pr_err("reading the kernel maps failed: %s\n", strerror(-err));
	if (!r->write_err && !err)
		write_rows(r, &s, t);
	/* Once per unique user PC, while the files are still held open. */
	if (!r->write_err)
		note_write_error(r, pwriter__usyms(r->w));
	flags = r->signals ? END_F_INTERRUPTED : END_F_CLEAN;
	if (!r->write_err)
		note_write_error(r, pwriter__end(r->w, t - r->t0, workload_exit_code(r), flags));
	if (!r->write_err && fsync(r->fd))
		note_write_error(r, -errno);
}

static void say_summary(const struct recorder *r)
{
	struct stat st;

	if (fstat(r->fd, &st))
		st.st_size = 0;
	pr_notice("recorded %.2f s, %" PRIu64 " contended acquisitions, %" PRIu64 " samples, wrote %s (%.1f KiB)\n",
		  (r->last_t - r->t0) / 1e9, r->contended, r->samples, r->o.output, st.st_size / 1024.0);
}

/* What the probes cost, measured by the kernel (kernel.bpf_stats). */
static void say_costs(const struct recorder *r)
{
	struct probe_cost pc[FAMILY_COUNT];
	double secs = (r->last_t - r->t0) / 1e9;
	int i, n;

	n = collector__costs(r->col, pc, FAMILY_COUNT);
	if (n == -EOPNOTSUPP)
		return;
	if (n < 0) {
		pr_warn("probe cost unknown: %s\n", strerror(-n));
		return;
	}
	for (i = 0; i < n && secs > 0; i++) {
		double rate = pc[i].events / secs;
		double ns = pc[i].events ? (double)pc[i].run_ns / pc[i].events : 0;

		pr_notice("probe cost: %-9s %10.0f events/s x %6.0f ns = %5.2f %% of one CPU\n",
			  family_name(pc[i].family), rate, ns, pc[i].run_ns / secs / 1e7);
	}
}

static int record(struct recorder *r)
{
	int err, code;

	if (check_bpf_privileges())
		return EXIT_FAIL;
	if (setup_signals(r) || open_output(r))
		return EXIT_FAIL;
	if (r->o.pid && open_target_pid(r))
		goto err_discard;
	if (r->o.argv && (err = workload_fork(r))) {
		pr_err("cannot start the workload: %s\n", strerror(-err));
		goto err_discard;
	}
	if (attach_probes(r))
		goto err_kill;
	load_symbols(r);	/* after attaching: our own programs are named too */
	if (open_writer(r))
		goto err_kill;
	if (collector__watch_processes(r->col, on_new_process, r))
		pr_warn("cannot watch for new processes: short-lived ones may lose their user symbols\n");
	r->t0 = r->last_t = now_ns();
	if (r->wl.pid && (code = workload_start(r))) {
		discard_output(r);	/* a profile that was there stays there */
		return code;
	}
	/* Under its final name from here on: a SIGKILL leaves it readable. */
	if (publish_output(r))
		goto err_kill;
	run_loop(r);
	finish(r);
	if (r->write_err)
		return EXIT_FAIL;
	say_summary(r);
	say_costs(r);
	return r->wl.pid ? workload_exit_code(r) : EXIT_OK;

err_kill:
	if (r->wl.pid) {
		kill(r->wl.pid, SIGKILL);
		waitpid(r->wl.pid, NULL, 0);
	}
err_discard:
	discard_output(r);
	return EXIT_FAIL;
}

int cmd_record(int argc, char **argv)
{
	struct recorder r = {
		.o = { .output = "lockstat.data", .bucket = 1.0, .mode = ATTACH_AUTO,
		       .stack_rate = 1000, .families = FAMILY_DEFAULT, .sample_freq = 99 },
		.fd = -1, .sigfd = -1, .pidfd = -1,
	};
	int err, code;

	err = parse_args(&r.o, argc, argv);
	if (err) {
		if (err > 0) {
			usage(stdout);
			return EXIT_OK;
		}
		usage(stderr);
		return EXIT_USAGE;
	}
	if (r.o.families & FAMILY_LOCKS)	/* its hold times come with the lock waits */
		r.o.families |= FAMILY_MMAP_LOCK;
	ksyms_init(&r.ks);
	maps_cache__init(&r.maps, 1024);
	code = record(&r);
	collector__free(r.col);
	pwriter__free(r.w);
	syms__free(r.syms);
	maps_cache__free(&r.maps);
	ksyms_free(&r.ks);
	if (r.fd >= 0)
		close(r.fd);
	if (r.sigfd >= 0)
		close(r.sigfd);
	if (r.pidfd >= 0)
		close(r.pidfd);
	return code;
}
