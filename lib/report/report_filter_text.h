/* SPDX-License-Identifier: GPL-2.0 */
/* The read filters (lib/model/model_filter.h) as a report says them: text and JSON. */
#ifndef NTP_REPORT_FILTER_TEXT_H
#define NTP_REPORT_FILTER_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/model/model_filter.h"

struct ntp_json;
/* "read_filters": null, or each filter (null when not given) as numbers and arrays */
void ntp_read_filter__json(struct ntp_json *j, const struct ntp_read_filter *f);
/* "# read filters: ..." under the header, when any is given */
void ntp_read_filter__print_text(FILE *out, const struct ntp_read_filter *f);

#endif
