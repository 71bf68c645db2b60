/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's per-request slots (bpf/host.bpf.c: rq_slots), shared with the
 * sweep in user space (lib/collect/inflight_expire.c), which reads them
 * through a mapping of the array.
 *
 * blk-mq allocates one struct request per tag of each hardware queue when
 * the queue is made (its static requests), and a command holds its request
 * from the decision to the completion: the request's address names the
 * (hardware queue, tag) the command runs on.  Every host hook has that
 * address as a number (the send hooks only through container_of() from the
 * driver's request, where the tag itself would be one more read through
 * a helper), so the slot is chosen by it: the high bits of its Fibonacci
 * product.  Two requests whose addresses choose the same slot share it:
 * the first one in owns it, the other's entry goes to the hash map
 * `inflight`.  An owner is exchanged in from 0 and out to 0, on both
 * sides.
 */
#ifndef NTP_SLOTS_H
#define NTP_SLOTS_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define NTP_SLOTS_SHIFT 14
#define NTP_SLOTS (1u << NTP_SLOTS_SHIFT)

/* the head of each slot; the command's entry (struct inflight) follows it */
struct ntp_rq_slot_head {
	__u64 rq;               /* the owner's struct request *; 0: free */
};

/*
 * The head of a slot of the application's libaio records (bpf/host_app.bpf.h:
 * app_aio_slots), its record after it: the owner first, as in struct
 * ntp_rq_slot_head, for the same exchange.
 */
struct ntp_app_slot_head {
	__u64 obj;              /* the aio event's obj (the user's iocb); 0: free */
	__u64 ring;             /* the aio ring's user address */
};

/* the count of one kind of those records: in its slots, in its hash map, and either (any) */
union ntp_app_live {
	__u64 any;
	struct {
		__u32 slots;
		__u32 hashed;
	} n;
};

static __always_inline __u32 ntp_rq_slot(__u64 rq)
{
	/* requests are a few hundred bytes apart: the high bits mix them */
	return (__u32)((rq * 0x9e3779b97f4a7c15ULL) >> (64 - NTP_SLOTS_SHIFT));
}

#endif
