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

static void family_row(struct out_table *t, const char *family, const char *mode, const char *why)
{
	out_table__row_begin(t, 0);
	out_table__str(t, family);
	out_table__str(t, mode);
	out_table__str(t, why);
	out_table__row_end(t);
}

/* The function probes of fd: which mode --attach want leads to. */
static const char *function_mode(const struct features *f, enum attach_mode want)
{
	bool fe = f->r[FEAT_FENTRY].ok && want != ATTACH_KPROBE;
	bool kp = f->r[FEAT_KPROBE].ok && want != ATTACH_FENTRY;

	return fe ? "fentry" : kp ? "kprobe" : NULL;
}

/*
 * The other families, as far as the features tell; record says more when
 * a program then fails to load.
 */
static void print_other_families(struct out_table *t, const struct features *f, enum attach_mode want)
{
	const struct feature_result *mm = &f->r[FEAT_TP_MMAP_LOCK], *sc = &f->r[FEAT_TP_SYSCALLS];
	const char *fget = function_mode(f, want);
	bool hold = f->r[FEAT_FENTRY].ok && want != ATTACH_KPROBE;
	char why[400];

	family_row(t, "mmap_lock", mm->ok && tp_btf_nargs("mmap_lock_start_locking") >= 0 ? "tp_btf" : "none",
		   mm->ok ? (tp_btf_nargs("mmap_lock_start_locking") >= 0 ?
			     "mmap_lock tracepoints: wait and hold of every acquisition" :
			     "needs kernel BTF with the mmap_lock raw tracepoints") : mm->detail);
	snprintf(why, sizeof(why), "fd syscalls from raw_syscalls; fget family: %s", fget ? fget :
		 "not measured (needs fentry or kprobes)");
	family_row(t, "fd", sc->ok ? (fget ? fget : "syscalls") : "none", sc->ok ? why : sc->detail);
	family_row(t, "pagecache", f->r[FEAT_TP_FILEMAP].ok ? "tracepoints" : "none",
		   f->r[FEAT_TP_FILEMAP].ok ? (f->r[FEAT_TP_READAHEAD].ok ? "filemap and readahead events" :
					       "filemap events (no readahead tracepoints)") :
		   f->r[FEAT_TP_FILEMAP].detail);
	family_row(t, "hold", hold ? "fentry" : "none", hold ? "lock and unlock functions (record --hold)" :
		   "needs fentry (kprobes on the lock functions are refused)");
	family_row(t, "ulocks", sc->ok ? "tracepoints" : "none",
		   sc->ok ? "futex syscalls: user lock waits (record -e ulocks)" : sc->detail);
	family_row(t, "uprobes", f->r[FEAT_UPROBE].ok ? "uprobe" : "none",
		   f->r[FEAT_UPROBE].ok ? "glibc's lock functions (record --uprobes; about 20 us a hit)" :
		   f->r[FEAT_UPROBE].detail);
}

static void print_families(const struct features *f, enum attach_mode want, enum out_format fmt)
{
	struct out_table *t = out_table__new(stdout, fmt, family_cols, 3);
	char why[256] = "";
	bool btf;
	bool ok = contention_choose_mode(f, want, &btf, why, sizeof(why));

	if (!t)
		return;
	out_table__row_begin(t, 0);
	out_table__str(t, "contention");
	out_table__str(t, ok ? (btf ? "tp_btf" : "tracepoint") : "none");
	out_table__str(t, ok ? (btf ? "lock:contention_begin/end through BTF" :
				"lock:contention_begin/end (classic tracepoints)") : why);
	out_table__row_end(t);
	out_table__row_begin(t, 0);
	out_table__str(t, "sample");
	out_table__str(t, f->r[FEAT_PERF_EVENT].ok ? "perf_event" : "none");
	out_table__str(t, f->r[FEAT_PERF_EVENT].ok ?
		       "cycles where a PMU exists, else cpu-clock, one event per CPU" :
		       f->r[FEAT_PERF_EVENT].detail);
	out_table__row_end(t);
	print_other_families(t, f, want);
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
