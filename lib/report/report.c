// SPDX-License-Identifier: GPL-2.0
/*
 * report: open the recording, load the model, print it as text and/or JSON.
 * Shared by `ntprof report` and the end of `ntprof record`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/safe_text.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"
#include "lib/report/report.h"
#include "lib/report/report_jjson.h"
#include "lib/report/report_join.h"
#include "lib/report/report_json.h"
#include "lib/report/report_jsonout.h"
#include "lib/report/report_jtext.h"
#include "lib/report/report_model.h"
#include "lib/report/report_paths.h"
#include "lib/report/report_query.h"
#include "lib/report/report_text.h"

/* the JSON error document; report has always cut its message at 511 bytes */
static void json_error(FILE *f, int code, const char *path)
{
	ntp_report__json_error(f, code, path, "recordings that cannot be joined", 512);
}

/* the joined model, the detailed stages of one host recording, or a target alone */
static int run_jreport(const char *const *paths, int npaths, enum ntp_jreport_kind kind,
		       const struct ntp_report_opts *o, FILE *jf)
{
	int detail = o->stages && !strcmp(o->stages, "detail");
	struct ntp_jreport r;
	int rc;

	rc = ntp_jreport__load(&r, paths, npaths, kind, detail);
	if (rc) {
		ntp_jreport__free(&r);
		json_error(jf, rc, npaths > 1 ? "the recordings" : paths[0]);
		return rc;
	}
	if (jf != stdout) {
		/* the file's strings reach the terminal made safe (lib/cli/safe_text.h) */
		FILE *t = ntp_safe__wrap(stdout);

		rc = t ? ntp_jreport__print_text(&r, t, o) : NTP_EXIT_FAILURE;
		if (t && fclose(t) && !rc)
			rc = NTP_EXIT_FAILURE;
	}
	if (jf && !rc)
		rc = ntp_jreport__print_json(&r, jf, o);
	ntp_jreport__free(&r);
	return rc;
}

/* one host recording, as it always was: report_query.c and its printers */
static int run_report(sqlite3 *db, const char *path, const struct ntp_report_opts *o, FILE *jf)
{
	struct ntp_report r;
	int rc;

	rc = ntp_report__load(&r, db, path);
	if (rc) {
		ntp_report__free(&r);
		json_error(jf, rc, path);
		return rc;
	}
	if (jf != stdout) {
		FILE *t = ntp_safe__wrap(stdout);

		rc = t ? ntp_report__print_text(&r, t, o) : NTP_EXIT_FAILURE;
		if (t && fclose(t) && !rc)
			rc = NTP_EXIT_FAILURE;
	}
	if (jf && !rc)
		rc = ntp_report__print_json(&r, jf, o);
	ntp_report__free(&r);
	return rc;
}

/*
 * Several recordings are joined; so is one "-r both" recording, which holds
 * both sides.  One host recording gets the report on one recording, or with
 * --stages=detail its finer stages.  One target recording (-r target) gets
 * the target's own stages: the rest of the journey is in the host's file.
 */
int ntp_report__run(const char *const *paths, int npaths, const struct ntp_report_opts *o)
{
	const char *jpath = o->json_path;
	char *role = NULL;
	sqlite3 *db;
	struct ntp_outfile jo;
	FILE *jf;
	int rc, crc;

	rc = ntp_report__json_open(&jo, jpath, "the JSON report");
	if (rc)
		return rc;
	jf = jo.f;
	if (npaths < 1) {
		ntp_error("no recording given: ntprof report FILE...");
		json_error(jf, NTP_EXIT_USAGE, "-");
		ntp_report__json_close(&jo);
		return NTP_EXIT_USAGE;
	}
	if (npaths > 1) {
		rc = ntp_report__check_twice(paths, npaths);
		if (rc)
			json_error(jf, rc, paths[0]);
		else
			rc = run_jreport(paths, npaths, NTP_JREPORT_JOINED, o, jf);
	} else {
		rc = ntp_db__open_read(&db, paths[0]);
		if (rc) {
			json_error(jf, rc, paths[0]);
			ntp_report__json_close(&jo);
			return rc;
		}
		role = ntp_meta__text(db, NTP_META_ROLE);
		/* a joined recording (ntprof join) holds both sides and its own pairing */
		if (role && (!strcmp(role, "both") || !strcmp(role, "joined"))) {
			sqlite3_close(db);
			rc = run_jreport(paths, 1, NTP_JREPORT_JOINED, o, jf);
		} else if (role && !strcmp(role, "target")) {
			sqlite3_close(db);
			rc = run_jreport(paths, 1, NTP_JREPORT_TARGET, o, jf);
		} else if (o->stages && !strcmp(o->stages, "detail")) {
			sqlite3_close(db);
			rc = run_jreport(paths, 1, NTP_JREPORT_HOST, o, jf);
		} else {
			rc = run_report(db, paths[0], o, jf);
			sqlite3_close(db);
		}
		free(role);
	}
	crc = ntp_report__json_close(&jo);
	return rc ? rc : crc;
}
