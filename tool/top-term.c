// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The terminal of the full-screen view, and its restoration on every way
 * out: endwin() on the normal ones (q, a signal read from the signalfd,
 * an error, exit()), and, on a crash, the saved termios and the terminal's
 * own "leave the full screen" strings written with tcsetattr(2) and
 * write(2), which are async-signal-safe where curses is not. A crash
 * handler then hands the signal to whoever had it before (the default
 * action, or the sanitizer's report).
 *
 * While the view runs, stderr goes to a memfd: a warning would scribble
 * over the screen. The status line shows its last line, and everything
 * is copied to the real stderr once the terminal is back.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include "base/log.h"
#include "top.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
#define NCRASH	(sizeof(crash_signals) / sizeof(crash_signals[0]))

static struct {
	volatile sig_atomic_t active;
	SCREEN *screen;
	struct termios tio;
	char leave[256];	/* rmcup, rmkx, cnorm, sgr0: back to the shell's screen */
	size_t nleave;
	int real_stderr;
	int capture;
	off_t seen;
	char last[256];
	struct sigaction old[NCRASH];
	bool atexit_done;
} term = { .real_stderr = -1, .capture = -1 };

bool term__active(void)
{
	return term.active;
}

static void add_cap(const char *name)
{
	const char *s = tigetstr((char *)name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (term.nleave + n < sizeof(term.leave)) {
		memcpy(term.leave + term.nleave, s, n);
		term.nleave += n;
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= w;
	}
}

/* What went to stderr while the view ran, to the real stderr; async-signal-safe. */
static void release_stderr(void)
{
	char buf[4096];
	off_t pos = 0;
	ssize_t n;

	if (term.real_stderr < 0)
		return;
	dup2(term.real_stderr, STDERR_FILENO);
	while ((n = pread(term.capture, buf, sizeof(buf), pos)) > 0) {
		write_all(STDERR_FILENO, buf, n);
		pos += n;
	}
	close(term.real_stderr);
	close(term.capture);
	term.real_stderr = term.capture = -1;
}

/* The crash path: no curses, no stdio, no malloc. */
static void restore_async(void)
{
	if (!term.active)
		return;
	term.active = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &term.tio);
	write_all(STDOUT_FILENO, term.leave, term.nleave);
	write_all(STDOUT_FILENO, "\r\n", 2);
	release_stderr();
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	size_t i;

	(void)uc;
	restore_async();
	for (i = 0; i < NCRASH; i++)
		if (crash_signals[i] == sig)
			sigaction(sig, &term.old[i], NULL);
	/* A fault happens again on return, under the old handler; a sent signal is sent again. */
	if (si->si_code <= 0)
		raise(sig);
}

static void catch_crashes(void)
{
	struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &sa, &term.old[i]);
#if defined(__SANITIZE_ADDRESS__)
	/* A sanitizer's report ends in _exit(), not in a signal. */
	__sanitizer_set_death_callback(restore_async);
#endif
}

static void release_crashes(void)
{
	size_t i;

	for (i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &term.old[i], NULL);
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_death_callback(NULL);
#endif
}

static void capture_stderr(void)
{
	fflush(stderr);
	term.capture = memfd_create("lockstat-top-stderr", MFD_CLOEXEC);
	if (term.capture < 0)
		return;
	term.real_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (term.real_stderr < 0 || dup2(term.capture, STDERR_FILENO) < 0) {
		close(term.capture);
		if (term.real_stderr >= 0)
			close(term.real_stderr);
		term.capture = term.real_stderr = -1;
	}
}

static void end_at_exit(void)
{
	term__end();
}

static void setup_screen(void)
{
	cbreak();	/* not raw(): Ctrl-C stays a SIGINT, read from the signalfd */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);	/* title and column header */
		init_pair(2, COLOR_YELLOW, -1);		/* the sort column */
		init_pair(3, COLOR_GREEN, -1);		/* section titles */
	}
	add_cap("rmcup");
	add_cap("rmkx");
	add_cap("cnorm");
	add_cap("sgr0");
}

int term__start(void)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		pr_err("top needs a terminal: use --batch (or --format json) for a pipe or a file\n");
		return -ENOTTY;
	}
	if (tcgetattr(STDIN_FILENO, &term.tio)) {
		pr_err("cannot read the terminal's settings: %s\n", strerror(errno));
		return -errno;
	}
	term.screen = newterm(NULL, stdout, stdin);
	if (!term.screen) {
		pr_err("cannot drive terminal type '%s' (try TERM=xterm, or --batch)\n", getenv("TERM") ?: "");
		return -EINVAL;
	}
	setup_screen();
	catch_crashes();
	capture_stderr();
	if (!term.atexit_done)
		term.atexit_done = !atexit(end_at_exit);
	term.active = 1;
	return 0;
}

void term__end(void)
{
	if (!term.active)
		return;
	term.active = 0;
	endwin();
	fflush(stdout);
	release_crashes();
	release_stderr();
	delscreen(term.screen);
	term.screen = NULL;
}

void term__resize(void)
{
	struct winsize ws;

	if (!term.active || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col)
		return;
	resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
}

int term__signalfd(const struct top *t, int *fd)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	if (t->o.out == TOP_CURSES)
		sigaddset(&mask, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	*fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

bool term__signals(struct top *t, int sigfd)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGWINCH) {
			term__resize();
			top_ui__draw(t);
		} else {
			stop = true;
		}
	}
	return stop;
}

/* The last line written to the captured stderr, read again only when it grew. */
const char *term__last_message(void)
{
	char buf[512];
	struct stat st;
	off_t from;
	ssize_t n;
	char *end, *start;

	if (term.capture < 0 || fstat(term.capture, &st) || st.st_size == term.seen)
		return term.last;
	term.seen = st.st_size;
	from = st.st_size - (off_t)sizeof(buf) + 1;
	n = pread(term.capture, buf, sizeof(buf) - 1, from > 0 ? from : 0);
	if (n <= 0)
		return term.last;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	end = buf + n;
	start = memrchr(buf, '\n', end - buf);
	start = start ? start + 1 : buf;
	if (!strncmp(start, "lockstat: ", 10))
		start += 10;
	snprintf(term.last, sizeof(term.last), "%.*s", (int)sizeof(term.last) - 1, start);
	return term.last;
}
