// SPDX-License-Identifier: GPL-2.0
/* The monitor's metrics page (lib/monitor/mon_expo.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/size.h"
#include "lib/core/stage_table.h"
#include "lib/monitor/mon_expo.h"

/* the stage table's row of each stage a collector counts */
static const enum ntp_stage stage_of[NTP_MON_NSTAGES] = {
	[NTP_MON_E2E] = NTP_STAGE_E2E,
	[NTP_MON_BLOCK] = NTP_STAGE_BLOCK,
	[NTP_MON_DRIVER] = NTP_STAGE_DRIVER,
	[NTP_MON_NETWORK_STAR] = NTP_STAGE_NETWORK_STAR,
	[NTP_MON_TARGET_DRIVER] = NTP_STAGE_TARGET_DRIVER,
	[NTP_MON_STORAGE] = NTP_STAGE_STORAGE,
	[NTP_MON_RESIDENCE] = NTP_STAGE_RESIDENCE,
	[NTP_MON_APP_SUBMIT] = NTP_STAGE_APP_SUBMIT,
	[NTP_MON_APP_COMPLETE] = NTP_STAGE_APP_COMPLETE,
	[NTP_MON_APP_REAP] = NTP_STAGE_APP_REAP,
	[NTP_MON_APP_E2E] = NTP_STAGE_APP_E2E,
};

int ntp_mon_expo__stage(enum ntp_mon_stage st)
{
	return stage_of[st % NTP_MON_NSTAGES];
}

static const char *const role_name[] = { "host", "target" };
static const char *const io_name[] = { "other", "write", "read" };

void ntp_mon_expo__seconds(int64_t ns, char *buf, size_t len)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	char frac[16];
	int i;

	snprintf(frac, sizeof(frac), "%09" PRIu64, a % 1000000000u);
	for (i = 8; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	snprintf(buf, len, "%s%" PRIu64 "%s%s", ns < 0 ? "-" : "", a / 1000000000u, frac[0] ? "." : "",
		 frac);
}

static int first_bucket(void)
{
	return ntp_hist_bucket(NTP_MON_EXPO_MIN_NS, NTP_MON_EXPO_SUB_BITS);
}

int64_t ntp_mon_expo__le_ns(int i)
{
	return ntp_hist_bucket_hi(first_bucket() + i, NTP_MON_EXPO_SUB_BITS);
}

void ntp_mon_expo__size(int size_class, char *buf, size_t len)
{
	if (size_class >= NTP_MON_SIZE_CLASSES - 1) {
		snprintf(buf, len, "over_1MiB");
		return;
	}
	ntp_size__str(512LL << size_class, buf, len);
}

/* the labels of a series, without le */
static void labels(const struct ntp_mon_series *r, char *buf, size_t len)
{
	char size[16];

	ntp_mon_expo__size(r->key.size_class, size, sizeof(size));
	if (r->role == NTP_MON_ROLE_HOST)
		snprintf(buf, len, "role=\"host\",stage=\"%s\",io_type=\"%s\",size=\"%s\","
			 "controller=\"nvme%u\",namespace=\"%u\"",
			 ntp_stages[stage_of[r->key.stage % NTP_MON_NSTAGES]].key,
			 io_name[r->key.io % 3], size, r->key.ctrl, r->key.nsid);
	else
		snprintf(buf, len, "role=\"target\",stage=\"%s\",io_type=\"%s\",size=\"%s\","
			 "controller=\"%u\",namespace=\"%u\"",
			 ntp_stages[stage_of[r->key.stage % NTP_MON_NSTAGES]].key,
			 io_name[r->key.io % 3], size, r->key.ctrl, r->key.nsid);
}

static void series(FILE *f, const struct ntp_mon_series *r)
{
	char l[256], s[32];
	uint64_t cum = 0, count = 0;
	int fine = 0, i;

	for (i = 0; i < NTP_MON_NBUCKETS; i++)
		count += (uint64_t)r->h.bucket[i];

	labels(r, l, sizeof(l));
	for (i = 0; i < NTP_MON_EXPO_BUCKETS; i++) {
		int64_t le = ntp_mon_expo__le_ns(i);

		/* the fine buckets that end at or below le: coarse bounds are fine ones */
		while (fine < NTP_MON_NBUCKETS - 1 &&
		       ntp_hist_bucket_hi(fine, NTP_HIST_SUB_BITS) <= le)
			cum += (uint64_t)r->h.bucket[fine++];
		ntp_mon_expo__seconds(le, s, sizeof(s));
		fprintf(f, "ntprof_stage_seconds_bucket{%s,le=\"%s\"} %" PRIu64 "\n", l, s, cum);
	}
	fprintf(f, "ntprof_stage_seconds_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", l, count);
	ntp_mon_expo__seconds((int64_t)r->h.sum, s, sizeof(s));
	fprintf(f, "ntprof_stage_seconds_sum{%s} %s\n", l, s);
	fprintf(f, "ntprof_stage_seconds_count{%s} %" PRIu64 "\n", l, count);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void per_side(FILE *f, const struct ntp_mon_snapshot *s, const char *name, const char *type,
		     const char *help, size_t off)
{
	int i;

	family(f, name, type, help);
	for (i = 0; i < s->nsides; i++)
		fprintf(f, "%s{role=\"%s\"} %" PRIu64 "\n", name, role_name[s->side[i].role],
			*(const uint64_t *)((const char *)&s->side[i] + off));
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* the host's queues: each one's in-flight gauge, then each controller's imbalance */
static void queues(FILE *f, const struct ntp_mon_qgauges *q)
{
	size_t i, j;

	family(f, "ntprof_queue_in_flight", "gauge",
	       "Driver tags in use that a hardware queue's sampled commands found, themselves included, "
	       "on the mean over the last " STR(NTP_MON_QUEUE_WINDOW_S) " s.");
	for (i = 0; q && i < q->n; i++)
		fprintf(f, "ntprof_queue_in_flight{role=\"host\",controller=\"nvme%" PRIu32 "\",queue=\"%" PRIu32
			"\"} %.3f\n", q->g[i].ctrl, q->g[i].qid, q->g[i].in_flight);
	family(f, "ntprof_queue_imbalance", "gauge",
	       "A controller's largest ntprof_queue_in_flight over the mean of its queues' (1: even).");
	for (i = 0; q && i < q->n; i = j) {
		for (j = i + 1; j < q->n && q->g[j].ctrl == q->g[i].ctrl; j++)
			;
		fprintf(f, "ntprof_queue_imbalance{role=\"host\",controller=\"nvme%" PRIu32 "\"} %.3f\n",
			q->g[i].ctrl, ntp_mon_qgauges__imbalance(&q->g[i], j - i));
	}
	family(f, "ntprof_queue_series", "gauge", "Hardware queues the kernel's map holds.");
	if (q)
		fprintf(f, "ntprof_queue_series{role=\"host\"} %" PRIu64 "\n", q->queues);
	family(f, "ntprof_queue_series_limit", "gauge", "Hardware queues the kernel's map can hold.");
	fprintf(f, "ntprof_queue_series_limit %d\n", NTP_MON_MAX_QUEUES);
}

int ntp_mon_expo__write(FILE *f, const struct ntp_mon_snapshot *s)
{
	static const struct {
		const char *cause;
		size_t off;
	} lost[] = {
		{ "ring_buffer", offsetof(struct ntp_mon_side, lost_ringbuf) },
		{ "inflight_map", offsetof(struct ntp_mon_side, lost_map) },
		{ "hist_map", offsetof(struct ntp_mon_side, lost_hist) },
	};
	size_t i;
	int j;

	family(f, "ntprof_stage_seconds", "histogram",
	       "Latency of each stage of the sampled commands, by the stage table's key.");
	for (i = 0; i < s->table->n; i++)
		series(f, &s->table->s[i]);
	family(f, "ntprof_sample_one_in", "gauge", "One command in this many is sampled (-s).");
	fprintf(f, "ntprof_sample_one_in %" PRIu32 "\n", s->sample_one_in);
	per_side(f, s, "ntprof_commands_seen_total", "counter",
		 "I/O commands that reached the sampling decision.", offsetof(struct ntp_mon_side, seen));
	per_side(f, s, "ntprof_commands_sampled_total", "counter",
		 "Of those, the commands sampled and passing the filters.",
		 offsetof(struct ntp_mon_side, sampled));
	family(f, "ntprof_lost_total", "counter", "Sampled commands not counted, by cause.");
	for (j = 0; j < s->nsides; j++)
		for (i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
			fprintf(f, "ntprof_lost_total{role=\"%s\",cause=\"%s\"} %" PRIu64 "\n",
				role_name[s->side[j].role], lost[i].cause,
				*(const uint64_t *)((const char *)&s->side[j] + lost[i].off));
	per_side(f, s, "ntprof_flight_filtered_total", "counter",
		 "Sampled commands the kernel kept off the flight recorder's stream, its floor above them.",
		 offsetof(struct ntp_mon_side, flight_filtered));
	per_side(f, s, "ntprof_hist_series", "gauge", "Series the kernel's histogram map holds.",
		 offsetof(struct ntp_mon_side, series));
	family(f, "ntprof_hist_series_limit", "gauge", "Series the kernel's histogram map can hold.");
	fprintf(f, "ntprof_hist_series_limit %d\n", NTP_MON_MAX_SERIES);
	family(f, "ntprof_bpf_ns_per_command", "gauge",
	       "BPF run time of ntprof's programs a command seen, measured after the attach.");
	for (j = 0; j < s->nsides; j++)
		if (s->side[j].have_cost && s->side[j].cost_commands)
			fprintf(f, "ntprof_bpf_ns_per_command{role=\"%s\"} %.1f\n", role_name[s->side[j].role],
				(double)s->side[j].cost_run_ns / (double)s->side[j].cost_commands);
	family(f, "ntprof_bpf_runs_per_command", "gauge",
	       "Runs of ntprof's BPF programs a command seen, measured after the attach.");
	for (j = 0; j < s->nsides; j++)
		if (s->side[j].have_cost && s->side[j].cost_commands)
			fprintf(f, "ntprof_bpf_runs_per_command{role=\"%s\"} %.2f\n", role_name[s->side[j].role],
				(double)s->side[j].cost_runs / (double)s->side[j].cost_commands);
	queues(f, s->queues);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
