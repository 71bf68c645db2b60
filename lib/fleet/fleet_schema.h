/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fleet's tables in ClickHouse (ntprof-fleet(7), THE TABLES), version
 * NTP_FLEET_SCHEMA_VERSION, made here from the table of stages
 * (lib/core/stage_table.h): each stage a view of the .ntp schema has is a
 * column of cmds computed by the engine from the recorded points with the
 * stage's own formula, and the joined stages of pairs take theirs too.
 *
 * Two layouts: one server (each table a MergeTree), or a cluster named in
 * the server's remote_servers, where each table T is a MergeTree T_local
 * on every node and T a Distributed table over them, sharded by subsystem
 * and controller, so that a controller's host and target rows, and its
 * pairs, are on one shard.  The table ntprof_schema (never distributed)
 * says which, and the version.
 */
#ifndef NTP_FLEET_SCHEMA_H
#define NTP_FLEET_SCHEMA_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/fleet/ch.h"

/*
 * The version ntprof writes into ntprof_schema when it makes the tables,
 * and the oldest it reads and writes (ntprof-fleet(7), VERSIONS):
 *   1  the stages of cmds are DEFAULT columns, stored at each insert;
 *   2  they are ALIAS columns, computed when read (no insert sends them in
 *      either, so tables of version 1 are read and written as they are).
 * Tables of a newer version are refused (NTP_EXIT_FLEET_SCHEMA).
 */
#define NTP_FLEET_SCHEMA_VERSION 2
#define NTP_FLEET_SCHEMA_MIN_VERSION 1

enum ntp_fleet_table {
	NTP_FLEET_RUNS,           /* a row per push of a recording: its meta; complete marks it */
	NTP_FLEET_IDS,            /* the recordings' nvmf_ids */
	NTP_FLEET_CMDS,           /* a row per sampled command per side */
	NTP_FLEET_CLOCKS,         /* a row per (host run, target run): the clock line and counts */
	NTP_FLEET_PAIRS,          /* a row per joined command: the joined stages */
	NTP_FLEET_NTABLES,
};

struct ntp_fleet {
	struct ntp_ch *ch;
	char *cluster;            /* "" on one server */
	/* each table's name to read (Distributed on a cluster) and local one */
	char names[NTP_FLEET_NTABLES][2][128];
};

/*
 * Connect (o), and find ntprof's tables in o->database.  Missing, create
 * makes them (over cluster, NULL or "": one server); else they are an
 * error.  Tables of a version outside [NTP_FLEET_SCHEMA_MIN_VERSION,
 * NTP_FLEET_SCHEMA_VERSION], or over another cluster than the one given,
 * are refused with NTP_EXIT_FLEET_SCHEMA.  0 or an NTP_EXIT_* code
 * after one line.
 */
int ntp_fleet__open(struct ntp_fleet **f, const struct ntp_ch_opts *o, const char *cluster,
		    bool create);
void ntp_fleet__close(struct ntp_fleet *f);

/* table t's name: the one every shard's rows are read through, or this node's own */
static inline const char *ntp_fleet__table(const struct ntp_fleet *f, enum ntp_fleet_table t,
					   bool local)
{
	return f->names[t][local];
}

/*
 * Table t's columns as ntprof writes them (the computed stages left out):
 * their names and types, pointing into buf.  Their number, or -ENOSPC
 * when buf or max is too small.
 */
int ntp_fleet__columns(enum ntp_fleet_table t, char *buf, size_t len, const char **names,
		       const char **types, int max);

/*
 * The SQL expression of stage s (lib/core/stage_table.h) over the columns
 * of cmds (a side's stage: its points) or of pairs and cmds (a joined
 * stage: the other stages' key_ns), into buf; NULL when the fleet has no
 * column for it (the sub-stages, the application's).
 */
const char *ntp_fleet__stage_sql(int s, char *buf, size_t len);

#endif
