/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal a command's text is for: how wide its tables may be, and
 * whether rows are coloured (ntprof(1), ENVIRONMENT: COLUMNS, NO_COLOR).
 * Decided once, before the pager takes standard output over, as git and
 * perf decide it:
 *
 *  - the width: none with --wide; else COLUMNS when it is a number; else
 *    the terminal's (TIOCGWINSZ) when standard output is one; else 100, so
 *    that a pipe or a file gets the same compact tables as a terminal of
 *    100 columns, the width the tables are made to fit;
 *  - colour: --color=always, never; auto (the default) colours only a
 *    terminal that is not "dumb", and never when NO_COLOR is set and not
 *    empty.
 *
 * The colour's escape sequences are ntprof's own: they go to the stream
 * under the text's safe one (lib/fmt/safe_text.h), which turns any escape
 * that comes from a recording into '?'.
 */
#ifndef NTP_TERM_H
#define NTP_TERM_H

#include <stdbool.h>
#include <stdio.h>

struct ntp_term {
	int width;                /* columns a table may take; 0: no limit */
	bool color;               /* rows marked with colour */
	FILE *raw;                /* where the colour goes: the stream under the text's */
};

/* what a row is marked as */
enum ntp_paint {
	NTP_PAINT_NONE,           /* back to the terminal's own colours */
	NTP_PAINT_HOT,            /* where most of the time goes: report's dominant stage */
	NTP_PAINT_WORSE,          /* a significant change for the worse (compare) */
	NTP_PAINT_BETTER,         /* a significant change for the better (compare) */
};

/* --color's words, NULL-terminated */
extern const char *const ntp_term__color_words[];

/*
 * t for standard output: wide (--wide) leaves the width unlimited; color is
 * --color's word (NULL: auto).  Call before the pager starts.
 */
void ntp_term__open(struct ntp_term *t, bool wide, const char *color);
/* the width of a pipe or a file, where neither COLUMNS nor a terminal gives one */
#define NTP_TERM_DEFAULT_WIDTH 100

/* f's next text marked as p (NTP_PAINT_NONE ends the mark); nothing without colour */
void ntp_term__paint(const struct ntp_term *t, FILE *f, enum ntp_paint p);

#endif
