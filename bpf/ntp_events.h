/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records the BPF collectors hand to user space through the ring buffer.
 * Fixed-width fields only, explicit padding, no pointers: the layout is the
 * same for the BPF target and the user-space compiler.
 */
#ifndef NTP_EVENTS_H
#define NTP_EVENTS_H

#define NTP_DISK_NAME_LEN 32

enum ntp_event_kind {
	NTP_EV_HOST_IO = 1,
	NTP_EV_TARGET_IO = 2,
};

/* flags of a host record */
enum ntp_host_flags {
	NTP_HF_START_BI_ISSUE = 1 << 0,  /* h_start from bio->bi_issue */
	NTP_HF_START_RQ_ALLOC = 1 << 1,  /* h_start from rq->start_time_ns */
	NTP_HF_R2T = 1 << 2,             /* the write waited for an R2T */
	NTP_HF_ERROR = 1 << 3,           /* completed with a non-zero NVMe status */
	NTP_HF_APP_SYSCALL = 1 << 4,     /* h_app_submit from the submitting thread's system call */
	NTP_HF_SEND_DEFERRED = 1 << 5,   /* the command capsule was sent by another task than the one
					  * that queued it to the driver (the queue's io_work) */
	NTP_HF_IO_CPU = 1 << 6,          /* io_cpu holds the queue's io_cpu (nvme-tcp) */
	NTP_HF_CPU = 1 << 7,             /* cpu holds the submitting CPU */
	NTP_HF_QUEUE_BUSY = 1 << 8,      /* queue_busy was read */
};

/* what posted a host command's completion to the application (h_app_done) */
enum ntp_app_kind {
	NTP_APP_NONE = 0,               /* not told: no h_app_done */
	NTP_APP_AIO = 1,                /* libaio: the aio event (aio_complete_rw) */
	NTP_APP_IO_URING = 2,           /* io_uring: the CQE (io_uring_complete) */
	NTP_APP_SYNC = 3,               /* pread/pwrite: the waiting thread woken (submit_bio_wait) */
};

#define NTP_COMM_LEN 16

/*
 * One sampled host command.  Timestamps are bpf_ktime_get_ns() (CLOCK_MONOTONIC)
 * on the host's clock; 0 means "this kernel gave no hook for that point".
 */
struct ntp_host_event {
	__u32 kind;             /* NTP_EV_HOST_IO */
	__u32 flags;            /* enum ntp_host_flags */
	__u64 h_start;          /* entered the block layer */
	__u64 h_queue;          /* handed to the transport driver (nvme_setup_cmd) */
	__u64 h_cmd_sent;       /* command capsule fully handed to the socket */
	__u64 h_r2t;            /* R2T received (large writes), else 0 */
	__u64 h_data_sent;      /* last write data handed to the socket, else 0 */
	__u64 h_recv;           /* response parsed by the driver */
	__u64 h_done;           /* completed to the block layer */
	__u64 slba;
	__u32 bytes;            /* data length of the request */
	__u32 nsid;
	__u16 cid;              /* wire command_id, read once at nvme_setup_cmd */
	__u16 nlb0;             /* 0-based block count, as on the wire */
	__u16 qid;
	__u16 cntlid;
	__u16 status;           /* NVMe status at completion */
	__u8 opcode;
	__u8 pad0;
	__u32 ctrl_instance;    /* the X of nvmeX */
	char disk[NTP_DISK_NAME_LEN];   /* namespace (head) disk, e.g. nvme0n1 */
	char path[NTP_DISK_NAME_LEN];   /* path disk, e.g. nvme0c0n1 (same as disk without multipath) */
	/* the application's side (bpf/host_app.bpf.h); 0 = not told */
	__u64 h_app_submit;     /* the submitting thread entered its I/O system call */
	__u64 h_app_done;       /* the completion posted to the application (app_kind says how) */
	__u64 h_app_reap;       /* the application took it: its system call returned (sync, libaio), or
				 * its next io_uring_enter found the CQE consumed */
	__u64 cgroup_id;        /* the bio's cgroup (v2 id), else the submitter's */
	__u32 pid;              /* the submitting process (tgid), 0 from a kernel thread */
	__u32 tid;              /* its thread */
	char comm[NTP_COMM_LEN];        /* the submitting thread's name */
	__u8 app_kind;          /* enum ntp_app_kind */
	__u8 pad1;
	__u16 cpu;              /* the CPU of nvme_setup_cmd (the submitting CPU) where NTP_HF_CPU */
	__u16 io_cpu;           /* the queue's io_cpu where NTP_HF_IO_CPU, else 0 */
	__u16 queue_busy;       /* driver tags in use on its hardware queue at nvme_setup_cmd, itself
				 * included, where NTP_HF_QUEUE_BUSY */
};

/* flags of a target record */
enum ntp_target_flags {
	NTP_TF_R2T = 1 << 0,             /* the write's data came after an R2T (TCP), or was
					  * pulled with an RDMA READ (RDMA; not for in-capsule data) */
	NTP_TF_ERROR = 1 << 1,           /* completed with a non-zero NVMe status */
};

/*
 * One sampled target command, on the target's clock.  0 means "no hook".
 * t_r2t..t_submit is the wait for a write's data (network time): from the
 * R2T queued (TCP) or the RDMA READ posted (RDMA) to the backend's submit.
 */
struct ntp_target_event {
	__u32 kind;             /* NTP_EV_TARGET_IO */
	__u32 flags;            /* enum ntp_target_flags */
	__u64 t_recv;           /* capsule received and parsed (nvmet_req_init) */
	__u64 t_r2t;            /* TCP: R2T queued; RDMA: RDMA READ of the data posted; else 0 */
	__u64 t_submit;         /* handed to the backend (all write data received) */
	__u64 t_cmpl;           /* backend done (nvmet_req_complete) */
	__u64 t_sent;           /* response handed to the socket (TCP) or posted to the HCA
				 * (RDMA), or the closest hook */
	__u64 slba;
	__u32 bytes;            /* transfer length */
	__u32 nsid;
	__u16 cid;
	__u16 nlb0;
	__u16 qid;
	__u16 cntlid;
	__u16 status;
	__u8 opcode;
	__u8 pad0;
	__u32 pad1;
	char device[NTP_DISK_NAME_LEN];  /* backend, e.g. nullb0 or the file's name */
};

/*
 * The key of the host's RDMA map `rdma_cmds` (bpf/host_rdma.bpf.h), whose
 * value is the request pointer; user space sweeps it (lib/collect/inflight_expire.c).
 */
struct ntp_rdma_cmd_key {
	__u64 qp;       /* struct ib_qp * of the command's queue: queue->qp, and wc->qp */
	__u32 cid;      /* the wire command id */
	__u32 pad;
};

/* counters each collector keeps per CPU; user space sums and stores deltas per interval */
enum ntp_counter {
	NTP_CNT_SEEN = 0,       /* I/O commands that reached the decision hook (host: seen_slots) */
	NTP_CNT_SAMPLED,        /* of those, chosen by the hash */
	NTP_CNT_LOST_RINGBUF,   /* sampled, but the ring buffer was full */
	NTP_CNT_LOST_MAP,       /* sampled, but the in-flight map was full */
	/*
	 * I/O commands of the transport counted apart from the decision, at
	 * another hook, for the cross-check of a collector that sees nothing
	 * while commands flow (lib/collect/collector.h): the target's
	 * nvmet_req_complete tracepoint, the host's nvme_complete_rq hook
	 * (fabric_slots, like seen_slots)
	 */
	NTP_CNT_FABRIC,
	/* histogram mode (bpf/ntp_mon.bpf.h): sampled, but its histogram map was full */
	NTP_CNT_LOST_HIST,
	/* monitor --flight: sampled, counted, and kept off the ring buffer by its floor (ntp_mon.h) */
	NTP_CNT_FLIGHT_FILTERED,
	NTP_CNT_MAX,
};

/*
 * The host's NTP_CNT_SEEN, counted on every command of the machine, lives
 * in a plain array of its .bss instead (`seen_slots`, bpf/host.bpf.c),
 * which user space reads through the skeleton: one slot per CPU (modulo
 * NTP_SEEN_SLOTS), each alone on its cache line.  The target's decision
 * reads through helpers anyway and keeps the per-CPU counter; user space
 * adds both.
 */
#define NTP_SEEN_SLOTS 256

struct ntp_seen_slot {
	__u64 n;
	__u64 pad[7];
};

#endif
