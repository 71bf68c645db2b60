// SPDX-License-Identifier: GPL-2.0
/*
 * The lines `record` prints while recording, and the live host/target
 * matcher of -r both (lib/record/live.h).
 *
 * Per interval each group keeps exact integer sums of its stages and of its
 * end-to-end latency, and every end-to-end sample for the p99; groups idle
 * for a whole interval are freed, so memory follows the sampled rate of one
 * interval, not the length of the recording.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/group_order.h"
#include "lib/core/size.h"
#include "lib/core/stat_table.h"
#include "lib/core/stages.h"
#include "lib/core/stats.h"
#include "lib/fmt/number.h"
#include "lib/record/live.h"

/* ---- the lines ------------------------------------------------------------ */

/* the share columns, in the order of the line */
enum { C_BLOCK, C_DRIVER, C_NETWORK, C_TDRIVER, C_STORAGE, NSTAGES };

/* every column of a line; the widths reproduce ntprof-record(1)'s example */
enum { F_TIME, F_GROUP, F_N, F_RATE, F_MEAN, F_P99, F_SHARE0, F_APP = F_SHARE0 + NSTAGES, NFIELDS };
/* a line is its time, then a row's cells in their order */
_Static_assert(NSTAGES == NTP_LIVE_NSTAGES && F_GROUP + NTP_LIVE_CELL_APP == F_APP,
	       "the fields of a line are the time and the cells of a row");
static const struct field {
	const char *name;
	int width;              /* negative: left-aligned */
} fields[NFIELDS] = {
	[F_TIME] = { "time", 8 },
	[F_GROUP] = { "group", -22 },
	[F_N] = { "n", 6 },
	[F_RATE] = { "cmds/s", 8 },
	[F_MEAN] = { "mean us", 9 },
	[F_P99] = { "p99 us", 9 },
	[F_SHARE0 + C_BLOCK] = { "block", 7 },
	[F_SHARE0 + C_DRIVER] = { "driver", 7 },
	[F_SHARE0 + C_NETWORK] = { "network", 7 },
	[F_SHARE0 + C_TDRIVER] = { "driver", 7 },
	[F_SHARE0 + C_STORAGE] = { "storage", 7 },
	[F_APP] = { "app us", 9 },
};

struct group {
	const char *io_type;            /* "read", "write", "other" */
	uint32_t bytes;
	char name[NTP_DISK_NAME_LEN + 1];
	size_t namelen;                 /* strlen(name), compared before the name */
	uint64_t n;
	int64_t sum_e2e;                /* target mode: summed residence */
	int64_t sum[NSTAGES];
	struct ntp_samples e2e;
	uint64_t n_app;                 /* host commands with the application's side */
	int64_t sum_app;                /* their summed app e2e */
};

/* the groups of one span: the current interval, or the whole run */
struct groupset {
	struct group *groups;
	size_t ngroups, cap;
	size_t last;                    /* the group of the previous event: usually the next one's */
};

struct ntp_live {
	enum ntp_live_mode mode;
	uint64_t sample_one_in;
	struct groupset cur;            /* since the previous tick (ntp_live__next) */
	struct groupset all;            /* since the start, with ntp_live__keep_total */
	bool keep_total;
	enum ntp_live_by by;
	bool header_done;
	int err;                        /* of ntp_live__on_pair, which cannot return one */
};

struct ntp_live *ntp_live__new(enum ntp_live_mode mode, uint64_t sample_one_in)
{
	struct ntp_live *l;

	if (sample_one_in == 0 || (mode != NTP_LIVE_HOST && mode != NTP_LIVE_TARGET &&
				   mode != NTP_LIVE_JOINED)) {
		errno = EINVAL;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->mode = mode;
	l->sample_one_in = sample_one_in;
	return l;
}

static void groupset_free(struct groupset *gs)
{
	for (size_t i = 0; i < gs->ngroups; i++)
		ntp_samples__free(&gs->groups[i].e2e);
	free(gs->groups);
}

void ntp_live__free(struct ntp_live *l)
{
	if (!l)
		return;
	groupset_free(&l->cur);
	groupset_free(&l->all);
	free(l);
}

void ntp_live__keep_total(struct ntp_live *l)
{
	l->keep_total = true;
}

int ntp_live__set_by(struct ntp_live *l, enum ntp_live_by by)
{
	if (by < NTP_LIVE_BY_GROUP || by > NTP_LIVE_BY_IO_CPU)
		return -EINVAL;
	if (by != NTP_LIVE_BY_GROUP && l->mode == NTP_LIVE_TARGET)
		return -EINVAL;
	l->by = by;
	return 0;
}

/* the io_type of the views; "" for a row per queue or process */
#define NTP_LIVE_NO_OPCODE 0x100
static const char *io_type(unsigned int opcode)
{
	return opcode == NTP_LIVE_NO_OPCODE ? "" : opcode == 1 ? "write" : opcode == 2 ? "read" :
	       "other";
}

static struct group *find_group(struct groupset *l, const char *type, uint32_t bytes,
				const char *name, size_t namelen)
{
	struct group *g;

	namelen = strnlen(name, namelen);
	for (size_t k = 0; k < l->ngroups; k++) {
		size_t i = (l->last + k) % l->ngroups;

		g = &l->groups[i];
		if (g->io_type == type && g->bytes == bytes && g->namelen == namelen &&
		    !memcmp(g->name, name, namelen)) {
			l->last = i;
			return g;
		}
	}
	if (l->ngroups == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct group *ng = realloc(l->groups, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		l->groups = ng;
		l->cap = cap;
	}
	g = &l->groups[l->ngroups];
	memset(g, 0, sizeof(*g));
	g->io_type = type;
	g->bytes = bytes;
	memcpy(g->name, name, namelen);
	g->namelen = namelen;
	ntp_samples__init(&g->e2e);
	l->last = l->ngroups++;
	return g;
}

static int add_to(struct groupset *gs, unsigned int opcode, uint32_t bytes, const char *name,
		  size_t namelen, int64_t e2e, const int64_t *stage, bool has_app, int64_t app)
{
	struct group *g = find_group(gs, io_type(opcode), bytes, name, namelen);

	if (!g || ntp_samples__add(&g->e2e, e2e))
		return -ENOMEM;
	if (has_app) {
		g->n_app++;
		g->sum_app += app;
	}
	g->n++;
	g->sum_e2e += e2e;
	for (int c = 0; c < NSTAGES; c++)
		g->sum[c] += stage[c];
	return 0;
}

static int add(struct ntp_live *l, unsigned int opcode, uint32_t bytes, const char *name, size_t namelen,
	       int64_t e2e, const int64_t *stage, const struct ntp_host_event *h)
{
	char key[NTP_DISK_NAME_LEN + 1];
	int64_t app = 0;
	bool has_app = h && ntp_stages__app_e2e(h, &app);
	int err;

	/* per queue, process or CPU: the key is the name, as report --by names its rows */
	if (h && l->by != NTP_LIVE_BY_GROUP) {
		if (l->by == NTP_LIVE_BY_QUEUE)
			snprintf(key, sizeof(key), "nvme%u q%u", h->ctrl_instance, h->qid);
		else if (l->by == NTP_LIVE_BY_CPU && h->flags & NTP_HF_CPU)
			snprintf(key, sizeof(key), "cpu %u", h->cpu);
		else if (l->by == NTP_LIVE_BY_IO_CPU && h->flags & NTP_HF_IO_CPU)
			snprintf(key, sizeof(key), "io_cpu %u", h->io_cpu);
		else if (l->by == NTP_LIVE_BY_PROCESS && h->pid)
			snprintf(key, sizeof(key), "%.*s %u", (int)strnlen(h->comm, sizeof(h->comm)),
				 h->comm[0] ? h->comm : "-", h->pid);
		else
			snprintf(key, sizeof(key), "(not recorded)");
		opcode = NTP_LIVE_NO_OPCODE;
		bytes = 0;
		name = key;
		namelen = sizeof(key);
	}
	err = add_to(&l->cur, opcode, bytes, name, namelen, e2e, stage, has_app, app);
	if (!err && l->keep_total)
		err = add_to(&l->all, opcode, bytes, name, namelen, e2e, stage, has_app, app);
	return err;
}

int ntp_live__add_host(struct ntp_live *l, const struct ntp_host_event *e)
{
	struct ntp_host_stages s;
	int64_t v[NSTAGES] = { 0 };

	if (l->mode != NTP_LIVE_HOST)
		return -EINVAL;
	ntp_stages__host(e, &s);
	v[C_BLOCK] = s.block;
	v[C_DRIVER] = s.driver;
	v[C_NETWORK] = s.network_star;
	return add(l, e->opcode, e->bytes, e->disk, sizeof(e->disk), s.e2e, v, e);
}

int ntp_live__add_target(struct ntp_live *l, const struct ntp_target_event *e)
{
	struct ntp_target_stages s;
	int64_t v[NSTAGES] = { 0 };

	if (l->mode != NTP_LIVE_TARGET)
		return -EINVAL;
	ntp_stages__target(e, &s);
	v[C_TDRIVER] = s.target_driver;
	v[C_STORAGE] = s.storage;
	return add(l, e->opcode, e->bytes, e->device, sizeof(e->device), s.residence, v, NULL);
}

int ntp_live__add_pair(struct ntp_live *l, const struct ntp_host_event *h,
		       const struct ntp_target_event *t)
{
	struct ntp_joined_stages s;
	int64_t v[NSTAGES];

	if (l->mode != NTP_LIVE_JOINED)
		return -EINVAL;
	ntp_stages__joined(h, t, &s);
	v[C_BLOCK] = s.block;
	v[C_DRIVER] = s.driver;
	v[C_NETWORK] = s.network;
	v[C_TDRIVER] = s.target_driver;
	v[C_STORAGE] = s.storage;
	return add(l, h->opcode, h->bytes, h->disk, sizeof(h->disk), s.e2e, v, h);
}

void ntp_live__on_pair(void *live, const struct ntp_host_event *h, const struct ntp_target_event *t)
{
	struct ntp_live *l = live;
	int err = ntp_live__add_pair(l, h, t);

	if (err && !l->err)
		l->err = err;
}

/* 154, 15.5k, 1.2M; one decimal below 10 so that slow rates do not read "0" */
void ntp_live__rate_str(double r, char *buf, size_t len)
{
	if (r < 9.95)
		snprintf(buf, len, "%.1f", r);
	else if (r < 999.5)
		snprintf(buf, len, "%.0f", r);
	else if (r < 999950.0)
		snprintf(buf, len, "%.1fk", r / 1e3);
	else
		snprintf(buf, len, "%.1fM", r / 1e6);
}

/*
 * Whole percents of v[i] / sum(v) that add up to exactly 100: each share is
 * rounded down, then the shares with the largest remainders (ties: the
 * earlier stage) get one more until the total is 100 (Hamilton's method).
 * Exact integer arithmetic, so negative stages are fine as long as the sum
 * is positive.  Returns false when it is not.
 */
static bool shares(const int64_t *v, const bool *on, int *pct)
{
	__int128 total = 0, rem[NSTAGES];
	int left = 100;
	bool bumped[NSTAGES] = { false };

	for (int c = 0; c < NSTAGES; c++)
		if (on[c])
			total += v[c];
	if (total <= 0)
		return false;
	for (int c = 0; c < NSTAGES; c++) {
		__int128 a = (__int128)v[c] * 100, q;

		if (!on[c])
			continue;
		q = a / total;
		rem[c] = a % total;
		if (rem[c] < 0) {               /* C truncates toward zero: make it a floor */
			q--;
			rem[c] += total;
		}
		pct[c] = (int)q;
		left -= (int)q;
	}
	/* the remainders add up to left * total, and each is below total: left < NSTAGES */
	while (left-- > 0) {
		int best = -1;

		for (int c = 0; c < NSTAGES; c++)
			if (on[c] && !bumped[c] && (best < 0 || rem[c] > rem[best]))
				best = c;
		bumped[best] = true;
		pct[best]++;
	}
	return true;
}

/* append field i, right- or left-aligned in its width, after its separator */
static void put(char *line, size_t len, int i, const char *s)
{
	size_t at = strlen(line);
	const char *sep = i == 0 ? "" : i == F_GROUP ? "  " : " ";

	snprintf(line + at, len - at, "%s%*s", sep, fields[i].width, s);
}

static void print_trimmed(FILE *f, char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		n--;
	line[n] = '\0';
	fprintf(f, "%s\n", line);
}

static void print_header(const struct ntp_live *l, FILE *f)
{
	char line[256] = "";
	size_t start[NFIELDS], at = 0;

	for (int i = 0; i < NFIELDS; i++) {
		at += i == 0 ? 0 : i == F_GROUP ? 2 : 1;
		start[i] = at;
		at += (size_t)abs(fields[i].width);
	}
	memset(line, ' ', at);
	line[at] = '\0';
	/* the column-group labels sit where ntprof-record(1) shows them */
	memcpy(line + start[F_SHARE0 + C_BLOCK] + 5, "host", 4);
	memcpy(line + start[F_SHARE0 + C_TDRIVER] + 4, "target", 6);
	if (l->mode == NTP_LIVE_TARGET)
		memcpy(line + start[F_MEAN] + 5, "residence", 9);
	print_trimmed(f, line);
	line[0] = '\0';
	/* the target sees no application: no column for it */
	for (int i = 0; i < NFIELDS; i++)
		if (i != F_APP || l->mode != NTP_LIVE_TARGET)
			put(line, sizeof(line), i, fields[i].name);
	print_trimmed(f, line);
}

/* the stages a mode has */
static void stages_on(enum ntp_live_mode mode, bool *on)
{
	for (int c = 0; c < NSTAGES; c++)
		on[c] = mode == NTP_LIVE_JOINED;
	if (mode == NTP_LIVE_HOST)
		on[C_BLOCK] = on[C_DRIVER] = on[C_NETWORK] = true;
	else if (mode == NTP_LIVE_TARGET)
		on[C_TDRIVER] = on[C_STORAGE] = true;
}

static void make_row(const struct ntp_live *l, struct group *g, double span_s,
		     struct ntp_live_row *r)
{
	memset(r, 0, sizeof(*r));
	r->io_type = g->io_type;
	r->bytes = g->bytes;
	memcpy(r->name, g->name, sizeof(r->name));
	r->n = g->n;
	r->rate = span_s > 0 ? (double)g->n * (double)l->sample_one_in / span_s : -1;
	r->sum_e2e = g->sum_e2e;
	/* the mean as whole ns, as the report shows it */
	r->mean_ns = llround((double)g->sum_e2e / (double)g->n);
	/* with fewer commands than it needs, a p99 would only repeat the maximum */
	r->p99_ns = g->n >= ntp_stat__pct_min_shown(99) ? ntp_samples__percentile(&g->e2e, 99) : -1;
	stages_on(l->mode, r->on);
	r->shares_ok = shares(g->sum, r->on, r->pct);
	r->n_app = g->n_app;
	r->app_mean_ns = g->n_app ? llround((double)g->sum_app / (double)g->n_app) : 0;
}

void ntp_live_row__cell(const struct ntp_live_row *r, enum ntp_live_mode mode,
			enum ntp_live_cell cell, char *buf, size_t len)
{
	char size[16];
	int c = (int)cell - NTP_LIVE_CELL_STAGE0;

	switch (cell) {
	case NTP_LIVE_CELL_GROUP:
		ntp_size__str(r->bytes, size, sizeof(size));
		if (r->io_type[0])
			snprintf(buf, len, "%s %s %s", r->io_type, size, r->name);
		else
			snprintf(buf, len, "%s", r->name);
		return;
	case NTP_LIVE_CELL_N:
		snprintf(buf, len, "%llu", (unsigned long long)r->n);
		return;
	case NTP_LIVE_CELL_RATE:
		if (r->rate >= 0)
			ntp_live__rate_str(r->rate, buf, len);
		else
			snprintf(buf, len, "-");
		return;
	case NTP_LIVE_CELL_MEAN:
		ntp_num__us(buf, len, r->mean_ns, 2);
		return;
	case NTP_LIVE_CELL_P99:
		if (r->p99_ns >= 0)
			ntp_num__us(buf, len, r->p99_ns, 2);
		else
			snprintf(buf, len, "-");
		return;
	case NTP_LIVE_CELL_APP:
		if (r->n_app)
			ntp_num__us(buf, len, r->app_mean_ns, 2);
		else
			snprintf(buf, len, "-");
		return;
	default:
		break;
	}
	if (c < 0 || c >= NSTAGES || !r->on[c])
		snprintf(buf, len, "%s", "");
	else if (!r->shares_ok)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d%%%s", r->pct[c],
			 c == C_NETWORK && mode == NTP_LIVE_HOST ? "*" : "");
}

static void print_row(const struct ntp_live *l, FILE *f, const struct ntp_live_row *r,
		      double elapsed_s)
{
	char line[256] = "", buf[64];

	snprintf(buf, sizeof(buf), "%.1fs", elapsed_s);
	put(line, sizeof(line), F_TIME, buf);
	/* the cells from the group on are the fields from F_GROUP on */
	for (int c = NTP_LIVE_CELL_GROUP; c < NTP_LIVE_CELL_APP; c++) {
		ntp_live_row__cell(r, l->mode, (enum ntp_live_cell)c, buf, sizeof(buf));
		put(line, sizeof(line), F_GROUP + c, buf);
	}
	/* the application's end-to-end, of the commands that have it; none: blank */
	if (r->n_app) {
		ntp_live_row__cell(r, l->mode, NTP_LIVE_CELL_APP, buf, sizeof(buf));
		put(line, sizeof(line), F_APP, buf);
	}
	print_trimmed(f, line);
}

/* the report's order (lib/core/group_order.h) */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return ntp_group__order(x->name, x->io_type, x->bytes, y->name, y->io_type, y->bytes);
}

int ntp_live__rows(struct ntp_live *l, bool total, double span_s, struct ntp_live_row **rows,
		   size_t *n)
{
	struct groupset *gs = total ? &l->all : &l->cur;
	struct ntp_live_row *r;
	size_t k = 0;

	*rows = NULL;
	*n = 0;
	if (total && !l->keep_total)
		return -EINVAL;
	if (l->err) {
		int err = l->err;

		l->err = 0;
		return err;
	}
	if (!gs->ngroups)
		return 0;
	qsort(gs->groups, gs->ngroups, sizeof(*gs->groups), cmp_group);
	gs->last = 0;
	r = calloc(gs->ngroups, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < gs->ngroups; i++)
		if (gs->groups[i].n)
			make_row(l, &gs->groups[i], span_s, &r[k++]);
	if (!k) {
		free(r);
		return 0;
	}
	*rows = r;
	*n = k;
	return 0;
}

void ntp_live__next(struct ntp_live *l)
{
	struct groupset *gs = &l->cur;
	size_t kept = 0;

	/* the groups idle for this whole interval are freed, the others emptied */
	for (size_t i = 0; i < gs->ngroups; i++) {
		struct group *g = &gs->groups[i];

		if (!g->n) {
			ntp_samples__free(&g->e2e);
			continue;
		}
		g->n = 0;
		g->sum_e2e = 0;
		memset(g->sum, 0, sizeof(g->sum));
		g->n_app = 0;
		g->sum_app = 0;
		ntp_samples__reset(&g->e2e);
		gs->groups[kept++] = *g;
	}
	gs->ngroups = kept;
	gs->last = 0;
}

int ntp_live__tick(struct ntp_live *l, FILE *f, double elapsed_s, double interval_s)
{
	struct ntp_live_row *rows;
	size_t n;
	int err = ntp_live__rows(l, false, interval_s, &rows, &n);

	if (err)
		return err;
	ntp_live__next(l);
	if (!n)
		return 0;
	if (!l->header_done) {
		print_header(l, f);
		l->header_done = true;
	}
	for (size_t i = 0; i < n; i++)
		print_row(l, f, &rows[i], elapsed_s);
	free(rows);
	fflush(f);
	return ferror(f) ? -EIO : (int)n;
}

/* ---- the matcher ---------------------------------------------------------- */

struct mkey {
	uint64_t slba;
	uint32_t nsid;
	uint16_t cid, nlb0, qid, cntlid;
	uint8_t opcode;
};

struct slot {
	struct mkey key;
	uint64_t lo, hi;        /* host: the flight [h_queue, h_recv]; target: t_recv, t_recv */
	uint64_t done;          /* completion, for expiry */
	int32_t next;           /* hash chain; -1 ends it */
	bool live;
};

/*
 * One side's pending events: a ring in arrival order (so the oldest is at
 * the head, to evict when full), indexed by a chained hash of the key.
 * Matched and expired events leave holes that the head skips.
 */
struct side {
	struct slot *slots;
	char *ev;               /* the events, ev_size bytes each, parallel to slots */
	size_t ev_size;
	int32_t *bucket;
	size_t head, used;      /* ring positions [head, head + used) */
	uint64_t pending, unmatched;
};

struct ntp_live_match {
	size_t cap, mask;
	uint64_t hold_ns;
	ntp_live_match_cb cb;
	void *ctx;
	struct side host, target;
	uint64_t matched, evicted;
};

static struct mkey host_key(const struct ntp_host_event *e)
{
	return (struct mkey){ .slba = e->slba, .nsid = e->nsid, .cid = e->cid, .nlb0 = e->nlb0,
			      .qid = e->qid, .cntlid = e->cntlid, .opcode = e->opcode };
}

static struct mkey target_key(const struct ntp_target_event *e)
{
	return (struct mkey){ .slba = e->slba, .nsid = e->nsid, .cid = e->cid, .nlb0 = e->nlb0,
			      .qid = e->qid, .cntlid = e->cntlid, .opcode = e->opcode };
}

static bool key_eq(const struct mkey *a, const struct mkey *b)
{
	return a->slba == b->slba && a->nsid == b->nsid && a->cid == b->cid && a->nlb0 == b->nlb0 &&
	       a->qid == b->qid && a->cntlid == b->cntlid && a->opcode == b->opcode;
}

static size_t key_hash(const struct ntp_live_match *m, const struct mkey *k)
{
	uint64_t h = k->slba ^ ((uint64_t)k->cid << 48) ^ ((uint64_t)k->qid << 32) ^
		     ((uint64_t)k->nlb0 << 16) ^ ((uint64_t)k->cntlid << 40) ^
		     ((uint64_t)k->nsid << 24) ^ k->opcode;

	/* splitmix64's finalizer: every input bit moves the bucket */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (size_t)h & m->mask;
}

static int side_init(struct side *s, size_t cap, size_t nbuckets, size_t ev_size)
{
	s->slots = calloc(cap, sizeof(*s->slots));
	s->ev = calloc(cap, ev_size);
	s->bucket = malloc(nbuckets * sizeof(*s->bucket));
	s->ev_size = ev_size;
	if (!s->slots || !s->ev || !s->bucket)
		return -ENOMEM;
	for (size_t i = 0; i < nbuckets; i++)
		s->bucket[i] = -1;
	return 0;
}

static void side_free(struct side *s)
{
	free(s->slots);
	free(s->ev);
	free(s->bucket);
}

struct ntp_live_match *ntp_live_match__new(size_t capacity, uint64_t hold_ns,
					   ntp_live_match_cb cb, void *ctx)
{
	struct ntp_live_match *m;
	size_t nb = 1;

	if (!capacity || capacity > (1u << 30) || !cb) {
		errno = EINVAL;
		return NULL;
	}
	while (nb < capacity)
		nb <<= 1;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cap = capacity;
	m->mask = nb - 1;
	m->hold_ns = hold_ns;
	m->cb = cb;
	m->ctx = ctx;
	if (side_init(&m->host, capacity, nb, sizeof(struct ntp_host_event)) ||
	    side_init(&m->target, capacity, nb, sizeof(struct ntp_target_event))) {
		ntp_live_match__free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void ntp_live_match__free(struct ntp_live_match *m)
{
	if (!m)
		return;
	side_free(&m->host);
	side_free(&m->target);
	free(m);
}

/* take slot pos out of its chain; the head moves past the holes it leaves */
static void drop(struct ntp_live_match *m, struct side *s, size_t pos)
{
	int32_t *p = &s->bucket[key_hash(m, &s->slots[pos].key)];

	while (*p != (int32_t)pos)
		p = &s->slots[*p].next;
	*p = s->slots[pos].next;
	s->slots[pos].live = false;
	s->pending--;
	while (s->used && !s->slots[s->head].live) {
		s->head = (s->head + 1) % m->cap;
		s->used--;
	}
}

static void keep(struct ntp_live_match *m, struct side *s, const struct mkey *k, uint64_t lo,
		 uint64_t hi, uint64_t done, const void *ev)
{
	size_t pos, b;

	if (s->used == m->cap) {
		/* full, and the head is live (holes at the head are skipped): evict it */
		m->evicted++;
		s->unmatched++;
		drop(m, s, s->head);
	}
	pos = (s->head + s->used) % m->cap;
	b = key_hash(m, k);
	s->slots[pos] = (struct slot){ .key = *k, .lo = lo, .hi = hi, .done = done,
				       .next = s->bucket[b], .live = true };
	s->bucket[b] = (int32_t)pos;
	memcpy(s->ev + pos * s->ev_size, ev, s->ev_size);
	s->used++;
	s->pending++;
}

/* the pending slot of s with key k whose [lo, hi] meets [lo, hi] given, or -1 */
static long find(const struct ntp_live_match *m, const struct side *s, const struct mkey *k,
		 uint64_t lo, uint64_t hi)
{
	for (int32_t p = s->bucket[key_hash(m, k)]; p >= 0; p = s->slots[p].next) {
		const struct slot *sl = &s->slots[p];

		if (key_eq(&sl->key, k) && sl->lo <= hi && lo <= sl->hi)
			return p;
	}
	return -1;
}

int ntp_live_match__add_host(struct ntp_live_match *m, const struct ntp_host_event *e)
{
	struct mkey k = host_key(e);
	uint64_t hi = e->h_recv ? e->h_recv : e->h_done;
	long p = find(m, &m->target, &k, e->h_queue, hi);

	if (p < 0) {
		keep(m, &m->host, &k, e->h_queue, hi, e->h_done, e);
		return 0;
	}
	m->cb(m->ctx, e, (const void *)(m->target.ev + (size_t)p * m->target.ev_size));
	drop(m, &m->target, (size_t)p);
	m->matched++;
	return 1;
}

int ntp_live_match__add_target(struct ntp_live_match *m, const struct ntp_target_event *e)
{
	struct mkey k = target_key(e);
	long p = find(m, &m->host, &k, e->t_recv, e->t_recv);

	if (p < 0) {
		keep(m, &m->target, &k, e->t_recv, e->t_recv, e->t_sent, e);
		return 0;
	}
	m->cb(m->ctx, (const void *)(m->host.ev + (size_t)p * m->host.ev_size), e);
	drop(m, &m->host, (size_t)p);
	m->matched++;
	return 1;
}

static void expire_side(struct ntp_live_match *m, struct side *s, uint64_t now_ns)
{
	size_t n = s->used, start = s->head;

	for (size_t i = 0; i < n; i++) {
		size_t pos = (start + i) % m->cap;
		const struct slot *sl = &s->slots[pos];

		if (sl->live && now_ns > sl->done && now_ns - sl->done > m->hold_ns) {
			s->unmatched++;
			drop(m, s, pos);
		}
	}
}

void ntp_live_match__expire(struct ntp_live_match *m, uint64_t now_ns)
{
	expire_side(m, &m->host, now_ns);
	expire_side(m, &m->target, now_ns);
}

void ntp_live_match__stats(const struct ntp_live_match *m, struct ntp_live_match_stats *s)
{
	s->matched = m->matched;
	s->host_unmatched = m->host.unmatched;
	s->target_unmatched = m->target.unmatched;
	s->evicted = m->evicted;
	s->host_pending = m->host.pending;
	s->target_pending = m->target.pending;
}
