// SPDX-License-Identifier: GPL-2.0
/* Ring-buffer and counter reading shared by the collectors (lib/collect/bpf_reader.h). */
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "lib/collect/bpf_reader.h"

int ntp_reader__poll(struct ring_buffer *rb, int timeout_ms, const int *stop, int *stop_code)
{
	int n;

	*stop_code = 0;
	n = ring_buffer__poll(rb, timeout_ms);
	if (n >= 0 || n == -EINTR) {
		int m = ring_buffer__consume(rb);

		n = m < 0 ? m : (n > 0 ? n : 0) + m;
	}
	if (n == -ECANCELED) {
		*stop_code = *stop;
		return -1;
	}
	if (n == -EINTR)
		return 0;
	if (n < 0) {
		errno = -n;
		return -1;
	}
	return n;
}

int ntp_reader__sum_counters(const struct bpf_map *map, uint64_t *cnt, unsigned int n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;
	unsigned int key;
	int i, err = 0;

	if (ncpu <= 0)
		return -1;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -1;
	for (key = 0; key < n; key++) {
		cnt[key] = 0;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), v, ncpu * sizeof(*v), 0)) {
			err = -1;
			continue;
		}
		for (i = 0; i < ncpu; i++)
			cnt[key] += v[i];
	}
	free(v);
	return err;
}
