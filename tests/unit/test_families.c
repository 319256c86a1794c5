// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The family table (lib/format/families.h): the sets and help record
 * derives from it, every table's schema sound, and readers finding a
 * table's columns by the table's enums in a file whose table has them in
 * another order, or lacks some.
 */
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
#include "fixtures.h"
#include "format/families.h"
#include "format/locktype.h"
#include "format/profile.h"

/*
 * What the table says of today's families. A family added later changes
 * none of this: these are the sets and names lockstat has promised.
 */
static void test_sets(void **state)
{
	unsigned int mask, optin = FAMILY_FD | FAMILY_PAGECACHE | FAMILY_HOLD | FAMILY_ULOCKS | FAMILY_UPROBES;
	const char *bad;
	int i;

	(void)state;
	assert_int_equal(FAMILY_DEFAULT, FAMILY_LOCKS | FAMILY_SAMPLE | FAMILY_MMAP_LOCK);
	/* Every family not in the default is opt-in: ulocks and uprobes too. */
	assert_int_equal(FAMILY_OPTIN & optin, optin);
	assert_int_equal(FAMILY_OPTIN & FAMILY_DEFAULT, 0);
	assert_int_equal(FAMILY_OPTIN | FAMILY_DEFAULT, (1U << FAMILY_COUNT) - 1);
	assert_int_equal(family_parse("ulocks,uprobes", &mask, &bad), 0);
	assert_int_equal(mask, FAMILY_ULOCKS | FAMILY_UPROBES);
	assert_int_equal(family_parse("locks,nope", &mask, &bad), -EINVAL);
	assert_string_equal(bad, "nope");
	for (i = 0; i < FAMILY_COUNT; i++) {
		assert_int_equal(family_parse(family_name(1U << i), &mask, &bad), 0);
		assert_int_equal(mask, 1U << i);
		assert_non_null(strstr(family_names_list(), family_name(1U << i)));
		assert_true(strlen(family_what(1U << i)) > 0);
	}
	assert_string_equal(family_default_names(), "locks,sample");
	assert_string_equal(family_legacy_name("locks"), "contention");
	assert_string_equal(family_legacy_name("fd"), "fd");
}

/*
 * record -h's -e lines: the words of one sentence from the table, the
 * first line after the option's column, the others indented to it, none
 * longer than 81 columns, each as full as the next word allows.
 */
static void test_events_help(void **state)
{
	static const char first[] = "probe families: locks, sample, mmap_lock, fd, pagecache,\n"
				    "                         hold, ulocks, uprobes";
	const char *help = family_events_help(25, 81), *line, *nl;
	char want[1024], got[1024] = "";
	size_t n = 0;
	int col;

	(void)state;
	snprintf(want, sizeof(want), "probe families: %s (default locks,sample; mmap_lock comes with locks); "
		 "-NAME takes one out (alone: out of the default)", family_names_list());
	assert_true(!strncmp(help, first, sizeof(first) - 1));
	for (line = help, col = 25; *line; line = nl + 1, col = 0) {
		size_t len;

		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line);
		len = nl - line;
		if (col == 0) {	/* a continuation: indented, then words */
			assert_true(len > 25 && !strncmp(line, "                         ", 25) && line[25] != ' ');
			line += 25;
			len -= 25;
			col = 25;
		}
		assert_true(col + len <= 81);
		if (*nl)	/* the next word did not fit */
			assert_true(col + len + 1 + strcspn(nl + 1 + 25, " ") > 81);
		n += snprintf(got + n, sizeof(got) - n, "%s%.*s", n ? " " : "", (int)len, line);
		if (!*nl)
			break;
	}
	assert_string_equal(got, want);
}

/* name as a word of list: between its start or a space, and a comma, a space or its end. */
static bool has_word(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *at;

	for (at = strstr(list, name); at; at = strstr(at + 1, name))
		if ((at == list || at[-1] == ' ') && (!at[n] || at[n] == ',' || at[n] == ' '))
			return true;
	return false;
}

static void test_hints(void **state)
{
	char buf[128];
	int i;

	(void)state;
	family_names_or(FAM_TABLES, buf, sizeof(buf));
	assert_true(!strncmp(buf, "mmap_lock, fd, pagecache, hold", 30));
	assert_non_null(strstr(buf, " or "));
	for (i = 0; i < FAMILY_COUNT; i++)
		assert_true(!(family_flags(1U << i) & FAM_TABLES) == !has_word(buf, family_name(1U << i)));
	assert_string_equal(family_names_or(FAM_DEFAULT | FAM_WITH_LOCKS, buf, sizeof(buf)), "mmap_lock");
}

static bool has_col(const struct tschema *s, const char *name, uint8_t kind)
{
	uint32_t i;

	for (i = 0; i < s->ncols; i++)
		if (!strcmp(s->cols[i].name, name))
			return s->cols[i].kind == kind;
	return false;
}

/* Names unique, kinds valid, a MAX or MIN's total and histogram there. */
static void test_schemas(void **state)
{
	int id, other;
	uint32_t i, j;

	(void)state;
	for (id = 0; id < TBL__COUNT; id++) {
		const struct tschema *s = ls_schema(id);

		assert_int_equal(ls_table_of(s->name), id);
		assert_true(s->ncols > 0);
		for (other = 0; other < id; other++)
			assert_string_not_equal(ls_schema(other)->name, s->name);
		for (i = 0; i < s->ncols; i++) {
			const struct tcol *c = &s->cols[i];

			assert_true(tcol_kind_valid(c->kind));
			for (j = 0; j < i; j++)
				assert_string_not_equal(s->cols[j].name, c->name);
			if (c->total)
				assert_true(has_col(s, c->total, TCOL_SUM));
			if (c->hist)
				assert_true(has_col(s, c->hist, TCOL_SUM) && c->hist_slots == LS_HIST_SLOTS);
		}
	}
	assert_int_equal(ls_table_of("no.such.table"), -1);
	assert_true(ls_table_is_lost(ls_schema(TBL_FD_LOST)));
	assert_false(ls_table_is_lost(ls_schema(TBL_FD_FGET)));
	assert_string_equal(ls_col_name(TBL_HOLD, HOLD__HOLD_NS), "hold_ns");
	assert_string_equal(ls_col_name(TBL_ULOCKS, ULOCKS__HIST_0 + 39), "hist_39");
}

/* The hold table's kinds are the contention flags of the same lock types. */
static void test_hold_kinds(void **state)
{
	(void)state;
	assert_int_equal(hold_kind_flags(HOLD_SPIN), LCB_F_SPIN);
	assert_int_equal(hold_kind_flags(HOLD_MUTEX), LCB_F_MUTEX);
	assert_int_equal(hold_kind_flags(HOLD_RWSEM_READ), LCB_F_READ);
	assert_int_equal(hold_kind_flags(HOLD_RWSEM_WRITE), LCB_F_WRITE);
	assert_int_equal(hold_kind_flags(0), 0);
	assert_int_equal(hold_kind_flags(99), 0);
}

/*
 * A "hold" table as another version might write it: its columns reversed
 * and without failed. The enums find each column where it is, -1 for the
 * missing one; a table of another name is not the hold table.
 */
static void test_columns_by_name(void **state)
{
	const struct tschema *hold = ls_schema(TBL_HOLD);
	struct tcol cols[HOLD__NCOLS];
	struct tschema s = { hold->name, 0, cols };
	struct pwriter_opts o = { .recording_id = fx_recording_id, .created_ns = FX_CREATED_NS };
	uint64_t row[HOLD__NCOLS];
	struct pwriter *w = NULL;
	struct profile *p = NULL;
	const struct ptable *t;
	char path[64], msg[256] = "";
	uint32_t i;

	(void)state;
	for (i = HOLD__NCOLS; i-- > 0;) {
		if (i == HOLD__FAILED)
			continue;
		cols[s.ncols] = hold->cols[i];
		row[s.ncols++] = i == HOLD__STACK ? 0 : 100 + i;	/* a stack is a pointer: none */
	}
	o.fd = fx_tmpfile(path);
	assert_true(o.fd >= 0);
	assert_int_equal(pwriter__new(&w, &o), 0);
	assert_int_equal(pwriter__table(w, 0, 1000, &(struct trows){ .schema = &s, .n = 1, .v = row }), 0);
	assert_int_equal(pwriter__end(w, FX_DURATION_NS, 0, END_F_CLEAN), 0);
	pwriter__free(w);
	close(o.fd);
	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("reading %s: %s", path, msg);
	unlink(path);
	t = profile__ltable(p, TBL_HOLD);
	assert_non_null(t);
	assert_null(profile__ltable(p, TBL_MMAP_LOCK));
	for (i = 0; i < HOLD__NCOLS; i++) {
		int c = ptable__lcol(t, TBL_HOLD, i);

		if (i == HOLD__FAILED) {
			assert_int_equal(c, -1);
			continue;
		}
		assert_int_equal(c, HOLD__NCOLS - 2 - i + (i > HOLD__FAILED));
		assert_string_equal(t->cols[c], hold->cols[i].name);
	}
	/* The right column of the wrong table is no column. */
	assert_int_equal(ptable__lcol(t, TBL_MMAP_LOCK, MMAP_LOCK__LOCK), -1);
	assert_int_equal(ptable__lcol(NULL, TBL_HOLD, HOLD__LOCK), -1);
	profile__free(p);
}

static struct profile *read_data(const char *name)
{
	struct profile *p = NULL;
	char path[512], msg[256] = "";

	snprintf(path, sizeof(path), "%s/%s", LOCKSTAT_TEST_DATA, name);
	if (profile__read(path, &p, msg, sizeof(msg)))
		fail_msg("reading %s: %s", path, msg);
	return p;
}

/* The fixtures' tables: every column the table's schema names is found. */
static void test_fixture_tables(void **state)
{
	static const char *const files[] = { "vm61-fdstorm.data", "mutexstorm-ulocks.data" };
	size_t f, i, known = 0;
	uint32_t c;

	(void)state;
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct profile *p = read_data(files[f]);

		for (i = 0; i < p->ntables; i++) {
			const struct ptable *t = &p->tables[i];

			if (t->ls_id < 0)
				continue;
			known++;
			assert_ptr_equal(profile__ltable(p, t->ls_id), t);
			for (c = 0; c < ls_schema(t->ls_id)->ncols; c++)
				assert_int_equal(ptable__lcol(t, t->ls_id, c),
						 ptable__col(t, ls_schema(t->ls_id)->cols[c].name));
		}
		profile__free(p);
	}
	assert_true(known >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sets),
		cmocka_unit_test(test_events_help),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_schemas),
		cmocka_unit_test(test_hold_kinds),
		cmocka_unit_test(test_columns_by_name),
		cmocka_unit_test(test_fixture_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
