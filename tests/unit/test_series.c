// SPDX-License-Identifier: GPL-2.0
/*
 * lib/series/series_acc.c: which interval a command falls in (floor
 * division, so a command before the origin is in interval -1, not 0), when
 * an interval ends (another interval or another file), the groups of an
 * interval in report's order, each interval's own samples only, and the
 * rate over the part of the last interval inside the recording.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/series/series_acc.h"

struct seen {
	int file;
	int64_t interval, start, covered;
	char io_type[8], ns[16];
	int64_t bytes;
	size_t n;
	int64_t min, max, p99, stage0_max;
	double rate;
};

struct capture {
	struct seen p[32];
	int n;
	int begins, ends;
};

static int cap_point(void *ctx, const struct ntp_series *s, const struct ntp_series_point *p)
{
	struct capture *c = ctx;
	struct seen *e = &c->p[c->n++];

	(void)s;
	assert_true(c->n <= 32);
	e->file = p->g->host_file;
	e->interval = p->interval;
	e->start = p->start_ns;
	e->covered = p->covered_ns;
	snprintf(e->io_type, sizeof(e->io_type), "%s", p->g->io_type);
	snprintf(e->ns, sizeof(e->ns), "%s", p->g->ns);
	e->bytes = p->g->bytes;
	e->n = p->g->e2e.n;
	e->min = p->g->e2e.min;
	e->max = p->g->e2e.max;
	e->p99 = p->g->e2e.pct[2];      /* the default list: 50, 90, 99, 99.9 */
	e->stage0_max = p->g->stage[0].max;
	e->rate = p->g->est_rate;
	return 0;
}

static void setup_series(struct ntp_series *s, struct ntp_report_file *files, int nfiles)
{
	memset(s, 0, sizeof(*s));
	memset(files, 0, sizeof(*files) * nfiles);
	s->r.files = files;
	s->r.nfiles = nfiles;
	s->interval_ns = 100;
	for (int i = 0; i < nfiles; i++) {
		files[i].hdr.sample_one_in = 10;
		s->origin_ns[i] = 1000 * (i + 1);
		s->origin_known[i] = true;
		s->end_ns[i] = -1;
	}
	s->end_ns[0] = 1250;
}

static void add(struct ntp_series_acc *a, int file, const char *io, int64_t bytes,
		const char *ns, int64_t t, int64_t e2e)
{
	struct ntp_series_row row = { .file = file, .io_type = io, .ns = ns, .bytes = bytes,
				      .t_ns = t, .e2e = e2e, .stage = { e2e / 2 } };

	assert_int_equal(ntp_series_acc__add(a, &row), 0);
}

static void intervals__floor_order_and_own_samples(void **state)
{
	struct ntp_report_file files[2];
	struct ntp_series s;
	struct ntp_series_acc a;
	struct capture c = { 0 };
	const struct ntp_series_out out = { NULL, cap_point, NULL, &c };

	(void)state;
	setup_series(&s, files, 2);
	ntp_series_acc__init(&a, &s, &out, 1, 1);
	add(&a, 1, "read", 4096, "nvme0n1", 950, 7);          /* before the origin: -1 */
	add(&a, 1, "write", 4096, "nvme0n1", 1000, 30);       /* interval 0 ... */
	add(&a, 1, "read", 131072, "nvme0n1", 1001, 20);
	add(&a, 1, "read", 4096, "nvme0n1", 1050, 10);
	add(&a, 1, "read", 4096, "nvme0n1", 1099, 12);        /* ... up to its last ns */
	add(&a, 1, "read", 4096, "nvme0n1", 1100, 99);        /* interval 1 */
	add(&a, 1, "read", 4096, "nvme0n1", 1240, 5);         /* 2: 50 ns of it recorded */
	add(&a, 2, "read", 4096, "nvme0n1", 2000, 40);        /* another file: its own origin */
	assert_int_equal(ntp_series_acc__flush(&a), 0);
	assert_int_equal(ntp_series_acc__flush(&a), 0);        /* nothing left: no point twice */
	assert_int_equal(s.commands, 8);
	assert_int_equal(s.points, 7);
	assert_int_equal(c.n, 7);

	assert_int_equal(c.p[0].interval, -1);
	assert_int_equal(c.p[0].start, 900);
	assert_int_equal(c.p[0].n, 1);
	/* interval 0 in report's order: reads before writes, then by size */
	assert_int_equal(c.p[1].interval, 0);
	assert_string_equal(c.p[1].io_type, "read");
	assert_int_equal(c.p[1].bytes, 4096);
	assert_int_equal(c.p[1].n, 2);
	assert_int_equal(c.p[1].min, 10);
	assert_int_equal(c.p[1].max, 12);
	assert_int_equal(c.p[1].stage0_max, 6);
	assert_true(c.p[1].rate == 2 * 10 / 100e-9);
	assert_string_equal(c.p[2].io_type, "read");
	assert_int_equal(c.p[2].bytes, 131072);
	assert_string_equal(c.p[3].io_type, "write");
	/* interval 1 holds its own command only: the earlier ones were emptied */
	assert_int_equal(c.p[4].interval, 1);
	assert_int_equal(c.p[4].n, 1);
	assert_int_equal(c.p[4].min, 99);
	assert_int_equal(c.p[4].p99, 99);
	/* the recording ended 50 ns into interval 2: the rate is over those 50 ns */
	assert_int_equal(c.p[5].interval, 2);
	assert_int_equal(c.p[5].covered, 50);
	assert_true(c.p[5].rate == 1 * 10 / 50e-9);
	/* file 2: interval 0 of its own clock, the whole interval (its end unknown) */
	assert_int_equal(c.p[6].file, 2);
	assert_int_equal(c.p[6].interval, 0);
	assert_int_equal(c.p[6].start, 2000);
	assert_int_equal(c.p[6].covered, 100);
	ntp_series_acc__free(&a);
}

static void origin__unknown__first_command(void **state)
{
	struct ntp_report_file files[1];
	struct ntp_series s;
	struct ntp_series_acc a;
	struct capture c = { 0 };
	const struct ntp_series_out out = { NULL, cap_point, NULL, &c };

	(void)state;
	setup_series(&s, files, 1);
	s.origin_known[0] = false;
	s.end_ns[0] = -1;
	files[0].hdr.sample_one_in = 0;                         /* unknown: no rate */
	ntp_series_acc__init(&a, &s, &out, 1, 1);
	add(&a, 1, "read", 4096, "nvme0n1", 5555, 1);
	add(&a, 1, "read", 4096, "nvme0n1", 5654, 2);
	add(&a, 1, "read", 4096, "nvme0n1", 5655, 3);
	assert_int_equal(ntp_series_acc__flush(&a), 0);
	assert_true(s.origin_known[0]);
	assert_int_equal(s.origin_ns[0], 5555);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.p[0].n, 2);
	assert_int_equal(c.p[1].interval, 1);
	assert_true(c.p[0].rate < 0);
	ntp_series_acc__free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intervals__floor_order_and_own_samples),
		cmocka_unit_test(origin__unknown__first_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
