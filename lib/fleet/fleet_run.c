// SPDX-License-Identifier: GPL-2.0
/* The committed runs of the fleet's tables, read back (lib/fleet/fleet_run.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/fleet/fleet_run.h"
#include "lib/fleet/fleet_schema.h"
#include "lib/ntp/db_role.h"

static char *dup_field(const char *s)
{
	return strdup(s ? s : "");
}

int ntp_fleet_run__read(struct ntp_fleet *f, const char *where, struct ntp_fleet_run **runs,
			int *n)
{
	struct ntp_ch_reply r;
	char *line, *fld[32];
	int k, err;

	err = ntp_ch__queryf(f->ch, &r, 0,
		"SELECT run_id, min(push_id), any(role), any(hostname), any(boot_id), any(transport), "
		"any(sample_one_in), any(hash_version), any(kernel_release), any(ntprof_version), "
		"any(file), any(start_utc_ns), any(start_ns), any(duration_ns), any(host_rows), "
		"any(target_rows), any(h_seen), any(h_sampled), any(h_lost_ringbuf), any(h_lost_map), "
		"any(t_seen), any(t_sampled), any(t_lost_ringbuf), any(t_lost_map) "
		"FROM %s WHERE complete = 1 AND (%s) GROUP BY run_id "
		"ORDER BY any(role) = 'target', any(start_utc_ns), any(hostname), any(file), run_id "
		"FORMAT TabSeparated", ntp_fleet__table(f, NTP_FLEET_RUNS, false), where);
	if (err)
		return err;
	for (line = r.body; (k = ntp_ch__tsv_next(&line, fld, 32)) >= 0;) {
		struct ntp_fleet_run *run;
		void *v;

		if (k < 24)
			continue;
		v = realloc(*runs, (size_t)(*n + 1) * sizeof(**runs));
		if (!v) {
			err = ENOMEM;
			break;
		}
		*runs = v;
		run = &(*runs)[(*n)++];
		memset(run, 0, sizeof(*run));
		run->run_id = strtoull(fld[0], NULL, 10);
		run->push_id = strtoull(fld[1], NULL, 10);
		run->role = dup_field(fld[2]);
		run->hostname = dup_field(fld[3]);
		run->boot_id = dup_field(fld[4]);
		run->transport = dup_field(fld[5]);
		run->sample_one_in = strtoll(fld[6], NULL, 10);
		run->hash_version = strtoll(fld[7], NULL, 10);
		run->kernel_release = dup_field(fld[8]);
		run->ntprof_version = dup_field(fld[9]);
		run->meta = dup_field(fld[10]);       /* the file's name, in the header */
		run->start_utc_ns = strtoll(fld[11], NULL, 10);
		run->start_ns = strtoll(fld[12], NULL, 10);
		run->duration_ns = strtoll(fld[13], NULL, 10);
		run->host_rows = strtoll(fld[14], NULL, 10);
		run->target_rows = strtoll(fld[15], NULL, 10);
		for (int i = 0; i < 8; i++)
			run->counts[i / 4][i % 4] = strtoull(fld[16 + i], NULL, 10);
		if (!run->role || !run->hostname || !run->boot_id || !run->transport ||
		    !run->kernel_release || !run->ntprof_version || !run->meta) {
			err = ENOMEM;
			break;
		}
		run->sides = !strcmp(run->role, "target") ? NTP_SIDE_TARGET :
			     !strcmp(run->role, "both") ? NTP_SIDE_HOST | NTP_SIDE_TARGET :
			     NTP_SIDE_HOST;
	}
	ntp_ch_reply__free(&r);
	if (err) {
		ntp_error("%s", strerror(ENOMEM));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

/* run r's value of meta key k as text into buf ("(none)" when not recorded); NULL: no column */
static const char *agree_value(const struct ntp_fleet_run *r, enum ntp_meta_key k, char *buf,
			       size_t len)
{
	int64_t v;

	switch (k) {
	case NTP_META_TRANSPORT:
		return *r->transport ? r->transport : "(none)";
	case NTP_META_SAMPLE_ONE_IN:
		v = r->sample_one_in;
		break;
	case NTP_META_HASH_VERSION:
		v = r->hash_version;
		break;
	default:
		return NULL;
	}
	/* push stores 0 for a key the recording lacks */
	if (v)
		snprintf(buf, len, "%" PRId64, v);
	else
		snprintf(buf, len, "(none)");
	return buf;
}

bool ntp_fleet_run__disagree(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t,
			     enum ntp_meta_key *k)
{
	char a[32], b[32];

	for (int i = 0; i < NTP_META_MAX; i++) {
		const char *va, *vb;

		if (!ntp_meta[i].agree)
			continue;
		va = agree_value(h, (enum ntp_meta_key)i, a, sizeof(a));
		vb = agree_value(t, (enum ntp_meta_key)i, b, sizeof(b));
		if (va && vb && strcmp(va, vb)) {
			*k = (enum ntp_meta_key)i;
			return true;
		}
	}
	return false;
}

int ntp_fleet_run__refuse(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t,
			  enum ntp_meta_key k, const char *more)
{
	const struct ntp_meta_desc *d = &ntp_meta[k];
	char a[32], b[32];
	const char *va = agree_value(h, k, a, sizeof(a)), *vb = agree_value(t, k, b, sizeof(b));

	ntp_error("cannot join run %016" PRIx64 " (%s %s) and run %016" PRIx64 " (%s %s): %s %s "
		  "and %s (%s%s%s)", h->run_id, h->role, *h->hostname ? h->hostname : "(no name)",
		  t->run_id, t->role, *t->hostname ? t->hostname : "(no name)", d->agree,
		  va ? va : "(none)", vb ? vb : "(none)", d->agree_hint, more ? "; " : "",
		  more ? more : "");
	return d->agree_exit ? d->agree_exit : NTP_EXIT_MISMATCH;
}

bool ntp_fleet_run__overlap(const struct ntp_fleet_run *h, const struct ntp_fleet_run *t)
{
	if (h->start_utc_ns <= 0 || t->start_utc_ns <= 0 || h->duration_ns <= 0 ||
	    t->duration_ns <= 0)
		return true;
	return h->start_utc_ns <= t->start_utc_ns + t->duration_ns &&
	       t->start_utc_ns <= h->start_utc_ns + h->duration_ns;
}
