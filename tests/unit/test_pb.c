// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/fmt/pb.c: the wire format byte for byte, against encodings
 * worked out by hand from the protocol buffers encoding rules (varints of
 * 7-bit groups, low group first; tags of field << 3 | wire type).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/fmt/pb.h"

static int setup(void **state)
{
	static struct ntp_pb pb;

	ntp_pb__init(&pb);
	*state = &pb;
	return 0;
}

static int teardown(void **state)
{
	ntp_pb__free(*state);
	return 0;
}

static void expect_bytes(const struct ntp_pb *pb, const uint8_t *want, size_t n)
{
	assert_int_equal(ntp_pb__ok(pb), 0);
	assert_int_equal(pb->len, n);
	assert_memory_equal(pb->buf, want, n);
}

static void unit__varint_150__two_bytes(void **state)
{
	static const uint8_t want[] = { 0x08, 0x96, 0x01 };

	ntp_pb__uint(*state, 1, 150);
	expect_bytes(*state, want, sizeof(want));
}

static void unit__negative_int__ten_byte_varint(void **state)
{
	static const uint8_t want[] = { 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

	ntp_pb__int(*state, 4, -1);
	expect_bytes(*state, want, sizeof(want));
}

static void unit__large_field_number__multi_byte_tag(void **state)
{
	/* field 60, wire type 0: (60 << 3) = 480 = 0xe0 0x03 */
	static const uint8_t want[] = { 0xe0, 0x03, 0x00 };

	ntp_pb__uint(*state, 60, 0);
	expect_bytes(*state, want, sizeof(want));
}

static void unit__fixed64__little_endian(void **state)
{
	static const uint8_t want[] = { 0x79, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };

	ntp_pb__fixed64(*state, 15, 0x0102030405060708ull);
	expect_bytes(*state, want, sizeof(want));
}

static void unit__double__ieee_bits(void **state)
{
	/* 1.0 = 0x3ff0000000000000 */
	static const uint8_t want[] = { 0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f };

	ntp_pb__double(*state, 1, 1.0);
	expect_bytes(*state, want, sizeof(want));
}

static void unit__string__length_prefixed(void **state)
{
	static const uint8_t want[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };

	ntp_pb__string(*state, 2, "testing");
	expect_bytes(*state, want, sizeof(want));
}

static void unit__nested_messages__lengths_inserted(void **state)
{
	/* 3 { 1: 150 }, then 4 { 5 { 6: "a" } } */
	static const uint8_t want[] = { 0x1a, 0x03, 0x08, 0x96, 0x01,
					0x22, 0x05, 0x2a, 0x03, 0x32, 0x01, 'a' };

	ntp_pb__begin(*state, 3);
	ntp_pb__uint(*state, 1, 150);
	ntp_pb__end(*state);
	ntp_pb__begin(*state, 4);
	ntp_pb__begin(*state, 5);
	ntp_pb__string(*state, 6, "a");
	ntp_pb__end(*state);
	ntp_pb__end(*state);
	expect_bytes(*state, want, sizeof(want));
}

static void unit__nested_message_over_127_bytes__two_byte_length(void **state)
{
	struct ntp_pb *pb = *state;
	char s[201];

	memset(s, 'x', 200);
	s[200] = '\0';
	ntp_pb__begin(pb, 1);
	ntp_pb__string(pb, 2, s);	/* 1 tag + 2 length + 200 = 203 bytes */
	ntp_pb__end(pb);
	assert_int_equal(ntp_pb__ok(pb), 0);
	assert_int_equal(pb->len, 1 + 2 + 203);
	assert_int_equal(pb->buf[1], 0x80 | (203 & 0x7f));
	assert_int_equal(pb->buf[2], 203 >> 7);
	assert_int_equal(pb->buf[3], 0x12);
}

static void unit__end_without_begin__failed(void **state)
{
	ntp_pb__end(*state);
	assert_int_equal(ntp_pb__ok(*state), -1);
}

static void unit__nesting_too_deep__failed(void **state)
{
	for (int i = 0; i <= NTP_PB_MAX_DEPTH; i++)
		ntp_pb__begin(*state, 1);
	assert_int_equal(ntp_pb__ok(*state), -1);
}

static void unit__reset__clears_bytes_and_failure(void **state)
{
	static const uint8_t want[] = { 0x08, 0x01 };

	ntp_pb__end(*state);
	ntp_pb__reset(*state);
	ntp_pb__uint(*state, 1, 1);
	expect_bytes(*state, want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(unit__varint_150__two_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__negative_int__ten_byte_varint, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__large_field_number__multi_byte_tag, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__fixed64__little_endian, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__double__ieee_bits, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__string__length_prefixed, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__nested_messages__lengths_inserted, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__nested_message_over_127_bytes__two_byte_length, setup,
						teardown),
		cmocka_unit_test_setup_teardown(unit__end_without_begin__failed, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__nesting_too_deep__failed, setup, teardown),
		cmocka_unit_test_setup_teardown(unit__reset__clears_bytes_and_failure, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
