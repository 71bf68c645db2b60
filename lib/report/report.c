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
#include "lib/fmt/safe_text.h"
#include "lib/cli/outfile.h"
#include "lib/report/report.h"
#include "lib/report/report_html.h"
#include "lib/model/model_filter.h"
#include "lib/report/report_json.h"
#include "lib/report/report_jsonout.h"
#include "lib/model/model_files.h"
#include "lib/model/model_load.h"
#include "lib/model/model.h"
#include "lib/model/model_order.h"
#include "lib/report/report_text.h"
#include "lib/report/report_tidy.h"

/* the JSON error document; report has always cut its message at 511 bytes */
static void json_error(FILE *f, int code, const char *path)
{
	ntp_report__json_error(f, code, path, "recordings that cannot be joined", 512);
}

/*
 * Whatever the recordings (model_load.c decides what they are): the one
 * model, printed as text and/or JSON.
 */
int ntp_report__run(const char *const *paths, int npaths, const struct ntp_report_opts *o)
{
	bool detail = o->stages && !strcmp(o->stages, "detail");
	struct ntp_source *s = NULL;
	struct ntp_outfile jo, ho;
	struct ntp_report r;
	FILE *jf;
	int rc, crc, hrc;

	/* standard output takes one form */
	if (o->json_path && o->html_path && !strcmp(o->json_path, "-") &&
	    !strcmp(o->html_path, "-")) {
		ntp_error("-j - and --html - both write to standard output: give one a FILE");
		return NTP_EXIT_USAGE;
	}
	rc = ntp_report__json_open(&jo, o->json_path, "the JSON report");
	if (rc)
		return rc;
	jf = jo.f;
	memset(&ho, 0, sizeof(ho));
	if (o->html_path) {
		rc = ntp_outfile__open(&ho, o->html_path, "the HTML report");
		if (rc) {
			ntp_report__json_close(&jo);
			return rc;
		}
	}
	if (npaths < 1) {
		ntp_error("no recording given: ntprof report FILE...");
		json_error(jf, NTP_EXIT_USAGE, "-");
		ntp_report__json_close(&jo);
		return NTP_EXIT_USAGE;
	}
	/* the page draws each group's distribution: it needs the buckets too */
	memset(&r, 0, sizeof(r));
	rc = ntp_source__open_files(&s, paths, npaths, false);
	if (!rc)
		rc = ntp_report__load(&r, s, &(struct ntp_report_load){
		.detail = detail, .filter = &o->filter,
		.histograms = o->histogram || o->html_path, .sort = &o->sort,
		.percent_limit = o->percent_limit });
	if (!rc && r.filter && !r.total) {
		char what[1024];

		ntp_read_filter__describe(r.filter, what, sizeof(what));
		ntp_warn("no commands pass the read filters (%s)", what);
	}
	if (rc) {
		json_error(jf, rc, npaths > 1 ? "the recordings" : paths[0]);
	} else {
		/* loaded: what is printed now may be paged, the errors before were not */
		ntp_pager__start(o->no_pager);
		if (jf != stdout && ho.f != stdout) {
			/* the file's strings reach the terminal made safe (lib/fmt/safe_text.h) */
			FILE *t = ntp_safe__wrap(stdout);

			if (t && o->field_separator)
				ntp_report__warn_tidy(&r);
			rc = !t ? NTP_EXIT_FAILURE :
			     o->field_separator ? ntp_report__print_tidy(&r, t, o) :
			     ntp_report__print_text(&r, t, o);
			if (t && fclose(t) && !rc)
				rc = NTP_EXIT_FAILURE;
		}
		if (jf && !rc)
			rc = ntp_report__print_json(&r, jf, o);
		if (ho.f && !rc)
			rc = ntp_report__print_html(&r, ho.f, o);
	}
	ntp_report__free(&r);
	ntp_source__close(s);
	crc = ntp_report__json_close(&jo);
	/* a page is kept only when it is whole */
	hrc = ntp_outfile__close(&ho, !rc);
	return rc ? rc : crc ? crc : hrc;
}
