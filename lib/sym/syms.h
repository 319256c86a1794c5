/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef __LOCKSTAT_SYMS_H
#define __LOCKSTAT_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * User-space symbolizer: ELF file + address -> function, file:line and the
 * inline chain, from sorted indexes built once per file (symbols when the
 * file is opened, DWARF lines and inlines on the first lookup needing them).
 * Link with -lelf -ldw -lz -lstdc++. Not thread safe.
 */

#define SYMS_MAX_INLINE		16
#define SYMS_BUILD_ID_MAX	64

enum syms_why {			/* why a lookup came back without a function name */
	SYMS_OK = 0,
	SYMS_NO_FILE,		/* the ELF file cannot be opened (deleted, no permission) */
	SYMS_BUILD_ID_MISMATCH,	/* the file's build id differs from the one recorded */
	SYMS_NOT_ELF,
	SYMS_NO_SYMTAB,		/* no .symtab/.dynsym with function symbols (stripped, no debug file found) */
	SYMS_NO_SYMBOL,		/* tables exist but no function covers the address */
};

const char *syms_why_str(enum syms_why why);

struct syms_opts {
	bool lines;		/* resolve file:line (DWARF .debug_line) */
	bool inlines;		/* resolve inline chains (DW_TAG_inlined_subroutine) */
	const char *debug_root;	/* where to look for separate debug files; NULL = "/usr/lib/debug" */
	/*
	 * Files kept open and indexed at once, the least recently used
	 * closed past it (0: all, for the life of the object). With a limit,
	 * a result's strings stay valid only until the next call.
	 */
	size_t max_files;
	/*
	 * DWARF indexes built (a cluster's lines or inlines) before a file's
	 * libdw handles are renewed, which frees what libdw kept of the CUs
	 * read (0: 64).
	 */
	size_t renew_dwarf;
};

struct syms_frame {
	const char *function;	/* demangled, owned by the syms object; NULL if unknown */
	const char *file;	/* source file as in DWARF (usually absolute), NULL if unknown */
	uint32_t line;		/* 0 if unknown */
};

struct syms_result {
	enum syms_why why;
	uint64_t func_addr;	/* ELF virtual address of the (outermost) function's start; 0 if unknown */
	uint64_t func_size;
	/*
	 * >= 1 when why == SYMS_OK: frames[0] is the innermost (deepest
	 * inlined) frame, frames[nframes-1] the real (non-inlined) function.
	 * Deeper chains keep the innermost SYMS_MAX_INLINE - 1 frames and the
	 * real function.
	 */
	uint32_t nframes;
	struct syms_frame frames[SYMS_MAX_INLINE];
};

struct syms;

/* opts may be NULL: lines and inlines on, debug_root /usr/lib/debug. */
struct syms *syms__new(const struct syms_opts *opts);
void syms__free(struct syms *s);

/*
 * Read the NT_GNU_BUILD_ID note of an ELF file; 0 or -errno (-ENOENT: file
 * has no build id, -ENOEXEC: not ELF, -ENOSPC: buffer too small).
 * *len: in: buffer size (>= 20), out: id length.
 */
int syms_build_id(const char *path, uint8_t *id, size_t *len);

/*
 * Resolve an address of a mapping of `path`, given as a FILE OFFSET (what
 * /proc/PID/maps gives: pc - start + pgoff).
 *
 * build_id/bid_len (may be NULL/0) is the id recorded while the process
 * lived (trailing zero bytes are padding, as in BPF stack build ids): when
 * the file now at `path` has another id, or is gone, the debug dirs are
 * tried by build id (DEBUG_ROOT/.build-id/xx/rest.debug) before giving up
 * with SYMS_BUILD_ID_MISMATCH (SYMS_NO_FILE when gone). The file offset is
 * converted to a virtual address through the PT_LOAD segment that contains
 * it; a debug file standing in for a missing file has lost the segments'
 * file offsets, so there they are assumed to be p_vaddr - first p_vaddr
 * (GNU ld layout, right for the text segment).
 *
 * Each file is opened and indexed once (cache keyed by path + build id, so
 * failures are cached too), or again after max_files others closed it;
 * the result's strings stay valid until syms__free(), or with max_files
 * until the next call. 0 with r->why set, or -errno (-ENOMEM, -EINVAL).
 */
int syms__resolve(struct syms *s, const char *path, const uint8_t *build_id, size_t bid_len,
		  uint64_t file_offset, struct syms_result *r);
/* Same, with an ELF virtual address (tests; ET_EXEC/ET_DYN addresses already translated). */
int syms__resolve_vaddr(struct syms *s, const char *path, const uint8_t *build_id, size_t bid_len,
			uint64_t vaddr, struct syms_result *r);
/*
 * /tmp/perf-PID.map for JITs: "START SIZE name" lines (hex). 0 with r->why
 * set, or -errno if no map. The map is read once per pid and read again
 * when an address misses and the file has grown.
 */
int syms__resolve_perf_map(struct syms *s, int pid, uint64_t addr, struct syms_result *r);
/*
 * What the open files' DWARF indexes hold: a file's CUs are indexed one
 * cluster (CUs whose ranges overlap) at a time, on the first lookup inside
 * it, so a process that runs a few of libc's functions costs a few of its
 * 2,000 CUs.
 */
struct syms_stats {
	size_t files;			/* open, with or without DWARF */
	size_t clusters;		/* CU clusters of their DWARF */
	size_t clusters_indexed;	/* of them, with a line table or inline index built */
};
void syms__stats(const struct syms *s, struct syms_stats *st);
/* The file offset of an exported function of an ELF file (a uprobe's place). */
int syms_func_offset(const char *path, const char *name, uint64_t *off);
/*
 * The variable at a data address of a process (a static lock: its name),
 * from the file mapped at map_start from file offset map_pgoff (for .bss
 * past the file's end, the file mapping just below it). *name is the
 * demangled symbol, valid until syms__free(), or NULL. 0 or -errno.
 */
int syms__resolve_data(struct syms *s, const char *path, const uint8_t *build_id, size_t bid_len,
		       uint64_t map_start, uint64_t map_pgoff, uint64_t addr, const char **name);

#ifdef __LOCKSTAT_SYMS_PRIVATE
/*
 * Internals shared by lib/syms*.c only (the files allowed to include
 * libelf.h and elfutils/libdw.h, hence the bare struct declarations).
 */
struct Elf;
struct Dwarf;

struct syms_seg {		/* PT_LOAD: file offsets [off, off + size) at vaddr */
	uint64_t off;
	uint64_t vaddr;
	uint64_t size;
};

struct syms_sym {		/* a function symbol covering [addr, end) */
	uint64_t addr;
	uint64_t end;
	const char *name;	/* raw (mangled), in the mapped string table */
};

struct syms_line {		/* a line-table row; rows are sorted by addr */
	uint64_t addr;
	uint32_t file;		/* index into syms_file.files; SYMS_LINE_GAP: no code */
	uint32_t line;
};
#define SYMS_LINE_GAP	UINT32_MAX

struct syms_inl {		/* a DW_TAG_subprogram or DW_TAG_inlined_subroutine */
	const char *name;	/* raw linkage name or name; NULL if none */
	const char *call_file;	/* call site in the parent (inlines only) */
	uint32_t call_line;
	int32_t parent;		/* enclosing inline or subprogram; -1 for subprograms */
	bool inlined;		/* DW_TAG_inlined_subroutine */
};

struct syms_span {		/* [lo, hi) belongs to inls[inl] and no deeper entry */
	uint64_t lo;
	uint64_t hi;
	uint32_t inl;
};

struct syms_cu_range {		/* one address range of a CU (its line table's extent if none) */
	uint64_t lo;
	uint64_t hi;
	uint64_t cu;		/* the CU DIE's offset */
	uint32_t ord;		/* discovery order: CUs as stored, then their ranges */
};

/*
 * CU ranges that overlap, chained: the unit the DWARF indexes are built in,
 * on the first lookup inside it. Clusters are disjoint and sorted.
 */
struct syms_cluster {
	uint64_t lo;
	uint64_t hi;
	uint32_t first;		/* ranges[first, first + n) */
	uint32_t n;
	bool lines_done, inls_done;
	struct syms_line *lines;
	size_t nlines;
	struct syms_span *spans;
	size_t nspans;
};

struct syms_file {
	struct syms_file *next;	/* hash chain */
	uint64_t used;		/* the last lookup's tick: the least recent is closed first */
	char *path;
	uint8_t bid[SYMS_BUILD_ID_MAX];	/* recorded id (key), zero padding trimmed */
	size_t bid_len;
	enum syms_why why;	/* SYMS_OK when usable */
	/*
	 * Main file (segments), separate debug file (may be NULL; stands in
	 * for a missing main file when found by build id) and dwz alt file.
	 * All mapped, their descriptors closed.
	 */
	struct Elf *elf, *delf, *aelf;
	struct Dwarf *dwarf, *adwarf;
	struct syms_seg *segs;
	size_t nsegs;
	struct syms_sym *syms;
	size_t nsyms;
	size_t nfuncs;		/* of them from the symbol tables, not made up (@plt) */
	/*
	 * The DWARF side, indexed one cluster of CUs at a time (syms_dwarf.c):
	 * a process touches a few of a library's thousands of CUs, and libdw
	 * reads only those.
	 */
	bool cus_done;
	size_t built, renew_dwarf;	/* indexes built on these handles; when to renew them */
	struct syms_cu_range *ranges;
	size_t nranges;
	struct syms_cluster *clusters;
	size_t nclusters;
	/*
	 * Source file names, joined to DW_AT_comp_dir when relative (what
	 * eu-addr2line and addr2line print) and interned: files_slots is an
	 * open-addressing set of index + 1.
	 */
	char **files;
	size_t nfiles, files_cap;
	uint32_t *files_slots;
	size_t files_nslots;
	struct syms_inl *inls;	/* of every cluster built */
	size_t ninls, inls_cap;
};

/* syms.c */
int syms_grow(void **arr, size_t *cap, size_t need, size_t elem);
const char *syms_debug_root(const struct syms *s);
const char *syms_demangle(struct syms *s, const char *raw);
/* syms_elf.c */
int syms_file_open(struct syms *s, struct syms_file *f);
void syms_file_close(struct syms_file *f);
/* New libdw handles for the file: what libdw kept of the CUs read is freed. */
void syms_file_renew_dwarf(struct syms_file *f);
int syms_file_vaddr(const struct syms_file *f, uint64_t off, uint64_t *vaddr);
const struct syms_sym *syms_file_sym(const struct syms_file *f, uint64_t addr);
/* The vaddr mapped at a mapping's (page-aligned) file offset; -ENOENT if none. */
int syms_file_map_vaddr(const struct syms_file *f, uint64_t pgoff, uint64_t *vaddr);
/* The data object (STT_OBJECT) covering vaddr, raw name, or NULL. */
const char *syms_file_data_sym(const struct syms_file *f, uint64_t vaddr);
/* syms_dwarf.c */
/* The line-table row in force at addr (*row NULL if none); 0 or -ENOMEM. */
int syms_dwarf_line(struct syms_file *f, uint64_t addr, const struct syms_line **row);
/* The deepest subprogram/inline covering addr (*inl -1 if none); 0 or -ENOMEM. */
int syms_dwarf_inl(struct syms_file *f, uint64_t addr, int32_t *inl);
void syms_dwarf_free(struct syms_file *f);
#endif

#endif
