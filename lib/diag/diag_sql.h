/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the diagnosis reads of a host file beside the stages, in one place:
 * its stage view joined to host_io, under the report's read filters.
 */
#ifndef NTP_DIAG_SQL_H
#define NTP_DIAG_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/model/model.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_source.h"

/*
 * The host rows of s's file i, as the FROM of a query that continues
 * "WHERE 1" and w's clause (ntp_read_filter__prepare): columns io_type,
 * bytes, namespace, path, controller, qid, status, h_start_ns,
 * h_queue_ns, sent_ns, h_done_ns, e2e_ns, deferred (flag 32: the send was
 * io_work's), pid, comm, cpu, io_cpu and queue_in_flight (NULL where the
 * file has no such column).  *has_pid, *has_cpu: the file has the process's columns, the
 * CPUs' columns.  0 or an NTP_EXIT_* code.
 */
int ntp_diag__host_from(char *buf, size_t len, struct ntp_read_where *w, bool *has_pid,
			bool *has_cpu, const struct ntp_report *r, struct ntp_source *s, int i);

/*
 * The time the rows of from (ntp_diag__host_from, under w's filters when
 * filtered) span: the first one's start to the last one's end, when they
 * are at least NTP_DIAG_SPAN_MIN_N, else window (the filters' window of
 * the recording); into *span_ns.  The time over which Little's law takes
 * a rate: a recording that waited for its workload to start, or outlived
 * it, would spread the commands over time they did not run in.  0 or an
 * NTP_EXIT_* code.
 */
#define NTP_DIAG_SPAN_MIN_N 100
int ntp_diag__span_ns(sqlite3 *db, const char *path, const char *from,
		      const struct ntp_read_where *w, bool filtered, int64_t window,
		      int64_t *span_ns);
/* does schema hold table? */
bool ntp_diag__has_table(sqlite3 *db, const char *schema, const char *table);
/* ctrl's depth in a meta host_queue_depth text v ("nvme0=128 nvme1=32", NULL); -1 not stated */
int64_t ntp_diag__depth_in(const char *v, const char *ctrl);
/* ctrl's queue depth in file's meta host_queue_depth ("nvme0=128 nvme1=32"); -1 not stated */
int64_t ntp_diag__ctrl_depth(const struct ntp_source *s, int file, const char *ctrl);

#endif
