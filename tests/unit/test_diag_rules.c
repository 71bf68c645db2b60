// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnosis's rules (lib/diag/diag_rules.h): each at its threshold, on
 * both sides of it, on evidence built by hand; and their order.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/core/stat_table.h"
#include "lib/diag/diag_rules.h"

enum { BLOCK, DRIVER, NETWORK, TDRIVER, STORAGE, NST };

/*
 * A joined group of 1000 commands whose tail (p99's 10 commands) and mean
 * are each stage's share in pct[] of 100 us; the clock estimated and tight,
 * no errors, no queue known, no send evidence.
 */
static void joined(struct ntp_diag_evidence *e, const double pct[NST])
{
	const enum ntp_stage ids[NST] = { NTP_STAGE_BLOCK, NTP_STAGE_DRIVER, NTP_STAGE_NETWORK,
					  NTP_STAGE_TARGET_DRIVER, NTP_STAGE_STORAGE };

	memset(e, 0, sizeof(*e));
	e->n = 1000;
	e->tail_stat = NTP_STAT_PCT + 2;
	e->tail_n = 10;
	e->tail_above_ns = 90000;
	e->min_n = 10;
	e->nstages = NST;
	e->e2e_mean_ns = e->e2e_tail_ns = 100000;
	for (int s = 0; s < NST; s++) {
		e->stage[s] = ids[s];
		e->mean_ns[s] = e->tail_ns[s] = pct[s] * 1000;
	}
	e->joined = true;
	e->clock_estimated = true;
	e->tol_ns = 1000;
	e->resets = -1;
	e->network_p50_ns = (int64_t)(pct[NETWORK] * 1000);
}

static const double quiet[NST] = { 10, 20, 30, 20, 20 };
static const double storage_heavy[NST] = { 5, 10, 15, 10, 60 };
static const double driver_heavy[NST] = { 5, 60, 15, 10, 10 };
static const double network_heavy[NST] = { 5, 10, 60, 15, 10 };

static enum ntp_diag_cause cause(const struct ntp_diag_evidence *e)
{
	struct ntp_diag_verdict v;

	ntp_diag__decide(e, &v);
	/* the cause is the first rule that holds, and "none" always holds */
	assert_true(v.holds & 1u << v.cause);
	assert_true(v.cause == NTP_DIAG_INSUFFICIENT || v.holds & 1u << NTP_DIAG_NONE);
	for (int c = 0; c < (int)v.cause; c++)
		assert_false(v.holds & 1u << c);
	return v.cause;
}

static void set_queue(struct ntp_diag_queue *q, double inflight, int64_t depth, int submitters)
{
	q->known = true;
	q->inflight = inflight;
	q->depth = depth;
	q->submitters = submitters;
	q->submitter = submitters ? "processes" : NULL;
}

static void rules__table__one_per_cause_keys_unique(void **state)
{
	for (int c = 0; c < NTP_DIAG_NCAUSES; c++) {
		assert_int_equal(ntp_diag_rules[c].cause, c);
		assert_non_null(ntp_diag_rules[c].key);
		assert_non_null(ntp_diag_rules[c].text);
		assert_non_null(ntp_diag_rules[c].rule);
		for (int d = c + 1; d < NTP_DIAG_NCAUSES; d++)
			assert_string_not_equal(ntp_diag_rules[c].key, ntp_diag_rules[d].key);
	}
}

static void insufficient__no_tested_percentile__no_stage(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	joined(&e, storage_heavy);
	e.tail_stat = 0;
	e.tail_n = 0;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_INSUFFICIENT);
	assert_int_equal(v.holds, 1u << NTP_DIAG_INSUFFICIENT);
	assert_int_equal(v.tail_stage, -1);
	/* with a tested percentile the same evidence is diagnosed */
	joined(&e, storage_heavy);
	assert_int_not_equal(cause(&e), NTP_DIAG_INSUFFICIENT);
}

static void quiet__none__names_the_largest_stage(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	joined(&e, quiet);
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_NONE);
	assert_int_equal(v.tail_stage, NETWORK);
	assert_true(fabs(v.tail_pct - 30) < 1e-9);
	assert_int_equal(v.mean_stage, NETWORK);
}

static void clock__each_evidence_at_its_threshold(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	joined(&e, network_heavy);
	e.network_p50_ns = 600000;	/* a slow network, unless the clock is doubted */
	assert_int_equal(cause(&e), NTP_DIAG_NETWORK);

	e.clock_estimated = false;
	assert_int_equal(cause(&e), NTP_DIAG_CLOCK);
	e.clock_estimated = true;

	e.drift = NTP_DIAG_CLOCK_DRIFT * 0.99;
	assert_int_equal(cause(&e), NTP_DIAG_NETWORK);
	e.drift = -NTP_DIAG_CLOCK_DRIFT;
	assert_int_equal(cause(&e), NTP_DIAG_CLOCK);
	e.drift = 0;

	/* 1% of 1000 commands with a stage below 0 */
	e.negative[NETWORK] = 9;
	assert_int_equal(cause(&e), NTP_DIAG_NETWORK);
	e.negative[NETWORK] = 10;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_CLOCK);
	assert_string_equal(v.why, NTP_DIAG_WHY_NEGATIVE);
	/* the network is never blamed while the clock is doubted */
	assert_false(v.holds & 1u << NTP_DIAG_NETWORK);
	e.negative[NETWORK] = 0;

	/* the tolerance: 25% of the network's 60 us mean is 15 us */
	e.tol_ns = 14999;
	assert_int_equal(cause(&e), NTP_DIAG_NETWORK);
	e.tol_ns = 15000;
	assert_int_equal(cause(&e), NTP_DIAG_CLOCK);
	/* ... and never below 10 us */
	joined(&e, quiet);
	e.tol_ns = 9999;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.tol_ns = 10000;
	assert_int_equal(cause(&e), NTP_DIAG_CLOCK);

	/* 10% of each side left unpaired: the clocks off one line */
	joined(&e, network_heavy);
	e.network_p50_ns = 600000;
	e.unpaired_pct = NTP_DIAG_CLOCK_UNPAIRED_PCT * 0.99;
	assert_int_equal(cause(&e), NTP_DIAG_NETWORK);
	e.unpaired_pct = NTP_DIAG_CLOCK_UNPAIRED_PCT;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_CLOCK);
	assert_string_equal(v.why, NTP_DIAG_WHY_UNPAIRED);
	assert_false(v.holds & 1u << NTP_DIAG_NETWORK);

	/* not joined: no clock to doubt */
	joined(&e, quiet);
	e.joined = false;
	e.clock_estimated = false;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
}

static void errors__a_status_or_a_reset(void **state)
{
	struct ntp_diag_evidence e;

	joined(&e, quiet);
	e.resets = 0;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.errors = 1;
	assert_int_equal(cause(&e), NTP_DIAG_ERRORS);
	e.errors = 0;
	e.resets = 1;
	assert_int_equal(cause(&e), NTP_DIAG_ERRORS);
}

static void saturated__host_queue_at_90_pct_of_depth(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	joined(&e, driver_heavy);
	set_queue(&e.host_queue, 28.7, 32, 1);
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.host_queue.inflight = 28.8;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_SATURATED);
	assert_int_equal(v.part, NTP_DIAG_PART_HOST_DRIVER);
	/* without a stated depth, never */
	e.host_queue.depth = -1;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
}

/* the block layer dominating (tag waits): half the depth is enough */
static void saturated__tag_waits_at_half_the_depth(void **state)
{
	struct ntp_diag_evidence e;
	const double block_heavy[NST] = { 60, 15, 10, 10, 5 };

	joined(&e, block_heavy);
	set_queue(&e.host_queue, 7.9, 16, 1);
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.host_queue.inflight = 8;
	assert_int_equal(cause(&e), NTP_DIAG_SATURATED);
	/* without the block layer dominating, 90% it is */
	joined(&e, driver_heavy);
	set_queue(&e.host_queue, 8, 16, 1);
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	/* tag waits: saturated, not starved, however many submit */
	joined(&e, block_heavy);
	set_queue(&e.host_queue, 8, 16, 2);
	assert_int_equal(cause(&e), NTP_DIAG_SATURATED);
}

static void saturated__backend_only_where_storage_dominates(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	joined(&e, storage_heavy);
	set_queue(&e.backend, 28.8, 32, 0);
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_SATURATED);
	assert_int_equal(v.part, NTP_DIAG_PART_STORAGE);
	assert_false(v.holds & 1u << NTP_DIAG_BACKEND);
	e.backend.inflight = 28.7;
	assert_int_equal(cause(&e), NTP_DIAG_BACKEND);
	/* a full backend that does not dominate is no cause */
	joined(&e, quiet);
	set_queue(&e.backend, 32, 32, 0);
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
}

static void starved__eight_in_flight_from_two_submitters(void **state)
{
	struct ntp_diag_evidence e;

	joined(&e, driver_heavy);
	set_queue(&e.host_queue, 8, 128, 2);
	assert_int_equal(cause(&e), NTP_DIAG_STARVED);
	e.host_queue.inflight = 7.9;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.host_queue.inflight = 8;
	e.host_queue.submitters = 1;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	/* full to its depth: saturated, not starved */
	set_queue(&e.host_queue, 120, 128, 2);
	assert_int_equal(cause(&e), NTP_DIAG_SATURATED);
}

static void deferred__share_and_delay_at_thresholds(void **state)
{
	struct ntp_diag_evidence e;

	joined(&e, driver_heavy);
	e.sends_known = true;
	e.deferred = 50;
	e.inline_sends = 50;
	e.inline_delay_ns = 5000;
	e.deferred_delay_ns = 10000;
	assert_int_equal(cause(&e), NTP_DIAG_DEFERRED);
	e.deferred_delay_ns = 9999;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.deferred_delay_ns = 10000;
	e.deferred = 49;
	e.inline_sends = 51;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);

	/* fewer than 10 inline: the deferred delay against half the driver's 60 us */
	e.deferred = 100;
	e.inline_sends = 9;
	e.deferred_delay_ns = 30000;
	assert_int_equal(cause(&e), NTP_DIAG_DEFERRED);
	e.deferred_delay_ns = 29999;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);

	/* the driver must dominate, and the recording must tell */
	joined(&e, quiet);
	e.sends_known = true;
	e.deferred = 100;
	e.deferred_delay_ns = 1e6;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	joined(&e, driver_heavy);
	e.deferred = 100;
	e.deferred_delay_ns = 1e6;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
}

static void network__slow_median_or_lossy_tail(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	/* a network that dominates at a fabric's speed is no cause */
	joined(&e, network_heavy);
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.network_p50_ns = (int64_t)NTP_DIAG_SLOW_NETWORK_NS - 1;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.network_p50_ns = (int64_t)NTP_DIAG_SLOW_NETWORK_NS;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_NETWORK);
	assert_false(v.lossy);

	/* lossy: the tail's network mean (60 us) 10x its median */
	joined(&e, network_heavy);
	e.network_p50_ns = 6001;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	e.network_p50_ns = 6000;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_NETWORK);
	assert_true(v.lossy);

	/* a host alone's network* holds the target: never the network */
	joined(&e, network_heavy);
	e.network_p50_ns = 600000;
	e.host_alone = true;
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
}

static void backend__storage_at_half__not_below(void **state)
{
	struct ntp_diag_evidence e;
	const double half[NST] = { 10, 10, 20, 10, 50 };
	const double under[NST] = { 10, 10, 20, 10.1, 49.9 };

	joined(&e, half);
	assert_int_equal(cause(&e), NTP_DIAG_BACKEND);
	joined(&e, under);
	assert_int_equal(cause(&e), NTP_DIAG_NONE);
	/* the tail alone dominated is enough */
	e.tail_ns[STORAGE] = 80000;
	e.e2e_tail_ns = 100000 - 49900 + 80000;
	assert_int_equal(cause(&e), NTP_DIAG_BACKEND);
}

static void order__first_that_holds_is_named(void **state)
{
	struct ntp_diag_evidence e;
	struct ntp_diag_verdict v;

	joined(&e, driver_heavy);
	e.errors = 3;
	set_queue(&e.host_queue, 32, 32, 2);
	e.sends_known = true;
	e.deferred = 100;
	e.deferred_delay_ns = 1e6;
	ntp_diag__decide(&e, &v);
	assert_int_equal(v.cause, NTP_DIAG_ERRORS);
	assert_int_equal(v.holds, 1u << NTP_DIAG_ERRORS | 1u << NTP_DIAG_SATURATED |
			 1u << NTP_DIAG_DEFERRED | 1u << NTP_DIAG_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules__table__one_per_cause_keys_unique),
		cmocka_unit_test(insufficient__no_tested_percentile__no_stage),
		cmocka_unit_test(quiet__none__names_the_largest_stage),
		cmocka_unit_test(clock__each_evidence_at_its_threshold),
		cmocka_unit_test(errors__a_status_or_a_reset),
		cmocka_unit_test(saturated__host_queue_at_90_pct_of_depth),
		cmocka_unit_test(saturated__tag_waits_at_half_the_depth),
		cmocka_unit_test(saturated__backend_only_where_storage_dominates),
		cmocka_unit_test(starved__eight_in_flight_from_two_submitters),
		cmocka_unit_test(deferred__share_and_delay_at_thresholds),
		cmocka_unit_test(network__slow_median_or_lossy_tail),
		cmocka_unit_test(backend__storage_at_half__not_below),
		cmocka_unit_test(order__first_that_holds_is_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
