/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monitor's series as user space holds them: each collector's per-CPU
 * histograms (bpf/ntp_mon.h) summed over the CPUs, one row per series, in
 * a fixed order (role, stage, controller, namespace, I/O type, size class)
 * so that every scrape lists them alike.  The kernel's counts only grow, so
 * a series read later holds every count an earlier read held: cumulative,
 * as Prometheus' counters are.
 */
#ifndef NTP_MON_TABLE_H
#define NTP_MON_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/ntp_mon.h"

enum ntp_mon_role {
	NTP_MON_ROLE_HOST = 0,
	NTP_MON_ROLE_TARGET = 1,
};

struct ntp_mon_series {
	enum ntp_mon_role role;
	struct ntp_mon_key key;
	struct ntp_mon_hist h;
};

struct ntp_mon_table {
	struct ntp_mon_series *s;
	size_t n, cap;
};

struct bpf_map;

/* empty t (its memory kept for the next read) */
void ntp_mon_table__reset(struct ntp_mon_table *t);
void ntp_mon_table__free(struct ntp_mon_table *t);
/* a row for key, zeroed, added to t; NULL when out of memory */
struct ntp_mon_series *ntp_mon_table__add(struct ntp_mon_table *t, enum ntp_mon_role role,
					  const struct ntp_mon_key *key);
/* every series of a collector's `hists` map, summed over its CPUs, into t; 0 or -errno */
int ntp_mon_table__read(struct ntp_mon_table *t, struct bpf_map *hists, enum ntp_mon_role role);
/* t in the order every scrape lists it */
void ntp_mon_table__sort(struct ntp_mon_table *t);

#endif
