/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ntprof push: recordings into the fleet's tables in ClickHouse
 * (ntprof-push(1)), by the commit protocol of ntprof-fleet(7):
 *
 *  1. the recording's run id is a hash of its meta and its rows' count and
 *     times, so the same file always has the same id;
 *  2. when runs holds a complete row for it, it is there already: nothing
 *     is sent again;
 *  3. else a new push id (random) tags everything this push sends: a runs
 *     row with complete = 0, its nvmf_ids, its commands in batches;
 *  4. once the engine counts every command of the push id, a runs row with
 *     complete = 1 commits it.
 *
 * Readers see the rows of committed push ids only (one per run id: the
 * least), so a push that stopped part way is invisible and is run again.
 * Then each (host run, target run) that the recordings make up is joined
 * in the engine (lib/fleet/fleet_join.h).
 */
#ifndef NTP_FLEET_PUSH_H
#define NTP_FLEET_PUSH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fleet/ch.h"

struct ntp_push_opts {
	struct ntp_ch_opts ch;    /* --url, --user, the password, --cacert, --database */
	const char *cluster;      /* --cluster: the tables to create over it; NULL: one server */
	uint64_t batch_rows;      /* --batch-rows: commands per INSERT; 0: the default */
	uint64_t join_rows;       /* --join-rows: the join's commands a side a part; 0: the default */
	bool no_join;             /* --no-join: push only, pair nothing */
};

#define NTP_PUSH_BATCH_ROWS 262144

/* push paths[0..n): 0 or an NTP_EXIT_* code after one line */
int ntp_push__run(const char *const *paths, int n, const struct ntp_push_opts *o);

#endif
