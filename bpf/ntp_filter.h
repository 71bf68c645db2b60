/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command filter as the BPF programs see it: struct ntp_filter, the
 * collectors' rodata (`const volatile struct ntp_filter filter;`, set through
 * the skeleton before load), and ntp_filter__pass(), the one predicate both
 * BPF and user space apply (lib/core/filter.h parses the options into it).
 * Fixed-width fields only; self-contained for BPF (vmlinux.h first).
 *
 * The namespace.  BPF knows at the sampling decision (nvme_setup_cmd) the
 * command's nsid and its controller's instance (ctrl->instance, the X of
 * nvmeX; struct ntp_host_event.ctrl_instance).  A namespace is exactly the
 * commands with its nsid on one of its controllers: with native multipath
 * the controllers of all its paths nvmeScCnH (path disks are in /sys/block
 * without /dev nodes: ntprof-design(7), "Namespaces"), without it the one
 * controller its disk hangs off.  So the check is one compare and a short bounded loop,
 * with no strings and no pointer chasing.  The head disk's dev_t is there
 * too, for hooks that only see a gendisk: compare it with
 * (ns->head->disk ?: rq->q->disk)->major/first_minor, never with the path
 * disk of a request.
 *
 * Commands of other opcodes than read and write pass only without
 * --io-type.  --size compares the request's data length in bytes.
 */
#ifndef NTP_FILTER_BPF_H
#define NTP_FILTER_BPF_H

#ifndef __bpf__
#include <stdbool.h>
#include <linux/types.h>
#endif

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define NTP_FILTER_MAX_CTRLS 16     /* paths of one namespace */
#define NTP_FILTER_MAX_SIZES 16     /* items of --size */

enum ntp_filter_flags {
	NTP_FILTER_NS = 1 << 0,         /* --session: nsid and ctrls[] */
	NTP_FILTER_OPCODE = 1 << 1,     /* --io-type: opcode */
	NTP_FILTER_SIZE = 1 << 2,       /* --size: sizes[] */
};

/* all zero: record everything */
struct ntp_filter {
	__u32 flags;                    /* enum ntp_filter_flags: the filters in force */
	__u32 opcode;                   /* NTP_FILTER_OPCODE: 0x02 read or 0x01 write */
	__u32 nsid;                     /* NTP_FILTER_NS: the namespace id */
	__u32 nctrls;                   /* NTP_FILTER_NS: 1 .. NTP_FILTER_MAX_CTRLS */
	__u32 ctrls[NTP_FILTER_MAX_CTRLS];  /* ctrl->instance of each path, ascending */
	__u32 dev_major, dev_minor;     /* NTP_FILTER_NS: the head (or only) disk's dev_t */
	__u32 nsizes;                   /* NTP_FILTER_SIZE: 1 .. NTP_FILTER_MAX_SIZES */
	__u32 sizes[NTP_FILTER_MAX_SIZES];  /* bytes, ascending, multiples of 512 */
};

/*
 * Does a command pass?  opcode, data length in bytes, controller instance
 * and nsid, as BPF reads them at nvme_setup_cmd.  The loops are bounded by
 * constants, as the verifier wants.
 */
static __always_inline bool ntp_filter__pass(const volatile struct ntp_filter *f, __u32 opcode,
					     __u32 bytes, __u32 ctrl_instance, __u32 nsid)
{
	bool hit;
	int i;

	if ((f->flags & NTP_FILTER_OPCODE) && opcode != f->opcode)
		return false;
	if (f->flags & NTP_FILTER_NS) {
		if (nsid != f->nsid)
			return false;
		hit = false;
		for (i = 0; i < NTP_FILTER_MAX_CTRLS; i++)
			if ((__u32)i < f->nctrls && f->ctrls[i] == ctrl_instance)
				hit = true;
		if (!hit)
			return false;
	}
	if (f->flags & NTP_FILTER_SIZE) {
		hit = false;
		for (i = 0; i < NTP_FILTER_MAX_SIZES; i++)
			if ((__u32)i < f->nsizes && f->sizes[i] == bytes)
				hit = true;
		if (!hit)
			return false;
	}
	return true;
}

#endif
