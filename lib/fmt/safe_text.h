/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text that came from a recording, on its way to a terminal.  A .ntp file
 * may come from anywhere, and its strings (host name, hook reasons,
 * namespace and device names) must not reach a terminal as control
 * sequences: an escape could set the window title, clear the screen or
 * forge a line.  Every C0 control character but newline and tab, DEL and
 * the C1 controls (UTF-8 U+0080..U+009F) become '?'; ntprof's own text
 * holds none of them.
 */
#ifndef NTP_SAFE_TEXT_H
#define NTP_SAFE_TEXT_H

#include <stdio.h>

/* s, cleaned in place; returns s */
char *ntp_safe__clean(char *s);
/* the same, and a newline, carriage return or tab too: one field of one line */
char *ntp_safe__clean_line(char *s);

/*
 * A stream that writes to out what is written to it, cleaned; closing it
 * flushes into out and leaves out open.  NULL on ENOMEM.
 */
FILE *ntp_safe__wrap(FILE *out);

#endif
