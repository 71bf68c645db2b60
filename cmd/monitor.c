// SPDX-License-Identifier: GPL-2.0
/*
 * ntprof monitor: record's collectors in histogram mode, their per-stage
 * histograms served as Prometheus metrics.  Documented in ntprof-monitor(1).
 *
 * parse and validate (a listen address, a flight directory or a trigger
 * that cannot be served: exit 17, before anything is loaded) -> probe the
 * kernel for the role -> bind -> monitor (lib/monitor/monitor.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cmd/cmd.h"
#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/cli/opt.h"
#include "lib/core/filter.h"
#include "lib/core/stage_table.h"
#include "lib/monitor/mon_expo.h"
#include "lib/monitor/mon_http.h"
#include "lib/monitor/mon_priv.h"
#include "lib/monitor/mon_trigger.h"
#include "lib/monitor/monitor.h"
#include "lib/record/record_cli.h"

#define MAX_DURATION_S (366 * 24 * 3600)
#define DEFAULT_LISTEN "127.0.0.1:9464"
#define DEFAULT_FLIGHT_S 30
#define MAX_FLIGHT_S 3600
#define DEFAULT_FLIGHT_COMMANDS 1000
#define MAX_FLIGHT_COMMANDS 1000000
/* the flight recorder's records a side, seconds x commands a second: its memory's bound */
#define MAX_FLIGHT_RECORDS 10000000

struct monitor_cli {
	uint64_t sample;
	const char *listen;
	const char *user;
	double duration;
	const char *role;
	const char *transport;
	const char *session, *io_type, *sizes;
	bool kprobes, fentry, app;
	int verbose;
	const char *flight, *trigger;
	double flight_seconds;
	uint64_t flight_commands;
};

/*
 * --flight DIR, made if it is missing (owned by --user's user), and one
 * that user can write into: checked as that user, in a child that drops
 * to it.  0, or -1 after one line.
 */
static int flight_dir(const char *dir, uid_t uid, gid_t gid, const char *user)
{
	struct stat st;
	int status;
	pid_t p;

	if (mkdir(dir, 0750) == 0) {
		if (geteuid() == 0 && chown(dir, uid, gid)) {
			ntp_error("--flight %s: giving it to user %s: %s", dir, user, strerror(errno));
			return -1;
		}
	} else if (errno != EEXIST) {
		ntp_error("--flight %s: cannot make it: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		ntp_error("--flight %s: not a directory", dir);
		return -1;
	}
	p = fork();
	if (p == 0)
		_exit(ntp_mon_priv__drop(uid, gid) || access(dir, W_OK | X_OK) ? 1 : 0);
	if (p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status)) {
		ntp_error("--flight %s: user %s cannot write there", dir, user);
		return -1;
	}
	return 0;
}

static const char *const monitor_usage[] = {
	"ntprof monitor [options]",
	NULL,
};

static int monitor_main(int argc, const char **argv, const char *cmdline)
{
	struct monitor_cli c = { .sample = 1000, .role = "host", .transport = "tcp",
				 .listen = DEFAULT_LISTEN, .user = "nobody",
				 .flight_seconds = DEFAULT_FLIGHT_S,
				 .flight_commands = DEFAULT_FLIGHT_COMMANDS };
	bool duration_set = false, seconds_set = false, commands_set = false;
	const struct ntp_option opts[] = {
		NTP_RECORD_CLI_ROLE_TRANSPORT(&c.role, &c.transport),
		NTP_OPT_UINT('s', "sample", &c.sample, "N",
			     "count one command in N into the histograms (default 1000)", 1, 1ULL << 31),
		NTP_RECORD_CLI_FILTERS(&c.session, &c.io_type, &c.sizes),
		NTP_OPT_STRING('l', "listen", &c.listen, "ADDR:PORT",
			       "serve the metrics at http://ADDR:PORT/metrics (default " DEFAULT_LISTEN ")"),
		NTP_OPT_STRING('u', "user", &c.user, "USER",
			       "run as USER once the programs are attached (default nobody)"),
		{ .type = NTP_OPT_TYPE_SECONDS, .short_name = 'd', .long_name = "duration",
		  .value = &c.duration, .argh = "SEC",
		  .help = "stop after SEC seconds (default: at SIGINT or SIGTERM)", .is_set = &duration_set },
		NTP_RECORD_CLI_FLAVOUR(&c.kprobes, &c.fentry),
		NTP_OPT_BOOL(0, "app", &c.app,
			     "count the application's stages too, with record's application hooks (host)"),
		NTP_OPT_STRING(0, "flight", &c.flight, "DIR",
			       "keep the last sampled commands; write them as a recording into DIR on "
			       "SIGUSR2, POST /snapshot or --trigger"),
		{ .type = NTP_OPT_TYPE_SECONDS, .long_name = "flight-seconds", .value = &c.flight_seconds,
		  .argh = "SEC", .help = "the flight recorder keeps the last SEC seconds (default 30)",
		  .is_set = &seconds_set },
		{ .type = NTP_OPT_TYPE_UINT, .long_name = "flight-commands", .value = &c.flight_commands,
		  .argh = "N", .help = "... the slowest N commands of each second, each side (default 1000)",
		  .min = 1, .max = MAX_FLIGHT_COMMANDS, .is_set = &commands_set },
		NTP_OPT_STRING(0, "trigger", &c.trigger, "EXPR",
			       "a snapshot when a second's commands meet EXPR (e.g. p99>5ms, "
			       "storage.p99>2ms)"),
		NTP_OPT_INCR('v', "verbose", &c.verbose, "say more, libbpf's log included; as ntprof -v"),
		NTP_OPT_END(),
	};
	struct ntp_monitor_opts o = { .listen_fd = -1 };
	struct ntp_trigger trigger;
	struct ntp_filter filter = { 0 };
	struct sockaddr_storage ss;
	socklen_t sslen;
	const struct passwd *pw;
	char why[160];
	int n, err;

	ntp_err__set_cmd("monitor");
	n = ntp_opt__parse(opts, argc, argv, monitor_usage, 0);
	if (n == NTP_OPT_HELP)
		return NTP_EXIT_OK;
	if (n == NTP_OPT_ERROR)
		return NTP_EXIT_USAGE;
	if (n > 0) {
		ntp_error("unexpected argument '%s': monitor takes no operands", argv[0]);
		return NTP_EXIT_USAGE;
	}
	if (duration_set && !(c.duration > 0 && c.duration <= MAX_DURATION_S)) {
		ntp_error("invalid value for option '--duration': must be more than 0 seconds and at most "
			  "%d (a year)", MAX_DURATION_S);
		return NTP_EXIT_USAGE;
	}
	if (!c.flight && (seconds_set || commands_set || c.trigger)) {
		ntp_error("%s needs --flight DIR", c.trigger ? "--trigger" : seconds_set ?
			  "--flight-seconds" : "--flight-commands");
		return NTP_EXIT_USAGE;
	}
	if (seconds_set && !(c.flight_seconds >= 1 && c.flight_seconds <= MAX_FLIGHT_S)) {
		ntp_error("invalid value for option '--flight-seconds': must be from 1 to %d seconds",
			  MAX_FLIGHT_S);
		return NTP_EXIT_USAGE;
	}
	/* the window's whole seconds, and the one being filled */
	if (c.flight && ((double)(uint64_t)c.flight_seconds + 2) * (double)c.flight_commands >
	    MAX_FLIGHT_RECORDS) {
		ntp_error("--flight-seconds %g with --flight-commands %" PRIu64 ": more than %d "
			  "commands a side to keep; fewer seconds or commands", c.flight_seconds,
			  c.flight_commands, MAX_FLIGHT_RECORDS);
		return NTP_EXIT_USAGE;
	}
	if (ntp_http__parse_listen(c.listen, &ss, &sslen, why, sizeof(why))) {
		ntp_error("--listen %s: %s", c.listen, why);
		return NTP_EXIT_SERVE;
	}
	pw = getpwnam(c.user);
	if (!pw) {
		ntp_error("--user %s: no such user", c.user);
		return NTP_EXIT_USAGE;
	}
	if (!pw->pw_uid) {
		ntp_error("--user %s: that is root: monitor drops root once attached", c.user);
		return NTP_EXIT_USAGE;
	}
	o.user = c.user;
	o.uid = pw->pw_uid;
	o.gid = pw->pw_gid;
	ntp_err__set_verbosity(ntp_err__verbosity() + c.verbose);

	o.role = !strcmp(c.role, "target") ? NTP_MONITOR_TARGET :
		 !strcmp(c.role, "both") ? NTP_MONITOR_HOST | NTP_MONITOR_TARGET : NTP_MONITOR_HOST;
	if (c.session && o.role != NTP_MONITOR_HOST) {
		/*
		 * record picks the target's commands of the namespace in user space
		 * (their backend); in the kernel the target knows only the nsid,
		 * which other subsystems' namespaces share
		 */
		ntp_error("--session needs -r host: the target's commands of one namespace "
			  "cannot be told apart in the kernel");
		return NTP_EXIT_USAGE;
	}
	if (c.app && !(o.role & NTP_MONITOR_HOST)) {
		ntp_error("--app needs -r host or -r both: the application's stages are the host's");
		return NTP_EXIT_USAGE;
	}
	o.app = c.app;
	if (c.trigger) {
		if (ntp_trigger__parse(c.trigger, &trigger, why, sizeof(why))) {
			ntp_error("--trigger %s: %s", c.trigger, why);
			return NTP_EXIT_SERVE;
		}
		if (!(o.role & (ntp_trigger__role(&trigger) ? NTP_MONITOR_TARGET : NTP_MONITOR_HOST))) {
			ntp_error("--trigger %s: %s is the %s's stage: it needs -r %s or -r both",
				  c.trigger, ntp_stages[ntp_mon_expo__stage(trigger.stage)].key,
				  ntp_trigger__role(&trigger) ? "target" : "host",
				  ntp_trigger__role(&trigger) ? "target" : "host");
			return NTP_EXIT_SERVE;
		}
		if (ntp_trigger__app(&trigger) && !c.app) {
			ntp_error("--trigger %s: %s is the application's stage: it needs --app", c.trigger,
				  ntp_stages[ntp_mon_expo__stage(trigger.stage)].key);
			return NTP_EXIT_SERVE;
		}
		o.trigger = &trigger;
	}
	err = ntp_record_cli__filter(&filter, c.session, c.io_type, c.sizes);
	if (err)
		return err;
	o.filter = filter.flags ? &filter : NULL;
	ntp_transport__parse(c.transport, &o.transport);       /* one of the choices */
	o.sample_one_in = (uint32_t)c.sample;
	o.duration_s = duration_set ? c.duration : 0;
	o.attach = ntp_record_cli__attach(c.kprobes, c.fentry);
	o.listen = c.listen;
	o.filter_session = c.session;
	if (c.flight) {
		if (flight_dir(c.flight, o.uid, o.gid, o.user))
			return NTP_EXIT_SERVE;
		o.flight_dir = c.flight;
		o.flight_window_ns = (uint64_t)(c.flight_seconds * 1e9);
		o.flight_max = (size_t)c.flight_commands;
		o.command_line = cmdline;
	}

	/* bound before the kernel is asked: an address that cannot be served is said first */
	o.listen_fd = ntp_http__listen(&ss, sslen);
	if (o.listen_fd < 0) {
		ntp_error("--listen %s: cannot listen there: %s", c.listen, strerror(-o.listen_fd));
		return NTP_EXIT_SERVE;
	}
	err = ntp_cmd__probe_kernel("monitor", o.role & NTP_MONITOR_HOST, o.role & NTP_MONITOR_TARGET,
				    o.transport, o.attach);
	if (err)
		goto out;
	err = ntp_monitor__run(&o);
out:
	close(o.listen_fd);
	return err;
}

int cmd_monitor(int argc, const char **argv)
{
	/* before the options are parsed, which reorders argv */
	char *cmdline = ntp_cmd__command_line(argc, argv);
	int rc;

	if (!cmdline) {
		ntp_err__set_cmd("monitor");
		ntp_error("out of memory");
		return NTP_EXIT_FAILURE;
	}
	rc = monitor_main(argc, argv, cmdline);
	free(cmdline);
	return rc;
}
