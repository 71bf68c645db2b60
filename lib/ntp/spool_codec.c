// SPDX-License-Identifier: GPL-2.0
/* The spool's records as the words that changed (lib/ntp/spool_codec.h). */
#include <string.h>

#include "lib/ntp/spool_codec.h"

/* n is a constant in each caller: the loop unrolls, a word costs a compare and a branch */
static inline __attribute__((always_inline)) size_t encode(uint64_t *prev, unsigned int n,
							   unsigned int kind, const void *rec,
							   unsigned char *out)
{
	const unsigned char *r = rec;
	unsigned char *o = out + 4;
	uint32_t head = 0;
	uint64_t v;

#pragma GCC unroll 32
	for (unsigned int i = 0; i < n; i++) {
		memcpy(&v, r + 8 * i, 8);
		if (v == prev[i])
			continue;
		prev[i] = v;
		memcpy(o, &v, 8);
		o += 8;
		head |= 1u << i;
	}
	head = head << 2 | kind;
	memcpy(out, &head, 4);
	return (size_t)(o - out);
}

size_t ntp_spool__encode(struct ntp_spool_prev *p, unsigned int kind, const void *rec,
			 unsigned char *out)
{
	if (kind == NTP_SPOOL_HOST)
		return encode(p->host, NTP_SPOOL_HOST_WORDS, kind, rec, out);
	return encode(p->target, NTP_SPOOL_TARGET_WORDS, kind, rec, out);
}

size_t ntp_spool__whole(const unsigned char *in, size_t len, uint64_t *host, uint64_t *target)
{
	size_t at = 0, size;
	uint32_t head;
	unsigned int kind;

	*host = *target = 0;
	while (len - at >= 4) {
		memcpy(&head, in + at, 4);
		kind = head & 3;
		if (kind != NTP_SPOOL_HOST && kind != NTP_SPOOL_TARGET)
			break;
		size = 4 + 8 * (size_t)__builtin_popcount(head >> 2);
		if (len - at < size)
			break;
		at += size;
		++*(kind == NTP_SPOOL_HOST ? host : target);
	}
	return at;
}

int ntp_spool__decode(struct ntp_spool_prev *p, const unsigned char *in, size_t len, size_t *used)
{
	unsigned int kind, i, n;
	uint32_t head, mask;
	uint64_t *prev;
	size_t size;

	*used = 4;
	if (len < 4)
		return 0;
	memcpy(&head, in, 4);
	kind = head & 3;
	mask = head >> 2;
	if (kind == NTP_SPOOL_HOST) {
		prev = p->host;
		n = NTP_SPOOL_HOST_WORDS;
	} else if (kind == NTP_SPOOL_TARGET) {
		prev = p->target;
		n = NTP_SPOOL_TARGET_WORDS;
	} else {
		return -1;
	}
	if (mask >> n)
		return -1;
	size = 4 + 8 * (size_t)__builtin_popcount(mask);
	*used = size;
	if (len < size)
		return 0;
	in += 4;
	for (i = 0; i < n; i++) {
		if (!(mask & 1u << i))
			continue;
		memcpy(&prev[i], in, 8);
		in += 8;
	}
	return (int)kind;
}
