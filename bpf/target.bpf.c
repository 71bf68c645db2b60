// SPDX-License-Identifier: GPL-2.0
/*
 * The target collector: one record per sampled NVMe I/O command that an
 * nvmet target served, over TCP (nvmet-tcp) or RDMA (nvmet-rdma): the
 * read-only `transport` (record's -t) says which, and user space loads only
 * that driver's programs (lib/collect/bpf_target.c).
 *
 * The sampling decision is taken at fentry nvmet_req_init, where the
 * received capsule is already in req->cmd: the same raw SQE bytes the host
 * hashed, so both machines pick the same commands.  A sampled command's
 * identity is kept in `inflight` keyed by the struct nvmet_req pointer; every
 * later hook costs an unsampled command one map lookup.  The backend hooks
 * (t_submit) and nvmet_req_complete (t_cmpl) are the transports' common core.
 *
 * TCP: t_r2t is the R2T queued (nvmet_tcp_queue_response while the write's
 * data is missing); the response hook (fexit nvmet_try_send_response where it
 * is out of line, fentry nvmet_setup_response_pdu where it is inlined, 6.1)
 * emits the record.
 * RDMA (bpf/target_rdma.bpf.h): t_r2t is the RDMA READ of the write's data
 * posted, kept once its completion is seen; nvmet_rdma_queue_response (the
 * response, and a read's data, posted to the HCA) emits the record (with
 * kprobes, a backstop at nvmet_rdma_send_done catches one the kernel skipped).
 *
 * Every function hook is an fentry/fexit program with a kprobe/kretprobe
 * twin sharing its body; user space attaches one flavour and turns it on
 * through run_flavours (bpf/ntp_attach.bpf.h, lib/collect/attach_set.c).  Where neither
 * attaches, the nvmet_req_init and nvmet_req_complete tracepoints take the
 * decision and end the record: only t_recv and t_cmpl are filled.
 *
 * nvmet types live in module BTF only (nvmet, nvmet_tcp, nvmet_rdma): they
 * are declared here with just the fields read, and libbpf relocates them
 * (CO-RE).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ntp_attach.bpf.h"
#include "ntp_collector.bpf.h"

#define NVMF_TRTYPE_RDMA 1
#define NVMF_TRTYPE_TCP 3

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/*
 * vmlinux / nvme types the shared vmlinux.h does not carry.  The ___ntpt
 * flavour keeps them from clashing should it ever grow them; libbpf drops the
 * suffix when it matches against the kernel's BTF.
 */
struct block_device___ntpt {
	struct gendisk *bd_disk;
};

struct nvme_completion___ntpt {
	__le16 status;          /* the NVMe status shifted left by one, phase bit 0 */
};

/* ---- nvmet (module BTF) ---- */

struct nvmet_ctrl {
	u16 cntlid;
};

struct nvmet_sq {
	struct nvmet_ctrl *ctrl;        /* NULL until the connect command ran */
	u16 qid;
};

struct nvmet_cq;

struct nvmet_fabrics_ops {
	unsigned int type;              /* NVMF_TRTYPE_*: RDMA 1, TCP 3, LOOP 254 */
};

struct nvmet_ns {
	struct block_device___ntpt *bdev;       /* NULL for a file (or passthru) namespace */
	char *device_path;                      /* as written to configfs: /dev/nullb0, /srv/ns.img */
};

struct nvmet_req {
	struct nvme_command *cmd;               /* the received capsule's SQE */
	struct nvme_completion___ntpt *cqe;
	struct nvmet_sq *sq;
	struct nvmet_ns *ns;
	u32 transfer_len;
	const struct nvmet_fabrics_ops *ops;    /* set by nvmet_req_init itself */
};

/* ---- nvmet_tcp (module BTF) ---- */

struct nvmet_tcp_cmd {
	struct nvmet_req req;
	u32 rbytes_done;                /* write data received so far */
};

#pragma clang attribute pop

/*
 * Of the filter (bpf/ntp_collector.bpf.h), --io-type and --size apply; a
 * --session by its nsid only: the target does not know the host's
 * controller numbers.
 */

/* a sampled command between nvmet_req_init and its response */
struct inflight {
	struct ntp_target_event ev;
	/*
	 * --size is checked at the first hook after nvmet_req_init, once the
	 * transport has set req->transfer_len; only then is the command
	 * counted as sampled (or forgotten, as filtered out)
	 */
	__u32 size_pending;
	__u32 pad;
	/*
	 * RDMA: when the READ of a write's data was posted; it becomes t_r2t
	 * only once that READ completes (an in-capsule write posts none)
	 */
	__u64 read_posted;
	/* RDMA, kprobe mode: the nvmet_req_complete tracepoint's time (bpf/target_rdma.bpf.h) */
	__u64 tp_cmpl;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);     /* struct nvmet_req * */
	__type(value, struct inflight);
} inflight SEC(".maps");

/*
 * Per-hook fallbacks, set by user space where a function hook cannot be had
 * on this kernel (its prototype is not the one the program reads, or the
 * kernel refused the program): the decision at the nvmet_req_init
 * tracepoint, t_cmpl at the nvmet_req_complete tracepoint, and without a
 * response hook the record ended there, as in tracepoints-only mode.
 */
const volatile bool decide_at_tp = false;
const volatile bool cmpl_at_tp = false;
const volatile bool end_at_cmpl_tp = false;

static __always_inline struct nvmet_req *tcp_cmd_to_req(struct nvmet_tcp_cmd *cmd)
{
	return (void *)cmd + bpf_core_field_offset(struct nvmet_tcp_cmd, req);
}

static __always_inline struct nvmet_tcp_cmd *req_to_tcp_cmd(struct nvmet_req *req)
{
	return (void *)req - bpf_core_field_offset(struct nvmet_tcp_cmd, req);
}

static __always_inline bool size_passes(__u32 bytes)
{
	int i;

	if (!(filter.flags & NTP_FILTER_SIZE))
		return true;
	for (i = 0; i < NTP_FILTER_MAX_SIZES; i++)
		if ((__u32)i < filter.nsizes && filter.sizes[i] == bytes)
			return true;
	return false;
}

/*
 * The sampled command on req, or NULL.  An entry whose command never got a
 * response (queue torn down, an RDMA READ that failed) stays behind; the
 * nvmet_req is then reused by a later command.  That command is unsampled (a
 * sampled one replaces the entry at nvmet_req_init), so it is told apart by
 * its capsule: the identity no longer matches req->cmd.  nvmet-tcp never
 * overwrites it while the command lives; in nvmet-rdma it is the RECV buffer
 * the capsule landed in, reposted only inside nvmet_rdma_queue_response, after
 * the last hook of the command.  Only a hit pays for this check.
 *
 * --size is checked here, at the first hook after nvmet_req_init: the
 * transport sets req->transfer_len after it (nvmet_tcp_map_data,
 * nvmet_rdma_map_sgl), after its tracepoint too.
 */
static __always_inline struct inflight *lookup_live(struct nvmet_req *req)
{
	__u64 key = (__u64)req;
	struct inflight *v = bpf_map_lookup_elem(&inflight, &key);
	struct nvme_command *cmd;

	if (!v)
		return NULL;
	cmd = BPF_CORE_READ(req, cmd);
	if (BPF_CORE_READ(cmd, common.command_id) != v->ev.cid ||
	    BPF_CORE_READ(cmd, rw.slba) != v->ev.slba) {
		bpf_map_delete_elem(&inflight, &key);
		return NULL;
	}
	if (v->size_pending) {
		if (!size_passes(BPF_CORE_READ(req, transfer_len))) {
			bpf_map_delete_elem(&inflight, &key);
			return NULL;
		}
		v->size_pending = 0;
		count(NTP_CNT_SAMPLED);
	}
	return v;
}

/* the backend's name: the bdev's disk, else the last part of the configfs path */
static __always_inline void read_device(struct nvmet_ns *ns, struct ntp_target_event *ev)
{
	struct block_device___ntpt *bdev = BPF_CORE_READ(ns, bdev);
	char path[128] = {};
	const char *p;
	int i, base = 0;

	if (bdev) {
		struct gendisk *disk = BPF_CORE_READ(bdev, bd_disk);

		if (disk && BPF_CORE_READ_STR_INTO(&ev->device, disk, disk_name) > 1)
			return;
	}
	p = BPF_CORE_READ(ns, device_path);
	if (!p || bpf_probe_read_kernel_str(path, sizeof(path), p) <= 0)
		return;
	for (i = 0; i < (int)sizeof(path) - 1; i++) {
		if (!path[i])
			break;
		if (path[i] == '/')
			base = i + 1;
	}
	/* a path longer than the buffer: its first 127 bytes decided the base */
	bpf_probe_read_kernel_str(ev->device, sizeof(ev->device), p + (base & 127));
}

/*
 * The sampling decision, at the entry of nvmet_req_init (fentry, kprobe) or
 * at its tracepoint once the command is parsed.  A command the filter
 * rejects is counted as seen, never as sampled; --size waits for the next
 * hook (lookup_live).
 */
static __always_inline void req_init_body(struct nvmet_req *req, struct nvmet_sq *sq,
					  const struct nvmet_fabrics_ops *ops)
{
	unsigned int trtype = transport == NTP_TRANSPORT_RDMA ? NVMF_TRTYPE_RDMA : NVMF_TRTYPE_TCP;
	struct nvme_command *cmd;
	struct inflight v = {};
	__u64 key = (__u64)req;
	__u16 cid, nlb0, qid;
	__u64 slba;
	__u8 opcode;

	if (!req || !runs(NTP_RUN_SAMPLE))
		return;
	cmd = BPF_CORE_READ(req, cmd);
	/* req->sq and req->ns are set by nvmet_req_init itself: use its arguments */
	opcode = BPF_CORE_READ(cmd, common.opcode);
	if (opcode != NVME_CMD_READ && opcode != NVME_CMD_WRITE)
		return;
	qid = BPF_CORE_READ(sq, qid);
	if (!qid)               /* admin queue (fabrics commands share opcodes) */
		return;
	if (BPF_CORE_READ(ops, type) != trtype)
		return;
	count(NTP_CNT_SEEN);

	if ((filter.flags & NTP_FILTER_OPCODE) && opcode != filter.opcode)
		return;
	if ((filter.flags & NTP_FILTER_NS) && BPF_CORE_READ(cmd, common.nsid) != filter.nsid)
		return;
	cid = BPF_CORE_READ(cmd, common.command_id);
	slba = BPF_CORE_READ(cmd, rw.slba);
	nlb0 = BPF_CORE_READ(cmd, rw.length);
	if (!ntp_hash_sampled(ntp_cmd_hash(cid, slba, nlb0), sample_limit))
		return;
	if (filter.flags & NTP_FILTER_SIZE)
		v.size_pending = 1;
	else
		count(NTP_CNT_SAMPLED);

	v.ev.kind = NTP_EV_TARGET_IO;
	v.ev.t_recv = bpf_ktime_get_ns();
	v.ev.slba = slba;
	v.ev.nsid = BPF_CORE_READ(cmd, common.nsid);
	v.ev.cid = cid;
	v.ev.nlb0 = nlb0;
	v.ev.qid = qid;
	v.ev.cntlid = BPF_CORE_READ(sq, ctrl, cntlid);
	v.ev.opcode = opcode;

	/* BPF_ANY: replaces what a command that never got its response left on this req */
	if (bpf_map_update_elem(&inflight, &key, &v, BPF_ANY))
		count(NTP_CNT_LOST_MAP);
}

/*
 * nvmet_req_init(req, cq, sq, ops) up to 7.2; 7.3 has (req, sq, ops), the
 * completion queue being the submission queue's.  User space loads the
 * pair whose prototype this kernel's BTF has (lib/collect/bpf_target.c).
 */
SEC("fentry/nvmet_req_init")
int BPF_PROG(req_init, struct nvmet_req *req, struct nvmet_cq *cq, struct nvmet_sq *sq,
	     const struct nvmet_fabrics_ops *ops)
{
	if (runs(NTP_RUN_FENTRY))
		req_init_body(req, sq, ops);
	return 0;
}

SEC("kprobe/nvmet_req_init")
int BPF_KPROBE(req_init_kp, struct nvmet_req *req, struct nvmet_cq *cq, struct nvmet_sq *sq,
	       const struct nvmet_fabrics_ops *ops)
{
	if (runs(NTP_RUN_KPROBE))
		req_init_body(req, sq, ops);
	return 0;
}

SEC("fentry/nvmet_req_init")
int BPF_PROG(req_init3, struct nvmet_req *req, struct nvmet_sq *sq, const struct nvmet_fabrics_ops *ops)
{
	if (runs(NTP_RUN_FENTRY))
		req_init_body(req, sq, ops);
	return 0;
}

SEC("kprobe/nvmet_req_init")
int BPF_KPROBE(req_init3_kp, struct nvmet_req *req, struct nvmet_sq *sq,
	       const struct nvmet_fabrics_ops *ops)
{
	if (runs(NTP_RUN_KPROBE))
		req_init_body(req, sq, ops);
	return 0;
}

/*
 * The tracepoint fires in nvmet_req_init once the command is parsed, req->sq
 * and ->ops set: the decision in tracepoints-only mode, and in every mode
 * where nvmet_req_init itself cannot be hooked (decide_at_tp)
 */
SEC("tp_btf/nvmet_req_init")
int BPF_PROG(req_init_tp, struct nvmet_req *req, struct nvme_command *cmd)
{
	if ((runs(NTP_RUN_TP) || decide_at_tp) && req)
		req_init_body(req, BPF_CORE_READ(req, sq), BPF_CORE_READ(req, ops));
	return 0;
}

SEC("raw_tp/nvmet_req_init")
int BPF_PROG(req_init_raw, struct nvmet_req *req, struct nvme_command *cmd)
{
	if ((runs(NTP_RUN_TP) || decide_at_tp) && req)
		req_init_body(req, BPF_CORE_READ(req, sq), BPF_CORE_READ(req, ops));
	return 0;
}

/* handed to the backend: all write data is in; ns and transfer_len are final */
static __always_inline void submitted(struct nvmet_req *req)
{
	struct inflight *v = lookup_live(req);

	if (!v)
		return;
	v->ev.t_submit = bpf_ktime_get_ns();
	v->ev.bytes = BPF_CORE_READ(req, transfer_len);
	read_device(BPF_CORE_READ(req, ns), &v->ev);
}

SEC("fentry/nvmet_bdev_execute_rw")
int BPF_PROG(bdev_execute_rw, struct nvmet_req *req)
{
	if (runs(NTP_RUN_FENTRY))
		submitted(req);
	return 0;
}

SEC("kprobe/nvmet_bdev_execute_rw")
int BPF_KPROBE(bdev_exec_kp, struct nvmet_req *req)
{
	if (runs(NTP_RUN_KPROBE))
		submitted(req);
	return 0;
}

SEC("fentry/nvmet_file_execute_rw")
int BPF_PROG(file_execute_rw, struct nvmet_req *req)
{
	if (runs(NTP_RUN_FENTRY))
		submitted(req);
	return 0;
}

SEC("kprobe/nvmet_file_execute_rw")
int BPF_KPROBE(file_exec_kp, struct nvmet_req *req)
{
	if (runs(NTP_RUN_KPROBE))
		submitted(req);
	return 0;
}

SEC("fentry/nvmet_passthru_execute_cmd")
int BPF_PROG(passthru_execute_cmd, struct nvmet_req *req)
{
	if (runs(NTP_RUN_FENTRY))
		submitted(req);
	return 0;
}

SEC("kprobe/nvmet_passthru_execute_cmd")
int BPF_KPROBE(passthru_exec_kp, struct nvmet_req *req)
{
	if (runs(NTP_RUN_KPROBE))
		submitted(req);
	return 0;
}

static __always_inline void req_complete_body(struct nvmet_req *req, u16 status)
{
	struct inflight *v = lookup_live(req);

	if (!v)
		return;
	v->ev.t_cmpl = bpf_ktime_get_ns();
	v->ev.status = status;
}

SEC("fentry/nvmet_req_complete")
int BPF_PROG(req_complete, struct nvmet_req *req, u16 status)
{
	if (runs(NTP_RUN_FENTRY))
		req_complete_body(req, status);
	return 0;
}

SEC("kprobe/nvmet_req_complete")
int BPF_KPROBE(req_complete_kp, struct nvmet_req *req, u16 status)
{
	if (runs(NTP_RUN_KPROBE))
		req_complete_body(req, status);
	return 0;
}

static __always_inline void emit(struct nvmet_req *req, struct inflight *v)
{
	__u64 key = (__u64)req;

	if (!v->ev.bytes)
		v->ev.bytes = BPF_CORE_READ(req, transfer_len);
	if (v->ev.status)
		v->ev.flags |= NTP_TF_ERROR;
	if (hist_mode)
		ntp_mon_add_target(&v->ev);
	if (!hist_mode || (hist_stream && ntp_mon_stream_target(&v->ev)))
		emit_record(&v->ev, sizeof(v->ev));
	bpf_map_delete_elem(&inflight, &key);
}

/* t_sent: the response is out at t (each transport's hook); the record goes */
static __always_inline void response_out(struct nvmet_req *req, __u64 t)
{
	struct inflight *v = lookup_live(req);

	if (!v)
		return;
	v->ev.t_sent = t;
	/*
	 * Not seen at nvmet_req_complete's hook: in kprobe mode a kprobe the
	 * kernel skipped, or a kernel whose nvmet_req_complete cannot be
	 * hooked, timed at the tracepoint (cmpl_tp); else a command that failed
	 * in nvmet_req_init, which completes without it
	 */
	if (!v->ev.t_cmpl) {
		v->ev.t_cmpl = v->tp_cmpl;
		v->ev.status = BPF_CORE_READ(req, cqe, status) >> 1;
	}
	emit(req, v);
}

/* ---- nvmet-tcp ---- */

/*
 * Called once per response, and once more before it for a write whose data
 * the target must ask for with an R2T (ntprof-design(7), HOOKS): that first
 * call is told by the test nvmet-tcp itself makes when it builds the PDU
 * (nvmet_tcp_need_data_in): a write, not completed, data still missing.
 */
static __always_inline void queue_response_body(struct nvmet_req *req)
{
	struct inflight *v = lookup_live(req);

	if (!v || v->ev.opcode != NVME_CMD_WRITE || v->ev.t_r2t || v->ev.t_cmpl)
		return;
	if (BPF_CORE_READ(req, cqe, status))    /* an error response, not an R2T */
		return;
	if (BPF_CORE_READ(req_to_tcp_cmd(req), rbytes_done) >= BPF_CORE_READ(req, transfer_len))
		return;
	v->ev.t_r2t = bpf_ktime_get_ns();
	v->ev.flags |= NTP_TF_R2T;
}

SEC("fentry/nvmet_tcp_queue_response")
int BPF_PROG(queue_response, struct nvmet_req *req)
{
	if (runs(NTP_RUN_FENTRY))
		queue_response_body(req);
	return 0;
}

SEC("kprobe/nvmet_tcp_queue_response")
int BPF_KPROBE(queue_resp_kp, struct nvmet_req *req)
{
	if (runs(NTP_RUN_KPROBE))
		queue_response_body(req);
	return 0;
}

static __always_inline void response_sent(struct nvmet_tcp_cmd *cmd, __u64 t)
{
	response_out(tcp_cmd_to_req(cmd), t);
}

/* its entry: the time, for a sampled command (bpf/ntp_attach.bpf.h: send_enter) */
SEC("fentry/nvmet_try_send_response")
int BPF_PROG(send_resp_ent, struct nvmet_tcp_cmd *cmd)
{
	if (runs(NTP_RUN_FENTRY) && cmd && lookup_live(tcp_cmd_to_req(cmd)))
		send_enter((__u64)cmd);
	return 0;
}

/* 1: the response PDU is all in the socket; 0 or -EAGAIN: partly sent, retried */
SEC("fexit/nvmet_try_send_response")
int BPF_PROG(try_send_response, struct nvmet_tcp_cmd *cmd, bool last_in_batch, int ret)
{
	__u64 t, noted;

	if (!runs(NTP_RUN_FENTRY) || !cmd)
		return 0;
	noted = send_exit(&t);
	if (noted && ret == 1)
		response_sent(cmd, t);
	return 0;
}

/* its kretprobe twin: the command is noted at entry, for sampled commands only */
SEC("kprobe/nvmet_try_send_response")
int BPF_KPROBE(send_resp_ent_kp, struct nvmet_tcp_cmd *cmd)
{
	if (runs(NTP_RUN_KPROBE) && cmd && lookup_live(tcp_cmd_to_req(cmd)))
		send_enter((__u64)cmd);
	return 0;
}

SEC("kretprobe/nvmet_try_send_response")
int BPF_KRETPROBE(send_resp_kp, int ret)
{
	__u64 cmd, t;

	if (!runs(NTP_RUN_KPROBE))
		return 0;
	cmd = send_exit(&t);
	if (cmd && ret == 1)
		response_sent((void *)cmd, t);
	return 0;
}

/* where nvmet_try_send_response is inlined (6.1): the response PDU is built, about to go out */
SEC("fentry/nvmet_setup_response_pdu")
int BPF_PROG(setup_response_pdu, struct nvmet_tcp_cmd *cmd)
{
	if (runs(NTP_RUN_FENTRY))
		response_sent(cmd, bpf_ktime_get_ns());
	return 0;
}

SEC("kprobe/nvmet_setup_response_pdu")
int BPF_KPROBE(setup_resp_kp, struct nvmet_tcp_cmd *cmd)
{
	if (runs(NTP_RUN_KPROBE))
		response_sent(cmd, bpf_ktime_get_ns());
	return 0;
}

#include "target_rdma.bpf.h"

/* ---- the nvmet_req_complete tracepoint ---- */

/*
 * Tracepoint-only mode (and end_at_cmpl_tp): trace_nvmet_req_complete() in
 * __nvmet_req_complete(), with the status already in req->cqe, ends the
 * record.  There is no t_submit, and t_sent is this closest point too: the
 * response is queued right after it (as on 6.1, where the send itself is
 * inlined), so the residence stays the target's share of the round trip.
 */
static __always_inline void req_complete_tp_body(struct nvmet_req *req)
{
	struct inflight *v = lookup_live(req);

	if (!v)
		return;
	v->ev.t_cmpl = bpf_ktime_get_ns();
	v->ev.t_sent = v->ev.t_cmpl;
	v->ev.status = BPF_CORE_READ(req, cqe, status) >> 1;
	read_device(BPF_CORE_READ(req, ns), &v->ev);
	emit(req, v);
}

/*
 * The cross-check's own count (NTP_CNT_FABRIC): every read and write of this
 * transport on an I/O queue, as the decision tells them, but read at the
 * completion, where nvmet_req_init has set req->sq and req->ops.  tp_btf's
 * typed argument is read with plain loads, raw_tp's through helpers.
 */
static __always_inline void count_fabric(struct nvmet_req *req, const bool btf)
{
	unsigned int trtype = transport == NTP_TRANSPORT_RDMA ? NVMF_TRTYPE_RDMA : NVMF_TRTYPE_TCP;
	__u8 opcode;

	if (btf) {
		opcode = req->cmd->common.opcode;
		if ((opcode != NVME_CMD_READ && opcode != NVME_CMD_WRITE) || !req->sq->qid ||
		    req->ops->type != trtype)
			return;
	} else {
		opcode = BPF_CORE_READ(req, cmd, common.opcode);
		if ((opcode != NVME_CMD_READ && opcode != NVME_CMD_WRITE) ||
		    !BPF_CORE_READ(req, sq, qid) || BPF_CORE_READ(req, ops, type) != trtype)
			return;
	}
	count(NTP_CNT_FABRIC);
}

/*
 * One program on the tracepoint, in every mode: the cross-check's count;
 * in tracepoints-only mode (or end_at_cmpl_tp) the record's end; in kprobe
 * mode (or cmpl_at_tp) t_cmpl's time, for the response's hook to take
 * where nvmet_req_complete's hook did not run.  The kernel skips a kprobe
 * that fires while one of ours runs on the same CPU (bpftool shows no BPF
 * recursion miss for it: the probe itself is skipped), and nvmet completes
 * a command where the backend completes it: in null_blk's timer, a disk's
 * interrupt, which may land in the middle of one of ours.  The kprobe on
 * nvmet_req_complete then passes unseen, and the command would have no
 * t_cmpl and a storage time of 0 (up to a tenth of the commands at queue
 * depth 16: bench/README.md).  A tracepoint program only excludes itself;
 * fentry programs exclude only themselves too.
 */
static __always_inline void cmpl_tp_body(struct nvmet_req *req, const bool btf)
{
	struct inflight *v;

	if (!req)
		return;
	if (runs(NTP_RUN_SAMPLE))
		count_fabric(req, btf);
	if (runs(NTP_RUN_TP) || end_at_cmpl_tp) {
		req_complete_tp_body(req);
		return;
	}
	if (!runs(NTP_RUN_KPROBE) && !cmpl_at_tp)
		return;
	v = lookup_live(req);
	if (v)
		v->tp_cmpl = bpf_ktime_get_ns();
}

SEC("tp_btf/nvmet_req_complete")
int BPF_PROG(cmpl_tp, struct nvmet_req *req)
{
	cmpl_tp_body(req, true);
	return 0;
}

SEC("raw_tp/nvmet_req_complete")
int BPF_PROG(cmpl_raw, struct nvmet_req *req)
{
	cmpl_tp_body(req, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
