/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a .ntp recording (record; lib/ntp/db_schema.h).  The commands'
 * records are spooled to FILE.spool as they come, appended at every
 * ntp_writer__flush() (record flushes about once a second); the other rows
 * are committed to the file then.  So a SIGKILL loses at most the last
 * second, and leaves a spool that ntprof finish turns into rows
 * (ntp_writer__import_spool).  The file is written in WAL mode under its
 * final name (an existing file is first renamed to FILE.old, with the files
 * beside it, as perf does); ntp_writer__close() turns the spool into rows,
 * checkpoints and switches back to a single-file rollback journal.
 */
#ifndef NTP_DB_WRITE_H
#define NTP_DB_WRITE_H

#include <stdint.h>
#include <linux/types.h>
#include <sqlite3.h>

#include "bpf/ntp_events.h"
#include "lib/ntp/db_meta.h"

#define NTP_DB_BATCH_ROWS 4096

struct ntp_writer;

struct ntp_interval {
	uint64_t t_ns;
	const char *side;          /* "host" / "target" */
	uint64_t seen, sampled, lost_ringbuf, lost_map;
};

/* one backend device's counters over one interval (schema/ntp.sql, backend_stats) */
struct ntp_backend_stat {
	uint64_t t_ns, interval_ns;
	const char *device;
	uint64_t ios, in_flight, busy_ms, queue_ms;
	int64_t depth;             /* < 0: unread, NULL */
};

/* Returns 0 or an NTP_EXIT_* code after printing a one-line error. */
int ntp_writer__open(struct ntp_writer **w, const char *path);
/*
 * Before anything is attached: can a recording be created at path (its
 * directory exists and is writable, path is not a directory)?  0, or
 * NTP_EXIT_FAILURE after one line naming the cause.
 */
int ntp_writer__check_place(const char *path);
int ntp_writer__set_meta_text(struct ntp_writer *w, const char *key, const char *value);
int ntp_writer__set_meta_int(struct ntp_writer *w, const char *key, int64_t value);
/* the same for a key of the meta table (lib/ntp/db_meta.h), of that key's type */
int ntp_meta__set_text(struct ntp_writer *w, enum ntp_meta_key k, const char *value);
int ntp_meta__set_int(struct ntp_writer *w, enum ntp_meta_key k, int64_t value);
/*
 * The filters in force (lib/core/filter.h), as meta filter_session (the
 * name given, when f matches a namespace), filter_io_type and filter_sizes;
 * nothing for f NULL
 */
struct ntp_filter;
int ntp_meta__set_filter(struct ntp_writer *w, const struct ntp_filter *f, const char *session);
int ntp_writer__add_hook(struct ntp_writer *w, const char *side, const char *point,
			 const char *hook, const char *flavour, const char *reason);
/*
 * A command's record into the spool's buffer.  After a failed write (of the
 * spool or of the file) the record is refused with that error and counted
 * lost (ntp_writer__count): hand over every record the ring buffers still
 * hold all the same, so that each is either in the recording or counted.
 */
int ntp_writer__add_host_io(struct ntp_writer *w, const struct ntp_host_event *e);
int ntp_writer__add_target_io(struct ntp_writer *w, const struct ntp_target_event *e);
int ntp_writer__add_interval(struct ntp_writer *w, const struct ntp_interval *iv);
int ntp_writer__add_backend_stat(struct ntp_writer *w, const struct ntp_backend_stat *b);

/*
 * One NVMe over Fabrics name of the machine (schema/ntp.sql, nvmf_ids;
 * lib/record/record_ids.h reads them): NULL text and -1 numbers are NULL.
 */
struct ntp_nvmf_id {
	char *side;                /* host | target */
	char *object;              /* controller | subsystem | port | namespace */
	char *name;                /* nvmeX, the NQN, the port's id, the nsid, ctrlN */
	char *subsysnqn, *port, *transport, *traddr, *trsvcid, *host_traddr, *hostnqn, *device;
	long long cntlid, nsid;
};
int ntp_writer__add_nvmf_id(struct ntp_writer *w, const struct ntp_nvmf_id *id);
int ntp_writer__flush(struct ntp_writer *w);          /* commit the current batch */
/*
 * The rows of each table the recording holds, or will at close: every row
 * taken while the writes succeed; after a failed one, the rows in the
 * spool before it, and as lost every other record handed over, before the
 * failure (buffered, not yet written) or after it.
 */
struct ntp_writer_rows {
	uint64_t host, target;
	uint64_t host_lost, target_lost;
};
void ntp_writer__count(const struct ntp_writer *w, struct ntp_writer_rows *r);
/* the spool into rows, commit, checkpoint, leave one self-contained file; frees w even on error */
int ntp_writer__close(struct ntp_writer *w);
/*
 * For ntprof finish: path's spool, if there is one, into db (path's own
 * connection, read-write, not in a transaction) as close would have done
 * it, and removed; *taken: the commands it held.  A spool the file already
 * took (meta spooled) is only removed.  0 or an NTP_EXIT_* code after one
 * line.
 */
int ntp_writer__import_spool(sqlite3 *db, const char *path, uint64_t *taken);

#endif
