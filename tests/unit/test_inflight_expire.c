// SPDX-License-Identifier: GPL-2.0
/*
 * lib/collect/inflight_expire.c on real BPF hash maps, created from user space as
 * the collectors' maps are (no program needed): old entries go, new ones
 * and those without a timestamp stay, an empty map is no error, a walk that
 * deletes every entry misses none, and the RDMA sweep keeps exactly the
 * (qp, cid) entries whose request is in flight with that command id.  The
 * parked records' take (16-byte keys as app_aio's) hands over each deleted
 * record once, the old ones on a sweep and all of them at the stop; so does
 * the take of parked records kept in slots (app_aio_slots), whose owners it
 * frees and whose free slots it leaves.
 * The host's per-request slots (plain memory here, a mapping of the BPF
 * array in record) lose their old owners only, and the RDMA sweep finds a
 * command in its slot as in the map.
 * Creating a map needs root (CAP_BPF): without it each test is skipped,
 * saying why.  CI runs as root.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <cmocka.h>

#include "bpf/ntp_events.h"
#include "bpf/ntp_slots.h"
#include "lib/collect/inflight_expire.h"

#define S 1000000000ULL
#define NOW (10000 * S)
#define MAX 16384

/* as bpf/host.bpf.c's struct inflight: the event first */
struct value {
	struct ntp_host_event ev;
	uint64_t alloc_ns;
};

static int make_map(size_t key_size, size_t value_size)
{
	int fd;

	if (geteuid() != 0) {
		fprintf(stderr, "skipped: creating a BPF map needs root (CI runs as root)\n");
		skip();
	}
	/* as root a refusal is a failure: every collector needs maps */
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ntp_test", key_size, value_size, MAX, NULL);
	if (fd < 0)
		fail_msg("bpf_map_create: %s", strerror(errno));
	return fd;
}

static void put(int fd, uint64_t key, uint64_t h_queue, uint16_t cid)
{
	struct value v = { 0 };

	v.ev.h_queue = h_queue;
	v.ev.cid = cid;
	assert_int_equal(bpf_map_update_elem(fd, &key, &v, BPF_NOEXIST), 0);
}

static bool has(int fd, const void *key)
{
	struct value v;

	return bpf_map_lookup_elem(fd, key, &v) == 0;
}

static unsigned int count(int fd, size_t key_size)
{
	unsigned char k[16], n[16];
	unsigned int c = 0;

	if (bpf_map_get_next_key(fd, NULL, k))
		return 0;
	do {
		c++;
		if (bpf_map_get_next_key(fd, k, n))
			break;
		memcpy(k, n, key_size);
	} while (c < 2 * MAX);
	return c;
}

static long expire(int fd)
{
	return ntp_inflight__expire(fd, sizeof(struct value), offsetof(struct value, ev.h_queue),
				    NOW, NTP_INFLIGHT_EXPIRE_NS);
}

/* old and new interleaved in key (and so in no particular bucket) order */
static void test_old_go_new_stay(void **state)
{
	int fd = make_map(sizeof(uint64_t), sizeof(struct value));
	uint64_t k;

	(void)state;
	for (k = 1; k <= 1000; k++)
		put(fd, k, k % 2 ? NOW - NTP_INFLIGHT_EXPIRE_NS - S : NOW - S, 0);
	put(fd, 5000, NOW - NTP_INFLIGHT_EXPIRE_NS, 0);        /* exactly the limit: stays */
	put(fd, 5001, 0, 0);                                    /* no timestamp: not ours to judge */
	put(fd, 5002, NOW + S, 0);                              /* later than now (a racing insert) */
	assert_int_equal(expire(fd), 500);
	for (k = 1; k <= 1000; k++)
		assert_int_equal(has(fd, &k), !(k % 2));
	k = 5000;
	assert_true(has(fd, &k));
	k = 5001;
	assert_true(has(fd, &k));
	k = 5002;
	assert_true(has(fd, &k));
	assert_int_equal(count(fd, sizeof(k)), 503);
	assert_int_equal(expire(fd), 0);                        /* a second sweep finds nothing */
	close(fd);
}

static void test_empty(void **state)
{
	int fd = make_map(sizeof(uint64_t), sizeof(struct value));

	(void)state;
	assert_int_equal(expire(fd), 0);
	close(fd);
}

/* every entry deleted during one walk of a full map: none skipped, none twice */
static void test_delete_all_while_walking(void **state)
{
	int fd = make_map(sizeof(uint64_t), sizeof(struct value));
	uint64_t k;

	(void)state;
	for (k = 0; k < MAX; k++)
		put(fd, 0x10000 + k * 64, S, 0);        /* pointer-like keys */
	assert_int_equal(count(fd, sizeof(k)), MAX);
	assert_int_equal(expire(fd), MAX);
	assert_int_equal(count(fd, sizeof(k)), 0);
	close(fd);
}

/* too early in the clock for anything to be that old; a bad offset */
static void test_limits(void **state)
{
	int fd = make_map(sizeof(uint64_t), sizeof(struct value));
	uint64_t k = 1;

	(void)state;
	put(fd, k, 1, 0);
	assert_int_equal(ntp_inflight__expire(fd, sizeof(struct value), offsetof(struct value, ev.h_queue),
					      S, NTP_INFLIGHT_EXPIRE_NS), 0);
	assert_int_equal(ntp_inflight__expire(fd, sizeof(struct value), sizeof(struct value) - 4,
					      NOW, NTP_INFLIGHT_EXPIRE_NS), -EINVAL);
	assert_true(has(fd, &k));
	close(fd);
}

static void rdma_put(int fd, uint64_t qp, uint32_t cid, uint64_t rq)
{
	struct ntp_rdma_cmd_key k = { .qp = qp, .cid = cid };

	assert_int_equal(bpf_map_update_elem(fd, &k, &rq, BPF_NOEXIST), 0);
}

static bool rdma_has(int fd, uint64_t qp, uint32_t cid)
{
	struct ntp_rdma_cmd_key k = { .qp = qp, .cid = cid };
	uint64_t rq;

	return bpf_map_lookup_elem(fd, &k, &rq) == 0;
}

static void test_rdma_orphans(void **state)
{
	int in = make_map(sizeof(uint64_t), sizeof(struct value));
	int rd = make_map(sizeof(struct ntp_rdma_cmd_key), sizeof(uint64_t));
	uint32_t i;

	(void)state;
	put(in, 0xa000, NOW, 7);
	put(in, 0xb000, NOW, 0x1009);
	rdma_put(rd, 1, 7, 0xa000);             /* live: kept */
	rdma_put(rd, 1, 9, 0xb000);             /* the request reused under cid 0x1009: stale */
	rdma_put(rd, 1, 0x1009, 0xb000);        /* its live entry: kept */
	rdma_put(rd, 2, 7, 0xc000);             /* request no longer in flight: stale */
	for (i = 100; i < 1100; i++)            /* many stale ones, deleted while walking */
		rdma_put(rd, 3, i, 0xd000 + i);
	assert_int_equal(ntp_inflight__expire_orphans(rd, in, sizeof(struct value),
						      offsetof(struct value, ev.cid), NULL), 1002);
	assert_true(rdma_has(rd, 1, 7));
	assert_true(rdma_has(rd, 1, 0x1009));
	assert_false(rdma_has(rd, 1, 9));
	assert_false(rdma_has(rd, 2, 7));
	assert_int_equal(count(rd, sizeof(struct ntp_rdma_cmd_key)), 2);
	assert_int_equal(count(in, sizeof(uint64_t)), 2);       /* inflight untouched */
	close(rd);
	close(in);
}

/* as bpf/host_app.bpf.h's app_aio key: (ring, obj) */
struct key16 {
	uint64_t ring, obj;
};

struct taken {
	unsigned int n;
	uint64_t sum_cid;
	size_t size;
};

static void took(const void *value, size_t size, void *arg)
{
	const struct ntp_host_event *ev = value;
	struct taken *t = arg;

	t->n++;
	t->sum_cid += ev->cid;
	t->size = size;
}

static void park(int fd, uint64_t obj, uint64_t h_done)
{
	struct key16 k = { .ring = 0x7f00, .obj = obj };
	struct ntp_host_event ev = { .h_done = h_done, .cid = (uint16_t)obj };

	assert_int_equal(bpf_map_update_elem(fd, &k, &ev, BPF_NOEXIST), 0);
}

static long take(int fd, uint64_t limit, struct taken *t)
{
	return ntp_inflight__take(fd, sizeof(struct key16), sizeof(struct ntp_host_event),
				  offsetof(struct ntp_host_event, h_done), NOW, limit, took, t);
}

static void test_parked_take(void **state)
{
	int fd = make_map(sizeof(struct key16), sizeof(struct ntp_host_event));
	struct taken t = { 0 };
	uint64_t i;

	(void)state;
	for (i = 1; i <= 300; i++)              /* a third waited too long */
		park(fd, i, i % 3 ? NOW - S : NOW - NTP_PARKED_EXPIRE_NS - S);
	assert_int_equal(take(fd, NTP_PARKED_EXPIRE_NS, &t), 100);
	assert_int_equal(t.n, 100);
	assert_int_equal(t.sum_cid, 3 * (100 * 101 / 2));       /* 3 + 6 + ... + 300 */
	assert_int_equal(t.size, sizeof(struct ntp_host_event));
	assert_int_equal(count(fd, sizeof(struct key16)), 200);
	memset(&t, 0, sizeof(t));
	assert_int_equal(take(fd, NTP_PARKED_EXPIRE_NS, &t), 0);        /* none twice */
	assert_int_equal(t.n, 0);
	/* the stop: every one left, whatever its age */
	assert_int_equal(take(fd, NTP_INFLIGHT_ALL, &t), 200);
	assert_int_equal(t.n, 200);
	assert_int_equal(t.sum_cid, 300 * 301 / 2 - 3 * (100 * 101 / 2));
	assert_int_equal(count(fd, sizeof(struct key16)), 0);
	/* a bad offset; a clock too early for anything to be old */
	park(fd, 1, 1);
	assert_int_equal(ntp_inflight__take(fd, sizeof(struct key16), sizeof(struct ntp_host_event),
					    sizeof(struct ntp_host_event) - 4, NOW, NTP_INFLIGHT_ALL,
					    took, &t), -EINVAL);
	assert_int_equal(ntp_inflight__take(fd, sizeof(struct key16), sizeof(struct ntp_host_event),
					    offsetof(struct ntp_host_event, h_done), S,
					    NTP_PARKED_EXPIRE_NS, took, &t), 0);
	assert_int_equal(count(fd, sizeof(struct key16)), 1);
	close(fd);
}

/* as bpf/host.bpf.c's struct rq_slot */
struct slot {
	struct ntp_rq_slot_head h;
	struct value v;
};

#define NSLOTS 64

static struct slot *slot_of(struct slot *slots, uint64_t rq)
{
	return &slots[ntp_rq_slot(rq) % NSLOTS];
}

static void slot_put(struct slot *slots, uint64_t rq, uint64_t h_queue, uint16_t cid)
{
	struct slot *s = slot_of(slots, rq);

	s->h.rq = rq;
	s->v.ev.h_queue = h_queue;
	s->v.ev.cid = cid;
}

static long expire_slots(struct slot *slots, uint64_t now)
{
	struct ntp_slots_view v = { .base = slots, .n = NSLOTS, .stride = sizeof(*slots) };

	return ntp_inflight__expire_slots(&v, sizeof(struct ntp_rq_slot_head) +
					  offsetof(struct value, ev.h_queue), now, 120 * S);
}

static void test_slots_old_go_new_stay(void **state)
{
	static struct slot slots[NSLOTS];
	struct ntp_slots_view none = { 0 }, bad = { .base = slots, .n = NSLOTS, .stride = 8 };

	(void)state;
	memset(slots, 0, sizeof(slots));
	slot_put(slots, 0x1000, NOW - 200 * S, 1);      /* old: goes */
	slot_put(slots, 0x1100, NOW - 1 * S, 2);        /* new: stays */
	slot_put(slots, 0x1200, 0, 3);                  /* no timestamp yet: stays */
	assert_int_equal(expire_slots(slots, NOW), 1);
	assert_int_equal(slot_of(slots, 0x1000)->h.rq, 0);
	assert_int_equal(slot_of(slots, 0x1100)->h.rq, 0x1100);
	assert_int_equal(slot_of(slots, 0x1200)->h.rq, 0x1200);
	/* again: nothing left that old; too early for anything to be that old */
	assert_int_equal(expire_slots(slots, NOW), 0);
	assert_int_equal(expire_slots(slots, 100 * S), 0);
	/* no slots mapped: nothing to do; an offset past the slot: refused */
	assert_int_equal(ntp_inflight__expire_slots(&none, 0, NOW, 120 * S), 0);
	assert_int_equal(ntp_inflight__expire_slots(&bad, 8, NOW, 120 * S), -EINVAL);
}

static void test_rdma_orphans_in_slots(void **state)
{
	static struct slot slots[NSLOTS];
	struct ntp_slots_view v = { .base = slots, .n = NSLOTS, .stride = sizeof(*slots) };
	int in = make_map(sizeof(uint64_t), sizeof(struct value));
	int rd = make_map(sizeof(struct ntp_rdma_cmd_key), sizeof(uint64_t));

	(void)state;
	memset(slots, 0, sizeof(slots));
	slot_put(slots, 0xa000, NOW, 7);
	put(in, 0xb000, NOW, 9);
	rdma_put(rd, 1, 7, 0xa000);             /* in its slot: kept */
	rdma_put(rd, 1, 9, 0xb000);             /* in the map: kept */
	rdma_put(rd, 1, 8, 0xa000);             /* its slot holds another command id: stale */
	rdma_put(rd, 2, 7, 0xc000);             /* in neither: stale */
	assert_int_equal(ntp_inflight__expire_orphans(rd, in, sizeof(struct value),
						      offsetof(struct value, ev.cid), &v), 2);
	assert_true(rdma_has(rd, 1, 7));
	assert_true(rdma_has(rd, 1, 9));
	assert_false(rdma_has(rd, 1, 8));
	assert_false(rdma_has(rd, 2, 7));
	close(in);
	close(rd);
}

/* as bpf/host_app.bpf.h's struct app_aio_slot: the head (owner, ring), then the record */
struct app_slot {
	struct ntp_app_slot_head h;
	struct ntp_host_event ev;
};

static long take_slots(struct app_slot *slots, size_t n, uint64_t now, uint64_t limit,
		       struct taken *t)
{
	struct ntp_slots_view v = { .base = slots, .n = n, .stride = sizeof(*slots) };

	return ntp_inflight__take_slots(&v, sizeof(struct ntp_app_slot_head),
					sizeof(struct ntp_host_event),
					offsetof(struct ntp_host_event, h_done), now, limit, took, t);
}

static void test_parked_take_slots(void **state)
{
	static struct app_slot slots[300];
	struct ntp_slots_view none = { 0 }, v = { .base = slots, .n = 300, .stride = sizeof(*slots) };
	struct taken t = { 0 };
	uint64_t i;

	(void)state;
	memset(slots, 0, sizeof(slots));
	for (i = 1; i < 300; i++) {             /* slot 0 free; a third waited too long */
		slots[i].h.obj = 0x7f0000 + 64 * i;
		slots[i].h.ring = 0x7e00;
		slots[i].ev.cid = (uint16_t)i;
		slots[i].ev.h_done = i % 3 ? NOW - S : NOW - NTP_PARKED_EXPIRE_NS - S;
	}
	slots[0].ev.h_done = 1;                 /* a free slot's old bytes: never taken */
	assert_int_equal(take_slots(slots, 300, NOW, NTP_PARKED_EXPIRE_NS, &t), 99);
	assert_int_equal(t.n, 99);
	assert_int_equal(t.sum_cid, 3 * (99 * 100 / 2));        /* 3 + 6 + ... + 297 */
	assert_int_equal(t.size, sizeof(struct ntp_host_event));
	for (i = 1; i < 300; i++)
		assert_int_equal(slots[i].h.obj, i % 3 ? 0x7f0000 + 64 * i : 0);
	memset(&t, 0, sizeof(t));
	assert_int_equal(take_slots(slots, 300, NOW, NTP_PARKED_EXPIRE_NS, &t), 0); /* none twice */
	assert_int_equal(take_slots(slots, 300, S, NTP_PARKED_EXPIRE_NS, &t), 0);   /* too early */
	assert_int_equal(t.n, 0);
	/* the stop: every one left, whatever its age */
	assert_int_equal(take_slots(slots, 300, NOW, NTP_INFLIGHT_ALL, &t), 200);
	assert_int_equal(t.sum_cid, 299 * 300 / 2 - 3 * (99 * 100 / 2));
	for (i = 0; i < 300; i++)
		assert_int_equal(slots[i].h.obj, 0);
	/* no slots mapped: nothing; a record past the slot or a time past the record: refused */
	assert_int_equal(ntp_inflight__take_slots(&none, 16, 8, 0, NOW, NTP_INFLIGHT_ALL, took, &t), 0);
	assert_int_equal(ntp_inflight__take_slots(&v, 16, sizeof(*slots), 0, NOW, NTP_INFLIGHT_ALL,
						  took, &t), -EINVAL);
	assert_int_equal(ntp_inflight__take_slots(&v, 16, sizeof(struct ntp_host_event),
						  sizeof(struct ntp_host_event) - 4, NOW,
						  NTP_INFLIGHT_ALL, took, &t), -EINVAL);
	assert_int_equal(ntp_inflight__take_slots(&v, 0, 8, 0, NOW, NTP_INFLIGHT_ALL, took, &t),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_go_new_stay),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_delete_all_while_walking),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_rdma_orphans),
		cmocka_unit_test(test_slots_old_go_new_stay),
		cmocka_unit_test(test_rdma_orphans_in_slots),
		cmocka_unit_test(test_parked_take),
		cmocka_unit_test(test_parked_take_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
