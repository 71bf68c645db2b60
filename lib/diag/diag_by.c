// SPDX-License-Identifier: GPL-2.0
/*
 * The evidence per queue or per process (diag_by.h): each host file's
 * commands from the model in the key's order (lib/model/model_by.h), each
 * run of one key a row, its end-to-end latencies kept until the row ends
 * for its tail.
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
#include "lib/diag/diag_depth.h"
#include "lib/fmt/safe_text.h"
#include "lib/model/model_by.h"
#include "lib/model/model_filter.h"

const char *const ntp_diag_by_names[] = {
#define NTP_DIAG_BY_WORD(k, w, ...) w,
	NTP_BY_KEYS(NTP_DIAG_BY_WORD)
#undef NTP_DIAG_BY_WORD
	NULL
};

enum ntp_diag_by_key ntp_diag_by__key(const char *name)
{
	for (int i = 0; name && ntp_diag_by_names[i]; i++)
		if (!strcmp(name, ntp_diag_by_names[i]))
			return (enum ntp_diag_by_key)(NTP_DIAG_BY_QUEUE + i);
	return NTP_DIAG_BY_NONE;
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
	long double e2e, held, delay;
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
	/* the open row's key, and the last value of the other part counted in it */
	char prev_ctrl[32], other_ctrl[32];
	int64_t prev_qid, prev_pid, other_qid, other_pid;
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
	w->tail_ns = -1;
	if (w->n >= ntp_stats[tail_stat].min_shown)
		w->tail_ns = ntp_stats__percentile_of(a->lat.v, a->lat.n, ntp_stats[tail_stat].pct,
						      &err);
	return err;
}

/* the row a command of this key opens: its name and key */
static void open_row(struct ctx *c, const char *ctrl, int64_t qid, int64_t pid, const char *comm)
{
	struct acc *a = &c->cur;
	struct ntp_diag_by_row *w = &a->row;
	char prefix[16] = "";

	a->lat.n = 0;
	a->e2e = a->held = a->delay = 0;
	a->open = true;
	memset(w, 0, sizeof(*w));
	w->file = c->file + 1;
	w->qid = w->pid = -1;
	w->depth = -1;
	if (c->nhost > 1)
		snprintf(prefix, sizeof(prefix), "%d:", c->file + 1);
	if (ntp_diag_by__def(c->b->key)->part == NTP_BY_PART_QUEUE) {
		snprintf(w->ctrl, sizeof(w->ctrl), "%s", ctrl);
		w->qid = qid;
		w->depth = ntp_diag__ctrl_depth(c->s, c->file, ctrl);
		snprintf(w->name, sizeof(w->name), "%s%s q%" PRId64, prefix, ctrl, qid);
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
	       bool error)
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
		if (push(&k[i]->lat, e2e))
			return -ENOMEM;
	}
	return 0;
}

/* a and b the same part (a queue, a process) */
static bool same_part(enum ntp_by_part part, const struct ntp_by_cmd *a, const char *ctrl,
		      int64_t qid, int64_t pid)
{
	return part == NTP_BY_PART_QUEUE ? !strcmp(a->ctrl, ctrl) && a->qid == qid : a->pid == pid;
}

/* one command, in the key's order: a new row at each change of the key's part */
static int take(void *ctx, const struct ntp_by_cmd *cmd)
{
	struct ctx *c = ctx;
	const struct ntp_by_def *k = ntp_diag_by__def(c->b->key);

	if (!c->cur.open || !same_part(k->part, cmd, c->prev_ctrl, c->prev_qid, c->prev_pid)) {
		int err = close_row(c);

		if (err)
			return err;
		open_row(c, cmd->ctrl, cmd->qid, cmd->pid, cmd->comm);
		snprintf(c->prev_ctrl, sizeof(c->prev_ctrl), "%s", cmd->ctrl);
		c->prev_qid = cmd->qid;
		c->prev_pid = cmd->pid;
		c->other_pid = -2;
		c->other_qid = -1;
		c->other_ctrl[0] = '\0';
	}
	c->b->pid_recorded |= cmd->pid >= 0;
	/* the other part's distinct values: each change of it, a process only where recorded */
	if (k->other == NTP_BY_PART_PROCESS ? cmd->pid >= 0 && cmd->pid != c->other_pid :
	    !same_part(k->other, cmd, c->other_ctrl, c->other_qid, c->other_pid)) {
		c->cur.row.others++;
		snprintf(c->other_ctrl, sizeof(c->other_ctrl), "%s", cmd->ctrl);
		c->other_qid = cmd->qid;
		c->other_pid = cmd->pid;
	}
	return add(c, cmd->e2e_ns, cmd->held_ns, cmd->deferred, cmd->delay_ns, cmd->error);
}

static int read_file(struct ctx *c, const struct ntp_report *r, struct ntp_source *s)
{
	const struct ntp_report_header *h = &r->files[c->file].hdr;
	int64_t span = ntp_read_filter__window_ns(r->filter, h->duration_ns);
	int rc;

	rc = ntp_by__span_ns(r, s, c->file, span, &span);
	if (rc)
		return rc;
	c->scale = span > 0 && h->sample_one_in > 0 ?
		   (double)h->sample_one_in / ((double)span / 1e9) : -1;
	c->prev_ctrl[0] = '\0';
	c->prev_qid = c->prev_pid = -1;
	rc = ntp_by__each(r, s, c->file, (enum ntp_by_key)(c->b->key - NTP_DIAG_BY_QUEUE), take, c);
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
	b->total.qid = b->total.pid = -1;
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

	memset(b, 0, sizeof(*b));
	b->key = key;
	b->tail_stat = ntp_stat__tail();
	b->rate_imbalance = b->tail_imbalance = NAN;
	if (key == NTP_DIAG_BY_NONE)
		return 0;
	if (!s->db) {
		ntp_error("--by %s: the evidence per %s is read from recordings, not from an engine",
			  ntp_diag_by_names[key - 1], ntp_diag_by_names[key - 1]);
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
		ntp_error("cannot make the evidence per %s: %s", ntp_diag_by_names[key - 1],
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
