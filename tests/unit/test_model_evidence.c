// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnosis' evidence gathered beside the model's scan
 * (lib/model/model_evidence.h): keyed and ordered as SQL's GROUP BY, the
 * same split over readers and merged as read by one.
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "lib/model/model_evidence.h"

/* io_type, bytes, namespace, h_start, h_queue, sent, h_done, controller, qid, status, deferred, pid */
static const char rows_sql[] =
	"SELECT * FROM (VALUES"
	" ('read', 4096, 'nvme0n1', 100, 110, 130, 200, 'nvme0', 1, 0, 0, 7),"
	" ('read', 4096, 'nvme0n1', 150, 160, 260, 300, 'nvme0', 2, 5, 1, 7),"
	" ('write', 512, 'nvme0n1', 90, 95, 99, 400, 'nvme0', 1, 9, 1, 8),"
	" ('read', 4096, 'nvme0n1', 120, 125, 135, 250, 'nvme0', 1, 3, 0, 8),"
	" ('read', 4096, NULL, 300, 301, 302, 350, 'nvme0', 1, 0, NULL, NULL),"
	" ('read', 4096, '', 300, 301, 302, 360, 'nvme0', 1, 0, 1, 7))";

/* the scan's group of a row, as the model's groups key it (NULL as ''): index + 1 */
static size_t group_of(const unsigned char *io_type, int64_t bytes, const unsigned char *ns)
{
	static const struct { const char *io_type; int64_t bytes; const char *ns; } g[] = {
		{ "write", 512, "nvme0n1" }, { "read", 4096, "" }, { "read", 4096, "nvme0n1" },
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (!strcmp(g[i].io_type, (const char *)io_type) && g[i].bytes == bytes &&
		    !strcmp(g[i].ns, ns ? (const char *)ns : ""))
			return i + 1;
	fail();
	return 0;
}

/*
 * The rows of rows_sql whose index i has (i % every == part) into a; found
 * by the scan's group (bygroup) or by the key's texts
 */
static void add_rows(struct ntp_evidence_acc *a, int every, int part, bool bygroup)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int i = 0;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct ntp_evidence_in in = {
			sqlite3_column_text(st, 0), sqlite3_column_text(st, 2),
			sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 3),
			sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
			sqlite3_column_int64(st, 6), true, 3, 4, 5, 6, 7, 0,
		};

		if (bygroup)
			in.group = group_of(in.io_type, in.bytes, in.ns);
		if (i++ % every == part)
			assert_int_equal(ntp_evidence__add(a, st, &in), 0);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static struct ntp_evidence *gather(int readers, bool bygroup)
{
	struct ntp_evidence_acc *a[3];
	struct ntp_evidence *e;

	for (int r = 0; r < readers; r++) {
		a[r] = ntp_evidence__acc_new(0);
		assert_non_null(a[r]);
		add_rows(a[r], readers, r, bygroup);
	}
	for (int r = 1; r < readers; r++) {
		assert_int_equal(ntp_evidence__merge(a[0], a[r]), 0);
		ntp_evidence__acc_free(a[r]);
	}
	assert_int_equal(ntp_evidence__finish(a[0], true, &e), 0);
	return e;
}

static void evidence__rows__group_by_keys_order_and_sums(void **state)
{
	struct ntp_evidence *e = gather(1, false);
	const struct ntp_evidence_row *g = e->groups, *q = e->queues;

	/* read 4096 NULL, read 4096 '', read 4096 nvme0n1 q1 and q2, write 512 */
	assert_int_equal(e->ngroups, 5);
	assert_true(g[0].null_ns);
	assert_string_equal(g[0].ns, "");
	assert_false(g[1].null_ns);
	assert_int_equal(g[2].qid, 1);
	assert_int_equal(g[3].qid, 2);
	assert_string_equal(g[4].io_type, "write");
	/* read nvme0n1 q1: two commands, one failed (3), both inline, sends 20 and 10 */
	assert_int_equal(g[2].n, 2);
	assert_int_equal(g[2].errors, 1);
	assert_int_equal(g[2].first_status, 3);
	assert_int_equal(g[2].inline_sends, 2);
	assert_int_equal(g[2].deferred, 0);
	assert_true(g[2].inline_sum == 30);
	/* q2: deferred, send 100 */
	assert_int_equal(g[3].deferred, 1);
	assert_true(g[3].deferred_sum == 100);
	/* the NULL deferral is neither */
	assert_int_equal(g[0].deferred + g[0].inline_sends, 0);

	/* queues: nvme0 q1 (5 commands, processes 7 and 8), q2 */
	assert_int_equal(e->nqueues, 2);
	assert_int_equal(q[0].qid, 1);
	assert_int_equal(q[0].n, 5);
	assert_int_equal(q[0].pids, 2);
	assert_true(q[0].mean_sum == 90 + 305 + 125 + 49 + 59);
	assert_int_equal(q[0].mean_n, 5);
	assert_int_equal(q[1].pids, 1);
	assert_int_equal(e->rows, 6);
	assert_int_equal(e->first_start, 90);
	assert_int_equal(e->last_done, 400);
	ntp_evidence__free(e);
}

/* rows split over readers, merged, found by key or by group: what one reader gathers */
static void evidence__merge__as_one_reader(void **state)
{
	struct ntp_evidence *one = gather(1, false);

	/* readers by the texts, then by the scan's groups (one reader too) */
	for (int run = 2; run <= 6; run++) {
		int readers = run <= 3 ? run : run - 3;
		struct ntp_evidence *e = gather(readers, run > 3);

		assert_int_equal(e->ngroups, one->ngroups);
		assert_int_equal(e->nqueues, one->nqueues);
		for (size_t i = 0; i < e->ngroups; i++) {
			assert_string_equal(e->groups[i].io_type, one->groups[i].io_type);
			assert_string_equal(e->groups[i].ns, one->groups[i].ns);
			assert_int_equal(e->groups[i].qid, one->groups[i].qid);
			assert_int_equal(e->groups[i].n, one->groups[i].n);
			assert_int_equal(e->groups[i].errors, one->groups[i].errors);
			assert_int_equal(e->groups[i].first_status, one->groups[i].first_status);
			assert_true(e->groups[i].inline_sum == one->groups[i].inline_sum);
		}
		for (size_t i = 0; i < e->nqueues; i++) {
			assert_int_equal(e->queues[i].n, one->queues[i].n);
			assert_int_equal(e->queues[i].pids, one->queues[i].pids);
			assert_true(e->queues[i].mean_sum == one->queues[i].mean_sum);
		}
		assert_int_equal(e->first_start, one->first_start);
		assert_int_equal(e->last_done, one->last_done);
		ntp_evidence__free(e);
	}
	ntp_evidence__free(one);
}

/* past its bound, an accumulator says so */
static void evidence__max_rows__full(void **state)
{
	struct ntp_evidence_acc *a = ntp_evidence__acc_new(2);
	sqlite3 *db;
	sqlite3_stmt *st;
	int rc[6], i = 0;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, rows_sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && i < 6) {
		struct ntp_evidence_in in = {
			sqlite3_column_text(st, 0), sqlite3_column_text(st, 2),
			sqlite3_column_int64(st, 1), 0, 0, 0, 0, true, 3, 4, 5, 6, 7, 0,
		};

		rc[i++] = ntp_evidence__add(a, st, &in);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	/* rows 0 and 1 make two (group, queue) rows; row 2 a third */
	assert_int_equal(rc[0], 0);
	assert_int_equal(rc[1], 0);
	assert_int_equal(rc[2], NTP_EVIDENCE_FULL);
	ntp_evidence__acc_free(a);
}

/* a point past 64 bits' difference is SQL's: a real */
static void evidence__send_delay__overflow_as_real(void **state)
{
	struct ntp_evidence_acc *a = ntp_evidence__acc_new(0);
	struct ntp_evidence *e;
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 'read', 1, 'n', 0, -9223372036854775807,"
					    " 9223372036854775807, 1, 'c', 1, 0, 0, NULL,"
					    " 9223372036854775807 - -9223372036854775807",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(ntp_evidence__add(a, st, &(struct ntp_evidence_in){
		sqlite3_column_text(st, 0), sqlite3_column_text(st, 2), 1, 0,
		sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5), 1, true, 3, 4, 5, 6, 7, 0 }),
		0);
	assert_int_equal(ntp_evidence__finish(a, false, &e), 0);
	assert_true(e->groups[0].inline_sum == sqlite3_column_double(st, 12));
	sqlite3_finalize(st);
	sqlite3_close(db);
	ntp_evidence__free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(evidence__rows__group_by_keys_order_and_sums),
		cmocka_unit_test(evidence__merge__as_one_reader),
		cmocka_unit_test(evidence__max_rows__full),
		cmocka_unit_test(evidence__send_delay__overflow_as_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
