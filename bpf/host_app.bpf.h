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
 * pwrite64) writes (thread, system call, time) into its CPU's slot of
 * `app_sys`, an array: a store, no hash, per such system call, not per
 * command.  The thread is named by the address of its saved user
 * registers, the wrapper's argument (one per live thread, at the top of its
 * kernel stack), which costs no helper call.  nvme_setup_cmd, for sampled
 * commands only, takes the slot when it holds this thread and the thread
 * is still in that system call (the number in those registers, orig_ax):
 * no exit hook is needed to retire it.  A thread that moved to another CPU in between (waiting for a
 * tag, say) finds another thread's slot, or its own stale one: no time.
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
 * id, until io_getevents(ctx_id, ..., events, ...) returns n: it handed
 * over the n events it copied to the user's array, read there from user
 * memory, and each is told by its obj (the user iocb's address, the
 * aio_kiocb's ki_res.obj), not by its ring slot, which another CPU's
 * completion may take first.  An io_uring CQE is
 * reaped from the CQ ring in user space, without a system call: its slot is
 * the ring's cached CQ tail at the tracepoint less one (on 6.1 and 6.12 the
 * tail has moved past the CQE by then: read as the CQE's own slot, every
 * reap came one CQE late, twice fio's lat at queue depth 1, in the test
 * bed).  h_app_reap is the first
 * of: the thread's return from an io_uring_enter that waited for
 * completions (IORING_ENTER_GETEVENTS, min_complete > 0) with the CQE
 * posted (the CQ tail past it), since an application that waits takes what
 * it waited for; or its io_uring_enter entry that finds the CQ head (which
 * user space advances) past the CQE: a bound, taken by then at the latest.
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

/* per CPU: the last thread to enter an I/O system call there, which, and when */
struct app_sys_slot {
	__u64 regs;             /* the thread's struct pt_regs * (task_pt_regs()) */
	__u64 entered;
	__u32 nr;               /* the x86-64 system call number */
	__u32 pad;
};

#define NTP_APP_MAX_CPUS 4096

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NTP_APP_MAX_CPUS);
	__type(key, __u32);     /* CPU */
	__type(value, struct app_sys_slot);
} app_sys SEC(".maps");

/* x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl, an ABI) */
#define NTP_NR_PREAD64 17
#define NTP_NR_PWRITE64 18
#define NTP_NR_IO_SUBMIT 209
#define NTP_NR_IO_URING_ENTER 426

/* io_uring commands completed to the block layer, until their CQE: kiocb -> record */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);     /* struct kiocb * == struct io_kiocb * */
	__type(value, struct ntp_host_event);
} app_cqe SEC(".maps");

/* entries app_cqe may hold: the CQE hook returns at once while it is 0 */
__u32 app_cqe_live;

/* io_uring CQEs posted, until the application is seen past them: (ring ctx, slot) -> record */
struct app_uring_key {
	__u64 ctx;              /* struct io_ring_ctx * */
	__u32 slot;             /* the CQE's index, before masking */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct app_uring_key);
	__type(value, struct ntp_host_event);
} app_uring SEC(".maps");

/* the ring a thread's parked CQEs are on: thread id -> struct io_ring_ctx * */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} app_uring_ring SEC(".maps");

/* entries app_uring may hold: io_uring_enter's entry looks only while it is not 0 */
__u32 app_uring_live;

struct io_uring___ntp {
	u32 head;
	u32 tail;
} __attribute__((preserve_access_index));

struct io_rings___ntp {
	struct io_uring___ntp cq;
} __attribute__((preserve_access_index));

struct io_ring_ctx___ntp {
	struct io_rings___ntp *rings;
	unsigned int cached_cq_tail;
} __attribute__((preserve_access_index));

/* synchronous commands completed, until their thread returns: thread id -> record */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ntp_host_event);
} app_reap SEC(".maps");

/*
 * The records of one kind kept: in its slots (app_*_slots, below) and in
 * its hash map, counted apart (a take knows where it took from), tested
 * together by the hooks that take them, one 8-byte load; the system calls'
 * exit (app_reap_n) and io_getevents' exit (app_aio_n) look only while it
 * is not 0 (union ntp_app_live, bpf/ntp_slots.h).
 */
union ntp_app_live app_reap_n;

/* libaio events posted, until io_getevents hands them over: (ring, obj) -> record */
struct app_aio_key {
	__u64 ring;             /* ctx->user_id: the ring's user address, the aio_context_t */
	__u64 obj;              /* the event's obj: the user's struct iocb address */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct app_aio_key);
	__type(value, struct ntp_host_event);
} app_aio SEC(".maps");

union ntp_app_live app_aio_n;

/*
 * The same records where they are cheapest to keep: a slot per key, chosen
 * by a hash of it, owned by the key's first word (obj; the thread for
 * app_reap's) that a compare and swap from 0 puts in its head (as
 * rq_slots, bpf/ntp_slots.h); whoever swaps it back to 0 owns the record.
 * An array's lookup is a few inlined instructions where the hash map's
 * update, lookup and delete each hash the key and take a bucket's lock.  A
 * slot another key holds sends the record to the hash map.  User space maps
 * the arrays, sweeps them as it sweeps the hash maps
 * (lib/collect/inflight_expire.h, ntp_inflight__take_slots), and sets
 * app_slots_on once they are mapped: until then, or without a mapping,
 * every record goes to the hash maps.
 */
#define NTP_APP_SLOTS_SHIFT 12
#define NTP_APP_SLOTS (1u << NTP_APP_SLOTS_SHIFT)

struct app_slot {
	struct ntp_app_slot_head h;
	struct ntp_host_event ev;
};

/* libaio records, under (obj, ring) as app_aio */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, NTP_APP_SLOTS);
	__type(key, __u32);
	__type(value, struct app_slot);
} app_aio_slots SEC(".maps");

/* synchronous records, under (thread, 0) as app_reap */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, NTP_APP_SLOTS);
	__type(key, __u32);
	__type(value, struct app_slot);
} app_reap_slots SEC(".maps");

/* set by user space once it has both arrays mapped */
__u32 app_slots_on;

static __always_inline struct app_slot *app_slot_at(void *m, __u64 obj, __u64 ring)
{
	/* iocbs are 64 bytes apart in an application's array: the product's high bits mix them */
	__u32 i = (__u32)(((obj ^ (ring * 0xff51afd7ed558ccdULL)) * 0x9e3779b97f4a7c15ULL) >>
			  (64 - NTP_APP_SLOTS_SHIFT));

	return bpf_map_lookup_elem(m, &i);
}

/* fs/aio.c's private structs, the fields read */
struct kioctx___ntp {
	unsigned long user_id;
} __attribute__((preserve_access_index));

struct io_event___ntp {
	__u64 data;
	__u64 obj;
} __attribute__((preserve_access_index));

struct aio_kiocb___ntp {
	struct kiocb rw;
	struct kioctx___ntp *ki_ctx;
	struct io_event___ntp ki_res;
} __attribute__((preserve_access_index));

/* the events io_getevents copies to user memory (struct io_event, a user ABI) */
#define NTP_AIO_EVENT_SIZE 32   /* data, obj, res, res2 */
#define NTP_AIO_EVENT_OBJ 8

/* block/fops.c's private container of an async direct-I/O bio */
struct blkdev_dio___ntp {
	struct kiocb *iocb;
	struct bio bio;
} __attribute__((preserve_access_index));

/*
 * Emit the record kept in m under key, and drop it, once: whoever deletes
 * the entry owns the record.  User space deletes too: its sweep writes the
 * records kept too long, and at the stop every one still kept, without the
 * stamps they waited for (lib/collect/collector.c, "parked"), so that a
 * hook that never came (a missed return, an application that never reaps)
 * costs those stamps, never the command.  The copy goes into the ring
 * first, and is discarded when the delete finds the entry gone.
 */
static __always_inline void app_take(void *m, void *key, struct ntp_host_event *ev, __u32 *live)
{
	struct ntp_host_event *out = NULL;
	/* the monitor: the application's stages into the histograms, the flight's stream only */
	bool cross = !hist_mode || ntp_mon_app_take(ev);

	if (cross)
		out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
	if (!out) {
		if (!bpf_map_delete_elem(m, key)) {
			__sync_fetch_and_add(live, -1);
			if (cross)
				count(NTP_CNT_LOST_RINGBUF);
		}
		return;
	}
	__builtin_memcpy(out, ev, sizeof(*out));
	if (bpf_map_delete_elem(m, key)) {
		bpf_ringbuf_discard(out, 0);
		return;
	}
	__sync_fetch_and_add(live, -1);
	bpf_ringbuf_submit(out, wakeup_flags());
}

/* app_take for a slot owned by obj: the swap of its owner to 0 decides */
static __always_inline void app_slot_take(struct app_slot *s, __u64 obj, __u32 *live)
{
	struct ntp_host_event *out = NULL;
	/* the monitor, as in app_take */
	bool cross = !hist_mode || ntp_mon_app_take(&s->ev);

	if (cross)
		out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
	if (!out) {
		if (__sync_val_compare_and_swap(&s->h.obj, obj, 0) == obj) {
			__sync_fetch_and_add(live, -1);
			if (cross)
				count(NTP_CNT_LOST_RINGBUF);
		}
		return;
	}
	__builtin_memcpy(out, &s->ev, sizeof(*out));
	if (__sync_val_compare_and_swap(&s->h.obj, obj, 0) != obj) {
		bpf_ringbuf_discard(out, 0);
		return;
	}
	__sync_fetch_and_add(live, -1);
	bpf_ringbuf_submit(out, wakeup_flags());
}

/*
 * The record kept under (obj, ring) in the slots m (counted in live), or
 * else in the hash map hm under key (counted in hlive); *s: its slot, if
 * there.
 */
static __always_inline struct ntp_host_event *app_find(void *m, void *hm, __u32 *hlive, void *key,
						       __u64 obj, __u64 ring, struct app_slot **s)
{
	struct app_slot *t = app_slot_at(m, obj, ring);

	*s = NULL;
	if (t && obj && t->h.obj == obj && t->h.ring == ring) {
		*s = t;
		return &t->ev;
	}
	if (!*hlive)
		return NULL;
	return bpf_map_lookup_elem(hm, key);
}

/*
 * The CQEs of this thread's ring handed over by now, among the 64 slots
 * before `end`: at io_uring_enter's entry, those before the CQ head (user
 * space advances it); at its return, those before the CQ tail.
 */
static __always_inline void app_uring_reaped(__u32 tid, __u64 now, const bool at_exit)
{
	struct app_uring_key key = {};
	struct io_ring_ctx___ntp *ctx;
	struct ntp_host_event *ev;
	__u64 *ring;
	__u32 end;
	int i;

	ring = bpf_map_lookup_elem(&app_uring_ring, &tid);
	if (!ring)
		return;
	ctx = (void *)*ring;
	end = at_exit ? BPF_CORE_READ(ctx, rings, cq.tail) : BPF_CORE_READ(ctx, rings, cq.head);
	key.ctx = (__u64)ctx;
	for (i = 1; i <= 64; i++) {
		key.slot = end - i;
		ev = bpf_map_lookup_elem(&app_uring, &key);
		if (!ev)
			continue;
		ev->h_app_reap = now;
		app_take(&app_uring, &key, ev, &app_uring_live);
	}
}

/* regs: the wrapper's argument, the thread's saved user registers */
static __always_inline void app_sys_enter(__u64 regs, __u32 nr, const bool uring)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct app_sys_slot *slot = bpf_map_lookup_elem(&app_sys, &cpu);
	__u64 now = bpf_ktime_get_ns();

	if (slot) {
		slot->regs = regs;
		slot->nr = nr;
		slot->entered = now;
	}
	if (uring && app_uring_live)
		app_uring_reaped((__u32)bpf_get_current_pid_tgid(), now, false);
}

#define NTP_IORING_ENTER_GETEVENTS 1

/* io_uring_enter(fd, to_submit, min_complete, flags, ...) waits for completions */
static __always_inline bool app_uring_waits(struct pt_regs *regs)
{
	return (BPF_CORE_READ(regs, r10) & NTP_IORING_ENTER_GETEVENTS) && (__u32)BPF_CORE_READ(regs, dx);
}

/* io_uring_enter returned from waiting: the CQEs posted by now go to user space with it */
static __always_inline void app_uring_exit(bool waited)
{
	if (waited)
		app_uring_reaped((__u32)bpf_get_current_pid_tgid(), bpf_ktime_get_ns(), true);
}

/*
 * The application has the completion in hand at `now`: it was posted by
 * then.  nvme_complete_rq's return (app_done_at_return) may stamp the same
 * record on another CPU: whichever comes first sets h_app_done (a compare
 * and swap from 0), and a later return's time never stays past the reap (a
 * vCPU stalled between the return hook's clock read and its store, seen
 * under TCG: done 3 ms after the reap).
 */
static __always_inline void app_reaped_at(struct ntp_host_event *ev, __u64 now)
{
	__u64 done = __sync_val_compare_and_swap(&ev->h_app_done, 0, now);

	if (done > now)
		ev->h_app_done = now;
	ev->h_app_reap = now;
}

/* pread64/pwrite64 returned: a sync record of this thread waiting for it, if any */
static __always_inline void app_sys_exit(void)
{
	struct ntp_host_event *ev;
	struct app_slot *s;
	__u32 tid;

	if (!app_reap_n.any)
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	ev = app_find(&app_reap_slots, &app_reap, &app_reap_n.n.hashed, &tid, tid, 0, &s);
	if (!ev)
		return;
	app_reaped_at(ev, bpf_ktime_get_ns());
	if (s)
		app_slot_take(s, tid, &app_reap_n.n.slots);
	else
		app_take(&app_reap, &tid, ev, &app_reap_n.n.hashed);
}

/*
 * Keep ev in m under key until a later hook emits it; false when it cannot
 * be kept.  An entry already under that key is an earlier command's whose
 * reap was not seen (the iocb, the thread, the kiocb are reused): it is
 * written first, without its reap, never overwritten.
 */
static __always_inline bool app_keep(void *m, void *key, struct ntp_host_event *ev, __u32 *live)
{
	struct ntp_host_event *old;

	__sync_fetch_and_add(live, 1);
	if (!bpf_map_update_elem(m, key, ev, BPF_NOEXIST))
		return true;
	old = bpf_map_lookup_elem(m, key);
	if (old)
		app_take(m, key, old, live);
	if (bpf_map_update_elem(m, key, ev, BPF_NOEXIST)) {
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
 * is the submitter's wherever the bio is dispatched.  `btf` (tp_btf's
 * typed request): the chains from the request and the task are plain
 * loads, one bpf_probe_read_kernel() call a link otherwise.  The caller
 * has the current task (typed with `btf`, else bpf_get_current_task()'s
 * number), its pid_tgid and the CPU already: they are not asked for again.
 */
static __always_inline void app_at_setup(struct request *rq, struct ntp_host_event *ev,
					 struct task_struct *task, __u64 id, __u32 cpu,
					 const bool btf)
{
	struct app_sys_slot *slot;
	struct pt_regs *regs;
	__u32 tflags;

	if (btf) {
		ev->cgroup_id = rq->bio->bi_blkg->blkcg->css.cgroup->kn->id;
		tflags = task->flags;
	} else {
		ev->cgroup_id = BPF_CORE_READ(rq, bio, bi_blkg, blkcg, css.cgroup, kn, id);
		tflags = BPF_CORE_READ(task, flags);
	}
	if (tflags & NTP_PF_KTHREAD)
		return;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	if (btf) {
		/*
		 * two loads of the typed task's comm where the helper copies it
		 * (strscpy_pad): the kernel keeps comm NUL-padded to its 16 bytes
		 */
		*(__u64 *)&ev->comm[0] = *(volatile const __u64 *)&task->comm[0];
		*(__u64 *)&ev->comm[8] = *(volatile const __u64 *)&task->comm[8];
	} else {
		bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	}
	if (!ev->cgroup_id)
		ev->cgroup_id = bpf_get_current_cgroup_id();
	slot = bpf_map_lookup_elem(&app_sys, &cpu);
	if (!slot || slot->entered > ev->h_start)
		return;
	regs = (void *)bpf_task_pt_regs(btf ? task : bpf_get_current_task_btf());
	if ((__u64)regs != slot->regs)      /* a pointer compared: no read */
		return;
	/* still in that system call: the one its user registers were saved for */
	if ((btf ? regs->orig_ax : BPF_CORE_READ(regs, orig_ax)) != slot->nr)
		return;
	ev->h_app_submit = slot->entered;
	ev->flags |= NTP_HF_APP_SYSCALL;
}

/* the aio_kiocb's fields from ki_ctx to ki_res.obj, read at once (fs/aio.c keeps them adjacent) */
#define NTP_AIO_SPAN 64

/* an aio command's ring (its kioctx's user_id) and event obj, kiocb k's; 0 when unread */
static __always_inline void aio_ident(struct kiocb *k, __u64 *ring, __u64 *obj)
{
	__u64 span[NTP_AIO_SPAN / 8];
	__u32 ctx_off = bpf_core_field_offset(struct aio_kiocb___ntp, ki_ctx);
	__u32 obj_off = bpf_core_field_offset(struct aio_kiocb___ntp, ki_res.obj);
	struct kioctx___ntp *ctx;

	if (obj_off < ctx_off || obj_off + 8 - ctx_off > NTP_AIO_SPAN) {
		*ring = BPF_CORE_READ((struct aio_kiocb___ntp *)k, ki_ctx, user_id);
		*obj = BPF_CORE_READ((struct aio_kiocb___ntp *)k, ki_res.obj);
		return;
	}
	/* one read for both pointers, two fewer helper calls than a read each */
	if (bpf_probe_read_kernel(span, obj_off + 8 - ctx_off, (void *)k + ctx_off))
		return;
	ctx = (void *)span[0];
	*obj = span[((obj_off - ctx_off) / 8) & (NTP_AIO_SPAN / 8 - 1)];
	*ring = BPF_CORE_READ(ctx, user_id);
}

/*
 * At nvme_complete_rq (entry), for a sampled command: what posts its
 * completion to the application, and the kiocb for io_uring.  trq: the
 * request as fentry's typed argument (NULL in the other modes), whose bio
 * and its end_io are plain loads.
 */
static __always_inline void app_at_complete(struct request *rq, struct request *trq,
					    struct ntp_host_event *ev, __u64 *iocb, __u64 *aux)
{
	struct bio *bio = NULL, *tbio = NULL;
	__u64 end_io, kc;
	struct blkdev_dio___ntp *dio;
	struct kiocb *k;

	*iocb = *aux = 0;
	if (trq) {
		tbio = trq->bio;
		end_io = tbio ? (__u64)tbio->bi_end_io : 0;
	} else {
		bio = BPF_CORE_READ(rq, bio);
		end_io = (__u64)BPF_CORE_READ(bio, bi_end_io);
	}
	if (!end_io)
		return;
	if (end_io == ksym_submit_bio_wait_endio) {
		ev->app_kind = NTP_APP_SYNC;
		return;
	}
	if (end_io != ksym_blkdev_end_io_async)
		return;
	/*
	 * its container's address is arithmetic, which a typed pointer does
	 * not allow: the typed bio's value, through the CPU's cell, no read
	 */
	if (trq)
		bio = (void *)ptr_value(tbio);
	dio = (void *)bio - bpf_core_field_offset(struct blkdev_dio___ntp, bio);
	k = BPF_CORE_READ(dio, iocb);
	kc = (__u64)BPF_CORE_READ(k, ki_complete);
	if (kc && kc == ksym_aio_complete_rw) {
		ev->app_kind = NTP_APP_AIO;
		/* the ring and the event's obj, read before the completion frees the aio_kiocb */
		aio_ident(k, iocb, aux);
	} else if (kc && (kc == ksym_io_complete_rw || kc == ksym_io_complete_rw_iopoll)) {
		ev->app_kind = NTP_APP_IO_URING;
		*iocb = (__u64)k;
	}
}

/*
 * A record kept under (obj, ring): in its slot of m (counted in live) when
 * the slot is free or holds an earlier command of the same key (whose reap
 * was not seen: it is written first, as app_keep does), else in the hash
 * map hm under key (counted in hlive).
 */
static __always_inline bool app_slot_keep(void *m, __u32 *live, void *hm, __u32 *hlive, void *key,
					  __u64 obj, __u64 ring, struct ntp_host_event *ev)
{
	struct app_slot *s;
	__u64 old;

	if (app_slots_on && obj) {
		s = app_slot_at(m, obj, ring);
		if (!s)
			goto hashed;
		old = __sync_val_compare_and_swap(&s->h.obj, 0, obj);
		if (old == obj && s->h.ring == ring) {
			app_slot_take(s, obj, live);
			old = __sync_val_compare_and_swap(&s->h.obj, 0, obj);
		}
		if (!old) {
			__sync_fetch_and_add(live, 1);
			s->h.ring = ring;
			__builtin_memcpy(&s->ev, ev, sizeof(*ev));
			return true;
		}
	}
hashed:
	return app_keep(hm, key, ev, hlive);
}

/*
 * Still at nvme_complete_rq's entry: keep the record where the hook that
 * ends it will look (the aio event's reap, the synchronous caller's
 * return, the CQE).  Before the completion, not at the return: the
 * application on another CPU may take it before nvme_complete_rq returns.
 * True when kept.
 */
static __always_inline bool app_park(struct ntp_host_event *ev, __u64 iocb, __u64 aux)
{
	__u32 tid = ev->tid;

	if (ev->app_kind == NTP_APP_AIO) {
		struct app_aio_key key = { .ring = iocb, .obj = aux };

		return iocb && app_slot_keep(&app_aio_slots, &app_aio_n.n.slots, &app_aio,
					     &app_aio_n.n.hashed, &key, aux, iocb, ev);
	}
	if (ev->app_kind == NTP_APP_SYNC)
		/* only a thread seen in its system call at submission returns from it */
		return ev->h_app_submit && tid &&
		       app_slot_keep(&app_reap_slots, &app_reap_n.n.slots, &app_reap,
				     &app_reap_n.n.hashed, &tid, tid, 0, ev);
	if (ev->app_kind == NTP_APP_IO_URING && iocb)
		return app_keep(&app_cqe, &iocb, ev, &app_cqe_live);
	return false;
}

/*
 * nvme_complete_rq returned: the aio event is posted and a synchronous
 * caller woken by now, unless the application took it already (its hook
 * then stamped h_app_done too, and the record is gone).  The record kept
 * under the key must be this command's (its h_done): the key is the
 * thread or the iocb, which the next command reuses, and a return hook
 * that ran late (a vCPU stalled after its clock read, under TCG) would
 * else stamp the next command's record with a time before its completion.
 */
static __always_inline void app_done_at_return(__u8 kind, __u32 tid, __u64 iocb, __u64 aux,
					       __u64 h_done, __u64 now)
{
	struct app_aio_key key = { .ring = iocb, .obj = aux };
	struct ntp_host_event *ev = NULL;
	struct app_slot *s;

	if (kind == NTP_APP_AIO)
		ev = app_find(&app_aio_slots, &app_aio, &app_aio_n.n.hashed, &key, aux, iocb, &s);
	else if (kind == NTP_APP_SYNC)
		ev = app_find(&app_reap_slots, &app_reap, &app_reap_n.n.hashed, &tid, tid, 0, &s);
	/*
	 * unless the reap came first (app_reaped_at); and never before the
	 * completion: a late return of the request's previous command finds
	 * the entry of the next one completed on it
	 */
	if (ev && ev->h_done == h_done && now >= h_done)
		__sync_val_compare_and_swap(&ev->h_app_done, 0, now);
}

/* the CQE of any io_uring request on the machine: one load while none waits */
static __always_inline void app_cqe_posted(__u64 ring, __u64 req)
{
	struct io_ring_ctx___ntp *ctx = (void *)ring;
	struct app_uring_key key = {};
	struct ntp_host_event *ev;
	__u32 tid = 0;
	bool kept = false;

	if (!app_cqe_live)
		return;
	ev = bpf_map_lookup_elem(&app_cqe, &req);
	if (!ev)
		return;
	ev->h_app_done = bpf_ktime_get_ns();
	/* parked for the reap, under the submitting thread's ring */
	if (ctx && ev->tid) {
		tid = ev->tid;
		key.ctx = ring;
		key.slot = BPF_CORE_READ(ctx, cached_cq_tail) - 1;
		bpf_map_update_elem(&app_uring_ring, &tid, &ring, BPF_ANY);
		kept = app_keep(&app_uring, &key, ev, &app_uring_live);
	}
	if (!kept) {
		app_take(&app_cqe, &req, ev, &app_cqe_live);
		return;
	}
	/* moved; unless user space took the record from app_cqe meanwhile: then not twice */
	if (!bpf_map_delete_elem(&app_cqe, &req))
		__sync_fetch_and_add(&app_cqe_live, -1);
	else if (!bpf_map_delete_elem(&app_uring, &key))
		__sync_fetch_and_add(&app_uring_live, -1);
}

/*
 * io_getevents(ctx_id, min_nr, nr, events, timeout) returned n: it copied
 * the n events it handed over to the user's array `events`, read from
 * there in batches of NTP_AIO_BATCH (one read of user memory a batch,
 * where the ring would take one for its head and one a slot).  They are
 * this call's own, where the n slots before the ring's head would be
 * another thread's too if it reaped the same ring meanwhile.
 */
#define NTP_AIO_BATCH 8
#define NTP_AIO_MAX_EVENTS 64

static __always_inline void app_getevents_exit(__u64 ring, __u64 events, long n)
{
	__u64 batch[NTP_AIO_BATCH * NTP_AIO_EVENT_SIZE / 8];
	struct app_aio_key key = {};
	struct ntp_host_event *ev;
	struct app_slot *s;
	__u32 i, j, last;
	__u64 now;

	if (n <= 0 || !ring || !events)
		return;
	if (n > NTP_AIO_MAX_EVENTS)
		n = NTP_AIO_MAX_EVENTS;
	now = bpf_ktime_get_ns();
	key.ring = ring;
	for (i = 0; i < NTP_AIO_MAX_EVENTS / NTP_AIO_BATCH && i * NTP_AIO_BATCH < n; i++) {
		/* the batch's last event: n - 1 - i * NTP_AIO_BATCH, at most NTP_AIO_BATCH - 1 */
		last = n - 1 - i * NTP_AIO_BATCH;
		if (last > NTP_AIO_BATCH - 1)
			last = NTP_AIO_BATCH - 1;
		/* the bound again where the verifier sees it (6.1 tracks no relation between n and i) */
		asm volatile("%0 &= %1" : "+r"(last) : "i"(NTP_AIO_BATCH - 1));
		/* from the first event's obj to the last one's: 8 bytes for one event */
		if (bpf_probe_read_user(batch, last * NTP_AIO_EVENT_SIZE + 8,
					(void *)(events + (__u64)i * NTP_AIO_BATCH * NTP_AIO_EVENT_SIZE +
						 NTP_AIO_EVENT_OBJ)))
			return;
		for (j = 0; j < NTP_AIO_BATCH && j <= last; j++) {
			key.obj = batch[j * NTP_AIO_EVENT_SIZE / 8];
			ev = app_find(&app_aio_slots, &app_aio, &app_aio_n.n.hashed, &key, key.obj,
				      ring, &s);
			if (!ev)
				continue;
			app_reaped_at(ev, now);
			if (s)
				app_slot_take(s, key.obj, &app_aio_n.n.slots);
			else
				app_take(&app_aio, &key, ev, &app_aio_n.n.hashed);
		}
	}
}

/*
 * The wrapper's argument, __x64_sys_io_getevents(const struct pt_regs *), is
 * the thread's user registers: the ring in di, the events in r10, plain
 * loads through the typed pointer, after the test
 */
SEC("fexit/__x64_sys_io_getevents")
int BPF_PROG(app_getevents_exit_fx, struct pt_regs *regs, long ret)
{
	if (runs(NTP_RUN_FENTRY) && app_aio_n.any && regs)
		app_getevents_exit(regs->di, regs->r10, ret);
	return 0;
}

/*
 * kprobe mode: the ring and the events from the thread's saved user
 * registers, which the system call leaves as they came, read at the
 * return: a ring stashed at the entry would be missing whenever the entry
 * came while nothing was kept yet, and the events the call waited for
 * were then never reaped.
 */
SEC("kretprobe/__x64_sys_io_getevents")
int BPF_KRETPROBE(app_getevents_exit_kp, long ret)
{
	struct pt_regs *user;

	if (!runs(NTP_RUN_KPROBE) || !app_aio_n.any)
		return 0;
	user = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	app_getevents_exit(BPF_CORE_READ(user, di), BPF_CORE_READ(user, r10), ret);
	return 0;
}

/* ---- the I/O system calls: fentry/fexit, kprobe/kretprobe twins ---- */

#define NTP_APP_SYSCALL_ENTRY(name, nr, uring)					\
SEC("fentry/__x64_sys_" #name)							\
int BPF_PROG(app_ent_##name)							\
{										\
	if (runs(NTP_RUN_FENTRY))						\
		app_sys_enter(ctx[0], nr, uring);				\
	return 0;								\
}										\
SEC("kprobe/__x64_sys_" #name)							\
int BPF_KPROBE(app_ent_kp_##name, struct pt_regs *regs)				\
{										\
	if (!runs(NTP_RUN_KPROBE))						\
		return 0;							\
	app_sys_enter((__u64)regs, nr, uring);					\
	if (uring && app_uring_waits(regs))					\
		stash_put(1);							\
	return 0;								\
}

/* the return: a record waiting for it (the reap) */
#define NTP_APP_SYSCALL_EXIT(name, body)					\
SEC("fexit/__x64_sys_" #name)							\
int BPF_PROG(app_exit_##name)							\
{										\
	if (runs(NTP_RUN_FENTRY))						\
		body();								\
	return 0;								\
}										\
SEC("kretprobe/__x64_sys_" #name)						\
int BPF_KRETPROBE(app_exit_kp_##name)						\
{										\
	if (runs(NTP_RUN_KPROBE))						\
		body();								\
	return 0;								\
}

NTP_APP_SYSCALL_ENTRY(io_submit, NTP_NR_IO_SUBMIT, false)
NTP_APP_SYSCALL_ENTRY(io_uring_enter, NTP_NR_IO_URING_ENTER, true)
NTP_APP_SYSCALL_ENTRY(pread64, NTP_NR_PREAD64, false)
NTP_APP_SYSCALL_ENTRY(pwrite64, NTP_NR_PWRITE64, false)
SEC("fexit/__x64_sys_io_uring_enter")
int BPF_PROG(app_exit_io_uring_enter, struct pt_regs *regs)
{
	/* the test first: the registers cost reads */
	if (runs(NTP_RUN_FENTRY) && app_uring_live)
		app_uring_exit(app_uring_waits((void *)ptr_value(regs)));
	return 0;
}

/* kprobe mode: whether the call waits is stashed at its entry (app_ent_kp_io_uring_enter) */
SEC("kretprobe/__x64_sys_io_uring_enter")
int BPF_KRETPROBE(app_exit_kp_io_uring_enter)
{
	if (runs(NTP_RUN_KPROBE) && stash_take() && app_uring_live)
		app_uring_exit(true);
	return 0;
}
NTP_APP_SYSCALL_EXIT(pread64, app_sys_exit)
NTP_APP_SYSCALL_EXIT(pwrite64, app_sys_exit)

/* io_uring's CQE: (ctx, req, ...) on 6.1 and 6.12 alike */
SEC("raw_tp/io_uring_complete")
int BPF_PROG(app_cqe_raw, void *ring, void *req)
{
	app_cqe_posted((__u64)ring, (__u64)req);
	return 0;
}

#endif
