/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_VIEW_HITS_H
#define __LOCKSTAT_VIEW_HITS_H

#include "format/profile.h"

/*
 * The hits view (kernprof's hit list): samples per function, the leaf of
 * every sampled stack; and the call-graph views around one function.
 */
struct hits_filter {
	const char *comm;	/* fnmatch(3) globs, NULL = any */
	const char *module;
	long pid;		/* -1 = any; matches tgid or tid */
	bool kernel_only;
	bool user_only;
};

struct hit {
	const char *function;	/* "[unknown]" when not resolved */
	const char *module;	/* "[kernel]", a module name, or a file path */
	const char *file;	/* --lines: source file, else NULL */
	uint32_t line;
	uint64_t addr;		/* function start (kernel: absolute; user: module-relative) */
	bool kernel;
	uint64_t samples;
};

enum hits_sort { HITS_SORT_SAMPLES, HITS_SORT_NAME };

struct hits_view {
	struct hit *hits;
	size_t n;
	uint64_t total;		/* samples that passed the filter */
	uint64_t kernel;	/* of which the leaf was in the kernel */
	uint64_t unknown[USYM__COUNT];	/* user leaf frames by cause */
	uint64_t truncated;	/* samples whose user stack hit the depth limit */
};

int hits_view__build(struct hits_view *v, const struct profile *p, const struct hits_filter *f,
		     bool lines);
void hits_view__sort(struct hits_view *v, enum hits_sort key);
void hits_view__free(struct hits_view *v);

/* One frame of a sampled stack, leaf first, inline frames expanded. */
struct frame_name {
	const char *function;
	const char *module;
	bool kernel;
};

#define HITS_MAX_FRAMES	(2 * LS_SAMPLE_KSTACK_DEPTH + LS_SAMPLE_USTACK_DEPTH * USYM_MAX_FRAMES)

/* Names of a sample row's stack, leaf first; returns how many. */
int sample_stack_names(const struct profile *p, const struct sample_row_key *k,
		       struct frame_name *out, int max);
bool sample_passes(const struct profile *p, const struct sample_row_key *k,
		   const struct hits_filter *f);

/* --callers / --callees: who calls FUNC, or whom it calls, by samples. */
struct edge {
	const char *function;
	const char *module;
	bool kernel;
	uint64_t samples;
};

struct graph_view {
	struct edge *edges;
	size_t n;
	uint64_t total;		/* samples with FUNC on the stack */
};

int graph_view__build(struct graph_view *g, const struct profile *p, const struct hits_filter *f,
		      const char *function, bool callers);
void graph_view__free(struct graph_view *g);

#endif
