// SPDX-License-Identifier: GPL-2.0
/*
 * report: every sampled command's stages, from the host_stages view, into
 * one set of samples per group, then each group's summary.
 *
 * The stage columns come from host_stages, the single definition of the
 * stages (schema/ntp.sql); nothing here recomputes them from raw timestamps.
 * The view is read in storage order, without ORDER BY: sorting ten million
 * rows by group inside SQLite costs more than the whole report, and every
 * group's samples must be held for its percentiles anyway, so the peak memory
 * is the same either way (4 x 8 bytes per command, plus one sort buffer).
 *
 * Evaluating the view is most of the cost, so large recordings are read by
 * one thread per CPU (at most MAX_WORKERS), each on its own connection and
 * its own range of ids; the groups are merged before they are summarized.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/exit.h"
#include "lib/report_priv.h"

#define MAX_WORKERS 4
/* below this many commands a second thread costs more than it saves */
#define ROWS_PER_WORKER 100000

/* the samples of one group while the view is read */
struct group_acc {
	struct ntp_samples e2e, stage[NTP_STAGE_MAX];
};

/* the groups found so far, with their samples */
struct group_set {
	struct ntp_report_group *g;
	struct group_acc *acc;
	size_t n, cap, last;
};

struct worker {
	pthread_t thread;
	bool started;
	const char *path;
	int64_t lo, hi;               /* ids lo..hi */
	struct group_set set;
	uint64_t rows;
	int rc;                       /* NTP_EXIT_* */
};

/* frees the samples and leaves them empty, so a second call is harmless */
static void acc_free(struct group_acc *a)
{
	ntp_samples__free(&a->e2e);
	ntp_samples__init(&a->e2e);
	for (int s = 0; s < NTP_STAGE_MAX; s++) {
		ntp_samples__free(&a->stage[s]);
		ntp_samples__init(&a->stage[s]);
	}
}

static void set_free(struct group_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		acc_free(&set->acc[i]);
		free(set->g[i].io_type);
		free(set->g[i].ns);
	}
	free(set->acc);
	free(set->g);
	memset(set, 0, sizeof(*set));
}

/* the group of a row: usually the previous row's, else a search, else a new one */
static ssize_t find_group(struct group_set *set, const char *io_type, int64_t bytes, const char *ns)
{
	struct ntp_report_group *g;

	for (size_t i = 0; i < set->n; i++) {
		size_t k = (set->last + i) % set->n;

		g = &set->g[k];
		if (g->bytes == bytes && !strcmp(g->io_type, io_type) && !strcmp(g->ns, ns)) {
			set->last = k;
			return (ssize_t)k;
		}
	}
	if (set->n == set->cap) {
		size_t ncap = set->cap ? 2 * set->cap : 16;
		void *p = realloc(set->g, ncap * sizeof(*set->g));

		if (!p)
			return -1;
		set->g = p;
		p = realloc(set->acc, ncap * sizeof(*set->acc));
		if (!p)
			return -1;
		set->acc = p;
		set->cap = ncap;
	}
	g = &set->g[set->n];
	memset(g, 0, sizeof(*g));
	g->bytes = bytes;
	g->io_type = strdup(io_type);
	g->ns = strdup(ns);
	ntp_samples__init(&set->acc[set->n].e2e);
	for (int s = 0; s < NTP_STAGE_MAX; s++)
		ntp_samples__init(&set->acc[set->n].stage[s]);
	set->last = set->n++;
	if (!g->io_type || !g->ns)
		return -1;
	return (ssize_t)set->last;
}

static int read_rows(struct worker *w, sqlite3 *db)
{
	static const char sql[] =
		"SELECT io_type, bytes, namespace, e2e_ns, block_ns, driver_ns, network_star_ns "
		"FROM host_stages WHERE id BETWEEN ?1 AND ?2";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return ntp_report__db_fail(db, w->path, "cannot read the commands");
	sqlite3_bind_int64(st, 1, w->lo);
	sqlite3_bind_int64(st, 2, w->hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *io_type = (const char *)sqlite3_column_text(st, 0);
		int64_t bytes = sqlite3_column_int64(st, 1);
		const char *ns = (const char *)sqlite3_column_text(st, 2);
		int64_t e2e = sqlite3_column_int64(st, 3), v, sum = 0;
		struct ntp_report_group *g;
		struct group_acc *a;
		ssize_t k;

		k = find_group(&w->set, io_type ? io_type : "", bytes, ns ? ns : "");
		if (k < 0)
			goto nomem;
		g = &w->set.g[k];
		a = &w->set.acc[k];
		if (ntp_samples__add(&a->e2e, e2e))
			goto nomem;
		g->sum_e2e += e2e;
		for (int s = 0; s < NTP_STAGE_MAX; s++) {
			v = sqlite3_column_int64(st, 4 + s);
			if (ntp_samples__add(&a->stage[s], v))
				goto nomem;
			g->sum_stage[s] += v;
			sum += v;
		}
		/* by construction never; counted so that a wrong view shows */
		if (sum != e2e)
			g->mismatched++;
		w->rows++;
	}
	if (rc != SQLITE_DONE) {
		rc = ntp_report__db_fail(db, w->path, "cannot read the commands");
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	return 0;
nomem:
	sqlite3_finalize(st);
	ntp_error("%s: cannot read the commands: %s", w->path, strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

/*
 * Each worker has its own connection: SQLite serializes the calls on one.
 * NOMUTEX because only this thread ever uses it.
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(w->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL)) {
		w->rc = ntp_report__db_fail(db, w->path, "cannot open the recording again");
		sqlite3_close(db);
		return NULL;
	}
	w->rc = read_rows(w, db);
	sqlite3_close(db);
	return NULL;
}

static int id_range(sqlite3 *db, const char *path, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT min(id), max(id) FROM host_io", -1, &st, NULL))
		return ntp_report__db_fail(db, path, "cannot read the commands");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = ntp_report__db_fail(db, path, "cannot read the commands");
		sqlite3_finalize(st);
		return rc;
	}
	*lo = sqlite3_column_int64(st, 0);
	*hi = sqlite3_column_type(st, 1) == SQLITE_NULL ? *lo - 1 : sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

static int nworkers(int64_t rows)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t n = rows / ROWS_PER_WORKER;

	if (!sqlite3_threadsafe())
		return 1;
	if (cpus > 0 && n > cpus)
		n = cpus;
	if (n > MAX_WORKERS)
		n = MAX_WORKERS;
	return n < 1 ? 1 : (int)n;
}

/*
 * Appends src to dst and frees src at once, so that the peak memory of a
 * merge is one array more than the samples themselves.
 */
static int move_samples(struct ntp_samples *dst, struct ntp_samples *src)
{
	for (size_t j = 0; j < src->n; j++)
		if (ntp_samples__add(dst, src->v[j]))
			return -ENOMEM;
	ntp_samples__free(src);
	return 0;
}

/* moves the samples of src's groups into dst's */
static int merge(struct group_set *dst, struct group_set *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct ntp_report_group *s = &src->g[i], *d;
		struct group_acc *sa = &src->acc[i], *da;
		ssize_t k = find_group(dst, s->io_type, s->bytes, s->ns);

		if (k < 0)
			return -ENOMEM;
		d = &dst->g[k];
		da = &dst->acc[k];
		if (move_samples(&da->e2e, &sa->e2e))
			return -ENOMEM;
		for (int st = 0; st < NTP_STAGE_MAX; st++) {
			if (move_samples(&da->stage[st], &sa->stage[st]))
				return -ENOMEM;
			d->sum_stage[st] += s->sum_stage[st];
		}
		d->sum_e2e += s->sum_e2e;
		d->mismatched += s->mismatched;
	}
	return 0;
}

static int io_type_rank(const char *t)
{
	if (!strcmp(t, "read"))
		return 0;
	if (!strcmp(t, "write"))
		return 1;
	return 2;
}

/* namespace, then reads before writes before others, then size */
static int group_cmp(const void *a, const void *b)
{
	const struct ntp_report_group *x = a, *y = b;
	int c = strcmp(x->ns, y->ns);

	if (c)
		return c;
	c = io_type_rank(x->io_type) - io_type_rank(y->io_type);
	if (c)
		return c;
	c = strcmp(x->io_type, y->io_type);
	if (c)
		return c;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

int ntp_report__scan(struct ntp_report *r, sqlite3 *db)
{
	struct worker w[MAX_WORKERS];
	const char *path = r->hdr.path;
	int64_t lo = 1, hi = 0, span;
	int n, rc;

	rc = id_range(db, path, &lo, &hi);
	if (rc)
		return rc;
	span = hi - lo + 1;
	n = nworkers(span);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < n; i++) {
		w[i].path = path;
		w[i].lo = lo + span * i / n;
		w[i].hi = lo + span * (i + 1) / n - 1;
	}
	/* the first share is read on this thread; one whose thread could not start, too */
	for (int i = 1; i < n; i++)
		w[i].started = !pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	worker_main(&w[0]);
	for (int i = 1; i < n; i++) {
		if (w[i].started)
			pthread_join(w[i].thread, NULL);
		else
			worker_main(&w[i]);
	}

	rc = 0;
	for (int i = 0; i < n; i++) {
		if (!rc)
			rc = w[i].rc;
		if (!rc && i && merge(&w[0].set, &w[i].set)) {
			ntp_error("%s: cannot read the commands: %s", path, strerror(ENOMEM));
			rc = NTP_EXIT_FAILURE;
		}
		r->total += w[i].rows;
		if (i)
			set_free(&w[i].set);
	}
	if (!rc) {
		struct group_set *set = &w[0].set;

		for (size_t i = 0; i < set->n; i++) {
			ntp_samples__summarize(&set->acc[i].e2e, &set->g[i].e2e);
			for (int s = 0; s < NTP_STAGE_MAX; s++)
				ntp_samples__summarize(&set->acc[i].stage[s], &set->g[i].stage[s]);
			/* give the memory back before the next group's sorts want theirs */
			acc_free(&set->acc[i]);
		}
		if (set->n)	/* qsort(NULL, 0, ...) is undefined */
			qsort(set->g, set->n, sizeof(*set->g), group_cmp);
		/* the model takes the groups; only the samples are freed here */
		r->groups = set->g;
		r->ngroups = set->n;
		free(set->acc);
		memset(set, 0, sizeof(*set));
	}
	set_free(&w[0].set);
	return rc;
}
