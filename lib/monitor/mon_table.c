// SPDX-License-Identifier: GPL-2.0
/* The monitor's series, read from the collectors' maps (lib/monitor/mon_table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/monitor/mon_table.h"

void ntp_mon_table__reset(struct ntp_mon_table *t)
{
	t->n = 0;
}

void ntp_mon_table__free(struct ntp_mon_table *t)
{
	free(t->s);
	*t = (struct ntp_mon_table){ 0 };
}

struct ntp_mon_series *ntp_mon_table__add(struct ntp_mon_table *t, enum ntp_mon_role role,
					  const struct ntp_mon_key *key)
{
	struct ntp_mon_series *r;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct ntp_mon_series *s = realloc(t->s, cap * sizeof(*s));

		if (!s)
			return NULL;
		t->s = s;
		t->cap = cap;
	}
	r = &t->s[t->n++];
	memset(r, 0, sizeof(*r));
	r->role = role;
	r->key = *key;
	return r;
}

int ntp_mon_table__read(struct ntp_mon_table *t, struct bpf_map *hists, enum ntp_mon_role role)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(hists), err = 0, cpu;
	struct ntp_mon_key key, next, *prev = NULL;
	struct ntp_mon_hist *v;
	struct ntp_mon_series *r;
	size_t i;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	/* a per-CPU map's values: one per possible CPU, each rounded up to 8 bytes (it is already) */
	v = malloc((size_t)ncpu * sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, v))
			continue;       /* gone between the two calls: never, the kernel keeps series */
		r = ntp_mon_table__add(t, role, &key);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		for (cpu = 0; cpu < ncpu; cpu++) {
			r->h.sum += v[cpu].sum;
			for (i = 0; i < NTP_MON_NBUCKETS; i++)
				r->h.bucket[i] += v[cpu].bucket[i];
		}
	}
	free(v);
	return err;
}

static int cmp_series(const void *a, const void *b)
{
	const struct ntp_mon_series *x = a, *y = b;

#define CMP(f) do { if (x->f != y->f) return x->f < y->f ? -1 : 1; } while (0)
	CMP(role);
	CMP(key.stage);
	CMP(key.ctrl);
	CMP(key.nsid);
	CMP(key.io);
	CMP(key.size_class);
#undef CMP
	return 0;
}

void ntp_mon_table__sort(struct ntp_mon_table *t)
{
	if (t->n)
		qsort(t->s, t->n, sizeof(*t->s), cmp_series);
}
