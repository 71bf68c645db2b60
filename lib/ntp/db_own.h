/* SPDX-License-Identifier: GPL-2.0 */
/* ntprof's own views over a recording, whatever views the file holds (db_own.c). */
#ifndef NTP_DB_OWN_H
#define NTP_DB_OWN_H

#include <stddef.h>
#include <sqlite3.h>

/* the stage views of schema/ntp.sql that readers query */
#define NTP_DB_HOST_STAGES "host_stages"
#define NTP_DB_TARGET_STAGES "target_stages"

/*
 * ntprof's own definitions of the stage views over the recording path,
 * open in db as schema ("main", or an ATTACHed name), as TEMP views: what
 * a reader queries is these, whatever views the file holds.  For "main"
 * they are named as in the file (host_stages: unqualified names find TEMP
 * first), for another schema S "S_host_stages" (ntp_db__view_name()).
 * Checks first that the tables they read are ordinary tables with
 * ntprof's columns (not views, virtual tables or generated columns).  0 or
 * an NTP_EXIT_* code, printed with the path.
 */
int ntp_db__own_views(sqlite3 *db, const char *schema, const char *path);

/* the name a reader queries for view (NTP_DB_HOST_STAGES, ...) of schema */
const char *ntp_db__view_name(char *buf, size_t len, const char *schema, const char *view);

#endif
