// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's trigger (lib/monitor/mon_trigger.c): its parser on
 * every form ntprof-monitor(1) gives and on wrong ones, whose message names
 * the wrong token; and its evaluation on interval histograms counted here
 * as the kernel counts them (bpf/ntp_mon.h), held to exact statistics of
 * the same values within a bucket's width.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/monitor/mon_table.h"
#include "lib/monitor/mon_trigger.h"
#include "xorshift.h"

static struct ntp_trigger parse_ok(const char *s)
{
	struct ntp_trigger t;
	char why[200] = "";

	if (ntp_trigger__parse(s, &t, why, sizeof(why)))
		fail_msg("%s: %s", s, why);
	return t;
}

static void parse__forms__stage_stat_op_threshold(void **state)
{
	struct ntp_trigger t;

	(void)state;
	t = parse_ok("p99>5ms");
	assert_int_equal(t.stage, NTP_MON_E2E);
	assert_int_equal(t.stat, NTP_TRIGGER_PCT);
	assert_true(t.pct == 99.0);
	assert_false(t.or_equal);
	assert_int_equal(t.threshold_ns, 5000000);
	assert_string_equal(t.text, "p99>5ms");

	t = parse_ok("storage.p99.9>=250us");
	assert_int_equal(t.stage, NTP_MON_STORAGE);
	assert_true(t.pct == 99.9);
	assert_true(t.or_equal);
	assert_int_equal(t.threshold_ns, 250000);
	assert_int_equal(ntp_trigger__role(&t), NTP_MON_ROLE_TARGET);

	t = parse_ok("stage:network_star:p50>2ms");
	assert_int_equal(t.stage, NTP_MON_NETWORK_STAR);
	assert_true(t.pct == 50.0);
	assert_int_equal(ntp_trigger__role(&t), NTP_MON_ROLE_HOST);

	t = parse_ok("network_star:mean>1.5ms");
	assert_int_equal(t.stage, NTP_MON_NETWORK_STAR);
	assert_int_equal(t.stat, NTP_TRIGGER_MEAN);
	assert_int_equal(t.threshold_ns, 1500000);

	t = parse_ok("reap.p99>1ms");            /* the application's: the host's, with --app */
	assert_int_equal(t.stage, NTP_MON_APP_REAP);
	assert_int_equal(ntp_trigger__role(&t), NTP_MON_ROLE_HOST);
	assert_true(ntp_trigger__app(&t));
	t = parse_ok("app_e2e.mean>1ms");
	assert_int_equal(t.stage, NTP_MON_APP_E2E);
	t = parse_ok("target_driver.max>1s");
	assert_false(ntp_trigger__app(&t));
	assert_int_equal(t.stage, NTP_MON_TARGET_DRIVER);
	assert_int_equal(t.stat, NTP_TRIGGER_MAX);
	assert_int_equal(t.threshold_ns, 1000000000);

	t = parse_ok("residence.p90>0.002");     /* a bare number is seconds */
	assert_int_equal(t.stage, NTP_MON_RESIDENCE);
	assert_int_equal(t.threshold_ns, 2000000);

	t = parse_ok("block:p99.9999>100ns");
	assert_int_equal(t.stage, NTP_MON_BLOCK);
	assert_true(t.pct > 99.9998 && t.pct < 100);
	t = parse_ok("driver.mean>1us");
	assert_int_equal(t.stage, NTP_MON_DRIVER);
}

/* s is refused, and the message names token */
static void refused(const char *s, const char *token)
{
	struct ntp_trigger t;
	char why[200] = "", quoted[80];

	assert_int_equal(ntp_trigger__parse(s, &t, why, sizeof(why)), -1);
	snprintf(quoted, sizeof(quoted), "'%s'", token);
	if (!strstr(why, quoted))
		fail_msg("%s: \"%s\" does not name %s", s, why, quoted);
	assert_null(strchr(why, '\n'));
}

static void parse__bad__names_the_token(void **state)
{
	(void)state;
	refused("p99", "p99");
	refused("", "");
	refused("p99x>5ms", "p99x");
	refused("q99>5ms", "q99");
	refused("p100>5ms", "p100");
	refused("p0>5ms", "p0");
	refused("p99.99999>5ms", "p99.99999");
	refused("p99.>5ms", "p99.");
	refused("avg>5ms", "avg");
	refused("stroage.p99>5ms", "stroage");
	refused("network.p99>5ms", "network");       /* report's network is the joined stage */
	refused("storage.>5ms", "");
	refused("storage.p99>", "");
	refused("storage.p99>5parsecs", "5parsecs");
	refused("p99>-5ms", "-5ms");
	refused("p99>>5ms", ">5ms");
	refused("p99<5ms", "p99<5ms");
}

/* values (ns) counted into h as the kernel counts them */
static void fill(struct ntp_trigger_hist *h, const int64_t *v, size_t n)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < n; i++) {
		h->bucket[ntp_mon_bucket(v[i])]++;
		h->sum += v[i];
		h->n++;
	}
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void stat__random_values__within_a_bucket_of_exact(void **state)
{
	static const char *const exprs[] = { "p50>1ms", "p90>1ms", "p99>1ms", "p99.9>1ms", "mean>1ms",
					     "max>1ms" };
	static struct ntp_trigger_hist h;
	uint64_t x = XORSHIFT_SEED;
	int64_t v[5000];
	size_t i, k;
	double got, want;

	(void)state;
	for (i = 0; i < 5000; i++)      /* 100 us to about 10 ms, a long tail */
		v[i] = 100000 + (int64_t)(xorshift64(&x) % 1000000) * (int64_t)(1 + i % 10);
	fill(&h, v, 5000);
	qsort(v, 5000, sizeof(v[0]), cmp);
	for (k = 0; k < sizeof(exprs) / sizeof(exprs[0]); k++) {
		struct ntp_trigger t = parse_ok(exprs[k]);

		assert_true(ntp_trigger__stat(&t, &h, &got));
		if (t.stat == NTP_TRIGGER_MEAN) {
			double s = 0;

			for (i = 0; i < 5000; i++)
				s += (double)v[i];
			want = s / 5000;
			assert_true(got == want);
			continue;
		}
		want = t.stat == NTP_TRIGGER_MAX ? (double)v[4999] :
		       (double)v[(size_t)(t.pct / 100 * 5000 + 0.5) - 1];
		/* a bucket is 1/8 of an octave: under 12.5% of its value wide */
		if (!(got >= want * 0.875 && got <= want * 1.125))
			fail_msg("%s: %.0f, exact %.0f", exprs[k], got, want);
	}
}

static void holds__threshold_either_side(void **state)
{
	static struct ntp_trigger_hist h;
	int64_t v[200];
	double got;
	size_t i;

	(void)state;
	/* 197 commands of 1 ms, 3 of 20 ms: p99 (the 198th) is 20 ms */
	for (i = 0; i < 200; i++)
		v[i] = i < 197 ? 1000000 : 20000000;
	fill(&h, v, 200);
	{
		struct ntp_trigger above = parse_ok("p99>5ms"), below = parse_ok("p99>30ms");
		struct ntp_trigger median = parse_ok("p50>5ms"), mean = parse_ok("mean>1.1ms");

		assert_true(ntp_trigger__holds(&above, &h, &got));
		assert_true(got > 5e6 && got <= 20e6 * 1.125);
		assert_false(ntp_trigger__holds(&below, &h, &got));
		assert_false(ntp_trigger__holds(&median, &h, &got));
		assert_true(ntp_trigger__holds(&mean, &h, &got));
		assert_true(got == (197 * 1e6 + 3 * 20e6) / 200);
	}
}

static void holds__too_few_commands__never(void **state)
{
	static struct ntp_trigger_hist h;
	int64_t v[99];
	struct ntp_trigger p99 = parse_ok("p99>1us"), p50 = parse_ok("p50>1us");
	struct ntp_trigger p999 = parse_ok("p99.9>1us"), max = parse_ok("max>1us");
	double got;
	size_t i;

	(void)state;
	for (i = 0; i < 99; i++)
		v[i] = 5000000;
	fill(&h, v, 99);
	/* p99 needs 100 commands (lib/core/stat_table.h), p99.9 1000; p50 2 */
	assert_false(ntp_trigger__holds(&p99, &h, &got));
	assert_true(ntp_trigger__holds(&p50, &h, &got));
	assert_true(ntp_trigger__holds(&max, &h, &got));
	v[0] = 5000000;
	fill(&h, v, 99);
	h.bucket[ntp_mon_bucket(5000000)]++;
	h.n++;
	assert_true(ntp_trigger__holds(&p99, &h, &got));
	assert_false(ntp_trigger__holds(&p999, &h, &got));
	memset(&h, 0, sizeof(h));
	assert_false(ntp_trigger__holds(&max, &h, &got));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__forms__stage_stat_op_threshold),
		cmocka_unit_test(parse__bad__names_the_token),
		cmocka_unit_test(stat__random_values__within_a_bucket_of_exact),
		cmocka_unit_test(holds__threshold_either_side),
		cmocka_unit_test(holds__too_few_commands__never),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
