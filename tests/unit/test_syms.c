// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib/sym/syms against binutils: the group setup builds the fixture programs of
 * tests/unit/syms-fixture/ with gcc/g++ into a temporary directory (plain,
 * stripped with a debuglink, stripped with the debug file under a build-id
 * debug root, ...), and the tests compare every address of the fixture's
 * functions with `addr2line -a -i -f -C`. Run from the repository root.
 * Skipped, with the reason printed, when the tools are missing.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sym/syms.h"

#define FIXTURE_DIR	"tests/unit/syms-fixture"
#define MAX_ADDRS	4096
#define MAX_REF_FRAMES	32

static struct {
	char dir[1024];		/* temporary build directory */
	char src[PATH_MAX];	/* absolute FIXTURE_DIR */
	char droot[1100];	/* debug root with .build-id/ */
	char empty[1100];	/* a debug root with nothing */
	const char *missing;	/* a tool the tests need that is not installed */
	uint8_t bid[SYMS_BUILD_ID_MAX];	/* build id of "bid" */
	size_t bid_len;
	uint8_t v2[SYMS_BUILD_ID_MAX];	/* build id of "v2" (not in droot) */
	size_t v2_len;
	int perf_pid;
	bool dwz;		/* dwz-1/dwz-2 built: dwz is optional */
} fx;

/* The functions whose every byte is compared with addr2line. */
static const char *const checked[] = {
	"leaf", "twice", "deep", "alias_impl", "cpp_entry", "main",
	"_ZN13lockstat_test5scaleIiEET_S1_", "_ZN13lockstat_test5scaleIlEET_S1_",
};

struct ref_frame {
	char function[256];
	char file[128];		/* basename; "" when unknown */
	uint32_t line;
};

struct ref {			/* addr2line's answer for one address */
	uint32_t n;
	struct ref_frame frames[MAX_REF_FRAMES];
};

/* --- helpers ------------------------------------------------------------ */

static __attribute__((format(printf, 1, 2))) int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		fprintf(stderr, "test_syms: command failed (%d): %s\n", rc, cmd);
	return rc;
}

static bool have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return !system(cmd);
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", fx.dir, name);
}

static const char *base_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* Address and size of a defined symbol, from nm. */
static int nm_find(const char *file, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[PATH_MAX + 64], line[512], sym[256], type;
	unsigned long long a, s;
	int found = -ENOENT;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", file);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p)) {
		/* Symbols without a size have three fields. */
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, sym) != 4) {
			s = 0;
			if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3)
				continue;
		}
		if (!strcmp(sym, name)) {
			*addr = a;
			*size = s;
			found = 0;
		}
	}
	pclose(p);
	return found;
}

static uint64_t nm_addr(const char *file, const char *name)
{
	uint64_t addr = 0, size = 0;

	assert_int_equal(nm_find(file, name, &addr, &size), 0);
	return addr;
}

/* The line of "MARK what" in a fixture source. */
static uint32_t mark_line(const char *src, const char *what)
{
	char path[PATH_MAX], line[512], mark[128];
	uint32_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.3000s/%s", fx.src, src);
	snprintf(mark, sizeof(mark), "MARK %s ", what);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, mark)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("no MARK %s in %s", what, src);
	return 0;
}

/* "FILE:LINE" or "FILE:LINE (discriminator N)" or "??:0" / "??:?". */
static void ref_location(struct ref_frame *fr, char *text)
{
	char *colon, *disc = strstr(text, " (discriminator");

	if (disc)
		*disc = 0;
	colon = strrchr(text, ':');
	if (!colon)
		return;
	*colon = 0;
	fr->line = strtoul(colon + 1, NULL, 10);
	if (strcmp(text, "??"))
		snprintf(fr->file, sizeof(fr->file), "%.127s", base_of(text));
}

/*
 * addr2line -a prints each address, then a function line and a location
 * line per frame, innermost first.
 */
static void parse_ref(FILE *p, struct ref *refs, size_t n)
{
	struct ref *cur = NULL;
	struct ref_frame *fr;
	char line[1024];
	size_t i = 0;

	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2)) {
			assert_true(i < n);
			cur = &refs[i++];
			memset(cur, 0, sizeof(*cur));
			continue;
		}
		assert_non_null(cur);
		assert_true(cur->n < MAX_REF_FRAMES);
		fr = &cur->frames[cur->n++];
		snprintf(fr->function, sizeof(fr->function), "%.255s", line);
		if (!fgets(line, sizeof(line), p))
			break;
		line[strcspn(line, "\n")] = 0;
		ref_location(fr, line);
	}
	assert_int_equal(i, n);
}

static void run_addr2line(const char *file, const uint64_t *addrs, size_t n, struct ref *refs)
{
	char list[PATH_MAX], cmd[3 * PATH_MAX];
	FILE *f, *p;
	size_t i;

	path_of(list, sizeof(list), "addrs.txt");
	f = fopen(list, "w");
	assert_non_null(f);
	for (i = 0; i < n; i++)
		fprintf(f, "%llx\n", (unsigned long long)addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -a -i -f -C -e '%s' < '%s'", file, list);
	p = popen(cmd, "r");
	assert_non_null(p);
	parse_ref(p, refs, n);
	assert_int_equal(pclose(p), 0);
}

static bool frame_equal(const struct syms_frame *got, const struct ref_frame *want)
{
	const char *fn = got->function ? got->function : "??";
	const char *file = got->file ? base_of(got->file) : "";

	return !strcmp(fn, want->function) && !strcmp(file, want->file) &&
	       got->line == want->line;
}

static void print_mismatch(uint64_t addr, const struct syms_result *r, const struct ref *want)
{
	uint32_t i;

	fprintf(stderr, "test_syms: 0x%llx differs (why %s)\n", (unsigned long long)addr,
		syms_why_str(r->why));
	for (i = 0; i < r->nframes; i++)
		fprintf(stderr, "  ours:      %s %s:%u\n", r->frames[i].function,
			base_of(r->frames[i].file), r->frames[i].line);
	for (i = 0; i < want->n; i++)
		fprintf(stderr, "  addr2line: %s %s:%u\n", want->frames[i].function,
			want->frames[i].file, want->frames[i].line);
}

/* Chains deeper than SYMS_MAX_INLINE keep the innermost frames and the function. */
static bool result_matches(const struct syms_result *r, const struct ref *want)
{
	uint32_t i, n = want->n;

	if (r->why != SYMS_OK)
		return n == 1 && !strcmp(want->frames[0].function, "??");
	if (n > SYMS_MAX_INLINE) {
		if (r->nframes != SYMS_MAX_INLINE ||
		    !frame_equal(&r->frames[SYMS_MAX_INLINE - 1], &want->frames[n - 1]))
			return false;
		n = SYMS_MAX_INLINE - 1;
	} else if (r->nframes != n) {
		return false;
	}
	for (i = 0; i < n; i++)
		if (!frame_equal(&r->frames[i], &want->frames[i]))
			return false;
	return true;
}

/* Every byte of the checked functions, addresses from nm on ref_file. */
static size_t checked_addrs(const char *ref_file, uint64_t *addrs)
{
	uint64_t a, size, i;
	size_t n = 0, k;

	for (k = 0; k < sizeof(checked) / sizeof(checked[0]); k++) {
		assert_int_equal(nm_find(ref_file, checked[k], &a, &size), 0);
		assert_true(size > 0);
		for (i = 0; i < size && n < MAX_ADDRS; i++)
			addrs[n++] = a + i;
	}
	return n;
}

/*
 * Resolve every checked address of `file` (through a syms with debug root
 * `root`) and compare with addr2line on the unstripped `ref_file`.
 */
/* renew: libdw handles renewed after that many indexes (1: after each). */
static void compare_renewing(const char *file, const char *ref_file, const char *root,
			     size_t renew)
{
	struct syms_opts opts = { .lines = true, .inlines = true, .debug_root = root,
				  .renew_dwarf = renew };
	uint64_t *addrs = calloc(MAX_ADDRS, sizeof(*addrs));
	struct ref *refs = calloc(MAX_ADDRS, sizeof(*refs));
	size_t i, n, bad = 0;
	struct syms_result r;
	struct syms *s;

	assert_non_null(addrs);
	assert_non_null(refs);
	n = checked_addrs(ref_file, addrs);
	run_addr2line(ref_file, addrs, n, refs);
	s = syms__new(&opts);
	assert_non_null(s);
	for (i = 0; i < n; i++) {
		assert_int_equal(syms__resolve_vaddr(s, file, NULL, 0, addrs[i], &r), 0);
		if (!result_matches(&r, &refs[i]) && bad++ < 5)
			print_mismatch(addrs[i], &r, &refs[i]);
	}
	syms__free(s);
	free(addrs);
	free(refs);
	assert_int_equal(bad, 0);
}

static void compare_with_addr2line(const char *file, const char *ref_file, const char *root)
{
	compare_renewing(file, ref_file, root, 0);
}

static struct syms *new_syms(bool lines, bool inlines, const char *root)
{
	struct syms_opts opts = { .lines = lines, .inlines = inlines, .debug_root = root };
	struct syms *s = syms__new(&opts);

	assert_non_null(s);
	return s;
}

static void resolve_name(struct syms *s, const char *path, uint64_t vaddr, const char *want)
{
	struct syms_result r;

	assert_int_equal(syms__resolve_vaddr(s, path, NULL, 0, vaddr, &r), 0);
	assert_int_equal(r.why, SYMS_OK);
	assert_true(r.nframes >= 1);
	assert_string_equal(r.frames[r.nframes - 1].function, want);
}

/* --- fixture build -------------------------------------------------------- */

static int build_plain(void)
{
	return sh("cd '%s' && gcc -O2 -g -c '%s/fixture.c' -o fixture.o && "
		  "g++ -O2 -g -c '%s/fixture.cpp' -o fixture_cpp.o && "
		  "g++ -Wl,--build-id -o plain fixture.o fixture_cpp.o",
		  fx.dir, fx.src, fx.src);
}

/* A stripped copy of plain whose debug file is found by .gnu_debuglink. */
static int build_linked(const char *name, const char *debug_dir)
{
	return sh("cd '%s' && cp plain %s && objcopy --only-keep-debug %s %s.debug && "
		  "strip --strip-all %s && objcopy --add-gnu-debuglink=%s.debug %s && "
		  "mkdir -p '%s' && { [ '%s' = . ] || mv %s.debug '%s'/; }",
		  fx.dir, name, name, name, name, name, name, debug_dir, debug_dir, name,
		  debug_dir);
}

static int read_id(const char *name, uint8_t *id, size_t *len)
{
	char path[PATH_MAX];

	path_of(path, sizeof(path), name);
	*len = SYMS_BUILD_ID_MAX;
	return syms_build_id(path, id, len);
}

/* Non-PIE, another variant (another id), debug file under the debug root. */
static int build_bid(void)
{
	char hex[2 * SYMS_BUILD_ID_MAX + 1];
	size_t i;

	if (sh("cd '%s' && gcc -O2 -g -DVARIANT=1 -c '%s/fixture.c' -o v1.o && "
	       "g++ -no-pie -Wl,--build-id=sha1 -o bid.full v1.o fixture_cpp.o && "
	       "cp bid.full bid && objcopy --only-keep-debug bid bid.debug && "
	       "strip --strip-all bid", fx.dir, fx.src) ||
	    read_id("bid", fx.bid, &fx.bid_len) || fx.bid_len < 2)
		return -1;
	for (i = 0; i < fx.bid_len; i++)
		sprintf(hex + 2 * i, "%02x", fx.bid[i]);
	return sh("cd '%s' && mkdir -p '%s/.build-id/%.2s' && mv bid.debug '%s/.build-id/%.2s/%s.debug'",
		  fx.dir, fx.droot, hex, fx.droot, hex, hex + 2);
}

/*
 * A generated program with enough debug info to span pages once
 * compressed (3 000 functions, one per line: function_number_N on line N),
 * its debug sections zlib-compressed as Debian's -dbg packages ship them.
 */
#define PACKED_FUNCS	3000

static int build_packed(void)
{
	return sh("cd '%s' && awk 'BEGIN { for (i = 1; i <= %d; i++) "
		  "printf \"int function_number_%%d(int argument_%%d) { int local_value_%%d = "
		  "argument_%%d * %%d; return local_value_%%d + %%d; }\\n\", i, i, i, i, i, i, i; "
		  "print \"int main(void) { return function_number_1(1); }\" }' > many.c && "
		  "gcc -O1 -g -o many.full many.c && "
		  "objcopy --compress-debug-sections=zlib many.full packed",
		  fx.dir, PACKED_FUNCS);
}

static int build_others(void)
{
	if (sh("cd '%s' && cp plain nodebug && strip --strip-all nodebug && "
	       "gcc -O2 -g -DVARIANT=2 -c '%s/fixture.c' -o v2.o && "
	       "g++ -Wl,--build-id -o v2 v2.o fixture_cpp.o && "
	       "echo 'not an ELF file' > text.txt", fx.dir, fx.src))
		return -1;
	return read_id("v2", fx.v2, &fx.v2_len);
}

/*
 * dwz moves shared DIEs into a common file named by .gnu_debugaltlink; only
 * the debug root's .build-id/ can find it once moved away from -M's path.
 */
static int build_dwz(void)
{
	uint8_t id[SYMS_BUILD_ID_MAX];
	char hex[2 * SYMS_BUILD_ID_MAX + 1];
	size_t i, len;

	if (!have("dwz"))
		return 0;
	if (sh("cd '%s' && cp plain dwz-1 && cp plain dwz-2 && "
	       "dwz -m common.debug -M '%s/common.debug' dwz-1 dwz-2", fx.dir, fx.dir) ||
	    read_id("common.debug", id, &len))
		return -1;
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	fx.dwz = true;
	return sh("cd '%s' && mkdir -p '%s/.build-id/%.2s' && mv common.debug '%s/.build-id/%.2s/%s.debug'",
		  fx.dir, fx.droot, hex, fx.droot, hex, hex + 2);
}

static int build_all(void)
{
	snprintf(fx.droot, sizeof(fx.droot), "%s/debugroot", fx.dir);
	snprintf(fx.empty, sizeof(fx.empty), "%s/emptyroot", fx.dir);
	if (sh("mkdir -p '%s' '%s'", fx.droot, fx.empty) || build_plain() ||
	    build_linked("linked", ".") || build_linked("sub", ".debug") ||
	    build_linked("badcrc", ".") || sh("printf x >> '%s/badcrc.debug'", fx.dir) ||
	    build_bid() || build_others() || build_packed() || build_dwz())
		return -1;
	return 0;
}

static int group_setup(void **state)
{
	static const char *const tools[] = { "gcc", "g++", "objcopy", "strip", "nm", "addr2line" };
	char tmpl[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!have(tools[i])) {
			fx.missing = tools[i];
			return 0;
		}
	}
	/* Not a missing prerequisite but a wrong directory: fail. */
	if (!realpath(FIXTURE_DIR, fx.src)) {
		fprintf(stderr, "test_syms: run from the repository root (" FIXTURE_DIR " not found)\n");
		return -1;
	}
	snprintf(tmpl, sizeof(tmpl), "%.900s/lockstat-syms.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(fx.dir, sizeof(fx.dir), "%s", tmpl);
	return build_all();
}

static int group_teardown(void **state)
{
	char map[64];

	(void)state;
	if (fx.perf_pid) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", fx.perf_pid);
		unlink(map);
	}
	if (fx.dir[0] && !getenv("SYMS_TEST_KEEP"))
		sh("rm -rf '%s'", fx.dir);
	return 0;
}

/* A skip names its prerequisite, as tests/run-unit.sh wants it. */
static void say_skip(const char *tool)
{
	const char *c;

	printf("SKIP: test_syms: ");
	for (c = tool; *c; c++)
		putchar(*c == '+' ? 'X' : toupper((unsigned char)*c));
	printf(": %s is not installed (contrib/install-deps.sh --tests)\n", tool);
}

static bool skipped(void)
{
	if (!fx.missing)
		return false;
	say_skip(fx.missing);
	return true;
}

#define SKIP_IF_NEEDED()		\
	do {				\
		if (skipped()) {	\
			skip();		\
			return;		\
		}			\
	} while (0)

/* --- tests -------------------------------------------------------------- */

static void test_plain_matches_addr2line(void **state)
{
	char plain[PATH_MAX];

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	compare_with_addr2line(plain, plain, fx.empty);
}

/*
 * libdw's handles renewed after every index built: the indexes already
 * built keep their names and files (the ELF handles' data), and the
 * clusters built after it read their CUs through the new handles.
 */
static void test_renewed_dwarf_matches_addr2line(void **state)
{
	char plain[PATH_MAX];

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	compare_renewing(plain, plain, fx.empty, 1);
}

/* twice() inlines helper() at two call sites: both chains must show up. */
static void test_inline_chain(void **state)
{
	bool seen1 = false, seen2 = false, seen_body = false;
	uint32_t call1, call2, body;
	uint64_t addr, size, i;
	struct syms_result r;
	char plain[PATH_MAX];
	struct syms *s;

	(void)state;
	SKIP_IF_NEEDED();
	call1 = mark_line("fixture.c", "call1");
	call2 = mark_line("fixture.c", "call2");
	body = mark_line("fixture.c", "helper_body");
	path_of(plain, sizeof(plain), "plain");
	assert_int_equal(nm_find(plain, "twice", &addr, &size), 0);
	s = new_syms(true, true, fx.empty);
	for (i = 0; i < size; i++) {
		assert_int_equal(syms__resolve_vaddr(s, plain, NULL, 0, addr + i, &r), 0);
		assert_int_equal(r.why, SYMS_OK);
		assert_int_equal(r.func_addr, addr);
		assert_int_equal(r.func_size, size);
		assert_string_equal(r.frames[r.nframes - 1].function, "twice");
		if (r.nframes != 2)
			continue;
		assert_string_equal(r.frames[0].function, "helper");
		assert_string_equal(base_of(r.frames[0].file), "fixture.c");
		assert_string_equal(base_of(r.frames[1].file), "fixture.c");
		seen1 |= r.frames[1].line == call1;
		seen2 |= r.frames[1].line == call2;
		seen_body |= r.frames[0].line == body;
	}
	syms__free(s);
	assert_true(seen1 && seen2 && seen_body);
}

static void test_deep_chain_truncated(void **state)
{
	uint64_t addr, size, i;
	char plain[PATH_MAX];
	struct syms_result r;
	bool seen = false;
	struct syms *s;
	uint32_t body;

	(void)state;
	SKIP_IF_NEEDED();
	body = mark_line("fixture.c", "deep_body");
	path_of(plain, sizeof(plain), "plain");
	assert_int_equal(nm_find(plain, "deep", &addr, &size), 0);
	s = new_syms(true, true, fx.empty);
	for (i = 0; i < size && !seen; i++) {
		assert_int_equal(syms__resolve_vaddr(s, plain, NULL, 0, addr + i, &r), 0);
		if (r.nframes != SYMS_MAX_INLINE || r.frames[0].line != body)
			continue;
		assert_string_equal(r.frames[0].function, "deep20");
		assert_string_equal(r.frames[SYMS_MAX_INLINE - 2].function, "deep6");
		assert_string_equal(r.frames[SYMS_MAX_INLINE - 1].function, "deep");
		seen = true;
	}
	syms__free(s);
	assert_true(seen);
}

static void test_demangle(void **state)
{
	char plain[PATH_MAX];
	struct syms *s;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	s = new_syms(true, true, fx.empty);
	resolve_name(s, plain, nm_addr(plain, "_ZN13lockstat_test5scaleIiEET_S1_"),
		     "int lockstat_test::scale<int>(int)");
	resolve_name(s, plain, nm_addr(plain, "_ZN13lockstat_test5scaleIlEET_S1_"),
		     "long lockstat_test::scale<long>(long)");
	syms__free(s);
	/* Symbols only (no DWARF): the symbol table's names demangle too. */
	s = new_syms(false, false, fx.empty);
	resolve_name(s, plain, nm_addr(plain, "_ZN13lockstat_test5scaleIiEET_S1_"),
		     "int lockstat_test::scale<int>(int)");
	syms__free(s);
}

/* Symbols only: global alias preferred; an unsized symbol runs to the next. */
static void test_symbol_table(void **state)
{
	uint64_t nosize, after;
	struct syms_result r;
	char plain[PATH_MAX];
	struct syms *s;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	s = new_syms(false, false, fx.empty);
	resolve_name(s, plain, nm_addr(plain, "alias_impl") + 1, "alias_pub");
	nosize = nm_addr(plain, "asm_nosize");
	after = nm_addr(plain, "asm_after");
	assert_int_equal(syms__resolve_vaddr(s, plain, NULL, 0, nosize + 3, &r), 0);
	assert_int_equal(r.why, SYMS_OK);
	assert_string_equal(r.frames[0].function, "asm_nosize");
	assert_null(r.frames[0].file);
	assert_int_equal(r.func_addr, nosize);
	assert_int_equal(r.func_size, after - nosize);
	/* The ELF header is no function. */
	assert_int_equal(syms__resolve_vaddr(s, plain, NULL, 0, 0x10, &r), 0);
	assert_int_equal(r.why, SYMS_NO_SYMBOL);
	assert_int_equal(r.nframes, 0);
	syms__free(s);
}

/*
 * What a profiler does: file offsets from /proc/PID/maps of the running
 * fixture `name`; function addresses from nm on the unstripped `ref`.
 */
static void check_offsets(const char *name, const char *ref, const char *root,
			  const uint8_t *id, size_t len)
{
	char path[PATH_MAX], refpath[PATH_MAX], cmd[PATH_MAX + 16], fn[64];
	unsigned long long off;
	struct syms_result r;
	int found = 0;
	struct syms *s;
	FILE *p;

	path_of(path, sizeof(path), name);
	path_of(refpath, sizeof(refpath), ref);
	snprintf(cmd, sizeof(cmd), "'%s' offsets", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	s = new_syms(true, true, root);
	while (fscanf(p, "%63s %llx", fn, &off) == 2) {
		assert_int_equal(syms__resolve(s, path, id, len, off, &r), 0);
		assert_int_equal(r.why, SYMS_OK);
		assert_string_equal(r.frames[r.nframes - 1].function, fn);
		assert_int_equal(r.func_addr, nm_addr(refpath, fn));
		found++;
	}
	assert_int_equal(pclose(p), 0);
	syms__free(s);
	assert_int_equal(found, 2);
}

static void test_file_offsets(void **state)
{
	(void)state;
	SKIP_IF_NEEDED();
	check_offsets("plain", "plain", fx.empty, NULL, 0);
}

static void test_debuglink(void **state)
{
	char file[PATH_MAX], plain[PATH_MAX];

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	path_of(file, sizeof(file), "linked");
	compare_with_addr2line(file, plain, fx.empty);
	path_of(file, sizeof(file), "sub");
	compare_with_addr2line(file, plain, fx.empty);
}

static void expect_why(const char *name, const char *root, const uint8_t *id, size_t len,
		       uint64_t vaddr, enum syms_why why)
{
	struct syms *s = new_syms(true, true, root);
	char path[PATH_MAX];
	struct syms_result r;

	path_of(path, sizeof(path), name);
	assert_int_equal(syms__resolve_vaddr(s, path, id, len, vaddr, &r), 0);
	if (r.why != why)
		fprintf(stderr, "test_syms: %s: %s, expected %s\n", name, syms_why_str(r.why),
			syms_why_str(why));
	assert_int_equal(r.why, why);
	if (why != SYMS_OK)
		assert_int_equal(r.nframes, 0);
	syms__free(s);
}

/* Address of a section, from readelf; 0 when the file has none. */
static uint64_t section_addr(const char *file, const char *name)
{
	char cmd[PATH_MAX + 64], line[512], sec[64], type[64];
	unsigned long long a = 0, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		const char *b = strchr(line, ']');

		if (b && sscanf(b + 1, "%63s %63s %llx", sec, type, &a) == 3 && !strcmp(sec, name))
			found = a;
	}
	pclose(p);
	return found;
}

/*
 * A PLT stub is in no symbol table, stripped or not: it is "@plt", as
 * perf names it, and the rest of a stripped file is still unnamed.
 */
static void test_plt(void **state)
{
	char path[PATH_MAX];
	struct syms_result r;
	const char *files[] = { "plain", "nodebug" };
	uint64_t plt;
	struct syms *s;
	size_t i;

	(void)state;
	SKIP_IF_NEEDED();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		path_of(path, sizeof(path), files[i]);
		plt = section_addr(path, ".plt");
		assert_true(plt != 0);
		s = new_syms(true, true, fx.empty);
		assert_int_equal(syms__resolve_vaddr(s, path, NULL, 0, plt + 4, &r), 0);
		assert_int_equal(r.why, SYMS_OK);
		assert_string_equal(r.frames[0].function, "@plt");
		syms__free(s);
	}
}

static void test_stripped_without_debug(void **state)
{
	char plain[PATH_MAX];
	uint64_t leaf;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	leaf = nm_addr(plain, "leaf");
	expect_why("nodebug", fx.empty, NULL, 0, leaf, SYMS_NO_SYMTAB);
	/* A debug file whose CRC does not match the debuglink is not used. */
	expect_why("badcrc", fx.empty, NULL, 0, leaf, SYMS_NO_SYMTAB);
	expect_why("linked", fx.empty, NULL, 0, leaf, SYMS_OK);
}

static void test_build_id(void **state)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64], hex[2 * SYMS_BUILD_ID_MAX + 1] = "";
	char want[2 * SYMS_BUILD_ID_MAX + 1] = "";
	uint8_t small[4];
	size_t i, len;
	FILE *p;

	(void)state;
	SKIP_IF_NEEDED();
	for (i = 0; i < fx.bid_len; i++)
		sprintf(hex + 2 * i, "%02x", fx.bid[i]);
	path_of(path, sizeof(path), "bid");
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | awk '/Build ID:/ { print $3 }'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(want, sizeof(want), p));
	pclose(p);
	want[strcspn(want, "\n")] = 0;
	assert_string_equal(hex, want);
	len = sizeof(small);
	assert_int_equal(syms_build_id(path, small, &len), -ENOSPC);
	path_of(path, sizeof(path), "text.txt");
	len = SYMS_BUILD_ID_MAX;
	assert_int_equal(syms_build_id(path, small, &len), -ENOEXEC);
}

/* Stripped, no debuglink: the debug file is found under DEBUG_ROOT/.build-id. */
static void test_debug_by_build_id(void **state)
{
	char bid[PATH_MAX], full[PATH_MAX];
	uint8_t padded[20 + 8] = { 0 };

	(void)state;
	SKIP_IF_NEEDED();
	path_of(bid, sizeof(bid), "bid");
	path_of(full, sizeof(full), "bid.full");
	compare_with_addr2line(bid, full, fx.droot);
	expect_why("bid", fx.empty, NULL, 0, nm_addr(full, "leaf"), SYMS_NO_SYMTAB);
	/* Recorded ids match, zero padding (BPF's 20 bytes) included. */
	memcpy(padded, fx.bid, fx.bid_len);
	check_offsets("bid", "bid.full", fx.droot, fx.bid, fx.bid_len);
	check_offsets("bid", "bid.full", fx.droot, padded, fx.bid_len + 8);
}

static void test_missing_file(void **state)
{
	char full[PATH_MAX];
	uint64_t leaf;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(full, sizeof(full), "bid.full");
	leaf = nm_addr(full, "leaf");
	expect_why("deleted", fx.droot, NULL, 0, leaf, SYMS_NO_FILE);
	expect_why("deleted", fx.droot, fx.v2, fx.v2_len, leaf, SYMS_NO_FILE);
	/* Gone, but its debug file is known by the recorded id. */
	expect_why("deleted", fx.droot, fx.bid, fx.bid_len, leaf, SYMS_OK);
	expect_why("text.txt", fx.droot, NULL, 0, leaf, SYMS_NOT_ELF);
}

static void test_build_id_mismatch(void **state)
{
	struct syms *s = NULL;
	struct syms_result r;
	char full[PATH_MAX], v2[PATH_MAX];
	uint64_t leaf, off;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(full, sizeof(full), "bid.full");
	path_of(v2, sizeof(v2), "v2");
	leaf = nm_addr(full, "leaf");
	/* Recorded id not found anywhere: the file at the path is another build. */
	expect_why("plain", fx.droot, fx.v2, fx.v2_len, leaf, SYMS_BUILD_ID_MISMATCH);
	/* The recorded build's debug file stands in for the replaced file. */
	expect_why("plain", fx.droot, fx.bid, fx.bid_len, leaf, SYMS_OK);
	s = new_syms(true, true, fx.droot);
	resolve_name(s, full, leaf, "leaf");
	/* Its file offset, as if GNU ld's layout: text is at vaddr - 0x400000. */
	off = leaf - 0x400000;
	assert_int_equal(syms__resolve(s, v2, fx.bid, fx.bid_len, off, &r), 0);
	assert_int_equal(r.why, SYMS_OK);
	assert_string_equal(r.frames[r.nframes - 1].function, "leaf");
	syms__free(s);
}

static void write_perf_map(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_perf_map(void **state)
{
	struct syms *s = new_syms(true, true, NULL);
	struct syms_result r;
	char map[64];

	(void)state;
	/* Beyond pid_max: no real process writes this map. */
	fx.perf_pid = 0x7fff0000 + (getpid() & 0xffff);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", fx.perf_pid);
	unlink(map);
	assert_int_equal(syms__resolve_perf_map(s, fx.perf_pid, 0x1000, &r), -ENOENT);
	write_perf_map(map, "7f0000001000 100 LazyCompile:*foo bar.js:1\n"
		       "7f0000000000 80 _ZN2js3jit4CodeEv\n"
		       "garbage line\n", "w");
	assert_int_equal(syms__resolve_perf_map(s, fx.perf_pid, 0x7f0000001010, &r), 0);
	assert_int_equal(r.why, SYMS_OK);
	assert_int_equal(r.nframes, 1);
	assert_string_equal(r.frames[0].function, "LazyCompile:*foo bar.js:1");
	assert_int_equal(r.func_addr, 0x7f0000001000);
	assert_int_equal(r.func_size, 0x100);
	assert_int_equal(syms__resolve_perf_map(s, fx.perf_pid, 0x7f0000000010, &r), 0);
	assert_string_equal(r.frames[0].function, "js::jit::Code()");
	assert_int_equal(syms__resolve_perf_map(s, fx.perf_pid, 0x7f0000000080, &r), 0);
	assert_int_equal(r.why, SYMS_NO_SYMBOL);
	/* A JIT appends as it compiles: a miss rereads a grown map. */
	write_perf_map(map, "7f0000002000 40 later\n", "a");
	assert_int_equal(syms__resolve_perf_map(s, fx.perf_pid, 0x7f0000002004, &r), 0);
	assert_string_equal(r.frames[0].function, "later");
	syms__free(s);
}

/* Files are indexed once: the same strings come back, even after deletion. */
static void test_cache(void **state)
{
	struct syms_result r1, r2;
	char path[PATH_MAX];
	uint64_t twice;
	struct syms *s;

	(void)state;
	SKIP_IF_NEEDED();
	assert_int_equal(sh("cp '%s/plain' '%s/copy'", fx.dir, fx.dir), 0);
	path_of(path, sizeof(path), "copy");
	twice = nm_addr(path, "twice");
	s = new_syms(true, true, fx.empty);
	assert_int_equal(syms__resolve_vaddr(s, path, NULL, 0, twice, &r1), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(syms__resolve_vaddr(s, path, NULL, 0, twice, &r2), 0);
	assert_int_equal(r2.why, SYMS_OK);
	assert_ptr_equal(r1.frames[0].function, r2.frames[0].function);
	assert_ptr_equal(r1.frames[0].file, r2.frames[0].file);
	syms__free(s);
}

/*
 * A lookup indexes the DWARF of its own CU cluster only: plain's two CUs
 * (fixture.c, fixture.cpp; main in .text.startup makes a third range) are
 * indexed as they are asked for, and a second lookup in a cluster already
 * indexed builds nothing.
 */
static void test_cus_indexed_on_demand(void **state)
{
	struct syms_stats st;
	char plain[PATH_MAX];
	struct syms *s;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(plain, sizeof(plain), "plain");
	s = new_syms(true, true, fx.empty);
	syms__stats(s, &st);
	assert_int_equal(st.files, 0);
	resolve_name(s, plain, nm_addr(plain, "twice"), "twice");
	syms__stats(s, &st);
	assert_int_equal(st.files, 1);
	assert_true(st.clusters >= 2);
	assert_int_equal(st.clusters_indexed, 1);
	resolve_name(s, plain, nm_addr(plain, "twice") + 1, "twice");
	syms__stats(s, &st);
	assert_int_equal(st.clusters_indexed, 1);
	resolve_name(s, plain, nm_addr(plain, "cpp_entry"), "cpp_entry");
	syms__stats(s, &st);
	assert_int_equal(st.clusters_indexed, 2);
	syms__free(s);
}

/* Resident KiB of this process's mapping of path (the whole file, as libelf maps it). */
static long mapping_rss_kib(const char *path)
{
	char line[PATH_MAX + 128];
	bool in = false;
	long kib = -1;
	FILE *f = fopen("/proc/self/smaps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && isxdigit((unsigned char)line[0])) {
			line[strcspn(line, "\n")] = '\0';
			in = strlen(line) > strlen(path) &&
			     !strcmp(line + strlen(line) - strlen(path), path);
		} else if (in && sscanf(line, "Rss: %ld kB", &kib) == 1) {
			break;
		}
	}
	fclose(f);
	return kib;
}

/*
 * Compressed debug sections: names and lines read through libdw's
 * decompressed copies, and the compressed bytes no longer resident once
 * decompressed: 157 KiB of the 373 KiB file not resident here, where
 * keeping them left 45 KiB (the pages never read); at least 100 asked.
 */
static void test_packed_debug_released(void **state)
{
	static const unsigned int lines[] = { 1, 700, PACKED_FUNCS };
	char path[PATH_MAX], name[64];
	struct syms_result r;
	struct stat st;
	struct syms *s;
	long kib;
	size_t i;

	(void)state;
	SKIP_IF_NEEDED();
	path_of(path, sizeof(path), "packed");
	s = new_syms(true, true, fx.empty);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(name, sizeof(name), "function_number_%u", lines[i]);
		assert_int_equal(syms__resolve_vaddr(s, path, NULL, 0, nm_addr(path, name), &r), 0);
		assert_int_equal(r.why, SYMS_OK);
		assert_string_equal(r.frames[r.nframes - 1].function, name);
		assert_non_null(r.frames[0].file);
		assert_string_equal(base_of(r.frames[0].file), "many.c");
		assert_int_equal(r.frames[0].line, lines[i]);
	}
	assert_int_equal(stat(path, &st), 0);
	kib = mapping_rss_kib(path);
	assert_true(kib >= 0);
	if (st.st_size - kib * 1024 < 100 * 1024)
		fprintf(stderr, "packed: %ld KiB of %lld resident\n", kib, (long long)st.st_size / 1024);
	assert_true(st.st_size - kib * 1024 >= 100 * 1024);
	syms__free(s);
}

/*
 * A profiler keeps mappings open and passes /proc/self/fd/N, which must
 * still find the debuglink's file next to the (deleted) original.
 */
static void test_proc_fd_path(void **state)
{
	char path[PATH_MAX], fdpath[64];
	struct syms_result r;
	struct syms *s;
	uint64_t twice;
	int fd;

	(void)state;
	SKIP_IF_NEEDED();
	assert_int_equal(sh("cp '%s/linked' '%s/fdcopy'", fx.dir, fx.dir), 0);
	path_of(path, sizeof(path), "plain");
	twice = nm_addr(path, "twice");
	path_of(path, sizeof(path), "fdcopy");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unlink(path), 0);
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	s = new_syms(true, true, fx.empty);
	assert_int_equal(syms__resolve_vaddr(s, fdpath, NULL, 0, twice, &r), 0);
	close(fd);
	assert_int_equal(r.why, SYMS_OK);
	assert_string_equal(r.frames[r.nframes - 1].function, "twice");
	assert_string_equal(base_of(r.frames[0].file), "fixture.c");
	syms__free(s);
}

static void test_dwz_alt_file(void **state)
{
	char file[PATH_MAX], plain[PATH_MAX];

	(void)state;
	SKIP_IF_NEEDED();
	if (!fx.dwz) {
		say_skip("dwz");
		skip();
		return;
	}
	path_of(plain, sizeof(plain), "plain");
	path_of(file, sizeof(file), "dwz-1");
	compare_with_addr2line(file, plain, fx.droot);
	/* Renewed, the alt file's handle is begun again too. */
	compare_renewing(file, plain, fx.droot, 1);
}

static void test_why_str(void **state)
{
	(void)state;
	assert_string_equal(syms_why_str(SYMS_OK), "ok");
	assert_string_equal(syms_why_str(SYMS_NO_FILE), "file not found");
	assert_string_equal(syms_why_str(SYMS_BUILD_ID_MISMATCH), "build id mismatch");
	assert_string_equal(syms_why_str((enum syms_why)99), "unknown");
	assert_int_equal(syms__resolve_vaddr(NULL, "x", NULL, 0, 0, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_why_str),
		cmocka_unit_test(test_perf_map),
		cmocka_unit_test(test_plain_matches_addr2line),
		cmocka_unit_test(test_renewed_dwarf_matches_addr2line),
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_deep_chain_truncated),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_symbol_table),
		cmocka_unit_test(test_file_offsets),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_stripped_without_debug),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_debug_by_build_id),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cus_indexed_on_demand),
		cmocka_unit_test(test_packed_debug_released),
		cmocka_unit_test(test_proc_fd_path),
		cmocka_unit_test(test_dwz_alt_file),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
