/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text inside HTML and SVG: the five characters markup gives a meaning
 * escaped, and the control characters a recording could carry (its host
 * name, namespaces, hook reasons) replaced as lib/fmt/safe_text.h replaces
 * them, so a file cannot add markup, script or escapes to a page.
 */
#ifndef NTP_XML_H
#define NTP_XML_H

#include <stdio.h>

/* s as the text of an element or the value of a quoted attribute */
void ntp_xml__text(FILE *f, const char *s);

#endif
