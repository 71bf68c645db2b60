// SPDX-License-Identifier: GPL-2.0
/* The read filters as a report says them (report_filter_text.h): text and JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/fmt/json.h"
#include "lib/model/model_filter_opt.h"
#include "lib/report/report_filter_text.h"

void ntp_read_filter__print_text(FILE *out, const struct ntp_read_filter *f)
{
	char buf[1024];

	if (!ntp_read_filter__any(f))
		return;
	ntp_read_filter__describe(f, buf, sizeof(buf));
	fprintf(out, "# %-18s %s (the tables hold only the commands that pass them; the counts "
		"above are the whole recording's)\n", "read filters:", buf);
}

static void json_names(struct ntp_json *j, const char *list)
{
	const char *p = list, *item;
	char name[NTP_READ_NAME_MAX + 1];

	ntp_json__start_array(j);
	while (*p) {
		size_t len = ntp_read_filter__next_item(&p, &item);

		snprintf(name, sizeof(name), "%.*s", (int)len, item);
		ntp_json__string(j, name);
	}
	ntp_json__end_array(j);
}

void ntp_read_filter__json(struct ntp_json *j, const struct ntp_read_filter *f)
{
	ntp_json__name(j, "read_filters");
	if (!ntp_read_filter__any(f)) {
		ntp_json__null(j);
		return;
	}
	ntp_json__start_object(j);
	ntp_json__name(j, "session");
	if (f->session)
		json_names(j, f->session);
	else
		ntp_json__null(j);
	ntp_json__name(j, "io_type");
	if (f->io_types) {
		ntp_json__start_array(j);
		for (int k = 0; ntp_read_io_names[k]; k++)
			if (f->io_types & (1u << k))
				ntp_json__string(j, ntp_read_io_names[k]);
		ntp_json__end_array(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "sizes");
	if (f->sizes.nsizes) {
		ntp_json__start_array(j);
		for (uint32_t i = 0; i < f->sizes.nsizes; i++)
			ntp_json__uint(j, f->sizes.sizes[i]);
		ntp_json__end_array(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "qid");
	if (f->nqids) {
		ntp_json__start_array(j);
		for (int i = 0; i < f->nqids; i++) {
			ntp_json__start_array(j);
			ntp_json__uint(j, f->qids[i].lo);
			ntp_json__uint(j, f->qids[i].hi);
			ntp_json__end_array(j);
		}
		ntp_json__end_array(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__name(j, "time");
	if ((f->has_start || f->has_end)) {
		ntp_json__start_object(j);
		ntp_json__name(j, "start_ns");
		if (f->has_start)
			ntp_json__int(j, f->start_ns);
		else
			ntp_json__null(j);
		ntp_json__name(j, "end_ns");
		if (f->has_end)
			ntp_json__int(j, f->end_ns);
		else
			ntp_json__null(j);
		ntp_json__end_object(j);
	} else {
		ntp_json__null(j);
	}
	ntp_json__end_object(j);
}
