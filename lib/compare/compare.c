// SPDX-License-Identifier: GPL-2.0
/*
 * compare: open both recordings, summarize each with the report's own code,
 * refuse pairs that mean different things, then print the pairing as text
 * and/or JSON and apply --threshold.
 *
 * Both files are opened and checked before either is read, so a bad second
 * file fails at once rather than after a long read of the first.  They are
 * then read one after the other: each read frees its samples once its groups
 * are summarized, so the peak memory is that of the larger recording alone.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/safe_text.h"
#include "lib/compare/compare.h"
#include "lib/compare/compare_json.h"
#include "lib/compare/compare_model.h"
#include "lib/compare/compare_text.h"
#include "lib/core/size.h"
#include "lib/ntp/db_read.h"
#include "lib/report/report_jsonout.h"
#include "lib/report/report_query.h"

/* the JSON error document; compare has always cut its message at 1023 bytes */
static void json_error(FILE *f, int code, const char *path)
{
	ntp_report__json_error(f, code, path, "recordings that cannot be compared", 1024);
}

/*
 * A host and a target recording, or NVMe/TCP against NVMe/RDMA, have stages
 * that measure different things: no delta between them means anything.
 * Kernel, host, sample rate and hooks may differ: that is what one compares.
 */
static int check_comparable(const struct ntp_compare *c)
{
	const struct ntp_report_header *a = &c->run[0].hdr, *b = &c->run[1].hdr;
	const char *what[] = { "role", "transport" };
	const char *x[] = { a->role, a->transport };
	const char *y[] = { b->role, b->transport };

	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		if (!strcmp(ntp_report__or_unknown(x[i]), ntp_report__or_unknown(y[i])))
			continue;
		ntp_error("%s, %s: cannot compare: %s %s (baseline) vs %s (new)", c->path[0],
			  c->path[1], what[i], ntp_report__or_unknown(x[i]), ntp_report__or_unknown(y[i]));
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
		char size[32];
		int k;

		if (!g->over_threshold)
			continue;
		if (shown == 3) {
			snprintf(buf + off, sizeof(buf) - off, ", and %zu more",
				 c->over_threshold - 3);
			break;
		}
		ntp_size__str(g->bytes, size, sizeof(size));
		k = snprintf(buf + off, sizeof(buf) - off, "%s%s %s %s %+.2f%%", shown ? ", " : "",
			     g->io_type, size, g->ns, g->e2e_growth_pct);
		if (k > 0)
			off += (size_t)k;
		shown++;
	}
	ntp_error("%s: the end-to-end mean grew more than %g%% in %zu group%s: %s", c->path[1],
		  o->threshold_pct, c->over_threshold, c->over_threshold == 1 ? "" : "s", buf);
}

static int load(struct ntp_compare *c, sqlite3 **db)
{
	int rc = 0;

	for (int r = 0; r < NTP_CMP_RUNS && !rc; r++) {
		rc = ntp_report__load(&c->run[r], db[r], c->path[r]);
		sqlite3_close(db[r]);
		db[r] = NULL;
	}
	for (int r = 0; r < NTP_CMP_RUNS; r++)
		sqlite3_close(db[r]);
	return rc;
}

int ntp_compare__run(const char *base, const char *new_path, const struct ntp_compare_opts *o)
{
	const char *jpath = o->json_path;
	sqlite3 *db[NTP_CMP_RUNS] = { NULL, NULL };
	struct ntp_compare c;
	const char *culprit;
	struct ntp_outfile jo;
	FILE *jf;
	int rc, crc;

	memset(&c, 0, sizeof(c));
	c.path[NTP_CMP_BASE] = base;
	c.path[NTP_CMP_NEW] = new_path;
	rc = ntp_report__json_open(&jo, jpath, "the JSON comparison");
	if (rc)
		return rc;
	jf = jo.f;

	for (int r = 0; r < NTP_CMP_RUNS; r++) {
		culprit = c.path[r];
		rc = ntp_db__open_read(&db[r], c.path[r]);
		if (rc) {
			sqlite3_close(db[0]);
			goto fail;
		}
	}
	rc = load(&c, db);
	if (rc) {
		/* the first run that failed; ntp_report__load printed which */
		culprit = c.run[NTP_CMP_NEW].hdr.path ? new_path : base;
		goto fail;
	}
	culprit = new_path;
	rc = check_comparable(&c);
	if (rc)
		goto fail;
	rc = ntp_compare__build(&c, o);
	if (rc)
		goto fail;

	if (jf != stdout) {
		/* the files' strings reach the terminal made safe (lib/cli/safe_text.h) */
		FILE *t = ntp_safe__wrap(stdout);

		rc = t ? ntp_compare__print_text(&c, t, o) : NTP_EXIT_FAILURE;
		if (t && fclose(t) && !rc)
			rc = NTP_EXIT_FAILURE;
	}
	if (jf && !rc)
		rc = ntp_compare__print_json(&c, jf, o);
	crc = ntp_report__json_close(&jo);
	if (!rc && !crc && c.over_threshold) {
		threshold_error(&c, o);
		rc = NTP_EXIT_THRESHOLD;
	}
	ntp_compare__free(&c);
	return rc ? rc : crc;

fail:
	json_error(jf, rc, culprit);
	ntp_report__json_close(&jo);
	ntp_compare__free(&c);
	return rc;
}
