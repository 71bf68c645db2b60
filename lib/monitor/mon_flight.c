// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's window (lib/monitor/mon_flight.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/monitor/mon_flight.h"

static int ring_init(struct ntp_flight_ring *r, size_t esz, size_t cap, size_t done_off,
		     size_t done_alt_off)
{
	memset(r, 0, sizeof(*r));
	r->buf = calloc(cap, esz);
	if (!r->buf)
		return -ENOMEM;
	r->esz = esz;
	r->cap = cap;
	r->done_off = done_off;
	r->done_alt_off = done_alt_off;
	return 0;
}

static void *slot(const struct ntp_flight_ring *r, size_t i)
{
	return r->buf + ((r->head + i) % r->cap) * r->esz;
}

static uint64_t done_of(const struct ntp_flight_ring *r, const void *rec)
{
	uint64_t t, alt;

	memcpy(&t, (const unsigned char *)rec + r->done_off, sizeof(t));
	memcpy(&alt, (const unsigned char *)rec + r->done_alt_off, sizeof(alt));
	return t ? t : alt;
}

static void ring_add(struct ntp_flight_ring *r, const void *rec)
{
	if (r->n == r->cap) {
		r->head = (r->head + 1) % r->cap;
		r->n--;
		r->dropped++;
	}
	memcpy(slot(r, r->n), rec, r->esz);
	r->n++;
	r->added++;
}

/*
 * Records arrive in about the order they complete, not exactly (each CPU
 * hands its own over): the oldest go while they are older than the window,
 * and one a little younger ahead of an older one keeps it in a moment more.
 */
static void ring_trim(struct ntp_flight_ring *r, uint64_t since)
{
	while (r->n && done_of(r, slot(r, 0)) < since) {
		r->head = (r->head + 1) % r->cap;
		r->n--;
	}
}

/* a tick a second over the window, and the one before it */
static size_t ticks_for(uint64_t window_ns)
{
	return (size_t)(window_ns / 1000000000ULL) + 3;
}

int ntp_flight__init(struct ntp_flight *f, uint64_t window_ns, size_t max)
{
	memset(f, 0, sizeof(*f));
	f->window_ns = window_ns;
	if (!max)
		return -EINVAL;
	f->tick_cap = ticks_for(window_ns);
	f->tick = calloc(f->tick_cap, sizeof(*f->tick));
	if (!f->tick)
		return -ENOMEM;
	if (ring_init(&f->host, sizeof(struct ntp_host_event), max,
		      offsetof(struct ntp_host_event, h_done), offsetof(struct ntp_host_event, h_recv)) ||
	    ring_init(&f->target, sizeof(struct ntp_target_event), max,
		      offsetof(struct ntp_target_event, t_sent),
		      offsetof(struct ntp_target_event, t_cmpl))) {
		ntp_flight__free(f);
		return -ENOMEM;
	}
	return 0;
}

void ntp_flight__free(struct ntp_flight *f)
{
	free(f->host.buf);
	free(f->target.buf);
	free(f->tick);
	f->tick = NULL;
	f->ntick = 0;
	f->host.buf = f->target.buf = NULL;
	f->host.n = f->target.n = 0;
}

void ntp_flight__add_host(struct ntp_flight *f, const struct ntp_host_event *e)
{
	ring_add(&f->host, e);
}

void ntp_flight__add_target(struct ntp_flight *f, const struct ntp_target_event *e)
{
	ring_add(&f->target, e);
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

	ring_trim(&f->host, since);
	ring_trim(&f->target, since);
	/* the interval that holds the window's start keeps its first tick */
	while (f->ntick >= 2 && ntp_flight__tick_at(f, 1)->t_ns <= since) {
		f->tick_head = (f->tick_head + 1) % f->tick_cap;
		f->ntick--;
	}
}

const struct ntp_host_event *ntp_flight__host(const struct ntp_flight *f, size_t i)
{
	return i < f->host.n ? slot(&f->host, i) : NULL;
}

const struct ntp_target_event *ntp_flight__target(const struct ntp_flight *f, size_t i)
{
	return i < f->target.n ? slot(&f->target, i) : NULL;
}
