// SPDX-License-Identifier: GPL-2.0
/*
 * report, compare: the output options that mean nothing together.  Each
 * such combination is refused: accepted and ignored, it would give a script
 * that asked for indented JSON or separated columns something else in
 * silence.
 */
#include <stdio.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/report/report_jsonout.h"
#include "lib/report/report_outopts.h"

/* with -j - stdout is the JSON document, an error's too */
static int refuse(bool json_stdout)
{
	if (json_stdout)
		ntp_report__json_error(stdout, NTP_EXIT_USAGE, "-", NULL, 1024);
	return NTP_EXIT_USAGE;
}

int ntp_report__check_output(const char *json_path, bool pretty, const char *sep, bool quiet)
{
	bool json_stdout = json_path && !strcmp(json_path, "-");

	if (pretty && !json_path) {
		ntp_error("--pretty indents the JSON, and there is none without -j FILE (or -j -)");
		return NTP_EXIT_USAGE;
	}
	if (json_stdout && (sep || quiet)) {
		ntp_error("%s shapes the text, and -j - writes the JSON instead of the text: "
			  "give -j FILE to have both, or leave %s out", sep ? "-t" : "-q",
			  sep ? "-t" : "-q");
		return refuse(json_stdout);
	}
	return 0;
}
