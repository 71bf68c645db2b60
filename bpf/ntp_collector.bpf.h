/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every collector (bpf/host.bpf.c, bpf/target.bpf.c) has: the settings
 * user space writes before load, the ring buffer its records go out through,
 * and the per-CPU counters (enum ntp_counter) user space sums every interval.
 */
#ifndef NTP_COLLECTOR_BPF_H
#define NTP_COLLECTOR_BPF_H

#include "ntp_events.h"
#include "ntp_transport.h"
#include "ntp_filter.h"
#include "ntp_hash.h"

#define NVME_CMD_WRITE 0x01
#define NVME_CMD_READ 0x02

/* one command in N is recorded: the largest sampled hash, ntp_hash_limit(N) (-s) */
const volatile __u64 sample_limit = ~0ULL / 1000;
/* which driver's commands: enum ntp_transport (-t) */
const volatile __u32 transport = NTP_TRANSPORT_TCP;
/* --session, --io-type, --size (ntp_filter.h); all zero: every command */
const volatile struct ntp_filter filter = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NTP_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &which);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/*
 * When a collector wakes its reader.  A wakeup from the completion path lets
 * the reader preempt the kernel thread before the request completes to the
 * block layer: latency that ntprof itself adds and then does not see (at
 * -s 1, nvme_complete_rq to blk_mq_end_request nine times as long, and
 * ntprof's mean below btt's Q2C: bench/README.md).  So the reader is woken
 * only when a lot is waiting; it polls with a timeout and consumes what is
 * there (lib/collect/bpf_reader.c).
 */
#define NTP_RB_WAKEUP_BYTES (1 << 20)

static __always_inline __u64 wakeup_flags(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= NTP_RB_WAKEUP_BYTES ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* one record out to user space; a full ring buffer is counted, not retried */
static __always_inline void emit_record(void *rec, __u64 size)
{
	if (bpf_ringbuf_output(&events, rec, size, wakeup_flags()))
		count(NTP_CNT_LOST_RINGBUF);
}

#include "ntp_mon.bpf.h"

#endif
