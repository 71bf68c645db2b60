// SPDX-License-Identifier: GPL-2.0
/*
 * series: open the recordings as report does (one file alone, or several,
 * or one "-r both" or joined file, joined), read each file's header, then
 * stream the commands that pass the read filters in the order of their
 * start through one interval's groups (series_acc.c) to the printers
 * (series_out.h).  With --top the groups are counted first, by the same
 * query, and only the N with the most commands are streamed.
 *
 * Everything that can refuse the input (the files, the join) runs before
 * the first byte of output, so that a refusal leaves the JSON error
 * document, as report's does; a failure while the rows stream (a damaged
 * page) stops the output there, and a file named by -j, --csv or --html is then
 * not kept, as dump keeps no half-written CSV.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/output.h"
#include "lib/ntp/db_meta.h"
#include "lib/model/model_header.h"
#include "lib/model/model_check.h"
#include "lib/model/model_files.h"
#include "lib/model/model_load.h"
#include "lib/series/series.h"
#include "lib/series/series_acc.h"
#include "lib/series/series_out.h"
#include "lib/series/series_scan.h"

/*
 * file i's header, its interval origin (meta start_ns) and its end on its
 * clock; host_rows and target_rows as the check or the join counted them
 */
static int load_file(struct ntp_series *s, int i, const struct ntp_source *src,
		     int64_t host_rows, int64_t target_rows)
{
	struct ntp_report_file *f = &s->r.files[i];
	int64_t start = ntp_source__meta_int(src, i, NTP_META_START_NS, -1);
	int rc = ntp_report__load_file(f, src->db, src->files[i].schema, src->files[i].path,
				       host_rows, target_rows);

	if (rc)
		return rc;
	s->end_ns[i] = -1;
	/* in a join only the host side's clock sets intervals */
	if (s->r.kind == NTP_REPORT_JOINED && !(f->sides & NTP_SIDE_HOST))
		return 0;
	if (start >= 0) {
		s->origin_ns[i] = start;
		s->origin_known[i] = true;
		if (f->hdr.duration_ns > 0)
			s->end_ns[i] = start + f->hdr.duration_ns;
	}
	return 0;
}

/* the printers of the forms asked for, over the output's streams (lib/cli/output.h) */
struct outs {
	struct ntp_output o;
	struct ntp_series_text text;
	struct ntp_series_json json;
	struct ntp_series_csv csv;
	struct ntp_series_html html;
	struct ntp_series_out out[4];
	int n;
};

static int begin(struct outs *os, struct ntp_series *s)
{
	int rc = 0;

	for (int i = 0; i < os->n && !rc; i++)
		rc = os->out[i].begin(os->out[i].ctx, s);
	return rc;
}

static int end(struct outs *os, struct ntp_series *s)
{
	int rc = 0;

	for (int i = 0; i < os->n && !rc; i++)
		rc = os->out[i].end(os->out[i].ctx, s);
	return rc;
}

/* by commands, most first; ties in the report's order of groups */
static int by_commands(const void *x, const void *y)
{
	const struct ntp_report_group *a = x, *b = y;

	if (a->e2e.n != b->e2e.n)
		return a->e2e.n < b->e2e.n ? 1 : -1;
	return ntp_report__group_cmp(a, b);
}

/* --top: the N groups with the most commands that pass the filters kept, the others counted */
static int top(struct ntp_series *s, struct ntp_series_acc *acc, sqlite3 *db,
	       enum ntp_series_rows rows, const struct ntp_read_where *w, const char *path)
{
	struct ntp_report_group *g;
	size_t n, keep;
	int rc = ntp_series__groups(db, rows, s->by, w, path, &g, &n);

	if (rc) {
		ntp_series__free_groups(g, n);
		return rc;
	}
	qsort(g, n, sizeof(*g), by_commands);
	keep = n < s->top ? n : (size_t)s->top;
	s->groups = n;
	s->groups_hidden = n - keep;
	for (size_t i = keep; i < n; i++)
		s->commands_hidden += g[i].e2e.n;
	rc = ntp_series_acc__keep(acc, g, keep);
	ntp_series__free_groups(g, n);
	return rc;
}

/*
 * The read filters over db's files: "main", or the joined files' schemas;
 * --time's starts, which are also the intervals' origin of a file that has
 * no meta start_ns
 */
static int filter_where(struct ntp_series *s, const struct ntp_source *src, sqlite3 *db,
			enum ntp_series_rows rows, struct ntp_read_where *w)
{
	const char *schemas[NTP_JOIN_MAX_FILES];
	int rc;

	memset(w, 0, sizeof(*w));
	w->f = s->filter;
	w->cols = ntp_series__filter_cols(rows);
	for (int i = 0; i < src->n; i++)
		schemas[i] = src->files[i].schema;
	rc = ntp_read_filter__starts(w, db, schemas, src->n, rows == NTP_SERIES_ROWS_TARGET,
				     src->files[0].path);
	for (int i = 0; i < src->n && !rc && s->filter && (s->filter->has_start ||
							   s->filter->has_end); i++) {
		if (!s->origin_known[i] && (rows != NTP_SERIES_ROWS_JOINED ||
					    (src->files[i].sides & NTP_SIDE_HOST))) {
			s->origin_ns[i] = w->starts[i];
			s->origin_known[i] = true;
		}
	}
	return rc;
}

/*
 * --by reads the host's queues and processes: a target alone has none,
 * and the join's rows carry the queue but not the process
 */
static int by_rows(const struct ntp_series *s, const struct ntp_source *src,
		   enum ntp_series_rows rows)
{
	const char *word = ntp_series__by_word(s);

	if (!word)
		return 0;
	if (rows == NTP_SERIES_ROWS_TARGET) {
		ntp_error("--by %s: %s is a target recording alone: it has no host %ss",
			  word, src->files[0].path, word);
		return NTP_EXIT_USAGE;
	}
	if (rows == NTP_SERIES_ROWS_JOINED && s->by != NTP_DIAG_BY_QUEUE) {
		ntp_error("--by %s: the series of joined recordings is by queue only (report "
			  "--by %s reads them)", word, word);
		return NTP_EXIT_USAGE;
	}
	return 0;
}

static int scan(struct ntp_series *s, struct outs *os, struct ntp_source *src)
{
	const char *path = src->files[0].path;
	const struct ntp_view *v;
	struct ntp_series_acc acc;
	struct ntp_join *j = NULL;
	struct ntp_read_where w;
	enum ntp_series_rows rows;
	sqlite3 *db = src->db;
	int rc = 0;

	s->r.kind = ntp_report__kind(src->kind);
	for (int i = 0; i < src->n; i++)
		s->r.files[i].sides = src->files[i].sides;
	if (s->r.kind == NTP_REPORT_JOINED) {
		s->r.view = NTP_VIEW_JOINED;
		rc = ntp_source__open_join(src, NULL, &j);
		if (!rc)
			rc = ntp_join__run(j);
		if (!rc)
			ntp_join__counts(j, &s->r.counts);
		for (int i = 0; i < src->n && !rc; i++) {
			int64_t hrows, trows;

			ntp_join__file_rows(j, i, &hrows, &trows);
			rc = load_file(s, i, src, hrows, trows);
		}
	} else {
		s->r.view = s->r.kind == NTP_REPORT_TARGET ? NTP_VIEW_TARGET : NTP_VIEW_HOST;
		rc = load_file(s, 0, src, src->host_rows[0], -1);
	}
	s->r.rdma = src->rdma;
	rows = j ? NTP_SERIES_ROWS_JOINED : s->r.kind == NTP_REPORT_TARGET ?
	       NTP_SERIES_ROWS_TARGET : NTP_SERIES_ROWS_HOST;
	if (j)
		db = ntp_join__db(j);
	if (!rc)
		rc = by_rows(s, src, rows);
	if (!rc)
		rc = filter_where(s, src, db, rows, &w);
	v = ntp_report__view(&s->r);
	ntp_series_acc__init(&acc, s, os->out, os->n, v->nstages);
	/* counted before the first byte: the header says what --top left out */
	if (!rc && s->top)
		rc = top(s, &acc, db, rows, &w, path);
	if (!rc)
		rc = begin(os, s);
	if (!rc)
		rc = ntp_series__scan(&acc, db, rows, s->by, &w, path);
	if (!rc)
		rc = ntp_series_acc__flush(&acc);
	/* streamed: the files' check is done before the outputs end (model_source.h) */
	rc = ntp_source__verdict(&src, 1, rc);
	if (!rc && !s->commands && ntp_read_filter__any(s->filter))
		ntp_read_filter__warn_none(src, s->filter, NULL);
	if (!rc)
		rc = end(os, s);
	ntp_series_acc__free(&acc);
	ntp_join__close(j);
	return rc;
}

/* ---- a source that streams its own rows (the fleet's engine) ---------------------------- */

static int add_row(void *ctx, const struct ntp_source_row *sr)
{
	struct ntp_series_row row = {
		.file = sr->file, .io_type = sr->io_type, .ns = sr->ns, .bytes = sr->bytes,
		.t_ns = sr->t_ns, .e2e = sr->e2e,
	};

	memcpy(row.stage, sr->stage, sizeof(row.stage));
	return ntp_series_acc__add(ctx, &row);
}

/* --top from the groups loaded: a group's rows are its counted and its impossible commands */
static int top_of(struct ntp_series *s, struct ntp_series_acc *acc, struct ntp_report_group *g,
		  size_t n)
{
	size_t keep = n < s->top ? n : (size_t)s->top;

	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < NTP_IMPOSSIBLE_MAX; k++)
			g[i].e2e.n += g[i].impossible[k];
	qsort(g, n, sizeof(*g), by_commands);
	s->groups = n;
	s->groups_hidden = n - keep;
	for (size_t i = keep; i < n; i++)
		s->commands_hidden += g[i].e2e.n;
	return ntp_series_acc__keep(acc, g, keep);
}

/*
 * The runs' headers as report loads them (with its groups, which give
 * --top its counts), then the rows the source streams, run by run in the
 * order of their start: what scan() reads from files.
 */
static int scan_rows(struct ntp_series *s, struct outs *os, struct ntp_source *src)
{
	struct ntp_report_group *g;
	struct ntp_series_acc acc;
	size_t ng;
	int rc;

	rc = ntp_report__load(&s->r, src, &(struct ntp_report_load){ .filter = s->filter });
	if (rc)
		return rc;
	g = s->r.groups;
	ng = s->r.ngroups;
	s->r.groups = NULL;
	s->r.ngroups = 0;
	if (s->r.nfiles > NTP_JOIN_MAX_FILES) {
		ntp_error("%s and %d more runs: a series reads at most %d together (choose with the "
			  "fleet filters)", src->files[0].path, s->r.nfiles - 1, NTP_JOIN_MAX_FILES);
		rc = NTP_EXIT_USAGE;
	}
	for (int i = 0; i < s->r.nfiles && !rc; i++) {
		int64_t start = src->ops->start_ns(src, i);

		s->end_ns[i] = -1;
		if (s->r.kind == NTP_REPORT_JOINED && !(s->r.files[i].sides & NTP_SIDE_HOST))
			continue;
		if (start >= 0) {
			s->origin_ns[i] = start;
			s->origin_known[i] = true;
			if (s->r.files[i].hdr.duration_ns > 0)
				s->end_ns[i] = start + s->r.files[i].hdr.duration_ns;
		}
	}
	ntp_series_acc__init(&acc, s, os->out, os->n, ntp_report__view(&s->r)->nstages);
	if (!rc && s->top)
		rc = top_of(s, &acc, g, ng);
	for (size_t i = 0; i < ng; i++)
		ntp_report_group__free(&g[i]);
	free(g);
	if (!rc)
		rc = begin(os, s);
	if (!rc)
		rc = src->ops->rows(src, &s->r, add_row, &acc);
	if (!rc)
		rc = ntp_series_acc__flush(&acc);
	if (!rc && !s->commands && ntp_read_filter__any(s->filter))
		ntp_read_filter__warn_none(src, s->filter, NULL);
	if (!rc)
		rc = end(os, s);
	ntp_series_acc__free(&acc);
	return rc;
}

static int open_outs(struct outs *os, const struct ntp_series_opts *o, const char *const *paths,
		     int n)
{
	FILE *t;
	int rc;

	memset(os, 0, sizeof(*os));
	os->o = (struct ntp_output){
		.path = { [NTP_FORM_JSON] = o->json_path, [NTP_FORM_CSV] = o->csv_path,
			  [NTP_FORM_HTML] = o->html_path },
		.pretty = o->pretty, .quiet = o->quiet, .what = "series",
		.mismatch = "recordings that cannot be joined", .cut = 512,
	};
	rc = ntp_output__check(&os->o, paths, n);
	if (!rc)
		rc = ntp_output__open(&os->o);
	if (rc)
		return rc;
	t = ntp_output__text(&os->o, &rc);
	if (t)
		os->out[os->n++] = ntp_series__text_out(&os->text, t, o->quiet);
	if (ntp_output__file(&os->o, NTP_FORM_JSON))
		os->out[os->n++] = ntp_series__json_out(&os->json,
							ntp_output__file(&os->o, NTP_FORM_JSON),
							o->pretty);
	if (ntp_output__file(&os->o, NTP_FORM_CSV))
		os->out[os->n++] = ntp_series__csv_out(&os->csv,
						       ntp_output__file(&os->o, NTP_FORM_CSV));
	if (ntp_output__file(&os->o, NTP_FORM_HTML))
		os->out[os->n++] = ntp_series__html_out(&os->html,
							ntp_output__file(&os->o, NTP_FORM_HTML));
	return rc;
}

/* a series cut short is not kept as if it were whole: only the JSON's error document is */
static int close_outs(struct outs *os, int rc)
{
	ntp_series__text_free(&os->text);
	ntp_series__json_free(&os->json);
	ntp_series__html_free(&os->html);
	return ntp_output__close(&os->o, rc);
}

/* what run and run_from share: the intervals, the percentiles, the filters, --top */
static void series_init(struct ntp_series *s, const struct ntp_series_opts *o)
{
	double len_s = o->interval_s > 0 ? o->interval_s : NTP_SERIES_DEFAULT_S;

	memset(s, 0, sizeof(*s));
	s->interval_ns = llround(len_s * 1e9);
	if (o->percentiles)
		for (int i = 0; i < ntp_summary__npercentiles(); i++)
			s->pct[s->npct++] = (enum ntp_stat)(NTP_STAT_PCT + i);
	else
		s->pct[s->npct++] = ntp_stat__tail();
	s->filter = ntp_read_filter__any(&o->filter) ? &o->filter : NULL;
	s->top = o->top;
	s->by = ntp_diag_by__key(o->by);
}

int ntp_series__run_from(ntp_series_open_fn open, void *ctx, const char *what,
			 const struct ntp_series_opts *o)
{
	struct ntp_source *src = NULL;
	struct ntp_series s;
	struct outs os;
	int rc;

	series_init(&s, o);
	rc = open_outs(&os, o, NULL, 0);
	if (rc)
		return rc;
	rc = open(ctx, &src);
	if (!rc && s.by != NTP_DIAG_BY_NONE) {
		ntp_error("--by %s: the series per %s is read from recordings, not from an engine",
			  ntp_series__by_word(&s), ntp_series__by_word(&s));
		rc = NTP_EXIT_USAGE;
	}
	if (!rc && !src->ops->rows) {
		ntp_error("%s: this source does not stream its commands", what);
		rc = NTP_EXIT_FAILURE;
	}
	if (!rc)
		rc = scan_rows(&s, &os, src);
	if (rc && !os.json.j)
		ntp_output__fail(&os.o, rc, what);
	rc = close_outs(&os, rc);
	ntp_report__free(&s.r);
	ntp_source__close(src);
	return rc;
}

int ntp_series__run(const char *const *paths, int n, const struct ntp_series_opts *o)
{
	struct ntp_source *src = NULL;
	struct ntp_series s;
	struct outs os;
	int rc;

	rc = ntp_model__check_twice(paths, n);
	if (rc)
		return rc;
	if (n > NTP_JOIN_MAX_FILES) {
		ntp_error("%d recordings given: between 1 and %d can be read together", n,
			  NTP_JOIN_MAX_FILES);
		return NTP_EXIT_USAGE;
	}
	series_init(&s, o);
	s.r.files = calloc(n, sizeof(*s.r.files));
	s.r.nfiles = n;
	if (!s.r.files) {
		ntp_error("%s: out of memory", paths[0]);
		return NTP_EXIT_FAILURE;
	}
	rc = open_outs(&os, o, paths, n);
	if (!rc) {
		rc = ntp_source__open_files(&src, paths, n, false);
		if (!rc)
			rc = scan(&s, &os, src);
		/* no JSON on standard output yet, or a JSON file: it says why, as report's does */
		if (rc && (!os.json.j || strcmp(o->json_path, "-")))
			ntp_output__fail(&os.o, rc, n > 1 ? "the recordings" : paths[0]);
		rc = close_outs(&os, rc);
	}
	ntp_source__close(src);
	for (int i = 0; i < n; i++)
		ntp_report__free_header(&s.r.files[i].hdr);
	free(s.r.files);
	return rc;
}
