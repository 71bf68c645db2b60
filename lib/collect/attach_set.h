/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching a collector's programs under an attach policy (lib/collect/attach.h), in
 * parallel from worker threads, and detaching them within a bound.
 *
 * Why threads (ntprof-design(7), "Attaching"): on 6.1 the first
 * fentry/fexit attach of a system waits in synchronize_rcu_tasks(), which a
 * kernel thread that never sleeps (an io_uring SQPOLL thread) holds up for
 * as long as it runs.  The attach syscall cannot be interrupted, and its
 * program is already live.  On 6.12 the attach is asynchronous, but the last
 * detach of each traced function still waits for such a grace period, once
 * per function.
 *
 * So every program gets its own worker that attaches it, then waits to be
 * told to detach it.  The caller waits with a deadline; a program whose
 * attach has not returned stays with its worker, inert (its flavour is not
 * in run_flavours: bpf/ntp_attach.bpf.h), and is detached by that worker once
 * the kernel lets the attach return.  Detaching wakes every worker at once,
 * so the grace periods of different functions overlap.
 *
 * The classes a program can be in:
 *	NTP_RUN_FENTRY   fentry/fexit
 *	NTP_RUN_KPROBE   kprobe/kretprobe twins of the above
 *	NTP_RUN_TP       tracepoint programs used only where neither attaches
 *	NTP_RUN_SAMPLE   the decision hook, a tracepoint, attached in every mode, last,
 *	                 one after another in the order added (a tracepoint's
 *	                 programs run in the order they were attached)
 */
#ifndef NTP_ATTACH_SET_H
#define NTP_ATTACH_SET_H

#include <stdbool.h>
#include <linux/types.h>

#include "bpf/ntp_attach_flags.h"
#include "lib/collect/attach.h"

struct bpf_program;
struct ntp_attach_set;

/* the outcome of ntp_attach_set__attach() */
struct ntp_attach_result {
	__u32 mode;             /* NTP_RUN_FENTRY, NTP_RUN_KPROBE or NTP_RUN_TP */
	char why[320];          /* why not fentry (empty when fentry): for the hooks table */
	double seconds;         /* attach time, fallbacks included */
};

/* name: the collector ("host", "target"), in messages */
struct ntp_attach_set *ntp_attach_set__new(const char *name);
/* a program to attach in class cls (one NTP_RUN_* bit); programs not loaded are skipped */
int ntp_attach_set__add(struct ntp_attach_set *s, struct bpf_program *p, __u32 cls);

/*
 * Attach under policy, given the classes whose programs were loaded
 * (loaded: NTP_RUN_* bits) and why fentry or kprobes were not (NULL if they
 * were), then turn the chosen flavour and sampling on through *run_flavours
 * (the skeleton's .bss).  AUTO warns once (one line) for each fallback.
 * Returns 0, or an NTP_EXIT_* code after printing one error line.
 */
int ntp_attach_set__attach(struct ntp_attach_set *s, enum ntp_attach_policy policy, __u32 loaded,
			   const char *no_fentry, const char *no_kprobe,
			   volatile __u32 *run_flavours, struct ntp_attach_result *res);

/* programs attached (links held) */
int ntp_attach_set__programs(const struct ntp_attach_set *s);

/*
 * The kernel's count of hits each attached kprobe or kretprobe skipped (a
 * kprobe that fires while another runs on the same CPU, as a completion
 * interrupt inside one of ours), summed into *missed.  Returns the number
 * of kprobe links read, or -errno.  A kernel before 6.7 leaves the count
 * at 0: ask ntp_probe__btf_member() whether it tells.
 */
int ntp_attach_set__kprobe_missed(struct ntp_attach_set *s, __u64 *missed);

/*
 * Stop sampling at once (clears NTP_RUN_SAMPLE), then detach every program
 * in parallel, waiting up to NTP_ATTACH_FENTRY_TIMEOUT_S seconds in all.
 * Returns the number of programs whose detach (or attach) is still waiting.
 */
int ntp_attach_set__detach(struct ntp_attach_set *s, volatile __u32 *run_flavours);

/*
 * Detach what is left (bounded as above) and free.  Returns true when a
 * worker is still inside an attach or detach syscall: the set is then left
 * to its workers (not freed), and the caller must keep the BPF object their
 * programs belong to (don't destroy the skeleton) for the same reason.
 */
bool ntp_attach_set__free(struct ntp_attach_set *s, volatile __u32 *run_flavours);

#endif
