// SPDX-License-Identifier: GPL-2.0
/* A flight recorder's snapshot written and published (lib/monitor/mon_snapshot.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "bpf/ntp_hash.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/version.h"
#include "lib/collect/collector.h"
#include "lib/ntp/db_meta.h"
#include "lib/ntp/db_write.h"
#include "lib/monitor/mon_snapshot.h"

/* the first line of path into buf, its newline cut; "" when unreadable */
static void read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static int write_meta(struct ntp_writer *w, const struct ntp_flight *f,
		      const struct ntp_snapshot_meta *m)
{
	char host[256] = "", boot_id[64];
	struct utsname u;
	int err;

	if (uname(&u))
		u.release[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	read_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	err = ntp_meta__set_text(w, NTP_META_ROLE, m->role);
	err = err ?: ntp_meta__set_text(w, NTP_META_TRANSPORT, ntp_transport__name(m->transport));
	err = err ?: ntp_meta__set_int(w, NTP_META_SAMPLE_ONE_IN, (int64_t)m->sample_one_in);
	err = err ?: ntp_meta__set_int(w, NTP_META_HASH_VERSION, NTP_HASH_VERSION);
	err = err ?: ntp_meta__set_text(w, NTP_META_KERNEL_RELEASE, u.release);
	err = err ?: ntp_meta__set_text(w, NTP_META_HOSTNAME, host);
	err = err ?: ntp_meta__set_text(w, NTP_META_BOOT_ID, boot_id);
	err = err ?: ntp_meta__set_int(w, NTP_META_START_REALTIME_NS, (int64_t)m->start_realtime_ns);
	err = err ?: ntp_meta__set_int(w, NTP_META_START_NS, (int64_t)m->start_ns);
	err = err ?: ntp_meta__set_text(w, NTP_META_COMMAND_LINE,
					m->command_line ? m->command_line : "ntprof monitor");
	err = err ?: ntp_meta__set_text(w, NTP_META_NTPROF_VERSION, ntp_version_string);
	err = err ?: ntp_meta__set_filter(w, m->filter, m->filter_session);
	err = err ?: ntp_meta__set_int(w, NTP_META_STOP_NS, (int64_t)m->stop_ns);
	err = err ?: ntp_meta__set_int(w, NTP_META_DURATION_NS, (int64_t)(m->stop_ns - m->start_ns));
	err = err ?: ntp_meta__set_text(w, NTP_META_STOP_REASON, "flight snapshot");
	err = err ?: ntp_meta__set_text(w, NTP_META_FLIGHT_SNAPSHOT, m->reason);
	err = err ?: ntp_meta__set_int(w, NTP_META_FLIGHT_WINDOW_NS, (int64_t)f->window_ns);
	return err ?: ntp_meta__set_int(w, NTP_META_FLIGHT_DROPPED,
					(int64_t)ntp_flight__dropped(f));
}

static int write_hooks(struct ntp_writer *w, const char *side, const struct ntp_collector *c)
{
	int i, err = 0;

	for (i = 0; c && i < c->nhooks && !err; i++)
		err = ntp_writer__add_hook(w, side, c->hooks[i].point, c->hooks[i].hook,
					   c->hooks[i].flavour, c->hooks[i].reason);
	return err;
}

static int write_rows(struct ntp_writer *w, const struct ntp_flight *f)
{
	struct ntp_flight_cursor hc = { 0 }, tc = { 0 };
	const struct ntp_host_event *h;
	const struct ntp_target_event *t;
	size_t i = 0;
	int err = 0;

	while (!err && (h = ntp_flight__next_host(f, &hc))) {
		err = ntp_writer__add_host_io(w, h);
		if (!err && ++i % NTP_DB_BATCH_ROWS == 0)
			err = ntp_writer__flush(w);
	}
	while (!err && (t = ntp_flight__next_target(f, &tc))) {
		err = ntp_writer__add_target_io(w, t);
		if (!err && ++i % NTP_DB_BATCH_ROWS == 0)
			err = ntp_writer__flush(w);
	}
	return err;
}

/*
 * record's intervals rows: each side's counters over each second between
 * the ticks kept (the first from the last tick at or before the window's
 * start)
 */
static int write_intervals(struct ntp_writer *w, const struct ntp_flight *f,
			   const struct ntp_snapshot_meta *m)
{
	static const char *const side[2] = { "host", "target" };
	const struct ntp_flight_tick *a, *b;
	size_t i;
	int s, err = 0;

	for (i = 1; (b = ntp_flight__tick_at(f, i)) && !err; i++) {
		a = ntp_flight__tick_at(f, i - 1);
		for (s = 0; s < 2 && !err; s++) {
			struct ntp_interval iv = {
				.t_ns = b->t_ns, .side = side[s],
				.seen = b->seen[s] - a->seen[s], .sampled = b->sampled[s] - a->sampled[s],
				.lost_ringbuf = b->lost_ringbuf[s] - a->lost_ringbuf[s],
				.lost_map = b->lost_map[s] - a->lost_map[s],
			};

			if (s ? m->target : m->host)
				err = ntp_writer__add_interval(w, &iv);
		}
	}
	return err;
}

/* the files the writer may leave beside path after an error */
static void remove_all(const char *path)
{
	static const char *const side[] = { "", "-wal", "-shm", "-journal", ".spool", ".old" };
	char p[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(side) / sizeof(side[0]); i++)
		if (snprintf(p, sizeof(p), "%s%s", path, side[i]) < (int)sizeof(p))
			unlink(p);
}

int ntp_snapshot__write(const struct ntp_flight *f, const struct ntp_snapshot_meta *m,
			const char *dir, const char *name)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	struct ntp_writer *w;
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		ntp_error("%s/%s: %s", dir, name, strerror(ENAMETOOLONG));
		return NTP_EXIT_FAILURE;
	}
	/* a temporary file an earlier writer left, killed */
	remove_all(tmp);
	err = ntp_writer__open(&w, tmp);
	if (err)
		return err;
	err = write_meta(w, f, m);
	err = err ?: write_hooks(w, "host", m->host);
	err = err ?: write_hooks(w, "target", m->target);
	err = err ?: write_intervals(w, f, m);
	err = err ?: write_rows(w, f);
	err = ntp_writer__close(w) ?: err;
	if (!err && rename(tmp, path)) {
		ntp_error("publishing %s: %s", path, strerror(errno));
		err = NTP_EXIT_FAILURE;
	}
	if (err)
		remove_all(tmp);
	return err;
}
