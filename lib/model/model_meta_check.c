// SPDX-License-Identifier: GPL-2.0
/*
 * record writes the meta rows (role, transport, sample rate, ...) before its
 * first command, so a recording without any is damaged or was not written
 * by ntprof record: a report of it could only say "unknown" for every field
 * and estimate rates from a sample rate of 0.  It is refused instead (the
 * reader itself, lib/ntp, still opens it: the writer's own tests and a
 * live recording's first moments have no meta yet).  A join refuses such a
 * file already, for its unknown role.
 */
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model_meta_check.h"

int ntp_report__check_meta(sqlite3 *db, const char *path)
{
	sqlite3_stmt *st;
	int rows = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM meta", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			rows = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (rows)
		return 0;   /* a failed count is left to the read that follows */
	ntp_error("%s: corrupt: the recording has no meta rows (role, transport, sample rate: "
		  "ntprof record writes them before any command)", path);
	return NTP_EXIT_CORRUPT;
}
