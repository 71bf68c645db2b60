/* SPDX-License-Identifier: GPL-2.0 */
/* One recording as the fleet's tables hold it: a row of runs (lib/fleet/fleet_schema.h). */
#ifndef NTP_FLEET_RUN_H
#define NTP_FLEET_RUN_H

#include <stdint.h>
#include <stdlib.h>

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
