// SPDX-License-Identifier: GPL-2.0
/* How --histogram shows the buckets (lib/report/report_opts.h, struct ntp_hist_form). */
#include <string.h>

#include "lib/report/report_opts.h"

int ntp_hist_form__bits(const struct ntp_hist_form *f)
{
	uint64_t per = f && f->per_octave ? f->per_octave : NTP_HIST_DEFAULT_PER_OCTAVE;
	int bits = 0;

	while ((1ULL << bits) < per && bits < NTP_HIST_SUB_BITS)
		bits++;
	return bits;
}

const char *ntp_hist_form__unit(const struct ntp_hist_form *f)
{
	return f && f->unit ? f->unit : "us";
}

int64_t ntp_hist_form__ns_per_unit(const struct ntp_hist_form *f)
{
	const char *u = ntp_hist_form__unit(f);

	return !strcmp(u, "ns") ? 1 : !strcmp(u, "ms") ? 1000000 : 1000;
}
