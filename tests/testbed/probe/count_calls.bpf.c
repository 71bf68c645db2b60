// SPDX-License-Identifier: GPL-2.0
/*
 * count_calls.bpf.c - count the calls of one blk-mq ->queue_rq() function
 * (nvme_tcp_queue_rq, nvme_rdma_queue_rq, ...) with fentry.
 *
 * The attach target is chosen by the loader (bpf_program__set_attach_target),
 * so one object serves every transport. Commands on queues without a disk
 * (admin queue: keep-alive, AEN; fabrics connect queue) are counted apart from
 * namespace I/O, so calls_disk is exactly the I/O that reached the namespace.
 * The two struct definitions below are CO-RE stubs: only the fields used,
 * relocated against the running kernel's BTF.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

struct gendisk;

struct request_queue {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

struct blk_mq_hw_ctx {
	struct request_queue *queue;
} __attribute__((preserve_access_index));

__u64 calls_all;
__u64 calls_disk;

SEC("fentry")
int BPF_PROG(count_queue_rq, struct blk_mq_hw_ctx *hctx)
{
	__sync_fetch_and_add(&calls_all, 1);
	if (BPF_CORE_READ(hctx, queue, disk))
		__sync_fetch_and_add(&calls_disk, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
