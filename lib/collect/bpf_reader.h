/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every collector does the same way with its ring buffer and its
 * per-CPU counters (lib/collect/bpf_host.c, lib/collect/bpf_target.c).
 */
#ifndef NTP_BPF_READER_H
#define NTP_BPF_READER_H

#include <stdint.h>

struct ring_buffer;
struct bpf_map;

/*
 * Wait up to timeout_ms, then consume every ready record: the BPF side seldom
 * wakes the reader (bpf/ntp_collector.bpf.h).  Returns the number of records
 * handled; -1 with *stop_code = *stop (what the callback left there, read
 * after it ran) when the callback stopped it (-ECANCELED);
 * -1 with errno on an error.  EINTR is not an error: 0.
 */
int ntp_reader__poll(struct ring_buffer *rb, int timeout_ms, const int *stop, int *stop_code);

/* sum each of the n per-CPU counters of map into cnt[]; 0, or -1 if one read failed */
int ntp_reader__sum_counters(const struct bpf_map *map, uint64_t *cnt, unsigned int n);

#endif
