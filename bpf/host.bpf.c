// SPDX-License-Identifier: GPL-2.0
/*
 * The host collector: one record per sampled NVMe/TCP or NVMe/RDMA I/O
 * command (-t: rodata `transport`).
 *
 * The sampling decision is taken at tp_btf/nvme_setup_cmd, the first point
 * where the wire command_id exists.  A sampled command's identity is read
 * there, once, and kept in `inflight` keyed by the struct request pointer:
 * later hooks never read the SQE again, because nvme-tcp overwrites its first
 * bytes with the H2C data PDU header on R2T writes.  For unsampled commands
 * every later hook is one test of a slot in `live`, no map lookup.  The
 * completion hook emits the record to the ring buffer and forgets the
 * command.
 *
 * The decision, the completion and the block-layer times are the same for
 * both transports; the driver hooks are not.  User space (lib/collect/bpf_host.c)
 * loads one transport's programs only.  NVMe/TCP: which send hooks run is
 * chosen from the kernel's BTF: the direct fexit hooks where the nvme_tcp
 * send helpers are out of line (6.12), else the per-queue fallback on
 * nvme_tcp_try_send (6.1 inlines them; ntprof-design(7), HOOKS); the
 * response is parsed at blk_mq_complete_request_remote.  NVMe/RDMA:
 * post_send and recv_done, in bpf/host_rdma.bpf.h, which says why.
 *
 * Every function hook is an fentry/fexit program with a kprobe/kretprobe
 * twin sharing its body; user space attaches one flavour and turns it on
 * through run_flavours (bpf/ntp_attach.bpf.h, lib/collect/attach_set.c).  Where neither
 * attaches, the nvme_complete_rq tracepoint ends each record, and only
 * h_start, h_queue and h_done are filled.  The decision hook is the
 * nvme_setup_cmd tracepoint, as tp_btf, or raw_tp where tp_btf is refused.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "core_fixes.bpf.h"
#include "ntp_attach.bpf.h"
#include "ntp_collector.bpf.h"
#include "ntp_slots.h"

/* BPF_F_MMAPABLE (uapi/linux/bpf.h) */
#define NTP_F_MMAPABLE (1U << 10)

/*
 * nvme_tcp_setup_h2c_data_pdu() is only ever called for an R2T when it takes
 * the R2T PDU as a second argument (5.15); from 6.1 it is also the send
 * path's re-arm for the next H2C PDU and an R2T is told by pdu_len == 0.
 */
const volatile bool h2c_setup_is_r2t = false;

/*
 * Where nvme_complete_rq itself cannot be hooked on this kernel (its
 * prototype is not the one the program reads, or the kernel refused the
 * program), its tracepoint ends the records in every mode, as in
 * tracepoints-only mode; set by user space.
 */
const volatile bool done_at_tp = false;
/*
 * The nvme_complete_rq tracepoint's program is loaded (tracepoints-only
 * mode, done_at_tp, or kprobe mode's backstop): the cross-check's count is
 * taken there, where the kernel does not skip it for another program's
 * sake, and not by the kprobe.  (In fentry mode the tracepoint's program
 * is not attached, and the fentry program counts.)
 */
const volatile bool fabric_at_tp = false;

/* a sampled command between nvme_setup_cmd and nvme_complete_rq */
struct inflight {
	struct ntp_host_event ev;
	__u64 alloc_ns;         /* rq->start_time_ns at setup: tells a reused request from this one */
	__u64 iocb;             /* io_uring: the kiocb whose CQE ends the record; libaio: its ring */
	__u64 aux;              /* libaio: the event's obj (host_app.bpf.h) */
	__u64 queue_task;       /* pid_tgid of the task that handed it to the driver (h_queue) */
	/*
	 * fentry/fexit send hooks: the running send's entry time (0: none) and
	 * its task's involuntary switches then (bpf/ntp_attach.bpf.h says why).
	 * One send of a request runs at a time (the queue's send_mutex, or the
	 * RDMA queue_rq), so the command's own entry holds the note that the
	 * kretprobe twins keep per task in send_entries, and the fexit program
	 * finds it with the lookup it does anyway.
	 */
	__u64 send_t;
	__u64 send_nivcsw;
};

/*
 * A sampled command's entry lives in its request's slot (bpf/ntp_slots.h
 * says how a request finds it), or, when another request owns that slot, in
 * the hash map `inflight`.  A slot is an array element: a lookup is a few
 * inlined instructions, where the hash map's hashes the key and walks a
 * bucket, and taking or leaving one is an exchange or a store, where the
 * hash map's update and delete take its bucket's lock.
 */
struct rq_slot {
	struct ntp_rq_slot_head h;
	struct inflight v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, NTP_F_MMAPABLE);      /* read by the sweep in user space */
	__uint(max_entries, NTP_SLOTS);
	__type(key, __u32);
	__type(value, struct rq_slot);
} rq_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);     /* struct request * */
	__type(value, struct inflight);
} inflight SEC(".maps");

/*
 * Which requests may have an entry, in their slot or in `inflight`: per
 * slot, how many entries of requests that choose it exist; `live_total`
 * counts them all.  Every hook but the decision runs for unsampled
 * commands too (at -s 1000, 999 in 1000), and the test of one counter is a
 * multiply and a plain load.  A counter is raised before its entry is
 * stored and lowered after it is forgotten, so a zero proves there is no
 * entry; a non-zero one costs the lookup.  The sweep of stale entries in
 * user space (lib/collect/collector.c) leaves its counters raised: that
 * costs lookups, never a missed command.
 */
__u32 live[NTP_SLOTS];
__u32 live_total;

static __always_inline void live_add(__u64 rq, int d)
{
	__sync_fetch_and_add(&live[ntp_rq_slot(rq)], d);
	__sync_fetch_and_add(&live_total, d);
}

/*
 * No entry at all: the test every hook of a request makes first, before it
 * reads its argument.  At -s 1000 with a few commands in flight, no
 * sampled one is in flight most of the time (at queue depth 8, 99 runs in
 * 100), and an unsampled command's hook costs one load and a branch more
 * than an empty program; the slot's counter (lookup_rq) is the test while
 * one is.
 */
static __always_inline bool none_live(void)
{
	return !live_total;
}

/* the sampled command of request rq, or NULL: unsampled ones stop at the counters */
static __always_inline struct inflight *lookup_rq(__u64 rq)
{
	__u64 h;
	struct rq_slot *s;
	__u32 i;

	if (none_live())
		return NULL;
	h = ntp_rq_slot(rq);
	if (!live[h])
		return NULL;
	/* the keys' stores after the test: clang would hoist them onto the unsampled path */
	asm volatile("" : "+r"(h), "+r"(rq));
	i = h;
	s = bpf_map_lookup_elem(&rq_slots, &i);
	if (s && s->h.rq == rq)
		return &s->v;
	return bpf_map_lookup_elem(&inflight, &rq);
}

/*
 * The slot for request rq's new entry, or NULL: another request owns it,
 * and the entry goes to `inflight`.  The owner's address is exchanged in
 * from 0, so of two requests that want one slot at once one gets it.
 * *stale: the slot held an entry of this very request, one that never
 * completed (failed in queue_rq), which the new one replaces.
 */
static __always_inline struct rq_slot *slot_claim(__u64 rq, bool *stale)
{
	__u32 i = ntp_rq_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rq_slots, &i);
	__u64 old;

	*stale = false;
	if (!s)
		return NULL;
	old = __sync_val_compare_and_swap(&s->h.rq, 0, rq);
	if (old && old != rq)
		return NULL;
	*stale = old == rq;
	return s;
}

/*
 * The verifier allows no arithmetic but adding on a typed (BTF) pointer, and
 * the slot is a multiply: fentry/fexit programs take their pointer
 * arguments as plain numbers (bpf_get_func_arg(), inlined by the verifier;
 * before 5.17, which lacks it, one read of the trampoline's copy), and the
 * few places that only have a typed pointer launder it through the stack
 * with one read.
 */
static __always_inline void *arg_untyped(void *ctx, __u32 n)
{
	__u64 v = 0;

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_arg))
		bpf_get_func_arg(ctx, n, &v);
	else
		bpf_probe_read_kernel(&v, sizeof(v), (__u64 *)ctx + n);
	return (void *)v;
}

/*
 * A typed pointer's value: stored to the CPU's cell of a global array and
 * loaded back, a number (root's programs may store pointers, and compare
 * them), and checked against the pointer, for a program preempted between
 * the two (7.x) may find another's value there; then, or on a CPU past the
 * cells, through a helper's read of the stack.
 */
struct ntp_seen_slot ptr_cells[NTP_SEEN_SLOTS];

static __always_inline __u64 ptr_value(const void *p)
{
	__u64 v = 0, slot = (__u64)p, same;
	__u32 c = bpf_get_smp_processor_id();

	if (c < NTP_SEEN_SLOTS) {
		*(volatile __u64 *)&ptr_cells[c].n = (__u64)p;
		v = *(volatile __u64 *)&ptr_cells[c].n;
		/* compared in asm: a C comparison lets clang return the pointer it equals */
		asm volatile("%[s] = 0; if %[v] != %[p] goto +1; %[s] = 1"
			     : [s] "=&r"(same) : [v] "r"(v), [p] "r"(p));
		if (same)
			return v;
	}
	bpf_probe_read_kernel(&v, sizeof(v), &slot);
	return v;
}

/* forget rq's entry; true when there was one */
static __always_inline bool forget_rq(__u64 rq)
{
	__u32 i = ntp_rq_slot(rq);
	struct rq_slot *s = bpf_map_lookup_elem(&rq_slots, &i);

	if (s && s->h.rq == rq) {
		*(volatile __u64 *)&s->h.rq = 0;
	} else if (bpf_map_delete_elem(&inflight, &rq)) {
		return false;
	}
	live_add(rq, -1);
	return true;
}


/* fallback only: the request a running nvme_tcp_try_send() works on, keyed by queue */
struct send_save {
	__u64 req;              /* struct nvme_tcp_request * */
	__u64 t;                /* the entry's time */
	__u64 nivcsw;           /* the task's preemptions at entry */
	__u32 state;            /* its send state at entry */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);     /* struct nvme_tcp_queue * */
	__type(value, struct send_save);
} send_saves SEC(".maps");

/* how many entries send_saves holds: the exit hook needs no lookup while it is 0 */
__u32 send_saves_live;

static __always_inline struct nvme_request *nvme_req(struct request *rq)
{
	return (void *)rq + bpf_core_type_size(struct request);
}

/* container_of(nvme_tcp_request) -> request, through its embedded nvme_request */
static __always_inline __u64 tcp_req_to_rq(struct nvme_tcp_request *req)
{
	return (__u64)((void *)req + bpf_core_field_offset(struct nvme_tcp_request, req) -
		       bpf_core_type_size(struct request));
}

static __always_inline struct inflight *lookup_tcp_req(struct nvme_tcp_request *req)
{
	return lookup_rq(tcp_req_to_rq(req));
}

/* a controller of the transport recorded: ops->name "tcp" or "rdma" */
static __always_inline bool is_our_ctrl(struct nvme_ctrl *ctrl)
{
	const char *name = BPF_CORE_READ(ctrl, ops, name);
	char buf[5] = {};

	if (!name || bpf_probe_read_kernel(buf, sizeof(buf), name))
		return false;
	if (transport == NTP_TRANSPORT_RDMA)
		return buf[0] == 'r' && buf[1] == 'd' && buf[2] == 'm' && buf[3] == 'a' && buf[4] == 0;
	return buf[0] == 't' && buf[1] == 'c' && buf[2] == 'p' && buf[3] == 0;
}

/*
 * A send hook's time is taken when the send function returns, which on a fast
 * (loopback) path can be after the other side already answered: the R2T or the
 * response may have been parsed on another CPU meanwhile.  The bytes were in
 * the socket (or the send queue) before that answer, so the answer's time
 * bounds the send time.
 */
static __always_inline __u64 bound(__u64 t, __u64 answer)
{
	return answer && answer < t ? answer : t;
}

/*
 * The command capsule went out at now, from the current task: another than
 * the one that queued it to the driver means the send was deferred (the
 * queue's io_work: always with TLS from 6.12.117, or when the submitter is
 * not on the queue's CPU).
 */
static __always_inline void set_cmd_sent(struct inflight *v, __u64 now)
{
	v->ev.h_cmd_sent = bound(bound(now, v->ev.h_r2t), v->ev.h_recv);
	if (bpf_get_current_pid_tgid() != v->queue_task)
		v->ev.flags |= NTP_HF_SEND_DEFERRED;
}

static __always_inline void set_data_sent(struct inflight *v, __u64 now)
{
	v->ev.h_data_sent = bound(now, v->ev.h_recv);
}

/* fentry of a send: its time noted in the sampled command's entry */
static __always_inline void send_note(struct inflight *v)
{
	v->send_t = bpf_ktime_get_ns();
	v->send_nivcsw = task_nivcsw();
}

/* fexit of a send: now, or the entry's time when the task was preempted since (send_exit) */
static __always_inline __u64 send_noted(struct inflight *v)
{
	__u64 now = bpf_ktime_get_ns(), t0 = v->send_t;

	v->send_t = 0;
	if (t0 && v->send_nivcsw != task_nivcsw())
		return t0;
	return now;
}

#include "host_rdma.bpf.h"
#include "host_app.bpf.h"

/*
 * when the command entered the block layer, and where that time came from.
 * `btf` (tp_btf's typed request): the request's own fields are plain loads,
 * as in sample_cmd, where raw_tp reads them with bpf_probe_read_kernel()
 */
static __always_inline __u64 start_time(struct request *rq, __u64 now, __u32 *flags,
					const bool btf)
{
	__u64 t = ntp_bio_issue_ns(btf ? rq->bio : BPF_CORE_READ(rq, bio), now, btf);

	if (t && t <= now) {
		*flags |= NTP_HF_START_BI_ISSUE;
		return t;
	}
	t = btf ? rq->start_time_ns : BPF_CORE_READ(rq, start_time_ns);
	if (t && t <= now) {
		*flags |= NTP_HF_START_RQ_ALLOC;
		return t;
	}
	return now;
}

/*
 * The names of a namespace's path disk and head disk, and its controller
 * (the pointer and its instance, the X of nvmeX), read once per disk:
 * reading them costs six pointer reads and two string reads through
 * helpers, on every sampled command.  A path disk belongs to one
 * controller for its life (the namespace's ctrl); the controller's
 * cntlid is not kept, for a reconnect may get another one.  A slot is
 * chosen and owned by the path disk's diskseq (5.15), which the kernel
 * gives each disk it makes, never twice, so a slot's contents never
 * change once written and a disk made again (a namespace removed and
 * added back) is another one.  The first command of a disk claims its
 * slot from 0 (a compare and swap to NTP_NAMES_FILLING), writes the
 * names, then the seq; a slot that another disk owns or fills leaves its
 * commands to the reads.
 */
#define NTP_NAME_SLOTS 256
#define NTP_NAMES_FILLING (~0ULL)

struct name_slot {
	__u64 seq;              /* the owner's diskseq; 0: free */
	__u64 ctrl;             /* struct nvme_ctrl * */
	__u32 ctrl_instance;
	__u32 pad;
	char path[NTP_DISK_NAME_LEN];
	char disk[NTP_DISK_NAME_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NTP_NAME_SLOTS);
	__type(key, __u32);
	__type(value, struct name_slot);
} name_slots SEC(".maps");

/* the reads: the names into ev, and the controller, returned */
static __always_inline struct nvme_ctrl *read_names_of(struct request *rq,
						       struct ntp_host_event *ev,
						       struct gendisk *path, const bool btf)
{
	struct nvme_ctrl *ctrl = BPF_CORE_READ(nvme_req(rq), ctrl);
	struct nvme_ns *ns = BPF_CORE_READ(rq, q, queuedata);
	struct nvme_ns_head *nh = BPF_CORE_READ(ns, head);
	struct gendisk *head = NULL;

	/* the string reads leave the bytes after the NUL, and the entry is not zeroed there */
	__builtin_memset(ev->path, 0, sizeof(ev->path));
	__builtin_memset(ev->disk, 0, sizeof(ev->disk));
	ev->ctrl_instance = BPF_CORE_READ(ctrl, instance);
	/* the head disk exists with CONFIG_NVME_MULTIPATH only */
	if (bpf_core_field_exists(nh->disk))
		head = BPF_CORE_READ(nh, disk);
	if (!head)
		head = path;
	if (path)
		BPF_CORE_READ_STR_INTO(&ev->path, path, disk_name);
	if (head)
		BPF_CORE_READ_STR_INTO(&ev->disk, head, disk_name);
	return ctrl;
}

/* the disks' names and the controller's instance into ev; the controller */
static __always_inline struct nvme_ctrl *read_names(struct request *rq, struct ntp_host_event *ev,
						    const bool btf)
{
	struct gendisk *path = btf ? rq->q->disk : BPF_CORE_READ(rq, q, disk);
	struct nvme_ctrl *ctrl;
	struct name_slot *s;
	__u64 seq = 0;
	__u32 i;

	if (path && bpf_core_field_exists(path->diskseq))
		seq = btf ? path->diskseq : BPF_CORE_READ(path, diskseq);
	if (!seq || seq == NTP_NAMES_FILLING)
		return read_names_of(rq, ev, path, btf);
	i = seq & (NTP_NAME_SLOTS - 1);
	s = bpf_map_lookup_elem(&name_slots, &i);
	if (!s)
		return read_names_of(rq, ev, path, btf);
	if (*(volatile __u64 *)&s->seq == seq) {
		__builtin_memcpy(ev->path, s->path, sizeof(ev->path));
		__builtin_memcpy(ev->disk, s->disk, sizeof(ev->disk));
		ev->ctrl_instance = s->ctrl_instance;
		return (void *)s->ctrl;
	}
	ctrl = read_names_of(rq, ev, path, btf);
	if (__sync_val_compare_and_swap(&s->seq, 0, NTP_NAMES_FILLING) != 0)
		return ctrl;
	__builtin_memcpy(s->path, ev->path, sizeof(s->path));
	__builtin_memcpy(s->disk, ev->disk, sizeof(s->disk));
	s->ctrl = (__u64)ctrl;
	s->ctrl_instance = ev->ctrl_instance;
	/* the names before the seq that publishes them (x86 keeps stores in order) */
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&s->seq = seq;
	return ctrl;
}

/*
 * The commands that reached the decision, sampled or not (NTP_CNT_SEEN).
 * This count runs on every command of the machine, so it is no per-CPU
 * map's lookup (a helper call before 6.10, and the values the decision
 * keeps saved around it) but one locked add to a slot of a global array,
 * the slot of the CPU (modulo NTP_SEEN_SLOTS), alone on its cache line.
 * The CPU's number is a helper that 6.10's verifier inlines into one
 * load, where the command's queue through the request would be two
 * checked loads; it is called last on the unsampled path (in the sampled
 * path's own function for a sampled command), where no value has to
 * survive it.  Exact, as any atomic count is; user space adds the slots
 * up (ntp_collector__read_counters).
 */
struct ntp_seen_slot seen_slots[NTP_SEEN_SLOTS];

static __always_inline void count_seen(void)
{
	__sync_fetch_and_add(&seen_slots[bpf_get_smp_processor_id() & (NTP_SEEN_SLOTS - 1)].n, 1);
}

/*
 * The I/O queues of all the recorded transport's controllers share the
 * driver's one blk_mq_ops (nvme_tcp_mq_ops, nvme_rdma_mq_ops).  So once a
 * command was found ours by its controller's ops name (two reads and a
 * string), its queue's mq_ops address stands for that name, and the
 * decision compares one pointer.  Another address (nvme-pci beside
 * nvme-tcp) is checked by name again, and the last one that failed is kept
 * too.  The addresses are a loaded module's; within one recording one could
 * stand for another driver only if its module were unloaded and another's
 * ops loaded at the very same address.  The admin queue has ops of its
 * own (nvme_tcp_admin_mq_ops), and the connect queue, which shares the I/O
 * queues' ops, sends only fabrics commands (opcode 0x7f): so a matching
 * address needs no test of the queue, and only an address not yet learnt
 * is checked for an I/O queue (queuedata, the namespace) before its name.
 */
__u64 our_mq_ops;
__u64 other_mq_ops;

#define NTP_EEXIST 17

/* the three fields the sampling hash reads (bpf/ntp_hash.h) */
static __always_inline void read_ident(struct nvme_command *cmd, __u16 *cid, __u64 *slba,
				       __u16 *nlb0, const bool btf)
{
	if (btf) {
		*cid = cmd->common.command_id;
		/*
		 * In halves: 6.1's verifier finds the union member common first,
		 * whose dwords there are 4 bytes (cdw10, cdw11); volatile keeps
		 * clang from merging the two loads into one
		 */
		*slba = *(volatile const __u32 *)&cmd->rw.slba |
			(__u64)*((volatile const __u32 *)&cmd->rw.slba + 1) << 32;
		*nlb0 = cmd->rw.length;
	} else {
		*cid = BPF_CORE_READ(cmd, common.command_id);
		*slba = BPF_CORE_READ(cmd, rw.slba);
		*nlb0 = BPF_CORE_READ(cmd, rw.length);
	}
}

/*
 * The queue's io_cpu, the CPU its io_work runs on (nvme-tcp; RDMA has
 * none): a submitter on another CPU leaves the send to io_work.
 */
static __always_inline void tcp_io_cpu(struct request *rq, struct ntp_host_event *ev,
				       const bool btf)
{
	struct nvme_tcp_request *req = (void *)nvme_req(rq);
	struct nvme_tcp_queue *queue;

	if (transport != NTP_TRANSPORT_TCP || !bpf_core_field_exists(struct nvme_tcp_queue, io_cpu))
		return;
	/*
	 * the hardware queue's driver_data is the queue (nvme_tcp_init_hctx), a
	 * plain load from the typed request; its io_cpu is behind a void pointer
	 */
	queue = btf ? (void *)rq->mq_hctx->driver_data : BPF_CORE_READ(req, queue);
	if (!queue)
		return;
	ev->io_cpu = BPF_CORE_READ(queue, io_cpu);
	ev->flags |= NTP_HF_IO_CPU;
}

/*
 * The commands in flight on the command's hardware queue as it is set up:
 * the driver tags in use (itself included), counted in the queue's tag
 * bitmap (struct sbitmap: a word of bits each, less those freed and not
 * yet cleared).  Read for sampled commands only; the tags are the tag
 * set's, shared by the controller's namespaces: the NVMe queue's
 * occupancy.  NTP_BUSY_WORDS words at most (2048 tags of 64-bit words).
 * A word's bits and its cleared bits are a cache line apart (struct
 * sbitmap_word): both come in one read of the span between them, a
 * helper call a word, into a per-CPU scratch rather than the stack, which
 * the sampled path has nearly used up (512 bytes for the whole call
 * chain); one scratch per decision program (`backup`), for a program
 * preempted mid-run (7.x) leaves its CPU to the other one only, never to
 * itself (the kernel's recursion check).  `btf`: the queue's map and its
 * length are plain loads.  The count is taken for one sampled command in NTP_BUSY_EVERY,
 * chosen by the sampling hash (fill_cmd), which is blind to the queue:
 * the mean over those is the queue's mean occupancy, and a --by row's
 * largest is the sample's.
 */
#define NTP_BUSY_WORDS 32
#define NTP_BUSY_EVERY 16
#define NTP_BUSY_SPAN 16        /* longs: a word's bits to its cleared ones, at most */

struct busy_span {
	unsigned long w[NTP_BUSY_SPAN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);         /* setup_cmd (and its raw_tp twin), setup_cmd_backup */
	__type(key, __u32);
	__type(value, struct busy_span);
} busy_scratch SEC(".maps");

static __always_inline void queue_busy(struct request *rq, struct ntp_host_event *ev,
				       __u32 prog, const bool btf)
{
	__u32 stride = bpf_core_type_size(struct sbitmap_word), busy = 0;
	__u32 w_off = bpf_core_field_offset(struct sbitmap_word, word);
	__u32 c_off = bpf_core_field_offset(struct sbitmap_word, cleared);
	__u32 span = c_off + sizeof(long) - w_off;
	struct sbitmap_word *map;
	struct busy_span *buf;
	__u32 nr;

	if (btf) {
		struct sbitmap *sb = &rq->mq_hctx->tags->bitmap_tags.sb;

		map = sb->map;
		nr = sb->map_nr;
	} else {
		map = BPF_CORE_READ(rq, mq_hctx, tags, bitmap_tags.sb.map);
		nr = BPF_CORE_READ(rq, mq_hctx, tags, bitmap_tags.sb.map_nr);
	}
	if (!map || !nr || nr > NTP_BUSY_WORDS || c_off < w_off || span > sizeof(buf->w))
		return;
	buf = bpf_map_lookup_elem(&busy_scratch, &prog);
	if (!buf)
		return;
	for (__u32 i = 0; i < NTP_BUSY_WORDS && i < nr; i++) {
		if (bpf_probe_read_kernel(buf->w, span, (void *)map + i * stride + w_off))
			return;
		busy += __builtin_popcountl(buf->w[0] & ~buf->w[(c_off - w_off) / sizeof(long)]);
	}
	ev->queue_busy = busy > 0xffff ? 0xffff : busy;
	ev->flags |= NTP_HF_QUEUE_BUSY;
}

/*
 * A sampled command's entry, filled: its identity, times and names; its
 * command id.  Every field the entry's zeroing (clear_entry) leaves is
 * written here.  The submitter's pid_tgid is the typed task's two loads
 * under tp_btf, for the application's side and the send's check
 * (set_cmd_sent) alike.
 */
static __always_inline __u16 fill_cmd(struct inflight *v, struct request *rq,
				     struct nvme_command *cmd, __u8 opcode, __u64 now,
				     __u64 hash, __u32 prog, const bool btf)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *task;
	struct nvme_ctrl *ctrl;
	__u64 slba, id;
	__u16 cid, nlb0;

	read_ident(cmd, &cid, &slba, &nlb0, btf);
	v->ev.h_queue = now;    /* first: the sweep in user space passes over a 0 */
	v->ev.kind = NTP_EV_HOST_IO;
	v->ev.flags = NTP_HF_CPU;
	v->ev.h_start = start_time(rq, now, &v->ev.flags, btf);
	if (btf) {
		task = bpf_get_current_task_btf();
		id = (__u64)(__u32)task->tgid << 32 | (__u32)task->pid;
	} else {
		task = app_track ? (void *)bpf_get_current_task() : NULL;
		id = bpf_get_current_pid_tgid();
	}
	v->queue_task = id;
	v->ev.cpu = cpu;
	/* first: the task, its id and the CPU then need not be kept (the stack is short) */
	if (app_track)
		app_at_setup(rq, &v->ev, task, id, cpu, btf);
	tcp_io_cpu(rq, &v->ev, btf);
	/* NTP_BUSY_EVERY: the hash's next bits below the sampling limit's */
	if (hash <= sample_limit / NTP_BUSY_EVERY)
		queue_busy(rq, &v->ev, prog, btf);
	v->ev.slba = slba;
	v->ev.cid = cid;
	v->ev.nlb0 = nlb0;
	v->ev.opcode = opcode;
	if (btf) {
		v->ev.bytes = rq->__data_len;
		v->ev.nsid = cmd->common.nsid;
		v->ev.qid = rq->mq_hctx->queue_num + 1;
		v->alloc_ns = rq->start_time_ns;
	} else {
		v->ev.bytes = BPF_CORE_READ(rq, __data_len);
		v->ev.nsid = BPF_CORE_READ(cmd, common.nsid);
		v->ev.qid = BPF_CORE_READ(rq, mq_hctx, queue_num) + 1;
		v->alloc_ns = BPF_CORE_READ(rq, start_time_ns);
	}
	ctrl = read_names(rq, &v->ev, btf);
	/* the controller is behind struct request, out of the typed pointer's reach: read */
	v->ev.cntlid = BPF_CORE_READ(ctrl, cntlid);
	return cid;
}

/*
 * A slot's entry zeroed where fill_cmd may leave it unwritten: the later
 * hooks' times and fields, the application's, and those fill_cmd writes
 * only sometimes.  The names, the identity and the setup's times are
 * always written; leaving them out saves 15 of the entry's 34 stores.  A
 * field added to either struct is zeroed here or written by fill_cmd.
 */
_Static_assert(sizeof(struct ntp_host_event) == 224 && sizeof(struct inflight) == 272,
	       "clear_entry and fill_cmd cover every field of the entry");

static __always_inline void clear_entry(struct inflight *v)
{
	struct ntp_host_event *ev = &v->ev;

	ev->h_cmd_sent = ev->h_r2t = ev->h_data_sent = ev->h_recv = ev->h_done = 0;
	ev->status = 0;
	ev->pad0 = 0;
	ev->h_app_submit = ev->h_app_done = ev->h_app_reap = 0;
	ev->cgroup_id = 0;
	ev->pid = ev->tid = 0;
	__builtin_memset(ev->comm, 0, sizeof(ev->comm));
	ev->app_kind = ev->pad1 = 0;
	ev->io_cpu = ev->queue_busy = 0;
	v->iocb = v->aux = 0;
	v->send_t = v->send_nivcsw = 0;
}

/*
 * a sampled command: its identity into its request's slot, written in
 * place (no hook of the request runs before the decision returns), or
 * into inflight.  The SQE is read again here rather than kept from the
 * decision, which would have to keep it spilled on the stack for every
 * command.
 */
static __always_inline void sample_cmd(struct request *rq, struct nvme_command *cmd, __u8 opcode,
				       __u64 hash, __u32 prog, const bool btf)
{
	__u64 key, now = bpf_ktime_get_ns();
	struct rq_slot *s;
	bool stale;
	__u16 cid;
	long err;

	/* the counter goes up first: another CPU's hook must never see an entry behind a zero one */
	key = btf ? ptr_value(rq) : (__u64)rq;
	live_add(key, 1);
	s = slot_claim(key, &stale);
	if (s) {
		if (stale)
			live_add(key, -1);      /* counted already */
		clear_entry(&s->v);
		cid = fill_cmd(&s->v, rq, cmd, opcode, now, hash, prog, btf);
		err = 0;
	} else {
		struct inflight v = {};

		cid = fill_cmd(&v, rq, cmd, opcode, now, hash, prog, btf);
		err = bpf_map_update_elem(&inflight, &key, &v, BPF_NOEXIST);
		if (err == -NTP_EEXIST) {
			/*
			 * a stale entry of a request that never completed (failed in
			 * queue_rq): counted already.  BPF_ANY, as user space's sweep may
			 * just have deleted it (leaving its count, see live)
			 */
			live_add(key, -1);
			err = bpf_map_update_elem(&inflight, &key, &v, BPF_ANY);
		} else if (err) {
			live_add(key, -1);
		}
	}
	if (err) {
		count(NTP_CNT_LOST_MAP);
		return;
	}
	if (transport == NTP_TRANSPORT_RDMA)
		rdma_track(rq, cid);
}

/* a command the hash chose: counted, the filter (--session, --io-type, --size), its record */
static __always_inline void chosen_body(struct request *rq, struct nvme_command *cmd, __u64 hash,
					__u32 prog, const bool btf)
{
	__u8 opcode = btf ? cmd->common.opcode : BPF_CORE_READ(cmd, common.opcode);
	struct nvme_ctrl *ctrl;

	count_seen();
	if (filter.flags) {
		ctrl = BPF_CORE_READ(nvme_req(rq), ctrl);
		if (!ntp_filter__pass(&filter, opcode, BPF_CORE_READ(rq, __data_len),
				      BPF_CORE_READ(ctrl, instance), BPF_CORE_READ(cmd, common.nsid)))
			return;
	}
	count(NTP_CNT_SAMPLED);
	sample_cmd(rq, cmd, opcode, hash, prog, btf);
}

/*
 * Out of line (a BPF-to-BPF call), for the JIT compiles each function
 * apart: the decision, which returns before this for 999 commands in 1000
 * at -s 1000, then uses no stack and none of the callee-saved registers
 * that the sampled path needs, and its prologue saves none.
 */
static __noinline int chosen_btf(struct request *rq, struct nvme_command *cmd, __u64 hash,
				 __u32 prog)
{
	chosen_body(rq, cmd, hash, prog, true);
	return 0;
}

static __noinline int chosen_raw(struct request *rq, struct nvme_command *cmd, __u64 hash)
{
	chosen_body(rq, cmd, hash, 0, false);
	return 0;
}

/*
 * The kernel skips a program's run while the same program runs on that CPU
 * already (its recursion check), and from Linux 7.x (lazy or full
 * preemption, tracepoint callbacks no longer with preemption disabled) a
 * program can be preempted mid-run: another task's command then passes the
 * tracepoint unseen, undecided (the program's recursion_misses; figures in
 * bench/README.md).  Where the kernel preempts
 * (decide_backup, set by user space), a second program on the same
 * tracepoint (tp_btf), attached after the first, decides on the commands
 * the first one did not: the first notes each command it decides on in
 * its task's storage (request ^ command id: a request is reused, its
 * command id's generation changes), the second passes over the command
 * its task's note names.  A task preempted between the two programs keeps
 * its note; one whose command the first program skipped has an older one.
 */
const volatile bool decide_backup = false;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} decided SEC(".maps");

/* the first program: note the command; the second: whether the first decided on it */
static __always_inline bool decided_first(struct request *rq, __u16 cid, const bool backup)
{
	__u64 key = ptr_value(rq) ^ cid, *note;

	note = bpf_task_storage_get(&decided, bpf_get_current_task_btf(), 0,
				    backup ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!note)
		return false;
	if (backup)
		return *note == key;
	*note = key;
	return false;
}

static __always_inline bool sampled_already(struct request *rq, __u16 cid, const bool btf)
{
	struct inflight *v = lookup_rq(btf ? ptr_value(rq) : (__u64)rq);

	return v && v->ev.cid == cid;
}

/* a command of ours: hashed, counted, and recorded when the hash says so */
static __always_inline void decide(struct request *rq, struct nvme_command *cmd, const bool btf,
				   const bool backup)
{
	__u64 slba, hash;
	__u16 cid, nlb0;
	bool sampled;

	read_ident(cmd, &cid, &slba, &nlb0, btf);
	/* tp_btf only: the task's storage needs its BTF pointer */
	if (decide_backup && btf && decided_first(rq, cid, backup))
		return;
	hash = ntp_cmd_hash(cid, slba, nlb0);
	sampled = ntp_hash_sampled(hash, sample_limit);
	/* the backup, on a command the first program decided on before its ring forgot it */
	if (backup && sampled && sampled_already(rq, cid, btf))
		return;
	if (!sampled) {
		count_seen();   /* last: nothing is live across its call */
		return;
	}
	if (btf)
		chosen_btf(rq, cmd, hash, backup);
	else
		chosen_raw(rq, cmd, hash);
}

/*
 * A queue whose ops are not the learnt ones: tell whether its commands are
 * ours (above), and decide on this one if they are.  Out of line, like the
 * sampled path, for its helper calls would cost the decision's prologue.
 */
static __always_inline void learn_body(struct request *rq, struct nvme_command *cmd, __u64 mq_ops,
				       const bool btf, const bool backup)
{
	if (mq_ops == other_mq_ops)
		return;
	/* the admin or connect queue (no namespace): never learnt as ours */
	if (!BPF_CORE_READ(rq, q, queuedata))
		return;
	if (!is_our_ctrl(BPF_CORE_READ(nvme_req(rq), ctrl))) {
		other_mq_ops = mq_ops;
		return;
	}
	our_mq_ops = mq_ops;
	decide(rq, cmd, btf, backup);
}

static __noinline int learn_btf(struct request *rq, struct nvme_command *cmd, __u64 mq_ops,
				int backup)
{
	if (backup)
		learn_body(rq, cmd, mq_ops, true, true);
	else
		learn_body(rq, cmd, mq_ops, true, false);
	return 0;
}

static __noinline int learn_raw(struct request *rq, struct nvme_command *cmd, __u64 mq_ops,
				int backup)
{
	if (backup)
		learn_body(rq, cmd, mq_ops, false, true);
	else
		learn_body(rq, cmd, mq_ops, false, false);
	return 0;
}

/*
 * The sampling decision, on every command of the machine.  An unsampled
 * one of the learnt ops costs a few loads, a pointer comparison, the hash
 * (two multiplies and a comparison) and the seen count: no map, no helper
 * call, no stack; whatever needs a call is out of line and reached last.
 * `btf` (a constant) picks the reads: tp_btf's typed arguments are read
 * with plain loads, raw_tp's through bpf_probe_read_kernel().
 */
static __always_inline void setup_body(struct request *rq, struct nvme_command *cmd, const bool btf,
				       const bool backup)
{
	__u64 mq_ops;
	__u8 opcode;

	if (btf) {
		opcode = cmd->common.opcode;
		mq_ops = (__u64)rq->q->mq_ops;
	} else {
		opcode = BPF_CORE_READ(cmd, common.opcode);
		mq_ops = (__u64)BPF_CORE_READ(rq, q, mq_ops);
	}
	if (opcode != NVME_CMD_READ && opcode != NVME_CMD_WRITE)
		return;
	if (mq_ops == our_mq_ops)
		decide(rq, cmd, btf, backup);
	else if (btf)
		learn_btf(rq, cmd, mq_ops, backup);
	else
		learn_raw(rq, cmd, mq_ops, backup);
}

SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(setup_cmd, struct request *rq, struct nvme_command *cmd)
{
	/* 6.12's verifier types tracepoint arguments as maybe-NULL */
	if (rq && cmd && runs(NTP_RUN_SAMPLE))
		setup_body(rq, cmd, true, false);
	return 0;
}

/* where tp_btf programs are refused: the same through the untyped raw tracepoint */
SEC("raw_tp/nvme_setup_cmd")
int BPF_PROG(setup_cmd_raw, struct request *rq, struct nvme_command *cmd)
{
	if (rq && cmd && runs(NTP_RUN_SAMPLE))
		setup_body(rq, cmd, false, false);
	return 0;
}

/* the second decision program, where the kernel preempts (decide_backup, above) */
SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(setup_cmd_backup, struct request *rq, struct nvme_command *cmd)
{
	if (rq && cmd && runs(NTP_RUN_SAMPLE))
		setup_body(rq, cmd, true, true);
	return 0;
}

/* ---- NVMe/TCP: command / data handed to the socket: direct hooks (6.12) ---- */

/* 0 or -EAGAIN: partly sent, retried later */
static __always_inline void cmd_pdu_sent_body(struct inflight *v, int ret, __u64 t)
{
	if (ret == 1)
		set_cmd_sent(v, t);
}

/* not 1: the data of the current PDU is not all out yet; the last PDU's time wins */
static __always_inline void data_sent_body(struct inflight *v, int ret, __u64 t)
{
	if (ret == 1)
		set_data_sent(v, t);
}

/* the kretprobe twins' entry: its time for a sampled command (bpf/ntp_attach.bpf.h: send_enter) */
static __always_inline void send_enter_sampled(struct nvme_tcp_request *req)
{
	if (req && lookup_tcp_req(req))
		send_enter((__u64)req);
}

/* the fentry programs: the note in the sampled command's entry, one lookup */
static __always_inline void send_note_sampled(struct nvme_tcp_request *req)
{
	struct inflight *v;

	if (req && (v = lookup_tcp_req(req)))
		send_note(v);
}

SEC("fentry/nvme_tcp_try_send_cmd_pdu")
int BPF_PROG(cmd_pdu_ent)
{
	if (runs(NTP_RUN_FENTRY) && !none_live())
		send_note_sampled(arg_untyped(ctx, 0));
	return 0;
}

/* the return: unsampled commands stop at the slot test, sampled ones take the entry's note */
SEC("fexit/nvme_tcp_try_send_cmd_pdu")
int BPF_PROG(cmd_pdu_sent, struct nvme_tcp_request *req, int ret)
{
	struct nvme_tcp_request *r;
	struct inflight *v;

	if (!runs(NTP_RUN_FENTRY) || none_live())
		return 0;
	r = arg_untyped(ctx, 0);
	if (r && (v = lookup_tcp_req(r)))
		cmd_pdu_sent_body(v, ret, send_noted(v));
	return 0;
}

SEC("fentry/nvme_tcp_try_send_data")
int BPF_PROG(data_ent)
{
	if (runs(NTP_RUN_FENTRY) && !none_live())
		send_note_sampled(arg_untyped(ctx, 0));
	return 0;
}

SEC("fexit/nvme_tcp_try_send_data")
int BPF_PROG(data_sent, struct nvme_tcp_request *req, int ret)
{
	struct nvme_tcp_request *r;
	struct inflight *v;

	if (!runs(NTP_RUN_FENTRY) || none_live())
		return 0;
	r = arg_untyped(ctx, 0);
	if (r && (v = lookup_tcp_req(r)))
		data_sent_body(v, ret, send_noted(v));
	return 0;
}

/* the kretprobe twins: the request is noted at entry, for sampled commands only */
SEC("kprobe/nvme_tcp_try_send_cmd_pdu")
int BPF_KPROBE(cmd_pdu_ent_kp, struct nvme_tcp_request *req)
{
	if (runs(NTP_RUN_KPROBE))
		send_enter_sampled(req);
	return 0;
}

SEC("kretprobe/nvme_tcp_try_send_cmd_pdu")
int BPF_KRETPROBE(cmd_pdu_sent_kp, int ret)
{
	struct inflight *v;
	__u64 t, req;

	if (runs(NTP_RUN_KPROBE) && (req = send_exit(&t)) && (v = lookup_tcp_req((void *)req)))
		cmd_pdu_sent_body(v, ret, t);
	return 0;
}

SEC("kprobe/nvme_tcp_try_send_data")
int BPF_KPROBE(data_ent_kp, struct nvme_tcp_request *req)
{
	if (runs(NTP_RUN_KPROBE))
		send_enter_sampled(req);
	return 0;
}

SEC("kretprobe/nvme_tcp_try_send_data")
int BPF_KRETPROBE(data_sent_kp, int ret)
{
	struct inflight *v;
	__u64 t, req;

	if (runs(NTP_RUN_KPROBE) && (req = send_exit(&t)) && (v = lookup_tcp_req((void *)req)))
		data_sent_body(v, ret, t);
	return 0;
}

/* ---- NVMe/TCP: R2T received (every kernel) ---- */

/* treq: the same request as fentry's typed argument, read with a plain load (NULL: kprobe) */
static __always_inline void h2c_setup_body(struct nvme_tcp_request *req,
					   struct nvme_tcp_request *treq)
{
	struct inflight *v;

	if (!req)
		return;
	v = lookup_tcp_req(req);
	if (!v)
		return;
	/* the send path arming the next H2C PDU of the same R2T */
	if (!h2c_setup_is_r2t && (treq ? treq->pdu_len : BPF_CORE_READ(req, pdu_len)) != 0)
		return;
	v->ev.h_r2t = bpf_ktime_get_ns();       /* the last R2T wins, as the last data PDU does */
	v->ev.flags |= NTP_HF_R2T;
}

SEC("fentry/nvme_tcp_setup_h2c_data_pdu")
int BPF_PROG(h2c_setup, struct nvme_tcp_request *req)
{
	if (runs(NTP_RUN_FENTRY) && !none_live())
		h2c_setup_body(arg_untyped(ctx, 0), req);
	return 0;
}

SEC("kprobe/nvme_tcp_setup_h2c_data_pdu")
int BPF_KPROBE(h2c_setup_kp, struct nvme_tcp_request *req)
{
	if (runs(NTP_RUN_KPROBE))
		h2c_setup_body(req, NULL);
	return 0;
}

/* ---- NVMe/TCP: send fallback where the helpers are inlined (6.1; ntprof-design(7)) ---- */

/* the request this nvme_tcp_try_send() call will work on (it fetches the oldest if none) */
static __always_inline struct nvme_tcp_request *send_candidate(struct nvme_tcp_queue *queue)
{
	struct nvme_tcp_request *r = BPF_CORE_READ(queue, request);
	struct list_head *n, *head;
	struct llist_node *node, *next;
	int i;

	if (r)
		return r;
	head = &queue->send_list;
	n = BPF_CORE_READ(queue, send_list.next);
	if (n && n != head)
		return (void *)n - bpf_core_field_offset(struct nvme_tcp_request, entry);
	/* llist pushes at the head: the tail is the oldest, moved first to send_list */
	node = BPF_CORE_READ(queue, req_list.first);
	if (!node)
		return NULL;
	for (i = 0; i < 256; i++) {
		next = BPF_CORE_READ(node, next);
		if (!next)
			break;
		node = next;
	}
	if (i == 256)
		return NULL;
	return (void *)node - bpf_core_field_offset(struct nvme_tcp_request, lentry);
}

/* true when a sampled request's send state was saved for this queue */
static __always_inline bool try_send_entry_body(struct nvme_tcp_queue *queue)
{
	struct nvme_tcp_request *r;
	struct send_save s = {};
	__u64 key = (__u64)queue;

	/* about 4 calls per command: the candidate costs reads, none while nothing is sampled */
	if (!queue || !live_total)
		return false;
	r = send_candidate(queue);
	if (!r || !lookup_tcp_req(r))
		return false;
	s.req = (__u64)r;
	s.state = BPF_CORE_READ(r, state);
	s.t = bpf_ktime_get_ns();
	s.nivcsw = task_nivcsw();
	/*
	 * send_mutex serialises try_send per queue: one save per queue at a
	 * time, deleted by the exit hook of the same call (same task, so it
	 * sees the count raised)
	 */
	__sync_fetch_and_add(&send_saves_live, 1);
	if (bpf_map_update_elem(&send_saves, &key, &s, BPF_NOEXIST)) {
		/* there already (an exit hook that never ran: counted), or full */
		__sync_fetch_and_add(&send_saves_live, -1);
		bpf_map_update_elem(&send_saves, &key, &s, BPF_ANY);
	}
	return true;
}

static __always_inline void try_send_exit_body(struct nvme_tcp_queue *queue, int ret)
{
	__u64 key = (__u64)queue, now, t0, nivcsw0;
	struct nvme_tcp_request *r, *cur;
	struct send_save *s;
	struct inflight *v;
	__u32 state0, state;

	if (!queue || !send_saves_live)
		return;
	s = bpf_map_lookup_elem(&send_saves, &key);
	if (!s)
		return;
	r = (void *)s->req;
	state0 = s->state;
	t0 = s->t;
	nivcsw0 = s->nivcsw;
	if (!bpf_map_delete_elem(&send_saves, &key))
		__sync_fetch_and_add(&send_saves_live, -1);
	if (ret <= 0)   /* nothing finished (partial send), or an error */
		return;
	v = lookup_tcp_req(r);
	if (!v)
		return;
	/* as send_noted: the entry's time when the task was preempted in the call */
	now = nivcsw0 != task_nivcsw() ? t0 : bpf_ktime_get_ns();
	cur = BPF_CORE_READ(queue, request);
	state = BPF_CORE_READ(r, state);
	/* the command PDU went out in this call: the request moved past CMD_PDU or was done */
	if (state0 == NVME_TCP_SEND_CMD_PDU && (cur != r || state != NVME_TCP_SEND_CMD_PDU))
		set_cmd_sent(v, now);
	/* a data phase ended: done with the request while in a data state */
	if (cur != r && state != NVME_TCP_SEND_CMD_PDU)
		set_data_sent(v, now);
}

SEC("fentry/nvme_tcp_try_send")
int BPF_PROG(try_send_entry, struct nvme_tcp_queue *queue)
{
	if (runs(NTP_RUN_FENTRY))
		try_send_entry_body(queue);
	return 0;
}

SEC("fexit/nvme_tcp_try_send")
int BPF_PROG(try_send_exit, struct nvme_tcp_queue *queue, int ret)
{
	if (runs(NTP_RUN_FENTRY))
		try_send_exit_body(queue, ret);
	return 0;
}

SEC("kprobe/nvme_tcp_try_send")
int BPF_KPROBE(send_entry_kp, struct nvme_tcp_queue *queue)
{
	if (runs(NTP_RUN_KPROBE) && try_send_entry_body(queue))
		stash_put((__u64)queue);
	return 0;
}

SEC("kretprobe/nvme_tcp_try_send")
int BPF_KRETPROBE(send_exit_kp, int ret)
{
	if (runs(NTP_RUN_KPROBE))
		try_send_exit_body((void *)stash_take(), ret);
	return 0;
}

/* ---- NVMe/TCP: response parsed ---- */

static __always_inline void complete_remote_body(struct request *rq)
{
	struct inflight *v = lookup_rq((__u64)rq);

	if (v)
		v->ev.h_recv = bpf_ktime_get_ns();
}

SEC("fentry/blk_mq_complete_request_remote")
int BPF_PROG(complete_remote, struct request *rq)
{
	if (runs(NTP_RUN_FENTRY) && !none_live())
		complete_remote_body(arg_untyped(ctx, 0));
	return 0;
}

SEC("kprobe/blk_mq_complete_request_remote")
int BPF_KPROBE(complete_rem_kp, struct request *rq)
{
	if (runs(NTP_RUN_KPROBE))
		complete_remote_body(rq);
	return 0;
}

/* ---- completed to the block layer (both transports) ---- */

/*
 * libaio and sync commands completed to the block layer, until
 * nvme_complete_rq returns and stamps h_app_done in their kept record
 * (host_app.bpf.h).  Out of `inflight`: by the return the request may
 * already carry a new command, sampled too at -s 1.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);     /* struct request * */
	__type(value, struct inflight);
} completing SEC(".maps");

/* entries `completing` may hold: the return hook returns at once while it is 0 */
__u32 completing_live;

/*
 * What the return needs of such a command, in its request's slot as
 * rq_slots (bpf/ntp_slots.h), before `completing`: a slot is an inlined
 * array access, where the hash map's update, lookup and delete hash the
 * key and take its bucket's lock; its record is kept in the application's
 * maps meanwhile.  A slot whose return never came (a kretprobe missed) is
 * taken by the request's next completion; done_live counts the slots
 * held.
 */
struct done_slot {
	__u64 rq;               /* struct request *; 0: free */
	__u64 h_done;
	__u64 iocb;
	__u64 aux;
	__u32 tid;
	__u8 app_kind;
	__u8 pad[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NTP_SLOTS);
	__type(key, __u32);
	__type(value, struct done_slot);
} done_slots SEC(".maps");

__u32 done_live;

/* v's command, of request rq, kept for the return in its slot; false: the slot is another's */
static __always_inline bool done_park(__u64 rq, struct inflight *v)
{
	__u32 i = ntp_rq_slot(rq);
	struct done_slot *d = bpf_map_lookup_elem(&done_slots, &i);
	__u64 old;

	if (!d)
		return false;
	old = __sync_val_compare_and_swap(&d->rq, 0, rq);
	if (old && old != rq)
		return false;
	if (!old)
		__sync_fetch_and_add(&done_live, 1);
	d->h_done = v->ev.h_done;
	d->iocb = v->iocb;
	d->aux = v->aux;
	d->tid = v->ev.tid;
	d->app_kind = v->ev.app_kind;
	return true;
}

/*
 * With the application hooks (and a return hook: not in tracepoints-only
 * mode, `defer`), the record waits for nvme_complete_rq's return, which
 * tells when the completion reached the application; true then.  trq: the
 * same request as fentry's typed argument, whose own fields are plain
 * loads (NULL: read through bpf_probe_read_kernel()); rq is its value,
 * the key.
 */
static __always_inline bool complete_rq_body(struct request *rq, struct request *trq,
					     const bool defer)
{
	__u64 key = (__u64)rq;
	struct inflight *v = lookup_rq(key);

	if (!v || !rq)
		return false;
	if (transport == NTP_TRANSPORT_RDMA)
		rdma_forget(rq, v->ev.cid);
	if (v->alloc_ns != (trq ? trq->start_time_ns : BPF_CORE_READ(rq, start_time_ns))) {
		/* a stale entry of a command that never completed, met by a reuse of its request */
		forget_rq(key);
		return false;
	}
	v->ev.h_done = bpf_ktime_get_ns();
	v->ev.status = BPF_CORE_READ(nvme_req(rq), status);
	if (v->ev.status)
		v->ev.flags |= NTP_HF_ERROR;
	/* the monitor: the host's stages now, the application's where record emits them */
	if (hist_mode)
		ntp_mon_add_host(&v->ev);
	if (hist_mode && !(defer && app_track)) {
		if (hist_stream && ntp_mon_stream_host(&v->ev))
			emit_record(&v->ev, sizeof(v->ev));
		forget_rq(key);
		return false;
	}
	if (defer && app_track) {
		app_at_complete(rq, trq, &v->ev, &v->iocb, &v->aux);
		if (app_park(&v->ev, v->iocb, v->aux)) {
			/* libaio, sync: the return stamps h_app_done */
			if (v->ev.app_kind != NTP_APP_IO_URING && !done_park(key, v)) {
				__sync_fetch_and_add(&completing_live, 1);
				if (bpf_map_update_elem(&completing, &key, v, BPF_ANY))
					__sync_fetch_and_add(&completing_live, -1);
			}
			forget_rq(key);
			return true;
		}
	}
	if (hist_mode)
		ntp_mon_add_app(&v->ev);        /* not kept for a later stamp: those it has */
	if (!hist_mode || (hist_stream && ntp_mon_stream_host(&v->ev)))
		emit_record(&v->ev, sizeof(v->ev));
	forget_rq(key);
	return false;
}

/* a command completed in nvme_complete_rq waits for its return: the test before any read */
static __always_inline bool none_done(void)
{
	return !done_live && !completing_live;
}

/* nvme_complete_rq returned: the record of a command completed in it, if any */
static __always_inline void complete_rq_exit_body(__u64 key)
{
	struct done_slot *d;
	struct inflight *v;
	__u32 i;

	if (none_done())
		return;
	i = ntp_rq_slot(key);
	d = bpf_map_lookup_elem(&done_slots, &i);
	if (d && d->rq == key) {
		app_done_at_return(d->app_kind, d->tid, d->iocb, d->aux, d->h_done,
				   bpf_ktime_get_ns());
		if (__sync_val_compare_and_swap(&d->rq, key, 0) == key)
			__sync_fetch_and_add(&done_live, -1);
		return;
	}
	if (!completing_live)
		return;
	v = bpf_map_lookup_elem(&completing, &key);
	if (!v)
		return;
	app_done_at_return(v->ev.app_kind, v->ev.tid, v->iocb, v->aux, v->ev.h_done,
			   bpf_ktime_get_ns());
	if (!bpf_map_delete_elem(&completing, &key))
		__sync_fetch_and_add(&completing_live, -1);
}

/*
 * The cross-check's own count (NTP_CNT_FABRIC, lib/collect/collector.h):
 * the commands of the recorded transport's I/O queues completed, counted at
 * nvme_complete_rq apart from the decision, one slot per CPU as seen_slots.
 * It tells the transport by the queue's ops as the decision does, but learns
 * them itself, so that a decision that never runs cannot make it agree.
 */
struct ntp_seen_slot fabric_slots[NTP_SEEN_SLOTS];
__u64 fabric_mq_ops, fabric_other_mq_ops;

static __noinline int learn_fabric(struct request *rq, __u64 mq_ops)
{
	/* the admin or connect queue (no namespace): never learnt as ours */
	if (!rq || !BPF_CORE_READ(rq, q, queuedata))
		return 0;
	if (!is_our_ctrl(BPF_CORE_READ(nvme_req(rq), ctrl))) {
		fabric_other_mq_ops = mq_ops;
		return 0;
	}
	fabric_mq_ops = mq_ops;
	return 1;
}

static __always_inline void fabric_add(void)
{
	__sync_fetch_and_add(&fabric_slots[bpf_get_smp_processor_id() & (NTP_SEEN_SLOTS - 1)].n, 1);
}

/* this runs on every command of the machine */
static __always_inline void count_fabric(struct request *rq)
{
	__u64 mq_ops;

	if (!rq || !runs(NTP_RUN_SAMPLE))
		return;
	mq_ops = (__u64)BPF_CORE_READ(rq, q, mq_ops);
	if (mq_ops != fabric_mq_ops && (mq_ops == fabric_other_mq_ops || !learn_fabric(rq, mq_ops)))
		return;
	fabric_add();
}

/*
 * The fentry program reads the queue's ops through the typed argument (plain
 * loads), and the request's value, the key, only when it must: to learn the
 * ops, or when a sampled command may be in flight.
 */
SEC("fentry/nvme_complete_rq")
int BPF_PROG(complete_rq, struct request *rq)
{
	__u64 mq_ops;

	if (!runs(NTP_RUN_FENTRY) || !rq)
		return 0;
	if (runs(NTP_RUN_SAMPLE)) {
		mq_ops = (__u64)rq->q->mq_ops;
		if (mq_ops == fabric_mq_ops ||
		    (mq_ops != fabric_other_mq_ops && learn_fabric(arg_untyped(ctx, 0), mq_ops)))
			fabric_add();
	}
	if (!none_live())
		complete_rq_body(arg_untyped(ctx, 0), rq, true);
	return 0;
}

SEC("fexit/nvme_complete_rq")
int BPF_PROG(complete_rq_exit, struct request *rq)
{
	if (runs(NTP_RUN_FENTRY) && !none_done())
		complete_rq_exit_body((__u64)arg_untyped(ctx, 0));
	return 0;
}

SEC("kprobe/nvme_complete_rq")
int BPF_KPROBE(complete_rq_kp, struct request *rq)
{
	if (!runs(NTP_RUN_KPROBE))
		return 0;
	if (!fabric_at_tp)
		count_fabric(rq);
	if (complete_rq_body(rq, NULL, true))
		stash_put((__u64)rq);
	return 0;
}

/* kprobe mode's return hook: complete_rq_kp stashed the request, for deferred records only */
SEC("kretprobe/nvme_complete_rq")
int BPF_KRETPROBE(complete_rq_exit_kp)
{
	__u64 rq;

	if (runs(NTP_RUN_KPROBE) && (rq = stash_take()))
		complete_rq_exit_body(rq);
	return 0;
}

/*
 * tracepoint-only mode, and done_at_tp: trace_nvme_complete_rq() is the
 * first thing nvme_complete_rq() does.  In kprobe mode, the backstop: the
 * kernel skips a kprobe while another program holds its CPU's BPF count (a
 * kprobe interrupted, user space's map call preempted on a kernel that
 * preempts: 7.x), and the record would stay in flight; the kprobe at the
 * entry, when it ran, has already taken it, and this finds none.
 */
SEC("tp_btf/nvme_complete_rq")
int BPF_PROG(complete_rq_tp, struct request *rq)
{
	struct request *r;

	if (runs(NTP_RUN_TP) || runs(NTP_RUN_KPROBE) || done_at_tp) {
		r = (void *)ptr_value(rq);
		count_fabric(r);
		complete_rq_body(r, NULL, false);
	}
	return 0;
}

SEC("raw_tp/nvme_complete_rq")
int BPF_PROG(complete_rq_raw, struct request *rq)
{
	if (runs(NTP_RUN_TP) || runs(NTP_RUN_KPROBE) || done_at_tp) {
		count_fabric(rq);
		complete_rq_body(rq, NULL, false);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
