// SPDX-License-Identifier: GPL-2.0
/* The monitor's HTTP endpoint (lib/monitor/mon_http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "lib/monitor/mon_http.h"

#define SEND_TIMEOUT_S 5

enum ntp_http_parse ntp_http__parse(const char *buf, size_t len, struct ntp_http_req *r)
{
	const char *end = NULL, *sp1, *sp2, *eol, *q;
	size_t i, n;

	for (i = 0; i + 1 < len; i++) {
		/* the head ends at a blank line; bare LFs are taken too */
		if (buf[i] == '\n' && buf[i + 1] == '\n') {
			end = buf + i;
			break;
		}
		if (i + 3 < len && !memcmp(buf + i, "\r\n\r\n", 4)) {
			end = buf + i;
			break;
		}
	}
	eol = memchr(buf, '\n', len);
	if (!end)
		return len > NTP_HTTP_MAX_HEAD || (eol && eol == buf) ? NTP_HTTP_BAD : NTP_HTTP_INCOMPLETE;
	if (!eol || eol == buf)
		return NTP_HTTP_BAD;
	n = (size_t)(eol - buf);
	if (buf[n - 1] == '\r')
		n--;
	sp1 = memchr(buf, ' ', n);
	if (!sp1 || sp1 == buf || (size_t)(sp1 - buf) >= sizeof(r->method))
		return NTP_HTTP_BAD;
	sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - buf));
	if (!sp2 || sp2 == sp1 + 1 || sp1[1] != '/')
		return NTP_HTTP_BAD;
	if ((size_t)(buf + n - (sp2 + 1)) < 8 || memcmp(sp2 + 1, "HTTP/1.", 7))
		return NTP_HTTP_BAD;
	for (q = buf; q < sp1; q++)
		if (*q < 'A' || *q > 'Z')
			return NTP_HTTP_BAD;
	memcpy(r->method, buf, (size_t)(sp1 - buf));
	r->method[sp1 - buf] = '\0';
	q = memchr(sp1 + 1, '?', (size_t)(sp2 - sp1 - 1));
	n = (size_t)((q ? q : sp2) - (sp1 + 1));
	if (n >= sizeof(r->path))
		return NTP_HTTP_BAD;
	for (i = 0; i < n; i++)
		if ((unsigned char)sp1[1 + i] <= ' ' || sp1[1 + i] == 0x7f)
			return NTP_HTTP_BAD;
	memcpy(r->path, sp1 + 1, n);
	r->path[n] = '\0';
	return NTP_HTTP_DONE;
}

int ntp_http__parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sslen, char *why,
			   size_t len)
{
	char host[64];
	const char *colon, *h = s, *port;
	size_t hl;
	unsigned long p;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':') {
			snprintf(why, len, "an IPv6 address is written [ADDR]:PORT");
			return -1;
		}
		h = s + 1;
		hl = (size_t)(rb - h);
		port = rb + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			snprintf(why, len, "no port: write ADDR:PORT (e.g. 127.0.0.1:9464)");
			return -1;
		}
		if (memchr(s, ':', (size_t)(colon - s))) {
			snprintf(why, len, "an IPv6 address is written [ADDR]:PORT");
			return -1;
		}
		hl = (size_t)(colon - s);
		port = colon + 1;
	}
	if (!hl || hl >= sizeof(host)) {
		snprintf(why, len, "no address: write ADDR:PORT (e.g. 127.0.0.1:9464)");
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	errno = 0;
	p = *port >= '0' && *port <= '9' ? strtoul(port, &end, 10) : 0;
	if (!p || errno || *end || p > 65535) {
		snprintf(why, len, "port '%s' is not a number from 1 to 65535", port);
		return -1;
	}
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)p);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1) {
			snprintf(why, len, "'%s' is not an IPv6 address", host);
			return -1;
		}
		*sslen = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)p);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1) {
			snprintf(why, len, "'%s' is not an IPv4 address (names are not resolved)", host);
			return -1;
		}
		*sslen = sizeof(*a);
	}
	return 0;
}

int ntp_http__listen(const struct sockaddr_storage *ss, socklen_t sslen)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, err;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, sslen) || listen(fd, 16)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Internal Server Error";
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void reply(int fd, const struct ntp_http_reply *r, bool head)
{
	char h[320];
	int n = snprintf(h, sizeof(h),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "%s%s%sConnection: close\r\n\r\n",
			 r->status, reason(r->status), r->content_type ? r->content_type : "text/plain",
			 r->len, r->allow ? "Allow: " : "", r->allow ? r->allow : "", r->allow ? "\r\n" : "");

	write_all(fd, h, (size_t)n);
	if (!head && r->body)
		write_all(fd, r->body, r->len);
}

static void simple(int fd, int status, const char *text)
{
	struct ntp_http_reply r = { .status = status, .content_type = "text/plain; charset=utf-8",
				    .body = (char *)text, .len = strlen(text) };

	reply(fd, &r, false);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int ntp_http__serve_one(int lfd, int timeout_ms, ntp_http_handler fn, void *ctx)
{
	char buf[NTP_HTTP_MAX_HEAD + 1];
	struct ntp_http_req req;
	struct ntp_http_reply r;
	enum ntp_http_parse st = NTP_HTTP_INCOMPLETE;
	struct timespec t0;
	size_t len = 0;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		       errno == ECONNABORTED ? 0 : -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (st == NTP_HTTP_INCOMPLETE && len < sizeof(buf) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = timeout_ms - ms_since(&t0);
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		st = ntp_http__parse(buf, len, &req);
	}
	/*
	 * A blocking socket for the answer, which a scraper reads at once; one
	 * that stops reading holds the monitor up at most SEND_TIMEOUT_S.
	 */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &(struct timeval){ .tv_sec = SEND_TIMEOUT_S },
		   sizeof(struct timeval));
	if (st == NTP_HTTP_INCOMPLETE && len >= sizeof(buf) - 1)
		simple(fd, 431, "request head too large\n");
	else if (st == NTP_HTTP_BAD)
		simple(fd, 400, "not an HTTP request\n");
	else if (st == NTP_HTTP_DONE && strcmp(req.method, "GET") && strcmp(req.method, "HEAD") &&
		 strcmp(req.method, "POST"))
		simple(fd, 405, "only GET, HEAD and POST\n");
	else if (st == NTP_HTTP_DONE) {
		memset(&r, 0, sizeof(r));
		if (fn(ctx, &req, &r))
			simple(fd, 500, "the monitor could not read its maps\n");
		else
			reply(fd, &r, !strcmp(req.method, "HEAD"));
		free(r.body);
	}
	close(fd);
	return 1;
}
