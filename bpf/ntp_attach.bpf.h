/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the collectors share about attaching (lib/collect/attach_set.c): every function
 * hook exists as an fentry/fexit program and as a kprobe/kretprobe twin with
 * the same body, and user space decides at run time which of them does its
 * work.  A program of a flavour that is not in `run_flavours` returns at
 * once: that is how an fentry program whose attach got stuck (it is live
 * while the attach syscall waits: ntprof-design(7), "Attaching") stays
 * harmless next to its kprobe twin, and how a stop takes effect before the detaches (which may
 * wait for RCU) are done.
 *
 * kretprobes see only the return value: the kprobe twin of an fexit program
 * stashes the argument it needs at entry, keyed by the task, and only for
 * sampled commands.
 */
#ifndef NTP_ATTACH_BPF_H
#define NTP_ATTACH_BPF_H

#include "ntp_attach_flags.h"

/* written by user space while the programs run (.bss, memory-mapped) */
volatile __u32 run_flavours;

static __always_inline bool runs(__u32 flavour)
{
	return run_flavours & flavour;
}

/* kprobe entry -> kretprobe: one argument per task; LRU: a missed kretprobe leaves no leak */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);     /* pid_tgid */
	__type(value, __u64);   /* the argument */
} ret_stash SEC(".maps");

static __always_inline void stash_put(__u64 arg)
{
	__u64 key = bpf_get_current_pid_tgid();

	bpf_map_update_elem(&ret_stash, &key, &arg, BPF_ANY);
}

/* the argument stashed at entry, or 0 */
static __always_inline __u64 stash_take(void)
{
	__u64 key = bpf_get_current_pid_tgid();
	__u64 *v = bpf_map_lookup_elem(&ret_stash, &key);
	__u64 arg;

	if (!v)
		return 0;
	arg = *v;
	bpf_map_delete_elem(&ret_stash, &key);
	return arg;
}

/*
 * A send hook's time is its function's return (fexit, kretprobe).  A kernel
 * that preempts (7.x: lazy preemption) may switch the task out between the
 * send and the return: the return's time is then late by as long as it
 * waited, and a network stage can come out below zero.  So
 * the entry notes, for sampled commands only, the argument, its time and
 * the task's involuntary switches; the return takes the entry's time when
 * the task was preempted in between (the bytes went between the two).
 */
struct ntp_send_entry {
	__u64 arg;
	__u64 t;
	__u64 nivcsw;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);     /* pid_tgid */
	__type(value, struct ntp_send_entry);
} send_entries SEC(".maps");

static __always_inline __u64 task_nivcsw(void)
{
	/* the typed task: a plain load, where the untyped one costs a helper's read */
	return bpf_get_current_task_btf()->nivcsw;
}

/* at a send's entry, for a sampled command's argument */
static __always_inline void send_enter(__u64 arg)
{
	struct ntp_send_entry e = { .arg = arg, .t = bpf_ktime_get_ns(), .nivcsw = task_nivcsw() };
	__u64 key = bpf_get_current_pid_tgid();

	bpf_map_update_elem(&send_entries, &key, &e, BPF_ANY);
}

/*
 * At the return: the argument noted at the entry (0: none, an unsampled
 * command), and into *t the send's time: now, or the entry's when the task
 * was preempted since.
 */
static __always_inline __u64 send_exit(__u64 *t)
{
	__u64 key = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), arg;
	struct ntp_send_entry *e = bpf_map_lookup_elem(&send_entries, &key);

	*t = now;
	if (!e)
		return 0;
	arg = e->arg;
	if (e->nivcsw != task_nivcsw())
		*t = e->t;
	bpf_map_delete_elem(&send_entries, &key);
	return arg;
}

#endif
