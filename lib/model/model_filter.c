// SPDX-License-Identifier: GPL-2.0
/*
 * The read filters (model_filter.h) applied: the WHERE clause written and
 * bound by one walk, and the same test in C for the join's stage scan.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/core/filter.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sql.h"

const char *const ntp_read_io_names[] = { "read", "write", "other", NULL };

/* the next comma-separated item of *p: its length; *p moves past it and its comma */
size_t ntp_read_filter__next_item(const char **p, const char **item)
{
	size_t len = strcspn(*p, ",");

	*item = *p;
	*p += len;
	if (**p == ',')
		(*p)++;
	return len;
}

bool ntp_read_filter__any(const struct ntp_read_filter *f)
{
	return f && (f->session || f->io_types || f->sizes.nsizes || f->nqids || f->has_start ||
		     f->has_end);
}

static bool has_time(const struct ntp_read_filter *f)
{
	return f && (f->has_start || f->has_end);
}

int64_t ntp_read_filter__window_ns(const struct ntp_read_filter *f, int64_t duration_ns)
{
	int64_t lo, hi;

	if (!has_time(f))
		return duration_ns > 0 ? duration_ns : 0;
	lo = f->has_start ? f->start_ns : 0;
	if (f->has_end)
		hi = duration_ns > 0 && duration_ns < f->end_ns ? duration_ns : f->end_ns;
	else if (duration_ns > 0)
		hi = duration_ns;
	else
		return 0;
	return hi > lo ? hi - lo : 0;
}

/* ---- where --time starts ---------------------------------------------------- */

int ntp_read_filter__file_start(sqlite3 *db, const char *schema, bool target, const char *path,
				int64_t *start)
{
	char sql[160];
	sqlite3_stmt *st;
	int rc;

	*start = 0;
	snprintf(sql, sizeof(sql), "SELECT value FROM \"%s\".meta WHERE key = 'start_ns'", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return ntp_report__db_fail(db, path, "cannot read the meta");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		*start = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return ntp_report__db_fail(db, path, "cannot read the meta");
	snprintf(sql, sizeof(sql), target ? "SELECT min(t_recv_ns) FROM \"%s\".target_io" :
		 "SELECT min(h_start_ns) FROM \"%s\".host_io", schema);
	rc = ntp_report__one_row(db, path, sql, "cannot read the commands", &st);
	if (rc)
		return rc;
	if (sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		*start = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int ntp_read_filter__starts(struct ntp_read_where *w, sqlite3 *db, const char *const *schemas,
			    int n, bool target, const char *path)
{
	w->nfiles = n;
	for (int i = 0; i < n && has_time(w->f); i++) {
		int rc = ntp_read_filter__file_start(db, schemas[i], target, path, &w->starts[i]);

		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the clause, written and bound by one walk ------------------------------ */

/* writes (m) or binds (st) the parameters in the order they appear */
struct walk {
	FILE *m;
	sqlite3_stmt *st;
	int k;                        /* parameters so far */
	int rc;                       /* SQLite's first error binding */
};

static int param_index(struct walk *w)
{
	char name[16];

	snprintf(name, sizeof(name), ":rf%d", ++w->k);
	if (w->m)
		fputs(name, w->m);
	return w->st ? sqlite3_bind_parameter_index(w->st, name) : 0;
}

static void param_int(struct walk *w, int64_t v)
{
	int i = param_index(w);

	if (w->st && !w->rc)
		w->rc = i ? sqlite3_bind_int64(w->st, i, v) : SQLITE_RANGE;
}

static void param_text(struct walk *w, const char *s, size_t len)
{
	int i = param_index(w);

	if (w->st && !w->rc)
		w->rc = i ? sqlite3_bind_text(w->st, i, s, (int)len, SQLITE_TRANSIENT) : SQLITE_RANGE;
}

static void text(struct walk *w, const char *s)
{
	if (w->m)
		fputs(s, w->m);
}

/* "col IN (:rfN, ...)" of the names of --session */
static void names_in(struct walk *w, const char *col, const char *list)
{
	const char *p = list, *item;
	int n = 0;

	text(w, col);
	text(w, " IN (");
	while (*p) {
		size_t len = ntp_read_filter__next_item(&p, &item);

		text(w, n++ ? ", " : "");
		param_text(w, item, len);
	}
	text(w, ")");
}

static void time_bounds(struct walk *w, const struct ntp_read_filter *f, const char *col,
			int64_t start)
{
	const char *and = "";

	/* saturating: START is at most 1e9 s, a start near INT64_MAX would be a corrupt file */
	if (f->has_start) {
		text(w, col);
		text(w, " >= ");
		param_int(w, start > INT64_MAX - f->start_ns ? INT64_MAX : start + f->start_ns);
		and = " AND ";
	}
	if (f->has_end) {
		text(w, and);
		text(w, col);
		text(w, " < ");
		param_int(w, start > INT64_MAX - f->end_ns ? INT64_MAX : start + f->end_ns);
	}
}

static void walk(const struct ntp_read_where *wh, struct walk *w)
{
	const struct ntp_read_filter *f = wh ? wh->f : NULL;
	const struct ntp_read_cols *c = wh ? wh->cols : NULL;

	if (!ntp_read_filter__any(f))
		return;
	if (f->io_types && c->io_type) {
		int n = 0;

		text(w, " AND ");
		text(w, c->io_type);
		text(w, " IN (");
		for (int k = 0; ntp_read_io_names[k]; k++) {
			if (!(f->io_types & (1u << k)))
				continue;
			text(w, n++ ? ", " : "");
			param_text(w, ntp_read_io_names[k], strlen(ntp_read_io_names[k]));
		}
		text(w, ")");
	}
	if (f->sizes.nsizes && c->bytes) {
		text(w, " AND ");
		text(w, c->bytes);
		text(w, " IN (");
		for (uint32_t i = 0; i < f->sizes.nsizes; i++) {
			text(w, i ? ", " : "");
			param_int(w, f->sizes.sizes[i]);
		}
		text(w, ")");
	}
	if (f->session) {
		int n = 0;

		text(w, " AND (");
		for (int i = 0; i < 3; i++) {
			if (!c->names[i])
				continue;
			text(w, n++ ? " OR " : "");
			names_in(w, c->names[i], f->session);
		}
		/* a query without a name column passes nothing rather than everything */
		text(w, n ? ")" : "0)");
	}
	if (f->nqids && c->qid) {
		text(w, " AND (");
		for (int i = 0; i < f->nqids; i++) {
			text(w, i ? " OR " : "");
			text(w, c->qid);
			text(w, " BETWEEN ");
			param_int(w, f->qids[i].lo);
			text(w, " AND ");
			param_int(w, f->qids[i].hi);
		}
		text(w, ")");
	}
	if (has_time(f) && c->time) {
		text(w, " AND (");
		if (!c->file || wh->nfiles <= 1) {
			time_bounds(w, f, c->time, wh->nfiles ? wh->starts[0] : 0);
		} else {
			/* each file's window on its own clock, from its own start */
			for (int i = 0; i < wh->nfiles; i++) {
				text(w, i ? " OR (" : "(");
				text(w, c->file);
				text(w, " = ");
				param_int(w, i);
				text(w, " AND ");
				time_bounds(w, f, c->time, wh->starts[i]);
				text(w, ")");
			}
		}
		text(w, ")");
	}
}

/*
 * " AND (...)" for each filter given, appended to m (nothing without
 * filters); its parameters are named :rf1, :rf2, ... so they never clash
 * with the query's own.  w may be NULL.
 */
static void where_sql(const struct ntp_read_where *w, FILE *m)
{
	struct walk wk = { .m = m };

	walk(w, &wk);
}

/* binds what where_sql wrote into st's parameters; SQLite's code */
static int where_bind(const struct ntp_read_where *w, sqlite3_stmt *st)
{
	struct walk wk = { .st = st };

	walk(w, &wk);
	return wk.rc;
}

int ntp_read_filter__prepare(sqlite3 *db, const char *head, const struct ntp_read_where *w,
			     const char *tail, sqlite3_stmt **st)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int rc;

	*st = NULL;
	if (!m)
		return SQLITE_NOMEM;
	fputs(head, m);
	where_sql(w, m);
	if (tail)
		fputs(tail, m);
	if (fclose(m)) {
		free(sql);
		return SQLITE_NOMEM;
	}
	rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
	free(sql);
	if (rc == SQLITE_OK)
		rc = where_bind(w, *st);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return rc;
}

/* ---- the same test in C ------------------------------------------------------- */

static bool in_list(const char *list, const char *s)
{
	const char *p = list, *item;
	size_t n = s ? strlen(s) : 0;

	if (!s)
		return false;
	while (*p) {
		size_t len = ntp_read_filter__next_item(&p, &item);

		if (len == n && !memcmp(item, s, n))
			return true;
	}
	return false;
}

bool ntp_read_filter__match(const struct ntp_read_where *wh, const struct ntp_read_row *r)
{
	const struct ntp_read_filter *f = wh ? wh->f : NULL;

	if (!ntp_read_filter__any(f))
		return true;
	if (f->io_types) {
		int k;

		for (k = 0; ntp_read_io_names[k]; k++)
			if (r->io_type && !strcmp(r->io_type, ntp_read_io_names[k]))
				break;
		if (!ntp_read_io_names[k] || !(f->io_types & (1u << k)))
			return false;
	}
	if (f->sizes.nsizes) {
		bool hit = false;

		for (uint32_t i = 0; i < f->sizes.nsizes; i++)
			hit |= r->bytes == (int64_t)f->sizes.sizes[i];
		if (!hit)
			return false;
	}
	if (f->session && !in_list(f->session, r->ns) && !in_list(f->session, r->path))
		return false;
	if (f->nqids) {
		bool hit = false;

		for (int i = 0; i < f->nqids; i++)
			hit |= r->qid >= f->qids[i].lo && r->qid <= f->qids[i].hi;
		if (!hit)
			return false;
	}
	if (has_time(f)) {
		int64_t start = r->file >= 0 && r->file < wh->nfiles ? wh->starts[r->file] : 0;
		/* exact for any two times a file holds, as SQL's (which goes to a real past 64 bits) */
		__int128 t = (__int128)r->time_ns - start;

		if (f->has_start && t < f->start_ns)
			return false;
		if (f->has_end && t >= f->end_ns)
			return false;
	}
	return true;
}

