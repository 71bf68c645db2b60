// SPDX-License-Identifier: GPL-2.0
/*
 * record's filters (lib/core/filter.h): the options' values checked, and the
 * namespace resolved through /sys/block, before anything is attached.
 *
 * Names (ntprof-design(7), "Namespaces"): a namespace disk is nvme<X>n<H>, where X is the
 * subsystem instance for a multipath head and the controller instance
 * otherwise; a path disk of native multipath is nvme<S>c<C>n<H>, C being
 * the controller instance.  So the paths of nvme6n1 are exactly the
 * nvme6c<C>n1, and each names its controller.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/core/filter.h"

/* a decimal number of at most 9 digits (no sign, no leading '+'); the end */
static const char *number(const char *s, unsigned int *v)
{
	unsigned int n = 0;
	int digits = 0;

	while (*s >= '0' && *s <= '9' && digits < 9) {
		n = n * 10 + (unsigned int)(*s++ - '0');
		digits++;
	}
	if (!digits || (*s >= '0' && *s <= '9'))
		return NULL;
	*v = n;
	return s;
}

/* nvme<X>n<H>: 1; nvme<X>c<C>n<H>: 2 (C in *c); anything else: 0 */
static int parse_disk(const char *name, unsigned int *x, unsigned int *c, unsigned int *h)
{
	const char *p;
	int kind = 1;

	if (strncmp(name, "nvme", 4) || !(p = number(name + 4, x)))
		return 0;
	if (*p == 'c') {
		if (!(p = number(p + 1, c)))
			return 0;
		kind = 2;
	}
	if (*p != 'n' || !(p = number(p + 1, h)) || *p)
		return 0;
	return kind;
}

static int bad(const char *opt, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const char *opt, const char *value, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	ntp_error("invalid value '%s' for option '%s': %s", value, opt, why);
	return NTP_EXIT_USAGE;
}

/* the namespace disks under dir, for the hint of an unknown one: "nvme0n1, nvme1n1" */
static void list_namespaces(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	unsigned int x, c, h;
	size_t at = 0;
	int n;

	buf[0] = '\0';
	n = scandir(dir, &ents, NULL, versionsort);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		if (parse_disk(ents[i]->d_name, &x, &c, &h) == 1 && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	if (at >= len && len > 4)
		strcpy(buf + len - 4, "...");
}

/* the first line of dir/name/attr, without its newline; 0 or -errno */
static int read_attr(const char *dir, const char *name, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, name, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return err;
}

static int sysfs_fail(const char *name, const char *dir, const char *attr, int err)
{
	ntp_error("--session %s: cannot read %s/%s/%s: %s", name, dir, name, attr,
		  err == -ENODATA ? "empty file" : strerror(-err));
	return NTP_EXIT_FAILURE;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* the controllers of the path disks nvme<x>c<C>n<h>: how many, or -1 after an error */
static int find_paths(const char *dir, const char *name, unsigned int x, unsigned int h,
		      __u32 *ctrls)
{
	unsigned int px, pc, ph;
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp) {
		ntp_error("--session %s: cannot list %s: %s", name, dir, strerror(errno));
		return -1;
	}
	while ((d = readdir(dp))) {
		if (parse_disk(d->d_name, &px, &pc, &ph) != 2 || px != x || ph != h)
			continue;
		if (n == NTP_FILTER_MAX_CTRLS) {
			ntp_error("--session %s: more than %d paths; ntprof filters on at most %d",
				  name, NTP_FILTER_MAX_CTRLS, NTP_FILTER_MAX_CTRLS);
			closedir(dp);
			return -1;
		}
		ctrls[n++] = pc;
	}
	closedir(dp);
	qsort(ctrls, (size_t)n, sizeof(*ctrls), cmp_u32);
	return n;
}

/* no multipath paths: the controller NAME/device links to, nvme<C> */
static int own_controller(const char *dir, const char *name, __u32 *ctrl)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base, *end;
	unsigned int c;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/device", dir, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		ntp_error("--session %s: cannot tell its controller: %s: %s", name, path,
			  strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strncmp(base, "nvme", 4) || !(end = number(base + 4, &c)) || *end) {
		/* a multipath head whose paths are all gone links to its subsystem */
		ntp_error("--session %s: the namespace has no paths (no %s/nvme*c*n*, and %s -> %s is "
			  "not a controller)", name, dir, path, target);
		return NTP_EXIT_FAILURE;
	}
	*ctrl = c;
	return 0;
}

int ntp_filter__set_session(struct ntp_filter *f, const char *sysfs_block, const char *name)
{
	const char *dir = sysfs_block ? sysfs_block : NTP_FILTER_SYSFS_BLOCK;
	char path[PATH_MAX], buf[64], list[256];
	unsigned int x, c, h, major, minor;
	uint64_t nsid;
	__u32 ctrls[NTP_FILTER_MAX_CTRLS];
	struct stat st;
	int n, err;
	char tail;

	switch (parse_disk(name, &x, &c, &h)) {
	case 1:
		break;
	case 2:
		return bad("--session", name, "%s is one path of the namespace nvme%un%u: give the "
			   "namespace, which covers all its paths", name, x, h);
	default:
		return bad("--session", name, "not an NVMe namespace name: expected nvmeXnY, "
			   "a disk in %s", dir);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st)) {
		err = errno;
		list_namespaces(dir, list, sizeof(list));
		return bad("--session", name, "no such namespace: %s: %s (%s%s)", path, strerror(err),
			   *list ? "namespaces here: " : "no NVMe namespaces here", list);
	}
	err = read_attr(dir, name, "nsid", buf, sizeof(buf));
	if (err)
		return sysfs_fail(name, dir, "nsid", err);
	if (ntp_opt__parse_uint(buf, &nsid) || !nsid || nsid > UINT32_MAX) {
		ntp_error("--session %s: %s/%s/nsid holds '%s', not a namespace id", name, dir, name, buf);
		return NTP_EXIT_FAILURE;
	}
	err = read_attr(dir, name, "dev", buf, sizeof(buf));
	if (err)
		return sysfs_fail(name, dir, "dev", err);
	if (sscanf(buf, "%u:%u%c", &major, &minor, &tail) != 2) {
		ntp_error("--session %s: %s/%s/dev holds '%s', not MAJOR:MINOR", name, dir, name, buf);
		return NTP_EXIT_FAILURE;
	}
	n = find_paths(dir, name, x, h, ctrls);
	if (n < 0)
		return NTP_EXIT_FAILURE;
	if (n == 0) {
		err = own_controller(dir, name, &ctrls[0]);
		if (err)
			return err;
		n = 1;
	}
	f->flags |= NTP_FILTER_NS;
	f->nsid = (__u32)nsid;
	f->nctrls = (__u32)n;
	memset(f->ctrls, 0, sizeof(f->ctrls));
	memcpy(f->ctrls, ctrls, (size_t)n * sizeof(*ctrls));
	f->dev_major = major;
	f->dev_minor = minor;
	return 0;
}

int ntp_filter__set_io_type(struct ntp_filter *f, const char *type)
{
	__u32 opcode;

	if (!strcmp(type, "read"))
		opcode = 0x02;
	else if (!strcmp(type, "write"))
		opcode = 0x01;
	else
		return bad("--io-type", type, "expected read or write");
	f->flags |= NTP_FILTER_OPCODE;
	f->opcode = opcode;
	return 0;
}

int ntp_filter__set_sizes(struct ntp_filter *f, const char *list)
{
	__u32 sizes[NTP_FILTER_MAX_SIZES];
	const char *p = list;
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		char item[64];
		uint64_t v;
		bool dup = false;

		if (!len)
			return bad("--size", list, "an empty item: expected sizes separated by commas, "
				   "as in 4K,128K");
		if (len >= sizeof(item))
			return bad("--size", list, "'%.*s...' is not a size", 16, p);
		memcpy(item, p, len);
		item[len] = '\0';
		if (ntp_opt__parse_size(item, &v))
			return bad("--size", list, "'%s' is not a size: expected a number of bytes "
				   "with an optional K, M or G (4096, 4K, 128KiB, 1M)", item);
		if (!v || v % 512)
			return bad("--size", list, "'%s' is not a positive multiple of 512 bytes", item);
		if (v > UINT32_MAX)
			return bad("--size", list, "'%s' is larger than any one I/O (4 GiB)", item);
		for (int i = 0; i < n; i++)
			dup |= sizes[i] == v;
		if (!dup) {
			if (n == NTP_FILTER_MAX_SIZES)
				return bad("--size", list, "more than %d sizes", NTP_FILTER_MAX_SIZES);
			sizes[n++] = (__u32)v;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	qsort(sizes, (size_t)n, sizeof(*sizes), cmp_u32);
	f->flags |= NTP_FILTER_SIZE;
	f->nsizes = (__u32)n;
	memset(f->sizes, 0, sizeof(f->sizes));
	memcpy(f->sizes, sizes, (size_t)n * sizeof(*sizes));
	return 0;
}

bool ntp_filter__match_host(const struct ntp_filter *f, const struct ntp_host_event *e)
{
	return ntp_filter__pass(f, e->opcode, e->bytes, e->ctrl_instance, e->nsid);
}

bool ntp_filter__match_target(const struct ntp_filter *f, const struct ntp_target_event *e)
{
	struct ntp_filter nons = *f;

	nons.flags &= ~(__u32)NTP_FILTER_NS;
	return ntp_filter__pass(&nons, e->opcode, e->bytes, 0, e->nsid);
}
