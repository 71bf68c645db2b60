// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/cli/opt.c: the option parser, the value parsers and the hints. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/cli/err.h"
#include "lib/cli/opt.h"

/* ---- capturing what the parser prints ------------------------------------ */

struct capture {
	int fd, saved;
	FILE *tmp;
	char text[4096];
};

static void capture_start(struct capture *c, int fd)
{
	fflush(fd == 1 ? stdout : stderr);
	c->fd = fd;
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), fd) >= 0);
}

static const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(c->fd == 1 ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->tmp);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->tmp);
	c->text[n] = '\0';
	fclose(c->tmp);
	return c->text;
}

/* ---- a table with one option of every type -------------------------------- */

struct opts {
	bool all, all_set, quiet;
	int verbose;
	const char *output;
	uint64_t sample, size;
	double duration;
	const char *io_type;
	bool sample_set;
	bool kprobes, fentry;
};

static struct opts o;
static const char *const io_types[] = { "read", "write", NULL };
static const char *const usage[] = { "ntprof test [options] FILE...", "ntprof test --other", NULL };

static int parse_size_cb(const struct ntp_option *opt, const char *arg)
{
	if (ntp_opt__parse_size(arg, opt->value)) {
		ntp_error("invalid size '%s'", arg);
		return -1;
	}
	return 0;
}

#define TABLE                                                                              \
	const struct ntp_option table[] = {                                                \
		{ .type = NTP_OPT_TYPE_BOOL, .short_name = 'a', .long_name = "all",        \
		  .value = &o.all, .help = "everything", .is_set = &o.all_set },            \
		NTP_OPT_BOOL('q', NULL, &o.quiet, "say less"),                             \
		NTP_OPT_INCR('v', "verbose", &o.verbose, "say more"),                      \
		NTP_OPT_STRING('o', "output", &o.output, "FILE", "write to FILE"),         \
		{ .type = NTP_OPT_TYPE_UINT, .short_name = 's', .long_name = "sample",     \
		  .value = &o.sample, .argh = "N", .help = "record one command in N",      \
		  .min = 1, .max = 1000000, .is_set = &o.sample_set },                      \
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'd', .long_name = "duration", \
		  .value = &o.duration, .argh = "SEC", .help = "stop after SEC" },          \
		NTP_OPT_CHOICE(0, "io-type", &o.io_type, "TYPE", "only TYPE", io_types),   \
		NTP_OPT_CALLBACK(0, "size", &o.size, "SIZE", "only SIZE", parse_size_cb),  \
		{ .type = NTP_OPT_TYPE_BOOL, .long_name = "kprobes", .value = &o.kprobes,  \
		  .help = "force kprobes", .group = 1 },                                    \
		{ .type = NTP_OPT_TYPE_BOOL, .long_name = "fentry", .value = &o.fentry,    \
		  .help = "force fentry", .group = 1 },                                     \
		NTP_OPT_END(),                                                             \
	}

static int reset(void **state)
{
	memset(&o, 0, sizeof(o));
	ntp_err__set_cmd("test");
	return 0;
}

/* parse a NULL-terminated list; the parser may rewrite argv, so copy into av */
#define MAX_ARGS 16
static const char *av[MAX_ARGS + 1];

static int parse_flags(unsigned int flags, const char *first, ...)
{
	va_list ap;
	const char *a;
	int argc = 0;
	TABLE;

	av[argc++] = "test";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *)) {
		assert_true(argc < MAX_ARGS);
		av[argc++] = a;
	}
	va_end(ap);
	av[argc] = NULL;
	return ntp_opt__parse(table, argc, av, usage, flags);
}

#define parse(...) parse_flags(0, __VA_ARGS__, NULL)

/* an error: returns NTP_OPT_ERROR and prints exactly the expected line */
static void assert_parse_error(const char *expected, unsigned int flags, const char *first, ...)
{
	struct capture c;
	va_list ap;
	int n = 0, rc;
	TABLE;

	av[n++] = "test";
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *))
		av[n++] = a;
	va_end(ap);
	av[n] = NULL;
	capture_start(&c, 2);
	rc = ntp_opt__parse(table, n, av, usage, flags);
	capture_end(&c);
	assert_int_equal(rc, NTP_OPT_ERROR);
	assert_string_equal(c.text, expected);
}

/* ---- flags --------------------------------------------------------------- */

static void unit__bool_short_and_long__set_with_is_set(void **state)
{
	assert_int_equal(parse("-a"), 0);
	assert_true(o.all);
	assert_true(o.all_set);
	reset(NULL);
	assert_int_equal(parse("--all"), 0);
	assert_true(o.all);
	assert_true(o.all_set);
	reset(NULL);
	assert_int_equal(parse("-q"), 0);
	assert_false(o.all_set);
}

static void unit__incr_clustered_and_repeated__counts_each(void **state)
{
	assert_int_equal(parse("-vv", "--verbose", "-v"), 0);
	assert_int_equal(o.verbose, 4);
}

static void unit__cluster_of_flags_then_value__all_applied(void **state)
{
	assert_int_equal(parse("-aqvs10"), 0);
	assert_true(o.all);
	assert_true(o.quiet);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.sample, 10);
}

static void unit__value_attached_or_separate__same_result(void **state)
{
	const char *forms[][3] = {
		{ "-s10", NULL }, { "-s", "10" }, { "--sample=10", NULL }, { "--sample", "10" },
	};
	size_t k;

	for (k = 0; k < 4; k++) {
		reset(NULL);
		assert_int_equal(parse_flags(0, forms[k][0], forms[k][1], NULL), 0);
		assert_int_equal(o.sample, 10);
		assert_true(o.sample_set);
	}
}

static void unit__string_value__points_into_argv(void **state)
{
	assert_int_equal(parse("-o", "out.ntp"), 0);
	assert_string_equal(o.output, "out.ntp");
	assert_int_equal(parse("--output=a=b"), 0);
	assert_string_equal(o.output, "a=b");
	/* a separate value is taken as is, even when it starts with a dash */
	assert_int_equal(parse("-o", "-"), 0);
	assert_string_equal(o.output, "-");
}

static void unit__repeated_value__last_wins(void **state)
{
	assert_int_equal(parse("-s", "5", "--sample=7"), 0);
	assert_int_equal(o.sample, 7);
}

static void unit__seconds_option__units_applied(void **state)
{
	assert_int_equal(parse("-d", "500ms"), 0);
	assert_true(fabs(o.duration - 0.5) < 1e-12);
	assert_int_equal(parse("--duration=2m"), 0);
	assert_true(fabs(o.duration - 120) < 1e-12);
}

static void unit__choice_valid__stored(void **state)
{
	assert_int_equal(parse("--io-type", "write"), 0);
	assert_string_equal(o.io_type, "write");
}

static void unit__callback_size__called_with_value(void **state)
{
	assert_int_equal(parse("--size=4K"), 0);
	assert_int_equal(o.size, 4096);
	assert_int_equal(parse("--size", "1M"), 0);
	assert_int_equal(o.size, 1 << 20);
}

/* ---- operands ------------------------------------------------------------ */

static void unit__operands_mixed_with_options__kept_in_order(void **state)
{
	int n = parse("a.ntp", "-v", "b.ntp", "--sample", "3", "c.ntp");

	assert_int_equal(n, 3);
	assert_string_equal(av[0], "a.ntp");
	assert_string_equal(av[1], "b.ntp");
	assert_string_equal(av[2], "c.ntp");
	assert_null(av[3]);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.sample, 3);
}

static void unit__double_dash__ends_options_and_is_dropped(void **state)
{
	int n = parse("-v", "--", "-s", "--all", "x");

	assert_int_equal(n, 3);
	assert_string_equal(av[0], "-s");
	assert_string_equal(av[1], "--all");
	assert_string_equal(av[2], "x");
	assert_int_equal(o.sample, 0);
	assert_false(o.all);
}

static void unit__lone_dash__is_an_operand(void **state)
{
	assert_int_equal(parse("-"), 1);
	assert_string_equal(av[0], "-");
}

static void unit__stop_at_non_option__rest_left_untouched(void **state)
{
	int n = parse_flags(NTP_OPT_STOP_AT_NON_OPTION, "-v", "fio", "-s", "5", "--all", NULL);

	assert_int_equal(n, 4);
	assert_string_equal(av[0], "fio");
	assert_string_equal(av[1], "-s");
	assert_string_equal(av[2], "5");
	assert_string_equal(av[3], "--all");
	assert_null(av[4]);
	assert_int_equal(o.verbose, 1);
	assert_int_equal(o.sample, 0);
}

static void unit__stop_at_non_option_with_double_dash__dash_dropped(void **state)
{
	int n = parse_flags(NTP_OPT_STOP_AT_NON_OPTION, "-a", "--", "dd", "-v", NULL);

	assert_int_equal(n, 2);
	assert_string_equal(av[0], "dd");
	assert_string_equal(av[1], "-v");
	assert_int_equal(o.verbose, 0);
}

static void unit__no_arguments__zero_operands(void **state)
{
	assert_int_equal(parse_flags(0, NULL), 0);
}

/* ---- groups -------------------------------------------------------------- */

static void unit__exclusive_group_both_given__error_names_both(void **state)
{
	assert_parse_error("ntprof test: error: options '--kprobes' and '--fentry' cannot be used together\n",
			   0, "--kprobes", "--fentry", NULL);
}

static void unit__exclusive_group_one_given_twice__accepted(void **state)
{
	assert_int_equal(parse("--fentry", "--fentry"), 0);
	assert_true(o.fentry);
	assert_false(o.kprobes);
}

/* ---- errors -------------------------------------------------------------- */

static void unit__unknown_long_option_close_to_one__did_you_mean(void **state)
{
	assert_parse_error("ntprof test: error: unknown option '--sampel'; did you mean '--sample'?\n",
			   0, "--sampel", "3", NULL);
}

static void unit__unknown_long_option_far_from_all__no_hint(void **state)
{
	assert_parse_error("ntprof test: error: unknown option '--foo'\n", 0, "--foo", NULL);
}

static void unit__unknown_long_option_with_value__names_option_only(void **state)
{
	assert_parse_error("ntprof test: error: unknown option '--foo'\n", 0, "--foo=1", NULL);
}

static void unit__long_prefix__not_accepted(void **state)
{
	assert_parse_error("ntprof test: error: unknown option '--samp'; did you mean '--sample'?\n",
			   0, "--samp=3", NULL);
}

static void unit__unknown_short_option__error(void **state)
{
	assert_parse_error("ntprof test: error: unknown option '-x'\n", 0, "-vx", NULL);
}

static void unit__long_name_with_one_dash__hints_two_dashes(void **state)
{
	assert_parse_error("ntprof test: error: unknown option '-l'; did you mean '--all'?\n",
			   0, "-all", NULL);
}

static void unit__missing_value__error_names_option(void **state)
{
	assert_parse_error("ntprof test: error: option '-s' requires a value\n", 0, "-s", NULL);
	assert_parse_error("ntprof test: error: option '--output' requires a value\n", 0, "--output", NULL);
}

static void unit__empty_value__error(void **state)
{
	assert_parse_error("ntprof test: error: option '--output' requires a non-empty value\n",
			   0, "--output=", NULL);
}

static void unit__flag_given_a_value__error(void **state)
{
	assert_parse_error("ntprof test: error: option '--verbose' takes no value (given '3')\n",
			   0, "--verbose=3", NULL);
}

static void unit__uint_out_of_range__error_names_value_and_range(void **state)
{
	assert_parse_error("ntprof test: error: invalid value '0' for option '-s': must be between 1 and 1000000\n",
			   0, "-s0", NULL);
	assert_parse_error("ntprof test: error: invalid value '1000001' for option '--sample': must be between 1 and 1000000\n",
			   0, "--sample=1000001", NULL);
}

static void unit__uint_not_decimal__error(void **state)
{
	assert_parse_error("ntprof test: error: invalid value '0x10' for option '-s': not a decimal number\n",
			   0, "-s", "0x10", NULL);
	assert_parse_error("ntprof test: error: invalid value '-1' for option '-s': not a decimal number\n",
			   0, "-s", "-1", NULL);
	assert_parse_error("ntprof test: error: invalid value '99999999999999999999' for option '-s': too large\n",
			   0, "-s", "99999999999999999999", NULL);
}

static void unit__seconds_invalid__error(void **state)
{
	assert_parse_error("ntprof test: error: invalid value '5x' for option '-d': expected seconds such as 10, 2.5, 500ms or 2m\n",
			   0, "-d5x", NULL);
}

static void unit__choice_invalid__error_lists_choices(void **state)
{
	assert_parse_error("ntprof test: error: invalid value 'rw' for option '--io-type': expected one of read, write\n",
			   0, "--io-type=rw", NULL);
}

static void unit__callback_fails__error(void **state)
{
	assert_parse_error("ntprof test: error: invalid size '4X'\n", 0, "--size", "4X", NULL);
}

/* ---- help and usage ------------------------------------------------------ */

static const char expected_usage[] =
	"usage: ntprof test [options] FILE...\n"
	"   or: ntprof test --other\n"
	"\n"
	"    -a, --all           everything\n"
	"    -q                  say less\n"
	"    -v, --verbose       say more\n"
	"    -o, --output FILE   write to FILE\n"
	"    -s, --sample N      record one command in N\n"
	"    -d, --duration SEC  stop after SEC\n"
	"        --io-type TYPE  only TYPE\n"
	"        --size SIZE     only SIZE\n"
	"        --kprobes       force kprobes\n"
	"        --fentry        force fentry\n"
	"    -h, --help          show this help and exit\n";

static void unit__usage__both_forms_on_one_aligned_line(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	TABLE;

	assert_non_null(f);
	ntp_opt__usage(f, usage, table);
	fclose(f);
	assert_string_equal(buf, expected_usage);
	free(buf);
}

static void unit__help_long_or_short__prints_usage_to_stdout(void **state)
{
	const char *forms[] = { "--help", "-h", "-vh" };
	struct capture out, err;
	size_t k;
	int rc;

	for (k = 0; k < 3; k++) {
		capture_start(&err, 2);
		capture_start(&out, 1);
		rc = parse_flags(0, "x", forms[k], "--bogus", NULL);
		capture_end(&out);
		capture_end(&err);
		assert_int_equal(rc, NTP_OPT_HELP);
		assert_string_equal(out.text, expected_usage);
		assert_string_equal(err.text, "");
	}
}

static void unit__help_defined_by_table__table_wins(void **state)
{
	bool human = false;
	const struct ntp_option table[] = {
		NTP_OPT_BOOL('h', "human", &human, "human-readable sizes"),
		NTP_OPT_END(),
	};
	const char *args[] = { "t", "-h", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(ntp_opt__parse(table, 2, args, usage, 0), 0);
	assert_true(human);
	f = open_memstream(&buf, &len);
	ntp_opt__usage(f, usage, table);
	fclose(f);
	/* --help still works, but is not listed with a -h it does not have */
	assert_null(strstr(buf, "--help"));
	free(buf);
}

static void unit__usage_long_spec__help_on_next_line(void **state)
{
	const char *s = NULL;
	const struct ntp_option table[] = {
		NTP_OPT_STRING('x', "a-very-long-option-name", &s, "ARGUMENT", "its help"),
		NTP_OPT_STRING('y', "yes", &s, "Y", "short one"),
		NTP_OPT_END(),
	};
	const char *const u[] = { "t", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ntp_opt__usage(f, u, table);
	fclose(f);
	assert_string_equal(buf,
			    "usage: t\n\n"
			    "    -x, --a-very-long-option-name ARGUMENT\n"
			    "                 its help\n"
			    "    -y, --yes Y  short one\n"
			    "    -h, --help   show this help and exit\n");
	free(buf);
}

static void unit__usage_values_without_argh__listed_as_choices(void **state)
{
	const char *s = NULL;
	const struct ntp_option table[] = {
		NTP_OPT_STRING(0, "io", &s, NULL, "a type", .values = io_types),
		NTP_OPT_STRING(0, "kind", &s, "K", "named", .values = io_types),
		NTP_OPT_END(),
	};
	const char *const u[] = { "t", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ntp_opt__usage(f, u, table);
	fclose(f);
	assert_string_equal(buf,
			    "usage: t\n\n"
			    "        --io read|write  a type\n"
			    "        --kind K         named\n"
			    "    -h, --help           show this help and exit\n");
	assert_ptr_equal(ntp_opt__value_words(&table[0]), io_types);
	free(buf);
}

static void unit__hidden_option__parsed_but_not_in_usage(void **state)
{
	const char *s = NULL;
	bool b = false;
	const struct ntp_option table[] = {
		NTP_OPT_BOOL('b', "bee", &b, "shown"),
		NTP_OPT_STRING(0, "secret", &s, "X", "not shown", .hidden = true),
		NTP_OPT_END(),
	};
	const char *args[] = { "t", "--secret", "yes", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(ntp_opt__parse(table, 3, args, usage, 0), 0);
	assert_string_equal(s, "yes");
	f = open_memstream(&buf, &len);
	ntp_opt__usage(f, usage, table);
	fclose(f);
	assert_null(strstr(buf, "secret"));
	assert_non_null(strstr(buf, "--bee"));
	free(buf);
}

static void unit__hidden_option__never_suggested(void **state)
{
	const char *s = NULL;
	const struct ntp_option table[] = {
		NTP_OPT_STRING(0, "secret", &s, "X", "not shown", .hidden = true),
		NTP_OPT_END(),
	};
	const char *args[] = { "t", "--secre", "x", NULL };
	struct capture err;
	int rc;

	capture_start(&err, 2);
	rc = ntp_opt__parse(table, 3, args, usage, 0);
	capture_end(&err);
	assert_int_equal(rc, NTP_OPT_ERROR);
	assert_string_equal(err.text, "ntprof test: error: unknown option '--secre'\n");
}

struct seen_table {
	const struct ntp_option *opts;
	unsigned int flags;
	int calls;
};

static void remember_table(void *ctx, const struct ntp_option *opts, unsigned int flags)
{
	struct seen_table *t = ctx;

	t->opts = opts;
	t->flags = flags;
	t->calls++;
}

static void unit__table_hook__table_handed_over_nothing_parsed(void **state)
{
	struct seen_table seen = { 0 };
	bool b = false;
	const struct ntp_option table[] = {
		NTP_OPT_BOOL('b', "bee", &b, "a flag"),
		NTP_OPT_END(),
	};
	const char *args[] = { "t", "-b", "--bogus", NULL };
	struct capture out, err;
	int rc;

	ntp_opt__set_table_hook(remember_table, &seen);
	capture_start(&err, 2);
	capture_start(&out, 1);
	rc = ntp_opt__parse(table, 3, args, usage, NTP_OPT_STOP_AT_NON_OPTION);
	capture_end(&out);
	capture_end(&err);
	ntp_opt__set_table_hook(NULL, NULL);
	assert_int_equal(rc, NTP_OPT_HELP);
	assert_int_equal(seen.calls, 1);
	assert_ptr_equal(seen.opts, table);
	assert_int_equal(seen.flags, NTP_OPT_STOP_AT_NON_OPTION);
	assert_false(b);
	assert_string_equal(out.text, "");
	assert_string_equal(err.text, "");
	/* without the hook, parsing again */
	assert_int_equal(ntp_opt__parse(table, 2, args, usage, 0), 0);
	assert_true(b);
}

static void unit__takes_value__by_type(void **state)
{
	const struct ntp_option flag = NTP_OPT_BOOL('b', "bee", NULL, "");
	const struct ntp_option str = NTP_OPT_STRING('s', "str", NULL, "S", "");
	const struct ntp_option cb_flag = NTP_OPT_CALLBACK(0, "cb", NULL, NULL, "", parse_size_cb);
	const struct ntp_option cb_arg = NTP_OPT_CALLBACK(0, "cb", NULL, "N", "", parse_size_cb);

	assert_false(ntp_opt__takes_value(&flag));
	assert_true(ntp_opt__takes_value(&str));
	assert_false(ntp_opt__takes_value(&cb_flag));
	assert_true(ntp_opt__takes_value(&cb_arg));
	assert_null(ntp_opt__value_words(&str));
}

/* ---- value parsers ------------------------------------------------------- */

static void unit__parse_uint_valid__value(void **state)
{
	uint64_t v;

	assert_int_equal(ntp_opt__parse_uint("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ntp_opt__parse_uint("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(ntp_opt__parse_uint("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void unit__parse_uint_invalid__einval(void **state)
{
	const char *bad[] = { "", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "12a" };
	uint64_t v = 42;
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		errno = 0;
		assert_int_equal(ntp_opt__parse_uint(bad[k], &v), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(v, 42);
	}
}

static void unit__parse_uint_overflow__erange(void **state)
{
	uint64_t v;

	assert_int_equal(ntp_opt__parse_uint("18446744073709551616", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(ntp_opt__parse_uint("99999999999999999999999", &v), -1);
	assert_int_equal(errno, ERANGE);
}

static void unit__parse_size_units__binary_multiples(void **state)
{
	static const struct { const char *s; uint64_t v; } cases[] = {
		{ "4096", 4096 }, { "4K", 4096 }, { "4k", 4096 }, { "4KiB", 4096 }, { "4kib", 4096 },
		{ "4KB", 4096 }, { "128K", 131072 }, { "1M", 1 << 20 }, { "1MiB", 1 << 20 },
		{ "2G", 2ULL << 30 }, { "1T", 1ULL << 40 }, { "512B", 512 }, { "0", 0 },
		{ "15E", 15ULL << 60 },
	};
	uint64_t v;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		assert_int_equal(ntp_opt__parse_size(cases[k].s, &v), 0);
		assert_true(v == cases[k].v);
	}
}

static void unit__parse_size_invalid__einval(void **state)
{
	const char *bad[] = { "", "K", "4X", "4KK", "4 K", "1.5K", "-4K", "4Kib2", "0x10" };
	uint64_t v;
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		errno = 0;
		assert_int_equal(ntp_opt__parse_size(bad[k], &v), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void unit__parse_size_overflow__erange(void **state)
{
	uint64_t v;

	assert_int_equal(ntp_opt__parse_size("16E", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(ntp_opt__parse_size("17179869184G", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(ntp_opt__parse_size("99999999999999999999", &v), -1);
	assert_int_equal(errno, ERANGE);
}

static void unit__parse_seconds_units__scaled(void **state)
{
	static const struct { const char *s; double v; } cases[] = {
		{ "10", 10 }, { "2.5", 2.5 }, { ".5", 0.5 }, { "5.", 5 }, { "500ms", 0.5 },
		{ "10s", 10 }, { "2m", 120 }, { "1h", 3600 }, { "250us", 250e-6 }, { "7ns", 7e-9 },
		{ "0", 0 },
	};
	double v;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		assert_int_equal(ntp_opt__parse_seconds(cases[k].s, &v), 0);
		assert_true(fabs(v - cases[k].v) <= 1e-12 * (cases[k].v + 1));
	}
}

static void unit__parse_seconds_invalid__einval(void **state)
{
	const char *bad[] = { "", ".", "ms", "-1", "+1", "1e3", "inf", "nan", "0x10", "1.2.3",
			      "10 s", "10S", "10sec", "1,5" };
	double v;
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		errno = 0;
		assert_int_equal(ntp_opt__parse_seconds(bad[k], &v), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void unit__parse_seconds_overflow__erange(void **state)
{
	char huge[420];
	double v;

	memset(huge, '9', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	assert_int_equal(ntp_opt__parse_seconds(huge, &v), -1);
	assert_int_equal(errno, ERANGE);
}

/* ---- suggestions --------------------------------------------------------- */

static void unit__suggest_typo__closest_candidate(void **state)
{
	const char *const cmds[] = { "record", "report", "dump", "version", "help", NULL };

	assert_string_equal(ntp_opt__suggest("reprot", cmds), "report");
	assert_string_equal(ntp_opt__suggest("recrod", cmds), "record");
	assert_string_equal(ntp_opt__suggest("dmup", cmds), "dump");
	assert_string_equal(ntp_opt__suggest("verison", cmds), "version");
	assert_string_equal(ntp_opt__suggest("hlp", cmds), "help");
}

static void unit__suggest_unique_prefix__that_candidate(void **state)
{
	const char *const cmds[] = { "record", "report", "dump", NULL };

	assert_string_equal(ntp_opt__suggest("du", cmds), "dump");
	assert_string_equal(ntp_opt__suggest("rec", cmds), "record");
}

static void unit__suggest_nothing_close__null(void **state)
{
	const char *const cmds[] = { "record", "report", "dump", NULL };

	assert_null(ntp_opt__suggest("xyz", cmds));
	assert_null(ntp_opt__suggest("", cmds));
	assert_null(ntp_opt__suggest("compare", cmds));
}

#define T(f) cmocka_unit_test_setup(f, reset)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(unit__bool_short_and_long__set_with_is_set),
		T(unit__incr_clustered_and_repeated__counts_each),
		T(unit__cluster_of_flags_then_value__all_applied),
		T(unit__value_attached_or_separate__same_result),
		T(unit__string_value__points_into_argv),
		T(unit__repeated_value__last_wins),
		T(unit__seconds_option__units_applied),
		T(unit__choice_valid__stored),
		T(unit__callback_size__called_with_value),
		T(unit__operands_mixed_with_options__kept_in_order),
		T(unit__double_dash__ends_options_and_is_dropped),
		T(unit__lone_dash__is_an_operand),
		T(unit__stop_at_non_option__rest_left_untouched),
		T(unit__stop_at_non_option_with_double_dash__dash_dropped),
		T(unit__no_arguments__zero_operands),
		T(unit__exclusive_group_both_given__error_names_both),
		T(unit__exclusive_group_one_given_twice__accepted),
		T(unit__unknown_long_option_close_to_one__did_you_mean),
		T(unit__unknown_long_option_far_from_all__no_hint),
		T(unit__unknown_long_option_with_value__names_option_only),
		T(unit__long_prefix__not_accepted),
		T(unit__unknown_short_option__error),
		T(unit__long_name_with_one_dash__hints_two_dashes),
		T(unit__missing_value__error_names_option),
		T(unit__empty_value__error),
		T(unit__flag_given_a_value__error),
		T(unit__uint_out_of_range__error_names_value_and_range),
		T(unit__uint_not_decimal__error),
		T(unit__seconds_invalid__error),
		T(unit__choice_invalid__error_lists_choices),
		T(unit__callback_fails__error),
		T(unit__usage__both_forms_on_one_aligned_line),
		T(unit__help_long_or_short__prints_usage_to_stdout),
		T(unit__help_defined_by_table__table_wins),
		T(unit__usage_long_spec__help_on_next_line),
		T(unit__usage_values_without_argh__listed_as_choices),
		T(unit__hidden_option__parsed_but_not_in_usage),
		T(unit__hidden_option__never_suggested),
		T(unit__table_hook__table_handed_over_nothing_parsed),
		T(unit__takes_value__by_type),
		T(unit__parse_uint_valid__value),
		T(unit__parse_uint_invalid__einval),
		T(unit__parse_uint_overflow__erange),
		T(unit__parse_size_units__binary_multiples),
		T(unit__parse_size_invalid__einval),
		T(unit__parse_size_overflow__erange),
		T(unit__parse_seconds_units__scaled),
		T(unit__parse_seconds_invalid__einval),
		T(unit__parse_seconds_overflow__erange),
		T(unit__suggest_typo__closest_candidate),
		T(unit__suggest_unique_prefix__that_candidate),
		T(unit__suggest_nothing_close__null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
