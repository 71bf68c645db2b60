/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The .ntp recording: an SQLite database whose schema is schema/ntp.sql.
 *
 * Writing (record): rows are buffered in one transaction and committed every
 * NTP_DB_BATCH_ROWS rows or at ntp_writer__flush() (record flushes about once
 * a second), so a SIGKILL loses at most the last batch.  The file is written
 * in WAL mode under its final name (an existing file is first renamed to
 * FILE.old, as perf does); ntp_writer__close() checkpoints and switches back
 * to a single-file rollback journal.
 *
 * Reading (report, dump, compare): read-only, never modifies the file, and
 * checks application_id and user_version before anything else.
 */
#ifndef NTP_DB_H
#define NTP_DB_H

#include <stdint.h>
#include <sqlite3.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"

#define NTP_DB_APPLICATION_ID 0x4E545046   /* 'NTPF' */
#define NTP_DB_SCHEMA_VERSION 1
#define NTP_DB_MIN_READABLE 1
#define NTP_DB_BATCH_ROWS 4096

/* the text of schema/ntp.sql, embedded at build time */
extern const char ntp_schema_sql[];

struct ntp_writer;

struct ntp_interval {
	uint64_t t_ns;
	const char *side;          /* "host" / "target" */
	uint64_t seen, sampled, lost_ringbuf, lost_map;
};

/* Returns 0 or an NTP_EXIT_* code after printing a one-line error. */
int ntp_writer__open(struct ntp_writer **w, const char *path);
int ntp_writer__set_meta_text(struct ntp_writer *w, const char *key, const char *value);
int ntp_writer__set_meta_int(struct ntp_writer *w, const char *key, int64_t value);
int ntp_writer__add_hook(struct ntp_writer *w, const char *side, const char *point,
			 const char *hook, const char *flavour, const char *reason);
int ntp_writer__add_host_io(struct ntp_writer *w, const struct ntp_host_event *e);
int ntp_writer__add_target_io(struct ntp_writer *w, const struct ntp_target_event *e);
int ntp_writer__add_interval(struct ntp_writer *w, const struct ntp_interval *iv);
int ntp_writer__flush(struct ntp_writer *w);          /* commit the current batch */
uint64_t ntp_writer__rows(const struct ntp_writer *w); /* sampled host rows written so far */
uint64_t ntp_writer__target_rows(const struct ntp_writer *w); /* sampled target rows so far */
/* commit, checkpoint, leave one self-contained file; frees w even on error */
int ntp_writer__close(struct ntp_writer *w);

/*
 * Open a recording for reading.  On failure prints one line naming the file
 * and the cause and returns the distinct code: NTP_EXIT_NOFILE, _NOTSQLITE,
 * _NOTNTP, _TOONEW or _CORRUPT.  On success *db is open read-only.
 */
int ntp_db__open_read(sqlite3 **db, const char *path);

/* meta value as text (caller frees), or NULL when absent */
char *ntp_db__meta_text(sqlite3 *db, const char *key);
/* meta value as integer, or def when absent */
int64_t ntp_db__meta_int(sqlite3 *db, const char *key, int64_t def);

#endif
