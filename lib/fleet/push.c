// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof push (lib/fleet/push.h): each recording read once through the
 * model's source (lib/model/model_files.h, the one way in), through
 * ntprof's own stage views, and sent in batches: the commands in Native
 * blocks, each sent on a thread while the next is read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <sqlite3.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/jobs.h"
#include "lib/core/stages.h"
#include "lib/fleet/fleet_join.h"
#include "lib/fleet/fleet_run.h"
#include "lib/fleet/fleet_schema.h"
#include "lib/fleet/push.h"
#include "lib/model/model_files.h"
#include "lib/ntp/db_key.h"
#include "lib/ntp/db_own.h"
#include "lib/ntp/db_write.h"

#define NS_PER_DAY 86400000000000LL

/* ---- the run: its meta, id and names ------------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* a JSON string of s into m (the meta column) */
static void json_str(FILE *m, const char *s)
{
	fputc('"', m);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(m, "\\%c", c);
		else if (c < 0x20)
			fprintf(m, "\\u%04x", c);
		else
			fputc(c, m);
	}
	fputc('"', m);
}

static int sql_fail(sqlite3 *db, const char *path, const char *what)
{
	ntp_error("%s: %s: %s", path, what, sqlite3_errmsg(db));
	return NTP_EXIT_FAILURE;
}

/*
 * The meta of the recording (as a JSON object, every key), the counts and
 * sums of its rows, and the run id made of them.
 */
static int read_run(struct ntp_source *s, struct ntp_fleet_run *run, const char *path)
{
	const char *schema = s->files[0].schema;
	char sql[256], *json = NULL;
	size_t len = 0;
	sqlite3_stmt *st;
	FILE *m;
	uint64_t h = 0xcbf29ce484222325ULL;
	int rc, first = 1;

	m = open_memstream(&json, &len);
	if (!m)
		goto nomem;
	snprintf(sql, sizeof(sql), "SELECT key, CAST(value AS TEXT) FROM \"%s\".meta ORDER BY key",
		 schema);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fclose(m);
		free(json);
		return sql_fail(s->db, path, "reading its meta");
	}
	fputc('{', m);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		fputs(first ? "" : ",", m);
		first = 0;
		json_str(m, k);
		fputc(':', m);
		json_str(m, v);
		h = fnv(h, k ? k : "", k ? strlen(k) + 1 : 1);
		h = fnv(h, v ? v : "", v ? strlen(v) + 1 : 1);
	}
	fputc('}', m);
	sqlite3_finalize(st);
	if (fclose(m) || !json)
		goto nomem;
	run->meta = json;
	if (rc != SQLITE_DONE)
		return sql_fail(s->db, path, "reading its meta");
	for (int side = 0; side < 2; side++) {
		const char *table = side ? "target_io" : "host_io";
		const char *a = side ? "t_recv_ns" : "h_start_ns", *b = side ? "t_sent_ns" : "h_done_ns";
		double sums[2];
		int64_t n;

		if (!(s->files[0].sides & (side ? NTP_SIDE_TARGET : NTP_SIDE_HOST)))
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*), total(%s), total(%s) FROM \"%s\".%s", a,
			 b, schema, table);
		if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return sql_fail(s->db, path, "counting its commands");
		}
		n = sqlite3_column_int64(st, 0);
		sums[0] = sqlite3_column_double(st, 1);
		sums[1] = sqlite3_column_double(st, 2);
		sqlite3_finalize(st);
		*(side ? &run->target_rows : &run->host_rows) = n;
		h = fnv(h, table, strlen(table));
		h = fnv(h, &n, sizeof(n));
		h = fnv(h, sums, sizeof(sums));
	}
	run->run_id = h;
	/* the intervals' counters of each side: what the reports' headers say */
	snprintf(sql, sizeof(sql), "SELECT side, total(seen), total(sampled), total(lost_ringbuf), "
		 "total(lost_map) FROM \"%s\".intervals GROUP BY side", schema);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(s->db, path, "reading its intervals");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *side = (const char *)sqlite3_column_text(st, 0);
		int k = side && !strcmp(side, "host") ? 0 : side && !strcmp(side, "target") ? 1 : -1;

		for (int c = 0; c < 4 && k >= 0; c++)
			run->counts[k][c] = (uint64_t)sqlite3_column_double(st, 1 + c);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(s->db, path, "reading its intervals");
	return 0;
nomem:
	ntp_error("%s: %s", path, strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

static char *meta_text(struct ntp_source *s, enum ntp_meta_key k)
{
	char *v = ntp_source__meta_text(s, 0, k);

	return v ? v : strdup("");
}

/* the meta the runs table has columns for */
static int read_meta(struct ntp_source *s, struct ntp_fleet_run *run, const char *path)
{
	run->role = meta_text(s, NTP_META_ROLE);
	run->hostname = meta_text(s, NTP_META_HOSTNAME);
	run->boot_id = meta_text(s, NTP_META_BOOT_ID);
	run->transport = meta_text(s, NTP_META_TRANSPORT);
	run->kernel_release = meta_text(s, NTP_META_KERNEL_RELEASE);
	run->ntprof_version = meta_text(s, NTP_META_NTPROF_VERSION);
	if (!run->role || !run->hostname || !run->boot_id || !run->transport ||
	    !run->kernel_release || !run->ntprof_version) {
		ntp_error("%s: %s", path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	run->sample_one_in = ntp_source__meta_int(s, 0, NTP_META_SAMPLE_ONE_IN, 0);
	run->hash_version = ntp_source__meta_int(s, 0, NTP_META_HASH_VERSION, 0);
	run->start_ns = ntp_source__meta_int(s, 0, NTP_META_START_NS, 0);
	run->stop_ns = ntp_source__meta_int(s, 0, NTP_META_STOP_NS, 0);
	run->duration_ns = ntp_source__meta_int(s, 0, NTP_META_DURATION_NS,
						run->stop_ns > run->start_ns ?
						run->stop_ns - run->start_ns : 0);
	run->start_utc_ns = ntp_source__meta_int(s, 0, NTP_META_START_REALTIME_NS, 0);
	run->sides = s->files[0].sides;
	return 0;
}

/* ---- the recording's names (nvmf_ids): the subsystem of each row ------------------------- */

struct names {
	struct ntp_nvmf_id *v;
	size_t n;
};

static void free_names(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++) {
		struct ntp_nvmf_id *id = &nm->v[i];
		char *f[] = { id->side, id->object, id->name, id->subsysnqn, id->port, id->transport,
			      id->traddr, id->trsvcid, id->host_traddr, id->hostnqn, id->device };

		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			free(f[k]);
	}
	free(nm->v);
	memset(nm, 0, sizeof(*nm));
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return sqlite3_column_type(st, i) == SQLITE_NULL || !t ? NULL : strdup(t);
}

static long long col_int(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_INTEGER ? sqlite3_column_int64(st, i) : -1;
}

/* the file's nvmf_ids (none in a file made before the table) */
static int read_names(struct ntp_source *s, struct names *nm, const char *path)
{
	char sql[256];
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT side, object, name, subsysnqn, cntlid, nsid, port, "
		 "transport, traddr, trsvcid, host_traddr, hostnqn, device FROM \"%s\".nvmf_ids",
		 s->files[0].schema);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;	/* no such table: not recorded in this file */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_nvmf_id *id;

		if (nm->n == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct ntp_nvmf_id *v = realloc(nm->v, c * sizeof(*v));

			if (!v)
				break;
			nm->v = v;
			cap = c;
		}
		id = &nm->v[nm->n++];
		id->side = col_text(st, 0);
		id->object = col_text(st, 1);
		id->name = col_text(st, 2);
		id->subsysnqn = col_text(st, 3);
		id->cntlid = col_int(st, 4);
		id->nsid = col_int(st, 5);
		id->port = col_text(st, 6);
		id->transport = col_text(st, 7);
		id->traddr = col_text(st, 8);
		id->trsvcid = col_text(st, 9);
		id->host_traddr = col_text(st, 10);
		id->hostnqn = col_text(st, 11);
		id->device = col_text(st, 12);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(s->db, path, "reading its nvmf_ids");
	return 0;
}

/* the subsystem NQN of a host controller, or of a target device serving nsid; "" when unknown */
static const char *subsys_of(const struct names *nm, bool target, const char *what, int64_t nsid)
{
	for (size_t i = 0; i < nm->n; i++) {
		const struct ntp_nvmf_id *id = &nm->v[i];

		if (!id->side || !id->object || !id->subsysnqn)
			continue;
		if (!target && !strcmp(id->side, "host") && !strcmp(id->object, "controller") &&
		    id->name && !strcmp(id->name, what))
			return id->subsysnqn;
		if (target && !strcmp(id->side, "target") && !strcmp(id->object, "namespace") &&
		    id->nsid == nsid && id->device) {
			/* "/dev/nullb0" or "nullb0", on either side */
			const char *base = strrchr(id->device, '/'), *wbase = strrchr(what, '/');

			if (!strcmp(base ? base + 1 : id->device, wbase ? wbase + 1 : what))
				return id->subsysnqn;
		}
	}
	return "";
}

/* ---- sending ---------------------------------------------------------------------------- */

struct pusher {
	struct ntp_fleet *f;
	const struct ntp_push_opts *o;
	const char *path;
	struct ntp_fleet_run *run;
	struct ntp_ch_buf buf;    /* runs' and ids' rows, in RowBinary */
	/* commands, column by column: one block filled while the other is sent */
	struct ntp_ch_block blk[2];
	int cur;
	char colbuf[1024];        /* cmds' column names and types, that the blocks point to */
	const char *names[48], *types[48];
	int64_t in_flight;        /* the rows of the block being sent */
	int64_t rows, sent;       /* rows in buf; commands the engine took from this push */
	int64_t total;            /* the rows the push is to send */
	int batches;
	bool started;             /* something of this push id reached the engine */
};

static int send_rows(struct pusher *p, enum ntp_fleet_table t, const char *cols)
{
	char *sql = NULL;
	int err;

	if (!p->rows)
		return 0;
	if (p->buf.oom) {
		ntp_error("%s: %s", p->path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	if (asprintf(&sql, "INSERT INTO %s (%s) FORMAT RowBinary",
		     ntp_fleet__table(p->f, t, false), cols) < 0) {
		ntp_error("%s: %s", p->path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = ntp_ch__query(p->f->ch, sql, p->buf.p, p->buf.len, NULL, NTP_CH_SYNC);
	free(sql);
	p->started |= !err;
	p->buf.len = 0;
	p->rows = 0;
	return err;
}

static const char runs_cols[] =
	"run_id, push_id, complete, pushed, day, start_utc_ns, start_ns, stop_ns, duration_ns, "
	"hostname, boot_id, role, transport, sample_one_in, hash_version, kernel_release, "
	"ntprof_version, file, host_rows, target_rows, h_seen, h_sampled, h_lost_ringbuf, "
	"h_lost_map, t_seen, t_sampled, t_lost_ringbuf, t_lost_map, meta";

static int send_run_row(struct pusher *p, bool complete)
{
	const struct ntp_fleet_run *r = p->run;
	struct ntp_ch_buf *b = &p->buf;

	ntp_ch_buf__u64(b, r->run_id);
	ntp_ch_buf__u64(b, r->push_id);
	ntp_ch_buf__u8(b, complete);
	ntp_ch_buf__u32(b, (uint32_t)time(NULL));
	ntp_ch_buf__u16(b, (uint16_t)(r->start_utc_ns > 0 ? r->start_utc_ns / NS_PER_DAY : 0));
	ntp_ch_buf__i64(b, r->start_utc_ns);
	ntp_ch_buf__i64(b, r->start_ns);
	ntp_ch_buf__i64(b, r->stop_ns);
	ntp_ch_buf__i64(b, r->duration_ns);
	ntp_ch_buf__str(b, r->hostname);
	ntp_ch_buf__str(b, r->boot_id);
	ntp_ch_buf__str(b, r->role);
	ntp_ch_buf__str(b, r->transport);
	ntp_ch_buf__u64(b, (uint64_t)r->sample_one_in);
	ntp_ch_buf__u32(b, (uint32_t)r->hash_version);
	ntp_ch_buf__str(b, r->kernel_release);
	ntp_ch_buf__str(b, r->ntprof_version);
	ntp_ch_buf__str(b, p->path);
	ntp_ch_buf__u64(b, (uint64_t)r->host_rows);
	ntp_ch_buf__u64(b, (uint64_t)r->target_rows);
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < 4; k++)
			ntp_ch_buf__u64(b, r->counts[side][k]);
	ntp_ch_buf__str(b, r->meta);
	p->rows = 1;
	return send_rows(p, NTP_FLEET_RUNS, runs_cols);
}

static int send_names(struct pusher *p, const struct names *nm)
{
	static const char cols[] = "run_id, push_id, side, object, name, subsysnqn, cntlid, nsid, "
				   "port, transport, traddr, trsvcid, host_traddr, hostnqn, device";
	struct ntp_ch_buf *b = &p->buf;

	for (size_t i = 0; i < nm->n; i++) {
		const struct ntp_nvmf_id *id = &nm->v[i];

		ntp_ch_buf__u64(b, p->run->run_id);
		ntp_ch_buf__u64(b, p->run->push_id);
		ntp_ch_buf__str(b, id->side);
		ntp_ch_buf__str(b, id->object);
		ntp_ch_buf__str(b, id->name);
		ntp_ch_buf__nstr(b, id->subsysnqn);
		ntp_ch_buf__ni64(b, id->cntlid, id->cntlid < 0);
		ntp_ch_buf__ni64(b, id->nsid, id->nsid < 0);
		ntp_ch_buf__nstr(b, id->port);
		ntp_ch_buf__nstr(b, id->transport);
		ntp_ch_buf__nstr(b, id->traddr);
		ntp_ch_buf__nstr(b, id->trsvcid);
		ntp_ch_buf__nstr(b, id->host_traddr);
		ntp_ch_buf__nstr(b, id->hostnqn);
		ntp_ch_buf__nstr(b, id->device);
		p->rows++;
	}
	return send_rows(p, NTP_FLEET_IDS, cols);
}

/* the commands' blocks, with cmds' columns (lib/fleet/fleet_schema.c) */
static int blocks_init(struct pusher *p)
{
	int n = ntp_fleet__columns(NTP_FLEET_CMDS, p->colbuf, sizeof(p->colbuf), p->names,
				   p->types, 48);

	if (n < 0 || ntp_ch_block__init(&p->blk[0], p->names, p->types, n) ||
	    ntp_ch_block__init(&p->blk[1], p->names, p->types, n)) {
		ntp_error("%s: %s", p->path, strerror(n < 0 ? -n : ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* the block in flight taken (or refused) by the engine */
static int settle(struct pusher *p)
{
	int err = ntp_ch__wait(p->f->ch);

	if (!err && p->in_flight) {
		p->sent += p->in_flight;
		p->batches++;
		ntp_debug("%s: batch %d: %" PRId64 " of %" PRId64 " commands sent", p->path,
			  p->batches, p->sent, p->total);
	}
	p->in_flight = 0;
	return err;
}

/* the block being filled sent, and the other one to fill: wait=true waits for it too */
static int send_block(struct pusher *p, bool wait)
{
	struct ntp_ch_block *b = &p->blk[p->cur];
	const char *table = ntp_fleet__table(p->f, NTP_FLEET_CMDS, false);
	int err = settle(p);

	if (err || !b->rows)
		return err;
	if (ntp_ch_block__oom(b)) {
		ntp_error("%s: %s", p->path, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	p->started = true;
	p->in_flight = (int64_t)b->rows;
	if (ntp_ch__insert_async(p->f->ch, table, b, NTP_CH_SYNC)) {
		/* no thread: sent from this one */
		err = ntp_ch__insert(p->f->ch, table, b, NTP_CH_SYNC);
		if (err)
			p->in_flight = 0;
		err = err ?: settle(p);
	}
	p->cur ^= 1;
	ntp_ch_block__reset(&p->blk[p->cur]);
	return err ?: wait ? settle(p) : 0;
}

static const char *text_at(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return t ? t : "";
}

/*
 * One side's commands, through ntprof's stage view of the file: the key,
 * the names, the points (the view's, with its fallbacks for missing hooks)
 * and whether they make a command at all (bad: 1 a point is no number, 2
 * its stages overflow).
 */
static int send_side(struct pusher *p, struct ntp_source *s, const struct names *nm, bool target)
{
	char view[96], sql[640];
	const char *schema = s->files[0].schema;
	int64_t batch = p->o->batch_rows > 0 ? (int64_t)p->o->batch_rows : NTP_PUSH_BATCH_ROWS;
	sqlite3_stmt *st;
	int rc, err = 0;
	const char *last_name = NULL;
	const char *last_nqn = "";
	char last_buf[256] = "";
	int64_t last_nsid = -1;

	ntp_db__view_name(view, sizeof(view), schema,
			  target ? NTP_DB_TARGET_STAGES : NTP_DB_HOST_STAGES);
	if (target)
		snprintf(sql, sizeof(sql), "SELECT id, io_type, bytes, device, '', '', qid, cid, slba, "
			 "nlb, status, nsid, cntlid, opcode, join_key, %s FROM \"%s\"",
			 NTP_DB_TARGET_POINT_COLS, view);
	else
		snprintf(sql, sizeof(sql), "SELECT id, io_type, bytes, namespace, path, controller, "
			 "qid, cid, slba, nlb, status, nsid, cntlid, opcode, join_key, %s FROM \"%s\"",
			 NTP_DB_HOST_POINT_COLS, view);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(s->db, p->path, "reading its commands");
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_ch_block *blk = &p->blk[p->cur];
		struct ntp_ch_buf *c = blk->col;
		int64_t v[NTP_DB_HOST_NPOINTS] = { 0 }, t0, utc;
		struct ntp_key k = {
			.cid = sqlite3_column_int64(st, 7), .slba = sqlite3_column_int64(st, 8),
			.nlb = sqlite3_column_int64(st, 9), .qid = sqlite3_column_int64(st, 6),
			.nsid = sqlite3_column_int64(st, 11), .cntlid = sqlite3_column_int64(st, 12),
			.opcode = sqlite3_column_int64(st, 13),
		};
		enum ntp_db_points kind;
		const char *who = target ? text_at(st, 3) : text_at(st, 5);
		uint8_t bad = 0;
		int i = 0;

		kind = ntp_db__points(st, 15, target ? NTP_DB_TARGET_NPOINTS : NTP_DB_HOST_NPOINTS, v);
		if (kind == NTP_DB_POINTS_OTHER) {
			bad = 1;
		} else if (kind == NTP_DB_POINTS_REAL) {
			bad = 2;
		} else if (target) {
			struct ntp_target_points tp = { v[0], v[1], v[2], v[3], v[4] };
			struct ntp_target_stages ts;

			bad = ntp_stages__target_points(&tp, &ts) ? 0 : 2;
		} else {
			struct ntp_host_points hp = { v[0], v[1], v[2], v[3], v[4], v[5] };
			struct ntp_host_stages hs;

			bad = ntp_stages__host_points(&hp, &hs) ? 0 : 2;
		}
		/* the subsystem: rows come in runs of one controller or device */
		if (!last_name || strcmp(who, last_buf) || (target && k.nsid != last_nsid)) {
			last_nqn = subsys_of(nm, target, who, k.nsid);
			snprintf(last_buf, sizeof(last_buf), "%s", who);
			last_name = last_buf;
			last_nsid = k.nsid;
		}
		t0 = v[0];
		utc = p->run->start_utc_ns > 0 ? p->run->start_utc_ns + (t0 - p->run->start_ns) : 0;
		/* cmds' columns in the table's order (lib/fleet/fleet_schema.c) */
		ntp_ch_buf__u16(&c[i++], (uint16_t)(utc > 0 ? utc / NS_PER_DAY : 0));
		ntp_ch_buf__u64(&c[i++], p->run->run_id);
		ntp_ch_buf__u64(&c[i++], p->run->push_id);
		ntp_ch_buf__u8(&c[i++], target ? 2 : 1);
		ntp_ch_buf__i64(&c[i++], sqlite3_column_int64(st, 0));
		ntp_ch_buf__str(&c[i++], last_nqn);
		ntp_ch_buf__u16(&c[i++], (uint16_t)k.cntlid);
		ntp_ch_buf__u16(&c[i++], (uint16_t)k.qid);
		ntp_ch_buf__u16(&c[i++], (uint16_t)k.cid);
		ntp_ch_buf__u32(&c[i++], (uint32_t)k.nsid);
		ntp_ch_buf__u8(&c[i++], (uint8_t)k.opcode);
		ntp_ch_buf__u64(&c[i++], (uint64_t)k.slba);
		ntp_ch_buf__u32(&c[i++], (uint32_t)k.nlb);
		ntp_ch_buf__u64(&c[i++], (uint64_t)sqlite3_column_int64(st, 2));
		ntp_ch_buf__u32(&c[i++], (uint32_t)sqlite3_column_int64(st, 10));
		ntp_ch_buf__i64(&c[i++], sqlite3_column_type(st, 14) == SQLITE_INTEGER ?
				sqlite3_column_int64(st, 14) : (int64_t)ntp_key__hash(&k));
		ntp_ch_buf__str(&c[i++], text_at(st, 1));
		ntp_ch_buf__str(&c[i++], text_at(st, 3));
		ntp_ch_buf__str(&c[i++], text_at(st, 4));
		ntp_ch_buf__str(&c[i++], text_at(st, 5));
		ntp_ch_buf__i64(&c[i++], utc);
		ntp_ch_buf__u8(&c[i++], bad);
		for (int j = 0; j < NTP_DB_HOST_NPOINTS; j++)
			ntp_ch_buf__i64(&c[i++], target ? 0 : v[j]);
		for (int j = 0; j < NTP_DB_TARGET_NPOINTS; j++)
			ntp_ch_buf__i64(&c[i++], target ? v[j] : 0);
		if (i != blk->ncols) {
			ntp_error("%s: %d columns written, cmds has %d", p->path, i, blk->ncols);
			err = NTP_EXIT_FAILURE;
			break;
		}
		ntp_ch_block__row(blk);
		if ((int64_t)blk->rows >= batch)
			err = send_block(p, false);
	}
	if (!err && rc != SQLITE_DONE) {
		settle(p);
		err = sql_fail(s->db, p->path, "reading its commands");
	}
	sqlite3_finalize(st);
	return err ?: send_block(p, true);
}

/* the engine's count of this push's commands */
static int count_pushed(struct pusher *p, int64_t *n)
{
	struct ntp_ch_reply r;
	int err;

	err = ntp_ch__queryf(p->f->ch, &r, 0, "SELECT count() FROM %s WHERE run_id = %" PRIu64
			     " AND push_id = %" PRIu64, ntp_fleet__table(p->f, NTP_FLEET_CMDS, false),
			     p->run->run_id, p->run->push_id);
	*n = err ? -1 : strtoll(r.body, NULL, 10);
	ntp_ch_reply__free(&r);
	return err;
}

/* is run id committed already? its push id then, else 0 */
static int committed(struct ntp_fleet *f, uint64_t run_id, uint64_t *push_id)
{
	struct ntp_ch_reply r;
	int err;

	*push_id = 0;
	err = ntp_ch__queryf(f->ch, &r, 0, "SELECT min(push_id) FROM %s WHERE run_id = %" PRIu64
			     " AND complete = 1 HAVING count() > 0",
			     ntp_fleet__table(f, NTP_FLEET_RUNS, false), run_id);
	if (!err && r.body[0])
		*push_id = strtoull(r.body, NULL, 10);
	ntp_ch_reply__free(&r);
	return err;
}

/* one file: 0 (pushed, or there already) or an NTP_EXIT_* code after one line */
static int push_one(struct ntp_fleet *f, const struct ntp_push_opts *o, const char *path,
		    struct ntp_fleet_run *run)
{
	struct ntp_source *s = NULL;
	struct names nm = { 0 };
	struct pusher p = { .f = f, .o = o, .path = path, .run = run };
	char held[1024] = "";
	uint64_t have;
	int64_t n;
	int err, bad;

	/*
	 * the file's structure is checked on a thread while its rows are read
	 * and sent, the reader's errors held meanwhile (lib/model/model_source.h):
	 * the push is committed only once the check found it good; a damaged
	 * file's rows stay uncommitted, seen by no reader (the check waited
	 * for before the sending: bench/README.md)
	 */
	err = ntp_source__open_files(&s, &path, 1, false);
	/* with one thread the check ran as the file was opened: its verdict now, before any row */
	if (!err && ntp_jobs__threads() <= 1)
		err = ntp_source__verdict(&s, 1, 0);
	if (err) {
		ntp_source__close(s);
		return err;
	}
	if (s->kind == NTP_KIND_JOINED) {
		err = ntp_source__verdict(&s, 1, 0);
		if (!err)
			ntp_error("%s: a joined recording (ntprof join): push the host and target "
				  "recordings it was made of", path);
		ntp_source__close(s);
		return err ?: NTP_EXIT_MISMATCH;
	}
	err = read_run(s, run, path);
	err = err ?: read_meta(s, run, path);
	err = err ?: committed(f, run->run_id, &have);
	if (!err && have) {
		err = ntp_source__verdict(&s, 1, 0);
		run->push_id = have;
		if (!err)
			ntp_debug("%s: in %s already (run %016" PRIx64 "): not sent again", path,
				  ntp_ch__url(f->ch), run->run_id);
		ntp_source__close(s);
		return err;
	}
	if (!err && getrandom(&run->push_id, sizeof(run->push_id), 0) != sizeof(run->push_id)) {
		ntp_error("%s: no random push id: %s", path, strerror(errno));
		err = NTP_EXIT_FAILURE;
	}
	run->push_id |= 1;      /* never 0: 0 is "none" */
	p.total = (run->sides & NTP_SIDE_HOST ? run->host_rows : 0) +
		  (run->sides & NTP_SIDE_TARGET ? run->target_rows : 0);
	err = err ?: read_names(s, &nm, path);
	/* the engine's errors held, to be told in the one line that says what became of the push */
	if (!err)
		ntp_err__hold(held, sizeof(held));
	err = err ?: blocks_init(&p);
	err = err ?: send_run_row(&p, false);
	err = err ?: send_names(&p, &nm);
	if (!err && (run->sides & NTP_SIDE_HOST))
		err = send_side(&p, s, &nm, false);
	if (!err && (run->sides & NTP_SIDE_TARGET))
		err = send_side(&p, s, &nm, true);
	err = err ?: count_pushed(&p, &n);
	if (!err && n != p.total) {
		ntp_error("the engine holds %" PRId64 " of the push's %" PRId64 " commands", n,
			  p.total);
		err = NTP_EXIT_FLEET_PARTIAL;
	}
	ntp_err__hold(NULL, 0);
	/* the check's verdict: damage found is the one thing told, and nothing is committed */
	bad = ntp_source__verdict(&s, 1, 0);
	if (bad) {
		settle(&p);
		err = bad;
		goto out;
	}
	if (!err)
		ntp_err__hold(held, sizeof(held));
	err = err ?: send_run_row(&p, true);
	ntp_err__hold(NULL, 0);
	if (err && p.started) {
		ntp_error("%s: the push stopped part way (%" PRId64 " of %" PRId64 " commands sent, "
			  "not committed: no reader sees them): %s: run it again", path, p.sent,
			  p.total, held[0] ? held : "the engine's count differs");
		err = NTP_EXIT_FLEET_PARTIAL;
	} else if (err && held[0]) {
		ntp_error("%s", held);
	}
	if (!err)
		ntp_debug("%s: %" PRId64 " commands in %d batches to %s (run %016" PRIx64 ")", path,
			 p.sent, p.batches, ntp_ch__url(f->ch), run->run_id);
out:
	settle(&p);
	ntp_ch_buf__free(&p.buf);
	ntp_ch_block__free(&p.blk[0]);
	ntp_ch_block__free(&p.blk[1]);
	free_names(&nm);
	ntp_source__close(s);
	return err;
}

int ntp_push__run(const char *const *paths, int n, const struct ntp_push_opts *o)
{
	struct ntp_fleet_run *runs;
	struct ntp_fleet *f = NULL;
	int err;

	/*
	 * no mutex per connection: each of push's connections is one thread's
	 * (the reader's, the structure check's); a fifth of the reading's CPU
	 * went to locking (bench/README.md).  Refused, harmlessly, once SQLite
	 * has started.
	 */
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	runs = calloc(n ? n : 1, sizeof(*runs));
	if (!runs) {
		ntp_error("%s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = ntp_fleet__open(&f, &o->ch, o->cluster, true);
	for (int i = 0; i < n && !err; i++)
		err = push_one(f, o, paths[i], &runs[i]);
	if (!err && !o->no_join)
		err = ntp_fleet_join__pushed(f, runs, n, (int64_t)o->join_rows);
	for (int i = 0; i < n; i++)
		ntp_fleet_run__free(&runs[i]);
	free(runs);
	ntp_fleet__close(f);
	return err;
}
