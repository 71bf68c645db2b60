// SPDX-License-Identifier: GPL-2.0
/*
 * join: the two failures every part of the join reports the same way (an
 * SQL error, no memory), in a file of their own at the bottom of the
 * folder, so that the parts that use them need not include each other.
 */
#include <errno.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/join/join_priv.h"

int ntp_join__sql_fail(sqlite3 *db, const char *what)
{
	ntp_error("join: %s: %s", what, sqlite3_errmsg(db));
	return NTP_EXIT_FAILURE;
}

int ntp_join__nomem(void)
{
	ntp_error("join: %s", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}
