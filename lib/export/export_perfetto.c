// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto trace packets (lib/export/export_perfetto.h).  The field numbers below
 * are Perfetto's (protos/perfetto/trace/...); schema/perfetto_trace.proto
 * holds the same subset for decoding.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/pb.h"
#include "lib/export/export_perfetto.h"

enum {
	TRACE_PACKET = 1,

	PACKET_TIMESTAMP = 8,
	PACKET_SEQUENCE_ID = 10,
	PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_TRACK_DESCRIPTOR = 60,

	INTERNED_EVENT_NAMES = 2,
	INTERNED_ANNOTATION_NAMES = 3,
	INTERNED_IID = 1,
	INTERNED_NAME = 2,

	TRACK_UUID = 1,
	TRACK_NAME = 2,
	TRACK_PROCESS = 3,
	TRACK_PARENT_UUID = 5,
	TRACK_COUNTER = 8,

	PROCESS_PID = 1,
	PROCESS_NAME = 6,

	COUNTER_UNIT = 3,

	EVENT_DEBUG_ANNOTATIONS = 4,
	EVENT_TYPE = 9,
	EVENT_NAME_IID = 10,
	EVENT_TRACK_UUID = 11,
	EVENT_NAME = 23,
	EVENT_DOUBLE_COUNTER_VALUE = 44,
	EVENT_FLOW_IDS = 47,
	EVENT_TERMINATING_FLOW_IDS = 48,

	ANNOTATION_NAME_IID = 1,
	ANNOTATION_INT_VALUE = 4,
	ANNOTATION_STRING_VALUE = 6,
	ANNOTATION_NAME = 10,
};

enum event_type {
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_COUNTER = 4,
};

enum sequence_flags {
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
};

/* every packet is written by one producer: one sequence */
#define SEQUENCE_ID 1

/*
 * Names are interned: a slice's name and its arguments' names are written
 * once, in the packet that first uses them, and referred to by number after
 * that (Perfetto's incremental state).  A trace holds a few dozen names and
 * millions of slices.
 */
enum name_kind { NAME_EVENT, NAME_ANNOTATION, NAME_KINDS };

#define NAME_BUCKETS 64

struct name {
	struct name *next;
	uint64_t iid;
	char s[];
};

struct ntp_pftrace {
	FILE *f;
	struct ntp_pb pb;
	uint64_t packets;
	int failed;		/* the first failure's errno */
	struct name *names[NAME_KINDS][NAME_BUCKETS];
	uint64_t niids[NAME_KINDS];
	/* names new in the packet being built, written at its end */
	const struct name *fresh[NAME_KINDS][16];
	int nfresh[NAME_KINDS];
};

struct ntp_pftrace *ntp_pftrace__new(FILE *f)
{
	struct ntp_pftrace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->f = f;
	ntp_pb__init(&t->pb);
	return t;
}

int ntp_pftrace__delete(struct ntp_pftrace *t)
{
	int rc = -t->failed;

	for (int k = 0; k < NAME_KINDS; k++)
		for (int b = 0; b < NAME_BUCKETS; b++)
			for (struct name *n = t->names[k][b], *next; n; n = next) {
				next = n->next;
				free(n);
			}
	ntp_pb__free(&t->pb);
	free(t);
	return rc;
}

/* the name's number, interned in this packet if new; 0 when out of room */
static uint64_t intern(struct ntp_pftrace *t, enum name_kind k, const char *s)
{
	unsigned int h = 2166136261u;
	struct name *n;

	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h %= NAME_BUCKETS;
	for (n = t->names[k][h]; n; n = n->next)
		if (!strcmp(n->s, s))
			return n->iid;
	if (t->nfresh[k] == (int)(sizeof(t->fresh[k]) / sizeof(t->fresh[k][0])))
		return 0;
	n = malloc(sizeof(*n) + strlen(s) + 1);
	if (!n)
		return 0;
	strcpy(n->s, s);
	n->iid = ++t->niids[k];
	n->next = t->names[k][h];
	t->names[k][h] = n;
	t->fresh[k][t->nfresh[k]++] = n;
	return n->iid;
}

static void put_interned(struct ntp_pftrace *t)
{
	static const uint32_t field[NAME_KINDS] = { INTERNED_EVENT_NAMES, INTERNED_ANNOTATION_NAMES };

	if (!t->nfresh[NAME_EVENT] && !t->nfresh[NAME_ANNOTATION])
		return;
	ntp_pb__begin(&t->pb, PACKET_INTERNED_DATA);
	for (int k = 0; k < NAME_KINDS; k++) {
		for (int i = 0; i < t->nfresh[k]; i++) {
			ntp_pb__begin(&t->pb, field[k]);
			ntp_pb__uint(&t->pb, INTERNED_IID, t->fresh[k][i]->iid);
			ntp_pb__string(&t->pb, INTERNED_NAME, t->fresh[k][i]->s);
			ntp_pb__end(&t->pb);
		}
		t->nfresh[k] = 0;
	}
	ntp_pb__end(&t->pb);
}

/* flags: enum sequence_flags; the first packet also starts the interning state */
static struct ntp_pb *packet_begin(struct ntp_pftrace *t, unsigned int flags)
{
	if (!t->packets)
		flags |= SEQ_INCREMENTAL_STATE_CLEARED;
	ntp_pb__reset(&t->pb);
	ntp_pb__begin(&t->pb, TRACE_PACKET);
	ntp_pb__uint(&t->pb, PACKET_SEQUENCE_ID, SEQUENCE_ID);
	if (flags)
		ntp_pb__uint(&t->pb, PACKET_SEQUENCE_FLAGS, flags);
	return &t->pb;
}

static void packet_end(struct ntp_pftrace *t)
{
	put_interned(t);
	ntp_pb__end(&t->pb);
	if (t->failed)
		return;
	if (ntp_pb__ok(&t->pb)) {
		t->failed = ENOMEM;
		return;
	}
	if (fwrite(t->pb.buf, 1, t->pb.len, t->f) != t->pb.len) {
		t->failed = errno ? errno : EIO;
		return;
	}
	t->packets++;
}

static void track_descriptor(struct ntp_pb *pb, uint64_t uuid, uint64_t parent,
			     const char *name)
{
	ntp_pb__begin(pb, PACKET_TRACK_DESCRIPTOR);
	ntp_pb__uint(pb, TRACK_UUID, uuid);
	if (parent)
		ntp_pb__uint(pb, TRACK_PARENT_UUID, parent);
	ntp_pb__string(pb, TRACK_NAME, name);
}

void ntp_pftrace__process(struct ntp_pftrace *t, uint64_t uuid, int32_t pid, const char *name)
{
	struct ntp_pb *pb = packet_begin(t, 0);

	track_descriptor(pb, uuid, 0, name);
	ntp_pb__begin(pb, TRACK_PROCESS);
	ntp_pb__int(pb, PROCESS_PID, pid);
	ntp_pb__string(pb, PROCESS_NAME, name);
	ntp_pb__end(pb);
	ntp_pb__end(pb);
	packet_end(t);
}

void ntp_pftrace__track(struct ntp_pftrace *t, uint64_t uuid, uint64_t parent, const char *name)
{
	struct ntp_pb *pb = packet_begin(t, 0);

	track_descriptor(pb, uuid, parent, name);
	ntp_pb__end(pb);
	packet_end(t);
}

void ntp_pftrace__counter_track(struct ntp_pftrace *t, uint64_t uuid, uint64_t parent,
				const char *name, enum ntp_pf_unit unit)
{
	struct ntp_pb *pb = packet_begin(t, 0);

	track_descriptor(pb, uuid, parent, name);
	ntp_pb__begin(pb, TRACK_COUNTER);
	if (unit != NTP_PF_UNIT_NONE)
		ntp_pb__uint(pb, COUNTER_UNIT, unit);
	ntp_pb__end(pb);
	ntp_pb__end(pb);
	packet_end(t);
}

static struct ntp_pb *event_begin(struct ntp_pftrace *t, uint64_t ts, uint64_t track,
				  enum event_type type)
{
	struct ntp_pb *pb = packet_begin(t, SEQ_NEEDS_INCREMENTAL_STATE);

	ntp_pb__uint(pb, PACKET_TIMESTAMP, ts);
	ntp_pb__begin(pb, PACKET_TRACK_EVENT);
	ntp_pb__uint(pb, EVENT_TYPE, type);
	ntp_pb__uint(pb, EVENT_TRACK_UUID, track);
	return pb;
}

static void event_end(struct ntp_pftrace *t)
{
	ntp_pb__end(&t->pb);
	packet_end(t);
}

void ntp_pftrace__begin(struct ntp_pftrace *t, uint64_t ts, uint64_t track, const char *name,
			uint64_t flow, uint64_t end_flow, const struct ntp_pf_arg *args, int nargs)
{
	struct ntp_pb *pb = event_begin(t, ts, track, TYPE_SLICE_BEGIN);

	uint64_t iid = intern(t, NAME_EVENT, name);

	if (iid)
		ntp_pb__uint(pb, EVENT_NAME_IID, iid);
	else
		ntp_pb__string(pb, EVENT_NAME, name);
	if (flow)
		ntp_pb__fixed64(pb, EVENT_FLOW_IDS, flow);
	if (end_flow)
		ntp_pb__fixed64(pb, EVENT_TERMINATING_FLOW_IDS, end_flow);
	for (int i = 0; i < nargs; i++) {
		ntp_pb__begin(pb, EVENT_DEBUG_ANNOTATIONS);
		iid = intern(t, NAME_ANNOTATION, args[i].name);
		if (iid)
			ntp_pb__uint(pb, ANNOTATION_NAME_IID, iid);
		else
			ntp_pb__string(pb, ANNOTATION_NAME, args[i].name);
		if (args[i].s)
			ntp_pb__string(pb, ANNOTATION_STRING_VALUE, args[i].s);
		else
			ntp_pb__int(pb, ANNOTATION_INT_VALUE, args[i].i);
		ntp_pb__end(pb);
	}
	event_end(t);
}

void ntp_pftrace__end(struct ntp_pftrace *t, uint64_t ts, uint64_t track)
{
	event_begin(t, ts, track, TYPE_SLICE_END);
	event_end(t);
}

void ntp_pftrace__counter(struct ntp_pftrace *t, uint64_t ts, uint64_t track, double value)
{
	struct ntp_pb *pb = event_begin(t, ts, track, TYPE_COUNTER);

	ntp_pb__double(pb, EVENT_DOUBLE_COUNTER_VALUE, value);
	event_end(t);
}
