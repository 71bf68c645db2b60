// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof record: sample NVMe/TCP commands on the host, the target or both
 * into a .ntp recording, print live lines while recording, then the report
 * on it.  Documented in ntprof-record(1).
 *
 * parse and validate (nothing is loaded for a bad command line) -> probe the
 * kernel for the role -> record (lib/record/record_session.c) -> report.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/collect/attach.h"
#include "lib/collect/kernel_probe.h"
#include "lib/core/filter.h"
#include "lib/core/tmpdir.h"
#include "lib/model/model_files.h"
#include "lib/ntp/db_write.h"
#include "lib/record/record_child.h"
#include "lib/record/record_session.h"
#include "lib/report/report.h"

/* the vmlinux function whose fentry load tells whether this kernel runs fentry programs */
#define FENTRY_PROBE_FUNC "blk_mq_complete_request_remote"

/* options sharing this group exclude each other */
#define GROUP_FLAVOUR 1
/* -d and -i: a year and an hour, far below where seconds x 1e9 overflows */
#define MAX_DURATION_S (366 * 24 * 3600)
#define MAX_INTERVAL_S 3600

struct record_cli {
	uint64_t sample;
	const char *output;
	double duration;
	double interval;
	const char *json;
	const char *role;
	const char *transport;
	const char *session, *io_type, *sizes;
	bool offline;
	bool kprobes, fentry;
	bool no_app;
	int verbose;
};

static const char *const record_usage[] = {
	"ntprof record [options] [--] [COMMAND [ARGS...]]",
	NULL,
};

static const char *const roles[] = { "host", "target", "both", NULL };
static const char *const transports[] = { "tcp", "rdma", NULL };

/* the whole command line, shell-quoted where needed, for the recording's meta */
static char *command_line(int argc, const char **argv)
{
	size_t len = strlen("ntprof") + 1;
	char *s, *p;
	int i;

	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s + sprintf(s, "ntprof");
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		*p++ = ' ';
		if (*a && !strpbrk(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!")) {
			p = stpcpy(p, a);
			continue;
		}
		*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *a;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

static int probe_module(const char *name, const char *hint)
{
	if (!ntp_probe__module_loaded(name)) {
		ntp_error("module %s is not loaded: %s", name, hint);
		return NTP_EXIT_UNSUPPORTED;
	}
	if (!ntp_probe__module_btf(name)) {
		ntp_error("kernel has no BTF for module %s: /sys/kernel/btf/%s is missing "
			  "(needs CONFIG_DEBUG_INFO_BTF_MODULES: Linux 5.11 and later)", name, name);
		return NTP_EXIT_UNSUPPORTED;
	}
	return 0;
}

/* kernel support for the role, in order from the most basic lack; prints one line */
static int probe_kernel(unsigned int role, enum ntp_transport t, enum ntp_attach_policy attach)
{
	bool rdma = t == NTP_TRANSPORT_RDMA;
	int err;

	err = ntp_cmd__check_privileges("record");
	if (err)
		return err;
	if (!ntp_probe__vmlinux_btf()) {
		ntp_error("kernel lacks /sys/kernel/btf/vmlinux: needs a kernel built with CONFIG_DEBUG_INFO_BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	/*
	 * A forced flavour the kernel cannot run is said here, in one line; in
	 * the automatic choice the collectors fall back and say why.
	 */
	if (attach == NTP_ATTACH_FENTRY) {
		err = ntp_probe__fentry(FENTRY_PROBE_FUNC);
		if (err == -ENOENT) {
			ntp_error("kernel lacks %s in its BTF: cannot attach the completion hook",
				  FENTRY_PROBE_FUNC);
			return NTP_EXIT_UNSUPPORTED;
		}
		if (err) {
			ntp_error("--fentry: kernel cannot run fentry/fexit programs: loading one on %s: %s "
				  "(needs CONFIG_FUNCTION_TRACER with ftrace direct calls)",
				  FENTRY_PROBE_FUNC, strerror(-err));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	if (attach == NTP_ATTACH_KPROBE) {
		err = ntp_probe__kprobe();
		if (err) {
			ntp_error("--kprobes: kernel cannot run kprobes: %s (needs CONFIG_KPROBES)",
				  strerror(-err));
			return NTP_EXIT_UNSUPPORTED;
		}
	}
	if (role & NTP_RECORD_HOST) {
		err = rdma ? probe_module("nvme_rdma", "no NVMe/RDMA host here "
					  "(modprobe nvme-rdma, then nvme connect -t rdma)")
			   : probe_module("nvme_tcp", "no NVMe/TCP host here (modprobe nvme-tcp, then nvme connect)");
		if (err)
			return err;
	}
	if (role & NTP_RECORD_TARGET) {
		err = probe_module("nvmet", rdma ? "no NVMe-oF target here (modprobe nvmet-rdma, then configure it)"
					 : "no NVMe-oF target here (modprobe nvmet-tcp, then configure it)");
		err = err ?: rdma ? probe_module("nvmet_rdma", "no NVMe/RDMA target here "
						 "(modprobe nvmet-rdma, then add an rdma port to nvmet)")
				  : probe_module("nvmet_tcp", "no NVMe/TCP target here (modprobe nvmet-tcp)");
		if (err)
			return err;
	}
	return 0;
}

/* without -o: a private directory, removed with everything SQLite left in it */
struct tmp_output {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
};

static int tmp_output_create(struct tmp_output *t)
{
	const char *base = ntp_tmpdir();

	snprintf(t->dir, sizeof(t->dir), "%s/ntprof-record-XXXXXX", base);
	if (!mkdtemp(t->dir)) {
		ntp_error("creating a temporary directory in %s: %s", base, strerror(errno));
		t->dir[0] = '\0';
		return NTP_EXIT_FAILURE;
	}
	snprintf(t->path, sizeof(t->path), "%s/record.ntp", t->dir);
	return 0;
}

static void tmp_output_remove(struct tmp_output *t)
{
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal", ".old" };
	char p[PATH_MAX + 32];
	size_t i;

	if (!t->dir[0])
		return;
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", t->path, suffixes[i]);
		unlink(p);
	}
	rmdir(t->dir);
}

static unsigned int role_bits(const char *role)
{
	if (!strcmp(role, "target"))
		return NTP_RECORD_TARGET;
	if (!strcmp(role, "both"))
		return NTP_RECORD_BOTH;
	return NTP_RECORD_HOST;
}

static int record_main(int argc, const char **argv, const char *cmdline);

int cmd_record(int argc, const char **argv)
{
	char *cmdline;
	int rc;

	ntp_err__set_cmd("record");
	/* before parsing: ntp_opt__parse() reorders argv */
	cmdline = command_line(argc, argv);
	if (!cmdline) {
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	rc = record_main(argc, argv, cmdline);
	free(cmdline);
	return rc;
}

static int record_main(int argc, const char **argv, const char *cmdline)
{
	struct record_cli c = { .sample = 1000, .interval = 1.0, .role = "host", .transport = "tcp" };
	bool duration_set = false, interval_set = false;
	const struct ntp_option opts[] = {
		NTP_OPT_CHOICE('r', "role", &c.role, "ROLE",
			       "host (default), target, or both (host and target on this machine)", roles),
		NTP_OPT_CHOICE('t', "transport", &c.transport, "TRANSPORT",
			       "the NVMe-oF transport: tcp (default) or rdma", transports),
		NTP_OPT_UINT('s', "sample", &c.sample, "N",
			     "record one command in N (default 1000)", 1, 1ULL << 31),
		NTP_OPT_STRING(0, "session", &c.session, "nvmeXnY",
			       "only this namespace (all of its paths with native multipath)"),
		NTP_OPT_STRING(0, "io-type", &c.io_type, "read|write", "only reads or only writes"),
		NTP_OPT_STRING(0, "size", &c.sizes, "SIZES",
			       "only these I/O sizes, comma-separated (e.g. 4K,128K)"),
		NTP_OPT_STRING('o', "output", &c.output, "FILE",
			       "save the recording to FILE (default: a temporary file, removed at exit)"),
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'd', .long_name = "duration",
		  .value = &c.duration, .argh = "SEC", .help = "stop after SEC seconds (default: at Ctrl-C)",
		  .is_set = &duration_set },
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'i', .long_name = "interval",
		  .value = &c.interval, .argh = "SEC",
		  .help = "print the live lines every SEC seconds (default 1)", .is_set = &interval_set },
		NTP_OPT_BOOL(0, "offline", &c.offline, "no live lines: print only the final report"),
		NTP_OPT_STRING('j', "json", &c.json, "FILE",
			       "also write the final report as JSON to FILE ('-': stdout, instead of the text)"),
		{ .type = NTP_OPT_TYPE_BOOL, .long_name = "kprobes", .value = &c.kprobes,
		  .help = "attach kprobes/kretprobes only", .group = GROUP_FLAVOUR },
		{ .type = NTP_OPT_TYPE_BOOL, .long_name = "fentry", .value = &c.fentry,
		  .help = "attach fentry/fexit only, however long attaching takes", .group = GROUP_FLAVOUR },
		NTP_OPT_BOOL(0, "no-app", &c.no_app,
			     "not the application's side: no h_app_* stamps, pid or comm (host; cheaper)"),
		NTP_OPT_INCR('v', "verbose", &c.verbose, "say more, libbpf's log included; as ntprof -v"),
		NTP_OPT_END(),
	};
	struct ntp_record_opts o = { 0 };
	struct ntp_filter filter = { 0 };
	struct ntp_report_opts ro = { 0 };
	struct tmp_output tmp = { .dir = "" };
	const char *path;
	int n, err;

	n = ntp_opt__parse(opts, argc, argv, record_usage, NTP_OPT_STOP_AT_NON_OPTION);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	/* the upper bounds keep SEC x 1e9 ns far inside 64 bits */
	if (duration_set && !(c.duration > 0 && c.duration <= MAX_DURATION_S)) {
		ntp_error("invalid value for option '--duration': must be more than 0 seconds and at most "
			  "%d (a year)", MAX_DURATION_S);
		return NTP_EXIT_USAGE;
	}
	if (interval_set && !(c.interval >= 0.1 && c.interval <= MAX_INTERVAL_S)) {
		ntp_error("invalid value for option '--interval': must be at least 0.1 seconds and at most "
			  "%d (an hour)", MAX_INTERVAL_S);
		return NTP_EXIT_USAGE;
	}
	ntp_err__set_verbosity(ntp_err__verbosity() + c.verbose);

	o.role = role_bits(c.role);
	/* the filters are checked (and the namespace looked up) before anything is loaded */
	if (c.session && o.role == NTP_RECORD_TARGET) {
		ntp_error("--session needs the host side (-r host or -r both): the target does not "
			  "know the host's namespace names");
		return NTP_EXIT_USAGE;
	}
	err = c.io_type ? ntp_filter__set_io_type(&filter, c.io_type) : 0;
	err = err ?: c.sizes ? ntp_filter__set_sizes(&filter, c.sizes) : 0;
	err = err ?: c.session ? ntp_filter__set_session(&filter, NULL, c.session) : 0;
	if (err)
		return err;
	if (filter.flags) {
		o.filter = &filter;
		o.filter_session = c.session;
	}
	ntp_transport__parse(c.transport, &o.transport);       /* one of transports[] */
	o.sample_one_in = (uint32_t)c.sample;
	o.duration_s = duration_set ? c.duration : 0;
	o.interval_s = c.interval;
	/* JSON on stdout must stay parseable: no live lines in front of it */
	o.live = !c.offline && !(c.json && !strcmp(c.json, "-"));
	o.attach = c.kprobes ? NTP_ATTACH_KPROBE : c.fentry ? NTP_ATTACH_FENTRY : NTP_ATTACH_AUTO;
	o.no_app = c.no_app;
	o.cmdline = cmdline;
	o.workload = n > 0 ? argv : NULL;

	/* a command that cannot run, or an output that cannot be created, is said before loading */
	if (o.workload) {
		err = ntp_record_child__check(o.workload);
		if (err)
			return err;
	}
	if (c.output) {
		err = ntp_writer__check_place(c.output);
		if (err)
			return err;
	}
	err = probe_kernel(o.role, o.transport, o.attach);
	if (err)
		return err;

	if (c.output) {
		path = c.output;
	} else {
		if (o.role == NTP_RECORD_TARGET)
			ntp_warn("-r target without -o: the recording is removed at exit; "
				 "save it with -o to join it with the host's");
		err = tmp_output_create(&tmp);
		if (err)
			return err;
		path = tmp.path;
	}
	err = ntp_record__run(&o, path);
	/*
	 * -r both: the join's pairing written into the recording, so that its
	 * joined_stages view answers plain SQL (ntprof-ntp(5)).  The recording
	 * is whole without it: a failure is a warning.
	 */
	if (!err && o.role == NTP_RECORD_BOTH && c.output && ntp_source__store_pairing(path))
		ntp_warn("%s: its joined_stages view stays empty; 'ntprof join -o FILE %s' writes"
			 " a joined recording instead", path, path);
	if (!err) {
		ro.json_path = c.json;
		/* the report that ends a recording is not paged: record is watched live */
		ro.no_pager = true;
		err = ntp_report__run(&path, 1, &ro);
	}
	tmp_output_remove(&tmp);
	return err;
}
