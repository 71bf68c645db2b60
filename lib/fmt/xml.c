// SPDX-License-Identifier: GPL-2.0
/* Text inside HTML and SVG (lib/fmt/xml.h). */
#include "lib/fmt/xml.h"

void ntp_xml__text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	for (; *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* C0 controls but tab and newline, and DEL: as safe_text.c does */
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
				fputc('?', f);
			else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
				fputc('?', f), p++;     /* a C1 control, U+0080..U+009F */
			else
				fputc(*p, f);
		}
	}
}
