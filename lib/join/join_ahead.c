// SPDX-License-Identifier: GPL-2.0
/*
 * The target's stages read ahead (lib/join/join_priv.h).  Once the target's
 * rows are loaded the join leaves a core unused most of the time (the
 * host's load goes on, the sorts and merges run on one thread), and the
 * summary report then reads every target file's stages again.  So a thread
 * of its own, on connections of its own, reads them from then on: each target file's target_stages view (ntprof's
 * definitions: lib/ntp/db_guard.h) in id order, which is the order of the
 * join's load indexes, one record per command into a scratch file
 * (lib/core/spill.h).  ntp_join__scan_stages reads it back in that order
 * and keeps the matched commands' records.  The records of ten million
 * commands are 250 MB: in memory they would be the join's peak.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/spill.h"
#include "lib/join/join_priv.h"
#include "lib/ntp/db_guard.h"

struct ntp_jahead {
	struct ntp_join *j;
	pthread_t thread;
	int started;
	atomic_int stop;	/* the join ends before the scan: stop reading */
	struct ntp_spill spill;
	int err;		/* 0 or NTP_EXIT_*, printed by the thread */
};

/* columns first .. first + n - 1 of st's row all integers, as every stage is */
static bool integers(sqlite3_stmt *st, int first, int n)
{
	for (int c = first; c < first + n; c++)
		if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
			return false;
	return true;
}

static int spill_fail(struct ntp_jahead *a)
{
	ntp_error("join: cannot write a scratch file in %s (TMPDIR): %s", a->spill.dir,
		  strerror(a->spill.err));
	return NTP_EXIT_FAILURE;
}

/* one target file's stages, in id order, onto the spill */
static int read_file(struct ntp_jahead *a, int fi)
{
	const char *path = a->j->files[fi].path;
	char sql[192], view[64];
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	int rc = SQLITE_DONE, err;

	/* guarded as the join's connection is, with ntprof's views (lib/ntp/db_guard.h) */
	err = ntp_db__open_again(&db, path);
	if (err)
		return err;
	snprintf(sql, sizeof(sql), "SELECT residence_ns, target_driver_ns, storage_ns"
		 " FROM temp.\"%s\" ORDER BY id",
		 ntp_db__view_name(view, sizeof(view), "main", NTP_DB_TARGET_STAGES));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = ntp_db__fail(db, path, "reading the target stages");
		sqlite3_close(db);
		return err;
	}
	while (!atomic_load_explicit(&a->stop, memory_order_relaxed) &&
	       (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_jtstages tv = {
			.residence = sqlite3_column_int64(st, 0),
			.target_driver = sqlite3_column_int64(st, 1),
			.storage = sqlite3_column_int64(st, 2),
			.not_number = !integers(st, 0, 3),
		};

		if (ntp_spill__put(&a->spill, &tv)) {
			err = spill_fail(a);
			break;
		}
	}
	if (!err && !atomic_load(&a->stop) && rc != SQLITE_DONE)
		err = ntp_db__fail(db, path, "reading the target stages");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return err;
}

static void *read_all(void *arg)
{
	struct ntp_jahead *a = arg;
	struct ntp_join *j = a->j;

	for (int fi = 0; fi < j->nfiles && !a->err && !atomic_load(&a->stop); fi++)
		if (j->files[fi].sides & NTP_JOIN_TARGET)
			a->err = read_file(a, fi);
	return NULL;
}

int ntp_join__read_ahead(struct ntp_join *j)
{
	struct ntp_jahead *a;

	if (j->ahead)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return ntp_join__nomem();
	a->j = j;
	j->ahead = a;
	if (ntp_spill__open(&a->spill, sizeof(struct ntp_jtstages))) {
		a->err = a->spill.err == ENOMEM ? ntp_join__nomem() : spill_fail(a);
		return a->err;
	}
	/* no thread: it reads now, on this one */
	a->started = !pthread_create(&a->thread, NULL, read_all, a);
	if (!a->started)
		read_all(a);
	return a->err;
}

/* wait for the reader: its error, or the records ready to be read from the first */
static int ahead_wait(struct ntp_jahead *a)
{
	if (a->started) {
		pthread_join(a->thread, NULL);
		a->started = 0;
	}
	if (!a->err && ntp_spill__rewind(&a->spill))
		a->err = spill_fail(a);
	return a->err;
}

int ntp_join__ahead_targets(struct ntp_join *j, const uint32_t *slot, struct ntp_jtstages *tv)
{
	struct ntp_jahead *a;
	int err = ntp_join__read_ahead(j);

	if (err)
		return err;
	a = j->ahead;
	err = ahead_wait(a);
	if (err)
		return err;
	/* one record per loaded target command, or a file changed since the load */
	if (a->spill.nrec != j->target_rows) {
		ntp_error("join: the target recordings changed while being read (%zu commands,"
			  " then %llu)", j->target_rows, (unsigned long long)a->spill.nrec);
		return NTP_EXIT_CORRUPT;
	}
	for (size_t idx = 0; idx < j->target_rows; idx++) {
		const struct ntp_jtstages *r = ntp_spill__next(&a->spill);

		if (!r)
			return spill_fail(a);
		if (slot[idx] != UINT32_MAX)
			tv[slot[idx]] = *r;
	}
	return 0;
}

void ntp_join__ahead_end(struct ntp_join *j)
{
	struct ntp_jahead *a = j->ahead;

	if (!a)
		return;
	atomic_store(&a->stop, 1);
	if (a->started)
		pthread_join(a->thread, NULL);
	ntp_spill__close(&a->spill);
	free(a);
	j->ahead = NULL;
}
