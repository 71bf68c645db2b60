/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Long text on a terminal goes through a pager, as git and perf do it:
 * $NTPROF_PAGER, else $PAGER, else less (with LESS=FRX unless LESS is set:
 * quit when it fits on one screen, keep colours, leave the text on the
 * screen; FRXS for text wider than the screen: its lines cut, not wrapped).  Never when standard output is not a terminal, nor with
 * --no-pager.  ntprof(1), PAGER, documents it.
 */
#ifndef NTP_PAGER_H
#define NTP_PAGER_H

#include <stdbool.h>

/* ntprof --no-pager: no command of this process pages */
void ntp_pager__disable(void);

/*
 * From here on standard output goes to the pager, when there is one to
 * run (off: the command's own --no-pager).  Call it once the command knows
 * it will print, so that errors met before stay on the terminal.  The
 * pager is waited for at exit.  wide: the text's lines may be wider than
 * the terminal (LESS=FRXS).  Returns true when it pages.
 */
bool ntp_pager__start(bool off, bool wide);

#endif
