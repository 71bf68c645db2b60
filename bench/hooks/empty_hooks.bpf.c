// SPDX-License-Identifier: GPL-2.0
/*
 * Empty programs, each kernel point twice: as a tp_btf program on the
 * tracepoint the kernel fires there and as an fentry program on the function
 * that fires it. bench/guest/testbed.sh attaches one flavour at a time
 * (bench/hooks/empty_hooks.c) to weigh the two ways in, by their cost to fio.
 * Names: <flavour>_<side>_<point>: fe or tp; h host nvme core, b host block
 * layer, t target.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define EMPTY_PAIR(name, tp, fn)                                               \
	SEC("tp_btf/" #tp) int tp_##name(void *ctx) { return 0; }             \
	SEC("fentry/" #fn) int fe_##name(void *ctx) { return 0; }

/* trace_nvme_setup_cmd() ends nvme_setup_cmd() */
EMPTY_PAIR(h_setup_cmd, nvme_setup_cmd, nvme_setup_cmd)
/* trace_nvme_complete_rq() begins nvme_complete_rq() */
EMPTY_PAIR(h_complete_rq, nvme_complete_rq, nvme_complete_rq)
/* trace_block_rq_issue() in blk_mq_start_request() */
EMPTY_PAIR(b_rq_issue, block_rq_issue, blk_mq_start_request)
/* trace_block_rq_complete() in blk_update_request() */
EMPTY_PAIR(b_rq_complete, block_rq_complete, blk_update_request)
/* trace_nvmet_req_init() in nvmet_req_init() */
EMPTY_PAIR(t_req_init, nvmet_req_init, nvmet_req_init)
/* trace_nvmet_req_complete() in __nvmet_req_complete(), which
 * nvmet_req_complete() calls first */
EMPTY_PAIR(t_req_complete, nvmet_req_complete, nvmet_req_complete)

char LICENSE[] SEC("license") = "GPL";
