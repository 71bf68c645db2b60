/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histogram mode (ntprof monitor): a sampled command, once complete, is
 * counted into the per-CPU histograms of its stages (bpf/ntp_mon.h) instead
 * of crossing the ring buffer.  The decision, the filter and the hooks are
 * record's: an unsampled command costs what it costs under record with the
 * same -s.  Included by ntp_collector.bpf.h.
 */
#ifndef NTP_MON_BPF_H
#define NTP_MON_BPF_H

#include "ntp_mon.h"

/* set by user space before load: sampled commands go to the histograms, not the ring buffer */
const volatile bool hist_mode = false;
/*
 * and with the flight recorder (monitor --flight): each sampled command
 * crosses the ring buffer too, once counted
 */
const volatile bool hist_stream = false;

/* the flight recorder's floor (ntp_mon.h): written by user space, 0 until then */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} flight_floor SEC(".maps");

/*
 * Whether a counted command crosses the ring buffer for the flight
 * recorder: not when its interval's floor drops it (counted apart)
 */
static __always_inline bool ntp_mon_stream(__u64 start, __u64 done, __u64 done_alt)
{
	__u32 zero = 0;
	__u64 *f = bpf_map_lookup_elem(&flight_floor, &zero);

	if (f && ntp_mon_floor_drops(*(volatile __u64 *)f, start, done, done_alt)) {
		count(NTP_CNT_FLIGHT_FILTERED);
		return false;
	}
	return true;
}

static __always_inline bool ntp_mon_stream_host(const struct ntp_host_event *e)
{
	return ntp_mon_stream(e->h_start, e->h_done, e->h_recv);
}

static __always_inline bool ntp_mon_stream_target(const struct ntp_target_event *e)
{
	return ntp_mon_stream(e->t_recv, e->t_sent, e->t_cmpl);
}

/*
 * Preallocated: kernels before 6.2 refuse a hash map without preallocation
 * in tracing programs.  Record, which never counts here, sizes it to one
 * entry before load (lib/collect).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, NTP_MON_MAX_SERIES);
	__type(key, struct ntp_mon_key);
	__type(value, struct ntp_mon_hist);
} hists SEC(".maps");

/* a new series' first value: all zero (too large for the stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ntp_mon_hist);
} hist_zero SEC(".maps");

/*
 * The host's per-queue readings (ntp_mon.h).  A plain hash: a reading is
 * taken for one sampled command in NTP_BUSY_EVERY, and a queue's commands
 * come from the few CPUs mapped to it, so its two adds seldom meet another
 * CPU's.  Preallocated and sized to one entry by record, as hists.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, NTP_MON_MAX_QUEUES);
	__type(key, struct ntp_mon_qkey);
	__type(value, struct ntp_mon_queue);
} queues SEC(".maps");

/* a host command's reading of its queue's tags in use, where it took one */
static __always_inline void ntp_mon_add_queue(const struct ntp_host_event *e)
{
	struct ntp_mon_qkey k = { .ctrl = e->ctrl_instance, .qid = e->qid };
	struct ntp_mon_queue zero = {}, *q;

	if (!(e->flags & NTP_HF_QUEUE_BUSY))
		return;
	q = bpf_map_lookup_elem(&queues, &k);
	if (!q) {
		/* full: the queue has no gauge (ntprof_queue_series says the map's fill) */
		bpf_map_update_elem(&queues, &k, &zero, BPF_NOEXIST);
		q = bpf_map_lookup_elem(&queues, &k);
		if (!q)
			return;
	}
	__sync_fetch_and_add(&q->busy_sum, e->queue_busy);
	__sync_fetch_and_add(&q->reads, 1);
}

/*
 * One value into its series.  Atomic adds, though the map is per CPU: a
 * program interrupted on its CPU by another that counts into the same
 * series must lose neither count.
 */
static __always_inline void ntp_mon_add(struct ntp_mon_key *k, __s64 v)
{
	struct ntp_mon_hist *h = bpf_map_lookup_elem(&hists, k);
	__u32 zero = 0, b;

	if (!h) {
		struct ntp_mon_hist *z = bpf_map_lookup_elem(&hist_zero, &zero);

		if (!z)
			return;
		bpf_map_update_elem(&hists, k, z, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, k);
		if (!h) {
			count(NTP_CNT_LOST_HIST);
			return;
		}
	}
	/*
	 * One unsigned test on the register that indexes: clang may otherwise
	 * test a copy, whose bound 6.1's verifier does not carry over
	 */
	b = (__u32)ntp_mon_bucket(v);
	barrier_var(b);
	if (b >= NTP_MON_NBUCKETS)
		return;
	__sync_fetch_and_add(&h->sum, (__u64)v);
	__sync_fetch_and_add(&h->bucket[b], 1);
}

static __always_inline void ntp_mon_add_host(const struct ntp_host_event *e)
{
	struct ntp_mon_key k = { .io = ntp_mon_io(e->opcode), .size_class = ntp_mon_size_class(e->bytes),
				 .ctrl = e->ctrl_instance, .nsid = e->nsid };
	__s64 s[4];
	int i;

	ntp_mon_host_stages(e, s);
	/* unrolled: 6.1's verifier refuses this program's back-edge */
#pragma unroll
	for (i = 0; i < 4; i++) {
		k.stage = NTP_MON_E2E + i;
		ntp_mon_add(&k, s[i]);
	}
	ntp_mon_add_queue(e);
}

/*
 * One value into the series of stage, I/O type and size class (8 bits each,
 * from bit 16 down) of controller and namespace (the high and low 32 bits):
 * a global function, which the verifier checks once, not at each call.  The
 * application's hooks call it within their loops over up to 64 events,
 * which inlined histogram updates make too long to verify.
 */
__noinline int ntp_mon_add_one(__u64 ctrl_nsid, __u32 stage_io_size, __s64 v)
{
	struct ntp_mon_key k = { .stage = (__u8)(stage_io_size >> 16), .io = (__u8)(stage_io_size >> 8),
				 .size_class = (__u8)stage_io_size, .ctrl = (__u32)(ctrl_nsid >> 32),
				 .nsid = (__u32)ctrl_nsid };

	ntp_mon_add(&k, v);
	return 0;
}

/* a host record's application stages, those it has (monitor --app) */
static __always_inline void ntp_mon_add_app(const struct ntp_host_event *e)
{
	__u64 ctrl_nsid = (__u64)e->ctrl_instance << 32 | e->nsid;
	__u32 io_size = (__u32)ntp_mon_io(e->opcode) << 8 | ntp_mon_size_class(e->bytes);
	__s64 s[4];
	unsigned int have = ntp_mon_app_stages(e, s);

	if (have & 1)
		ntp_mon_add_one(ctrl_nsid, (__u32)NTP_MON_APP_SUBMIT << 16 | io_size, s[0]);
	if (have & 2)
		ntp_mon_add_one(ctrl_nsid, (__u32)NTP_MON_APP_COMPLETE << 16 | io_size, s[1]);
	if (have & 4)
		ntp_mon_add_one(ctrl_nsid, (__u32)NTP_MON_APP_REAP << 16 | io_size, s[2]);
	if (have & 8)
		ntp_mon_add_one(ctrl_nsid, (__u32)NTP_MON_APP_E2E << 16 | io_size, s[3]);
}

static __always_inline void ntp_mon_add_target(const struct ntp_target_event *e)
{
	struct ntp_mon_key k = { .io = ntp_mon_io(e->opcode), .size_class = ntp_mon_size_class(e->bytes),
				 .ctrl = e->cntlid, .nsid = e->nsid };
	__s64 s[3];
	int i;

	ntp_mon_target_stages(e, s);
#pragma unroll
	for (i = 0; i < 3; i++) {
		k.stage = NTP_MON_TARGET_DRIVER + i;
		ntp_mon_add(&k, s[i]);
	}
}

/*
 * Where record emits a record whose application stamps are in (monitor
 * --app): its application stages into the histograms; 1 when it crosses
 * the ring buffer for the flight recorder.  A global function, checked once:
 * the hooks that reap call it in loops over up to 64 events.
 */
__noinline int ntp_mon_app_take(const struct ntp_host_event *e)
{
	if (!e)
		return 0;
	ntp_mon_add_app(e);
	return hist_stream && ntp_mon_stream_host(e);
}

#endif
