// SPDX-License-Identifier: GPL-2.0
/*
 * Joining host and target recordings: the entry points that
 * lib/join/join.h declares (it says what and why; lib/join/join_base.h says
 * how the work is split).
 *
 * The model (lib/model/model_files.c) opens and checks the recordings and
 * ATTACHes them read-only to a private in-memory connection, which it
 * lends the join.
 * Each side's commands are read once into compact rows in (key, time)
 * order; the estimate, the binding of controllers and the matching are
 * merges of those rows, linear in the commands whatever the key reuse.
 * What the join makes is in the connection's TEMP schema, where the same
 * statements that ntprof runs can be run by hand:
 *
 *   join_files    one row per file: fi, path, schema, role
 *   join_pairs    one row per (hf, tf): the offset line and its support
 *   join_matches  one row per matched command: the pair, both ids, the
 *                 occurrence numbers of the key on each side, the offset
 *   joined        one row per matched command with both sides' columns and
 *                 the five stages, read from the recordings through
 *                 join_matches
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ntp/db_meta.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/jobs.h"
#include "lib/join/join.h"
#include "lib/join/join_base.h"

#define sql_fail ntp_join__sql_fail

static int exec(sqlite3 *db, const char *sql, const char *what)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sql_fail(db, what);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *what)
{
	return sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK ? 0 : sql_fail(db, what);
}

/* run a statement that returns nothing; 0 or NTP_EXIT_FAILURE */
static int step_done(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(db, what);
}

static const char create_sql[] =
	"CREATE TEMP TABLE join_files (fi INTEGER PRIMARY KEY, path TEXT, schema TEXT, role TEXT);"
	"CREATE TEMP TABLE join_pairs (pair INTEGER PRIMARY KEY, hf INTEGER, tf INTEGER,"
	" estimated INTEGER, t0_ns INTEGER, base_ns INTEGER, a_ns REAL, drift REAL, tol_ns REAL,"
	" candidates INTEGER, support INTEGER, matched INTEGER);";

/* whether the recording attached as schema holds a pairing (join_clock's row) */
static int has_pairing(struct ntp_join *j, const char *schema)
{
	char sql[96];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".join_clock", schema);
	return ntp_join__query_int(j->db, sql, 0) > 0;
}

/*
 * A joined recording (ntprof join) brings its own pairing, made on two
 * clocks that its file no longer tells apart: it is read, never joined
 * again.  So is a "-r both" recording that record paired when it closed
 * it, unless opts.fresh asks for the join to be made again; one without a
 * pairing (older, or killed before the end) is joined as always.
 */
static void find_stored(struct ntp_join *j)
{
	const char *role = j->files[0].role;

	if (j->nfiles != 1 || !role)
		return;
	if (!strcmp(role, ntp_roles[NTP_ROLE_JOINED].name) ||
	    (!strcmp(role, ntp_roles[NTP_ROLE_BOTH].name) && !j->opts.fresh &&
	     has_pairing(j, j->files[0].schema)))
		j->stored = 1;
}

static int add_file_row(struct ntp_join *j, int fi)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(j->db, "INSERT INTO temp.join_files VALUES (?1, ?2, ?3, ?4)", &st,
		      "listing the files");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, fi);
	sqlite3_bind_text(st, 2, j->files[fi].path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, j->files[fi].schema, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, j->files[fi].role, -1, SQLITE_STATIC);
	err = step_done(j->db, st, "listing the files");
	sqlite3_finalize(st);
	return err;
}

int ntp_join__open(struct ntp_join **jp, const struct ntp_join_input *in,
		   const struct ntp_join_opts *opts)
{
	struct ntp_join *j;
	int i, err;

	*jp = NULL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return ntp_join__nomem();
	j->db = in->db;
	j->reopen = in->reopen;
	j->reopen_ctx = in->ctx;
	j->opts.slack_ns = 1000;
	j->opts.min_support = 8;
	j->opts.max_drift = 500e-6;
	if (opts) {
		if (opts->slack_ns > 0)
			j->opts.slack_ns = opts->slack_ns;
		if (opts->min_support > 0)
			j->opts.min_support = opts->min_support;
		if (opts->max_drift > 0)
			j->opts.max_drift = opts->max_drift;
		j->opts.fresh = opts->fresh;
		j->opts.tag = opts->tag;
		j->opts.tag_filters = opts->tag_filters;
		memcpy(j->opts.tag_ctx, opts->tag_ctx, sizeof(j->opts.tag_ctx));
	}
	pthread_mutex_init(&j->ctrl_lock, NULL);
	/*
	 * Large arrays come and go as the join runs (rows, candidates,
	 * intervals, matches).  glibc's dynamic mmap threshold would serve the
	 * later ones from the heap after the first is freed, and a heap does
	 * not give its memory back: the peak would be their sum, not the
	 * largest set alive at once.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	j->progress = ntp_jprogress__new();
	j->nfiles = in->nfiles;
	for (i = 0; i < in->nfiles; i++)
		j->files[i] = in->files[i];
	find_stored(j);
	err = exec(j->db, create_sql, "creating the join tables");
	for (i = 0; i < j->nfiles && !err; i++)
		err = add_file_row(j, i);
	if (!err)
		err = ntp_join__register_rows(j);
	if (err) {
		ntp_join__close(j);
		return err;
	}
	*jp = j;
	return 0;
}

/*
 * The line of pair p from iv[0..n): estimated, or on one clock o(t) = 0,
 * which needs no agreement.  *ok = 0 when too few agreed.  Frees iv.
 */
static int fit_from(struct ntp_join *j, const struct ntp_join_pair *p, struct ntp_join_iv *iv,
		    size_t n, size_t grid_iv, struct ntp_join_fit *fit, int *ok)
{
	int rc;

	*ok = 0;
	if (p->clock != NTP_JOIN_CLOCK_TWO)
		rc = ntp_join__fit_zero(iv, n, j->opts.slack_ns, fit);
	else if (n)
		rc = ntp_join__estimate(iv, n, j->opts.max_drift, j->opts.slack_ns, grid_iv, fit);
	else
		rc = -ENOENT;
	free(iv);
	if (rc == -ENOMEM)
		return ntp_join__nomem();
	*ok = !rc && (p->clock != NTP_JOIN_CLOCK_TWO || fit->support >= j->opts.min_support);
	return 0;
}

static int save_pair(struct ntp_join *j, int pair, const struct ntp_join_pair *p,
		     const struct ntp_join_fit *fit)
{
	sqlite3_stmt *st;
	int err;

	err = prepare(j->db, "INSERT INTO temp.join_pairs VALUES"
		      " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", &st,
		      "saving the estimate");
	if (err)
		return err;
	sqlite3_bind_int(st, 1, pair);
	sqlite3_bind_int(st, 2, p->host_file);
	sqlite3_bind_int(st, 3, p->target_file);
	sqlite3_bind_int(st, 4, p->estimated);
	sqlite3_bind_int64(st, 5, fit->t0);
	sqlite3_bind_int64(st, 6, fit->base);
	sqlite3_bind_double(st, 7, fit->a);
	sqlite3_bind_double(st, 8, fit->b);
	sqlite3_bind_double(st, 9, fit->tol);
	sqlite3_bind_int64(st, 10, p->candidates);
	sqlite3_bind_int64(st, 11, p->support);
	sqlite3_bind_int64(st, 12, p->matched);
	err = step_done(j->db, st, "saving the estimate");
	sqlite3_finalize(st);
	return err;
}

static void set_pair(struct ntp_join_pair *p, const struct ntp_join_fit *fit, int ok)
{
	p->estimated = ok;
	p->t0_ns = fit->t0;
	p->offset_ns = (double)fit->base + fit->a;
	p->drift = fit->b;
	p->tol_ns = fit->tol;
	p->support = fit->support;
}

/* a boot_id that names a boot: the kernel's is a random UUID, never the nil one */
static int known_boot(const char *b)
{
	return b && *b && strspn(b, "0-") != strlen(b);
}

/*
 * One kernel stamps both sides with one clock: one file holding both, or
 * two files of one boot.  A boot_id that is missing, empty or nil says nothing.
 */
static enum ntp_join_clock pair_clock(struct ntp_join *j, int h, int t)
{
	enum ntp_join_clock c = NTP_JOIN_CLOCK_TWO;
	char *bh, *bt;

	if (h == t)
		return NTP_JOIN_CLOCK_ONE_FILE;
	bh = ntp_meta__text_in(j->db, j->files[h].schema, NTP_META_BOOT_ID);
	bt = ntp_meta__text_in(j->db, j->files[t].schema, NTP_META_BOOT_ID);
	if (known_boot(bh) && bt && !strcmp(bh, bt))
		c = NTP_JOIN_CLOCK_ONE_BOOT;
	free(bh);
	free(bt);
	return c;
}

/*
 * Pass 1 estimates from a bounded sample of same-key pairs (all pairs of
 * rare keys, a few host occurrences of hot ones, at most
 * NTP_JOIN_EST_MAX_IV intervals).  Its line is exact for the pairs it saw
 * but may miss unseen true pairs, most near the ends of the run, by up to a
 * few interval widths: *admit is that much.
 *
 * A sample whose line a quarter of its host commands do not agree with is
 * taken only when no other sample has one: a hot key's occurrences each
 * have one true pair among as many false ones as the window holds, and a
 * window too wide for the run (a tenth of a million occurrences of a key,
 * 1/128 of them on each side) leaves a few hundred true pairs among
 * hundreds of thousands, where a line of chance may agree with more of
 * them than min_support.  Narrower windows come first (1/1024 of a run,
 * then 1/128, 1/16): they hold more host commands, and fewer false pairs
 * each, but need the two recordings to have covered about the same span.
 */
static int estimate_pass1(struct ntp_join *j, int pair, double *admit)
{
	/* every hot key occurrence against all of its key's targets, then nearer ones */
	static const int narrow[] = { 0, 1024, 128, 16 };
	struct ntp_join_pair *p = &j->pairs[pair];
	struct ntp_join_fit *fit = &j->fits[pair], first = { 0 };
	struct ntp_join_iv *iv;
	int64_t first_cands = 0;
	size_t n, rows, hot = 1;
	int ok = 0, agreed = 0, err = 0, have_first = 0;

	for (size_t k = 0; k < sizeof(narrow) / sizeof(narrow[0]) && !err && !agreed; k++) {
		if (k && p->clock != NTP_JOIN_CLOCK_TWO)
			break;	/* one clock's line needs no agreement */
		if (k && !hot)
			break;	/* no hot key: a narrower window would give the same sample */
		memset(fit, 0, sizeof(*fit));
		err = ntp_join__sample(j, pair, narrow[k], &iv, &n, &rows, &hot);
		if (err)
			return err;
		p->candidates = (int64_t)n;
		err = fit_from(j, p, iv, n, NTP_JOIN_GRID_IV_MANY_FALSE, fit, &ok);
		agreed = ok && (p->clock != NTP_JOIN_CLOCK_TWO || (size_t)fit->support * 4 >= rows);
		if (ok && !have_first) {
			first = *fit;
			first_cands = p->candidates;
			have_first = 1;
		}
	}
	/* no sample's line agreed with a quarter of its host commands: the first that had support */
	if (!agreed && have_first && !err) {
		*fit = first;
		p->candidates = first_cands;
		ok = 1;
	}
	set_pair(p, fit, ok);
	/* one clock's line is exact: nothing to admit beyond the slack */
	*admit = fit->tol;
	if (p->clock == NTP_JOIN_CLOCK_TWO)
		*admit += NTP_JOIN_PASS1_SPREADS * fit->spread;
	return err;
}

/*
 * Pass 2 re-estimates from every pair pass 1 admitted for a controller bound
 * to this target - all the true pairs, few false ones - so its line fits
 * every true pair and the final candidates admit only the measured
 * tolerance.  Frees iv.
 */
static int estimate_pass2(struct ntp_join *j, int pair, struct ntp_join_iv *iv, size_t n)
{
	struct ntp_join_pair *p = &j->pairs[pair];
	struct ntp_join_fit fit2;
	int ok, err;

	err = fit_from(j, p, iv, n, NTP_JOIN_GRID_IV_FEW_FALSE, &fit2, &ok);
	if (!err && ok) {	/* else pass 1 stands */
		j->fits[pair] = fit2;
		set_pair(p, &fit2, 1);
		/* support counts these: "support of candidates" is of one set */
		p->candidates = (int64_t)n;
	}
	return err;
}

/* pass 2 for every estimated pair, from the intervals pass 1 admitted */
static int pass2(struct ntp_join *j, const double *admit)
{
	struct ntp_join_iv *iv[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { NULL };
	size_t n[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES] = { 0 };
	int i, err;

	err = ntp_join__pass2_intervals(j, j->fits, admit, iv, n);
	for (i = 0; i < j->npairs; i++) {
		if (!err && iv[i])
			err = estimate_pass2(j, i, iv[i], n[i]);
		else
			free(iv[i]);
	}
	return err;
}

/*
 * Both sides have commands and not one was paired: not a host and its
 * target recorded at one time.  Every reader refuses that as ntprof join
 * does (exit 10), rather than show "no joined commands" as if it were a
 * result.
 */
static int refuse_unrelated(const struct ntp_join *j)
{
	const struct ntp_join_pair *p = &j->pairs[0];

	if (j->counts.matched || !j->counts.host_rows || !j->counts.target_rows)
		return 0;
	if (j->nfiles == 1)
		ntp_error("cannot join %s: none of its %" PRId64 " host commands matched one of its %"
			  PRId64 " target commands", j->files[0].path, j->counts.host_rows,
			  j->counts.target_rows);
	else if (j->npairs == 1 && !p->estimated)
		ntp_error("cannot join %s and %s: no clock offset pairs their commands (%" PRId64
			  " of %" PRId64 " candidate pairs agree, %" PRId64 " needed): not a host and"
			  " its target recorded at one time", j->files[p->host_file].path,
			  j->files[p->target_file].path, p->support, p->candidates,
			  j->opts.min_support);
	else
		ntp_error("cannot join %s and the other%s: none of %" PRId64 " host commands matched"
			  " one of %" PRId64 " target commands: not hosts and their targets recorded"
			  " at one time", j->files[0].path, j->nfiles > 2 ? "s" : "",
			  j->counts.host_rows, j->counts.target_rows);
	return NTP_EXIT_MISMATCH;
}

int ntp_join__run(struct ntp_join *j)
{
	double admit[NTP_JOIN_MAX_FILES * NTP_JOIN_MAX_FILES];
	int h, t, i, err = 0;

	free(j->pairs);
	free(j->fits);
	free(j->matches);
	j->matches = NULL;
	j->nmatches = 0;
	j->matches_gone = 0;
	j->npairs = 0;
	j->pairs = calloc(j->nfiles * j->nfiles, sizeof(*j->pairs));
	j->fits = calloc(j->nfiles * j->nfiles, sizeof(*j->fits));
	if (!j->pairs || !j->fits)
		return ntp_join__nomem();
	err = ntp_join__load(j);
	if (!err)
		err = exec(j->db, "DELETE FROM temp.join_pairs", "starting the join");
	if (!err && j->stored) {
		/* a joined recording: the pairing it holds is the join */
		err = ntp_join__load_stored(j);
		goto save;
	}
	ntp_jprogress__set(j->progress, "estimating the clocks", 0, 0);
	for (h = 0; h < j->nfiles && !err; h++) {
		if (!(j->files[h].sides & NTP_SIDE_HOST))
			continue;
		for (t = 0; t < j->nfiles && !err; t++) {
			struct ntp_join_pair *p;

			if (!(j->files[t].sides & NTP_SIDE_TARGET))
				continue;
			p = &j->pairs[j->npairs];
			p->host_file = h;
			p->target_file = t;
			p->clock = pair_clock(j, h, t);
			err = estimate_pass1(j, j->npairs, &admit[j->npairs]);
			j->npairs++;
		}
	}
	ntp_jprogress__set(j->progress, "estimating the clocks again", 0, 0);
	if (!err)
		err = pass2(j, admit);
	/* the final candidates may bind a controller differently */
	if (!err)
		err = ntp_join__match(j);
save:
	for (i = 0; i < j->npairs && !err; i++)
		err = save_pair(j, i, &j->pairs[i], &j->fits[i]);
	if (!err)
		err = ntp_join__create_view(j);
	ntp_jprogress__set(j->progress, "done", 0, 0);
	ntp_jprogress__end(j->progress);
	/* what the view reads is in j->matches now: the rows go */
	j->host_rows = j->host.n;
	j->target_rows = j->target.n;
	ntp_join__free_rows(j);
	if (!err)
		err = refuse_unrelated(j);
	return err;
}

const char *ntp_join__clock_name(enum ntp_join_clock c)
{
	switch (c) {
	case NTP_JOIN_CLOCK_ONE_FILE:
		return "same clock (one recording)";
	case NTP_JOIN_CLOCK_ONE_BOOT:
		return "same clock (one boot)";
	case NTP_JOIN_CLOCK_TWO:
		break;
	}
	return NULL;
}

sqlite3 *ntp_join__db(const struct ntp_join *j)
{
	return j->db;
}

const struct ntp_join_file *ntp_join__file(const struct ntp_join *j, int i)
{
	return i >= 0 && i < j->nfiles ? &j->files[i] : NULL;
}

void ntp_join__counts(const struct ntp_join *j, struct ntp_join_counts *c)
{
	*c = j->counts;
}

void ntp_join__file_rows(const struct ntp_join *j, int i, int64_t *host_rows,
			 int64_t *target_rows)
{
	int sides = i >= 0 && i < j->nfiles ? j->files[i].sides : 0;

	*host_rows = sides & NTP_SIDE_HOST ?
		     (int64_t)(j->host.file_lo[i + 1] - j->host.file_lo[i]) : -1;
	*target_rows = sides & NTP_SIDE_TARGET ?
		       (int64_t)(j->target.file_lo[i + 1] - j->target.file_lo[i]) : -1;
}

int ntp_join__npairs(const struct ntp_join *j)
{
	return j->npairs;
}

const struct ntp_join_pair *ntp_join__pair(const struct ntp_join *j, int i)
{
	return i >= 0 && i < j->npairs ? &j->pairs[i] : NULL;
}

void ntp_join__free_matches(struct ntp_join *j)
{
	free(j->matches);
	j->matches = NULL;
	j->nmatches = 0;
	j->matches_gone = 1;
	ntp_join__free_ids(j);
}

void ntp_join__close(struct ntp_join *j)
{
	if (!j)
		return;
	ntp_join__keep_close(j);
	ntp_join__free_rows(j);
	ntp_join__free_ids(j);
	ntp_join__free_cands(j);
	for (int i = 0; i < j->nctrls; i++) {
		free(j->ctrls[i].name);
	}
	free(j->ctrls);
	free(j->pairs);
	free(j->fits);
	free(j->matches);
	free(j->progress);
	pthread_mutex_destroy(&j->ctrl_lock);
	free(j);
}
