// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/fmt/json.c: layout, commas, escaping, numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/fmt/json.h"

struct doc {
	char *buf;
	size_t len;
	FILE *f;
	struct ntp_json *j;
};

static int open_doc(void **state, bool pretty)
{
	struct doc *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->f = open_memstream(&d->buf, &d->len);
	assert_non_null(d->f);
	d->j = ntp_json__new(d->f, pretty);
	assert_non_null(d->j);
	*state = d;
	return 0;
}

static int setup_compact(void **state)
{
	return open_doc(state, false);
}

static int setup_pretty(void **state)
{
	return open_doc(state, true);
}

static int teardown(void **state)
{
	struct doc *d = *state;

	if (d->f)
		fclose(d->f);
	free(d->buf);
	free(d);
	return 0;
}

/* ends the document and returns everything written */
static const char *text(void **state)
{
	struct doc *d = *state;

	ntp_json__delete(d->j);
	fclose(d->f);
	d->f = NULL;
	return d->buf;
}

#define J(state) (((struct doc *)*(state))->j)

/* one object with a member of every kind, used in both modes */
static void write_sample(struct ntp_json *j)
{
	ntp_json__start_object(j);
	ntp_json__string_field(j, "name", "nvme0n1");
	ntp_json__uint_field(j, "count", 3);
	ntp_json__name(j, "stages");
	ntp_json__start_array(j);
	ntp_json__start_object(j);
	ntp_json__int_field(j, "delta_ns", -5);
	ntp_json__end_object(j);
	ntp_json__start_object(j);
	ntp_json__end_object(j);
	ntp_json__uint(j, 7);
	ntp_json__end_array(j);
	ntp_json__name(j, "empty");
	ntp_json__start_array(j);
	ntp_json__end_array(j);
	ntp_json__bool_field(j, "ok", true);
	ntp_json__name(j, "none");
	ntp_json__null(j);
	ntp_json__end_object(j);
}

static void unit__compact_nested__commas_between_items_only(void **state)
{
	write_sample(J(state));
	assert_string_equal(text(state),
			    "{\"name\":\"nvme0n1\",\"count\":3,\"stages\":[{\"delta_ns\":-5},{},7],"
			    "\"empty\":[],\"ok\":true,\"none\":null}\n");
}

static void unit__pretty_nested__two_space_indent(void **state)
{
	write_sample(J(state));
	assert_string_equal(text(state),
			    "{\n"
			    "  \"name\": \"nvme0n1\",\n"
			    "  \"count\": 3,\n"
			    "  \"stages\": [\n"
			    "    {\n"
			    "      \"delta_ns\": -5\n"
			    "    },\n"
			    "    {},\n"
			    "    7\n"
			    "  ],\n"
			    "  \"empty\": [],\n"
			    "  \"ok\": true,\n"
			    "  \"none\": null\n"
			    "}\n");
}

static void unit__empty_object__braces_only(void **state)
{
	ntp_json__start_object(J(state));
	ntp_json__end_object(J(state));
	assert_string_equal(text(state), "{}\n");
}

static void unit__array_of_scalars__comma_separated(void **state)
{
	struct ntp_json *j = J(state);

	ntp_json__start_array(j);
	ntp_json__uint(j, 1);
	ntp_json__string(j, "a");
	ntp_json__bool(j, false);
	ntp_json__string(j, NULL);
	ntp_json__end_array(j);
	assert_string_equal(text(state), "[1,\"a\",false,null]\n");
}

static void unit__two_top_level_documents__one_per_line(void **state)
{
	struct ntp_json *j = J(state);

	ntp_json__start_object(j);
	ntp_json__uint_field(j, "a", 1);
	ntp_json__end_object(j);
	ntp_json__start_object(j);
	ntp_json__uint_field(j, "a", 2);
	ntp_json__end_object(j);
	assert_string_equal(text(state), "{\"a\":1}\n{\"a\":2}\n");
}

static void unit__special_characters__escaped(void **state)
{
	ntp_json__string(J(state), "q\" b\\ \b\f\n\r\t \x01\x1f\x7f /");
	assert_string_equal(text(state), "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001\\u001f\x7f /\"\n");
}

static void unit__member_name__escaped_too(void **state)
{
	struct ntp_json *j = J(state);

	ntp_json__start_object(j);
	ntp_json__uint_field(j, "a\"b\n", 1);
	ntp_json__end_object(j);
	assert_string_equal(text(state), "{\"a\\\"b\\n\":1}\n");
}

static void unit__valid_utf8__passed_through(void **state)
{
	/* é (2 bytes), € (3 bytes), U+1F600 (4 bytes) */
	ntp_json__string(J(state), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	assert_string_equal(text(state), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n");
}

static void unit__invalid_utf8__replacement_character(void **state)
{
	/* a stray byte, an overlong '/', a truncated sequence, a UTF-16 surrogate */
	ntp_json__string(J(state), "a\xff" "b\xc0\xaf" "c\xe2\x82" "d\xed\xa0\x80");
	assert_string_equal(text(state),
			    "\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffd\"\n");
}

static void unit__nan_and_infinity__null(void **state)
{
	struct ntp_json *j = J(state);

	ntp_json__start_array(j);
	ntp_json__double(j, NAN);
	ntp_json__double(j, INFINITY);
	ntp_json__double(j, -INFINITY);
	ntp_json__end_array(j);
	assert_string_equal(text(state), "[null,null,null]\n");
}

static void unit__doubles__shortest_round_trip(void **state)
{
	struct ntp_json *j = J(state);

	ntp_json__start_array(j);
	ntp_json__double(j, 0.1);
	ntp_json__double(j, 2.5);
	ntp_json__double(j, 1e300);
	ntp_json__double(j, -3);
	ntp_json__double(j, 1.0 / 3);
	ntp_json__end_array(j);
	assert_string_equal(text(state), "[0.1,2.5,1e+300,-3,0.3333333333333333]\n");
}

static void unit__integer_limits__exact(void **state)
{
	struct ntp_json *j = J(state);

	ntp_json__start_object(j);
	ntp_json__uint_field(j, "max", UINT64_MAX);
	ntp_json__int_field(j, "min", INT64_MIN);
	ntp_json__double_field(j, "d", 0.5);
	ntp_json__end_object(j);
	assert_string_equal(text(state),
			    "{\"max\":18446744073709551615,\"min\":-9223372036854775808,\"d\":0.5}\n");
}

static void unit__error_document__code_and_message(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ntp_json__error_document(f, 7, "x.ntp: not an ntprof recording: \"bad\"");
	fclose(f);
	assert_string_equal(buf,
			    "{\n"
			    "  \"error\": {\n"
			    "    \"code\": 7,\n"
			    "    \"message\": \"x.ntp: not an ntprof recording: \\\"bad\\\"\"\n"
			    "  }\n"
			    "}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(unit__compact_nested__commas_between_items_only,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__pretty_nested__two_space_indent,
						setup_pretty, teardown),
		cmocka_unit_test_setup_teardown(unit__empty_object__braces_only, setup_pretty, teardown),
		cmocka_unit_test_setup_teardown(unit__array_of_scalars__comma_separated,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__two_top_level_documents__one_per_line,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__special_characters__escaped, setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__member_name__escaped_too, setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__valid_utf8__passed_through, setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__invalid_utf8__replacement_character,
						setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__nan_and_infinity__null, setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__doubles__shortest_round_trip, setup_compact, teardown),
		cmocka_unit_test_setup_teardown(unit__integer_limits__exact, setup_compact, teardown),
		cmocka_unit_test(unit__error_document__code_and_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
