// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming JSON writer, on the pattern of bpftool's json_writer: callers say
 * what comes next and the writer places commas, newlines and indentation.
 *
 * Pretty mode lays out like Python's json.dumps(indent=2) (every member and
 * element on its own line, "key": value, empty containers as {} and []),
 * compact mode like json.dumps(separators=(",", ":")).  Several top-level
 * values are written one per line.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fmt/json.h"

struct ntp_json {
	FILE *f;
	bool pretty;
	unsigned int depth;
	bool first;             /* nothing written yet in the current container */
	bool after_name;        /* a member name was written; its value comes next */
	bool any_top;           /* a top-level value was written */
};

struct ntp_json *ntp_json__new(FILE *f, bool pretty)
{
	struct ntp_json *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->f = f;
	j->pretty = pretty;
	j->first = true;
	return j;
}

void ntp_json__delete(struct ntp_json *j)
{
	if (!j)
		return;
	fputc('\n', j->f);
	free(j);
}

static void newline(struct ntp_json *j)
{
	unsigned int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* the separator owed before any value or member name */
static void before_item(struct ntp_json *j)
{
	if (j->after_name) {
		j->after_name = false;
		return;
	}
	if (j->depth == 0) {
		/* several top-level documents: one per line (JSON Lines) */
		if (j->any_top)
			fputc('\n', j->f);
		j->any_top = true;
		return;
	}
	if (!j->first)
		fputc(',', j->f);
	newline(j);
	j->first = false;
}

static void start(struct ntp_json *j, int c)
{
	before_item(j);
	fputc(c, j->f);
	j->depth++;
	j->first = true;
}

static void end(struct ntp_json *j, int c)
{
	if (j->depth == 0)
		return;         /* unbalanced call: a bug in the caller, but keep the output parseable */
	j->depth--;
	if (!j->first)
		newline(j);
	fputc(c, j->f);
	j->first = false;
}

void ntp_json__start_object(struct ntp_json *j)
{
	start(j, '{');
}

void ntp_json__end_object(struct ntp_json *j)
{
	end(j, '}');
}

void ntp_json__start_array(struct ntp_json *j)
{
	start(j, '[');
}

void ntp_json__end_array(struct ntp_json *j)
{
	end(j, ']');
}

/* length of the valid UTF-8 sequence at s, or 0 if it is not one */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int c = s[0];
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/*
 * Strings come from the kernel and from users' command lines, so they may
 * hold any bytes: control characters are escaped, valid UTF-8 is passed
 * through, and a byte that is not UTF-8 becomes U+FFFD so the document stays
 * valid JSON.
 */
static void put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		size_t n;

		switch (*s) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*s < 0x20) {
				fprintf(f, "\\u%04x", *s);
			} else if (*s < 0x80) {
				fputc(*s, f);
			} else if ((n = utf8_len(s)) != 0) {
				fwrite(s, 1, n, f);
				s += n;
				continue;
			} else {
				fputs("\\ufffd", f);
			}
		}
		s++;
	}
	fputc('"', f);
}

void ntp_json__name(struct ntp_json *j, const char *name)
{
	before_item(j);
	put_string(j->f, name ? name : "");
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_name = true;
}

void ntp_json__string(struct ntp_json *j, const char *s)
{
	before_item(j);
	if (s)
		put_string(j->f, s);
	else
		fputs("null", j->f);
}

void ntp_json__uint(struct ntp_json *j, uint64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRIu64, v);
}

void ntp_json__int(struct ntp_json *j, int64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRId64, v);
}

/* the shortest of %.15g..%.17g that reads back as the same double */
void ntp_json__double(struct ntp_json *j, double v)
{
	char buf[40];
	int prec;

	before_item(j);
	if (!isfinite(v)) {
		fputs("null", j->f);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	fputs(buf, j->f);
}

void ntp_json__bool(struct ntp_json *j, bool v)
{
	before_item(j);
	fputs(v ? "true" : "false", j->f);
}

void ntp_json__null(struct ntp_json *j)
{
	before_item(j);
	fputs("null", j->f);
}

void ntp_json__string_field(struct ntp_json *j, const char *name, const char *s)
{
	ntp_json__name(j, name);
	ntp_json__string(j, s);
}

void ntp_json__uint_field(struct ntp_json *j, const char *name, uint64_t v)
{
	ntp_json__name(j, name);
	ntp_json__uint(j, v);
}

void ntp_json__int_field(struct ntp_json *j, const char *name, int64_t v)
{
	ntp_json__name(j, name);
	ntp_json__int(j, v);
}

void ntp_json__double_field(struct ntp_json *j, const char *name, double v)
{
	ntp_json__name(j, name);
	ntp_json__double(j, v);
}

void ntp_json__bool_field(struct ntp_json *j, const char *name, bool v)
{
	ntp_json__name(j, name);
	ntp_json__bool(j, v);
}

void ntp_json__error_document(FILE *f, int code, const char *message)
{
	struct ntp_json *j = ntp_json__new(f, true);

	if (!j) {
		/* no memory for the writer: the document is small enough to write by hand */
		fprintf(f, "{\"error\": {\"code\": %d, \"message\": ", code);
		put_string(f, message ? message : "");
		fputs("}}\n", f);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__name(j, "error");
	ntp_json__start_object(j);
	ntp_json__int_field(j, "code", code);
	ntp_json__string_field(j, "message", message);
	ntp_json__end_object(j);
	ntp_json__end_object(j);
	ntp_json__delete(j);
}
