/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of FILE.spool (version 2), each written as the 8-byte words
 * that differ from the previous record of its kind: a 32-bit head (the kind
 * in bits 0-1, a bit per changed word from bit 2) and those words.
 * Consecutive commands share their names, process, namespace and flags, so
 * a host record takes about half its 224 bytes, and the kernel copies and
 * allocates half the page cache for it; the recorder's cost per command is
 * mostly that (bench/README.md, bench_writer).
 */
#ifndef NTP_SPOOL_CODEC_H
#define NTP_SPOOL_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_events.h"

#define NTP_SPOOL_HOST 1u
#define NTP_SPOOL_TARGET 2u
#define NTP_SPOOL_HOST_WORDS (sizeof(struct ntp_host_event) / 8)
#define NTP_SPOOL_TARGET_WORDS (sizeof(struct ntp_target_event) / 8)
/* the most one record takes: its head and every word */
#define NTP_SPOOL_MAX_REC (4 + sizeof(struct ntp_host_event))

_Static_assert(sizeof(struct ntp_host_event) % 8 == 0 && NTP_SPOOL_HOST_WORDS <= 30,
	       "a host record is at most 30 whole words: a bit each in the head");
_Static_assert(sizeof(struct ntp_target_event) % 8 == 0 && NTP_SPOOL_TARGET_WORDS <= 30,
	       "a target record is at most 30 whole words: a bit each in the head");
_Static_assert(sizeof(struct ntp_target_event) <= sizeof(struct ntp_host_event),
	       "NTP_SPOOL_MAX_REC is a host record's");

/* the previous record of each kind, as both the writer and the reader keep it (all 0 at first) */
struct ntp_spool_prev {
	uint64_t host[NTP_SPOOL_HOST_WORDS];
	uint64_t target[NTP_SPOOL_TARGET_WORDS];
};

/* rec (a host or target record: kind) into out (NTP_SPOOL_MAX_REC bytes); returns its length */
size_t ntp_spool__encode(struct ntp_spool_prev *p, unsigned int kind, const void *rec,
			 unsigned char *out);
/*
 * The record at in (len bytes there): its kind (NTP_SPOOL_HOST or _TARGET)
 * and *used, its bytes, with the whole record in p->host or p->target;
 * 0 when in holds less than the record (*used: the bytes it needs, or 4
 * for its head); -1 for a head of no known kind.
 */
int ntp_spool__decode(struct ntp_spool_prev *p, const unsigned char *in, size_t len, size_t *used);
/*
 * Of the records encoded at in, those whole in its first len bytes (a
 * write that stopped part way): their bytes, and *host and *target, how
 * many of each kind.  Read from the heads alone; stops at a head of no
 * known kind.
 */
size_t ntp_spool__whole(const unsigned char *in, size_t len, uint64_t *host, uint64_t *target);

#endif
