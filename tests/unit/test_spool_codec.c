// SPDX-License-Identifier: GPL-2.0
/*
 * The spool's records as the words that changed (lib/ntp/spool_codec.c):
 * what is encoded decodes to the same bytes, host and target records
 * interleaved; a record cut short asks for more; a head of no known kind,
 * or with bits past its record's words, is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include <cmocka.h>

#include "lib/ntp/spool_codec.h"
#include "tests/unit/xorshift.h"

/* like a queue's stream: the names and process stay, times and addresses move */
static void next_host(struct ntp_host_event *e, uint64_t *rng)
{
	uint64_t r = xorshift64(rng);

	e->kind = NTP_EV_HOST_IO;
	e->h_start += 1000 + (r & 0xfff);
	e->h_queue = e->h_start + 300;
	e->h_cmd_sent = e->h_queue + 200;
	e->h_recv = e->h_cmd_sent + (r >> 20 & 0xffff);
	e->h_done = e->h_recv + 100;
	e->slba = r >> 8;
	e->cid = (__u16)r;
	e->opcode = r >> 62 ? 2 : 1;
	/* now and then a field that seldom moves */
	if (!(r & 0x70))
		e->pid = (__u32)(r >> 32);
	strcpy(e->disk, "nvme0n1");
	strcpy(e->path, "nvme0c0n1");
}

static void next_target(struct ntp_target_event *e, uint64_t *rng)
{
	uint64_t r = xorshift64(rng);

	e->kind = NTP_EV_TARGET_IO;
	e->t_recv += 500 + (r & 0xff);
	e->t_submit = e->t_recv + 50;
	e->t_cmpl = e->t_submit + (r >> 16 & 0xfff);
	e->t_sent = e->t_cmpl + 20;
	e->slba = r >> 4;
	e->cid = (__u16)(r >> 40);
	strcpy(e->device, "nullb0");
}

static void codec__stream__decodes_to_the_same_records(void **state)
{
	static unsigned char buf[1000 * NTP_SPOOL_MAX_REC];
	struct ntp_host_event h = { 0 }, hs[1000];
	struct ntp_target_event t = { 0 }, ts[1000];
	struct ntp_spool_prev enc = { 0 }, dec = { 0 };
	uint64_t rng = XORSHIFT_SEED;
	size_t len = 0, used, at = 0;
	int i, nh = 0, nt = 0, k;

	(void)state;
	for (i = 0; i < 1000; i++) {
		if (xorshift64(&rng) & 1) {
			next_host(&h, &rng);
			hs[nh++] = h;
			len += ntp_spool__encode(&enc, NTP_SPOOL_HOST, &h, buf + len);
		} else {
			next_target(&t, &rng);
			ts[nt++] = t;
			len += ntp_spool__encode(&enc, NTP_SPOOL_TARGET, &t, buf + len);
		}
	}
	/* the names and the process are not repeated: well under the structs' size */
	assert_true(len < (size_t)nh * sizeof(h) * 6 / 10 + (size_t)nt * sizeof(t) * 7 / 10);

	for (i = 0, nh = 0, nt = 0; at < len; i++) {
		k = ntp_spool__decode(&dec, buf + at, len - at, &used);
		assert_true(k == NTP_SPOOL_HOST || k == NTP_SPOOL_TARGET);
		if (k == NTP_SPOOL_HOST)
			assert_memory_equal(dec.host, &hs[nh++], sizeof(h));
		else
			assert_memory_equal(dec.target, &ts[nt++], sizeof(t));
		at += used;
	}
	assert_int_equal(i, 1000);
	assert_int_equal(at, len);
}

static void codec__same_record_twice__head_only(void **state)
{
	struct ntp_spool_prev enc = { 0 }, dec = { 0 };
	struct ntp_host_event h = { .kind = NTP_EV_HOST_IO, .h_start = 5, .h_done = 9 };
	unsigned char buf[2 * NTP_SPOOL_MAX_REC];
	size_t n1, n2, used;

	(void)state;
	n1 = ntp_spool__encode(&enc, NTP_SPOOL_HOST, &h, buf);
	/* against the all-zero start: the three non-zero words */
	assert_int_equal(n1, 4 + 3 * 8);
	n2 = ntp_spool__encode(&enc, NTP_SPOOL_HOST, &h, buf + n1);
	assert_int_equal(n2, 4);
	assert_int_equal(ntp_spool__decode(&dec, buf, n1 + n2, &used), NTP_SPOOL_HOST);
	assert_int_equal(used, n1);
	memset(dec.host, 0xff, 8);	/* the decoder's copy, changed: only the words sent count */
	assert_int_equal(ntp_spool__decode(&dec, buf + n1, n2, &used), NTP_SPOOL_HOST);
	assert_int_equal(used, 4);
	assert_memory_not_equal(dec.host, &h, sizeof(h));
}

static void codec__cut_short__asks_for_the_rest(void **state)
{
	struct ntp_spool_prev enc = { 0 }, dec = { 0 };
	struct ntp_host_event h = { .kind = NTP_EV_HOST_IO, .h_start = 5, .slba = 7 };
	unsigned char buf[NTP_SPOOL_MAX_REC];
	size_t n, used;

	(void)state;
	n = ntp_spool__encode(&enc, NTP_SPOOL_HOST, &h, buf);
	assert_int_equal(ntp_spool__decode(&dec, buf, 3, &used), 0);
	assert_int_equal(used, 4);
	assert_int_equal(ntp_spool__decode(&dec, buf, n - 1, &used), 0);
	assert_int_equal(used, n);
	assert_int_equal(ntp_spool__decode(&dec, buf, n, &used), NTP_SPOOL_HOST);
	assert_memory_equal(dec.host, &h, sizeof(h));
}

/* a write that stopped part way: the records whole in it, by kind, and their bytes */
static void codec__whole__counts_records_before_the_cut(void **state)
{
	unsigned char buf[8 * NTP_SPOOL_MAX_REC];
	struct ntp_spool_prev enc = { 0 };
	struct ntp_host_event h = { 0 };
	struct ntp_target_event t = { 0 };
	size_t at[6], len = 0, cut;
	uint64_t rng = 7, host, target;
	int i;

	for (i = 0; i < 5; i++) {
		at[i] = len;
		if (i == 2) {
			next_target(&t, &rng);
			len += ntp_spool__encode(&enc, NTP_SPOOL_TARGET, &t, buf + len);
		} else {
			next_host(&h, &rng);
			len += ntp_spool__encode(&enc, NTP_SPOOL_HOST, &h, buf + len);
		}
	}
	at[5] = len;
	/* every cut: the records that end at or before it */
	for (cut = 0; cut <= len; cut++) {
		size_t whole = ntp_spool__whole(buf, cut, &host, &target);
		int n = 0;

		while (n < 5 && at[n + 1] <= cut)
			n++;
		assert_int_equal(whole, at[n]);
		assert_int_equal(host + target, n);
		assert_int_equal(target, n > 2);
	}
	/* a head of no known kind ends the count */
	memset(buf + at[1], 0, 4);
	assert_int_equal(ntp_spool__whole(buf, len, &host, &target), at[1]);
	assert_int_equal(host, 1);
	assert_int_equal(target, 0);
}

static void codec__unknown_head__refused(void **state)
{
	struct ntp_spool_prev dec = { 0 };
	unsigned char buf[NTP_SPOOL_MAX_REC] = { 0 };
	uint32_t head;
	size_t used;

	(void)state;
	head = 3;       /* no such kind */
	memcpy(buf, &head, 4);
	assert_int_equal(ntp_spool__decode(&dec, buf, sizeof(buf), &used), -1);
	head = 0;
	memcpy(buf, &head, 4);
	assert_int_equal(ntp_spool__decode(&dec, buf, sizeof(buf), &used), -1);
	/* a target record has fewer words than the head has bits */
	head = (1u << NTP_SPOOL_TARGET_WORDS) << 2 | NTP_SPOOL_TARGET;
	memcpy(buf, &head, 4);
	assert_int_equal(ntp_spool__decode(&dec, buf, sizeof(buf), &used), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(codec__stream__decodes_to_the_same_records),
		cmocka_unit_test(codec__same_record_twice__head_only),
		cmocka_unit_test(codec__cut_short__asks_for_the_rest),
		cmocka_unit_test(codec__unknown_head__refused),
		cmocka_unit_test(codec__whole__counts_records_before_the_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
