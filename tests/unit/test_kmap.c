// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Static and struct-page lock names: the image's range, System.map moved
 * by KASLR, arrays from BTF variables, folding, the vmemmap from kcore.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "sym/kmap.h"
#include "sym/kpages.h"

#define KASLR	0x2a00000ULL

/* The running kernel: text only (no CONFIG_KALLSYMS_ALL), moved by KASLR. */
static const char kallsyms[] =
	"ffffffff83a00000 T _stext\n"
	"ffffffff83a00000 T _text\n"
	"ffffffff83a01000 T start_kernel\n"
	"ffffffff83a02000 t __schedule\n"
	"ffffffff83a03000 T do_exit\n"
	"ffffffff83a04000 T vfs_read\n"
	"ffffffff84000000 D __start_rodata\n"
	"ffffffff84e00000 D __start_init_stack\n"
	"ffffffffc0001000 t foo_fn\t[foo_mod]\n";

/* Its build's System.map: addresses as linked, data symbols too. */
static const char system_map[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81002000 t __schedule\n"
	"ffffffff81003000 T do_exit\n"
	"ffffffff81004000 T vfs_read\n"
	"ffffffff81600000 D __start_rodata\n"
	"ffffffff82400000 D __start_init_stack\n"
	"ffffffff82400000 D init_stack\n"
	"ffffffff82408000 D bit_wait_table\n"
	"ffffffff82409800 d contig_page_data\n"
	"ffffffff8240a000 B jiffies_lock\n"
	"ffffffff8240a040 B __bss_stop\n"
	"ffffffff8240b000 B _end\n";

static int load(struct ksyms *ks, const char *text, bool system_map_format)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	assert_non_null(f);
	ksyms_init(ks);
	err = system_map_format ? kmap_read_system_map(f, ks) : ksyms_load_file(ks, f);
	fclose(f);
	return err;
}

static void test_image_range(void **state)
{
	struct ksyms ks;
	uint64_t off;
	char name[64];

	(void)state;
	assert_int_equal(load(&ks, kallsyms, false), 0);
	/* No _end in kallsyms: up to the first module (x86-64's kernel text mapping). */
	assert_true(ksyms_image_offset(&ks, 0xffffffff84e08040ULL, &off));
	assert_int_equal(off, 0x1408040);
	assert_int_equal(kmap_image_name(&ks, 0xffffffff84e08040ULL, name, sizeof(name)), 0);
	assert_string_equal(name, "vmlinux+0x1408040");
	assert_false(ksyms_image_offset(&ks, 0xffffffffc0001000ULL, &off));	/* a module */
	assert_false(ksyms_image_offset(&ks, 0xffffffff83000000ULL, &off));	/* below _text */
	assert_false(ksyms_image_offset(&ks, 0xffff888100000000ULL, &off));	/* the heap */
	assert_false(ksyms_image_offset(&ks, 0xffffc900018c7cc0ULL, &off));	/* a stack */
	assert_int_equal(kmap_image_name(&ks, 0xffff888100000000ULL, name, sizeof(name)), -ENOENT);
	ksyms_free(&ks);

	/* With _end, nothing past it. */
	assert_int_equal(load(&ks, system_map, false), 0);
	assert_true(ksyms_image_offset(&ks, 0xffffffff8240afffULL, &off));
	assert_false(ksyms_image_offset(&ks, 0xffffffff8240b000ULL, &off));
	ksyms_free(&ks);
}

static void test_system_map_kaslr(void **state)
{
	struct ksyms ks, map;
	uint64_t off = 0;
	char name[64];

	(void)state;
	assert_int_equal(load(&ks, kallsyms, false), 0);
	assert_int_equal(ksyms_count_data(&ks), 0);	/* section bounds only */
	assert_int_equal(load(&map, system_map, true), 0);
	assert_int_equal(kmap_offset(&ks, &map, &off), 0);
	assert_int_equal(off, KASLR);
	assert_int_equal(kmap_add_data(&ks, &map, off), 0);
	assert_int_equal(ksyms_count_data(&ks), 4);	/* init_stack, bit_wait_table, contig_page_data, jiffies_lock */

	/* A bucket of the hashed wait table, where kallsyms had no name for it. */
	assert_int_equal(kmap_static_name(&ks, NULL, 0xffffffff82408000ULL + KASLR + 0x1c8, name, sizeof(name)), 0);
	assert_string_equal(name, "bit_wait_table+0x1c8");
	assert_int_equal(kmap_static_name(&ks, NULL, 0xffffffff8240a000ULL + KASLR, name, sizeof(name)), 0);
	assert_string_equal(name, "jiffies_lock");
	/* A variable where a section starts is its name, not the bound's. */
	assert_int_equal(kmap_static_name(&ks, NULL, 0xffffffff82400000ULL + KASLR + 8, name, sizeof(name)), 0);
	assert_string_equal(name, "init_stack+0x8");
	/* Where the file's addresses were used unmoved: no name. */
	assert_int_equal(kmap_static_name(&ks, NULL, 0xffff888100000000ULL, name, sizeof(name)), -ENOENT);
	/* _end came with the map: the image ends there. */
	assert_int_equal(kmap_image_name(&ks, 0xffffffff8240b000ULL + KASLR, name, sizeof(name)), -ENOENT);
	ksyms_free(&map);

	/* kallsyms' own data symbols can be dropped, and the bounds stay. */
	ksyms_drop_data(&ks);
	assert_int_equal(ksyms_count_data(&ks), 0);
	assert_int_equal(kmap_static_name(&ks, NULL, 0xffffffff82408000ULL + KASLR, name, sizeof(name)), -ENOENT);
	ksyms_free(&ks);
}

static void test_system_map_other_build(void **state)
{
	static const char moved[] =	/* do_exit moved: another build */
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T start_kernel\n"
		"ffffffff81002000 t __schedule\n"
		"ffffffff81003800 T do_exit\n"
		"ffffffff82408000 D bit_wait_table\n";
	static const char few[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T start_kernel\n"
		"ffffffff82408000 D bit_wait_table\n";
	struct ksyms ks, map;
	uint64_t off = 0;

	(void)state;
	assert_int_equal(load(&ks, kallsyms, false), 0);
	assert_int_equal(load(&map, moved, true), 0);
	assert_int_equal(kmap_offset(&ks, &map, &off), -ESTALE);
	ksyms_free(&map);
	assert_int_equal(load(&map, few, true), 0);
	assert_int_equal(kmap_offset(&ks, &map, &off), -ESRCH);
	ksyms_free(&map);
	/* Debian's System.map: one line, no symbols. */
	assert_int_equal(load(&map, "ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n",
			      true), 0);
	assert_int_equal(kmap_offset(&ks, &map, &off), -ENODATA);
	ksyms_free(&map);
	assert_int_equal(load(&map, "not a map\n", true), -EINVAL);
	ksyms_free(&map);
	ksyms_free(&ks);
}

/* ELF symbols with their sizes: this test's own binary. */
const char kmap_test_object[200] = "an object with a size";

static void test_read_elf(void **state)
{
	struct ksyms file;
	const struct ksym *k;
	size_t i;

	(void)state;
	ksyms_init(&file);
	assert_int_equal(kmap_read_elf("/proc/self/exe", &file), 0);
	for (i = 0, k = NULL; i < file.count; i++)
		if (!strcmp(file.syms[i].name, "kmap_test_object"))
			k = &file.syms[i];
	assert_non_null(k);
	assert_int_equal(k->size, 200);
	assert_int_equal(k->type, 'r');
	ksyms_free(&file);
	ksyms_init(&file);
	assert_int_equal(kmap_read_elf("/nonexistent/vmlinux", &file), -ENOENT);
	ksyms_free(&file);
}

struct fake_btf {
	struct btf *btf;
	int wq, page;
};

/* spinlock_t; struct wait_queue_head { spinlock_t lock; int pad[5]; } (24 bytes); two variables. */
static struct fake_btf make_btf(void)
{
	struct fake_btf f = { .btf = btf__new_empty() };
	int i32, spin, spin_t, arr, table, zone, zones, pd, ptdesc, ulong;

	assert_non_null(f.btf);
	i32 = btf__add_int(f.btf, "int", 4, BTF_INT_SIGNED);
	ulong = btf__add_int(f.btf, "long unsigned int", 8, 0);
	spin = btf__add_struct(f.btf, "spinlock", 4);
	btf__add_field(f.btf, "val", i32, 0, 0);
	spin_t = btf__add_typedef(f.btf, "spinlock_t", spin);
	f.wq = btf__add_struct(f.btf, "wait_queue_head", 24);
	btf__add_field(f.btf, "lock", spin_t, 0, 0);
	arr = btf__add_array(f.btf, i32, i32, 5);
	btf__add_field(f.btf, "pad", arr, 32, 0);
	table = btf__add_array(f.btf, i32, f.wq, 256);
	btf__add_var(f.btf, "bit_wait_table", BTF_VAR_GLOBAL_ALLOCATED, table);
	/* struct zone { int x[4]; spinlock_t lock; } x2 in a pglist_data */
	arr = btf__add_array(f.btf, i32, i32, 4);	/* before the struct: fields follow it */
	zone = btf__add_struct(f.btf, "zone", 20);
	btf__add_field(f.btf, "x", arr, 0, 0);
	btf__add_field(f.btf, "lock", spin_t, 128, 0);
	zones = btf__add_array(f.btf, i32, zone, 2);
	pd = btf__add_struct(f.btf, "pglist_data", 40);
	btf__add_field(f.btf, "node_zones", zones, 0, 0);
	btf__add_var(f.btf, "contig_page_data", BTF_VAR_STATIC, pd);
	btf__add_var(f.btf, "jiffies_lock", BTF_VAR_GLOBAL_ALLOCATED, spin_t);
	/* struct ptdesc: 64 bytes, its ptl at 40 */
	ptdesc = btf__add_struct(f.btf, "ptdesc", 64);
	btf__add_field(f.btf, "__page_flags", ulong, 0, 0);
	btf__add_field(f.btf, "ptl", spin_t, 320, 0);
	f.page = ptdesc;
	return f;
}

static void test_arrays(void **state)
{
	struct fake_btf f = make_btf();
	struct ksyms ks, map;
	uint64_t off = 0, table = 0xffffffff82408000ULL + KASLR;
	char name[96];

	(void)state;
	assert_int_equal(load(&ks, kallsyms, false), 0);
	assert_int_equal(load(&map, system_map, true), 0);
	assert_int_equal(kmap_offset(&ks, &map, &off), 0);
	assert_int_equal(kmap_add_data(&ks, &map, off), 0);
	ksyms_free(&map);

	assert_int_equal(kmap_static_name(&ks, f.btf, table, name, sizeof(name)), 0);
	assert_string_equal(name, "bit_wait_table[0]");
	assert_int_equal(kmap_static_name(&ks, f.btf, table + 3 * 24, name, sizeof(name)), 0);
	assert_string_equal(name, "bit_wait_table[3]");
	/* Inside an element, where no lock starts: the element and the offset. */
	assert_int_equal(kmap_static_name(&ks, f.btf, table + 7 * 24 + 8, name, sizeof(name)), 0);
	assert_string_equal(name, "bit_wait_table[7]+0x8");
	/* A structure variable: its field. */
	assert_int_equal(kmap_static_name(&ks, f.btf, 0xffffffff82409800ULL + KASLR + 20 + 16, name, sizeof(name)), 0);
	assert_string_equal(name, "contig_page_data.node_zones[1].lock");
	/* A lock variable is its own name. */
	assert_int_equal(kmap_static_name(&ks, f.btf, 0xffffffff8240a000ULL + KASLR, name, sizeof(name)), 0);
	assert_string_equal(name, "jiffies_lock");
	/* Past the BTF variable's size (another file's static of that name): no index. */
	assert_int_equal(kmap_static_name(&ks, f.btf, 0xffffffff82409800ULL + KASLR + 44, name, sizeof(name)), 0);
	assert_string_equal(name, "contig_page_data+0x2c");
	ksyms_free(&ks);
	btf__free(f.btf);
}

static void test_fold(void **state)
{
	char out[64];

	(void)state;
	assert_true(kmap_fold_arrays("bit_wait_table[3]", out, sizeof(out)));
	assert_string_equal(out, "bit_wait_table[]");
	assert_true(kmap_fold_arrays("contig_page_data.node_zones[1].lock", out, sizeof(out)));
	assert_string_equal(out, "contig_page_data.node_zones[].lock");
	assert_true(kmap_fold_arrays("a[10].b[255]+0x8", out, sizeof(out)));
	assert_string_equal(out, "a[].b[]+0x8");
	assert_false(kmap_fold_arrays("rq.__lock", out, sizeof(out)));
	assert_string_equal(out, "rq.__lock");
	assert_false(kmap_fold_arrays("&{a,b}[x]", out, sizeof(out)));
	assert_string_equal(out, "&{a,b}[x]");
	assert_false(kmap_fold_arrays("[stack]@submit_bio_wait", out, sizeof(out)));
	assert_false(kmap_fold_arrays("vmlinux+0x1e08040", out, sizeof(out)));
	/* Short output: cut, still a string. */
	assert_true(kmap_fold_arrays("t[1][2][3]", out, 5));
	assert_string_equal(out, "t[]");
}

/* A kcore's headers: RAM, the vmalloc area, two vmemmap segments, modules. */
static void write_kcore(const char *path)
{
	Elf64_Phdr ph[5] = {
		{ .p_type = PT_LOAD, .p_vaddr = 0xffff9a8000100000ULL, .p_paddr = 0x100000, .p_memsz = 1ULL << 30 },
		{ .p_type = PT_LOAD, .p_vaddr = 0xffffb00000000000ULL, .p_paddr = ~0ULL, .p_memsz = 32ULL << 40 },
		{ .p_type = PT_LOAD, .p_vaddr = 0xffffd40000000000ULL, .p_paddr = ~0ULL, .p_memsz = 1ULL << 24 },
		{ .p_type = PT_LOAD, .p_vaddr = 0xffffd40001000000ULL, .p_paddr = ~0ULL, .p_memsz = 1ULL << 22 },
		{ .p_type = PT_LOAD, .p_vaddr = 0xffffffffa0000000ULL, .p_paddr = ~0ULL, .p_memsz = 1ULL << 30 },
	};
	Elf64_Ehdr eh = { .e_phoff = sizeof(eh), .e_phnum = 5, .e_phentsize = sizeof(Elf64_Phdr) };
	FILE *f = fopen(path, "w");

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	assert_non_null(f);
	assert_int_equal(fwrite(&eh, sizeof(eh), 1, f), 1);
	assert_int_equal(fwrite(ph, sizeof(ph), 1, f), 1);
	fclose(f);
}

static void test_pages(void **state)
{
	struct fake_btf f = make_btf();
	char path[] = "/tmp/test_kmap.XXXXXX", name[64];
	struct kpages kp;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_kcore(path);
	kpages_init(&kp, f.btf, path, 0xffffffff83a00000ULL);
	assert_int_equal(kp.nranges, 2);
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffd40000000000ULL + 5 * 64 + 40, name, sizeof(name)), 0);
	assert_string_equal(name, "ptdesc.ptl");
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffd40001000000ULL + 40, name, sizeof(name)), 0);
	/* No lock at that offset of a struct page. */
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffd40000000000ULL + 5 * 64 + 8, name, sizeof(name)), -ENOENT);
	/* vmalloc, the direct map, modules: not struct pages. */
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffb00000000000ULL + 40, name, sizeof(name)), -ENOENT);
	assert_int_equal(kpages_name(&kp, f.btf, 0xffff9a8000100000ULL + 40, name, sizeof(name)), -ENOENT);
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffffffa0000000ULL + 40, name, sizeof(name)), -ENOENT);
	unlink(path);

	/* No kcore: the fixed vmemmap only where the text is not relocated. */
	kpages_init(&kp, f.btf, path, 0xffffffff81000000ULL);
	assert_int_equal(kp.nranges, 1);
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffea0005373728ULL, name, sizeof(name)), 0);
	assert_string_equal(name, "ptdesc.ptl");
	kpages_init(&kp, f.btf, path, 0xffffffff83a00000ULL);
	assert_int_equal(kp.nranges, 0);
	assert_int_equal(kpages_name(&kp, f.btf, 0xffffea0005373728ULL, name, sizeof(name)), -ENOENT);
	assert_non_null(strstr(kp.status, "no page-table locks"));
	/* No BTF: nothing. */
	kpages_init(&kp, NULL, NULL, 0xffffffff81000000ULL);
	assert_int_equal(kp.nranges, 0);
	btf__free(f.btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image_range),
		cmocka_unit_test(test_system_map_kaslr),
		cmocka_unit_test(test_system_map_other_build),
		cmocka_unit_test(test_read_elf),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
