// SPDX-License-Identifier: GPL-2.0
/* The host's controllers, their queues and their resets, from sysfs (record_ctrls.h). */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/record_ctrls.h"
#include "lib/record/record_proc.h"

/* root/name/file's one line into buf */
static void read_attr(const struct ntp_ctrls *c, const char *name, const char *file, char *buf,
		      size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s/%s", c->root, name, file);
	ntp_record__read_line(path, buf, len);
}

/* root/name/file as a number >= 0, else -1 */
static int64_t read_num(const struct ntp_ctrls *c, const char *name, const char *file)
{
	char buf[32], *end;
	long long v;

	read_attr(c, name, file, buf, sizeof(buf));
	v = strtoll(buf, &end, 10);
	return end == buf || *end || v < 0 ? -1 : v;
}

static bool is_live(const struct ntp_ctrls *c, const char *name)
{
	char buf[32];

	read_attr(c, name, "state", buf, sizeof(buf));
	return !strcmp(buf, "live");
}

/* "nvme" and digits only: a controller, not a namespace or a path */
static bool ctrl_name(const char *s)
{
	if (strncmp(s, "nvme", 4) || !s[4])
		return false;
	for (s += 4; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int by_number(const void *a, const void *b)
{
	const struct ntp_ctrl *x = a, *y = b;

	return atoi(x->name + 4) - atoi(y->name + 4);
}

int ntp_ctrls__scan(struct ntp_ctrls *c, const char *root, const char *transport)
{
	DIR *d;
	struct dirent *e;
	char buf[32];

	memset(c, 0, sizeof(*c));
	snprintf(c->root, sizeof(c->root), "%s", root);
	d = opendir(root);
	if (!d)
		return 0;
	while ((e = readdir(d)) && c->n < NTP_CTRLS_MAX) {
		struct ntp_ctrl *k = &c->c[c->n];
		int64_t count, sq;

		if (!ctrl_name(e->d_name) || strlen(e->d_name) >= sizeof(k->name))
			continue;
		read_attr(c, e->d_name, "transport", buf, sizeof(buf));
		if (strcmp(buf, transport))
			continue;
		snprintf(k->name, sizeof(k->name), "%s", e->d_name);
		count = read_num(c, k->name, "queue_count");
		sq = read_num(c, k->name, "sqsize");
		k->io_queues = count > 0 ? count - 1 : -1;
		k->depth = sq >= 0 ? sq + 1 : -1;
		k->live = is_live(c, k->name);
		c->n++;
	}
	closedir(d);
	qsort(c->c, (size_t)c->n, sizeof(c->c[0]), by_number);
	return c->n;
}

static void text(const struct ntp_ctrls *c, bool depth, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->n && n < len; i++) {
		int64_t v = depth ? c->c[i].depth : c->c[i].io_queues;

		if (v >= 0)
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%" PRId64, n ? " " : "",
					      c->c[i].name, v);
	}
}

void ntp_ctrls__queues_text(const struct ntp_ctrls *c, char *buf, size_t len)
{
	text(c, false, buf, len);
}

void ntp_ctrls__depth_text(const struct ntp_ctrls *c, char *buf, size_t len)
{
	text(c, true, buf, len);
}

void ntp_ctrls__tick(struct ntp_ctrls *c)
{
	for (int i = 0; i < c->n; i++) {
		bool live = is_live(c, c->c[i].name);

		c->resets += c->c[i].live && !live;
		c->c[i].live = live;
	}
}
