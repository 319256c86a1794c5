// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "sym/syms.h"
#include "record/uresolve.h"

_Static_assert((int)USYM_NO_FILE == (int)SYMS_NO_FILE && (int)USYM_NO_SYMBOL == (int)SYMS_NO_SYMBOL &&
	       (int)USYM_NO_SYMTAB == (int)SYMS_NO_SYMTAB && (int)USYM_NOT_ELF == (int)SYMS_NOT_ELF &&
	       (int)USYM_BUILD_ID_MISMATCH == (int)SYMS_BUILD_ID_MISMATCH,
	       "usym_why extends syms_why");

static void copy_result(const struct syms_result *r, struct usym_info *out)
{
	uint32_t i;

	out->why = r->why;
	out->func_addr = r->func_addr;
	out->nframes = r->why == SYMS_OK ? r->nframes : 0;
	if (out->nframes > USYM_MAX_FRAMES)
		out->nframes = USYM_MAX_FRAMES;
	for (i = 0; i < out->nframes; i++) {
		out->frames[i].function = r->frames[i].function;
		out->frames[i].file = r->frames[i].file;
		out->frames[i].line = r->frames[i].line;
	}
}

/* Anonymous executable memory: a JIT, named only through its perf map. */
static int resolve_anon(struct uresolver *u, uint32_t tgid, uint64_t addr, struct usym_info *out)
{
	struct syms_result r;

	if (syms__resolve_perf_map(u->syms, tgid, addr, &r)) {
		out->why = USYM_JIT_NO_MAP;
		return 0;
	}
	copy_result(&r, out);
	return 0;
}

/* No function there: the module and the file offset, for addr2line later. */
static void fallback_name(struct uresolver *u, const struct proc_map *m, uint64_t addr,
			  struct usym_info *out)
{
	const char *base = strrchr(m->path, '/');

	snprintf(u->fallback, sizeof(u->fallback), "%s+0x%" PRIx64, base ? base + 1 : m->path,
		 addr - m->start + m->pgoff);
	out->nframes = 1;
	out->func_addr = 0;
	out->frames[0].function = u->fallback;
	out->frames[0].file = "";
	out->frames[0].line = 0;
}

/*
 * With a build id, the file under its own name first: the cache is keyed
 * by path, and the file held open is shared by every process mapping
 * it. The build id tells whether it is still the same file; when it is
 * not, or is gone, the one held open since capture.
 */
/* Whether the file now at the mapping's path is the one that was mapped. */
static bool still_there(const struct proc_map *m)
{
	struct stat st;

	return !m->ino || (!stat(m->path, &st) && st.st_ino == m->ino &&
			   makedev(major(st.st_dev), minor(st.st_dev)) == m->dev);
}

static int resolve_file(struct uresolver *u, const struct proc_map *m, uint64_t addr, struct syms_result *r)
{
	uint64_t off = addr - m->start + m->pgoff;
	char fdpath[32];
	int err = -ENOENT;

	/* Neither held open nor known by its build id: only the same file will do. */
	if (m->fd < 0 && !m->build_id_len && !still_there(m))
		return -ENOENT;
	if (m->build_id_len)
		err = syms__resolve(u->syms, m->path, m->build_id, m->build_id_len, off, r);
	if (!err && (r->why == SYMS_NO_FILE || r->why == SYMS_BUILD_ID_MISMATCH))
		err = -ENOENT;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", m->fd);
	if (err)
		err = syms__resolve(u->syms, m->fd >= 0 ? fdpath : m->path, m->build_id,
				    m->build_id_len, off, r);
	return err;
}

/*
 * The vDSO is no file on disk (perf reads it from the process's memory).
 * Every 64-bit process of this kernel maps the same image as lockstat's
 * own, so ours, copied once into a memfd, names their vDSO frames; a
 * mapping of another size (a 32-bit process's vDSO) is not ours. NULL
 * when there is no usable copy.
 */
static const char *own_vdso(uint64_t map_len)
{
	static char path[32];
	static size_t len;
	static int fd = -2;
	const Elf64_Ehdr *eh;

	if (fd == -2) {
		fd = -1;
		eh = (const void *)getauxval(AT_SYSINFO_EHDR);
		if (eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64) {
			/* The section headers end the image: the symbol tables are inside it. */
			len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
			fd = memfd_create("lockstat-vdso", MFD_CLOEXEC);
		}
		if (fd >= 0 && write(fd, eh, len) != (ssize_t)len) {
			close(fd);
			fd = -1;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (fd < 0 || map_len != ((len + getpagesize() - 1) & ~((uint64_t)getpagesize() - 1)))
		return NULL;
	return path;
}

/* [vdso] through lockstat's own copy, [vsyscall] and the like not at all. */
static void resolve_special(struct uresolver *u, const struct proc_map *m, uint64_t addr,
			    struct usym_info *out)
{
	const char *vdso = strcmp(m->path, "[vdso]") ? NULL : own_vdso(m->end - m->start);
	struct syms_result r;

	if (vdso && !syms__resolve(u->syms, vdso, NULL, 0, addr - m->start, &r))
		copy_result(&r, out);
	else
		out->why = USYM_NO_SYMTAB;
}

int uresolve(void *ctx, uint32_t tgid, uint64_t addr, uint64_t seen_ns, struct usym_info *out)
{
	struct uresolver *u = ctx;
	const struct proc_map *m = maps_cache__find(u->maps, tgid, addr, u->t0_ns + seen_ns);
	struct syms_result r;

	memset(out, 0, sizeof(*out));
	if (!m) {
		out->why = USYM_NO_MAPPING;
		return 0;
	}
	out->module = m->path;
	if (!m->path[0])
		return resolve_anon(u, tgid, addr, out);
	if (m->path[0] != '/')
		resolve_special(u, m, addr, out);
	else if (resolve_file(u, m, addr, &r))
		out->why = USYM_NO_FILE;
	else
		copy_result(&r, out);
	if (out->why != USYM_OK)
		fallback_name(u, m, addr, out);
	return 0;
}
