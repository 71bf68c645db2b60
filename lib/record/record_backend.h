/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On the target: the backend devices nvmet's namespaces export (configfs
 * subsystems/ * /namespaces/ * /device_path, enabled), and their block-layer
 * counters read each interval from /sys/block/DEV/stat, as iostat reads
 * them: completed commands, in flight, io_ticks and time_in_queue (whose
 * growth over an interval is iostat's aqu-sz), and queue/nr_requests, the
 * depth.  They see every command of the device, a local job's too, which
 * ntprof's sampled commands cannot (ntprof-ntp(5), backend_stats).
 */
#ifndef NTP_RECORD_BACKEND_H
#define NTP_RECORD_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#define NTP_BACKENDS_MAX 64
#define NTP_BACKENDS_CONFIGFS "/sys/kernel/config/nvmet/subsystems"
#define NTP_BACKENDS_SYSFS "/sys/block"

/* one device's counters, as /sys/block/DEV/stat has them */
struct ntp_block_stat {
	uint64_t ios;             /* reads + writes + discards + flushes completed */
	uint64_t in_flight, busy_ms, queue_ms;
};

struct ntp_backend {
	char path[64];            /* "/dev/nullb0", as target_io.device */
	char name[32];            /* "nullb0", under /sys/block */
	int64_t depth;            /* queue/nr_requests; -1 unread */
	struct ntp_block_stat prev;
	bool have_prev;
};

struct ntp_backends {
	char sysfs[128];          /* NTP_BACKENDS_SYSFS, or a test's copy */
	struct ntp_backend b[NTP_BACKENDS_MAX];
	int n;
	uint64_t prev_ns;
};

/*
 * The block devices behind the enabled namespaces under configfs (a
 * namespace of a file backend has none), their counters read a first
 * time at now: the number found.
 */
int ntp_backends__scan(struct ntp_backends *b, const char *configfs, const char *sysfs,
		       uint64_t now);
/* /sys/block/DEV/stat's line into s: 0, or -1 when it is not one */
int ntp_block_stat__parse(const char *line, struct ntp_block_stat *s);
/*
 * Device i's counters read at now and their growth since the last read
 * into out (t_ns, interval_ns, device, ...; device points into b): 0, or
 * -1 when they could not be read (the device gone).
 */
struct ntp_backend_stat;
int ntp_backends__read(struct ntp_backends *b, int i, uint64_t now, struct ntp_backend_stat *out);
/* every device's row since the last call, at now, into w: 0 or an NTP_EXIT_* code */
struct ntp_writer;
int ntp_backends__write(struct ntp_backends *b, struct ntp_writer *w, uint64_t now);

#endif
