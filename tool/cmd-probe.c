// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lockstat probe / version: what this kernel offers, and which attach mode
 * each probe family will use, with the reason for every "no".
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "cmds.h"
#include "record/collector.h"
#include "base/exitcode.h"
#include "base/json.h"
#include "record/kfeatures.h"
#include "record/lockname.h"
#include "sym/kmap.h"
#include "base/log.h"
#include "out/output.h"

static const struct out_col feature_cols[] = {
	{ "feature", "feature", COL_STR, 22, true },
	{ "available", "available", COL_STR, 9, true },
	{ "detail", "detail", COL_STR, 0, true },
};

static void print_features(const struct features *f, enum out_format fmt)
{
	struct out_table *t = out_table__new(stdout, fmt, feature_cols, 3);
	int i;

	for (i = 0; t && i < FEAT__COUNT; i++) {
		out_table__row_begin(t, 0);
		out_table__str(t, feature_name(i));
		out_table__str(t, f->r[i].ok ? "yes" : "no");
		out_table__str(t, f->r[i].detail);
		out_table__row_end(t);
	}
	out_table__free(t);
}

static const struct out_col family_cols[] = {
	{ "family", "family", COL_STR, 12, true },
	{ "mode", "mode", COL_STR, 12, true },
	{ "reason", "why", COL_STR, 0, true },
};

/*
 * Each family's own choice, the one record makes, from the features: its
 * mode, or none and why; record says more when a program then fails.
 */
static void family_row(struct out_table *t, enum family fam, const struct features *f,
		       enum attach_mode want)
{
	struct family_status st;
	char why[600];
	int err = family_choose_mode(fam, f, want, &st);

	if (err)
		snprintf(why, sizeof(why), "%s", st.why[0] ? st.why : strerror(-err));
	else if (st.missing[0])
		snprintf(why, sizeof(why), "%s; %s not measured: %s", family_what(fam), st.missing, st.why);
	else
		snprintf(why, sizeof(why), "%s%s%s", family_what(fam), st.why[0] ? "; " : "", st.why);
	out_table__row_begin(t, 0);
	out_table__str(t, family_name(fam));
	out_table__str(t, err ? "none" : st.mode);
	out_table__str(t, why);
	out_table__row_end(t);
}

static void print_families(const struct features *f, enum attach_mode want, enum out_format fmt)
{
	struct out_table *t = out_table__new(stdout, fmt, family_cols, 3);
	int i;

	for (i = 0; t && i < FAMILY_COUNT; i++)
		family_row(t, 1 << i, f, want);
	out_table__free(t);
}

static const struct out_col names_cols[] = {
	{ "lock_name", "lock name", COL_STR, 22, true },
	{ "available", "available", COL_STR, 9, true },
	{ "detail", "detail", COL_STR, 0, true },
};

static void names_row(struct out_table *t, const char *name, bool ok, const char *detail)
{
	out_table__row_begin(t, 0);
	out_table__str(t, name);
	out_table__str(t, ok ? "yes" : "no");
	out_table__str(t, detail);
	out_table__row_end(t);
}

/* Where static locks' names come from, as record finds it (kmap.h). */
static void static_names_row(struct out_table *t)
{
	char status[400] = "";
	struct ksyms ks;
	int err;

	ksyms_init(&ks);
	err = ksyms_load(&ks);
	if (!err)
		err = kmap_load_running(&ks, status, sizeof(status));
	if (err)
		snprintf(status, sizeof(status), "no data symbols: kallsyms: %s", strerror(-err));
	names_row(t, "static locks", !err && !strstr(status, "no data symbols"), status);
	ksyms_free(&ks);
}

/*
 * What record can name beyond symbols and the per-task classes, and the
 * self-check of the slab path on lockstat's own objects, lock by lock.
 */
static void print_names(enum out_format fmt)
{
	const struct lockname_check *checks;
	struct lockname_source src[8];
	struct lockname *ln = NULL;
	struct out_table *t;
	char detail[300];
	size_t i, n;
	int ncpus = libbpf_num_possible_cpus();

	if (lockname__open(&ln, ncpus > 0 ? ncpus : 1))
		return;
	t = out_table__new(stdout, fmt, names_cols, 3);
	n = lockname__sources(ln, src, sizeof(src) / sizeof(src[0]));
	for (i = 0; t && i < n; i++)
		names_row(t, src[i].name, src[i].ok, src[i].detail);
	if (t)
		static_names_row(t);
	n = lockname__checks(ln, &checks);
	for (i = 0; t && i < n; i++) {
		snprintf(detail, sizeof(detail), "%s: %s%s%s", checks[i].what, checks[i].found,
			 checks[i].ok ? "" : ", expected ", checks[i].ok ? "" : checks[i].expected);
		names_row(t, "slab self-check", checks[i].ok, detail);
	}
	out_table__free(t);
	lockname__free(ln);
}

static void usage(FILE *f)
{
	print_usage(f, "probe", "usage: lockstat probe [--attach MODE] [-f text|csv] [-v]\n\n"
		"  --attach MODE   show the choice lockstat record --attach MODE would make\n"
		"  -f, --format    text (default) or csv\n"
		"  -v, --verbose   say more (-vvv: libbpf's messages)\n"
		"  -h, --help      this help\n");
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "attach", required_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum attach_mode want = ATTACH_AUTO;
	enum out_format fmt = OUT_TEXT;
	struct features f;
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "f:vh", opts)) != -1) {
		switch (opt) {
		case 'A':
			if (attach_mode_parse(optarg, &want)) {
				pr_err("--attach: '%s' is not one of auto, tp, tp_btf, tracepoint, fentry, kprobe\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'f':
			if (out_format_parse(optarg, &fmt) || fmt == OUT_JSON) {
				pr_err("--format: '%s' is not text or csv\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'v': log_verbosity++; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (no_operands(argc, argv)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (geteuid() != 0)
		pr_warn("not root: loading test programs will fail for lack of CAP_BPF and CAP_PERFMON\n");
	features_probe(&f);
	print_features(&f, fmt);
	if (fmt == OUT_TEXT)
		printf("\n");
	print_families(&f, want, fmt);
	if (fmt == OUT_TEXT)
		printf("\n");
	print_names(fmt);
	return EXIT_OK;
}

/* version [-v]: -v adds what probe prints. */
int cmd_version(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	bool verbose = false;
	int opt;

	optind = 1;
	while ((opt = opt_next(argc, argv, "v", opts)) != -1) {
		if (opt != 'v') {
			fprintf(stderr, "usage: lockstat version [-v]\n");
			return EXIT_USAGE;
		}
		verbose = true;
	}
	if (no_operands(argc, argv)) {
		fprintf(stderr, "usage: lockstat version [-v]\n");
		return EXIT_USAGE;
	}
	printf("lockstat %s (libbpf %s)\n", LOCKSTAT_VERSION, libbpf_version_string());
	return verbose ? cmd_probe(1, argv) : EXIT_OK;
}
