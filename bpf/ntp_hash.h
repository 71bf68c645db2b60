/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling hash (ntprof-design(7), SAMPLING), shared by the BPF
 * collectors and user space.  Host and target both see the same 64-byte submission entry, so
 * hashing its raw command_id, slba and 0-based length makes both machines
 * pick the very same commands without talking to each other.
 *
 * Changing anything here changes which commands are sampled: bump
 * NTP_HASH_VERSION, since recordings with different versions cannot be joined.
 */
#ifndef NTP_HASH_H
#define NTP_HASH_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define NTP_HASH_VERSION 1

/* splitmix64's finaliser: every input bit reaches every output bit */
static __always_inline __u64 ntp_mix64(__u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* cid: wire command_id; slba: starting LBA; nlb0: 0-based block count (the SQE's length field) */
static __always_inline __u64 ntp_cmd_hash(__u16 cid, __u64 slba, __u16 nlb0)
{
	/* XOR, not OR, with the constant: OR would drop the bits it has set */
	return ntp_mix64(slba ^ ntp_mix64((((__u64)cid << 16) | nlb0) ^ 0x9e3779b97f4a7c15ULL));
}

static __always_inline int ntp_hash_sampled(__u64 hash, __u32 one_in)
{
	return one_in <= 1 || hash % one_in == 0;
}

#endif
