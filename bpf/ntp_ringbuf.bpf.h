/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a collector wakes its reader.  A wakeup from the completion path lets
 * the reader preempt the kernel thread before the request completes to the
 * block layer: latency that ntprof itself adds and then does not see
 * (measured in the test bed: nvme_complete_rq to blk_mq_end_request went from
 * 41 us to 363 us per command at -s 1, and ntprof's mean fell ~10% below
 * btt's Q2C).  So the reader is woken only when a lot is waiting; it polls
 * with a timeout and consumes what is there (ntp_host__poll).
 */
#ifndef NTP_RINGBUF_BPF_H
#define NTP_RINGBUF_BPF_H

#define NTP_RB_WAKEUP_BYTES (1 << 20)

#define ntp_rb_flags(rb) \
	(bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= NTP_RB_WAKEUP_BYTES ? \
	 BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP)

#endif
