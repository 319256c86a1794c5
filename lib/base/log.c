// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "base/json.h"
#include "base/log.h"

int log_verbosity;
static bool json_errors;

void log_set_json_errors(bool on)
{
	json_errors = on;
}

static void json_error(const char *fmt, va_list ap)
{
	struct json_writer *jw = jw_new(stdout, false);
	char msg[1024];

	if (!jw)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	jw_start_object(jw);
	jw_string_field(jw, "error", msg);
	jw_end_object(jw);
	jw_free(jw);
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	va_list copy;

	if (level > log_verbosity)
		return;
	if (level == LOG_ERROR && json_errors) {
		va_copy(copy, ap);
		json_error(fmt, copy);
		va_end(copy);
	}
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
