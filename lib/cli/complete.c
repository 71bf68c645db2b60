// SPDX-License-Identifier: GPL-2.0
/*
 * The tables of ntprof's bash and zsh completion (lib/cli/complete.h), as
 * assignments that contrib/completion/ntprof.bash and ntprof.zsh read (the
 * same tables; bash writes a key as ["a b"], zsh appends ('a b' value)):
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

/* KEY's entry of the associative array name: its value follows, then end_entry() */
static void entry(FILE *f, enum ntp_complete_shell sh, const char *name, const char *key)
{
	if (sh == NTP_COMPLETE_ZSH) {
		fprintf(f, "%s+=('", name);
		put(f, key);
		fputs("' '", f);
	} else {
		fprintf(f, "%s[\"%s\"]='", name, key);
	}
}

static void end_entry(FILE *f, enum ntp_complete_shell sh)
{
	fputs(sh == NTP_COMPLETE_ZSH ? "')\n" : "'\n", f);
}

void ntp_complete__begin(FILE *f, enum ntp_complete_shell sh, const char *const *commands)
{
	size_t k;

	fprintf(f, "# The option tables, generated from ntprof's own by\n"
		"# `ntprof help --completion-tables %s`.\n", sh == NTP_COMPLETE_ZSH ? "zsh" : "bash");
	fputs("_ntprof_commands='", f);
	for (k = 0; commands[k]; k++)
		fprintf(f, "%s%s", k ? " " : "", commands[k]);
	fputs("'\n", f);
	fputs(sh == NTP_COMPLETE_ZSH ?
	      "typeset -gA _ntprof_opts _ntprof_args _ntprof_operands\n"
	      "_ntprof_opts=() _ntprof_args=() _ntprof_operands=()\n" :
	      "declare -gA _ntprof_opts=() _ntprof_args=() _ntprof_operands=()\n", f);
}

/* _ntprof_args["CMD -x"]='f', 'w a b', 'l a b' or 'n': what completes the option's value */
static void arg_entry(FILE *f, enum ntp_complete_shell sh, const char *key, const char *dashes,
		      const char *name, const struct ntp_option *o)
{
	const char *const *words = ntp_opt__value_words(o);
	char k2[128];
	size_t k;

	snprintf(k2, sizeof(k2), "%s %s%s", key, dashes, name);
	entry(f, sh, "_ntprof_args", k2);
	if (words) {
		put(f, o->argh && strchr(o->argh, ',') ? "l" : "w");
		for (k = 0; words[k]; k++) {
			put(f, " ");
			put(f, words[k]);
		}
	} else {
		put(f, o->argh && !strcmp(o->argh, "FILE") ? "f" : "n");
	}
	end_entry(f, sh);
}

void ntp_complete__table(FILE *f, enum ntp_complete_shell sh, const char *cmd,
			 enum ntp_complete_args args, const struct ntp_option *opts)
{
	static const char *const operands[] = {
		[NTP_COMPLETE_ARGS_RECORDINGS] = "recordings",
		[NTP_COMPLETE_ARGS_WORKLOAD] = "workload",
		[NTP_COMPLETE_ARGS_COMMAND] = "command",
	};
	const char *key = cmd ? cmd : MAIN_KEY;
	const struct ntp_option *o;
	bool first = true;

	entry(f, sh, "_ntprof_opts", key);
	for (o = opts; o->type != NTP_OPT_TYPE_END; o++) {
		if (o->hidden)
			continue;
		if (o->short_name)
			fprintf(f, "%s-%c", first ? "" : " ", o->short_name), first = false;
		if (o->long_name)
			fprintf(f, "%s--%s", first ? "" : " ", o->long_name), first = false;
	}
	/* the parser's own -h/--help, unless the table gives the letters another meaning */
	if (!ntp_opt__has_short(opts, 'h'))
		fprintf(f, "%s-h", first ? "" : " "), first = false;
	if (!ntp_opt__has_long(opts, "help"))
		fprintf(f, "%s--help", first ? "" : " ");
	end_entry(f, sh);

	for (o = opts; o->type != NTP_OPT_TYPE_END; o++) {
		char letter[2] = { (char)o->short_name, '\0' };

		if (o->hidden || !ntp_opt__takes_value(o))
			continue;
		if (o->short_name)
			arg_entry(f, sh, key, "-", letter, o);
		if (o->long_name)
			arg_entry(f, sh, key, "--", o->long_name, o);
	}
	if (args != NTP_COMPLETE_ARGS_NONE) {
		entry(f, sh, "_ntprof_operands", key);
		put(f, operands[args]);
		end_entry(f, sh);
	}
}
