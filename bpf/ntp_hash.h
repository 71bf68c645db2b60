/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampling hash (ntprof-design(7), SAMPLING), shared by the BPF
 * collectors and user space.  Host and target both see the same 64-byte
 * submission entry, so hashing its raw command_id, slba and length makes
 * both machines pick the very same commands without talking to each other.
 *
 * Changing anything here changes which commands are sampled: bump
 * NTP_HASH_VERSION, since recordings with different versions cannot be joined.
 *
 * Version 3 hashes the three fields the specification names: the command
 * id, the starting LBA and the 0-based block count (the SQE's NLB, as on
 * the wire).  The command id and the block count are packed into one 32-bit
 * word, which one multiply spreads over 64 bits; that is XORed into the
 * LBA, and a second multiply carries every bit of it into the high bits of
 * the product.  A command is sampled when the product is at most 2^64 / N:
 * when its high bits are zero.  Only the high bits decide, and they depend
 * on every input bit; the low bits of a product do not, and are not used.
 * The decision runs on every command of the machine, where each field read
 * through the request's typed pointer is a load the JIT guards against
 * user addresses: three fields, two multiplies.  Versions 1 and 2, for the
 * recordings made with them, are described in ntprof-design(7).
 */
#ifndef NTP_HASH_H
#define NTP_HASH_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define NTP_HASH_VERSION 3

/* odd multipliers with their bits spread: the golden ratio's and splitmix64's first */
#define NTP_HASH_K1 0x9e3779b97f4a7c15ULL
#define NTP_HASH_K2 0xbf58476d1ce4e5b9ULL

/*
 * cid: wire command_id; slba: starting LBA; nlb0: the 0-based block count
 * (all three as the SQE holds them)
 */
static __always_inline __u64 ntp_cmd_hash(__u16 cid, __u64 slba, __u16 nlb0)
{
	return (slba ^ ((cid | (__u64)nlb0 << 16) * NTP_HASH_K1)) * NTP_HASH_K2;
}

/*
 * The largest hash sampled at one command in one_in: (2^64 - 1) / one_in,
 * so that floor((2^64 - 1) / one_in) + 1 of the 2^64 hashes are sampled;
 * everything at 0 or 1.  User space computes it once (a division) and
 * hands it to the collectors, whose decision is then one comparison.
 */
static __always_inline __u64 ntp_hash_limit(__u32 one_in)
{
	return one_in <= 1 ? ~0ULL : ~0ULL / one_in;
}

static __always_inline int ntp_hash_sampled(__u64 hash, __u64 limit)
{
	return hash <= limit;
}

#endif
