// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's window (lib/monitor/mon_flight.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/monitor/mon_flight.h"

/* the larger record: a heap's swaps go through one on the stack */
#define MAX_ESZ (sizeof(struct ntp_host_event) > sizeof(struct ntp_target_event) ? \
		 sizeof(struct ntp_host_event) : sizeof(struct ntp_target_event))

static int side_init(struct ntp_flight_side *s, size_t esz, size_t cap, size_t nslot,
		     size_t start_off, size_t done_off, size_t done_alt_off)
{
	memset(s, 0, sizeof(*s));
	s->buf = calloc(nslot * cap, esz);
	s->n = calloc(nslot, sizeof(*s->n));
	s->iv = calloc(nslot, sizeof(*s->iv));
	s->dirty = calloc(nslot, sizeof(*s->dirty));
	if (!s->buf || !s->n || !s->iv || !s->dirty)
		return -ENOMEM;
	s->esz = esz;
	s->cap = cap;
	s->nslot = nslot;
	s->start_off = start_off;
	s->done_off = done_off;
	s->done_alt_off = done_alt_off;
	return 0;
}

static void side_free(struct ntp_flight_side *s)
{
	free(s->buf);
	free(s->n);
	free(s->iv);
	free(s->dirty);
	memset(s, 0, sizeof(*s));
}

static uint64_t u64_at(const void *rec, size_t off)
{
	uint64_t v;

	memcpy(&v, (const unsigned char *)rec + off, sizeof(v));
	return v;
}

static uint64_t done_of(const struct ntp_flight_side *s, const void *rec)
{
	uint64_t t = u64_at(rec, s->done_off);

	return t ? t : u64_at(rec, s->done_alt_off);
}

/* the heap's key: end-to-end, 0 when a stamp is missing */
static uint64_t e2e_of(const struct ntp_flight_side *s, const void *rec)
{
	uint64_t start = u64_at(rec, s->start_off), done = done_of(s, rec);

	return start && done > start ? done - start : 0;
}

static unsigned char *rec_at(const struct ntp_flight_side *s, size_t slot, size_t i)
{
	return s->buf + (slot * s->cap + i) * s->esz;
}

static void swap(const struct ntp_flight_side *s, unsigned char *a, unsigned char *b)
{
	unsigned char t[MAX_ESZ];

	memcpy(t, a, s->esz);
	memcpy(a, b, s->esz);
	memcpy(b, t, s->esz);
}

static void sift_up(const struct ntp_flight_side *s, size_t slot, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		unsigned char *a = rec_at(s, slot, i), *b = rec_at(s, slot, p);

		if (e2e_of(s, b) <= e2e_of(s, a))
			break;
		swap(s, a, b);
		i = p;
	}
}

static void sift_down(const struct ntp_flight_side *s, size_t slot, size_t i)
{
	size_t n = s->n[slot];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && e2e_of(s, rec_at(s, slot, l)) < e2e_of(s, rec_at(s, slot, m)))
			m = l;
		if (r < n && e2e_of(s, rec_at(s, slot, r)) < e2e_of(s, rec_at(s, slot, m)))
			m = r;
		if (m == i)
			return;
		swap(s, rec_at(s, slot, i), rec_at(s, slot, m));
		i = m;
	}
}

static void slot_clear(struct ntp_flight_side *s, size_t slot)
{
	s->held -= s->n[slot];
	s->aged += s->n[slot];
	s->n[slot] = 0;
	s->iv[slot] = 0;
	s->dirty[slot] = true;
}

static void side_add(struct ntp_flight_side *s, uint64_t interval_ns, const void *rec)
{
	uint64_t iv = done_of(s, rec) / interval_ns + 1;
	size_t slot = iv % s->nslot;

	s->added++;
	if (s->iv[slot] > iv) {
		/* its interval's slot holds a later one: the record is older than the window */
		s->late++;
		return;
	}
	if (s->iv[slot] < iv) {
		slot_clear(s, slot);
		s->iv[slot] = iv;
	}
	if (s->n[slot] < s->cap) {
		memcpy(rec_at(s, slot, s->n[slot]), rec, s->esz);
		s->n[slot]++;
		s->held++;
		sift_up(s, slot, s->n[slot] - 1);
	} else if (e2e_of(s, rec) > e2e_of(s, rec_at(s, slot, 0))) {
		/* the interval's fastest kept gives its place */
		memcpy(rec_at(s, slot, 0), rec, s->esz);
		sift_down(s, slot, 0);
		s->dropped++;
	} else {
		s->dropped++;
		return;
	}
	s->dirty[slot] = true;
}

/*
 * Intervals that ended before since go whole; the one that holds since
 * loses the records completed before it, and is a heap again
 */
static void side_trim(struct ntp_flight_side *s, uint64_t interval_ns, uint64_t since)
{
	size_t slot, i, k;

	for (slot = 0; slot < s->nslot; slot++) {
		uint64_t iv = s->iv[slot];

		if (!iv)
			continue;
		if (iv * interval_ns <= since) {
			slot_clear(s, slot);
			continue;
		}
		if ((iv - 1) * interval_ns >= since)
			continue;
		for (i = k = 0; i < s->n[slot]; i++) {
			unsigned char *r = rec_at(s, slot, i);

			if (done_of(s, r) < since)
				continue;
			if (k != i)
				memcpy(rec_at(s, slot, k), r, s->esz);
			k++;
		}
		if (k == s->n[slot])
			continue;
		s->held -= s->n[slot] - k;
		s->aged += s->n[slot] - k;
		s->n[slot] = (uint32_t)k;
		s->dirty[slot] = true;
		for (i = k / 2; i-- > 0;)
			sift_down(s, slot, i);
	}
}

/* the slot of the newest interval */
static size_t newest_slot(const struct ntp_flight_side *s)
{
	size_t slot, newest = 0;

	for (slot = 1; slot < s->nslot; slot++)
		if (s->iv[slot] > s->iv[newest])
			newest = slot;
	return newest;
}

/* the slot that follows the newest interval's: the oldest, slots being taken by iv % nslot */
static size_t first_slot(const struct ntp_flight_side *s)
{
	return (newest_slot(s) + 1) % s->nslot;
}

static const void *side_next(const struct ntp_flight_side *s, struct ntp_flight_cursor *c)
{
	if (!c->started) {
		c->started = true;
		c->first = first_slot(s);
		c->k = c->i = 0;
	}
	while (c->k < s->nslot) {
		size_t slot = (c->first + c->k) % s->nslot;

		if (c->i < s->n[slot])
			return rec_at(s, slot, c->i++);
		c->k++;
		c->i = 0;
	}
	return NULL;
}

/* the i-th record held, oldest interval first */
static const void *side_at(const struct ntp_flight_side *s, size_t i)
{
	struct ntp_flight_cursor c = { 0 };
	size_t k;

	if (i >= s->held)
		return NULL;
	c.started = true;
	c.first = first_slot(s);
	for (k = 0; k < s->nslot; k++) {
		size_t slot = (c.first + k) % s->nslot;

		if (i < s->n[slot])
			return rec_at(s, slot, i);
		i -= s->n[slot];
	}
	return NULL;
}

/* a tick a second over the window, and the one before it */
static size_t ticks_for(uint64_t window_ns)
{
	return (size_t)(window_ns / 1000000000ULL) + 3;
}

int ntp_flight__init(struct ntp_flight *f, uint64_t window_ns, uint64_t interval_ns, size_t max)
{
	size_t nslot;

	memset(f, 0, sizeof(*f));
	if (!max || !interval_ns || max > UINT32_MAX)
		return -EINVAL;
	f->window_ns = window_ns;
	f->interval_ns = interval_ns;
	nslot = (size_t)((window_ns + interval_ns - 1) / interval_ns) + 1;
	f->tick_cap = ticks_for(window_ns);
	f->tick = calloc(f->tick_cap, sizeof(*f->tick));
	if (!f->tick ||
	    side_init(&f->host, sizeof(struct ntp_host_event), max, nslot,
		      offsetof(struct ntp_host_event, h_start), offsetof(struct ntp_host_event, h_done),
		      offsetof(struct ntp_host_event, h_recv)) ||
	    side_init(&f->target, sizeof(struct ntp_target_event), max, nslot,
		      offsetof(struct ntp_target_event, t_recv),
		      offsetof(struct ntp_target_event, t_sent),
		      offsetof(struct ntp_target_event, t_cmpl))) {
		ntp_flight__free(f);
		return -ENOMEM;
	}
	return 0;
}

void ntp_flight__free(struct ntp_flight *f)
{
	side_free(&f->host);
	side_free(&f->target);
	free(f->tick);
	f->tick = NULL;
	f->ntick = 0;
}

void ntp_flight__add_host(struct ntp_flight *f, const struct ntp_host_event *e)
{
	side_add(&f->host, f->interval_ns, e);
}

void ntp_flight__add_target(struct ntp_flight *f, const struct ntp_target_event *e)
{
	side_add(&f->target, f->interval_ns, e);
}

const struct ntp_flight_tick *ntp_flight__tick_at(const struct ntp_flight *f, size_t i)
{
	return i < f->ntick ? &f->tick[(f->tick_head + i) % f->tick_cap] : NULL;
}

void ntp_flight__tick(struct ntp_flight *f, const struct ntp_flight_tick *t)
{
	if (f->ntick == f->tick_cap) {
		f->tick_head = (f->tick_head + 1) % f->tick_cap;
		f->ntick--;
	}
	f->tick[(f->tick_head + f->ntick) % f->tick_cap] = *t;
	f->ntick++;
}

void ntp_flight__trim(struct ntp_flight *f, uint64_t now_ns)
{
	uint64_t since = now_ns > f->window_ns ? now_ns - f->window_ns : 0;

	side_trim(&f->host, f->interval_ns, since);
	side_trim(&f->target, f->interval_ns, since);
	/* the interval that holds the window's start keeps its first tick */
	while (f->ntick >= 2 && ntp_flight__tick_at(f, 1)->t_ns <= since) {
		f->tick_head = (f->tick_head + 1) % f->tick_cap;
		f->ntick--;
	}
}

const struct ntp_host_event *ntp_flight__host(const struct ntp_flight *f, size_t i)
{
	return side_at(&f->host, i);
}

const struct ntp_target_event *ntp_flight__target(const struct ntp_flight *f, size_t i)
{
	return side_at(&f->target, i);
}

const struct ntp_host_event *ntp_flight__next_host(const struct ntp_flight *f,
						  struct ntp_flight_cursor *c)
{
	return side_next(&f->host, c);
}

const struct ntp_target_event *ntp_flight__next_target(const struct ntp_flight *f,
						      struct ntp_flight_cursor *c)
{
	return side_next(&f->target, c);
}

uint64_t ntp_flight__floor(const struct ntp_flight *f, int side)
{
	const struct ntp_flight_side *s = side ? &f->target : &f->host;
	size_t newest;

	if (f->interval_ns != NTP_MON_FLIGHT_INTERVAL_NS || !s->nslot)
		return 0;
	newest = newest_slot(s);
	if (!s->iv[newest] || s->n[newest] < s->cap)
		return 0;
	return ntp_mon_floor_pack(s->iv[newest], e2e_of(s, rec_at(s, newest, 0)));
}

uint64_t ntp_flight__dropped(const struct ntp_flight *f)
{
	return f->host.dropped + f->host.late + f->host.filtered +
	       f->target.dropped + f->target.late + f->target.filtered;
}
