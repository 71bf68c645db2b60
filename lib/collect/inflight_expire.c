// SPDX-License-Identifier: GPL-2.0
/* The sweep of the in-flight maps (lib/collect/inflight_expire.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "lib/collect/inflight_expire.h"
#include "bpf/ntp_slots.h"

/*
 * A walk that deletes as it goes.  The next key is fetched before the
 * current one is deleted: the kernel's get_next_key of a key no longer in a
 * hash map starts over from the first bucket, which would revisit (and, for
 * a map the BPF side changes meanwhile, could loop).  Should an entry the
 * walk holds be deleted by the BPF side, that restart can still happen, so
 * the walk is bounded.
 */
#define WALK_BOUND (1L << 20)

typedef bool (*doomed_fn)(const void *key, const void *value, void *arg);

/* delete each entry doomed() says must go; taken(), if any, gets the value of each this walk deleted */
static long sweep(int fd, size_t key_size, size_t value_size, doomed_fn doomed, void *arg,
		  ntp_taken_fn taken, void *taken_arg)
{
	unsigned char key[32], next[32];
	void *value;
	long n = 0, steps = 0;
	bool more;
	int err;

	if (key_size > sizeof(key))
		return -EINVAL;
	value = malloc(value_size ? value_size : 1);
	if (!value)
		return -ENOMEM;
	err = bpf_map_get_next_key(fd, NULL, key);
	more = !err;
	if (err && errno != ENOENT) {
		n = -errno;
		goto out;
	}
	while (more && steps++ < WALK_BOUND) {
		more = !bpf_map_get_next_key(fd, key, next);
		/* gone meanwhile (completed): nothing to do */
		if (!bpf_map_lookup_elem(fd, key, value) && doomed(key, value, arg) &&
		    !bpf_map_delete_elem(fd, key)) {
			n++;
			if (taken)
				taken(value, value_size, taken_arg);
		}
		memcpy(key, next, key_size);
	}
out:
	free(value);
	return n;
}

struct age_arg {
	size_t ts_off;
	uint64_t before;        /* older than this: expired */
};

static bool too_old(const void *key, const void *value, void *arg)
{
	const struct age_arg *a = arg;
	uint64_t ts;

	(void)key;
	memcpy(&ts, (const unsigned char *)value + a->ts_off, sizeof(ts));
	return a->before == UINT64_MAX || (ts && ts < a->before);
}

long ntp_inflight__expire(int fd, size_t value_size, size_t ts_off, uint64_t now, uint64_t limit_ns)
{
	struct age_arg a = { .ts_off = ts_off, .before = now > limit_ns ? now - limit_ns : 0 };

	if (ts_off + sizeof(uint64_t) > value_size)
		return -EINVAL;
	if (!a.before)          /* nothing can be that old yet */
		return 0;
	return sweep(fd, sizeof(uint64_t), value_size, too_old, &a, NULL, NULL);
}

static unsigned char *slot_at(const struct ntp_slots_view *v, size_t i)
{
	return (unsigned char *)v->base + i * v->stride;
}

long ntp_inflight__expire_slots(const struct ntp_slots_view *v, size_t ts_off, uint64_t now,
				uint64_t limit_ns)
{
	uint64_t before = now > limit_ns ? now - limit_ns : 0, ts;
	__u64 rq;               /* the slot head's own type, for the compare-and-swap */
	long n = 0;
	size_t i;

	if (!v || !v->base)
		return 0;
	if (ts_off + sizeof(uint64_t) > v->stride)
		return -EINVAL;
	if (!before)            /* nothing can be that old yet */
		return 0;
	for (i = 0; i < v->n; i++) {
		struct ntp_rq_slot_head *h = (void *)slot_at(v, i);

		rq = __atomic_load_n(&h->rq, __ATOMIC_ACQUIRE);
		if (!rq)
			continue;
		memcpy(&ts, slot_at(v, i) + ts_off, sizeof(ts));
		if (!ts || ts >= before)
			continue;
		if (!__atomic_compare_exchange_n(&h->rq, &rq, 0, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;       /* completed or replaced meanwhile */
		n++;
	}
	return n;
}

struct orphan_arg {
	int inflight_fd;
	size_t cid_off;
	void *value;            /* value_size bytes: the inflight entry */
	const struct ntp_slots_view *slots;
};

/* rq's entry in its slot has command id cid */
static bool in_slot(const struct orphan_arg *a, uint64_t rq, uint16_t cid)
{
	const struct ntp_slots_view *v = a->slots;
	const unsigned char *s;
	uint16_t c;

	if (!v || !v->base)
		return false;
	s = slot_at(v, ntp_rq_slot(rq) % v->n);
	if (__atomic_load_n(&((const struct ntp_rq_slot_head *)s)->rq, __ATOMIC_ACQUIRE) != rq)
		return false;
	memcpy(&c, s + sizeof(struct ntp_rq_slot_head) + a->cid_off, sizeof(c));
	return c == cid;
}

static bool orphan(const void *key, const void *value, void *arg)
{
	const struct ntp_rdma_cmd_key *k = key;
	const struct orphan_arg *a = arg;
	uint64_t rq;
	uint16_t cid;

	memcpy(&rq, value, sizeof(rq));
	if (in_slot(a, rq, k->cid))
		return false;
	if (bpf_map_lookup_elem(a->inflight_fd, value, a->value))
		return errno == ENOENT;
	memcpy(&cid, (const unsigned char *)a->value + a->cid_off, sizeof(cid));
	return cid != k->cid;
}

long ntp_inflight__expire_orphans(int rdma_fd, int inflight_fd, size_t value_size, size_t cid_off,
				  const struct ntp_slots_view *slots)
{
	struct orphan_arg a = { .inflight_fd = inflight_fd, .cid_off = cid_off, .slots = slots };
	long n;

	if (cid_off + sizeof(uint16_t) > value_size)
		return -EINVAL;
	a.value = malloc(value_size);
	if (!a.value)
		return -ENOMEM;
	n = sweep(rdma_fd, sizeof(struct ntp_rdma_cmd_key), sizeof(uint64_t), orphan, &a, NULL, NULL);
	free(a.value);
	return n;
}

long ntp_inflight__take(int fd, size_t key_size, size_t value_size, size_t ts_off, uint64_t now,
			uint64_t limit_ns, ntp_taken_fn taken, void *arg)
{
	struct age_arg a = { .ts_off = ts_off };

	if (ts_off + sizeof(uint64_t) > value_size)
		return -EINVAL;
	if (limit_ns == NTP_INFLIGHT_ALL)
		a.before = UINT64_MAX;
	else if (now > limit_ns)
		a.before = now - limit_ns;
	else
		return 0;       /* nothing can be that old yet */
	return sweep(fd, key_size, value_size, too_old, &a, taken, arg);
}

long ntp_inflight__take_slots(const struct ntp_slots_view *v, size_t rec_off, size_t rec_size,
			      size_t ts_off, uint64_t now, uint64_t limit_ns, ntp_taken_fn taken,
			      void *arg)
{
	uint64_t before, ts;
	unsigned char *rec;
	__u64 owner;
	long n = 0;
	size_t i;

	if (!v || !v->base)
		return 0;
	if (rec_off < sizeof(struct ntp_rq_slot_head) || rec_off + rec_size > v->stride ||
	    ts_off + sizeof(uint64_t) > rec_size)
		return -EINVAL;
	if (limit_ns == NTP_INFLIGHT_ALL)
		before = UINT64_MAX;
	else if (now > limit_ns)
		before = now - limit_ns;
	else
		return 0;       /* nothing can be that old yet */
	rec = malloc(rec_size);
	if (!rec)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		struct ntp_rq_slot_head *h = (void *)slot_at(v, i);

		owner = __atomic_load_n(&h->rq, __ATOMIC_ACQUIRE);
		if (!owner)
			continue;
		memcpy(rec, slot_at(v, i) + rec_off, rec_size);
		memcpy(&ts, rec + ts_off, sizeof(ts));
		if (before != UINT64_MAX && (!ts || ts >= before))
			continue;
		if (!__atomic_compare_exchange_n(&h->rq, &owner, 0, false, __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST))
			continue;       /* taken by the BPF side meanwhile */
		n++;
		if (taken)
			taken(rec, rec_size, arg);
	}
	free(rec);
	return n;
}
