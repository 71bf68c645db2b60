/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVMe/RDMA half of the host collector, included by bpf/host.bpf.c; its
 * programs are loaded with -t rdma only (lib/collect/bpf_host.c).
 *
 * h_cmd_sent is nvme_rdma_post_send() returning 0: the command capsule is on
 * the send queue and the doorbell is rung.  h_recv is nvme_rdma_recv_done(),
 * the receive completion of the response capsule.  That hook is handed only
 * the work completion: its buffer holds the CQE, whose command id is unique
 * within the queue while the command is in flight.  So each sampled command
 * is also kept in `rdma_cmds`, keyed by (queue pair, command id), from the
 * decision to the completion.
 *
 * Not blk_mq_complete_request_remote() as for TCP: nvme-rdma calls it only
 * once both the send and the receive completion are in (a reference count of
 * two), which can be later than the response's arrival.
 *
 * Writes have no h_r2t nor h_data_sent: the target pulls the data with RDMA
 * READ, which the host's CPU never sees (the target collector times it).
 */
#ifndef NTP_HOST_RDMA_BPF_H
#define NTP_HOST_RDMA_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ntp_rdma_cmd_key);
	__type(value, __u64);   /* struct request * */
} rdma_cmds SEC(".maps");

static __always_inline void rdma_cmd_key(struct request *rq, __u16 cid, struct ntp_rdma_cmd_key *k)
{
	struct nvme_rdma_queue *queue = BPF_CORE_READ(rq, mq_hctx, driver_data);

	k->qp = (__u64)BPF_CORE_READ(queue, qp);
	k->cid = cid;
	k->pad = 0;
}

/* at the decision, for a sampled command */
static __always_inline void rdma_track(struct request *rq, __u16 cid)
{
	struct ntp_rdma_cmd_key k;
	__u64 v = (__u64)rq;

	rdma_cmd_key(rq, cid, &k);
	if (bpf_map_update_elem(&rdma_cmds, &k, &v, BPF_ANY))
		count(NTP_CNT_LOST_MAP);
}

/* at the completion (or when a stale entry of rq is met) */
static __always_inline void rdma_forget(struct request *rq, __u16 cid)
{
	struct ntp_rdma_cmd_key k;
	__u64 *v;

	rdma_cmd_key(rq, cid, &k);
	v = bpf_map_lookup_elem(&rdma_cmds, &k);
	if (v && *v == (__u64)rq)
		bpf_map_delete_elem(&rdma_cmds, &k);
}

/* container_of(qe, struct nvme_rdma_request, sqe) -> request, through its nvme_request */
static __always_inline __u64 rdma_qe_to_rq(struct nvme_rdma_qe *qe)
{
	return (__u64)((void *)qe - bpf_core_field_offset(struct nvme_rdma_request, sqe) +
		       bpf_core_field_offset(struct nvme_rdma_request, req) -
		       bpf_core_type_size(struct request));
}

/* ---- command capsule posted ---- */

/*
 * Asynchronous event requests post ctrl->async_event_sqe, which belongs to
 * no request: its address maps to no sampled command, a lookup miss.
 */
static __always_inline void post_send_body(struct nvme_rdma_qe *qe, int ret, __u64 t)
{
	struct inflight *v;
	__u64 key;

	if (!qe || ret)         /* not posted: queue_rq fails or requeues the command */
		return;
	key = rdma_qe_to_rq(qe);
	v = lookup_rq(key);
	if (v)
		set_cmd_sent(v, t);
}

/* the kprobe's entry: the time, for a sampled command (bpf/ntp_attach.bpf.h: send_enter) */
static __always_inline void post_enter(struct nvme_rdma_qe *qe)
{
	if (qe && lookup_rq(rdma_qe_to_rq(qe)))
		send_enter((__u64)qe);
}

/* fentry: the note in the sampled command's entry (host.bpf.c: send_note) */
SEC("fentry/nvme_rdma_post_send")
int BPF_PROG(rdma_post_ent)
{
	struct nvme_rdma_qe *q;
	struct inflight *v;

	if (!runs(NTP_RUN_FENTRY) || none_live())
		return 0;
	q = arg_untyped(ctx, 1);
	if (q && (v = lookup_rq(rdma_qe_to_rq(q))))
		send_note(v);
	return 0;
}

/* not posted (ret): queue_rq fails or requeues the command */
SEC("fexit/nvme_rdma_post_send")
int BPF_PROG(rdma_post_send, struct nvme_rdma_queue *queue, struct nvme_rdma_qe *qe,
	     void *sge, u32 num_sge, void *first, int ret)
{
	struct nvme_rdma_qe *q;
	struct inflight *v;
	__u64 t;

	if (!runs(NTP_RUN_FENTRY) || none_live())
		return 0;
	q = arg_untyped(ctx, 1);
	if (q && (v = lookup_rq(rdma_qe_to_rq(q)))) {
		t = send_noted(v);
		if (!ret)
			set_cmd_sent(v, t);
	}
	return 0;
}

SEC("kprobe/nvme_rdma_post_send")
int BPF_KPROBE(rdma_post_ent_kp, struct nvme_rdma_queue *queue, struct nvme_rdma_qe *qe)
{
	if (runs(NTP_RUN_KPROBE))
		post_enter(qe);
	return 0;
}

SEC("kretprobe/nvme_rdma_post_send")
int BPF_KRETPROBE(rdma_post_send_kp, int ret)
{
	__u64 qe, t;

	if (runs(NTP_RUN_KPROBE) && (qe = send_exit(&t)))
		post_send_body((void *)qe, ret, t);
	return 0;
}

/* ---- response capsule received ---- */

static __always_inline void recv_done_body(struct ib_wc *wc)
{
	struct ntp_rdma_cmd_key k = {};
	struct nvme_completion *cqe;
	struct nvme_rdma_qe *qe;
	struct inflight *v;
	__u64 *rq, key;

	/*
	 * Every response of the machine comes here, and its request is known
	 * only after four reads: none are done while no command is sampled
	 */
	if (!wc || none_live())
		return;
	qe = (void *)BPF_CORE_READ(wc, wr_cqe) - bpf_core_field_offset(struct nvme_rdma_qe, cqe);
	cqe = BPF_CORE_READ(qe, data);
	if (!cqe)
		return;
	k.qp = (__u64)BPF_CORE_READ(wc, qp);
	k.cid = BPF_CORE_READ(cqe, command_id);
	rq = bpf_map_lookup_elem(&rdma_cmds, &k);
	/* a flushed or failed receive carries no response (error recovery follows) */
	if (!rq || BPF_CORE_READ(wc, status) != IB_WC_SUCCESS)
		return;
	key = *rq;
	v = lookup_rq(key);
	/* the request may since carry another sampled command: the command id tells */
	if (v && v->ev.cid == k.cid)
		v->ev.h_recv = bpf_ktime_get_ns();
}

SEC("fentry/nvme_rdma_recv_done")
int BPF_PROG(rdma_recv_done, struct ib_cq *cq, struct ib_wc *wc)
{
	if (runs(NTP_RUN_FENTRY))
		recv_done_body(wc);
	return 0;
}

SEC("kprobe/nvme_rdma_recv_done")
int BPF_KPROBE(rdma_recv_done_kp, struct ib_cq *cq, struct ib_wc *wc)
{
	if (runs(NTP_RUN_KPROBE))
		recv_done_body(wc);
	return 0;
}

#endif
