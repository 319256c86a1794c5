// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one rule that names a lock (see lock_naming.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "format/lock_naming.h"
#include "format/locktype.h"
#include "sym/kmap.h"

static bool found_something(const struct lock_facts *f)
{
	return f->found && f->found[0];
}

enum lock_name_step lock_name_kernel(const struct ksyms *ks, const struct btf *btf, const struct lock_facts *f,
				     char *buf, size_t len)
{
	const char *cls = lock_class_name(f->lock_class);

	if (cls) {
		snprintf(buf, len, "%s", cls);
		return LOCK_NAMED_CLASS;
	}
	if (ks && !kmap_static_name(ks, btf, f->addr, buf, len))
		return LOCK_NAMED_STATIC;
	if (found_something(f) && !strcmp(f->found, LOCK_NAME_STACK)) {
		lock_name_by_caller(LOCK_NAME_STACK, f->caller, buf, len);
		return LOCK_NAMED_STACK;
	}
	if (found_something(f)) {
		snprintf(buf, len, "%s", f->found);
		return LOCK_NAMED_FOUND;
	}
	if (ks && !kmap_image_name(ks, f->addr, buf, len))
		return LOCK_NAMED_IMAGE;
	snprintf(buf, len, "0x%" PRIx64, f->addr);
	return LOCK_NAMED_ADDRESS;
}

bool lock_name_per_address(enum lock_name_step step)
{
	return step != LOCK_NAMED_CLASS && step != LOCK_NAMED_STACK;
}

void lock_name_by_caller(const char *what, const char *caller, char *buf, size_t len)
{
	if (!caller || !caller[0] || caller[0] == '[')
		snprintf(buf, len, "%s", what);
	else
		snprintf(buf, len, "%s@%.*s", what, (int)strcspn(caller, "+"), caller);
}

void lock_name_anon(uint64_t addr, const char *caller, char *buf, size_t len)
{
	char what[24];

	snprintf(what, sizeof(what), "0x%" PRIx64, addr);
	lock_name_by_caller(what, caller, buf, len);
}

void lock_name_user_heap(uint64_t addr, const char *caller, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64 "@%s", addr, caller ? caller : "?");
}

void lock_name_per_thread(const char *site, char *buf, size_t len)
{
	snprintf(buf, len, LOCK_NAME_PER_THREAD "@%s", site ? site : "?");
}

size_t lock_name_anon_len(const char *name)
{
	size_t hex;

	if (strncmp(name, "0x", 2))
		return 0;
	hex = strspn(name + 2, "0123456789abcdef");
	return hex && (!name[2 + hex] || name[2 + hex] == '@') ? 2 + hex : 0;
}
