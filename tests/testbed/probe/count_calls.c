// SPDX-License-Identifier: GPL-2.0
/*
 * count_calls - count a kernel function's calls while a command runs.
 *
 *   count_calls [-o FILE] FUNCTION COMMAND [ARGS...]
 *
 * Attaches count_calls.bpf.c (fentry) to FUNCTION, a blk-mq ->queue_rq()
 * such as nvme_tcp_queue_rq (a module function: libbpf finds it in the
 * module's BTF), runs COMMAND, detaches, and writes
 *   calls_all=N     every call
 *   calls_disk=N    calls for a namespace's queue (no admin/connect commands)
 * to FILE (default stdout). Exit status: COMMAND's, or 1 when the probe fails.
 * Test bed only: the guest kernels have fentry, the build machine does not.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "count_calls.skel.h"

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* warnings explain a failed load; debug output is noise */
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "count_calls: error: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "count_calls: error: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "count_calls: error: waitpid: %s\n", strerror(errno));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *out_path = NULL, *func;
	struct count_calls_bpf *skel;
	FILE *out = stdout;
	int opt, err, rc;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o')
			goto usage;
		out_path = optarg;
	}
	if (argc - optind < 2)
		goto usage;
	func = argv[optind];
	libbpf_set_print(libbpf_log);

	skel = count_calls_bpf__open();
	if (!skel) {
		fprintf(stderr, "count_calls: error: open BPF object: %s\n", strerror(errno));
		return 1;
	}
	err = bpf_program__set_attach_target(skel->progs.count_queue_rq, 0, func);
	if (!err)
		err = count_calls_bpf__load(skel);
	if (!err)
		err = count_calls_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "count_calls: error: fentry on %s: %s\n", func, strerror(-err));
		count_calls_bpf__destroy(skel);
		return 1;
	}

	rc = run(argv + optind + 1);
	count_calls_bpf__detach(skel);

	if (out_path && !(out = fopen(out_path, "w"))) {
		fprintf(stderr, "count_calls: error: %s: %s\n", out_path, strerror(errno));
		rc = 1;
	} else {
		fprintf(out, "calls_all=%llu\ncalls_disk=%llu\n",
			(unsigned long long)skel->bss->calls_all,
			(unsigned long long)skel->bss->calls_disk);
		if (out != stdout)
			fclose(out);
	}
	count_calls_bpf__destroy(skel);
	return rc;

usage:
	fprintf(stderr, "usage: count_calls [-o FILE] FUNCTION COMMAND [ARGS...]\n");
	return 2;
}
