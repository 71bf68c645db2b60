// SPDX-License-Identifier: GPL-2.0
/* The terminal's width and colour (lib/cli/term.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/cli/term.h"

const char *const ntp_term__color_words[] = { "auto", "always", "never", NULL };

/* the widest COLUMNS taken at its word: more is a mistake, not a terminal */
#define MAX_COLUMNS 10000

/* the width COLUMNS or the terminal gives, else NTP_TERM_DEFAULT_WIDTH */
static int ntp_term__width(void)
{
	const char *s = getenv("COLUMNS");
	struct winsize ws;

	if (s && *s) {
		char *end;
		long n;

		errno = 0;
		n = strtol(s, &end, 10);
		if (!errno && !*end && n > 0 && n <= MAX_COLUMNS)
			return (int)n;
	}
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return NTP_TERM_DEFAULT_WIDTH;
}

/* does --color=WHEN (NULL: auto) colour standard output? */
static bool ntp_term__color(const char *when)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (when && !strcmp(when, "always"))
		return true;
	if (when && !strcmp(when, "never"))
		return false;
	if (no && *no)
		return false;
	return isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb");
}

void ntp_term__open(struct ntp_term *t, bool wide, const char *color)
{
	t->width = wide ? 0 : ntp_term__width();
	t->color = ntp_term__color(color);
	t->raw = stdout;
}

void ntp_term__paint(const struct ntp_term *t, FILE *f, enum ntp_paint p)
{
	/* SGR: bold red, red, green, and back to normal (git's colours for these) */
	static const char *const sgr[] = {
		[NTP_PAINT_NONE] = "\033[m",
		[NTP_PAINT_HOT] = "\033[1;31m",
		[NTP_PAINT_WORSE] = "\033[31m",
		[NTP_PAINT_BETTER] = "\033[32m",
	};

	if (!t || !t->color || !t->raw)
		return;
	/* what f holds goes first, then the sequence, unfiltered, beneath it */
	fflush(f);
	fputs(sgr[p], t->raw);
}
