// SPDX-License-Identifier: GPL-2.0
/*
 * The least work a recorder of every command must do on the hooks
 * `ntprof record -t tcp` attaches on 6.12 with its default options (the
 * application's side on), in the same flavours: tp_btf on nvme_setup_cmd,
 * fentry/fexit on the functions.  Each program reads the clock once and
 * stores it in the command's state; nvme_complete_rq's return sends one
 * record of ntprof's size (struct ntp_host_event) to the ring buffer, with
 * ntprof's wakeup policy (bpf/ntp_collector.bpf.h).  No sampling decision,
 * no names, no filters but the opcode.  bench/hooks/least_work.c loads it;
 * bench/guest/testbed.sh's fio config `least` weighs it against ntprof's.
 *
 * A command's state is a slot of an array, chosen by its request's address
 * (the high bits of its Fibonacci product, as bpf/ntp_slots.h): every hook
 * has that address, the send hooks through the driver's request that lives
 * right behind struct request, so no hook reads anything to find its slot.
 * The address is taken as a number by subtracting a global's address from
 * the pointer, which the verifier lets a privileged program do (its result
 * is a scalar): one instruction, where bpf_get_func_arg() takes several.
 * A slot holds the low bits of its owner's address; a command that finds
 * its slot still owned by a command in flight takes it over and counts the
 * other as `clobbered`: kept + clobbered + lost = the commands set up.
 *
 * The application's hooks (I/O system calls) store their clock in a
 * per-CPU slot; nvme_setup_cmd copies the submission's into the command
 * (it runs on the submitting CPU).  The reap (io_getevents' return) comes
 * after the record is sent, so its stamp stays in the per-CPU slot: ntprof
 * parks the record until then, a cost not counted here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ntp_events.h"
#include "ntp_slots.h"

#define NVME_CMD_WRITE 0x01
#define NVME_CMD_READ 0x02
/* as bpf/ntp_collector.bpf.h */
#define RB_WAKEUP_BYTES (1 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

struct slot {
	__u64 rq;               /* the owner's request, as key(); 0: free */
	__u64 send_t;           /* the running send's entry */
	struct ntp_host_event ev;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NTP_SLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

struct app_stamp {
	__u64 submit;           /* the I/O system call's entry */
	__u64 reap;             /* its return (io_getevents, pread64, pwrite64) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct app_stamp);
} app SEC(".maps");

/* read by the loader at its end */
__u64 clobbered;        /* commands whose slot a later command took before they completed */
__u64 lost;             /* records the full ring buffer refused */

/* key(): a request's address less this one's (a constant); 8-aligned both, so bit 0 is free */
static __u64 anchor;

static __always_inline __u64 key(const void *p)
{
	return (__u64)p - (__u64)&anchor;
}

/* the driver's request (struct nvme_tcp_request) lives right behind struct request */
static __always_inline __u64 tcp_key(const void *req)
{
	return key(req) + bpf_core_field_offset(struct nvme_tcp_request, req) -
	       bpf_core_type_size(struct request);
}

static __always_inline struct slot *slot_of(__u64 k)
{
	__u32 i = ntp_rq_slot(k);

	return bpf_map_lookup_elem(&slots, &i);
}

/*
 * The slot of the command of request key k while that command owns it: as
 * k from the setup on, as k | DONE from nvme_complete_rq's entry on (the
 * request may carry its next command before the return, which must not
 * send that one's record).
 */
#define DONE 1

static __always_inline struct slot *owned(__u64 k, __u64 as)
{
	struct slot *s = slot_of(k);

	return s && s->rq == as ? s : NULL;
}

static __always_inline void app_submit(void)
{
	__u32 zero = 0;
	struct app_stamp *a = bpf_map_lookup_elem(&app, &zero);

	if (a)
		a->submit = bpf_ktime_get_ns();
}

static __always_inline void app_reap(void)
{
	__u32 zero = 0;
	struct app_stamp *a = bpf_map_lookup_elem(&app, &zero);

	if (a)
		a->reap = bpf_ktime_get_ns();
}

/* ---- the application's side ---- */

SEC("fentry/__x64_sys_io_submit")
int BPF_PROG(app_ent_io_submit)
{
	app_submit();
	return 0;
}

SEC("fentry/__x64_sys_pread64")
int BPF_PROG(app_ent_pread64)
{
	app_submit();
	return 0;
}

SEC("fentry/__x64_sys_pwrite64")
int BPF_PROG(app_ent_pwrite64)
{
	app_submit();
	return 0;
}

SEC("fexit/__x64_sys_io_getevents")
int BPF_PROG(app_getevents_exit_fx)
{
	app_reap();
	return 0;
}

SEC("fexit/__x64_sys_pread64")
int BPF_PROG(app_exit_pread64)
{
	app_reap();
	return 0;
}

SEC("fexit/__x64_sys_pwrite64")
int BPF_PROG(app_exit_pwrite64)
{
	app_reap();
	return 0;
}

/* ---- the command: set up, sent, R2T, response, completed ---- */

SEC("tp_btf/nvme_setup_cmd")
int BPF_PROG(setup_cmd, struct request *rq, struct nvme_command *cmd)
{
	struct app_stamp *a;
	struct slot *s;
	__u32 zero = 0;
	__u8 opcode;
	__u64 k;

	/* 6.12's verifier types tracepoint arguments as maybe-NULL */
	if (!rq || !cmd)
		return 0;
	opcode = cmd->common.opcode;
	if (opcode != NVME_CMD_READ && opcode != NVME_CMD_WRITE)
		return 0;
	k = key(rq);
	s = slot_of(k);
	if (!s)
		return 0;
	if (s->rq)
		__sync_fetch_and_add(&clobbered, 1);
	s->rq = k;
	s->ev.h_queue = bpf_ktime_get_ns();
	s->ev.kind = NTP_EV_HOST_IO;
	s->ev.flags = 0;
	s->ev.h_r2t = 0;
	s->ev.h_data_sent = 0;
	s->ev.opcode = opcode;
	s->ev.cid = cmd->common.command_id;
	s->ev.nsid = cmd->common.nsid;
	s->ev.slba = cmd->rw.slba;
	s->ev.nlb0 = cmd->rw.length;
	s->ev.bytes = rq->__data_len;
	a = bpf_map_lookup_elem(&app, &zero);
	if (a)
		s->ev.h_app_submit = a->submit;
	return 0;
}

static __always_inline void send_enter(const void *req)
{
	__u64 k = tcp_key(req);
	struct slot *s = owned(k, k);

	if (s)
		s->send_t = bpf_ktime_get_ns();
}

SEC("fentry/nvme_tcp_try_send_cmd_pdu")
int BPF_PROG(cmd_pdu_ent, struct nvme_tcp_request *req)
{
	send_enter(req);
	return 0;
}

/* 1: all of it handed to the socket */
SEC("fexit/nvme_tcp_try_send_cmd_pdu")
int BPF_PROG(cmd_pdu_sent, struct nvme_tcp_request *req, int ret)
{
	struct slot *s;

	__u64 k = tcp_key(req);

	if (ret == 1 && (s = owned(k, k)))
		s->ev.h_cmd_sent = bpf_ktime_get_ns();
	return 0;
}

SEC("fentry/nvme_tcp_try_send_data")
int BPF_PROG(data_ent, struct nvme_tcp_request *req)
{
	send_enter(req);
	return 0;
}

SEC("fexit/nvme_tcp_try_send_data")
int BPF_PROG(data_sent, struct nvme_tcp_request *req, int ret)
{
	struct slot *s;

	__u64 k = tcp_key(req);

	if (ret == 1 && (s = owned(k, k)))
		s->ev.h_data_sent = bpf_ktime_get_ns();
	return 0;
}

/* an R2T when pdu_len is 0 (6.1 on: the send path re-arms with pdu_len set) */
SEC("fentry/nvme_tcp_setup_h2c_data_pdu")
int BPF_PROG(h2c_setup, struct nvme_tcp_request *req)
{
	__u64 k = tcp_key(req);
	struct slot *s;

	if (req->pdu_len == 0 && (s = owned(k, k))) {
		s->ev.h_r2t = bpf_ktime_get_ns();
		s->ev.flags |= NTP_HF_R2T;
	}
	return 0;
}

/* runs for the target's null_blk requests too: no slot of theirs is owned */
SEC("fentry/blk_mq_complete_request_remote")
int BPF_PROG(complete_remote, struct request *rq)
{
	__u64 k = key(rq);
	struct slot *s = owned(k, k);

	if (s)
		s->ev.h_recv = bpf_ktime_get_ns();
	return 0;
}

SEC("fentry/nvme_complete_rq")
int BPF_PROG(complete_rq, struct request *rq)
{
	__u64 k = key(rq);
	struct slot *s = owned(k, k);

	if (s) {
		s->ev.h_done = bpf_ktime_get_ns();
		s->rq = k | DONE;
	}
	return 0;
}

/* the completion posted to the application (libaio): the record goes out */
SEC("fexit/nvme_complete_rq")
int BPF_PROG(complete_rq_exit, struct request *rq)
{
	struct ntp_host_event *out;
	__u64 k = key(rq), flags;
	struct slot *s = owned(k, k | DONE);

	if (!s)
		return 0;
	s->ev.h_app_done = bpf_ktime_get_ns();
	out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
	if (!out) {
		__sync_fetch_and_add(&lost, 1);
	} else {
		__builtin_memcpy(out, &s->ev, sizeof(*out));
		flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= RB_WAKEUP_BYTES ?
			BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
		bpf_ringbuf_submit(out, flags);
	}
	/* the request's next command may own the slot already (counted clobbered): only ours is freed */
	__sync_val_compare_and_swap(&s->rq, k | DONE, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
