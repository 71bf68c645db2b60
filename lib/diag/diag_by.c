// SPDX-License-Identifier: GPL-2.0
/*
 * The evidence per queue, process or CPU (diag_by.h): each host file's
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

const char *ntp_diag_by__word(enum ntp_diag_by_key key)
{
	return key == NTP_DIAG_BY_NONE ? NULL : ntp_diag_by__def(key)->word;
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
	/* the open row's key, and the last value of the other part counted in it */
	char prev_ctrl[32], other_ctrl[32];
	int64_t prev_qid, prev_pid, prev_cpu, other_qid, other_pid;
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

/* the CPU that names a command's row under a CPU part; -1 not recorded or another part */
static int64_t part_cpu(enum ntp_by_part part, const struct ntp_by_cmd *cmd)
{
	return part == NTP_BY_PART_CPU ? cmd->cpu : part == NTP_BY_PART_IO_CPU ? cmd->io_cpu : -1;
}

/* the row a command of this key opens: its name and key */
static void open_row(struct ctx *c, const struct ntp_by_cmd *cmd)
{
	const struct ntp_by_def *k = ntp_diag_by__def(c->b->key);
	const char *ctrl = cmd->ctrl, *comm = cmd->comm;
	int64_t qid = cmd->qid, pid = cmd->pid, cpu = part_cpu(k->part, cmd);
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
	if (k->part == NTP_BY_PART_QUEUE) {
		snprintf(w->ctrl, sizeof(w->ctrl), "%s", ctrl);
		w->qid = qid;
		w->depth = ntp_diag__ctrl_depth(c->s, c->file, ctrl);
		snprintf(w->name, sizeof(w->name), "%s%s q%" PRId64, prefix, ctrl, qid);
	} else if (k->part == NTP_BY_PART_CPU || k->part == NTP_BY_PART_IO_CPU) {
		w->cpu = cpu;
		if (cpu >= 0)
			snprintf(w->name, sizeof(w->name), "%s%s %" PRId64, prefix, k->word, cpu);
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
static int add(struct ctx *c, const struct ntp_by_cmd *cmd)
{
	int64_t e2e = cmd->e2e_ns, held = cmd->held_ns, delay = cmd->delay_ns, busy = cmd->busy;
	bool deferred = cmd->deferred, error = cmd->error;
	int where = cmd->off_io_cpu;
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

/* a and b the same part (a queue, a process, a CPU) */
static bool same_part(enum ntp_by_part part, const struct ntp_by_cmd *a, const char *ctrl,
		      int64_t qid, int64_t pid, int64_t cpu)
{
	if (part == NTP_BY_PART_QUEUE)
		return !strcmp(a->ctrl, ctrl) && a->qid == qid;
	if (part == NTP_BY_PART_PROCESS)
		return a->pid == pid;
	return part_cpu(part, a) == cpu;
}

/* one command, in the key's order: a new row at each change of the key's part */
static int take(void *ctx, const struct ntp_by_cmd *cmd)
{
	struct ctx *c = ctx;
	const struct ntp_by_def *k = ntp_diag_by__def(c->b->key);

	if (!c->cur.open ||
	    !same_part(k->part, cmd, c->prev_ctrl, c->prev_qid, c->prev_pid, c->prev_cpu)) {
		int err = close_row(c);

		if (err)
			return err;
		open_row(c, cmd);
		snprintf(c->prev_ctrl, sizeof(c->prev_ctrl), "%s", cmd->ctrl);
		c->prev_qid = cmd->qid;
		c->prev_pid = cmd->pid;
		c->prev_cpu = part_cpu(k->part, cmd);
		c->other_pid = -2;
		c->other_qid = -1;
		c->other_ctrl[0] = '\0';
	}
	c->b->pid_recorded |= cmd->pid >= 0;
	c->b->cpu_recorded |= cmd->cpu >= 0;
	c->b->io_cpu_recorded |= cmd->io_cpu >= 0;
	/* the other part's distinct values: each change of it, a process only where recorded */
	if (k->other == NTP_BY_PART_PROCESS ? cmd->pid >= 0 && cmd->pid != c->other_pid :
	    !same_part(k->other, cmd, c->other_ctrl, c->other_qid, c->other_pid, -1)) {
		c->cur.row.others++;
		snprintf(c->other_ctrl, sizeof(c->other_ctrl), "%s", cmd->ctrl);
		c->other_qid = cmd->qid;
		c->other_pid = cmd->pid;
	}
	return add(c, cmd);
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
	c->prev_qid = c->prev_pid = c->prev_cpu = -1;
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
