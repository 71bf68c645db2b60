// SPDX-License-Identifier: GPL-2.0
/*
 * The read filters (model_filter.h): the options parsed and checked, the
 * WHERE clause written and bound by one walk, the same test in C for the
 * join's stage scan, and the filters as the report's header shows them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/fmt/json.h"
#include "lib/core/filter.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sql.h"

/* longer than any disk or device name (a sysfs name is at most 255 bytes) */
#define NAME_MAX_LEN 255
/* --time's bound: far past any recording, and no overflow once in ns */
#define TIME_MAX_S 1e9

static const char *const io_names[] = { "read", "write", "other", NULL };

static int bad(const struct ntp_option *opt, const char *arg, const char *why)
{
	ntp_error("invalid value '%s' for option '--%s': %s", arg, opt->long_name, why);
	return -1;
}

/* the next comma-separated item of *p: its length; *p moves past it and its comma */
static size_t next_item(const char **p, const char **item)
{
	size_t len = strcspn(*p, ",");

	*item = *p;
	*p += len;
	if (**p == ',')
		(*p)++;
	return len;
}

/* "a,b": no empty item ("a,,b", ",a", "a,") */
static bool items_ok(const char *arg)
{
	size_t n = strlen(arg);

	return n && arg[0] != ',' && arg[n - 1] != ',' && !strstr(arg, ",,");
}

int ntp_read_filter__opt_session(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	const char *p = arg, *item;
	int n = 0;

	if (!items_ok(arg))
		return bad(opt, arg, "an empty name: expected names separated by commas, as in "
			   "nvme0n1,nvme1n1");
	while (*p) {
		size_t len = next_item(&p, &item);

		if (len > NAME_MAX_LEN)
			return bad(opt, arg, "a name longer than 255 bytes");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)item[i] < 0x20 || item[i] == 0x7f)
				return bad(opt, arg, "a control character in a name");
		if (++n > NTP_READ_MAX_NAMES)
			return bad(opt, arg, "more than 16 names");
	}
	f->session = arg;
	return 0;
}

int ntp_read_filter__opt_io_type(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	const char *p = arg, *item;
	unsigned int m = 0;

	if (!items_ok(arg))
		return bad(opt, arg, "an empty item: expected read, write or other, comma-separated");
	while (*p) {
		size_t len = next_item(&p, &item);
		char word[16];
		int k;

		for (k = 0; io_names[k]; k++)
			if (strlen(io_names[k]) == len && !strncmp(io_names[k], item, len))
				break;
		if (!io_names[k]) {
			const char *hint;

			snprintf(word, sizeof(word), "%.*s", (int)(len < 15 ? len : 15), item);
			hint = ntp_opt__suggest(word, io_names);
			ntp_error("invalid value '%s' for option '--%s': '%.*s' is not an I/O type: "
				  "expected read, write or other, comma-separated%s%s%s", arg,
				  opt->long_name, (int)len, item, hint ? "; did you mean '" : "",
				  hint ? hint : "", hint ? "'?" : "");
			return -1;
		}
		m |= 1u << k;
	}
	f->io_types = m;
	return 0;
}

/* record's parser, record's words: one definition of a size list (lib/core/filter.h) */
int ntp_read_filter__opt_size(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	struct ntp_filter s = { 0 };

	if (ntp_filter__set_sizes(&s, arg))
		return -1;
	f->sizes = s;
	return 0;
}

/* a queue id: decimal, 0 (the admin queue) to 65535 (NVMe's largest) */
static int qid_value(const char *s, size_t len, uint32_t *v)
{
	char buf[8];
	uint64_t u;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (ntp_opt__parse_uint(buf, &u) || u > 65535)
		return -1;
	*v = (uint32_t)u;
	return 0;
}

int ntp_read_filter__opt_qid(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	struct ntp_read_qids q[NTP_READ_MAX_QIDS];
	const char *p = arg, *item;
	int n = 0;

	if (!items_ok(arg))
		return bad(opt, arg, "an empty item: expected queue ids or ranges, as in 1-4,7");
	while (*p) {
		size_t len = next_item(&p, &item);
		const char *dash = memchr(item, '-', len);
		char why[160];

		if (n == NTP_READ_MAX_QIDS)
			return bad(opt, arg, "more than 16 items");
		if (dash ? qid_value(item, (size_t)(dash - item), &q[n].lo) ||
			   qid_value(dash + 1, len - (size_t)(dash - item) - 1, &q[n].hi) :
			   qid_value(item, len, &q[n].lo)) {
			snprintf(why, sizeof(why), "'%.*s' is not a queue id or a range LO-HI of "
				 "them (0 to 65535)", (int)(len < 32 ? len : 32), item);
			return bad(opt, arg, why);
		}
		if (!dash)
			q[n].hi = q[n].lo;
		if (q[n].lo > q[n].hi) {
			snprintf(why, sizeof(why), "the range '%.*s' ends before it starts",
				 (int)len, item);
			return bad(opt, arg, why);
		}
		n++;
	}
	memcpy(f->qids, q, sizeof(q));
	f->nqids = n;
	return 0;
}

/* one side of --time: empty (unbounded), or seconds as -d takes them (2, 2.5, 500ms) */
static int time_side(const char *s, size_t len, bool *has, int64_t *ns)
{
	char buf[64];
	double sec;

	*has = len > 0;
	if (!len)
		return 0;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (ntp_opt__parse_seconds(buf, &sec) || sec > TIME_MAX_S)
		return -1;
	*ns = llround(sec * 1e9);
	return 0;
}

int ntp_read_filter__opt_time(const struct ntp_option *opt, const char *arg)
{
	struct ntp_read_filter *f = opt->value;
	const char *comma = strchr(arg, ',');
	bool hs, he;
	int64_t s = 0, e = 0;

	if (!comma || strchr(comma + 1, ','))
		return bad(opt, arg, "expected START,END in seconds from the recording's start, "
			   "either may be empty (2,5 or 2, or ,5)");
	if (time_side(arg, (size_t)(comma - arg), &hs, &s) ||
	    time_side(comma + 1, strlen(comma + 1), &he, &e))
		return bad(opt, arg, "START and END are seconds (2, 2.5, 500ms, 1m), at most 1e9 s");
	if (!hs && !he)
		return bad(opt, arg, "neither START nor END given");
	if (hs && he && e <= s)
		return bad(opt, arg, "END is not after START");
	f->has_start = hs;
	f->has_end = he;
	f->start_ns = hs ? s : 0;
	f->end_ns = he ? e : 0;
	return 0;
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

/* meta start_ns, else the first command; a file without either starts at 0 */
static int file_start(sqlite3 *db, const char *schema, bool target, const char *path,
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
		int rc = file_start(db, schemas[i], target, path, &w->starts[i]);

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
		size_t len = next_item(&p, &item);

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
		for (int k = 0; io_names[k]; k++) {
			if (!(f->io_types & (1u << k)))
				continue;
			text(w, n++ ? ", " : "");
			param_text(w, io_names[k], strlen(io_names[k]));
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
		size_t len = next_item(&p, &item);

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

		for (k = 0; io_names[k]; k++)
			if (r->io_type && !strcmp(r->io_type, io_names[k]))
				break;
		if (!io_names[k] || !(f->io_types & (1u << k)))
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

/* ---- how the report says it ----------------------------------------------------- */

static void seconds(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%.9g", (double)ns / 1e9);
}

void ntp_read_filter__describe(const struct ntp_read_filter *f, char *buf, size_t len)
{
	FILE *m = fmemopen(buf, len, "w");
	const char *sp = "";
	char s[40];

	if (!m) {
		snprintf(buf, len, "?");
		return;
	}
	if (f->session) {
		fprintf(m, "--session %s", f->session);
		sp = " ";
	}
	if (f->io_types) {
		int n = 0;

		fprintf(m, "%s--io-type ", sp);
		for (int k = 0; io_names[k]; k++)
			if (f->io_types & (1u << k))
				fprintf(m, "%s%s", n++ ? "," : "", io_names[k]);
		sp = " ";
	}
	if (f->sizes.nsizes) {
		fprintf(m, "%s--size ", sp);
		for (uint32_t i = 0; i < f->sizes.nsizes; i++)
			fprintf(m, "%s%" PRIu32, i ? "," : "", f->sizes.sizes[i]);
		sp = " ";
	}
	if (f->nqids) {
		fprintf(m, "%s--qid ", sp);
		for (int i = 0; i < f->nqids; i++) {
			fprintf(m, "%s%" PRIu32, i ? "," : "", f->qids[i].lo);
			if (f->qids[i].hi != f->qids[i].lo)
				fprintf(m, "-%" PRIu32, f->qids[i].hi);
		}
		sp = " ";
	}
	if (has_time(f)) {
		fprintf(m, "%s--time ", sp);
		if (f->has_start) {
			seconds(s, sizeof(s), f->start_ns);
			fputs(s, m);
		}
		fputc(',', m);
		if (f->has_end) {
			seconds(s, sizeof(s), f->end_ns);
			fputs(s, m);
		}
	}
	fclose(m);
	buf[len - 1] = '\0';
}

void ntp_read_filter__print_text(FILE *out, const struct ntp_read_filter *f)
{
	char buf[1024];

	if (!ntp_read_filter__any(f))
		return;
	ntp_read_filter__describe(f, buf, sizeof(buf));
	fprintf(out, "# %-18s %s (the tables hold only the commands that pass them; the counts "
		"above are the whole recording's)\n", "read filters:", buf);
}

static void json_names(struct ntp_json *j, const char *list)
{
	const char *p = list, *item;
	char name[NAME_MAX_LEN + 1];

	ntp_json__start_array(j);
	while (*p) {
		size_t len = next_item(&p, &item);

		snprintf(name, sizeof(name), "%.*s", (int)len, item);
		ntp_json__string(j, name);
	}
	ntp_json__end_array(j);
}

void ntp_read_filter__json(struct ntp_json *j, const struct ntp_read_filter *f)
{
	ntp_json__name(j, "read_filters");
	if (!ntp_read_filter__any(f)) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__name(j, "session");
	if (f->session)
		json_names(j, f->session);
	else
		ntp_json__null(j);
	ntp_json__name(j, "io_type");
	if (f->io_types) {
		ntp_json__start_array(j);
		for (int k = 0; io_names[k]; k++)
			if (f->io_types & (1u << k))
				ntp_json__string(j, io_names[k]);
		ntp_json__end_array(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "sizes");
	if (f->sizes.nsizes) {
		ntp_json__start_array(j);
		for (uint32_t i = 0; i < f->sizes.nsizes; i++)
			ntp_json__uint(j, f->sizes.sizes[i]);
		ntp_json__end_array(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "qid");
	if (f->nqids) {
		ntp_json__start_array(j);
		for (int i = 0; i < f->nqids; i++) {
			ntp_json__start_array(j);
			ntp_json__uint(j, f->qids[i].lo);
			ntp_json__uint(j, f->qids[i].hi);
			ntp_json__end_array(j);
		}
		ntp_json__end_array(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "time");
	if (has_time(f)) {
		ntp_json__start_object(j);
		ntp_json__name(j, "start_ns");
		if (f->has_start)
			ntp_json__int(j, f->start_ns);
		else
			ntp_json__null(j);
		ntp_json__name(j, "end_ns");
		if (f->has_end)
			ntp_json__int(j, f->end_ns);
		else
			ntp_json__null(j);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__end_object(j);
}
