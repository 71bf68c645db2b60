// SPDX-License-Identifier: GPL-2.0
/*
 * The terminal under ntprof top (lib/top/top_screen.h): termios without
 * ICANON and ECHO (ISIG kept, so that Ctrl-C is SIGINT), the alternate
 * screen (?1049) and the cursor (?25), all undone by ntp_top_screen__leave.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "lib/cli/err.h"
#include "lib/cli/exit.h"
#include "lib/top/top_screen.h"

#define ENTER "\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE "\033[?25h\033[?1049l"

static struct termios saved;
static int saved_err = -1;              /* the real stderr while the screen is taken */
static FILE *captured;                  /* what was written on stderr meanwhile */
static volatile sig_atomic_t stop_signal, resized;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

int ntp_top_screen__check(void)
{
	if (!isatty(STDOUT_FILENO)) {
		ntp_error("standard output is not a terminal: top draws a full screen "
			  "('ntprof record' prints lines)");
		return NTP_EXIT_NOTTY;
	}
	if (!isatty(STDIN_FILENO)) {
		ntp_error("standard input is not a terminal: top reads its keys there");
		return NTP_EXIT_NOTTY;
	}
	return 0;
}

static void read_size(struct ntp_top_screen *s)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS"), *l = getenv("LINES");

	s->cols = 80;
	s->rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		s->cols = ws.ws_col;
		s->rows = ws.ws_row;
		return;
	}
	if (c && atoi(c) > 0)
		s->cols = atoi(c);
	if (l && atoi(l) > 0)
		s->rows = atoi(l);
}

int ntp_top_screen__take(struct ntp_top_screen *s, bool signals)
{
	struct sigaction sa = { .sa_handler = on_winch };
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &saved)) {
		ntp_error("reading the terminal's settings: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	raw = saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)) {
		ntp_error("setting the terminal: %s", strerror(errno));
		return NTP_EXIT_FAILURE;
	}
	/* no SA_RESTART: a signal breaks the wait for a key */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	if (signals) {
		sa.sa_handler = on_stop;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	fflush(stderr);
	captured = tmpfile();
	saved_err = captured ? dup(STDERR_FILENO) : -1;
	if (saved_err >= 0)
		dup2(fileno(captured), STDERR_FILENO);
	s->taken = true;
	read_size(s);
	fputs(ENTER, stdout);
	fflush(stdout);
	return 0;
}

void ntp_top_screen__leave(struct ntp_top_screen *s)
{
	char buf[4096];
	size_t n;

	if (!s->taken)
		return;
	s->taken = false;
	fputs(LEAVE, stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	signal(SIGWINCH, SIG_DFL);
	fflush(stderr);
	if (saved_err >= 0) {
		dup2(saved_err, STDERR_FILENO);
		close(saved_err);
		saved_err = -1;
	}
	if (captured) {
		rewind(captured);
		while ((n = fread(buf, 1, sizeof(buf), captured)) > 0)
			fwrite(buf, 1, n, stderr);
		fclose(captured);
		captured = NULL;
	}
}

int ntp_top_screen__key(struct ntp_top_screen *s, int timeout_ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;
	int n;

	if (stop_signal)
		return -1;
	n = poll(&p, 1, timeout_ms);
	if (resized) {
		resized = 0;
		read_size(s);
	}
	if (stop_signal)
		return -1;
	if (n <= 0)
		return 0;
	n = (int)read(STDIN_FILENO, &c, 1);
	if (n == 1)
		return c ? c : 0;
	return n == 0 || errno != EINTR ? -1 : 0;
}

void ntp_top_screen__home(struct ntp_top_screen *s)
{
	(void)s;
	fputs("\033[H", stdout);
}

bool ntp_top_screen__line(struct ntp_top_screen *s, int *row, bool inverse, const char *text)
{
	if (*row >= s->rows)
		return false;
	/* the last row of the screen gets no newline: the screen must not scroll */
	printf("%s%.*s%s\033[K%s", inverse ? "\033[7m" : "", s->cols, text, inverse ? "\033[m" : "",
	       *row + 1 < s->rows ? "\r\n" : "");
	(*row)++;
	return true;
}

void ntp_top_screen__end(struct ntp_top_screen *s)
{
	(void)s;
	fputs("\033[J", stdout);
	fflush(stdout);
}
