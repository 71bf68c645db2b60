// SPDX-License-Identifier: GPL-2.0
/*
 * lib/model/model_filter.c: the SQL clause and the C test decide alike.
 * Random rows of two files (two clocks) in an in-memory table, filters
 * parsed by the options' own callbacks; for each filter the rows the clause
 * selects are exactly those ntp_read_filter__match() passes, and both are
 * the rows a plain reading of the filter passes.  Then the option
 * callbacks' values, the description and the window's length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "lib/cli/err.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_filter_opt.h"
#include "tests/unit/xorshift.h"

#define NROWS 3000
#define S 1000000000LL

static const int64_t starts[2] = { 1000 * S, 5000 * S };
static const char *const types[] = { "read", "write", "other" };
static const char *const paths[] = { "nvme0c0n1", "nvme0c1n1", "nvme1n1", "nvme2n1" };
static const int64_t sizes[] = { 0, 4096, 8192, 131072 };

struct row {
	int file;
	const char *io_type, *ns, *path;
	int64_t bytes, qid, t;
};

static struct row rows[NROWS];

static uint64_t rng = XORSHIFT_SEED;

static sqlite3 *make_db(void)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE r(file, io_type, bytes, namespace, path,"
				      " qid, t)", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO r VALUES (?,?,?,?,?,?,?)", -1, &st,
					    NULL), SQLITE_OK);
	for (int i = 0; i < NROWS; i++) {
		struct row *r = &rows[i];
		int p = (int)(xorshift64(&rng) % 4);

		r->file = (int)(xorshift64(&rng) % 2);
		r->io_type = types[xorshift64(&rng) % 3];
		r->bytes = sizes[xorshift64(&rng) % 4];
		r->path = paths[p];
		r->ns = p < 2 ? "nvme0n1" : paths[p];
		r->qid = (int64_t)(xorshift64(&rng) % 9);
		r->t = starts[r->file] + (int64_t)(xorshift64(&rng) % (uint64_t)(12 * S));
		sqlite3_bind_int(st, 1, r->file);
		sqlite3_bind_text(st, 2, r->io_type, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, r->bytes);
		sqlite3_bind_text(st, 4, r->ns, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, r->path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, r->qid);
		sqlite3_bind_int64(st, 7, r->t);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return db;
}

static const struct ntp_read_cols cols = {
	.io_type = "io_type", .bytes = "bytes", .qid = "qid",
	.names = { "namespace", "path" }, .time = "t", .file = "file",
};

/* the filter of options "--NAME VALUE" pairs, through the callbacks report's table uses */
static void parse(struct ntp_read_filter *f, ...)
{
	const struct ntp_option opts[] = { NTP_READ_FILTER_OPTIONS(f), NTP_OPT_END() };
	va_list ap;
	const char *name;

	memset(f, 0, sizeof(*f));
	va_start(ap, f);
	while ((name = va_arg(ap, const char *))) {
		const char *value = va_arg(ap, const char *);
		const struct ntp_option *o;

		for (o = opts; o->long_name && strcmp(o->long_name, name); o++)
			;
		assert_non_null(o->long_name);
		assert_int_equal(o->cb(o, value), 0);
	}
	va_end(ap);
}

/* a plain reading of the filters, for one row */
static bool by_hand(const struct ntp_read_filter *f, const struct row *r)
{
	int64_t t = r->t - starts[r->file];
	bool hit;

	if (f->io_types) {
		int k = !strcmp(r->io_type, "read") ? 0 : !strcmp(r->io_type, "write") ? 1 : 2;

		if (!(f->io_types & (1u << k)))
			return false;
	}
	if (f->sizes.nsizes) {
		hit = false;
		for (uint32_t i = 0; i < f->sizes.nsizes; i++)
			hit |= f->sizes.sizes[i] == r->bytes;
		if (!hit)
			return false;
	}
	if (f->session) {
		char list[256], a[64], b[64];

		snprintf(list, sizeof(list), ",%s,", f->session);
		snprintf(a, sizeof(a), ",%s,", r->ns);
		snprintf(b, sizeof(b), ",%s,", r->path);
		if (!strstr(list, a) && !strstr(list, b))
			return false;
	}
	if (f->nqids) {
		hit = false;
		for (int i = 0; i < f->nqids; i++)
			hit |= r->qid >= f->qids[i].lo && r->qid <= f->qids[i].hi;
		if (!hit)
			return false;
	}
	if (f->has_start && t < f->start_ns)
		return false;
	if (f->has_end && t >= f->end_ns)
		return false;
	return true;
}

static void check_alike(sqlite3 *db, const struct ntp_read_filter *f, int nfiles)
{
	struct ntp_read_where w = { .f = f, .cols = &cols, .nfiles = nfiles };
	static bool in_sql[NROWS];
	sqlite3_stmt *st;
	int n_sql = 0, n_c = 0, rc;

	memcpy(w.starts, starts, sizeof(starts));
	memset(in_sql, 0, sizeof(in_sql));
	assert_int_equal(ntp_read_filter__prepare(db, "SELECT rowid FROM r WHERE 1", &w, NULL, &st),
			 SQLITE_OK);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		in_sql[sqlite3_column_int64(st, 0) - 1] = true;
		n_sql++;
	}
	assert_int_equal(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	for (int i = 0; i < NROWS; i++) {
		struct row *r = &rows[i];
		struct ntp_read_row rr = { r->file, r->io_type, r->ns, r->path, r->bytes, r->qid,
					   r->t };
		bool c = ntp_read_filter__match(&w, &rr);

		assert_int_equal(c, in_sql[i]);
		assert_int_equal(c, by_hand(f, r));
		n_c += c;
	}
	assert_int_equal(n_c, n_sql);
	/* every filter here passes some rows and drops others: a real test */
	assert_true(n_c > 0 && (n_c < NROWS || !ntp_read_filter__any(f)));
}

static void test_sql_and_c_agree(void **state)
{
	sqlite3 *db = make_db();
	struct ntp_read_filter f;

	parse(&f, NULL);
	check_alike(db, &f, 2);
	parse(&f, "io-type", "write", NULL);
	check_alike(db, &f, 2);
	parse(&f, "io-type", "other,read", NULL);
	check_alike(db, &f, 2);
	parse(&f, "size", "4K,128K", NULL);
	check_alike(db, &f, 2);
	parse(&f, "session", "nvme0n1", NULL);
	check_alike(db, &f, 2);
	parse(&f, "session", "nvme0c1n1,nvme2n1", NULL);
	check_alike(db, &f, 2);
	parse(&f, "qid", "0,3-5,8", NULL);
	check_alike(db, &f, 2);
	parse(&f, "time", "2.5,7", NULL);
	check_alike(db, &f, 2);
	parse(&f, "time", ",500ms", NULL);
	check_alike(db, &f, 2);
	parse(&f, "time", "11,", NULL);
	check_alike(db, &f, 2);
	parse(&f, "session", "nvme0n1,nvme1n1", "io-type", "read,write", "size", "8192,4096",
	      "qid", "1-6", "time", "1,10", NULL);
	check_alike(db, &f, 2);
	sqlite3_close(db);
}

static void test_values(void **state)
{
	struct ntp_read_filter f;
	char buf[256];

	parse(&f, "size", "128K,4K,4096", "qid", "7,1-4", "io-type", "write,read,write",
	      "session", "nvme0n1", "time", "0.25,1m", NULL);
	assert_int_equal(f.sizes.nsizes, 2);           /* sorted, duplicates once */
	assert_int_equal(f.sizes.sizes[0], 4096);
	assert_int_equal(f.nqids, 2);
	assert_int_equal(f.io_types, NTP_READ_IO_READ | NTP_READ_IO_WRITE);
	assert_true(f.has_start && f.has_end);
	assert_int_equal(f.start_ns, 250000000);
	assert_int_equal(f.end_ns, 60 * S);
	ntp_read_filter__describe(&f, buf, sizeof(buf));
	assert_string_equal(buf, "--session nvme0n1 --io-type read,write --size 4096,131072 "
			    "--qid 7,1-4 --time 0.25,60");
	assert_false(ntp_read_filter__any(NULL));
	parse(&f, NULL);
	assert_false(ntp_read_filter__any(&f));
}

static void test_bad_values(void **state)
{
	static const char *const bad[][2] = {
		{ "session", "" }, { "session", "a,,b" }, { "io-type", "flush" },
		{ "size", "100" }, { "qid", "65536" }, { "qid", "3-1" }, { "qid", "1-2-3" },
		{ "time", "3" }, { "time", "4,4" }, { "time", "x," }, { "time", "," },
	};
	struct ntp_read_filter f = { 0 };
	const struct ntp_option opts[] = { NTP_READ_FILTER_OPTIONS(&f), NTP_OPT_END() };
	FILE *quiet = fopen("/dev/null", "w");

	ntp_err__set_stream(quiet);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct ntp_option *o;

		for (o = opts; strcmp(o->long_name, bad[i][0]); o++)
			;
		assert_int_equal(o->cb(o, bad[i][1]), -1);
		assert_false(ntp_read_filter__any(&f));   /* left as it was */
	}
	ntp_err__set_stream(NULL);
	fclose(quiet);
}

static void test_window(void **state)
{
	struct ntp_read_filter f;

	parse(&f, NULL);
	assert_int_equal(ntp_read_filter__window_ns(&f, 10 * S), 10 * S);
	assert_int_equal(ntp_read_filter__window_ns(&f, 0), 0);
	parse(&f, "time", "2,5", NULL);
	assert_int_equal(ntp_read_filter__window_ns(&f, 10 * S), 3 * S);
	assert_int_equal(ntp_read_filter__window_ns(&f, 4 * S), 2 * S);    /* cut to the file */
	assert_int_equal(ntp_read_filter__window_ns(&f, 0), 3 * S);
	parse(&f, "time", "8,", NULL);
	assert_int_equal(ntp_read_filter__window_ns(&f, 10 * S), 2 * S);
	assert_int_equal(ntp_read_filter__window_ns(&f, 0), 0);              /* unknown */
	assert_int_equal(ntp_read_filter__window_ns(&f, 5 * S), 0);          /* past the end */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sql_and_c_agree),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
