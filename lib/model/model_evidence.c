// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnosis' evidence of a host file (model_evidence.h), gathered row
 * by row in hash tables: a GROUP BY over a million rows sorts them all
 * (2-3 s at 1M), where the groups and queues number a few dozen.  Each
 * reader of the model's scan keeps its own tables, merged after.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/grow.h"
#include "lib/model/model.h"
#include "lib/model/model_evidence.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_sql.h"
#include "lib/ntp/db_own.h"
#include "lib/ntp/db_read.h"

struct hkey {
	const unsigned char *io_type, *ns, *ctrl;   /* NULL: SQL's NULL */
	int64_t bytes, qid;
};

struct hmap {
	struct ntp_evidence_row *a;
	size_t n, cap;            /* entries; slots (a power of 2) */
	size_t *slot;             /* index + 1; 0 empty */
	bool stale;               /* entries were added by group (by_group), not in slot */
};

/* a queue's processes: the distinct (queue, pid) pairs seen */
struct pidset {
	uint64_t *v;              /* (queue + 1) << 32 | pid; 0 empty */
	size_t n, cap;
};

struct ntp_evidence_acc {
	size_t max_rows;          /* 0: no bound */
	struct hmap groups, queues;
	struct pidset pids;
	uint64_t rows;
	int64_t first_start, last_done;
	/* a group's first (group, queue) row (index + 1, 0 none), by ntp_evidence_in.group */
	size_t *by_group, nby_group;
};

unsigned ntp_evidence__cols(sqlite3 *db, const char *schema)
{
	unsigned cols = 0;

	if (ntp_db__has_column(db, schema, "host_io", "pid") &&
	    ntp_db__has_column(db, schema, "host_io", "comm"))
		cols |= NTP_EVIDENCE_PID;
	if (ntp_db__has_column(db, schema, "host_io", "cpu") &&
	    ntp_db__has_column(db, schema, "host_io", "io_cpu"))
		cols |= NTP_EVIDENCE_CPU;
	if (ntp_db__has_column(db, schema, "host_io", "queue_in_flight"))
		cols |= NTP_EVIDENCE_BUSY;
	return cols;
}

void ntp_evidence__from(char *buf, size_t len, const char *view, const char *schema,
			unsigned cols)
{
	bool pid = cols & NTP_EVIDENCE_PID, cpu = cols & NTP_EVIDENCE_CPU;

	snprintf(buf, len,
		 "(SELECT v.*, (h.flags & 32) != 0 AS ev_deferred, %s AS ev_pid, %s AS ev_comm,"
		 " %s AS ev_cpu, %s AS ev_io_cpu, %s AS ev_off_cpu, %s AS ev_busy"
		 " FROM \"%s\" v JOIN \"%s\".host_io h ON h.id = v.id)",
		 pid ? "h.pid" : "NULL", pid ? "h.comm" : "NULL", cpu ? "h.cpu" : "NULL",
		 cpu ? "h.io_cpu" : "NULL", cpu ? "h.cpu != h.io_cpu" : "NULL",
		 cols & NTP_EVIDENCE_BUSY ? "h.queue_in_flight" : "NULL", view, schema);
}

static uint64_t mix(uint64_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t text_hash(uint64_t h, const unsigned char *t)
{
	return t ? mix(mix(h, "t", 1), t, strlen((const char *)t) + 1) : mix(h, "n", 1);
}

static uint64_t key_hash(const struct hkey *k, bool queue)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (!queue) {
		h = text_hash(h, k->io_type);
		h = text_hash(h, k->ns);
		h = mix(h, &k->bytes, sizeof(k->bytes));
	}
	h = text_hash(h, k->ctrl);
	return mix(h, &k->qid, sizeof(k->qid));
}

static bool text_eq(const char *kept, bool null, const unsigned char *t)
{
	return t ? !null && !strcmp(kept, (const char *)t) : null;
}

static bool key_eq(const struct ntp_evidence_row *a, const struct hkey *k, bool queue)
{
	return a->qid == k->qid && text_eq(a->ctrl, a->null_ctrl, k->ctrl) &&
	       (queue || (a->bytes == k->bytes && text_eq(a->io_type, a->null_io, k->io_type) &&
			  text_eq(a->ns, a->null_ns, k->ns)));
}

static struct hkey key_of(const struct ntp_evidence_row *a)
{
	return (struct hkey){ (const unsigned char *)(a->null_io ? NULL : a->io_type),
			      (const unsigned char *)(a->null_ns ? NULL : a->ns),
			      (const unsigned char *)(a->null_ctrl ? NULL : a->ctrl), a->bytes,
			      a->qid };
}

static char *keep(const unsigned char *t, bool *null)
{
	*null = !t;
	return strdup(t ? (const char *)t : "");
}

static void rows_free(struct ntp_evidence_row *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].io_type);
		free(a[i].ns);
		free(a[i].ctrl);
	}
	free(a);
}

static void hmap_free(struct hmap *m)
{
	rows_free(m->a, m->n);
	free(m->slot);
}

/* m's slots anew, at least twice its entries */
static int hmap_rehash(struct hmap *m, bool queue)
{
	size_t cap = 64, *slot;

	while (cap < 2 * (m->n + 1))
		cap *= 2;
	slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		struct hkey k = key_of(&m->a[i]);
		size_t j = key_hash(&k, queue) & (cap - 1);

		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = i + 1;
	}
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	m->stale = false;
	return 0;
}

/* a new entry of key k at the end of m, not in its slots; NULL out of memory */
static struct ntp_evidence_row *hmap_append(struct hmap *m, const struct hkey *k, bool queue)
{
	struct ntp_evidence_row *a;

	if (ntp_grow__for((void **)&m->a, m->n, sizeof(*m->a)))
		return NULL;
	a = &m->a[m->n];
	memset(a, 0, sizeof(*a));
	a->ctrl = keep(k->ctrl, &a->null_ctrl);
	a->io_type = keep(queue ? NULL : k->io_type, &a->null_io);
	a->ns = keep(queue ? NULL : k->ns, &a->null_ns);
	if (!a->ctrl || !a->io_type || !a->ns) {
		free(a->ctrl);
		free(a->io_type);
		free(a->ns);
		return NULL;
	}
	a->bytes = k->bytes;
	a->qid = k->qid;
	m->n++;
	return a;
}

/* k's entry, made when new; NULL out of memory */
static struct ntp_evidence_row *hmap_get(struct hmap *m, const struct hkey *k, bool queue)
{
	struct ntp_evidence_row *a;
	size_t j;

	if ((m->stale || 2 * (m->n + 1) > m->cap) && hmap_rehash(m, queue))
		return NULL;
	for (j = key_hash(k, queue) & (m->cap - 1); m->slot[j]; j = (j + 1) & (m->cap - 1))
		if (key_eq(&m->a[m->slot[j] - 1], k, queue))
			return &m->a[m->slot[j] - 1];
	a = hmap_append(m, k, queue);
	if (a)
		m->slot[j] = m->n;
	return a;
}

static uint64_t pid_slot(uint64_t v, size_t cap)
{
	return (v * 0x9e3779b97f4a7c15ull >> 7) & (cap - 1);
}

/* 1 when (queue, pid) is new, 0 when seen, -ENOMEM */
static int pidset_add(struct pidset *p, size_t queue, int64_t pid)
{
	uint64_t v = (uint64_t)(queue + 1) << 32 | (uint32_t)pid;
	size_t j;

	if (2 * (p->n + 1) > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		uint64_t *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t i = 0; i < p->cap; i++) {
			if (!p->v[i])
				continue;
			for (j = pid_slot(p->v[i], cap); nv[j]; j = (j + 1) & (cap - 1))
				;
			nv[j] = p->v[i];
		}
		free(p->v);
		p->v = nv;
		p->cap = cap;
	}
	for (j = pid_slot(v, p->cap); p->v[j]; j = (j + 1) & (p->cap - 1))
		if (p->v[j] == v)
			return 0;
	p->v[j] = v;
	p->n++;
	return 1;
}

struct ntp_evidence_acc *ntp_evidence__acc_new(size_t max_rows)
{
	struct ntp_evidence_acc *a = calloc(1, sizeof(*a));

	if (a) {
		a->max_rows = max_rows;
		a->first_start = INT64_MAX;
		a->last_done = INT64_MIN;
	}
	return a;
}

void ntp_evidence__acc_free(struct ntp_evidence_acc *a)
{
	if (!a)
		return;
	hmap_free(&a->groups);
	hmap_free(&a->queues);
	free(a->pids.v);
	free(a->by_group);
	free(a);
}

static bool col_null(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL;
}

/*
 * k's (group, queue) row of the scan's group (from 0), made when new, with
 * its queue's row (its qi): the group's few rows walked, no text hashed.
 * NULL out of memory.
 */
static struct ntp_evidence_row *by_group(struct ntp_evidence_acc *a, const struct hkey *k,
					 size_t group)
{
	struct ntp_evidence_row *g, *q;

	if (group >= a->nby_group) {
		size_t n = a->nby_group ? 2 * a->nby_group : 64;
		size_t *p;

		while (n <= group)
			n *= 2;
		p = realloc(a->by_group, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + a->nby_group, 0, (n - a->nby_group) * sizeof(*p));
		a->by_group = p;
		a->nby_group = n;
	}
	/* the scan's group is of io_type, bytes and namespace, NULL as '': these tell them apart */
	for (size_t i = a->by_group[group]; i; i = g->next) {
		g = &a->groups.a[i - 1];
		if (g->qid == k->qid && g->null_io == !k->io_type && g->null_ns == !k->ns &&
		    text_eq(g->ctrl, g->null_ctrl, k->ctrl))
			return g;
	}
	q = hmap_get(&a->queues, k, true);
	if (!q)
		return NULL;
	g = hmap_append(&a->groups, k, false);
	if (!g)
		return NULL;
	a->groups.stale = true;
	g->qi = (size_t)(q - a->queues.a);
	g->next = a->by_group[group];
	a->by_group[group] = a->groups.n;
	return g;
}

/*
 * x - y as SQL's "x - y" gives it, as a double: integers past 64 bits as
 * reals.  Points that are not all integers are read again from columns
 * cx, cy: false when either is NULL, another type as SQL converts it.
 */
static bool diff(sqlite3_stmt *st, const struct ntp_evidence_in *in, int64_t x, int64_t y, int cx,
		 int cy, double *d)
{
	int64_t v;

	if (!in->ints) {
		if (col_null(st, cx) || col_null(st, cy))
			return false;
		if (sqlite3_column_type(st, cx) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, cy) != SQLITE_INTEGER) {
			*d = sqlite3_column_double(st, cx) - sqlite3_column_double(st, cy);
			return true;
		}
		x = sqlite3_column_int64(st, cx);
		y = sqlite3_column_int64(st, cy);
	}
	*d = __builtin_sub_overflow(x, y, &v) ? (double)x - (double)y : (double)v;
	return true;
}

int ntp_evidence__add(struct ntp_evidence_acc *a, sqlite3_stmt *st, const struct ntp_evidence_in *in)
{
	/* each column read once, by value: every sqlite3_column_*() call costs its own */
	sqlite3_value *ctrl = sqlite3_column_value(st, in->first);
	sqlite3_value *qid = sqlite3_column_value(st, in->first + 1);
	sqlite3_value *status = sqlite3_column_value(st, in->first + 2);
	sqlite3_value *deferred = sqlite3_column_value(st, in->first + 3);
	sqlite3_value *pid = sqlite3_column_value(st, in->first + 4);
	sqlite3_value *off_cpu = sqlite3_column_value(st, in->first + 5);
	struct hkey k = { in->io_type, in->ns, sqlite3_value_text(ctrl), in->bytes,
			  sqlite3_value_int64(qid) };
	struct ntp_evidence_row *g, *q;
	int64_t start = in->start, done = in->done;
	size_t before = a->groups.n;
	double d;
	int added;

	g = in->group ? by_group(a, &k, in->group - 1) : hmap_get(&a->groups, &k, false);
	if (!g)
		return -ENOMEM;
	if (a->max_rows && a->groups.n > a->max_rows && a->groups.n > before)
		return NTP_EVIDENCE_FULL;
	q = in->group ? &a->queues.a[g->qi] : hmap_get(&a->queues, &k, true);
	if (!q)
		return -ENOMEM;
	a->rows++;
	if (!in->ints) {
		start = col_null(st, in->col_start) ? INT64_MAX : sqlite3_column_int64(st, in->col_start);
		done = col_null(st, in->col_done) ? INT64_MIN : sqlite3_column_int64(st, in->col_done);
	}
	if (start < a->first_start)
		a->first_start = start;
	if (done > a->last_done)
		a->last_done = done;
	g->n++;
	q->n++;
	if (sqlite3_value_type(status) != SQLITE_NULL && sqlite3_value_int64(status) != 0) {
		int64_t s = sqlite3_value_int64(status);

		g->errors++;
		if (!g->has_status || s < g->first_status)
			g->first_status = s;
		g->has_status = true;
	}
	if (sqlite3_value_type(deferred) != SQLITE_NULL) {
		bool def = sqlite3_value_int(deferred);

		if (def)
			g->deferred++;
		else
			g->inline_sends++;
		if (diff(st, in, in->sent, in->queue, in->col_sent, in->col_queue, &d)) {
			if (def)
				g->deferred_sum += d;
			else
				g->inline_sum += d;
		}
	}
	if (sqlite3_value_type(off_cpu) != SQLITE_NULL) {
		bool off = sqlite3_value_int(off_cpu);

		if (off)
			g->off_cpu++;
		else
			g->on_cpu++;
		if (diff(st, in, in->sent, in->queue, in->col_sent, in->col_queue, &d)) {
			if (off)
				g->off_cpu_sum += d;
			else
				g->on_cpu_sum += d;
		}
	}
	if (diff(st, in, in->done, in->queue, in->col_done, in->col_queue, &d)) {
		q->mean_sum += d;
		q->mean_n++;
	}
	if (sqlite3_value_type(pid) == SQLITE_NULL)
		return 0;
	added = pidset_add(&a->pids, (size_t)(q - a->queues.a), sqlite3_value_int64(pid));
	if (added < 0)
		return added;
	q->pids += added;
	return 0;
}

/* src's sums into dst, whose key is the same */
static void add_row(struct ntp_evidence_row *dst, const struct ntp_evidence_row *src)
{
	dst->n += src->n;
	dst->errors += src->errors;
	if (src->has_status && (!dst->has_status || src->first_status < dst->first_status))
		dst->first_status = src->first_status;
	dst->has_status |= src->has_status;
	dst->deferred += src->deferred;
	dst->inline_sends += src->inline_sends;
	dst->deferred_sum += src->deferred_sum;
	dst->inline_sum += src->inline_sum;
	dst->off_cpu += src->off_cpu;
	dst->on_cpu += src->on_cpu;
	dst->off_cpu_sum += src->off_cpu_sum;
	dst->on_cpu_sum += src->on_cpu_sum;
	dst->mean_sum += src->mean_sum;
	dst->mean_n += src->mean_n;
}

int ntp_evidence__merge(struct ntp_evidence_acc *dst, const struct ntp_evidence_acc *src)
{
	for (size_t i = 0; i < src->groups.n; i++) {
		struct hkey k = key_of(&src->groups.a[i]);
		struct ntp_evidence_row *g = hmap_get(&dst->groups, &k, false);

		if (!g)
			return -ENOMEM;
		add_row(g, &src->groups.a[i]);
	}
	for (size_t i = 0; i < src->queues.n; i++) {
		struct hkey k = key_of(&src->queues.a[i]);
		struct ntp_evidence_row *q = hmap_get(&dst->queues, &k, true);

		if (!q)
			return -ENOMEM;
		add_row(q, &src->queues.a[i]);
	}
	/* each (queue, process) of src, by its queue's key, once in dst */
	for (size_t i = 0; i < src->pids.cap; i++) {
		uint64_t v = src->pids.v[i];
		struct ntp_evidence_row *q;
		struct hkey k;
		int added;

		if (!v)
			continue;
		k = key_of(&src->queues.a[(v >> 32) - 1]);
		q = hmap_get(&dst->queues, &k, true);
		if (!q)
			return -ENOMEM;
		added = pidset_add(&dst->pids, (size_t)(q - dst->queues.a), (int64_t)(uint32_t)v);
		if (added < 0)
			return added;
		q->pids += added;
	}
	dst->rows += src->rows;
	if (src->first_start < dst->first_start)
		dst->first_start = src->first_start;
	if (src->last_done > dst->last_done)
		dst->last_done = src->last_done;
	return 0;
}

/* SQL's order of two texts: NULL first, then BINARY */
static int text_cmp(const char *a, bool an, const char *b, bool bn)
{
	if (an || bn)
		return an == bn ? 0 : an ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_int(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* GROUP BY controller, qid's order */
static int cmp_queue_row(const void *pa, const void *pb)
{
	const struct ntp_evidence_row *a = pa, *b = pb;
	int c = text_cmp(a->ctrl, a->null_ctrl, b->ctrl, b->null_ctrl);

	return c ? c : cmp_int(a->qid, b->qid);
}

/* GROUP BY io_type, bytes, namespace, controller, qid's order */
static int cmp_group_row(const void *pa, const void *pb)
{
	const struct ntp_evidence_row *a = pa, *b = pb;
	int c = text_cmp(a->io_type, a->null_io, b->io_type, b->null_io);

	if (!c)
		c = cmp_int(a->bytes, b->bytes);
	if (!c)
		c = text_cmp(a->ns, a->null_ns, b->ns, b->null_ns);
	return c ? c : cmp_queue_row(pa, pb);
}

int ntp_evidence__finish(struct ntp_evidence_acc *a, bool pid, struct ntp_evidence **out)
{
	struct ntp_evidence *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (!e) {
		ntp_evidence__acc_free(a);
		return -ENOMEM;
	}
	e->groups = a->groups.a;
	e->ngroups = a->groups.n;
	e->queues = a->queues.a;
	e->nqueues = a->queues.n;
	e->pid = pid;
	e->rows = a->rows;
	e->first_start = a->first_start;
	e->last_done = a->last_done;
	if (e->ngroups)
		qsort(e->groups, e->ngroups, sizeof(*e->groups), cmp_group_row);
	if (e->nqueues)
		qsort(e->queues, e->nqueues, sizeof(*e->queues), cmp_queue_row);
	free(a->groups.slot);
	free(a->queues.slot);
	free(a->pids.v);
	free(a->by_group);
	free(a);
	*out = e;
	return 0;
}

void ntp_evidence__free(struct ntp_evidence *e)
{
	if (!e)
		return;
	rows_free(e->groups, e->ngroups);
	rows_free(e->queues, e->nqueues);
	free(e);
}

/* the columns the read filters test, in the FROM's rows */
static const struct ntp_read_cols host_cols = {
	.io_type = "io_type", .bytes = "bytes", .qid = "qid",
	.names = { "namespace", "path" }, .time = "h_start_ns",
};

int ntp_evidence__scan(struct ntp_report *r, struct ntp_source *s, int i)
{
	const char *schema = s->files[i].schema, *path = s->files[i].path;
	struct ntp_read_where where = { .f = r->filter, .cols = &host_cols };
	struct ntp_evidence_acc *a;
	/* only --by's table reads the tag count */
	unsigned cols = ntp_evidence__cols(s->db, schema) & ~NTP_EVIDENCE_BUSY;
	bool pid = cols & NTP_EVIDENCE_PID;
	char view[64], from[512], sql[1024];
	sqlite3_stmt *st;
	int rc;

	rc = ntp_read_filter__starts(&where, s->db, &schema, 1, false, path);
	if (rc)
		return rc;
	ntp_db__view_name(view, sizeof(view), schema, NTP_DB_HOST_STAGES);
	ntp_evidence__from(from, sizeof(from), view, schema, cols);
	snprintf(sql, sizeof(sql), "SELECT io_type, bytes, namespace, h_start_ns, h_queue_ns,"
		 " sent_ns, h_done_ns, " NTP_EVIDENCE_COLS " FROM %s WHERE 1", from);
	a = ntp_evidence__acc_new(0);
	if (!a)
		goto nomem;
	if (ntp_read_filter__prepare(s->db, sql, r->filter ? &where : NULL, NULL, &st)) {
		ntp_evidence__acc_free(a);
		return ntp_report__db_fail(s->db, path, "cannot read the commands' evidence");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t p[4];
		struct ntp_evidence_in in = {
			sqlite3_column_text(st, 0), sqlite3_column_text(st, 2),
			sqlite3_column_int64(st, 1), .col_start = 3, .col_queue = 4, .col_sent = 5,
			.col_done = 6, .first = 7,
		};

		in.ints = ntp_db__points(st, 3, 4, p) == NTP_DB_POINTS_INT;
		in.start = p[0];
		in.queue = p[1];
		in.sent = p[2];
		in.done = p[3];
		if (ntp_evidence__add(a, st, &in)) {
			rc = -ENOMEM;
			break;
		}
	}
	if (rc == -ENOMEM) {
		sqlite3_finalize(st);
		ntp_evidence__acc_free(a);
		goto nomem;
	}
	rc = ntp_report__rows_end(s->db, path, st, rc, "cannot read the commands' evidence");
	if (rc) {
		ntp_evidence__acc_free(a);
		return rc;
	}
	if (ntp_evidence__finish(a, pid, &r->files[i].evidence))
		goto nomem;
	return 0;
nomem:
	ntp_error("%s: cannot read the commands' evidence: %s", path, strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}
