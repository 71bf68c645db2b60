// SPDX-License-Identifier: GPL-2.0
/*
 * The report's printers (lib/report/report_text.c, lib/report/report_json.c) on a model
 * built by hand, where the integration tests' generated recordings cannot
 * reach: a stage sum that does not add up, unknown duration and sample rate,
 * negative zero, --field-separator, sizes.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/core/size.h"
#include "lib/core/stat_table.h"
#include "lib/model/model_groups.h"
#include "lib/model/model_load.h"
#include "lib/report/report_json.h"
#include "lib/model/model.h"
#include "lib/report/report_text.h"

/* the host view's three stages: block, driver, network* */
#define HOST_STAGES 3

/* a host recording alone whose group's stage sums miss the end-to-end sum by 30 ns over 3 commands */
static void model(struct ntp_report *r, struct ntp_report_group *g)
{
	static struct ntp_report_file file;
	static struct ntp_summary stages[HOST_STAGES];

	memset(r, 0, sizeof(*r));
	memset(g, 0, sizeof(*g));
	memset(&file, 0, sizeof(file));
	file.hdr.path = "x.ntp";
	file.hdr.bpf_run_ns = -1;
	file.sides = NTP_SIDE_HOST;
	r->kind = NTP_REPORT_HOST;
	r->view = NTP_VIEW_HOST;
	r->files = &file;
	r->nfiles = 1;
	g->host_file = 1;
	g->io_type = "read";
	g->bytes = 4096;
	g->ns = "nvme0n1";
	g->stage = stages;
	g->nstages = HOST_STAGES;
	g->e2e = (struct ntp_summary){ .n = 3, .min = 900, .max = 1100, .mean = 1000,
				       .pct = { 1000, 1100, 1100, 1100 } };
	for (int s = 0; s < HOST_STAGES; s++) {
		g->stage[s] = (struct ntp_summary){ .n = 3, .min = 300, .max = 340, .mean = 330,
						    .pct = { 330, 340, 340, 340 } };
		g->sum_stage[s] = 990;
	}
	g->sum_e2e = 3000;
	g->mismatched = 1;
	g->est_rate = -1;
	r->groups = g;
	r->ngroups = 1;
	r->total = 3;
}

static char *print(const struct ntp_report *r, const struct ntp_report_opts *o, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	/* no evidence beyond the model: the recording's line only */
	struct ntp_diag d = { 0 };

	assert_non_null(f);
	if (json)
		assert_int_equal(ntp_report__print_json(r, &d, f, o), 0);
	else
		assert_int_equal(ntp_report__print_text(r, &d, f, o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void size_str__binary_units__exact_only(void **state)
{
	char b[32];

	ntp_size__str(4096, b, sizeof(b));
	assert_string_equal(b, "4KiB");
	ntp_size__str(1 << 20, b, sizeof(b));
	assert_string_equal(b, "1MiB");
	ntp_size__str(1536, b, sizeof(b));
	assert_string_equal(b, "1536B");
	ntp_size__str(0, b, sizeof(b));
	assert_string_equal(b, "0B");
}

static void unattributed__from_integer_sums__exact(void **state)
{
	struct ntp_report r;
	struct ntp_report_group g;

	model(&r, &g);
	assert_true(ntp_report__stages_unattributed_ns(&g, HOST_STAGES) == 10.0);
	assert_true(fabs(ntp_report__share_pct(&g, 10.0) - 1.0) < 1e-12);
	g.e2e.n = 0;
	assert_true(ntp_report__stages_unattributed_ns(&g, HOST_STAGES) == 0);
	assert_true(isnan(ntp_report__share_pct(&g, 1)));
}

static void text__sum_not_adding_up__failed_with_difference(void **state)
{
	struct ntp_report_opts o = { 0 };
	struct ntp_report r;
	struct ntp_report_group g;
	char *t;

	model(&r, &g);
	t = print(&r, &o, 0);
	assert_non_null(strstr(t, "# sum check: FAILED: the stage means add up to 0.990 us, "
				  "the end-to-end mean is 1.000 us (difference 10.00 ns); "
				  "1 of 3 commands do not add up\n"));
	/* no duration, no N: the rate is unknown, not 0 */
	assert_non_null(strstr(t, "# duration:          unknown\n"));
	assert_non_null(strstr(t, "  read       4KiB nvme0n1              3            -      0.90"));
	assert_non_null(strstr(t, "  unattributed         -      0.01         -"));
	free(t);
}

static void text__negative_zero__printed_as_zero(void **state)
{
	struct ntp_report_opts o = { .field_separator = ";" };
	struct ntp_report r;
	struct ntp_report_group g;
	char *t;

	model(&r, &g);
	/* -1/3 ns unattributed: a share that printf would show as -0.0 */
	g.sum_e2e = 2969;
	g.mismatched = 0;
	t = print(&r, &o, 0);
	assert_null(strstr(t, "-0.0"));
	assert_non_null(strstr(t, "(difference -0.33 ns); 0 of 3 commands"));
	/* stddev last: "-" for unattributed, which has only a mean */
	assert_non_null(strstr(t, "\nunattributed;-;0.00;-;-;-;-;-;0.0;-\n"));
	assert_non_null(strstr(t, "\n#stage;min;mean;p50;p90;p99;p99.9;max;share%;stddev\n"));
	free(t);
}

static void json__starts_with_the_version_keys__means_whole_ns(void **state)
{
	struct ntp_report_opts o = { 0 };
	struct ntp_report r;
	struct ntp_report_group g;
	char *t;

	model(&r, &g);
	g.e2e.mean = 1000.5;
	t = print(&r, &o, 1);
	assert_non_null(strstr(t, "{\"ntprof_version\":"));
	assert_true(strstr(t, "\"format_version\":2,") < strstr(t, "\"schema_version\":"));
	assert_true(strstr(t, "\"schema_version\":") < strstr(t, "\"command\":\"report\""));
	assert_non_null(strstr(t, "\"kind\":\"host\",\"stage_view\":\"summary\",\"e2e_is\":\"end-to-end\""));
	assert_non_null(strstr(t, "\"mean_ns\":1001"));
	assert_non_null(strstr(t, "\"est_cmds_per_s\":null"));
	assert_non_null(strstr(t, "\"sum_check\":{\"ok\":false,\"stage_sum_ns\":2970,"
				  "\"e2e_sum_ns\":3000,\"mismatched_commands\":1,\"impossible_commands\":0,"));
	free(t);
}

/* groups of 3, 4 and 1 commands of 8, under a limit in % */
static void limited(struct ntp_report *r, double limit)
{
	static const uint64_t n[] = { 3, 4, 1 };

	memset(r, 0, sizeof(*r));
	r->groups = calloc(3, sizeof(*r->groups));
	assert_non_null(r->groups);
	for (int i = 0; i < 3; i++) {
		r->groups[i].io_type = strdup("read");
		r->groups[i].ns = strdup("nvme0n1");
		r->groups[i].bytes = 4096 << i;
		r->groups[i].e2e.n = n[i];
	}
	r->ngroups = 3;
	r->total = 8;
	ntp_report__limit(r, limit);
}

static void percent_limit__leaves_out_small_groups_only(void **state)
{
	struct ntp_report r;

	limited(&r, 40);        /* 37.5%, 50% and 12.5% */
	assert_int_equal(r.ngroups, 1);
	assert_int_equal(r.groups[0].bytes, 8192);
	assert_int_equal(r.nhidden, 2);
	assert_true(r.percent_limit == 40);
	assert_int_equal(r.total, 8);
	ntp_report__free(&r);
	limited(&r, 37.5);      /* the order stays, the limit itself is in */
	assert_int_equal(r.ngroups, 2);
	assert_int_equal(r.groups[0].bytes, 4096);
	assert_int_equal(r.groups[1].bytes, 8192);
	assert_int_equal(r.nhidden, 1);
	ntp_report__free(&r);
	limited(&r, 0);
	assert_int_equal(r.ngroups, 3);
	assert_int_equal(r.nhidden, 0);
	ntp_report__free(&r);
}

/* every key its own group, found again by its hash whatever the order; merged alike */
static void groups__many_keys__each_found_again(void **state)
{
	struct ntp_group_set a = { .nstages = 1 }, b = { .nstages = 1 };
	struct ntp_report_group *g;
	int64_t stage = 5;
	size_t n;

	for (int pass = 0; pass < 2; pass++)
		for (int64_t k = 0; k < 5000; k++) {
			ssize_t i = ntp_group_set__find(&a, 1, k % 3 ? "read" : "write", k, "nvme0n1");

			assert_true(i >= 0);
			assert_int_equal(a.g[i].bytes, k);
			assert_int_equal(ntp_group_set__add(&a, (size_t)i, 5, &stage), 0);
		}
	assert_int_equal(a.n, 5000);
	for (int64_t k = 4999; k >= 0; k--) {
		ssize_t i = ntp_group_set__find(&b, 1, k % 3 ? "read" : "write", k, "nvme0n1");

		assert_int_equal(ntp_group_set__add(&b, (size_t)i, 5, &stage), 0);
	}
	assert_int_equal(ntp_group_set__merge(&a, &b), 0);
	ntp_group_set__free(&b);
	ntp_group_set__finish(&a, &g, &n);
	assert_int_equal(n, 5000);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(g[i].e2e.n, 3);
		assert_int_equal(g[i].sum_e2e, 15);
		ntp_report_group__free(&g[i]);
	}
	free(g);
}

/* below 0, or sums past 64 bits: counted as impossible, never in the statistics */
static void groups__impossible__counted_not_summed(void **state)
{
	struct ntp_group_set set = { .nstages = 2 }, other = { .nstages = 2 };
	int64_t ok[2] = { 1, 2 }, back[2] = { -1, 4 }, huge[2] = { INT64_MAX - 10, 10 };
	struct ntp_report_group *g;
	size_t n;
	ssize_t k = ntp_group_set__find(&set, 1, "read", 4096, "nvme0n1");

	assert_int_equal(ntp_group_set__add(&set, (size_t)k, 3, ok), 0);
	assert_int_equal(ntp_group_set__add(&set, (size_t)k, 3, back), 0);
	assert_int_equal(ntp_group_set__add(&set, (size_t)k, -3, ok), 0);
	assert_int_equal(ntp_group_set__add(&set, (size_t)k, INT64_MAX, huge), 0);
	ntp_group_set__impossible(&set, (size_t)k, NTP_IMPOSSIBLE_NOT_NUMBER);
	/* a stage that may be below 0 (a difference of two clocks) is kept */
	set.may_be_negative = 1u << 0;
	assert_int_equal(ntp_group_set__add(&set, (size_t)k, 3, back), 0);
	/* another reader's half whose sums do not fit with these: left out as overflow */
	k = ntp_group_set__find(&other, 1, "read", 4096, "nvme0n1");
	huge[0] = INT64_MAX - 12;
	assert_int_equal(ntp_group_set__add(&other, (size_t)k, INT64_MAX - 2, huge), 0);
	assert_int_equal(ntp_group_set__merge(&set, &other), 0);
	ntp_group_set__free(&other);
	ntp_group_set__finish(&set, &g, &n);
	assert_int_equal(n, 1);
	assert_int_equal(g->e2e.n, 2);
	assert_int_equal(g->sum_e2e, 6);
	assert_int_equal(g->impossible[NTP_IMPOSSIBLE_BACKWARDS], 2);
	assert_int_equal(g->impossible[NTP_IMPOSSIBLE_OVERFLOW], 2);
	assert_int_equal(g->impossible[NTP_IMPOSSIBLE_NOT_NUMBER], 1);
	assert_int_equal(ntp_report__impossible(g), 5);
	assert_true(ntp_report__sum_ok(g, 2));
	/* with none left, never ok */
	g->e2e.n = 0;
	g->sum_e2e = g->sum_stage[0] = g->sum_stage[1] = 0;
	assert_false(ntp_report__sum_ok(g, 2));
	ntp_report_group__free(g);
	free(g);
}

/*
 * A group's tail: the commands above the highest percentile its n can test
 * (p90 for 100 commands: p99 needs 500), their stages' means from the same
 * commands after two readers' halves are merged; stages below 0 counted
 */
static void groups__tail__commands_above_the_tested_percentile(void **state)
{
	struct ntp_group_set a = { .nstages = 2, .may_be_negative = 1u << 1 };
	struct ntp_group_set b = { .nstages = 2, .may_be_negative = 1u << 1 };
	struct ntp_report_group *g;
	size_t n;
	ssize_t ka = ntp_group_set__find(&a, 1, "read", 4096, "nvme0n1");
	ssize_t kb = ntp_group_set__find(&b, 1, "read", 4096, "nvme0n1");

	/* command i: e2e 10 i, stages 10 i + 5 and -5 (odd i) or 10 i and 0 */
	for (int64_t i = 1; i <= 100; i++) {
		int64_t st[2] = { 10 * i + (i & 1) * 5, -(i & 1) * 5 };

		assert_int_equal(ntp_group_set__add(i % 3 ? &a : &b, (size_t)(i % 3 ? ka : kb),
						    10 * i, st), 0);
	}
	assert_int_equal(ntp_group_set__merge(&a, &b), 0);
	ntp_group_set__free(&b);
	assert_int_equal(ntp_group_set__finish(&a, &g, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(g->tail.stat, NTP_STAT_PCT + 1);
	assert_int_equal(g->tail.above_ns, 900);
	assert_int_equal(g->tail.n, 10);
	/* 910 .. 1000 */
	assert_true(fabs(g->tail.e2e_mean - 955.0) < 1e-9);
	/* five odd of the ten: 5 x 5 / 10 more in stage 0, as much less in stage 1 */
	assert_true(fabs(g->tail.stage_mean[0] - 957.5) < 1e-9);
	assert_true(fabs(g->tail.stage_mean[1] + 2.5) < 1e-9);
	assert_int_equal(g->negative[0], 0);
	assert_int_equal(g->negative[1], 50);
	ntp_report_group__free(g);
	free(g);
}

/* too few commands for the lowest percentile's min_n: no tail */
static void groups__tail__none_below_min_n(void **state)
{
	struct ntp_group_set set = { .nstages = 1 };
	struct ntp_report_group *g;
	size_t n;
	ssize_t k = ntp_group_set__find(&set, 1, "read", 4096, "nvme0n1");

	for (int64_t i = 1; i < (int64_t)ntp_stats[NTP_STAT_PCT].min_n; i++)
		assert_int_equal(ntp_group_set__add(&set, (size_t)k, i, &i), 0);
	assert_int_equal(ntp_group_set__finish(&set, &g, &n), 0);
	assert_int_equal(g->tail.stat, NTP_STAT_N);
	assert_int_equal(g->tail.n, 0);
	ntp_report_group__free(g);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(size_str__binary_units__exact_only),
		cmocka_unit_test(unattributed__from_integer_sums__exact),
		cmocka_unit_test(text__sum_not_adding_up__failed_with_difference),
		cmocka_unit_test(text__negative_zero__printed_as_zero),
		cmocka_unit_test(json__starts_with_the_version_keys__means_whole_ns),
		cmocka_unit_test(percent_limit__leaves_out_small_groups_only),
		cmocka_unit_test(groups__many_keys__each_found_again),
		cmocka_unit_test(groups__impossible__counted_not_summed),
		cmocka_unit_test(groups__tail__commands_above_the_tested_percentile),
		cmocka_unit_test(groups__tail__none_below_min_n),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
