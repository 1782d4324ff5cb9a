// SPDX-License-Identifier: GPL-2.0
/*
 * tcpxfer: one verified bulk TCP transfer with a chosen congestion control.
 *
 *   tcpxfer server [-B addr] [-p port] [-C cc] [-n conns] [-M]
 *   tcpxfer client -c addr [-p port] [-C cc] (-b bytes | -t secs) [-r rate]
 *                  [-T task] [-S size] [-M]
 *
 * The client sends a known byte pattern, then half-closes; the server checks
 * every byte against the pattern and answers with the count it received
 * and whether the pattern held.  Both print one JSON line, with the CC read
 * back from the socket (getsockopt TCP_CONGESTION), so a test knows which
 * CC really carried the bytes, and that all of them arrived intact.  -M:
 * an MPTCP socket (the listener serves plain TCP too; the client reports
 * the connection's subflows at the end, or 0 when it fell back to TCP).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/mptcp.h>

#include "parse.h"
#include "task_api.h"
#include "util.h"

#include "pattern.h"

#define BUF_SZ (128 * 1024)

#ifndef SOL_MPTCP
#define SOL_MPTCP 284
#endif

static int proto;	   /* 0, or IPPROTO_MPTCP with -M */
static uint64_t task_size; /* -S: stated to bpf_tldct; 0: none */

/* An MPTCP connection's subflows (the first and those joined); 0 when it
 * is not one, or fell back to TCP. */
static unsigned subflows(int fd)
{
	struct mptcp_info mi = {};
	socklen_t l = sizeof(mi);

	if (!proto || getsockopt(fd, SOL_MPTCP, MPTCP_INFO, &mi, &l) < 0 ||
	    (mi.mptcpi_flags & MPTCP_INFO_FLAG_FALLBACK))
		return 0;
	return mi.mptcpi_subflows + 1U;
}

struct reply {
	uint64_t bytes;
	uint32_t pattern_ok;
	uint32_t pad;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "tcpxfer: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int set_cc(int fd, const char *cc)
{
	if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) < 0) {
		fprintf(stderr, "tcpxfer: congestion control '%s': %s\n", cc, strerror(errno));
		return -1;
	}
	return 0;
}

static void get_cc(int fd, char *buf, size_t len)
{
	socklen_t l = (socklen_t)len - 1;

	memset(buf, 0, len);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &l) < 0)
		snprintf(buf, len, "?");
}

static int resolve(const char *host, const char *port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai;
	int err = getaddrinfo(host, port, &hints, &ai);

	if (err) {
		fprintf(stderr, "tcpxfer: %s: %s\n", host ? host : "*", gai_strerror(err));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void serve_one(int fd, double t0)
{
	static uint8_t buf[BUF_SZ];
	struct reply r = { .pattern_ok = 1 };
	char cc[16];
	ssize_t n;

	get_cc(fd, cc, sizeof(cc));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && r.pattern_ok; i++)
			if (buf[i] != pattern_byte(r.bytes + (uint64_t)i))
				r.pattern_ok = 0;
		r.bytes += (uint64_t)n;
	}
	if (n < 0)
		r.pattern_ok = 0;
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		r.pattern_ok = 0;
	printf("{\"role\":\"server\",\"cc\":\"%s\",\"bytes\":%" PRIu64 ",\"pattern_ok\":%s,"
	       "\"secs\":%.3f}\n",
	       cc, r.bytes, r.pattern_ok ? "true" : "false", now_s() - t0);
	fflush(stdout);
	close(fd);
}

static int server(const char *bind_addr, const char *port, const char *cc, long conns)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int lfd, one = 1;
	long served = 0;

	if (resolve(bind_addr, port, &ss, &len))
		return 1;
	lfd = socket(ss.ss_family, SOCK_STREAM, proto);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* The listener's CC decides ECN negotiation for accepted sockets. */
	if (set_cc(lfd, cc))
		return 1;
	if (bind(lfd, (struct sockaddr *)&ss, len) < 0)
		die("bind");
	if (listen(lfd, 64) < 0)
		die("listen");
	signal(SIGCHLD, SIG_IGN); /* children reaped by the kernel */
	while (!conns || served < conns) {
		int fd = accept(lfd, NULL, NULL);
		double t0 = now_s();
		pid_t pid;

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		served++;
		pid = fork();
		if (pid == 0) {
			close(lfd);
			serve_one(fd, t0);
			_exit(0);
		}
		close(fd);
	}
	/* Wait for the last transfers before exiting. */
	signal(SIGCHLD, SIG_DFL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	close(lfd);
	return 0;
}

static int client(const char *host, const char *port, const char *cc, uint64_t bytes, double secs,
		  double rate_bps, uint64_t task)
{
	static uint8_t buf[BUF_SZ];
	struct sockaddr_storage ss;
	struct tcp_info ti = {};
	socklen_t len, tl = sizeof(ti);
	struct reply r = {};
	uint64_t sent = 0;
	char got[16];
	double t0, t, t_conn;
	unsigned nsub;
	int fd;

	if (resolve(host, port, &ss, &len))
		return 1;
	fd = socket(ss.ss_family, SOCK_STREAM, proto);
	if (fd < 0)
		die("socket");
	if (set_cc(fd, cc))
		return 1;
	if (task) {
		int err = ccs_task_set(fd, task);

		if (err) {
			fprintf(stderr, "tcpxfer: task %" PRIu64 ": %s\n", task, strerror(-err));
			return 1;
		}
	}
	if (task_size) {
		int err = ccs_task_size_set(fd, task_size);

		if (err) {
			fprintf(stderr, "tcpxfer: task size %" PRIu64 ": %s\n", task_size,
				strerror(-err));
			return 1;
		}
	}
	t0 = now_s();
	if (connect(fd, (struct sockaddr *)&ss, len) < 0)
		die("connect");
	/* a handshake lost and resent shows here, not in secs */
	t_conn = now_s() - t0;
	get_cc(fd, got, sizeof(got));
	t0 = now_s();
	for (;;) {
		size_t chunk = sizeof(buf);
		ssize_t n;

		t = now_s() - t0;
		if (bytes && sent >= bytes)
			break;
		if (!bytes && t >= secs)
			break;
		if (bytes && bytes - sent < chunk)
			chunk = (size_t)(bytes - sent);
		if (rate_bps > 0 && (double)sent * 8 > rate_bps * t) {
			usleep(1000);
			continue;
		}
		for (size_t i = 0; i < chunk; i++)
			buf[i] = pattern_byte(sent + i);
		n = write(fd, buf, chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		sent += (uint64_t)n;
	}
	shutdown(fd, SHUT_WR);
	if (read(fd, &r, sizeof(r)) != sizeof(r))
		die("reading the server's reply");
	t = now_s() - t0;
	getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl);
	nsub = subflows(fd);
	printf("{\"role\":\"client\",\"cc\":\"%s\",\"bytes\":%" PRIu64 ",\"received\":%" PRIu64
	       ",\"pattern_ok\":%s,\"connect_secs\":%.3f,\"secs\":%.3f,\"goodput_bps\":%.0f,"
	       "\"retrans\":%u,\"ecn\":%s,\"rtt_us\":%u,\"subflows\":%u}\n",
	       got, sent, r.bytes, r.pattern_ok ? "true" : "false", t_conn, t,
	       (double)r.bytes * 8 / t, ti.tcpi_total_retrans,
	       (ti.tcpi_options & TCPI_OPT_ECN) ? "true" : "false", ti.tcpi_rtt, nsub);
	close(fd);
	return (r.bytes == sent && r.pattern_ok) ? 0 : 3;
}

static int bad_arg(int opt, const char *text, const char *want)
{
	fprintf(stderr, "tcpxfer: -%c: '%s' is not %s\n", opt, text, want);
	return 2;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: tcpxfer server [-B addr] [-p port] [-C cc] [-n conns] [-M]\n"
		   "       tcpxfer client -c addr [-p port] [-C cc] (-b size | -t secs) [-r rate]\n"
		   "                      [-T task] [-S size] [-M]\n"
		   "  -T  bpf_tldct task id, set before connect()\n"
		   "  -S  the task's size in bytes, stated to bpf_tldct (its tunable beta_left)\n"
		   "  -M  MPTCP (IPPROTO_MPTCP) sockets\n"
		   "Exit status 3: the server did not receive every byte intact.\n");
}

int main(int argc, char **argv)
{
	const char *host = NULL, *port = "5600", *cc = NULL;
	uint64_t bytes = 0, task = 0, v;
	double secs = 0, rate = 0;
	long conns = 0;
	int c, srv;

	if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		usage(stderr);
		return 2;
	}
	srv = !strcmp(argv[1], "server");
	optind = 2;
	while ((c = getopt(argc, argv, "B:c:p:C:n:b:t:r:T:S:Mh")) != -1) {
		switch (c) {
		case 'B':
		case 'c': host = optarg; break;
		case 'p': port = optarg; break;
		case 'C': cc = optarg; break;
		case 'n':
			if (parse_u64(optarg, &v) || v > 1000000)
				return bad_arg(c, optarg, "a number of connections");
			conns = (long)v;
			break;
		case 'b':
			if (parse_size(optarg, &bytes))
				return bad_arg(c, optarg, "a size (e.g. 4mb)");
			break;
		case 't':
			if (parse_double(optarg, &secs))
				return bad_arg(c, optarg, "a number of seconds");
			break;
		case 'r':
			if (parse_rate(optarg, &v))
				return bad_arg(c, optarg, "a rate (e.g. 100mbit)");
			rate = (double)v;
			break;
		case 'T':
			if (parse_u64(optarg, &task))
				return bad_arg(c, optarg, "a task id");
			break;
		case 'S':
			if (parse_size(optarg, &task_size) || !task_size)
				return bad_arg(c, optarg, "a task size (e.g. 40mb)");
			break;
		case 'M': proto = IPPROTO_MPTCP; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (srv)
		return server(host, port, cc, conns);
	if (!host || (!bytes && secs <= 0)) {
		usage(stderr);
		return 2;
	}
	return client(host, port, cc, bytes, secs, rate, task);
}
