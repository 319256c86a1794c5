// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The busiest caller of each anonymous lock (see anon.h). */
#include <errno.h>
#include <string.h>
#include "format/lock_naming.h"
#include "view/anon.h"

struct func_key {
	uint64_t addr;
	uint64_t func;		/* hash of the function's name */
};

struct func_waits {
	uint64_t waits;
	uint32_t caller;	/* one caller string id in that function */
};

static size_t func_len(const char *caller)
{
	return strcspn(caller, "+");
}

/* Waits per lock and function; "[stack lost]" and the like are no function. */
static int count_waits(const struct profile *p, struct htab *per_func)
{
	const struct lock_row_key *k;
	const struct lock_row_val *v;
	struct func_waits *fw;
	struct func_key key;
	size_t it = 0;
	int inserted;

	while ((v = htab_next(&p->rows, &it, (const void **)&k))) {
		const char *caller = profile__str(p, k->caller);

		if (!lock_name_is_anon(profile__str(p, k->name)) || !caller[0] || caller[0] == '[')
			continue;
		memset(&key, 0, sizeof(key));
		key.addr = k->lock_addr;
		key.func = hash_bytes(caller, func_len(caller));
		fw = htab_get(per_func, &key, &inserted);
		if (!fw)
			return -ENOMEM;
		fw->waits += v->count;
		if (inserted)
			fw->caller = k->caller;
	}
	return 0;
}

static int func_cmp(const char *a, const char *b)
{
	size_t la = func_len(a), lb = func_len(b);
	int c = strncmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

int anon_busiest_callers(const struct profile *p, struct htab *best)
{
	struct htab per_func, top;	/* top: addr -> the winning struct func_waits */
	const struct func_key *key;
	const uint64_t *addr;
	struct func_waits *fw, *b;
	size_t it = 0;
	int inserted, err;

	htab_init(&per_func, sizeof(struct func_key), sizeof(struct func_waits));
	htab_init(&top, sizeof(uint64_t), sizeof(struct func_waits));
	err = count_waits(p, &per_func);
	while (!err && (fw = htab_next(&per_func, &it, (const void **)&key))) {
		b = htab_get(&top, &key->addr, &inserted);
		if (!b)
			err = -ENOMEM;
		else if (inserted || fw->waits > b->waits ||
			 (fw->waits == b->waits &&
			  func_cmp(profile__str(p, fw->caller), profile__str(p, b->caller)) < 0))
			*b = *fw;
	}
	for (it = 0; !err && (fw = htab_next(&top, &it, (const void **)&addr));) {
		uint32_t *id = htab_get(best, addr, NULL);

		if (!id)
			err = -ENOMEM;
		else
			*id = fw->caller;
	}
	htab_free(&per_func);
	htab_free(&top);
	return err;
}
