// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver for contrib/bench/symbolize: reads hex ELF virtual addresses of
 * FILE from stdin, one a line, and prints each like
 * `eu-addr2line -f -i -C --pretty-print` (`-b` for basenames):
 *	FUNC at FILE:LINE
 *	 (inlined by) FUNC at FILE:LINE
 * Build: gcc -O2 -Ilib -o symbolize-driver contrib/bench/symbolize-driver.c
 *	lib/sym/syms*.c -lelf -ldw -lz -lstdc++
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sym/syms.h"

static const char *base_of(const char *path, int basenames)
{
	const char *slash = basenames ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static void print_result(const struct syms_result *r, int basenames)
{
	const struct syms_frame *fr;
	uint32_t i;

	if (r->why != SYMS_OK || !r->nframes) {
		printf("?? at ??:0\n");
		return;
	}
	for (i = 0; i < r->nframes; i++) {
		fr = &r->frames[i];
		printf("%s%s at ", i ? " (inlined by) " : "", fr->function ? fr->function : "??");
		if (fr->file)
			printf("%s:%" PRIu32 "\n", base_of(fr->file, basenames), fr->line);
		else
			printf("??:0\n");
	}
}

int main(int argc, char **argv)
{
	struct syms_opts opts = { .lines = true, .inlines = true };
	int basenames = argc > 2 && !strcmp(argv[2], "-b");
	struct syms_result r;
	char line[128];
	struct syms *s;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE [-b] < addresses\n", argv[0]);
		return 2;
	}
	s = syms__new(&opts);
	if (!s)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		err = syms__resolve_vaddr(s, argv[1], NULL, 0, strtoull(line, NULL, 16), &r);
		if (err) {
			fprintf(stderr, "resolve: %s\n", strerror(-err));
			break;
		}
		print_result(&r, basenames);
	}
	syms__free(s);
	return 0;
}
