// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <bpf/libbpf.h>
#include "log.h"

int log_verbosity;

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	if (level > log_verbosity)
		return;
	if (level <= LOG_WARN)
		fputs(level == LOG_ERROR ? "lockstat: " : "lockstat: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

void log_notice(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < LOG_NOTICE)
		return;
	fputs("lockstat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/*
 * libbpf's own messages (verifier logs included) only at -vvv: by default
 * lockstat says what failed in one line of its own.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (log_verbosity >= LOG_LIBBPF)
		vfprintf(stderr, fmt, ap);
	return 0;
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
