// SPDX-License-Identifier: GPL-2.0
/*
 * The .ntp writer and reader (lib/ntp/db_write.c, lib/ntp/db_read.c), on real files
 * in a private temporary directory: what record writes is what report reads,
 * a SIGKILL loses only the open batch, a full disk gives one error line and
 * keeps what was committed, and each kind of bad input gets its own code.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_finish.h"
#include "lib/ntp/db_guard.h"
#include "lib/ntp/db_key.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"
#include "lib/ntp/db_schema.h"
#include "lib/ntp/db_state.h"
#include "lib/ntp/db_write.h"

static char dir[64];
/* paths live until the group's teardown, so a test may hold many */
static char *paths[256];
static int npaths;

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int group_setup(void **state)
{
	strcpy(dir, "/tmp/ntprof-test_db.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	ntp_err__set_cmd("test");
	return 0;
}

static int group_teardown(void **state)
{
	while (npaths)
		free(paths[--npaths]);
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}


static char *tpath(const char *name)
{
	char *p;

	assert_true(npaths < 256);
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	paths[npaths++] = p;
	return p;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/* stderr of the calls between begin and end, as one string */
static int saved_stderr = -1;

static void capture_begin(void)
{
	int fd = open(tpath("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	return read_file(tpath("stderr.txt"), NULL);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int64_t query1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int64_t count_rows(const char *path, const char *table)
{
	char sql[128];
	sqlite3 *db;
	int64_t n;

	assert_int_equal(ntp_db__open_read(&db, path), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	n = query1(db, sql);
	sqlite3_close(db);
	return n;
}

static struct ntp_host_event event(uint64_t i)
{
	struct ntp_host_event e;

	memset(&e, 0, sizeof(e));
	e.kind = NTP_EV_HOST_IO;
	e.h_start = 1000000 + i * 1000;
	e.h_queue = e.h_start + 100;
	e.h_cmd_sent = e.h_start + 200;
	e.h_recv = e.h_start + 700;
	e.h_done = e.h_start + 800;
	e.slba = i * 8;
	e.bytes = 4096;
	e.nsid = 1;
	e.cid = (__u16)i;
	e.nlb0 = 7;
	e.qid = 1 + i % 4;
	e.cntlid = 1;
	e.opcode = 2;
	e.ctrl_instance = 0;
	strcpy(e.disk, "nvme0n1");
	return e;
}

/* ---- writer ------------------------------------------------------------------ */

static void writer__full_recording__reads_back_as_written(void **state)
{
	const char *path = tpath("full.ntp");
	struct ntp_interval iv = { 2000000000, "host", 1000, 10, 1, 2 };
	struct ntp_host_event e = event(1), e2 = event(2);
	struct ntp_writer_rows wr;
	struct ntp_writer *w;
	sqlite3_stmt *st;
	sqlite3 *db;
	char *s;

	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__set_meta_text(w, "role", "host"), 0);
	assert_int_equal(ntp_writer__set_meta_int(w, "sample_one_in", 1000), 0);
	assert_int_equal(ntp_writer__set_meta_int(w, "sample_one_in", 100), 0);	/* replaces */
	assert_int_equal(ntp_writer__add_hook(w, "host", "h_start", "block_rq_issue",
					      "raw_tp", ""), 0);

	/* the R2T write: every time set, multipath names, controller 12 */
	e.opcode = 1;
	e.h_r2t = e.h_start + 300;
	e.h_data_sent = e.h_start + 400;
	e.ctrl_instance = 12;
	e.nlb0 = 0;
	e.status = 0x4004;
	e.flags = NTP_HF_R2T | NTP_HF_ERROR;
	strcpy(e.disk, "nvme12n1");
	strcpy(e.path, "nvme12c3n1");
	assert_int_equal(ntp_writer__add_host_io(w, &e), 0);

	/* names filling the whole field with no NUL; no cmd_sent/r2t/data/recv hooks */
	memset(e2.disk, 'a', NTP_DISK_NAME_LEN);
	memset(e2.path, 'b', NTP_DISK_NAME_LEN);
	e2.h_cmd_sent = e2.h_recv = 0;
	assert_int_equal(ntp_writer__add_host_io(w, &e2), 0);
	assert_int_equal(ntp_writer__add_interval(w, &iv), 0);
	ntp_writer__count(w, &wr);
	assert_int_equal(wr.host, 2);
	assert_int_equal(wr.target, 0);
	assert_int_equal(wr.host_lost + wr.target_lost, 0);
	assert_int_equal(ntp_writer__close(w), 0);

	/* one self-contained file */
	assert_true(exists(path));
	assert_false(exists(tpath("full.ntp-wal")));
	assert_false(exists(tpath("full.ntp-shm")));
	assert_false(exists(tpath("full.ntp-journal")));

	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "PRAGMA application_id"), NTP_DB_APPLICATION_ID);
	assert_int_equal(query1(db, "PRAGMA user_version"), NTP_DB_SCHEMA_VERSION);
	s = ntp_meta__text(db, NTP_META_ROLE);
	assert_string_equal(s, "host");
	free(s);
	s = ntp_meta__text_in(db, "main", NTP_META_ROLE);
	assert_string_equal(s, "host");
	free(s);
	assert_int_equal(ntp_meta__int(db, NTP_META_SAMPLE_ONE_IN, -1), 100);
	assert_int_equal(ntp_meta__int_in(db, "main", NTP_META_SAMPLE_ONE_IN, -1), 100);
	/* never written by record: absent */
	assert_int_equal(ntp_meta__int(db, NTP_META_BPF_RUNS, -7), -7);
	assert_null(ntp_meta__text(db, NTP_META_START_TIME));
	assert_int_equal(query1(db, "SELECT typeof(value) = 'integer' FROM meta WHERE key = 'sample_one_in'"), 1);
	assert_int_equal(query1(db, "SELECT count(*) FROM hooks WHERE point = 'h_start' AND flavour = 'raw_tp'"), 1);
	assert_int_equal(query1(db, "SELECT count(*) FROM intervals WHERE t_ns = 2000000000 AND side = 'host'"
				    " AND seen = 1000 AND sampled = 10 AND lost_ringbuf = 1 AND lost_map = 2"), 1);

	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT h_start_ns, h_queue_ns, h_cmd_sent_ns, h_r2t_ns, h_data_sent_ns, h_recv_ns,"
		" h_done_ns, opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, controller, namespace,"
		" path, status, flags FROM host_io ORDER BY id", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), e.h_start);
	assert_int_equal(sqlite3_column_int64(st, 1), e.h_queue);
	assert_int_equal(sqlite3_column_int64(st, 2), e.h_cmd_sent);
	assert_int_equal(sqlite3_column_int64(st, 3), e.h_r2t);
	assert_int_equal(sqlite3_column_int64(st, 4), e.h_data_sent);
	assert_int_equal(sqlite3_column_int64(st, 5), e.h_recv);
	assert_int_equal(sqlite3_column_int64(st, 6), e.h_done);
	assert_int_equal(sqlite3_column_int(st, 7), 1);
	assert_int_equal(sqlite3_column_int(st, 8), 1);
	assert_int_equal(sqlite3_column_int64(st, 9), 8);
	assert_int_equal(sqlite3_column_int(st, 10), 1);		/* nlb = nlb0 + 1 */
	assert_int_equal(sqlite3_column_int(st, 11), 4096);
	assert_int_equal(sqlite3_column_int(st, 12), e.qid);
	assert_int_equal(sqlite3_column_int(st, 13), 1);
	assert_int_equal(sqlite3_column_int(st, 14), 1);
	assert_string_equal(sqlite3_column_text(st, 15), "nvme12");
	assert_string_equal(sqlite3_column_text(st, 16), "nvme12n1");
	assert_string_equal(sqlite3_column_text(st, 17), "nvme12c3n1");
	assert_int_equal(sqlite3_column_int(st, 18), 0x4004);
	assert_int_equal(sqlite3_column_int(st, 19), NTP_HF_R2T | NTP_HF_ERROR);

	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 2), SQLITE_NULL);	/* 0 -> NULL */
	assert_int_equal(sqlite3_column_type(st, 3), SQLITE_NULL);
	assert_int_equal(sqlite3_column_type(st, 4), SQLITE_NULL);
	assert_int_equal(sqlite3_column_type(st, 5), SQLITE_NULL);
	assert_int_equal(sqlite3_column_int(st, 10), 8);
	assert_string_equal(sqlite3_column_text(st, 15), "nvme0");
	assert_int_equal(sqlite3_column_bytes(st, 16), NTP_DISK_NAME_LEN);	/* bounded */
	assert_int_equal(sqlite3_column_bytes(st, 17), NTP_DISK_NAME_LEN);
	assert_int_equal(sqlite3_column_text(st, 16)[0], 'a');
	assert_int_equal(sqlite3_column_text(st, 17)[0], 'b');
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	/* the stage view works on what the writer wrote: R2T write adds up */
	assert_int_equal(query1(db, "SELECT block_ns + driver_ns + network_star_ns = e2e_ns"
				    " FROM host_stages WHERE io_type = 'write'"), 1);
	assert_int_equal(query1(db, "SELECT driver_ns FROM host_stages WHERE io_type = 'write'"),
			 (e.h_cmd_sent - e.h_queue) + (e.h_data_sent - e.h_r2t) +
			 (e.h_done - e.h_recv));
	sqlite3_close(db);
}

/* every field different from row to row, and from field to field */
static struct ntp_host_event varied_event(uint64_t i)
{
	struct ntp_host_event e = event(i);

	e.h_cmd_sent = i % 3 ? e.h_start + 200 + i : 0;
	e.h_r2t = i % 4 == 1 ? e.h_start + 300 + i : 0;
	e.h_data_sent = i % 4 == 1 ? e.h_start + 400 + i : 0;
	e.h_recv = i % 5 ? e.h_start + 700 + i : 0;
	e.slba = 0x100000000ULL * i + 3 * i;
	e.bytes = 512 * (1 + i % 256);
	e.nsid = 1 + i % 7;
	e.cid = (__u16)(0xffff - i);
	e.nlb0 = (__u16)(i % 256);
	e.qid = (__u16)(i % 9);
	e.cntlid = (__u16)(100 + i % 3);
	e.status = (__u16)(i % 11 == 0 ? 0x2002 : 0);
	e.opcode = (__u8)(i % 3);
	e.flags = (__u32)(i % 16);
	/* where it ran: runs of one CPU, io_cpu known in runs and unknown between */
	if (i / 7 % 4) {
		e.flags |= NTP_HF_CPU;
		e.cpu = (__u16)(i / 7 % 3);
	}
	if (i / 5 % 3) {
		e.flags |= NTP_HF_IO_CPU;
		e.io_cpu = (__u16)(i / 11 % 2);
	}
	if (i % 13 != 3) {
		e.flags |= NTP_HF_QUEUE_BUSY;
		e.queue_busy = (__u16)(1 + i / 3 % 40);
	}
	e.ctrl_instance = (__u32)(i % 13) * 1000;
	snprintf(e.disk, sizeof(e.disk), "nvme%un%u", e.ctrl_instance, e.nsid);
	if (i % 2)
		snprintf(e.path, sizeof(e.path), "nvme%uc%un%u", e.ctrl_instance, (unsigned)i % 4,
			 e.nsid);
	/* the application's side: runs of the same submitter, and rows without one */
	e.h_app_submit = i % 6 ? e.h_start - 50 - i : 0;
	e.h_app_done = i % 7 ? e.h_done + 60 + i : 0;
	e.h_app_reap = i % 3 == 1 ? e.h_done + 900 + i : 0;
	e.app_kind = (__u8)(i % 5);     /* 4: not a kind, stored as NULL */
	e.cgroup_id = i % 8 ? 1 + i / 40 : 0;
	e.pid = i % 9 ? 100 + (__u32)(i / 30) : 0;
	e.tid = e.pid ? e.pid + (__u32)(i % 2) : 0;
	if (e.pid)
		snprintf(e.comm, sizeof(e.comm), "fio-%u", e.pid);
	if (i % 17 == 0)
		memset(e.comm, 'c', NTP_COMM_LEN);      /* no NUL */
	return e;
}

static const char *const app_kind_names[] = { NULL, "libaio", "io_uring", "sync", NULL };

static void expect_time(sqlite3_stmt *st, int col, __u64 t)
{
	if (t)
		assert_int_equal(sqlite3_column_int64(st, col), t);
	else
		assert_int_equal(sqlite3_column_type(st, col), SQLITE_NULL);
}

/*
 * Enough rows for several multi-row INSERTs, a commit in the middle of one
 * and a partial one at close: each row reads back exactly as it was given.
 */
static void writer__many_rows__every_field_round_trips(void **state)
{
	const char *path = tpath("many.ntp");
	const uint64_t n = 2 * NTP_DB_BATCH_ROWS + 45;
	struct ntp_writer_rows wr;
	struct ntp_writer *w;
	sqlite3_stmt *st;
	sqlite3 *db;
	uint64_t i;
	char name[64];

	assert_int_equal(ntp_writer__open(&w, path), 0);
	for (i = 0; i < n; i++) {
		struct ntp_host_event e = varied_event(i);

		assert_int_equal(ntp_writer__add_host_io(w, &e), 0);
		if (i == 1000)		/* record's once-a-second flush, mid-INSERT */
			assert_int_equal(ntp_writer__flush(w), 0);
	}
	ntp_writer__count(w, &wr);
	assert_int_equal(wr.host, n);
	assert_int_equal(wr.host_lost, 0);
	assert_int_equal(ntp_writer__close(w), 0);

	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT h_start_ns, h_queue_ns, h_cmd_sent_ns, h_r2t_ns, h_data_sent_ns, h_recv_ns,"
		" h_done_ns, opcode, cid, slba, nlb, bytes, qid, nsid, cntlid, controller, namespace,"
		" path, status, flags, id, h_app_submit_ns, h_app_done_ns, h_app_reap_ns, app_kind,"
		" pid, tid, comm, cgroup_id, cpu, io_cpu, queue_in_flight FROM host_io ORDER BY id",
		-1, &st, NULL),
		SQLITE_OK);
	for (i = 0; i < n; i++) {
		struct ntp_host_event e = varied_event(i);
		char comm[NTP_COMM_LEN + 1] = "";

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 20), i + 1);
		assert_int_equal(sqlite3_column_int64(st, 0), e.h_start);
		assert_int_equal(sqlite3_column_int64(st, 1), e.h_queue);
		expect_time(st, 2, e.h_cmd_sent);
		expect_time(st, 3, e.h_r2t);
		expect_time(st, 4, e.h_data_sent);
		expect_time(st, 5, e.h_recv);
		assert_int_equal(sqlite3_column_int64(st, 6), e.h_done);
		assert_int_equal(sqlite3_column_int64(st, 7), e.opcode);
		assert_int_equal(sqlite3_column_int64(st, 8), e.cid);
		assert_int_equal(sqlite3_column_int64(st, 9), e.slba);
		assert_int_equal(sqlite3_column_int64(st, 10), e.nlb0 + 1);
		assert_int_equal(sqlite3_column_int64(st, 11), e.bytes);
		assert_int_equal(sqlite3_column_int64(st, 12), e.qid);
		assert_int_equal(sqlite3_column_int64(st, 13), e.nsid);
		assert_int_equal(sqlite3_column_int64(st, 14), e.cntlid);
		snprintf(name, sizeof(name), "nvme%u", e.ctrl_instance);
		assert_string_equal(sqlite3_column_text(st, 15), name);
		assert_string_equal(sqlite3_column_text(st, 16), e.disk);
		assert_string_equal(sqlite3_column_text(st, 17), e.path[0] ? e.path : e.disk);
		assert_int_equal(sqlite3_column_int64(st, 18), e.status);
		assert_int_equal(sqlite3_column_int64(st, 19), e.flags);
		expect_time(st, 21, e.h_app_submit);
		expect_time(st, 22, e.h_app_done);
		expect_time(st, 23, e.h_app_reap);
		if (app_kind_names[e.app_kind])
			assert_string_equal(sqlite3_column_text(st, 24), app_kind_names[e.app_kind]);
		else
			assert_int_equal(sqlite3_column_type(st, 24), SQLITE_NULL);
		if (e.pid) {
			memcpy(comm, e.comm, NTP_COMM_LEN);
			assert_int_equal(sqlite3_column_int64(st, 25), e.pid);
			assert_int_equal(sqlite3_column_int64(st, 26), e.tid);
			assert_string_equal(sqlite3_column_text(st, 27), comm);
		} else {
			/* a kernel thread: no process, thread or name */
			assert_int_equal(sqlite3_column_type(st, 25), SQLITE_NULL);
			assert_int_equal(sqlite3_column_type(st, 26), SQLITE_NULL);
			assert_int_equal(sqlite3_column_type(st, 27), SQLITE_NULL);
		}
		expect_time(st, 28, e.cgroup_id);
		if (e.flags & NTP_HF_CPU)
			assert_int_equal(sqlite3_column_int64(st, 29), e.cpu);
		else
			assert_int_equal(sqlite3_column_type(st, 29), SQLITE_NULL);
		if (e.flags & NTP_HF_IO_CPU)
			assert_int_equal(sqlite3_column_int64(st, 30), e.io_cpu);
		else
			assert_int_equal(sqlite3_column_type(st, 30), SQLITE_NULL);
		if (e.flags & NTP_HF_QUEUE_BUSY)
			assert_int_equal(sqlite3_column_int64(st, 31), e.queue_busy);
		else
			assert_int_equal(sqlite3_column_type(st, 31), SQLITE_NULL);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	/* host_app_stages: the stages around host_stages' window add up to app_e2e_ns */
	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT submit_ns, e2e_ns, complete_ns, reap_ns, app_e2e_ns FROM host_app_stages"
		" ORDER BY id", -1, &st, NULL), SQLITE_OK);
	for (i = 0; i < n; i++) {
		struct ntp_host_event e = varied_event(i);
		__u64 end = e.h_app_reap ? e.h_app_reap : e.h_app_done;

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		expect_time(st, 0, e.h_app_submit ? e.h_start - e.h_app_submit : 0);
		assert_int_equal(sqlite3_column_int64(st, 1), e.h_done - e.h_start);
		expect_time(st, 2, e.h_app_done ? e.h_app_done - e.h_done : 0);
		expect_time(st, 3, e.h_app_reap && e.h_app_done ? e.h_app_reap - e.h_app_done : 0);
		if (e.h_app_submit && e.h_app_done)
			assert_int_equal(sqlite3_column_int64(st, 4),
					 (e.h_start - e.h_app_submit) + (e.h_done - e.h_start) +
					 (end - e.h_done));
		else
			assert_int_equal(sqlite3_column_type(st, 4), SQLITE_NULL);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	/* host_app_stages computes host_stages' columns itself: they must agree, row by row */
	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT count(*), sum(a.io_type IS s.io_type AND a.bytes IS s.bytes"
		" AND a.namespace IS s.namespace AND a.path IS s.path AND a.controller IS s.controller"
		" AND a.qid IS s.qid AND a.cid IS s.cid AND a.slba IS s.slba AND a.nlb IS s.nlb"
		" AND a.status IS s.status AND a.e2e_ns IS s.e2e_ns AND a.block_ns IS s.block_ns"
		" AND a.driver_ns IS s.driver_ns AND a.network_star_ns IS s.network_star_ns"
		" AND a.h_start_ns IS s.h_start_ns AND a.h_done_ns IS s.h_done_ns"
		" AND a.h_queue_ns IS s.h_queue_ns AND a.sent_ns IS s.sent_ns"
		" AND a.r2t_host_ns IS s.r2t_host_ns AND a.recv_ns IS s.recv_ns)"
		" FROM host_app_stages a JOIN host_stages s ON s.id = a.id", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), n);
	assert_int_equal(sqlite3_column_int64(st, 1), n);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* target rows, interleaved with host rows in one batch, read back exactly */
static void writer__target_rows__every_field_round_trips(void **state)
{
	const char *path = tpath("target.ntp");
	struct ntp_writer_rows wr;
	struct ntp_writer *w;
	sqlite3_stmt *st;
	sqlite3 *db;
	uint64_t i, n = 100;

	assert_int_equal(ntp_writer__open(&w, path), 0);
	for (i = 0; i < n; i++) {
		struct ntp_target_event t = {
			.kind = NTP_EV_TARGET_IO, .flags = i % 3 ? 0 : NTP_TF_R2T,
			.t_recv = 1000 + i, .t_r2t = i % 3 ? 0 : 1100 + i,
			.t_submit = i % 5 ? 1200 + i : 0, .t_cmpl = 1300 + i, .t_sent = 1400 + i,
			.slba = i * 8, .bytes = 4096, .nsid = 1, .cid = (__u16)i, .nlb0 = 7,
			.qid = 1 + i % 2, .cntlid = 3, .status = i == 7 ? 0x4002 : 0,
			.opcode = i % 2 ? 1 : 2,
		};
		struct ntp_host_event h = varied_event(i);

		snprintf(t.device, sizeof(t.device), "nullb%u", (unsigned)(i % 2));
		assert_int_equal(ntp_writer__add_target_io(w, &t), 0);
		assert_int_equal(ntp_writer__add_host_io(w, &h), 0);
	}
	ntp_writer__count(w, &wr);
	assert_int_equal(wr.target, n);
	assert_int_equal(wr.target_lost, 0);
	assert_int_equal(ntp_writer__close(w), 0);

	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_io"), n);
	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT t_recv_ns, t_r2t_ns, t_submit_ns, t_cmpl_ns, t_sent_ns, opcode, cid, slba,"
		" nlb, bytes, qid, nsid, cntlid, device, status, flags FROM target_io ORDER BY id",
		-1, &st, NULL), SQLITE_OK);
	for (i = 0; i < n; i++) {
		char dev[16];

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), 1000 + i);
		expect_time(st, 1, i % 3 ? 0 : 1100 + i);
		expect_time(st, 2, i % 5 ? 1200 + i : 0);
		assert_int_equal(sqlite3_column_int64(st, 3), 1300 + i);
		assert_int_equal(sqlite3_column_int64(st, 4), 1400 + i);
		assert_int_equal(sqlite3_column_int64(st, 5), i % 2 ? 1 : 2);
		assert_int_equal(sqlite3_column_int64(st, 6), i);
		assert_int_equal(sqlite3_column_int64(st, 7), i * 8);
		assert_int_equal(sqlite3_column_int64(st, 8), 8);
		assert_int_equal(sqlite3_column_int64(st, 9), 4096);
		assert_int_equal(sqlite3_column_int64(st, 10), 1 + i % 2);
		assert_int_equal(sqlite3_column_int64(st, 11), 1);
		assert_int_equal(sqlite3_column_int64(st, 12), 3);
		snprintf(dev, sizeof(dev), "nullb%u", (unsigned)(i % 2));
		assert_string_equal(sqlite3_column_text(st, 13), dev);
		assert_int_equal(sqlite3_column_int64(st, 14), i == 7 ? 0x4002 : 0);
		assert_int_equal(sqlite3_column_int64(st, 15), i % 3 ? 0 : NTP_TF_R2T);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* the join's key: these values are tests/integration/test_join_key.py's too (ntpgen.py's hash) */
static void key__hash__known_values(void **state)
{
	static const struct {
		struct ntp_key k;
		uint64_t hash;
	} v[] = {
		{ { 0, 0, 0, 0, 0, 0, 0 }, 0xc68e6b69c081ca97ull },
		{ { 1, 2, 8, 1, 1, 1, 2 }, 0x3e91a28ff7b43a21ull },
		{ { 65535, -1, 65536, 128, 4294967295, 65535, 255 }, 0x64cbd5fc0cb813c6ull },
		{ { 42, 1ll << 40, 256, 3, 2, 7, 1 }, 0xdaaab785481d930aull },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(ntp_key__hash(&v[i].k), v[i].hash);
}

/* every row's join_key is the hash of its key columns, as the writer rebinds them */
static void expect_join_keys(sqlite3 *db, const char *table, uint64_t n)
{
	char sql[160];
	sqlite3_stmt *st;
	uint64_t rows = 0;

	snprintf(sql, sizeof(sql), "SELECT cid, slba, nlb, qid, nsid, cntlid, opcode, join_key"
		 " FROM %s ORDER BY id", table);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct ntp_key k = {
			sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
			sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
			sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
			sqlite3_column_int64(st, 6),
		};

		assert_int_equal(sqlite3_column_type(st, 7), SQLITE_INTEGER);
		assert_int_equal((uint64_t)sqlite3_column_int64(st, 7), ntp_key__hash(&k));
		rows++;
	}
	sqlite3_finalize(st);
	assert_int_equal(rows, n);
}

static void writer__join_key__hash_of_each_rows_key(void **state)
{
	const char *path = tpath("keys.ntp");
	struct ntp_writer *w;
	sqlite3 *db;
	/* past a multi-row INSERT's rows, so that the rebinding of changed keys is met */
	uint64_t n = 100;

	(void)state;
	assert_int_equal(ntp_writer__open(&w, path), 0);
	for (uint64_t i = 0; i < n; i++) {
		/* runs of one key, as a hot block's commands repeat, and changes of every field */
		struct ntp_host_event h = varied_event(i / 3 * 3 + (i % 7 == 0));
		struct ntp_target_event t = {
			.kind = NTP_EV_TARGET_IO, .t_recv = 1000 + i, .t_sent = 1400 + i,
			.slba = h.slba, .nsid = h.nsid, .cid = h.cid, .nlb0 = h.nlb0, .qid = h.qid,
			.cntlid = h.cntlid, .opcode = h.opcode, .bytes = 4096,
		};

		snprintf(t.device, sizeof(t.device), "nullb0");
		assert_int_equal(ntp_writer__add_host_io(w, &h), 0);
		assert_int_equal(ntp_writer__add_target_io(w, &t), 0);
	}
	assert_int_equal(ntp_writer__close(w), 0);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	expect_join_keys(db, "host_io", n);
	expect_join_keys(db, "target_io", n);
	/* a host row and the target's record of the same command: one key */
	assert_int_equal(query1(db, "SELECT count(*) FROM host_io h JOIN target_io t USING (id)"
				" WHERE h.join_key = t.join_key"), n);
	sqlite3_close(db);
}

static void writer__empty_path_name__path_is_disk(void **state)
{
	const char *path = tpath("nopath.ntp");
	struct ntp_host_event e = event(3);
	struct ntp_writer *w;
	sqlite3 *db;

	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__add_host_io(w, &e), 0);
	assert_int_equal(ntp_writer__close(w), 0);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_io WHERE path = 'nvme0n1'"
				    " AND namespace = 'nvme0n1' AND controller = 'nvme0'"), 1);
	sqlite3_close(db);
}

static void writer__existing_file__moved_to_old(void **state)
{
	const char *path = tpath("again.ntp");
	struct ntp_writer *w;
	size_t len;
	char *s;

	write_file(path, "previous", 8);
	write_file(tpath("again.ntp.old"), "older", 5);
	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__close(w), 0);
	s = read_file(tpath("again.ntp.old"), &len);
	assert_int_equal(len, 8);
	assert_memory_equal(s, "previous", 8);
	free(s);
	assert_int_equal(count_rows(path, "host_io"), 0);
}

static void writer__directory_path__error(void **state)
{
	struct ntp_writer *w = (void *)1;
	char *err;
	int rc;

	assert_int_equal(mkdir(tpath("adir.ntp"), 0700), 0);
	capture_begin();
	rc = ntp_writer__open(&w, tpath("adir.ntp"));
	err = capture_end();
	assert_int_equal(rc, NTP_EXIT_FAILURE);
	assert_null(w);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "ntprof test: error: "));
	free(err);
}

/*
 * Where shared memory maps work, the writer uses FILE-shm, so that readers
 * can read the live file, and its probe of them leaves nothing behind.  A
 * file system without them (9p) is tested in the test bed, on a real one.
 */
static void writer__shared_maps__shm_used_probe_gone(void **state)
{
	const char *path = tpath("shm.ntp");
	struct ntp_writer *w;
	struct ntp_host_event e = event(1);
	DIR *d;
	struct dirent *de;

	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__add_host_io(w, &e), 0);
	assert_int_equal(ntp_writer__flush(w), 0);
	assert_true(exists(tpath("shm.ntp-shm")));
	assert_int_equal(ntp_writer__close(w), 0);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		assert_null(strstr(de->d_name, "shmprobe"));
	closedir(d);
}

/* a link at FILE is moved to FILE.old like a file, never written through */
static void writer__dangling_symlink__moved_to_old_not_followed(void **state)
{
	const char *path = tpath("dangling.ntp");
	struct ntp_writer *w;
	struct stat st;

	assert_int_equal(symlink(tpath("nowhere.ntp"), path), 0);
	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__close(w), 0);
	assert_false(exists(tpath("nowhere.ntp")));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(tpath("dangling.ntp.old"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(count_rows(path, "host_io"), 0);
}

static void writer__symlink_to_file__target_untouched(void **state)
{
	const char *path = tpath("link.ntp");
	struct ntp_writer *w;
	struct stat st;
	size_t len;
	char *s;

	write_file(tpath("precious.txt"), "precious", 8);
	assert_int_equal(symlink(tpath("precious.txt"), path), 0);
	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__close(w), 0);
	s = read_file(tpath("precious.txt"), &len);
	assert_int_equal(len, 8);
	assert_memory_equal(s, "precious", 8);
	free(s);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(tpath("link.ntp.old"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* a disk full before anything was recorded: one line, and no empty file left */
static void writer__full_before_open__no_file_left(void **state)
{
	const char *path = tpath("full-at-open.ntp");
	char err[1024] = "";
	int fds[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	/* stderr through a pipe: a file would be capped by the same limit */
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		struct ntp_writer *w;

		close(fds[0]);
		if (dup2(fds[1], 2) < 0)
			_exit(10);
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(12);
		_exit(ntp_writer__open(&w, path) == NTP_EXIT_FAILURE && !w ? 0 : 13);
	}
	close(fds[1]);
	while ((n = read(fds[0], err + len, sizeof(err) - 1 - (size_t)len)) > 0)
		len += n;
	close(fds[0]);
	err[len] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(exists(path));
	assert_false(exists(tpath("full-at-open.ntp-wal")));
	assert_false(exists(tpath("full-at-open.ntp-journal")));
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "ntprof test: error: "));
}

static void writer__check_place__says_why(void **state)
{
	static const struct {
		const char *name;	/* under the test directory, or absolute */
		const char *needle;
	} bad[] = {
		{ "no-such-dir/x.ntp", "No such file or directory" },
		{ "a-file/x.ntp", "Not a directory" },
		{ "a-dir", "it is a directory" },
	};
	char *err;

	write_file(tpath("a-file"), "x", 1);
	assert_int_equal(mkdir(tpath("a-dir"), 0700), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		capture_begin();
		assert_int_equal(ntp_writer__check_place(tpath(bad[i].name)), NTP_EXIT_FAILURE);
		err = capture_end();
		assert_int_equal(count_lines(err), 1);
		assert_non_null(strstr(err, "ntprof test: error: cannot create "));
		assert_non_null(strstr(err, bad[i].needle));
		free(err);
	}
	assert_int_equal(ntp_writer__check_place(tpath("fine.ntp")), 0);
	assert_false(exists(tpath("fine.ntp")));
}

/*
 * ntprof report on a recording still being written: it opens and reads what
 * was committed (the meta; the commands are in the spool until the close),
 * and its read transaction only delays the writer's close.  The reader is
 * forked before the writer opens anything: SQLite connections must not
 * cross a fork().
 */
static void writer__reader_during_recording__reads_and_close_waits(void **state)
{
	const char *path = tpath("live.ntp");
	int go[2], done[2], status, i;
	struct ntp_writer *w;
	char c = 0;
	pid_t pid;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *db;
		sqlite3_stmt *st;

		close(go[1]);
		close(done[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (ntp_db__open_read(&db, path) ||
		    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) ||
		    sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM host_io),"
				       " (SELECT value FROM meta WHERE key = 'role')", -1, &st, NULL) ||
		    sqlite3_step(st) != SQLITE_ROW)
			_exit(2);
		c = sqlite3_column_int(st, 0) == 0 && sqlite3_column_text(st, 1) &&
		    !strcmp((const char *)sqlite3_column_text(st, 1), "host");
		if (write(done[1], &c, 1) != 1)
			_exit(3);
		sleep(1);	/* hold the snapshot while the writer closes */
		sqlite3_finalize(st);
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		sqlite3_close(db);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);

	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__set_meta_text(w, "role", "host"), 0);
	for (i = 0; i < 1000; i++) {
		struct ntp_host_event e = event(i);

		assert_int_equal(ntp_writer__add_host_io(w, &e), 0);
	}
	assert_int_equal(ntp_writer__flush(w), 0);
	assert_true(exists(tpath("live.ntp" NTP_SPOOL_SUFFIX)));
	for (i = 0; i < 10; i++) {	/* not flushed yet */
		struct ntp_host_event e = event(i);

		assert_int_equal(ntp_writer__add_host_io(w, &e), 0);
	}
	assert_int_equal(write(go[1], &c, 1), 1);
	assert_int_equal(read(done[0], &c, 1), 1);
	close(go[1]);
	close(done[0]);
	assert_int_equal(c, 1);
	assert_int_equal(ntp_writer__close(w), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_false(exists(tpath("live.ntp-wal")));
	assert_false(exists(tpath("live.ntp" NTP_SPOOL_SUFFIX)));
	assert_int_equal(count_rows(path, "host_io"), 1010);
}

/*
 * A child writes `batches` batches of NTP_DB_BATCH_ROWS commands, each
 * flushed as record flushes every second, and `partial` more, tells us, and
 * waits to be killed: the file and its spool must hold exactly the flushed
 * batches.
 */
static void record_and_kill(const char *path, int batches, int partial)
{
	int fds[2], status;
	char c = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ntp_writer *w;
		uint64_t i;

		close(fds[0]);
		if (ntp_writer__open(&w, path) ||
		    ntp_writer__set_meta_text(w, "role", "host") ||
		    ntp_writer__flush(w))
			_exit(1);
		for (i = 0; i < (uint64_t)batches * NTP_DB_BATCH_ROWS + partial; i++) {
			struct ntp_host_event e = event(i);

			if (ntp_writer__add_host_io(w, &e))
				_exit(2);
			if (i % NTP_DB_BATCH_ROWS == NTP_DB_BATCH_ROWS - 1 && ntp_writer__flush(w))
				_exit(4);
		}
		c = 1;
		if (write(fds[1], &c, 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* ntprof finish on path: 0, and what it took from the spool */
static uint64_t finish(const char *path)
{
	struct ntp_finish_opts o = { 0 };
	struct ntp_finish_done d;

	assert_int_equal(ntp_db__finish(path, &o, &d), 0);
	assert_true(d.spool);
	return d.spooled;
}

static void writer__sigkill__keeps_all_but_last_second(void **state)
{
	const char *path = tpath("killed.ntp");
	char *before, *after;
	size_t blen, alen;
	struct stat st1, st2;
	sqlite3 *db;

	record_and_kill(path, 3, 1234);
	/* killed: the meta is in the -wal, the commands in the spool */
	assert_true(exists(tpath("killed.ntp-wal")));
	assert_true(exists(tpath("killed.ntp" NTP_SPOOL_SUFFIX)));

	/* a reader opens it as it is, and changes nothing */
	before = read_file(path, &blen);
	assert_int_equal(stat(path, &st1), 0);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM meta WHERE key = 'role'"), 1);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_io"), 0);
	/* read-only: writing through the handle fails */
	assert_int_not_equal(sqlite3_exec(db, "DELETE FROM meta", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	after = read_file(path, &alen);
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(before, after, blen);
	assert_true(st1.st_mtim.tv_sec == st2.st_mtim.tv_sec &&
		    st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);
	free(before);
	free(after);
	assert_true(exists(tpath("killed.ntp-wal")));

	/* ntprof finish takes the flushed batches, in their order, and nothing more */
	assert_int_equal(finish(path), 3 * NTP_DB_BATCH_ROWS);
	assert_false(exists(tpath("killed.ntp" NTP_SPOOL_SUFFIX)));
	assert_false(exists(tpath("killed.ntp-wal")));
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_io"), 3 * NTP_DB_BATCH_ROWS);
	assert_int_equal(query1(db, "SELECT max(cid) FROM host_io WHERE id = (SELECT max(id) FROM host_io)"),
			 (3 * NTP_DB_BATCH_ROWS - 1) & 0xffff);
	assert_int_equal(query1(db, "SELECT value FROM meta WHERE key = 'spooled'"), 3 * NTP_DB_BATCH_ROWS);
	sqlite3_close(db);
}

/* copied without its -shm (or after a reboot): SQLite rebuilds the index */
static void writer__sigkill_without_shm__still_finishes(void **state)
{
	const char *path = tpath("killed-noshm.ntp");

	record_and_kill(path, 2, 7);
	assert_int_equal(unlink(tpath("killed-noshm.ntp-shm")), 0);
	assert_int_equal(count_rows(path, "meta"), 1);
	assert_int_equal(finish(path), 2 * NTP_DB_BATCH_ROWS);
	assert_int_equal(count_rows(path, "host_io"), 2 * NTP_DB_BATCH_ROWS);
}

/*
 * Killed after the spool's rows were committed and before the spool was
 * removed: finish removes it, and takes nothing twice.
 */
static void writer__spool_taken_already__removed_not_taken_again(void **state)
{
	const char *path = tpath("twice.ntp");
	struct ntp_finish_opts o = { 0 };
	struct ntp_finish_done d;
	char *spool;
	size_t len;

	record_and_kill(path, 1, 0);
	spool = read_file(tpath("twice.ntp" NTP_SPOOL_SUFFIX), &len);
	assert_int_equal(finish(path), NTP_DB_BATCH_ROWS);
	write_file(tpath("twice.ntp" NTP_SPOOL_SUFFIX), spool, len);
	free(spool);
	assert_int_equal(ntp_db__finish(path, &o, &d), 0);
	assert_true(d.spool);
	assert_int_equal(d.spooled, 0);
	assert_false(exists(tpath("twice.ntp" NTP_SPOOL_SUFFIX)));
	assert_int_equal(count_rows(path, "host_io"), NTP_DB_BATCH_ROWS);
}

/* a spool of another build's record layout is refused in one line, and left as it is */
static void writer__spool_of_another_layout__refused(void **state)
{
	const char *path = tpath("layout.ntp");
	struct ntp_finish_opts o = { 0 };
	struct ntp_finish_done d;
	char *spool, *err;
	size_t len;
	int rc;

	record_and_kill(path, 1, 0);
	spool = read_file(tpath("layout.ntp" NTP_SPOOL_SUFFIX), &len);
	spool[12]++;	/* the host record's size */
	write_file(tpath("layout.ntp" NTP_SPOOL_SUFFIX), spool, len);
	free(spool);
	capture_begin();
	rc = ntp_db__finish(path, &o, &d);
	err = capture_end();
	assert_int_equal(rc, NTP_EXIT_FAILURE);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "another ntprof build's layout"));
	free(err);
	assert_true(exists(tpath("layout.ntp" NTP_SPOOL_SUFFIX)));
	assert_int_equal(count_rows(path, "host_io"), 0);
}

static void writer__killed_file_then_new_record__old_keeps_its_wal(void **state)
{
	const char *path = tpath("rerun.ntp");
	struct ntp_writer *w;

	record_and_kill(path, 1, 10);
	assert_true(exists(tpath("rerun.ntp-wal")));
	assert_int_equal(ntp_writer__open(&w, path), 0);
	assert_int_equal(ntp_writer__close(w), 0);
	/* the stale -wal and spool went along with the old file, not into the new one */
	assert_false(exists(tpath("rerun.ntp-wal")));
	assert_false(exists(tpath("rerun.ntp" NTP_SPOOL_SUFFIX)));
	assert_true(exists(tpath("rerun.ntp.old" NTP_SPOOL_SUFFIX)));
	assert_int_equal(count_rows(path, "host_io"), 0);
	assert_int_equal(finish(tpath("rerun.ntp.old")), NTP_DB_BATCH_ROWS);
	assert_int_equal(count_rows(tpath("rerun.ntp.old"), "host_io"), NTP_DB_BATCH_ROWS);
}

/*
 * A full disk, for real: the child caps its file size (RLIMIT_FSIZE, with
 * SIGXFSZ ignored writes fail with EFBIG), writes until the writer fails,
 * and reports how many rows the writer kept: those flushed, and those the
 * write that failed part way wrote whole.  Every record handed over is
 * kept or counted lost.
 */
static void writer__file_size_limit__one_error_committed_rows_readable(void **state)
{
	const char *path = tpath("full-disk.ntp");
	int fds[2], status;
	uint64_t committed = 0;
	char *err;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 2 << 20, 2 << 20 };	/* 2 MiB: whole pages */
		struct ntp_writer_rows wr;
		struct ntp_writer *w;
		uint64_t i;
		int fd, rc = 0;

		close(fds[0]);
		fd = open(tpath("full-disk.err"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(10);
		if (ntp_writer__open(&w, path))
			_exit(11);
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(12);
		for (i = 0; i < 1000000 && !rc; i++) {
			struct ntp_host_event e = event(i);

			rc = ntp_writer__add_host_io(w, &e);
			if (!rc && i % 1000 == 999) {
				rc = ntp_writer__flush(w);
				if (!rc)
					committed = i + 1;
			}
		}
		if (rc != NTP_EXIT_FAILURE)
			_exit(13);
		/* what the summary says: the flushed rows and those written whole recorded, the rest lost */
		ntp_writer__count(w, &wr);
		if (wr.host <= committed || !wr.host_lost || wr.host + wr.host_lost != i)
			_exit(17);
		/* later calls fail too, without another message, and count their record lost */
		if (ntp_writer__add_host_io(w, &(struct ntp_host_event){ 0 }) != NTP_EXIT_FAILURE)
			_exit(14);
		ntp_writer__count(w, &wr);
		if (wr.host + wr.host_lost != i + 1)
			_exit(18);
		committed = wr.host;
		if (ntp_writer__close(w) != NTP_EXIT_FAILURE)
			_exit(15);
		if (write(fds[1], &committed, sizeof(committed)) != sizeof(committed))
			_exit(16);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &committed, sizeof(committed)), sizeof(committed));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* one error, and where the commands it kept are, with the command that writes them in */
	err = read_file(tpath("full-disk.err"), NULL);
	assert_int_equal(count_lines(err), 2);
	assert_non_null(strstr(err, "ntprof test: error: writing "));
	assert_non_null(strstr(err, "(the disk is full)"));
	assert_non_null(strstr(err, "spooled before the error are in "));
	assert_non_null(strstr(err, ": ntprof finish "));
	free(err);

	/* the spool holds exactly the commands kept: finish (with room now) takes them */
	assert_true(committed >= 1000);
	assert_int_equal(finish(path), committed);
	assert_int_equal(count_rows(path, "host_io"), committed);
}

/*
 * A file system that refuses SQLite's writes on demand, as a full disk does
 * (SQLITE_FULL), while the spool's own write() still succeeds: the default
 * VFS wrapped, every file's methods passed through but xWrite.
 */
static int vfs_full;
static sqlite3_vfs *vfs_real;

struct full_file {
	sqlite3_file base;
	sqlite3_file *real;	/* the real VFS's file, right after this struct */
};

#define REAL(f) (((struct full_file *)(f))->real)

static int ff_close(sqlite3_file *f) { return REAL(f)->pMethods->xClose(REAL(f)); }
static int ff_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int ff_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	return vfs_full ? SQLITE_FULL : REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int ff_truncate(sqlite3_file *f, sqlite3_int64 n)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), n);
}
static int ff_sync(sqlite3_file *f, int fl) { return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int ff_size(sqlite3_file *f, sqlite3_int64 *n) { return REAL(f)->pMethods->xFileSize(REAL(f), n); }
static int ff_lock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int ff_unlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int ff_reserved(sqlite3_file *f, int *r)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r);
}
static int ff_fcntl(sqlite3_file *f, int op, void *a)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
static int ff_sector(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int ff_chars(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int ff_shm_map(sqlite3_file *f, int pg, int sz, int ext, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, p);
}
static int ff_shm_lock(sqlite3_file *f, int off, int n, int fl)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, fl);
}
static void ff_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int ff_shm_unmap(sqlite3_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }

/* version 2: the shared-memory methods WAL needs, no memory-mapped reads */
static const sqlite3_io_methods ff_methods = {
	2, ff_close, ff_read, ff_write, ff_truncate, ff_sync, ff_size, ff_lock, ff_unlock,
	ff_reserved, ff_fcntl, ff_sector, ff_chars, ff_shm_map, ff_shm_lock, ff_shm_barrier,
	ff_shm_unmap, NULL, NULL,
};

static int ff_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct full_file *ff = (struct full_file *)f;
	int rc;

	ff->real = (sqlite3_file *)(ff + 1);
	rc = vfs_real->xOpen(vfs_real, name, ff->real, flags, out);
	/* a file the real VFS did not open has no methods to close */
	ff->base.pMethods = rc == SQLITE_OK && ff->real->pMethods ? &ff_methods : NULL;
	return rc;
}

static int ff_delete(sqlite3_vfs *v, const char *n, int sync) { return vfs_real->xDelete(vfs_real, n, sync); }
static int ff_access(sqlite3_vfs *v, const char *n, int fl, int *r)
{
	return vfs_real->xAccess(vfs_real, n, fl, r);
}
static int ff_fullname(sqlite3_vfs *v, const char *n, int len, char *out)
{
	return vfs_real->xFullPathname(vfs_real, n, len, out);
}
static int ff_random(sqlite3_vfs *v, int n, char *out) { return vfs_real->xRandomness(vfs_real, n, out); }
static int ff_sleep(sqlite3_vfs *v, int us) { return vfs_real->xSleep(vfs_real, us); }
static int ff_time(sqlite3_vfs *v, double *t) { return vfs_real->xCurrentTime(vfs_real, t); }
static int ff_last_error(sqlite3_vfs *v, int n, char *s) { return vfs_real->xGetLastError(vfs_real, n, s); }

static sqlite3_vfs full_vfs = {
	.iVersion = 1, .mxPathname = 512, .zName = "ntprof-test-full",
	.xOpen = ff_open, .xDelete = ff_delete, .xAccess = ff_access, .xFullPathname = ff_fullname,
	.xRandomness = ff_random, .xSleep = ff_sleep, .xCurrentTime = ff_time,
	.xGetLastError = ff_last_error,
};

/*
 * The failure of issue 37's rule "every command either in the file or
 * counted lost": SQLite's COMMIT fails on a full disk after the spool's
 * write of the same flush succeeded, and the ring buffers still hold
 * records.  The spool keeps every record flushed before the COMMIT, each
 * record handed over afterwards is counted lost, and the two add up to
 * every record handed over.
 */
/* a test that failed part way leaves SQLite's own VFS the default again */
static int full_vfs_teardown(void **state)
{
	vfs_full = 0;
	if (saved_stderr >= 0) {
		dup2(saved_stderr, 2);
		close(saved_stderr);
		saved_stderr = -1;
	}
	if (vfs_real)
		sqlite3_vfs_unregister(&full_vfs);
	vfs_real = NULL;
	return 0;
}

static int add_event(struct ntp_writer *w, uint64_t i)
{
	struct ntp_host_event e = event(i);

	return ntp_writer__add_host_io(w, &e);
}

static void writer__commit_fails__spooled_kept_later_counted_lost(void **state)
{
	const char *path = tpath("commit-full.ntp");
	const uint64_t before = 1500, after = 39;
	struct ntp_interval iv = { .t_ns = 1, .side = "host" };
	struct ntp_writer_rows wr;
	struct ntp_writer *w;
	uint64_t i;
	char *err;

	vfs_real = sqlite3_vfs_find(NULL);
	assert_non_null(vfs_real);
	full_vfs.szOsFile = (int)sizeof(struct full_file) + vfs_real->szOsFile;
	full_vfs.mxPathname = vfs_real->mxPathname;
	assert_int_equal(sqlite3_vfs_register(&full_vfs, 1), SQLITE_OK);

	assert_int_equal(ntp_writer__open(&w, path), 0);
	for (i = 0; i < before / 2; i++)
		assert_int_equal(add_event(w, i), 0);
	assert_int_equal(ntp_writer__add_interval(w, &iv), 0);
	assert_int_equal(ntp_writer__flush(w), 0);
	for (; i < before; i++)
		assert_int_equal(add_event(w, i), 0);
	assert_int_equal(ntp_writer__add_interval(w, &iv), 0);

	capture_begin();
	vfs_full = 1;
	/* the spool takes the buffered records, then the file refuses the intervals row */
	assert_int_equal(ntp_writer__flush(w), NTP_EXIT_FAILURE);
	/* what the rings still held, handed over by the drain after the error */
	for (; i < before + after; i++)
		assert_int_equal(add_event(w, i),
				 NTP_EXIT_FAILURE);
	ntp_writer__count(w, &wr);
	assert_int_equal(wr.host, before);
	assert_int_equal(wr.host_lost, after);
	assert_int_equal(wr.host + wr.host_lost, before + after);
	assert_int_equal(ntp_writer__close(w), NTP_EXIT_FAILURE);
	vfs_full = 0;
	err = capture_end();
	assert_int_equal(sqlite3_vfs_unregister(&full_vfs), SQLITE_OK);
	vfs_real = NULL;

	/* one error naming the COMMIT, and where the commands it kept are */
	assert_int_equal(count_lines(err), 2);
	assert_non_null(strstr(err, "ntprof test: error: writing "));
	assert_non_null(strstr(err, "(SQL: COMMIT)"));
	assert_non_null(strstr(err, "its 1500 commands spooled before the error are in "));
	free(err);

	/* with room again, finish writes exactly the spooled commands in */
	assert_int_equal(finish(path), before);
	assert_int_equal(count_rows(path, "host_io"), (int64_t)before);
	assert_int_equal(count_rows(path, "intervals"), 1);
}

/* the tmpfs of writer__tmpfs_fills__..., unmounted even when the test fails */
static const char *small_fs;

static int small_fs_teardown(void **state)
{
	if (small_fs)
		umount2(small_fs, MNT_DETACH);
	small_fs = NULL;
	return 0;
}

/*
 * A full disk for real: a 256 KiB tmpfs fills while commands are recorded
 * and flushed every 100, whichever write fails first (the spool's, or
 * SQLite's COMMIT).  Then the drain's 50 more.  The records kept and those
 * counted lost add up to every record handed over, and once there is room
 * finish writes exactly the kept ones in.
 */
static void writer__tmpfs_fills__kept_plus_lost_is_every_record(void **state)
{
	const char *d = tpath("small-fs"), *path = tpath("small-fs/fills.ntp");
	struct ntp_interval iv = { .t_ns = 1, .side = "host" };
	struct ntp_writer_rows wr;
	struct ntp_writer *w;
	uint64_t i, handed;
	int rc = 0;
	char *err;

	assert_int_equal(mkdir(d, 0700), 0);
	if (mount("tmpfs", d, "tmpfs", 0, "size=256k")) {
		fprintf(stderr, "skipped: mounting a 256 KiB tmpfs failed (%s): needs root "
			"(CI runs as root)\n", strerror(errno));
		skip();
		return;
	}
	small_fs = d;
	assert_int_equal(ntp_writer__open(&w, path), 0);
	capture_begin();
	for (i = 0; i < 1000000 && !rc; i++) {
		rc = add_event(w, i);
		if (!rc && i % 100 == 99) {
			rc = ntp_writer__add_interval(w, &iv);
			rc = rc ?: ntp_writer__flush(w);
		}
	}
	handed = i;
	for (; i < handed + 50; i++)
		assert_int_equal(add_event(w, i), NTP_EXIT_FAILURE);
	ntp_writer__count(w, &wr);
	assert_int_equal(ntp_writer__close(w), NTP_EXIT_FAILURE);
	err = capture_end();
	assert_int_equal(rc, NTP_EXIT_FAILURE);
	assert_true(wr.host > 0 && wr.host_lost >= 50);
	assert_int_equal(wr.host + wr.host_lost, handed + 50);
	/* one error line, one line naming the spool */
	assert_int_equal(count_lines(err), 2);
	assert_non_null(strstr(err, "ntprof test: error: writing "));
	free(err);

	assert_int_equal(mount("tmpfs", d, NULL, MS_REMOUNT, "size=64m"), 0);
	assert_int_equal(finish(path), wr.host);
	assert_int_equal(count_rows(path, "host_io"), (int64_t)wr.host);
	assert_int_equal(umount2(d, 0), 0);
	small_fs = NULL;
}

/* ---- reader ------------------------------------------------------------------ */

/* open_read fails with `code` and prints one line that contains `needle` */
static void expect_read_error(const char *path, int code, const char *needle)
{
	sqlite3 *db = (void *)1;
	char *err;
	int rc;

	capture_begin();
	rc = ntp_db__open_read(&db, path);
	err = capture_end();
	if (rc != code || count_lines(err) != 1 || !strstr(err, needle) || !strstr(err, path))
		fail_msg("%s: got %d, want %d with \"%s\"; stderr: %s", path, rc, code, needle, err);
	assert_null(db);
	free(err);
}

static void make_sqlite(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* a closed recording with enough rows for several pages of host_io */
static const char *make_recording(const char *name, int rows)
{
	const char *path = tpath(name);
	struct ntp_writer *w;
	int i;

	assert_int_equal(ntp_writer__open(&w, path), 0);
	for (i = 0; i < rows; i++) {
		struct ntp_host_event e = event(i);

		assert_int_equal(ntp_writer__add_host_io(w, &e), 0);
	}
	assert_int_equal(ntp_writer__close(w), 0);
	return path;
}

static void read__missing_file__nofile(void **state)
{
	expect_read_error(tpath("does-not-exist.ntp"), NTP_EXIT_NOFILE, "No such file");
}

static void read__directory_or_fifo__nofile(void **state)
{
	assert_int_equal(mkdir(tpath("dir.ntp"), 0700), 0);
	expect_read_error(tpath("dir.ntp"), NTP_EXIT_NOFILE, "directory");
	assert_int_equal(mkfifo(tpath("fifo.ntp"), 0600), 0);
	expect_read_error(tpath("fifo.ntp"), NTP_EXIT_NOFILE, "not a regular file");
}

static void read__text_file__notsqlite(void **state)
{
	const char *text = "h_start_ns,h_done_ns\n1,2\n";

	write_file(tpath("csv.ntp"), text, strlen(text));
	expect_read_error(tpath("csv.ntp"), NTP_EXIT_NOTSQLITE, "not an SQLite database");
	write_file(tpath("empty.ntp"), "", 0);
	expect_read_error(tpath("empty.ntp"), NTP_EXIT_NOTSQLITE, "empty");
}

static void read__other_sqlite__notntp(void **state)
{
	make_sqlite(tpath("plain.db"), "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
	expect_read_error(tpath("plain.db"), NTP_EXIT_NOTNTP, "not an ntprof recording");
	make_sqlite(tpath("fossil.db"), "PRAGMA application_id = 252006673; CREATE TABLE t(x);");
	expect_read_error(tpath("fossil.db"), NTP_EXIT_NOTNTP, "0x0f055111");
}

static void read__newer_schema__toonew_names_both_versions(void **state)
{
	char sql[256], want[128];

	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d;"
		 " CREATE TABLE host_io(x);", NTP_DB_APPLICATION_ID, NTP_DB_SCHEMA_VERSION + 1);
	make_sqlite(tpath("future.ntp"), sql);
	snprintf(want, sizeof(want), "schema version %d; this ntprof reads versions %d to %d",
		 NTP_DB_SCHEMA_VERSION + 1, NTP_DB_MIN_READABLE, NTP_DB_SCHEMA_VERSION);
	expect_read_error(tpath("future.ntp"), NTP_EXIT_TOONEW, want);
}

static void read__ntp_without_tables__corrupt(void **state)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d;"
		 " CREATE TABLE meta(key, value);", NTP_DB_APPLICATION_ID, NTP_DB_SCHEMA_VERSION);
	make_sqlite(tpath("hollow.ntp"), sql);
	expect_read_error(tpath("hollow.ntp"), NTP_EXIT_CORRUPT, "no table hooks");
}

static void copy_prefix(const char *from, const char *to, size_t len)
{
	size_t n;
	char *s = read_file(from, &n);

	assert_true(len <= n);
	write_file(to, s, len);
	free(s);
}

static void read__truncated__corrupt(void **state)
{
	const char *path = make_recording("whole.ntp", 20000);
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 8 * 16384);
	/* a whole number of pages whatever the page size, but fewer than the header's */
	copy_prefix(path, tpath("cut-page.ntp"), st.st_size - 65536);
	expect_read_error(tpath("cut-page.ntp"), NTP_EXIT_CORRUPT, "truncated");
	copy_prefix(path, tpath("cut-mid.ntp"), st.st_size / 2 + 100);
	expect_read_error(tpath("cut-mid.ntp"), NTP_EXIT_CORRUPT, "truncated");
	copy_prefix(path, tpath("cut-header.ntp"), 60);
	expect_read_error(tpath("cut-header.ntp"), NTP_EXIT_CORRUPT, "truncated");
}

static void read__damaged_page__corrupt(void **state)
{
	const char *path = make_recording("damaged.ntp", 20000);
	unsigned char hdr[18];
	char junk[65536];
	size_t page_size;
	struct stat st;
	int fd;

	assert_int_equal(stat(path, &st), 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, hdr, sizeof(hdr), 0), sizeof(hdr));
	page_size = hdr[16] << 8 | hdr[17];
	assert_true(page_size >= 512 && page_size <= 32768);
	assert_true(st.st_size >= 8 * (off_t)page_size);
	/* a whole page in the middle of the file: one of host_io's leaves */
	memset(junk, 0xff, sizeof(junk));
	assert_int_equal(pwrite(fd, junk, page_size, (st.st_size / page_size / 2) * page_size),
			 page_size);
	close(fd);
	expect_read_error(path, NTP_EXIT_CORRUPT, "corrupt");
}

/*
 * A file's own view, whatever it is, is never what a reader queries: the
 * file's host_stages here never ends, ntprof's counts the rows.
 */
static void read__file_view_replaced__own_view_read(void **state)
{
	const char *path = make_recording("ownview.ntp", 50);
	sqlite3 *db;

	make_sqlite(path, "DROP VIEW host_stages; CREATE VIEW host_stages AS"
		    " WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c)"
		    " SELECT id, 'read' AS io_type FROM c;");
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_stages"), 50);
	/* and the file's own cannot be reached even by its qualified name */
	assert_int_not_equal(sqlite3_exec(db, "SELECT * FROM main.host_stages", NULL, NULL, NULL),
			     SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(ntp_db__open_again(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_stages"), 50);
	sqlite3_close(db);
}

/* no statement on a reader's connection runs unbounded: the work limit stops it */
static void read__endless_statement__stopped_by_work_limit(void **state)
{
	const char *path = make_recording("endless.ntp", 10);
	sqlite3_stmt *st;
	sqlite3 *db;
	int rc;

	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(sqlite3_prepare_v2(db, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL"
					    " SELECT i + 1 FROM c) SELECT count(*) FROM c", -1, &st,
					    NULL), SQLITE_OK);
	/* a statement without end: interrupted by the work limit, never finished */
	rc = sqlite3_step(st);
	assert_int_equal(rc, SQLITE_INTERRUPT);
	sqlite3_finalize(st);
	assert_int_equal(ntp_db__error_code(db), NTP_EXIT_CORRUPT);
	sqlite3_close(db);
}

static void read__good_file__unchanged_and_readonly(void **state)
{
	const char *path = make_recording("good.ntp", 100);
	char *before, *after;
	size_t blen, alen;
	sqlite3 *db;

	before = read_file(path, &blen);
	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM host_io"), 100);
	assert_int_not_equal(sqlite3_exec(db, "INSERT INTO meta VALUES ('x', 1)", NULL, NULL, NULL),
			     SQLITE_OK);
	sqlite3_close(db);
	after = read_file(path, &alen);
	assert_int_equal(alen, blen);
	assert_memory_equal(before, after, blen);
	assert_false(exists(tpath("good.ntp-wal")));
	free(before);
	free(after);
}

/* was schema of db opened with the URI parameter name=1? */
static bool opened_with(sqlite3 *db, const char *schema, const char *name)
{
	return sqlite3_uri_boolean(sqlite3_db_filename(db, schema), name, 0);
}

/*
 * A finished recording is read-only and immutable on every way a reader
 * opens it: the check's own connection, a worker thread's, and ATTACH to
 * the joined kinds' connection; one killed in WAL mode is read through
 * the unix-none VFS, with its log's index in memory.
 */
static void read__every_opening__immutable_or_index_in_memory(void **state)
{
	const char *path = make_recording("immutable.ntp", 10);
	const char *killed = tpath("killed-open.ntp");
	sqlite3 *db, *mem;

	assert_int_equal(ntp_db__open_read(&db, path), 0);
	assert_true(opened_with(db, "main", "immutable"));
	assert_true(sqlite3_db_readonly(db, "main"));
	sqlite3_close(db);
	assert_int_equal(ntp_db__open_again(&db, path), 0);
	assert_true(opened_with(db, "main", "immutable"));
	sqlite3_close(db);

	assert_int_equal(sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE |
					 SQLITE_OPEN_URI, NULL), SQLITE_OK);
	assert_int_equal(ntp_db__attach_read(mem, path, "f"), 0);
	assert_true(opened_with(mem, "f", "immutable"));
	assert_int_equal(sqlite3_db_readonly(mem, "f"), 1);

	record_and_kill(killed, 1, 5);
	assert_int_equal(ntp_db__attach_read(mem, killed, "k"), 0);
	assert_false(opened_with(mem, "k", "immutable"));
	assert_string_equal(sqlite3_uri_parameter(sqlite3_db_filename(mem, "k"), "vfs"), "unix-none");
	assert_int_equal(query1(mem, "SELECT count(*) FROM k.meta WHERE key = 'role'"), 1);
	sqlite3_close(mem);
	assert_int_equal(ntp_db__open_read(&db, killed), 0);
	assert_int_equal(query1(db, "SELECT count(*) FROM meta WHERE key = 'role'"), 1);
	assert_string_equal(sqlite3_uri_parameter(sqlite3_db_filename(db, "main"), "vfs"), "unix-none");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writer__full_recording__reads_back_as_written),
		cmocka_unit_test(writer__many_rows__every_field_round_trips),
		cmocka_unit_test(writer__target_rows__every_field_round_trips),
		cmocka_unit_test(key__hash__known_values),
		cmocka_unit_test(writer__join_key__hash_of_each_rows_key),
		cmocka_unit_test(writer__empty_path_name__path_is_disk),
		cmocka_unit_test(writer__existing_file__moved_to_old),
		cmocka_unit_test(writer__directory_path__error),
		cmocka_unit_test(writer__shared_maps__shm_used_probe_gone),
		cmocka_unit_test(writer__dangling_symlink__moved_to_old_not_followed),
		cmocka_unit_test(writer__symlink_to_file__target_untouched),
		cmocka_unit_test(writer__full_before_open__no_file_left),
		cmocka_unit_test(writer__check_place__says_why),
		cmocka_unit_test(writer__reader_during_recording__reads_and_close_waits),
		cmocka_unit_test(writer__sigkill__keeps_all_but_last_second),
		cmocka_unit_test(writer__sigkill_without_shm__still_finishes),
		cmocka_unit_test(writer__spool_taken_already__removed_not_taken_again),
		cmocka_unit_test(writer__spool_of_another_layout__refused),
		cmocka_unit_test(writer__killed_file_then_new_record__old_keeps_its_wal),
		cmocka_unit_test(writer__file_size_limit__one_error_committed_rows_readable),
		cmocka_unit_test_teardown(writer__commit_fails__spooled_kept_later_counted_lost,
					  full_vfs_teardown),
		cmocka_unit_test_teardown(writer__tmpfs_fills__kept_plus_lost_is_every_record,
					  small_fs_teardown),
		cmocka_unit_test(read__missing_file__nofile),
		cmocka_unit_test(read__directory_or_fifo__nofile),
		cmocka_unit_test(read__text_file__notsqlite),
		cmocka_unit_test(read__other_sqlite__notntp),
		cmocka_unit_test(read__newer_schema__toonew_names_both_versions),
		cmocka_unit_test(read__ntp_without_tables__corrupt),
		cmocka_unit_test(read__truncated__corrupt),
		cmocka_unit_test(read__damaged_page__corrupt),
		cmocka_unit_test(read__good_file__unchanged_and_readonly),
		cmocka_unit_test(read__every_opening__immutable_or_index_in_memory),
		cmocka_unit_test(read__file_view_replaced__own_view_read),
		cmocka_unit_test(read__endless_statement__stopped_by_work_limit),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
