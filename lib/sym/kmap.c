// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Static kernel locks from System.map or a debug vmlinux (see kmap.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <gelf.h>
#include <libelf.h>
#include <bpf/btf.h>
#include "sym/btfname.h"
#include "sym/kmap.h"

/*
 * Text symbols every x86-64 and arm64 kernel has, compared between
 * kallsyms and the file: one alone could match by chance in another build.
 */
static const char *const anchors[] = {
	"_text", "_stext", "_etext", "start_kernel", "__schedule", "do_exit", "vfs_read",
	"schedule", "kernel_clone", "panic",
};

#define NANCHORS	(sizeof(anchors) / sizeof(anchors[0]))

static int anchor_index(const char *name)
{
	size_t i;

	for (i = 0; i < NANCHORS; i++)
		if (!strcmp(name, anchors[i]))
			return i;
	return -1;
}

/* Kept from a file: the data symbols, the image's bounds, the anchors. */
static bool wanted(const char *name, char type)
{
	return strchr("dDbBrR", type) || anchor_index(name) >= 0;
}

int kmap_read_system_map(FILE *f, struct ksyms *file)
{
	char *line = NULL, *end, *name, type;
	size_t cap = 0;
	uint64_t addr;
	int err = 0;

	while (!err && getline(&line, &cap, f) > 0) {
		addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ' || !end[1] || end[2] != ' ') {
			err = -EINVAL;
			break;
		}
		type = end[1];
		name = end + 3;
		name[strcspn(name, "\n")] = '\0';
		if (wanted(name, type))
			err = ksyms_add(file, addr, 0, name, NULL, type);
	}
	free(line);
	if (!err && ferror(f))
		err = -EIO;
	if (!err && !file->count)
		err = -ENOENT;
	if (!err)
		ksyms_sort(file);
	return err;
}

/* kallsyms' letter for an ELF symbol: data, bss or read-only, by its section. */
static char elf_type(Elf *elf, const GElf_Sym *s)
{
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	GElf_Shdr sh;

	if (GELF_ST_TYPE(s->st_info) == STT_FUNC)
		return 't';
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE || !scn || !gelf_getshdr(scn, &sh))
		return 'a';
	if (sh.sh_flags & SHF_EXECINSTR)
		return 't';
	if (sh.sh_type == SHT_NOBITS)
		return 'b';
	return sh.sh_flags & SHF_WRITE ? 'd' : 'r';
}

static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct ksyms *file)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	const char *name;
	GElf_Sym s;
	char type;
	int err = 0;

	for (i = 0; data && !err && i < n; i++) {
		if (!gelf_getsym(data, i, &s) || !(name = elf_strptr(elf, sh->sh_link, s.st_name)) || !*name)
			continue;
		type = elf_type(elf, &s);
		if (GELF_ST_TYPE(s.st_info) == STT_OBJECT || anchor_index(name) >= 0 ||
		    (type != 't' && type != 'a' && GELF_ST_TYPE(s.st_info) == STT_NOTYPE))
			err = ksyms_add(file, s.st_value, s.st_size, name, NULL, type);
	}
	return err;
}

int kmap_read_elf(const char *path, struct ksyms *file)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	while (err == -ENOENT && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			err = read_symtab(elf, scn, &sh, file);
	elf_end(elf);
	close(fd);
	if (!err && !file->count)
		err = -ENOENT;
	if (!err)
		ksyms_sort(file);
	return err;
}

/* Each anchor's address in ks's core kernel (0: not there). */
static void find_anchors(const struct ksyms *ks, uint64_t *addr)
{
	size_t i;
	int a;

	memset(addr, 0, NANCHORS * sizeof(*addr));
	for (i = 0; i < ks->count; i++)
		if (!ks->syms[i].module && (a = anchor_index(ks->syms[i].name)) >= 0 && !addr[a])
			addr[a] = ks->syms[i].addr;
}

int kmap_offset(const struct ksyms *ks, const struct ksyms *file, uint64_t *off)
{
	uint64_t running[NANCHORS], linked[NANCHORS];
	size_t i, agree = 0, listed = 0;

	find_anchors(ks, running);
	find_anchors(file, linked);
	for (i = 0; i < NANCHORS; i++)
		listed += linked[i] != 0;
	if (!listed)	/* Debian's System.map is one line: "The real System.map is in ...-dbg" */
		return -ENODATA;
	for (i = 0; i < NANCHORS; i++) {
		if (!running[i] || !linked[i])
			continue;
		if (agree && running[i] - linked[i] != *off)
			return -ESTALE;
		*off = running[i] - linked[i];
		agree++;
	}
	return agree >= KMAP_ANCHORS_MIN ? 0 : -ESRCH;
}

int kmap_add_data(struct ksyms *ks, const struct ksyms *file, uint64_t off)
{
	const struct ksym *k;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < file->count; i++) {
		k = &file->syms[i];
		/* Sizes: the ELF symbol's, or up to the file's next kept symbol. */
		if (strchr("dbr", k->type))
			err = ksyms_add(ks, k->addr + off, k->size, k->name, NULL, k->type);
	}
	ksyms_sort(ks);	/* what was added, even on -ENOMEM: ks stays searchable */
	return err;
}

/* --- the running kernel's files ------------------------------------------- */

/* Enough data symbols that kallsyms was built with CONFIG_KALLSYMS_ALL. */
#define KALLSYMS_ALL_MIN	1000

#define NT_GNU_BUILD_ID_TYPE	3

/* The running kernel's build id, as hex, from /sys/kernel/notes. */
static int running_build_id(char *hex, size_t len)
{
	unsigned char notes[4096];
	ssize_t n;
	size_t at = 0, i;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	while (n > 0 && at + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		size_t desc;

		memcpy(&namesz, notes + at, 4);
		memcpy(&descsz, notes + at + 4, 4);
		memcpy(&type, notes + at + 8, 4);
		desc = at + 12 + ((namesz + 3) & ~3u);
		if (desc + descsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(notes + at + 12, "GNU", 4) &&
		    descsz && 2 * descsz < len) {
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc + i]);
			return 0;
		}
		at = desc + ((descsz + 3) & ~3u);
	}
	return -ENOENT;
}

/* A debug vmlinux, or a System.map (text)? */
static bool is_elf(const char *path)
{
	char magic[SELFMAG];
	FILE *f = fopen(path, "re");
	bool elf = f && fread(magic, 1, SELFMAG, f) == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);

	if (f)
		fclose(f);
	return elf;
}

/* Try one file: 0 and its symbols added, or why not. */
static int try_file(struct ksyms *ks, const char *path, uint64_t *off)
{
	struct ksyms file;
	FILE *f;
	int err;

	ksyms_init(&file);
	if (is_elf(path)) {
		err = kmap_read_elf(path, &file);
	} else {
		f = fopen(path, "re");
		err = f ? kmap_read_system_map(f, &file) : -errno;
		if (f)
			fclose(f);
	}
	if (!err)
		err = kmap_offset(ks, &file, off);
	if (!err)
		err = kmap_add_data(ks, &file, *off);
	ksyms_free(&file);
	return err;
}

static const char *why(int err)
{
	if (err == -ESTALE)
		return "another build (its text symbols are not the running kernel's)";
	if (err == -ESRCH)
		return "too few text symbols in common with kallsyms";
	if (err == -ENODATA)	/* Debian's: the symbols are in linux-image-$(uname -r)-dbg */
		return "a stub without kernel symbols (Debian's: its debug vmlinux is in linux-image-*-dbg)";
	return strerror(-err);
}

int kmap_load_running(struct ksyms *ks, char *status, size_t len)
{
	const char *env = getenv("LOCKSTAT_SYSTEM_MAP");
	char paths[4][320], bid[128];
	struct utsname u;
	size_t n = 0, i, data;
	uint64_t off = 0;
	int err = 0;

	if (getenv("LOCKSTAT_NO_KALLSYMS_DATA"))
		ksyms_drop_data(ks);
	data = ksyms_count_data(ks);
	if (data >= KALLSYMS_ALL_MIN) {
		snprintf(status, len, "kallsyms (%zu data symbols)", data);
		return 0;
	}
	uname(&u);
	snprintf(paths[n++], sizeof(paths[0]), "%s", env ? env : "");
	if (!env)
		snprintf(paths[0], sizeof(paths[0]), "/boot/System.map-%s", u.release);
	snprintf(paths[n++], sizeof(paths[0]), "/usr/lib/debug/boot/vmlinux-%s", u.release);
	snprintf(paths[n++], sizeof(paths[0]), "/usr/lib/debug/lib/modules/%s/vmlinux", u.release);
	if (!running_build_id(bid, sizeof(bid)))
		snprintf(paths[n++], sizeof(paths[0]), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	for (i = 0; i < n; i++) {
		err = try_file(ks, paths[i], &off);
		if (!err) {
			snprintf(status, len, "%s (KASLR offset 0x%" PRIx64 ")", paths[i], off);
			return 0;
		}
		if (err == -ENOMEM)
			return err;
		/* A file there but wrong is worth saying; a missing one is the usual case. */
		if (err != -ENOENT || i == 0)
			snprintf(status, len, "no data symbols, vmlinux+0xOFFSET: %s: %s", paths[i], why(err));
	}
	return 0;
}

/* --- names ------------------------------------------------------------------ */

/* "sym[i]", "sym[i].field", "sym.field" from the kernel's BTF variable sym. */
static int btf_var_name(const struct btf *btf, const struct ksym *sym, uint64_t off, char *buf, size_t len)
{
	int id = btf ? btf__find_by_name_kind(btf, sym->name, BTF_KIND_VAR) : -ENOENT;
	const struct btf_type *t;
	char field[192];
	uint32_t type;
	__s64 size, esize;
	uint64_t i, rem;

	if (id < 0)
		return -ENOENT;
	type = btf__type_by_id(btf, id)->type;
	if (btfname_is_lock(btf, type))	/* a lock itself: its own name */
		return -ENOENT;
	size = btf__resolve_size(btf, type);
	type = btf__resolve_type(btf, type);
	t = btf__type_by_id(btf, type);
	if (!t || size <= 0 || off >= (uint64_t)size)	/* another file's static of that name */
		return -ENOENT;
	if (!btf_is_array(t)) {
		if (btfname_member(btf, type, off, field, sizeof(field)))
			return -ENOENT;
		snprintf(buf, len, "%s.%s", sym->name, field);
		return 0;
	}
	esize = btf__resolve_size(btf, btf_array(t)->type);
	if (esize <= 0)
		return -ENOENT;
	i = off / esize;
	rem = off % esize;
	if (!rem)
		snprintf(buf, len, "%s[%" PRIu64 "]", sym->name, i);
	else if (!btfname_member(btf, btf_array(t)->type, rem, field, sizeof(field)))
		snprintf(buf, len, "%s[%" PRIu64 "].%s", sym->name, i, field);
	else
		snprintf(buf, len, "%s[%" PRIu64 "]+0x%" PRIx64, sym->name, i, rem);
	return 0;
}

int kmap_static_name(const struct ksyms *ks, const struct btf *btf, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *sym = ksyms_find_data(ks, addr);

	if (sym && sym->addr == addr && !btf_var_name(btf, sym, 0, buf, len))
		return 0;
	if (sym && sym->addr == addr)
		snprintf(buf, len, "%s", sym->name);
	else if (sym && !btf_var_name(btf, sym, addr - sym->addr, buf, len))
		return 0;
	else if (sym)
		snprintf(buf, len, "%s+0x%" PRIx64, sym->name, addr - sym->addr);
	else
		return -ENOENT;
	return 0;
}

int kmap_image_name(const struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	uint64_t off;

	if (!ksyms_image_offset(ks, addr, &off))
		return -ENOENT;
	snprintf(buf, len, "vmlinux+0x%" PRIx64, off);
	return 0;
}

bool kmap_fold_arrays(const char *name, char *buf, size_t len)
{
	size_t o = 0, digits;
	bool folded = false;

	for (; *name && o + 1 < len; name++) {
		digits = name[0] == '[' ? strspn(name + 1, "0123456789") : 0;
		if (digits && name[1 + digits] == ']') {
			if (o + 2 >= len)
				break;
			buf[o++] = '[';
			buf[o++] = ']';
			name += digits + 1;
			folded = true;
			continue;
		}
		buf[o++] = *name;
	}
	buf[o] = '\0';
	return folded;
}
