/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarative option tables, one per command.  Usage text and --help are
 * generated from the table, so they cannot drift from what is parsed.
 *
 *	struct report_opts o = {0};
 *	const struct ntp_option opts[] = {
 *		NTP_OPT_STRING('j', "json", &o.json, "FILE", "write the report as JSON to FILE"),
 *		NTP_OPT_END(),
 *	};
 *	argc = ntp_opt__parse(opts, argc, argv, usage, 0);
 */
#ifndef NTP_OPT_H
#define NTP_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ntp_opt_type {
	NTP_OPT_TYPE_END = 0,
	NTP_OPT_TYPE_BOOL,      /* bool *value; no argument */
	NTP_OPT_TYPE_INCR,      /* int *value; ++ per occurrence (-v -v) */
	NTP_OPT_TYPE_STRING,    /* const char **value */
	NTP_OPT_TYPE_UINT,      /* uint64_t *value, in [min, max]; decimal only */
	NTP_OPT_TYPE_SECONDS,   /* double *value, seconds; accepts 10, 2.5, 500ms, 10s, 2m */
	NTP_OPT_TYPE_CHOICE,    /* const char **value, one of choices[] (NULL-terminated) */
	NTP_OPT_TYPE_CALLBACK,  /* cb(opt, arg) parses; returns 0 or -1 after printing why */
};

struct ntp_option;
typedef int (*ntp_opt_cb)(const struct ntp_option *opt, const char *arg);

struct ntp_option {
	enum ntp_opt_type type;
	int short_name;                 /* 0 if none */
	const char *long_name;          /* NULL if none */
	void *value;
	const char *argh;               /* argument name in usage, NULL for flags */
	const char *help;
	uint64_t min, max;              /* NTP_OPT_TYPE_UINT; max: ntp_opt__percent's bound */
	const char *const *choices;     /* NTP_OPT_TYPE_CHOICE */
	ntp_opt_cb cb;                  /* NTP_OPT_TYPE_CALLBACK */
	bool *is_set;                   /* optional: set to true when given */
	int group;                      /* options sharing a non-zero group exclude each other */
	/*
	 * The words the value may be, NULL-terminated, for an option whose
	 * parser (a callback, a string) knows them but which is no CHOICE: the
	 * usage shows them as a CHOICE's ("a|b|c") when there is no argh, and
	 * shell completion offers them.  An argh with a comma ("STAT[,STAT]")
	 * says the value is a comma-separated list of them.
	 */
	const char *const *values;
	bool hidden;                    /* parsed, but shown neither in --help nor by completion */
	/*
	 * Applied before every other option, wherever it stands: an option
	 * whose value decides what the others' values may be (--percentiles
	 * before -F p95).
	 */
	bool early;
};

/*
 * Each macro takes more designated initializers after its own, for the
 * fields it does not set:
 *	NTP_OPT_CALLBACK(0, "stat", &o.stats, "STAT[,STAT]", "...", parse_stats,
 *			 .values = (const char *const[]){ "mean", "p99", NULL })
 */
#define NTP_OPT_END() { .type = NTP_OPT_TYPE_END }
#define NTP_OPT_BOOL(s, l, v, h, ...) \
	{ .type = NTP_OPT_TYPE_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h), \
	  __VA_ARGS__ }
#define NTP_OPT_INCR(s, l, v, h, ...) \
	{ .type = NTP_OPT_TYPE_INCR, .short_name = (s), .long_name = (l), .value = (v), .help = (h), \
	  __VA_ARGS__ }
#define NTP_OPT_STRING(s, l, v, a, h, ...) \
	{ .type = NTP_OPT_TYPE_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
	  .help = (h), __VA_ARGS__ }
#define NTP_OPT_UINT(s, l, v, a, h, lo, hi, ...) \
	{ .type = NTP_OPT_TYPE_UINT, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
	  .help = (h), .min = (lo), .max = (hi), __VA_ARGS__ }
#define NTP_OPT_CHOICE(s, l, v, a, h, c, ...) \
	{ .type = NTP_OPT_TYPE_CHOICE, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
	  .help = (h), .choices = (c), __VA_ARGS__ }
#define NTP_OPT_CALLBACK(s, l, v, a, h, f, ...) \
	{ .type = NTP_OPT_TYPE_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), \
	  .help = (h), .cb = (f), __VA_ARGS__ }

enum ntp_opt_flags {
	/* stop at the first non-option argument (record -- COMMAND, perf style);
	 * otherwise options and operands may be mixed and operands are kept in order */
	NTP_OPT_STOP_AT_NON_OPTION = 1 << 0,
};

/* ntp_opt__parse's results besides a count of operands */
#define NTP_OPT_HELP  (-2)   /* --help/-h was given and the usage was printed to stdout */
#define NTP_OPT_ERROR (-1)   /* a bad option; a one-line error naming it was printed */

/*
 * Parse argv[1..argc-1] (argv[0] is the command name).  On success returns
 * the number of operands, which are moved to argv[0..n-1] in their order; a
 * "--" ends option parsing and is dropped.  Callers exit with NTP_EXIT_USAGE
 * on NTP_OPT_ERROR and NTP_EXIT_OK on NTP_OPT_HELP.
 */
int ntp_opt__parse(const struct ntp_option *opts, int argc, const char **argv,
		   const char *const usage[], unsigned int flags);

/* usage[] lines ("ntprof report [options] FILE...") then one line per option */
void ntp_opt__usage(FILE *f, const char *const usage[], const struct ntp_option *opts);
/* does opts (ended by NTP_OPT_END) have the short option c, the long option name? */
bool ntp_opt__has_short(const struct ntp_option *opts, int c);
bool ntp_opt__has_long(const struct ntp_option *opts, const char *name);

/* takes the option a value (a following word, or after '=')? */
bool ntp_opt__takes_value(const struct ntp_option *o);
/* the words its value may be: a CHOICE's choices or its values; NULL if not known */
const char *const *ntp_opt__value_words(const struct ntp_option *o);

/*
 * How `ntprof help --completion-tables` reads every command's table without
 * running the command: while a hook is set, ntp_opt__parse parses nothing,
 * hands its table and flags to the hook, and returns NTP_OPT_HELP (so the
 * command returns at once).  NULL removes the hook.  The parser's one
 * process-wide state, which nothing else sets.
 */
typedef void (*ntp_opt_table_hook)(void *ctx, const struct ntp_option *opts, unsigned int flags);
void ntp_opt__set_table_hook(ntp_opt_table_hook hook, void *ctx);

/*
 * Strict parsers for values, shared with callback options: the whole string
 * must be consumed.  Return 0, or -1 with errno = EINVAL or ERANGE.
 */
int ntp_opt__parse_uint(const char *s, uint64_t *out);
int ntp_opt__parse_size(const char *s, uint64_t *bytes);       /* 4096, 4K, 4k, 128KiB, 1M */
int ntp_opt__parse_seconds(const char *s, double *seconds);    /* 10, 2.5, 500ms, 10s, 2m */

/*
 * A callback (NTP_OPT_TYPE_CALLBACK, double *value): a percentage from 0 to
 * the entry's max, or 0 or more when max is 0; decimals allowed, and the
 * whole argument must be the number.  An empty argument is refused by it,
 * not by the parser.
 */
int ntp_opt__percent(const struct ntp_option *opt, const char *arg);

/*
 * The candidate (NULL-terminated list) closest to a mistyped word, for
 * "did you mean" hints; NULL when none is close enough to be a likely typo.
 */
const char *ntp_opt__suggest(const char *word, const char *const *candidates);

#endif
