// SPDX-License-Identifier: GPL-2.0
/*
 * The monitor's parts that need no kernel: the BPF side's stage arithmetic
 * (bpf/ntp_mon.h) held to lib/core/stages.c record by record, its size
 * classes and bucket clamp, the metrics page (lib/monitor/mon_expo.c) read
 * back line by line and held to counts made here by brute force, and the
 * HTTP endpoint's parsers (lib/monitor/mon_http.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "lib/core/stages.h"
#include "lib/monitor/mon_expo.h"
#include "lib/monitor/mon_http.h"
#include "lib/monitor/mon_table.h"
#include "xorshift.h"

/* a timestamp near t, or 0 (no hook) one time in four */
static __u64 stamp(uint64_t *x, __u64 t)
{
	uint64_t r = xorshift64(x);

	return r % 4 == 0 ? 0 : t + r % 100000;
}

static void host_stages__random_records__as_lib_core(void **state)
{
	uint64_t x = XORSHIFT_SEED;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		__u64 t0 = 1000000000ULL + xorshift64(&x) % (1ULL << 40);
		struct ntp_host_event e = {
			.h_start = t0, .h_queue = t0 + xorshift64(&x) % 5000,
			.h_cmd_sent = stamp(&x, t0 + 6000), .h_r2t = stamp(&x, t0 + 9000),
			.h_data_sent = stamp(&x, t0 + 12000), .h_recv = stamp(&x, t0 + 50000),
			.h_done = t0 + 200000 + xorshift64(&x) % 1000,
		};
		struct ntp_host_stages want;
		__s64 got[4];

		ntp_stages__host(&e, &want);
		ntp_mon_host_stages(&e, got);
		assert_int_equal(got[NTP_MON_E2E], want.e2e);
		assert_int_equal(got[NTP_MON_BLOCK], want.block);
		assert_int_equal(got[NTP_MON_DRIVER], want.driver);
		assert_int_equal(got[NTP_MON_NETWORK_STAR], want.network_star);
	}
}

/*
 * The application's stages as host_app_stages has them (the stage table's
 * formulas): submit = h_start - h_app_submit, complete = h_app_done -
 * h_done, reap = h_app_reap - h_app_done, app e2e as lib/core; each only
 * where its stamps are (the view's NULL)
 */
static void app_stages__random_records__as_the_view(void **state)
{
	uint64_t x = XORSHIFT_SEED ^ 0xa9;
	int i, seen[4] = { 0 };

	(void)state;
	for (i = 0; i < 100000; i++) {
		__u64 t0 = 1000000000ULL + xorshift64(&x) % (1ULL << 40);
		struct ntp_host_event e = {
			.h_app_submit = stamp(&x, t0), .h_start = t0 + 100000,
			.h_done = t0 + 300000 + xorshift64(&x) % 1000,
			.h_app_done = stamp(&x, t0 + 400000), .h_app_reap = stamp(&x, t0 + 600000),
		};
		__s64 got[4];
		unsigned int have = ntp_mon_app_stages(&e, got);
		int64_t e2e;
		bool has_e2e = ntp_stages__app_e2e(&e, &e2e);

		assert_int_equal(!!(have & 1), e.h_app_submit != 0);
		assert_int_equal(!!(have & 2), e.h_app_done != 0);
		assert_int_equal(!!(have & 4), e.h_app_done && e.h_app_reap);
		assert_int_equal(!!(have & 8), has_e2e);
		if (have & 1)
			assert_int_equal(got[0], (__s64)(e.h_start - e.h_app_submit));
		if (have & 2)
			assert_int_equal(got[1], (__s64)(e.h_app_done - e.h_done));
		if (have & 4)
			assert_int_equal(got[2], (__s64)(e.h_app_reap - e.h_app_done));
		if (have & 8)
			assert_int_equal(got[3], e2e);
		for (int k = 0; k < 4; k++)
			seen[k] += !!(have & (1u << k));
	}
	/* every combination of stamps came up */
	for (i = 0; i < 4; i++)
		assert_true(seen[i] > 10000 && seen[i] < 100000);
}

static void target_stages__random_records__as_lib_core(void **state)
{
	uint64_t x = XORSHIFT_SEED ^ 0x55;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		__u64 t0 = 1000000000ULL + xorshift64(&x) % (1ULL << 40);
		struct ntp_target_event e = {
			.t_recv = t0, .t_r2t = stamp(&x, t0 + 1000), .t_submit = stamp(&x, t0 + 20000),
			.t_cmpl = stamp(&x, t0 + 150000), .t_sent = t0 + 190000 + xorshift64(&x) % 1000,
		};
		struct ntp_target_stages want;
		__s64 got[3];

		ntp_stages__target(&e, &want);
		ntp_mon_target_stages(&e, got);
		assert_int_equal(got[0], want.target_driver);
		assert_int_equal(got[1], want.storage);
		assert_int_equal(got[2], want.residence);
	}
}

static void size_class__powers_of_two__rounded_up(void **state)
{
	static const struct {
		__u32 bytes;
		const char *label;
	} cases[] = {
		{ 0, "512B" }, { 512, "512B" }, { 513, "1KiB" }, { 4096, "4KiB" }, { 4097, "8KiB" },
		{ 12288, "16KiB" }, { 131072, "128KiB" }, { 1 << 20, "1MiB" },
		{ (1 << 20) + 512, "over_1MiB" }, { 0xffffffffu, "over_1MiB" },
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ntp_mon_expo__size(ntp_mon_size_class(cases[i].bytes), buf, sizeof(buf));
		assert_string_equal(buf, cases[i].label);
	}
}

static void bucket__beyond_last_octave__last_bucket_above_every_le(void **state)
{
	(void)state;
	assert_int_equal(ntp_mon_bucket(-7), 0);
	assert_int_equal(ntp_mon_bucket((1LL << NTP_MON_MAX_OCTAVE) - 1), NTP_MON_NBUCKETS - 1);
	assert_int_equal(ntp_mon_bucket(1LL << NTP_MON_MAX_OCTAVE), NTP_MON_NBUCKETS - 1);
	assert_int_equal(ntp_mon_bucket(INT64_MAX), NTP_MON_NBUCKETS - 1);
	assert_true(ntp_mon_bucket((1LL << NTP_MON_MAX_OCTAVE) - 2) == NTP_MON_NBUCKETS - 1);
	/* what the last bucket holds is only in +Inf */
	assert_true(ntp_hist_bucket_lo(NTP_MON_NBUCKETS - 1, NTP_HIST_SUB_BITS) >
		    ntp_mon_expo__le_ns(NTP_MON_EXPO_BUCKETS - 1));
}

static void le__range_and_resolution__one_us_to_ten_s_four_an_octave(void **state)
{
	int i;

	(void)state;
	/* the first bucket holds 1 us, the last 10 s, and the next one would not */
	assert_true(ntp_mon_expo__le_ns(0) >= NTP_MON_EXPO_MIN_NS);
	assert_true(ntp_hist_bucket_lo(ntp_hist_bucket(NTP_MON_EXPO_MIN_NS, 2), 2) <= NTP_MON_EXPO_MIN_NS);
	assert_true(ntp_mon_expo__le_ns(NTP_MON_EXPO_BUCKETS - 1) >= NTP_MON_EXPO_MAX_NS);
	assert_true(ntp_mon_expo__le_ns(NTP_MON_EXPO_BUCKETS - 2) < NTP_MON_EXPO_MAX_NS);
	for (i = 1; i < NTP_MON_EXPO_BUCKETS; i++) {
		int64_t a = ntp_mon_expo__le_ns(i - 1), b = ntp_mon_expo__le_ns(i);

		assert_true(b > a);
		/* 4 an octave: each bucket at most a quarter of its lower bound wide */
		assert_true((b - a) * 4 <= a + 1);
		/* and a coarse bound is a fine one */
		assert_int_equal(ntp_hist_bucket_hi(ntp_hist_bucket(b, NTP_HIST_SUB_BITS), NTP_HIST_SUB_BITS),
				 b);
	}
}

static void seconds__exact_decimal(void **state)
{
	char b[32];

	(void)state;
	ntp_mon_expo__seconds(0, b, sizeof(b));
	assert_string_equal(b, "0");
	ntp_mon_expo__seconds(1023, b, sizeof(b));
	assert_string_equal(b, "0.000001023");
	ntp_mon_expo__seconds(1500000000, b, sizeof(b));
	assert_string_equal(b, "1.5");
	ntp_mon_expo__seconds(-5, b, sizeof(b));
	assert_string_equal(b, "-0.000000005");
	ntp_mon_expo__seconds(INT64_MIN, b, sizeof(b));
	assert_string_equal(b, "-9223372036.854775808");
	ntp_mon_expo__seconds(10737418239LL, b, sizeof(b));
	assert_string_equal(b, "10.737418239");
}

/* exact decimal seconds back to ns */
static int64_t parse_ns(const char *s)
{
	int64_t sec = 0, frac = 0, sign = 1;
	int digits = 0;

	if (*s == '-') {
		sign = -1;
		s++;
	}
	while (*s >= '0' && *s <= '9')
		sec = sec * 10 + (*s++ - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; digits++)
			frac = frac * 10 + (*s++ - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	return sign * (sec * 1000000000LL + frac);
}

#define NVALS 5000

static void page__random_series__buckets_cumulative_and_exact(void **state)
{
	static int64_t vals[3][NVALS];
	struct ntp_mon_table t = { 0 };
	struct ntp_mon_snapshot s = { .table = &t, .nsides = 2, .sample_one_in = 7,
				      .side = { { .role = NTP_MON_ROLE_HOST, .seen = 70, .sampled = 10,
						  .series = 2 },
						{ .role = NTP_MON_ROLE_TARGET, .seen = 9, .lost_hist = 3,
						  .series = 1 } } };
	struct ntp_mon_key keys[3] = {
		{ .stage = NTP_MON_E2E, .io = NTP_MON_IO_READ, .size_class = 3, .ctrl = 0, .nsid = 1 },
		{ .stage = NTP_MON_NETWORK_STAR, .io = NTP_MON_IO_WRITE, .size_class = 8, .ctrl = 2, .nsid = 5 },
		{ .stage = NTP_MON_STORAGE, .io = NTP_MON_IO_READ, .size_class = 3, .ctrl = 1, .nsid = 1 },
	};
	uint64_t x = XORSHIFT_SEED ^ 0x77;
	char *page, *line, *save;
	size_t len;
	FILE *f;
	int i, j, lines[3] = { 0 }, seen_infs = 0;
	int64_t last_le[3];
	uint64_t last_cum[3];

	(void)state;
	for (i = 0; i < 3; i++) {
		struct ntp_mon_series *r = ntp_mon_table__add(&t, i < 2 ? NTP_MON_ROLE_HOST :
							      NTP_MON_ROLE_TARGET, &keys[i]);

		assert_non_null(r);
		for (j = 0; j < NVALS; j++) {
			/* from below 1 us to beyond 10 s and 2^36 ns, a few negative */
			int64_t v = (int64_t)(xorshift64(&x) >> (xorshift64(&x) % 63 + 1)) - 3;

			vals[i][j] = v;
			r->h.sum += (__u64)v;
			r->h.bucket[ntp_mon_bucket(v)]++;
		}
		last_le[i] = INT64_MIN;
		last_cum[i] = 0;
	}
	ntp_mon_table__sort(&t);
	f = open_memstream(&page, &len);
	assert_non_null(f);
	assert_int_equal(ntp_mon_expo__write(f, &s), 0);
	fclose(f);

	for (line = strtok_r(page, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *stage = NULL;
		int k = -1;

		if (line[0] == '#')
			continue;
		if (strstr(line, "stage=\"e2e\""))
			k = 0, stage = "e2e";
		else if (strstr(line, "stage=\"network_star\""))
			k = 1, stage = "network_star";
		else if (strstr(line, "stage=\"storage\""))
			k = 2, stage = "storage";
		if (k < 0)
			continue;
		assert_non_null(stage);
		if (!strncmp(line, "ntprof_stage_seconds_bucket{", 28)) {
			const char *le = strstr(line, ",le=\"");
			uint64_t cum = strtoull(strrchr(line, ' ') + 1, NULL, 10), want = 0;

			assert_non_null(le);
			le += 5;
			lines[k]++;
			if (!strncmp(le, "+Inf\"", 5)) {
				assert_int_equal(cum, NVALS);
				seen_infs++;
			} else {
				int64_t lens = parse_ns(le);

				assert_true(lens > last_le[k]);
				assert_true(cum >= last_cum[k]);
				for (j = 0; j < NVALS; j++)
					want += vals[k][j] <= lens;
				assert_int_equal(cum, want);
				last_le[k] = lens;
				last_cum[k] = cum;
			}
		} else if (!strncmp(line, "ntprof_stage_seconds_sum{", 25)) {
			int64_t want = 0;

			for (j = 0; j < NVALS; j++)
				want = (int64_t)((uint64_t)want + (uint64_t)vals[k][j]);
			assert_int_equal(parse_ns(strrchr(line, ' ') + 1), want);
		} else if (!strncmp(line, "ntprof_stage_seconds_count{", 27)) {
			assert_int_equal(strtoull(strrchr(line, ' ') + 1, NULL, 10), NVALS);
		}
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(lines[i], NTP_MON_EXPO_BUCKETS + 1);
	assert_int_equal(seen_infs, 3);
	free(page);
	ntp_mon_table__free(&t);
}

static void page__labels_and_own_metrics(void **state)
{
	struct ntp_mon_table t = { 0 };
	struct ntp_mon_key hk = { .stage = NTP_MON_DRIVER, .io = NTP_MON_IO_WRITE, .size_class = 3,
				  .ctrl = 4, .nsid = 2 };
	struct ntp_mon_key tk = { .stage = NTP_MON_TARGET_DRIVER, .io = NTP_MON_IO_OTHER,
				  .size_class = 12, .ctrl = 9, .nsid = 1 };
	struct ntp_mon_snapshot s = { .table = &t, .nsides = 2, .sample_one_in = 1000,
				      .side = { { .role = NTP_MON_ROLE_HOST, .seen = 123456, .sampled = 123,
						  .lost_map = 4, .series = 1, .have_cost = true,
						  .cost_runs = 5000, .cost_run_ns = 1500000,
						  .cost_commands = 1000 },
						{ .role = NTP_MON_ROLE_TARGET, .seen = 5, .lost_hist = 2,
						  .flight_filtered = 17, .series = 1 } } };
	char *page;
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(ntp_mon_table__add(&t, NTP_MON_ROLE_TARGET, &tk));
	assert_non_null(ntp_mon_table__add(&t, NTP_MON_ROLE_HOST, &hk));
	ntp_mon_table__sort(&t);
	assert_int_equal(t.s[0].role, NTP_MON_ROLE_HOST);
	f = open_memstream(&page, &len);
	assert_int_equal(ntp_mon_expo__write(f, &s), 0);
	fclose(f);
	assert_non_null(strstr(page, "# TYPE ntprof_stage_seconds histogram\n"));
	assert_non_null(strstr(page, "ntprof_stage_seconds_count{role=\"host\",stage=\"driver\","
				     "io_type=\"write\",size=\"4KiB\",controller=\"nvme4\",namespace=\"2\"} 0\n"));
	assert_non_null(strstr(page, "ntprof_stage_seconds_count{role=\"target\",stage=\"target_driver\","
				     "io_type=\"other\",size=\"over_1MiB\",controller=\"9\",namespace=\"1\"} 0\n"));
	assert_non_null(strstr(page, "\nntprof_sample_one_in 1000\n"));
	assert_non_null(strstr(page, "\nntprof_commands_seen_total{role=\"host\"} 123456\n"));
	assert_non_null(strstr(page, "\nntprof_commands_sampled_total{role=\"host\"} 123\n"));
	assert_non_null(strstr(page, "\nntprof_lost_total{role=\"host\",cause=\"inflight_map\"} 4\n"));
	assert_non_null(strstr(page, "\nntprof_lost_total{role=\"target\",cause=\"hist_map\"} 2\n"));
	assert_non_null(strstr(page, "\nntprof_hist_series{role=\"target\"} 1\n"));
	assert_non_null(strstr(page, "\nntprof_flight_filtered_total{role=\"target\"} 17\n"));
	assert_non_null(strstr(page, "\nntprof_flight_filtered_total{role=\"host\"} 0\n"));
	assert_non_null(strstr(page, "\nntprof_bpf_ns_per_command{role=\"host\"} 1500.0\n"));
	assert_non_null(strstr(page, "\nntprof_bpf_runs_per_command{role=\"host\"} 5.00\n"));
	/* no cost measured on the target's side: no line rather than a false 0 */
	assert_null(strstr(page, "ntprof_bpf_ns_per_command{role=\"target\"}"));
	assert_null(strstr(page, "ntprof_bpf_runs_per_command{role=\"target\"}"));
	free(page);
	ntp_mon_table__free(&t);
}

/*
 * ntprof-monitor(1), "The number of series": at most 156 histograms a host
 * controller and namespace (4 stages, 3 I/O types, 13 size classes), 312
 * with --app (4 more stages), 117 a target's, each of 97 lines.  Every key
 * a controller can have, on a page.
 */
static void page__one_controller_full__documented_series_count(void **state)
{
	struct ntp_mon_table t = { 0 };
	struct ntp_mon_snapshot s = { .table = &t, .nsides = 2, .sample_one_in = 1,
				      .side = { { .role = NTP_MON_ROLE_HOST },
						{ .role = NTP_MON_ROLE_TARGET } } };
	int stage, io, size, per_role[2] = { 0 }, lines = 0;
	char *page, *p;
	size_t len;
	FILE *f;

	(void)state;
	for (stage = 0; stage < NTP_MON_NSTAGES; stage++)
		for (io = 0; io < 3; io++)
			for (size = 0; size < NTP_MON_SIZE_CLASSES; size++) {
				struct ntp_mon_key k = { .stage = stage, .io = io, .size_class = size,
							 .ctrl = 1, .nsid = 1 };
				enum ntp_mon_role role = stage >= NTP_MON_TARGET_DRIVER &&
							 stage <= NTP_MON_RESIDENCE ? NTP_MON_ROLE_TARGET :
							 NTP_MON_ROLE_HOST;

				assert_non_null(ntp_mon_table__add(&t, role, &k));
				per_role[role]++;
			}
	assert_int_equal(per_role[NTP_MON_ROLE_HOST], 312);
	assert_int_equal(per_role[NTP_MON_ROLE_TARGET], 117);
	assert_true(312 <= NTP_MON_MAX_SERIES && 117 <= NTP_MON_MAX_SERIES);
	ntp_mon_table__sort(&t);
	f = open_memstream(&page, &len);
	assert_int_equal(ntp_mon_expo__write(f, &s), 0);
	fclose(f);
	for (p = page; (p = strstr(p, "\nntprof_stage_seconds_")); p++)
		lines++;
	assert_int_equal(lines, (312 + 117) * 97);
	free(page);
	ntp_mon_table__free(&t);
}

static enum ntp_http_parse parse(const char *s, struct ntp_http_req *r)
{
	return ntp_http__parse(s, strlen(s), r);
}

static void http_parse__requests(void **state)
{
	struct ntp_http_req r;
	char big[NTP_HTTP_MAX_HEAD + 10];

	(void)state;
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r), NTP_HTTP_DONE);
	assert_string_equal(r.method, "GET");
	assert_string_equal(r.path, "/metrics");
	assert_int_equal(parse("HEAD /metrics?x=1 HTTP/1.0\n\n", &r), NTP_HTTP_DONE);
	assert_string_equal(r.method, "HEAD");
	assert_string_equal(r.path, "/metrics");
	assert_int_equal(parse("POST / HTTP/1.1\r\n\r\n", &r), NTP_HTTP_DONE);
	assert_string_equal(r.method, "POST");
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", &r), NTP_HTTP_INCOMPLETE);
	assert_int_equal(parse("GET /met", &r), NTP_HTTP_INCOMPLETE);
	assert_int_equal(parse("", &r), NTP_HTTP_INCOMPLETE);
	assert_int_equal(parse("\r\n\r\n", &r), NTP_HTTP_BAD);
	assert_int_equal(parse("GET metrics HTTP/1.1\r\n\r\n", &r), NTP_HTTP_BAD);
	assert_int_equal(parse("GET /metrics\r\n\r\n", &r), NTP_HTTP_BAD);
	assert_int_equal(parse("GET /metrics SPDY/3\r\n\r\n", &r), NTP_HTTP_BAD);
	assert_int_equal(parse("get /metrics HTTP/1.1\r\n\r\n", &r), NTP_HTTP_BAD);
	assert_int_equal(parse("GETTINGLONG / HTTP/1.1\r\n\r\n", &r), NTP_HTTP_BAD);
	assert_int_equal(parse("GET /a\x01 HTTP/1.1\r\n\r\n", &r), NTP_HTTP_BAD);
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	assert_int_equal(ntp_http__parse(big, sizeof(big), &r), NTP_HTTP_BAD);
}

static void http_listen__addresses(void **state)
{
	static const char *const bad[] = { "9464", ":9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
					   "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:94x",
					   "localhost:9464", "::1:9464", "[::1]", "[::1]9464",
					   "[nonsense]:1", "1.2.3:80" };
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];
	size_t i;

	(void)state;
	assert_int_equal(ntp_http__parse_listen("127.0.0.1:9464", &ss, &len, why, sizeof(why)), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 9464);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(ntp_http__parse_listen("[::1]:65535", &ss, &len, why, sizeof(why)), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 65535);
	assert_int_equal(ntp_http__parse_listen("0.0.0.0:1", &ss, &len, why, sizeof(why)), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(ntp_http__parse_listen(bad[i], &ss, &len, why, sizeof(why)), -1);
		assert_true(why[0] != '\0');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(host_stages__random_records__as_lib_core),
		cmocka_unit_test(app_stages__random_records__as_the_view),
		cmocka_unit_test(target_stages__random_records__as_lib_core),
		cmocka_unit_test(size_class__powers_of_two__rounded_up),
		cmocka_unit_test(bucket__beyond_last_octave__last_bucket_above_every_le),
		cmocka_unit_test(le__range_and_resolution__one_us_to_ten_s_four_an_octave),
		cmocka_unit_test(seconds__exact_decimal),
		cmocka_unit_test(page__random_series__buckets_cumulative_and_exact),
		cmocka_unit_test(page__labels_and_own_metrics),
		cmocka_unit_test(page__one_controller_full__documented_series_count),
		cmocka_unit_test(http_parse__requests),
		cmocka_unit_test(http_listen__addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
