// SPDX-License-Identifier: GPL-2.0
/*
 * Where -j's JSON goes, for report and compare alike: the file (or stdout),
 * the error document a failure leaves there, and the close that catches a
 * failed write.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/json.h"
#include "lib/cli/outfile.h"
#include "lib/report/report_jsonout.h"

int ntp_report__json_open(struct ntp_outfile *o, const char *path, const char *what)
{
	memset(o, 0, sizeof(*o));
	if (!path)
		return 0;
	return ntp_outfile__open(o, path, what);
}

/*
 * The cause behind each code, for the JSON error document when no error
 * line was printed; a mismatch is the command's own: joined, or compared.
 */
static const char *exit_cause(int code, const char *mismatch)
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
	case NTP_EXIT_MISMATCH:
		return mismatch;
	default:
		return "runtime failure";
	}
}

void ntp_report__json_error(FILE *f, int code, const char *path, const char *mismatch,
			    size_t cut)
{
	size_t len = cut < 1024 ? cut : 1024;
	char msg[1024];

	if (!f)
		return;
	/* the line stderr got, so that a script reads the same cause a person does */
	if (!ntp_err__last(msg, len))
		snprintf(msg, len, "%s: %s", path, exit_cause(code, mismatch));
	ntp_json__error_document(f, code, msg);
}

int ntp_report__json_close(struct ntp_outfile *o)
{
	/* kept even after a failure: it holds the error document then */
	return ntp_outfile__close(o, true);
}
