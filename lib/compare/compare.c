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
#include "lib/fmt/safe_text.h"
#include "lib/cli/outfile.h"
#include "lib/compare/compare.h"
#include "lib/compare/compare_html.h"
#include "lib/compare/compare_json.h"
#include "lib/compare/compare_model.h"
#include "lib/compare/compare_order.h"
#include "lib/compare/compare_text.h"
#include "lib/compare/compare_tidy.h"
#include "lib/core/size.h"
#include "lib/ntp/db_read.h"
#include "lib/report/report_jsonout.h"
#include "lib/model/model_files.h"
#include "lib/model/model_load.h"

/* the JSON error document; compare has always cut its message at 1023 bytes */
static void json_error(FILE *f, int code, const char *path)
{
	ntp_report__json_error(f, code, path, "recordings that cannot be compared", 1024);
}

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
	ntp_error("%s: a --threshold rule was exceeded, significantly, in %zu group%s: %s",
		  c->arg[1], c->over_threshold, c->over_threshold == 1 ? "" : "s", buf);
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
static int load(struct ntp_compare *c, const struct ntp_compare_opts *o, const char **culprit)
{
	bool detail = o->stages && !strcmp(o->stages, "detail");
	int rc = 0;

	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++) {
		*culprit = c->arg[r];
		rc = ntp_source__open_files(&c->src[r], c->files[r], c->nfiles[r], false);
	}
	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++) {
		*culprit = c->arg[r];
		/* one filter for both runs: --time from each run's own start */
		rc = ntp_report__load(&c->run[r], c->src[r],
				      &(struct ntp_report_load){ .detail = detail,
								 .filter = &o->filter });
	}
	return rc;
}

int ntp_compare__run(const char *base, const char *new_path, const struct ntp_compare_opts *o)
{
	const char *jpath = o->json_path;
	struct ntp_compare c;
	const char *culprit;
	struct ntp_outfile jo, ho;
	FILE *jf;
	int rc, crc, hrc;

	memset(&c, 0, sizeof(c));
	memset(&ho, 0, sizeof(ho));
	/* standard output takes one form */
	if (jpath && o->html_path && !strcmp(jpath, "-") && !strcmp(o->html_path, "-")) {
		ntp_error("-j - and --html - both write to standard output: give one a FILE");
		return NTP_EXIT_USAGE;
	}
	rc = ntp_report__json_open(&jo, jpath, "the JSON comparison");
	if (rc)
		return rc;
	jf = jo.f;
	if (o->html_path) {
		rc = ntp_outfile__open(&ho, o->html_path, "the HTML comparison");
		if (rc) {
			ntp_report__json_close(&jo);
			return rc;
		}
	}
	culprit = base;
	rc = split_run(&c, NTP_CMP_BASE, base);
	if (!rc)
		rc = split_run(&c, NTP_CMP_NEW, new_path);
	if (!rc)
		rc = load(&c, o, &culprit);
	if (rc)
		goto fail;
	culprit = new_path;
	rc = check_comparable(&c);
	if (rc)
		goto fail;
	rc = ntp_compare__build(&c, o);
	if (!rc)
		rc = ntp_compare__order(&c, &o->sort);
	if (rc)
		goto fail;

	/* read and paired: what is printed now may be paged, the errors before were not */
	ntp_pager__start(o->no_pager);
	if (jf != stdout && ho.f != stdout) {
		/* the files' strings reach the terminal made safe (lib/fmt/safe_text.h) */
		FILE *t = ntp_safe__wrap(stdout);

		if (t && o->field_separator)
			ntp_compare__warn_tidy(&c);
		rc = !t ? NTP_EXIT_FAILURE :
		     o->field_separator ? ntp_compare__print_tidy(&c, t, o) :
		     ntp_compare__print_text(&c, t, o);
		if (t && fclose(t) && !rc)
			rc = NTP_EXIT_FAILURE;
	}
	if (jf && !rc)
		rc = ntp_compare__print_json(&c, jf, o);
	if (ho.f && !rc)
		rc = ntp_compare__print_html(&c, ho.f, o);
	crc = ntp_report__json_close(&jo);
	/* a page is kept only when it is whole */
	hrc = ntp_outfile__close(&ho, !rc);
	crc = crc ? crc : hrc;
	if (!rc && !crc && c.over_threshold) {
		threshold_error(&c, o);
		rc = NTP_EXIT_THRESHOLD;
	}
	ntp_compare__free(&c);
	return rc ? rc : crc;

fail:
	json_error(jf, rc, culprit);
	ntp_report__json_close(&jo);
	ntp_outfile__close(&ho, false);
	ntp_compare__free(&c);
	return rc;
}
