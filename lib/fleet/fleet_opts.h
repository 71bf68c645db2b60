/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options that name the fleet's engine, one definition for push,
 * report, compare and series (ntprof-push(1), CONNECTING): --url, --user,
 * --password-file, --cacert, --database.  The password comes from the
 * file or from $NTPROF_FLEET_PASSWORD, never from the command line.
 */
#ifndef NTP_FLEET_OPTS_H
#define NTP_FLEET_OPTS_H

#include "lib/cli/opt.h"
#include "lib/fleet/ch.h"

#define NTP_FLEET_PASSWORD_ENV "NTPROF_FLEET_PASSWORD"

struct ntp_fleet_conn {
	const char *url, *user, *password_file, *cacert, *database;
	char *password;           /* read by ntp_fleet_conn__check */
};

#define NTP_FLEET_CONN_OPTIONS(c) \
	NTP_OPT_STRING(0, "url", &(c)->url, "URL", \
		       "the fleet's ClickHouse server, its HTTP interface: http[s]://HOST:PORT"), \
	NTP_OPT_STRING(0, "user", &(c)->user, "NAME", \
		       "the ClickHouse user (the password: --password-file, or $" \
		       NTP_FLEET_PASSWORD_ENV ")"), \
	NTP_OPT_STRING(0, "password-file", &(c)->password_file, "FILE", \
		       "the user's password: the first line of FILE"), \
	NTP_OPT_STRING(0, "cacert", &(c)->cacert, "FILE", \
		       "the CA certificates an https:// server's is checked against"), \
	NTP_OPT_STRING(0, "database", &(c)->database, "NAME", \
		       "the database of ntprof's tables (default ntprof)")

/*
 * o from c: the password read (a --password-file that cannot be read is
 * an error), the options that need --url refused without it.  0 or an
 * NTP_EXIT_* code after one line.
 */
int ntp_fleet_conn__check(struct ntp_fleet_conn *c, struct ntp_ch_opts *o);
void ntp_fleet_conn__free(struct ntp_fleet_conn *c);

#endif
