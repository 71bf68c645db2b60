/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The application's side of a sampled host command (ntprof-design(7), "The
 * application's side"): when the system call that created it was entered
 * (h_app_submit), when its completion was posted to the application
 * (h_app_done: the aio event, the io_uring CQE, the wakeup of a synchronous
 * reader), and who it came from (pid, comm, cgroup).
 *
 * The sampling decision is taken at nvme_setup_cmd, after the submission,
 * so the submission's time must already be kept when a command is sampled:
 * the entry of the I/O system calls (io_submit, io_uring_enter, pread64,
 * pwrite64) stamps the thread in `app_sys`, their exit removes the stamp.
 * That costs a map update and a delete per such system call, not per
 * command; nvme_setup_cmd reads the stamp for sampled commands only.
 *
 * The completion: nvme_complete_rq ends the request, and the bio's end_io
 * runs inside it.  For a block device's direct I/O that is
 * blkdev_bio_end_io_async (libaio, io_uring: the kiocb's ki_complete,
 * aio_complete_rw posts the aio event then and there) or
 * submit_bio_wait_endio (pread/pwrite: wakes the waiting reader).  So the
 * return of nvme_complete_rq is h_app_done for those.  io_uring's
 * ki_complete (io_complete_rw) only queues task work, and the CQE is posted
 * when the submitting task runs it: the io_uring_complete tracepoint, whose
 * request pointer is the kiocb's (io_kiocb begins with it), ends those.
 * Which function a pointer holds is told by its address: user space reads
 * them from /proc/kallsyms into the rodata below (0: unknown, no match).
 *
 * h_app_reap is when the application has the completion in hand.  A
 * synchronous reader's record waits for its thread's return from the system
 * call: the thread woken, scheduled, and out.  A libaio event waits in the
 * context's ring, which user space maps at the address that is the context's
 * id: the event's slot is ctx->tail - 1 right after aio_complete() posted
 * it, and io_getevents(ctx_id, ...) returning n hands over the n slots
 * before the ring's head, read there from user memory.  An io_uring CQE is
 * reaped from the CQ ring in user space, without a system call: no
 * h_app_reap.
 */
#ifndef NTP_HOST_APP_BPF_H
#define NTP_HOST_APP_BPF_H

#define NTP_PF_KTHREAD 0x00200000       /* include/linux/sched.h, unchanged since 2.6 */

/* set by user space when the application hooks are loaded */
const volatile bool app_track = false;
/* function addresses from /proc/kallsyms (lib/collect/bpf_host.c), 0 when absent */
const volatile __u64 ksym_blkdev_end_io_async = 0;
const volatile __u64 ksym_submit_bio_wait_endio = 0;
const volatile __u64 ksym_aio_complete_rw = 0;
const volatile __u64 ksym_io_complete_rw = 0;
const volatile __u64 ksym_io_complete_rw_iopoll = 0;

/* the thread in an I/O system call -> when it entered it */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);     /* thread id */
	__type(value, __u64);
} app_sys SEC(".maps");

/* io_uring commands completed to the block layer, until their CQE: kiocb -> record */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);     /* struct kiocb * == struct io_kiocb * */
	__type(value, struct ntp_host_event);
} app_cqe SEC(".maps");

/* entries app_cqe may hold: the CQE hook returns at once while it is 0 */
__u32 app_cqe_live;

/* synchronous commands completed, until their thread returns: thread id -> record */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ntp_host_event);
} app_reap SEC(".maps");

/* entries app_reap may hold: the system calls' exit looks only while it is not 0 */
__u32 app_reap_live;

/* libaio events posted, until io_getevents hands them over: (ring, slot) -> record */
struct app_aio_key {
	__u64 ring;             /* ctx->user_id: the ring's user address, the aio_context_t */
	__u32 slot;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct app_aio_key);
	__type(value, struct ntp_host_event);
} app_aio SEC(".maps");

/* entries app_aio may hold: io_getevents' exit looks only while it is not 0 */
__u32 app_aio_live;

/* fs/aio.c's private structs, the fields read */
struct kioctx___ntp {
	unsigned long user_id;
	unsigned int nr_events;
	unsigned int tail;
} __attribute__((preserve_access_index));

struct aio_kiocb___ntp {
	struct kiocb rw;
	struct kioctx___ntp *ki_ctx;
} __attribute__((preserve_access_index));

/* the user-mapped ring's header (fs/aio.c struct aio_ring, a user ABI) */
struct app_aio_ring_head {
	__u32 id, nr, head, tail;
};

/* block/fops.c's private container of an async direct-I/O bio */
struct blkdev_dio___ntp {
	struct kiocb *iocb;
	struct bio bio;
} __attribute__((preserve_access_index));

static __always_inline void app_sys_enter(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(&app_sys, &tid, &now, BPF_ANY);
}

static __always_inline void app_sys_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ntp_host_event *ev;

	bpf_map_delete_elem(&app_sys, &tid);
	if (!app_reap_live)
		return;
	ev = bpf_map_lookup_elem(&app_reap, &tid);
	if (!ev)
		return;
	ev->h_app_reap = bpf_ktime_get_ns();
	emit_record(ev, sizeof(*ev));
	if (!bpf_map_delete_elem(&app_reap, &tid))
		__sync_fetch_and_add(&app_reap_live, -1);
}

/* keep ev in m under key until a later hook emits it; false when it cannot be kept */
static __always_inline bool app_keep(void *m, void *key, struct ntp_host_event *ev, __u32 *live)
{
	__sync_fetch_and_add(live, 1);
	if (bpf_map_update_elem(m, key, ev, BPF_ANY)) {
		__sync_fetch_and_add(live, -1);
		return false;
	}
	return true;
}

/*
 * At the sampling decision, in the context that issued the command: the
 * submitting thread's system call, and who it is.  A kernel thread (a
 * kworker dispatching a queued request, an io_uring worker is not one)
 * submitted nothing itself: no time, no pid; the cgroup is the bio's, which
 * is the submitter's wherever the bio is dispatched.
 */
static __always_inline void app_at_setup(struct request *rq, struct ntp_host_event *ev)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u64 *entered;

	ev->cgroup_id = BPF_CORE_READ(rq, bio, bi_blkg, blkcg, css.cgroup, kn, id);
	if (BPF_CORE_READ(task, flags) & NTP_PF_KTHREAD)
		return;
	ev->pid = id >> 32;
	ev->tid = tid;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	if (!ev->cgroup_id)
		ev->cgroup_id = bpf_get_current_cgroup_id();
	entered = bpf_map_lookup_elem(&app_sys, &tid);
	if (entered && *entered <= ev->h_start) {
		ev->h_app_submit = *entered;
		ev->flags |= NTP_HF_APP_SYSCALL;
	}
}

/*
 * At nvme_complete_rq (entry), for a sampled command: what posts its
 * completion to the application, and the kiocb for io_uring.
 */
static __always_inline void app_at_complete(struct request *rq, struct ntp_host_event *ev,
					    __u64 *iocb)
{
	struct bio *bio = BPF_CORE_READ(rq, bio);
	__u64 end_io = (__u64)BPF_CORE_READ(bio, bi_end_io), kc;
	struct blkdev_dio___ntp *dio;
	struct kiocb *k;

	*iocb = 0;
	if (!end_io)
		return;
	if (end_io == ksym_submit_bio_wait_endio) {
		ev->app_kind = NTP_APP_SYNC;
		return;
	}
	if (end_io != ksym_blkdev_end_io_async)
		return;
	dio = (void *)bio - bpf_core_field_offset(struct blkdev_dio___ntp, bio);
	k = BPF_CORE_READ(dio, iocb);
	kc = (__u64)BPF_CORE_READ(k, ki_complete);
	if (kc && kc == ksym_aio_complete_rw) {
		ev->app_kind = NTP_APP_AIO;
		/* the context, read before the completion frees the aio_kiocb */
		*iocb = (__u64)BPF_CORE_READ((struct aio_kiocb___ntp *)k, ki_ctx);
	} else if (kc && (kc == ksym_io_complete_rw || kc == ksym_io_complete_rw_iopoll)) {
		ev->app_kind = NTP_APP_IO_URING;
		*iocb = (__u64)k;
	}
}

/*
 * At nvme_complete_rq's return: the aio event is posted and a synchronous
 * reader woken by now; an io_uring command waits for its CQE.  True when
 * the record is kept for later (not to be emitted now).
 */
static __always_inline bool app_at_complete_exit(struct ntp_host_event *ev, __u64 iocb, __u64 now)
{
	__u32 tid = ev->tid;

	if (ev->app_kind == NTP_APP_AIO) {
		struct kioctx___ntp *ctx = (void *)iocb;
		struct app_aio_key key = {};
		__u32 tail, nr;

		ev->h_app_done = now;
		if (!ctx)
			return false;
		key.ring = BPF_CORE_READ(ctx, user_id);
		tail = BPF_CORE_READ(ctx, tail);
		nr = BPF_CORE_READ(ctx, nr_events);
		if (!key.ring || !nr)
			return false;
		key.slot = (tail + nr - 1) % nr;
		return app_keep(&app_aio, &key, ev, &app_aio_live);
	}
	if (ev->app_kind == NTP_APP_SYNC) {
		ev->h_app_done = now;
		/* only a thread seen in its system call at submission returns from it */
		return ev->h_app_submit && tid && app_keep(&app_reap, &tid, ev, &app_reap_live);
	}
	if (ev->app_kind != NTP_APP_IO_URING || !iocb)
		return false;
	return app_keep(&app_cqe, &iocb, ev, &app_cqe_live);
}

/* the CQE of any io_uring request on the machine: one load while none waits */
static __always_inline void app_cqe_posted(__u64 req)
{
	struct ntp_host_event *ev;

	if (!app_cqe_live)
		return;
	ev = bpf_map_lookup_elem(&app_cqe, &req);
	if (!ev)
		return;
	ev->h_app_done = bpf_ktime_get_ns();
	emit_record(ev, sizeof(*ev));
	if (!bpf_map_delete_elem(&app_cqe, &req))
		__sync_fetch_and_add(&app_cqe_live, -1);
}

/* io_getevents(ctx_id, ...) returned n events: the n slots before the ring's head */
static __always_inline void app_getevents_exit(__u64 ring, long n)
{
	struct app_aio_ring_head h;
	struct app_aio_key key = {};
	struct ntp_host_event *ev;
	__u64 now;
	int i;

	if (!app_aio_live || n <= 0 || !ring)
		return;
	if (bpf_probe_read_user(&h, sizeof(h), (void *)ring) || !h.nr || h.head >= h.nr)
		return;
	now = bpf_ktime_get_ns();
	key.ring = ring;
	for (i = 0; i < 64 && i < n; i++) {
		key.slot = (h.head + h.nr - 1 - i) % h.nr;
		ev = bpf_map_lookup_elem(&app_aio, &key);
		if (!ev)
			continue;
		ev->h_app_reap = now;
		emit_record(ev, sizeof(*ev));
		if (!bpf_map_delete_elem(&app_aio, &key))
			__sync_fetch_and_add(&app_aio_live, -1);
	}
}

/* the user registers of a system call's wrapper, __x64_sys_*(const struct pt_regs *) */
static __always_inline __u64 sys_arg0(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, di);
}

SEC("fexit/__x64_sys_io_getevents")
int BPF_PROG(app_getevents_exit_fx, struct pt_regs *regs, long ret)
{
	if (runs(NTP_RUN_FENTRY))
		app_getevents_exit(sys_arg0((void *)ptr_value(regs)), ret);
	return 0;
}

SEC("kprobe/__x64_sys_io_getevents")
int BPF_KPROBE(app_getevents_ent_kp, struct pt_regs *regs)
{
	if (runs(NTP_RUN_KPROBE) && app_aio_live)
		stash_put(sys_arg0(regs));
	return 0;
}

SEC("kretprobe/__x64_sys_io_getevents")
int BPF_KRETPROBE(app_getevents_exit_kp, long ret)
{
	if (runs(NTP_RUN_KPROBE))
		app_getevents_exit(stash_take(), ret);
	return 0;
}

/* ---- the I/O system calls: fentry/fexit, kprobe/kretprobe twins ---- */

#define NTP_APP_SYSCALL(name)							\
SEC("fentry/__x64_sys_" #name)							\
int BPF_PROG(app_ent_##name)							\
{										\
	if (runs(NTP_RUN_FENTRY))						\
		app_sys_enter();						\
	return 0;								\
}										\
SEC("fexit/__x64_sys_" #name)							\
int BPF_PROG(app_exit_##name)							\
{										\
	if (runs(NTP_RUN_FENTRY))						\
		app_sys_exit();							\
	return 0;								\
}										\
SEC("kprobe/__x64_sys_" #name)							\
int BPF_KPROBE(app_ent_kp_##name)						\
{										\
	if (runs(NTP_RUN_KPROBE))						\
		app_sys_enter();						\
	return 0;								\
}										\
SEC("kretprobe/__x64_sys_" #name)						\
int BPF_KRETPROBE(app_exit_kp_##name)						\
{										\
	if (runs(NTP_RUN_KPROBE))						\
		app_sys_exit();							\
	return 0;								\
}

NTP_APP_SYSCALL(io_submit)
NTP_APP_SYSCALL(io_uring_enter)
NTP_APP_SYSCALL(pread64)
NTP_APP_SYSCALL(pwrite64)

/* io_uring's CQE: (ctx, req, ...) on 6.1 and 6.12 alike */
SEC("raw_tp/io_uring_complete")
int BPF_PROG(app_cqe_raw, void *ring, void *req)
{
	app_cqe_posted((__u64)req);
	return 0;
}

#endif
