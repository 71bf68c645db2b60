// SPDX-License-Identifier: GPL-2.0
/*
 * The events of a recording in the order of their start
 * (lib/top/top_replay.h): each table read once, ordered by its start
 * column, and merged.
 * The recording is opened as every reader opens it (lib/model/model_files.h).
 * Columns a recording of an older schema lacks read as NULL, which an event
 * holds as 0 ("no hook", "not told"), as the recorder would have left it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/model/model_files.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_source.h"
#include "lib/ntp/db_meta.h"
#include "lib/top/top_replay.h"

/* one table's rows, one ahead */
struct cursor {
	sqlite3_stmt *st;
	bool have;              /* a row is read into the event */
	uint64_t key;           /* its place in the merge: its start (less the lookahead) */
};

struct ntp_top_replay {
	struct ntp_source *src;
	sqlite3 *db;                    /* the source's */
	const char *schema;             /* the recording's on db */
	const char *path;
	int64_t origin;                 /* where report's --time counts from */
	uint64_t lookahead_ns;          /* a -r both recording's targets: NTP_TOP_REPLAY_LOOKAHEAD_NS */
	struct cursor hc, tc;
	struct ntp_host_event h, h_out;         /* the row read ahead, the one handed out */
	struct ntp_target_event t, t_out;
};

static const char *const host_cols[] = {
	"h_start_ns", "h_queue_ns", "h_cmd_sent_ns", "h_r2t_ns", "h_data_sent_ns", "h_recv_ns",
	"h_done_ns", "opcode", "cid", "slba", "nlb", "bytes", "qid", "nsid", "cntlid", "controller",
	"namespace", "path", "status", "flags", "h_app_submit_ns", "h_app_done_ns", "h_app_reap_ns",
	"app_kind", "pid", "tid", "comm", "cgroup_id", NULL,
};

static const char *const target_cols[] = {
	"t_recv_ns", "t_r2t_ns", "t_submit_ns", "t_cmpl_ns", "t_sent_ns", "opcode", "cid", "slba",
	"nlb", "bytes", "qid", "nsid", "cntlid", "device", "status", "flags", NULL,
};

static bool has_column(sqlite3 *db, const char *schema, const char *table, const char *col)
{
	sqlite3_stmt *st;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1, ?3) WHERE name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, schema, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* SELECT the columns (NULL for those the table lacks) FROM table ORDER BY order */
static int prepare(struct ntp_top_replay *r, struct cursor *c, const char *table,
		   const char *const *cols, const char *order)
{
	char sql[2048];
	size_t at = 0;

	if (!has_column(r->db, r->schema, table, order))
		return 0;       /* no such table: that side is not in the recording */
	at += (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (int i = 0; cols[i]; i++)
		at += (size_t)snprintf(sql + at, sizeof(sql) - at, "%s%s", i ? ", " : "",
				       has_column(r->db, r->schema, table, cols[i]) ? cols[i] : "NULL");
	snprintf(sql + at, sizeof(sql) - at, " FROM \"%s\".%s ORDER BY %s, id", r->schema,
		 table, order);
	if (sqlite3_prepare_v2(r->db, sql, -1, &c->st, NULL) != SQLITE_OK) {
		ntp_error("%s: reading %s: %s (%s)", r->path, table, sqlite3_errmsg(r->db), sql);
		return NTP_EXIT_CORRUPT;
	}
	return 0;
}

static uint64_t u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);      /* NULL reads 0 */
}

static void text(sqlite3_stmt *st, int i, char *dst, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	memset(dst, 0, len);
	if (s)
		strncpy(dst, (const char *)s, len - 1);
}

static uint8_t app_kind(const unsigned char *s)
{
	if (!s)
		return NTP_APP_NONE;
	if (!strcmp((const char *)s, "libaio"))
		return NTP_APP_AIO;
	if (!strcmp((const char *)s, "io_uring"))
		return NTP_APP_IO_URING;
	if (!strcmp((const char *)s, "sync"))
		return NTP_APP_SYNC;
	return NTP_APP_NONE;
}

static void read_host(sqlite3_stmt *st, struct ntp_host_event *e)
{
	char ctrl[NTP_DISK_NAME_LEN];

	memset(e, 0, sizeof(*e));
	e->kind = NTP_EV_HOST_IO;
	e->h_start = u64(st, 0);
	e->h_queue = u64(st, 1);
	e->h_cmd_sent = u64(st, 2);
	e->h_r2t = u64(st, 3);
	e->h_data_sent = u64(st, 4);
	e->h_recv = u64(st, 5);
	e->h_done = u64(st, 6);
	e->opcode = (__u8)u64(st, 7);
	e->cid = (__u16)u64(st, 8);
	e->slba = u64(st, 9);
	e->nlb0 = (__u16)(u64(st, 10) - 1);
	e->bytes = (__u32)u64(st, 11);
	e->qid = (__u16)u64(st, 12);
	e->nsid = (__u32)u64(st, 13);
	e->cntlid = (__u16)u64(st, 14);
	text(st, 15, ctrl, sizeof(ctrl));
	if (!strncmp(ctrl, "nvme", 4))
		e->ctrl_instance = (__u32)strtoul(ctrl + 4, NULL, 10);
	text(st, 16, e->disk, sizeof(e->disk));
	text(st, 17, e->path, sizeof(e->path));
	e->status = (__u16)u64(st, 18);
	e->flags = (__u32)u64(st, 19);
	e->h_app_submit = u64(st, 20);
	e->h_app_done = u64(st, 21);
	e->h_app_reap = u64(st, 22);
	e->app_kind = app_kind(sqlite3_column_text(st, 23));
	e->pid = (__u32)u64(st, 24);
	e->tid = (__u32)u64(st, 25);
	text(st, 26, e->comm, sizeof(e->comm));
	e->cgroup_id = u64(st, 27);
}

static void read_target(sqlite3_stmt *st, struct ntp_target_event *e)
{
	memset(e, 0, sizeof(*e));
	e->kind = NTP_EV_TARGET_IO;
	e->t_recv = u64(st, 0);
	e->t_r2t = u64(st, 1);
	e->t_submit = u64(st, 2);
	e->t_cmpl = u64(st, 3);
	e->t_sent = u64(st, 4);
	e->opcode = (__u8)u64(st, 5);
	e->cid = (__u16)u64(st, 6);
	e->slba = u64(st, 7);
	e->nlb0 = (__u16)(u64(st, 8) - 1);
	e->bytes = (__u32)u64(st, 9);
	e->qid = (__u16)u64(st, 10);
	e->nsid = (__u32)u64(st, 11);
	e->cntlid = (__u16)u64(st, 12);
	text(st, 13, e->device, sizeof(e->device));
	e->status = (__u16)u64(st, 14);
	e->flags = (__u32)u64(st, 15);
}

/* the cursor's next row into the event: 0, or NTP_EXIT_CORRUPT after one line */
static int step(struct ntp_top_replay *r, struct cursor *c, bool host)
{
	int rc;

	c->have = false;
	if (!c->st)
		return 0;
	rc = sqlite3_step(c->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW) {
		ntp_error("%s: reading %s: %s", r->path, host ? "host_io" : "target_io",
			  sqlite3_errmsg(r->db));
		return NTP_EXIT_CORRUPT;
	}
	if (host) {
		read_host(c->st, &r->h);
		c->key = r->h.h_start;
	} else {
		read_target(c->st, &r->t);
		c->key = r->t.t_recv > r->lookahead_ns ? r->t.t_recv - r->lookahead_ns : 0;
	}
	c->have = true;
	return 0;
}

int ntp_top_replay__open(struct ntp_top_replay **rp, const char *path)
{
	struct ntp_top_replay *r = calloc(1, sizeof(*r));
	int err;

	*rp = NULL;
	if (!r) {
		ntp_error("%s: %s", path, strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	r->path = path;
	err = ntp_source__open_files(&r->src, &path, 1, false);
	if (!err && r->src->kind != NTP_KIND_HOST && r->src->kind != NTP_KIND_TARGET &&
	    r->src->kind != NTP_KIND_BOTH) {
		ntp_error("%s: a %s recording: top replays what one 'ntprof record' wrote (host, "
			  "target or -r both)", path, ntp_kind__name(r->src->kind));
		err = NTP_EXIT_USAGE;
	}
	if (!err) {
		r->db = r->src->db;
		r->schema = r->src->schemas[0][0] ? r->src->schemas[0] : "main";
		if (r->src->kind == NTP_KIND_BOTH)
			r->lookahead_ns = NTP_TOP_REPLAY_LOOKAHEAD_NS;
		err = ntp_read_filter__file_start(r->db, r->schema, r->src->kind == NTP_KIND_TARGET,
						  path, &r->origin);
	}
	err = err ?: prepare(r, &r->hc, "host_io", host_cols, "h_start_ns");
	err = err ?: prepare(r, &r->tc, "target_io", target_cols, "t_recv_ns");
	err = err ?: step(r, &r->hc, true);
	err = err ?: step(r, &r->tc, false);
	if (err)
		return ntp_top_replay__close(r, err);
	*rp = r;
	return 0;
}

int ntp_top_replay__close(struct ntp_top_replay *r, int rc)
{
	if (!r)
		return rc;
	sqlite3_finalize(r->hc.st);
	sqlite3_finalize(r->tc.st);
	if (r->src)
		rc = ntp_source__verdict(&r->src, 1, rc);
	ntp_source__close(r->src);
	free(r);
	return rc;
}

bool ntp_top_replay__has_host(const struct ntp_top_replay *r)
{
	return r->hc.have;
}

bool ntp_top_replay__has_target(const struct ntp_top_replay *r)
{
	return r->tc.have;
}

int ntp_top_replay__next(struct ntp_top_replay *r, const struct ntp_host_event **h,
			 const struct ntp_target_event **t, uint64_t *key)
{
	int err;

	*h = NULL;
	*t = NULL;
	if (!r->hc.have && !r->tc.have)
		return 0;
	if (r->hc.have && (!r->tc.have || r->hc.key <= r->tc.key)) {
		r->h_out = r->h;
		*h = &r->h_out;
		*key = r->hc.key;
		err = step(r, &r->hc, true);
		return err ? -err : 1;
	}
	r->t_out = r->t;
	*t = &r->t_out;
	*key = r->tc.key;
	err = step(r, &r->tc, false);
	return err ? -err : 1;
}

uint64_t ntp_top_replay__sample_one_in(const struct ntp_top_replay *r)
{
	int64_t n = ntp_source__meta_int(r->src, 0, NTP_META_SAMPLE_ONE_IN, 1);

	return n > 0 ? (uint64_t)n : 1;
}

int64_t ntp_top_replay__origin(const struct ntp_top_replay *r)
{
	return r->origin;
}
