// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ELF side of the symbolizer: opening a file and its separate debug file
 * (build id, .gnu_debuglink, dwz alt file), PT_LOAD segments and the
 * sorted function symbol table.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <zlib.h>
#define __LOCKSTAT_SYMS_PRIVATE
#include "sym/syms.h"

#define BACK_SCAN	4	/* sized symbols that may enclose a later one */

struct sym_tmp {
	uint64_t addr;
	uint64_t size;
	uint64_t sec_end;
	const char *name;
	int rank;		/* 0 global, 1 weak, 2 local, 3 made up (@plt): lower wins an address */
	size_t order;		/* index in the table: the first of equals wins */
};

/*
 * Map the whole file and close the descriptor: a profile touches hundreds
 * of files and the cache keeps them all. 0, -ENOEXEC (not ELF) or -errno.
 */
static int elf_open(const char *path, struct Elf **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* FDREAD reads what is not mapped, then marks the descriptor unused. */
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_cntl(elf, ELF_C_FDREAD)) {
		close(fd);
		*out = elf;
		return 0;
	}
	elf_end(elf);
	close(fd);
	return -ENOEXEC;
}

int syms_build_id(const char *path, uint8_t *id, size_t *len)
{
	const void *p;
	ssize_t n;
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	err = elf_open(path, &elf);
	if (err)
		return err;
	n = dwelf_elf_gnu_build_id(elf, &p);
	if (n <= 0)
		err = -ENOENT;
	else if ((size_t)n > *len)
		err = -ENOSPC;
	else
		memcpy(id, p, n);
	if (!err)
		*len = n;
	elf_end(elf);
	return err;
}

static bool bid_matches(Elf *elf, const uint8_t *id, size_t len)
{
	const uint8_t *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&p);

	/* The recorded id had its zero padding trimmed; so may the file's. */
	while (n > 0 && !p[n - 1])
		n--;
	return n == (ssize_t)len && !memcmp(p, id, len);
}

static bool has_section(Elf *elf, const char *name, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	const char *sname;
	GElf_Shdr sh;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (type != SHT_NULL && sh.sh_type == type)
			return true;
		sname = name ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
		if (sname && sh.sh_type != SHT_NOBITS &&
		    (!strcmp(sname, name) || (sname[0] && sname[1] == 'z' && !strcmp(sname + 2, name + 1))))
			return true;
	}
	return false;
}

static bool has_debug_info(Elf *elf)
{
	return has_section(elf, ".debug_info", SHT_NULL);
}

static bool has_symtab(Elf *elf)
{
	return has_section(elf, NULL, SHT_SYMTAB);
}

/* DEBUG_ROOT/.build-id/ab/cdef....debug */
static void bid_path(const char *root, const uint8_t *id, size_t len, char *buf, size_t size)
{
	size_t i, n;

	n = snprintf(buf, size, "%s/.build-id/%02x/", root, id[0]);
	for (i = 1; i < len && n + 3 < size; i++)
		n += snprintf(buf + n, size - n, "%02x", id[i]);
	snprintf(buf + n, size - n, ".debug");
}

static int open_by_id(struct syms *s, const uint8_t *id, size_t len, struct Elf **out)
{
	char path[PATH_MAX];
	int err;

	if (!len)
		return -ENOENT;
	bid_path(syms_debug_root(s), id, len, path, sizeof(path));
	err = elf_open(path, out);
	if (!err && !bid_matches(*out, id, len)) {
		elf_end(*out);
		*out = NULL;
		err = -ENOENT;
	}
	return err;
}

static uint32_t file_crc(Elf *elf)
{
	const unsigned char *p;
	uLong crc = crc32(0L, Z_NULL, 0);
	size_t size = 0, chunk;

	p = (const unsigned char *)elf_rawfile(elf, &size);
	while (p && size) {
		chunk = size > (1u << 30) ? (1u << 30) : size;
		crc = crc32(crc, p, chunk);
		p += chunk;
		size -= chunk;
	}
	return (uint32_t)crc;
}

static int open_crc(const char *path, uint32_t crc, struct Elf **out)
{
	int err = elf_open(path, out);

	if (err)
		return err;
	if (file_crc(*out) == crc)
		return 0;
	elf_end(*out);
	*out = NULL;
	return -ENOENT;
}

/*
 * A /proc/PID/fd/N or map_files/ path (kept open so that a deleted file
 * stays readable) names no directory to search: use the link's target.
 */
static const char *link_origin(const char *path, char *buf, size_t size)
{
	const char *deleted = " (deleted)";
	size_t dl = strlen(deleted);
	ssize_t n;

	if (strncmp(path, "/proc/", 6))
		return path;
	n = readlink(path, buf, size - 1);
	if (n <= 0 || buf[0] != '/')
		return path;
	buf[n] = 0;
	if ((size_t)n > dl && !strcmp(buf + n - dl, deleted))
		buf[n - dl] = 0;
	return buf;
}

/* .gnu_debuglink: next to the file, in .debug/ there, under DEBUG_ROOT/<dir>. */
static int open_by_link(struct syms *s, const char *path, Elf *elf, struct Elf **out)
{
	char buf[PATH_MAX], origin[PATH_MAX];
	const char *name, *dir, *slash;
	GElf_Word crc;
	int dlen;

	name = dwelf_elf_gnu_debuglink(elf, &crc);
	if (!name || strchr(name, '/'))
		return -ENOENT;
	path = link_origin(path, origin, sizeof(origin));
	slash = strrchr(path, '/');
	dir = slash ? path : ".";
	dlen = slash ? (int)(slash - path) : 1;
	snprintf(buf, sizeof(buf), "%.*s/%s", dlen, dir, name);
	if (!open_crc(buf, crc, out))
		return 0;
	snprintf(buf, sizeof(buf), "%.*s/.debug/%s", dlen, dir, name);
	if (!open_crc(buf, crc, out))
		return 0;
	snprintf(buf, sizeof(buf), "%s/%.*s/%s", syms_debug_root(s), dlen, dir, name);
	return open_crc(buf, crc, out);
}

static void find_debug(struct syms *s, struct syms_file *f)
{
	const void *id;
	ssize_t n;

	if (has_symtab(f->elf) && has_debug_info(f->elf))
		return;
	n = dwelf_elf_gnu_build_id(f->elf, &id);
	if (n > 0 && !open_by_id(s, id, n, &f->delf))
		return;
	open_by_link(s, f->path, f->elf, &f->delf);
}

/* --- segments ------------------------------------------------------------- */

/*
 * A debug file's segments keep p_vaddr and p_memsz but not p_offset: there
 * offsets are taken as p_vaddr - first p_vaddr, as GNU ld lays them out.
 */
static int load_segments(struct syms_file *f, Elf *elf, bool exact)
{
	size_t i, n, cap = 0;
	uint64_t base = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!f->nsegs)
			base = ph.p_vaddr & ~(ph.p_align ? ph.p_align - 1 : 0);
		if (syms_grow((void **)&f->segs, &cap, f->nsegs + 1, sizeof(*f->segs)))
			return -ENOMEM;
		f->segs[f->nsegs++] = (struct syms_seg){
			.off = exact ? ph.p_offset : ph.p_vaddr - base,
			.vaddr = ph.p_vaddr,
			.size = exact ? ph.p_filesz : ph.p_memsz,
		};
	}
	return 0;
}

int syms_file_vaddr(const struct syms_file *f, uint64_t off, uint64_t *vaddr)
{
	const struct syms_seg *g;
	size_t i;

	if (!f->nsegs) {
		*vaddr = off;
		return 0;
	}
	for (i = 0; i < f->nsegs; i++) {
		g = &f->segs[i];
		if (off >= g->off && off - g->off < g->size) {
			*vaddr = off - g->off + g->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* --- symbols ------------------------------------------------------------ */

static int sym_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym_tmp *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (!x->size != !y->size)
		return !x->size - !y->size;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* End address of every section, indexed like st_shndx. */
static uint64_t *section_ends(Elf *elf, size_t *n)
{
	Elf_Scn *scn = NULL;
	uint64_t *ends;
	GElf_Shdr sh;

	if (elf_getshdrnum(elf, n))
		return NULL;
	ends = calloc(*n ? *n : 1, sizeof(*ends));
	while (ends && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && elf_ndxscn(scn) < *n)
			ends[elf_ndxscn(scn)] = sh.sh_addr + sh.sh_size;
	return ends;
}

static Elf_Scn *find_scn(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static Elf_Data *find_xndx(Elf *elf, size_t symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == symtab)
			return elf_getdata(scn, NULL);
	return NULL;
}

struct sym_src {
	Elf *elf;
	Elf_Data *data, *xndx;
	size_t strndx;
	uint64_t *ends;
	size_t nends;
	bool thumb;		/* ARM: bit 0 of st_value marks Thumb code */
};

static bool sym_get(const struct sym_src *src, size_t i, struct sym_tmp *t)
{
	Elf32_Word xshndx;
	GElf_Sym sym;
	size_t shndx;
	int type;

	if (!gelf_getsymshndx(src->data, src->xndx, i, &sym, &xshndx))
		return false;
	type = GELF_ST_TYPE(sym.st_info);
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
		return false;
	shndx = sym.st_shndx == SHN_XINDEX ? xshndx : sym.st_shndx;
	t->name = elf_strptr(src->elf, src->strndx, sym.st_name);
	if (!t->name || !*t->name || shndx >= src->nends)
		return false;
	t->addr = src->thumb ? sym.st_value & ~1ULL : sym.st_value;
	t->size = sym.st_size;
	t->sec_end = src->ends[shndx];
	t->rank = sym_rank(&sym);
	t->order = i;
	return true;
}

static int collect_syms(Elf *elf, Elf64_Word type, struct sym_tmp **out, size_t *n)
{
	struct sym_src src = { .elf = elf };
	size_t i, count, cap = 0;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;

	scn = find_scn(elf, type, &sh);
	if (!scn || !sh.sh_entsize || !(src.data = elf_getdata(scn, NULL)))
		return 0;
	src.strndx = sh.sh_link;
	src.xndx = find_xndx(elf, elf_ndxscn(scn));
	src.thumb = gelf_getehdr(elf, &eh) && eh.e_machine == EM_ARM;
	src.ends = section_ends(elf, &src.nends);
	if (!src.ends)
		return -ENOMEM;
	count = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < count; i++) {
		if (syms_grow((void **)out, &cap, *n + 1, sizeof(**out))) {
			free(src.ends);
			return -ENOMEM;
		}
		*n += sym_get(&src, i, &(*out)[*n]);
	}
	free(src.ends);
	return 0;
}

/*
 * One entry per address (the preferred alias, the largest size); an
 * unsized symbol ends at the next one or at the end of its section.
 */
static int finish_syms(struct syms_file *f, struct sym_tmp *t, size_t n)
{
	size_t i, j, next;
	uint64_t end;

	if (n > 1)
		qsort(t, n, sizeof(*t), sym_cmp);
	f->syms = malloc((n ? n : 1) * sizeof(*f->syms));
	if (!f->syms)
		return -ENOMEM;
	for (i = 0; i < n; i = next) {
		for (next = i + 1; next < n && t[next].addr == t[i].addr; next++)
			if (t[next].size > t[i].size)
				t[i].size = t[next].size;
		end = t[i].addr + t[i].size;
		if (!t[i].size) {
			end = next < n ? t[next].addr : t[i].sec_end;
			if (t[i].sec_end > t[i].addr && t[i].sec_end < end)
				end = t[i].sec_end;
		}
		j = f->nsyms++;
		f->syms[j] = (struct syms_sym){ .addr = t[i].addr, .end = end, .name = t[i].name };
	}
	return 0;
}

/*
 * The PLT's stubs are in no symbol table: each PLT section becomes one
 * function, "@plt", as perf names a stub it cannot tell apart, and the
 * last choice at any address.
 */
static int collect_plt(Elf *elf, struct sym_tmp **out, size_t *n)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, cap = 0;
	const char *name;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(name, ".plt", 4))
			continue;
		if (syms_grow((void **)out, &cap, *n + 1, sizeof(**out)))
			return -ENOMEM;
		(*out)[(*n)++] = (struct sym_tmp){ .name = "@plt", .addr = sh.sh_addr, .size = sh.sh_size,
			.sec_end = sh.sh_addr + sh.sh_size, .rank = 3, .order = SIZE_MAX };
	}
	return 0;
}

static int load_syms(struct syms_file *f)
{
	struct sym_tmp *t = NULL;
	size_t n = 0;
	int err = 0;

	if (f->delf)
		err = collect_syms(f->delf, SHT_SYMTAB, &t, &n);
	if (!err && !n && f->elf)
		err = collect_syms(f->elf, SHT_SYMTAB, &t, &n);
	if (!err && !n && f->elf)
		err = collect_syms(f->elf, SHT_DYNSYM, &t, &n);
	f->nfuncs = n;
	if (!err && f->elf)
		err = collect_plt(f->elf, &t, &n);
	if (!err)
		err = finish_syms(f, t, n);
	free(t);
	return err;
}

const struct syms_sym *syms_file_sym(const struct syms_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nsyms, mid, i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < BACK_SCAN; i--)
		if (addr < f->syms[i - 1].end)
			return &f->syms[i - 1];
	return NULL;
}

/* --- data objects --------------------------------------------------------- */

/*
 * A segment that holds the offset wins; else one whose first page holds
 * it (a mapping starts at the page of its segment's first byte). Two
 * segments can share a page of the file, so callers pass offset 0 when
 * they can: only the first segment is there.
 */
int syms_file_map_vaddr(const struct syms_file *f, uint64_t pgoff, uint64_t *vaddr)
{
	const struct syms_seg *g;
	size_t i;

	if (!syms_file_vaddr(f, pgoff, vaddr))
		return 0;
	for (i = 0; i < f->nsegs; i++) {
		g = &f->segs[i];
		if (pgoff >= (g->off & ~4095ULL) && pgoff < g->off + g->size) {
			*vaddr = g->vaddr - (g->off - pgoff);
			return 0;
		}
	}
	return -ENOENT;
}

/* The variable of one symbol table that covers vaddr, or NULL. */
static const char *data_sym_in(Elf *elf, Elf64_Word type, uint64_t vaddr)
{
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Scn *scn = find_scn(elf, type, &sh);
	size_t i, count;

	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return NULL;
	count = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < count; i++) {
		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    sym.st_shndx == SHN_UNDEF || vaddr < sym.st_value ||
		    vaddr - sym.st_value >= (sym.st_size ? sym.st_size : 1))
			continue;
		return elf_strptr(elf, sh.sh_link, sym.st_name);
	}
	return NULL;
}

/*
 * Variables are not indexed like functions: a lock is named once, so a
 * walk of the tables (debug file first, then .symtab, then .dynsym) does.
 */
const char *syms_file_data_sym(const struct syms_file *f, uint64_t vaddr)
{
	const char *name = NULL;

	if (f->delf)
		name = data_sym_in(f->delf, SHT_SYMTAB, vaddr);
	if (!name && f->elf)
		name = data_sym_in(f->elf, SHT_SYMTAB, vaddr);
	if (!name && f->elf)
		name = data_sym_in(f->elf, SHT_DYNSYM, vaddr);
	return name && *name ? name : NULL;
}

/* The file offset of an exported function's first byte, through its PT_LOAD. */
/* Where the function at address value is in the file: 0, or -ENOENT outside every segment. */
static int file_offset(Elf *elf, size_t nph, uint64_t value, uint64_t *off)
{
	GElf_Phdr ph;
	size_t n;

	for (n = 0; n < nph; n++) {
		if (!gelf_getphdr(elf, n, &ph) || ph.p_type != PT_LOAD || value < ph.p_vaddr ||
		    value - ph.p_vaddr >= ph.p_filesz)
			continue;
		*off = value - ph.p_vaddr + ph.p_offset;
		return 0;
	}
	return -ENOENT;
}

/* Whether dynamic symbol i has a version other than its name's default (name@VER, not @@). */
static bool hidden_version(Elf_Data *versym, size_t i)
{
	GElf_Versym v;

	return versym && gelf_getversym(versym, i, &v) && (v & 0x8000);
}

/*
 * The function called name, in the dynamic symbols: the default version
 * where there are several (glibc's pthread_cond_wait@GLIBC_2.2.5 is an
 * old ABI's, at another address than @@GLIBC_2.3.2, the one programs
 * call), else the first.
 */
static int func_offset_in(Elf *elf, const char *name, uint64_t *off)
{
	size_t i, nph, count, first = 0;
	Elf_Data *data, *versym = NULL;
	GElf_Shdr sh, vsh;
	GElf_Sym sym, first_sym = { 0 };
	Elf_Scn *vscn, *scn = find_scn(elf, SHT_DYNSYM, &sh);
	const char *s;

	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)) || elf_getphdrnum(elf, &nph))
		return -ENOENT;
	vscn = find_scn(elf, SHT_GNU_versym, &vsh);
	if (vscn)
		versym = elf_getdata(vscn, NULL);
	count = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < count; i++) {
		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !(s = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
		    strcmp(s, name))
			continue;
		if (!hidden_version(versym, i))
			return file_offset(elf, nph, sym.st_value, off);
		if (!first++)
			first_sym = sym;
	}
	return first ? file_offset(elf, nph, first_sym.st_value, off) : -ENOENT;
}

/*
 * Where a uprobe on an exported function goes. Symbol versions make
 * aliases (pthread_rwlock_rdlock@GLIBC_2.2.5 and @@GLIBC_2.34 at one
 * address) that some libbpf versions refuse as ambiguous.
 */
int syms_func_offset(const char *path, const char *name, uint64_t *off)
{
	Elf *elf;
	int err;

	elf_version(EV_CURRENT);
	err = elf_open(path, &elf);
	if (err)
		return err;
	err = func_offset_in(elf, name, off);
	elf_end(elf);
	return err;
}

/* --- DWARF handles ------------------------------------------------------ */

/* The file whose DWARF is read: the debug file's, else the main file's. */
static Elf *dwarf_elf(const struct syms_file *f)
{
	if (f->delf && has_debug_info(f->delf))
		return f->delf;
	if (f->elf && has_debug_info(f->elf))
		return f->elf;
	return NULL;
}

#define MAX_PACKED	32	/* compressed sections released per file */

struct packed {			/* a compressed section's bytes in the file */
	uint64_t off, size;
	size_t ndx;
};

static size_t find_packed(Elf *elf, struct packed *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0;

	while (n < MAX_PACKED && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    sh.sh_type != SHT_NOBITS)
			out[n++] = (struct packed){ sh.sh_offset, sh.sh_size, elf_ndxscn(scn) };
	return n;
}

/* Is p in a mapping of a file (not libelf's copy of one it could not map)? */
static bool in_file_mapping(const void *p)
{
	unsigned long lo, hi, inode;
	FILE *maps = fopen("/proc/self/maps", "re");
	char line[512];
	bool found = false;

	if (!maps)
		return false;
	while (!found && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &inode) == 3 &&
		    (uintptr_t)p >= lo && (uintptr_t)p < hi)
			found = inode != 0;
	}
	fclose(maps);
	return found;
}

/*
 * Once libdw has decompressed a debug section (at dwarf_begin, into a
 * buffer of the ELF handle), its compressed bytes in the file's mapping
 * are not read again, yet stay resident: 3.7 MiB of libc6-dbg's 4 MiB
 * file, for as long as the file is open. They are dropped from the
 * mapping: clean pages of a read-only private map of the file, read back
 * from the page cache were anything to touch them again. A section still
 * compressed (a libdw that decompresses lazily) is left alone.
 */
static void release_packed(Elf *elf, const struct packed *pk, size_t n)
{
	size_t page = sysconf(_SC_PAGESIZE), size, i;
	char *raw = elf_rawfile(elf, &size);
	uint64_t lo, hi;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (!n || !raw || !in_file_mapping(raw))
		return;
	for (i = 0; i < n; i++) {
		scn = elf_getscn(elf, pk[i].ndx);
		if (!scn || !gelf_getshdr(scn, &sh) || (sh.sh_flags & SHF_COMPRESSED))
			continue;
		lo = (pk[i].off + page - 1) / page * page;
		hi = (pk[i].off + pk[i].size) / page * page;
		if (lo < hi && hi <= size)
			madvise(raw + lo, hi - lo, MADV_DONTNEED);
	}
}

/* libdw's handle on elf, with its compressed bytes released. */
static Dwarf *begin_dwarf(Elf *elf)
{
	struct packed pk[MAX_PACKED];
	size_t n = find_packed(elf, pk);
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	if (dw)
		release_packed(elf, pk, n);
	return dw;
}

/* dwz: DW_FORM_GNU_ref_alt points into a shared file named by build id. */
static void begin_alt(struct syms_file *f)
{
	f->adwarf = begin_dwarf(f->aelf);
	if (f->adwarf)
		dwarf_setalt(f->dwarf, f->adwarf);
}

static void open_dwarf(struct syms *s, struct syms_file *f)
{
	Elf *elf = dwarf_elf(f);
	const char *name;
	const void *id;
	ssize_t n;

	if (!elf)
		return;
	f->dwarf = begin_dwarf(elf);
	if (!f->dwarf)
		return;
	n = dwelf_dwarf_gnu_debugaltlink(f->dwarf, &name, &id);
	if (n > 0 && !open_by_id(s, id, n, &f->aelf))
		begin_alt(f);
}

static void drop_dwarf(struct syms_file *f)
{
	if (f->dwarf)
		dwarf_end(f->dwarf);
	if (f->adwarf)
		dwarf_end(f->adwarf);
	f->dwarf = f->adwarf = NULL;
}

/*
 * libdw keeps all it allocated for the CUs read (their line programs,
 * abbreviations, DIE lookups) until dwarf_end(): all of libc's, had every
 * one been read, 17 MiB. The indexes built from them are ours, so new
 * handles every so many clusters bound libdw's share. The debug sections
 * stay decompressed in the ELF handles (libdw does not decompress them
 * again), and the strings that the indexes point to are theirs.
 */
void syms_file_renew_dwarf(struct syms_file *f)
{
	Elf *elf = dwarf_elf(f);

	drop_dwarf(f);
	f->dwarf = elf ? begin_dwarf(elf) : NULL;
	if (f->dwarf && f->aelf)
		begin_alt(f);
	f->built = 0;
}

/* --- open/close --------------------------------------------------------- */

/* Only a debug file found by the recorded build id is left. */
static int open_standalone(struct syms *s, struct syms_file *f, enum syms_why why)
{
	if (open_by_id(s, f->bid, f->bid_len, &f->delf)) {
		f->why = why;
		return 0;
	}
	return load_segments(f, f->delf, false);
}

static int open_main(struct syms *s, struct syms_file *f)
{
	int err = elf_open(f->path, &f->elf);

	if (err == -ENOEXEC)
		f->why = SYMS_NOT_ELF;
	if (err == -ENOEXEC || err == -ENOMEM)
		return err == -ENOMEM ? err : 0;
	if (err)
		return open_standalone(s, f, SYMS_NO_FILE);
	if (f->bid_len && !bid_matches(f->elf, f->bid, f->bid_len)) {
		elf_end(f->elf);
		f->elf = NULL;
		return open_standalone(s, f, SYMS_BUILD_ID_MISMATCH);
	}
	find_debug(s, f);
	return load_segments(f, f->elf, true);
}

int syms_file_open(struct syms *s, struct syms_file *f)
{
	int err;

	elf_version(EV_CURRENT);
	err = open_main(s, f);
	if (err || f->why)
		return err;
	err = load_syms(f);
	if (!err)
		open_dwarf(s, f);
	return err;
}

void syms_file_close(struct syms_file *f)
{
	syms_dwarf_free(f);
	drop_dwarf(f);
	elf_end(f->aelf);
	elf_end(f->delf);
	elf_end(f->elf);
	free(f->segs);
	free(f->syms);
	f->elf = f->delf = f->aelf = NULL;
	f->segs = NULL;
	f->syms = NULL;
	f->nsegs = f->nsyms = f->nfuncs = 0;
}
