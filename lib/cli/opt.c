// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser behind every command's table (lib/cli/opt.h).
 *
 * Deliberately small and strict: long options match exactly (no unique-prefix
 * abbreviations, which would break scripts when an option is added), values
 * are parsed in full, and every error is one line naming the option as the
 * user spelled it and the value that was refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/opt.h"

/* option column of the help text; longer specs put their help on the next line */
#define USAGE_SPEC_MAX 26

enum spelling { NOT_GIVEN = 0, AS_SHORT, AS_LONG };

struct parser {
	const struct ntp_option *opts;
	size_t nopts;
	const char *const *usage;
	unsigned char *given;           /* enum spelling, per option: for exclusive groups */
	bool early_pass;                /* applying the early options only (ntp_option.early) */
};

static ntp_opt_table_hook table_hook;
static void *table_hook_ctx;

void ntp_opt__set_table_hook(ntp_opt_table_hook hook, void *ctx)
{
	table_hook = hook;
	table_hook_ctx = ctx;
}

bool ntp_opt__takes_value(const struct ntp_option *o)
{
	switch (o->type) {
	case NTP_OPT_TYPE_STRING:
	case NTP_OPT_TYPE_UINT:
	case NTP_OPT_TYPE_SECONDS:
	case NTP_OPT_TYPE_CHOICE:
		return true;
	case NTP_OPT_TYPE_CALLBACK:
		return o->argh != NULL;
	default:
		return false;
	}
}

/* "-s" or "--sample", as the user wrote it */
static const char *spell(char *buf, size_t size, const struct ntp_option *o, enum spelling how)
{
	if ((how == AS_LONG && o->long_name) || !o->short_name)
		snprintf(buf, size, "--%s", o->long_name ? o->long_name : "?");
	else
		snprintf(buf, size, "-%c", o->short_name);
	return buf;
}

bool ntp_opt__has_short(const struct ntp_option *opts, int c)
{
	for (; opts->type != NTP_OPT_TYPE_END; opts++)
		if (opts->short_name == c)
			return true;
	return false;
}

bool ntp_opt__has_long(const struct ntp_option *opts, const char *name)
{
	for (; opts->type != NTP_OPT_TYPE_END; opts++)
		if (opts->long_name && !strcmp(opts->long_name, name))
			return true;
	return false;
}

static int show_help(const struct parser *p)
{
	ntp_opt__usage(stdout, p->usage, p->opts);
	return NTP_OPT_HELP;
}

static int bad_value(const char *name, const char *arg, const char *why)
{
	ntp_error("invalid value '%s' for option '%s': %s", arg, name, why);
	return NTP_OPT_ERROR;
}

static int set_uint(const struct ntp_option *o, const char *name, const char *arg)
{
	uint64_t v, lo = o->min, hi = o->max;

	/* a table entry that gives no range ({0, 0}) means "any value" */
	if (lo == 0 && hi == 0)
		hi = UINT64_MAX;
	if (ntp_opt__parse_uint(arg, &v))
		return bad_value(name, arg, errno == ERANGE ? "too large" : "not a decimal number");
	if (v < lo || v > hi) {
		char why[96];

		if (hi == UINT64_MAX)
			snprintf(why, sizeof(why), "must be at least %llu", (unsigned long long)lo);
		else
			snprintf(why, sizeof(why), "must be between %llu and %llu",
				 (unsigned long long)lo, (unsigned long long)hi);
		return bad_value(name, arg, why);
	}
	if (o->value)
		*(uint64_t *)o->value = v;
	return 0;
}

static int set_choice(const struct ntp_option *o, const char *name, const char *arg)
{
	char why[256] = "expected one of";
	size_t k;

	for (k = 0; o->choices && o->choices[k]; k++) {
		if (!strcmp(arg, o->choices[k])) {
			if (o->value)
				*(const char **)o->value = o->choices[k];
			return 0;
		}
	}
	for (k = 0; o->choices && o->choices[k]; k++) {
		size_t used = strlen(why);

		snprintf(why + used, sizeof(why) - used, "%s %s", k ? "," : "", o->choices[k]);
	}
	return bad_value(name, arg, why);
}

static int apply(struct parser *p, const struct ntp_option *o, enum spelling how, const char *arg)
{
	size_t idx = (size_t)(o - p->opts), j;
	char name[80];
	double secs;

	if (o->early != p->early_pass)
		return 0;
	spell(name, sizeof(name), o, how);

	if (o->group) {
		for (j = 0; j < p->nopts; j++) {
			char other[80];

			if (j == idx || p->opts[j].group != o->group || !p->given[j])
				continue;
			ntp_error("options '%s' and '%s' cannot be used together",
				  spell(other, sizeof(other), &p->opts[j], p->given[j]), name);
			return NTP_OPT_ERROR;
		}
	}
	if (arg && !*arg && o->type != NTP_OPT_TYPE_CALLBACK) {
		ntp_error("option '%s' requires a non-empty value", name);
		return NTP_OPT_ERROR;
	}

	switch (o->type) {
	case NTP_OPT_TYPE_BOOL:
		if (o->value)
			*(bool *)o->value = true;
		break;
	case NTP_OPT_TYPE_INCR:
		if (o->value)
			(*(int *)o->value)++;
		break;
	case NTP_OPT_TYPE_STRING:
		if (o->value)
			*(const char **)o->value = arg;
		break;
	case NTP_OPT_TYPE_UINT:
		if (set_uint(o, name, arg))
			return NTP_OPT_ERROR;
		break;
	case NTP_OPT_TYPE_SECONDS:
		if (ntp_opt__parse_seconds(arg, &secs))
			return bad_value(name, arg, errno == ERANGE ? "out of range" :
					 "expected seconds such as 10, 2.5, 500ms or 2m");
		if (o->value)
			*(double *)o->value = secs;
		break;
	case NTP_OPT_TYPE_CHOICE:
		if (set_choice(o, name, arg))
			return NTP_OPT_ERROR;
		break;
	case NTP_OPT_TYPE_CALLBACK:
		if (!o->cb || o->cb(o, arg))
			return NTP_OPT_ERROR;
		break;
	case NTP_OPT_TYPE_END:
		return NTP_OPT_ERROR;
	}
	if (o->is_set)
		*o->is_set = true;
	p->given[idx] = how;
	return 0;
}

static void unknown_long(const struct parser *p, const char *body, size_t len)
{
	const char **names = calloc(p->nopts + 2, sizeof(*names));
	const char *hint = NULL;
	char *word = strndup(body, len);
	size_t k, n = 0;

	if (names && word) {
		for (k = 0; k < p->nopts; k++)
			if (p->opts[k].long_name && !p->opts[k].hidden)
				names[n++] = p->opts[k].long_name;
		if (!ntp_opt__has_long(p->opts, "help"))
			names[n++] = "help";
		hint = ntp_opt__suggest(word, names);
	}
	if (hint)
		ntp_error("unknown option '--%.*s'; did you mean '--%s'?", (int)len, body, hint);
	else
		ntp_error("unknown option '--%.*s'", (int)len, body);
	free(names);
	free(word);
}

static int parse_long(struct parser *p, const char *body, int argc, const char **argv, int *i)
{
	const char *eq = strchr(body, '=');
	size_t len = eq ? (size_t)(eq - body) : strlen(body);
	const struct ntp_option *o;
	const char *arg = NULL;
	char name[80];

	for (o = p->opts; o->type != NTP_OPT_TYPE_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, body, len))
			break;
	if (o->type == NTP_OPT_TYPE_END) {
		if (len == 4 && !strncmp(body, "help", 4) && !eq)
			return show_help(p);
		unknown_long(p, body, len);
		return NTP_OPT_ERROR;
	}
	spell(name, sizeof(name), o, AS_LONG);
	if (ntp_opt__takes_value(o)) {
		if (eq) {
			arg = eq + 1;
		} else if (*i + 1 < argc) {
			arg = argv[++*i];
		} else {
			ntp_error("option '%s' requires a value", name);
			return NTP_OPT_ERROR;
		}
	} else if (eq) {
		ntp_error("option '%s' takes no value (given '%s')", name, eq + 1);
		return NTP_OPT_ERROR;
	}
	return apply(p, o, AS_LONG, arg);
}

/* "-v", "-vv", "-s10", "-s 10", "-vs10" */
static int parse_short(struct parser *p, const char *cluster, int argc, const char **argv, int *i)
{
	const char *c;

	for (c = cluster; *c; c++) {
		const struct ntp_option *o;

		for (o = p->opts; o->type != NTP_OPT_TYPE_END; o++)
			if (o->short_name == *c)
				break;
		if (o->type == NTP_OPT_TYPE_END) {
			if (*c == 'h')
				return show_help(p);
			/* "-json" is most likely "--json" with a dash missing */
			if (cluster[1] && ntp_opt__has_long(p->opts, cluster))
				ntp_error("unknown option '-%c'; did you mean '--%s'?", *c, cluster);
			else
				ntp_error("unknown option '-%c'", *c);
			return NTP_OPT_ERROR;
		}
		if (ntp_opt__takes_value(o)) {
			const char *arg;

			if (c[1]) {
				arg = c + 1;
			} else if (*i + 1 < argc) {
				arg = argv[++*i];
			} else {
				ntp_error("option '-%c' requires a value", *c);
				return NTP_OPT_ERROR;
			}
			return apply(p, o, AS_SHORT, arg);
		}
		if (apply(p, o, AS_SHORT, NULL))
			return NTP_OPT_ERROR;
	}
	return 0;
}

int ntp_opt__parse(const struct ntp_option *opts, int argc, const char **argv,
		   const char *const usage[], unsigned int flags)
{
	struct parser p = { .opts = opts, .usage = usage };
	int i, nop = 0, rc = 0;
	size_t k;

	if (table_hook) {
		table_hook(table_hook_ctx, opts, flags);
		return NTP_OPT_HELP;
	}
	while (opts[p.nopts].type != NTP_OPT_TYPE_END)
		p.nopts++;
	p.given = calloc(p.nopts + 1, 1);
	if (!p.given) {
		ntp_error("out of memory");
		return NTP_OPT_ERROR;
	}

	/* the early options first, wherever they stand, then the others in order */
	for (k = 0; k < p.nopts; k++)
		if (opts[k].early)
			p.early_pass = true;
	if (p.early_pass) {
		for (i = 1; i < argc && !rc; i++) {
			const char *a = argv[i];

			if (a[0] != '-' || a[1] == '\0') {
				if (flags & NTP_OPT_STOP_AT_NON_OPTION)
					break;
				continue;
			}
			if (!strcmp(a, "--"))
				break;
			rc = a[1] == '-' ? parse_long(&p, a + 2, argc, argv, &i) :
					   parse_short(&p, a + 1, argc, argv, &i);
		}
		if (rc)
			goto out;
		p.early_pass = false;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || a[1] == '\0') {      /* an operand; "-" often means stdin */
			if (flags & NTP_OPT_STOP_AT_NON_OPTION)
				break;
			argv[nop++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-')
			rc = parse_long(&p, a + 2, argc, argv, &i);
		else
			rc = parse_short(&p, a + 1, argc, argv, &i);
		if (rc)
			goto out;
	}
	/* everything after "--" or the first operand (STOP_AT_NON_OPTION) */
	for (; i < argc; i++)
		argv[nop++] = argv[i];
	/* NULL-terminated as well, so that record can hand argv to execvp() */
	if (nop < argc)
		argv[nop] = NULL;
	rc = nop;
out:
	free(p.given);
	return rc;
}

const char *const *ntp_opt__value_words(const struct ntp_option *o)
{
	if (o->type == NTP_OPT_TYPE_CHOICE && o->choices)
		return o->choices;
	return ntp_opt__takes_value(o) ? o->values : NULL;
}

static void format_spec(char *buf, size_t size, const struct ntp_option *o)
{
	const char *const *words = ntp_opt__value_words(o);
	char arg[128] = "";

	if (ntp_opt__takes_value(o)) {
		if (o->argh) {
			snprintf(arg, sizeof(arg), " %s", o->argh);
		} else if (words) {
			size_t k;

			for (k = 0; words[k]; k++) {
				size_t used = strlen(arg);

				snprintf(arg + used, sizeof(arg) - used, "%s%s", k ? "|" : " ", words[k]);
			}
		} else {
			snprintf(arg, sizeof(arg), " VALUE");
		}
	}
	if (o->short_name && o->long_name)
		snprintf(buf, size, "-%c, --%s%s", o->short_name, o->long_name, arg);
	else if (o->short_name)
		snprintf(buf, size, "-%c%s", o->short_name, arg);
	else
		snprintf(buf, size, "    --%s%s", o->long_name ? o->long_name : "", arg);
}

static void print_option(FILE *f, const char *spec, const char *help, int width)
{
	if (!help || !*help) {
		fprintf(f, "    %s\n", spec);
	} else if ((int)strlen(spec) > width) {
		fprintf(f, "    %s\n", spec);
		fprintf(f, "    %*s  %s\n", width, "", help);
	} else {
		fprintf(f, "    %-*s  %s\n", width, spec, help);
	}
}

void ntp_opt__usage(FILE *f, const char *const usage[], const struct ntp_option *opts)
{
	static const struct ntp_option help_opt =
		NTP_OPT_BOOL('h', "help", NULL, "show this help and exit");
	bool add_help = !ntp_opt__has_short(opts, 'h') && !ntp_opt__has_long(opts, "help");
	const struct ntp_option *o;
	char spec[256];
	int width = 0;
	size_t k;

	for (k = 0; usage && usage[k]; k++)
		fprintf(f, "%s%s\n", k ? "   or: " : "usage: ", usage[k]);
	fputc('\n', f);

	for (o = opts; o->type != NTP_OPT_TYPE_END; o++) {
		int len;

		if (o->hidden)
			continue;
		format_spec(spec, sizeof(spec), o);
		len = (int)strlen(spec);
		if (len <= USAGE_SPEC_MAX && len > width)
			width = len;
	}
	if (add_help) {
		format_spec(spec, sizeof(spec), &help_opt);
		if ((int)strlen(spec) > width)
			width = (int)strlen(spec);
	}

	for (o = opts; o->type != NTP_OPT_TYPE_END; o++) {
		if (o->hidden)
			continue;
		format_spec(spec, sizeof(spec), o);
		print_option(f, spec, o->help, width);
	}
	if (add_help) {
		format_spec(spec, sizeof(spec), &help_opt);
		print_option(f, spec, help_opt.help, width);
	}
}

/* ---- value parsers ------------------------------------------------------- */

int ntp_opt__parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s) {
		errno = EINVAL;
		return -1;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9') {
			errno = EINVAL;
			return -1;
		}
		d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* binary multiples: I/O sizes are powers of two, and "4K" means 4096 to fio and nvme-cli too */
int ntp_opt__parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGTPE";
	const char *u;
	uint64_t v, mult = 1;
	size_t ndig = 0;
	char *num;
	int rc;

	if (!s) {
		errno = EINVAL;
		return -1;
	}
	while (s[ndig] >= '0' && s[ndig] <= '9')
		ndig++;
	if (!ndig) {
		errno = EINVAL;
		return -1;
	}
	u = s + ndig;
	if (*u) {
		const char *p = strchr(units, u[0] >= 'a' && u[0] <= 'z' ? u[0] - 'a' + 'A' : u[0]);

		if (p && *p) {
			mult = 1ULL << (10 * (p - units + 1));
			u++;
			/* K, KB, KiB (any case) are all 1024 */
			if (!strcasecmp(u, "ib") || !strcasecmp(u, "b"))
				u += strlen(u);
		} else if (!strcasecmp(u, "b")) {
			u++;
		}
		if (*u) {
			errno = EINVAL;
			return -1;
		}
	}
	num = strndup(s, ndig);
	if (!num)
		return -1;
	rc = ntp_opt__parse_uint(num, &v);
	free(num);
	if (rc)
		return -1;
	if (v > UINT64_MAX / mult) {
		errno = ERANGE;
		return -1;
	}
	*bytes = v * mult;
	return 0;
}

int ntp_opt__percent(const struct ntp_option *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || (opt->max && v > opt->max)) {
		if (opt->max)
			ntp_error("invalid value '%s' for option '--%s': expected a percentage "
				  "from 0 to %llu", arg, opt->long_name, (unsigned long long)opt->max);
		else
			ntp_error("invalid value '%s' for option '--%s': expected a percentage, "
				  "0 or more", arg, opt->long_name);
		return -1;
	}
	*(double *)opt->value = v;
	return 0;
}

int ntp_opt__parse_seconds(const char *s, double *seconds)
{
	static const struct { const char *suffix; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
		{ "m", 60 }, { "h", 3600 },
	};
	const char *p = s;
	size_t int_digits = 0, frac_digits = 0, k;
	char *end;
	double v;

	if (!s) {
		errno = EINVAL;
		return -1;
	}
	/* only [digits][.digits]: no sign, exponent, hex, inf or nan as strtod would take */
	while (*p >= '0' && *p <= '9')
		p++, int_digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, frac_digits++;
	}
	if (!int_digits && !frac_digits) {
		errno = EINVAL;
		return -1;
	}
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (!strcmp(p, units[k].suffix))
			break;
	if (k == sizeof(units) / sizeof(units[0])) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (end != p) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || !isfinite(v * units[k].scale)) {
		errno = ERANGE;
		return -1;
	}
	*seconds = v * units[k].scale;
	return 0;
}

/* ---- "did you mean" ------------------------------------------------------ */

/* optimal string alignment distance: a swapped pair ("reprot") costs one edit */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d;
	size_t *mem, *prev2, *prev, *cur, *tmp;

	mem = calloc(3 * (lb + 1), sizeof(*mem));
	if (!mem)
		return (size_t)-1;
	prev2 = mem;
	prev = mem + lb + 1;
	cur = mem + 2 * (lb + 1);
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		tmp = prev2;
		prev2 = prev;
		prev = cur;
		cur = tmp;
	}
	d = prev[lb];
	free(mem);
	return d;
}

const char *ntp_opt__suggest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, wlen = strlen(word), k;

	if (!candidates || !wlen)
		return NULL;
	/* a unique prefix is a likely meaning ("rec" → "record"), but never run as one */
	for (k = 0; candidates[k]; k++) {
		if (!strncmp(candidates[k], word, wlen)) {
			if (best) {
				best = NULL;
				break;
			}
			best = candidates[k];
		}
	}
	if (best && wlen >= 2)
		return best;
	best = NULL;
	for (k = 0; candidates[k]; k++) {
		size_t d = edit_distance(word, candidates[k]);
		/* allow one edit in short words, two in longer ones */
		size_t limit = strlen(candidates[k]) >= 5 && wlen >= 4 ? 2 : 1;

		if (d <= limit && d < best_d) {
			best = candidates[k];
			best_d = d;
		}
	}
	return best;
}
