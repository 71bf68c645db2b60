/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fleet's engine as a source of recordings (lib/model/model_source.h):
 * the runs pushed to ClickHouse that the fleet filters select, loaded into
 * the same report model as files are, with every statistic computed by the
 * engine (ntprof-fleet(7), REPORTS FROM THE ENGINE):
 *
 *  - the runs: committed ones (ntprof-push(1)), chosen by host name, target
 *    name, run id and wall-clock span; a host run's joined target runs and a
 *    target run's joined host runs come with it;
 *  - the kind: joined when some (host run, target run) of them has a clock
 *    line (the joined commands of pairs), else a host or a target report
 *    of cmds; host and target runs that no line joins are refused as
 *    report refuses recordings it cannot join;
 *  - each group's statistics in one aggregation: count, min, max, the exact
 *    integer sum, the sample standard deviation, and the nearest-rank
 *    percentiles ntprof's own (lib/core/stats.h) as -quantilesExact(1 - p)
 *    of the negated values (ClickHouse's quantileExact(q) is the value at
 *    0-based index floor(q n) of the sorted values; of -x that is x's
 *    ceil(p n)-th smallest, p's nearest rank); the commands that are
 *    impossible (ntprof-report(1)) counted apart as the model counts them.
 *
 * The read filters are applied in the engine, --time from each run's own
 * start.  The stages of --stages=detail and the application's stages are
 * not in the fleet's tables.
 */
#ifndef NTP_FLEET_SOURCE_H
#define NTP_FLEET_SOURCE_H

#include <stdint.h>

#include "lib/fleet/ch.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_source.h"

/* the fleet filters (ntprof-report(1), FLEET): NULL: any */
struct ntp_fleet_filter {
	const char *hosts;        /* host runs by host name, comma-separated */
	const char *targets;      /* target runs by host name */
	const char *runs;         /* runs by id (hex, as push prints it) */
	const char *subsysnqn;    /* commands of this subsystem */
	const char *cntlids;      /* commands of these controller ids */
	const char *from, *until; /* UTC: YYYY-MM-DD[THH:MM[:SS]] or @SECONDS; commands in [from, until) */
	/*
	 * percentiles by the engine's t-digest (quantilesTDigest), without their
	 * intervals: faster, within the rank error ntprof-fleet(7) documents
	 */
	bool approx;
};

/*
 * The runs of the engine o names that ff selects, as a source; the read
 * filters rf are applied at load.  0 or an NTP_EXIT_* code after one line.
 */
int ntp_source__open_fleet(struct ntp_source **s, const struct ntp_ch_opts *o,
			   const struct ntp_fleet_filter *ff, const struct ntp_read_filter *rf);

#endif
