// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof record: sample NVMe/TCP host commands into a .ntp recording, then
 * print the report on it.  Documented in ntprof-record(1).
 *
 * parse -> probe the kernel (privilege, BTF, fentry, nvme_tcp) -> load ->
 * attach -> poll the ring buffer into the writer, one intervals row and one
 * commit about every second -> detach, drain -> meta, close -> report.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/types.h>

#include "bpf/ntp_hash.h"
#include "cmd/cmd.h"
#include "lib/bpf_host.h"
#include "lib/db.h"
#include "lib/err.h"
#include "lib/exit.h"
#include "lib/kernel_probe.h"
#include "lib/opt.h"
#include "lib/report.h"

#define NSEC_PER_SEC 1000000000ULL
#define POLL_MS 100
#define FLUSH_NS NSEC_PER_SEC

/* the vmlinux function whose fentry load tells whether this kernel runs fentry programs */
#define FENTRY_PROBE_FUNC "blk_mq_complete_request_remote"

struct record_opts {
	uint64_t sample;
	const char *output;
	double duration;
	const char *json;
	int verbose;
};

static const char *const record_usage[] = {
	"ntprof record [options]",
	NULL,
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

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

static void read_line_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* kernel support, in order from the most basic lack; prints one line */
static int probe_kernel(void)
{
	int err;

	if (!ntp_probe__bpf_privileged()) {
		ntp_error("needs root (or CAP_BPF and CAP_PERFMON)");
		return NTP_EXIT_NOPERM;
	}
	if (!ntp_probe__vmlinux_btf()) {
		ntp_error("kernel lacks /sys/kernel/btf/vmlinux: needs a kernel built with CONFIG_DEBUG_INFO_BTF");
		return NTP_EXIT_UNSUPPORTED;
	}
	err = ntp_probe__fentry(FENTRY_PROBE_FUNC);
	if (err == -ENOENT) {
		ntp_error("kernel lacks %s in its BTF: cannot attach the completion hook", FENTRY_PROBE_FUNC);
		return NTP_EXIT_UNSUPPORTED;
	}
	if (err) {
		ntp_error("kernel cannot run fentry/fexit programs: loading one on %s: %s "
			  "(needs CONFIG_FUNCTION_TRACER with ftrace direct calls)",
			  FENTRY_PROBE_FUNC, strerror(-err));
		return NTP_EXIT_UNSUPPORTED;
	}
	if (!ntp_probe__module_loaded("nvme_tcp")) {
		ntp_error("module nvme_tcp is not loaded: no NVMe/TCP host here (modprobe nvme-tcp, then nvme connect)");
		return NTP_EXIT_UNSUPPORTED;
	}
	if (!ntp_probe__module_btf("nvme_tcp")) {
		ntp_error("kernel has no BTF for module nvme_tcp: /sys/kernel/btf/nvme_tcp is missing "
			  "(needs CONFIG_DEBUG_INFO_BTF_MODULES)");
		return NTP_EXIT_UNSUPPORTED;
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
	const char *base = getenv("TMPDIR");

	if (!base || !*base)
		base = "/tmp";
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

struct recorder {
	struct ntp_writer *w;
	struct ntp_host_collector *c;
	uint64_t prev[NTP_CNT_MAX];
	uint64_t last_flush_ns;
};

static int on_event(void *ctx, const struct ntp_host_event *e)
{
	struct recorder *r = ctx;

	return ntp_writer__add_host_io(r->w, e);
}

/* one intervals row with the counters' growth since the last, then commit */
static int write_interval(struct recorder *r, uint64_t now)
{
	uint64_t cnt[NTP_CNT_MAX];
	struct ntp_interval iv = { .t_ns = now, .side = "host" };
	int err;

	if (ntp_host__read_counters(r->c, cnt)) {
		ntp_error("reading the BPF counters: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	iv.seen = cnt[NTP_CNT_SEEN] - r->prev[NTP_CNT_SEEN];
	iv.sampled = cnt[NTP_CNT_SAMPLED] - r->prev[NTP_CNT_SAMPLED];
	iv.lost_ringbuf = cnt[NTP_CNT_LOST_RINGBUF] - r->prev[NTP_CNT_LOST_RINGBUF];
	iv.lost_map = cnt[NTP_CNT_LOST_MAP] - r->prev[NTP_CNT_LOST_MAP];
	memcpy(r->prev, cnt, sizeof(cnt));
	err = ntp_writer__add_interval(r->w, &iv);
	if (!err)
		err = ntp_writer__flush(r->w);
	r->last_flush_ns = now;
	return err;
}

static int write_start_meta(struct ntp_writer *w, const struct record_opts *o, const char *cmdline,
			    uint64_t start_ns, uint64_t start_real_ns)
{
	char host[256] = "", boot_id[64];
	struct utsname u;
	int err = 0;

	if (uname(&u))
		u.release[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	read_line_file("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));

	err = err ?: ntp_writer__set_meta_text(w, "role", "host");
	err = err ?: ntp_writer__set_meta_text(w, "transport", "tcp");
	err = err ?: ntp_writer__set_meta_int(w, "sample_one_in", (int64_t)o->sample);
	err = err ?: ntp_writer__set_meta_int(w, "hash_version", NTP_HASH_VERSION);
	err = err ?: ntp_writer__set_meta_text(w, "kernel_release", u.release);
	err = err ?: ntp_writer__set_meta_text(w, "hostname", host);
	err = err ?: ntp_writer__set_meta_text(w, "boot_id", boot_id);
	err = err ?: ntp_writer__set_meta_int(w, "start_realtime_ns", (int64_t)start_real_ns);
	err = err ?: ntp_writer__set_meta_int(w, "start_ns", (int64_t)start_ns);
	err = err ?: ntp_writer__set_meta_text(w, "command_line", cmdline ? cmdline : "ntprof record");
	err = err ?: ntp_writer__set_meta_text(w, "ntprof_version", ntp_version_string);
	return err;
}

static int write_hooks(struct ntp_writer *w, const struct ntp_host_collector *c)
{
	const struct ntp_host_hook *h = ntp_host__hooks(c);
	int i, err = 0;

	for (i = 0; i < NTP_HOST_NHOOKS && !err; i++)
		err = ntp_writer__add_hook(w, "host", h[i].point, h[i].hook, h[i].flavour, h[i].reason);
	return err;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: the signal must break the ring buffer's epoll_wait */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* poll until a signal, -d or an error; returns 0 or an NTP_EXIT_* code */
static int record_loop(struct recorder *r, uint64_t start_ns, double duration, const char **reason)
{
	uint64_t end_ns = duration > 0 ? start_ns + (uint64_t)(duration * NSEC_PER_SEC) : UINT64_MAX;
	int n, code, err;
	uint64_t now;

	for (;;) {
		now = clock_ns(CLOCK_MONOTONIC);
		if (stop_signal) {
			*reason = stop_signal == SIGINT ? "sigint" : "sigterm";
			return 0;
		}
		if (now >= end_ns) {
			*reason = "duration";
			return 0;
		}
		if (now - r->last_flush_ns >= FLUSH_NS) {
			err = write_interval(r, now);
			if (err) {
				*reason = "error";
				return err;
			}
		}
		n = ntp_host__poll(r->c, end_ns - now < POLL_MS * 1000000ULL ?
				   (int)((end_ns - now) / 1000000) + 1 : POLL_MS, &code);
		if (n < 0) {
			*reason = "error";
			if (code)
				return code;
			ntp_error("reading the ring buffer: %s", strerror(errno));
			return NTP_EXIT_FAILURE;
		}
	}
}

/* after detaching: hand over every record still in the ring */
static int drain(struct recorder *r)
{
	int n, code;

	do {
		n = ntp_host__poll(r->c, 0, &code);
	} while (n > 0);
	if (n < 0) {
		if (code)
			return code;
		ntp_error("reading the ring buffer: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	return 0;
}

static int record(const struct record_opts *o, const char *path, const char *cmdline)
{
	struct ntp_host_opts ho = { .sample_one_in = (uint32_t)o->sample };
	struct recorder r = {};
	const char *reason = "error";
	uint64_t t0, start_ns, stop_ns;
	int err, err2;

	err = ntp_host__prepare(&r.c, &ho);
	if (err)
		return err;
	/*
	 * Attach before the writer opens (and moves an existing FILE to
	 * FILE.old): a refused attach leaves the user's files alone.  Records
	 * wait in the ring buffer until the first poll.
	 */
	t0 = clock_ns(CLOCK_MONOTONIC);
	err = ntp_host__start(r.c, on_event, &r);
	if (err)
		goto out;
	start_ns = clock_ns(CLOCK_MONOTONIC);
	err = ntp_writer__open(&r.w, path);
	if (err)
		goto out;
	ntp_info("recording NVMe/TCP host commands, 1 in %llu; %d programs attached in %.2f s; %s",
		 (unsigned long long)o->sample, ntp_host__programs(r.c),
		 (double)(start_ns - t0) / NSEC_PER_SEC,
		 o->duration > 0 ? "stops after -d or Ctrl-C" : "Ctrl-C stops");
	err = write_hooks(r.w, r.c);
	if (!err)
		err = write_start_meta(r.w, o, cmdline, start_ns, clock_ns(CLOCK_REALTIME));
	if (err)
		goto out;
	r.last_flush_ns = start_ns;

	err = record_loop(&r, start_ns, o->duration, &reason);
	/* the end is when we stopped asking, not after detaching (which may wait for RCU) */
	stop_ns = clock_ns(CLOCK_MONOTONIC);
	ntp_host__stop(r.c);
	if (!err)
		err = drain(&r);
	if (err)
		reason = "error";
	/* even after an error: keep what can still be written (a full disk may refuse it) */
	err2 = write_interval(&r, stop_ns);
	err2 = err2 ?: ntp_writer__set_meta_int(r.w, "stop_ns", (int64_t)stop_ns);
	err2 = err2 ?: ntp_writer__set_meta_int(r.w, "duration_ns", (int64_t)(stop_ns - start_ns));
	err2 = err2 ?: ntp_writer__set_meta_text(r.w, "stop_reason", reason);
	err = err ?: err2;
	ntp_info("%llu commands recorded; %llu sampled of %llu seen (lost: %llu ring buffer, %llu map) in %.1f s",
		 (unsigned long long)ntp_writer__rows(r.w), (unsigned long long)r.prev[NTP_CNT_SAMPLED],
		 (unsigned long long)r.prev[NTP_CNT_SEEN],
		 (unsigned long long)r.prev[NTP_CNT_LOST_RINGBUF],
		 (unsigned long long)r.prev[NTP_CNT_LOST_MAP], (double)(stop_ns - start_ns) / NSEC_PER_SEC);
out:
	ntp_host__stop(r.c);
	if (r.w) {
		err2 = ntp_writer__close(r.w);
		err = err ?: err2;
	}
	ntp_host__free(r.c);
	return err;
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
	struct record_opts o = { .sample = 1000 };
	bool duration_set = false;
	const struct ntp_option opts[] = {
		NTP_OPT_UINT('s', "sample", &o.sample, "N",
			     "record one command in N (default 1000)", 1, 1ULL << 31),
		NTP_OPT_STRING('o', "output", &o.output, "FILE",
			       "save the recording to FILE (default: a temporary file, removed at exit)"),
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'd', .long_name = "duration",
		  .value = &o.duration, .argh = "SEC", .help = "stop after SEC seconds (default: at Ctrl-C)",
		  .is_set = &duration_set },
		NTP_OPT_STRING('j', "json", &o.json, "FILE",
			       "also write the final report as JSON to FILE ('-': stdout, instead of the text)"),
		NTP_OPT_INCR('v', "verbose", &o.verbose, "say more; twice: libbpf's log too"),
		NTP_OPT_END(),
	};
	struct ntp_report_opts ro = { 0 };
	struct tmp_output tmp = { .dir = "" };
	const char *path;
	int n, err;

	n = ntp_opt__parse(opts, argc, argv, record_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n > 0) {
		ntp_error("unexpected argument '%s': usage: %s", argv[0], record_usage[0]);
		return NTP_EXIT_USAGE;
	}
	if (duration_set && !(o.duration > 0)) {
		ntp_error("invalid value for option '--duration': must be more than 0 seconds");
		return NTP_EXIT_USAGE;
	}
	ntp_err__set_verbosity(ntp_err__verbosity() + o.verbose);

	err = probe_kernel();
	if (err)
		return err;

	if (o.output) {
		path = o.output;
	} else {
		err = tmp_output_create(&tmp);
		if (err)
			return err;
		path = tmp.path;
	}
	install_signals();
	err = record(&o, path, cmdline);
	if (!err) {
		ro.json_path = o.json;
		err = ntp_report__run(&path, 1, &ro);
	}
	tmp_output_remove(&tmp);
	return err;
}
