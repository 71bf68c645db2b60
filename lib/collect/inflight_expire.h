/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Expiry of sampled commands that never complete.  Each collector keeps a
 * sampled command in its BPF hash map `inflight` from the sampling decision
 * to the completion; a command that never completes (failover, queue
 * teardown, a request failed in queue_rq) leaves its entry until its
 * request is reused, and a full map loses every new sample (lost_map).
 * The collector core (lib/collect/collector.c) sweeps these maps from user space
 * every NTP_INFLIGHT_SWEEP_NS while it polls.
 */
#ifndef NTP_INFLIGHT_EXPIRE_H
#define NTP_INFLIGHT_EXPIRE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"     /* struct ntp_rdma_cmd_key */

/*
 * How old an entry's first timestamp must be to go: well beyond any live
 * command.  NVMe's default I/O timeout is 30 s and a retry gets a new
 * command id (a new entry), so 120 s leaves a live command four timeouts.
 */
#define NTP_INFLIGHT_EXPIRE_NS (120ULL * 1000000000ULL)
/* how often the core sweeps: cheap (a map walk), and far below the limit */
#define NTP_INFLIGHT_SWEEP_NS (5ULL * 1000000000ULL)

/*
 * Delete every entry of the hash map fd (8-byte keys, values of value_size
 * bytes) whose __u64 at ts_off is non-zero and older than now - limit_ns
 * (both CLOCK_MONOTONIC ns, as bpf_ktime_get_ns()).  Returns how many were
 * deleted, or -errno when the map could not be walked.
 */
long ntp_inflight__expire(int fd, size_t value_size, size_t ts_off, uint64_t now, uint64_t limit_ns);

/*
 * The host's per-request slots (bpf/ntp_slots.h), mapped into user space:
 * n slots of stride bytes from base, each a struct ntp_rq_slot_head and
 * the command's entry after it (whose offsets the callers give from the
 * slot's start).  NULL base: none.
 */
struct ntp_slots_view {
	void *base;
	size_t n, stride;
};

/*
 * Free every slot of v whose owner's entry has a __u64 at ts_off that is
 * non-zero and older than now - limit_ns, as ntp_inflight__expire does for
 * the hash map.  A slot is taken from its owner by an exchange of the
 * owner's address for 0, as the BPF side takes a free one.  (A request
 * reused at that very moment, after its command stayed stale for the
 * whole limit, loses its new command: the BPF side replaces a stale entry
 * of its own request in place.)  Returns how many.
 */
long ntp_inflight__expire_slots(const struct ntp_slots_view *v, size_t ts_off, uint64_t now,
				uint64_t limit_ns);

/*
 * Delete every entry of the RDMA map rdma_fd (struct ntp_rdma_cmd_key ->
 * request pointer) whose request has no entry with that command id (a
 * __u16 at cid_off of its value_size-byte value) in the map inflight_fd,
 * nor in its slot of slots (if not NULL; cid_off + sizeof(struct
 * ntp_rq_slot_head) there).  Returns how many were deleted, or -errno.
 */
long ntp_inflight__expire_orphans(int rdma_fd, int inflight_fd, size_t value_size, size_t cid_off,
				  const struct ntp_slots_view *slots);

/*
 * The records a collector's BPF side keeps after a command's completion,
 * waiting for a later hook (the host's application reap, bpf/host_app.bpf.h):
 * how long one may wait before user space writes it without that hook's
 * stamps.  Far beyond an application's reap (an fio at queue depth 16 under
 * TCG reaps within tens of ms), short enough that a record whose hook never
 * comes (a thread that exits first, an SQPOLL ring reaped by another thread)
 * reaches the file while the recording runs.
 */
#define NTP_PARKED_EXPIRE_NS (10ULL * 1000000000ULL)
/* limit_ns of ntp_inflight__take: every entry, whatever its age */
#define NTP_INFLIGHT_ALL UINT64_MAX

typedef void (*ntp_taken_fn)(const void *value, size_t size, void *arg);

/*
 * Delete every entry of the hash map fd (key_size-byte keys, value_size-byte
 * values) whose __u64 at ts_off is non-zero and older than now - limit_ns,
 * or every entry for NTP_INFLIGHT_ALL, and hand each value this walk deleted
 * to taken (if not NULL): the entry's delete decides who has it, when the
 * BPF side takes entries too.  Returns how many, or -errno.
 */
long ntp_inflight__take(int fd, size_t key_size, size_t value_size, size_t ts_off, uint64_t now,
			uint64_t limit_ns, ntp_taken_fn taken, void *arg);

/*
 * The same for slots mapped as struct ntp_slots_view, each a struct
 * ntp_rq_slot_head (its owner; 0: free) and a record of rec_size bytes at
 * rec_off from the slot's start, whose __u64 at ts_off (in the record) is
 * its age: each record taken goes to taken (if not NULL).  A slot is taken
 * by an exchange of its owner for 0, as the BPF side takes one, so that
 * one of the two has the record.  Returns how many, or -EINVAL.
 */
long ntp_inflight__take_slots(const struct ntp_slots_view *v, size_t rec_off, size_t rec_size,
			      size_t ts_off, uint64_t now, uint64_t limit_ns, ntp_taken_fn taken,
			      void *arg);

#endif
