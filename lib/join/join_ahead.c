// SPDX-License-Identifier: GPL-2.0
/*
 * The target's stages read ahead (lib/join/join_priv.h).  Once the target's
 * rows are loaded the join leaves a core unused most of the time (the
 * host's load goes on, the sorts and merges run on one thread), and the
 * summary report then reads every target file's stages again.  So a thread
 * of its own, on connections of its own, reads them from then on: each
 * target file's target_stages view (ntprof's definitions: lib/ntp/db_guard.h)
 * in id order over the ids the load read, which is the order of the join's
 * load indexes, one record per command into a scratch file
 * (lib/core/spill.h).  ntp_join__scan_stages reads it back in that order
 * and keeps the matched commands' records.  The records of ten million
 * commands are 250 MB: in memory they would be the join's peak.
 *
 * The thread prints nothing (but for a file it cannot open again, which
 * its opening prints): its error is kept, and printed by the scan, so that
 * a join that fails on its own does not print two lines.
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
#include "lib/ntp/db_fail.h"
#include "lib/ntp/db_guard.h"

/* what the load read of one target file: the thread reads the same ids again */
struct ahead_file {
	int fi;
	int64_t first_id, last_id;
	size_t n;
};

struct ntp_jahead {
	const struct ntp_join_file *files;	/* the join's: paths and sides stay as opened */
	struct ahead_file f[NTP_JOIN_MAX_FILES];
	int nf;
	pthread_t thread;
	int started;
	atomic_int stop;	/* the join ends before the scan: stop reading */
	struct ntp_spill spill;
	int err;		/* 0 or NTP_EXIT_* */
	char msg[NTP_DB_FAIL_LINE];	/* its line, "" when printed already */
};

static int spill_fail(struct ntp_jahead *a, const char *doing)
{
	snprintf(a->msg, sizeof(a->msg), "join: cannot %s a scratch file in %s (TMPDIR): %s", doing,
		 a->spill.dir, a->spill.err ? strerror(a->spill.err) : "it ended early");
	return NTP_EXIT_FAILURE;
}

/* one target file's stages, over the ids the load read, onto the spill */
static int read_file(struct ntp_jahead *a, const struct ahead_file *af)
{
	const char *path = a->files[af->fi].path;
	char sql[224], view[64];
	sqlite3_stmt *st = NULL;
	sqlite3 *db = NULL;
	size_t n = 0;
	int rc = SQLITE_DONE, err;

	/* guarded as the join's connection is, with ntprof's views (lib/ntp/db_guard.h) */
	err = ntp_db__open_again(&db, path);
	if (err) {
		a->msg[0] = '\0';	/* printed */
		return err;
	}
	snprintf(sql, sizeof(sql), "SELECT residence_ns, target_driver_ns, storage_ns"
		 " FROM temp.\"%s\" WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
		 ntp_db__view_name(view, sizeof(view), "main", NTP_DB_TARGET_STAGES));
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		err = ntp_db__fail_text(db, path, "reading the target stages", a->msg,
					sizeof(a->msg));
		sqlite3_close(db);
		return err;
	}
	sqlite3_bind_int64(st, 1, af->first_id);
	sqlite3_bind_int64(st, 2, af->last_id);
	while (!atomic_load_explicit(&a->stop, memory_order_relaxed) &&
	       (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_jtstages tv = {
			.residence = sqlite3_column_int64(st, 0),
			.target_driver = sqlite3_column_int64(st, 1),
			.storage = sqlite3_column_int64(st, 2),
			.not_number = !ntp_join__integers(st, 0, 3),
		};

		if (ntp_spill__put(&a->spill, &tv)) {
			err = spill_fail(a, "write");
			break;
		}
		n++;
	}
	if (!err && !atomic_load(&a->stop)) {
		if (rc != SQLITE_DONE)
			err = ntp_db__fail_text(db, path, "reading the target stages", a->msg,
						sizeof(a->msg));
		else if (n != af->n) {
			/* rows deleted or added among the ids the load read: no record is whose it was */
			snprintf(a->msg, sizeof(a->msg), "%s: the target commands changed while being"
				 " read (%zu, then %zu)", path, af->n, n);
			err = NTP_EXIT_CORRUPT;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return err;
}

static void *read_all(void *arg)
{
	struct ntp_jahead *a = arg;

	for (int k = 0; k < a->nf && !a->err && !atomic_load(&a->stop); k++)
		a->err = read_file(a, &a->f[k]);
	return NULL;
}

int ntp_join__read_ahead(struct ntp_join *j)
{
	const struct ntp_jside *s = &j->target;
	struct ntp_jahead *a;

	if (j->ahead)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return ntp_join__nomem();
	a->files = j->files;
	j->ahead = a;
	/* the ids each file's load read, copied: the thread reads nothing of j's */
	for (int fi = 0; fi < j->nfiles; fi++) {
		size_t lo = s->file_lo[fi], hi = s->file_lo[fi + 1];

		if (!(j->files[fi].sides & NTP_JOIN_TARGET) || hi == lo)
			continue;
		a->f[a->nf++] = (struct ahead_file){ fi, ntp_jside__id(s, lo), ntp_jside__id(s, hi - 1),
						     hi - lo };
	}
	if (ntp_spill__open(&a->spill, sizeof(struct ntp_jtstages))) {
		if (a->spill.err == ENOMEM)
			return ntp_join__nomem();
		spill_fail(a, "create");
		ntp_error("%s", a->msg);
		a->err = NTP_EXIT_FAILURE;
		a->msg[0] = '\0';
		return a->err;
	}
	/* no thread: it reads now, on this one */
	a->started = !pthread_create(&a->thread, NULL, read_all, a);
	if (!a->started)
		read_all(a);
	return 0;
}

/* wait for the reader: its error (printed now), or the records ready to be read from the first */
static int ahead_wait(struct ntp_jahead *a)
{
	if (a->started) {
		pthread_join(a->thread, NULL);
		a->started = 0;
	}
	if (!a->err && ntp_spill__rewind(&a->spill))
		a->err = spill_fail(a, "write");
	if (a->err && a->msg[0]) {
		ntp_error("%s", a->msg);
		a->msg[0] = '\0';
	}
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
	for (size_t idx = 0; idx < j->target_rows; idx++) {
		const struct ntp_jtstages *r = ntp_spill__next(&a->spill);

		if (!r) {
			spill_fail(a, "read back");
			ntp_error("%s", a->msg);
			return NTP_EXIT_FAILURE;
		}
		if (slot[idx] != UINT32_MAX)
			tv[slot[idx]] = *r;
	}
	/* nothing reads the records again: the file and its pages go now */
	ntp_join__ahead_end(j);
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
