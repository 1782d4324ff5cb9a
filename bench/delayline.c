// SPDX-License-Identifier: GPL-2.0
/*
 * delayline: a link with propagation delay between two network namespaces,
 * for kernels without netem (test/net/topo.sh's "tap" delay backend).
 *
 *   delayline [-d MS_AB] [-D MS_BA] [-l PCT_AB] [-q SLOTS] [-r PRIO] NS_A:IF_A NS_B:IF_B
 *
 * A tap device in each namespace (NS: a name under /run/netns), and one
 * process that reads each frame from one, holds it for its direction's
 * delay and writes it to the other; PCT_AB percent of A's frames are lost
 * at random.  Why not VDE's wirefilter: a VDE link is three processes (a
 * switch at each end, the filter between) and six socket hops a frame,
 * which with 20 delayed links took a whole core of two here; and its
 * clock ticks in milliseconds, so frames leave in 1 ms clumps.  Here a
 * frame costs a read and a write, and leaves at its own time (a
 * nanosecond timeout, 1 us of timer slack).  A constant delay keeps the
 * order, so each direction is a FIFO ring of SLOTS frames (default 8192;
 * a full ring drops, counted).
 *
 * -r: SCHED_FIFO at priority PRIO, so that a frame leaves on time however
 * busy the hosts' processes keep the CPUs: a link is not a process of its
 * hosts, and at a read and a write a frame it takes little from them.
 * Runs until SIGTERM or SIGINT, then prints its counts on stderr; SIGSTOP
 * holds every frame (the taps' own queues fill, then drop) until SIGCONT.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

#define SLOT_DATA   2032 /* a frame: MTU 1500 and its Ethernet header fit */
#define SLOTS_DEF   8192
#define SLOTS_MAX   (1u << 20)
#define READ_BURST  64 /* frames read from one tap before due ones go out */
#define NSEC_PER_MS 1000000ULL

struct slot {
	uint64_t due; /* CLOCK_MONOTONIC ns */
	uint32_t len;
	uint8_t data[SLOT_DATA];
};

/* One direction: frames read from @in, written to @out @delay_ns later. */
struct dir {
	int in, out;
	uint64_t delay_ns;
	uint32_t loss; /* of 2^32 */
	struct slot *ring;
	uint32_t n;	     /* slots */
	uint64_t head, tail; /* the next to write out; the next free */
	uint64_t frames, lost, full, write_err;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: the loss draws; seeded from the clock, not secret. */
static uint32_t rnd(void)
{
	static uint64_t s;

	if (!s)
		s = now_ns() | 1;
	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return (uint32_t)((s * 2685821657736338717ULL) >> 32);
}

/* A tap named @ifname in the namespace /run/netns/@ns, non-blocking. */
static int tap_open(const char *ns, const char *ifname)
{
	char path[256];
	struct ifreq ifr = { 0 };
	int nsfd, fd;

	if (strlen(ifname) >= IFNAMSIZ) {
		fprintf(stderr, "delayline: interface name '%s' is too long\n", ifname);
		return -1;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "delayline: namespace %s: %s\n", ns, strerror(errno));
		if (nsfd >= 0)
			close(nsfd);
		return -1;
	}
	close(nsfd);
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "delayline: /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		fprintf(stderr, "delayline: tap %s in %s: %s\n", ifname, ns, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int ring_alloc(struct dir *d, uint32_t n)
{
	/* mapped, not touched: a slot costs memory once a frame used it */
	d->ring = mmap(NULL, (size_t)n * sizeof(struct slot), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (d->ring == MAP_FAILED) {
		perror("delayline: ring");
		return -1;
	}
	d->n = n;
	return 0;
}

static void put_out(struct dir *d, const uint8_t *data, uint32_t len)
{
	if (write(d->out, data, len) != (ssize_t)len)
		d->write_err++;
}

/* Frames waiting in @d's tap: into the ring, due @delay_ns from now
 * (forwarded at once without delay).  At most READ_BURST. */
static void take_in(struct dir *d)
{
	for (int i = 0; i < READ_BURST; i++) {
		struct slot *s = &d->ring[d->tail % d->n];
		ssize_t len = read(d->in, s->data, sizeof(s->data));

		if (len <= 0)
			return; /* EAGAIN: none left */
		d->frames++;
		if (d->loss && rnd() < d->loss) {
			d->lost++;
			continue;
		}
		if (!d->delay_ns) {
			put_out(d, s->data, (uint32_t)len);
			continue;
		}
		if (d->tail - d->head >= d->n) {
			d->full++;
			continue;
		}
		s->due = now_ns() + d->delay_ns;
		s->len = (uint32_t)len;
		d->tail++;
	}
}

/* Write out what is due by @now; the next due time, or 0 when empty. */
static uint64_t give_out(struct dir *d, uint64_t now)
{
	while (d->head != d->tail) {
		struct slot *s = &d->ring[d->head % d->n];

		if (s->due > now)
			return s->due;
		put_out(d, s->data, s->len);
		d->head++;
	}
	return 0;
}

static int parse_end(char *arg, char **ns, char **ifname)
{
	char *c = strchr(arg, ':');

	if (!c || c == arg || !c[1])
		return -1;
	*c = 0;
	*ns = arg;
	*ifname = c + 1;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: delayline [-d MS_AB] [-D MS_BA] [-l PCT_AB] [-q SLOTS] [-r PRIO] "
		   "NS_A:IF_A NS_B:IF_B\n");
}

static int parse_ms(const char *arg, uint64_t *ns)
{
	double ms;

	if (parse_double(arg, &ms) || ms < 0 || ms > 60000)
		return -1;
	*ns = (uint64_t)(ms * NSEC_PER_MS + 0.5);
	return 0;
}

int main(int argc, char **argv)
{
	struct dir d[2] = { 0 };
	uint64_t slots = SLOTS_DEF, prio = 0;
	double loss = 0;
	char *ns[2], *ifname[2];
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd[2];
	int opt;

	while ((opt = getopt(argc, argv, "d:D:l:q:r:h")) != -1) {
		switch (opt) {
		case 'd':
		case 'D':
			if (parse_ms(optarg, &d[opt == 'D'].delay_ns)) {
				fprintf(stderr,
					"delayline: -%c: '%s' is not a delay in [0, 60000] ms\n",
					opt, optarg);
				return 2;
			}
			break;
		case 'l':
			if (parse_double(optarg, &loss) || loss < 0 || loss > 100) {
				fprintf(stderr, "delayline: -l: '%s' is not a percentage\n",
					optarg);
				return 2;
			}
			break;
		case 'q':
			if (parse_u64(optarg, &slots) || slots < 1 || slots > SLOTS_MAX) {
				fprintf(stderr,
					"delayline: -q: '%s' is not a slot count in [1, %u]\n",
					optarg, SLOTS_MAX);
				return 2;
			}
			break;
		case 'r':
			if (parse_u64(optarg, &prio) || prio < 1 || prio > 99) {
				fprintf(stderr,
					"delayline: -r: '%s' is not a priority in [1, 99]\n",
					optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind != 2 || parse_end(argv[optind], &ns[0], &ifname[0]) ||
	    parse_end(argv[optind + 1], &ns[1], &ifname[1])) {
		usage(stderr);
		return 2;
	}
	d[0].loss = (uint32_t)(loss / 100 * 4294967295.0);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* the default 50 us of slack would be the delay's jitter */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (prio) {
		struct sched_param sp = { .sched_priority = (int)prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			fprintf(stderr, "delayline: SCHED_FIFO %d: %s\n", (int)prio,
				strerror(errno));
			return 1;
		}
	}
	d[0].in = d[1].out = tap_open(ns[0], ifname[0]);
	if (d[0].in < 0)
		return 1;
	d[1].in = d[0].out = tap_open(ns[1], ifname[1]);
	if (d[1].in < 0 || ring_alloc(&d[0], (uint32_t)slots) || ring_alloc(&d[1], (uint32_t)slots))
		return 1;
	pfd[0] = (struct pollfd){ .fd = d[0].in, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = d[1].in, .events = POLLIN };

	while (!stop) {
		uint64_t now = now_ns(), next = 0, due;
		struct timespec ts, *tmo = NULL;

		for (int i = 0; i < 2; i++) {
			due = give_out(&d[i], now);
			if (due && (!next || due < next))
				next = due;
		}
		if (next) {
			ts.tv_sec = (time_t)((next - now) / 1000000000ULL);
			ts.tv_nsec = (long)((next - now) % 1000000000ULL);
			tmo = &ts;
		}
		if (ppoll(pfd, 2, tmo, NULL) < 0 && errno != EINTR) {
			perror("delayline: ppoll");
			return 1;
		}
		for (int i = 0; i < 2; i++) {
			/* a tap whose namespace went away: nothing more comes */
			if (pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) {
				fprintf(stderr, "delayline: tap %s is gone\n", ifname[i]);
				stop = 1;
			} else if (pfd[i].revents & POLLIN) {
				take_in(&d[i]);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		fprintf(stderr,
			"delayline: %s -> %s: %" PRIu64 " frames, %" PRIu64
			" lost at random, %" PRIu64 " dropped (ring full), %" PRIu64
			" not written, %" PRIu64 " still held\n",
			ifname[i], ifname[!i], d[i].frames, d[i].lost, d[i].full, d[i].write_err,
			d[i].tail - d[i].head);
	return 0;
}
