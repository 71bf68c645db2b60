// SPDX-License-Identifier: GPL-2.0
/* The join's key of a command (lib/ntp/db_key.h). */
#include "lib/ntp/db_key.h"

/* splitmix64's finalizer over the running value and the next field */
static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

uint64_t ntp_key__hash(const struct ntp_key *k)
{
	const int64_t v[] = { k->cid, k->slba, k->nlb, k->qid, k->nsid, k->cntlid, k->opcode };
	uint64_t h = 0x5bd1e995u;

	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = mix(h, (uint64_t)v[i]);
	return h;
}
