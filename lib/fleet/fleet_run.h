/* SPDX-License-Identifier: GPL-2.0 */
/* One recording as the fleet's tables hold it: a row of runs (lib/fleet/fleet_schema.h). */
#ifndef NTP_FLEET_RUN_H
#define NTP_FLEET_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/ntp/db_meta.h"

struct ntp_fleet_run {
	uint64_t run_id;          /* a hash of the recording's meta and rows: the same file, the same id */
	uint64_t push_id;         /* the push that committed it (random, never 0) */
	char *role, *hostname, *boot_id, *transport, *kernel_release, *ntprof_version;
	char *meta;               /* every meta key, a JSON object */
	int64_t sample_one_in, hash_version;
	int64_t start_ns, stop_ns, duration_ns, start_utc_ns;
	int64_t host_rows, target_rows;
	/* the intervals' sums of each side (host 0, target 1): seen, sampled, lost_ringbuf, lost_map */
	uint64_t counts[2][4];
	int sides;                /* enum ntp_side */
};

struct ntp_fleet;

/*
 * Appends to (*runs)[0..*n) the committed runs (complete = 1) that where (SQL
 * over the columns of runs) selects, one a run id (its least push id): host
 * and "-r both" runs first, then by start, host name and file.  0 or an
 * NTP_EXIT_* code after one line.
 */
int ntp_fleet_run__read(struct ntp_fleet *f, const char *where, struct ntp_fleet_run **runs,
			int *n);

/*
 * The first recording setting joined runs must agree on (the meta table's
 * agree keys, lib/ntp/db_meta.c, of those runs has a column for: transport,
 * sample rate, sampling hash version) on which h and t differ, in the
 * table's order: true and its key in *k, or false when they agree.
 */
bool ntp_fleet_run__disagree(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t,
			     enum ntp_meta_key *k);

/*
 * One line, as a join of files refuses them (lib/model/model_check.c):
 * runs h and t cannot be joined, they differ on k, naming both values;
 * what follows the hint (NULL: nothing) is added to it.  The key's
 * exit code (NTP_EXIT_HASH for the hash version).
 */
int ntp_fleet_run__refuse(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t,
			  enum ntp_meta_key k, const char *more);

/*
 * were h and t recording at one time?  By their wall-clock spans; a run
 * whose meta has no start or no duration may have been, so true
 */
bool ntp_fleet_run__overlap(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t);

static inline void ntp_fleet_run__free(struct ntp_fleet_run *r)
{
	free(r->role);
	free(r->hostname);
	free(r->boot_id);
	free(r->transport);
	free(r->kernel_release);
	free(r->ntprof_version);
	free(r->meta);
}

#endif
