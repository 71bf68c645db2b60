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
#include <stddef.h>
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
#include "lib/ntp/db_read.h"
#include "lib/top/top_replay.h"

/*
 * One reader for both tables: each column's place in its event, and how
 * its value goes there.  The events are those the collectors hand over
 * (bpf/ntp_events.h), as the recorder wrote them (lib/ntp/db_write.c).
 */
enum how {
	INT,            /* an integer of the field's size; NULL reads 0 */
	NLB0,           /* nlb stored as the count, held as the count less one */
	TEXT,           /* a NUL-ended name in the field, cut to fit */
	CTRL,           /* "nvme3": the controller's instance, 3 */
	APP_KIND,       /* "libaio", "io_uring", "sync": enum ntp_app_kind */
	FLAGGED,        /* an integer whose presence is a flag bit (flag); NULL: neither */
};

struct column {
	const char *name;
	enum how how;
	size_t off, size;
	uint32_t flag;          /* FLAGGED: the bit of ntp_host_event.flags */
};

#define COL(ev, name, how, field) \
	{ name, how, offsetof(struct ev, field), sizeof(((struct ev *)0)->field), 0 }
#define H(name, how, field) COL(ntp_host_event, name, how, field)
#define T(name, how, field) COL(ntp_target_event, name, how, field)

static const struct column host_cols[] = {
	H("h_start_ns", INT, h_start), H("h_queue_ns", INT, h_queue),
	H("h_cmd_sent_ns", INT, h_cmd_sent), H("h_r2t_ns", INT, h_r2t),
	H("h_data_sent_ns", INT, h_data_sent), H("h_recv_ns", INT, h_recv),
	H("h_done_ns", INT, h_done), H("opcode", INT, opcode), H("cid", INT, cid),
	H("slba", INT, slba), H("nlb", NLB0, nlb0), H("bytes", INT, bytes), H("qid", INT, qid),
	H("nsid", INT, nsid), H("cntlid", INT, cntlid), H("controller", CTRL, ctrl_instance),
	H("namespace", TEXT, disk), H("path", TEXT, path), H("status", INT, status),
	H("flags", INT, flags), H("h_app_submit_ns", INT, h_app_submit),
	H("h_app_done_ns", INT, h_app_done), H("h_app_reap_ns", INT, h_app_reap),
	H("app_kind", APP_KIND, app_kind), H("pid", INT, pid), H("tid", INT, tid),
	H("comm", TEXT, comm), H("cgroup_id", INT, cgroup_id),
	/* after flags, whose bits they set */
	{ "cpu", FLAGGED, offsetof(struct ntp_host_event, cpu), sizeof(__u16), NTP_HF_CPU },
	{ "io_cpu", FLAGGED, offsetof(struct ntp_host_event, io_cpu), sizeof(__u16), NTP_HF_IO_CPU },
	{ "queue_in_flight", FLAGGED, offsetof(struct ntp_host_event, queue_busy), sizeof(__u16),
	  NTP_HF_QUEUE_BUSY },
	{ NULL, INT, 0, 0, 0 },
};

static const struct column target_cols[] = {
	T("t_recv_ns", INT, t_recv), T("t_r2t_ns", INT, t_r2t), T("t_submit_ns", INT, t_submit),
	T("t_cmpl_ns", INT, t_cmpl), T("t_sent_ns", INT, t_sent), T("opcode", INT, opcode),
	T("cid", INT, cid), T("slba", INT, slba), T("nlb", NLB0, nlb0), T("bytes", INT, bytes),
	T("qid", INT, qid), T("nsid", INT, nsid), T("cntlid", INT, cntlid),
	T("device", TEXT, device), T("status", INT, status), T("flags", INT, flags),
	{ NULL },
};

_Static_assert(offsetof(struct ntp_host_event, kind) == 0 &&
	       offsetof(struct ntp_target_event, kind) == 0, "every event begins with its kind");

/* one side of the recording: its table, read in the order of its start, one row ahead */
struct cursor {
	const char *table;
	const struct column *cols;      /* the first is the start, the order */
	uint32_t kind;                  /* the event's: NTP_EV_HOST_IO, NTP_EV_TARGET_IO */
	uint64_t lookahead_ns;          /* the key is the start less this */
	sqlite3_stmt *st;
	bool have;                      /* a row is read into ev */
	uint64_t key;                   /* its place in the merge */
	union {
		struct ntp_host_event h;
		struct ntp_target_event t;
	} ev, out;                      /* the row read ahead, the one handed out */
};

struct ntp_top_replay {
	struct ntp_source *src;
	sqlite3 *db;                    /* the source's */
	const char *schema;             /* the recording's on db */
	const char *path;
	int64_t origin;                 /* where report's --time counts from */
	struct cursor hc, tc;
};

/* SELECT the columns (NULL for those the table lacks) FROM table ORDER BY its start */
static int prepare(struct ntp_top_replay *r, struct cursor *c)
{
	char sql[2048];
	size_t at = 0;

	if (!ntp_db__has_column(r->db, r->schema, c->table, c->cols[0].name))
		return 0;       /* no such table: that side is not in the recording */
	at += (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (int i = 0; c->cols[i].name; i++)
		at += (size_t)snprintf(sql + at, sizeof(sql) - at, "%s%s", i ? ", " : "",
				       ntp_db__has_column(r->db, r->schema, c->table, c->cols[i].name) ?
				       c->cols[i].name : "NULL");
	snprintf(sql + at, sizeof(sql) - at, " FROM \"%s\".%s ORDER BY %s, id", r->schema,
		 c->table, c->cols[0].name);
	if (sqlite3_prepare_v2(r->db, sql, -1, &c->st, NULL) != SQLITE_OK) {
		ntp_error("%s: reading %s: %s (%s)", r->path, c->table, sqlite3_errmsg(r->db), sql);
		return NTP_EXIT_CORRUPT;
	}
	return 0;
}

static void put_int(void *dst, size_t size, uint64_t v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
	default: memcpy(dst, &v, 8); break;
	}
}

static uint8_t app_kind(const char *s)
{
	if (!strcmp(s, "libaio"))
		return NTP_APP_AIO;
	if (!strcmp(s, "io_uring"))
		return NTP_APP_IO_URING;
	if (!strcmp(s, "sync"))
		return NTP_APP_SYNC;
	return NTP_APP_NONE;
}

/* the current row of c->st into ev, column by column */
static void read_row(struct cursor *c, unsigned char *ev, size_t size)
{
	memset(ev, 0, size);
	put_int(ev, sizeof(uint32_t), c->kind);         /* every event begins with its kind */
	for (int i = 0; c->cols[i].name; i++) {
		const struct column *col = &c->cols[i];
		uint64_t v = (uint64_t)sqlite3_column_int64(c->st, i);
		const char *s = (const char *)sqlite3_column_text(c->st, i);

		switch (col->how) {
		case INT:
			put_int(ev + col->off, col->size, v);
			break;
		case NLB0:
			put_int(ev + col->off, col->size, v - 1);
			break;
		case TEXT:
			if (s)
				memcpy(ev + col->off, s, strnlen(s, col->size - 1));
			break;
		case CTRL:
			if (s && !strncmp(s, "nvme", 4))
				put_int(ev + col->off, col->size, strtoul(s + 4, NULL, 10));
			break;
		case APP_KIND:
			put_int(ev + col->off, col->size, s ? app_kind(s) : NTP_APP_NONE);
			break;
		case FLAGGED:
			/* the flags column's bit, as the recorder's flags had it, follows the value */
			((struct ntp_host_event *)ev)->flags &= ~col->flag;
			if (sqlite3_column_type(c->st, i) != SQLITE_NULL) {
				put_int(ev + col->off, col->size, v);
				((struct ntp_host_event *)ev)->flags |= col->flag;
			}
			break;
		}
	}
}

/* the cursor's next row into its event: 0, or NTP_EXIT_CORRUPT after one line */
static int step(struct ntp_top_replay *r, struct cursor *c)
{
	uint64_t start;
	int rc;

	c->have = false;
	if (!c->st)
		return 0;
	rc = sqlite3_step(c->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW) {
		ntp_error("%s: reading %s: %s", r->path, c->table, sqlite3_errmsg(r->db));
		return NTP_EXIT_CORRUPT;
	}
	read_row(c, (unsigned char *)&c->ev, c == &r->hc ? sizeof(c->ev.h) : sizeof(c->ev.t));
	start = c == &r->hc ? c->ev.h.h_start : c->ev.t.t_recv;
	c->key = start > c->lookahead_ns ? start - c->lookahead_ns : 0;
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
	r->hc = (struct cursor){ .table = "host_io", .cols = host_cols, .kind = NTP_EV_HOST_IO };
	r->tc = (struct cursor){ .table = "target_io", .cols = target_cols, .kind = NTP_EV_TARGET_IO };
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
			r->tc.lookahead_ns = NTP_TOP_REPLAY_LOOKAHEAD_NS;
		err = ntp_read_filter__file_start(r->db, r->schema, r->src->kind == NTP_KIND_TARGET,
						  path, &r->origin);
	}
	err = err ?: prepare(r, &r->hc);
	err = err ?: prepare(r, &r->tc);
	err = err ?: step(r, &r->hc);
	err = err ?: step(r, &r->tc);
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
	struct cursor *c;
	int err;

	*h = NULL;
	*t = NULL;
	if (!r->hc.have && !r->tc.have)
		return 0;
	c = r->hc.have && (!r->tc.have || r->hc.key <= r->tc.key) ? &r->hc : &r->tc;
	c->out = c->ev;
	if (c == &r->hc)
		*h = &c->out.h;
	else
		*t = &c->out.t;
	*key = c->key;
	err = step(r, c);
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
