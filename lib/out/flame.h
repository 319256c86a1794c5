/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_FLAME_H
#define __LOCKSTAT_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "out/export.h"
#include "base/htab.h"

/*
 * Flame graphs as self-contained SVG (Brendan Gregg's design, written
 * anew): stacks merged into a tree, each frame as wide as its value,
 * children in name order above their parent, a hover title per frame, and
 * a script for search and click-to-zoom. A differential graph carries two
 * values per frame, base and patched: each frame is as wide as the two
 * together (so that what is gone and what is new both show) and coloured
 * by the change, red where it grew, blue where it shrank.
 */
enum flame_kind { FLAME_KERNEL, FLAME_USER, FLAME_LOCK, FLAME_TASK, FLAME_ROOT };

struct flame_frame {
	const char *name;
	enum flame_kind kind;
};

struct flame_node {
	char *name;
	enum flame_kind kind;
	uint32_t parent;
	uint32_t depth;
	double v[2];		/* value, or base and patched */
	uint32_t *kids;
	uint32_t nkids, kids_cap;
};

struct flame {
	bool diff;
	struct flame_node *nodes;	/* nodes[0] is the root, "all" */
	size_t n, cap;
	struct htab index;	/* (parent, name hash) -> node + 1 */
};

enum flame_unit { FLAME_UNIT_SAMPLES, FLAME_UNIT_NS, FLAME_UNIT_WAITS };

struct flame_opts {
	const char *title;
	const char *subtitle;	/* NULL: none */
	enum flame_unit unit;
	bool per_second;	/* values are rates: "/s" after them */
	int width;		/* pixels; 0: 1200 */
	double min_width;	/* pixels: narrower frames are left out; 0: 0.1, < 0: none */
};

int flame__init(struct flame *f, bool diff);
void flame__free(struct flame *f);
/* One stack, root first, with its value (side 0), or its patched value (side 1). */
int flame__add(struct flame *f, const struct flame_frame *frames, size_t n, int side, double value);

/*
 * The stacks of an export, each under its command (samples) or lock
 * (lock waits), value times scale. rename, when not NULL, gives the name
 * a frame is drawn and merged under (in buf, or name itself).
 */
typedef const char *(*flame_rename_fn)(const char *name, enum flame_kind kind, char *buf, size_t len);

int flame__add_export(struct flame *f, const struct export_stacks *s, enum export_value value,
		      int side, double scale, flame_rename_fn rename);

/* 0, or -EIO when out reports a write error. */
int flame__write_svg(const struct flame *f, FILE *out, const struct flame_opts *o);

/* lockstat export --format svg: o->what of one profile as a flame graph. */
int flame__export_svg(FILE *out, const struct profile *p, const struct export_opts *o,
		      const char *path);

#endif
