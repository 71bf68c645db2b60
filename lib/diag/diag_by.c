// SPDX-License-Identifier: GPL-2.0
/*
 * The evidence per queue or per process (diag_by.h): one query of each
 * host file's rows (diag_sql.h) ordered by the key, each run of one key a
 * row, its end-to-end latencies kept until the row ends for its tail.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/stat_table.h"
#include "lib/core/stats.h"
#include "lib/diag/diag_by.h"
#include "lib/diag/diag_sql.h"
#include "lib/fmt/safe_text.h"
#include "lib/model/model_sql.h"

const char *const ntp_diag_by_names[] = { "queue", "process", "cpu", "io_cpu", NULL };

enum ntp_diag_by_key ntp_diag_by__key(const char *name)
{
	for (int i = 0; name && ntp_diag_by_names[i]; i++)
		if (!strcmp(name, ntp_diag_by_names[i]))
			return (enum ntp_diag_by_key)(NTP_DIAG_BY_QUEUE + i);
	return NTP_DIAG_BY_NONE;
}

const char *ntp_diag_by__word(enum ntp_diag_by_key key)
{
	return key == NTP_DIAG_BY_NONE ? NULL : ntp_diag_by_names[key - NTP_DIAG_BY_QUEUE];
}

/* the end-to-end latencies of a row, then of the total */
struct vec {
	int64_t *v;
	size_t n, cap;
};

static int push(struct vec *x, int64_t v)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;
		int64_t *p = realloc(x->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		x->v = p;
		x->cap = cap;
	}
	x->v[x->n++] = v;
	return 0;
}

/* a row's sums while its commands are read */
struct acc {
	struct ntp_diag_by_row row;
	long double e2e, held, delay, off_delay, on_delay, busy;
	struct vec lat;
	bool open;
};

struct ctx {
	struct ntp_diag_by *b;
	struct acc cur, all;
	double scale;             /* N / seconds: commands to commands/s; < 0 unknown */
	const struct ntp_source *s;
	int file;                 /* from 0 */
	int nhost;                /* host files */
	int err;
};

static int add_row(struct ntp_diag_by *b, const struct ntp_diag_by_row *row)
{
	if (!(b->n & (b->n - 1)) || !b->n) {
		size_t cap = b->n ? 2 * b->n : 1;
		struct ntp_diag_by_row *p = realloc(b->rows, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->rows = p;
	}
	b->rows[b->n++] = *row;
	return 0;
}

/* the figures of a's commands into a->row */
static int finish(struct acc *a, double scale, int tail_stat)
{
	struct ntp_diag_by_row *w = &a->row;
	int err = 0;

	w->mean_ns = w->n ? (double)(a->e2e / w->n) : 0;
	w->rate = scale >= 0 ? (double)w->n * scale : -1;
	w->inflight = scale >= 0 && w->n ? w->rate * (double)(a->held / w->n) / 1e9 : -1;
	w->deferred_delay_ns = w->deferred ? (double)(a->delay / w->deferred) : NAN;
	w->busy_mean = w->busy_n ? (double)(a->busy / w->busy_n) : NAN;
	w->off_delay_ns = w->off_io_cpu ? (double)(a->off_delay / w->off_io_cpu) : NAN;
	w->on_delay_ns = w->where_known > w->off_io_cpu ?
			 (double)(a->on_delay / (w->where_known - w->off_io_cpu)) : NAN;
	w->tail_ns = -1;
	if (w->n >= ntp_stats[tail_stat].min_shown)
		w->tail_ns = ntp_stats__percentile_of(a->lat.v, a->lat.n, ntp_stats[tail_stat].pct,
						      &err);
	return err;
}

/* the row a command of this key opens: its name and key */
static void open_row(struct ctx *c, const char *ctrl, int64_t qid, int64_t pid, const char *comm,
		     int64_t cpu)
{
	struct acc *a = &c->cur;
	struct ntp_diag_by_row *w = &a->row;
	char prefix[16] = "";

	a->lat.n = 0;
	a->e2e = a->held = a->delay = a->off_delay = a->on_delay = a->busy = 0;
	a->open = true;
	memset(w, 0, sizeof(*w));
	w->file = c->file + 1;
	w->qid = w->pid = w->cpu = -1;
	w->depth = -1;
	w->busy_max = -1;
	if (c->nhost > 1)
		snprintf(prefix, sizeof(prefix), "%d:", c->file + 1);
	if (c->b->key == NTP_DIAG_BY_QUEUE) {
		snprintf(w->ctrl, sizeof(w->ctrl), "%s", ctrl);
		w->qid = qid;
		w->depth = ntp_diag__ctrl_depth(c->s, c->file, ctrl);
		snprintf(w->name, sizeof(w->name), "%s%s q%" PRId64, prefix, ctrl, qid);
	} else if (c->b->key == NTP_DIAG_BY_CPU || c->b->key == NTP_DIAG_BY_IO_CPU) {
		w->cpu = cpu;
		if (cpu >= 0)
			snprintf(w->name, sizeof(w->name), "%s%s %" PRId64, prefix,
				 ntp_diag_by__word(c->b->key), cpu);
		else
			snprintf(w->name, sizeof(w->name), "%s(not recorded)", prefix);
	} else if (pid >= 0) {
		w->pid = pid;
		snprintf(w->comm, sizeof(w->comm), "%s", comm);
		snprintf(w->name, sizeof(w->name), "%s%s %" PRId64, prefix, comm[0] ? comm : "-",
			 pid);
	} else {
		snprintf(w->name, sizeof(w->name), "%s(not recorded)", prefix);
	}
	/* names from the file, on their way to a terminal */
	ntp_safe__clean_line(w->name);
	ntp_safe__clean_line(w->ctrl);
	ntp_safe__clean_line(w->comm);
}

static int close_row(struct ctx *c)
{
	struct acc *a = &c->cur;
	int err;

	if (!a->open)
		return 0;
	a->open = false;
	err = finish(a, c->scale, c->b->tail_stat);
	return err ?: add_row(c->b, &a->row);
}

/* one command into the open row and the total */
static int add(struct ctx *c, int64_t e2e, int64_t held, bool deferred, int64_t delay,
	       bool error, int where, int64_t busy)
{
	struct acc *k[2] = { &c->cur, &c->all };

	for (int i = 0; i < 2; i++) {
		k[i]->row.n++;
		k[i]->row.errors += error;
		k[i]->row.deferred += deferred;
		k[i]->e2e += e2e;
		k[i]->held += held;
		if (deferred)
			k[i]->delay += delay;
		if (busy >= 0) {
			k[i]->row.busy_n++;
			k[i]->busy += busy;
			if (busy > k[i]->row.busy_max)
				k[i]->row.busy_max = busy;
		}
		/* where: -1 the CPUs not recorded, 1 sent off the queue's io_cpu, 0 on it */
		if (where >= 0) {
			k[i]->row.where_known++;
			k[i]->row.off_io_cpu += where;
			if (where)
				k[i]->off_delay += delay;
			else
				k[i]->on_delay += delay;
		}
		if (push(&k[i]->lat, e2e))
			return -ENOMEM;
	}
	return 0;
}

static const char *text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : "";
}

static int read_file(struct ctx *c, const struct ntp_report *r, struct ntp_source *s)
{
	const struct ntp_report_header *h = &r->files[c->file].hdr;
	const char *path = s->files[c->file].path;
	int64_t span = ntp_read_filter__window_ns(r->filter, h->duration_ns);
	struct ntp_read_where where;
	char from[1024], sql[1536];
	char prev_ctrl[32] = "";
	int64_t prev_qid = -1, prev_pid = -1, other_qid = -1;
	char other_ctrl[32] = "";
	int64_t other_pid = -2;
	enum ntp_diag_by_key key = c->b->key;
	bool has_pid, has_cpu, queue = key == NTP_DIAG_BY_QUEUE;
	bool by_cpu = key == NTP_DIAG_BY_CPU || key == NTP_DIAG_BY_IO_CPU;
	int kcol = key == NTP_DIAG_BY_CPU ? 9 : 10;    /* a CPU key's column */
	int64_t prev_cpu = -2;
	sqlite3_stmt *st;
	int rc;

	rc = ntp_diag__host_from(from, sizeof(from), &where, &has_pid, &has_cpu, r, s, c->file);
	if (!rc)
		rc = ntp_diag__span_ns(s->db, path, from, &where, r->filter != NULL, span, &span);
	if (rc)
		return rc;
	c->scale = span > 0 && h->sample_one_in > 0 ?
		   (double)h->sample_one_in / ((double)span / 1e9) : -1;
	snprintf(sql, sizeof(sql),
		 "SELECT controller, qid, coalesce(pid, -1), comm, e2e_ns, h_done_ns - h_queue_ns,"
		 " deferred, sent_ns - h_queue_ns, status != 0, coalesce(cpu, -1),"
		 " coalesce(io_cpu, -1),"
		 " CASE WHEN cpu IS NULL OR io_cpu IS NULL THEN -1 ELSE cpu != io_cpu END,"
		 " coalesce(queue_in_flight, -1) FROM %s WHERE 1", from);
	if (ntp_read_filter__prepare(s->db, sql, r->filter ? &where : NULL,
				     queue ? " ORDER BY 1, 2, 3" :
				     key == NTP_DIAG_BY_CPU ? " ORDER BY 10, 1, 2" :
				     key == NTP_DIAG_BY_IO_CPU ? " ORDER BY 11, 1, 2" :
				     " ORDER BY 3, 1, 2", &st))
		return ntp_report__db_fail(s->db, path, "cannot read the commands per key");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *ctrl = text(st, 0), *comm = text(st, 3);
		int64_t qid = sqlite3_column_int64(st, 1), pid = sqlite3_column_int64(st, 2);
		int64_t cpu = sqlite3_column_int64(st, kcol);
		bool same = c->cur.open && (queue ? !strcmp(ctrl, prev_ctrl) && qid == prev_qid :
					    by_cpu ? cpu == prev_cpu : pid == prev_pid);

		if (!same) {
			c->err = close_row(c);
			if (c->err)
				break;
			open_row(c, ctrl, qid, pid, comm, cpu);
			snprintf(prev_ctrl, sizeof(prev_ctrl), "%s", ctrl);
			prev_cpu = cpu;
			prev_qid = qid;
			prev_pid = pid;
			other_pid = -2;
			other_qid = -1;
			other_ctrl[0] = '\0';
		}
		c->b->pid_recorded |= pid >= 0;
		c->b->cpu_recorded |= sqlite3_column_int64(st, 9) >= 0;
		c->b->io_cpu_recorded |= sqlite3_column_int64(st, 10) >= 0;
		/* a queue's processes, a process's or a CPU's queues: each change of the second key */
		if (queue && pid >= 0 && pid != other_pid) {
			c->cur.row.others++;
			other_pid = pid;
		} else if (!queue && (qid != other_qid || strcmp(ctrl, other_ctrl))) {
			c->cur.row.others++;
			other_qid = qid;
			snprintf(other_ctrl, sizeof(other_ctrl), "%s", ctrl);
		}
		c->err = add(c, sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
			     sqlite3_column_int(st, 6), sqlite3_column_int64(st, 7),
			     sqlite3_column_int(st, 8), sqlite3_column_int(st, 11),
			     sqlite3_column_int64(st, 12));
		if (c->err)
			break;
	}
	if (c->err) {
		sqlite3_finalize(st);
		return c->err;
	}
	rc = ntp_report__rows_end(s->db, path, st, rc, "cannot read the commands per key");
	return rc ?: close_row(c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the largest of v[0..n) over their median (the lower middle of an even n); NAN < 2 */
static double imbalance(double *v, size_t n)
{
	if (n < 2)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(n - 1) / 2] > 0 ? v[n - 1] / v[(n - 1) / 2] : NAN;
}

static int totals(struct ctx *c)
{
	struct ntp_diag_by *b = c->b;
	struct acc *a = &c->all;
	double *v = malloc((b->n ? b->n : 1) * sizeof(*v));
	double rate = 0, inflight = 0;
	bool rate_known = b->n > 0, inflight_known = b->n > 0;
	size_t k = 0;
	int err;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		rate_known &= b->rows[i].rate >= 0;
		inflight_known &= b->rows[i].inflight >= 0;
		rate += b->rows[i].rate;
		inflight += b->rows[i].inflight;
		v[k++] = b->rows[i].rate;
	}
	b->rate_imbalance = rate_known ? imbalance(v, k) : NAN;
	k = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].tail_ns >= 0)
			v[k++] = (double)b->rows[i].tail_ns;
	b->tail_imbalance = imbalance(v, k);
	free(v);
	err = finish(a, -1, b->tail_stat);
	b->total = a->row;
	snprintf(b->total.name, sizeof(b->total.name), "total");
	b->total.file = 0;
	b->total.qid = b->total.pid = b->total.cpu = -1;
	b->total.depth = -1;
	b->total.others = 0;
	b->total.rate = rate_known ? rate : -1;
	b->total.inflight = inflight_known ? inflight : -1;
	return err;
}

int ntp_diag_by__make(struct ntp_diag_by *b, enum ntp_diag_by_key key,
		      const struct ntp_report *r, struct ntp_source *s)
{
	struct ctx c = { .b = b, .s = s };
	int rc = 0;

	c.all.row.busy_max = -1;
	memset(b, 0, sizeof(*b));
	b->key = key;
	b->tail_stat = ntp_stat__tail();
	b->rate_imbalance = b->tail_imbalance = NAN;
	if (key == NTP_DIAG_BY_NONE)
		return 0;
	if (!s->db) {
		ntp_error("--by %s: the evidence per %s is read from recordings, not from an engine",
			  ntp_diag_by__word(key), ntp_diag_by__word(key));
		return NTP_EXIT_USAGE;
	}
	for (int i = 0; i < s->n; i++)
		c.nhost += s->files[i].sides & NTP_SIDE_HOST && r->kind != NTP_REPORT_TARGET;
	b->host = c.nhost > 0;
	for (c.file = 0; c.file < s->n && !rc; c.file++)
		if (s->files[c.file].sides & NTP_SIDE_HOST && r->kind != NTP_REPORT_TARGET)
			rc = read_file(&c, r, s);
	if (!rc)
		rc = totals(&c);
	free(c.cur.lat.v);
	free(c.all.lat.v);
	if (rc == -ENOMEM) {
		ntp_error("cannot make the evidence per %s: %s", ntp_diag_by__word(key),
			  strerror(ENOMEM));
		rc = NTP_EXIT_FAILURE;
	}
	if (rc)
		ntp_diag_by__free(b);
	return rc;
}

void ntp_diag_by__free(struct ntp_diag_by *b)
{
	free(b->rows);
	b->rows = NULL;
	b->n = 0;
}
