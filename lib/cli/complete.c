// SPDX-License-Identifier: GPL-2.0
/*
 * The tables of ntprof's bash completion (lib/cli/complete.h), as bash
 * assignments that contrib/completion/ntprof.bash reads:
 *
 *	_ntprof_commands        the commands, in the order of `ntprof help`
 *	_ntprof_opts[CMD]       CMD's options, both spellings; CMD "ntprof": the global ones
 *	_ntprof_args[CMD OPT]   for each option that takes a value, what completes it:
 *	                          f              file names (the argument is named FILE)
 *	                          w WORD...      one of the words
 *	                          l WORD...      a comma-separated list of the words
 *	                          n              nothing known (a number, a name)
 *	_ntprof_operands[CMD]   recordings, workload, command, or unset: none
 */
#include <stdbool.h>
#include <string.h>

#include "lib/cli/complete.h"
#include "lib/cli/opt.h"

#define MAIN_KEY "ntprof"

/* s for the inside of single quotes: each ' closed, escaped and reopened */
static void put(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
}

void ntp_complete__bash_begin(FILE *f, const char *const *commands)
{
	size_t k;

	fputs("# The option tables, generated from ntprof's own by\n"
	      "# `ntprof help --completion-tables bash`.\n", f);
	fputs("_ntprof_commands='", f);
	for (k = 0; commands[k]; k++)
		fprintf(f, "%s%s", k ? " " : "", commands[k]);
	fputs("'\n", f);
	fputs("declare -gA _ntprof_opts=() _ntprof_args=() _ntprof_operands=()\n", f);
}

static bool has_short(const struct ntp_option *opts, int c)
{
	for (; opts->type != NTP_OPT_TYPE_END; opts++)
		if (opts->short_name == c)
			return true;
	return false;
}

static bool has_long(const struct ntp_option *opts, const char *name)
{
	for (; opts->type != NTP_OPT_TYPE_END; opts++)
		if (opts->long_name && !strcmp(opts->long_name, name))
			return true;
	return false;
}

/* _ntprof_args["CMD -x"]='f', 'w a b', 'l a b' or 'n': what completes the option's value */
static void arg_entry(FILE *f, const char *key, const char *dashes, const char *name,
		      const struct ntp_option *o)
{
	const char *const *words = ntp_opt__value_words(o);
	size_t k;

	fprintf(f, "_ntprof_args[\"%s %s%s\"]='", key, dashes, name);
	if (words) {
		put(f, o->argh && strchr(o->argh, ',') ? "l" : "w");
		for (k = 0; words[k]; k++) {
			put(f, " ");
			put(f, words[k]);
		}
	} else {
		put(f, o->argh && !strcmp(o->argh, "FILE") ? "f" : "n");
	}
	fputs("'\n", f);
}

void ntp_complete__bash_table(FILE *f, const char *cmd, enum ntp_complete_args args,
			      const struct ntp_option *opts)
{
	static const char *const operands[] = {
		[NTP_COMPLETE_ARGS_RECORDINGS] = "recordings",
		[NTP_COMPLETE_ARGS_WORKLOAD] = "workload",
		[NTP_COMPLETE_ARGS_COMMAND] = "command",
	};
	const char *key = cmd ? cmd : MAIN_KEY;
	const struct ntp_option *o;
	bool first = true;

	fprintf(f, "_ntprof_opts[%s]='", key);
	for (o = opts; o->type != NTP_OPT_TYPE_END; o++) {
		if (o->hidden)
			continue;
		if (o->short_name)
			fprintf(f, "%s-%c", first ? "" : " ", o->short_name), first = false;
		if (o->long_name)
			fprintf(f, "%s--%s", first ? "" : " ", o->long_name), first = false;
	}
	/* the parser's own -h/--help, unless the table gives the letters another meaning */
	if (!has_short(opts, 'h'))
		fprintf(f, "%s-h", first ? "" : " "), first = false;
	if (!has_long(opts, "help"))
		fprintf(f, "%s--help", first ? "" : " ");
	fputs("'\n", f);

	for (o = opts; o->type != NTP_OPT_TYPE_END; o++) {
		char letter[2] = { (char)o->short_name, '\0' };

		if (o->hidden || !ntp_opt__takes_value(o))
			continue;
		if (o->short_name)
			arg_entry(f, key, "-", letter, o);
		if (o->long_name)
			arg_entry(f, key, "--", o->long_name, o);
	}
	if (args != NTP_COMPLETE_ARGS_NONE)
		fprintf(f, "_ntprof_operands[%s]='%s'\n", key, operands[args]);
}
