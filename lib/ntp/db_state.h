/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What state a recording's file is in, told from its SQLite header and the
 * files beside it without SQLite (which would create FILE-wal and FILE-shm
 * to find out), and so how a reader opens it without creating, changing or
 * removing anything beside it (ntprof-ntp(5), Reading):
 *
 *   finished       rollback journal mode (header bytes 18 and 19 are 1),
 *                  as record and join leave their files: opened read-only
 *                  and immutable (SQLite takes no lock and looks for no
 *                  journal);
 *   live           some other process holds an SQLite lock on FILE or on
 *                  FILE-shm (a recording still running, a user's sqlite3):
 *                  read as SQLite readers read a file others use, through
 *                  their locks and their FILE-shm; unless FILE is in WAL
 *                  mode and held exclusively (record's exclusive locking
 *                  mode, where there are no shared memory maps), which no
 *                  reader can read until its writer ends;
 *   WAL            left in WAL mode (byte 19 is 2) by a recorder that was
 *                  killed, with its FILE-wal: read through SQLite's unix-none
 *                  VFS in exclusive locking mode, which keeps the log's index
 *                  in the reader's memory instead of in FILE-shm;
 *   WAL, empty     the same with an empty FILE-wal: everything is in FILE,
 *                  read as a finished one;
 *   WAL, missing   no FILE-wal: FILE alone, immutable, with a warning, when
 *                  its header says it holds a recording; else the recording
 *                  is in the missing FILE-wal, and that is the error;
 *   hot journal    rollback mode with an interrupted write's FILE-journal
 *                  beside it (a "-r both" recording killed while its pairing
 *                  was written): the file is not whole until SQLite rolls
 *                  the write back, which a reader may not do.
 *
 * WAL and hot-journal files are finished in place only by "ntprof finish"
 * (db_finish.c), never by a reader.
 */
#ifndef NTP_DB_STATE_H
#define NTP_DB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ntp_db_state {
	NTP_DB_FINISHED,
	NTP_DB_LIVE,
	NTP_DB_WAL,
	NTP_DB_WAL_EMPTY,
	NTP_DB_WAL_MISSING,
	NTP_DB_HOT_JOURNAL,
};

struct ntp_db_file {
	enum ntp_db_state state;
	bool ntp_header;          /* the header's application_id is ntprof's */
	pid_t holder;             /* live: a process holding a lock (0: not told) */
	bool exclusive;           /* live: holding FILE exclusively (SQLite's EXCLUSIVE lock) */
};

/*
 * The state of the file at path, whose first n bytes (up to 100) are h.
 * Never fails: what cannot be looked at beside the file counts as absent.
 */
void ntp_db__state(const char *path, const unsigned char *h, size_t n, struct ntp_db_file *f);

/*
 * The same, reading the header itself: 0, or -errno when path cannot be
 * opened or read.
 */
int ntp_db__probe(const char *path, struct ntp_db_file *f);

/* "file:PATH?mode=ro&..." that opens a file in state st for reading; caller frees; NULL without memory */
char *ntp_db__read_uri(const char *path, enum ntp_db_state st);

/*
 * Does a connection reading a file in state st need
 * "PRAGMA locking_mode = EXCLUSIVE" before its first read (the WAL index
 * in its own memory)?
 */
bool ntp_db__read_exclusive(enum ntp_db_state st);

/* "file:PATH?mode=MODE" for ATTACH, every byte but unreserved ones and '/' escaped; caller frees; NULL without memory */
char *ntp_db__file_uri(const char *path, const char *mode);


/*
 * The spool of a recording FILE is FILE.spool: the sampled commands that
 * record writes into FILE when it ends (lib/ntp/db_write.c), or ntprof
 * finish after a killed record.  Is there one beside path?
 */
#define NTP_SPOOL_SUFFIX ".spool"
bool ntp_db__has_spool(const char *path);

#endif
