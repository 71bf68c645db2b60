// SPDX-License-Identifier: GPL-2.0
/*
 * The recordings on disk as a source (lib/model/model_files.h): opened and
 * checked once, classified once, and read into the report model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/transport.h"
#include "lib/join/join.h"
#include "lib/model/model.h"
#include "lib/model/model_check.h"
#include "lib/model/model_evidence.h"
#include "lib/model/model_files.h"
#include "lib/model/model_header.h"
#include "lib/model/model_join.h"
#include "lib/model/model_load.h"
#include "lib/model/model_scan.h"
#include "lib/model/model_view.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_read.h"
#include "lib/ntp/db_role.h"

/*
 * File i again, read-only, on a connection of its own (schema "main"),
 * for a reader working on a thread of its own.  0 or an NTP_EXIT_* code,
 * printed.  As a callback (ntp_join_input.reopen): ctx is the source.
 */
static int reopen(const struct ntp_source *s, int i, sqlite3 **db)
{
	/* guarded, with ntprof's views: never the file's (lib/ntp/db_guard.h) */
	return ntp_db__open_again(db, s->files[i].path);
}

static int reopen_cb(void *ctx, int i, sqlite3 **db)
{
	return reopen(ctx, i, db);
}

/* ---- the report model from the files ---------------------------------------- */

static int copy_join(struct ntp_report *r, struct ntp_join *j)
{
	r->npairs = ntp_join__npairs(j);
	r->pairs = calloc(r->npairs ? r->npairs : 1, sizeof(*r->pairs));
	if (!r->pairs) {
		ntp_error("join: %s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	for (int i = 0; i < r->npairs; i++)
		r->pairs[i] = *ntp_join__pair(j, i);
	ntp_join__counts(j, &r->counts);
	return 0;
}

/* one recording, no join: its header and its commands on the source's connection */
static int load_one(struct ntp_source *s, struct ntp_report *r, bool evidence)
{
	const char *path = s->files[0].path;
	int rc;

	rc = ntp_report__load_file(&r->files[0], s->db, "main", path, s->host_rows[0], -1);
	if (rc)
		return rc;
	if (r->view == NTP_VIEW_HOST)
		return ntp_report__scan_host(r, s->db, path, evidence, reopen_cb, s);
	return ntp_report__scan_view(r, s->db, path);
}

/*
 * The summary is made as the join reads the files (model_join.h); every
 * other view of joined recordings is read through temp.joined.  The files'
 * headers are read on the source's connection, with the rows the join
 * counted.
 */
static int load_joined(struct ntp_source *s, struct ntp_report *r)
{
	const char *path = s->files[0].path;
	struct ntp_join_opts jo = { 0 };
	struct ntp_report_join *rj = NULL;
	struct ntp_join *j = NULL;
	int rc = 0;

	if (r->view == NTP_VIEW_JOINED)
		rc = ntp_report_join__new(&rj, r, &jo);
	if (!rc)
		rc = ntp_source__open_join(s, &jo, &j);
	if (!rc && rj)
		rc = ntp_report_join__prepare(rj, j, path);
	if (!rc)
		rc = ntp_join__run(j);
	if (!rc)
		rc = copy_join(r, j);
	if (!rc)
		rc = rj ? ntp_report_join__scan(rj, j, path) :
		     ntp_report__scan_view(r, ntp_join__db(j), path);
	for (int i = 0; i < s->n && !rc; i++) {
		int64_t hrows, trows;

		ntp_join__file_rows(j, i, &hrows, &trows);
		rc = ntp_report__load_file(&r->files[i], s->db, s->files[i].schema, s->files[i].path,
					   hrows, trows);
	}
	ntp_join__close(j);
	ntp_report_join__free(rj);
	return rc;
}

static int files_load(struct ntp_source *s, struct ntp_report *r,
		      const struct ntp_report_load *lo)
{
	bool evidence = lo && lo->evidence;
	int rc = ntp_kind__joined(s->kind) ? load_joined(s, r) : load_one(s, r, evidence);

	/* the host files the load did not read in one scan of their rows: a scan of their own */
	for (int i = 0; i < s->n && !rc && evidence && r->kind != NTP_REPORT_TARGET; i++)
		if (s->files[i].sides & NTP_SIDE_HOST && !r->files[i].evidence)
			rc = ntp_evidence__scan(r, s, i);
	return rc;
}

static int files_wait(struct ntp_source *s, char *msg, size_t len)
{
	return ntp_db__check_wait(s->check, msg, len);
}

static void files_close(struct ntp_source *s)
{
	ntp_db__check_free(s->check);
	sqlite3_close(s->db);
	free(s);
}

static const struct ntp_source_ops files_ops = {
	.name = "files",
	.load = files_load,
	.wait = files_wait,
	.close = files_close,
};

/* ---- opening ---------------------------------------------------------------- */

/*
 * A private connection for the joined kinds: in memory, NOMUTEX (one thread
 * uses it; readers on other threads open the files again), URIs for
 * read-only attaching, and guarded: it reads untrusted files.  Its TEMP
 * objects (ntprof's views, the join's tables) are in memory too, so the
 * recordings stay untouched and /tmp unused; set first, since a change of
 * temp_store drops every TEMP object made before it.
 */
static int new_connection(sqlite3 **db)
{
	if (sqlite3_open_v2(":memory:", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		ntp_error("cannot open an in-memory database: %s",
			  *db ? sqlite3_errmsg(*db) : strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (sqlite3_exec(*db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL) != SQLITE_OK) {
		ntp_error("cannot set up an in-memory database: %s", sqlite3_errmsg(*db));
		return NTP_EXIT_FAILURE;
	}
	return ntp_db__guard(*db);
}

/* the checked file at path ATTACHed read-only to db as schema, with ntprof's views */
static int attach(sqlite3 *db, const char *path, const char *schema)
{
	/* read-only, and nothing made or changed beside the file (lib/ntp/db_state.h) */
	int err = ntp_db__attach_read(db, path, schema);

	/* ntprof's stage views over it, schema_host_stages (lib/ntp/db_guard.h) */
	return err ? err : ntp_db__guard_file(db, schema, path);
}

/* every file, checked, ATTACHed to a new connection and found joinable */
static int open_joined(struct ntp_source *s)
{
	int err = new_connection(&s->db);

	for (int i = 0; i < s->n && !err; i++)
		err = attach(s->db, s->files[i].path, s->files[i].schema);
	if (!err)
		err = ntp_model__check_joinable(s->db, s->files, s->n);
	return err;
}

/*
 * One recording, on a connection of its own: a host or a target recording
 * is read there; a "-r both" or joined one is attached again to a
 * connection of the joined kinds.  A file whose role is missing or unknown
 * is read as a host recording, as ntprof's first recordings were.
 */
static int open_one(struct ntp_source *s)
{
	const char *path = s->files[0].path;
	enum ntp_role role;
	char *name;
	int err;

	err = ntp_db__open_read_counted(&s->db, path, &s->host_rows[0]);
	if (!err)
		err = ntp_model__check_meta(s->db, path);
	if (err)
		return err;
	name = ntp_meta__text(s->db, NTP_META_ROLE);
	role = ntp_role__find(name);
	free(name);
	s->kind = role == NTP_ROLE_TARGET ? NTP_KIND_TARGET : role == NTP_ROLE_BOTH ?
		  NTP_KIND_BOTH : role == NTP_ROLE_JOINED ? NTP_KIND_JOINED : NTP_KIND_HOST;
	if (!ntp_kind__joined(s->kind)) {
		snprintf(s->schemas[0], sizeof(s->schemas[0]), "main");
		s->files[0].role = role < NTP_ROLE_MAX ? ntp_roles[role].name : NULL;
		s->files[0].sides = role == NTP_ROLE_TARGET ? NTP_SIDE_TARGET : NTP_SIDE_HOST;
		return 0;
	}
	sqlite3_close(s->db);
	s->db = NULL;
	return open_joined(s);
}

int ntp_source__open_files(struct ntp_source **sp, const char *const *paths, int n, bool fresh)
{
	struct ntp_source *s;
	char *transport;
	int err;

	*sp = NULL;
	if (n < 1 || n > NTP_JOIN_MAX_FILES) {
		ntp_error("%d recordings given: between 1 and %d can be read together", n,
			  NTP_JOIN_MAX_FILES);
		return NTP_EXIT_USAGE;
	}
	err = ntp_model__check_twice(paths, n);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s) {
		ntp_error("%s: %s", paths[0], strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	s->ops = &files_ops;
	s->n = n;
	s->fresh = fresh;
	for (int i = 0; i < n; i++) {
		snprintf(s->schemas[i], sizeof(s->schemas[i]), "ntp%d", i);
		s->files[i].path = paths[i];
		s->files[i].schema = s->schemas[i];
		s->host_rows[i] = -1;
	}
	if (n == 1) {
		err = open_one(s);
	} else {
		s->kind = NTP_KIND_PAIR;
		err = ntp_model__check_files(paths, n, s->host_rows);
		if (!err)
			err = open_joined(s);
	}
	/* what the opening left of the files' check runs while they are read */
	if (!err)
		err = ntp_db__check_start(&s->check, paths, n);
	if (err) {
		files_close(s);
		return err;
	}
	ntp_err__defer();
	transport = ntp_source__meta_text(s, 0, NTP_META_TRANSPORT);
	s->rdma = transport && !strcmp(transport, ntp_transport__name(NTP_TRANSPORT_RDMA));
	free(transport);
	ntp_debug("reading %s: kind %s", n == 1 ? paths[0] : "the recordings",
		  ntp_kind__name(s->kind));
	*sp = s;
	return 0;
}

/* ---- what the readers use ----------------------------------------------------- */

char *ntp_source__meta_text(const struct ntp_source *s, int i, enum ntp_meta_key k)
{
	return ntp_meta__text_in(s->db, s->files[i].schema, k);
}

int64_t ntp_source__meta_int(const struct ntp_source *s, int i, enum ntp_meta_key k, int64_t def)
{
	return ntp_meta__int_in(s->db, s->files[i].schema, k, def);
}

/* a joined recording's target side, which has a meta of its own */
static bool own_target_meta(const struct ntp_source *s, int side)
{
	return s->kind == NTP_KIND_JOINED && side == NTP_SIDE_TARGET;
}

char *ntp_source__side_meta_text(const struct ntp_source *s, int i, int side,
				 enum ntp_meta_key k)
{
	char *v = own_target_meta(s, side) ?
		  ntp_meta__target_text_in(s->db, s->files[i].schema, k) : NULL;

	/* one made of a "-r both" recording kept its meta as side 'both': one machine's */
	return v ? v : ntp_source__meta_text(s, i, k);
}

int64_t ntp_source__side_meta_int(const struct ntp_source *s, int i, int side,
				  enum ntp_meta_key k, int64_t def)
{
	int64_t v = own_target_meta(s, side) ?
		    ntp_meta__target_int_in(s->db, s->files[i].schema, k, INT64_MIN) : INT64_MIN;

	return v != INT64_MIN ? v : ntp_source__meta_int(s, i, k, def);
}

int ntp_source__open_join(struct ntp_source *s, const struct ntp_join_opts *o,
			  struct ntp_join **j)
{
	struct ntp_join_input in = { .db = s->db, .files = s->files, .nfiles = s->n,
				     .reopen = reopen_cb, .ctx = s };
	struct ntp_join_opts jo = { 0 };

	*j = NULL;
	if (o)
		jo = *o;
	jo.fresh = s->fresh;
	/* a host or a target recording alone: the join's own refusal names what is missing */
	if (!ntp_kind__joined(s->kind))
		return ntp_model__check_joinable(s->db, s->files, s->n) ?: NTP_EXIT_MISMATCH;
	return ntp_join__open(j, &in, &jo);
}

int ntp_source__store_pairing(const char *path)
{
	struct ntp_source *s;
	struct ntp_join *j = NULL;
	int err;

	err = ntp_source__open_files(&s, &path, 1, true);
	if (err)
		return err;
	if (s->kind != NTP_KIND_BOTH) {
		ntp_error("%s: not a '-r both' recording: its pairing is not its own to store", path);
		err = NTP_EXIT_MISMATCH;
	}
	if (!err)
		err = ntp_source__open_join(s, NULL, &j);
	if (!err)
		err = ntp_join__run(j);
	/*
	 * The damage check reads the file beside the join, through a
	 * connection that takes no locks (a finished file is immutable): its
	 * verdict comes before the pairing is written into that same file.
	 */
	err = ntp_source__verdict(&s, 1, err);
	if (!err)
		err = ntp_join__store(j);
	ntp_join__close(j);
	ntp_source__close(s);
	return err;
}
