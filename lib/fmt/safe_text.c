// SPDX-License-Identifier: GPL-2.0
/* Text from a recording made safe for a terminal (lib/fmt/safe_text.h). */
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/safe_text.h"

struct safe {
	FILE *out;
	int after_c2;	/* the previous byte was 0xc2: a C1 control may follow */
	int failed;	/* out refused a write: nothing more is given to it */
};

static int unsafe(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

/* one byte through the filter: what to write (0: nothing yet) */
static size_t filter(struct safe *sf, unsigned char c, char out[2])
{
	size_t n = 0;

	if (sf->after_c2) {
		sf->after_c2 = 0;
		if (c >= 0x80 && c <= 0x9f) {
			out[0] = '?';
			return 1;
		}
		out[n++] = (char)0xc2;
	}
	if (c == 0xc2) {
		sf->after_c2 = 1;
		return n;
	}
	out[n++] = unsafe(c) ? '?' : (char)c;
	return n;
}

char *ntp_safe__clean(char *s)
{
	struct safe sf = { 0 };
	char *w = s, buf[2];

	for (const char *r = s; *r; r++) {
		size_t n = filter(&sf, (unsigned char)*r, buf);

		memcpy(w, buf, n);
		w += n;
	}
	if (sf.after_c2)
		*w++ = (char)0xc2;
	*w = '\0';
	return s;
}

char *ntp_safe__clean_line(char *s)
{
	ntp_safe__clean(s);
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = '?';
	return s;
}

/*
 * fopencookie's write: the bytes taken, fewer on an error (0 for none),
 * never -1, which glibc's fwrite takes as unsigned.  Once out refused a
 * write it is not written again: glibc's stdio, asked to write on after a
 * failed flush of a stream it buffers, reads past the data it was given.
 */
static ssize_t safe_write(void *cookie, const char *data, size_t len)
{
	struct safe *sf = cookie;
	char buf[2];

	if (sf->failed)
		return 0;
	for (size_t i = 0; i < len;) {
		size_t k = i, n;

		/* a run of plain bytes in one write: a report may be a million lines */
		while (!sf->after_c2 && k < len && !unsafe((unsigned char)data[k]) &&
		       (unsigned char)data[k] != 0xc2)
			k++;
		if (k > i) {
			if (fwrite(data + i, 1, k - i, sf->out) != k - i) {
				sf->failed = 1;
				return (ssize_t)i;
			}
			i = k;
			continue;
		}
		n = filter(sf, (unsigned char)data[i], buf);
		if (n && fwrite(buf, 1, n, sf->out) != n) {
			sf->failed = 1;
			return (ssize_t)i;
		}
		i++;
	}
	return (ssize_t)len;
}

static int safe_close(void *cookie)
{
	struct safe *sf = cookie;
	int rc = 0;

	if (sf->after_c2 && fputc(0xc2, sf->out) == EOF)
		rc = EOF;
	if (fflush(sf->out))
		rc = EOF;
	free(sf);
	return rc;
}

FILE *ntp_safe__wrap(FILE *out)
{
	cookie_io_functions_t io = { .write = safe_write, .close = safe_close };
	struct safe *sf = calloc(1, sizeof(*sf));
	FILE *f;

	if (!sf)
		return NULL;
	sf->out = out;
	f = fopencookie(sf, "w", io);
	if (!f)
		free(sf);
	/*
	 * unbuffered: out buffers already, and glibc's cookie stream, once its
	 * flush was refused, hands its write a buffer's end it has passed
	 */
	else
		setvbuf(f, NULL, _IONBF, 0);
	return f;
}
