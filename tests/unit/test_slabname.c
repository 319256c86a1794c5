// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lock names from BTF and slab geometry (lib/sym/btfname.c,
 * lib/sym/slabname.c), on a small BTF built here with the kernel's shapes:
 * spinlock_t around raw_spinlock around qspinlock, a lockref's union, an
 * anonymous struct typedef'd as rwlock_t, an inode embedded in a
 * filesystem's inode, arrays of locks, a mutex with its own wait_lock.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "sym/btfname.h"
#include "sym/slabname.h"

#define PAGE	4096ULL

struct ids {
	int i32, u64, spinlock_t, rwlock_t, lockref, mutex, rwsem, inode, fs_inode, dentry;
	int files, other_files, sock, lockless, flc, ftrace_field, flex;
};

static struct ids ids;

/* struct name { one member } of the member's type and size. */
static int add_struct1(struct btf *b, const char *name, const char *field, int type, int size)
{
	int id = btf__add_struct(b, name, size);

	btf__add_field(b, field, type, 0, 0);
	return id;
}

static void add_locks(struct btf *b)
{
	int qspin, arch, raw, raw_t, spin, anon_u, arch_rw, rw;

	qspin = add_struct1(b, "qspinlock", "val", ids.i32, 4);
	arch = btf__add_typedef(b, "arch_spinlock_t", qspin);
	raw = add_struct1(b, "raw_spinlock", "raw_lock", arch, 4);
	raw_t = btf__add_typedef(b, "raw_spinlock_t", raw);
	anon_u = add_struct1(b, NULL, "rlock", raw, 4);
	spin = add_struct1(b, "spinlock", NULL, anon_u, 4);
	ids.spinlock_t = btf__add_typedef(b, "spinlock_t", spin);
	arch_rw = add_struct1(b, "qrwlock", "cnts", ids.i32, 8);
	rw = add_struct1(b, NULL, "raw_lock", arch_rw, 8);	/* typedef struct { ... } rwlock_t */
	ids.rwlock_t = btf__add_typedef(b, "rwlock_t", rw);
	ids.mutex = btf__add_struct(b, "mutex", 16);
	btf__add_field(b, "owner", ids.u64, 0, 0);
	btf__add_field(b, "wait_lock", raw_t, 64, 0);
	ids.rwsem = add_struct1(b, "rw_semaphore", "count", ids.u64, 40);
}

/* struct lockref { union { u64 lock_count; struct { spinlock_t lock; int count; }; }; } */
static void add_lockref(struct btf *b)
{
	int inner = btf__add_struct(b, NULL, 8);
	int u;

	btf__add_field(b, "lock", ids.spinlock_t, 0, 0);
	btf__add_field(b, "count", ids.i32, 32, 0);
	u = btf__add_union(b, NULL, 8);
	btf__add_field(b, "lock_count", ids.u64, 0, 0);
	btf__add_field(b, NULL, inner, 0, 0);
	ids.lockref = add_struct1(b, "lockref", NULL, u, 8);
}

static void add_objects(struct btf *b)
{
	int arr = btf__add_array(b, ids.i32, ids.spinlock_t, 4);
	int cnst = btf__add_const(b, ids.spinlock_t);

	ids.dentry = btf__add_struct(b, "dentry", 32);
	btf__add_field(b, "d_flags", ids.i32, 0, 0);
	btf__add_field(b, "d_lockref", ids.lockref, 64, 0);
	btf__add_field(b, "d_seq", ids.rwlock_t, 128, 0);
	btf__add_field(b, "d_const", cnst, 192, 0);
	ids.inode = btf__add_struct(b, "inode", 72);
	btf__add_field(b, "i_ino", ids.u64, 0, 0);
	btf__add_field(b, "i_lock", ids.spinlock_t, 64, 0);
	btf__add_field(b, "i_rwsem", ids.rwsem, 128, 0);
	btf__add_field(b, "i_mutex", ids.mutex, 448, 0);
	ids.fs_inode = btf__add_struct(b, "myfs_inode_info", 96);
	btf__add_field(b, "flags", ids.u64, 0, 0);
	btf__add_field(b, "vfs_inode", ids.inode, 64, 0);
	btf__add_field(b, "locks", arr, 640, 0);
	add_struct1(b, "myfs_inode", "disk", ids.u64, 8);	/* the on-disk inode: the wrong size */
	ids.files = btf__add_struct(b, "files_struct", 64);
	btf__add_field(b, "count", ids.i32, 0, 0);
	btf__add_field(b, "file_lock", ids.spinlock_t, 128, 0);
	/* A struct merged into files_cache in some kernel: a lock at 0x10 too, or not. */
	ids.other_files = add_struct1(b, "other_thing", "count", ids.u64, 64);
	ids.sock = btf__add_struct(b, "my_sock", 60);
	btf__add_field(b, "flags", ids.u64, 0, 0);
	btf__add_field(b, "sk_lock", ids.spinlock_t, 256, 0);
}

/*
 * Linux 6.18's 56-byte caches, which SLUB merges into one named
 * ftrace_event_field: file_lock_ctx's struct file_lock_context starts with
 * its lock, ftrace_event_field's struct has none.
 */
static void add_merged(struct btf *b)
{
	int flex = btf__add_array(b, ids.i32, ids.u64, 0);

	ids.flc = btf__add_struct(b, "file_lock_context", 56);
	btf__add_field(b, "flc_lock", ids.spinlock_t, 0, 0);
	btf__add_field(b, "flc_flock", ids.u64, 64, 0);
	btf__add_field(b, "flc_posix", ids.u64, 192, 0);
	btf__add_field(b, "flc_lease", ids.u64, 320, 0);
	ids.ftrace_field = btf__add_struct(b, "ftrace_event_field", 56);
	btf__add_field(b, "link", ids.u64, 0, 0);
	btf__add_field(b, "name", ids.u64, 128, 0);
	/* struct flex_thing { u64 n; u64 items[]; }: its objects are longer than it. */
	ids.flex = btf__add_struct(b, "flex_thing", 8);
	btf__add_field(b, "n", ids.u64, 0, 0);
	btf__add_field(b, "items", flex, 64, 0);
}

static int setup_btf(void **state)
{
	struct btf *b = btf__new_empty();

	if (!b)
		return -1;
	ids.i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	ids.u64 = btf__add_int(b, "long unsigned int", 8, 0);
	add_locks(b);
	add_lockref(b);
	add_objects(b);
	add_merged(b);
	*state = b;
	return 0;
}

static int teardown_btf(void **state)
{
	btf__free(*state);
	return 0;
}

static void expect_member(const struct btf *b, int id, uint64_t off, const char *want)
{
	char buf[128];
	int err = btfname_member(b, id, off, buf, sizeof(buf));

	if (!want) {
		if (err != -ENOENT)
			fail_msg("offset 0x%llx: want no lock, got %d \"%s\"", (unsigned long long)off, err, buf);
		return;
	}
	if (err)
		fail_msg("offset 0x%llx: want %s, got %d", (unsigned long long)off, want, err);
	assert_string_equal(buf, want);
}

static void test_is_lock(void **state)
{
	const struct btf *b = *state;

	assert_true(btfname_is_lock(b, ids.spinlock_t));
	assert_true(btfname_is_lock(b, ids.rwlock_t));	/* by its typedef: the struct is anonymous */
	assert_true(btfname_is_lock(b, ids.mutex));
	assert_true(btfname_is_lock(b, ids.rwsem));
	assert_true(btfname_is_lock(b, btf__find_by_name_kind(b, "raw_spinlock", BTF_KIND_STRUCT)));
	assert_false(btfname_is_lock(b, ids.lockref));
	assert_false(btfname_is_lock(b, ids.inode));
	assert_false(btfname_is_lock(b, ids.i32));
}

static void test_member(void **state)
{
	const struct btf *b = *state;

	/* Through the lockref's anonymous union and struct, past lock_count. */
	expect_member(b, ids.dentry, 8, "d_lockref.lock");
	expect_member(b, ids.dentry, 12, NULL);		/* the count, not a lock */
	expect_member(b, ids.dentry, 0, NULL);
	expect_member(b, ids.dentry, 16, "d_seq");	/* rwlock_t: the outermost lock type */
	expect_member(b, ids.dentry, 24, "d_const");	/* through a const */
	expect_member(b, ids.dentry, 9, NULL);		/* inside a lock, not at its start */
	expect_member(b, ids.fs_inode, 16, "vfs_inode.i_lock");
	expect_member(b, ids.fs_inode, 24, "vfs_inode.i_rwsem");
	expect_member(b, ids.fs_inode, 64, "vfs_inode.i_mutex");
	expect_member(b, ids.fs_inode, 72, "vfs_inode.i_mutex.wait_lock");	/* a lock's own lock */
	expect_member(b, ids.fs_inode, 80, "locks[0]");
	expect_member(b, ids.fs_inode, 88, "locks[2]");
	expect_member(b, ids.fs_inode, 96, NULL);	/* past the struct */
	expect_member(b, ids.inode, 8, "i_lock");
}

static void test_member_short_buffer(void **state)
{
	const struct btf *b = *state;
	char buf[8];

	assert_int_equal(btfname_member(b, ids.fs_inode, 16, buf, sizeof(buf)), -ENAMETOOLONG);
	assert_int_equal(strlen(buf) < sizeof(buf), 1);
	assert_int_equal(btfname_member(b, ids.fs_inode, 16, buf, 0), -ENAMETOOLONG);
	assert_int_equal(btfname_member(b, ids.i32, 0, buf, sizeof(buf)), -ENOENT);
}

static void test_cache_struct(void **state)
{
	const struct btf *b = *state;

	assert_int_equal(slabname_struct(b, "files_cache", 64, 0), ids.files);
	assert_int_equal(slabname_struct(b, "files_cache", 72, 0), -ENOENT);	/* not its size */
	assert_int_equal(slabname_struct(b, "dentry", 32, 0), ids.dentry);
	assert_int_equal(slabname_struct(b, "inode_cache", 72, 0), ids.inode);
	/* myfs_inode is the disk inode, of another size: myfs_inode_info is the one. */
	assert_int_equal(slabname_struct(b, "myfs_inode_cache", 96, 0), ids.fs_inode);
	assert_int_equal(slabname_struct(b, "kmalloc-64", 64, 0), -ENOENT);
	assert_int_equal(slabname_struct(b, "kmalloc-cg-64", 64, 0), -ENOENT);
	assert_int_equal(slabname_struct(b, "no_such_cache", 64, 0), -ENOENT);
}

static struct slab_cache cache(const char *name, uint32_t size, uint32_t object_size, uint32_t order)
{
	struct slab_cache c = { .size = size, .object_size = object_size, .order = order,
				.min_order = order, .refcount = 1 };

	snprintf(c.name, sizeof(c.name), "%s", name);
	return c;
}

static void expect_name(const struct btf *b, struct slab_cache *c, uint64_t addr, const char *want)
{
	char buf[128];

	slabname_lock(b, c, addr, PAGE, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_slab_offset(void **state)
{
	(void)state;
	/* Object 3 of a 2-page slab of 192-byte objects, 8 bytes in. */
	assert_true(slab_offset(0xffff888100002000ULL + 3 * 192 + 8, PAGE, 1, 192, 0) == 8);
	/* The slab starts at the 2-page boundary, not at the page. */
	assert_true(slab_offset(0xffff888100003000ULL + 8, PAGE, 1, 192, 0) == (4096 + 8) % 192);
	/* A left red zone shifts every object. */
	assert_true(slab_offset(0xffff888100002000ULL + 64 + 256 + 24, PAGE, 0, 256, 64) == 24);
	assert_true(slab_offset(0xffff888100002000ULL + 8, PAGE, 0, 256, 64) == UINT64_MAX);
	assert_true(slab_offset(0xffff888100002000ULL, PAGE, 0, 0, 0) == UINT64_MAX);
}

static void test_slab_names(void **state)
{
	const struct btf *b = *state;
	const uint64_t slab = 0xffff888100004000ULL;
	struct slab_cache c = cache("dentry", 32, 32, 0);

	expect_name(b, &c, slab + 5 * 32 + 8, "dentry.d_lockref.lock");
	expect_name(b, &c, slab + 5 * 32 + 12, "&dentry+0xc");	/* no lock there */
	c = cache("myfs_inode_cache", 104, 96, 2);
	expect_name(b, &c, slab + 40 * 104 + 16, "myfs_inode_info.vfs_inode.i_lock");
	c.red_left_pad = 8;
	expect_name(b, &c, slab + 8 + 3 * 104 + 24, "myfs_inode_info.vfs_inode.i_rwsem");
	c = cache("kmalloc-64", 64, 64, 0);
	expect_name(b, &c, slab + 7 * 64 + 0x10, "&kmalloc-64+0x10");
	c = cache("kmalloc-rnd-03-64", 64, 64, 0);
	expect_name(b, &c, slab + 7 * 64 + 0x10, "&kmalloc-64+0x10");
	c = cache("files_cache", 64, 64, 0);
	expect_name(NULL, &c, slab + 64 + 16, "&files_cache+0x10");	/* no BTF: no field */
}

/* Merged caches: a field only where exactly one of their structs has a lock there. */
static void test_slab_merged(void **state)
{
	const struct btf *b = *state;
	char *both[] = { (char *)"files_cache", (char *)"other_thing" };
	char *with_sock[] = { (char *)"files_cache", (char *)"my_sock" };
	char *unknown[] = { (char *)"files_cache", (char *)"Acpi-Whatever" };
	char *lockless[] = { (char *)"files_cache", (char *)"sgpool-8" };
	struct slab_cache c = cache("files_cache", 64, 64, 0);
	const uint64_t obj = 0xffff888100004000ULL + 64;

	c.refcount = 2;
	expect_name(b, &c, obj + 16, "&{files_cache,…}+0x10");	/* merged, with what not known */
	assert_int_equal(c.types_known, -1);
	/* Each alias list below is another cache: its structs looked up anew. */
	c.aliases = both;
	c.naliases = 2;
	c.types_known = 0;
	expect_name(b, &c, obj + 16, "files_struct.file_lock");
	/* Found once, kept: the cache's two structs. */
	assert_int_equal(c.types_known, 1);
	assert_int_equal(c.ntypes, 2);
	c.aliases = with_sock;
	c.types_known = 0;
	expect_name(b, &c, obj + 32, "my_sock.sk_lock");
	c.aliases = unknown;
	c.types_known = 0;
	expect_name(b, &c, obj + 16, "&{Acpi-Whatever,files_cache}+0x10");
	c.aliases = lockless;
	c.types_known = 0;
	expect_name(b, &c, obj + 16, "files_struct.file_lock");
}

static struct slab_cache merged(const char *name, uint32_t size, char **aliases, size_t n)
{
	struct slab_cache c = cache(name, size, size, 0);

	c.refcount = n;
	c.aliases = aliases;
	c.naliases = n;
	return c;
}

static void expect_kind(const struct btf *b, struct slab_cache *c, uint64_t addr, const char *want,
			enum slab_name_kind kind)
{
	char buf[128];

	assert_int_equal(slabname_lock(b, c, addr, PAGE, buf, sizeof(buf)), kind);
	assert_string_equal(buf, want);
}

/*
 * A merged cache named after another of its caches: the lock is the one
 * struct's that can hold it, or the caches that may, never the cache's
 * own name as if it were the type.
 */
static void test_slab_merged_sets(void **state)
{
	const struct btf *b = *state;
	char *flock[] = { (char *)"ftrace_event_field", (char *)"file_lock_ctx" };
	char *flock_unknown[] = { (char *)"ftrace_event_field", (char *)"file_lock_ctx", (char *)"Unknown-Thing" };
	char *two_locks[] = { (char *)"inode_cache", (char *)"dentry" };
	char *flexible[] = { (char *)"files_cache", (char *)"flex_thing" };
	char *arrays[] = { (char *)"sgpool-8", (char *)"ftrace_event_field" };
	const uint64_t obj = 0xffff888100004000ULL + 3 * 56;
	struct slab_cache c = merged("ftrace_event_field", 56, flock, 2);

	expect_kind(b, &c, obj, "file_lock_context.flc_lock", SLAB_NAME_FIELD);
	/* No struct has a lock at 0x8: every cache that is not of plain arrays. */
	expect_kind(b, &c, obj + 8, "&{file_lock_ctx,ftrace_event_field}+0x8", SLAB_NAME_SET);
	/* A cache whose struct is not known may hold a lock anywhere: no type, sorted. */
	c = merged("ftrace_event_field", 56, flock_unknown, 3);
	expect_kind(b, &c, obj, "&{Unknown-Thing,file_lock_ctx}+0x0", SLAB_NAME_SET);
	expect_kind(b, &c, obj + 8, "&{Unknown-Thing}+0x8", SLAB_NAME_SET);
	/* Two structs with a lock at 0x8: either. */
	c = merged("inode_cache", 72, two_locks, 2);
	expect_kind(b, &c, 0xffff888100004000ULL + 72 + 8, "&{dentry,inode_cache}+0x8", SLAB_NAME_SET);
	/* Past a struct that ends in a flexible array: its items may be anything. */
	c = merged("files_cache", 64, flexible, 2);
	expect_kind(b, &c, 0xffff888100004000ULL + 64 + 16, "&{files_cache,flex_thing}+0x10", SLAB_NAME_SET);
	/* Plain arrays hold no lock: not in the set. */
	c = merged("ftrace_event_field", 56, arrays, 2);
	expect_kind(b, &c, obj + 8, "&{ftrace_event_field}+0x8", SLAB_NAME_SET);
	/* A cache of its own keeps its plain name. */
	c = cache("ftrace_event_field", 56, 56, 0);
	expect_kind(b, &c, obj + 8, "&ftrace_event_field+0x8", SLAB_NAME_CACHE);
	/* No BTF: the set of them all. */
	c = merged("ftrace_event_field", 56, flock_unknown, 3);
	expect_kind(NULL, &c, obj, "&{Unknown-Thing,file_lock_ctx,ftrace_event_field}+0x0", SLAB_NAME_SET);
}

/* A set longer than SLAB_SET_LEN: sorted names while they fit, then ",…". */
static void test_slab_set_length(void **state)
{
	const struct btf *b = *state;
	char names[12][24], *aliases[12], buf[128];
	struct slab_cache c;
	size_t i;

	for (i = 0; i < 12; i++) {
		snprintf(names[i], sizeof(names[i]), "unknown_cache_%02zu", 11 - i);
		aliases[i] = names[i];
	}
	c = merged("unknown_cache_11", 64, aliases, 12);
	/* 4 names of 16 bytes and 3 commas are 67 bytes; a fifth and ",…" are 88. */
	expect_kind(b, &c, 0xffff888100004000ULL + 8,
		    "&{unknown_cache_00,unknown_cache_01,unknown_cache_02,unknown_cache_03,…}+0x8",
		    SLAB_NAME_SET);
	/* Never more than SLAB_SET_LEN bytes of names, whatever their lengths. */
	for (i = 0; i < 12; i++)
		snprintf(names[i], sizeof(names[i]), "%.*s", (int)(1 + i * 2), "abcdefghijklmnopqrstuvw");
	c = merged("a", 64, aliases, 12);
	slabname_lock(b, &c, 0xffff888100004000ULL + 8, PAGE, buf, sizeof(buf));
	assert_true(strlen(buf) - strlen("&{}+0x8") <= SLAB_SET_LEN);
	assert_string_equal(buf + strlen(buf) - strlen(",…}+0x8"), ",…}+0x8");
	/* The first name alone too long: the set is "…". */
	aliases[0] = (char *)"a_cache_name_of_ninety_bytes_which_is_longer_than_any_kernel_would_give_to_a_cache_xxxx";
	c = merged("a", 64, aliases, 1);
	c.refcount = 2;
	expect_kind(b, &c, 0xffff888100004000ULL + 8, "&{…}+0x8", SLAB_NAME_SET);
}

static void make_link(const char *dir, const char *name, const char *target);

/* The aliases as lockname.c reads them, from a directory of SLUB's links. */
static void test_slab_merged_sysfs(void **state)
{
	const struct btf *b = *state;
	static const char *const links[] = { "ftrace_event_field", "file_lock_ctx", "Acpi-Mystery" };
	char dir[] = "/tmp/lockstat-slab-XXXXXX", path[PATH_MAX];
	struct slab_cache c = cache("ftrace_event_field", 56, 56, 0);
	size_t i;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/:0000056", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	for (i = 0; i < 2; i++)
		make_link(dir, links[i], ":0000056");
	c.refcount = 2;
	assert_int_equal(slabname_aliases(dir, c.name, &c.aliases, &c.naliases), 0);
	expect_kind(b, &c, 0xffff888100004000ULL + 56, "file_lock_context.flc_lock", SLAB_NAME_FIELD);
	slabname_free_aliases(c.aliases, c.naliases);
	/* A third cache, its struct not known: the set. */
	make_link(dir, links[2], ":0000056");
	c = cache("ftrace_event_field", 56, 56, 0);
	c.refcount = 3;
	assert_int_equal(slabname_aliases(dir, c.name, &c.aliases, &c.naliases), 0);
	expect_kind(b, &c, 0xffff888100004000ULL + 56, "&{Acpi-Mystery,file_lock_ctx}+0x0", SLAB_NAME_SET);
	slabname_free_aliases(c.aliases, c.naliases);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, links[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/:0000056", dir);
	rmdir(path);
	rmdir(dir);
}

/* A slab allocated at the minimum order under memory pressure. */
static void test_slab_min_order(void **state)
{
	const struct btf *b = *state;
	struct slab_cache c = cache("dentry", 96, 32, 1);

	/* An order-0 slab in the second page of an order-1 block: 4096 % 96 = 64. */
	c.min_order = 0;
	expect_name(b, &c, 0xffff888100005000ULL + 2 * 96 + 8, "dentry.d_lockref.lock");
	c.min_order = 1;
	expect_name(b, &c, 0xffff888100005000ULL + 2 * 96 + 8, "&dentry+0x48");
}

static void make_link(const char *dir, const char *name, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(symlink(target, path), 0);
}

static void test_aliases(void **state)
{
	char dir[] = "/tmp/lockstat-slab-XXXXXX", path[PATH_MAX];
	char **names;
	size_t n, i;
	int seen = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/:0000064", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/own_cache", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	make_link(dir, "first", ":0000064");
	make_link(dir, "second", ":0000064");
	make_link(dir, "elsewhere", ":0000128");
	assert_int_equal(slabname_aliases(dir, "second", &names, &n), 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++)
		seen |= (strcmp(names[i], "first") ? 0 : 1) | (strcmp(names[i], "second") ? 0 : 2);
	assert_int_equal(seen, 3);
	slabname_free_aliases(names, n);
	assert_int_equal(slabname_aliases(dir, "own_cache", &names, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(slabname_aliases(dir, "missing", &names, &n), -ENOENT);
	assert_int_equal(n, 0);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, (const char *[]){ "first", "second", "elsewhere" }[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/:0000064", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/own_cache", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_is_lock, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_member, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_member_short_buffer, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_cache_struct, setup_btf, teardown_btf),
		cmocka_unit_test(test_slab_offset),
		cmocka_unit_test_setup_teardown(test_slab_names, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_slab_merged, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_slab_merged_sets, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_slab_set_length, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_slab_merged_sysfs, setup_btf, teardown_btf),
		cmocka_unit_test_setup_teardown(test_slab_min_order, setup_btf, teardown_btf),
		cmocka_unit_test(test_aliases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
