// SPDX-License-Identifier: GPL-2.0
/*
 * least_work OBJECT FILE: loads and attaches every program of OBJECT
 * (bench/hooks/least_work.bpf.c), prints "ready N" once they are attached,
 * and drains their ring buffer as ntprof's reader does: ring_buffer__poll()
 * with a timeout (the programs wake it only when 1 MiB waits), then what is
 * left consumed, the records of each pass written to FILE with one write().
 * On SIGINT or SIGTERM: "kept K clobbered C lost L" (records written,
 * commands whose slot a later command took, records the full ring buffer
 * refused) and "bytes B". bench/guest/testbed.sh's fio config `least` runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ntp_events.h"

/* ntprof's reader wakes about once a second (lib/record/record_loop.c) */
#define POLL_MS 1000
#define BATCH_BYTES (16u << 20)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct batch {
	int fd;
	char *buf;
	size_t len;
	unsigned long long kept, bytes;
	int err;
};

static int flush(struct batch *b)
{
	size_t off = 0;
	ssize_t n;

	while (off < b->len) {
		n = write(b->fd, b->buf + off, b->len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			b->err = errno;
			return -1;
		}
		off += n;
	}
	b->bytes += b->len;
	b->len = 0;
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct batch *b = ctx;

	if (b->len + size > BATCH_BYTES && flush(b))
		return -1;
	memcpy(b->buf + b->len, data, size);
	b->len += size;
	if (size == sizeof(struct ntp_host_event))
		b->kept++;
	return 0;
}

/* the value of the u64 global NAME of the object's .bss (NULL: none) */
static const unsigned long long *bss_u64(struct bpf_object *obj, const char *name)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, ".bss");
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *v;
	const struct btf_type *sec;
	const char *base;
	size_t size;
	int id, i;

	if (!map || !btf)
		return NULL;
	base = bpf_map__initial_value(map, &size);
	id = btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC);
	if (!base || id < 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	v = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, v++)
		if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off), name) &&
		    v->offset + sizeof(unsigned long long) <= size)
			return (const void *)(base + v->offset);
	return NULL;
}

int main(int argc, char **argv)
{
	const unsigned long long *clobbered, *lost;
	struct bpf_link *links[64];
	struct batch b = { .fd = -1 };
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj;
	struct bpf_program *p;
	int n = 0, i, rc = 1, err;

	if (argc != 3) {
		fprintf(stderr, "usage: least_work OBJECT FILE\n");
		return 2;
	}
	b.buf = malloc(BATCH_BYTES);
	if (!b.buf) {
		fprintf(stderr, "least_work: out of memory\n");
		return 1;
	}
	b.fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (b.fd < 0) {
		fprintf(stderr, "least_work: cannot create %s: %s\n", argv[2], strerror(errno));
		free(b.buf);
		return 1;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "least_work: cannot open %s: %s\n", argv[1], strerror(errno));
		goto out;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "least_work: cannot load %s: %s\n", argv[1], strerror(errno));
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		if (n == (int)(sizeof(links) / sizeof(links[0]))) {
			fprintf(stderr, "least_work: more than %d programs\n", n);
			goto out;
		}
		links[n] = bpf_program__attach(p);
		if (!links[n]) {
			fprintf(stderr, "least_work: cannot attach %s: %s\n", bpf_program__name(p),
				strerror(errno));
			goto out;
		}
		n++;
	}
	clobbered = bss_u64(obj, "clobbered");
	lost = bss_u64(obj, "lost");
	if (!clobbered || !lost) {
		fprintf(stderr, "least_work: %s has no .bss counters clobbered and lost\n", argv[1]);
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "events")), on_record, &b,
			      NULL);
	if (!rb) {
		fprintf(stderr, "least_work: ring buffer of %s: %s\n", argv[1], strerror(errno));
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready %d\n", n);
	fflush(stdout);
	for (;;) {
		int last = stop;

		err = ring_buffer__poll(rb, last ? 0 : POLL_MS);
		if (err >= 0 || err == -EINTR)
			err = ring_buffer__consume(rb);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "least_work: reading the ring buffer: %s\n",
				b.err ? strerror(b.err) : strerror(-err));
			goto out;
		}
		if (flush(&b)) {
			fprintf(stderr, "least_work: writing %s: %s\n", argv[2], strerror(b.err));
			goto out;
		}
		if (last)
			break;
	}
	printf("kept %llu clobbered %llu lost %llu\nbytes %llu\n", b.kept, *clobbered, *lost, b.bytes);
	rc = 0;
out:
	ring_buffer__free(rb);
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	if (b.fd >= 0 && close(b.fd) && !rc) {
		fprintf(stderr, "least_work: closing %s: %s\n", argv[2], strerror(errno));
		rc = 1;
	}
	free(b.buf);
	return rc;
}
