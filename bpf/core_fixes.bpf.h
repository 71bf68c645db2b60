/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel fields that were renamed or changed meaning, as ___old/___new
 * flavours picked at load time with bpf_core_field_exists() (libbpf-tools'
 * core_fixes.bpf.h model).  Only the fields ntprof reads.
 */
#ifndef NTP_CORE_FIXES_BPF_H
#define NTP_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

/*
 * bio issue time.  Up to at least 6.12 (CONFIG_BLK_CGROUP) it is
 * bio->bi_issue.value: the low 51 bits of ktime_get_ns() with the I/O size
 * packed above (block/blk-cgroup.h BIO_ISSUE_*).  Newer kernels (6.18 has
 * it) replaced struct bio_issue with a plain u64 bio->issue_time_ns.
 */
#define NTP_BIO_ISSUE_TIME_MASK ((1ULL << 51) - 1)

struct bio_issue {
	u64 value;
} __attribute__((preserve_access_index));

struct bio___old {
	struct bio_issue bi_issue;
} __attribute__((preserve_access_index));

/*
 * Nanoseconds on the bpf_ktime_get_ns() clock at which the bio entered
 * submit_bio_noacct(), or 0 when this kernel does not keep it.  `btf`: bio
 * is a BTF-typed pointer (tp_btf, fentry), read with plain loads.
 */
static __always_inline u64 ntp_bio_issue_ns(struct bio *bio, u64 now, const bool btf)
{
	u64 v;

	if (!bio)
		return 0;
	if (bpf_core_field_exists(bio->issue_time_ns))
		return btf ? bio->issue_time_ns : BPF_CORE_READ(bio, issue_time_ns);
	if (bpf_core_field_exists(((struct bio___old *)bio)->bi_issue)) {
		v = btf ? ((struct bio___old *)bio)->bi_issue.value :
			  BPF_CORE_READ((struct bio___old *)bio, bi_issue.value);
		v &= NTP_BIO_ISSUE_TIME_MASK;
		if (!v)
			return 0;
		/* rebuild the high bits from now: the bio was issued less than 2^51 ns (26 days) ago */
		return now - ((now - v) & NTP_BIO_ISSUE_TIME_MASK);
	}
	return 0;
}

#endif
