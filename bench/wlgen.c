// SPDX-License-Identifier: GPL-2.0
/*
 * wlgen: flow-completion-time workloads for the test network.
 *
 *   wlgen server [-B addr] [-p port]
 *   wlgen client -c addr[,addr...] [-p port] (--cdf FILE | --size BYTES)
 *                --load L --rate RATE (--flows N | --duration S)
 *                [-C cc[,cc...]] [--seed N] [--scale F] [--mptcp]
 *                [--task-flows N --task-window MS] [--task-mix NxBYTES,...]
 *                [--task-ids BASE] [--task-sizes] [--max-active N] [--drain S]
 *                [--rtt MS]
 *                [--response BYTES [--rounds N] [--duplex]]
 *
 * The client is the sender (the CC is set before connect(), so ECN can be
 * negotiated): flows arrive as a Poisson process whose rate makes the
 * offered load L of a bottleneck of RATE, sizes drawn from an empirical CDF.
 * A flow sends a 16-byte header (size, flow id, task id; with
 * request/response 8 more: response size, flags) and its bytes, the
 * transfer pattern (pattern.h) from a phase its flow id sets; the server
 * checks every byte and answers one once it has them all, 'k' when they
 * were the pattern and 'x' when not, and the flow's completion time is
 * from connect() to that byte.
 *
 * Request/response (--response): the server answers each request with
 * BYTES of a pattern of the flow's own before that byte, and the client
 * checks them; --rounds N makes a flow N requests of its size, one after
 * the other's answer, on one connection; --duplex lets the server start
 * its response once a request's header is in, so that data goes both ways
 * at once.  The load counts the requests' bytes (the responses go the
 * other way).  With --rtt (the path's base RTT), each flow also records
 * its ideal completion time: the handshake's RTT, then per round an RTT
 * and its bytes at --rate (the request's and the response's, or the
 * longer of the two with --duplex).  With --task-flows, each arrival is a
 * task of N flows whose starts spread uniformly over --task-window ms; the
 * task completes with its last flow.  --task-mix draws each task's kind
 * uniformly from a list: N flows of BYTES each (times --scale); the task
 * records its kind (0, 1, ...).  --task-sizes states each flow's task size
 * (its flows' bytes) to bpf_tldct (ccs_task_size_set(), its tunable
 * beta_left).  --task-ids puts every flow into bpf_tldct
 * task BASE + its task number (ccs_task_set(), before connect()).
 *
 * Output, one JSON object per line: every flow and task as it completes,
 * the flows still open when the client stops ("unfinished": true, the time
 * so far as fct_us), then a summary with the offered and achieved load.  Memory is bounded:
 * at most --max-active flows are open at once (an arrival that finds the
 * table full is counted as skipped, and the summary says so).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/epoll.h>
#include <sys/resource.h>

#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "task_api.h"
#include "util.h"

#include "cdf.h"
#include "pattern.h"

#define HDR_LEN	     16
/* the size's top bit: HDR_EXT_LEN more bytes follow (response, flags) */
#define HDR_EXT	     (1ull << 63)
#define HDR_EXT_LEN  8
/* the flags */
#define HDR_DUPLEX   1u /* respond once the header is in, not the request */
#define HDR_MORE     2u /* another request follows on the connection */
#define MAX_RESPONSE (1ull << 30)
#define CHUNK	     (64 * 1024)
#define MAX_DSTS     64
#define MAX_CCS	     16
#define MAX_KINDS    16

/* pattern_fill()'s table: any CHUNK bytes of the pattern */
static uint8_t pat[PATTERN_PERIOD + CHUNK];
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	fprintf(stderr, "wlgen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r)) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int set_nonblock(int fd)
{
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* ---- server ---- */

struct sconn {
	int fd;
	uint32_t hdr_got, hdr_len; /* hdr_len: HDR_LEN, with HDR_EXT more */
	uint8_t hdr[HDR_LEN + HDR_EXT_LEN];
	uint64_t left, off;	  /* bytes still to come, and come (after the header) */
	uint64_t resp, resp_sent; /* response bytes asked, and sent */
	uint32_t phase, rphase;	  /* where the request's and the response's
				   * patterns start (flow_phase()) */
	uint32_t flags;		  /* HDR_* */
	uint32_t events;	  /* what epoll watches for */
	bool bad;		  /* a byte was not the pattern's */
};

/* Flow @id's bytes start at this offset of the pattern: two flows' data
 * differ, so one flow's bytes in another's stream show. */
static uint32_t flow_phase(uint32_t id)
{
	return (uint32_t)(((uint64_t)id * 4099) % PATTERN_PERIOD);
}

/* A flow's response pattern starts elsewhere than its request's. */
static uint32_t response_phase(uint32_t id)
{
	return flow_phase(~id);
}

/* The pattern's @n bytes from @off of a flow of phase @phase (n <= CHUNK). */
static const uint8_t *pattern_at(uint32_t phase, uint64_t off)
{
	return pat + (phase + off) % PATTERN_PERIOD;
}

/* The listener: MPTCP when the kernel has it (it serves plain TCP too);
 * -1 when the address does not resolve. */
static int listen_on(const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai;
	int lfd, one = 1, err;

	err = getaddrinfo(addr, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "wlgen: %s: %s\n", addr ? addr : "*", gai_strerror(err));
		return -1;
	}
	lfd = socket(ai->ai_family, SOCK_STREAM, IPPROTO_MPTCP);
	if (lfd < 0)
		lfd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, 4096))
		die("bind/listen");
	freeaddrinfo(ai);
	set_nonblock(lfd);
	return lfd;
}

/* Every connection waiting on the listener, each watched for input. */
static void accept_all(int ep, int lfd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sconn *c;
	int fd, one = 1;

	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		/* a response's last bytes go without waiting for an ACK of its
		 * first, as RPC servers send them */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->events = EPOLLIN;
		c->hdr_len = HDR_LEN;
		set_nonblock(fd);
		ev.data.ptr = c;
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	}
}

/* The header and every byte it announced are in. */
static bool sconn_complete(const struct sconn *c)
{
	return c->hdr_got == c->hdr_len && !c->left;
}

/* The header, then the flow's bytes, while the socket has them; the last
 * read()'s result (errno with it). */
static ssize_t sconn_read(struct sconn *c)
{
	static uint8_t buf[CHUNK];
	ssize_t r = -1;

	while (!sconn_complete(c)) {
		bool in_hdr = c->hdr_got < c->hdr_len;
		size_t want = in_hdr ? c->hdr_len - c->hdr_got :
				       (c->left < CHUNK ? c->left : CHUNK);

		r = read(c->fd, in_hdr ? c->hdr + c->hdr_got : buf, want);
		if (r <= 0)
			break;
		if (in_hdr) {
			uint64_t be;
			uint32_t id, resp, flags;

			c->hdr_got += (uint32_t)r;
			if (c->hdr_got == HDR_LEN) {
				memcpy(&be, c->hdr, 8);
				memcpy(&id, c->hdr + 8, 4);
				c->left = be64toh(be) & ~HDR_EXT;
				c->phase = flow_phase(ntohl(id));
				c->rphase = response_phase(ntohl(id));
				if (be64toh(be) & HDR_EXT)
					c->hdr_len = HDR_LEN + HDR_EXT_LEN;
			}
			if (c->hdr_got == HDR_LEN + HDR_EXT_LEN) {
				memcpy(&resp, c->hdr + 16, 4);
				memcpy(&flags, c->hdr + 20, 4);
				c->resp = ntohl(resp) < MAX_RESPONSE ? ntohl(resp) : MAX_RESPONSE;
				c->flags = ntohl(flags);
			}
		} else {
			c->bad |= memcmp(buf, pattern_at(c->phase, c->off), (size_t)r) != 0;
			c->off += (uint64_t)r;
			c->left -= (uint64_t)r;
		}
	}
	return r;
}

/* The response's bytes (with HDR_DUPLEX from the header on, else once the
 * request is in), then, the request in, its one byte ('k': each was the
 * pattern's, 'x': not), while the socket takes them: 1 once that byte is
 * out, 0 while waiting for the request or for room, -1 on an error. */
static int sconn_write(struct sconn *c)
{
	ssize_t w;

	if (c->hdr_got < c->hdr_len || (!(c->flags & HDR_DUPLEX) && !sconn_complete(c)))
		return 0;
	while (c->resp_sent < c->resp) {
		uint64_t n = c->resp - c->resp_sent;

		w = write(c->fd, pattern_at(c->rphase, c->resp_sent), n < CHUNK ? n : CHUNK);
		if (w < 0)
			return errno == EAGAIN ? 0 : -1;
		c->resp_sent += (uint64_t)w;
	}
	if (!sconn_complete(c))
		return 0;
	w = write(c->fd, c->bad ? "x" : "k", 1);
	if (w < 0)
		return errno == EAGAIN ? 0 : -1;
	return 1;
}

/* Ready for the connection's next request. */
static void sconn_next(struct sconn *c)
{
	int fd = c->fd;
	uint32_t events = c->events;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->events = events;
	c->hdr_len = HDR_LEN;
}

/* Input or room on a connection: requests in, responses out; after the
 * last request's answer, at its end or on an error, it goes. */
static void sconn_event(int ep, struct sconn *c)
{
	struct epoll_event ev = { .data.ptr = c };

	for (;;) {
		ssize_t r = sconn_read(c);
		int w;

		if (!sconn_complete(c) && (r == 0 || (r < 0 && errno != EAGAIN)))
			break;
		w = sconn_write(c);
		if (w < 0 || (w > 0 && !(c->flags & HDR_MORE)))
			break;
		if (w > 0) {
			sconn_next(c);
			continue;
		}
		/* input while the request is not all in (a complete one
		 * leaves anything more to wait: it would wake this again and
		 * again); room while response bytes are owed and allowed, or
		 * the request's answer */
		ev.events = sconn_complete(c) ? 0 : EPOLLIN;
		if (c->hdr_got == c->hdr_len &&
		    ((c->resp_sent < c->resp && (c->flags & HDR_DUPLEX || sconn_complete(c))) ||
		     sconn_complete(c)))
			ev.events |= EPOLLOUT;
		if (ev.events != c->events) {
			c->events = ev.events;
			epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
		}
		return;
	}
	close(c->fd);
	free(c);
}

static int server(const char *addr, const char *port)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL }, evs[256];
	int lfd = listen_on(addr, port), ep, n, i;

	if (lfd < 0)
		return 1;
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	while (!stop) {
		n = epoll_wait(ep, evs, 256, 500);
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr)
				sconn_event(ep, evs[i].data.ptr);
			else
				accept_all(ep, lfd);
		}
	}
	return 0;
}

/* ---- client ---- */

struct opts {
	const char *dsts[MAX_DSTS];
	int n_dsts;
	const char *port;
	const char *ccs[MAX_CCS];
	int n_ccs;
	struct cdf cdf;
	uint64_t fixed_size;
	double load, rate_bps, duration, scale, drain;
	uint64_t n_arrivals, seed;
	int mptcp, task_flows, max_active;
	double task_window_ms;
	struct {
		int flows;
		uint64_t size;
	} kinds[MAX_KINDS]; /* --task-mix */
	int n_kinds;
	uint64_t task_id_base; /* --task-ids; 0: none */
	int task_sizes;	       /* --task-sizes */
	double rtt_ms;	       /* --rtt; 0: no ideal FCT */
	uint64_t response;     /* --response: bytes a request's answer carries */
	int rounds;	       /* --rounds: requests a flow makes */
	int duplex;	       /* --duplex */
};

struct flow {
	int fd; /* -1: free slot */
	uint32_t id, task;
	uint64_t size, sent; /* the round's request; sent counts the header too */
	uint64_t got;	     /* the round's answer: response bytes and the status */
	uint64_t start_us;
	int dst, cc, round;
	bool bad; /* an answer was 'x', or a response byte not the pattern's */
};

struct task {
	uint32_t id, kind;
	uint32_t left; /* flows not yet completed (or failed) */
	uint32_t flows, failed;
	uint64_t bytes, start_us, end_us;
	uint64_t total; /* its flows' bytes, all rounds: --task-sizes states it */
};

struct pending { /* a flow waiting for its start time */
	uint64_t at_us, size;
	uint32_t task_slot;
};

static struct sockaddr_storage dst_addr[MAX_DSTS];
static socklen_t dst_len[MAX_DSTS];

static int resolve_dsts(struct opts *o)
{
	int i;

	for (i = 0; i < o->n_dsts; i++) {
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
		int err = getaddrinfo(o->dsts[i], o->port, &hints, &ai);

		if (err) {
			fprintf(stderr, "wlgen: %s: %s\n", o->dsts[i], gai_strerror(err));
			return -1;
		}
		memcpy(&dst_addr[i], ai->ai_addr, ai->ai_addrlen);
		dst_len[i] = ai->ai_addrlen;
		freeaddrinfo(ai);
	}
	return 0;
}

static void split(char *s, const char **out, int *n, int max)
{
	char *save = NULL, *t;

	for (t = strtok_r(s, ",", &save); t && *n < max; t = strtok_r(NULL, ",", &save))
		out[(*n)++] = t;
}

/* --task-mix N1xS1,N2xS2,...: task kinds of N flows of S bytes (S a size
 * as --size takes). */
static int parse_kinds(struct opts *o, const char *spec)
{
	char buf[1024], *item = buf, *next, *x;
	uint64_t n, sz;

	if (strlen(spec) >= sizeof(buf))
		return -1;
	strcpy(buf, spec);
	o->n_kinds = 0;
	for (; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		x = strchr(item, 'x');
		if (!x || o->n_kinds == MAX_KINDS)
			return -1;
		*x = '\0';
		if (parse_u64(item, &n) || n < 1 || n > 10000 || parse_size(x + 1, &sz) || !sz)
			return -1;
		o->kinds[o->n_kinds].flows = (int)n;
		o->kinds[o->n_kinds++].size = sz;
	}
	return 0;
}

static int max_task_flows(const struct opts *o)
{
	int i, m = o->task_flows;

	for (i = 0; i < o->n_kinds; i++)
		if (o->kinds[i].flows > m)
			m = o->kinds[i].flows;
	return m;
}

/* The mean bytes of a task (all of its flows' requests), for the arrival
 * rate that makes the load. */
static double mean_task_bytes(const struct opts *o)
{
	double sum = 0;
	int i;

	if (!o->n_kinds)
		return (o->fixed_size ? (double)o->fixed_size : cdf_mean(&o->cdf) * o->scale) *
		       o->task_flows * o->rounds;
	for (i = 0; i < o->n_kinds; i++)
		sum += (double)o->kinds[i].flows * (double)o->kinds[i].size * o->scale;
	return sum / o->n_kinds * o->rounds;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wlgen server [-B addr] [-p port]\n"
		"       wlgen client -c addr[,addr...] [-p port] (--cdf FILE | --size BYTES)\n"
		"                    --load L --rate RATE (--flows N | --duration S)\n"
		"                    [-C cc[,cc...]] [--seed N] [--scale F] [--mptcp]\n"
		"                    [--task-flows N --task-window MS] [--task-mix NxBYTES,...]\n"
		"                    [--task-ids BASE] [--task-sizes] [--max-active N] [--drain S]\n"
		"                    [--rtt MS]\n"
		"                    [--response BYTES [--rounds N] [--duplex]]\n"
		"RATE in bit/s with a unit (100mbit).  Flows and tasks as JSON lines, then a summary.\n");
}

static void emit_task(const struct task *t, uint64_t t0)
{
	printf("{\"type\":\"task\",\"id\":%u,\"kind\":%u,\"flows\":%u,\"failed\":%u,\"bytes\":%" PRIu64
	       ",\"start_us\":%" PRIu64 ",\"tct_us\":%" PRIu64 "}\n",
	       t->id, t->kind, t->flows, t->failed, t->bytes, t->start_us - t0,
	       t->end_us - t->start_us);
}

/* A client run: the flow and task tables, the flows waiting for their
 * start, and the counts of the summary. */
struct client {
	struct opts *o;
	int ep;
	struct flow *flows;
	struct task *tasks;
	struct pending *pend;
	int n_pend, max_pending, active;
	struct rng rng;
	double task_mean, gap_us;
	uint64_t t0, next_arrival, end_arrivals, arrivals, skipped;
	uint64_t completed, failed, corrupt, unfinished, bytes_done, flow_ids, last_done;
};

static bool more_arrivals(const struct client *c, uint64_t now)
{
	return c->o->n_arrivals ? c->arrivals < c->o->n_arrivals : now < c->end_arrivals;
}

/* One flow of task @t: the kind's size, the fixed size or the CDF's,
 * scaled, at least 1 byte. */
static uint64_t flow_size(struct client *c, const struct task *t)
{
	struct opts *o = c->o;
	double sz;

	if (o->n_kinds)
		sz = (double)o->kinds[t->kind].size * o->scale;
	else if (o->fixed_size)
		return o->fixed_size;
	else
		sz = (double)cdf_sample(&o->cdf, &c->rng) * o->scale;
	return sz >= 1 ? (uint64_t)(sz + 0.5) : 1;
}

/* A task arrives: a free task slot, and its flows scheduled over the
 * task window; counted as skipped when every slot is taken. */
static void task_arrive(struct client *c)
{
	struct opts *o = c->o;
	struct task *t = NULL;
	int i, nf = o->task_flows;

	c->arrivals++;
	for (i = 0; i < o->max_active && !t; i++)
		if (!c->tasks[i].left)
			t = &c->tasks[i];
	if (!t) {
		c->skipped++;
		return;
	}
	memset(t, 0, sizeof(*t));
	t->id = (uint32_t)c->arrivals;
	t->start_us = c->next_arrival;
	if (o->n_kinds) {
		t->kind = (uint32_t)(rng_next(&c->rng) % (uint64_t)o->n_kinds);
		nf = o->kinds[t->kind].flows;
	}
	t->left = t->flows = (uint32_t)nf;
	for (i = 0; i < nf; i++) {
		struct pending *p = &c->pend[c->n_pend++];
		double off = nf > 1 ? rng_uniform(&c->rng) * o->task_window_ms * 1000 : 0;

		p->at_us = c->next_arrival + (uint64_t)off;
		p->size = flow_size(c, t);
		p->task_slot = (uint32_t)(t - c->tasks);
		t->total += p->size * (uint64_t)o->rounds;
	}
}

/* The task's flow ended (or never started): the task ends with its last. */
static void task_flow_done(struct client *c, struct task *t, uint64_t bytes, bool ok, uint64_t end)
{
	t->bytes += bytes;
	t->failed += !ok;
	if (!--t->left) {
		t->end_us = end;
		emit_task(t, c->t0);
	}
}

/* Open, configure and connect flow @f of the pending flow @p. */
static void flow_open(struct client *c, struct flow *f, const struct pending *p, uint64_t now)
{
	struct opts *o = c->o;
	struct epoll_event ev = { .events = EPOLLOUT | (o->duplex ? EPOLLIN : 0), .data.ptr = f };

	f->id = (uint32_t)++c->flow_ids;
	f->task = c->tasks[p->task_slot].id;
	f->size = p->size;
	f->sent = f->got = 0;
	f->round = 0;
	f->bad = false;
	f->start_us = now;
	f->dst = (int)(rng_next(&c->rng) % (uint64_t)o->n_dsts);
	f->cc = o->n_ccs ? (int)(f->id % (uint32_t)o->n_ccs) : -1;
	f->fd = socket(dst_addr[f->dst].ss_family, SOCK_STREAM, o->mptcp ? IPPROTO_MPTCP : 0);
	if (f->fd < 0)
		die("socket");
	if (f->cc >= 0 && setsockopt(f->fd, IPPROTO_TCP, TCP_CONGESTION, o->ccs[f->cc],
				     (socklen_t)strlen(o->ccs[f->cc]))) {
		fprintf(stderr, "wlgen: congestion control '%s': %s\n", o->ccs[f->cc],
			strerror(errno));
		exit(1);
	}
	if (o->task_id_base) {
		int err = ccs_task_set(f->fd, o->task_id_base + f->task);

		if (err) {
			fprintf(stderr, "wlgen: task id: %s (is bpf_tldct attached?)\n",
				strerror(-err));
			exit(1);
		}
	}
	if (o->task_sizes) {
		int err = ccs_task_size_set(f->fd, c->tasks[p->task_slot].total);

		if (err) {
			fprintf(stderr, "wlgen: task size: %s (is bpf_tldct attached?)\n",
				strerror(-err));
			exit(1);
		}
	}
	/* a request/response flow's requests go whole, as RPC clients send them */
	if ((o->response || o->rounds > 1) &&
	    setsockopt(f->fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int)))
		die("TCP_NODELAY");
	set_nonblock(f->fd);
	if (connect(f->fd, (struct sockaddr *)&dst_addr[f->dst], dst_len[f->dst]) &&
	    errno != EINPROGRESS)
		die("connect");
	epoll_ctl(c->ep, EPOLL_CTL_ADD, f->fd, &ev);
	c->active++;
}

/* Start the pending flows whose time has come; with the flow table full,
 * such a flow of its task is lost. */
static void start_due(struct client *c, uint64_t now)
{
	int i, k;

	for (i = 0; i < c->n_pend;) {
		struct pending *p = &c->pend[i];
		struct flow *f = NULL;

		if (p->at_us > now) {
			i++;
			continue;
		}
		for (k = 0; k < c->o->max_active && !f; k++)
			if (c->flows[k].fd < 0)
				f = &c->flows[k];
		if (f) {
			flow_open(c, f, p, now);
		} else {
			c->skipped++;
			task_flow_done(c, &c->tasks[p->task_slot], 0, false, now);
		}
		*p = c->pend[--c->n_pend];
	}
}

/* A flow's header: HDR_LEN bytes, HDR_EXT_LEN more for request/response. */
static uint64_t hdr_len(const struct opts *o)
{
	return HDR_LEN + (o->response || o->rounds > 1 || o->duplex ? HDR_EXT_LEN : 0);
}

/* Write the header and the flow's bytes while the socket takes them;
 * false on an error. */
static bool flow_send(struct client *c, struct flow *f)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = f };
	uint64_t hl = hdr_len(c->o);

	while (f->sent < f->size + hl) {
		uint8_t hdr[HDR_LEN + HDR_EXT_LEN];
		const void *buf;
		size_t len = CHUNK;
		ssize_t w;

		if (f->sent < hl) {
			uint64_t be = htobe64(f->size | (hl > HDR_LEN ? HDR_EXT : 0));
			uint32_t id = htonl(f->id), task = htonl(f->task);
			uint32_t resp = htonl((uint32_t)c->o->response);
			uint32_t flags = htonl((c->o->duplex ? HDR_DUPLEX : 0) |
					       (f->round + 1 < c->o->rounds ? HDR_MORE : 0));

			memcpy(hdr, &be, 8);
			memcpy(hdr + 8, &id, 4);
			memcpy(hdr + 12, &task, 4);
			memcpy(hdr + 16, &resp, 4);
			memcpy(hdr + 20, &flags, 4);
			buf = hdr + f->sent;
			len = hl - f->sent;
		} else {
			buf = pattern_at(flow_phase(f->id), f->sent - hl);
			if (f->size + hl - f->sent < len)
				len = f->size + hl - f->sent;
		}
		w = write(f->fd, buf, len);
		if (w < 0)
			return errno == EAGAIN;
		f->sent += (uint64_t)w;
	}
	/* all sent: wait for the server's answer */
	epoll_ctl(c->ep, EPOLL_CTL_MOD, f->fd, &ev);
	return true;
}

/* The round's answer while the socket has it: its response bytes, each
 * checked, then the server's one byte.  1 once all are in, 0 while
 * waiting, -1 on an error or the connection's end. */
static int flow_recv(struct client *c, struct flow *f)
{
	static uint8_t buf[CHUNK];
	uint64_t resp = c->o->response;

	while (f->got < resp + 1) {
		uint64_t want = resp + 1 - f->got, data;
		ssize_t r = read(f->fd, buf, want < CHUNK ? want : CHUNK);

		if (r <= 0)
			return r < 0 && errno == EAGAIN ? 0 : -1;
		data = (uint64_t)r;
		if (f->got + data > resp) { /* the last byte: the server's answer */
			data = resp - f->got;
			f->bad |= buf[data] != 'k';
		}
		f->bad |= memcmp(buf, pattern_at(response_phase(f->id), f->got), data) != 0;
		f->got += (uint64_t)r;
	}
	return 1;
}

enum flow_outcome {
	FLOW_OK,	 /* the server had every byte, each the pattern's */
	FLOW_CORRUPT,	 /* the server had every byte, not each the pattern's */
	FLOW_FAILED,	 /* an error, or the connection ended first */
	FLOW_UNFINISHED, /* still open when the client stopped */
};

/* The flow is over: one JSON line ("ok" only for FLOW_OK), and its task's
 * accounts. */
static void flow_end(struct client *c, struct flow *f, enum flow_outcome how)
{
	struct opts *o = c->o;
	uint64_t end = now_us();
	struct tcp_info ti = {};
	socklen_t tl = sizeof(ti);
	bool ok = how == FLOW_OK;
	char ideal[48] = "";
	int k;

	if (o->rtt_ms > 0) {
		double req = (double)(f->size + hdr_len(o)), resp = (double)o->response;
		double bytes = o->duplex ? (req > resp ? req : resp) : req + resp;

		snprintf(ideal, sizeof(ideal), ",\"ideal_us\":%.0f",
			 o->rtt_ms * 1000 +
				 o->rounds * (o->rtt_ms * 1000 + bytes * 8e6 / o->rate_bps));
	}
	getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl);
	printf("{\"type\":\"flow\",\"id\":%u,\"task\":%u,\"size\":%" PRIu64 ",\"start_us\":%" PRIu64
	       ",\"fct_us\":%" PRIu64 "%s,\"cc\":\"%s\",\"dst\":\"%s\",\"retrans\":%u,\"ok\":%s"
	       ",\"corrupt\":%s,\"unfinished\":%s,\"rounds\":%d,\"response\":%" PRIu64 "}\n",
	       f->id, f->task, f->size, f->start_us - c->t0, end - f->start_us, ideal,
	       f->cc >= 0 ? o->ccs[f->cc] : "default", o->dsts[f->dst], ti.tcpi_total_retrans,
	       ok ? "true" : "false", how == FLOW_CORRUPT ? "true" : "false",
	       how == FLOW_UNFINISHED ? "true" : "false", o->rounds, o->response);
	switch (how) {
	case FLOW_OK:
		c->completed++;
		c->bytes_done += f->size * (uint64_t)o->rounds;
		break;
	case FLOW_CORRUPT: c->corrupt++; break;
	case FLOW_FAILED: c->failed++; break;
	case FLOW_UNFINISHED: c->unfinished++; break;
	}
	c->last_done = end;
	for (k = 0; k < o->max_active; k++)
		if (c->tasks[k].left && c->tasks[k].id == f->task) {
			task_flow_done(c, &c->tasks[k], f->size * (uint64_t)o->rounds, ok, end);
			break;
		}
	epoll_ctl(c->ep, EPOLL_CTL_DEL, f->fd, NULL);
	close(f->fd);
	f->fd = -1;
	c->active--;
}

/* Room or input on a flow: its request out, its answer in, the next
 * round or its end. */
static void flow_event(struct client *c, const struct epoll_event *e)
{
	struct epoll_event ev = { .events = EPOLLOUT | (c->o->duplex ? EPOLLIN : 0),
				  .data.ptr = e->data.ptr };
	struct flow *f = e->data.ptr;
	int r;

	if (e->events & (EPOLLERR | EPOLLHUP) && !(e->events & EPOLLIN)) {
		flow_end(c, f, FLOW_FAILED);
		return;
	}
	if (f->sent < f->size + hdr_len(c->o) && !flow_send(c, f)) {
		flow_end(c, f, FLOW_FAILED);
		return;
	}
	if (!(e->events & EPOLLIN))
		return;
	r = flow_recv(c, f);
	if (r < 0) {
		flow_end(c, f, FLOW_FAILED);
	} else if (r > 0 && ++f->round < c->o->rounds) {
		f->sent = f->got = 0;
		epoll_ctl(c->ep, EPOLL_CTL_MOD, f->fd, &ev);
		if (!flow_send(c, f))
			flow_end(c, f, FLOW_FAILED);
	} else if (r > 0) {
		flow_end(c, f, f->bad ? FLOW_CORRUPT : FLOW_OK);
	}
}

/* ms until the next arrival or pending start, at most 100. */
static int next_timeout(const struct client *c, uint64_t now, bool arriving)
{
	int timeout = 100, i;

	if (arriving && c->next_arrival > now)
		timeout = (int)((c->next_arrival - now) / 1000);
	for (i = 0; i < c->n_pend; i++)
		if (c->pend[i].at_us > now && (int)((c->pend[i].at_us - now) / 1000) < timeout)
			timeout = (int)((c->pend[i].at_us - now) / 1000);
	return timeout > 100 ? 100 : timeout;
}

/* Arrivals over, nothing left to wait for (or --drain's time is up). */
static bool finished(const struct client *c, uint64_t now, bool arriving)
{
	const struct opts *o = c->o;

	if (arriving)
		return false;
	if (stop || (!c->n_pend && !c->active))
		return true;
	return o->drain > 0 && c->last_done &&
	       now > (o->n_arrivals ? c->last_done : c->end_arrivals) + (uint64_t)(o->drain * 1e6);
}

static void print_summary(const struct client *c)
{
	const struct opts *o = c->o;
	double span = (double)((o->n_arrivals ? c->next_arrival : c->end_arrivals) - c->t0) / 1e6;

	printf("{\"type\":\"summary\",\"arrivals\":%" PRIu64 ",\"flows\":%" PRIu64
	       ",\"completed\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"corrupt\":%" PRIu64
	       ",\"skipped\":%" PRIu64 ",\"unfinished\":%" PRIu64 ",\"unstarted\":%d"
	       ",\"bytes\":%" PRIu64 ",\"mean_task_bytes\":%.0f"
	       ",\"offered_load\":%.4f,\"achieved_load\":%.4f,\"arrival_span_s\":%.3f"
	       ",\"seed\":%" PRIu64 "}\n",
	       c->arrivals, c->flow_ids, c->completed, c->failed, c->corrupt, c->skipped,
	       c->unfinished, c->n_pend, c->bytes_done, c->task_mean, o->load,
	       span > 0 ? (double)c->bytes_done * 8 / (span * o->rate_bps) : 0, span, o->seed);
}

static int client(struct opts *o)
{
	struct client c = { .o = o, .rng = { o->seed } };
	struct epoll_event evs[256];
	int i, n;

	c.max_pending = max_task_flows(o) * 4 + 16;
	c.flows = calloc((size_t)o->max_active, sizeof(*c.flows));
	c.tasks = calloc((size_t)o->max_active, sizeof(*c.tasks));
	c.pend = calloc((size_t)c.max_pending, sizeof(*c.pend));
	if (!c.flows || !c.tasks || !c.pend)
		die("calloc");
	for (i = 0; i < o->max_active; i++)
		c.flows[i].fd = -1;
	c.task_mean = mean_task_bytes(o);
	c.gap_us = c.task_mean * 8 / (o->load * o->rate_bps) * 1e6;
	c.ep = epoll_create1(0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	c.t0 = now_us();
	c.next_arrival = c.t0 + (uint64_t)rng_exp(&c.rng, c.gap_us);
	if (o->duration > 0)
		c.end_arrivals = c.t0 + (uint64_t)(o->duration * 1e6);

	for (;;) {
		uint64_t now = now_us();
		bool arriving = !stop && more_arrivals(&c, now);

		while (arriving && now >= c.next_arrival &&
		       c.n_pend + max_task_flows(o) <= c.max_pending) {
			task_arrive(&c);
			c.next_arrival += (uint64_t)rng_exp(&c.rng, c.gap_us) + 1;
			arriving = more_arrivals(&c, c.next_arrival);
		}
		start_due(&c, now);
		if (finished(&c, now, arriving))
			break;
		n = epoll_wait(c.ep, evs, 256, next_timeout(&c, now, arriving));
		for (i = 0; i < n; i++)
			flow_event(&c, &evs[i]);
	}
	for (i = 0; i < o->max_active; i++)
		if (c.flows[i].fd >= 0)
			flow_end(&c, &c.flows[i], FLOW_UNFINISHED);
	print_summary(&c);
	return c.failed || c.corrupt || c.unfinished || c.n_pend ? 3 : 0;
}

static const struct option long_opts[] = {
	{ "cdf", required_argument, NULL, 'f' },
	{ "size", required_argument, NULL, 'z' },
	{ "load", required_argument, NULL, 'l' },
	{ "rate", required_argument, NULL, 'r' },
	{ "flows", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'd' },
	{ "seed", required_argument, NULL, 's' },
	{ "scale", required_argument, NULL, 'S' },
	{ "mptcp", no_argument, NULL, 'm' },
	{ "task-flows", required_argument, NULL, 't' },
	{ "task-window", required_argument, NULL, 'w' },
	{ "task-mix", required_argument, NULL, 'x' },
	{ "task-ids", required_argument, NULL, 'i' },
	{ "task-sizes", no_argument, NULL, 'k' },
	{ "max-active", required_argument, NULL, 'a' },
	{ "drain", required_argument, NULL, 'D' },
	{ "rtt", required_argument, NULL, 'R' },
	{ "response", required_argument, NULL, 'P' },
	{ "rounds", required_argument, NULL, 'N' },
	{ "duplex", no_argument, NULL, 'X' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Bounds that keep seconds as microseconds, and scaled sizes, far within
 * 64 bits. */
#define MAX_SECS  1e6
#define MAX_SCALE 1e6

/* What the command line gives besides struct opts. */
struct cmdline {
	const char *addr, *cdf_file;
	char *dsts, *ccs;
};

/* A bad value of option @opt: one line, and exit status 2. */
static int bad_value(const char *opt, const char *text, const char *want)
{
	fprintf(stderr, "wlgen: %s: '%s' is not %s\n", opt, text, want);
	return 2;
}

/* A whole number in [@lo, @hi] into *@out (left alone on an error). */
static int uint_opt(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char want[64] = "a whole number";
	uint64_t v;

	if (!parse_u64(text, &v) && v >= lo && v <= hi) {
		*out = v;
		return 0;
	}
	if (lo || hi != UINT64_MAX)
		snprintf(want, sizeof(want), "a whole number in [%" PRIu64 ", %" PRIu64 "]", lo,
			 hi);
	return bad_value(opt, text, want);
}

static int int_opt(const char *opt, const char *text, int lo, int hi, int *out)
{
	uint64_t v;
	int err = uint_opt(opt, text, (uint64_t)lo, (uint64_t)hi, &v);

	if (!err)
		*out = (int)v;
	return err;
}

/* A number in [0, @max], above 0 with @positive. */
static int real_opt(const char *opt, const char *text, bool positive, double max, double *out)
{
	char want[64];
	double v;

	if (!parse_double(text, &v) && (!positive || v > 0) && v <= max) {
		*out = v;
		return 0;
	}
	snprintf(want, sizeof(want), "a number in %c0, %.0f]", positive ? '(' : '[', max);
	return bad_value(opt, text, want);
}

/* Option @c into @o and @cl: 0, or the exit status after a message. */
static int parse_opt(int c, char *arg, struct opts *o, struct cmdline *cl)
{
	uint64_t v;

	switch (c) {
	case 'B': cl->addr = arg; break;
	case 'c': cl->dsts = arg; break;
	case 'p': o->port = arg; break;
	case 'C': cl->ccs = arg; break;
	case 'f': cl->cdf_file = arg; break;
	case 'z':
		if (parse_size(arg, &o->fixed_size))
			return bad_value("--size", arg, "a size like 3mb");
		break;
	case 'l': return real_opt("--load", arg, true, 10, &o->load);
	case 'r':
		if (parse_rate(arg, &v) || !v)
			return bad_value("--rate", arg, "a rate like 100mbit");
		o->rate_bps = (double)v;
		break;
	case 'n': return uint_opt("--flows", arg, 0, UINT64_MAX, &o->n_arrivals);
	case 'd': return real_opt("--duration", arg, false, MAX_SECS, &o->duration);
	case 's': return uint_opt("--seed", arg, 0, UINT64_MAX, &o->seed);
	case 'S': return real_opt("--scale", arg, true, MAX_SCALE, &o->scale);
	case 'm': o->mptcp = 1; break;
	case 't': return int_opt("--task-flows", arg, 1, 10000, &o->task_flows);
	case 'w': return real_opt("--task-window", arg, false, MAX_SECS * 1000, &o->task_window_ms);
	case 'x':
		if (parse_kinds(o, arg)) {
			fprintf(stderr,
				"wlgen: --task-mix: '%s' is not NxBYTES[,NxBYTES...] (N 1..10000, at most %d kinds)\n",
				arg, MAX_KINDS);
			return 2;
		}
		break;
	case 'i': return uint_opt("--task-ids", arg, 0, UINT64_MAX, &o->task_id_base);
	case 'k': o->task_sizes = 1; break;
	case 'a': return int_opt("--max-active", arg, 1, 1000000, &o->max_active);
	case 'D': return real_opt("--drain", arg, false, MAX_SECS, &o->drain);
	case 'R': return real_opt("--rtt", arg, false, MAX_SECS * 1000, &o->rtt_ms);
	case 'P':
		if (parse_size(arg, &o->response) || o->response > MAX_RESPONSE)
			return bad_value("--response", arg, "a size up to 1gb");
		break;
	case 'N': return int_opt("--rounds", arg, 1, 1000000, &o->rounds);
	case 'X': o->duplex = 1; break;
	default: usage(stderr); return 2;
	}
	return 0;
}

/* The client's options taken together, its CDF read, its destinations
 * resolved: 0, or the exit status. */
static int client_setup(struct opts *o, struct cmdline *cl)
{
	if (!cl->dsts || (!o->n_kinds && !cl->cdf_file == !o->fixed_size) || o->load <= 0 ||
	    o->rate_bps <= 0 || (!o->n_arrivals == !(o->duration > 0))) {
		usage(stderr);
		return 2;
	}
	if (cl->cdf_file) {
		char err[128];
		FILE *f = fopen(cl->cdf_file, "r");

		if (!f)
			die(cl->cdf_file);
		if (cdf_parse(&o->cdf, f, err, sizeof(err))) {
			fprintf(stderr, "wlgen: %s: %s\n", cl->cdf_file, err);
			return 2;
		}
		fclose(f);
	}
	split(cl->dsts, o->dsts, &o->n_dsts, MAX_DSTS);
	if (cl->ccs)
		split(cl->ccs, o->ccs, &o->n_ccs, MAX_CCS);
	return resolve_dsts(o) ? 2 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = "5700",
			  .scale = 1,
			  .seed = 1,
			  .task_flows = 1,
			  .rounds = 1,
			  .max_active = 4096,
			  .drain = 30 };
	struct cmdline cl = { 0 };
	int c, srv, err;

	if (argc < 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		usage(stderr);
		return 2;
	}
	srv = !strcmp(argv[1], "server");
	optind = 2;
	while ((c = getopt_long(argc, argv, "B:c:p:C:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		err = parse_opt(c, optarg, &o, &cl);
		if (err)
			return err;
	}
	raise_nofile();
	pattern_fill(pat, CHUNK);
	if (srv)
		return server(cl.addr, o.port);
	err = client_setup(&o, &cl);
	if (err)
		return err;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return client(&o);
}
