// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/spill.c: records of an odd size (25 bytes, the join's target
 * stages) come back in order and whole across the buffer's edges, and again
 * after a second rewind; the end is NULL, the file is unlinked at once, and
 * a missing or too long $TMPDIR is an error that names it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/core/spill.h"
#include "lib/core/tmpdir.h"

#define RECSZ 25
/* several buffers' worth, the last one partly full */
#define NREC (3 * (1u << 20) / RECSZ + 7)

static void fill(unsigned char *r, uint32_t i)
{
	for (int k = 0; k < RECSZ; k++)
		r[k] = (unsigned char)(i * 31u + (uint32_t)k * 7u + (i >> 8));
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* records 0 .. NREC - 1 read back, then the end */
static void read_back(struct ntp_spill *s)
{
	unsigned char want[RECSZ];

	for (uint32_t i = 0; i < NREC; i++) {
		const unsigned char *r = ntp_spill__next(s);

		assert_non_null(r);
		fill(want, i);
		assert_memory_equal(r, want, RECSZ);
	}
	assert_null(ntp_spill__next(s));
	assert_int_equal(s->err, 0);
}

static void records__back_in_order_across_buffers(void **state)
{
	char dir[] = "/tmp/ntprof-test-spill-XXXXXX";
	unsigned char want[RECSZ];
	struct ntp_spill s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
	assert_int_equal(ntp_spill__open(&s, RECSZ), 0);
	/* unlinked at once: nothing to leave behind */
	assert_int_equal(entries(dir), 0);
	for (uint32_t i = 0; i < NREC; i++) {
		fill(want, i);
		assert_int_equal(ntp_spill__put(&s, want), 0);
	}
	assert_int_equal(s.nrec, NREC);
	assert_int_equal(ntp_spill__rewind(&s), 0);
	read_back(&s);
	/* read again from the first: the same records, none added by the rewind */
	assert_int_equal(ntp_spill__rewind(&s), 0);
	read_back(&s);
	/* written once: nothing is appended after a rewind */
	assert_int_equal(ntp_spill__put(&s, want), -EINVAL);
	ntp_spill__close(&s);
	unsetenv("TMPDIR");
	assert_int_equal(rmdir(dir), 0);
}

static void empty__ends_at_once(void **state)
{
	struct ntp_spill s;

	(void)state;
	unsetenv("TMPDIR");
	assert_int_equal(ntp_spill__open(&s, 8), 0);
	assert_string_equal(s.dir, "/tmp");
	assert_int_equal(ntp_spill__rewind(&s), 0);
	assert_null(ntp_spill__next(&s));
	assert_int_equal(s.err, 0);
	ntp_spill__close(&s);
}

static void missing_tmpdir__error_names_it(void **state)
{
	struct ntp_spill s;

	(void)state;
	setenv("TMPDIR", "/nonexistent/ntprof-test", 1);
	assert_int_equal(ntp_spill__open(&s, RECSZ), -ENOENT);
	assert_int_equal(s.err, ENOENT);
	assert_string_equal(s.dir, "/nonexistent/ntprof-test");
	/* nothing is written after an error */
	assert_int_equal(ntp_spill__put(&s, "0123456789012345678901234"), -ENOENT);
	assert_null(ntp_spill__next(&s));
	ntp_spill__close(&s);
	unsetenv("TMPDIR");
}

static void long_tmpdir__refused_not_cut(void **state)
{
	char dir[5000];
	struct ntp_spill s;

	(void)state;
	memset(dir, 'a', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	setenv("TMPDIR", dir, 1);
	assert_int_equal(ntp_spill__open(&s, RECSZ), -ENAMETOOLONG);
	ntp_spill__close(&s);
	unsetenv("TMPDIR");
}

/* the rule record's temporary recording and the spill both follow */
static void tmpdir__set_unset_empty(void **state)
{
	(void)state;
	setenv("TMPDIR", "/var/tmp/x", 1);
	assert_string_equal(ntp_tmpdir(), "/var/tmp/x");
	setenv("TMPDIR", "", 1);
	assert_string_equal(ntp_tmpdir(), "/tmp");
	unsetenv("TMPDIR");
	assert_string_equal(ntp_tmpdir(), "/tmp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records__back_in_order_across_buffers),
		cmocka_unit_test(empty__ends_at_once),
		cmocka_unit_test(missing_tmpdir__error_names_it),
		cmocka_unit_test(long_tmpdir__refused_not_cut),
		cmocka_unit_test(tmpdir__set_unset_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
