/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The key the join pairs a host command with the target's record of it by
 * (ntprof-design(7), JOINING): what both sides see of a command, hashed to
 * 64 bits.  record stores it with every row (host_io.join_key,
 * target_io.join_key: ntprof-ntp(5)), so that a join reads one column where
 * it would read seven; the join computes it for rows without one.  This is
 * its one definition: tests/integration/ntpgen.py follows it, and
 * tests/unit/test_db.c checks both against the same values.
 */
#ifndef NTP_DB_KEY_H
#define NTP_DB_KEY_H

#include <stdint.h>

struct ntp_key {
	int64_t cid, slba, nlb, qid, nsid, cntlid, opcode;	/* as host_io and target_io hold them */
};

/* the key's hash; as join_key stores it, a signed 64-bit integer of the same bits */
uint64_t ntp_key__hash(const struct ntp_key *k);

#endif
