// SPDX-License-Identifier: GPL-2.0
/*
 * empty_hooks OBJECT PREFIX: loads and attaches the programs of OBJECT
 * (bench/hooks/empty_hooks.bpf.c) whose names begin with PREFIX, prints
 * "ready N" once they are attached and holds them until SIGINT or SIGTERM.
 * bench/guest/testbed.sh's hooks part and hooks-PREFIX configs run it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_link *links[64];
	struct bpf_object *obj;
	struct bpf_program *p;
	int n = 0, i, rc = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: empty_hooks OBJECT PREFIX\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "empty_hooks: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, !strncmp(bpf_program__name(p), argv[2], strlen(argv[2])));
	if (bpf_object__load(obj)) {
		fprintf(stderr, "empty_hooks: cannot load %s's %s* programs: %s\n", argv[1], argv[2],
			strerror(errno));
		goto out;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__autoload(p))
			continue;
		if (n == (int)(sizeof(links) / sizeof(links[0]))) {
			fprintf(stderr, "empty_hooks: more than %d programs\n", n);
			goto out;
		}
		links[n] = bpf_program__attach(p);
		if (!links[n]) {
			fprintf(stderr, "empty_hooks: cannot attach %s: %s\n", bpf_program__name(p),
				strerror(errno));
			goto out;
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "empty_hooks: no program of %s begins with %s\n", argv[1], argv[2]);
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready %d\n", n);
	fflush(stdout);
	while (!stop)
		pause();
	rc = 0;
out:
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return rc;
}
