// SPDX-License-Identifier: GPL-2.0
/*
 * The emulation pacer (pacer.h).  Why in user space: one thread with
 * sendmmsg() on raw sockets (IPv4 and IPv6, one of each per sender
 * namespace) carries every flow's emulation packets, the rate control
 * is plain C beside the unit-tested arithmetic, and the
 * kernel side stays a reflector and two counters.  docs/flashpass.md
 * ("What it costs") and bench/published/flashpass-pacer/ give its CPU
 * cost per packet and the rates it sustains.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <stddef.h>
#include <sched.h>
#include <ifaddrs.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/capability.h>
#include <linux/pkt_sched.h>

#include "pacer.h"
#include "csum.h"
#include "log.h"
#include "netns.h"
#include "pins.h"
#include "util.h"

#define PACER_BATCH   64
/*
 * Flows known at most: twice the ledgers the map holds (2 * FP_MAX_FLOWS
 * with the room ccload gives an LRU map, loader/lib/obj.c), as the map
 * makes room for a new one by dropping an idle one, which the pacer
 * forgets only at the end of sweep()'s pass; a full table would make the
 * new flow wait a pass more.
 */
#define PACER_FLOWS   (4 * FP_MAX_FLOWS)
#define PACER_SLOTS   (2 * PACER_FLOWS) /* hash index, half full at most */
#define PACER_RTT_DEF 10000000ULL	/* ns, before the flow has an RTT */
#define PACER_ADDRS   32		/* addresses of a namespace we look at, per family */
#define PACER_SWEEP   64		/* ledgers a scan reads in its sweep() */
#define PACER_HOT_NS  1000000000ULL	/* a flow is read every scan this long after its demand */

/* An emulation packet after its IP header: the same in both families. */
struct emu_udp {
	struct udphdr udp;
	struct fp_wire w;
};

/* Not packed (the headers stay aligned): a packet is its first
 * EMU*_LEN bytes, the padding at the end is not sent. */
struct emu_pkt4 {
	struct iphdr ip;
	struct emu_udp u;
};

struct emu_pkt6 {
	struct ip6_hdr ip6;
	struct emu_udp u;
};

#define EMU4_LEN (sizeof(struct iphdr) + sizeof(struct emu_udp))
#define EMU6_LEN (sizeof(struct ip6_hdr) + sizeof(struct emu_udp))
_Static_assert(sizeof(struct emu_udp) == sizeof(struct udphdr) + FP_WIRE_LEN, "no gap in UDP");
_Static_assert(offsetof(struct emu_pkt4, u) == sizeof(struct iphdr), "UDP after IPv4");
_Static_assert(offsetof(struct emu_pkt6, u) == sizeof(struct ip6_hdr), "UDP after IPv6");

union emu_pkt {
	struct emu_pkt4 v4;
	struct emu_pkt6 v6;
};

union emu_to {
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/* A release pending: when, for which emulation packet, and what the
 * ledger's replay window said of its credit (release_seen()). */
struct prel {
	uint64_t at;
	uint32_t seq;
	uint32_t t_us;	  /* its packet's T, as on the wire */
	uint8_t seen;	  /* the window or the ring told (release_seen(), release_ring()) */
	uint8_t credited; /* and it had come */
	uint16_t pad;
};

struct pflow {
	struct fp_key key;
	uint32_t secret, phase, seen;
	uint64_t demand, recv, rtt_ns;
	uint32_t last_seq,
		iv_seq0;  /* highest credited sequence number: now, at the interval's start */
	uint64_t next_ns; /* the next emulation packet */
	struct fp_rc rc;
	uint64_t iv_start_ns, iv_recv0, iv_sent; /* the rate control's interval */
	uint64_t quiet_ns;			 /* since when no credit came (flow_quiet()) */
	int paused; /* no over-provisioning: its demand covered, it sends none (flow_pause()) */
	struct fp_emu pub;
	int v6;		    /* an IPv6 flow (its addresses not v4-mapped) */
	int fd;		    /* the raw socket it leaves by, -1: no namespace has its source */
	int counted;	    /* in the report: it had data to send */
	int held;	    /* its packet due is held back by the rate cap (emu_ok()) */
	int gone;	    /* its ledger is: forgotten at the end of the scan */
	int in_hot;	    /* in the hot list (scan()) */
	uint32_t pass;	    /* the last sweep() pass that met its key */
	uint64_t hot_until; /* read every scan until then (scan()), else by sweep() */
	/* loop: the first packets of its loop still to send, when the last
	 * were due, and the ledger's last credit (flow_seed()) */
	uint32_t seeds;
	uint64_t seed_ns, last_credit_ns;
	/* release: when each emulation packet's credit becomes usable,
	 * T + T_wait, oldest first (free-running counters) */
	uint64_t t_wait_ns;
	uint32_t rel_head, rel_tail;
	struct prel *rel; /* PACER_REL of them, from the flow's first release */
};

/* A sender namespace: its raw sockets and their addresses. */
struct psock {
	int fd, fd6;	/* fd6 -1: no IPv6 here */
	uint64_t netns; /* its cookie, as a ledger names its socket's; 0: not known */
	size_t n_addrs, n_addrs6;
	__u32 addrs[PACER_ADDRS];
	struct in6_addr addrs6[PACER_ADDRS];
	uint32_t scope6[PACER_ADDRS]; /* a link-local one's interface, else 0 */
};

struct pacer {
	const struct pacer_opts *o;
	struct pacer_report *r;
	int fd_ledgers, fd_emu;
	int fd_loop;	     /* loop: the kernel's loop's options (fp_loop_cfg) */
	uint64_t loop_iv_ns; /* the interval last written there */
	struct psock socks[PACER_MAX_NETNS];
	size_t n_socks;
	uint64_t r_max;
	struct pflow *flows;
	size_t n;
	int idx[PACER_SLOTS];	   /* flows[] index or -1 */
	uint32_t act[PACER_FLOWS]; /* flows[] indices of the active flows, at the last scan */
	size_t n_act;
	uint32_t hot[PACER_FLOWS]; /* and of those read by key every scan (hot_until) */
	size_t n_hot;
	size_t n_gone; /* flows whose ledger is gone, to forget */
	/* sweep(): its batch, where the next starts (if sweep_more), and its
	 * passes over every ledger */
	struct fp_key *sweep_keys;
	struct fp_ledger *sweep_ledgers;
	struct fp_key sweep_in, sweep_out; /* the kernel's token: a bucket's number */
	int sweep_more;
	int sweep_failed;
	uint32_t pass;
	uint32_t gen;
	uint64_t rtt_max_ns;	      /* the longest RTT of the active flows, at the last scan */
	uint64_t next_scan;	      /* the next read of the ledgers */
	uint64_t sec_start, sec_sent; /* peak_pps: this second's start, its packets */
	size_t rr;		      /* fill_batch()'s first flow, in turn */
	struct fp_ledger l;	      /* scratch: a ledger is 4 KB */
	uint32_t ring_off[FP_RING];   /* scratch: its ring's credits ahead (release_ring()) */
	union emu_pkt pkts[PACER_BATCH];
	union emu_to to[PACER_BATCH];
	struct iovec iov[PACER_BATCH];
	struct mmsghdr msgs[PACER_BATCH];
	int bfd[PACER_BATCH];	/* each one's socket */
	char bv6[PACER_BATCH];	/* and whether that is an IPv6 one */
	char brel[PACER_BATCH]; /* and a release, not an emulation packet */
	int warned_v6;		/* no IPv6 raw socket: said once */
	uint64_t rnd;		/* xorshift64 state: the flows' phases and gaps */
	uint64_t rel_free_ns;	/* release: the bucket's clock (release_ok()) */
	uint64_t rel_peak_ns;	/* and the last one's + its catch-up gap */
	uint64_t emu_cap;	/* emulation packets a second, all flows (emu_ok()) */
	uint64_t emu_free_ns;	/* and their bucket's clock */
};

static size_t key_hash(const struct fp_key *k)
{
	const unsigned char *b = (const void *)k;
	uint32_t h = 2166136261U;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ b[i]) * 16777619U;
	return h % PACER_SLOTS;
}

static struct pflow *flow_find(struct pacer *p, const struct fp_key *k, size_t *slot)
{
	size_t s = key_hash(k);

	for (; p->idx[s] >= 0; s = (s + 1) % PACER_SLOTS)
		if (!memcmp(&p->flows[p->idx[s]].key, k, sizeof(*k)))
			return &p->flows[p->idx[s]];
	*slot = s;
	return NULL;
}

static void index_rebuild(struct pacer *p)
{
	size_t i, s;

	memset(p->idx, -1, sizeof(p->idx));
	for (i = 0; i < p->n; i++) {
		for (s = key_hash(&p->flows[i].key); p->idx[s] >= 0; s = (s + 1) % PACER_SLOTS)
			;
		p->idx[s] = (int)i;
	}
}

static int v4_mapped(const __u32 *a)
{
	return !a[0] && !a[1] && a[2] == htonl(0xffff);
}

static int psock_has(const struct psock *ps, const struct fp_key *k, int v6)
{
	size_t j;

	if (v6) {
		/* a link-local flow's source: the address on its interface */
		for (j = 0; j < ps->n_addrs6; j++)
			if (!memcmp(&ps->addrs6[j], k->saddr, sizeof(k->saddr)) &&
			    (!k->scope || ps->scope6[j] == k->scope))
				return 1;
		return 0;
	}
	for (j = 0; j < ps->n_addrs; j++)
		if (ps->addrs[j] == k->saddr[3])
			return 1;
	return 0;
}

/*
 * The socket, of the flow's family, of the namespace we serve that holds
 * the flow's socket (the key's cookie of it, where the kernel tells us
 * ours) and has @k's source address; -1: none, and the flow
 * gets no packet from us.  With one namespace too (none named, or one):
 * a packet with a source address of another namespace, or of none (a
 * socket bound with IP_FREEBIND), must not leave from ours, and two
 * namespaces may hold the same address.
 */
static int fd_of(const struct pacer *p, const struct fp_key *k, int v6)
{
	for (size_t i = 0; i < p->n_socks; i++) {
		const struct psock *ps = &p->socks[i];

		if (ps->netns && ps->netns != k->netns)
			continue;
		if (psock_has(ps, k, v6))
			return v6 ? ps->fd6 : ps->fd;
	}
	return -1;
}

static uint64_t flow_gap_ns(const struct pflow *f)
{
	return NSEC_PER_SEC / (f->rc.rate ? f->rc.rate : 1);
}

/* A point in [0, @n) at random, or any number for @n 0: the flows'
 * phases and gaps, not secret. */
static uint64_t pacer_rnd(struct pacer *p, uint64_t n)
{
	if (!p->rnd)
		p->rnd = mono_ns() | 1;
	p->rnd ^= p->rnd << 13;
	p->rnd ^= p->rnd >> 7;
	p->rnd ^= p->rnd << 17;
	return n ? p->rnd % n : p->rnd;
}

static void flow_new(struct pacer *p, struct pflow *f, const struct fp_key *k,
		     const struct fp_ledger *l, uint64_t now)
{
	memset(f, 0, sizeof(*f));
	f->key = *k;
	f->v6 = !v4_mapped(k->saddr) || !v4_mapped(k->daddr);
	f->fd = fd_of(p, k, f->v6);
	f->iv_start_ns = now;
	f->rc.rate = fp_rc_start(&p->o->rc, p->r_max);
	f->rc.w = p->o->rc.w_max;
	/* out of step with the flows found in the same scan (fill_batch()) */
	f->next_ns = now + pacer_rnd(p, flow_gap_ns(f));
	/* a flow credited before (a pacer that started again): its numbers
	 * go on past the sender's replay window, which would refuse them */
	if (l->seen) {
		f->pub.seq = l->last_seq + 1;
		f->iv_seq0 = f->last_seq = l->last_seq;
		f->iv_recv0 = f->recv = l->credits_recv;
	}
}

/* The report counts a flow once it has data to send: a socket that only
 * receives (a server's, on bpf_flashpass too) has a ledger and no demand. */
static void flow_count(struct pacer *p, struct pflow *f)
{
	if (f->counted || !f->demand)
		return;
	f->counted = 1;
	p->r->flows++;
	if (f->fd < 0)
		p->r->no_sender++;
}

/* A flow is paced while it has data to send (the CC records demand from
 * its first transmission on), has not fallen back, and leaves from one of
 * our namespaces. */
static int flow_active(const struct pflow *f)
{
	return f->demand && f->fd >= 0 &&
	       (f->phase == FP_PHASE_PRECREDIT || f->phase == FP_PHASE_CREDIT);
}

/*
 * What the ledger's replay window (its highest credited sequence number
 * and the 32 before it) says of the pending releases' credits.  A release
 * whose credit the window saw missing is not sent: it would let nothing
 * out, and it would spend the releases' rate (release_ok()).  One the
 * window passed between two reads is sent; the sender's egress drops it
 * if no credit is due.
 */
static void release_seen(struct pflow *f, uint32_t last, uint32_t seen)
{
	for (uint32_t i = f->rel_tail; i != f->rel_head; i++) {
		struct prel *r = &f->rel[i % PACER_REL];
		uint32_t back = last - r->seq;

		if ((int32_t)back < 0)
			break; /* not credited up to there yet: nor are the rest */
		if (back >= FP_REPLAY_WIN)
			continue;
		r->seen = 1;
		r->credited |= (seen >> back) & 1;
	}
}

/* Ascending, in place: the ring's order, nearly sorted already. */
static void sort_u32(uint32_t *v, uint32_t n)
{
	for (uint32_t i = 1, j; i < n; i++) {
		uint32_t x = v[i];

		for (j = i; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/*
 * What the ring of @l, the flow's ledger, says of the pending releases
 * the window left unjudged (fp_ring_says()), for those still ahead of
 * @now.  At a start, with most emulation packets lost (20 flows at r_max
 * into the emulation queue's one), the window's 32 sequence numbers
 * cover few of them; unjudged, their releases took the releases' whole
 * rate, and those with credits left late or expired.  (A rule that took
 * a credit an RTT and a margin overdue for lost, with no later one come,
 * wasted credits of packets the pacer had sent late: T is when a packet
 * was due.)
 */
static void release_ring(struct pacer *p, struct pflow *f, const struct fp_ledger *l, uint64_t now)
{
	uint32_t now_us = fp_stamp(now), tw_us = (uint32_t)(f->t_wait_ns / 1000), n = 0, i;
	enum fp_ring_verdict v;

	for (i = l->ring.tail; i != l->ring.head && n < FP_RING; i++) {
		uint32_t off = l->ring.at[i & (FP_RING - 1)] - now_us;

		if ((int32_t)off > 0)
			p->ring_off[n++] = off;
	}
	sort_u32(p->ring_off, n);
	for (i = f->rel_tail; i != f->rel_head; i++) {
		struct prel *r = &f->rel[i % PACER_REL];
		uint32_t s = r->t_us + tw_us - now_us;

		if (r->seen || (int32_t)s <= 0)
			continue;
		/* past the newest credit banked: these are not known yet */
		if (!n || s > p->ring_off[n - 1] + FP_EXPIRE_SLACK_US)
			break;
		v = fp_ring_says(p->ring_off, n, s);
		r->seen = v != FP_RING_UNKNOWN;
		r->credited = v == FP_RING_CREDITED;
	}
}

/* Read @f every scan for PACER_HOT_NS from @now. */
static void flow_heat(struct pacer *p, struct pflow *f, uint64_t now)
{
	f->hot_until = now + PACER_HOT_NS;
	if (!f->in_hot) {
		f->in_hot = 1;
		p->hot[p->n_hot++] = (uint32_t)(f - p->flows);
	}
}

static void flow_gone(struct pacer *p, struct pflow *f)
{
	f->gone = 1;
	p->n_gone++;
}

/*
 * What the scan reads of a flow's ledger (@l).  A flow that may be
 * paced (ours, with data to send, not fallen back) is read every scan
 * for PACER_HOT_NS from then on.
 */
static void flow_read(struct pacer *p, struct pflow *f, const struct fp_ledger *l, uint64_t now)
{
	int was_active = flow_active(f);

	/* another socket's ledger under the key (the 4-tuple again): its
	 * sequence numbers and counts start afresh, and so does the flow */
	if (f->seen && f->secret != l->secret) {
		struct fp_key k = f->key;
		uint32_t pass = f->pass;
		int in_hot = f->in_hot;

		free(f->rel);
		flow_new(p, f, &k, l, now);
		f->pass = pass;
		f->in_hot = in_hot;
		was_active = 0;
	}
	if (l->credits_recv != f->recv)
		f->quiet_ns = now;
	f->seen = p->gen;
	f->secret = l->secret;
	f->phase = l->phase;
	f->demand = l->demand_segs;
	f->recv = l->credits_recv;
	f->last_seq = l->last_seq;
	f->last_credit_ns = l->last_credit_ns;
	f->t_wait_ns = l->t_wait_ns;
	/* a batched credit's window has its own number only */
	if (l->seen && !p->o->batched)
		release_seen(f, l->last_seq, l->seen);
	if (f->rel_tail != f->rel_head && !p->o->batched)
		release_ring(p, f, l, now);
	f->rtt_ns = l->srtt_ns ? l->srtt_ns : (l->min_rtt_ns ? l->min_rtt_ns : PACER_RTT_DEF);
	flow_count(p, f);
	if (!flow_active(f))
		return;
	flow_heat(p, f, now);
	if (!was_active)
		f->quiet_ns = now; /* no credit was due while it had nothing to send */
}

/* A ledger sweep() read: a new flow, or a known one not read this scan. */
static void sweep_one(struct pacer *p, const struct fp_key *k, const struct fp_ledger *l,
		      uint64_t now)
{
	size_t slot = 0;
	struct pflow *f = flow_find(p, k, &slot);

	if (f) {
		f->pass = p->pass;
		if (f->seen == p->gen)
			return; /* read this scan, by its key */
	} else {
		if (p->n == PACER_FLOWS)
			return;
		f = &p->flows[p->n];
		flow_new(p, f, k, l, now);
		p->idx[slot] = (int)p->n++;
		f->pass = p->pass;
	}
	flow_read(p, f, l, now);
}

/*
 * Discovery: PACER_SWEEP ledgers a scan, in one batch read, going on
 * from where the last scan stopped: new flows, and the demand of the
 * known ones that had none.  With up to PACER_SWEEP ledgers every one
 * is read every scan; with more, each once per pass of several scans,
 * so that thousands of idle sockets on bpf_flashpass (a server's) cost
 * one read a scan, not thousands (a system call is what costs: one a
 * ledger took the pacer's core, and so does the copy of a 4 KB ledger:
 * a few us each here).  The batch walks the map's buckets in order, each
 * bucket whole (a few ledgers, far fewer than PACER_SWEEP): a ledger
 * there for a whole pass is met in it, and a flow the pass did not meet
 * that was not read by its key has no ledger.  A flow is hot (read
 * every scan) only with demand: an idle server's sockets never are.
 */
static void sweep(struct pacer *p, uint64_t now)
{
	__u32 n = PACER_SWEEP;
	int end, err;

	err = bpf_map_lookup_batch(p->fd_ledgers, p->sweep_more ? &p->sweep_in : NULL,
				   &p->sweep_out, p->sweep_keys, p->sweep_ledgers, &n, NULL);
	end = err && errno == ENOENT;
	if (err && !end) {
		if (!p->sweep_failed++)
			pr_warn("pacer: cannot read the ledgers: %s\n", strerror(errno));
		return;
	}
	for (__u32 i = 0; i < n && i < PACER_SWEEP; i++)
		sweep_one(p, &p->sweep_keys[i], &p->sweep_ledgers[i], now);
	if (!end) {
		p->sweep_in = p->sweep_out;
		p->sweep_more = 1;
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->flows[i].pass != p->pass && p->flows[i].seen != p->gen)
			flow_gone(p, &p->flows[i]);
	p->pass++;
	p->sweep_more = 0;
}

/* Forget the flows whose ledger is gone; flows[] moves, and the lists
 * of indices are made again. */
static void flows_forget(struct pacer *p)
{
	size_t i, kept;

	for (i = 0, kept = 0; i < p->n; i++) {
		if (p->flows[i].gone) {
			bpf_map_delete_elem(p->fd_emu, &p->flows[i].key);
			free(p->flows[i].rel);
			continue;
		}
		if (kept != i)
			p->flows[kept] = p->flows[i];
		kept++;
	}
	p->n = kept;
	p->n_gone = 0;
	index_rebuild(p);
	p->n_hot = 0;
	for (i = 0; i < p->n; i++)
		if (p->flows[i].in_hot)
			p->hot[p->n_hot++] = (uint32_t)i;
}

/*
 * Read the ledgers: those of the flows that may be paced (the hot list)
 * by their keys, then sweep()'s share of the others; forget the flows
 * whose ledger is gone, and list the active ones (all of them hot) for
 * the turns to come.  Nothing here walks every flow but a pass's end
 * and a flow's going: thousands of idle ones cost sweep()'s share.
 */
static void scan(struct pacer *p, uint64_t now)
{
	struct pflow *f;
	size_t i, kept;

	p->gen++;
	for (i = 0, kept = 0; i < p->n_hot; i++) {
		f = &p->flows[p->hot[i]];
		if (f->hot_until < now) {
			f->in_hot = 0; /* sweep() reads it from now on */
			continue;
		}
		if (bpf_map_lookup_elem(p->fd_ledgers, &f->key, &p->l)) {
			if (errno == ENOENT) {
				f->in_hot = 0;
				flow_gone(p, f);
				continue;
			}
		} else {
			flow_read(p, f, &p->l, now);
		}
		p->hot[kept++] = p->hot[i];
	}
	p->n_hot = kept;
	sweep(p, now);
	if (p->n_gone)
		flows_forget(p);
	p->rtt_max_ns = 0;
	p->n_act = 0;
	for (i = 0; i < p->n_hot; i++) {
		f = &p->flows[p->hot[i]];
		if (!flow_active(f))
			continue;
		p->act[p->n_act++] = p->hot[i];
		if (f->rtt_ns > p->rtt_max_ns)
			p->rtt_max_ns = f->rtt_ns;
	}
}

/*
 * The rate control's interval, the same for every flow: the longest RTT
 * of the active flows (and a scan period at least).  Flows that share
 * the emulation queue see the same loss; with the same interval they
 * also change rate as often, and the increase (fp_rc_update()) moves
 * them toward equal rates.  Intervals of their own RTT, or of a number
 * of packets at their own rate, let the shortest RTT or the highest rate
 * increase most often and keep the queue.
 */
static uint64_t interval_ns(const struct pacer *p)
{
	uint64_t scan = (uint64_t)p->o->scan_us * 1000;

	return p->rtt_max_ns > scan ? p->rtt_max_ns : scan;
}

/*
 * The interval's count, and the next interval starts at @now.  The loss
 * is counted by sequence numbers: of the emulation packets the credits'
 * highest sequence number moved past in the interval, those with no
 * credit back were lost.  Counting credits against packets sent an
 * interval earlier would read a credit that arrives just after a ledger
 * read as a loss.
 */
static void flow_rebase(struct pflow *f, uint64_t now, uint64_t *passed, uint64_t *credited)
{
	/* iv_seq0 may be ahead of the credits (flow_interval()): none passed */
	int32_t ahead = (int32_t)(f->last_seq - f->iv_seq0);

	*passed = ahead > 0 ? (uint32_t)ahead : 0;
	*credited = f->recv - f->iv_recv0;
	if (f->iv_recv0 == 0 && f->iv_seq0 == 0 && *passed)
		*passed = *credited; /* the first credits: no sequence number to start from */
	if (*passed > *credited)
		f->pub.lost += *passed - *credited;
	if (ahead > 0)
		f->iv_seq0 = f->last_seq;
	f->iv_recv0 = f->recv;
	f->iv_sent = 0;
	f->iv_start_ns = now;
}

/*
 * Has no credit come for longer than one takes, overdue
 * (fp_credit_overdue_us()), and an interval more?  Then every packet of
 * the interval was lost.  The loss counted by sequence numbers moves only
 * with credits: without this, a flow that gets none at all (no receiver
 * returns them, its path to the emulation queue is gone, a peer that
 * drops them) would hold its rate until it falls back, or for good in
 * the credit phase, sending at up to r_max into nothing.
 */
static int flow_quiet(const struct pacer *p, const struct pflow *f, uint64_t now)
{
	uint64_t overdue = (uint64_t)fp_credit_overdue_us(f->rtt_ns, p->r_max) * 1000;

	return now - f->quiet_ns >= overdue + interval_ns(p);
}

/* Once per interval: the rate control, and publish. */
static void flow_interval(struct pacer *p, struct pflow *f, uint64_t now)
{
	uint64_t passed, credited, sent = f->iv_sent;
	enum fp_rc_step step;

	flow_rebase(f, now, &passed, &credited);
	if (!passed && !credited && sent && flow_quiet(p, f, now)) {
		/* all of them lost (a loss of 1: the lowest rate); a credit
		 * that comes for one of them later is not counted again */
		passed = sent;
		f->pub.lost += sent;
		f->iv_seq0 = f->pub.seq - 1;
	}
	step = fp_rc_update(&f->rc, &p->o->rc, passed, credited, fp_rate_min(f->rtt_ns, p->r_max),
			    p->r_max);
	fp_rc_settle(&f->rc, &p->o->rc, step, f->pub.seq);
	f->pub.rate = f->rc.rate;
	f->pub.w = f->rc.w;
	f->pub.last_loss = f->rc.last_loss;
	f->pub.decreases = f->rc.decreases;
	f->pub.updated_ns = now;
	bpf_map_update_elem(p->fd_emu, &f->key, &f->pub, BPF_ANY);
}

/*
 * With loop, the kernel carries a flow's emulation once its loop has
 * packets: the pacer sends the first ones (fp_loop_seeds(), at a new
 * flow's rate), and again once the loop is over (its packets lost, or
 * ended while the flow had nothing to send): no credit and no packet of
 * ours for a credit's overdue time and an interval.
 */
static void flow_seed(struct pacer *p, struct pflow *f, uint64_t now)
{
	uint64_t quiet =
		(uint64_t)fp_credit_overdue_us(f->rtt_ns, p->r_max) * 1000 + interval_ns(p);

	if (f->seeds || now - f->seed_ns < quiet ||
	    (f->last_credit_ns && now - f->last_credit_ns < quiet))
		return;
	f->seeds = fp_loop_seeds(fp_rc_start(&p->o->rc, p->r_max), f->rtt_ns);
	f->seed_ns = now;
	f->next_ns = now;
}

/* A flow's control at a scan: after a change, once it has shown (or an
 * interval went by without a credit), measure from there; an interval
 * on, decide. */
static void flow_control(struct pacer *p, struct pflow *f, uint64_t now)
{
	uint64_t passed, credited;

	if (p->o->loop) {
		flow_seed(p, f, now);
		return;
	}

	if (f->rc.settling) {
		if (!fp_rc_settled(&f->rc, f->last_seq) && now - f->iv_start_ns < interval_ns(p))
			return;
		f->rc.settling = 0;
		flow_rebase(f, now, &passed, &credited);
	} else if (now - f->iv_start_ns >= interval_ns(p)) {
		flow_interval(p, f, now);
	}
}

/* The IPv4 header of @e and where it goes; tclass: Not-ECT or ECT(0). */
static void build4(union emu_pkt *e, union emu_to *to, const struct fp_key *k, __u8 tclass)
{
	struct iphdr *ip = &e->v4.ip;

	ip->version = 4;
	ip->ihl = 5;
	ip->tos = tclass;
	ip->tot_len = htons(EMU4_LEN);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = k->saddr[3];
	ip->daddr = k->daddr[3];
	/* the kernel fills in the header checksum; UDP's is optional here */
	to->v4 = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = ip->daddr };
}

/* The same for IPv6, after the datagram is filled: the kernel sends a
 * header-included IPv6 packet as it is, and UDP needs its checksum. */
static void build6(union emu_pkt *e, union emu_to *to, const struct fp_key *k, __u8 tclass)
{
	struct ip6_hdr *ip6 = &e->v6.ip6;

	ip6->ip6_flow = htonl(6U << 28 | (uint32_t)tclass << 20);
	ip6->ip6_plen = htons(sizeof(e->v6.u));
	ip6->ip6_nxt = IPPROTO_UDP;
	ip6->ip6_hlim = 64;
	memcpy(&ip6->ip6_src, k->saddr, sizeof(ip6->ip6_src));
	memcpy(&ip6->ip6_dst, k->daddr, sizeof(ip6->ip6_dst));
	e->v6.u.udp.check = udp_check(&ip6->ip6_src, &ip6->ip6_dst, sizeof(ip6->ip6_src), &e->v6.u,
				      sizeof(e->v6.u));
	/* a link-local destination is reached on the flow's interface */
	to->v6 = (struct sockaddr_in6){ .sin6_family = AF_INET6,
					.sin6_addr = ip6->ip6_dst,
					.sin6_scope_id = k->scope };
}

/* Packet @i of the batch for @f: a fp_wire of @type stamped @at, its IP
 * header's ECN field @tclass; the caller fills in the rest of the wire. */
static struct fp_wire *build_wire(struct pacer *p, struct pflow *f, size_t i, enum fp_type type,
				  uint64_t at)
{
	union emu_pkt *e = &p->pkts[i];
	struct emu_udp *u = f->v6 ? &e->v6.u : &e->v4.u;

	memset(e, 0, sizeof(*e));
	u->udp.source = f->key.sport;
	u->udp.dest = htons(p->o->port);
	u->udp.len = htons(sizeof(*u));
	u->w.magic = FP_MAGIC;
	u->w.ver_type = (__u8)(FP_VERSION << 4 | type);
	u->w.dport = f->key.dport;
	u->w.t_us = htonl((uint32_t)(at / 1000));
	u->w.secret = f->secret;
	u->w.count = 1;
	p->iov[i].iov_len = f->v6 ? EMU6_LEN : EMU4_LEN;
	p->msgs[i].msg_hdr.msg_namelen = f->v6 ? sizeof(p->to[i].v6) : sizeof(p->to[i].v4);
	p->bfd[i] = f->fd;
	p->bv6[i] = (char)f->v6;
	p->brel[i] = type == FP_RELEASE;
	return &u->w;
}

/* The headers of packet @i, after its wire: Not-ECT or ECT(0). */
static void build_ip(struct pacer *p, const struct pflow *f, size_t i, __u8 tclass)
{
	(f->v6 ? build6 : build4)(&p->pkts[i], &p->to[i], &f->key, tclass);
}

/* A release not kept: its credit will not be spent.  Said once a run:
 * releases leave at r_max in all, and behind that (20 flows starting at
 * once) or behind its CPU (a release per emulation packet doubles the
 * pacer's sends: at 1 Gbit/s more than a core here) credits are wasted. */
static void release_not_kept(struct pacer *p)
{
	if (!p->r->release_full++)
		pr_warn("pacer: a flow has %u releases pending: the releases fall behind and "
			"their credits are lost (--set release=0 spends credits as they come)\n",
			PACER_REL);
}

/* With release, the time emulation packet @due's credit becomes usable; a
 * flow with no T_wait yet has its credits taken at its ACKs. */
static void release_at(struct pacer *p, struct pflow *f, uint64_t due, uint32_t seq)
{
	if (!p->o->release || !f->t_wait_ns)
		return;
	if (!f->rel && !(f->rel = calloc(PACER_REL, sizeof(*f->rel)))) {
		release_not_kept(p);
		return;
	}
	if (f->rel_head - f->rel_tail == PACER_REL) {
		release_not_kept(p);
		return;
	}
	f->rel[f->rel_head++ % PACER_REL] = (struct prel){ .at = due + f->t_wait_ns,
							   .seq = seq,
							   .t_us = (uint32_t)(due / 1000) };
}

/* Whether @f's next emulation packet is over-provisioned: its expected
 * credits cover its demand (fp_over_provisioned()). */
static int flow_over(const struct pacer *p, const struct pflow *f)
{
	uint64_t out = fp_emu_in_flight(f->pub.sent, f->recv, f->pub.lost, f->rc.rate,
					fp_credit_overdue_us(f->rtt_ns, p->r_max));

	return fp_over_provisioned(out, p->o->rc.max_loss, f->demand);
}

/* Emulation packet @i of the batch for @f, due at @due, @over-provisioned
 * or not: its time T is when
 * it was due, not when the loop got to it, so that the credits, and the
 * data sent at T + T_wait, keep the spacing of the flow's rate even when
 * a late wake-up sends a few at once. */
static void build(struct pacer *p, struct pflow *f, size_t i, uint64_t due, int over)
{
	struct fp_wire *w = build_wire(p, f, i, FP_EMULATION, due);

	w->seq = htonl(f->pub.seq);
	w->flags = (over ? FP_WIRE_OVER : 0) | (p->o->loop ? FP_WIRE_SEED : 0);
	/* Not-ECT or ECT(0): the switch tells them apart */
	build_ip(p, f, i, over ? 0 : 2);
	release_at(p, f, due, f->pub.seq++);
	f->pub.sent++;
	f->pub.over += over;
	f->iv_sent++;
	p->r->over += over;
}

/*
 * Releases leave at PACER_REL_RATE percent of r_max in all, from a bucket
 * of PACER_REL_DEPTH, apart at PACER_REL_PEAK times that rate: each lets
 * a segment out, and the credits' spacing is the one thing that keeps a
 * shallow buffer from overflowing.  Not at r_max: the credits come at
 * r_max, at the times their emulation packets left, which bunch, and the
 * pacer, sharing two cores with the data's softirqs, misses slots; at
 * r_max every slot missed was lost for good and put a flow's segments
 * one credit behind their times, up to seconds (docs/flashpass.md,
 * "Late releases expire"; ccload flashpass flows shows it as lag).  A
 * release more than rel_expire_ns late expires instead (its credit with
 * it: fp_expire_before()), which bounds the backlog a catch-up sends.
 * Half as fast again as the credits: fast enough that a release behind
 * its time catches up before it expires, slow enough that a catch-up
 * after a stall does not overflow a shallow buffer (at twice the rate
 * it does).
 */
#define PACER_REL_RATE	150
#define PACER_REL_DEPTH 8
#define PACER_REL_PEAK	2

/* When the next release may leave. */
static uint64_t release_free(const struct pacer *p)
{
	return p->rel_free_ns > p->rel_peak_ns ? p->rel_free_ns : p->rel_peak_ns;
}

static int release_ok(const struct pacer *p, uint64_t now)
{
	return release_free(p) <= now;
}

/* Whether the bucket holds half its depth or more: a release whose credit
 * was not judged (release_seen(), release_ring()) leaves only then, so
 * that the releases of lost packets do not hold back those with credits
 * when there are more than the releases' rate. */
static int release_spare(const struct pacer *p, uint64_t now)
{
	uint64_t gap = NSEC_PER_SEC * 100 / (p->r_max * PACER_REL_RATE);

	return p->rel_free_ns + PACER_REL_DEPTH / 2 * gap <= now;
}

static void release_spent(struct pacer *p, uint64_t now)
{
	uint64_t gap = NSEC_PER_SEC * 100 / (p->r_max * PACER_REL_RATE);
	uint64_t floor = now - PACER_REL_DEPTH * gap;

	p->rel_free_ns = (p->rel_free_ns > floor ? p->rel_free_ns : floor) + gap;
	p->rel_peak_ns = now + gap / PACER_REL_PEAK;
}

/* The flow's next release, if due at @now and release_ok(): packet @i of
 * the batch, to the sender's own egress (tc/flashpass.bpf.c makes it the
 * flow's ACK). */
static int build_release(struct pacer *p, struct pflow *f, size_t i, uint64_t now)
{
	const struct prel *r;

	for (;;) {
		if (f->rel_tail == f->rel_head)
			return 0;
		r = &f->rel[f->rel_tail % PACER_REL];
		if (r->at > now || !release_ok(p, now))
			return 0;
		f->rel_tail++;
		if (r->at + p->o->rel_expire_ns < now) {
			/* its link time has passed: the flow's later credits
			 * keep theirs, this one expires (fp_expire_before()) */
			p->r->release_expired++;
			continue;
		}
		if (r->credited || (!r->seen && release_spare(p, now)))
			break;
		if (r->seen)
			p->r->release_lost++;
		else
			p->r->release_unjudged++;
	}
	release_spent(p, now);
	build_wire(p, f, i, FP_RELEASE, r->at);
	build_ip(p, f, i, 0);
	return 1;
}

/*
 * The pacer's emulation packets, all flows' together, leave at emu_cap
 * a second at most, the sum of its links' r_max (one a namespace it
 * serves), from a bucket of PACER_EMU_DEPTH a link, the emulation
 * queue's depth.  A flow's rate is at most r_max, but flows are many: a
 * process that opens a thousand of them would otherwise have the pacer
 * send a thousand links' worth.  Beyond the cap the flows due take
 * turns (fill_batch()), late, and skip ahead as any late flow does.
 */
#define PACER_EMU_DEPTH 8

static int emu_ok(const struct pacer *p, uint64_t now)
{
	return p->emu_free_ns <= now;
}

static void emu_spent(struct pacer *p, uint64_t now)
{
	uint64_t gap = NSEC_PER_SEC / p->emu_cap, depth = PACER_EMU_DEPTH * p->n_socks * gap;
	uint64_t floor = now > depth ? now - depth : 0;

	p->emu_free_ns = (p->emu_free_ns > floor ? p->emu_free_ns : floor) + gap;
}

static void count_late(struct pacer_report *r, uint64_t late_ns)
{
	r->late[late_ns <= 100000 ? 0 : late_ns <= 1000000 ? 1 : 2]++;
	if (late_ns > r->late_max_ns)
		r->late_max_ns = late_ns;
}

/*
 * Without over-provisioning (--no-over-provision), @f's expected credits
 * cover its demand: every slot due at @now passes unused, its rate stays
 * (the slots are counted in the report); with loop, the seeds left do.
 * Should the credits of its last packets never come (none for a credit's
 * overdue time and an interval, flow_quiet()), those packets are counted
 * lost: expected credits that will not come cover nothing, and it sends
 * again, or it would wait for them for good.
 */
static void flow_pause(struct pacer *p, struct pflow *f, uint64_t now)
{
	uint64_t gap = flow_gap_ns(f), n = (now - f->next_ns) / gap + 1;

	if (p->o->loop) {
		/* the seeds sent cover the demand (before their credits,
		 * the only packets the counts know of): the rest are not
		 * sent, and the loop is seeded again if it dies (flow_seed()) */
		p->r->not_over += f->seeds;
		f->seeds = 0;
		f->seed_ns = now;
		return;
	}
	if (!f->paused) {
		f->paused = 1;
	} else if (flow_quiet(p, f, now)) {
		if (f->pub.sent > f->recv + f->pub.lost)
			f->pub.lost = f->pub.sent - f->recv;
		f->quiet_ns = now;
	}
	p->r->not_over += n;
	f->next_ns += n * gap;
	f->held = 0;
}

/*
 * The packets due at @now, one per flow in turn, from a flow that moves
 * on each time: what leaves together (a late wake-up, several flows due
 * at once) is interleaved.  Flow by flow, the flows late in the order
 * would come last in every burst, and the emulation queue drops a
 * burst's tail: they would see more loss and get lower rates.  A flow
 * more than PACER_LAG_MAX behind skips whole gaps and keeps its phase:
 * restarted at @now, every flow one stall held up would send in step
 * from then on, in bursts the emulation queue's 8 packets cannot take.
 */
static size_t fill_batch(struct pacer *p, uint64_t now)
{
	size_t batch = 0, start = p->n_act ? p->rr++ % p->n_act : 0, k;
	int more = 1, over;

	for (k = 0; k < p->n_act; k++) {
		struct pflow *f = &p->flows[p->act[k]];

		if (f->next_ns + PACER_LAG_MAX < now) {
			uint64_t gap = flow_gap_ns(f), skip = (now - f->next_ns) / gap * gap;

			p->r->skipped_ns += skip;
			f->next_ns += skip;
		}
	}
	while (more && batch < PACER_BATCH) {
		more = 0;
		for (k = 0; k < p->n_act && batch < PACER_BATCH; k++) {
			struct pflow *f = &p->flows[p->act[(start + k) % p->n_act]];

			/* first the data's wake-up: it is what lands in the data queue */
			if (build_release(p, f, batch, now)) {
				batch++;
				more = 1;
				continue;
			}
			if (f->next_ns > now || (p->o->loop && !f->seeds))
				continue;
			over = flow_over(p, f);
			if (!fp_emu_wanted(&p->o->rc, over)) {
				flow_pause(p, f, now);
				continue;
			}
			if (f->paused) {
				/* no credit was due while it sent none */
				f->paused = 0;
				f->quiet_ns = now;
			}
			if (!emu_ok(p, now)) {
				f->held = 1;
				continue;
			}
			count_late(p->r, now - f->next_ns);
			build(p, f, batch++, f->next_ns, over);
			f->seeds -= f->seeds > 0;
			emu_spent(p, now);
			p->r->capped += f->held;
			f->held = 0;
			f->next_ns +=
				fp_gap_jitter(flow_gap_ns(f), p->o->jitter_pct, pacer_rnd(p, 0));
			more = 1;
		}
	}
	return batch;
}

/* Packets [@from, @to) of the batch were sent (@ok) or not. */
static void count_sent(struct pacer *p, size_t from, size_t to, int ok)
{
	for (size_t i = from; i < to; i++) {
		if (p->brel[i])
			*(ok ? &p->r->released : &p->r->release_errors) += 1;
		else if (!ok)
			p->r->send_errors++;
		else if (p->r->sent++, p->bv6[i])
			p->r->sent_v6++;
	}
}

/* Send the batch: one sendmmsg() per run of packets of one socket. */
static void send_batch(struct pacer *p, size_t n)
{
	size_t done = 0, end;
	int k;

	while (done < n) {
		for (end = done + 1; end < n && p->bfd[end] == p->bfd[done]; end++)
			;
		k = sendmmsg(p->bfd[done], p->msgs + done, (unsigned int)(end - done), 0);
		if (k <= 0) {
			/* the flows' losses: the rate control sees them */
			count_sent(p, done, end, 0);
			done = end;
			continue;
		}
		count_sent(p, done, done + (size_t)k, 1);
		done += (size_t)k;
	}
}

/* The addresses of the namespace we are in, each family's in its list;
 * a link-local IPv6 one with its interface (the kernel's sin6_scope_id),
 * as a link-local flow's key names it. */
static int psock_addrs(struct psock *ps, const char *name)
{
	struct ifaddrs *ifa = NULL, *a;
	int over = 0;

	if (getifaddrs(&ifa))
		return -errno;
	for (a = ifa; a; a = a->ifa_next) {
		const struct sockaddr *sa = a->ifa_addr;

		if (sa && sa->sa_family == AF_INET) {
			if (ps->n_addrs == PACER_ADDRS) {
				over = 1;
				continue;
			}
			ps->addrs[ps->n_addrs++] =
				((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr;
		}
		if (sa && sa->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const void *)sa;

			if (ps->n_addrs6 == PACER_ADDRS) {
				over = 1;
				continue;
			}
			ps->scope6[ps->n_addrs6] =
				IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) ? s6->sin6_scope_id : 0;
			ps->addrs6[ps->n_addrs6++] = s6->sin6_addr;
		}
	}
	freeifaddrs(ifa);
	/* a flow is paced only from an address of its namespace's list */
	if (over)
		pr_warn("pacer: %s has more than %d addresses of a family: flows from the others "
			"are not paced\n",
			name ? name : "this namespace", PACER_ADDRS);
	return 0;
}

/* The cookie of @fd's network namespace, 0 where the kernel does not
 * tell (SO_NETNS_COOKIE: 5.14 on; then the addresses alone decide). */
static uint64_t psock_netns(int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		return 0;
	return cookie;
}

/* An emulation packet probes the bottleneck's queue, so it should not
 * wait behind the sender's own data: a priority qdisc on the sender's
 * port (pfifo_fast, prio; topo_shape) sends it first.  Without one this
 * changes nothing. */
static void psock_prioritize(int fd)
{
	int prio = TC_PRIO_INTERACTIVE;

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)))
		pr_warn("pacer: SO_PRIORITY: %s\n", strerror(errno));
}

/* Raw sockets in namespace @name (NULL: ours) and its addresses.  IPv6
 * may be missing (a kernel without it): IPv4 goes on, said once. */
static int psock_open(struct pacer *p, struct psock *ps, const char *name)
{
	int one = 1, back, err = 0;

	ps->fd = ps->fd6 = -1;
	ps->n_addrs = ps->n_addrs6 = 0;
	if (netns_enter(name, &back))
		return -ENOENT;
	ps->fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (ps->fd < 0 || setsockopt(ps->fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one))) {
		err = -errno;
		pr_warn("pacer: no raw socket%s%s: %s\n", name ? " in " : "", name ? name : "",
			strerror(errno));
	} else if ((err = psock_addrs(ps, name))) {
		pr_warn("pacer: cannot list the addresses%s%s: %s\n", name ? " of " : "",
			name ? name : "", strerror(-err));
	}
	/* IPPROTO_RAW: the kernel takes the IPv6 header from us (hdrincl) */
	ps->fd6 = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	if (ps->fd6 < 0 && !p->warned_v6++)
		pr_warn("pacer: no IPv6 raw socket%s%s (%s): IPv6 flows are not paced\n",
			name ? " in " : "", name ? name : "", strerror(errno));
	psock_prioritize(ps->fd);
	psock_prioritize(ps->fd6);
	ps->netns = psock_netns(ps->fd >= 0 ? ps->fd : ps->fd6);
	netns_leave(back);
	return err;
}

/* loop: what the kernel's loop needs of the pacer (fp_loop_cfg), or with
 * @off nothing (its loops end at their next credit).  0, or < 0. */
static int loop_write(struct pacer *p, int off)
{
	struct fp_loop_cfg c = { .r_max = p->r_max,
				 .host_pps = p->emu_cap,
				 .interval_ns = interval_ns(p),
				 .rc = p->o->rc };
	__u32 zero = 0;
	int err;

	if (off)
		memset(&c, 0, sizeof(c));
	err = bpf_map_update_elem(p->fd_loop, &zero, &c, BPF_ANY);
	if (err)
		pr_warn("pacer: cannot write fp_loop_cfg: %s\n", strerror(-err));
	p->loop_iv_ns = c.interval_ns;
	return err;
}

static int pacer_open(struct pacer *p)
{
	char dir[256];

	/* the keys' and values' layout this build's: one attached by another
	 * build (its pins outlive it) would be read and written wrong */
	p->fd_ledgers = pin_open_map("bpf_flashpass", "fp_ledgers", sizeof(struct fp_key),
				     sizeof(struct fp_ledger));
	p->fd_emu = pin_open_map("bpf_flashpass", "fp_emu", sizeof(struct fp_key),
				 sizeof(struct fp_emu));
	if (p->o->loop && p->fd_ledgers >= 0 && p->fd_emu >= 0)
		p->fd_loop = pin_open_map("bpf_flashpass", "fp_loop_cfg", sizeof(__u32),
					  sizeof(struct fp_loop_cfg));
	if (p->fd_ledgers < 0 || p->fd_emu < 0 || (p->o->loop && p->fd_loop < 0)) {
		pin_dir("bpf_flashpass", dir, sizeof(dir));
		if (errno == EBADMSG)
			pr_warn("pacer: bpf_flashpass in %s was attached by another build of "
				"ccsuite: detach it and attach this build's\n",
				dir);
		else
			pr_warn("pacer: bpf_flashpass's maps are not pinned in %s: attach it "
				"first\n",
				dir);
		return -ENOENT;
	}
	for (size_t i = 0; i < (p->o->n_netns ? p->o->n_netns : 1); i++) {
		/* counted first: psock_open() leaves a closed one at worst */
		int err = psock_open(p, &p->socks[p->n_socks++],
				     p->o->n_netns ? p->o->netns[i] : NULL);

		if (err)
			return err;
	}
	for (size_t i = 0; i < PACER_BATCH; i++) {
		/* lengths: build(), per packet's family */
		p->iov[i] = (struct iovec){ .iov_base = &p->pkts[i] };
		p->msgs[i].msg_hdr = (struct msghdr){ .msg_name = &p->to[i],
						      .msg_iov = &p->iov[i],
						      .msg_iovlen = 1 };
	}
	return 0;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static struct timespec timespec_of_ns(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) };
}

/*
 * On time or in bursts: a pacer that wakes late sends what fell due
 * together, and the emulation queue's 8 packets take a burst of about
 * 1 ms at the link rate.  Under CFS a busy machine wakes it milliseconds
 * late; a real-time priority wakes it on time.
 */
static void set_rt_priority(unsigned int prio)
{
	struct sched_param sp = { .sched_priority = (int)prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		pr_warn("pacer: no real-time priority (%s): it may wake late and send in bursts\n",
			strerror(errno));
}

static int pacer_init(struct pacer *p, const struct pacer_opts *o, struct pacer_report *r)
{
	int err;

	p->o = o;
	p->r = r;
	p->fd_ledgers = p->fd_emu = p->fd_loop = -1;
	p->r_max = fp_emu_pps_max(o->link_bps);
	p->flows = calloc(PACER_FLOWS, sizeof(*p->flows));
	p->sweep_keys = calloc(PACER_SWEEP, sizeof(*p->sweep_keys));
	p->sweep_ledgers = calloc(PACER_SWEEP, sizeof(*p->sweep_ledgers));
	memset(p->idx, -1, sizeof(p->idx));
	err = p->flows && p->sweep_keys && p->sweep_ledgers ? pacer_open(p) : -ENOMEM;
	p->emu_cap = p->r_max * p->n_socks;
	if (!err && p->o->loop)
		err = loop_write(p, 0);
	return err;
}

/* Read the ledgers; the rate control right after the credit counts were
 * read, over at least one scan period. */
static void scan_and_control(struct pacer *p, uint64_t now)
{
	scan(p, now);
	p->next_scan = now + (uint64_t)p->o->scan_us * 1000;
	if (p->o->loop && interval_ns(p) != p->loop_iv_ns)
		loop_write(p, 0);
	for (size_t i = 0; i < p->n_act; i++)
		flow_control(p, &p->flows[p->act[i]], now);
}

/* When the next packet is due, or the next scan if that comes first. */
static uint64_t next_due(const struct pacer *p)
{
	uint64_t earliest = p->next_scan;

	for (size_t i = 0; i < p->n_act; i++) {
		const struct pflow *f = &p->flows[p->act[i]];

		/* its next packet, or the rate cap's next */
		if (p->o->loop && !f->seeds)
			continue;
		if (f->next_ns < earliest && p->emu_free_ns < earliest)
			earliest = f->next_ns > p->emu_free_ns ? f->next_ns : p->emu_free_ns;
		if (f->rel_tail != f->rel_head) {
			uint64_t at = f->rel[f->rel_tail % PACER_REL].at;

			if (at < release_free(p))
				at = release_free(p);
			if (at < earliest)
				earliest = at;
		}
	}
	return earliest;
}

static void count_peak(struct pacer *p, uint64_t now, size_t sent)
{
	p->sec_sent += sent;
	if (now - p->sec_start >= NSEC_PER_SEC) {
		if (p->sec_sent > p->r->peak_pps)
			p->r->peak_pps = p->sec_sent;
		p->sec_start = now;
		p->sec_sent = 0;
	}
}

/*
 * More are due: the pacer is behind.  At a real-time priority it would
 * now keep its CPU from softirqs, which carry the credits back, and from
 * everything else: it gives up as long again as it has used since the
 * loop began at @now (half a CPU at most, and the flows behind it skip
 * ahead, PACER_LAG_MAX).
 */
static void yield_when_behind(const struct pacer *p, uint64_t now)
{
	if (p->o->rt_priority) {
		struct timespec ts = timespec_of_ns(mono_ns() - now);

		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
}

/* One turn: scan and rate control when due, the packets due now, then
 * sleep until the next is due. */
static void pacer_turn(struct pacer *p)
{
	uint64_t now = mono_ns(), earliest;
	size_t batch;

	if (now >= p->next_scan)
		scan_and_control(p, now);
	batch = fill_batch(p, now);
	earliest = next_due(p);
	if (batch)
		send_batch(p, batch);
	count_peak(p, now, batch);
	if (batch == PACER_BATCH) {
		yield_when_behind(p, now);
		return;
	}
	if (earliest > now) {
		struct timespec ts = timespec_of_ns(earliest);

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* The raw sockets: the worker's alone once it runs. */
static void psocks_close(struct pacer *p)
{
	for (size_t i = 0; i < p->n_socks; i++) {
		if (p->socks[i].fd >= 0)
			close(p->socks[i].fd);
		if (p->socks[i].fd6 >= 0)
			close(p->socks[i].fd6);
		p->socks[i].fd = p->socks[i].fd6 = -1;
	}
}

static void pacer_free(struct pacer *p)
{
	psocks_close(p);
	if (p->fd_ledgers >= 0)
		close(p->fd_ledgers);
	if (p->fd_emu >= 0)
		close(p->fd_emu);
	if (p->fd_loop >= 0)
		close(p->fd_loop);
	for (size_t i = 0; p->flows && i < p->n; i++)
		free(p->flows[i].rel);
	free(p->flows);
	free(p->sweep_keys);
	free(p->sweep_ledgers);
	free(p);
}

/* The worker's user and group once set up: the kernel's overflow ID
 * (nobody and nogroup on Debian), no account's files. */
#define PACER_UID 65534

static int caps_get(uint64_t *eff, uint64_t *prm)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &h, d))
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

/* Effective @eff and permitted @prm; none inheritable. */
static int caps_set(uint64_t eff, uint64_t prm)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	d[0].effective = (uint32_t)eff;
	d[1].effective = (uint32_t)(eff >> 32);
	d[0].permitted = (uint32_t)prm;
	d[1].permitted = (uint32_t)(prm >> 32);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static int drop_failed(const char *what, int err)
{
	pr_warn("pacer: cannot drop its privileges (%s: %s): it does not run privileged\n", what,
		strerror(-err));
	return err;
}

/*
 * After set-up the worker needs no privilege: its raw sockets and map
 * descriptors are open, and the kernel checks those when they are
 * opened (a raw socket's CAP_NET_RAW, a pin's mode), not at each send
 * or lookup.  It keeps CAP_BPF only where bpf() refuses every command
 * without it (older kernels with unprivileged BPF off; newer ones refuse
 * only the making of maps and programs), which a ledger read with no
 * effective capability shows.  Then: every other
 * capability gone from every set and from the bounding set, uid and
 * gid nobody (uid 0 without capabilities still owns root's files, the
 * bpffs pins of every algorithm among them), no privilege from an exec
 * (no_new_privs).  The worker reads what sockets of any namespace write
 * into the ledgers; a fault there cannot act as root.  Its parent keeps
 * root's privileges to remove what run attached, and does nothing else.
 */
static int pacer_drop(const struct pacer *p, pid_t parent)
{
	uint64_t eff, prm, keep = 0;
	struct fp_key k;
	int c, err;

	if ((err = caps_get(&eff, &prm)) || (err = caps_set(0, prm)))
		return drop_failed("capset", err);
	if (bpf_map_get_next_key(p->fd_ledgers, NULL, &k) && errno == EPERM)
		keep = 1ULL << CAP_BPF;
	if ((err = caps_set(prm, prm)))
		return drop_failed("capset", err);
	for (c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (!(keep >> c & 1) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0))
			return drop_failed("PR_CAPBSET_DROP", -errno);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return drop_failed("PR_CAP_AMBIENT", -errno);
	/* a change of uid empties the permitted set, unless told to keep it */
	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return drop_failed("PR_SET_KEEPCAPS", -errno);
	if (setgroups(0, NULL) || setresgid(PACER_UID, PACER_UID, PACER_UID) ||
	    setresuid(PACER_UID, PACER_UID, PACER_UID))
		return drop_failed("setresuid", -errno);
	if ((err = caps_set(keep, keep)))
		return drop_failed("capset", err);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return drop_failed("PR_SET_NO_NEW_PRIVS", -errno);
	/* after the change of credentials, which clears it: a worker whose
	 * parent died (SIGKILL) stops rather than pace on unsupervised */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0))
		return drop_failed("PR_SET_PDEATHSIG", -errno);
	if (getppid() != parent)
		return drop_failed("its parent", -ESRCH);
	if ((err = caps_get(&eff, &prm)) || eff != keep || prm != keep)
		return drop_failed("capabilities left", err ? err : -EPERM);
	return 0;
}

/* The worker: set its priority, drop its privileges, pace until *@stop;
 * its report in @p's (shared) one. */
static int pacer_work(struct pacer *p, volatile sig_atomic_t *stop, pid_t parent)
{
	struct pacer_report *r = p->r;
	uint64_t t0 = mono_ns();
	double cpu0 = cpu_seconds();
	int err;

	p->sec_start = t0;
	if (p->o->rt_priority)
		set_rt_priority(p->o->rt_priority);
	err = pacer_drop(p, parent);
	while (!err && !*stop)
		pacer_turn(p);
	/* the pacer's view goes with it, and the loops it started */
	for (size_t i = 0; i < p->n; i++)
		bpf_map_delete_elem(p->fd_emu, &p->flows[i].key);
	if (p->o->loop)
		loop_write(p, 1);
	r->wall_s = (double)(mono_ns() - t0) / 1e9;
	r->cpu_s = cpu_seconds() - cpu0;
	return err;
}

static void on_child(int sig)
{
	(void)sig;
}

/* What is left of the view of a worker that did not end as it should:
 * one pacer runs on the host (ccload's lock), so all of it is its. */
static void view_clear(struct pacer *p)
{
	struct fp_key k;

	while (!bpf_map_get_next_key(p->fd_emu, NULL, &k))
		if (bpf_map_delete_elem(p->fd_emu, &k))
			break;
	if (p->o->loop)
		loop_write(p, 1);
}

/*
 * The worker runs in a child process; this one waits for it, passes a
 * stop on as SIGTERM, and returns its status.  The stop signals and
 * SIGCHLD are blocked but while it sleeps in sigsuspend(), so that none
 * comes between the check of *@stop and the sleep.
 */
static int pacer_supervise(struct pacer *p, volatile sig_atomic_t *stop)
{
	static const int sigs[] = PACER_STOP_SIGNALS;
	struct sigaction chld = { .sa_handler = on_child }, old_chld;
	sigset_t block, old, wait_mask;
	pid_t parent = getpid(), pid, w;
	int status = 0, killed = 0, err = 0;

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&block, sigs[i]);
	sigaddset(&block, SIGCHLD);
	sigaction(SIGCHLD, &chld, &old_chld);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
		_exit(pacer_work(p, stop, parent) ? 1 : 0);
	}
	if (pid < 0) {
		err = -errno;
		pr_warn("pacer: cannot start its worker: %s\n", strerror(errno));
	} else {
		psocks_close(p);
		wait_mask = old;
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			sigdelset(&wait_mask, sigs[i]);
		sigdelset(&wait_mask, SIGCHLD);
		while ((w = waitpid(pid, &status, WNOHANG)) == 0) {
			if (*stop && !killed)
				killed = !kill(pid, SIGTERM);
			sigsuspend(&wait_mask);
		}
		if (w < 0) {
			err = -errno;
		} else if (WIFSIGNALED(status)) {
			pr_warn("pacer: its worker died of signal %d\n", WTERMSIG(status));
			err = -EINTR;
		} else if (WEXITSTATUS(status)) {
			err = -EIO;
		}
		if (err)
			view_clear(p);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
	return err;
}

int pacer_run(const struct pacer_opts *o, volatile sig_atomic_t *stop, struct pacer_report *r)
{
	struct pacer *p = calloc(1, sizeof(*p));
	struct pacer_report *shared;
	int err;

	memset(r, 0, sizeof(*r));
	if (!p)
		return -ENOMEM;
	/* the worker's report, where this process reads it */
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (shared == MAP_FAILED) {
		free(p);
		return -ENOMEM;
	}
	err = pacer_init(p, o, shared);
	if (!err)
		err = pacer_supervise(p, stop);
	*r = *shared;
	munmap(shared, sizeof(*shared));
	pacer_free(p);
	return err;
}
