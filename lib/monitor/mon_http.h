/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor's HTTP endpoint: just enough HTTP/1.0 and 1.1 for a scraper.
 * One request a connection, answered and closed; GET, HEAD and POST (a
 * request's body is not read: POST /snapshot needs none).  The
 * request parser reads untrusted bytes and is a pure function, fuzzed with
 * the readers (tests/fuzz).
 */
#ifndef NTP_MON_HTTP_H
#define NTP_MON_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* a request's head beyond this is refused (431) */
#define NTP_HTTP_MAX_HEAD 8192

enum ntp_http_parse {
	NTP_HTTP_INCOMPLETE = 0,        /* no blank line yet: read more */
	NTP_HTTP_DONE = 1,              /* a whole head: method and path set */
	NTP_HTTP_BAD = -1,              /* not an HTTP request line */
};

struct ntp_http_req {
	char method[8];                 /* "GET", "HEAD", "POST", or another the server refuses */
	char path[256];                 /* without the query string */
};

/* buf[0..len): the request so far */
enum ntp_http_parse ntp_http__parse(const char *buf, size_t len, struct ntp_http_req *r);

/*
 * --listen's ADDR:PORT: an IPv4 address, or an IPv6 one in brackets
 * ([::1]:9464), and a port from 1 to 65535; no names, so that what is
 * served does not depend on a resolver.  0, or -1 with why (len bytes) set.
 */
int ntp_http__parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sslen, char *why,
			   size_t len);

/* a listening socket on the address; its fd, or -errno */
int ntp_http__listen(const struct sockaddr_storage *ss, socklen_t sslen);

struct ntp_http_reply {
	int status;                     /* 200, 404, ... */
	const char *content_type;
	const char *allow;              /* 405: the methods the path takes ("POST"); else NULL */
	char *body;                     /* malloc'd, freed by the server */
	size_t len;
};

/* the answer to a request: 0, or -1 after one line (then 500) */
typedef int (*ntp_http_handler)(void *ctx, const struct ntp_http_req *r, struct ntp_http_reply *out);

/*
 * Accept one connection on lfd, if one waits, read its request (at most
 * timeout_ms), answer it with fn's reply and close it.  1 served, 0 none
 * waiting, -1 with errno for an error of the listening socket itself; a
 * client's error only closes its connection.
 */
int ntp_http__serve_one(int lfd, int timeout_ms, ntp_http_handler fn, void *ctx);

#endif
