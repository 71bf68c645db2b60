// SPDX-License-Identifier: GPL-2.0
/*
 * report: open the recording, load the model, print it as text and/or JSON.
 * Shared by `ntprof report` and the end of `ntprof record`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/db.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/json.h"
#include "lib/report.h"
#include "lib/report_priv.h"

/* the cause behind each code, for the JSON error document (stderr has the details) */
static const char *exit_cause(int code)
{
	switch (code) {
	case NTP_EXIT_NOFILE:
		return "input file missing or unreadable";
	case NTP_EXIT_NOTSQLITE:
		return "not an SQLite database";
	case NTP_EXIT_NOTNTP:
		return "not an ntprof recording";
	case NTP_EXIT_TOONEW:
		return "recording of a newer schema than this ntprof reads";
	case NTP_EXIT_CORRUPT:
		return "recording truncated or damaged";
	case NTP_EXIT_USAGE:
		return "bad command line";
	default:
		return "runtime failure";
	}
}

static void json_error(FILE *f, int code, const char *path)
{
	char msg[512];

	if (!f)
		return;
	snprintf(msg, sizeof(msg), "%s: %s", path, exit_cause(code));
	ntp_json__error_document(f, code, msg);
}

static int close_json(FILE *f, const char *path)
{
	if (!f || f == stdout)
		return 0;
	if (ferror(f) | fclose(f)) {
		ntp_error("%s: cannot write the JSON report: %s", path, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

int ntp_report__run(const char *const *paths, int npaths, const struct ntp_report_opts *o)
{
	const char *jpath = o->json_path;
	int json_stdout = jpath && !strcmp(jpath, "-");
	struct ntp_report r;
	FILE *jf = NULL;
	sqlite3 *db;
	int rc, crc;

	if (jpath)
		jf = json_stdout ? stdout : fopen(jpath, "w");
	if (jpath && !jf) {
		ntp_error("%s: cannot create the JSON report: %s", jpath, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	if (npaths != 1) {
		/* joining a host and a target recording comes with the target side */
		if (npaths < 1)
			ntp_error("no recording given: ntprof report FILE");
		else
			ntp_error("%s: reporting on more than one recording is not supported yet",
				  paths[1]);
		json_error(jf, NTP_EXIT_USAGE, npaths > 1 ? paths[1] : "-");
		close_json(jf, jpath);
		return NTP_EXIT_USAGE;
	}

	rc = ntp_db__open_read(&db, paths[0]);
	if (rc) {
		json_error(jf, rc, paths[0]);
		close_json(jf, jpath);
		return rc;
	}
	rc = ntp_report__load(&r, db, paths[0]);
	sqlite3_close(db);
	if (rc) {
		ntp_report__free(&r);
		json_error(jf, rc, paths[0]);
		close_json(jf, jpath);
		return rc;
	}
	if (!json_stdout)
		rc = ntp_report__print_text(&r, stdout, o);
	if (jf && !rc)
		rc = ntp_report__print_json(&r, jf, o);
	crc = close_json(jf, jpath);
	ntp_report__free(&r);
	return rc ? rc : crc;
}
