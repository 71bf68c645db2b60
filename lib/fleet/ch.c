// SPDX-License-Identifier: GPL-2.0
/*
 * A ClickHouse server over HTTP (lib/fleet/ch.h), with libcurl's easy
 * interface: one handle, so that one connection (and one TLS session) is
 * kept for every statement of a command.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fleet/ch.h"

/* a body sent from several buffers in turn: a Native block's headers and columns */
struct body_seg {
	const unsigned char *p;
	size_t len;
};

struct body {
	struct body_seg *seg;
	int nseg, at;
	size_t off;
};

/* an insert on a thread of its own (ntp_ch__insert_async) */
struct pending {
	pthread_t thread;
	bool running;
	const char *table;
	const struct ntp_ch_block *block;
	unsigned flags;
	int err;
	char msg[1024];
};

struct ntp_ch {
	CURL *curl;
	struct pending async;
	char *url;                /* as given */
	char *database;
	struct ntp_ch_reply *r;   /* the reply being read */
	struct ntp_ch_buf in;
	char errbuf[CURL_ERROR_SIZE];
};

/* ---- buffers ------------------------------------------------------------------ */

static void ntp_ch_buf__bytes(struct ntp_ch_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void ntp_ch_buf__free(struct ntp_ch_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* little-endian whatever the machine: RowBinary's order */
static void le(struct ntp_ch_buf *b, uint64_t v, int n)
{
	unsigned char x[8];

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!b->oom && b->len + (size_t)n <= b->cap) {
		memcpy(b->p + b->len, &v, (size_t)n);
		b->len += (size_t)n;
		return;
	}
#endif
	for (int i = 0; i < n; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	ntp_ch_buf__bytes(b, x, (size_t)n);
}

void ntp_ch_buf__u8(struct ntp_ch_buf *b, uint8_t v) { le(b, v, 1); }
void ntp_ch_buf__u16(struct ntp_ch_buf *b, uint16_t v) { le(b, v, 2); }
void ntp_ch_buf__u32(struct ntp_ch_buf *b, uint32_t v) { le(b, v, 4); }
void ntp_ch_buf__u64(struct ntp_ch_buf *b, uint64_t v) { le(b, v, 8); }
void ntp_ch_buf__i64(struct ntp_ch_buf *b, int64_t v) { le(b, (uint64_t)v, 8); }

void ntp_ch_buf__str(struct ntp_ch_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0, k = n;

	do {
		unsigned char c = k & 0x7f;

		k >>= 7;
		ntp_ch_buf__u8(b, c | (k ? 0x80 : 0));
	} while (k);
	ntp_ch_buf__bytes(b, s ? s : "", n);
}

void ntp_ch_buf__nstr(struct ntp_ch_buf *b, const char *s)
{
	ntp_ch_buf__u8(b, s ? 0 : 1);
	if (s)
		ntp_ch_buf__str(b, s);
}

void ntp_ch_buf__ni64(struct ntp_ch_buf *b, int64_t v, bool null)
{
	ntp_ch_buf__u8(b, null ? 1 : 0);
	if (!null)
		ntp_ch_buf__i64(b, v);
}

/* ---- the connection -------------------------------------------------------------- */

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct ntp_ch *ch = ctx;

	ntp_ch_buf__bytes(&ch->in, p, size * n);
	return ch->in.oom ? 0 : size * n;
}

int ntp_ch__open(struct ntp_ch **chp, const struct ntp_ch_opts *o)
{
	static int global_done;
	struct ntp_ch *ch;
	const char *rest;

	*chp = NULL;
	if (!o->url || (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8))) {
		ntp_error("--url '%s': not an http:// or https:// URL", o->url ? o->url : "");
		return NTP_EXIT_USAGE;
	}
	/* user:password@ in the URL would put the password in argv and in messages */
	rest = strstr(o->url, "://") + 3;
	if (strchr(rest, '@') && strchr(rest, '@') < (strchr(rest, '/') ?: rest + strlen(rest))) {
		ntp_error("--url: no user or password in the URL: --user NAME, and the password "
			  "in $NTPROF_FLEET_PASSWORD or --password-file");
		return NTP_EXIT_USAGE;
	}
	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			ntp_error("libcurl cannot start");
			return NTP_EXIT_FAILURE;
		}
		global_done = 1;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch || !(ch->url = strdup(o->url)) ||
	    !(ch->database = strdup(o->database ? o->database : "ntprof")) ||
	    !(ch->curl = curl_easy_init())) {
		ntp_error("%s: %s", o->url, strerror(ENOMEM));
		ntp_ch__close(ch);
		return NTP_EXIT_FAILURE;
	}
	curl_easy_setopt(ch->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(ch->curl, CURLOPT_ERRORBUFFER, ch->errbuf);
	curl_easy_setopt(ch->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(ch->curl, CURLOPT_WRITEDATA, ch);
	curl_easy_setopt(ch->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(ch->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(ch->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (o->timeout_s > 0)
		curl_easy_setopt(ch->curl, CURLOPT_TIMEOUT, o->timeout_s);
	if (o->user) {
		curl_easy_setopt(ch->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(ch->curl, CURLOPT_USERNAME, o->user);
		curl_easy_setopt(ch->curl, CURLOPT_PASSWORD, o->password ? o->password : "");
	}
	if (o->cacert)
		curl_easy_setopt(ch->curl, CURLOPT_CAINFO, o->cacert);
	*chp = ch;
	return 0;
}

void ntp_ch__close(struct ntp_ch *ch)
{
	if (!ch)
		return;
	ntp_ch__wait(ch);
	if (ch->curl)
		curl_easy_cleanup(ch->curl);
	ntp_ch_buf__free(&ch->in);
	free(ch->url);
	free(ch->database);
	free(ch);
}

const char *ntp_ch__url(const struct ntp_ch *ch)
{
	return ch->url;
}

const char *ntp_ch__database(const struct ntp_ch *ch)
{
	return ch->database;
}

void ntp_ch_reply__free(struct ntp_ch_reply *r)
{
	if (r) {
		free(r->body);
		memset(r, 0, sizeof(*r));
	}
}

/* "Code: 60, e.displayText() = DB::Exception: ...": 60, and the text after "DB::Exception: " */
static int server_code(const char *body, const char **what)
{
	const char *p = strstr(body, "Code: "), *e;

	*what = body;
	e = strstr(body, "DB::Exception: ");
	if (e)
		*what = e + 15;
	return p ? atoi(p + 6) : 0;
}

/* the server's message cut to its first line, without ClickHouse's trailer */
static void first_line(char *s)
{
	char *e = strstr(s, ", e.what()");

	s[strcspn(s, "\r\n")] = '\0';
	if (e)
		*e = '\0';
}

static size_t on_read(char *to, size_t size, size_t n, void *ctx)
{
	struct body *b = ctx;
	size_t want = size * n, got = 0;

	while (got < want && b->at < b->nseg) {
		const struct body_seg *s = &b->seg[b->at];
		size_t k = s->len - b->off < want - got ? s->len - b->off : want - got;

		memcpy(to + got, s->p + b->off, k);
		got += k;
		b->off += k;
		if (b->off == s->len) {
			b->at++;
			b->off = 0;
		}
	}
	return got;
}

/* sql, with data (len bytes) or the segments of body as its input, or neither */
static int perform(struct ntp_ch *ch, const char *sql, const void *data, size_t len,
		   struct body *body, struct ntp_ch_reply *r, unsigned flags)
{
	struct ntp_ch_reply local = { 0 };
	char *q = NULL, *url = NULL;
	const char *what;
	size_t n;
	CURLcode rc;
	long http = 0;
	int err = 0;

	if (!r)
		r = &local;
	memset(r, 0, sizeof(*r));
	ch->in.len = 0;
	ch->in.oom = false;
	/* -vv: the statement's start; -vvv: all of it */
	if (ntp_err__verbosity() >= 4)
		ntp_debug("%s: %s", ch->url, sql);
	else
		ntp_debug("%s: %.300s%s", ch->url, sql, strlen(sql) > 300 ? "..." : "");
	/* with data the statement goes in the URL (the body is its input), else it is the body */
	if (body) {
		len = 0;
		for (int i = 0; i < body->nseg; i++)
			len += body->seg[i].len;
	}
	if (data || body) {
		q = curl_easy_escape(ch->curl, sql, 0);
		if (!q)
			goto nomem;
	}
	n = strlen(ch->url) + strlen(ch->database) * 3 + (q ? strlen(q) : 0) + 128;
	url = malloc(n);
	if (!url)
		goto nomem;
	{
		char *db = curl_easy_escape(ch->curl, ch->database, 0);

		if (!db)
			goto nomem;
		snprintf(url, n, "%s%s?%s%s%s%s%s", ch->url,
			 ch->url[strlen(ch->url) - 1] == '/' ? "" : "/",
			 flags & NTP_CH_NO_DB ? "" : "database=", flags & NTP_CH_NO_DB ? "" : db,
			 flags & NTP_CH_SYNC ? "&insert_distributed_sync=1" : "",
			 q ? "&query=" : "", q ? q : "");
		curl_free(db);
	}
	curl_easy_setopt(ch->curl, CURLOPT_URL, url);
	if (body) {
		curl_easy_setopt(ch->curl, CURLOPT_POSTFIELDS, NULL);
		curl_easy_setopt(ch->curl, CURLOPT_READFUNCTION, on_read);
		curl_easy_setopt(ch->curl, CURLOPT_READDATA, body);
	} else {
		curl_easy_setopt(ch->curl, CURLOPT_POSTFIELDS, data ? data : (const void *)sql);
	}
	curl_easy_setopt(ch->curl, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)(data || body ? len : strlen(sql)));
	ch->errbuf[0] = '\0';
	rc = curl_easy_perform(ch->curl);
	if (ch->in.oom)
		goto nomem;
	ntp_ch_buf__bytes(&ch->in, "", 1);
	if (ch->in.oom)
		goto nomem;
	r->body = (char *)ch->in.p;
	r->len = ch->in.len - 1;
	ch->in.p = NULL;
	ch->in.len = ch->in.cap = 0;
	if (rc != CURLE_OK) {
		ntp_error("%s: %s", ch->url, ch->errbuf[0] ? ch->errbuf : curl_easy_strerror(rc));
		err = NTP_EXIT_FLEET_DOWN;
		goto out;
	}
	curl_easy_getinfo(ch->curl, CURLINFO_RESPONSE_CODE, &http);
	r->http = http;
	if (http != 200) {
		r->code = server_code(r->body, &what);
		err = NTP_EXIT_FLEET_DOWN;
		if (!(flags & NTP_CH_QUIET) || !r->code) {
			char *msg = strdup(what);

			if (msg)
				first_line(msg);
			ntp_error("%s: the server refused (HTTP %ld): %s", ch->url, http,
				  msg && *msg ? msg : "no reason given");
			free(msg);
		}
	}
	goto out;
nomem:
	ntp_error("%s: %s", ch->url, strerror(ENOMEM));
	err = NTP_EXIT_FAILURE;
out:
	curl_free(q);
	free(url);
	if (r == &local)
		ntp_ch_reply__free(&local);
	return err;
}

int ntp_ch__query(struct ntp_ch *ch, const char *sql, const void *data, size_t len,
		  struct ntp_ch_reply *r, unsigned flags)
{
	return perform(ch, sql, data, len, NULL, r, flags);
}

int ntp_ch__queryf(struct ntp_ch *ch, struct ntp_ch_reply *r, unsigned flags, const char *fmt, ...)
{
	char *sql = NULL;
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (n < 0) {
		ntp_error("%s: %s", ch->url, strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	err = ntp_ch__query(ch, sql, NULL, 0, r, flags);
	free(sql);
	return err;
}

/* ---- Native blocks ----------------------------------------------------------------- */

int ntp_ch_block__init(struct ntp_ch_block *b, const char *const *names,
		       const char *const *types, int ncols)
{
	memset(b, 0, sizeof(*b));
	b->col = calloc((size_t)ncols, sizeof(*b->col));
	if (!b->col)
		return -ENOMEM;
	b->ncols = ncols;
	b->names = names;
	b->types = types;
	return 0;
}

void ntp_ch_block__reset(struct ntp_ch_block *b)
{
	for (int i = 0; i < b->ncols; i++)
		b->col[i].len = 0;
	b->rows = 0;
}

bool ntp_ch_block__oom(const struct ntp_ch_block *b)
{
	for (int i = 0; i < b->ncols; i++)
		if (b->col[i].oom)
			return true;
	return false;
}

void ntp_ch_block__free(struct ntp_ch_block *b)
{
	for (int i = 0; b->col && i < b->ncols; i++)
		ntp_ch_buf__free(&b->col[i]);
	free(b->col);
	memset(b, 0, sizeof(*b));
}

static void varint(struct ntp_ch_buf *b, uint64_t k)
{
	do {
		unsigned char c = k & 0x7f;

		k >>= 7;
		ntp_ch_buf__u8(b, c | (k ? 0x80 : 0));
	} while (k);
}

int ntp_ch__insert(struct ntp_ch *ch, const char *table, const struct ntp_ch_block *b,
		   unsigned flags)
{
	struct ntp_ch_buf head = { 0 };
	struct body body = { 0 };
	size_t *at = NULL;
	char *sql = NULL;
	FILE *m;
	size_t len = 0;
	int err = NTP_EXIT_FAILURE;

	/* the statement, and the block's header and each column's (name, type) before its values */
	m = open_memstream(&sql, &len);
	if (!m)
		goto nomem;
	fprintf(m, "INSERT INTO %s (", table);
	for (int i = 0; i < b->ncols; i++)
		fprintf(m, "%s%s", i ? ", " : "", b->names[i]);
	fputs(") FORMAT Native", m);
	if (fclose(m))
		goto nomem;
	body.seg = calloc(2 * (size_t)b->ncols + 1, sizeof(*body.seg));
	at = calloc(2 * (size_t)b->ncols + 1, sizeof(*at));
	if (!body.seg || !at)
		goto nomem;
	varint(&head, (uint64_t)b->ncols);
	varint(&head, b->rows);
	for (int i = 0; i < b->ncols; i++) {
		at[1 + 2 * i] = head.len;
		ntp_ch_buf__str(&head, b->names[i]);
		ntp_ch_buf__str(&head, b->types[i]);
		at[2 + 2 * i] = head.len;
	}
	if (head.oom || ntp_ch_block__oom(b))
		goto nomem;
	/* the segments point into head once it is whole (it no longer moves) */
	body.seg[0] = (struct body_seg){ head.p, at[1] };
	for (int i = 0; i < b->ncols; i++) {
		body.seg[1 + 2 * i] = (struct body_seg){ head.p + at[1 + 2 * i],
							 at[2 + 2 * i] - at[1 + 2 * i] };
		body.seg[2 + 2 * i] = (struct body_seg){ b->col[i].p, b->col[i].len };
	}
	if (!b->ncols)
		body.seg[0].len = head.len;
	body.nseg = 1 + 2 * b->ncols;
	err = perform(ch, sql, NULL, 0, &body, NULL, flags);
	goto out;
nomem:
	ntp_error("%s: %s", ch->url, strerror(ENOMEM));
out:
	ntp_ch_buf__free(&head);
	free(body.seg);
	free(at);
	free(sql);
	return err;
}

static void *insert_thread(void *arg)
{
	struct ntp_ch *ch = arg;
	struct pending *a = &ch->async;

	/* this thread's line kept for the caller's, to print or hold as its own */
	ntp_err__hold(a->msg, sizeof(a->msg));
	a->err = ntp_ch__insert(ch, a->table, a->block, a->flags);
	ntp_err__hold(NULL, 0);
	return NULL;
}

int ntp_ch__insert_async(struct ntp_ch *ch, const char *table, const struct ntp_ch_block *b,
			 unsigned flags)
{
	struct pending *a = &ch->async;
	int rc;

	a->table = table;
	a->block = b;
	a->flags = flags;
	a->err = 0;
	a->msg[0] = '\0';
	rc = pthread_create(&a->thread, NULL, insert_thread, ch);
	if (rc)
		return -rc;
	a->running = true;
	return 0;
}

int ntp_ch__wait(struct ntp_ch *ch)
{
	struct pending *a = &ch->async;

	if (!a->running)
		return 0;
	pthread_join(a->thread, NULL);
	a->running = false;
	if (a->err && a->msg[0])
		ntp_error("%s", a->msg);
	return a->err;
}

/* ---- text in and out --------------------------------------------------------------- */

int ntp_ch__tsv_next(char **line, char **fields, int max)
{
	char *p = *line, *w;
	int n = 0;

	if (!p || !*p)
		return -1;
	fields[n++] = w = p;
	for (; *p && *p != '\n'; p++) {
		if (*p == '\t') {
			*w++ = '\0';
			if (n < max)
				fields[n++] = w;
			continue;
		}
		if (*p == '\\' && p[1]) {
			static const char from[] = "ntr0\\'bfa", to[] = "\n\t\r\0\\'\b\f\a";
			const char *k = strchr(from, p[1]);

			p++;
			*w++ = k ? to[k - from] : *p;
			continue;
		}
		*w++ = *p;
	}
	/* w may be p itself: the end is known before the NUL goes in */
	*line = *p ? p + 1 : p;
	*w = '\0';
	return n;
}

char *ntp_ch__quote(const char *s)
{
	size_t n = strlen(s);
	char *q = malloc(2 * n + 3), *w = q;

	if (!q)
		return NULL;
	*w++ = '\'';
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			*w++ = '\\';
		*w++ = *s;
	}
	*w++ = '\'';
	*w = '\0';
	return q;
}
