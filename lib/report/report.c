// SPDX-License-Identifier: GPL-2.0
/*
 * report: open the recording, load the model, print it as text and/or JSON.
 * Shared by `ntprof report` and the end of `ntprof record`.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/pager.h"
#include "lib/cli/term.h"
#include "lib/cli/output.h"
#include "lib/diag/diag.h"
#include "lib/report/report.h"
#include "lib/report/report_html.h"
#include "lib/model/model_filter.h"
#include "lib/report/report_json.h"
#include "lib/model/model_files.h"
#include "lib/model/model_load.h"
#include "lib/model/model.h"
#include "lib/model/model_order.h"
#include "lib/report/report_text.h"
#include "lib/report/report_separated.h"

/*
 * Whatever the recordings (lib/model decides what they are): the one
 * model, printed as text, separated fields, JSON and HTML.
 */
struct files_ctx {
	const char *const *paths;
	int n;
};

static int open_files(void *ctx, struct ntp_source **s)
{
	const struct files_ctx *c = ctx;

	return ntp_source__open_files(s, c->paths, c->n, false);
}

int ntp_report__run(const char *const *paths, int npaths, const struct ntp_report_opts *o)
{
	struct files_ctx c = { paths, npaths };

	return ntp_report__run_from(open_files, &c, npaths > 1 ? "the recordings" : npaths ? paths[0] : "-", paths,
				    npaths, o);
}

int ntp_report__run_from(ntp_report_open_fn open, void *ctx, const char *what,
			 const char *const *paths, int npaths, const struct ntp_report_opts *opts)
{
	struct ntp_report_opts to = *opts, *o = &to;
	bool detail = o->stages && !strcmp(o->stages, "detail");
	struct ntp_output out = {
		.path = { [NTP_FORM_JSON] = o->json_path, [NTP_FORM_HTML] = o->html_path },
		.pretty = o->pretty, .separator = o->field_separator, .quiet = o->quiet,
		.what = "report", .mismatch = "recordings that cannot be joined", .cut = 512,
	};
	struct ntp_source *s = NULL;
	struct ntp_report r;
	struct ntp_diag d = { 0 };
	FILE *t;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = ntp_output__check(&out, paths, npaths);
	if (rc)
		return rc;
	rc = ntp_output__open(&out);
	if (rc)
		return rc;
	if (open == open_files && npaths < 1) {
		ntp_error("no recording given: ntprof report FILE...");
		ntp_output__fail(&out, NTP_EXIT_USAGE, "-");
		return ntp_output__close(&out, NTP_EXIT_USAGE);
	}
	rc = open(ctx, &s);
	/* the page draws each group's distribution: it needs the buckets too */
	if (!rc)
		rc = ntp_report__load(&r, s, &(struct ntp_report_load){
			.detail = detail, .filter = &o->filter,
			.histograms = o->histogram || o->html_path, .sort = &o->sort,
			.percent_limit = o->percent_limit, .evidence = true });
	/* nothing is printed before the files' check is done */
	if (s)
		rc = ntp_source__verdict(&s, 1, rc);
	if (!rc)
		rc = ntp_diag__make(&d, &r, s);
	if (!rc)
		rc = ntp_diag_by__make(&d.by, ntp_diag_by__key(o->by), &r, s);
	if (!rc && r.filter && !r.total)
		ntp_read_filter__warn_none(s, r.filter, NULL);
	if (rc) {
		ntp_output__fail(&out, rc, what);
	} else {
		/* the terminal's width and colour, seen before a pager stands in for it */
		ntp_term__open(&o->term, o->wide, o->color);
		/* loaded: what is printed now may be paged, the errors before were not */
		ntp_pager__start(o->no_pager, !o->term.width);
		t = ntp_output__text(&out, &rc);
		if (t && o->field_separator)
			ntp_report__warn_separated(&r);
		if (t)
			rc = o->field_separator ? ntp_report__print_separated(&r, t, o) :
			     ntp_report__print_text(&r, &d, t, o);
		if (!rc && ntp_output__file(&out, NTP_FORM_JSON))
			rc = ntp_report__print_json(&r, &d, ntp_output__file(&out, NTP_FORM_JSON),
						    o);
		if (!rc && ntp_output__file(&out, NTP_FORM_HTML))
			rc = ntp_report__print_html(&r, &d, ntp_output__file(&out, NTP_FORM_HTML),
						    o);
	}
	ntp_diag__free(&d);
	ntp_report__free(&r);
	ntp_source__close(s);
	return ntp_output__close(&out, rc);
}
