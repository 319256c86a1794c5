/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_KFEATURES_H
#define __LOCKSTAT_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/*
 * What the running kernel offers, probed once, in one place. Each entry
 * keeps the reason when the answer is no.
 */
enum feature {
	FEAT_BTF,
	FEAT_TRACEFS,
	FEAT_TP_LOCK,		/* classic lock:contention_begin/end */
	FEAT_TP_BTF_LOCK,	/* tp_btf/contention_begin/end */
	FEAT_TP_SCHED,
	FEAT_TP_MMAP_LOCK,
	FEAT_TP_FILEMAP,
	FEAT_TP_READAHEAD,
	FEAT_TP_SYSCALLS,
	FEAT_FENTRY,
	FEAT_KPROBE,
	FEAT_PERF_EVENT,
	FEAT_UPROBE,
	FEAT__COUNT,
};

struct feature_result {
	bool ok;
	char detail[160];	/* what was found, or why not */
};

struct features {
	struct feature_result r[FEAT__COUNT];
};

enum attach_mode {
	ATTACH_AUTO,
	ATTACH_TP,		/* tracepoints: tp_btf, else classic */
	ATTACH_TP_BTF,		/* tp_btf only */
	ATTACH_TP_CLASSIC,	/* classic (perf-event) tracepoints only */
	ATTACH_FENTRY,
	ATTACH_KPROBE,
};

const char *feature_name(enum feature f);
int attach_mode_parse(const char *s, enum attach_mode *mode);
const char *attach_mode_name(enum attach_mode mode);
/* Mount tracefs where the kernel has it and nobody mounted it yet. */
int tracefs_mount(void);
const char *tracefs_path(void);
void features_probe(struct features *f);
/* The same, but fentry and kprobe are probed (by loading a program) only when programs. */
void features_probe_some(struct features *f, bool programs);

/*
 * Kernel BTF, loaded once and kept: NULL (errno set) when the kernel has
 * none. Freed at exit.
 */
const struct btf *vmlinux_btf(void);
/* The arguments of raw tracepoint name's prototype (btf_trace_<name>), or -errno. */
int tp_btf_nargs(const char *name);
/* Whether the kernel has a function of that name in BTF (fentry can attach to it). */
bool kfunc_in_btf(const char *name);

#endif
