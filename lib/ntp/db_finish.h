/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finishing a recording in place (ntprof finish, ntprof-finish(1)): what
 * a recorder that did not end left undone, done when the user asks, since
 * a reader never does it (lib/ntp/db_state.h).  A recording left in WAL
 * mode gets its FILE-wal checkpointed into FILE and leaves WAL mode, which
 * removes FILE-wal and FILE-shm; one with an interrupted write's
 * FILE-journal gets the write rolled back.  Either way it ends as record
 * ends its own: one self-contained file in rollback journal mode.
 */
#ifndef NTP_DB_FINISH_H
#define NTP_DB_FINISH_H

#include <stdbool.h>

#include "lib/ntp/db_state.h"

struct ntp_finish_opts {
	bool dry_run;             /* say what would be done, change nothing */
	bool without_wal;         /* finish a WAL-mode FILE whose FILE-wal is missing, as it is */
};

/* what ntp_db__finish did */
struct ntp_finish_done {
	enum ntp_db_state was;    /* the state it found: NTP_DB_FINISHED, nothing done */
	const char *did;          /* what was done, or would be: "its -wal folded in" */
};

/*
 * Finish the recording at path, first checked as a reader checks it (a
 * file that is not a readable recording is left as it is), and checked
 * again afterwards.  A file another process holds open (a recording still
 * running) is refused.  0 and *d (with o->dry_run, what would be done),
 * or an NTP_EXIT_* code after one error line.
 */
int ntp_db__finish(const char *path, const struct ntp_finish_opts *o, struct ntp_finish_done *d);

#endif
