// SPDX-License-Identifier: GPL-2.0
/*
 * How fast the .ntp writer stores host records: pushes synthetic
 * struct ntp_host_event records through the real writer (lib/ntp/db_write.c),
 * flushing about once a second as record does, closes the file, and prints
 * records per second while recording (into the spool) and the close's time
 * (the spool turned into rows, the checkpoint): what record's stop takes.
 * It asserts nothing about time (bench/README.md).
 *
 *   bench_writer [-n RECORDS] [-o FILE] [-k] [-r]
 *
 * -k keeps the file; by default it is removed after its size is reported.
 * The spool's size is reported before the close.
 * -r hands each record to record's own per-record function
 * (ntp_record__on_host_event: the filters, the live lines, the writer) and
 * prints a live line to /dev/null each second, as record does by default.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/ntp/db_state.h"
#include "lib/ntp/db_write.h"
#include "lib/record/live.h"
#include "lib/record/record_priv.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* something like a 4-queue NVMe/TCP host under mixed 4K..128K I/O */
static void make_event(struct ntp_host_event *e, uint64_t i, uint64_t *rng)
{
	uint64_t r;

	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	r = *rng;

	e->kind = NTP_EV_HOST_IO;
	e->h_start = 1000000000ULL + i * 2000;
	e->h_queue = e->h_start + 1500 + (r & 0x3ff);
	e->h_cmd_sent = e->h_queue + 3000;
	e->h_r2t = 0;
	e->h_data_sent = 0;
	e->h_recv = e->h_cmd_sent + 40000 + ((r >> 10) & 0xffff);
	e->h_done = e->h_recv + 2000;
	e->slba = (r >> 20) & 0xffffffff;
	e->nlb0 = (1u << ((r >> 52) & 5)) * 8 - 1;
	e->bytes = (e->nlb0 + 1) * 512;
	e->cid = (__u16)(i * 7);
	e->qid = 1 + (i & 3);
	e->opcode = (r >> 60) & 1 ? 1 : 2;
	e->flags = NTP_HF_START_BI_ISSUE;
}

int main(int argc, char **argv)
{
	const char *path = "bench_writer.ntp";
	uint64_t n = 5000000, i, rng = 0x9e3779b97f4a7c15ULL;
	struct ntp_host_event e;
	struct ntp_writer *w;
	double t0, c0, t, c, next_flush;
	int keep = 0, via_record = 0, opt, err;
	struct ntp_record_opts ro = { .role = NTP_RECORD_HOST, .sample_one_in = 1, .live = true };
	struct ntp_record_session s = { .o = &ro };
	FILE *devnull = NULL;
	struct stat st;

	ntp_err__set_cmd("bench_writer");
	while ((opt = getopt(argc, argv, "n:o:kr")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			path = optarg;
			break;
		case 'k':
			keep = 1;
			break;
		case 'r':
			via_record = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n RECORDS] [-o FILE] [-k] [-r]\n", argv[0]);
			return NTP_EXIT_USAGE;
		}
	}

	memset(&e, 0, sizeof(e));
	e.ctrl_instance = 3;
	strcpy(e.disk, "nvme3n1");
	strcpy(e.path, "nvme3c3n1");

	t0 = now();
	c0 = cpu_now();
	err = ntp_writer__open(&w, path);
	if (err)
		return err;
	s.w = w;
	if (via_record) {
		s.live = ntp_live__new(NTP_LIVE_HOST, 1);
		devnull = fopen("/dev/null", "w");
		if (!s.live || !devnull) {
			ntp_error("preparing the live lines: %s", strerror(errno));
			return NTP_EXIT_FAILURE;
		}
	}
	next_flush = t0 + 1;
	for (i = 0; i < n; i++) {
		make_event(&e, i, &rng);
		err = via_record ? ntp_record__on_host_event(&s, &e) : ntp_writer__add_host_io(w, &e);
		if (err)
			break;
		/* record flushes and prints a live line about once a second */
		if ((i & 0xffff) == 0 && now() >= next_flush) {
			err = ntp_writer__flush(w);
			if (err)
				break;
			if (via_record && ntp_live__tick(s.live, devnull, next_flush - t0, 1) < 0)
				ntp_warn("live lines: %s", strerror(errno));
			next_flush += 1;
		}
	}
	t = now();
	c = cpu_now();
	/* per CPU second too: what one core does, however busy the machine is */
	printf("bench_writer: add_host_io: %llu records in %.3f s: %.0f records/s; "
	       "%.3f s CPU: %.0f records/CPU-s\n", (unsigned long long)i, t - t0, i / (t - t0),
	       c - c0, i / (c - c0));
	if (!err && !ntp_writer__flush(w)) {
		char spool[4096];

		snprintf(spool, sizeof(spool), "%s%s", path, NTP_SPOOL_SUFFIX);
		if (!stat(spool, &st))
			printf("bench_writer: spool %s: %.1f MiB, %.1f bytes/record\n", spool,
			       st.st_size / 1048576.0, (double)st.st_size / (i ? i : 1));
	}
	t0 = now();
	c0 = cpu_now();
	err = ntp_writer__close(w) ? NTP_EXIT_FAILURE : err;
	t = now();
	c = cpu_now();
	printf("bench_writer: close (the spool into rows, checkpoint): %.3f s: %.0f records/s; "
	       "%.3f s CPU: %.0f records/CPU-s\n", t - t0, i / (t - t0), c - c0, i / (c - c0));
	if (!stat(path, &st))
		printf("bench_writer: file %s: %.1f MiB, %.1f bytes/record\n", path,
		       st.st_size / 1048576.0, (double)st.st_size / (i ? i : 1));
	if (!keep)
		unlink(path);
	ntp_live__free(s.live);
	if (devnull)
		fclose(devnull);
	return err;
}
