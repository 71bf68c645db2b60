/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVMe/RDMA half of the target collector, included by bpf/target.bpf.c;
 * its programs are loaded with -t rdma only (lib/collect/bpf_target.c).
 *
 * nvmet-rdma serves a command in struct nvmet_rdma_rsp, which embeds the
 * struct nvmet_req every common hook is keyed by.  After nvmet_req_init and
 * the SGL mapping, nvmet_rdma_execute_command() either posts an RDMA READ
 * that pulls a write's data from the host (keyed SGL), or runs req->execute
 * at once (reads, and in-capsule writes whose data came with the capsule).
 * The READ's completion, nvmet_rdma_read_data_done(), runs req->execute.
 * So for writes:
 *
 *	t_r2t      the READ posted: the entry of nvmet_rdma_execute_command,
 *	           kept only once nvmet_rdma_read_data_done sees that READ
 *	           complete (NTP_TF_R2T); an in-capsule write keeps t_r2t 0
 *	t_submit   the backend's execute, from read_data_done: the READ's
 *	           wait, t_r2t..t_submit, is network time, as TCP's R2T wait
 *
 * t_sent is nvmet_rdma_queue_response(): the response SEND, behind a read's
 * RDMA WRITE of the data, is posted to the HCA.  Not nvmet_rdma_send_done:
 * that SEND's completion includes the wire's acknowledgement.
 *
 * nvmet_rdma_execute_command is entered again for the same command when the
 * send queue was full (it returns false and the command waits on
 * rsp_wr_wait_list): the last entry before the READ completes is the one
 * that posted it.  All three functions are out of line in every build
 * examined (6.1, 6.12): execute_command is called from handle_command and
 * from the wait list, the other two through function pointers.
 */
#ifndef NTP_TARGET_RDMA_BPF_H
#define NTP_TARGET_RDMA_BPF_H

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* ---- nvmet_rdma (module BTF) ---- */

struct nvmet_rdma_rsp {
	struct ib_cqe send_cqe;         /* the wr_cqe of its response SEND's completion */
	struct ib_cqe read_cqe;         /* the wr_cqe of its RDMA READ's completion */
	struct nvmet_req req;
};

#pragma clang attribute pop

static __always_inline struct nvmet_req *rdma_rsp_to_req(struct nvmet_rdma_rsp *rsp)
{
	return (void *)rsp + bpf_core_field_offset(struct nvmet_rdma_rsp, req);
}

/* the command of a work completion: container_of(wc->wr_cqe, struct nvmet_rdma_rsp, <cqe>) */
static __always_inline struct nvmet_req *rdma_wc_to_req(struct ib_wc *wc, __u32 cqe_offset)
{
	void *cqe = BPF_CORE_READ(wc, wr_cqe);

	if (!cqe)
		return NULL;
	return rdma_rsp_to_req(cqe - cqe_offset);
}

/* a sampled write: note when its data's READ may be posted */
static __always_inline void rdma_execute_body(struct nvmet_rdma_rsp *rsp)
{
	struct inflight *v;

	if (!rsp)
		return;
	v = lookup_live(rdma_rsp_to_req(rsp));
	if (!v || v->ev.opcode != NVME_CMD_WRITE || (v->ev.flags & NTP_TF_R2T) || v->ev.t_submit)
		return;
	v->read_posted = bpf_ktime_get_ns();
}

SEC("fentry/nvmet_rdma_execute_command")
int BPF_PROG(rdma_exec_cmd, struct nvmet_rdma_rsp *rsp)
{
	if (runs(NTP_RUN_FENTRY))
		rdma_execute_body(rsp);
	return 0;
}

SEC("kprobe/nvmet_rdma_execute_command")
int BPF_KPROBE(rdma_exec_kp, struct nvmet_rdma_rsp *rsp)
{
	if (runs(NTP_RUN_KPROBE))
		rdma_execute_body(rsp);
	return 0;
}

/* the READ completed: it happened, and began at read_posted */
static __always_inline void rdma_read_done_body(struct ib_wc *wc)
{
	struct nvmet_req *req;
	struct inflight *v;

	/* a failed READ releases the command without a response: nothing to time */
	if (!wc || BPF_CORE_READ(wc, status) != IB_WC_SUCCESS)
		return;
	req = rdma_wc_to_req(wc, bpf_core_field_offset(struct nvmet_rdma_rsp, read_cqe));
	if (!req)
		return;
	v = lookup_live(req);
	if (!v || v->ev.opcode != NVME_CMD_WRITE)
		return;
	v->ev.t_r2t = v->read_posted;
	v->ev.flags |= NTP_TF_R2T;
}

SEC("fentry/nvmet_rdma_read_data_done")
int BPF_PROG(rdma_read_done, void *cq, struct ib_wc *wc)
{
	if (runs(NTP_RUN_FENTRY))
		rdma_read_done_body(wc);
	return 0;
}

SEC("kprobe/nvmet_rdma_read_data_done")
int BPF_KPROBE(rdma_read_kp, void *cq, struct ib_wc *wc)
{
	if (runs(NTP_RUN_KPROBE))
		rdma_read_done_body(wc);
	return 0;
}

/* the response (and a read's data) posted to the HCA: req->ops->queue_response */
SEC("fentry/nvmet_rdma_queue_response")
int BPF_PROG(rdma_queue_resp, struct nvmet_req *req)
{
	if (runs(NTP_RUN_FENTRY))
		response_out(req, bpf_ktime_get_ns());
	return 0;
}

SEC("kprobe/nvmet_rdma_queue_response")
int BPF_KPROBE(rdma_resp_kp, struct nvmet_req *req)
{
	if (runs(NTP_RUN_KPROBE))
		response_out(req, bpf_ktime_get_ns());
	return 0;
}

/*
 * Kprobe mode's backstop for the response (bpf/target.bpf.c: cmpl_tp): a
 * kprobe on nvmet_req_complete and nvmet_rdma_queue_response may both be
 * skipped, and the record would be lost (5 of 628 commands in the test
 * bed, 6.1).  The response SEND's completion, in process context, emits a
 * record still waiting, with t_cmpl and t_sent at the nvmet_req_complete
 * tracepoint, as tracepoint-only mode has them.
 */
SEC("kprobe/nvmet_rdma_send_done")
int BPF_KPROBE(rdma_send_kp, void *cq, struct ib_wc *wc)
{
	struct nvmet_req *req;
	struct inflight *v;

	if (!runs(NTP_RUN_KPROBE) || !wc)
		return 0;
	req = rdma_wc_to_req(wc, bpf_core_field_offset(struct nvmet_rdma_rsp, send_cqe));
	if (!req)
		return 0;
	v = lookup_live(req);
	if (!v)         /* the usual case: emitted at nvmet_rdma_queue_response */
		return 0;
	if (!v->ev.t_cmpl) {
		v->ev.t_cmpl = v->tp_cmpl;
		v->ev.status = BPF_CORE_READ(req, cqe, status) >> 1;
	}
	v->ev.t_sent = v->tp_cmpl ?: bpf_ktime_get_ns();
	emit(req, v);
	return 0;
}

#endif
