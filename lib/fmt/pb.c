// SPDX-License-Identifier: GPL-2.0
/* A small protocol buffers encoder (lib/pb.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/pb.h"

enum wire_type {
	WIRE_VARINT = 0,
	WIRE_FIXED64 = 1,
	WIRE_LEN = 2,
};

void ntp_pb__init(struct ntp_pb *pb)
{
	memset(pb, 0, sizeof(*pb));
}

void ntp_pb__free(struct ntp_pb *pb)
{
	free(pb->buf);
	ntp_pb__init(pb);
}

void ntp_pb__reset(struct ntp_pb *pb)
{
	pb->len = 0;
	pb->depth = 0;
	pb->failed = 0;
}

int ntp_pb__ok(const struct ntp_pb *pb)
{
	return pb->failed ? -1 : 0;
}

static int reserve(struct ntp_pb *pb, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (pb->failed)
		return -1;
	if (pb->len + more <= pb->cap)
		return 0;
	cap = pb->cap ? pb->cap : 256;
	while (cap < pb->len + more)
		cap *= 2;
	p = realloc(pb->buf, cap);
	if (!p) {
		pb->failed = 1;
		return -1;
	}
	pb->buf = p;
	pb->cap = cap;
	return 0;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void put_varint_at(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p = (uint8_t)v;
}

static void put_varint(struct ntp_pb *pb, uint64_t v)
{
	if (reserve(pb, 10))
		return;
	put_varint_at(pb->buf + pb->len, v);
	pb->len += varint_size(v);
}

static void put_tag(struct ntp_pb *pb, uint32_t field, enum wire_type t)
{
	put_varint(pb, (uint64_t)field << 3 | t);
}

void ntp_pb__uint(struct ntp_pb *pb, uint32_t field, uint64_t v)
{
	put_tag(pb, field, WIRE_VARINT);
	put_varint(pb, v);
}

void ntp_pb__int(struct ntp_pb *pb, uint32_t field, int64_t v)
{
	ntp_pb__uint(pb, field, (uint64_t)v);
}

void ntp_pb__fixed64(struct ntp_pb *pb, uint32_t field, uint64_t v)
{
	put_tag(pb, field, WIRE_FIXED64);
	if (reserve(pb, 8))
		return;
	for (int i = 0; i < 8; i++)
		pb->buf[pb->len++] = (uint8_t)(v >> (8 * i));
}

void ntp_pb__double(struct ntp_pb *pb, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	ntp_pb__fixed64(pb, field, u);
}

void ntp_pb__string(struct ntp_pb *pb, uint32_t field, const char *s)
{
	size_t n = strlen(s);

	put_tag(pb, field, WIRE_LEN);
	put_varint(pb, n);
	if (reserve(pb, n))
		return;
	memcpy(pb->buf + pb->len, s, n);
	pb->len += n;
}

void ntp_pb__begin(struct ntp_pb *pb, uint32_t field)
{
	put_tag(pb, field, WIRE_LEN);
	if (pb->depth == NTP_PB_MAX_DEPTH) {
		pb->failed = 1;
		return;
	}
	pb->open[pb->depth++] = pb->len;
}

void ntp_pb__end(struct ntp_pb *pb)
{
	size_t start, n, k;

	if (pb->failed || !pb->depth) {
		pb->failed = 1;
		return;
	}
	start = pb->open[--pb->depth];
	n = pb->len - start;
	k = varint_size(n);
	if (reserve(pb, k))
		return;
	memmove(pb->buf + start + k, pb->buf + start, n);
	put_varint_at(pb->buf + start, n);
	pb->len += k;
}
