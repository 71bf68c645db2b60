/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way in to recordings.  A source is a set of recordings opened
 * for reading, each checked once (lib/ntp/db_read.h: a missing, foreign,
 * newer or damaged file is refused with its own exit code) and the set
 * classified once into a kind, by the roles table (lib/ntp/db_role.h) and
 * the number of files.  report, compare, series, dump, export and join all
 * read through a source; nothing else opens a recording for reading
 * (tests/integration/test_layers.py holds the tree to it).
 *
 * This header is what every source has: its kind, its runs (a recording
 * each: its name, role and sides) and the operations that differ between
 * kinds of source.  The report model is filled through ops->load, so a
 * second kind of source (a fleet database) plugs in beside the recordings
 * on disk (model_files.h), whose other functions give the readers that
 * stream rows of their own (series, dump, export, join) the files'
 * SQLite connection.
 */
#ifndef NTP_MODEL_SOURCE_H
#define NTP_MODEL_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "lib/join/join_types.h"

/* what a set of recordings is, decided once for every reader */
enum ntp_kind {
	NTP_KIND_HOST,            /* one host recording */
	NTP_KIND_TARGET,          /* one target recording */
	NTP_KIND_BOTH,            /* one "-r both" recording: both sides on one clock */
	NTP_KIND_JOINED,          /* one joined recording (ntprof join): with its own pairing */
	NTP_KIND_PAIR,            /* several recordings, host and target sides, joined */
	NTP_KIND_MAX,
};

/* "host", "target", "both", "joined", "pair": what -v says and the tests compare */
const char *ntp_kind__name(enum ntp_kind k);
/* is a source of this kind joined (both sides, paired by the join)? */
bool ntp_kind__joined(enum ntp_kind k);

/* file i again, read-only, on a connection of its own: for a reader on a thread of its own */
typedef int (*ntp_reopen_fn)(void *ctx, int i, sqlite3 **db);

struct ntp_source;
struct ntp_report;
struct ntp_report_load;

/* the most stages a view of a group has (model_view.c's joined detail) */
#define NTP_VIEW_MAX_STAGES 9

/* one command as a source streams it (ops->rows) */
struct ntp_source_row {
	int file;                 /* the run of its start's clock, from 1 */
	const char *io_type, *ns;
	int64_t bytes;
	int64_t t_ns;             /* its start: h_start, or a target alone's t_recv */
	int64_t e2e, stage[NTP_VIEW_MAX_STAGES];
};

/* takes one row; 0 or an NTP_EXIT_* code, which stops the stream */
typedef int (*ntp_source_row_fn)(void *ctx, const struct ntp_source_row *row);

/* what differs between kinds of source: how the report model is filled */
struct ntp_source_ops {
	const char *name;         /* "files" */
	/* r's headers and groups from the source, as lo asks; an NTP_EXIT_* code */
	int (*load)(struct ntp_source *s, struct ntp_report *r, const struct ntp_report_load *lo);
	/*
	 * NULL for files, whose readers stream their SQLite rows themselves:
	 * the commands of r's view (r loaded by load) that pass the filters it
	 * was loaded with, run by run in r's order of files, each run's in the
	 * order of their start (ties by id); 0 or an NTP_EXIT_* code
	 */
	int (*rows)(struct ntp_source *s, const struct ntp_report *r, ntp_source_row_fn fn,
		    void *ctx);
	/* with rows: run i's meta start_ns on its clock, -1 unknown */
	int64_t (*start_ns)(struct ntp_source *s, int i);
	/*
	 * the verdict of the checks still running on the source's data
	 * (ntp_source__verdict), waited for: 0, or an NTP_EXIT_* code and its
	 * line in msg (not printed); NULL when a source has none
	 */
	int (*wait)(struct ntp_source *s, char *msg, size_t len);
	void (*close)(struct ntp_source *s);
};

struct ntp_source {
	const struct ntp_source_ops *ops;
	enum ntp_kind kind;
	int n;
	/* each run's path, schema on db, role (the roles table's name) and sides */
	struct ntp_join_file files[NTP_JOIN_MAX_FILES];
	int64_t host_rows[NTP_JOIN_MAX_FILES];   /* host_io's rows as the check counted them */
	bool rdma;                /* NVMe/RDMA recordings (meta transport of the first) */
	bool fresh;               /* pair a "-r both" recording anew (ntp_join_opts.fresh) */
	/* a files source (model_files.h): "main" alone, or every file ATTACHed */
	sqlite3 *db;
	char schemas[NTP_JOIN_MAX_FILES][16];
	/* the structure of the files' tables of one row a command, checked meanwhile */
	struct ntp_db_check *check;
};

/*
 * A reader's result once what is still being checked of its sources
 * s[0..n) (NULL ones skipped) is known.  Opening a source leaves part of
 * its check running, on a thread of its own, while the reader reads (the
 * structure of the recordings' largest tables: lib/ntp/db_read.h), and
 * holds every error from then on (ntp_err__defer), since what damage makes
 * a reader say is not what happened.  Waits for the checks: the first
 * damage they found, in order, is the one error line and its code
 * (NTP_EXIT_CORRUPT), whatever rc; else rc, after the first error held
 * since the opening, if any, is printed.  Every reader calls it once,
 * after its reading and before its final output, its error document or
 * its warnings: so a damaged file never gives a normal output.  A reader
 * that streams its output as it reads (dump, series, export) calls it
 * before its output files take their places: on standard output, what was
 * written stays, and the exit status and the error line say it is not to
 * be used.
 */
int ntp_source__verdict(struct ntp_source *const *s, int n, int rc);

/*
 * NULL does nothing.  A reader that closes its source without having
 * asked for the verdict gets it here, so what the opening held is told,
 * not lost, and errors are printed again from then on.
 */
void ntp_source__close(struct ntp_source *s);

#endif
