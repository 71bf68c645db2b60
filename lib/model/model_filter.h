/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The read filters of report, compare and dump (ntprof-report(1), "Read
 * filters"): which of a recording's commands are read at all.  The words
 * are record's where they mean the same (--session, --io-type, --size; its
 * --size parser, lib/core/filter.h, is the one definition of a size list),
 * plus --qid and --time, which record has no use for.
 *
 *	--session NAME[,NAME]  the namespace disk (nvmeXnY) or the path disk
 *	                       (nvmeXcYnZ) a host command went to; a target
 *	                       recording alone: the backend device
 *	--io-type T[,T]        read, write, other
 *	--size SIZES           bytes, as record's --size (4K,128K)
 *	--qid Q[,Q]            queue ids, or ranges LO-HI (1-4,7)
 *	--time START,END       seconds from the recording's start (either may be
 *	                       empty): the commands that started in [START, END)
 *
 * A command passes when it passes every filter given; within one filter,
 * when it matches any item.  The filters narrow the rows, never the header:
 * a file's counts and the join's stay those of the whole recording.
 *
 * Applied where the rows are read: a WHERE clause of bound parameters
 * (ntp_read_filter__prepare: one walk of the filter writes the clause and
 * binds it, so the two cannot drift; no user text is pasted into SQL),
 * or, for rows that do not come from SQL (the join's stage scan),
 * ntp_read_filter__match, which tests/unit/test_read_filter.c holds to the
 * clause's answers row by row (tests/integration/test_read_filters.py checks
 * the reports against Python).
 */
#ifndef NTP_MODEL_FILTER_H
#define NTP_MODEL_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "bpf/ntp_filter.h"
#include "lib/join/join.h"

#define NTP_READ_MAX_QIDS 16
#define NTP_READ_MAX_NAMES 16
/* longer than any disk or device name (a sysfs name is at most 255 bytes) */
#define NTP_READ_NAME_MAX 255

enum ntp_read_io {
	NTP_READ_IO_READ = 1 << 0,
	NTP_READ_IO_WRITE = 1 << 1,
	NTP_READ_IO_OTHER = 1 << 2,
};

struct ntp_read_qids {
	uint32_t lo, hi;              /* inclusive */
};

/* zero-initialised: no filter */
struct ntp_read_filter {
	const char *session;          /* --session as given (validated): comma-separated names */
	unsigned int io_types;        /* enum ntp_read_io; 0: any */
	struct ntp_filter sizes;      /* --size, parsed by record's parser; flags 0: any */
	struct ntp_read_qids qids[NTP_READ_MAX_QIDS];
	int nqids;                    /* 0: any */
	bool has_start, has_end;      /* --time */
	int64_t start_ns, end_ns;     /* from the recording's start */
};

/* the I/O types by name, in the order of enum ntp_read_io, NULL-ended */
extern const char *const ntp_read_io_names[];

/* the next comma-separated item of *p: its length; *p moves past it and its comma */
size_t ntp_read_filter__next_item(const char **p, const char **item);

/* is any filter given? (f may be NULL) */
bool ntp_read_filter__any(const struct ntp_read_filter *f);
/*
 * How much of a recording of duration_ns (0: unknown) --time covers: the
 * window cut to the recording, or the duration without --time.  0 when
 * unknown (an open window on a recording of unknown length).
 */
int64_t ntp_read_filter__window_ns(const struct ntp_read_filter *f, int64_t duration_ns);

/*
 * Where a query finds what the filters test: SQL expressions over its FROM
 * (NULL when it has no such column; the name columns are tried in turn).
 */
struct ntp_read_cols {
	const char *io_type, *bytes, *qid;
	const char *names[3];         /* --session: namespace, path, device */
	const char *time;             /* the command's start: h_start_ns, t_recv_ns */
	const char *file;             /* the file a row is of, from 0; NULL: one file */
};

/*
 * What --time is measured from: each file's start (meta start_ns, else its
 * first command), on its clock.  starts[i] for file i.
 */
struct ntp_read_where {
	const struct ntp_read_filter *f;
	const struct ntp_read_cols *cols;
	int64_t starts[NTP_JOIN_MAX_FILES];
	int nfiles;
};

/*
 * w->starts[] of the files in schemas[0..n) of db (the host side's
 * h_start_ns, or with target set a target alone's t_recv_ns), only when
 * f has --time.  0 or an NTP_EXIT_* code after one error line.
 */
int ntp_read_filter__starts(struct ntp_read_where *w, sqlite3 *db, const char *const *schemas,
			    int n, bool target, const char *path);

/*
 * head, w's clause, tail (may be NULL) prepared on db and the clause bound:
 * SQLite's code (SQLITE_NOMEM when the text cannot be built).  head must
 * end in a WHERE clause of its own ("... WHERE 1" will do).
 */
int ntp_read_filter__prepare(sqlite3 *db, const char *head, const struct ntp_read_where *w,
			     const char *tail, sqlite3_stmt **st);

/*
 * file_start: what --time of the recording open in db as schema runs from:
 * meta start_ns, else its first command's start (t_recv_ns of target_io
 * with target, else h_start_ns), else 0.  0 or an NTP_EXIT_* code after
 * one error line naming path.
 */
int ntp_read_filter__file_start(sqlite3 *db, const char *schema, bool target, const char *path,
				int64_t *start);

struct ntp_source;
/*
 * After a read through f that no command of s passed (model_filter_none.c):
 * a warning that says so, naming the filters, and one that says what the
 * recordings hold that the filters test (the namespaces and paths, or a
 * target alone's devices, the I/O types, sizes, queues and when the
 * commands started).  run: NULL, or what begins each line ("the new run: ").
 * The command still succeeds: nothing passing is an answer, not an error.
 */
void ntp_read_filter__warn_none(const struct ntp_source *s, const struct ntp_read_filter *f,
				const char *run);

/* one command as the join's stage scan has it */
struct ntp_read_row {
	int file;                     /* from 0 */
	const char *io_type, *ns, *path;
	int64_t bytes, qid, time_ns;
};

/* does the row pass w's filters? (as the SQL clause decides) */
bool ntp_read_filter__match(const struct ntp_read_where *w, const struct ntp_read_row *r);

#endif
