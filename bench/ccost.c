// SPDX-License-Identifier: GPL-2.0
/*
 * ccost: the CPU cost of congestion controls, as the bytes a CPU-bound bulk
 * transfer carries per CPU-second, several CCs alternating in short slices.
 *
 *   ccost [-t time] [-s slice] [-w warm] [-f flows] [-c cpu] [-b write]
 *         [-L netns] [-S netns] [-a addr] [-p port] [-r] CC[/K]...
 *
 * Each CC has a process of its own on the one core, sender and receiver of
 * all the CC's flows (epoll, non-blocking sockets), so the core does
 * nothing but move the bytes: each CC's flows (-f of them, a listener of
 * its own with TCP_CONGESTION set, so both ends run the CC and DCTCP-style
 * CCs negotiate ECN) get the core for one slice, then the next CC's; the
 * others sleep until the parent passes them the slice (a pipe).  A process
 * per CC keeps each within an unraisable RLIMIT_NOFILE (2 per flow).  Slices of a few hundred ms, rotating, put the
 * slow drift of a virtual machine's speed (steal time, the host's load) on
 * every CC alike: a ratio from slices of the same round resolves a few per
 * cent where whole runs one after the other spread by +-10 %.  The first
 * -w of a slice is not measured: the paused flows' queues drain in it.
 *
 * -r gives each CC's receiving ends a process of their own (the CC's CPU is
 * then both processes'), for more flows than one process's descriptors
 * allow: 10 000 flows need 20 000 in one, the hard limit on this project's
 * machines.  The two processes share the core, so a byte also pays for the
 * switches between them: compare -r runs with -r runs only.
 *
 * CC/K puts the CC's flows into bpf_tldct tasks of K flows each
 * (ccs_task_set(); without it, a bpf_tldct flow's task is its cgroup's).
 *
 * Listeners are made in netns -L, senders in -S (names under /run/netns),
 * so a veth pair between two namespaces can carry the flows.  The CC is
 * read back on both ends of every flow; a CC that did not take is an error.
 *
 * Output (stdout), one JSON object: the CCs and every slice as
 * [round, cc index, bytes, wall ns, CPU ns] (CPU: the CC's process's, which
 * includes the softirq work it triggers: the kernel accounts that time to
 * the task it interrupts on a kernel without IRQ time accounting).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "task_api.h"

/* bench/cpucost's three sets on a kernel with its own dctcp are 9 CCs */
#define MAX_CCS	       12
#define MAX_FLOWS      20000
#define CC_NAME_MAX    16
#define EVENTS	       512
#define RBUF_SZ	       (256 * 1024)
#define CONNECT_STEP   512	     /* connections made before accepting them */
#define WARMUP_NS      1000000000ull /* a CC's first, unmeasured slice, */
#define WARMUP_FLOW_NS 50000ull	     /* and more per flow */

/* What a receiving process (-r) tells its CC's process, in shared memory. */
struct rx_shared {
	_Atomic uint64_t bytes;
	_Atomic unsigned int accepted;
};

struct group {
	char cc[CC_NAME_MAX];
	unsigned int task_flows; /* CC/K: K flows per bpf_tldct task */
	int lfd;
	int *cfd; /* senders */
	int *sfd; /* receivers (accepted), NULL with -r */
	int ep;
	struct rx_shared *rx; /* -r: the receiving process's counts */
	clockid_t rx_clock;   /* and its CPU clock */
};

struct opts {
	uint64_t time_ns, slice_ns, warm_ns, wsize;
	unsigned int flows, port;
	int cpu;
	bool split;
	const char *lns, *sns, *addr;
};

static void die(const char *what)
{
	fprintf(stderr, "ccost: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!name)
		return;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

static void set_cc(int fd, const char *cc)
{
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		fprintf(stderr, "ccost: congestion control '%s': %s\n", cc, strerror(errno));
		exit(1);
	}
}

static void check_cc(int fd, const char *cc, const char *end)
{
	char got[CC_NAME_MAX] = "";
	socklen_t len = sizeof(got);

	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, got, &len))
		die("getsockopt TCP_CONGESTION");
	if (strncmp(got, cc, sizeof(got))) {
		fprintf(stderr, "ccost: %s runs '%.*s', not '%s'\n", end, (int)sizeof(got), got,
			cc);
		exit(1);
	}
}

static void nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
}

static struct sockaddr_in sin_of(const char *addr, unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "ccost: not an IPv4 address: '%s'\n", addr);
		exit(2);
	}
	return a;
}

static void make_listener(struct group *g, unsigned int port)
{
	struct sockaddr_in a = sin_of("0.0.0.0", port);
	int one = 1;

	g->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (g->lfd < 0 || setsockopt(g->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("listener");
	set_cc(g->lfd, g->cc); /* accepted sockets inherit it, ECN as well */
	if (bind(g->lfd, (struct sockaddr *)&a, sizeof(a)) || listen(g->lfd, 4096))
		die("bind/listen");
}

static void accept_n(struct group *g, unsigned int *done, unsigned int upto)
{
	struct pollfd p = { .fd = g->lfd, .events = POLLIN };

	while (*done < upto) {
		int fd;

		if (poll(&p, 1, 5000) != 1) {
			fprintf(stderr, "ccost: %s: %u of %u connections accepted in 5 s\n", g->cc,
				*done, upto);
			exit(1);
		}
		fd = accept4(g->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			die("accept");
		g->sfd[(*done)++] = fd;
	}
}

/* -r: until the receiving process has accepted @upto connections */
static void wait_accepted(struct group *g, unsigned int upto)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + 5000000000ull;

	while (atomic_load_explicit(&g->rx->accepted, memory_order_relaxed) < upto) {
		if (clock_ns(CLOCK_MONOTONIC) > end) {
			fprintf(stderr, "ccost: %s: %u of %u connections accepted in 5 s\n", g->cc,
				atomic_load(&g->rx->accepted), upto);
			exit(1);
		}
		usleep(1000);
	}
}

static void accept_upto(struct group *g, unsigned int *done, unsigned int upto)
{
	if (g->rx)
		wait_accepted(g, upto);
	else
		accept_n(g, done, upto);
}

static void connect_flows(struct group *g, const struct opts *o, unsigned int port)
{
	struct sockaddr_in a = sin_of(o->addr, port);
	unsigned int i, accepted = 0;

	g->cfd = calloc(o->flows, sizeof(int));
	g->sfd = g->rx ? NULL : calloc(o->flows, sizeof(int));
	if (!g->cfd || (!g->rx && !g->sfd))
		die("calloc");
	for (i = 0; i < o->flows; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			die("socket");
		set_cc(fd, g->cc);
		if (g->task_flows) {
			/* ids unique to this run and CC, never 0 */
			uint64_t task = ((uint64_t)getpid() << 32) | ((uint64_t)port << 16) |
					(i / g->task_flows + 1);
			int err = ccs_task_set(fd, task);

			if (err) {
				errno = -err;
				die("ccs_task_set (is bpf_tldct attached?)");
			}
		}
		nonblock(fd);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS)
			die("connect");
		g->cfd[i] = fd;
		if ((i + 1) % CONNECT_STEP == 0)
			accept_upto(g, &accepted, i + 1);
	}
	accept_upto(g, &accepted, o->flows);
}

/* Check both ends, then one epoll set per CC: the senders for writing,
 * the receivers for reading (data.u64: index, bit 32 for a receiver). */
static void arm_group(struct group *g, unsigned int flows)
{
	unsigned int i;

	g->ep = epoll_create1(EPOLL_CLOEXEC);
	if (g->ep < 0)
		die("epoll_create1");
	for (i = 0; i < flows; i++) {
		struct epoll_event out = { .events = EPOLLOUT, .data.u64 = i };
		struct epoll_event in = { .events = EPOLLIN, .data.u64 = (1ull << 32) | i };
		struct pollfd p = { .fd = g->cfd[i], .events = POLLOUT };
		int err = 0;
		socklen_t len = sizeof(err);

		if (poll(&p, 1, 5000) != 1 ||
		    getsockopt(g->cfd[i], SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			errno = err ?: ETIMEDOUT;
			die("connect");
		}
		check_cc(g->cfd[i], g->cc, "a sender");
		if (epoll_ctl(g->ep, EPOLL_CTL_ADD, g->cfd[i], &out))
			die("epoll_ctl");
		if (!g->sfd) /* -r: the receiving process has them */
			continue;
		check_cc(g->sfd[i], g->cc, "a receiver");
		if (epoll_ctl(g->ep, EPOLL_CTL_ADD, g->sfd[i], &in))
			die("epoll_ctl");
	}
}

/* The CPU time of @g's flows: its process's, and its receiving process's */
static uint64_t group_cpu(const struct group *g)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID) + (g->rx ? clock_ns(g->rx_clock) : 0);
}

/* One slice: move @g's bytes until @end; returns the bytes received
 * after @from (the end of the warm-up). */
static uint64_t run_slice(struct group *g, const char *wbuf, char *rbuf, uint64_t wsize,
			  uint64_t from, uint64_t end, uint64_t *cpu0)
{
	struct epoll_event ev[EVENTS];
	uint64_t bytes = 0, rx0 = 0;
	bool warm = true;

	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		int n, i;

		if (warm && now >= from) {
			warm = false;
			bytes = 0;
			*cpu0 = group_cpu(g);
			if (g->rx)
				rx0 = atomic_load(&g->rx->bytes);
		}
		if (now >= end)
			return g->rx ? atomic_load(&g->rx->bytes) - rx0 : bytes;
		n = epoll_wait(g->ep, ev, EVENTS, 1);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			unsigned int k = (unsigned int)ev[i].data.u64;
			ssize_t r;

			if (!(ev[i].data.u64 >> 32)) {
				r = send(g->cfd[k], wbuf, wsize, MSG_DONTWAIT | MSG_NOSIGNAL);
				if (r < 0 && errno != EAGAIN)
					die("send");
				continue;
			}
			r = recv(g->sfd[k], rbuf, RBUF_SZ, MSG_DONTWAIT);
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				fprintf(stderr, "ccost: %s: a flow closed\n", g->cc);
				exit(1);
			}
			if (r > 0)
				bytes += (uint64_t)r;
		}
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ccost [-t time] [-s slice] [-w warm] [-f flows] [-c cpu] [-b write]\n"
		"             [-L netns] [-S netns] [-a addr] [-p port] [-r] CC[/K]...\n"
		"  -t  measuring time in all (default 60s)      -s  slice (default 250ms)\n"
		"  -w  unmeasured start of a slice (25ms)       -f  flows per CC (1)\n"
		"  -c  CPU to run on (1)                        -b  bytes per send() (64k)\n"
		"  -L  netns of the listeners, -S of the senders (default: this one)\n"
		"  -a  address the senders connect to (127.0.0.1), -p first port (5600)\n"
		"  -r  the receiving ends in a process of their own (CPU: both processes')\n"
		"  CC/K: the CC's flows in bpf_tldct tasks of K flows\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	uint64_t v;
	int c;

	*o = (struct opts){ .time_ns = 60000000000ull,
			    .slice_ns = 250000000ull,
			    .warm_ns = 25000000ull,
			    .wsize = 65536,
			    .flows = 1,
			    .port = 5600,
			    .cpu = 1,
			    .addr = "127.0.0.1" };
	while ((c = getopt(argc, argv, "t:s:w:f:c:b:L:S:a:p:rh")) != -1) {
		switch (c) {
		case 't':
		case 's':
		case 'w':
			if (parse_time(optarg, &v) || !v)
				goto bad;
			*(c == 't' ? &o->time_ns : c == 's' ? &o->slice_ns : &o->warm_ns) = v;
			break;
		case 'b':
			if (parse_size(optarg, &o->wsize) || !o->wsize || o->wsize > RBUF_SZ)
				goto bad;
			break;
		case 'f':
		case 'c':
		case 'p':
			if (parse_u64(optarg, &v) || v > (c == 'f' ? MAX_FLOWS : 65535) ||
			    (c == 'f' && !v))
				goto bad;
			if (c == 'f')
				o->flows = (unsigned int)v;
			else if (c == 'c')
				o->cpu = (int)v;
			else
				o->port = (unsigned int)v;
			break;
		case 'L': o->lns = optarg; break;
		case 'S': o->sns = optarg; break;
		case 'a': o->addr = optarg; break;
		case 'r': o->split = true; break;
		default: usage();
		}
	}
	if (o->warm_ns >= o->slice_ns) {
		fprintf(stderr, "ccost: the warm-up must be shorter than the slice\n");
		exit(2);
	}
	return;
bad:
	fprintf(stderr, "ccost: bad value for -%c: '%s'\n", c, optarg);
	exit(2);
}

/* What a CC's process sends back for each slice. */
struct slice_rec {
	uint64_t bytes, wall, cpu;
};

static void raise_nofile(unsigned int flows, bool split)
{
	struct rlimit nofile;
	/* two sockets per flow (one with -r), a listener, epoll */
	rlim_t need = (split ? 1ull : 2ull) * flows + 16;

	if (getrlimit(RLIMIT_NOFILE, &nofile))
		die("getrlimit");
	if (nofile.rlim_cur >= need)
		return;
	nofile.rlim_cur = need;
	if (nofile.rlim_max < need)
		nofile.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &nofile)) {
		fprintf(stderr, "ccost: %u flows need %llu descriptors: %s (ulimit -n)\n", flows,
			(unsigned long long)need, strerror(errno));
		exit(1);
	}
}

/* -r: the receiving process of @g, reading every flow until its CC's
 * process ends; it counts what it accepted and read in @g->rx. */
static void rx_process(struct group *g, int ready)
{
	static char rbuf[RBUF_SZ];
	struct epoll_event ev[EVENTS], lev = { .events = EPOLLIN, .data.fd = g->lfd };
	char c = 'r';

	nonblock(g->lfd); /* accepted until EAGAIN */
	g->ep = epoll_create1(EPOLL_CLOEXEC);
	if (g->ep < 0 || epoll_ctl(g->ep, EPOLL_CTL_ADD, g->lfd, &lev))
		die("epoll");
	if (write(ready, &c, 1) != 1)
		exit(1);
	for (;;) {
		int n = epoll_wait(g->ep, ev, EVENTS, -1), i;

		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			struct epoll_event in = { .events = EPOLLIN };
			ssize_t r;
			int fd;

			if (ev[i].data.fd != g->lfd) {
				r = recv(ev[i].data.fd, rbuf, RBUF_SZ, MSG_DONTWAIT);
				if (r == 0 || (r < 0 && errno != EAGAIN))
					exit(0); /* its CC's process ended */
				if (r > 0)
					atomic_fetch_add_explicit(&g->rx->bytes, (uint64_t)r,
								  memory_order_relaxed);
				continue;
			}
			while ((fd = accept4(g->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >=
			       0) {
				check_cc(fd, g->cc, "a receiver");
				in.data.fd = fd;
				if (epoll_ctl(g->ep, EPOLL_CTL_ADD, fd, &in))
					die("epoll_ctl");
				atomic_fetch_add(&g->rx->accepted, 1);
			}
			if (errno != EAGAIN)
				die("accept");
		}
	}
}

/* -r: fork @g's receiving process (listening here), dying with ours */
static void start_rx(struct group *g, unsigned int port)
{
	int ready[2];
	pid_t pid;
	char c;

	g->rx = mmap(NULL, sizeof(*g->rx), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		     0);
	if (g->rx == MAP_FAILED || pipe2(ready, O_CLOEXEC))
		die("mmap/pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			exit(1);
		close(ready[0]);
		make_listener(g, port);
		rx_process(g, ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		fprintf(stderr, "ccost: %s's receiving process did not start\n", g->cc);
		exit(1);
	}
	close(ready[0]);
	if (clock_getcpuclockid(pid, &g->rx_clock))
		die("clock_getcpuclockid");
}

/* A CC's process: its flows, then a slice each time @cmd gives one ('s'),
 * until it says stop ('q') or closes. */
static void cc_process(struct group *g, const struct opts *o, unsigned int port, int cmd, int res)
{
	static char wbuf[RBUF_SZ], rbuf[RBUF_SZ];
	struct slice_rec rec;
	char c = 'r';

	raise_nofile(o->flows, o->split);
	enter_netns(o->lns);
	if (o->split)
		start_rx(g, port);
	else
		make_listener(g, port);
	enter_netns(o->sns);
	connect_flows(g, o, port);
	arm_group(g, o->flows);
	memset(wbuf, 'c', sizeof(wbuf));
	if (write(res, &c, 1) != 1) /* ready */
		exit(1);
	/* 's': a slice; 'w': the first, longer and not measured, that brings
	 * every flow to a steady state (with thousands, their first sends
	 * alone fill hundreds of ms) */
	while (read(cmd, &c, 1) == 1 && (c == 's' || c == 'w')) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC), cpu0 = 0;
		uint64_t warm = c == 'w' ? WARMUP_NS + o->flows * WARMUP_FLOW_NS : o->warm_ns;

		rec.bytes = run_slice(g, wbuf, rbuf, o->wsize, t0 + warm,
				      t0 + (c == 'w' ? warm : o->slice_ns), &cpu0);
		rec.cpu = group_cpu(g) - cpu0;
		rec.wall = clock_ns(CLOCK_MONOTONIC) - (t0 + o->warm_ns);
		if (write(res, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
			exit(1);
	}
	exit(0);
}

struct child {
	pid_t pid;
	int cmd, res; /* the parent's ends */
	uint64_t bytes;
};

/* The process of CC @i: after fork() it closes the parent's ends of the
 * earlier CCs' pipes (so each child sees its own end close), and dies with
 * the parent. */
static void start_child(struct child *chs, unsigned int i, struct group *g, const struct opts *o,
			unsigned int port)
{
	struct child *ch = &chs[i];
	int cmd[2], res[2];
	unsigned int j;
	char c;

	if (pipe2(cmd, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		die("pipe");
	fflush(stdout);
	ch->pid = fork();
	if (ch->pid < 0)
		die("fork");
	if (!ch->pid) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
			exit(1);
		for (j = 0; j < i; j++) {
			close(chs[j].cmd);
			close(chs[j].res);
		}
		close(cmd[1]);
		close(res[0]);
		cc_process(g, o, port, cmd[0], res[1]);
	}
	close(cmd[0]);
	close(res[1]);
	ch->cmd = cmd[1];
	ch->res = res[0];
	if (read(ch->res, &c, 1) != 1) { /* it said why on stderr */
		fprintf(stderr, "ccost: %s could not start\n", g->cc);
		exit(1);
	}
}

static void stop_children(struct child *ch, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ch[i].pid > 0) {
			close(ch[i].cmd); /* EOF: it exits */
			waitpid(ch[i].pid, NULL, 0);
			ch[i].pid = 0;
		}
}

int main(int argc, char **argv)
{
	struct group g[MAX_CCS] = { 0 };
	struct child ch[MAX_CCS] = { 0 };
	uint64_t start, round;
	unsigned int n, i;
	struct opts o;
	cpu_set_t cpus;

	parse_args(argc, argv, &o);
	n = (unsigned int)(argc - optind);
	if (n > MAX_CCS) {
		fprintf(stderr, "ccost: %u CCs, at most %d in one run\n", n, MAX_CCS);
		return 2;
	}
	if (!n || o.port + n > 65536)
		usage();
	for (i = 0; i < n; i++) {
		const char *arg = argv[optind + i], *slash = strchr(arg, '/');
		size_t len = slash ? (size_t)(slash - arg) : strlen(arg);
		uint64_t k = 0;

		if (!len || len >= CC_NAME_MAX ||
		    (slash && (parse_u64(slash + 1, &k) || !k || k > MAX_FLOWS))) {
			fprintf(stderr, "ccost: not CC or CC/K: '%s'\n", arg);
			return 2;
		}
		memcpy(g[i].cc, arg, len);
		g[i].task_flows = (unsigned int)k;
	}
	CPU_ZERO(&cpus);
	CPU_SET(o.cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) /* the children inherit it */
		die("sched_setaffinity");
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < n; i++) {
		start_child(ch, i, &g[i], &o, o.port + i);
	}

	printf("{\"tool\":\"ccost\",\"flows\":%u,\"slice_ns\":%" PRIu64 ",\"warm_ns\":%" PRIu64
	       ",\"write\":%" PRIu64 ",\"ccs\":[",
	       o.flows, o.slice_ns, o.warm_ns, o.wsize);
	for (i = 0; i < n; i++)
		printf("%s\"%s\"", i ? "," : "", g[i].cc);
	printf("],\"task_flows\":[");
	for (i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", g[i].task_flows);
	printf("],\"slices\":[");
	for (i = 0; i < n; i++) {
		struct slice_rec rec;
		char c = 'w';

		if (write(ch[i].cmd, &c, 1) != 1 ||
		    read(ch[i].res, &rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
			fprintf(stderr, "ccost: %s's process ended\n", g[i].cc);
			stop_children(ch, n);
			return 1;
		}
	}
	start = clock_ns(CLOCK_MONOTONIC);
	for (round = 0; clock_ns(CLOCK_MONOTONIC) - start < o.time_ns; round++) {
		for (i = 0; i < n; i++) {
			/* rotated, so no CC always follows the same one */
			unsigned int k = (i + (unsigned int)round) % n;
			struct slice_rec rec;
			char c = 's';

			if (write(ch[k].cmd, &c, 1) != 1 ||
			    read(ch[k].res, &rec, sizeof(rec)) != (ssize_t)sizeof(rec)) {
				fprintf(stderr, "ccost: %s's process ended\n", g[k].cc);
				stop_children(ch, n);
				return 1;
			}
			ch[k].bytes += rec.bytes;
			printf("%s[%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]",
			       round || i ? "," : "", round, k, rec.bytes, rec.wall, rec.cpu);
		}
	}
	printf("],\"rounds\":%" PRIu64 "}\n", round);
	stop_children(ch, n);
	for (i = 0; i < n; i++)
		if (!ch[i].bytes) {
			fprintf(stderr, "ccost: %s carried nothing\n", g[i].cc);
			return 1;
		}
	return 0;
}
