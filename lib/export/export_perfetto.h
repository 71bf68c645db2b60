/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perfetto's trace format, the part ntprof writes: a Trace is a sequence of
 * TracePackets, each holding a TrackDescriptor (a track: a machine, a queue,
 * a lane, a counter) or a TrackEvent (a slice begins or ends, a counter
 * changes).  Field numbers are Perfetto's published ones; the subset is
 * spelled out in schema/perfetto_trace.proto, which the tests decode with.
 * Packets are written as they come: nothing is held but the one being built.
 */
#ifndef NTP_EXPORT_PERFETTO_H
#define NTP_EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

struct ntp_pftrace;

/* a slice's argument: an integer, or a string when s is not NULL */
struct ntp_pf_arg {
	const char *name;
	const char *s;
	int64_t i;
};

enum ntp_pf_unit {
	NTP_PF_UNIT_NONE = 0,
	NTP_PF_UNIT_COUNT = 2,		/* CounterDescriptor.Unit UNIT_COUNT */
};

/* NULL when out of memory */
struct ntp_pftrace *ntp_pftrace__new(FILE *f);
/* frees t; 0, or -errno of the first packet that could not be built or written */
int ntp_pftrace__delete(struct ntp_pftrace *t);

/* a machine: a process track, shown as a group holding its queues */
void ntp_pftrace__process(struct ntp_pftrace *t, uint64_t uuid, int32_t pid, const char *name);
/* a track under parent (a machine, or a queue holding lanes) */
void ntp_pftrace__track(struct ntp_pftrace *t, uint64_t uuid, uint64_t parent, const char *name);
void ntp_pftrace__counter_track(struct ntp_pftrace *t, uint64_t uuid, uint64_t parent,
				const char *name, enum ntp_pf_unit unit);

/*
 * A slice begins at ts on track.  flow (when not 0) leaves from it;
 * end_flow (when not 0) arrives at it and ends there.
 */
void ntp_pftrace__begin(struct ntp_pftrace *t, uint64_t ts, uint64_t track, const char *name,
			uint64_t flow, uint64_t end_flow, const struct ntp_pf_arg *args, int nargs);
void ntp_pftrace__end(struct ntp_pftrace *t, uint64_t ts, uint64_t track);
void ntp_pftrace__counter(struct ntp_pftrace *t, uint64_t ts, uint64_t track, double value);

#endif
