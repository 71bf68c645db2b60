// SPDX-License-Identifier: GPL-2.0
/*
 * report: the text form of a report on joined recordings, or of the detailed
 * stages of one host recording.  As for one recording (report_text.c):
 * every line that is not a table row begins with '#', and the tables of
 * groups are report_text_tables.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "lib/cli/exit.h"
#include "lib/core/size.h"
#include "lib/report/report_jtext.h"
#include "lib/report/report_model.h"
#include "lib/report/report_text.h"
#include "lib/report/report_text_tables.h"
#include "lib/report/report_view.h"

/* the row that stands for the whole: a target alone sees only its residence */
static const char *total_label(const struct ntp_jreport *r)
{
	return r->target_only ? "residence" : "end-to-end";
}

static void print_counts(FILE *f, const char *side, uint64_t seen, uint64_t sampled,
			 uint64_t lost_rb, uint64_t lost_map, uint64_t rows)
{
	char key[40];

	snprintf(key, sizeof(key), "%s seen:", side);
	fprintf(f, "#   %-18s %" PRIu64 "\n", key, seen);
	snprintf(key, sizeof(key), "%s sampled:", side);
	fprintf(f, "#   %-18s %" PRIu64 "\n", key, sampled);
	snprintf(key, sizeof(key), "%s lost:", side);
	fprintf(f, "#   %-18s %" PRIu64 " (ring buffer full %" PRIu64 ", in-flight map full %"
		PRIu64 ")\n", key, lost_rb + lost_map, lost_rb, lost_map);
	snprintf(key, sizeof(key), "%s in file:", side);
	fprintf(f, "#   %-18s %" PRIu64 "\n", key, rows);
}

static void print_files(const struct ntp_jreport *r, FILE *f)
{
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_jfile *jf = &r->files[i];
		const struct ntp_report_header *h = &jf->hdr;

		fprintf(f, "# file %d:\n", i + 1);
		ntp_report__print_file_header(h, f, "  ");
		if (jf->sides & NTP_JOIN_HOST)
			print_counts(f, "host", h->seen, h->sampled, h->lost_ringbuf,
				     h->lost_map, h->rows);
		if (jf->sides & NTP_JOIN_TARGET)
			print_counts(f, "target", jf->t_seen, jf->t_sampled,
				     jf->t_lost_ringbuf, jf->t_lost_map, jf->t_rows);
	}
}

static void print_pairs(const struct ntp_jreport *r, FILE *f)
{
	for (int i = 0; i < r->npairs; i++) {
		const struct ntp_join_pair *p = &r->pairs[i];

		fprintf(f, "# %-18s file %d -> file %d: ", "clock pair:", p->host_file + 1,
			p->target_file + 1);
		if (p->clock != NTP_JOIN_CLOCK_TWO) {
			/* one kernel's clock on both sides: known, not estimated */
			fprintf(f, "%s: offset 0 ns, drift 0 ppm, not estimated; %" PRId64 " of %"
				PRId64 " candidate pairs agree within %.0f ns; %" PRId64
				" commands matched\n", ntp_join__clock_name(p->clock), p->support,
				p->candidates, p->tol_ns, p->matched);
			continue;
		}
		if (!p->estimated) {
			fprintf(f, "not estimated: %" PRId64 " candidate pairs, %" PRId64
				" agree (too few); 0 commands matched\n", p->candidates, p->support);
			continue;
		}
		fprintf(f, "offset %+" PRId64 " ns, drift %+.3f ppm (target clock - host clock "
			"at host time %" PRId64 " ns); %" PRId64 " of %" PRId64
			" candidate pairs agree within %.0f ns; %" PRId64 " commands matched\n",
			ntp_report__round_ns(p->offset_ns), p->drift * 1e6, p->t0_ns, p->support,
			p->candidates, p->tol_ns, p->matched);
	}
}

static void print_join_counts(const struct ntp_jreport *r, FILE *f)
{
	const struct ntp_join_counts *c = &r->counts;
	double pct = ntp_jreport__matched_pct(r);

	fprintf(f, "# %-18s %" PRId64 " (%.2f%% of the %" PRId64 " host commands)\n",
		"commands matched:", c->matched, isfinite(pct) ? pct : 0.0, c->host_rows);
	fprintf(f, "# %-18s %" PRId64 " (no target record: lost, or recorded while the target "
		"was not)\n", "unmatched host:", c->unmatched_host);
	fprintf(f, "# %-18s %" PRId64 " (of %" PRId64 " target commands, no host record)\n",
		"unmatched target:", c->unmatched_target, c->target_rows);
	fprintf(f, "# %-18s %" PRId64 " (a target record of the same command outside the clock "
		"offset bound: a mismatch, never joined)\n", "rejected:", c->rejected);
}

static void print_warnings(const struct ntp_jreport *r, FILE *f)
{
	double pct = ntp_jreport__matched_pct(r);

	if (r->joined && (!isfinite(pct) || pct < NTP_JREPORT_WARN_PCT))
		fprintf(f, "# warning: only %.2f%% of the host's sampled commands were joined "
			"(below %.0f%%): the stages below describe the joined ones only\n",
			isfinite(pct) ? pct : 0.0, NTP_JREPORT_WARN_PCT);
	for (int i = 0; i < r->nfiles; i++) {
		const struct ntp_jfile *jf = &r->files[i];
		uint64_t lost = jf->hdr.lost_ringbuf + jf->hdr.lost_map +
				jf->t_lost_ringbuf + jf->t_lost_map;

		if (lost)
			fprintf(f, "# warning: %" PRIu64 " sampled commands were lost while "
				"recording file %d; the statistics below do not include them\n",
				lost, i + 1);
	}
}

static void print_groups(const struct ntp_jreport *r, FILE *f, const struct ntp_report_opts *o)
{
	/* a target groups by its backend device: it has no namespace disk */
	const char *ns_title = r->target_only ? "device" : "namespace";

	if (r->target_only)
		fprintf(f, "#\n# residence on the target per group (us) of the sampled target "
			"commands: %s; est_cmds/s is estimated: n x N / duration of the file\n",
			r->rdma ? "received to response posted, less the RDMA READ of a write's data" :
			"received to response sent, less an R2T write's wait for its data");
	else
		fprintf(f, "#\n# end-to-end latency per group (us) of the %s commands; est_cmds/s "
			"is estimated: n x N / duration of the host file\n",
			r->joined ? "joined" : "sampled");
	ntp_report__print_group_titles(f, true, ns_title, o->field_separator);
	for (size_t i = 0; i < r->ngroups; i++)
		if (ntp_report__shown(&r->groups[i], r->total, o))
			ntp_report__print_group_row(f, &r->groups[i], true, o->field_separator);
}

static void print_stages(const struct ntp_jreport *r, const struct ntp_report_group *g, FILE *f,
			 const char *sep)
{
	const struct ntp_view *v = ntp_jreport__view(r);
	char size[32];

	ntp_size__str(g->bytes, size, sizeof(size));
	fprintf(f, "#\n# stages of %s %s %s of file %d (n=%zu), us; share%% of the %s mean\n",
		g->io_type, size, g->ns, g->host_file, g->e2e.n, total_label(r));
	ntp_report__print_stage_table(f, g, v->stages, v->nstages, total_label(r), sep);
}

static void print_notes(const struct ntp_jreport *r, FILE *f)
{
	const struct ntp_view *v = ntp_jreport__view(r);

	fprintf(f, "#\n# stages (%s):\n", v->name);
	for (int s = 0; s < v->nstages; s++)
		fprintf(f, "#   %-12s %s\n", v->stages[s].text, v->stages[s].what);
	if (r->target_only)
		fprintf(f, "#   %-12s %s\n", "residence", ntp_jreport__residence(r));
	for (size_t i = 0; i < r->ngaps; i++) {
		const struct ntp_stage_gap *g = &r->gaps[i];

		fprintf(f, "# hook gap: file %d: %s (hook %s): %s: %s\n", g->file, g->point,
			g->hook, g->stages, g->what);
	}
}

int ntp_jreport__print_text(const struct ntp_jreport *r, FILE *f, const struct ntp_report_opts *o)
{
	size_t hidden = 0;

	if (r->joined)
		fprintf(f, "# ntprof report: %d recording%s joined\n", r->nfiles,
			r->nfiles == 1 ? "" : "s");
	else
		fprintf(f, "# ntprof report\n");
	print_files(r, f);
	if (r->joined) {
		print_pairs(r, f);
		print_join_counts(r, f);
	}
	print_warnings(r, f);
	if (r->target_only)
		fprintf(f, "# note: %s\n", NTP_JREPORT_TARGET_NOTE);
	if (!r->ngroups) {
		fprintf(f, "#\n# no %s commands\n", r->joined ? "joined" :
			r->target_only ? "sampled target" : "sampled host");
		return NTP_EXIT_OK;
	}
	print_groups(r, f, o);
	for (size_t i = 0; i < r->ngroups; i++) {
		if (ntp_report__shown(&r->groups[i], r->total, o))
			print_stages(r, &r->groups[i], f, o->field_separator);
		else
			hidden++;
	}
	print_notes(r, f);
	if (hidden)
		fprintf(f, "# %zu groups below --percent-limit %g%% not shown\n", hidden,
			o->percent_limit);
	return NTP_EXIT_OK;
}
