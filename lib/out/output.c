// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "out/output.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int out_format_parse(const char *s, enum out_format *fmt)
{
	static const char *const names[] = {
		[OUT_TEXT] = "text",
		[OUT_JSON] = "json",
		[OUT_CSV] = "csv",
	};
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(names); i++) {
		if (!strcmp(s, names[i])) {
			*fmt = (enum out_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* --- text for a terminal --------------------------------------------------------- */

/* The length of the UTF-8 character at s, 0 when the bytes are not one. */
static size_t utf8_char(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The next piece of s: one character as it is, or bytes to escape. Its length. */
static size_t next_piece(const unsigned char *s, bool *escape)
{
	size_t n;

	if (*s >= 0x20 && *s < 0x7f) {
		*escape = false;
		return 1;
	}
	n = *s < 0x80 ? 0 : utf8_char(s);
	/* U+0080 to U+009F, C1 controls (CSI is U+009B): C2 80 to C2 9F. */
	*escape = !n || (s[0] == 0xc2 && s[1] < 0xa0);
	return n ? n : 1;
}

size_t printable_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, n;
	bool esc;

	for (; *p; p += n) {
		n = next_piece(p, &esc);
		len += esc ? 4 * n : n;
	}
	return len;
}

const char *fmt_printable(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, n, i;
	bool esc;

	if (!len)
		return buf;
	for (; *p; p += n) {
		n = next_piece(p, &esc);
		if (used + (esc ? 4 * n : n) >= len)
			break;
		for (i = 0; i < n; i++) {
			if (esc)
				used += snprintf(buf + used, 5, "\\x%02x", p[i]);
			else
				buf[used++] = p[i];
		}
	}
	buf[used] = '\0';
	return buf;
}

void fput_printable(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, i;
	bool esc;

	for (; *p; p += n) {
		n = next_piece(p, &esc);
		for (i = 0; i < n; i++) {
			if (esc)
				fprintf(f, "\\x%02x", p[i]);
			else
				putc(p[i], f);
		}
	}
}

void fprintf_printable(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n, end;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	for (end = n; end > 0 && text[end - 1] == '\n'; end--)
		;
	text[end] = '\0';
	fput_printable(f, text);
	for (; end < n; end++)	/* the newlines of fmt that end the text */
		putc('\n', f);
	free(text);
}
