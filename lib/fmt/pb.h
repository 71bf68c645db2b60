/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small protocol buffers encoder: enough of the wire format to write one
 * message at a time (varints, 64-bit fixed, strings, nested messages) into a
 * growing buffer, then hand the bytes to the caller.  Field numbers and
 * message shapes are the caller's: ntprof uses it for Perfetto traces
 * (schema/perfetto_trace.proto, lib/export/export_perfetto.c).
 *
 * A nested message's length is known only at its end, so end() moves the
 * message's bytes up by the size of the length varint; messages here are
 * small (one trace packet), so the move is cheap.
 */
#ifndef NTP_PB_H
#define NTP_PB_H

#include <stddef.h>
#include <stdint.h>

#define NTP_PB_MAX_DEPTH 8

struct ntp_pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[NTP_PB_MAX_DEPTH];	/* where each open message's bytes start */
	int depth;
	int failed;		/* out of memory, or nesting too deep: drop the message */
};

void ntp_pb__init(struct ntp_pb *pb);
void ntp_pb__free(struct ntp_pb *pb);
/* forget the bytes written, keep the buffer */
void ntp_pb__reset(struct ntp_pb *pb);

void ntp_pb__uint(struct ntp_pb *pb, uint32_t field, uint64_t v);	/* varint: uint*, enum, bool */
void ntp_pb__int(struct ntp_pb *pb, uint32_t field, int64_t v);		/* int64 (two's complement varint) */
void ntp_pb__fixed64(struct ntp_pb *pb, uint32_t field, uint64_t v);
void ntp_pb__double(struct ntp_pb *pb, uint32_t field, double v);
void ntp_pb__string(struct ntp_pb *pb, uint32_t field, const char *s);
void ntp_pb__begin(struct ntp_pb *pb, uint32_t field);	/* a nested message ... */
void ntp_pb__end(struct ntp_pb *pb);			/* ... ends here */

/* 0, or -1 when something could not be encoded (pb->failed) */
int ntp_pb__ok(const struct ntp_pb *pb);

#endif
