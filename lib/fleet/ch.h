/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A ClickHouse server over its HTTP interface (libcurl), as ntprof's fleet
 * commands use it (ntprof-push(1), ntprof-fleet(7)): one connection kept
 * alive, a statement per request, the result read whole.  http:// and
 * https:// as libcurl does them; the user and password by HTTP basic
 * authentication, the password never in a URL, an argument or a message.
 *
 * Every failure is told in one line and returned as the exit code a script
 * can tell apart (lib/cli/exit.h): NTP_EXIT_FLEET_DOWN for a server that
 * cannot be reached or that refuses (the connection, TLS, authentication,
 * a statement it will not run).
 */
#ifndef NTP_FLEET_CH_H
#define NTP_FLEET_CH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ntp_ch_opts {
	const char *url;          /* http[s]://HOST[:PORT][/] */
	const char *user;         /* NULL: the server's default user */
	const char *password;     /* NULL: none */
	const char *cacert;       /* a CA bundle for https://; NULL: the system's */
	const char *database;     /* the database of ntprof's tables */
	long timeout_s;           /* a statement's longest run; 0: none */
};

struct ntp_ch;

/* what a statement gave back */
struct ntp_ch_reply {
	char *body;               /* the result (NUL-terminated), or the server's message */
	size_t len;
	long http;                /* the HTTP status */
	int code;                 /* ClickHouse's "Code: N" of an error; 0 when none */
};

/* statement flags */
enum {
	NTP_CH_QUIET = 1 << 0,    /* a server error is the caller's to tell: no message */
	NTP_CH_SYNC = 1 << 1,     /* insert_distributed_sync=1: rows are on their shards on return */
	NTP_CH_NO_DB = 1 << 2,    /* not in the database (it may not exist yet) */
};

/* ClickHouse's error codes that ntprof tells apart */
#define NTP_CH_UNKNOWN_TABLE 60
#define NTP_CH_UNKNOWN_DATABASE 81

/*
 * A connection to o->url, not tried yet (the first statement connects).
 * A URL with a password in it is refused (NTP_EXIT_USAGE).  0 or an
 * NTP_EXIT_* code after one line.
 */
int ntp_ch__open(struct ntp_ch **ch, const struct ntp_ch_opts *o);
void ntp_ch__close(struct ntp_ch *ch);
/* the URL as given, for messages: it holds no password */
const char *ntp_ch__url(const struct ntp_ch *ch);
const char *ntp_ch__database(const struct ntp_ch *ch);

/*
 * Run sql; data (len bytes, may be NULL) is sent after it as the
 * statement's input (INSERT ... FORMAT ...).  r: the reply, its body
 * freed by ntp_ch_reply__free (NULL: not wanted).  0; or after one line
 * (none with NTP_CH_QUIET for an error the server gave: r->code says
 * which) NTP_EXIT_FLEET_DOWN.
 */
int ntp_ch__query(struct ntp_ch *ch, const char *sql, const void *data, size_t len,
		  struct ntp_ch_reply *r, unsigned flags);
/* the same for a statement built with printf's format */
int ntp_ch__queryf(struct ntp_ch *ch, struct ntp_ch_reply *r, unsigned flags, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ntp_ch_reply__free(struct ntp_ch_reply *r);

/*
 * A reply in TabSeparated, line by line and field by field: *line moves
 * past the line; fields[] point into it, unescaped in place.  The number
 * of fields, or -1 at the end.
 */
int ntp_ch__tsv_next(char **line, char **fields, int max);

/* s as a ClickHouse string literal, quotes included, into a new string; NULL without memory */
char *ntp_ch__quote(const char *s);

/* a growing buffer of bytes: the data of an INSERT */
struct ntp_ch_buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;                 /* a write failed for memory: the buffer is not whole */
};

void ntp_ch_buf__free(struct ntp_ch_buf *b);
/* RowBinary's types: little-endian integers, LEB128 lengths, Nullable's leading byte */
void ntp_ch_buf__u8(struct ntp_ch_buf *b, uint8_t v);
void ntp_ch_buf__u16(struct ntp_ch_buf *b, uint16_t v);
void ntp_ch_buf__u32(struct ntp_ch_buf *b, uint32_t v);
void ntp_ch_buf__u64(struct ntp_ch_buf *b, uint64_t v);
void ntp_ch_buf__i64(struct ntp_ch_buf *b, int64_t v);
void ntp_ch_buf__str(struct ntp_ch_buf *b, const char *s);
/* Nullable(String) and Nullable(Int64): NULL for s NULL, v < 0 */
void ntp_ch_buf__nstr(struct ntp_ch_buf *b, const char *s);
void ntp_ch_buf__ni64(struct ntp_ch_buf *b, int64_t v, bool null);

/*
 * A block of rows in ClickHouse's Native format, column by column: the
 * data of a large INSERT.  The server reads it several times faster than
 * RowBinary (bench/README.md).  Each column's values are appended to its
 * buffer with the ntp_ch_buf__ writers (no Nullable: Native puts a
 * column's null map before its values); ntp_ch_block__row counts a row.
 */
struct ntp_ch_block {
	int ncols;
	size_t rows;
	const char *const *names;  /* the table's column names ... */
	const char *const *types;  /* ... and their types, exactly as the table has them */
	struct ntp_ch_buf *col;
};

/* 0, or -ENOMEM */
int ntp_ch_block__init(struct ntp_ch_block *b, const char *const *names,
		       const char *const *types, int ncols);
static inline void ntp_ch_block__row(struct ntp_ch_block *b) { b->rows++; }
/* no rows, the buffers kept */
void ntp_ch_block__reset(struct ntp_ch_block *b);
/* a write failed for memory: the block is not whole */
bool ntp_ch_block__oom(const struct ntp_ch_block *b);
void ntp_ch_block__free(struct ntp_ch_block *b);

/*
 * INSERT INTO table the block's rows, streamed from its buffers (no copy).
 * 0 or, after one line, NTP_EXIT_FLEET_DOWN / NTP_EXIT_FAILURE.
 */
int ntp_ch__insert(struct ntp_ch *ch, const char *table, const struct ntp_ch_block *b,
		   unsigned flags);
/*
 * The same on a thread of its own, so that the caller fills the next block
 * while the server takes this one; ntp_ch__wait gives its result (and its
 * one line, printed or held in the calling thread).  Until then the block
 * is the insert's and ch takes no other statement.  0, or -errno when no
 * thread can start (nothing sent).
 */
int ntp_ch__insert_async(struct ntp_ch *ch, const char *table, const struct ntp_ch_block *b,
			 unsigned flags);
/* the pending insert's result: 0 when none was pending */
int ntp_ch__wait(struct ntp_ch *ch);

#endif
