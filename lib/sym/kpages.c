// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Locks inside struct page (see kpages.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "sym/btfname.h"
#include "sym/kpages.h"

/* x86-64, 4-level paging, without memory randomization (Documentation/arch/x86/x86_64/mm.rst). */
#define X86_64_VMEMMAP		0xffffea0000000000ULL
#define X86_64_VMEMMAP_END	0xffffeb0000000000ULL
#define X86_64_TEXT_LINKED	0xffffffff81000000ULL
#define X86_64_KERNEL_MAP	0xffffffff80000000ULL
/* kcore's p_paddr for what is not RAM or text: vmalloc, vmemmap, modules */
#define KCORE_NO_PADDR		((uint64_t)-1)
#define KCORE_PHDRS_MAX		4096

static int read_phdrs(int fd, Elf64_Phdr *ph, size_t max, size_t *n)
{
	Elf64_Ehdr eh;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(*ph))
		return -ENOEXEC;
	*n = eh.e_phnum < max ? eh.e_phnum : max;
	if (pread(fd, ph, *n * sizeof(*ph), eh.e_phoff) != (ssize_t)(*n * sizeof(*ph)))
		return -EIO;
	return 0;
}

/*
 * The vmemmap segments: not RAM, above the vmalloc segment (the largest
 * of those), below the kernel's text mapping.
 */
static int vmemmap_from_kcore(struct kpages *kp, const char *path)
{
	Elf64_Phdr *ph = calloc(KCORE_PHDRS_MAX, sizeof(*ph));
	uint64_t vmalloc_start = 0, vmalloc_end = 0, size = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t i, n;
	int err;

	if (fd < 0 || !ph) {
		err = fd < 0 ? -errno : -ENOMEM;
		free(ph);
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = read_phdrs(fd, ph, KCORE_PHDRS_MAX, &n);
	close(fd);
	if (err) {
		free(ph);
		return err;
	}
	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_paddr == KCORE_NO_PADDR && ph[i].p_memsz > size) {
			size = ph[i].p_memsz;
			vmalloc_start = ph[i].p_vaddr;
			vmalloc_end = ph[i].p_vaddr + ph[i].p_memsz;
		}
	for (i = 0; i < n && kp->nranges < KPAGES_RANGES; i++) {
		if (ph[i].p_type != PT_LOAD || ph[i].p_paddr != KCORE_NO_PADDR || ph[i].p_vaddr == vmalloc_start ||
		    ph[i].p_vaddr < vmalloc_end || ph[i].p_vaddr + ph[i].p_memsz > X86_64_KERNEL_MAP)
			continue;
		kp->start[kp->nranges] = ph[i].p_vaddr;
		kp->end[kp->nranges++] = ph[i].p_vaddr + ph[i].p_memsz;
	}
	free(ph);
	return kp->nranges ? 0 : -ENOENT;
}

static void find_type(struct kpages *kp, const struct btf *btf)
{
	static const char *const types[] = { "ptdesc", "page" };
	uint32_t size;
	size_t i;

	for (i = 0; btf && i < sizeof(types) / sizeof(types[0]); i++) {
		kp->type = btfname_find_struct(btf, types[i], &size);
		if (kp->type > 0) {
			kp->type_name = types[i];
			kp->size = size;
			return;
		}
	}
	kp->type = -ENOENT;
}

void kpages_init(struct kpages *kp, const struct btf *btf, const char *kcore, uint64_t text)
{
	int err = -ENOENT;

	memset(kp, 0, sizeof(*kp));
	find_type(kp, btf);
	/* The vmemmap is page-aligned: a power-of-two struct page needs no base for its offset. */
	if (kp->type <= 0 || !kp->size || (kp->size & (kp->size - 1))) {
		snprintf(kp->status, sizeof(kp->status), "no page-table locks: no power-of-two struct page in BTF");
		kp->nranges = 0;
		return;
	}
#ifndef __x86_64__
	snprintf(kp->status, sizeof(kp->status), "no page-table locks: the vmemmap is found on x86-64 only");
	return;
#endif
	if (kcore)
		err = vmemmap_from_kcore(kp, kcore);
	if (!err) {
		snprintf(kp->status, sizeof(kp->status), "%s.ptl (vmemmap from %s)", kp->type_name, kcore);
	} else if (text == X86_64_TEXT_LINKED) {
		kp->start[0] = X86_64_VMEMMAP;
		kp->end[0] = X86_64_VMEMMAP_END;
		kp->nranges = 1;
		snprintf(kp->status, sizeof(kp->status), "%s.ptl (vmemmap at 0x%llx: the kernel is not relocated)",
			 kp->type_name, X86_64_VMEMMAP);
	} else {
		snprintf(kp->status, sizeof(kp->status), "no page-table locks: no vmemmap range (%s: %s)",
			 kcore ? kcore : "/proc/kcore", strerror(-err));
	}
}

int kpages_name(const struct kpages *kp, const struct btf *btf, uint64_t addr, char *buf, size_t len)
{
	char field[96];
	size_t i;

	for (i = 0; i < kp->nranges; i++) {
		if (addr < kp->start[i] || addr >= kp->end[i])
			continue;
		if (btfname_member(btf, kp->type, addr & (kp->size - 1), field, sizeof(field)))
			return -ENOENT;
		snprintf(buf, len, "%s.%s", kp->type_name, field);
		return 0;
	}
	return -ENOENT;
}
