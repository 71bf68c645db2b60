/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal under ntprof top: taken over (the alternate screen, the
 * cursor hidden, keys read one at a time without echo) and left as it was
 * found, on q, on SIGINT and SIGTERM, and on any error.  Plain ANSI
 * sequences, which every terminal emulator and tmux read.
 *
 * While the screen is taken, what ntprof writes on stderr goes to a file
 * and is written to the real stderr once the screen is left, so that a
 * warning is neither drawn over the view nor lost.
 */
#ifndef NTP_TOP_SCREEN_H
#define NTP_TOP_SCREEN_H

#include <stdbool.h>

struct ntp_top_screen {
	bool taken;
	int rows, cols;           /* the terminal's size, read again after SIGWINCH */
};

/*
 * 0, or NTP_EXIT_NOTTY after one line when standard input or output is not
 * a terminal.  Checks only: nothing changes.
 */
int ntp_top_screen__check(void);
/*
 * Take the terminal.  signals: install ntprof top's own SIGINT and SIGTERM
 * handlers (the replay; the recording installs its own, which end the
 * session that then leaves the screen).  0 or NTP_EXIT_FAILURE after one line.
 */
int ntp_top_screen__take(struct ntp_top_screen *s, bool signals);
/* leave it as it was found (nothing when not taken), then copy the captured stderr */
void ntp_top_screen__leave(struct ntp_top_screen *s);
/*
 * Wait up to timeout_ms (-1: for ever) for a key: the key (a byte), 0 when
 * none came (the time passed, or a signal: the size may have changed),
 * -1 when SIGINT or SIGTERM came (ntprof top's own handlers) or standard
 * input ended.
 */
int ntp_top_screen__key(struct ntp_top_screen *s, int timeout_ms);
/* the screen's text starts again at its top left; lines are written with ntp_top_screen__line */
void ntp_top_screen__home(struct ntp_top_screen *s);
/*
 * one line (inverse: in reverse video), cut at the screen's width, the rest
 * cleared; false once the screen is full
 */
bool ntp_top_screen__line(struct ntp_top_screen *s, int *row, bool inverse, const char *text);
/* below the last line, cleared; everything written out */
void ntp_top_screen__end(struct ntp_top_screen *s);

#endif
