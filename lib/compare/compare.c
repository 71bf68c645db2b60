// SPDX-License-Identifier: GPL-2.0
/*
 * compare: load both runs into the report's own model (each a recording,
 * or the comma-separated recordings of one joined run), refuse pairs that
 * mean different things, then print the pairing as text and/or JSON and
 * apply --threshold.  The runs are read one after the other, so the peak
 * memory is that of the larger run alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/pager.h"
#include "lib/cli/term.h"
#include "lib/cli/output.h"
#include "lib/compare/compare.h"
#include "lib/compare/compare_html.h"
#include "lib/compare/compare_json.h"
#include "lib/compare/compare_model.h"
#include "lib/compare/compare_order.h"
#include "lib/compare/compare_text.h"
#include "lib/compare/compare_separated.h"
#include "lib/core/size.h"
#include "lib/model/model_files.h"
#include "lib/model/model_load.h"

/*
 * A host and a target recording, joined against alone, or NVMe/TCP against
 * NVMe/RDMA, have stages that measure different things: no delta between
 * them means anything.  Kernel, host, sample rate and hooks may differ: that
 * is what one compares.
 */
static int check_comparable(const struct ntp_compare *c)
{
	const struct ntp_report_header *a = &c->run[0].files[0].hdr, *b = &c->run[1].files[0].hdr;

	if (c->run[0].kind != c->run[1].kind) {
		ntp_error("%s, %s: cannot compare: %s (baseline) vs %s (new)", c->arg[0], c->arg[1],
			  ntp_compare__kind_words(c->run[0].kind),
			  ntp_compare__kind_words(c->run[1].kind));
		return NTP_EXIT_MISMATCH;
	}
	if (strcmp(ntp_report__or_unknown(a->transport), ntp_report__or_unknown(b->transport))) {
		ntp_error("%s, %s: cannot compare: transport %s (baseline) vs %s (new)", c->arg[0],
			  c->arg[1], ntp_report__or_unknown(a->transport),
			  ntp_report__or_unknown(b->transport));
		return NTP_EXIT_MISMATCH;
	}
	return 0;
}

/* one line naming the groups over the threshold, for the CI log */
static void threshold_error(const struct ntp_compare *c, const struct ntp_compare_opts *o)
{
	char buf[1024];
	size_t off = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->ngroups && off < sizeof(buf); i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		char size[32], rule[96];
		int k;

		if (!g->over_threshold)
			continue;
		if (shown == 3) {
			snprintf(buf + off, sizeof(buf) - off, ", and %zu more",
				 c->over_threshold - 3);
			break;
		}
		ntp_size__str(g->bytes, size, sizeof(size));
		ntp_compare__rule_str(g->tripped, rule, sizeof(rule));
		k = snprintf(buf + off, sizeof(buf) - off, "%s%s %s %s %+.2f%% (%s)",
			     shown ? ", " : "", g->io_type, size, g->label, g->tripped_growth_pct, rule);
		if (k > 0)
			off += (size_t)k;
		shown++;
	}
	(void)o;
	ntp_error("%s: a --threshold rule was exceeded, beyond the noise, in %zu group%s: %s",
		  c->arg[1], c->over_threshold, c->over_threshold == 1 ? "" : "s", buf);
}

/* a rule its statistic could not test, named with the groups: never a silent pass */
static void untested_error(const struct ntp_compare *c)
{
	char buf[1024];
	size_t off = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->ngroups && off < sizeof(buf); i++) {
		const struct ntp_compare_group *g = &c->groups[i];
		char size[32], rule[96];
		int k;

		if (!g->untested || g->over_threshold)
			continue;
		if (shown == 3) {
			snprintf(buf + off, sizeof(buf) - off, ", and %zu more",
				 c->untested_threshold - 3);
			break;
		}
		ntp_size__str(g->bytes, size, sizeof(size));
		ntp_compare__rule_str(g->untested, rule, sizeof(rule));
		k = snprintf(buf + off, sizeof(buf) - off, "%s%s %s %s (%s: %s needs %" PRIu64
			     " commands a run)", shown ? ", " : "", g->io_type, size, g->label, rule,
			     ntp_stats[g->untested->stat].name, g->untested_need);
		if (k > 0)
			off += (size_t)k;
		shown++;
	}
	ntp_error("%s: a --threshold rule could not be tested in %zu group%s: %s",
		  c->arg[1], c->untested_threshold, c->untested_threshold == 1 ? "" : "s", buf);
}

/*
 * One run's recordings: a file, or the files of one joined run separated
 * by commas ("host.ntp,target.ntp").  A name that is a file as it is, comma
 * and all, is that file.
 */
static int split_run(struct ntp_compare *c, int r, const char *arg)
{
	struct stat st;
	char *copy, *save = NULL, *tok;

	c->arg[r] = arg;
	copy = strdup(arg);
	c->names[r] = copy;
	if (!copy)
		goto nomem;
	if (!strchr(arg, ',') || !stat(arg, &st)) {
		c->files[r][c->nfiles[r]++] = copy;
		return 0;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (c->nfiles[r] == NTP_CMP_MAX_FILES) {
			ntp_error("%s: more than %d recordings in one run", arg, NTP_CMP_MAX_FILES);
			return NTP_EXIT_USAGE;
		}
		c->files[r][c->nfiles[r]++] = tok;
	}
	if (!c->nfiles[r]) {
		ntp_error("'%s': no recording named", arg);
		return NTP_EXIT_USAGE;
	}
	return 0;
nomem:
	ntp_error("%s: %s", arg, strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

/*
 * Both runs' files are opened and checked before either is read: a bad
 * second file fails at once rather than after a long read of the first.
 * Then one run after the other, each read freeing its samples once its
 * groups are summarized.
 */
static int load(struct ntp_compare *c, const struct ntp_compare_opts *o,
		ntp_compare_open_fn open, void *ctx, const char **culprit)
{
	bool detail = o->stages && !strcmp(o->stages, "detail");
	int rc = 0;

	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++) {
		*culprit = c->arg[r];
		rc = open ? open(ctx, r, &c->src[r]) :
		     ntp_source__open_files(&c->src[r], c->files[r], c->nfiles[r], false);
	}
	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++) {
		*culprit = c->arg[r];
		/* one filter for both runs: --time from each run's own start */
		rc = ntp_report__load(&c->run[r], c->src[r],
				      &(struct ntp_report_load){ .detail = detail,
								 .filter = &o->filter,
								 .evidence = true });
	}
	/* nothing is said of the runs before their files' check is done */
	rc = ntp_source__verdict(c->src, NTP_CMP_RUNS, rc);
	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++) {
		static const char *const run[NTP_CMP_RUNS] = { "the baseline: ", "the new run: " };

		if (c->run[r].filter && !c->run[r].total)
			ntp_read_filter__warn_none(c->src[r], c->run[r].filter, run[r]);
		/* each run diagnosed as report diagnoses it: compare names the same */
		if (!rc)
			rc = ntp_diag__make(&c->diag[r], &c->run[r], c->src[r]);
		/* --by: each run's rows as report's, then paired */
		if (!rc)
			rc = ntp_diag_by__make(&c->diag[r].by, ntp_diag_by__key(o->by), &c->run[r],
					       c->src[r]);
	}
	if (!rc && ntp_compare_by__make(&c->by, &c->diag[NTP_CMP_BASE].by,
					&c->diag[NTP_CMP_NEW].by)) {
		ntp_error("cannot pair the runs' rows per %s: %s", o->by, strerror(ENOMEM));
		rc = NTP_EXIT_FAILURE;
	}
	return rc;
}

int ntp_compare__run(const char *base, const char *new_path, const struct ntp_compare_opts *o)
{
	return ntp_compare__run_from(NULL, NULL, base, new_path, o);
}

int ntp_compare__run_from(ntp_compare_open_fn open, void *ctx, const char *base,
			  const char *new_path, const struct ntp_compare_opts *opts)
{
	struct ntp_compare_opts to = *opts, *o = &to;
	const char *inputs[2 * NTP_CMP_MAX_FILES];
	struct ntp_output out = {
		.path = { [NTP_FORM_JSON] = o->json_path, [NTP_FORM_HTML] = o->html_path },
		.pretty = o->pretty, .separator = o->field_separator, .quiet = o->quiet,
		.what = "comparison", .mismatch = "recordings that cannot be compared",
		.cut = 1024,
	};
	struct ntp_compare c;
	const char *culprit;
	int rc, ninputs = 0;
	FILE *t;

	memset(&c, 0, sizeof(c));
	culprit = base;
	/* a run that names too many files is told in the JSON too: the outputs come first */
	if (open) {
		/* the runs are the opener's: their arguments name them, no file is read */
		c.arg[NTP_CMP_BASE] = base;
		c.arg[NTP_CMP_NEW] = new_path;
		rc = 0;
	} else {
		rc = split_run(&c, NTP_CMP_BASE, base);
		if (!rc)
			rc = split_run(&c, NTP_CMP_NEW, new_path);
	}
	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++)
		for (int i = 0; i < c.nfiles[r]; i++)
			inputs[ninputs++] = c.files[r][i];
	{
		int orc = ntp_output__check(&out, inputs, ninputs);

		if (!orc)
			orc = ntp_output__open(&out);
		if (orc) {
			ntp_compare__free(&c);
			return orc;
		}
	}
	if (!rc)
		rc = load(&c, o, open, ctx, &culprit);
	if (!rc) {
		culprit = new_path;
		rc = check_comparable(&c);
	}
	if (!rc)
		rc = ntp_compare__build(&c, o);
	if (!rc)
		rc = ntp_compare__order(&c, &o->sort);
	if (rc) {
		ntp_output__fail(&out, rc, culprit);
		ntp_compare__free(&c);
		return ntp_output__close(&out, rc);
	}

	/* read and paired: what is printed now may be paged, the errors before were not */
	/* the terminal's width and colour, seen before a pager stands in for it */
	ntp_term__open(&o->term, o->wide, o->color);
	ntp_pager__start(o->no_pager, !o->term.width);
	t = ntp_output__text(&out, &rc);
	if (t && o->field_separator)
		ntp_compare__warn_separated(&c);
	if (t)
		rc = o->field_separator ? ntp_compare__print_separated(&c, t, o) :
		     ntp_compare__print_text(&c, t, o);
	if (!rc && ntp_output__file(&out, NTP_FORM_JSON))
		rc = ntp_compare__print_json(&c, ntp_output__file(&out, NTP_FORM_JSON), o);
	if (!rc && ntp_output__file(&out, NTP_FORM_HTML))
		rc = ntp_compare__print_html(&c, ntp_output__file(&out, NTP_FORM_HTML), o);
	rc = ntp_output__close(&out, rc);
	if (!rc && !c.over_threshold && c.untested_threshold) {
		untested_error(&c);
		rc = NTP_EXIT_UNTESTED;
	}
	if (!rc && c.over_threshold) {
		threshold_error(&c, o);
		rc = NTP_EXIT_THRESHOLD;
	}
	ntp_compare__free(&c);
	return rc;
}
