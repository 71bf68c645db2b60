// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a .ntp recording (record).
 *
 * The commands are spooled while recording: each ring-buffer record goes as
 * it is (struct ntp_host_event, struct ntp_target_event) into a buffer that
 * is appended to FILE.spool at every ntp_writer__flush() (record flushes
 * about once a second) and whenever it fills.  A record then costs a copy,
 * where an SQLite insert cost about 8,000 instructions (bench/README.md):
 * at -s 1 that was more than every BPF program together.  Close turns the
 * spool into host_io and target_io rows, in the order it holds them, in one
 * transaction that also notes how many it took (meta spooled), then removes
 * the spool; ntprof finish does the same for a recording whose record was
 * killed (ntp_writer__import_spool).  The rows are inserted through one
 * prepared multi-row INSERT, HOST_ROWS_PER_INSERT rows at a time, binding
 * only the values that changed since the row slot last held a row.
 *
 * Everything else (meta, hooks, intervals) goes straight into the file,
 * which is written in WAL mode with synchronous=NORMAL: a commit appends to
 * FILE-wal without fsync, which a killed process cannot undo (only a power
 * loss can), so a SIGKILL loses at most the last second, of the spool as of
 * the file.  Close checkpoints the WAL into the file and switches to a
 * rollback journal: one self-contained file.
 *
 * WAL's index lives in FILE-shm, a shared memory map, which some file systems
 * cannot provide (a 9p share, some network file systems: mmap fails and
 * SQLite says "disk I/O error").  The writer tries such a map beside FILE
 * before it opens it; where there is none it writes in exclusive locking
 * mode, where SQLite keeps the index in its own heap: the same WAL and the
 * same guarantees, but no other process can read the file until the
 * recording ends.  (Trying WAL and starting again after its failure is no
 * way: the failed connection leaves SQLite's lock state in the process
 * unusable for the next one.)
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/outfile.h"
#include "lib/core/filter.h"
#include "lib/ntp/db_key.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_schema.h"
#include "lib/ntp/db_state.h"
#include "lib/ntp/db_write.h"
#include "lib/ntp/spool_codec.h"

/* the side files SQLite may keep next to a database, and the spool */
static const char *const side_suffixes[] = { "-wal", "-shm", "-journal", NTP_SPOOL_SUFFIX };

/*
 * FILE.spool: this header, then the records, each as the words that differ
 * from the previous record of its kind (version 2, lib/ntp/spool_codec.h);
 * version 1 spools, whole records as the ring buffers carry them, each told
 * by its first field (enum ntp_event_kind), are read too.  The sizes say
 * which layout of the records it holds: a spool of another build's layout
 * is refused, never misread.  A record cut short at the end (a write that
 * failed part way) is ignored.
 */
#define SPOOL_MAGIC "NTPSPOOL"
#define SPOOL_VERSION 2
#define SPOOL_VERSION_WHOLE 1
#define SPOOL_BUF_BYTES (1 << 20)

struct spool_header {
	char magic[8];
	__u32 version;
	__u16 host_size, target_size;
};

/*
 * One prepared INSERT.  Columns are listed once; the SQL and the parameter
 * indexes are derived from the list so the two cannot disagree.
 */
#define MAX_COLS 32
/* host_io rows per multi-row INSERT; divides NTP_DB_BATCH_ROWS */
#define HOST_ROWS_PER_INSERT 16

_Static_assert(NTP_DB_BATCH_ROWS % HOST_ROWS_PER_INSERT == 0,
	       "a batch must end on a whole multi-row INSERT");

struct insert {
	sqlite3_stmt *stmt;
	/* parameter index of row r's column c at [r * ncols + c] */
	int idx[MAX_COLS * HOST_ROWS_PER_INSERT];
};

enum host_col {
	HC_START, HC_QUEUE, HC_CMD_SENT, HC_R2T, HC_DATA_SENT, HC_RECV, HC_DONE,
	HC_OPCODE, HC_CID, HC_SLBA, HC_NLB, HC_BYTES, HC_QID, HC_NSID, HC_CNTLID,
	HC_CONTROLLER, HC_NAMESPACE, HC_PATH, HC_STATUS, HC_FLAGS,
	HC_APP_SUBMIT, HC_APP_DONE, HC_APP_REAP, HC_APP_KIND, HC_PID, HC_TID, HC_COMM, HC_CGROUP,
	HC_JOIN_KEY, HC_CPU, HC_IO_CPU, HC_QUEUE_IN_FLIGHT, HC_MAX,
};

static const char *const host_cols[HC_MAX] = {
	"h_start_ns", "h_queue_ns", "h_cmd_sent_ns", "h_r2t_ns", "h_data_sent_ns",
	"h_recv_ns", "h_done_ns", "opcode", "cid", "slba", "nlb", "bytes", "qid",
	"nsid", "cntlid", "controller", "namespace", "path", "status", "flags",
	"h_app_submit_ns", "h_app_done_ns", "h_app_reap_ns", "app_kind", "pid", "tid", "comm", "cgroup_id",
	"join_key", "cpu", "io_cpu", "queue_in_flight",
};

enum target_col {
	TC_RECV, TC_R2T, TC_SUBMIT, TC_CMPL, TC_SENT, TC_OPCODE, TC_CID, TC_SLBA,
	TC_NLB, TC_BYTES, TC_QID, TC_NSID, TC_CNTLID, TC_DEVICE, TC_STATUS, TC_FLAGS,
	TC_JOIN_KEY, TC_MAX,
};

static const char *const target_cols[TC_MAX] = {
	"t_recv_ns", "t_r2t_ns", "t_submit_ns", "t_cmpl_ns", "t_sent_ns", "opcode",
	"cid", "slba", "nlb", "bytes", "qid", "nsid", "cntlid", "device", "status",
	"flags", "join_key",
};

static const char *const meta_cols[] = { "key", "value" };
static const char *const hook_cols[] = { "side", "point", "hook", "flavour", "reason" };
static const char *const interval_cols[] = {
	"t_ns", "side", "seen", "sampled", "lost_ringbuf", "lost_map",
};
static const char *const backend_cols[] = {
	"t_ns", "interval_ns", "device", "ios", "in_flight", "busy_ms", "queue_ms", "depth",
};
static const char *const nvmf_id_cols[] = {
	"side", "object", "name", "subsysnqn", "cntlid", "nsid", "port", "transport", "traddr",
	"trsvcid", "host_traddr", "hostnqn", "device",
};

struct ntp_writer {
	sqlite3 *db;
	char *path;
	struct insert meta, hook, host_io, host_io_n, target_io, interval, backend, nvmf_id;
	int in_txn;
	unsigned int batch;	/* rows in the open transaction, pending included */
	unsigned int batch_rows;	/* a batch this long is committed */
	uint64_t rows;		/* host_io rows inserted */
	uint64_t target_rows;	/* target_io rows inserted */
	uint64_t rows_kept;	/* host records in FILE.spool after its last write */
	uint64_t target_kept;	/* target records likewise */
	/*
	 * Row r of the multi-row INSERT holds bound[r]: rows are bound as they
	 * come, only the fields that differ from what is bound there, and go in
	 * once all HOST_ROWS_PER_INSERT are.  Text is bound SQLITE_STATIC from
	 * bound[] and ctrl[], which stay put.
	 */
	struct ntp_host_event bound[HOST_ROWS_PER_INSERT];
	char ctrl[HOST_ROWS_PER_INSERT][16];
	uint64_t key[HOST_ROWS_PER_INSERT];	/* bound[r]'s join_key */
	int npending;		/* rows bound and not yet inserted */
	int nbound;		/* rows whose every parameter has been bound */
	int failed;		/* sticky: the first error's exit code */
	int exclusive;		/* exclusive locking mode: no FILE-shm (see the top) */
	/* the spool: FILE.spool, and the records not yet appended to it */
	char *spool_path;
	int spool_fd;
	unsigned char *sbuf;
	size_t slen;
	struct ntp_spool_prev sprev;	/* the last record of each kind spooled */
	/*
	 * records handed to the writer: taken into sbuf while the writes
	 * succeed; after a failed one, each is counted and dropped, so that
	 * taken - kept is exactly what the error lost
	 */
	uint64_t host_taken, target_taken;
	off_t spool_bytes;	/* FILE.spool's length after its last whole write */
};

static int fail(struct ntp_writer *w, const char *sql)
{
	int e = sqlite3_system_errno(w->db);

	/* report the first error only: later ones are its consequences */
	if (!w->failed)
		ntp_error("writing %s: %s%s%s (SQL: %.120s%s)", w->path, sqlite3_errmsg(w->db),
			  e ? ": " : "", e ? strerror(e) : "", sql,
			  strlen(sql) > 120 ? "..." : "");
	w->failed = NTP_EXIT_FAILURE;
	return w->failed;
}

static int exec(struct ntp_writer *w, const char *sql)
{
	if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(w, sql);
	return 0;
}

/* SQL too long to quote in a message: say what it was for instead */
static int exec_as(struct ntp_writer *w, const char *sql, const char *what)
{
	if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(w, what);
	return 0;
}

/* append to buf like strlcat with formatting; returns -1 once it no longer fits */
static int append(char *buf, size_t size, size_t *len, const char *fmt, const char *arg)
{
	int n;

	if (*len >= size)
		return -1;
	n = snprintf(buf + *len, size - *len, fmt, arg);
	if (n < 0 || (size_t)n >= size - *len) {
		*len = size;
		return -1;
	}
	*len += n;
	return 0;
}

/* row 0's parameters are :col, row r's :col_r */
static void param_name(char *buf, size_t size, const char *col, int r)
{
	if (r)
		snprintf(buf, size, ":%s_%d", col, r);
	else
		snprintf(buf, size, ":%s", col);
}

/* INSERT of `rows` rows, one ":name" parameter per column and row */
static int prepare(struct ntp_writer *w, struct insert *ins, const char *table,
		   const char *const *cols, int ncols, const char *verb, int rows)
{
	char sql[16384], name[64];
	size_t len = 0;
	int i, r, bad;

	bad = ncols > MAX_COLS || rows > HOST_ROWS_PER_INSERT;
	bad |= append(sql, sizeof(sql), &len, "%s INTO ", verb);
	bad |= append(sql, sizeof(sql), &len, "%s (", table);
	for (i = 0; i < ncols; i++)
		bad |= append(sql, sizeof(sql), &len, i ? ", %s" : "%s", cols[i]);
	bad |= append(sql, sizeof(sql), &len, "%s", ") VALUES ");
	for (r = 0; r < rows; r++) {
		bad |= append(sql, sizeof(sql), &len, "%s", r ? ", (" : "(");
		for (i = 0; i < ncols; i++) {
			param_name(name, sizeof(name), cols[i], r);
			bad |= append(sql, sizeof(sql), &len, i ? ", %s" : "%s", name);
		}
		bad |= append(sql, sizeof(sql), &len, "%s", ")");
	}
	if (bad) {
		ntp_error("writing %s: internal: INSERT into %s too long", w->path, table);
		return w->failed = NTP_EXIT_FAILURE;
	}

	if (sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &ins->stmt, NULL) != SQLITE_OK)
		return fail(w, sql);
	for (r = 0; r < rows; r++) {
		for (i = 0; i < ncols; i++) {
			param_name(name, sizeof(name), cols[i], r);
			ins->idx[r * ncols + i] = sqlite3_bind_parameter_index(ins->stmt, name);
			if (!ins->idx[r * ncols + i]) {
				ntp_error("writing %s: internal: no parameter %s in %s",
					  w->path, name, sql);
				return w->failed = NTP_EXIT_FAILURE;
			}
		}
	}
	return 0;
}

static int begin(struct ntp_writer *w)
{
	int err;

	if (w->in_txn)
		return 0;
	err = exec(w, "BEGIN");
	if (!err)
		w->in_txn = 1;
	return err;
}

static int insert_pending(struct ntp_writer *w);
static int spool_open(struct ntp_writer *w);

static int commit(struct ntp_writer *w)
{
	int err;

	if (!w->in_txn)
		return 0;
	err = insert_pending(w);
	if (!err)
		err = exec(w, "COMMIT");
	/* a failed COMMIT may leave the transaction open: end it, keep the error */
	if (err && !sqlite3_get_autocommit(w->db))
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	w->in_txn = 0;
	w->batch = 0;
	return err;
}

/* run a bound INSERT */
static int run(struct ntp_writer *w, struct insert *ins)
{
	int rc = sqlite3_step(ins->stmt);

	sqlite3_reset(ins->stmt);
	if (rc != SQLITE_DONE)
		return fail(w, sqlite3_sql(ins->stmt));
	return 0;
}

/* one more row in the batch (inserted, or pending): commit a full batch */
static int count_row(struct ntp_writer *w)
{
	if (++w->batch >= w->batch_rows)
		return commit(w);
	return 0;
}

/* bind everything first, then this: one row in the batch */
static int step(struct ntp_writer *w, struct insert *ins)
{
	int err = run(w, ins);

	return err ? err : count_row(w);
}

/* every row goes through here first: stop after an error, open a batch */
static int start_row(struct ntp_writer *w)
{
	if (w->failed)
		return w->failed;
	return begin(w);
}

static int join(char *buf, size_t len, const char *a, const char *b)
{
	return snprintf(buf, len, "%s%s", a, b) >= (int)len ? -ENAMETOOLONG : 0;
}

/*
 * Move FILE (and its side files) to FILE.old as perf does.  Side files left
 * by a killed run must move too: SQLite would replay a stale FILE-wal into
 * the new, empty FILE.
 */
static int move_old(const char *path)
{
	char old[4096], from[4096], to[4096];
	struct stat st;
	size_t i;

	if (join(old, sizeof(old), path, ".old")) {
		ntp_error("opening %s: %s", path, strerror(ENAMETOOLONG));
		return NTP_EXIT_FAILURE;
	}
	/*
	 * lstat: a symbolic link at FILE, dangling or not, is moved to FILE.old
	 * like a file, and the recording is a new regular file at FILE; it is
	 * never written through the link.
	 */
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			ntp_error("opening %s: exists and is not a regular file", path);
			return NTP_EXIT_FAILURE;
		}
		for (i = 0; i < sizeof(side_suffixes) / sizeof(side_suffixes[0]); i++) {
			if (join(to, sizeof(to), old, side_suffixes[i]) == 0 &&
			    unlink(to) && errno != ENOENT) {
				ntp_error("removing %s: %s", to, strerror(errno));
				return NTP_EXIT_FAILURE;
			}
		}
		if (rename(path, old)) {
			ntp_error("renaming %s to %s: %s", path, old, strerror(errno));
			return NTP_EXIT_FAILURE;
		}
		ntp_debug("moved the previous %s to %s", path, old);
	} else if (errno != ENOENT) {
		ntp_error("opening %s: %s", path, strerror(errno));
		return NTP_EXIT_FAILURE;
	}

	for (i = 0; i < sizeof(side_suffixes) / sizeof(side_suffixes[0]); i++) {
		if (join(from, sizeof(from), path, side_suffixes[i]) ||
		    join(to, sizeof(to), old, side_suffixes[i]))
			continue;
		if (rename(from, to) && errno != ENOENT) {
			ntp_error("renaming %s to %s: %s", from, to, strerror(errno));
			return NTP_EXIT_FAILURE;
		}
	}
	return 0;
}

/* FILE and its side files: what a failed open must not leave behind */
static void remove_files(const char *path)
{
	char side[4096];

	unlink(path);
	for (size_t i = 0; i < sizeof(side_suffixes) / sizeof(side_suffixes[0]); i++)
		if (!join(side, sizeof(side), path, side_suffixes[i]))
			unlink(side);
}

/*
 * Can FILE-shm be mapped where FILE goes?  A scratch file beside it is
 * mapped as SQLite maps its index (shared, read-write, 32 KiB).  A scratch
 * file that cannot be made says nothing: the open that follows will say why.
 */
static int shared_maps_work(const char *path)
{
	const size_t len = 32768;
	char probe[4096];
	void *p;
	int fd;

	if (snprintf(probe, sizeof(probe), "%s.shmprobe-%d", path, (int)getpid()) >= (int)sizeof(probe))
		return 1;
	fd = open(probe, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return 1;
	/*
	 * Sized and mapped as SQLite does it, and unlinked only afterwards: 9p
	 * refuses to size a file it no longer names, which would hide the answer.
	 */
	if (pwrite(fd, "", 1, (off_t)len - 1) != 1) {
		close(fd);
		unlink(probe);
		return 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	unlink(probe);
	if (p == MAP_FAILED)
		return 0;
	munmap(p, len);
	return 1;
}

/* the directory FILE is created in: writable, or one line saying why not */
int ntp_writer__check_place(const char *path)
{
	char dir[4096];
	struct stat st;

	if (ntp_outfile__dir(path, dir, sizeof(dir))) {
		ntp_error("%s: %s", path, strerror(ENAMETOOLONG));
		return NTP_EXIT_FAILURE;
	}
	if (stat(dir, &st)) {
		ntp_error("cannot create %s: %s: %s", path, dir, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	if (!S_ISDIR(st.st_mode)) {
		ntp_error("cannot create %s: %s: %s", path, dir, strerror(ENOTDIR));
		return NTP_EXIT_FAILURE;
	}
	if (access(dir, W_OK | X_OK)) {
		ntp_error("cannot create %s: directory %s: %s", path, dir, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
		ntp_error("cannot create %s: it is a directory", path);
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

static int open_db(struct ntp_writer *w)
{
	/* one thread writes: skip SQLite's per-call mutex (NOMUTEX) */
	if (sqlite3_open_v2(w->path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		int e = w->db ? sqlite3_system_errno(w->db) : ENOMEM;

		ntp_error("opening %s: %s%s%s", w->path,
			  w->db ? sqlite3_errmsg(w->db) : strerror(ENOMEM),
			  e ? ": " : "", e ? strerror(e) : "");
		w->failed = NTP_EXIT_FAILURE;
		return w->failed;
	}
	sqlite3_extended_result_codes(w->db, 1);
	/* a reader of the live file may briefly hold a lock we need at close */
	sqlite3_busy_timeout(w->db, 10000);

	/*
	 * 16 KiB pages: a batch of host_io rows is a few pages, and each page
	 * costs two write() calls in the WAL and two more at the checkpoint, so
	 * fewer, larger pages take less CPU per row (bench/README.md).  The
	 * page size must be set before WAL; WAL before the schema so that even
	 * the schema is committed through it.  The default page cache is
	 * enough: rows are appended, only the right edge of the B-tree is hot.
	 */
	if ((w->exclusive && exec(w, "PRAGMA locking_mode = EXCLUSIVE")) ||
	    exec(w, "PRAGMA page_size = 16384") ||
	    exec(w, "PRAGMA journal_mode = WAL") ||
	    exec(w, "PRAGMA synchronous = NORMAL") ||
	    exec(w, "BEGIN") ||
	    exec_as(w, ntp_schema_sql, "the schema") ||
	    exec(w, "COMMIT"))
		return w->failed;
	return 0;
}

int ntp_writer__open(struct ntp_writer **wp, const char *path)
{
	struct ntp_writer *w;
	int err;

	*wp = NULL;
	err = move_old(path);
	if (err)
		return err;

	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		free(w);
		ntp_error("opening %s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	w->spool_fd = -1;
	w->batch_rows = NTP_DB_BATCH_ROWS;
	w->exclusive = !shared_maps_work(path);
	if (w->exclusive)
		ntp_info("%s: this file system has no shared memory maps: the recording cannot be read "
			 "until it ends", path);
	if (open_db(w))
		goto fail;

	if (prepare(w, &w->meta, "meta", meta_cols, 2, "INSERT OR REPLACE", 1) ||
	    prepare(w, &w->hook, "hooks", hook_cols, 5, "INSERT", 1) ||
	    prepare(w, &w->host_io, "host_io", host_cols, HC_MAX, "INSERT", 1) ||
	    /*
	     * OR FAIL: a multi-row INSERT that may ABORT needs a statement
	     * journal, which costs what the shared statement saves.  Nothing
	     * here can violate a constraint (NOT NULL columns are never bound
	     * NULL), and the transaction is given up on any error anyway.
	     */
	    prepare(w, &w->host_io_n, "host_io", host_cols, HC_MAX, "INSERT OR FAIL",
		    HOST_ROWS_PER_INSERT) ||
	    prepare(w, &w->target_io, "target_io", target_cols, TC_MAX, "INSERT", 1) ||
	    prepare(w, &w->interval, "intervals", interval_cols, 6, "INSERT", 1) ||
	    prepare(w, &w->backend, "backend_stats", backend_cols, 8, "INSERT", 1) ||
	    prepare(w, &w->nvmf_id, "nvmf_ids", nvmf_id_cols, 13, "INSERT", 1) ||
	    spool_open(w))
		goto fail;

	*wp = w;
	return 0;
fail:
	/* nothing was recorded yet: leave no empty file to be taken for one */
	w->failed = NTP_EXIT_FAILURE;
	ntp_writer__close(w);
	remove_files(path);
	return NTP_EXIT_FAILURE;
}

static void bind_text(struct insert *ins, int col, const char *s)
{
	/* SQLITE_TRANSIENT: the caller's strings need not outlive the call */
	sqlite3_bind_text(ins->stmt, ins->idx[col], s ? s : "", -1, SQLITE_TRANSIENT);
}

int ntp_writer__set_meta_text(struct ntp_writer *w, const char *key, const char *value)
{
	int err = start_row(w);

	if (err)
		return err;
	bind_text(&w->meta, 0, key);
	bind_text(&w->meta, 1, value);
	return step(w, &w->meta);
}

int ntp_writer__set_meta_int(struct ntp_writer *w, const char *key, int64_t value)
{
	int err = start_row(w);

	if (err)
		return err;
	bind_text(&w->meta, 0, key);
	sqlite3_bind_int64(w->meta.stmt, w->meta.idx[1], value);
	return step(w, &w->meta);
}

/* a key used with the other type's accessor is a bug of the caller, not of the file */
int ntp_meta__set_text(struct ntp_writer *w, enum ntp_meta_key k, const char *value)
{
	assert(k < NTP_META_MAX && ntp_meta[k].type == NTP_META_TEXT);
	return ntp_writer__set_meta_text(w, ntp_meta[k].key, value);
}

int ntp_meta__set_int(struct ntp_writer *w, enum ntp_meta_key k, int64_t value)
{
	assert(k < NTP_META_MAX && ntp_meta[k].type == NTP_META_INT);
	return ntp_writer__set_meta_int(w, ntp_meta[k].key, value);
}

int ntp_meta__set_filter(struct ntp_writer *w, const struct ntp_filter *f, const char *session)
{
	char sizes[NTP_FILTER_MAX_SIZES * 12] = "";
	size_t len = 0;
	unsigned int i;
	int err = 0;

	if (!f)
		return 0;
	if ((f->flags & NTP_FILTER_NS) && session)
		err = ntp_meta__set_text(w, NTP_META_FILTER_SESSION, session);
	if (!err && (f->flags & NTP_FILTER_OPCODE))
		err = ntp_meta__set_text(w, NTP_META_FILTER_IO_TYPE, f->opcode == 2 ? "read" : "write");
	if (!err && (f->flags & NTP_FILTER_SIZE)) {
		for (i = 0; i < f->nsizes && i < NTP_FILTER_MAX_SIZES; i++)
			len += snprintf(sizes + len, sizeof(sizes) - len, "%s%u", i ? "," : "", f->sizes[i]);
		err = ntp_meta__set_text(w, NTP_META_FILTER_SIZES, sizes);
	}
	return err;
}

int ntp_writer__add_hook(struct ntp_writer *w, const char *side, const char *point,
			 const char *hook, const char *flavour, const char *reason)
{
	const char *v[] = { side, point, hook, flavour, reason };
	int err = start_row(w);
	int i;

	if (err)
		return err;
	for (i = 0; i < 5; i++)
		bind_text(&w->hook, i, v[i]);
	return step(w, &w->hook);
}

/* 0 means "no hook for that point on this kernel": store NULL */
static void bind_time(struct insert *ins, int p, __u64 t)
{
	if (t)
		sqlite3_bind_int64(ins->stmt, ins->idx[p], (sqlite3_int64)t);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p]);
}

static void bind_u64(struct insert *ins, int p, __u64 v)
{
	sqlite3_bind_int64(ins->stmt, ins->idx[p], (sqlite3_int64)v);
}

/*
 * BPF fills these with bpf_probe_read_kernel_str(), but trust no terminator.
 * SQLITE_STATIC: the strings are the writer's copies in w->bound and w->ctrl.
 */
static void bind_name(struct insert *ins, int p, const char *s, size_t len)
{
	sqlite3_bind_text(ins->stmt, ins->idx[p], s, (int)strnlen(s, len), SQLITE_STATIC);
}

/* host_io.app_kind of enum ntp_app_kind, NULL when not told */
static void bind_app_kind(struct insert *ins, int p, __u8 kind)
{
	static const char *const names[] = {
		[NTP_APP_AIO] = "libaio", [NTP_APP_IO_URING] = "io_uring", [NTP_APP_SYNC] = "sync",
	};

	if (kind < sizeof(names) / sizeof(names[0]) && names[kind])
		sqlite3_bind_text(ins->stmt, ins->idx[p], names[kind], -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p]);
}

/* the submitter: pid 0 is a kernel thread's, which has no process, thread or name here */
static void bind_app_who(struct insert *ins, int p, const struct ntp_host_event *b)
{
	if (b->pid) {
		bind_u64(ins, p + HC_PID, b->pid);
		bind_u64(ins, p + HC_TID, b->tid);
		bind_name(ins, p + HC_COMM, b->comm, sizeof(b->comm));
	} else {
		sqlite3_bind_null(ins->stmt, ins->idx[p + HC_PID]);
		sqlite3_bind_null(ins->stmt, ins->idx[p + HC_TID]);
		sqlite3_bind_null(ins->stmt, ins->idx[p + HC_COMM]);
	}
}

/* "nvme%u" without printf, which costs as much as a few binds */
static void controller_name(char *buf, __u32 instance)
{
	char digits[12];
	int n = 0;

	do
		digits[n++] = '0' + instance % 10;
	while ((instance /= 10));
	memcpy(buf, "nvme", 4);
	buf += 4;
	while (n)
		*buf++ = digits[--n];
	*buf = '\0';
}

/* the join's key of a command as the row's columns hold it (lib/ntp/db_key.h) */
static uint64_t join_key(__u16 cid, __u64 slba, __u16 nlb0, __u16 qid, __u32 nsid, __u16 cntlid,
			 __u8 opcode)
{
	struct ntp_key k = { cid, (int64_t)slba, (int64_t)nlb0 + 1, qid, nsid, cntlid, opcode };

	return ntp_key__hash(&k);
}

static uint64_t host_key(const struct ntp_host_event *e)
{
	return join_key(e->cid, e->slba, e->nlb0, e->qid, e->nsid, e->cntlid, e->opcode);
}

/*
 * the submitting CPU, the queue's io_cpu and the commands in flight on the
 * queue, each where the collector read it
 */
static void bind_where(struct insert *ins, int p, const struct ntp_host_event *b)
{
	if (b->flags & NTP_HF_QUEUE_BUSY)
		bind_u64(ins, p + HC_QUEUE_IN_FLIGHT, b->queue_busy);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p + HC_QUEUE_IN_FLIGHT]);
	if (b->flags & NTP_HF_CPU)
		bind_u64(ins, p + HC_CPU, b->cpu);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p + HC_CPU]);
	if (b->flags & NTP_HF_IO_CPU)
		bind_u64(ins, p + HC_IO_CPU, b->io_cpu);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p + HC_IO_CPU]);
}

/* bind all of bound[r] as row `row` of ins */
static void bind_host(struct ntp_writer *w, struct insert *ins, int row, int r)
{
	const struct ntp_host_event *b = &w->bound[r];
	int p = row * HC_MAX;

	w->key[r] = host_key(b);
	bind_u64(ins, p + HC_JOIN_KEY, w->key[r]);

	/* h_start, h_queue and h_done are NOT NULL: 0 stays 0 there */
	bind_u64(ins, p + HC_START, b->h_start);
	bind_u64(ins, p + HC_QUEUE, b->h_queue);
	bind_time(ins, p + HC_CMD_SENT, b->h_cmd_sent);
	bind_time(ins, p + HC_R2T, b->h_r2t);
	bind_time(ins, p + HC_DATA_SENT, b->h_data_sent);
	bind_time(ins, p + HC_RECV, b->h_recv);
	bind_u64(ins, p + HC_DONE, b->h_done);
	bind_u64(ins, p + HC_OPCODE, b->opcode);
	bind_u64(ins, p + HC_CID, b->cid);
	bind_u64(ins, p + HC_SLBA, b->slba);
	bind_u64(ins, p + HC_NLB, (__u64)b->nlb0 + 1);
	bind_u64(ins, p + HC_BYTES, b->bytes);
	bind_u64(ins, p + HC_QID, b->qid);
	bind_u64(ins, p + HC_NSID, b->nsid);
	bind_u64(ins, p + HC_CNTLID, b->cntlid);
	bind_name(ins, p + HC_CONTROLLER, w->ctrl[r], sizeof(w->ctrl[r]));
	bind_name(ins, p + HC_NAMESPACE, b->disk, sizeof(b->disk));
	if (strnlen(b->path, sizeof(b->path)))
		bind_name(ins, p + HC_PATH, b->path, sizeof(b->path));
	else
		bind_name(ins, p + HC_PATH, b->disk, sizeof(b->disk));
	bind_u64(ins, p + HC_STATUS, b->status);
	bind_u64(ins, p + HC_FLAGS, b->flags);
	bind_time(ins, p + HC_APP_SUBMIT, b->h_app_submit);
	bind_time(ins, p + HC_APP_DONE, b->h_app_done);
	bind_time(ins, p + HC_APP_REAP, b->h_app_reap);
	bind_app_kind(ins, p + HC_APP_KIND, b->app_kind);
	bind_app_who(ins, p, b);
	bind_time(ins, p + HC_CGROUP, b->cgroup_id);
	bind_where(ins, p, b);
}

/*
 * Make row r of the multi-row INSERT hold e.  A bind costs about as much as
 * 20 comparisons, and the names, ids and sizes of successive commands
 * mostly repeat, so only what changed is bound again.
 */
static void bind_host_delta(struct ntp_writer *w, int r, const struct ntp_host_event *e)
{
	struct insert *ins = &w->host_io_n;
	struct ntp_host_event *b = &w->bound[r];
	int p = r * HC_MAX, names, where;

	if (r >= w->nbound) {
		*b = *e;
		controller_name(w->ctrl[r], e->ctrl_instance);
		bind_host(w, ins, r, r);
		w->nbound = r + 1;
		return;
	}
#define REBIND(field, col, how)					\
	do {							\
		if (e->field != b->field) {			\
			b->field = e->field;			\
			how(ins, p + (col), b->field);		\
		}						\
	} while (0)
	/* before flags is rebound: whether each is known is one of its bits */
	where = e->cpu != b->cpu || e->io_cpu != b->io_cpu || e->queue_busy != b->queue_busy ||
		((e->flags ^ b->flags) & (NTP_HF_CPU | NTP_HF_IO_CPU | NTP_HF_QUEUE_BUSY));
	REBIND(h_start, HC_START, bind_u64);
	REBIND(h_queue, HC_QUEUE, bind_u64);
	REBIND(h_cmd_sent, HC_CMD_SENT, bind_time);
	REBIND(h_r2t, HC_R2T, bind_time);
	REBIND(h_data_sent, HC_DATA_SENT, bind_time);
	REBIND(h_recv, HC_RECV, bind_time);
	REBIND(h_done, HC_DONE, bind_u64);
	REBIND(opcode, HC_OPCODE, bind_u64);
	REBIND(cid, HC_CID, bind_u64);
	REBIND(slba, HC_SLBA, bind_u64);
	if (e->nlb0 != b->nlb0) {
		b->nlb0 = e->nlb0;
		bind_u64(ins, p + HC_NLB, (__u64)b->nlb0 + 1);
	}
	REBIND(bytes, HC_BYTES, bind_u64);
	REBIND(qid, HC_QID, bind_u64);
	REBIND(nsid, HC_NSID, bind_u64);
	REBIND(cntlid, HC_CNTLID, bind_u64);
	REBIND(status, HC_STATUS, bind_u64);
	REBIND(flags, HC_FLAGS, bind_u64);
	REBIND(h_app_submit, HC_APP_SUBMIT, bind_time);
	REBIND(h_app_done, HC_APP_DONE, bind_time);
	REBIND(h_app_reap, HC_APP_REAP, bind_time);
	REBIND(app_kind, HC_APP_KIND, bind_app_kind);
	REBIND(cgroup_id, HC_CGROUP, bind_time);
#undef REBIND
	if (where) {
		b->cpu = e->cpu;
		b->io_cpu = e->io_cpu;
		b->queue_busy = e->queue_busy;
		bind_where(ins, p, b);
	}
	if (host_key(e) != w->key[r]) {
		w->key[r] = host_key(e);
		bind_u64(ins, p + HC_JOIN_KEY, w->key[r]);
	}
	if (e->pid != b->pid || e->tid != b->tid || memcmp(e->comm, b->comm, sizeof(b->comm))) {
		b->pid = e->pid;
		b->tid = e->tid;
		memcpy(b->comm, e->comm, sizeof(b->comm));
		bind_app_who(ins, p, b);
	}
	if (e->ctrl_instance != b->ctrl_instance) {
		b->ctrl_instance = e->ctrl_instance;
		controller_name(w->ctrl[r], e->ctrl_instance);
		bind_name(ins, p + HC_CONTROLLER, w->ctrl[r], sizeof(w->ctrl[r]));
	}
	names = memcmp(e->disk, b->disk, sizeof(b->disk)) ||
		memcmp(e->path, b->path, sizeof(b->path));
	if (names) {
		memcpy(b->disk, e->disk, sizeof(b->disk));
		memcpy(b->path, e->path, sizeof(b->path));
		bind_name(ins, p + HC_NAMESPACE, b->disk, sizeof(b->disk));
		if (strnlen(b->path, sizeof(b->path)))
			bind_name(ins, p + HC_PATH, b->path, sizeof(b->path));
		else
			bind_name(ins, p + HC_PATH, b->disk, sizeof(b->disk));
	}
}

/*
 * The pending rows are already bound and counted in the batch: a whole set
 * goes in with the multi-row INSERT, a partial one (at a commit) row by row.
 */
static int insert_pending(struct ntp_writer *w)
{
	int r, n = w->npending, err = 0;

	w->npending = 0;
	if (n == HOST_ROWS_PER_INSERT)
		return run(w, &w->host_io_n);
	for (r = 0; r < n && !err; r++) {
		bind_host(w, &w->host_io, 0, r);
		err = run(w, &w->host_io);
	}
	return err;
}

static int insert_host(struct ntp_writer *w, const struct ntp_host_event *e)
{
	int err = start_row(w);

	if (err)
		return err;
	bind_host_delta(w, w->npending++, e);
	w->rows++;
	if (w->npending == HOST_ROWS_PER_INSERT) {
		err = insert_pending(w);
		if (err)
			return err;
	}
	return count_row(w);
}

/* target rows are few next to the host's at -s 1000: one plain INSERT each */
static int insert_target(struct ntp_writer *w, const struct ntp_target_event *e)
{
	struct insert *ins = &w->target_io;
	int err = start_row(w);

	if (err)
		return err;
	/* t_recv and t_sent are NOT NULL: 0 stays 0 there */
	bind_u64(ins, TC_RECV, e->t_recv);
	bind_time(ins, TC_R2T, e->t_r2t);
	bind_time(ins, TC_SUBMIT, e->t_submit);
	bind_time(ins, TC_CMPL, e->t_cmpl);
	bind_u64(ins, TC_SENT, e->t_sent);
	bind_u64(ins, TC_OPCODE, e->opcode);
	bind_u64(ins, TC_CID, e->cid);
	bind_u64(ins, TC_SLBA, e->slba);
	bind_u64(ins, TC_NLB, (__u64)e->nlb0 + 1);
	bind_u64(ins, TC_BYTES, e->bytes);
	bind_u64(ins, TC_QID, e->qid);
	bind_u64(ins, TC_NSID, e->nsid);
	bind_u64(ins, TC_CNTLID, e->cntlid);
	/* SQLITE_STATIC would outlive e: the spool's buffer is reused */
	sqlite3_bind_text(ins->stmt, ins->idx[TC_DEVICE], e->device,
			  (int)strnlen(e->device, sizeof(e->device)), SQLITE_TRANSIENT);
	bind_u64(ins, TC_STATUS, e->status);
	bind_u64(ins, TC_FLAGS, e->flags);
	bind_u64(ins, TC_JOIN_KEY, join_key(e->cid, e->slba, e->nlb0, e->qid, e->nsid, e->cntlid,
					    e->opcode));
	w->target_rows++;
	return step(w, ins);
}

/* ---- the spool ------------------------------------------------------------ */

/* one line for a failed write of the spool; a full disk says so in words */
static int spool_fail(struct ntp_writer *w, const char *doing, int e)
{
	if (!w->failed)
		ntp_error("%s %s: %s%s", doing, w->spool_path, strerror(e),
			  e == ENOSPC || e == EDQUOT || e == EFBIG ? " (the disk is full)" : "");
	w->failed = NTP_EXIT_FAILURE;
	return w->failed;
}

/* *done: the bytes written, all of len unless it fails */
static int write_all(int fd, const void *buf, size_t len, size_t *done)
{
	const unsigned char *p = buf;

	*done = 0;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		*done += (size_t)n;
	}
	return 0;
}

static int spool_open(struct ntp_writer *w)
{
	struct spool_header h = { .version = SPOOL_VERSION,
				  .host_size = sizeof(struct ntp_host_event),
				  .target_size = sizeof(struct ntp_target_event) };
	size_t n = strlen(w->path) + sizeof(NTP_SPOOL_SUFFIX), done;

	memcpy(h.magic, SPOOL_MAGIC, sizeof(h.magic));
	w->spool_path = malloc(n);
	w->sbuf = malloc(SPOOL_BUF_BYTES);
	if (!w->spool_path || !w->sbuf) {
		ntp_error("opening %s: %s", w->path, strerror(ENOMEM));
		return w->failed = NTP_EXIT_FAILURE;
	}
	snprintf(w->spool_path, n, "%s%s", w->path, NTP_SPOOL_SUFFIX);
	/* move_old took any earlier one away: a spool found here is not ours */
	w->spool_fd = open(w->spool_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (w->spool_fd < 0)
		return spool_fail(w, "creating", errno);
	if (write_all(w->spool_fd, &h, sizeof(h), &done))
		return spool_fail(w, "writing", errno);
	w->spool_bytes = sizeof(h);
	return 0;
}

/*
 * The buffered records out to FILE.spool: a write() into the page cache,
 * which a kill keeps.  A write that fails part way keeps the records it
 * wrote whole, counted as kept, and is cut off after the last of them: a
 * record cut short that stays (the cut failed too) is ignored when the
 * spool is read.  So the spool holds exactly the records counted as kept.
 */
static int spool_write(struct ntp_writer *w)
{
	uint64_t host, target;
	size_t done, whole;
	int e;

	if (w->failed)
		return w->failed;
	if (w->slen && write_all(w->spool_fd, w->sbuf, w->slen, &done)) {
		e = errno;
		whole = ntp_spool__whole(w->sbuf, done, &host, &target);
		w->rows_kept += host;
		w->target_kept += target;
		w->spool_bytes += (off_t)whole;
		if (ftruncate(w->spool_fd, w->spool_bytes) == 0)
			lseek(w->spool_fd, w->spool_bytes, SEEK_SET);
		return spool_fail(w, "writing", e);
	}
	w->spool_bytes += (off_t)w->slen;
	w->slen = 0;
	w->rows_kept = w->host_taken;
	w->target_kept = w->target_taken;
	return 0;
}

static int spool_add(struct ntp_writer *w, unsigned int kind, const void *rec)
{
	if (w->failed)
		return w->failed;
	if (w->slen + NTP_SPOOL_MAX_REC > SPOOL_BUF_BYTES && spool_write(w))
		return w->failed;
	w->slen += ntp_spool__encode(&w->sprev, kind, rec, w->sbuf + w->slen);
	return 0;
}

/*
 * Counted after spool_add, whether it took the record or not: a spool
 * write that spool_add makes room with keeps the records before this one,
 * and one refused (that write failed, or an earlier one) is lost.
 */
int ntp_writer__add_host_io(struct ntp_writer *w, const struct ntp_host_event *e)
{
	int err = spool_add(w, NTP_SPOOL_HOST, e);

	w->host_taken++;
	return err;
}

int ntp_writer__add_target_io(struct ntp_writer *w, const struct ntp_target_event *e)
{
	int err = spool_add(w, NTP_SPOOL_TARGET, e);

	w->target_taken++;
	return err;
}

union spool_rec {
	struct ntp_host_event h;
	struct ntp_target_event t;
};

/*
 * The spool's record at in (len bytes there) into rec: its kind
 * (NTP_EV_*), 0 when in holds less than the whole record, -1 for a record
 * of no known kind; *size: its bytes in the spool.
 */
static int spool_record(__u32 version, struct ntp_spool_prev *prev, const unsigned char *in,
			size_t len, union spool_rec *rec, size_t *size)
{
	__u32 kind;
	int k;

	if (version == SPOOL_VERSION_WHOLE) {
		memcpy(&kind, in, sizeof(kind));
		*size = kind == NTP_EV_HOST_IO ? sizeof(rec->h) :
			kind == NTP_EV_TARGET_IO ? sizeof(rec->t) : 0;
		if (!*size)
			return -1;
		if (len < *size)
			return 0;
		memcpy(rec, in, *size);
		return (int)kind;
	}
	k = ntp_spool__decode(prev, in, len, size);
	if (k == NTP_SPOOL_HOST) {
		memcpy(&rec->h, prev->host, sizeof(rec->h));
		return NTP_EV_HOST_IO;
	}
	if (k == NTP_SPOOL_TARGET) {
		memcpy(&rec->t, prev->target, sizeof(rec->t));
		return NTP_EV_TARGET_IO;
	}
	return k;
}

/*
 * The records of the spool at spool_path into host_io and target_io, and
 * the count into meta, in the one transaction the caller opened: all or
 * nothing, so that a spool whose records are in the file (killed between
 * the commit and the removal) is told by that count and never taken twice.
 */
static int import_records(struct ntp_writer *w, const char *spool_path, uint64_t *taken)
{
	static unsigned char buf[SPOOL_BUF_BYTES];
	union spool_rec rec;
	struct ntp_spool_prev prev = { 0 };
	struct spool_header h;
	size_t have = 0, used = 0, size;
	int fd, err = 0, k;
	ssize_t n;
	__u32 kind;

	*taken = 0;
	fd = open(spool_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ntp_error("reading %s: %s", spool_path, strerror(errno));
		return w->failed = NTP_EXIT_FAILURE;
	}
	n = read(fd, &h, sizeof(h));
	if (n != (ssize_t)sizeof(h) || memcmp(h.magic, SPOOL_MAGIC, sizeof(h.magic)) ||
	    (h.version != SPOOL_VERSION && h.version != SPOOL_VERSION_WHOLE)) {
		ntp_error("reading %s: %s", spool_path,
			  n < 0 ? strerror(errno) : "not an ntprof spool, or of another version");
		close(fd);
		return w->failed = NTP_EXIT_FAILURE;
	}
	if (h.host_size != sizeof(rec.h) || h.target_size != sizeof(rec.t)) {
		ntp_error("reading %s: its records are of another ntprof build's layout (%u and %u"
			  " bytes, here %zu and %zu): finish it with the ntprof that recorded it",
			  spool_path, h.host_size, h.target_size, sizeof(rec.h), sizeof(rec.t));
		close(fd);
		return w->failed = NTP_EXIT_FAILURE;
	}
	for (;;) {
		if (have - used < NTP_SPOOL_MAX_REC) {
			memmove(buf, buf + used, have - used);
			have -= used;
			used = 0;
			n = read(fd, buf + have, sizeof(buf) - have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				ntp_error("reading %s: %s", spool_path, strerror(errno));
				err = w->failed = NTP_EXIT_FAILURE;
				break;
			}
			have += (size_t)n;
			if (have - used < sizeof(kind))
				break;
		}
		k = spool_record(h.version, &prev, buf + used, have - used, &rec, &size);
		if (k < 0) {
			memcpy(&kind, buf + used, sizeof(kind));
			ntp_error("reading %s: a record of unknown kind %u at byte %lld", spool_path, kind,
				  (long long)(lseek(fd, 0, SEEK_CUR) - (off_t)(have - used)));
			err = w->failed = NTP_EXIT_FAILURE;
			break;
		}
		if (!k) {
			if (n == 0)
				break;	/* cut short at the end */
			continue;
		}
		used += size;
		err = k == NTP_EV_HOST_IO ? insert_host(w, &rec.h) : insert_target(w, &rec.t);
		if (err)
			break;
		++*taken;
	}
	close(fd);
	if (!err)
		err = insert_pending(w);
	if (!err)
		err = ntp_meta__set_int(w, NTP_META_SPOOLED, (int64_t)*taken);
	return err;
}

/* the spool into the file, one transaction, then the spool removed */
static int import_spool(struct ntp_writer *w, const char *spool_path, uint64_t *taken)
{
	int err;

	/* no commit by count: one transaction for the whole spool */
	w->batch_rows = UINT32_MAX;
	err = begin(w);
	if (!err)
		err = import_records(w, spool_path, taken);
	if (!err)
		err = commit(w);
	else if (!sqlite3_get_autocommit(w->db))
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	w->in_txn = 0;
	if (!err && unlink(spool_path) && errno != ENOENT) {
		ntp_error("removing %s: %s", spool_path, strerror(errno));
		err = w->failed = NTP_EXIT_FAILURE;
	}
	return err;
}

int ntp_writer__add_interval(struct ntp_writer *w, const struct ntp_interval *iv)
{
	struct insert *ins = &w->interval;
	int err = start_row(w);

	if (err)
		return err;
	bind_u64(ins, 0, iv->t_ns);
	bind_text(ins, 1, iv->side);
	bind_u64(ins, 2, iv->seen);
	bind_u64(ins, 3, iv->sampled);
	bind_u64(ins, 4, iv->lost_ringbuf);
	bind_u64(ins, 5, iv->lost_map);
	return step(w, ins);
}

static void bind_opt_text(struct insert *ins, int p, const char *s)
{
	if (s)
		sqlite3_bind_text(ins->stmt, ins->idx[p], s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p]);
}

static void bind_opt_int(struct insert *ins, int p, long long v)
{
	if (v >= 0)
		sqlite3_bind_int64(ins->stmt, ins->idx[p], v);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[p]);
}

int ntp_writer__add_nvmf_id(struct ntp_writer *w, const struct ntp_nvmf_id *id)
{
	struct insert *ins = &w->nvmf_id;
	int err = start_row(w);

	if (err)
		return err;
	bind_text(ins, 0, id->side);
	bind_text(ins, 1, id->object);
	bind_text(ins, 2, id->name);
	bind_opt_text(ins, 3, id->subsysnqn);
	bind_opt_int(ins, 4, id->cntlid);
	bind_opt_int(ins, 5, id->nsid);
	bind_opt_text(ins, 6, id->port);
	bind_opt_text(ins, 7, id->transport);
	bind_opt_text(ins, 8, id->traddr);
	bind_opt_text(ins, 9, id->trsvcid);
	bind_opt_text(ins, 10, id->host_traddr);
	bind_opt_text(ins, 11, id->hostnqn);
	bind_opt_text(ins, 12, id->device);
	return step(w, ins);
}

int ntp_writer__add_backend_stat(struct ntp_writer *w, const struct ntp_backend_stat *b)
{
	struct insert *ins = &w->backend;
	int err = start_row(w);

	if (err)
		return err;
	bind_u64(ins, 0, b->t_ns);
	bind_u64(ins, 1, b->interval_ns);
	bind_text(ins, 2, b->device);
	bind_u64(ins, 3, b->ios);
	bind_u64(ins, 4, b->in_flight);
	bind_u64(ins, 5, b->busy_ms);
	bind_u64(ins, 6, b->queue_ms);
	if (b->depth >= 0)
		bind_u64(ins, 7, (uint64_t)b->depth);
	else
		sqlite3_bind_null(ins->stmt, ins->idx[7]);
	return step(w, ins);
}

int ntp_writer__flush(struct ntp_writer *w)
{
	if (w->failed)
		return w->failed;
	if (spool_write(w))
		return w->failed;
	return commit(w);
}

void ntp_writer__count(const struct ntp_writer *w, struct ntp_writer_rows *r)
{
	if (!w->failed) {
		*r = (struct ntp_writer_rows){ w->host_taken, w->target_taken, 0, 0 };
		return;
	}
	*r = (struct ntp_writer_rows){ w->rows_kept, w->target_kept, w->host_taken - w->rows_kept,
				       w->target_taken - w->target_kept };
}

/*
 * Fold FILE-wal into FILE and leave rollback-journal mode: one file to copy.
 * Nothing is lost when this fails, and the one line says so.
 */
static int finish_file(struct ntp_writer *w)
{
	static const char *const sqls[] = {
		"PRAGMA wal_checkpoint(TRUNCATE)",
		"PRAGMA journal_mode = DELETE",
	};
	const unsigned char *v;
	sqlite3_stmt *st;
	size_t i;
	int ok;

	for (i = 0; i < 2; i++) {
		if (sqlite3_prepare_v2(w->db, sqls[i], -1, &st, NULL) != SQLITE_OK)
			goto fail;
		ok = sqlite3_step(st) == SQLITE_ROW;
		v = ok ? sqlite3_column_text(st, 0) : NULL;
		/* checkpoint: (busy, log, checkpointed); journal_mode: the mode now */
		if (ok && i == 0)
			ok = sqlite3_column_int(st, 0) == 0;
		if (ok && i == 1)
			ok = v && !strcmp((const char *)v, "delete");
		sqlite3_finalize(st);
		if (!ok)
			goto fail;
	}
	return 0;
fail:
	ntp_error("writing %s: %s (SQL: %s); no rows are lost, but keep %s-wal with it",
		  w->path, sqlite3_errmsg(w->db), sqls[i], w->path);
	return w->failed = NTP_EXIT_FAILURE;
}

int ntp_writer__close(struct ntp_writer *w)
{
	struct insert *all[8];
	uint64_t taken;
	size_t i;
	int err;

	if (!w)
		return 0;
	all[0] = &w->meta;
	all[1] = &w->hook;
	all[2] = &w->host_io;
	all[3] = &w->host_io_n;
	all[4] = &w->interval;
	all[5] = &w->target_io;
	all[6] = &w->backend;
	all[7] = &w->nvmf_id;
	err = w->failed;
	/*
	 * After an error what was committed is already in FILE-wal, and what
	 * was spooled in FILE.spool, for ntprof finish: roll back the rest and
	 * leave the files alone.
	 */
	if (w->db && !err)
		err = spool_write(w);
	if (w->db && !err)
		err = commit(w);
	if (w->spool_fd >= 0) {
		close(w->spool_fd);
		w->spool_fd = -1;
		if (!err)
			err = import_spool(w, w->spool_path, &taken);
	}
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		sqlite3_finalize(all[i]->stmt);
	if (w->db) {
		if (!sqlite3_get_autocommit(w->db))
			sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		if (!err)
			err = finish_file(w);
		else	/* FILE-wal stays beside FILE, as ntprof finish expects it */
			sqlite3_db_config(w->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		if (sqlite3_close(w->db) != SQLITE_OK && !err) {
			ntp_error("closing %s: %s", w->path, sqlite3_errmsg(w->db));
			err = NTP_EXIT_FAILURE;
		}
	}
	/* what the error kept is in the spool: say how it gets into the file */
	if (err && w->spool_path && w->rows_kept + w->target_kept)
		ntp_info("%s: its %llu commands spooled before the error are in %s: ntprof finish %s"
			 " writes them in once the cause is gone", w->path,
			 (unsigned long long)(w->rows_kept + w->target_kept), w->spool_path, w->path);
	free(w->spool_path);
	free(w->sbuf);
	free(w->path);
	free(w);
	return err;
}

int ntp_writer__import_spool(sqlite3 *db, const char *path, uint64_t *taken)
{
	struct ntp_writer *w;
	struct stat st;
	char *spool;
	int err;

	*taken = 0;
	if (asprintf(&spool, "%s%s", path, NTP_SPOOL_SUFFIX) < 0) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (lstat(spool, &st)) {
		err = errno == ENOENT ? 0 : NTP_EXIT_FAILURE;
		if (err)
			ntp_error("%s: %s", spool, strerror(errno));
		free(spool);
		return err;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		free(w);
		free(spool);
		return NTP_EXIT_FAILURE;
	}
	w->db = db;
	w->spool_fd = -1;
	w->batch_rows = NTP_DB_BATCH_ROWS;
	err = prepare(w, &w->meta, "meta", meta_cols, 2, "INSERT OR REPLACE", 1) ||
	      prepare(w, &w->host_io, "host_io", host_cols, HC_MAX, "INSERT", 1) ||
	      prepare(w, &w->host_io_n, "host_io", host_cols, HC_MAX, "INSERT OR FAIL",
		      HOST_ROWS_PER_INSERT) ||
	      prepare(w, &w->target_io, "target_io", target_cols, TC_MAX, "INSERT", 1);
	if (err) {
		err = NTP_EXIT_FAILURE;
	} else if (ntp_meta__int(db, NTP_META_SPOOLED, -1) >= 0) {
		/* taken already: the recorder stopped between its commit and the removal */
		if (unlink(spool) && errno != ENOENT) {
			ntp_error("removing %s: %s", spool, strerror(errno));
			err = NTP_EXIT_FAILURE;
		}
	} else {
		err = import_spool(w, spool, taken);
	}
	sqlite3_finalize(w->meta.stmt);
	sqlite3_finalize(w->host_io.stmt);
	sqlite3_finalize(w->host_io_n.stmt);
	sqlite3_finalize(w->target_io.stmt);
	free(w->path);
	free(w);
	free(spool);
	return err;
}
