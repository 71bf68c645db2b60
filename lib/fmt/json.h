/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer (after bpftool's json_writer): streaming, with escaping
 * and comma placement handled here.  Keys are snake_case; times are integer
 * nanoseconds with an _ns suffix.
 */
#ifndef NTP_JSON_H
#define NTP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ntp_json;

struct ntp_json *ntp_json__new(FILE *f, bool pretty);
/* writes a final newline; does not close f */
void ntp_json__delete(struct ntp_json *j);

void ntp_json__start_object(struct ntp_json *j);
void ntp_json__end_object(struct ntp_json *j);
void ntp_json__start_array(struct ntp_json *j);
void ntp_json__end_array(struct ntp_json *j);
void ntp_json__name(struct ntp_json *j, const char *name);   /* the next value is this member */

void ntp_json__string(struct ntp_json *j, const char *s);     /* NULL writes null */
void ntp_json__uint(struct ntp_json *j, uint64_t v);
void ntp_json__int(struct ntp_json *j, int64_t v);
void ntp_json__double(struct ntp_json *j, double v);          /* NaN and inf write null */
void ntp_json__bool(struct ntp_json *j, bool v);
void ntp_json__null(struct ntp_json *j);

void ntp_json__string_field(struct ntp_json *j, const char *name, const char *s);
void ntp_json__uint_field(struct ntp_json *j, const char *name, uint64_t v);
void ntp_json__int_field(struct ntp_json *j, const char *name, int64_t v);
void ntp_json__double_field(struct ntp_json *j, const char *name, double v);
void ntp_json__bool_field(struct ntp_json *j, const char *name, bool v);

/* the whole document when a command fails in JSON mode: {"error": {"code": N, "message": "..."}} */
void ntp_json__error_document(FILE *f, int code, const char *message);

#endif
