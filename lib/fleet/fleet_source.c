// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet's engine as a source of recordings (lib/fleet/fleet_source.h).
 * No text of the user's goes into SQL as it is: names are quoted
 * (ntp_ch__quote), ids and times parsed into numbers first.
 */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/core/stage_table.h"
#include "lib/core/interval.h"
#include "lib/core/stat_table.h"
#include "lib/fleet/fleet_run.h"
#include "lib/fleet/fleet_schema.h"
#include "lib/fleet/fleet_source.h"
#include "lib/model/model.h"
#include "lib/model/model_groups.h"
#include "lib/model/model_load.h"
#include "lib/ntp/db_role.h"

struct fleet_source {
	struct ntp_source s;      /* first: the model's view of it */
	struct ntp_fleet *f;
	struct ntp_fleet_run *runs;
	char **names;             /* each run's name in the report's header */
	int nruns;
	struct ntp_join_pair *pairs;   /* the clock lines among the runs (indexes into runs) */
	struct ntp_join_counts counts;
	int npairs;
	char *where;              /* the commands' filter: fleet filters and read filters */
	struct ntp_fleet_filter ff;
	const struct ntp_read_filter *rf;
};

static const struct ntp_source_ops fleet_ops;

static int nomem(void)
{
	ntp_error("%s", strerror(ENOMEM));
	return NTP_EXIT_FAILURE;
}

/* ---- the filters as SQL ----------------------------------------------------------- */

/* each item of the comma list as a quoted string, joined by ", " into m */
static int quoted_list(FILE *m, const char *list)
{
	const char *p = list, *item;
	size_t len;
	int n = 0;

	while ((len = ntp_read_filter__next_item(&p, &item))) {
		char *one = strndup(item, len), *q = one ? ntp_ch__quote(one) : NULL;

		free(one);
		if (!q)
			return -1;
		fprintf(m, "%s%s", n++ ? ", " : "", q);
		free(q);
	}
	return n;
}

/* a UTC time: YYYY-MM-DD[THH:MM[:SS]] (or a space for T), or @SECONDS since the epoch */
static int parse_time(const char *opt, const char *s, int64_t *ns)
{
	struct tm tm = { 0 };
	const char *end = NULL;
	char *e;

	if (s[0] == '@') {
		long long v;

		errno = 0;
		v = strtoll(s + 1, &e, 10);
		if (!errno && e != s + 1 && !*e && v >= 0 && v < 9000000000LL) {
			*ns = v * 1000000000LL;
			return 0;
		}
	} else {
		static const char *const forms[] = { "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
						     "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d" };

		for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && !(end && !*end); i++) {
			memset(&tm, 0, sizeof(tm));
			end = strptime(s, forms[i], &tm);
		}
		if (end && !*end) {
			*ns = (int64_t)timegm(&tm) * 1000000000LL;
			return 0;
		}
	}
	ntp_error("%s '%s': not a UTC time: YYYY-MM-DD[THH:MM[:SS]] or @SECONDS", opt, s);
	return NTP_EXIT_USAGE;
}

/* the run ids of a comma list of hex ids into m; -1 after a message */
static int id_list(FILE *m, const char *list)
{
	const char *p = list, *item;
	size_t len;
	int n = 0;

	while ((len = ntp_read_filter__next_item(&p, &item))) {
		char buf[24], *e;
		unsigned long long v;

		if (len >= sizeof(buf))
			goto bad;
		memcpy(buf, item, len);
		buf[len] = '\0';
		errno = 0;
		v = strtoull(buf, &e, 16);
		if (errno || *e || e == buf)
			goto bad;
		fprintf(m, "%s%llu", n++ ? ", " : "", v);
		continue;
bad:
		ntp_error("--run '%.*s': not a run id (16 hex digits, as push prints it)", (int)len,
			  item);
		return -1;
	}
	if (!n)
		ntp_error("%s: an empty list", "--run");
	return n;
}

static int uint_list(FILE *m, const char *opt, const char *list, unsigned long max)
{
	const char *p = list, *item;
	size_t len;
	int n = 0;

	while ((len = ntp_read_filter__next_item(&p, &item))) {
		char buf[24], *e;
		unsigned long v;

		if (len >= sizeof(buf))
			goto bad;
		memcpy(buf, item, len);
		buf[len] = '\0';
		errno = 0;
		v = strtoul(buf, &e, 10);
		if (errno || *e || e == buf || v > max)
			goto bad;
		fprintf(m, "%s%lu", n++ ? ", " : "", v);
		continue;
bad:
		ntp_error("%s '%.*s': not a number up to %lu", opt, (int)len, item, max);
		return -1;
	}
	if (!n)
		ntp_error("%s: an empty list", opt);
	return n;
}

/* the runs' filter (on runs) */
static int runs_where(FILE *m, const struct ntp_fleet_filter *ff)
{
	int64_t t;

	fputs("complete = 1", m);
	if (ff->from) {
		if (parse_time("--from", ff->from, &t))
			return NTP_EXIT_USAGE;
		fprintf(m, " AND start_utc_ns + duration_ns >= %" PRId64, t);
	}
	if (ff->until) {
		if (parse_time("--until", ff->until, &t))
			return NTP_EXIT_USAGE;
		fprintf(m, " AND start_utc_ns < %" PRId64, t);
	}
	return 0;
}

/*
 * The commands' filter: the fleet's (subsystem, controllers, time) and the
 * read filters, over columns of cmds and pairs alike (ns, path, io_type,
 * bytes, qid, utc_ns, start: the row's start on its run's clock; run: its
 * run id column).
 */
static int cmds_where(struct fleet_source *fs, const struct ntp_fleet_filter *ff,
		      const char *start, const char *run)
{
	const struct ntp_read_filter *rf = fs->rf;
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	int64_t t;
	int err = 0;

	if (!m)
		return nomem();
	fputs("1", m);
	if (ff->subsysnqn) {
		char *q = ntp_ch__quote(ff->subsysnqn);

		if (!q)
			err = nomem();
		else
			fprintf(m, " AND subsysnqn = %s", q);
		free(q);
	}
	if (!err && ff->cntlids) {
		fputs(" AND cntlid IN (", m);
		if (uint_list(m, "--controller", ff->cntlids, 65535) < 1)
			err = NTP_EXIT_USAGE;
		fputc(')', m);
	}
	if (!err && ff->from) {
		err = parse_time("--from", ff->from, &t);
		fprintf(m, " AND utc_ns >= %" PRId64, t);
	}
	if (!err && ff->until) {
		err = parse_time("--until", ff->until, &t);
		fprintf(m, " AND utc_ns < %" PRId64, t);
	}
	if (!err && rf && rf->session) {
		fputs(" AND (ns IN (", m);
		quoted_list(m, rf->session);
		fputs(") OR path IN (", m);
		quoted_list(m, rf->session);
		fputs("))", m);
	}
	if (!err && rf && rf->io_types) {
		int n = 0;

		fputs(" AND io_type IN (", m);
		for (int i = 0; ntp_read_io_names[i]; i++)
			if (rf->io_types & (1u << i))
				fprintf(m, "%s'%s'", n++ ? ", " : "", ntp_read_io_names[i]);
		fputc(')', m);
	}
	if (!err && rf && rf->sizes.flags) {
		fputs(" AND bytes IN (", m);
		for (unsigned i = 0; i < rf->sizes.nsizes; i++)
			fprintf(m, "%s%u", i ? ", " : "", rf->sizes.sizes[i]);
		fputc(')', m);
	}
	if (!err && rf && rf->nqids) {
		fputs(" AND (", m);
		for (int i = 0; i < rf->nqids; i++)
			fprintf(m, "%s(qid BETWEEN %u AND %u)", i ? " OR " : "", rf->qids[i].lo,
				rf->qids[i].hi);
		fputc(')', m);
	}
	if (!err && rf && (rf->has_start || rf->has_end)) {
		/* from each run's own start (meta start_ns) */
		fprintf(m, " AND ((%s - transform(%s, [", start, run);
		for (int i = 0; i < fs->nruns; i++)
			fprintf(m, "%s%" PRIu64, i ? ", " : "", fs->runs[i].run_id);
		fputs("], [", m);
		for (int i = 0; i < fs->nruns; i++)
			fprintf(m, "%stoInt64(%" PRId64 ")", i ? ", " : "", fs->runs[i].start_ns);
		fputs("], toInt64(0))) AS since", m);
		fputs(") = since", m);
		if (rf->has_start)
			fprintf(m, " AND since >= %" PRId64, rf->start_ns);
		if (rf->has_end)
			fprintf(m, " AND since < %" PRId64, rf->end_ns);
	}
	if (fclose(m) || !sql) {
		free(sql);
		return nomem();
	}
	if (err) {
		free(sql);
		return err;
	}
	free(fs->where);
	fs->where = sql;
	return 0;
}

/* the fleet filters' values, before anything is asked of the engine: NTP_EXIT_USAGE after one line */
static int check_filters(const struct ntp_fleet_filter *ff)
{
	FILE *null = fopen("/dev/null", "w");
	int64_t t;
	int err = 0;

	if (!null)
		return nomem();
	if (ff->runs && id_list(null, ff->runs) < 1)
		err = NTP_EXIT_USAGE;
	if (!err && ff->cntlids && uint_list(null, "--controller", ff->cntlids, 65535) < 1)
		err = NTP_EXIT_USAGE;
	if (!err && ff->from)
		err = parse_time("--from", ff->from, &t);
	if (!err && ff->until)
		err = parse_time("--until", ff->until, &t);
	fclose(null);
	return err;
}

/* ---- the runs --------------------------------------------------------------------- */

/* the committed runs runs_where selects (one row a run id: its least push id) */
static int read_runs(struct fleet_source *fs, const struct ntp_fleet_filter *ff)
{
	char *where = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&where, &len);
	int err;

	if (!m)
		return nomem();
	err = runs_where(m, ff);
	if (fclose(m) || !where) {
		free(where);
		return nomem();
	}
	if (!err)
		err = ntp_fleet_run__read(fs->f, where, &fs->runs, &fs->nruns);
	free(where);
	return err;
}

static int run_index(const struct fleet_source *fs, uint64_t id)
{
	for (int i = 0; i < fs->nruns; i++)
		if (fs->runs[i].run_id == id)
			return i;
	return -1;
}

/* is id in --run's list? */
static bool listed(const char *list, uint64_t id)
{
	const char *p = list, *item;
	size_t len;

	while ((len = ntp_read_filter__next_item(&p, &item))) {
		char buf[24];

		if (len < sizeof(buf)) {
			memcpy(buf, item, len);
			buf[len] = '\0';
			if (strtoull(buf, NULL, 16) == id)
				return true;
		}
	}
	return false;
}

/* is run i chosen by --host / --target (host name in the list)? */
static bool named(const char *list, const char *hostname)
{
	const char *p = list, *item;
	size_t len;

	while ((len = ntp_read_filter__next_item(&p, &item)))
		if (strlen(hostname) == len && !strncmp(hostname, item, len))
			return true;
	return false;
}

/*
 * The clock lines among the runs, and with --host or --target the runs
 * they name and those joined to them, the others dropped.
 */
static int read_pairs(struct fleet_source *fs, const struct ntp_fleet_filter *ff)
{
	struct ntp_ch_reply r;
	char *line, *fld[16];
	bool *keep, *chosen = NULL;
	char *copy;
	int n, err;

	keep = calloc(fs->nruns ? fs->nruns : 1, sizeof(*keep));
	if (!keep)
		return nomem();
	err = ntp_ch__queryf(fs->f->ch, &r, 0,
		"SELECT host_run, target_run, any(clock), any(estimated), any(t0_ns), any(base_ns), "
		"any(a), any(drift), any(tol_ns), any(candidates), any(support), any(matched), "
		"any(unmatched_host), any(unmatched_target), any(rejected) FROM %s "
		"GROUP BY host_run, target_run ORDER BY host_run, target_run FORMAT TabSeparated",
		ntp_fleet__table(fs->f, NTP_FLEET_CLOCKS, false));
	for (int i = 0; i < fs->nruns; i++) {
		const struct ntp_fleet_run *run = &fs->runs[i];

		keep[i] = (!ff->hosts && !ff->targets && !ff->runs) ||
			  (ff->runs && listed(ff->runs, run->run_id)) ||
			  (ff->hosts && (run->sides & NTP_SIDE_HOST) && named(ff->hosts, run->hostname)) ||
			  (ff->targets && (run->sides & NTP_SIDE_TARGET) &&
			   named(ff->targets, run->hostname));
	}
	/* the runs joined to a run chosen come with it (not those joined to them in turn) */
	chosen = malloc((fs->nruns ? fs->nruns : 1) * sizeof(*chosen));
	copy = err ? NULL : strdup(r.body);
	if (!err && (!chosen || !copy))
		err = nomem();
	for (int i = 0; !err && i < fs->nruns; i++)
		chosen[i] = keep[i];
	/* a walk of a copy (fields are unescaped in place), then the pairs of the runs kept */
	for (line = err ? NULL : copy; line && (n = ntp_ch__tsv_next(&line, fld, 16)) >= 0;) {
		int h, t;

		if (n < 15)
			continue;
		h = run_index(fs, strtoull(fld[0], NULL, 10));
		t = run_index(fs, strtoull(fld[1], NULL, 10));
		if (h >= 0 && t >= 0 && (chosen[h] || chosen[t]))
			keep[h] = keep[t] = true;
	}
	free(copy);
	for (line = err ? NULL : r.body; line && (n = ntp_ch__tsv_next(&line, fld, 16)) >= 0;) {
		int h, t;
		struct ntp_join_pair *p;
		void *v;

		if (n < 15)
			continue;
		h = run_index(fs, strtoull(fld[0], NULL, 10));
		t = run_index(fs, strtoull(fld[1], NULL, 10));
		if (h < 0 || t < 0 || !keep[h] || !keep[t])
			continue;
		v = realloc(fs->pairs, (size_t)(fs->npairs + 1) * sizeof(*fs->pairs));
		if (!v) {
			err = nomem();
			break;
		}
		fs->pairs = v;
		p = &fs->pairs[fs->npairs++];
		memset(p, 0, sizeof(*p));
		p->host_file = h;
		p->target_file = t;
		p->clock = !strcmp(fld[2], "one recording") ? NTP_JOIN_CLOCK_ONE_FILE :
			   !strcmp(fld[2], "one boot") ? NTP_JOIN_CLOCK_ONE_BOOT : NTP_JOIN_CLOCK_TWO;
		p->estimated = atoi(fld[3]);
		p->t0_ns = strtoll(fld[4], NULL, 10);
		p->offset_ns = (double)strtoll(fld[5], NULL, 10) + strtod(fld[6], NULL);
		p->drift = strtod(fld[7], NULL);
		p->tol_ns = strtod(fld[8], NULL);
		p->candidates = strtoll(fld[9], NULL, 10);
		p->support = strtoll(fld[10], NULL, 10);
		p->matched = strtoll(fld[11], NULL, 10);
		fs->counts.matched += p->matched;
		fs->counts.rejected += strtoll(fld[14], NULL, 10);
	}
	ntp_ch_reply__free(&r);
	free(chosen);
	/* the runs kept, in their order; the pairs' indexes follow */
	if (!err) {
		int k = 0, *to = calloc(fs->nruns ? fs->nruns : 1, sizeof(*to));

		if (!to) {
			free(keep);
			return nomem();
		}
		for (int i = 0; i < fs->nruns; i++) {
			to[i] = keep[i] ? k : -1;
			if (keep[i])
				fs->runs[k++] = fs->runs[i];
			else
				ntp_fleet_run__free(&fs->runs[i]);
		}
		fs->nruns = k;
		for (int i = 0; i < fs->npairs; i++) {
			fs->pairs[i].host_file = to[fs->pairs[i].host_file];
			fs->pairs[i].target_file = to[fs->pairs[i].target_file];
		}
		free(to);
	}
	free(keep);
	return err;
}

/* ---- runs that would pair but cannot ------------------------------------------------ */

/* has run i a subsystem NQN in the ids reply body (run_id TAB nqn lines), or run k's too? */
static bool names_of(const char *body, uint64_t run, const char **nqn, int *n, int max)
{
	char id[24];
	int len = snprintf(id, sizeof(id), "%" PRIu64 "\t", run);

	*n = 0;
	for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, id, (size_t)len) && *n < max)
			nqn[(*n)++] = l + len;
	return *n > 0;
}

static bool same_line(const char *a, const char *b)
{
	size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

	return la == lb && !strncmp(a, b, la);
}

/*
 * Are host run h and target run t tied by their names: a subsystem NQN in
 * both's nvmf_ids, or names in neither (such runs pair only when pushed
 * together, which the engine does not tell apart from pushed apart)?
 */
static bool tied(const char *body, const struct ntp_fleet_run *h, const struct ntp_fleet_run *t)
{
	const char *a[64], *b[64];
	int na, nb;
	bool ha = names_of(body, h->run_id, a, &na, 64), hb = names_of(body, t->run_id, b, &nb, 64);

	if (!ha && !hb)
		return true;
	for (int i = 0; i < na; i++)
		for (int k = 0; k < nb; k++)
			if (same_line(a[i], b[k]))
				return true;
	return false;
}

static bool has_line(const struct fleet_source *fs, int h, int t)
{
	for (int i = 0; i < fs->npairs; i++)
		if (fs->pairs[i].host_file == h && fs->pairs[i].target_file == t)
			return true;
	return false;
}

/*
 * A host run and a target run of the report with no clock line between
 * them, that recorded at one time, are tied by their names and have one
 * transport (another is another path to the subsystem, not a pair), but
 * another sample rate or sampling hash, would be left out of the joined
 * report unsaid: they are refused in one line, as a join of their files
 * is, with the setting's exit code (NTP_EXIT_HASH for the hash).
 */
static int check_unjoined(struct fleet_source *fs)
{
	struct ntp_ch_reply rep;
	enum ntp_meta_key k;
	char *sql = NULL;
	size_t len = 0;
	FILE *m;
	bool any = false;
	int err;

	for (int h = 0; h < fs->nruns && !any; h++)
		for (int t = 0; t < fs->nruns && !any; t++)
			any = fs->runs[h].sides == NTP_SIDE_HOST &&
			      fs->runs[t].sides == NTP_SIDE_TARGET && !has_line(fs, h, t) &&
			      ntp_fleet_run__disagree(&fs->runs[h], &fs->runs[t], &k) &&
			      k != NTP_META_TRANSPORT;
	if (!any)
		return 0;
	m = open_memstream(&sql, &len);
	if (!m)
		return nomem();
	fprintf(m, "SELECT DISTINCT run_id, subsysnqn FROM %s WHERE subsysnqn != '' AND "
		"(run_id, push_id) IN (", ntp_fleet__table(fs->f, NTP_FLEET_IDS, false));
	for (int i = 0; i < fs->nruns; i++)
		fprintf(m, "%s(%" PRIu64 ", %" PRIu64 ")", i ? ", " : "", fs->runs[i].run_id,
			fs->runs[i].push_id);
	fputs(") ORDER BY run_id, subsysnqn FORMAT TabSeparated", m);
	if (fclose(m) || !sql) {
		free(sql);
		return nomem();
	}
	err = ntp_ch__query(fs->f->ch, sql, NULL, 0, &rep, 0);
	free(sql);
	for (int h = 0; h < fs->nruns && !err; h++) {
		for (int t = 0; t < fs->nruns && !err; t++) {
			const struct ntp_fleet_run *rh = &fs->runs[h], *rt = &fs->runs[t];

			if (rh->sides != NTP_SIDE_HOST || rt->sides != NTP_SIDE_TARGET ||
			    has_line(fs, h, t) || !ntp_fleet_run__disagree(rh, rt, &k) ||
			    k == NTP_META_TRANSPORT || !ntp_fleet_run__overlap(rh, rt) ||
			    !tied(rep.body, rh, rt))
				continue;
			err = ntp_fleet_run__refuse(rh, rt, k, "choose the runs of one with --run, "
						    "--host or --target");
		}
	}
	ntp_ch_reply__free(&rep);
	return err;
}

/* ---- the groups --------------------------------------------------------------------- */

/* the column a view's stage is in: key_ns of cmds or pairs */
static const char *stage_col(enum ntp_stage st, char *buf, size_t len)
{
	snprintf(buf, len, "%s_ns", ntp_stages[st].key);
	return buf;
}

/* the run's percentiles (lib/core/stat_table.h): their number, and p of each */
static int percentiles(double *p)
{
	int n = 0;

	while (n < NTP_PCT_MAX && ntp_stats[NTP_STAT_PCT + n].pct > 0) {
		p[n] = ntp_stats[NTP_STAT_PCT + n].pct;
		n++;
	}
	return n;
}

/*
 * The aggregates of one latency column x over the commands counted (ok).
 * The p-th nearest-rank percentile is -quantileExact(q)(-x) with q the
 * double just above 1 - p/100 (ntprof-fleet(7), PERCENTILES): floor(q n)
 * is then n - ceil(p n / 100) exactly, p having at most 4 decimals.  The
 * bounds of each percentile's 95% interval (compare's, lib/core/interval.h)
 * are the sorted values at the ranks ntp_interval__quantile_ranks gives,
 * computed by the engine with the same double operations in the same order.
 */
/* the levels q of the run's percentiles p of x, negated, as aggregates() explains */
static void levels(FILE *m, const double *p, int np)
{
	for (int i = 0; i < np; i++) {
		int64_t ppm = llround(p[i] * 1e6);
		double q = nextafter((double)(100000000 - ppm) / 1e8, 1.0);

		fprintf(m, "%s%.17g", i ? ", " : "", q);
	}
}

static void aggregates(FILE *m, const char *x, bool hist, bool approx)
{
	double p[NTP_PCT_MAX];
	int np = percentiles(p);

	fprintf(m, ", countIf(ok), minIf(%s, ok), maxIf(%s, ok), sumIf(%s, ok), "
		"stddevSampIf(%s, ok), %sIf(", x, x, x, x,
		/* the t-digest's values are Float32: rounded to integers as the exact ones are */
		approx ? "arrayMap(v -> toInt64(round(v)), quantilesTDigest" : "quantilesExact");
	levels(m, p, np);
	fprintf(m, ")(-%s, ok)%s, [", x, approx ? ")" : "");
	/* --approx: no interval (report prints none; compare, which needs them, has no --approx) */
	for (int i = 0; i < np && !approx; i++) {
		double q = p[i] / 100.0;

		for (int hi = 0; hi < 2; hi++)
			fprintf(m, "%sarraySort(groupArrayIf(%s, ok))[toUInt64(greatest(1, least("
				"toFloat64(countIf(ok)), %s(toFloat64(countIf(ok)) * %.17g %c %.17g * "
				"sqrt(toFloat64(countIf(ok)) * %.17g * %.17g)))))]", i || hi ? ", " : "",
				x, hi ? "ceil" : "floor", q, hi ? '+' : '-', NTP_Z975, q, 1.0 - q);
	}
	fputc(']', m);
	/*
	 * the fine bucket of bpf/ntp_hist.h (s = NTP_HIST_SUB_BITS): below 2^s
	 * the value itself (0 below 1); else, with m the highest set bit (the
	 * powers of two 2^1..2^62 at most x), (m - s + 1) 2^s + the s bits below it
	 */
	if (hist)
		fprintf(m, ", sumMapIf([if(%s < %d, if(%s < 1, toInt64(0), toInt64(%s)), "
			"toInt64((arrayCount(b -> b <= %s, arrayMap(k -> bitShiftLeft(toInt64(1), k + 1), "
			"range(62))) - %d + 1) * %d + bitAnd(bitShiftRight(%s, arrayCount(b -> b <= "
			"%s, arrayMap(k -> bitShiftLeft(toInt64(1), k + 1), range(62))) - %d), %d)))], "
			"[toUInt64(1)], ok)", x, 1 << NTP_HIST_SUB_BITS, x, x, x, NTP_HIST_SUB_BITS,
			1 << NTP_HIST_SUB_BITS, x, x, NTP_HIST_SUB_BITS, (1 << NTP_HIST_SUB_BITS) - 1);
}

/*
 * The group's tail (model.h's struct ntp_report_tail, as model_groups.c
 * makes it for files) of the end-to-end column e2e and the view's stages:
 * tail_k, the 1-based index in the run's percentiles of the highest one
 * the statistics table (min_n) marks testable at the group's count, 0 for
 * none; that percentile of e2e, exact (with --approx too, since the tail's
 * commands are those above it); then the number of the counted commands
 * whose e2e is strictly above it, their e2e's exact sum and each stage's.
 * After them, each stage's count of counted commands below 0.  3 + nstages
 * + 1 + nstages fields.
 */
static void tail_aggregates(FILE *m, const char *e2e, const struct ntp_view *v)
{
	double p[NTP_PCT_MAX];
	int np = percentiles(p);
	char col[32];

	fputs(", multiIf(", m);
	for (int i = np - 1; i >= 0; i--)
		fprintf(m, "countIf(ok) >= %" PRIu64 ", %d, ", (uint64_t)ntp_stats[NTP_STAT_PCT + i].min_n,
			i + 1);
	fputs("0) AS tail_k, -arrayElement(quantilesExactIf(", m);
	levels(m, p, np);
	fprintf(m, ")(-%s, ok), tail_k) AS tail_above, length(arrayFilter(t -> tail_k > 0 AND "
		"t.1 > tail_above, groupArrayIf(tuple(%s", e2e, e2e);
	for (int i = 0; i < v->nstages; i++)
		fprintf(m, ", %s", stage_col(v->stages[i].id, col, sizeof(col)));
	/* the array is named inside length(): a select item of its own would be sent back */
	fputs("), ok)) AS tail_rows)", m);
	for (int i = 0; i <= v->nstages; i++)
		fprintf(m, ", arraySum(arrayMap(t -> t.%d, tail_rows))", i + 1);
	for (int i = 0; i < v->nstages; i++)
		fprintf(m, ", countIf(ok AND %s < 0)", stage_col(v->stages[i].id, col, sizeof(col)));
}

/* g's tail and negative counts from tail_aggregates()' fields at fld[0..) */
static void tail_of(struct ntp_report_group *g, char **fld)
{
	struct ntp_report_tail *t = &g->tail;
	int k = atoi(fld[0]);

	for (int s = 0; s < g->nstages; s++)
		g->negative[s] = strtoull(fld[3 + 1 + g->nstages + s], NULL, 10);
	if (k <= 0)
		return;	/* no percentile testable: stat 0, as model_groups.c leaves it */
	t->stat = NTP_STAT_PCT + k - 1;
	t->above_ns = strtoll(fld[1], NULL, 10);
	t->n = strtoull(fld[2], NULL, 10);
	if (!t->n)
		return;
	/* the means as model_groups.c divides its exact sums: in long double */
	t->e2e_mean = (double)((long double)strtoll(fld[3], NULL, 10) / t->n);
	for (int s = 0; s < g->nstages; s++)
		t->stage_mean[s] = (double)((long double)strtoll(fld[4 + s], NULL, 10) / t->n);
}

/* a summary from the aggregates' fields at fld[0..): 7 of them, 8 with hist */
static int summary(struct ntp_summary *s, char **fld, bool hist, int64_t *sum)
{
	char *p;

	memset(s, 0, sizeof(*s));
	s->n = strtoull(fld[0], NULL, 10);
	if (!s->n)
		return 0;
	s->min = strtoll(fld[1], NULL, 10);
	s->max = strtoll(fld[2], NULL, 10);
	*sum = strtoll(fld[3], NULL, 10);
	s->sum = (double)*sum;
	s->mean = (double)*sum / (double)s->n;
	s->stddev = s->n > 1 ? strtod(fld[4], NULL) : 0;
	/* [-p1,-p2,...]: the run's percentiles, negated */
	p = fld[5] + (fld[5][0] == '[');
	for (int i = 0; i < NTP_PCT_MAX && *p && *p != ']'; i++) {
		s->pct[i] = -strtoll(p, &p, 10);
		p += *p == ',';
	}
	/* [lo1,hi1,lo2,hi2,...]: each percentile's interval bounds */
	p = fld[6] + (fld[6][0] == '[');
	for (int i = 0; i < NTP_PCT_MAX && *p && *p != ']'; i++) {
		s->p_lo[i] = strtoll(p, &p, 10);
		p += *p == ',';
		s->p_hi[i] = strtoll(p, &p, 10);
		p += *p == ',';
	}
	if (hist) {
		/* ([k,...],[count,...]): the non-empty fine buckets, in order */
		enum { MAXK = NTP_HIST_NBUCKETS(NTP_HIST_SUB_BITS) };
		long long ks[MAXK], cs[MAXK];
		int nk = 0, nc = 0;

		s->hist = calloc(1, sizeof(*s->hist));
		if (!s->hist)
			return -ENOMEM;
		s->hist->lo = 1;
		s->hist->hi = 0;
		p = strchr(fld[7], '[');
		while (p && *p != ']' && nk < MAXK) {
			ks[nk++] = strtoll(p + 1, &p, 10);
			if (*p != ',')
				break;
		}
		p = p ? strchr(p, '[') : NULL;
		while (p && *p != ']' && nc < MAXK) {
			cs[nc++] = strtoll(p + 1, &p, 10);
			if (*p != ',')
				break;
		}
		nk = nk < nc ? nk : nc;
		for (int i = 0; i < nk; i++)
			if (ks[i] < 0 || ks[i] >= MAXK || (i && ks[i] <= ks[i - 1]))
				nk = 0;
		if (nk) {
			s->hist->lo = (int)ks[0];
			s->hist->hi = (int)ks[nk - 1];
			s->hist->count = calloc((size_t)(s->hist->hi - s->hist->lo + 1),
						sizeof(*s->hist->count));
			if (!s->hist->count)
				return -ENOMEM;
			for (int i = 0; i < nk; i++)
				s->hist->count[ks[i] - s->hist->lo] = (uint64_t)cs[i];
		}
	}
	return 0;
}

static int cmp_groups(const void *a, const void *b)
{
	const struct ntp_report_group *x = a, *y = b;

	if (x->host_file != y->host_file)
		return x->host_file < y->host_file ? -1 : 1;
	return ntp_report__group_cmp(x, y);
}

/* " FROM ... WHERE ...": r's commands, the joined ones of the runs' clock lines or one side's */
static void from_where(struct fleet_source *fs, const struct ntp_report *r, FILE *m)
{
	if (r->kind == NTP_REPORT_JOINED) {
		fprintf(m, " FROM %s WHERE (host_run, target_run) IN (",
			ntp_fleet__table(fs->f, NTP_FLEET_PAIRS, false));
		for (int i = 0, k = 0; i < fs->npairs; i++)
			if (fs->pairs[i].estimated)
				fprintf(m, "%s(%" PRIu64 ", %" PRIu64 ")", k++ ? ", " : "",
					fs->runs[fs->pairs[i].host_file].run_id,
					fs->runs[fs->pairs[i].target_file].run_id);
		fputc(')', m);
	} else {
		fprintf(m, " FROM %s WHERE side = %d AND (run_id, push_id) IN (",
			ntp_fleet__table(fs->f, NTP_FLEET_CMDS, false),
			r->kind == NTP_REPORT_TARGET ? 2 : 1);
		for (int i = 0; i < fs->nruns; i++)
			fprintf(m, "%s(%" PRIu64 ", %" PRIu64 ")", i ? ", " : "", fs->runs[i].run_id,
				fs->runs[i].push_id);
		fputc(')', m);
	}
	fprintf(m, " AND %s", fs->where);
}

static int load_groups(struct fleet_source *fs, struct ntp_report *r, bool hist)
{
	const struct ntp_view *v = ntp_report__view(r);
	bool joined = r->kind == NTP_REPORT_JOINED;
	const char *e2e = r->kind == NTP_REPORT_TARGET ? "residence_ns" : "e2e_ns";
	char *sql = NULL, col[32], *line, *fld[128];
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	struct ntp_ch_reply rep;
	int n, err, per = hist ? 8 : 7;

	if (!m)
		return nomem();
	/* a command is counted (ok), or impossible: backwards (1), no number (2), overflow (3) */
	fprintf(m, "WITH multiIf(bad = 1, 2, bad = 2, 3, %s < 0", e2e);
	for (int i = 0; i < v->nstages; i++)
		if (!joined || ntp_stages[v->stages[i].id].side != NTP_STAGE_JOINED_SIDE)
			fprintf(m, " OR %s < 0", stage_col(v->stages[i].id, col, sizeof(col)));
	fprintf(m, ", 1, 0) AS why, why = 0 AS ok SELECT %s, ns, io_type, bytes, count(), "
		"countIf(why = 1), countIf(why = 2), countIf(why = 3), countIf(ok AND %s != 0",
		joined ? "host_run" : "run_id", e2e);
	for (int i = 0; i < v->nstages; i++)
		fprintf(m, " + %s", stage_col(v->stages[i].id, col, sizeof(col)));
	fputc(')', m);
	aggregates(m, e2e, hist, fs->ff.approx);
	for (int i = 0; i < v->nstages; i++)
		aggregates(m, stage_col(v->stages[i].id, col, sizeof(col)), hist, fs->ff.approx);
	tail_aggregates(m, e2e, v);
	from_where(fs, r, m);
	fprintf(m, " GROUP BY %s, ns, io_type, bytes FORMAT TabSeparated",
		joined ? "host_run" : "run_id");
	if (fclose(m) || !sql) {
		free(sql);
		return nomem();
	}
	err = ntp_ch__query(fs->f->ch, sql, NULL, 0, &rep, 0);
	free(sql);
	for (line = err ? NULL : rep.body; line && (n = ntp_ch__tsv_next(&line, fld, 128)) >= 0;) {
		struct ntp_report_group *g;
		int run = run_index(fs, strtoull(fld[0], NULL, 10));
		void *nv;

		if (n < 9 + per * (1 + v->nstages) + 4 + 2 * v->nstages || run < 0)
			continue;
		nv = realloc(r->groups, (r->ngroups + 1) * sizeof(*r->groups));
		if (!nv) {
			err = nomem();
			break;
		}
		r->groups = nv;
		g = &r->groups[r->ngroups];
		if (ntp_report_group__init(g, run + 1, fld[2], strtoll(fld[3], NULL, 10), fld[1],
					   v->nstages)) {
			err = nomem();
			break;
		}
		r->ngroups++;
		r->total += strtoull(fld[4], NULL, 10);
		g->impossible[NTP_IMPOSSIBLE_BACKWARDS] = strtoull(fld[5], NULL, 10);
		g->impossible[NTP_IMPOSSIBLE_NOT_NUMBER] = strtoull(fld[6], NULL, 10);
		g->impossible[NTP_IMPOSSIBLE_OVERFLOW] = strtoull(fld[7], NULL, 10);
		g->mismatched = strtoull(fld[8], NULL, 10);
		if (summary(&g->e2e, fld + 9, hist, &g->sum_e2e)) {
			err = nomem();
			break;
		}
		for (int i = 0; i < v->nstages && !err; i++)
			if (summary(&g->stage[i], fld + 9 + per * (1 + i), hist, &g->sum_stage[i]))
				err = nomem();
		if (!err)
			tail_of(g, fld + 9 + per * (1 + v->nstages));
	}
	ntp_ch_reply__free(&rep);
	if (!err && r->ngroups)
		qsort(r->groups, r->ngroups, sizeof(*r->groups), cmp_groups);
	return err;
}

/* ---- the model -------------------------------------------------------------------- */

static char *utc_text(int64_t ns)
{
	char buf[64];
	struct tm tm;
	time_t t = (time_t)(ns / 1000000000LL);

	if (ns <= 0 || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return strdup(buf);
}

static char *text_or_null(const char *s, int *err)
{
	char *t;

	if (!s || !*s)
		return NULL;
	t = strdup(s);
	if (!t)
		*err = 1;
	return t;
}

static int fill_header(struct fleet_source *fs, int i, struct ntp_report_file *f)
{
	const struct ntp_fleet_run *run = &fs->runs[i];
	struct ntp_report_header *h = &f->hdr;
	int err = 0;

	memset(f, 0, sizeof(*f));
	f->sides = run->sides;
	h->path = fs->names[i];
	h->schema_version = 1;
	/* a meta key the recording lacks is "" in runs, and NULL in a header */
	h->role = text_or_null(run->role, &err);
	h->transport = text_or_null(run->transport, &err);
	h->kernel_release = text_or_null(run->kernel_release, &err);
	h->hostname = text_or_null(run->hostname, &err);
	h->recorded_by = text_or_null(run->ntprof_version, &err);
	h->start_time = utc_text(run->start_utc_ns);
	h->sample_one_in = run->sample_one_in;
	h->hash_version = run->hash_version;
	h->duration_ns = run->duration_ns;
	h->duration_source = run->duration_ns ? "start_ns to stop_ns" : NULL;
	h->seen = run->counts[0][0];
	h->sampled = run->counts[0][1];
	h->lost_ringbuf = run->counts[0][2];
	h->lost_map = run->counts[0][3];
	h->rows = run->sides & NTP_SIDE_HOST ? (uint64_t)run->host_rows : 0;
	h->bpf_runs = h->bpf_run_ns = h->bpf_commands = h->bpf_window_ns = -1;
	f->t_seen = run->counts[1][0];
	f->t_sampled = run->counts[1][1];
	f->t_lost_ringbuf = run->counts[1][2];
	f->t_lost_map = run->counts[1][3];
	f->t_rows = run->sides & NTP_SIDE_TARGET ? (uint64_t)run->target_rows : 0;
	return err ? nomem() : 0;
}

static int fleet_load(struct ntp_source *s, struct ntp_report *r, const struct ntp_report_load *lo)
{
	struct fleet_source *fs = (struct fleet_source *)s;
	bool joined = r->kind == NTP_REPORT_JOINED;
	int err;

	if (lo && lo->detail) {
		ntp_error("--stages=detail: the fleet's tables hold the summary's stages only");
		return NTP_EXIT_USAGE;
	}
	/* every run of the report, not the ten a files source holds */
	free(r->files);
	r->files = calloc(fs->nruns, sizeof(*r->files));
	if (!r->files)
		return nomem();
	r->nfiles = fs->nruns;
	for (int i = 0; i < fs->nruns; i++) {
		err = fill_header(fs, i, &r->files[i]);
		if (err)
			return err;
	}
	if (joined) {
		r->pairs = calloc(fs->npairs ? fs->npairs : 1, sizeof(*r->pairs));
		if (!r->pairs)
			return nomem();
		r->npairs = fs->npairs;
		for (int i = 0; i < fs->npairs; i++)
			r->pairs[i] = fs->pairs[i];
		r->counts = fs->counts;
		for (int i = 0; i < fs->nruns; i++) {
			if (fs->runs[i].sides & NTP_SIDE_HOST)
				r->counts.host_rows += fs->runs[i].host_rows;
			if (fs->runs[i].sides & NTP_SIDE_TARGET)
				r->counts.target_rows += fs->runs[i].target_rows;
		}
		r->counts.unmatched_host = r->counts.host_rows - r->counts.matched -
					   r->counts.rejected;
		r->counts.unmatched_target = r->counts.target_rows - r->counts.matched;
	}
	err = cmds_where(fs, &fs->ff, r->kind == NTP_REPORT_TARGET ? "t_recv_ns" : "h_start_ns",
			 joined ? "host_run" : "run_id");
	return err ?: load_groups(fs, r, lo && lo->histograms);
}

/*
 * The commands, as series reads them from files (lib/series/series_scan.c):
 * run by run, in the order of their start, ties by id.  The engine sends
 * them all in one reply, which is held in memory while they are handed on.
 */
static int fleet_rows(struct ntp_source *s, const struct ntp_report *r, ntp_source_row_fn fn,
		      void *ctx)
{
	struct fleet_source *fs = (struct fleet_source *)s;
	const struct ntp_view *v = ntp_report__view(r);
	bool joined = r->kind == NTP_REPORT_JOINED, target = r->kind == NTP_REPORT_TARGET;
	char *sql = NULL, col[32], *line, *fld[8 + NTP_VIEW_MAX_STAGES];
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);
	struct ntp_ch_reply rep;
	int n, err;

	if (!m)
		return nomem();
	fprintf(m, "SELECT indexOf([");
	for (int i = 0; i < fs->nruns; i++)
		fprintf(m, "%stoUInt64(%" PRIu64 ")", i ? ", " : "", fs->runs[i].run_id);
	fprintf(m, "], %s) AS f, io_type, bytes, ns, %s AS t, %s", joined ? "host_run" : "run_id",
		target ? "t_recv_ns" : "h_start_ns", target ? "residence_ns" : "e2e_ns");
	for (int i = 0; i < v->nstages; i++)
		fprintf(m, ", %s", stage_col(v->stages[i].id, col, sizeof(col)));
	from_where(fs, r, m);
	fprintf(m, " ORDER BY f, t, %s FORMAT TabSeparated", joined ? "host_id" : "id");
	if (fclose(m) || !sql) {
		free(sql);
		return nomem();
	}
	err = ntp_ch__query(fs->f->ch, sql, NULL, 0, &rep, 0);
	free(sql);
	for (line = err ? NULL : rep.body;
	     !err && line && (n = ntp_ch__tsv_next(&line, fld, 8 + NTP_VIEW_MAX_STAGES)) >= 0;) {
		struct ntp_source_row row = { 0 };

		if (n < 6 + v->nstages)
			continue;
		row.file = atoi(fld[0]);
		row.io_type = fld[1];
		row.bytes = strtoll(fld[2], NULL, 10);
		row.ns = fld[3];
		row.t_ns = strtoll(fld[4], NULL, 10);
		row.e2e = strtoll(fld[5], NULL, 10);
		for (int i = 0; i < v->nstages; i++)
			row.stage[i] = strtoll(fld[6 + i], NULL, 10);
		err = fn(ctx, &row);
	}
	ntp_ch_reply__free(&rep);
	return err;
}

static int64_t fleet_start_ns(struct ntp_source *s, int i)
{
	struct fleet_source *fs = (struct fleet_source *)s;

	return i < fs->nruns ? fs->runs[i].start_ns : -1;
}

static void fleet_close(struct ntp_source *s)
{
	struct fleet_source *fs = (struct fleet_source *)s;

	for (int i = 0; i < fs->nruns; i++) {
		ntp_fleet_run__free(&fs->runs[i]);
		/* no names yet when the opening stopped before them */
		if (fs->names)
			free(fs->names[i]);
	}
	free(fs->runs);
	free(fs->names);
	free(fs->pairs);
	free(fs->where);
	ntp_fleet__close(fs->f);
	free(fs);
}

static const struct ntp_source_ops fleet_ops = {
	.name = "fleet",
	.load = fleet_load,
	.rows = fleet_rows,
	.start_ns = fleet_start_ns,
	.close = fleet_close,
};

int ntp_source__open_fleet(struct ntp_source **sp, const struct ntp_ch_opts *o,
			   const struct ntp_fleet_filter *ff, const struct ntp_read_filter *rf)
{
	struct fleet_source *fs;
	bool host = false, target = false, any_line = false;
	int err;

	*sp = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return nomem();
	fs->s.ops = &fleet_ops;
	fs->ff = *ff;
	fs->rf = rf;
	err = check_filters(ff);
	err = err ?: ntp_fleet__open(&fs->f, o, NULL, false);
	err = err ?: read_runs(fs, ff);
	err = err ?: read_pairs(fs, ff);
	err = err ?: check_unjoined(fs);
	if (!err && !fs->nruns) {
		ntp_error("%s: no run pushed to database %s matches the fleet filters", o->url,
			  ntp_ch__database(fs->f->ch));
		err = NTP_EXIT_NOFILE;
	}
	if (!err) {
		fs->names = calloc(fs->nruns, sizeof(*fs->names));
		if (!fs->names)
			err = nomem();
	}
	for (int i = 0; i < fs->nruns && !err; i++) {
		const struct ntp_fleet_run *run = &fs->runs[i];

		host |= !!(run->sides & NTP_SIDE_HOST);
		target |= !!(run->sides & NTP_SIDE_TARGET);
		if (asprintf(&fs->names[i], "%s%s%s (run %016" PRIx64 ")", run->hostname,
			     *run->hostname ? ":" : "", run->meta, run->run_id) < 0) {
			fs->names[i] = NULL;
			err = nomem();
		}
	}
	for (int i = 0; i < fs->npairs; i++)
		any_line |= !!fs->pairs[i].estimated;
	if (!err && !any_line && host && target) {
		ntp_error("%s: the runs selected hold host and target commands that no clock line "
			  "joins (ntprof push joins the runs it pushes together): choose --host or "
			  "--target runs", o->url);
		err = NTP_EXIT_MISMATCH;
	}
	if (err) {
		fleet_close(&fs->s);
		return err;
	}
	fs->s.kind = any_line ? NTP_KIND_PAIR : host ? NTP_KIND_HOST : NTP_KIND_TARGET;
	fs->s.n = fs->nruns < NTP_JOIN_MAX_FILES ? fs->nruns : NTP_JOIN_MAX_FILES;
	for (int i = 0; i < fs->s.n; i++) {
		fs->s.files[i].path = fs->names[i];
		fs->s.files[i].role = fs->runs[i].role;
		fs->s.files[i].sides = fs->runs[i].sides;
	}
	fs->s.rdma = !strcmp(fs->runs[0].transport, "rdma");
	ntp_debug("reading %s: %d runs, %d clock lines, kind %s", o->url, fs->nruns, fs->npairs,
		  ntp_kind__name(fs->s.kind));
	*sp = &fs->s;
	return 0;
}
