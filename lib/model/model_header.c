// SPDX-License-Identifier: GPL-2.0
/*
 * report: read a recording's header (meta, hooks, intervals) and its
 * counts into the model of model.h, the same for every kind of report.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fmt/safe_text.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_read.h"
#include "lib/model/model.h"
#include "lib/model/model_header.h"
#include "lib/model/model_sql.h"

/* a hooks field: one field of one line, whatever the file holds (lib/fmt/safe_text.h) */
static char *xstrdup_col(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	char *v = strdup(s ? (const char *)s : "");

	return v ? ntp_safe__clean_line(v) : NULL;
}


/*
 * The wall-clock start: record stores start_realtime_ns (CLOCK_REALTIME),
 * shown as ISO 8601 UTC; a start_time text, if a file has one, as it is.
 */
static char *start_time_str(sqlite3 *db, const char *schema)
{
	int64_t ns = ntp_meta__int_in(db, schema, NTP_META_START_REALTIME_NS, -1);
	char *s = ntp_meta__text_in(db, schema, NTP_META_START_TIME);
	char buf[64];
	struct tm tm;
	time_t t;

	if (s || ns < 0)
		return s;
	t = (time_t)(ns / 1000000000LL);
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return strdup(buf);
}

static int load_hooks(struct ntp_report_header *h, sqlite3 *db, const char *schema)
{
	char sql[128];
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT side, point, hook, flavour, reason FROM \"%s\".hooks"
		 " ORDER BY side, rowid", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return ntp_report__db_fail(db, h->path, "cannot read the hooks");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ntp_report_hook *k;

		if (h->nhooks == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			void *p = realloc(h->hooks, ncap * sizeof(*h->hooks));

			if (!p) {
				rc = -ENOMEM;
				break;
			}
			h->hooks = p;
			cap = ncap;
		}
		k = &h->hooks[h->nhooks++];
		k->side = xstrdup_col(st, 0);
		k->point = xstrdup_col(st, 1);
		k->hook = xstrdup_col(st, 2);
		k->flavour = xstrdup_col(st, 3);
		k->reason = xstrdup_col(st, 4);
		if (!k->side || !k->point || !k->hook || !k->flavour || !k->reason) {
			rc = -ENOMEM;
			break;
		}
	}
	return ntp_report__rows_end(db, h->path, st, rc, "cannot read the hooks");
}

/*
 * The commands one side saw, sampled and lost, summed over its intervals,
 * and the time of its last interval (-1: none).
 */
static int side_counts(sqlite3 *db, const char *schema, const char *path, const char *side,
		       uint64_t *seen,
		       uint64_t *sampled, uint64_t *lost_ringbuf, uint64_t *lost_map,
		       int64_t *last_t_ns)
{
	sqlite3_stmt *st;
	char sql[192];
	int rc;

	snprintf(sql, sizeof(sql), "SELECT total(seen), total(sampled), total(lost_ringbuf),"
		 " total(lost_map), max(t_ns) FROM \"%s\".intervals WHERE side = ?1", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return ntp_report__db_fail(db, path, "cannot read the intervals");
	sqlite3_bind_text(st, 1, side, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return ntp_report__rows_end(db, path, st, rc, "cannot read the intervals");
	/* total() is a float sum that cannot overflow; counts stay far below 2^53 */
	*seen = (uint64_t)sqlite3_column_double(st, 0);
	*sampled = (uint64_t)sqlite3_column_double(st, 1);
	*lost_ringbuf = (uint64_t)sqlite3_column_double(st, 2);
	*lost_map = (uint64_t)sqlite3_column_double(st, 3);
	*last_t_ns = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
	sqlite3_finalize(st);
	return 0;
}

/* the rows of a table, a count as every reader of it gets the count */
static int count_rows(sqlite3 *db, const char *path, const char *sql, const char *what,
		      uint64_t *n)
{
	sqlite3_stmt *st;
	int rc;

	rc = ntp_report__one_row(db, path, sql, what, &st);
	if (rc)
		return rc;
	*n = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int user_version(sqlite3 *db, const char *schema, const char *path, int64_t *v)
{
	sqlite3_stmt *st;
	char sql[64];
	int rc;

	snprintf(sql, sizeof(sql), "PRAGMA \"%s\".user_version", schema);
	rc = ntp_report__one_row(db, path, sql, "cannot read the schema version", &st);
	if (rc)
		return rc;
	*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int load_header(struct ntp_report_header *h, sqlite3 *db, const char *schema,
		       int64_t *last_t_ns)
{
	int64_t start_ns, stop_ns;
	int rc;

	rc = user_version(db, schema, h->path, &h->schema_version);
	if (rc)
		return rc;
	h->role = ntp_meta__text_in(db, schema, NTP_META_ROLE);
	h->transport = ntp_meta__text_in(db, schema, NTP_META_TRANSPORT);
	h->kernel_release = ntp_meta__text_in(db, schema, NTP_META_KERNEL_RELEASE);
	h->hostname = ntp_meta__text_in(db, schema, NTP_META_HOSTNAME);
	h->recorded_by = ntp_meta__text_in(db, schema, NTP_META_NTPROF_VERSION);
	h->start_time = start_time_str(db, schema);
	h->sample_one_in = ntp_meta__int_in(db, schema, NTP_META_SAMPLE_ONE_IN, 0);
	/* written by record only for the filters given: a filtered file is partial */
	h->filter_session = ntp_meta__text_in(db, schema, NTP_META_FILTER_SESSION);
	h->filter_io_type = ntp_meta__text_in(db, schema, NTP_META_FILTER_IO_TYPE);
	h->filter_sizes = ntp_meta__text_in(db, schema, NTP_META_FILTER_SIZES);
	h->hash_version = ntp_meta__int_in(db, schema, NTP_META_HASH_VERSION, 0);
	h->bpf_runs = ntp_meta__int_in(db, schema, NTP_META_BPF_RUNS, -1);
	h->bpf_run_ns = ntp_meta__int_in(db, schema, NTP_META_BPF_RUN_NS, -1);
	h->bpf_commands = ntp_meta__int_in(db, schema, NTP_META_BPF_COMMANDS, -1);
	h->bpf_window_ns = ntp_meta__int_in(db, schema, NTP_META_BPF_WINDOW_NS, -1);
	h->kprobe_missed = ntp_meta__int_in(db, schema, NTP_META_HOST_KPROBE_MISSED, -1);
	h->t_kprobe_missed = ntp_meta__int_in(db, schema, NTP_META_TARGET_KPROBE_MISSED, -1);

	/* the recording's own start and stop (CLOCK_MONOTONIC) give the duration */
	start_ns = ntp_meta__int_in(db, schema, NTP_META_START_NS, -1);
	stop_ns = ntp_meta__int_in(db, schema, NTP_META_STOP_NS, -1);
	if (start_ns >= 0 && stop_ns > start_ns) {
		h->duration_ns = stop_ns - start_ns;
		h->duration_source = "start_ns to stop_ns";
	}

	rc = load_hooks(h, db, schema);
	if (rc)
		return rc;
	rc = side_counts(db, schema, h->path, "host", &h->seen, &h->sampled, &h->lost_ringbuf,
			 &h->lost_map, last_t_ns);
	if (rc)
		return rc;
	/* a recording killed before it wrote stop_ns: up to its last interval */
	if (!h->duration_ns && start_ns >= 0 && *last_t_ns > start_ns) {
		h->duration_ns = *last_t_ns - start_ns;
		h->duration_source = "start_ns to the last interval";
	}
	return 0;
}

bool ntp_report__cost(const struct ntp_report_header *h, struct ntp_report_cost *c)
{
	if (h->bpf_run_ns < 0 || h->bpf_commands <= 0 || h->bpf_window_ns <= 0)
		return false;
	c->ns_per_command = (double)h->bpf_run_ns / (double)h->bpf_commands;
	if (h->seen && h->duration_ns > 0)
		c->commands_per_s = (double)h->seen / ((double)h->duration_ns / 1e9);
	else
		c->commands_per_s = (double)h->bpf_commands / ((double)h->bpf_window_ns / 1e9);
	c->cpu_percent = c->ns_per_command * c->commands_per_s / 1e9 * 100.0;
	return true;
}

/* no recorded start or stop: the span of the sampled commands (one more scan) */
static int command_span(struct ntp_report_header *h, sqlite3 *db, const char *schema)
{
	sqlite3_stmt *st;
	char sql[128];
	int rc;

	snprintf(sql, sizeof(sql), "SELECT min(h_start_ns), max(h_done_ns) FROM \"%s\".host_io",
		 schema);
	rc = ntp_report__one_row(db, h->path, sql, "cannot read the commands", &st);
	if (rc)
		return rc;
	if (sqlite3_column_int64(st, 1) > sqlite3_column_int64(st, 0)) {
		h->duration_ns = sqlite3_column_int64(st, 1) - sqlite3_column_int64(st, 0);
		h->duration_source = "first to last sampled command";
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * One file of a report: its header, each side's counts and rows.  No
 * recorded start or stop: the span of its sampled host commands.
 */
int ntp_report__load_file(struct ntp_report_file *f, sqlite3 *db, const char *schema,
			  const char *path, int64_t host_rows, int64_t target_rows)
{
	struct ntp_report_header *h = &f->hdr;
	char sql[96];
	int64_t last_t_ns;
	int rc;

	memset(h, 0, sizeof(*h));
	h->path = path;
	rc = load_header(h, db, schema, &last_t_ns);
	/* a count(*) walks the whole table: the check's or the join's count, when there is one */
	if (!rc && host_rows >= 0) {
		h->rows = (uint64_t)host_rows;
	} else if (!rc) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".host_io", schema);
		rc = count_rows(db, path, sql, "cannot read the commands", &h->rows);
	}
	if (!rc && !h->duration_ns && h->rows)
		rc = command_span(h, db, schema);
	if (rc || !(f->sides & NTP_SIDE_TARGET))
		return rc;
	rc = side_counts(db, schema, path, "target", &f->t_seen, &f->t_sampled, &f->t_lost_ringbuf,
			 &f->t_lost_map, &last_t_ns);
	if (!rc && target_rows >= 0) {
		f->t_rows = (uint64_t)target_rows;
	} else if (!rc) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\".target_io", schema);
		rc = count_rows(db, path, sql, "cannot read the target commands", &f->t_rows);
	}
	return rc;
}

void ntp_report__free_header(struct ntp_report_header *h)
{
	free(h->role);
	free(h->transport);
	free(h->kernel_release);
	free(h->hostname);
	free(h->start_time);
	free(h->recorded_by);
	free(h->filter_session);
	free(h->filter_io_type);
	free(h->filter_sizes);
	for (size_t i = 0; i < h->nhooks; i++) {
		free(h->hooks[i].side);
		free(h->hooks[i].point);
		free(h->hooks[i].hook);
		free(h->hooks[i].flavour);
		free(h->hooks[i].reason);
	}
	free(h->hooks);
	memset(h, 0, sizeof(*h));
}
