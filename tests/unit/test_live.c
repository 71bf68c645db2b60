// SPDX-License-Identifier: GPL-2.0
/*
 * lib/record/live.c: the lines printed while recording are parsed back by column
 * (the column ends of ntprof-record(1)'s example) and every number is
 * checked against values computed here from the generated stages: n,
 * cmds/s, mean and p99 (sorted here, nearest rank), and the shares
 * (within one of the exact percentage, adding up to 100, rounded up only
 * where the remainder is largest).  The matcher pairs reused keys and
 * reordered arrivals exactly, expires and evicts with counts.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/record/live.h"
#include "tests/unit/xorshift.h"

/* the two header lines of ntprof-record(1), "Output while recording" */
static const char seed_groups[] =
	"                                                                          host                   target";
static const char seed_columns[] =
	"    time  group                       n   cmds/s   mean us    p99 us   block  driver network  driver storage";

/* host and joined lines: the application's end-to-end after the shares */
static const char app_header[] = "    app us";

enum { F_TIME, F_GROUP, F_N, F_RATE, F_MEAN, F_P99, F_BLOCK, F_DRIVER, F_NET, F_TDRIVER, F_STORAGE, NF };
static const char *const seed_names[NF] = {
	"time", "group", "n", "cmds/s", "mean us", "p99 us", "block", "driver", "network", "driver", "storage",
};

static uint64_t rng_state = XORSHIFT_SEED;

static int64_t between(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(xorshift64(&rng_state) % (uint64_t)(hi - lo + 1));
}

/* ---- parsing the printed lines --------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static void out_open(struct out *o)
{
	o->buf = NULL;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
}

/* the lines written so far, NUL-separated in place; returns how many */
static int out_lines(struct out *o, char **lines, int max)
{
	int n = 0;

	fflush(o->f);
	for (char *p = o->buf; p && *p; ) {
		char *nl = strchr(p, '\n');

		assert_non_null(nl);    /* every line is complete */
		*nl = '\0';
		assert_true(n < max);
		lines[n++] = p;
		p = nl + 1;
	}
	return n;
}

static void out_close(struct out *o)
{
	fclose(o->f);
	free(o->buf);
}

/* the end column of each name in the seed's header; the group starts where its name does */
static size_t col_end[NF], group_start;

static void seed_columns_init(void)
{
	const char *p = seed_columns;

	for (int i = 0; i < NF; i++) {
		const char *q = strstr(p, seed_names[i]);

		assert_non_null(q);
		if (i == F_GROUP)
			group_start = (size_t)(q - seed_columns);
		col_end[i] = (size_t)(q - seed_columns) + strlen(seed_names[i]);
		p = q + strlen(seed_names[i]);
	}
}

struct row {
	char f[NF][64];
};

/*
 * A value is right-aligned to its column's end; the group is left-aligned
 * where its name starts and runs up to the blanks before n.
 */
static void parse_row(const char *line, struct row *r)
{
	size_t len = strlen(line);

	assert_true(len > 0 && line[len - 1] != ' ');
	for (int i = 0; i < NF; i++) {
		size_t from = i == 0 ? 0 : col_end[i - 1], to = col_end[i];
		char *s = r->f[i], *e;

		if (i == F_GROUP) {
			/* the group ends where n's value begins */
			from = group_start;
			to = col_end[F_N];
			while (to > from && line[to - 1] != ' ')
				to--;
		} else if (i == F_N) {
			/* n is the word that ends at its column's end */
			for (from = to; from > group_start && line[from - 1] != ' '; from--)
				;
		}
		s[0] = '\0';
		if (from < len) {
			size_t n = (to < len ? to : len) - from;

			memcpy(s, line + from, n);
			s[n] = '\0';
		}
		/* trim: what is left is this column's value, or "" */
		while (*s == ' ')
			memmove(s, s + 1, strlen(s));
		e = s + strlen(s);
		while (e > s && e[-1] == ' ')
			*--e = '\0';
		/* a value must touch its column's end (unless the line ends before it) */
		if (i != F_GROUP && *s && to <= len)
			assert_true(line[to - 1] != ' ');
		/* and not begin right after the previous column's end */
		if (i > F_N && *s)
			assert_true(line[col_end[i - 1]] == ' ');
	}
}

/* ---- independent expectations ---------------------------------------------- */

struct expect {
	const char *group;
	int64_t *e2e;           /* every sample */
	int64_t sum[5];         /* per stage */
	int n;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* nearest rank: the ceil(0.99 n)-th smallest */
static int64_t p99(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return v[(99 * n + 99) / 100 - 1];
}

/* ns in us as every output shows it: two decimals, half away from zero on the exact digits */
static void expect_us(const char *got, int64_t ns)
{
	char want[64];
	int64_t q = (ns + 5) / 10;

	snprintf(want, sizeof(want), "%lld.%02lld", (long long)(q / 100), (long long)(q % 100));
	assert_string_equal(got, want);
}

/*
 * The shares of stages on[] in row r: each within 1 of the exact percentage
 * (floor or floor + 1), adding up to exactly 100, and every one rounded up
 * having a remainder at least as large as every one rounded down.
 */
static void check_shares(const struct row *r, const int64_t *sum, const bool *on, bool star)
{
	double total = 0, exact[5];
	int got[5], total_pct = 0;
	bool up[5];

	for (int c = 0; c < 5; c++)
		if (on[c])
			total += (double)sum[c];
	for (int c = 0; c < 5; c++) {
		const char *s = r->f[F_BLOCK + c];
		char *end;

		if (!on[c]) {
			assert_string_equal(s, "");
			continue;
		}
		got[c] = (int)strtol(s, &end, 10);
		assert_true(end != s && *end == '%');
		assert_string_equal(end + 1, star && c == 2 ? "*" : "");
		exact[c] = 100.0 * (double)sum[c] / total;
		assert_true(got[c] == (int)floor(exact[c]) || got[c] == (int)floor(exact[c]) + 1);
		up[c] = got[c] != (int)floor(exact[c]);
		total_pct += got[c];
	}
	assert_int_equal(total_pct, 100);
	for (int c = 0; c < 5; c++)
		for (int d = 0; d < 5; d++)
			if (on[c] && on[d] && up[c] && !up[d])
				assert_true(exact[c] - floor(exact[c]) >= exact[d] - floor(exact[d]) - 1e-9);
}

static void check_row(const struct row *r, const char *time, struct expect *x, const char *rate)
{
	int64_t sum = 0;

	assert_string_equal(r->f[F_TIME], time);
	assert_string_equal(r->f[F_GROUP], x->group);
	assert_int_equal(strtol(r->f[F_N], NULL, 10), x->n);
	assert_string_equal(r->f[F_RATE], rate);
	for (int i = 0; i < x->n; i++)
		sum += x->e2e[i];
	/* the mean as whole ns, then in us */
	expect_us(r->f[F_MEAN], llround((double)sum / x->n));
	/* a p99 of fewer than 100 commands would be the maximum: none */
	if (x->n >= 100)
		expect_us(r->f[F_P99], p99(x->e2e, x->n));
	else
		assert_string_equal(r->f[F_P99], "-");
}

/* ---- events ------------------------------------------------------------------ */

/* a host command whose stages are exactly block, driver, network* (no R2T, every hook) */
static void host_cmd(struct ntp_host_event *e, uint8_t opcode, uint32_t bytes, const char *disk,
		     int64_t block, int64_t driver, int64_t net)
{
	int64_t d1 = driver / 3;

	memset(e, 0, sizeof(*e));
	e->kind = NTP_EV_HOST_IO;
	e->opcode = opcode;
	e->bytes = bytes;
	e->h_start = (uint64_t)between(1000000000, 2000000000);
	e->h_queue = e->h_start + (uint64_t)block;
	e->h_cmd_sent = e->h_queue + (uint64_t)d1;
	e->h_recv = e->h_cmd_sent + (uint64_t)net;
	e->h_done = e->h_recv + (uint64_t)(driver - d1);
	snprintf(e->disk, sizeof(e->disk), "%s", disk);
}

/* a target command whose stages are exactly target driver and storage */
static void target_cmd(struct ntp_target_event *e, uint8_t opcode, uint32_t bytes,
		       const char *dev, int64_t tdriver, int64_t storage)
{
	int64_t d1 = tdriver / 2;

	memset(e, 0, sizeof(*e));
	e->kind = NTP_EV_TARGET_IO;
	e->opcode = opcode;
	e->bytes = bytes;
	e->t_recv = (uint64_t)between(1000000000, 2000000000);
	e->t_submit = e->t_recv + (uint64_t)d1;
	e->t_cmpl = e->t_submit + (uint64_t)storage;
	e->t_sent = e->t_cmpl + (uint64_t)(tdriver - d1);
	snprintf(e->device, sizeof(e->device), "%s", dev);
}

static int setup(void **state)
{
	seed_columns_init();
	return 0;
}

/* ---- the lines --------------------------------------------------------------- */

struct group_spec {
	uint8_t op;
	uint32_t bytes;
	const char *disk;
	int n;
};

static void host_groups(struct ntp_live *l, struct expect *x, const struct group_spec *spec,
			int ngroups)
{
	for (int g = 0; g < ngroups; g++) {
		memset(&x[g], 0, sizeof(x[g]));
		x[g].n = spec[g].n;
		x[g].e2e = calloc((size_t)spec[g].n, sizeof(int64_t));
		assert_non_null(x[g].e2e);
		for (int i = 0; i < spec[g].n; i++) {
			struct ntp_host_event e;
			int64_t b = between(0, 3000), d = between(0, 5000), n = between(1000, 90000);

			host_cmd(&e, spec[g].op, spec[g].bytes, spec[g].disk, b, d, n);
			assert_int_equal(ntp_live__add_host(l, &e), 0);
			x[g].e2e[i] = b + d + n;
			x[g].sum[0] += b;
			x[g].sum[1] += d;
			x[g].sum[2] += n;
		}
	}
}

static void live__host_mode__lines_match_independent_values(void **state)
{
	static const struct group_spec spec[] = {
		{ 2, 4096, "nvme6n1", 154 },
		{ 1, 131072, "nvme6n1", 3 },
		{ 1, 1 << 20, "nvme6n1", 1000 },
		{ 2, 512, "nvme10n2", 1 },
	};
	/* printed order: namespace (numbers as numbers: nvme6 before nvme10), I/O type, size */
	static const int order[] = { 0, 1, 2, 3 };
	static const char *const groups[] = {
		"read 4KiB nvme6n1", "write 128KiB nvme6n1", "write 1MiB nvme6n1", "read 512B nvme10n2",
	};
	/* n x 1000 / 10 s */
	static const char *const rates[] = { "15.4k", "300", "100.0k", "100" };
	static const bool on[5] = { true, true, true, false, false };
	struct ntp_live *l = ntp_live__new(NTP_LIVE_HOST, 1000);
	struct expect x[4];
	struct out o;
	char *lines[16];
	int n;

	assert_non_null(l);
	host_groups(l, x, spec, 4);
	out_open(&o);
	assert_int_equal(ntp_live__tick(l, o.f, 3.0, 10.0), 4);
	n = out_lines(&o, lines, 16);
	assert_int_equal(n, 6);
	assert_string_equal(lines[0], seed_groups);
	assert_true(!strncmp(lines[1], seed_columns, strlen(seed_columns)));
	assert_string_equal(lines[1] + strlen(seed_columns), app_header);
	for (int i = 0; i < 4; i++) {
		struct expect *e = &x[order[i]];
		struct row r;

		e->group = groups[order[i]];
		parse_row(lines[2 + i], &r);
		check_row(&r, "3.0s", e, rates[order[i]]);
		check_shares(&r, e->sum, on, true);
		/* a host-only line ends with network*: no target columns at all */
		assert_true(strlen(lines[2 + i]) == col_end[F_NET]);
		free(e->e2e);
	}
	out_close(&o);
	ntp_live__free(l);
}

static void live__quiet_interval__prints_nothing_and_header_once(void **state)
{
	struct ntp_live *l = ntp_live__new(NTP_LIVE_HOST, 1);
	struct ntp_host_event e;
	struct out o;
	char *lines[16];
	struct row r;

	assert_non_null(l);
	out_open(&o);
	/* nothing yet: not even the header */
	assert_int_equal(ntp_live__tick(l, o.f, 1.0, 1.0), 0);
	assert_int_equal(out_lines(&o, lines, 16), 0);
	host_cmd(&e, 2, 4096, "nvme0n1", 1000, 2000, 7000);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	host_cmd(&e, 1, 8192, "nvme0n1", 1000, 2000, 7000);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 2.0, 1.0), 2);
	/* only the write this time: the read group is idle and has no line */
	host_cmd(&e, 1, 8192, "nvme0n1", 500, 500, 9000);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 3.0, 1.0), 1);
	assert_int_equal(ntp_live__tick(l, o.f, 4.0, 1.0), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 5.0, 1.0), 0);
	/* the read comes back after its group was freed */
	host_cmd(&e, 2, 4096, "nvme0n1", 100, 100, 9800);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 6.25, 2.0), 1);
	assert_int_equal(out_lines(&o, lines, 16), 6);
	assert_true(!strncmp(lines[1], seed_columns, strlen(seed_columns)));
	assert_string_equal(lines[1] + strlen(seed_columns), app_header);
	parse_row(lines[2], &r);
	assert_string_equal(r.f[F_GROUP], "read 4KiB nvme0n1");
	assert_string_equal(r.f[F_RATE], "1.0");
	assert_string_equal(r.f[F_MEAN], "10.00");
	assert_string_equal(r.f[F_BLOCK], "10%");
	assert_string_equal(r.f[F_DRIVER], "20%");
	assert_string_equal(r.f[F_NET], "70%*");
	parse_row(lines[3], &r);
	assert_string_equal(r.f[F_GROUP], "write 8KiB nvme0n1");
	parse_row(lines[4], &r);
	assert_string_equal(r.f[F_TIME], "3.0s");
	assert_string_equal(r.f[F_GROUP], "write 8KiB nvme0n1");
	assert_string_equal(r.f[F_BLOCK], "5%");
	assert_string_equal(r.f[F_NET], "90%*");
	parse_row(lines[5], &r);
	assert_string_equal(r.f[F_TIME], "6.2s");
	assert_string_equal(r.f[F_GROUP], "read 4KiB nvme0n1");
	/* 1 x 1 / 2 s */
	assert_string_equal(r.f[F_RATE], "0.5");
	assert_string_equal(r.f[F_BLOCK], "1%");
	assert_string_equal(r.f[F_NET], "98%*");
	out_close(&o);
	ntp_live__free(l);
}

static void live__equal_thirds__largest_remainder_sums_to_100(void **state)
{
	struct ntp_live *l = ntp_live__new(NTP_LIVE_HOST, 1000);
	struct ntp_host_event e;
	struct out o;
	char *lines[8];
	struct row r;

	assert_non_null(l);
	out_open(&o);
	/* 1/3 each: 33.33% three times, ties go to the earlier stage */
	host_cmd(&e, 2, 4096, "nvme0n1", 3000, 3000, 3000);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 1.0, 1.0), 1);
	/* 16.67 / 16.67 / 66.67: the two largest remainders are the first two */
	host_cmd(&e, 2, 4096, "nvme0n1", 1000, 1000, 4000);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 2.0, 1.0), 1);
	/* 0.4 / 0.4 / 99.2: one point to give, to the first of the two 0.4 */
	host_cmd(&e, 2, 4096, "nvme0n1", 4, 4, 992);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	assert_int_equal(ntp_live__tick(l, o.f, 3.0, 1.0), 1);
	/* 999.5 cmds/s shows as 1.0k, 9.96 as 10 */
	assert_int_equal(out_lines(&o, lines, 8), 5);
	parse_row(lines[2], &r);
	assert_string_equal(r.f[F_BLOCK], "34%");
	assert_string_equal(r.f[F_DRIVER], "33%");
	assert_string_equal(r.f[F_NET], "33%*");
	assert_string_equal(r.f[F_RATE], "1.0k");
	parse_row(lines[3], &r);
	assert_string_equal(r.f[F_BLOCK], "17%");
	assert_string_equal(r.f[F_DRIVER], "17%");
	assert_string_equal(r.f[F_NET], "66%*");
	parse_row(lines[4], &r);
	assert_string_equal(r.f[F_BLOCK], "1%");
	assert_string_equal(r.f[F_DRIVER], "0%");
	assert_string_equal(r.f[F_NET], "99%*");
	out_close(&o);
	ntp_live__free(l);
}

static void live__joined_mode__five_shares_even_with_negative_network(void **state)
{
	static const bool on[5] = { true, true, true, true, true };
	struct ntp_live *l = ntp_live__new(NTP_LIVE_JOINED, 100);
	struct expect x = { .group = "write 16KiB nvme1n1", .n = 500 };
	struct out o;
	char *lines[8];
	struct row r;

	assert_non_null(l);
	x.e2e = calloc((size_t)x.n, sizeof(int64_t));
	assert_non_null(x.e2e);
	for (int i = 0; i < x.n; i++) {
		struct ntp_host_event h;
		struct ntp_target_event t;
		/* network may be negative (loopback hooks out of order); the sum stays positive */
		int64_t b = between(0, 2000), d = between(0, 4000), net = between(-3000, 20000);
		int64_t td = between(0, 9000), st = between(0, 60000);

		/* the host sees network + target as its network* */
		host_cmd(&h, 1, 16384, "nvme1n1", b, d, net + td + st);
		target_cmd(&t, 1, 16384, "nullb0", td, st);
		assert_int_equal(ntp_live__add_pair(l, &h, &t), 0);
		x.e2e[i] = b + d + net + td + st;
		x.sum[0] += b;
		x.sum[1] += d;
		x.sum[2] += net;
		x.sum[3] += td;
		x.sum[4] += st;
	}
	/* a joined live takes pairs only */
	assert_int_equal(ntp_live__add_host(l, NULL), -EINVAL);
	out_open(&o);
	assert_int_equal(ntp_live__tick(l, o.f, 12.0, 1.0), 1);
	assert_int_equal(out_lines(&o, lines, 8), 3);
	assert_string_equal(lines[0], seed_groups);
	parse_row(lines[2], &r);
	check_row(&r, "12.0s", &x, "50.0k");
	check_shares(&r, x.sum, on, false);
	free(x.e2e);
	out_close(&o);
	ntp_live__free(l);
}

static void live__target_mode__residence_and_empty_host_columns(void **state)
{
	static const bool on[5] = { false, false, false, true, true };
	struct ntp_live *l = ntp_live__new(NTP_LIVE_TARGET, 1000);
	struct expect x = { .group = "read 128KiB nullb0", .n = 77 };
	struct ntp_host_event h = { 0 };
	struct out o;
	char *lines[8];
	struct row r;

	assert_non_null(l);
	x.e2e = calloc((size_t)x.n, sizeof(int64_t));
	assert_non_null(x.e2e);
	for (int i = 0; i < x.n; i++) {
		struct ntp_target_event t;
		int64_t td = between(0, 9000), st = between(1, 60000);

		target_cmd(&t, 2, 131072, "nullb0", td, st);
		assert_int_equal(ntp_live__add_target(l, &t), 0);
		x.e2e[i] = td + st;
		x.sum[3] += td;
		x.sum[4] += st;
	}
	assert_int_equal(ntp_live__add_host(l, &h), -EINVAL);
	out_open(&o);
	assert_int_equal(ntp_live__tick(l, o.f, 1.0, 1.0), 1);
	assert_int_equal(out_lines(&o, lines, 8), 3);
	assert_non_null(strstr(lines[0], "residence"));
	assert_non_null(strstr(lines[0], "host"));
	assert_string_equal(lines[1], seed_columns);
	parse_row(lines[2], &r);
	check_row(&r, "1.0s", &x, "77.0k");
	check_shares(&r, x.sum, on, false);
	free(x.e2e);
	out_close(&o);
	ntp_live__free(l);
}

static void live__bad_arguments__einval(void **state)
{
	errno = 0;
	assert_null(ntp_live__new(NTP_LIVE_HOST, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(ntp_live__new((enum ntp_live_mode)7, 1000));
	assert_null(ntp_live_match__new(0, 1, ntp_live__on_pair, NULL));
	assert_null(ntp_live_match__new(16, 1, NULL, NULL));
}

/*
 * The rows of top: an interval's are emptied by ntp_live__next, the whole
 * run's are not; mean and p99 of the whole run are those of every command.
 */
static void live__rows__interval_emptied_whole_run_kept(void **state)
{
	struct ntp_live *l = ntp_live__new(NTP_LIVE_HOST, 10);
	struct ntp_live_row *rows;
	struct ntp_host_event e;
	int64_t e2e[200], sum = 0;
	size_t n;

	assert_non_null(l);
	assert_int_equal(ntp_live__rows(l, true, 1.0, &rows, &n), -EINVAL);
	ntp_live__keep_total(l);
	for (int i = 0; i < 200; i++) {
		host_cmd(&e, 2, 4096, "nvme0n1", between(1000, 5000), between(3000, 9000),
			 between(20000, 90000));
		e2e[i] = (int64_t)(e.h_done - e.h_start);
		sum += e2e[i];
		assert_int_equal(ntp_live__add_host(l, &e), 0);
		if (i == 99) {
			assert_int_equal(ntp_live__rows(l, false, 2.0, &rows, &n), 0);
			assert_int_equal(n, 1);
			assert_int_equal(rows[0].n, 100);
			assert_true(rows[0].rate == 100 * 10 / 2.0);
			free(rows);
			ntp_live__next(l);
		}
	}
	assert_int_equal(ntp_live__rows(l, false, 1.0, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].n, 100);
	free(rows);
	assert_int_equal(ntp_live__rows(l, true, 4.0, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].io_type, "read");
	assert_int_equal(rows[0].bytes, 4096);
	assert_string_equal(rows[0].name, "nvme0n1");
	assert_int_equal(rows[0].n, 200);
	assert_int_equal(rows[0].sum_e2e, sum);
	assert_int_equal(rows[0].mean_ns, llround((double)sum / 200));
	assert_int_equal(rows[0].p99_ns, p99(e2e, 200));
	assert_true(rows[0].shares_ok);
	assert_int_equal(rows[0].pct[0] + rows[0].pct[1] + rows[0].pct[2], 100);
	free(rows);
	ntp_live__next(l);
	/* an idle interval: no row; the whole run keeps its group */
	assert_int_equal(ntp_live__rows(l, false, 1.0, &rows, &n), 0);
	assert_int_equal(n, 0);
	assert_null(rows);
	assert_int_equal(ntp_live__rows(l, true, 5.0, &rows, &n), 0);
	assert_int_equal(n, 1);
	free(rows);
	ntp_live__free(l);
}

/* --by: rows per queue or process, named as report --by names them; a target has neither */
static void live__by_queue_and_process__rows_named_as_report_by(void **state)
{
	struct ntp_live *q = ntp_live__new(NTP_LIVE_HOST, 1), *p = ntp_live__new(NTP_LIVE_HOST, 1);
	struct ntp_live *t = ntp_live__new(NTP_LIVE_TARGET, 1);
	struct ntp_live_row *rows;
	struct ntp_host_event e;
	size_t n;

	assert_int_equal(ntp_live__set_by(t, NTP_LIVE_BY_QUEUE), -EINVAL);
	assert_int_equal(ntp_live__set_by(t, NTP_LIVE_BY_GROUP), 0);
	assert_int_equal(ntp_live__set_by(q, NTP_LIVE_BY_QUEUE), 0);
	assert_int_equal(ntp_live__set_by(p, NTP_LIVE_BY_PROCESS), 0);
	for (int i = 0; i < 6; i++) {
		host_cmd(&e, i % 2 ? 1 : 2, i < 3 ? 4096 : 131072, "nvme0n1", 1000, 3000, 20000);
		e.ctrl_instance = 1;
		e.qid = (uint16_t)(1 + i % 3);
		e.pid = i < 4 ? 4242 : 0;
		snprintf(e.comm, sizeof(e.comm), "fio");
		assert_int_equal(ntp_live__add_host(q, &e), 0);
		assert_int_equal(ntp_live__add_host(p, &e), 0);
	}
	assert_int_equal(ntp_live__rows(q, false, 1.0, &rows, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		char want[32];

		snprintf(want, sizeof(want), "nvme1 q%zu", i + 1);
		assert_string_equal(rows[i].name, want);
		assert_string_equal(rows[i].io_type, "");
		assert_int_equal(rows[i].n, 2);
	}
	free(rows);
	assert_int_equal(ntp_live__rows(p, false, 1.0, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "(not recorded)");
	assert_int_equal(rows[0].n, 2);
	assert_string_equal(rows[1].name, "fio 4242");
	assert_int_equal(rows[1].n, 4);
	free(rows);
	ntp_live__free(q);
	ntp_live__free(p);
	ntp_live__free(t);
}

/* ---- the matcher ------------------------------------------------------------- */

#define MAX_CMDS 20000

struct pairs {
	int n;
	int bad;
	int seen[MAX_CMDS];
};

/* each generated command carries its number in host status and target device */
static void on_pair(void *ctx, const struct ntp_host_event *h, const struct ntp_target_event *t)
{
	struct pairs *p = ctx;
	int id = atoi(t->device);

	if (id != h->status || id < 0 || id >= MAX_CMDS)
		p->bad++;
	else
		p->seen[id]++;
	p->n++;
}

/*
 * n commands over few keys: each of `slots` (cid) is reused one command after
 * another, with the same slba and length, so a key repeats n / slots times.
 */
static void gen_flights(struct ntp_host_event *h, struct ntp_target_event *t, int n, int slots,
			bool no_recv)
{
	uint64_t next[64];

	assert_true(slots <= 64);
	for (int s = 0; s < slots; s++)
		next[s] = 1000000000ULL + (uint64_t)s * 777;
	for (int i = 0; i < n; i++) {
		int s = i % slots;
		uint64_t q = next[s];

		memset(&h[i], 0, sizeof(h[i]));
		memset(&t[i], 0, sizeof(t[i]));
		h[i].cid = t[i].cid = (uint16_t)s;
		h[i].slba = t[i].slba = 4242;
		h[i].nlb0 = t[i].nlb0 = 7;
		h[i].qid = t[i].qid = 1;
		h[i].cntlid = t[i].cntlid = 3;
		h[i].nsid = t[i].nsid = 1;
		h[i].opcode = t[i].opcode = 2;
		h[i].status = (uint16_t)i;
		snprintf(t[i].device, sizeof(t[i].device), "%d", i);
		h[i].h_start = q - 500;
		h[i].h_queue = q;
		t[i].t_recv = q + (uint64_t)between(1, 20000);
		t[i].t_sent = t[i].t_recv + (uint64_t)between(0, 50000);
		h[i].h_recv = no_recv ? 0 : t[i].t_sent + (uint64_t)between(1, 20000);
		h[i].h_done = (no_recv ? t[i].t_sent : h[i].h_recv) + (uint64_t)between(1, 3000);
		/* the next use of this command id starts after this one completed */
		next[s] = h[i].h_done + (uint64_t)between(1, 5000);
	}
}

static void match__reused_keys_any_order__pairs_exactly(void **state)
{
	static struct ntp_host_event h[MAX_CMDS];
	static struct ntp_target_event t[MAX_CMDS];
	static struct pairs p;
	static int order[2 * MAX_CMDS];
	const int n = MAX_CMDS;
	struct ntp_live_match_stats st;

	for (int round = 0; round < 4; round++) {
		struct ntp_live_match *m = ntp_live_match__new(2 * MAX_CMDS, NTP_LIVE_MATCH_HOLD_NS,
							       on_pair, &p);

		assert_non_null(m);
		memset(&p, 0, sizeof(p));
		gen_flights(h, t, n, round == 3 ? 1 : 8, round == 2);
		/* arrivals: 0..n-1 hosts, n..2n-1 targets */
		for (int i = 0; i < 2 * n; i++)
			order[i] = i;
		if (round == 0) {
			/* all targets first, the hosts last and backwards */
			for (int i = 0; i < n; i++) {
				order[i] = n + i;
				order[n + i] = n - 1 - i;
			}
		} else {
			/* any order at all */
			for (int i = 2 * n - 1; i > 0; i--) {
				int j = (int)(xorshift64(&rng_state) % (uint64_t)(i + 1)), tmp = order[i];

				order[i] = order[j];
				order[j] = tmp;
			}
		}
		for (int i = 0; i < 2 * n; i++) {
			if (order[i] < n)
				ntp_live_match__add_host(m, &h[order[i]]);
			else
				ntp_live_match__add_target(m, &t[order[i] - n]);
		}
		ntp_live_match__expire(m, UINT64_MAX);
		ntp_live_match__stats(m, &st);
		assert_int_equal(p.bad, 0);
		assert_int_equal(p.n, n);
		for (int i = 0; i < n; i++)
			assert_int_equal(p.seen[i], 1);
		assert_int_equal(st.matched, n);
		assert_int_equal(st.host_unmatched, 0);
		assert_int_equal(st.target_unmatched, 0);
		assert_int_equal(st.host_pending + st.target_pending, 0);
		ntp_live_match__free(m);
	}
}

static void match__outside_flight__not_paired(void **state)
{
	static struct pairs p;
	struct ntp_live_match *m = ntp_live_match__new(64, 1000, on_pair, &p);
	struct ntp_host_event h[1];
	struct ntp_target_event t[1], early, late, other;
	struct ntp_live_match_stats st;

	assert_non_null(m);
	memset(&p, 0, sizeof(p));
	gen_flights(h, t, 1, 1, false);
	/* same key, received before the host queued it or after it got the response */
	early = t[0];
	early.t_recv = h[0].h_queue - 1;
	late = t[0];
	late.t_recv = h[0].h_recv + 1;
	/* in the flight, but another controller */
	other = t[0];
	other.cntlid++;
	assert_int_equal(ntp_live_match__add_target(m, &early), 0);
	assert_int_equal(ntp_live_match__add_target(m, &late), 0);
	assert_int_equal(ntp_live_match__add_target(m, &other), 0);
	assert_int_equal(ntp_live_match__add_host(m, &h[0]), 0);
	/* the edges of the flight count */
	early.t_recv = h[0].h_queue;
	assert_int_equal(ntp_live_match__add_target(m, &early), 1);
	assert_int_equal(p.n, 1);
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.target_pending, 3);
	assert_int_equal(st.host_pending, 0);
	ntp_live_match__free(m);
}

/*
 * The host's event of a command comes only when the application reaps it,
 * or when the collector stops waiting for that (NTP_PARKED_EXPIRE_NS): its
 * target event, long sent, still waits for it with the default hold.
 */
static void match__host_event_held_for_the_reap__still_matches(void **state)
{
	static struct pairs p;
	struct ntp_live_match *m = ntp_live_match__new(64, NTP_LIVE_MATCH_HOLD_NS, on_pair, &p);
	struct ntp_host_event h[1];
	struct ntp_target_event t[1];
	struct ntp_live_match_stats st;

	assert_non_null(m);
	memset(&p, 0, sizeof(p));
	gen_flights(h, t, 1, 1, false);
	assert_int_equal(ntp_live_match__add_target(m, &t[0]), 0);
	/* the collector writes the host record it kept without the reap's stamps */
	ntp_live_match__expire(m, h[0].h_done + NTP_PARKED_EXPIRE_NS + 1000000);
	assert_int_equal(ntp_live_match__add_host(m, &h[0]), 1);
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.matched, 1);
	assert_int_equal(st.target_unmatched, 0);
	assert_int_equal(p.n, 1);
	ntp_live_match__free(m);
}

static void match__unmatched__expire_after_hold_and_counted(void **state)
{
	static struct pairs p;
	struct ntp_live_match *m = ntp_live_match__new(64, 2000, on_pair, &p);
	struct ntp_host_event h[4];
	struct ntp_target_event t[4];
	struct ntp_live_match_stats st;

	assert_non_null(m);
	memset(&p, 0, sizeof(p));
	/* one command id: each flight after the previous one completed */
	gen_flights(h, t, 4, 1, false);
	ntp_live_match__add_host(m, &h[0]);
	ntp_live_match__add_host(m, &h[1]);
	ntp_live_match__add_target(m, &t[2]);
	/* 2000 ns after h[0] completed: not yet */
	ntp_live_match__expire(m, h[0].h_done + 2000);
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.host_pending, 2);
	assert_int_equal(st.host_unmatched, 0);
	/* one ns later h[0] goes; h[1] completed later and stays */
	ntp_live_match__expire(m, h[0].h_done + 2001);
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.host_unmatched, 1);
	assert_int_equal(st.host_pending, 1);
	/* a late half still matches while its partner waits */
	assert_int_equal(ntp_live_match__add_host(m, &h[2]), 1);
	ntp_live_match__add_target(m, &t[3]);
	ntp_live_match__expire(m, UINT64_MAX);
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.matched, 1);
	assert_int_equal(st.host_unmatched, 2);
	assert_int_equal(st.target_unmatched, 1);
	assert_int_equal(st.evicted, 0);
	assert_int_equal(st.host_pending + st.target_pending, 0);
	ntp_live_match__free(m);
}

static void match__full__evicts_oldest_and_counts(void **state)
{
	static struct ntp_host_event h[40];
	static struct ntp_target_event t[40];
	static struct pairs p;
	struct ntp_live_match *m = ntp_live_match__new(4, UINT64_MAX, on_pair, &p);
	struct ntp_live_match_stats st;

	assert_non_null(m);
	memset(&p, 0, sizeof(p));
	gen_flights(h, t, 40, 8, false);
	for (int i = 0; i < 10; i++)
		ntp_live_match__add_host(m, &h[i]);
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.host_pending, 4);
	assert_int_equal(st.evicted, 6);
	assert_int_equal(st.host_unmatched, 6);
	/* the evicted are gone, the newest four still match */
	assert_int_equal(ntp_live_match__add_target(m, &t[0]), 0);
	for (int i = 6; i < 10; i++)
		assert_int_equal(ntp_live_match__add_target(m, &t[i]), 1);
	/*
	 * Matched events leave holes behind the oldest pending one (t[0]);
	 * once `capacity` arrivals came after it, it is evicted too.
	 */
	for (int i = 10; i < 40; i++) {
		ntp_live_match__add_target(m, &t[i]);
		assert_int_equal(ntp_live_match__add_host(m, &h[i]), 1);
	}
	ntp_live_match__stats(m, &st);
	assert_int_equal(st.matched, 34);
	assert_int_equal(p.bad, 0);
	assert_int_equal(st.target_pending, 0);
	assert_int_equal(st.target_unmatched, 1);
	assert_int_equal(st.evicted, 7);
	ntp_live_match__free(m);
}

/* the matcher feeding the lines: what record does with -r both */
static void match__into_live__joined_lines(void **state)
{
	static struct ntp_host_event h[100];
	static struct ntp_target_event t[100];
	struct ntp_live *l = ntp_live__new(NTP_LIVE_JOINED, 1);
	struct ntp_live_match *m = ntp_live_match__new(128, NTP_LIVE_MATCH_HOLD_NS, ntp_live__on_pair, l);
	struct out o;
	char *lines[8];
	struct row r;

	assert_non_null(l);
	assert_non_null(m);
	gen_flights(h, t, 100, 4, false);
	for (int i = 0; i < 100; i++) {
		snprintf(h[i].disk, sizeof(h[i].disk), "nvme0n1");
		h[i].bytes = t[i].bytes = 4096;
		ntp_live_match__add_target(m, &t[i]);
		ntp_live_match__add_host(m, &h[i]);
	}
	out_open(&o);
	assert_int_equal(ntp_live__tick(l, o.f, 1.0, 1.0), 1);
	assert_int_equal(out_lines(&o, lines, 8), 3);
	parse_row(lines[2], &r);
	assert_string_equal(r.f[F_GROUP], "read 4KiB nvme0n1");
	assert_string_equal(r.f[F_N], "100");
	assert_string_equal(r.f[F_RATE], "100");
	for (int c = F_BLOCK; c <= F_STORAGE; c++)
		assert_string_not_equal(r.f[c], "");
	out_close(&o);
	ntp_live_match__free(m);
	ntp_live__free(l);
}

/*
 * The application's end-to-end: the mean of the interval's commands that
 * have it (h_app_submit to h_app_reap, else to h_app_done), right-aligned
 * under "app us"; a line of commands without it leaves the column blank.
 */
static void live__host_mode__app_e2e_of_the_commands_that_have_it(void **state)
{
	struct ntp_live *l = ntp_live__new(NTP_LIVE_HOST, 1);
	struct ntp_host_event e;
	struct out o;
	char *lines[8];
	size_t end = strlen(seed_columns) + strlen(app_header);

	(void)state;
	assert_non_null(l);
	/* reads: 10 us before the bio, done 2 us after h_done, reaped 30 us later */
	host_cmd(&e, 2, 4096, "nvme0n1", 1000, 2000, 7000);
	e.h_app_submit = e.h_start - 10000;
	e.h_app_done = e.h_done + 2000;
	e.h_app_reap = e.h_app_done + 30000;
	assert_int_equal(ntp_live__add_host(l, &e), 0);     /* 10 + 10 + 2 + 30 = 52 us */
	host_cmd(&e, 2, 4096, "nvme0n1", 1000, 2000, 7000);
	e.h_app_submit = e.h_start - 4000;
	e.h_app_done = e.h_done + 1001;
	assert_int_equal(ntp_live__add_host(l, &e), 0);     /* no reap: 4 + 10 + 1.001 = 15.001 us */
	host_cmd(&e, 2, 4096, "nvme0n1", 1000, 2000, 7000);
	e.h_app_done = e.h_done + 5000;                     /* no submission seen: not counted */
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	/* writes without the application's side */
	host_cmd(&e, 1, 4096, "nvme0n1", 1000, 2000, 7000);
	assert_int_equal(ntp_live__add_host(l, &e), 0);
	out_open(&o);
	assert_int_equal(ntp_live__tick(l, o.f, 1.0, 1.0), 2);
	assert_int_equal(out_lines(&o, lines, 8), 4);
	/* (52000 + 15001) / 2 = 33500.5 ns, rounded to whole ns as the mean is */
	assert_int_equal(strlen(lines[2]), end);
	assert_string_equal(lines[2] + end - 9, "    33.50");
	assert_true(strlen(lines[3]) < strlen(seed_columns));      /* trimmed after network* */
	out_close(&o);
	ntp_live__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(live__host_mode__lines_match_independent_values),
		cmocka_unit_test(live__quiet_interval__prints_nothing_and_header_once),
		cmocka_unit_test(live__host_mode__app_e2e_of_the_commands_that_have_it),
		cmocka_unit_test(live__equal_thirds__largest_remainder_sums_to_100),
		cmocka_unit_test(live__rows__interval_emptied_whole_run_kept),
		cmocka_unit_test(live__by_queue_and_process__rows_named_as_report_by),
		cmocka_unit_test(live__joined_mode__five_shares_even_with_negative_network),
		cmocka_unit_test(live__target_mode__residence_and_empty_host_columns),
		cmocka_unit_test(live__bad_arguments__einval),
		cmocka_unit_test(match__reused_keys_any_order__pairs_exactly),
		cmocka_unit_test(match__outside_flight__not_paired),
		cmocka_unit_test(match__host_event_held_for_the_reap__still_matches),
		cmocka_unit_test(match__unmatched__expire_after_hold_and_counted),
		cmocka_unit_test(match__full__evicts_oldest_and_counts),
		cmocka_unit_test(match__into_live__joined_lines),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
