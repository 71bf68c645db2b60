// SPDX-License-Identifier: GPL-2.0
/* The target's backend devices and their block-layer counters (record_backend.h). */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/ntp/db_write.h"
#include "lib/record/record_backend.h"
#include "lib/record/record_proc.h"

int ntp_block_stat__parse(const char *line, struct ntp_block_stat *s)
{
	unsigned long long f[17] = { 0 };
	int n = sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		       "%llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7],
		       &f[8], &f[9], &f[10], &f[11], &f[12], &f[13], &f[14], &f[15], &f[16]);

	/* 11 fields before 4.18, 15 with discards, 17 with flushes */
	if (n < 11)
		return -1;
	s->ios = f[0] + f[4] + f[11] + f[15];
	s->in_flight = f[8];
	s->busy_ms = f[9];
	s->queue_ms = f[10];
	return 0;
}

static int read_stat(const struct ntp_backends *b, const struct ntp_backend *d,
		     struct ntp_block_stat *s)
{
	char path[256], line[512];

	snprintf(path, sizeof(path), "%s/%s/stat", b->sysfs, d->name);
	ntp_record__read_line(path, line, sizeof(line));
	return ntp_block_stat__parse(line, s);
}

/* the /sys/block name of the block device at dev ("/dev/nullb0"); -1 not one */
static int block_name(const char *sysfs, const char *dev, char *name, size_t len)
{
	struct stat st;
	char link[256], target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return -1;
	/* /sys/dev/block/MAJ:MIN -> .../block/NAME; under a test's sysfs, the device's own name */
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	n = strcmp(sysfs, NTP_BACKENDS_SYSFS) ? -1 : readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		base = strrchr(target, '/');
	} else {
		base = strrchr(dev, '/');
	}
	base = base ? base + 1 : dev;
	if (!*base || strlen(base) >= len)
		return -1;
	snprintf(name, len, "%s", base);
	return 0;
}

static void add_namespace(struct ntp_backends *b, const char *ns_dir)
{
	char path[1024], dev[64], enable[8], depth[32];
	struct ntp_backend *d = &b->b[b->n];

	snprintf(path, sizeof(path), "%s/enable", ns_dir);
	ntp_record__read_line(path, enable, sizeof(enable));
	if (strcmp(enable, "1"))
		return;
	snprintf(path, sizeof(path), "%s/device_path", ns_dir);
	ntp_record__read_line(path, dev, sizeof(dev));
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->b[i].path, dev))
			return;	/* one device behind two namespaces */
	memset(d, 0, sizeof(*d));
	if (!dev[0] || block_name(b->sysfs, dev, d->name, sizeof(d->name)))
		return;
	snprintf(d->path, sizeof(d->path), "%s", dev);
	snprintf(path, sizeof(path), "%s/%s/queue/nr_requests", b->sysfs, d->name);
	ntp_record__read_line(path, depth, sizeof(depth));
	d->depth = depth[0] ? strtoll(depth, NULL, 10) : -1;
	if (d->depth <= 0)
		d->depth = -1;
	d->have_prev = !read_stat(b, d, &d->prev);
	b->n++;
}

int ntp_backends__scan(struct ntp_backends *b, const char *configfs, const char *sysfs,
		       uint64_t now)
{
	DIR *subs, *nss;
	struct dirent *s, *n;
	char dir[512];

	memset(b, 0, sizeof(*b));
	snprintf(b->sysfs, sizeof(b->sysfs), "%s", sysfs);
	b->prev_ns = now;
	subs = opendir(configfs);
	if (!subs)
		return 0;
	while ((s = readdir(subs)) && b->n < NTP_BACKENDS_MAX) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s/namespaces", configfs, s->d_name);
		nss = opendir(dir);
		if (!nss)
			continue;
		while ((n = readdir(nss)) && b->n < NTP_BACKENDS_MAX) {
			char ns[768];

			if (n->d_name[0] == '.')
				continue;
			snprintf(ns, sizeof(ns), "%s/%s", dir, n->d_name);
			add_namespace(b, ns);
		}
		closedir(nss);
	}
	closedir(subs);
	return b->n;
}

int ntp_backends__write(struct ntp_backends *b, struct ntp_writer *w, uint64_t now)
{
	struct ntp_backend_stat row;
	int err = 0;

	if (now <= b->prev_ns)
		return 0;
	for (int i = 0; i < b->n && !err; i++)
		if (!ntp_backends__read(b, i, now, &row))
			err = ntp_writer__add_backend_stat(w, &row);
	b->prev_ns = now;
	return err;
}

int ntp_backends__read(struct ntp_backends *b, int i, uint64_t now, struct ntp_backend_stat *out)
{
	struct ntp_backend *d = &b->b[i];
	struct ntp_block_stat s;

	if (read_stat(b, d, &s))
		return -1;
	memset(out, 0, sizeof(*out));
	out->t_ns = now;
	out->interval_ns = now - b->prev_ns;
	out->device = d->path;
	out->in_flight = s.in_flight;
	out->depth = d->depth;
	/* counters that went back (a device re-created under the name) count from 0 */
	if (d->have_prev) {
		out->ios = s.ios >= d->prev.ios ? s.ios - d->prev.ios : s.ios;
		out->busy_ms = s.busy_ms >= d->prev.busy_ms ? s.busy_ms - d->prev.busy_ms : s.busy_ms;
		out->queue_ms = s.queue_ms >= d->prev.queue_ms ? s.queue_ms - d->prev.queue_ms :
				s.queue_ms;
	}
	d->prev = s;
	d->have_prev = true;
	return 0;
}
