// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib/out/flame: the SVG is well-formed XML (checked by a small parser here;
 * the host tier runs xmllint), names are escaped, every frame is as wide
 * as its value and the children of a frame add up to at most its width,
 * the root to the total; narrow frames are left out; a differential graph
 * colours what grew red and what shrank blue.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include "out/flame.h"
#include "view/view_locks.h"
#include "fixtures_ulocks.h"

/* --- a small XML well-formedness check ------------------------------------------ */

static const char *skip_past(const char *s, const char *end)
{
	const char *e = strstr(s, end);

	return e ? e + strlen(end) : NULL;
}

/* After '&': one of the five entities, or a numeric reference. */
static bool entity_ok(const char *s)
{
	static const char *const names[] = { "amp;", "lt;", "gt;", "quot;", "apos;" };
	size_t i;

	for (i = 0; i < 5; i++)
		if (!strncmp(s + 1, names[i], strlen(names[i])))
			return true;
	return s[1] == '#' && strchr(s, ';');
}

/* Text between tags: no '<' (we are at one), '&' only as an entity. */
static bool text_ok(const char *s, const char *end)
{
	for (; s < end; s++)
		if (*s == '&' && !entity_ok(s))
			return false;
	return true;
}

/* Tags nest and close in order, attributes are quoted, text is escaped. */
static bool well_formed(const char *doc)
{
	char stack[64][32];
	int depth = 0, n;
	const char *s = doc, *gt;

	while ((s = strchr(s, '<'))) {
		if (!strncmp(s, "<![CDATA[", 9) || !strncmp(s, "<?", 2) || !strncmp(s, "<!--", 4)) {
			s = skip_past(s, s[1] == '!' ? (s[2] == '[' ? "]]>" : "-->") : "?>");
			if (!s)
				return false;
			continue;
		}
		gt = strchr(s, '>');
		if (!gt || memchr(s + 1, '<', gt - s - 1) || !text_ok(s, gt))
			return false;
		n = (int)strcspn(s + 1, " />\n");
		if (s[1] == '/') {
			n = (int)strcspn(s + 2, " >");
			if (!depth || strncmp(stack[depth - 1], s + 2, n) || stack[depth - 1][n])
				return false;
			depth--;
		} else if (gt[-1] != '/') {
			if (depth == 64 || n >= 32)
				return false;
			snprintf(stack[depth++], 32, "%.*s", n, s + 1);
		}
		s = gt + 1;
		if (!text_ok(s, strchr(s, '<') ? strchr(s, '<') : s + strlen(s)))
			return false;
	}
	return depth == 0;
}

/* --- reading our frames back -------------------------------------------------------- */

struct frame {
	char name[128];
	double v, b, p;		/* data-v, or data-b and data-p */
	double x, y, w;
	char fill[24];
	char title[256];
};

static double attr_num(const char *g, const char *end, const char *key)
{
	const char *a = strstr(g, key);

	return a && a < end ? strtod(a + strlen(key), NULL) : NAN;
}

static void attr_str(const char *g, const char *key, char *out, size_t len, char stop)
{
	const char *a = strstr(g, key);
	size_t n;

	out[0] = '\0';
	if (!a)
		return;
	a += strlen(key);
	n = strchr(a, stop) - a;
	snprintf(out, len, "%.*s", (int)n, a);
}

static size_t frames_of(const char *doc, struct frame *out, size_t max)
{
	const char *g = doc, *end;
	size_t n = 0;

	while (n < max && (g = strstr(g, "<g class=\"f\""))) {
		struct frame *f = &out[n++];

		end = strstr(g, "</g>");
		attr_str(g, "data-n=\"", f->name, sizeof(f->name), '"');
		f->v = attr_num(g, end, "data-v=\"");
		f->b = attr_num(g, end, "data-b=\"");
		f->p = attr_num(g, end, "data-p=\"");
		f->x = attr_num(g, end, "<rect x=\"");
		f->y = attr_num(g, end, "\" y=\"");
		f->w = attr_num(g, end, "width=\"");
		attr_str(g, "fill=\"", f->fill, sizeof(f->fill), '"');
		attr_str(g, "<title>", f->title, sizeof(f->title), '<');
		g = end;
	}
	return n;
}

static const struct frame *find(const struct frame *f, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	fail_msg("no frame '%s'", name);
	return NULL;
}

/* The SVG of f as a string (malloc). */
static char *svg_of(const struct flame *f, const struct flame_opts *o)
{
	char *doc = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&doc, &len);

	assert_non_null(m);
	assert_int_equal(flame__write_svg(f, m, o), 0);
	fclose(m);
	assert_true(well_formed(doc));
	return doc;
}

static void add(struct flame *f, int side, double v, int n, ...)
{
	struct flame_frame frames[8];
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++) {
		frames[i].name = va_arg(ap, const char *);
		frames[i].kind = i ? FLAME_USER : FLAME_TASK;
	}
	va_end(ap);
	assert_int_equal(flame__add(f, frames, n, side, v), 0);
}

#define OP	"operator<<(std::ostream&, \"x\")"
#define LONG	"a_function_name_far_too_long_for_its_frame_to_hold_in_full_width"

/* --- tests ---------------------------------------------------------------------------- */

static void test_tree(void **state)
{
	struct flame_opts o = { .title = "CPU <samples>", .min_width = -1 };
	struct frame fr[32];
	struct flame f;
	size_t n, i;
	double depth1 = 0, under_main = 0;
	char *doc;

	(void)state;
	assert_int_equal(flame__init(&f, false), 0);
	add(&f, 0, 30, 3, "app", "main", "hot");
	add(&f, 0, 1, 3, "app", "main", "cold");
	add(&f, 0, 5, 2, "app", "main");
	add(&f, 0, 2, 3, "app", "main", OP);
	add(&f, 0, 10, 3, "app", "main", LONG);
	add(&f, 0, 6, 2, "kworker", "worker_thread");
	doc = svg_of(&f, &o);
	n = frames_of(doc, fr, 32);
	assert_int_equal(n, 9);	/* all, 2 tasks, main, hot, cold, OP, LONG, worker_thread */
	assert_string_equal(fr[0].name, "all");
	assert_true(fr[0].v == 54);
	assert_true(fabs(fr[0].w - 1180) < 1e-9);
	for (i = 0; i < n; i++) {
		assert_true(fabs(fr[i].w - fr[i].v / 54 * 1180) < 0.001);	/* as wide as its value */
		if (fr[i].y == fr[0].y - 16)
			depth1 += fr[i].v;
		if (fr[i].y == fr[0].y - 48)
			under_main += fr[i].w;
	}
	assert_true(depth1 == 54);	/* the tasks add up to the total */
	assert_true(under_main <= find(fr, n, "main")->w + 1e-9);
	assert_true(find(fr, n, "main")->v == 48);
	/* Children left to right in name order: cold before hot. */
	assert_true(find(fr, n, "cold")->x < find(fr, n, "hot")->x);
	/* Escaped in attributes, titles and text; the title says value and share. */
	assert_non_null(strstr(doc, "data-n=\"operator&lt;&lt;(std::ostream&amp;, &quot;x&quot;)\""));
	assert_non_null(strstr(doc, "CPU &lt;samples&gt;"));
	assert_string_equal(find(fr, n, "hot")->title, "hot (30 samples, 55.56%)");
	/* A name wider than its frame (218 pixels, 30 characters) is cut, with "..". */
	assert_non_null(strstr(doc, ">a_function_name_far_too_long..</text>"));
	free(doc);
	flame__free(&f);
}

static void test_min_width(void **state)
{
	struct flame_opts o = { .title = "t" };
	struct frame fr[8];
	struct flame f;
	char *doc;

	(void)state;
	assert_int_equal(flame__init(&f, false), 0);
	add(&f, 0, 1000000, 2, "app", "main");
	add(&f, 0, 1, 5, "app", "tiny", "deeper", "deeper2", "deeper3");
	doc = svg_of(&f, &o);
	assert_int_equal(frames_of(doc, fr, 8), 3);	/* tiny and its stack are left out */
	assert_null(strstr(doc, "tiny"));
	/* The graph is as tall as what is drawn: 3 levels, not 5. */
	assert_non_null(strstr(doc, "height=\"146\""));
	free(doc);
	flame__free(&f);
}

static void test_diff(void **state)
{
	struct flame_opts o = { .title = "diff", .per_second = true, .min_width = -1 };
	struct frame fr[8];
	struct flame f;
	size_t n;
	char *doc;

	(void)state;
	assert_int_equal(flame__init(&f, true), 0);
	add(&f, 0, 10, 2, "app", "gone_fn");
	add(&f, 1, 10, 2, "app", "new_fn");
	add(&f, 0, 5, 2, "app", "same_fn");
	add(&f, 1, 5, 2, "app", "same_fn");
	doc = svg_of(&f, &o);
	n = frames_of(doc, fr, 8);
	assert_int_equal(n, 5);
	assert_true(fr[0].b == 15 && fr[0].p == 15);
	assert_true(fabs(find(fr, n, "gone_fn")->w - 1180.0 * 10 / 30) < 0.001);	/* base + patched */
	assert_string_equal(find(fr, n, "gone_fn")->fill, "rgb(60,60,255)");
	assert_string_equal(find(fr, n, "new_fn")->fill, "rgb(255,60,60)");
	assert_string_equal(find(fr, n, "same_fn")->fill, "rgb(235,235,235)");
	assert_string_equal(find(fr, n, "gone_fn")->title,
			    "gone_fn: base 10.0 samples/s, patched 0.0 samples/s (gone)");
	assert_non_null(strstr(find(fr, n, "new_fn")->title, "(new)"));
	assert_non_null(strstr(find(fr, n, "same_fn")->title, "(+0.0%)"));
	free(doc);
	flame__free(&f);
}

/* lockstat export --format svg of lock waits: the root is the total wait. */
static void test_export_locks(void **state)
{
	struct export_opts eo = { .format = EXPORT_SVG, .what = EXPORT_LOCKS, .value = EXPORT_VALUE_WAIT,
				  .filter = { .pid = -1 } };
	struct lock_filter lf = { .pid = -1 };
	struct lock_view v;
	struct profile *p = NULL;
	struct frame fr[64];
	char path[64], msg[256], *doc = NULL;
	size_t size, len = 0, n, i;
	uint8_t *data = fx_profile_bytes(path, &size);
	FILE *m;
	double locks = 0;

	(void)state;
	assert_non_null(data);
	assert_int_equal(profile__read_mem(data, size, &p, msg, sizeof(msg)), 0);
	m = open_memstream(&doc, &len);
	assert_int_equal(flame__export_svg(m, p, &eo, "fixture.data"), 0);
	fclose(m);
	assert_true(well_formed(doc));
	assert_int_equal(lock_view__build(&v, p, &lf), 0);
	n = frames_of(doc, fr, 64);
	assert_true(n > 4);
	assert_true(fr[0].v == (double)v.total.total_ns);
	for (i = 0; i < n; i++)
		if (fr[i].y == fr[0].y - 16)
			locks += fr[i].v;
	assert_true(locks == fr[0].v);	/* the locks add up to the root */
	assert_non_null(strstr(doc, "data-n=\"files_struct.file_lock\""));
	assert_non_null(strstr(doc, "Lock wait time"));
	lock_view__free(&v);
	profile__free(p);
	free(doc);
	free(data);
	unlink(path);
}

/* User locks are in the flame graph of lock waits: the root is their total wait too. */
static void test_export_user_locks(void **state)
{
	struct export_opts eo = { .format = EXPORT_SVG, .what = EXPORT_LOCKS, .value = EXPORT_VALUE_WAIT,
				  .filter = { .pid = -1 } };
	struct profile *p = fxu_profile();
	struct frame fr[64];
	char *doc = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	assert_non_null(p);
	m = open_memstream(&doc, &len);
	assert_int_equal(flame__export_svg(m, p, &eo, "user.data"), 0);
	fclose(m);
	assert_true(well_formed(doc));
	assert_true(frames_of(doc, fr, 64) > 4);
	assert_true(fr[0].v == (double)FXU_LOCK_WAIT_NS);
	assert_non_null(strstr(doc, "data-n=\"storm_lock\""));
	assert_non_null(strstr(doc, "data-n=\"storm_op\""));
	assert_null(strstr(doc, "storm_cond"));
	profile__free(p);
	free(doc);
}

static void test_well_formed_checker(void **state)
{
	(void)state;
	assert_true(well_formed("<a x=\"1\"><b/>t &amp; u</a>"));
	assert_false(well_formed("<a><b></a></b>"));
	assert_false(well_formed("<a>t & u</a>"));
	assert_false(well_formed("<a>"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed_checker),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_min_width),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_export_locks),
		cmocka_unit_test(test_export_user_locks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
