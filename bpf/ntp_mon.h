/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor's histograms (ntprof-monitor(1)), as the BPF collectors keep
 * them in histogram mode and user space reads them: one per-CPU histogram
 * per series, a series being a stage of the commands of one I/O type, size
 * class, controller and namespace.  Fixed-width fields only, explicit
 * padding, no pointers: the layout is the same on both sides.
 *
 * Buckets are bpf/ntp_hist.h's at NTP_HIST_SUB_BITS, the ones report
 * counts in, from bucket 0 up to the octave NTP_MON_MAX_OCTAVE: a stage of
 * 2^NTP_MON_MAX_OCTAVE ns (68.7 s) or more is counted in the last bucket,
 * which lies above every bucket the exposition names (its largest is 10 s),
 * so that it is only in +Inf; the sum holds its true value.
 *
 * The stages of a command are the views' (lib/core/stage_table.h), computed
 * here from the record as lib/core/stages.c computes them, fallbacks
 * included; tests/unit/test_mon.c holds the two to each other record by
 * record.
 */
#ifndef NTP_MON_H
#define NTP_MON_H

#include "ntp_events.h"
#include "ntp_hist.h"

#define NTP_MON_MAX_OCTAVE 36
/* fine buckets of the octaves below 2^NTP_MON_MAX_OCTAVE: 272 at 3 sub-bucket bits */
#define NTP_MON_NBUCKETS ((NTP_MON_MAX_OCTAVE - NTP_HIST_SUB_BITS + 1) << NTP_HIST_SUB_BITS)
/* series the kernel keeps per collector; a new one beyond is counted in NTP_CNT_LOST_HIST */
#define NTP_MON_MAX_SERIES 1024
/* hardware queues the kernel keeps readings of (all controllers together); a new one beyond is not kept */
#define NTP_MON_MAX_QUEUES 1024
/* size classes: 512 bytes << class, the last for every size above 1 MiB */
#define NTP_MON_SIZE_CLASSES 13

/* the stages a collector counts; user space names them from lib/core/stage_table.h */
enum ntp_mon_stage {
	NTP_MON_E2E = 0,
	NTP_MON_BLOCK,
	NTP_MON_DRIVER,
	NTP_MON_NETWORK_STAR,
	NTP_MON_TARGET_DRIVER,
	NTP_MON_STORAGE,
	NTP_MON_RESIDENCE,
	/* the application's side of a host command (monitor --app) */
	NTP_MON_APP_SUBMIT,
	NTP_MON_APP_COMPLETE,
	NTP_MON_APP_REAP,
	NTP_MON_APP_E2E,
	NTP_MON_NSTAGES,
};

enum ntp_mon_io {
	NTP_MON_IO_OTHER = 0,
	NTP_MON_IO_WRITE = 1,
	NTP_MON_IO_READ = 2,
};

struct ntp_mon_key {
	__u8 stage;             /* enum ntp_mon_stage */
	__u8 io;                /* enum ntp_mon_io */
	__u8 size_class;        /* ntp_mon_size_class() */
	__u8 pad0;
	__u32 ctrl;             /* host: ctrl->instance (the X of nvmeX); target: the cntlid */
	__u32 nsid;
	__u32 pad1;
};

/*
 * No count: user space adds the buckets up, so that a series read while a
 * value is being added has its count equal to its buckets' total whatever
 * the order in which another CPU sees the adds (the exposition's +Inf is
 * its _count); the sum may lag by that value.
 */
struct ntp_mon_hist {
	__u64 sum;              /* ns, two's complement: a stage may be negative */
	__u64 bucket[NTP_MON_NBUCKETS];
};

/*
 * The host's per-queue readings (ntprof-monitor(1), ntprof_queue_in_flight):
 * of each hardware queue of a controller, the driver tags in use that its
 * sampled commands found at setup (queue_busy of bpf/ntp_events.h, read for
 * one sampled command in NTP_BUSY_EVERY, bpf/host.bpf.c), added up, and how
 * many readings.
 * qid is the record's: the hardware queue's number + 1.
 */
struct ntp_mon_qkey {
	__u32 ctrl;             /* ctrl->instance: the X of nvmeX */
	__u32 qid;
};

struct ntp_mon_queue {
	__u64 busy_sum;
	__u64 reads;
};

/* the size class of a command of bytes: its size rounded up to a power of two, from 512 */
static __always_inline __u8 ntp_mon_size_class(__u32 bytes)
{
	int c;

	if (bytes <= 512)
		return 0;
	c = ntp_hist_log2((__u64)(bytes - 1) >> 9) + 1;
	return c < NTP_MON_SIZE_CLASSES - 1 ? (__u8)c : NTP_MON_SIZE_CLASSES - 1;
}

static __always_inline __u8 ntp_mon_io(__u8 opcode)
{
	return opcode == 0x01 ? NTP_MON_IO_WRITE : opcode == 0x02 ? NTP_MON_IO_READ : NTP_MON_IO_OTHER;
}

/* the bucket of a stage of v ns: bpf/ntp_hist.h's, the octaves from 2^NTP_MON_MAX_OCTAVE in the last */
static __always_inline int ntp_mon_bucket(__s64 v)
{
	int b = ntp_hist_bucket(v, NTP_HIST_SUB_BITS);

	return b < NTP_MON_NBUCKETS ? b : NTP_MON_NBUCKETS - 1;
}

static __always_inline __s64 ntp_mon_or(__u64 t, __s64 fallback)
{
	return t ? (__s64)t : fallback;
}

/* a host record's stages: e2e, block, driver, network* (out[] by enum ntp_mon_stage) */
static __always_inline void ntp_mon_host_stages(const struct ntp_host_event *e, __s64 out[4])
{
	__s64 start = (__s64)e->h_start, queue = (__s64)e->h_queue, done = (__s64)e->h_done;
	__s64 cmd_sent = ntp_mon_or(e->h_cmd_sent, queue);
	__s64 sent, r2t_host = 0, recv, data_sent;

	if (e->h_r2t && e->h_data_sent) {
		sent = cmd_sent;
		r2t_host = (__s64)e->h_data_sent - (__s64)e->h_r2t;
	} else {
		data_sent = ntp_mon_or(e->h_data_sent, cmd_sent);
		sent = cmd_sent > data_sent ? cmd_sent : data_sent;
	}
	recv = ntp_mon_or(e->h_recv, done);
	out[NTP_MON_E2E] = done - start;
	out[NTP_MON_BLOCK] = queue - start;
	out[NTP_MON_DRIVER] = (sent - queue) + r2t_host + (done - recv);
	out[NTP_MON_NETWORK_STAR] = (recv - sent) - r2t_host;
}

/*
 * a host record's application stages, as host_app_stages has them: submit,
 * complete, reap, app e2e (out[] from NTP_MON_APP_SUBMIT); a bit of the
 * mask for each the record has (a view's NULL where a stamp is 0)
 */
static __always_inline unsigned int ntp_mon_app_stages(const struct ntp_host_event *e, __s64 out[4])
{
	__s64 submit = (__s64)e->h_app_submit, done = (__s64)e->h_app_done, reap = (__s64)e->h_app_reap;
	unsigned int have = 0;

	out[0] = (__s64)e->h_start - submit;
	out[1] = done - (__s64)e->h_done;
	out[2] = reap - done;
	out[3] = (reap ? reap : done) - submit;
	if (submit)
		have |= 1;
	if (done)
		have |= 2;
	if (reap && done)
		have |= 4;
	if (done && submit)
		have |= 8;
	return have;
}

/* a target record's stages: target driver, storage, residence (out[] from NTP_MON_TARGET_DRIVER) */
static __always_inline void ntp_mon_target_stages(const struct ntp_target_event *e, __s64 out[3])
{
	__s64 recv = (__s64)e->t_recv, sent = (__s64)e->t_sent;
	__s64 submit = ntp_mon_or(e->t_submit, recv);
	__s64 cmpl = ntp_mon_or(e->t_cmpl, submit);
	__s64 r2t_wait = e->t_r2t && e->t_submit ? (__s64)e->t_submit - (__s64)e->t_r2t : 0;

	out[0] = (submit - recv) - r2t_wait + (sent - cmpl);
	out[1] = cmpl - submit;
	out[2] = (sent - recv) - r2t_wait;
}

/*
 * The flight recorder's floor (monitor --flight, lib/monitor/mon_flight.h):
 * of each side, the end-to-end time at or below which user space drops a
 * command of the current interval, its heap of the interval's slowest being
 * full.  User space writes it each time it reads the ring buffer into the
 * collector's `flight_floor` map, as one __u64: the interval's number + 1
 * modulo 2^NTP_MON_FLOOR_IV_BITS above the floor in ns (at most
 * NTP_MON_FLOOR_NS_MAX, a larger one written as that); 0 when none.  The
 * kernel keeps a command of that interval at or under the floor off the ring
 * buffer (NTP_CNT_FLIGHT_FILTERED): one user space would have dropped, as the
 * heap's smallest only grows within an interval.  A command of another
 * interval crosses, until user space writes that interval's floor.
 */
#define NTP_MON_FLIGHT_INTERVAL_NS 1000000000ULL
#define NTP_MON_FLOOR_NS_BITS 38
#define NTP_MON_FLOOR_NS_MAX ((1ULL << NTP_MON_FLOOR_NS_BITS) - 1)
#define NTP_MON_FLOOR_IV_BITS (64 - NTP_MON_FLOOR_NS_BITS)

/* the floor of interval iv (its number + 1) at floor_ns */
static __always_inline __u64 ntp_mon_floor_pack(__u64 iv, __u64 floor_ns)
{
	if (floor_ns > NTP_MON_FLOOR_NS_MAX)
		floor_ns = NTP_MON_FLOOR_NS_MAX;
	return iv << NTP_MON_FLOOR_NS_BITS | floor_ns;
}

/*
 * The command that started at start and completed at done (the record's
 * done stamp, else done_alt): whether a floor keeps it off the ring buffer.
 * Its rank is user space's: end-to-end, 0 when a stamp is missing.  1: it does.
 */
static __always_inline int ntp_mon_floor_drops(__u64 floor, __u64 start, __u64 done,
						__u64 done_alt)
{
	__u64 e2e, iv;

	if (!floor)
		return 0;
	if (!done)
		done = done_alt;
	e2e = start && done > start ? done - start : 0;
	iv = done / NTP_MON_FLIGHT_INTERVAL_NS + 1;
	return iv << NTP_MON_FLOOR_NS_BITS == (floor & ~NTP_MON_FLOOR_NS_MAX) &&
	       e2e <= (floor & NTP_MON_FLOOR_NS_MAX);
}

#endif
