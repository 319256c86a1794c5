// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include "format/locktype.h"
#include "format/consts.h"

static const char *user_type_name(uint32_t kind)
{
	static const char *const names[ULK__COUNT] = {
		[ULK_MUTEX] = "u:mutex", [ULK_MUTEX_PI] = "u:mutex-pi",
		[ULK_RWLOCK_R] = "u:rwlock:R", [ULK_RWLOCK_W] = "u:rwlock:W",
		[ULK_SPIN] = "u:spinlock", [ULK_COND] = "u:cond", [ULK_FUTEX] = "u:futex",
		[ULK_SITE] = "u:site",
	};

	return kind < ULK__COUNT && names[kind] ? names[kind] : "u:unknown";
}

uint32_t hold_kind_flags(uint64_t kind)
{
	static const uint32_t flags[] = {
		[HOLD_SPIN] = LCB_F_SPIN, [HOLD_MUTEX] = LCB_F_MUTEX,
		[HOLD_RWSEM_READ] = LCB_F_READ, [HOLD_RWSEM_WRITE] = LCB_F_WRITE,
	};

	return kind < sizeof(flags) / sizeof(flags[0]) ? flags[kind] : 0;
}

/* The user bit and a kind: any other bit above the kind is no user lock. */
bool lock_type_is_user(uint32_t flags)
{
	return (flags & ~0xffU) == LOCK_F_USER;
}

bool lock_type_is_wait(uint32_t flags)
{
	uint32_t kind = flags & 0xff;

	return lock_type_is_user(flags) && (kind == ULK_COND || kind == ULK_FUTEX);
}

static const struct {
	uint32_t flags;
	const char *name;
} kernel_types[] = {
	{ LCB_F_SPIN, "spinlock" },
	{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" },
	{ LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
	{ LCB_F_READ, "rwsem:R" },
	{ LCB_F_WRITE, "rwsem:W" },
	{ LCB_F_RT, "rtmutex" },
	{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" },
	{ LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
	{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" },
	{ LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
	{ LCB_F_MUTEX, "mutex" },
	{ LCB_F_MUTEX | LCB_F_SPIN, "mutex:spin" },
	{ 0, "semaphore" },
};

#define NKERNEL_TYPES	(sizeof(kernel_types) / sizeof(kernel_types[0]))

const char *lock_type_name(uint32_t flags)
{
	size_t i;

	if (lock_type_is_user(flags))
		return user_type_name(flags & 0xff);
	for (i = 0; i < NKERNEL_TYPES; i++)
		if (kernel_types[i].flags == flags)
			return kernel_types[i].name;
	return "unknown";
}

bool lock_type_matches(const char *filter, uint32_t flags)
{
	const char *name = lock_type_name(flags);
	size_t n = strlen(filter);

	if (!strcmp(filter, name))
		return true;
	/* "u" and "u:rwlock" are families too: the user locks, both rwlock sides. */
	return (!strchr(filter, ':') || !strncmp(filter, "u:", 2)) && !strncmp(name, filter, n) &&
	       name[n] == ':';
}

const char *lock_class_name(uint32_t lock_class)
{
	switch (lock_class) {
	case LOCK_CLASS_FILES_FILE_LOCK:
		return "files_struct.file_lock";
	case LOCK_CLASS_MM_MMAP_LOCK:
		return "mm_struct.mmap_lock";
	case LOCK_CLASS_SIGHAND_SIGLOCK:
		return "sighand_struct.siglock";
	case LOCK_CLASS_RQ_LOCK:
		return "rq.__lock";
	default:
		return NULL;
	}
}

bool lock_type_known(const char *filter)
{
	uint32_t kind;
	size_t i;

	for (i = 0; i < NKERNEL_TYPES; i++)
		if (lock_type_matches(filter, kernel_types[i].flags))
			return true;
	for (kind = ULK_MUTEX; kind < ULK__COUNT; kind++)	/* 0 is no kind */
		if (lock_type_matches(filter, LOCK_F_USER | kind))
			return true;
	return false;
}
