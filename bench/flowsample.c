// SPDX-License-Identifier: GPL-2.0
/*
 * flowsample: every established TCP flow of this network namespace towards
 * ports [LO, HI], every MS milliseconds, as JSON lines (bench/lib/sample.sh):
 *
 *   {"t_ms":..,"epoch_ms":..,"node":"NODE","flow":"SRC:SPORT-DST:DPORT","cc":..,
 *    "cwnd":..,"rtt_ms":..,"pacing_bps":..,"delivery_bps":..,"acked":..}
 *
 * t_ms counts from the sampler's start; epoch_ms is the wall clock, to
 * place a flow's first sample beside other processes' times.
 *
 * What `ss -ti` shows, read from the kernel with one sock_diag dump per
 * address family and sample (ss | awk forked three processes per sample,
 * about 18 % of a core with 20 flows at 100 ms).  Runs until SIGINT or
 * SIGTERM.
 *
 *   flowsample NODE MS LO HI
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

#define TCP_ESTABLISHED 1 /* include/net/tcp_states.h */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t clock_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

static uint64_t epoch0_ms; /* the wall clock at t_ms 0 */

static void addr_text(int family, const __be32 *a, uint16_t port, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(family, a, ip, sizeof(ip));
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

static void print_flow(const struct inet_diag_msg *m, int len, const char *node, uint64_t t,
		       unsigned int lo, unsigned int hi)
{
	const struct tcp_info *ti = NULL;
	const char *cc = "";
	char src[64], dst[64];
	unsigned int dport = ntohs(m->id.idiag_dport);
	struct rtattr *a;
	int alen = len - NLMSG_LENGTH(sizeof(*m));

	if (dport < lo || dport > hi)
		return;
	for (a = (struct rtattr *)(m + 1); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
		if (a->rta_type == INET_DIAG_INFO &&
		    RTA_PAYLOAD(a) >= offsetof(struct tcp_info, tcpi_delivery_rate) + 8)
			ti = RTA_DATA(a);
		else if (a->rta_type == INET_DIAG_CONG && RTA_PAYLOAD(a) > 0 &&
			 ((const char *)RTA_DATA(a))[RTA_PAYLOAD(a) - 1] == '\0')
			cc = RTA_DATA(a);
	}
	if (!ti)
		return;
	addr_text(m->idiag_family, m->id.idiag_src, ntohs(m->id.idiag_sport), src, sizeof(src));
	addr_text(m->idiag_family, m->id.idiag_dst, dport, dst, sizeof(dst));
	printf("{\"t_ms\":%" PRIu64 ",\"epoch_ms\":%" PRIu64
	       ",\"node\":\"%s\",\"flow\":\"%s-%s\",\"cc\":\"%s\",\"cwnd\":%u,"
	       "\"rtt_ms\":%.3f,\"pacing_bps\":%" PRIu64 ",\"delivery_bps\":%" PRIu64
	       ",\"acked\":%" PRIu64 "}\n",
	       t, epoch0_ms + t, node, src, dst, cc, ti->tcpi_snd_cwnd, ti->tcpi_rtt / 1000.0,
	       (uint64_t)ti->tcpi_pacing_rate * 8, (uint64_t)ti->tcpi_delivery_rate * 8,
	       (uint64_t)ti->tcpi_bytes_acked);
}

/* One dump of @family's established TCP sockets; < 0 on a netlink error. */
static int sample(int fd, int family, const char *node, uint64_t t, unsigned int lo,
		  unsigned int hi)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req = {
		.nh = { .nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = (__u8)family,
		       .sdiag_protocol = IPPROTO_TCP,
		       .idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1)),
		       .idiag_states = 1 << TCP_ESTABLISHED },
	};
	static char buf[1 << 16];

	if (send(fd, &req, sizeof(req), 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;
		int len = (int)n;

		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -EIO;
			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
				print_flow(NLMSG_DATA(h), (int)h->nlmsg_len, node, t, lo, hi);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t ms, lo, hi, t0, next;
	int fd, err;

	if (argc != 5 || parse_u64(argv[2], &ms) || !ms || ms > 60000 || parse_u64(argv[3], &lo) ||
	    parse_u64(argv[4], &hi) || lo > hi || hi > 65535) {
		fprintf(stderr, "Usage: flowsample NODE MS PORT_LO PORT_HI  (1 <= MS <= 60000)\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		perror("flowsample: sock_diag");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = next = now_ms();
	epoch0_ms = clock_ms(CLOCK_REALTIME);
	while (!stop) {
		uint64_t t = now_ms();

		err = sample(fd, AF_INET, argv[1], t - t0, (unsigned int)lo, (unsigned int)hi);
		if (!err)
			err = sample(fd, AF_INET6, argv[1], t - t0, (unsigned int)lo,
				     (unsigned int)hi);
		if (err) {
			fprintf(stderr, "flowsample: sock_diag dump: %s\n", strerror(-err));
			return 1;
		}
		fflush(stdout);
		next += ms;
		t = now_ms();
		if (next > t)
			usleep((useconds_t)((next - t) * 1000));
		else
			next = t;
	}
	close(fd);
	return 0;
}
