/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types the ntprof collectors read, and nothing else (perf's
 * minimal vmlinux.h model).  Generated from the build machine's BTF with
 * `bpftool btf dump file /sys/kernel/btf/vmlinux format c` (or
 * `make GEN_VMLINUX_H=1 build/vmlinux-full.h`), then cut down to the fields
 * used.  Every struct carries preserve_access_index, so libbpf relocates each
 * field against the running kernel's BTF: offsets and sizes below are the
 * build machine's and never matter.
 *
 * The NVMe and RDMA types live in module BTF only (nvme_core, nvme_tcp,
 * nvme_rdma, ib_core); they are defined the same way, from the upstream
 * sources, with just the fields read.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* x86-64, the kprobe programs' context (bpf_tracing.h's PT_REGS_PARM*() with kernel names) */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

struct list_head {
	struct list_head *next;
	struct list_head *prev;
};

struct llist_node {
	struct llist_node *next;
};

struct llist_head {
	struct llist_node *first;
};

/* ---- block layer (vmlinux) ---- */

struct gendisk {
	char disk_name[32];
	u64 diskseq;            /* 5.15: unique to each disk made, never reused */
};

/* never read: its address tells a driver's I/O queues (the decision's cache) */
struct blk_mq_ops;

struct request_queue {
	void *queuedata;        /* struct nvme_ns * on nvme path queues, NULL on admin queues */
	struct gendisk *disk;
	const struct blk_mq_ops *mq_ops;
};

/* the driver tags of a hardware queue: a bit set per tag in use (lib/sbitmap.c) */
struct sbitmap_word {
	unsigned long word;     /* the tags taken */
	unsigned long cleared;  /* of those, freed but not yet cleared from word */
};

struct sbitmap {
	unsigned int depth;
	unsigned int shift;     /* log2 of the bits a word */
	unsigned int map_nr;    /* words */
	struct sbitmap_word *map;
};

struct sbitmap_queue {
	struct sbitmap sb;
};

struct blk_mq_tags {
	struct sbitmap_queue bitmap_tags;
};

struct blk_mq_hw_ctx {
	void *driver_data;      /* the driver's queue: nvme-rdma's struct nvme_rdma_queue * */
	struct blk_mq_tags *tags;       /* the driver tags, shared by the tag set's namespaces */
	unsigned int queue_num;
};

/* the cgroup a bio is charged to: bio->bi_blkg->blkcg->css.cgroup->kn->id */
struct kernfs_node {
	u64 id;
};

struct cgroup {
	struct kernfs_node *kn;
};

struct cgroup_subsys_state {
	struct cgroup *cgroup;
};

struct blkcg {
	struct cgroup_subsys_state css;
};

struct blkcg_gq {
	struct blkcg *blkcg;
};

struct bio;
typedef void bio_end_io_t(struct bio *);

/* this machine's (6.18) layout: bi_issue became issue_time_ns, see core_fixes.bpf.h */
struct bio {
	u64 issue_time_ns;
	bio_end_io_t *bi_end_io;
	struct blkcg_gq *bi_blkg;
};

/* the application's side (host_app.bpf.h) */
struct kiocb {
	void (*ki_complete)(struct kiocb *iocb, long ret);
};

struct task_struct {
	unsigned int flags;
	s32 pid;                        /* the thread's id */
	s32 tgid;                       /* its process's */
	unsigned long nivcsw;           /* involuntary context switches */
	char comm[16];                  /* NUL-padded */
};

struct request {
	struct request_queue *q;
	struct blk_mq_hw_ctx *mq_hctx;
	int tag;
	unsigned int __data_len;
	struct bio *bio;
	u64 start_time_ns;
};

/* ---- nvme_core (module BTF) ---- */

struct nvme_common_command {
	u8 opcode;
	u8 flags;
	u16 command_id;
	__le32 nsid;
};

struct nvme_rw_command {
	u8 opcode;
	u8 flags;
	u16 command_id;
	__le32 nsid;
	__le64 slba;
	__le16 length;          /* 0-based number of logical blocks */
	__le16 control;
};

struct nvme_command {
	union {
		struct nvme_common_command common;
		struct nvme_rw_command rw;
	};
};

struct nvme_ctrl_ops {
	const char *name;       /* "tcp", "rdma", "pcie", "fc", "loop" */
};

struct nvme_ctrl {
	u16 cntlid;
	int instance;           /* the X of nvmeX */
	const struct nvme_ctrl_ops *ops;
};

/* lives right behind struct request: blk_mq_rq_to_pdu() */
struct nvme_request {
	struct nvme_command *cmd;
	u16 status;
	struct nvme_ctrl *ctrl;
};

struct nvme_ns_head {
	struct gendisk *disk;   /* CONFIG_NVME_MULTIPATH; NULL when the namespace has no head disk */
};

struct nvme_ns {
	struct nvme_ns_head *head;
};

/* an NVMe completion queue entry, as on the wire */
struct nvme_completion {
	u16 command_id;         /* as the command's: the key back to it */
	__le16 status;          /* the NVMe status shifted left by one, phase bit 0 */
};

/* ---- RDMA verbs (module BTF: ib_core), what nvme-rdma and nvmet-rdma hooks are handed ---- */

enum ib_wc_status {
	IB_WC_SUCCESS = 0,
};

struct ib_cq;

struct ib_cqe {
	void (*done)(void *cq, void *wc);
};

struct ib_qp {
	void *qp_context;       /* the ULP's queue: nvme_rdma_queue, nvmet_rdma_queue */
};

/* a work completion: wr_cqe is embedded in the ULP's per-command structure */
struct ib_wc {
	union {
		u64 wr_id;
		struct ib_cqe *wr_cqe;
	};
	enum ib_wc_status status;
	struct ib_qp *qp;
};

/* ---- nvme_rdma (module BTF) ---- */

struct nvme_rdma_queue {
	struct ib_qp *qp;       /* its queue pair: what a work completion names */
};

/* a queue entry: a work request's completion cookie and the buffer it carries */
struct nvme_rdma_qe {
	struct ib_cqe cqe;      /* what ib_wc.wr_cqe points to */
	void *data;             /* struct nvme_command * (send) or struct nvme_completion * (receive) */
};

struct nvme_rdma_request {
	struct nvme_request req;        /* first: the rdma request *is* nvme_req(rq) */
	struct nvme_rdma_qe sqe;        /* the command capsule nvme_rdma_post_send() posts */
};

/* ---- nvme_tcp (module BTF) ---- */

struct nvme_tcp_queue;

enum nvme_tcp_send_state {
	NVME_TCP_SEND_CMD_PDU = 0,
	NVME_TCP_SEND_H2C_PDU,
	NVME_TCP_SEND_DATA,
	NVME_TCP_SEND_DDGST,
};

struct nvme_tcp_request {
	struct nvme_request req;        /* first: the tcp request *is* nvme_req(rq) */
	struct nvme_tcp_queue *queue;
	u32 data_len;
	u32 pdu_len;                    /* zeroed by nvme_tcp_handle_r2t before the H2C PDU is set up */
	struct list_head entry;
	struct llist_node lentry;
	enum nvme_tcp_send_state state;
};

struct nvme_tcp_queue {
	struct list_head send_list;
	struct llist_head req_list;
	struct nvme_tcp_request *request;
	int io_cpu;                     /* the CPU its io_work runs on */
};

#pragma clang attribute pop

#endif /* __VMLINUX_H__ */
