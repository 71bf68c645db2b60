// SPDX-License-Identifier: GPL-2.0
/*
 * report: read a recording's header (meta, hooks, intervals) and, through
 * report_scan.c, its commands into the model of report_priv.h; and the small
 * computations both printers share.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/db.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/report_priv.h"

const struct ntp_view_stage ntp_stage_names[NTP_STAGE_MAX] = {
	[NTP_STAGE_BLOCK] = { "block", "block", NULL },
	[NTP_STAGE_DRIVER] = { "driver", "driver", NULL },
	[NTP_STAGE_NETWORK_STAR] = { "network*", "network_star", NTP_REPORT_NETWORK_STAR_NOTE },
};

static char *xstrdup_col(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return strdup(s ? (const char *)s : "");
}

int64_t ntp_report__round_ns(double ns)
{
	return (int64_t)llround(ns);
}

/* from the exact integer sums, so commands that add up give exactly 0 */
double ntp_report__stages_unattributed_ns(const struct ntp_report_group *g, int nstages)
{
	int64_t d = g->sum_e2e;

	if (!g->e2e.n)
		return 0;
	for (int s = 0; s < nstages; s++)
		d -= g->sum_stage[s];
	return (double)d / (double)g->e2e.n;
}

int ntp_report__sum_ok(const struct ntp_report_group *g, int nstages)
{
	int64_t sum = 0;

	for (int s = 0; s < nstages; s++)
		sum += g->sum_stage[s];
	return sum == g->sum_e2e && !g->mismatched;
}

double ntp_report__share_pct(const struct ntp_report_group *g, double mean_ns)
{
	if (g->e2e.n == 0 || g->e2e.mean == 0)
		return NAN;
	return mean_ns / g->e2e.mean * 100.0;
}

int ntp_report__shown(const struct ntp_report_group *g, uint64_t total,
		      const struct ntp_report_opts *o)
{
	if (o->percent_limit <= 0 || total == 0)
		return 1;
	return (double)g->e2e.n * 100.0 / (double)total >= o->percent_limit;
}

double ntp_report__unattributed_ns(const struct ntp_report_group *g)
{
	return ntp_report__stages_unattributed_ns(g, NTP_STAGE_MAX);
}

int ntp_report__group_shown(const struct ntp_report *r, const struct ntp_report_group *g,
			    const struct ntp_report_opts *o)
{
	return ntp_report__shown(g, r->total, o);
}

void ntp_report__size_str(int64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
		snprintf(buf, len, "%" PRId64 "MiB", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "KiB", bytes >> 10);
	else
		snprintf(buf, len, "%" PRId64 "B", bytes);
}

/*
 * The wall-clock start: record stores start_realtime_ns (CLOCK_REALTIME),
 * shown as ISO 8601 UTC; a start_time text, if a file has one, as it is.
 */
static char *start_time_str(sqlite3 *db)
{
	int64_t ns = ntp_db__meta_int(db, "start_realtime_ns", -1);
	char *s = ntp_db__meta_text(db, "start_time");
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

static int load_hooks(struct ntp_report_header *h, sqlite3 *db)
{
	static const char sql[] =
		"SELECT side, point, hook, flavour, reason FROM hooks ORDER BY side, rowid";
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

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

/* the commands seen, sampled and lost, summed over the host's intervals */
static int load_counts(struct ntp_report_header *h, sqlite3 *db, int64_t *last_t_ns)
{
	static const char sql[] =
		"SELECT total(seen), total(sampled), total(lost_ringbuf), total(lost_map), max(t_ns) "
		"FROM intervals WHERE side = 'host'";
	sqlite3_stmt *st;
	int rc;

	rc = ntp_report__one_row(db, h->path, sql, "cannot read the intervals", &st);
	if (rc)
		return rc;
	/* total() is a float sum that cannot overflow; counts stay far below 2^53 */
	h->seen = (uint64_t)sqlite3_column_double(st, 0);
	h->sampled = (uint64_t)sqlite3_column_double(st, 1);
	h->lost_ringbuf = (uint64_t)sqlite3_column_double(st, 2);
	h->lost_map = (uint64_t)sqlite3_column_double(st, 3);
	*last_t_ns = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
	sqlite3_finalize(st);
	return 0;
}

static int user_version(sqlite3 *db, const char *path, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	rc = ntp_report__one_row(db, path, "PRAGMA user_version", "cannot read the schema version",
				 &st);
	if (rc)
		return rc;
	*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int load_header(struct ntp_report_header *h, sqlite3 *db, int64_t *last_t_ns)
{
	int64_t start_ns, stop_ns;
	int rc;

	rc = user_version(db, h->path, &h->schema_version);
	if (rc)
		return rc;
	h->role = ntp_db__meta_text(db, "role");
	h->transport = ntp_db__meta_text(db, "transport");
	h->kernel_release = ntp_db__meta_text(db, "kernel_release");
	h->hostname = ntp_db__meta_text(db, "hostname");
	h->recorded_by = ntp_db__meta_text(db, "ntprof_version");
	h->start_time = start_time_str(db);
	h->sample_one_in = ntp_db__meta_int(db, "sample_one_in", 0);
	/* written by record only for the filters given: a filtered file is partial */
	h->filter_session = ntp_db__meta_text(db, "filter_session");
	h->filter_io_type = ntp_db__meta_text(db, "filter_io_type");
	h->filter_sizes = ntp_db__meta_text(db, "filter_sizes");
	h->hash_version = ntp_db__meta_int(db, "hash_version", 0);
	h->bpf_runs = ntp_db__meta_int(db, "bpf_runs", -1);
	h->bpf_run_ns = ntp_db__meta_int(db, "bpf_run_ns", -1);
	h->bpf_commands = ntp_db__meta_int(db, "bpf_commands", -1);
	h->bpf_window_ns = ntp_db__meta_int(db, "bpf_window_ns", -1);

	/* the recording's own start and stop (CLOCK_MONOTONIC) give the duration */
	start_ns = ntp_db__meta_int(db, "start_ns", -1);
	stop_ns = ntp_db__meta_int(db, "stop_ns", -1);
	if (start_ns >= 0 && stop_ns > start_ns) {
		h->duration_ns = stop_ns - start_ns;
		h->duration_source = "start_ns to stop_ns";
	}

	rc = load_hooks(h, db);
	if (rc)
		return rc;
	rc = load_counts(h, db, last_t_ns);
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
static int command_span(struct ntp_report_header *h, sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc;

	rc = ntp_report__one_row(db, h->path, "SELECT min(h_start_ns), max(h_done_ns) FROM host_io",
				 "cannot read the commands", &st);
	if (rc)
		return rc;
	if (sqlite3_column_int64(st, 1) > sqlite3_column_int64(st, 0)) {
		h->duration_ns = sqlite3_column_int64(st, 1) - sqlite3_column_int64(st, 0);
		h->duration_source = "first to last sampled command";
	}
	sqlite3_finalize(st);
	return 0;
}

int ntp_report__load(struct ntp_report *r, sqlite3 *db, const char *path)
{
	struct ntp_report_header *h = &r->hdr;
	int64_t last_t_ns;
	int rc;

	memset(r, 0, sizeof(*r));
	h->path = path;
	rc = load_header(h, db, &last_t_ns);
	if (rc)
		return rc;
	rc = ntp_report__scan(r, db);
	if (rc)
		return rc;
	h->rows = r->total;
	if (!h->duration_ns && r->total) {
		rc = command_span(h, db);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < r->ngroups; i++) {
		struct ntp_report_group *g = &r->groups[i];

		g->est_rate = -1;
		if (h->duration_ns > 0 && h->sample_one_in > 0)
			g->est_rate = (double)g->e2e.n * (double)h->sample_one_in /
				      ((double)h->duration_ns / 1e9);
	}
	return 0;
}

/* the header alone, for a report on several recordings: no scan of the commands */
int ntp_report__load_header(struct ntp_report_header *h, sqlite3 *db, const char *path)
{
	int64_t last_t_ns;
	int rc;

	memset(h, 0, sizeof(*h));
	h->path = path;
	rc = load_header(h, db, &last_t_ns);
	if (!rc && !h->duration_ns)
		rc = command_span(h, db);
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

void ntp_report__free(struct ntp_report *r)
{
	ntp_report__free_header(&r->hdr);
	for (size_t i = 0; i < r->ngroups; i++) {
		free(r->groups[i].io_type);
		free(r->groups[i].ns);
	}
	free(r->groups);
	memset(r, 0, sizeof(*r));
}
