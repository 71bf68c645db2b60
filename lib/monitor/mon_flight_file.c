// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's window on disk (lib/monitor/mon_flight_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/monitor/mon_flight_file.h"

#define MAGIC "NTPFLT1"
#define VERSION 1

struct file_head {
	char magic[8];
	uint32_t version, nslot, cap, host_esz, target_esz, pad;
	uint64_t interval_ns;
	char boot_id[48];
};

struct slot_head {
	uint64_t iv;            /* the slot's interval + 1; 0: empty */
	uint32_t n, pad;
};

static void boot_id(char *buf, size_t size)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void head_of(const struct ntp_flight *f, struct file_head *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, MAGIC, sizeof(MAGIC));
	h->version = VERSION;
	h->nslot = (uint32_t)f->host.nslot;
	h->cap = (uint32_t)f->host.cap;
	h->host_esz = (uint32_t)f->host.esz;
	h->target_esz = (uint32_t)f->target.esz;
	h->interval_ns = f->interval_ns;
	boot_id(h->boot_id, sizeof(h->boot_id));
}

static size_t slot_bytes(const struct ntp_flight_side *s)
{
	return sizeof(struct slot_head) + s->cap * s->esz;
}

/* where side (0 host, 1 target)'s slot starts */
static off_t slot_off(const struct ntp_flight *f, int side, size_t slot)
{
	off_t o = sizeof(struct file_head);

	if (side)
		o += (off_t)(f->host.nslot * slot_bytes(&f->host));
	return o + (off_t)(slot * slot_bytes(side ? &f->target : &f->host));
}

static int full_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int full_pread(int fd, void *buf, size_t len, off_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* side's slots read back; a slot that does not make sense is left empty */
static int load_side(struct ntp_flight_file *ff, struct ntp_flight *f, int side)
{
	struct ntp_flight_side *s = side ? &f->target : &f->host;
	size_t slot;
	int err;

	for (slot = 0; slot < s->nslot; slot++) {
		struct slot_head sh;
		off_t o = slot_off(f, side, slot);

		err = full_pread(ff->fd, &sh, sizeof(sh), o);
		if (err)
			return err;
		if (!sh.iv || !sh.n || sh.n > s->cap || sh.iv % s->nslot != slot)
			continue;
		err = full_pread(ff->fd, s->buf + slot * s->cap * s->esz, sh.n * s->esz,
				 o + (off_t)sizeof(sh));
		if (err)
			return err;
		s->iv[slot] = sh.iv;
		s->n[slot] = sh.n;
		s->held += sh.n;
		ff->loaded += sh.n;
		if (!ff->loaded_since_ns || (sh.iv - 1) * f->interval_ns < ff->loaded_since_ns)
			ff->loaded_since_ns = (sh.iv - 1) * f->interval_ns;
	}
	return 0;
}

int ntp_flight_file__open(struct ntp_flight_file *ff, const char *dir, struct ntp_flight *f,
			  uid_t uid, gid_t gid)
{
	struct file_head want, have;
	off_t size;
	int err;

	memset(ff, 0, sizeof(*ff));
	ff->fd = -1;
	if (snprintf(ff->path, sizeof(ff->path), "%s/%s", dir, NTP_FLIGHT_FILE_NAME) >=
	    (int)sizeof(ff->path)) {
		ntp_error("%s/%s: %s", dir, NTP_FLIGHT_FILE_NAME, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	ff->fd = open(ff->path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (ff->fd < 0) {
		err = -errno;
		ntp_error("the flight recorder's window file %s: %s", ff->path, strerror(-err));
		return err;
	}
	if (uid != (uid_t)-1 && fchown(ff->fd, uid, gid)) {
		err = -errno;
		ntp_error("the flight recorder's window file %s: giving it to uid %d: %s", ff->path,
			  (int)uid, strerror(-err));
		goto fail;
	}
	head_of(f, &want);
	size = slot_off(f, 1, f->target.nslot);
	if (!full_pread(ff->fd, &have, sizeof(have), 0) && !memcmp(&have, &want, sizeof(have)) &&
	    lseek(ff->fd, 0, SEEK_END) == size) {
		err = load_side(ff, f, 0);
		err = err ?: load_side(ff, f, 1);
		if (!err)
			return 0;
		ntp_error("reading the flight recorder's window file %s: %s", ff->path, strerror(-err));
		goto fail;
	}
	/* another boot's, another geometry's, or new: empty slots are zeroes */
	if (ftruncate(ff->fd, 0) || ftruncate(ff->fd, size)) {
		err = -errno;
		ntp_error("the flight recorder's window file %s: %s", ff->path, strerror(-err));
		goto fail;
	}
	err = full_pwrite(ff->fd, &want, sizeof(want), 0);
	if (!err)
		return 0;
	ntp_error("writing the flight recorder's window file %s: %s", ff->path, strerror(-err));
fail:
	close(ff->fd);
	ff->fd = -1;
	return err;
}

static int sync_side(struct ntp_flight_file *ff, struct ntp_flight *f, int side)
{
	struct ntp_flight_side *s = side ? &f->target : &f->host;
	size_t slot;
	int err;

	for (slot = 0; slot < s->nslot; slot++) {
		struct slot_head sh = { .iv = s->iv[slot], .n = s->n[slot] };
		off_t o = slot_off(f, side, slot);

		if (!s->dirty[slot])
			continue;
		/* the records first: a count never promises records not yet written */
		err = full_pwrite(ff->fd, s->buf + slot * s->cap * s->esz, sh.n * s->esz,
				  o + (off_t)sizeof(sh));
		err = err ?: full_pwrite(ff->fd, &sh, sizeof(sh), o);
		if (err)
			return err;
		s->dirty[slot] = false;
	}
	return 0;
}

int ntp_flight_file__sync(struct ntp_flight_file *ff, struct ntp_flight *f)
{
	int err;

	if (ff->fd < 0)
		return -EBADF;
	err = sync_side(ff, f, 0);
	return err ?: sync_side(ff, f, 1);
}

void ntp_flight_file__close(struct ntp_flight_file *ff)
{
	if (ff->fd >= 0)
		close(ff->fd);
	ff->fd = -1;
}
