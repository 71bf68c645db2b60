/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options that name the fleet's engine, one definition for push,
 * report, compare and series (ntprof-push(1), CONNECTING): --url, --user,
 * --password-file, --cacert, --database.  The password comes from the
 * file or from $NTPROF_FLEET_PASSWORD, never from the command line.
 */
#ifndef NTP_FLEET_OPTS_H
#define NTP_FLEET_OPTS_H

#include <stdbool.h>

#include "lib/cli/opt.h"
#include "lib/fleet/ch.h"
#include "lib/fleet/fleet_source.h"

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

/* the fleet filters of report (lib/fleet/fleet_source.h), one definition */
#define NTP_FLEET_FILTER_OPTIONS(ff) \
	NTP_OPT_STRING(0, "host", &(ff)->hosts, "NAME[,NAME]", \
		       "--url: the host runs of these host names (and the target runs joined to them)"), \
	NTP_OPT_STRING(0, "target", &(ff)->targets, "NAME[,NAME]", \
		       "--url: the target runs of these host names (and the host runs joined to them)"), \
	NTP_OPT_STRING(0, "run", &(ff)->runs, "ID[,ID]", \
		       "--url: these runs, by the ids push prints"), \
	NTP_OPT_STRING(0, "subsysnqn", &(ff)->subsysnqn, "NQN", \
		       "--url: only commands of this subsystem"), \
	NTP_OPT_STRING(0, "controller", &(ff)->cntlids, "CNTLID[,CNTLID]", \
		       "--url: only commands of these controller ids"), \
	NTP_OPT_STRING(0, "from", &(ff)->from, "TIME", \
		       "--url: only commands from TIME on (UTC: YYYY-MM-DD[THH:MM[:SS]] or @SECONDS)"), \
	NTP_OPT_STRING(0, "until", &(ff)->until, "TIME", \
		       "--url: only commands before TIME (UTC)")

/*
 * Without --url: 0 when none of c's and ff's options is given, else
 * NTP_EXIT_USAGE after one line naming the first ("needs --url").
 */
int ntp_fleet_conn__none(const struct ntp_fleet_conn *c, const struct ntp_fleet_filter *ff);

/*
 * o from c: the password read (a --password-file that cannot be read is
 * an error), the options that need --url refused without it.  0 or an
 * NTP_EXIT_* code after one line.
 */
int ntp_fleet_conn__check(struct ntp_fleet_conn *c, struct ntp_ch_opts *o);
void ntp_fleet_conn__free(struct ntp_fleet_conn *c);

/*
 * The engine as the one source of a report or a series (--url): its
 * connection, the fleet filters, and the read filters applied at load.
 */
struct ntp_fleet_open {
	struct ntp_ch_opts ch;
	struct ntp_fleet_filter ff;
	const struct ntp_read_filter *rf;
};

/* opens the source of ctx, a struct ntp_fleet_open: report's and series' opener */
int ntp_fleet_open__source(void *ctx, struct ntp_source **s);

/*
 * report's and series' arguments, argv[0..n): recordings without --url,
 * none with it.  0 and *fleet false: read the recordings; 0 and *fleet
 * true: fo->ch is checked (ntp_fleet_conn__check; c freed after the
 * run); else an NTP_EXIT_* code after one line (usage: the command's
 * first usage line).
 */
int ntp_fleet_conn__args(struct ntp_fleet_conn *c, struct ntp_fleet_open *fo, int n,
			 const char *const *argv, const char *usage, bool *fleet);

#endif
