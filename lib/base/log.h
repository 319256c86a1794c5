/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_LOG_H
#define __LOCKSTAT_LOG_H

#include <stdarg.h>
#include <stdbool.h>

/*
 * One logging module for the whole tool: data goes to stdout through the
 * formatter, everything said to the user goes through here to stderr.
 * Levels follow the -v count.
 */
enum log_level {
	LOG_ERROR = -1,	/* always shown, prefixed "lockstat: " */
	LOG_WARN = 0,	/* shown unless -q, prefixed "lockstat: warning: " */
	LOG_NOTICE = 0,	/* shown unless -q, prefixed "lockstat: " (marked by pr_notice) */
	LOG_INFO = 1,	/* -v */
	LOG_DEBUG = 2,	/* -vv */
	LOG_LIBBPF = 3,	/* -vvv: libbpf's own debug output */
};

extern int log_verbosity;

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap);
/*
 * In JSON mode an error is also written to stdout as {"error": "..."}, so
 * that a consumer piping stdout into a JSON parser sees why it got nothing.
 */
void log_set_json_errors(bool on);
/* Route libbpf's messages through log_msg(). */
void log_setup_libbpf(void);

#define pr_err(...)	log_msg(LOG_ERROR, __VA_ARGS__)
#define pr_warn(...)	log_msg(LOG_WARN, __VA_ARGS__)
#define pr_notice(...)	log_notice(__VA_ARGS__)
#define pr_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
