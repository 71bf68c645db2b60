// SPDX-License-Identifier: GPL-2.0
/*
 * When nothing passes the read filters (model_filter.h): what the
 * recordings hold that the filters test, said on stderr, so that a name
 * given as the controller (nvme0) or the device node (/dev/nvme0n1), or a
 * size or type that is not there, is seen at once rather than guessed at.
 *
 * Read from the same stage views the readers read, one GROUP BY a file:
 * a host side's namespaces and paths, a target alone's devices, and of
 * both the I/O types, sizes, queue ids and the span of the commands'
 * starts, from each file's start as --time measures it.  Only a target
 * recording alone is read by its target side: joined commands are
 * filtered by their host's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/core/size.h"
#include "lib/model/model_filter.h"
#include "lib/model/model_filter_opt.h"
#include "lib/model/model_source.h"
#include "lib/ntp/db_own.h"

/* the most values of one kind said; the rest are counted */
#define NONE_MAX_SAID 12

struct names {
	char **v;
	size_t n, cap;
};

struct ints {
	int64_t *v;
	size_t n, cap;
};

/* what the recordings hold */
struct held {
	struct names names, paths;    /* namespaces (a target alone: devices), multipath paths */
	unsigned int io_types;        /* enum ntp_read_io */
	struct ints sizes, qids;
	bool any;                     /* a command */
	bool span;                    /* lo_ns..hi_ns known */
	int64_t lo_ns, hi_ns;         /* the starts, from each file's start */
	bool failed;                  /* out of memory, or a file that could not be read */
};

static void names_add(struct held *h, struct names *n, const char *s)
{
	char *d;

	if (!s || !*s)
		return;
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i], s))
			return;
	if (n->n == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 16;
		char **v = realloc(n->v, cap * sizeof(*v));

		if (!v) {
			h->failed = true;
			return;
		}
		n->v = v;
		n->cap = cap;
	}
	d = strdup(s);
	if (!d)
		h->failed = true;
	else
		n->v[n->n++] = d;
}

static void ints_add(struct held *h, struct ints *n, int64_t x)
{
	for (size_t i = 0; i < n->n; i++)
		if (n->v[i] == x)
			return;
	if (n->n == n->cap) {
		size_t cap = n->cap ? 2 * n->cap : 16;
		int64_t *v = realloc(n->v, cap * sizeof(*v));

		if (!v) {
			h->failed = true;
			return;
		}
		n->v = v;
		n->cap = cap;
	}
	n->v[n->n++] = x;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* one file's commands, by its host side's view (or a target alone's) */
static void read_file(struct held *h, sqlite3 *db, const char *schema, const char *path,
		      bool target)
{
	char view[64], sql[320];
	sqlite3_stmt *st;
	int64_t start;
	int rc;

	if (ntp_read_filter__file_start(db, schema, target, path, &start)) {
		h->failed = true;
		return;
	}
	ntp_db__view_name(view, sizeof(view), schema, target ? NTP_DB_TARGET_STAGES :
			  NTP_DB_HOST_STAGES);
	snprintf(sql, sizeof(sql), target ?
		 "SELECT io_type, bytes, qid, device, NULL, min(t_recv_ns), max(t_recv_ns)"
		 " FROM \"%s\" GROUP BY 1, 2, 3, 4" :
		 "SELECT io_type, bytes, qid, namespace, path, min(h_start_ns), max(h_start_ns)"
		 " FROM \"%s\" GROUP BY 1, 2, 3, 4, 5", view);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		h->failed = true;
		return;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *io = (const char *)sqlite3_column_text(st, 0);
		const char *ns = (const char *)sqlite3_column_text(st, 3);
		const char *p = (const char *)sqlite3_column_text(st, 4);
		int64_t lo = sqlite3_column_int64(st, 5) - start;
		int64_t hi = sqlite3_column_int64(st, 6) - start;

		h->any = true;
		for (int k = 0; io && ntp_read_io_names[k]; k++)
			if (!strcmp(io, ntp_read_io_names[k]))
				h->io_types |= 1u << k;
		ints_add(h, &h->sizes, sqlite3_column_int64(st, 1));
		ints_add(h, &h->qids, sqlite3_column_int64(st, 2));
		names_add(h, &h->names, ns);
		/* a path disk only where it is not the namespace's own name */
		if (p && (!ns || strcmp(p, ns)))
			names_add(h, &h->paths, p);
		if (!h->span || lo < h->lo_ns)
			h->lo_ns = lo;
		if (!h->span || hi > h->hi_ns)
			h->hi_ns = hi;
		h->span = true;
	}
	if (rc != SQLITE_DONE)
		h->failed = true;
	sqlite3_finalize(st);
}

/* sorted, comma-separated as --session takes them */
static void say_names(FILE *m, struct names *n)
{
	qsort(n->v, n->n, sizeof(*n->v), by_name);
	for (size_t i = 0; i < n->n && i < NONE_MAX_SAID; i++)
		fprintf(m, "%s%s", i ? "," : "", n->v[i]);
	if (n->n > NONE_MAX_SAID)
		fprintf(m, " and %zu more", n->n - NONE_MAX_SAID);
}

static void say_sizes(FILE *m, struct ints *n)
{
	char size[32];

	qsort(n->v, n->n, sizeof(*n->v), by_value);
	fputs("; sizes ", m);
	for (size_t i = 0; i < n->n && i < NONE_MAX_SAID; i++) {
		ntp_size__str(n->v[i], size, sizeof(size));
		fprintf(m, "%s%s", i ? "," : "", size);
	}
	if (n->n > NONE_MAX_SAID)
		fprintf(m, " and %zu more", n->n - NONE_MAX_SAID);
}

/* the queue ids as --qid takes them: runs as ranges, "1-4,7" */
static void say_qids(FILE *m, struct ints *n)
{
	qsort(n->v, n->n, sizeof(*n->v), by_value);
	fputs("; queues ", m);
	for (size_t i = 0; i < n->n;) {
		size_t j = i;

		while (j + 1 < n->n && n->v[j + 1] == n->v[j] + 1)
			j++;
		fprintf(m, "%s%" PRId64, i ? "," : "", n->v[i]);
		if (j > i)
			fprintf(m, "-%" PRId64, n->v[j]);
		i = j + 1;
	}
}

/* "WHO namespaces a,b; paths c; I/O types read; sizes 4KiB; queues 1-4; commands started ..." */
static void say(struct held *h, const char *who, bool target, char *buf, size_t len)
{
	FILE *m = fmemopen(buf, len, "w");

	if (!m) {
		buf[0] = '\0';
		return;
	}
	if (!h->any) {
		fprintf(m, "%s no commands", who);
	} else {
		fprintf(m, "%s %s ", who, target ? "devices" : "namespaces");
		say_names(m, &h->names);
		if (h->paths.n) {
			fputs("; paths ", m);
			say_names(m, &h->paths);
		}
		fputs("; I/O types ", m);
		for (int k = 0, n = 0; ntp_read_io_names[k]; k++)
			if (h->io_types & (1u << k))
				fprintf(m, "%s%s", n++ ? "," : "", ntp_read_io_names[k]);
		say_sizes(m, &h->sizes);
		say_qids(m, &h->qids);
		if (h->span)
			fprintf(m, "; commands started %.3f to %.3f s from the start",
				(double)h->lo_ns / 1e9, (double)h->hi_ns / 1e9);
	}
	fclose(m);
	buf[len - 1] = '\0';
}

static void held_free(struct held *h)
{
	for (size_t i = 0; i < h->names.n; i++)
		free(h->names.v[i]);
	for (size_t i = 0; i < h->paths.n; i++)
		free(h->paths.v[i]);
	free(h->names.v);
	free(h->paths.v);
	free(h->sizes.v);
	free(h->qids.v);
}

void ntp_read_filter__warn_none(const struct ntp_source *s, const struct ntp_read_filter *f,
				const char *run)
{
	bool target = s->kind == NTP_KIND_TARGET;
	struct held h = { 0 };
	char what[1024], who[160], line[2048];

	ntp_read_filter__describe(f, what, sizeof(what));
	ntp_warn("%sno commands pass the read filters (%s)", run ? run : "", what);
	/* a source of no files (the fleet's engine) has nothing more to say */
	if (!s->db)
		return;
	for (int i = 0; i < s->n; i++)
		if (target || (s->files[i].sides & NTP_SIDE_HOST))
			read_file(&h, s->db, s->files[i].schema, s->files[i].path, target);
	if (!h.failed) {
		snprintf(who, sizeof(who), "%s%s %s", run ? run : "",
			 s->n > 1 ? "the recordings" : "the recording", s->n > 1 ? "have" : "has");
		say(&h, who, target, line, sizeof(line));
		ntp_warn("%s", line);
	}
	held_free(&h);
}
