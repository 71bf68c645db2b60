// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet's tables in ClickHouse (lib/fleet/fleet_schema.h): their
 * CREATE statements, made once here, and the check of a database's
 * version and layout.  Only types ClickHouse 18.16 has: no DateTime64, no
 * Map, no LowCardinality.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/stage_table.h"
#include "lib/fleet/fleet_schema.h"

struct table_def {
	const char *name;
	const char *cols;         /* the column list (without cmds' stages: made below) */
	const char *order;        /* MergeTree's PARTITION BY ... ORDER BY ... */
	const char *shard;        /* the Distributed table's sharding key */
};

static const struct table_def tables[NTP_FLEET_NTABLES] = {
	[NTP_FLEET_RUNS] = { "runs",
		"run_id UInt64, push_id UInt64, complete UInt8, pushed DateTime, day Date, "
		"start_utc_ns Int64, start_ns Int64, stop_ns Int64, duration_ns Int64, "
		"hostname String, boot_id String, role String, transport String, "
		"sample_one_in UInt64, hash_version UInt32, kernel_release String, "
		"ntprof_version String, file String, host_rows UInt64, target_rows UInt64, "
		"h_seen UInt64, h_sampled UInt64, h_lost_ringbuf UInt64, h_lost_map UInt64, "
		"t_seen UInt64, t_sampled UInt64, t_lost_ringbuf UInt64, t_lost_map UInt64, "
		"meta String",
		"PARTITION BY toYYYYMM(day) ORDER BY (run_id, push_id)", "run_id" },
	[NTP_FLEET_IDS] = { "ids",
		"run_id UInt64, push_id UInt64, side String, object String, name String, "
		"subsysnqn Nullable(String), cntlid Nullable(Int64), nsid Nullable(Int64), "
		"port Nullable(String), transport Nullable(String), traddr Nullable(String), "
		"trsvcid Nullable(String), host_traddr Nullable(String), "
		"hostnqn Nullable(String), device Nullable(String)",
		"ORDER BY (run_id, push_id)", "run_id" },
	[NTP_FLEET_CMDS] = { "cmds",
		"day Date, run_id UInt64, push_id UInt64, side UInt8, id Int64, "
		"subsysnqn String, cntlid UInt16, qid UInt16, cid UInt16, nsid UInt32, "
		"opcode UInt8, slba UInt64, nlb UInt32, bytes UInt64, status UInt32, "
		"join_key Int64, io_type String, ns String, path String, controller String, "
		"utc_ns Int64, bad UInt8, "
		"h_start_ns Int64, h_queue_ns Int64, sent_ns Int64, r2t_host_ns Int64, "
		"recv_ns Int64, h_done_ns Int64, "
		"t_recv_ns Int64, submit_ns Int64, cmpl_ns Int64, r2t_wait_ns Int64, t_sent_ns Int64",
		"PARTITION BY day ORDER BY (subsysnqn, cntlid, join_key, side, run_id, id)",
		"cityHash64(subsysnqn, cntlid)" },
	[NTP_FLEET_CLOCKS] = { "clocks",
		"host_run UInt64, target_run UInt64, clock String, estimated UInt8, "
		"t0_ns Int64, base_ns Int64, a Float64, drift Float64, tol_ns Float64, "
		"late_recv UInt8, candidates Int64, support Int64, matched Int64, "
		"unmatched_host Int64, unmatched_target Int64, rejected Int64, computed DateTime",
		"ORDER BY (host_run, target_run)", "host_run" },
	[NTP_FLEET_PAIRS] = { "pairs",
		"day Date, host_run UInt64, target_run UInt64, host_id Int64, target_id Int64, "
		"subsysnqn String, cntlid UInt16, qid UInt16, io_type String, bytes UInt64, "
		"ns String, path String, device String, utc_ns Int64, h_start_ns Int64, "
		"offset_ns Int64, bad UInt8",
		"PARTITION BY day ORDER BY (host_run, target_run, host_id)",
		"cityHash64(subsysnqn, cntlid)" },
};

/* identifiers of formula f that are stage keys get "_ns": a joined stage over the others */
static const char *over_stage_columns(const char *f, char *buf, size_t len)
{
	size_t n = 0;

	while (*f && n + 1 < len) {
		if (isalpha((unsigned char)*f) || *f == '_') {
			const char *e = f;
			int stage = -1;

			while (isalnum((unsigned char)*e) || *e == '_')
				e++;
			for (int s = 0; s < NTP_NSTAGES; s++)
				if (strlen(ntp_stages[s].key) == (size_t)(e - f) &&
				    !strncmp(ntp_stages[s].key, f, (size_t)(e - f)))
					stage = s;
			n += (size_t)snprintf(buf + n, len - n, "%.*s%s", (int)(e - f), f,
					      stage >= 0 ? "_ns" : "");
			f = e;
			continue;
		}
		buf[n++] = *f++;
	}
	buf[n < len ? n : len - 1] = '\0';
	return n < len ? buf : NULL;
}

const char *ntp_fleet__stage_sql(int s, char *buf, size_t len)
{
	const struct ntp_stage_desc *d = &ntp_stages[s];

	if (!d->view || !d->formula)
		return NULL;
	if (!strcmp(d->view, "host_stages") || !strcmp(d->view, "target_stages"))
		return snprintf(buf, len, "%s", d->formula) < (int)len ? buf : NULL;
	if (!strcmp(d->view, "joined_stages"))
		return over_stage_columns(d->formula, buf, len);
	return NULL;
}

/*
 * table t's columns: cmds' with its stages (ALIAS: computed when read, so an
 * insert neither computes nor stores them), pairs' with the joined ones
 */
static void print_columns(FILE *out, enum ntp_fleet_table t)
{
	char f[512];

	fputs(tables[t].cols, out);
	for (int s = 0; s < NTP_NSTAGES; s++) {
		const char *v = ntp_stages[s].view;

		if (!ntp_fleet__stage_sql(s, f, sizeof(f)))
			continue;
		if (t == NTP_FLEET_CMDS && (!strcmp(v, "host_stages") || !strcmp(v, "target_stages")))
			fprintf(out, ", %s_ns Int64 ALIAS %s", ntp_stages[s].key, f);
		/* the joined view's stages: the host's, the target's and the joined ones */
		if (t == NTP_FLEET_PAIRS && s != NTP_STAGE_NETWORK_STAR && s != NTP_STAGE_RESIDENCE)
			fprintf(out, ", %s_ns Int64", ntp_stages[s].key);
	}
}

int ntp_fleet__columns(enum ntp_fleet_table t, char *buf, size_t len, const char **names,
		       const char **types, int max)
{
	char *p = buf, *sp;
	int n = 0;

	if ((size_t)snprintf(buf, len, "%s", tables[t].cols) >= len)
		return -ENOSPC;
	/* "name Type, name Type, ...": no type of a written column has a comma */
	while (*p) {
		if (n == max)
			return -ENOSPC;
		sp = strchr(p, ' ');
		if (!sp)
			return -EINVAL;
		*sp = '\0';
		names[n] = p;
		types[n] = sp + 1;
		p = sp + 1 + strcspn(sp + 1, ",");
		if (*p) {
			*p = '\0';
			p += 2;
		}
		n++;
	}
	return n;
}

/* the CREATE statements of the tables in database db, over cluster (NULL: one server) */
static int ntp_fleet__print_schema(FILE *out, const char *db, const char *cluster)
{
	bool dist = cluster && *cluster;

	fprintf(out, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	for (int t = 0; t < NTP_FLEET_NTABLES; t++) {
		fprintf(out, "CREATE TABLE IF NOT EXISTS %s.%s%s (", db, tables[t].name,
			dist ? "_local" : "");
		print_columns(out, t);
		fprintf(out, ") ENGINE = MergeTree %s;\n", tables[t].order);
		if (dist)
			fprintf(out, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local ENGINE = "
				"Distributed(%s, %s, %s_local, %s);\n", db, tables[t].name, db,
				tables[t].name, cluster, db, tables[t].name, tables[t].shard);
	}
	fprintf(out, "CREATE TABLE IF NOT EXISTS %s.ntprof_schema (key String, value String) "
		"ENGINE = TinyLog;\n", db);
	fprintf(out, "INSERT INTO %s.ntprof_schema VALUES ('version', '%d'), ('cluster', '%s');\n",
		db, NTP_FLEET_SCHEMA_VERSION, dist ? cluster : "");
	return ferror(out) ? -EIO : 0;
}

/* a name ClickHouse takes bare: letters, digits, '_', not starting with a digit */
static bool plain_name(const char *s)
{
	if (!s || !*s || isdigit((unsigned char)*s) || strlen(s) > 48)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* run each statement of the schema, one request each */
static int create(struct ntp_fleet *f, const char *db)
{
	char *sql = NULL, *p, *end;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int err = 0;

	if (!m || ntp_fleet__print_schema(m, db, f->cluster) || fclose(m)) {
		ntp_error("%s: %s", ntp_ch__url(f->ch), strerror(ENOMEM));
		free(sql);
		return NTP_EXIT_FAILURE;
	}
	ntp_debug("%s: creating the fleet's tables in database %s%s%s", ntp_ch__url(f->ch), db,
		 *f->cluster ? " over cluster " : "", f->cluster);
	for (p = sql; !err && (end = strchr(p, ';')); p = end + 2) {
		*end = '\0';
		err = ntp_ch__query(f->ch, p, NULL, 0, NULL, NTP_CH_NO_DB);
	}
	free(sql);
	return err;
}

/* the version and cluster ntprof_schema says; 1 when the tables are missing */
static int read_schema(struct ntp_fleet *f, char **version, char **cluster)
{
	struct ntp_ch_reply r;
	char *line, *fld[2];
	int n, err;

	*version = *cluster = NULL;
	err = ntp_ch__query(f->ch, "SELECT key, value FROM ntprof_schema", NULL, 0, &r,
			    NTP_CH_QUIET);
	if (err && (r.code == NTP_CH_UNKNOWN_TABLE || r.code == NTP_CH_UNKNOWN_DATABASE)) {
		ntp_ch_reply__free(&r);
		return 1;
	}
	if (err && r.code) {
		char *msg = r.body;

		msg[strcspn(msg, "\n")] = '\0';
		ntp_error("%s: the server refused: %s", ntp_ch__url(f->ch), msg);
	}
	for (line = r.body; !err && (n = ntp_ch__tsv_next(&line, fld, 2)) >= 0;) {
		char **to = n == 2 && !strcmp(fld[0], "version") ? version :
			    n == 2 && !strcmp(fld[0], "cluster") ? cluster : NULL;

		if (to && !*to && !(*to = strdup(fld[1])))
			err = NTP_EXIT_FAILURE;
	}
	ntp_ch_reply__free(&r);
	return err;
}

/* the tables' version, from ntprof_schema's text v: one this ntprof reads and writes? */
static int check_version(const char *url, const char *db, const char *v)
{
	long n = -1;

	if (v && *v && strspn(v, "0123456789") == strlen(v) && strlen(v) < 9)
		n = strtol(v, NULL, 10);
	if (n > NTP_FLEET_SCHEMA_VERSION) {
		ntp_error("%s: database %s holds the fleet's tables of schema version %ld, newer than "
			  "this ntprof's version %d: use an ntprof that knows version %ld", url, db, n,
			  NTP_FLEET_SCHEMA_VERSION, n);
		return NTP_EXIT_FLEET_SCHEMA;
	}
	if (n < NTP_FLEET_SCHEMA_MIN_VERSION) {
		ntp_error("%s: database %s holds the fleet's tables of schema version %s; this ntprof "
			  "reads and writes versions %d to %d", url, db, v ? v : "(none)",
			  NTP_FLEET_SCHEMA_MIN_VERSION, NTP_FLEET_SCHEMA_VERSION);
		return NTP_EXIT_FLEET_SCHEMA;
	}
	if (n < NTP_FLEET_SCHEMA_VERSION)
		ntp_debug("%s: database %s holds the fleet's tables of schema version %ld (this "
			  "ntprof makes version %d): read and written as they are", url, db, n,
			  NTP_FLEET_SCHEMA_VERSION);
	return 0;
}

int ntp_fleet__open(struct ntp_fleet **fp, const struct ntp_ch_opts *o, const char *cluster,
		    bool create_missing)
{
	const char *db = o->database ? o->database : "ntprof";
	struct ntp_fleet *f;
	char *version = NULL, *have = NULL;
	int err;

	*fp = NULL;
	if (!plain_name(db)) {
		ntp_error("--database '%s': letters, digits and '_' only", db);
		return NTP_EXIT_USAGE;
	}
	if (cluster && *cluster && !plain_name(cluster)) {
		ntp_error("--cluster '%s': letters, digits and '_' only", cluster);
		return NTP_EXIT_USAGE;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		ntp_error("%s: %s", o->url, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = ntp_ch__open(&f->ch, o);
	if (!err)
		err = read_schema(f, &version, &have);
	if (err == 1 && !create_missing) {
		ntp_error("%s: database %s has no ntprof tables: ntprof push creates them", o->url, db);
		err = NTP_EXIT_FLEET_SCHEMA;
	} else if (err == 1) {
		f->cluster = strdup(cluster ? cluster : "");
		err = f->cluster ? create(f, db) : NTP_EXIT_FAILURE;
		free(f->cluster);
		f->cluster = NULL;
		if (!err)
			err = read_schema(f, &version, &have);
		if (err == 1) {
			ntp_error("%s: the fleet's tables were made but cannot be read", o->url);
			err = NTP_EXIT_FLEET_SCHEMA;
		}
	}
	if (!err)
		err = check_version(o->url, db, version);
	if (!err && cluster && strcmp(cluster, have ? have : "")) {
		ntp_error("%s: database %s's tables are %s%s, not over cluster %s", o->url, db,
			  have && *have ? "over cluster " : "on one server", have ? have : "",
			  *cluster ? cluster : "(none)");
		err = NTP_EXIT_FLEET_SCHEMA;
	}
	if (!err) {
		f->cluster = have ? have : strdup("");
		have = NULL;
		if (!f->cluster)
			err = NTP_EXIT_FAILURE;
	}
	/* named with the database: a shard runs a distributed query's parts in its default one */
	for (int t = 0; t < NTP_FLEET_NTABLES && !err; t++) {
		snprintf(f->names[t][0], sizeof(f->names[t][0]), "%s.%s", db, tables[t].name);
		snprintf(f->names[t][1], sizeof(f->names[t][1]), "%s.%s%s", db, tables[t].name,
			 *f->cluster ? "_local" : "");
	}
	free(version);
	free(have);
	if (err) {
		ntp_fleet__close(f);
		return err;
	}
	*fp = f;
	return 0;
}

void ntp_fleet__close(struct ntp_fleet *f)
{
	if (!f)
		return;
	ntp_ch__close(f->ch);
	free(f->cluster);
	free(f);
}
