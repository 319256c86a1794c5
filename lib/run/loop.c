// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The recorder's loop (lib/run/session.h): one poll over the signals,
 * the -p process, the collector's events, a command's input and the
 * workload's output, and a drain of the kernel's maps once per bucket.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/signalfd.h>
#include "base/log.h"
#include "run/session_int.h"

/* lockstat's CPU time so far, user and system, in ns. */
uint64_t session_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * The mappings of the processes that exited and were sampled are held
 * until their PCs are symbolized, at the end: a long recording of many
 * short processes (a fork loop, -a) would hold them all, 1 KiB or so
 * each, without bound. Past this many, the
 * PCs seen so far are symbolized now, as at the end, and those processes
 * forgotten.
 */
#define EXITED_HELD_MAX	1024

static bool maps_held(void *ctx, uint32_t tgid)
{
	return maps_cache__known(ctx, tgid);
}

static void forgot_process(void *ctx, uint32_t tgid)
{
	collector__forget_process(ctx, tgid);
}

static void symbolize_exited(struct session *s, uint64_t before)
{
	size_t n;
	long pcs;

	if (!s->w || s->write_err || maps_cache__exited_held(&s->maps, before) < EXITED_HELD_MAX)
		return;
	session_note_write(s, pwriter__usyms(s->w));
	if (s->write_err)
		return;
	n = maps_cache__forget_exited(&s->maps, before, forgot_process, s->col);
	pcs = pwriter__forget_upcs(s->w, maps_held, &s->maps);
	/*
	 * What symbolizing freed (libdw's tables when its handles are
	 * renewed, the files closed past SYMS_OPEN_FILES) stays in the heap's
	 * pages unless told: resident for the rest of the recording.
	 */
	malloc_trim(0);
	pr_info("symbolized the user PCs seen so far, then forgot %zu exited processes and %ld of their PCs\n",
		n, pcs);
}

static bool sample_stack_known(void *ctx, bool user, int32_t id)
{
	return collector__sample_stack_known(ctx, user, id);
}

/*
 * Maps half full lose their idle rows and stacks (collector__trim_full);
 * the stacks the sampler forgot are forgotten by the writer too.
 */
static void trim_full_maps(struct session *s)
{
	uint64_t trims = collector__trims(s->col);
	int n = collector__trim_full(s->col);

	if (n < 0) {
		pr_warn("removing idle rows from the kernel's maps: %s\n", strerror(-n));
		return;
	}
	if (s->w && collector__trims(s->col) != trims &&
	    pwriter__forget_sample_stacks(s->w, sample_stack_known, s->col) < 0)
		session_note_write(s, -ENOMEM);
}

/*
 * Each drain reads the steal too: the interval a CPU lost most in is
 * then a bucket. A reading that fails is skipped (the next one covers
 * its interval), and said once.
 */
void session_sample_steal(struct session *s, uint64_t now)
{
	int err;

	if (!s->steal.on || !(err = steal_tracker__sample(&s->steal.tracker, now)))
		return;
	if (!s->steal.err)
		pr_warn("reading steal time from /proc/stat: %s: an interval is skipped\n", strerror(-err));
	s->steal.err = err;
}

static void write_bucket(struct session *s)
{
	uint64_t start = now_ns(), cpu = session_cpu_ns();
	struct snapshot snap;
	int err;

	err = collector__drain(s->col, &snap);
	if (err) {
		pr_err("reading the kernel maps failed: %s\n", strerror(-err));
		s->stop = true;
		return;
	}
	/*
	 * Now, not after writing: a row removed counted what it took between
	 * this drain and its removal as lost, and writing (symbolizing, at
	 * times) takes much longer. The rows just drained all stay, and so do
	 * their stacks, for writing.
	 */
	trim_full_maps(s);
	session_sample_steal(s, start);
	session_ledger_sample(s);
	session_write_rows(s, &snap, now_ns());
	/* Gone before this drain and not in the profile: nothing can refer to them now. */
	maps_cache__purge(&s->maps, start);
	symbolize_exited(s, start);
	s->self.drain_ns = now_ns() - start;
	s->self.drain_cpu_ns += session_cpu_ns() - cpu;
	s->self.nbuckets++;
}

static void on_stop_signal(struct session *s, const struct signalfd_siginfo *si)
{
	s->signals++;
	if (!s->wl.pid || s->wl.exited || s->signals > 1) {
		s->stop = true;
		return;
	}
	/* A terminal's Ctrl-C already reached the workload: forward the rest. */
	if (si->ssi_code != SI_KERNEL)
		kill(s->wl.pid, si->ssi_signo);
	s->kill_deadline = now_ns() + KILL_GRACE_NS;
}

static void handle_signals(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (s->wl.pid && workload__reap(&s->wl))
				s->stop = true;
			continue;
		}
		if (s->o.extra_signal && (int)si.ssi_signo == s->o.extra_signal) {
			if (s->hooks && s->hooks->on_signal)
				s->hooks->on_signal(s->hooks->ctx, si.ssi_signo);
			continue;
		}
		on_stop_signal(s, &si);
	}
}

static int poll_timeout_ms(const struct session *s, uint64_t deadline)
{
	uint64_t now = now_ns(), until = s->next_t;

	if (deadline && deadline < until)
		until = deadline;
	if (s->stats_turn && s->stats_turn < until)
		until = s->stats_turn;
	if (s->kill_deadline && s->kill_deadline < until)
		until = s->kill_deadline;
	return until <= now ? 0 : (int)((until - now + 999999) / 1000000);
}

/* The workload's output, passed on, and read for --metric. */
void session_pass_output(struct session *s)
{
	workload__pass_output(&s->wl, s->has_metric ? &s->metric : NULL);
}

static void poll_once(struct session *s, uint64_t deadline)
{
	const struct session_hooks *h = s->hooks;
	/* poll(2) skips the descriptors that are -1. */
	struct pollfd pfd[5] = { { s->sigfd, POLLIN, 0 }, { s->pidfd, POLLIN, 0 },
				 { collector__event_fd(s->col), POLLIN, 0 },
				 { h && h->on_input ? h->input_fd : -1, POLLIN, 0 },
				 { s->wl.out_fd, POLLIN, 0 } };
	int n = poll(pfd, 5, poll_timeout_ms(s, deadline));

	if (n <= 0)
		return;
	if (pfd[4].revents & (POLLIN | POLLHUP | POLLERR))
		session_pass_output(s);
	if (pfd[2].revents & POLLIN)
		collector__consume(s->col);
	if (pfd[0].revents & POLLIN)
		handle_signals(s);
	if (s->pidfd >= 0 && (pfd[1].revents & POLLIN)) {
		pr_notice("process %d exited\n", s->o.pid);
		s->stop = true;
	}
	if (pfd[3].revents & (POLLIN | POLLHUP | POLLERR))
		h->on_input(h->ctx);
}

void session__run(struct session *s)
{
	uint64_t deadline = s->o.duration ? s->t0 + (uint64_t)(s->o.duration * NSEC_PER_SEC) : 0;

	s->next_t = s->t0 + (uint64_t)(s->o.bucket * NSEC_PER_SEC);
	while (!s->stop) {
		s->stats_turn = collector__stats_tick(s->col, now_ns());
		poll_once(s, deadline);
		if (now_ns() >= s->next_t && !s->stop) {
			write_bucket(s);
			s->next_t += (uint64_t)(s->o.bucket * NSEC_PER_SEC);
			if (!s->stop && s->hooks && s->hooks->on_bucket)
				s->hooks->on_bucket(s->hooks->ctx);
		}
		if (deadline && now_ns() >= deadline)
			s->stop = true;
		if (s->kill_deadline && now_ns() >= s->kill_deadline && !workload__reap(&s->wl)) {
			pr_warn("workload did not exit after the signal; killing it\n");
			kill(s->wl.pid, SIGKILL);
			s->kill_deadline = 0;
		}
	}
}

void session__stop(struct session *s)
{
	s->stop = true;
}

void session__set_bucket(struct session *s, double secs)
{
	s->o.bucket = secs;
	s->next_t = s->last_t + (uint64_t)(secs * NSEC_PER_SEC);
}
