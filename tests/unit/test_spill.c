// SPDX-License-Identifier: GPL-2.0
/*
 * lib/core/spill.c: records of an odd size (37 bytes, like the join's host
 * stages) written by several runs at once, each of consecutive indexes and
 * in no order of the runs, come back whole and at their place across the
 * buffers' edges, read by runs that start anywhere; a read past what was
 * written is an error, the file is unlinked at once, and a missing or too
 * long $TMPDIR is an error that names it.
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
#include <pthread.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/core/spill.h"
#include "lib/core/tmpdir.h"

#define RECSZ 37
/* several buffers' worth in each of the runs, the last buffers partly full */
#define NREC (5 * (1u << 18) / RECSZ + 11)
#define RUNS 4

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

/* run k of RUNS: records [NREC k / RUNS, NREC (k + 1) / RUNS) */
struct writer {
	const struct ntp_spill *s;
	int k;
	int rc;
};

static void *write_run(void *arg)
{
	struct writer *w = arg;
	uint32_t lo = NREC * (uint32_t)w->k / RUNS, hi = NREC * (uint32_t)(w->k + 1) / RUNS;
	unsigned char rec[RECSZ];
	struct ntp_spill_run r;

	w->rc = ntp_spill_run__start(&r, w->s, lo, 1);
	for (uint32_t i = lo; i < hi && !w->rc; i++) {
		fill(rec, i);
		w->rc = ntp_spill_run__put(&r, rec);
	}
	if (ntp_spill_run__end(&r) && !w->rc)
		w->rc = -r.err;
	return NULL;
}

/* records first .. NREC - 1 read back by one run */
static void read_from(const struct ntp_spill *s, uint32_t first)
{
	unsigned char want[RECSZ];
	struct ntp_spill_run r;

	assert_int_equal(ntp_spill_run__start(&r, s, first, 0), 0);
	for (uint32_t i = first; i < NREC; i++) {
		const unsigned char *got = ntp_spill_run__get(&r);

		assert_non_null(got);
		fill(want, i);
		assert_memory_equal(got, want, RECSZ);
	}
	/* nothing was written past the last record: an error, not a record */
	assert_null(ntp_spill_run__get(&r));
	assert_int_equal(r.err, EIO);
	assert_int_equal(ntp_spill_run__end(&r), -EIO);
}

static void runs__written_at_once_read_back_at_their_place(void **state)
{
	char dir[] = "/tmp/ntprof-test-spill-XXXXXX";
	struct writer w[RUNS];
	pthread_t t[RUNS];
	struct ntp_spill s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
	assert_int_equal(ntp_spill__open(&s, RECSZ), 0);
	/* unlinked at once: nothing to leave behind */
	assert_int_equal(entries(dir), 0);
	/* the last run first, the others at once: each writes only its own places */
	w[RUNS - 1] = (struct writer){ &s, RUNS - 1, 0 };
	write_run(&w[RUNS - 1]);
	assert_int_equal(w[RUNS - 1].rc, 0);
	for (int k = 0; k < RUNS - 1; k++) {
		w[k] = (struct writer){ &s, k, 0 };
		assert_int_equal(pthread_create(&t[k], NULL, write_run, &w[k]), 0);
	}
	for (int k = 0; k < RUNS - 1; k++) {
		pthread_join(t[k], NULL);
		assert_int_equal(w[k].rc, 0);
	}
	read_from(&s, 0);
	/* a run may start anywhere, inside a buffer's worth of another */
	read_from(&s, NREC / 3 + 1);
	read_from(&s, NREC - 1);
	ntp_spill__close(&s);
	unsetenv("TMPDIR");
	assert_int_equal(rmdir(dir), 0);
}

static void misuse__refused(void **state)
{
	unsigned char rec[RECSZ] = { 0 };
	struct ntp_spill_run r;
	struct ntp_spill s;

	(void)state;
	unsetenv("TMPDIR");
	assert_int_equal(ntp_spill__open(&s, RECSZ), 0);
	assert_string_equal(s.dir, "/tmp");
	/* a reader writes nothing, a writer reads nothing */
	assert_int_equal(ntp_spill_run__start(&r, &s, 0, 0), 0);
	assert_int_equal(ntp_spill_run__put(&r, rec), -EINVAL);
	assert_null(ntp_spill_run__get(&r));
	assert_int_equal(ntp_spill_run__end(&r), -EINVAL);
	assert_int_equal(ntp_spill_run__start(&r, &s, 0, 1), 0);
	assert_null(ntp_spill_run__get(&r));
	assert_int_equal(ntp_spill_run__end(&r), -EINVAL);
	/* an empty file has no first record */
	assert_int_equal(ntp_spill_run__start(&r, &s, 0, 0), 0);
	assert_null(ntp_spill_run__get(&r));
	assert_int_equal(r.err, EIO);
	ntp_spill_run__end(&r);
	ntp_spill__close(&s);
	/* closed: a run cannot start */
	assert_int_equal(ntp_spill_run__start(&r, &s, 0, 1), -EBADF);
	ntp_spill_run__end(&r);
}

static void missing_tmpdir__error_names_it(void **state)
{
	struct ntp_spill_run r;
	struct ntp_spill s;

	(void)state;
	setenv("TMPDIR", "/nonexistent/ntprof-test", 1);
	assert_int_equal(ntp_spill__open(&s, RECSZ), -ENOENT);
	assert_int_equal(s.err, ENOENT);
	assert_string_equal(s.dir, "/nonexistent/ntprof-test");
	/* nothing is written to a file that is not there */
	assert_int_equal(ntp_spill_run__start(&r, &s, 0, 1), -ENOENT);
	assert_int_equal(ntp_spill_run__put(&r, "0123456789012345678901234567890123456"), -ENOENT);
	ntp_spill_run__end(&r);
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
		cmocka_unit_test(runs__written_at_once_read_back_at_their_place),
		cmocka_unit_test(misuse__refused),
		cmocka_unit_test(missing_tmpdir__error_names_it),
		cmocka_unit_test(long_tmpdir__refused_not_cut),
		cmocka_unit_test(tmpdir__set_unset_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
