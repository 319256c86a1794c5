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
#include "collector.h"
#include "exitcode.h"
#include "json.h"
#include "kfeatures.h"
#include "log.h"
#include "output.h"

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

static void usage(FILE *f)
{
	fprintf(f, "usage: lockstat probe [--attach MODE] [-f text|csv] [-v]\n\n"
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
	while ((opt = getopt_long(argc, argv, "f:vh", opts, NULL)) != -1) {
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
	if (geteuid() != 0)
		pr_warn("not root: loading test programs will fail for lack of CAP_BPF and CAP_PERFMON\n");
	features_probe(&f);
	print_features(&f, fmt);
	if (fmt == OUT_TEXT)
		printf("\n");
	print_families(&f, want, fmt);
	return EXIT_OK;
}

int cmd_version(int argc, char **argv)
{
	(void)argv;
	printf("lockstat %s (libbpf %s)\n", LOCKSTAT_VERSION, libbpf_version_string());
	if (argc > 1 && !strcmp(argv[1], "-v"))
		return cmd_probe(1, argv);
	return EXIT_OK;
}
